// SPDX-License-Identifier: GPL-2.0
// Hand-built RunResults for the report tests.
#pragma once

#include <cstdint>
#include <string>

#include "report/results.h"

namespace efqsim::report::test {

// A direction that moved @ios IOs of @bs bytes in @runtime_ns, with
// completion latencies base, base + step, ..., cycling over @spread values,
// and total latencies 10 us longer.
inline DirStats make_dir(uint64_t ios, uint32_t bs, int64_t runtime_ns, int64_t base, int64_t step,
			 int spread)
{
	DirStats d;
	d.ios = ios;
	d.io_bytes = ios * bs;
	d.runtime_ns = runtime_ns;
	for (uint64_t i = 0; i < ios; i++) {
		int64_t v = base + step * static_cast<int64_t>(i % static_cast<uint64_t>(spread));
		d.clat.add(v);
		d.lat.add(v + 10000);
	}
	return d;
}

// Two readers in cgroups /a (weight 1000) and /b (weight 500) in reporting
// group 0, a writer in /b in reporting group 1; hierarchical noop on hdd,
// 30 s simulated.  The group figures are inclusive: the root's cover
// everybody (here the root had no IO of its own).
inline RunResult two_groups()
{
	RunResult r;
	r.efqsim_version = "0.1";
	r.seed = 42;
	r.nr_requests = 62;
	r.device = "hdd";
	r.scheduler = "noop";
	r.hierarchical = true;
	r.tunables = {{"slice_sync", "100"}, {"fairness", "1"}, {"quantum", "4"}};
	r.duration_ns = 30'000'000'000;
	r.global_options = {{"ioengine", "psync"}, {"bs", "4k"}, {"runtime", "30"}};

	JobResult a;
	a.jobname = "a";
	a.groupid = 0;
	a.cgroup = "/a";
	a.pid = 101;
	a.options = {{"rw", "read"}, {"cgroup", "a"}, {"cgroup_weight", "1000"}};
	// 7500 x 4 KiB in 30 s: 250 IOPS, 1000 KiB/s; clat 2.50 .. 6.46 ms.
	a.read = make_dir(7500, 4096, 30'000'000'000, 2'500'000, 40'000, 100);

	JobResult b = a;
	b.jobname = "b";
	b.cgroup = "/b";
	b.pid = 102;
	b.options = {{"rw", "read"}, {"cgroup", "b"}, {"cgroup_weight", "500"}};
	// 3750 x 4 KiB in 30 s: 125 IOPS, 500 KiB/s; clat 4.0 .. 11.92 ms.
	b.read = make_dir(3750, 4096, 30'000'000'000, 4'000'000, 80'000, 100);

	JobResult w;
	w.jobname = "w";
	w.groupid = 1;
	w.cgroup = "/b";
	w.pid = 103;
	w.options = {{"rw", "write"}, {"cgroup", "b"}};
	// 1000 x 64 KiB in 10 s: 100 IOPS, 6400 KiB/s; clat 300 .. 1290 us.
	w.write = make_dir(1000, 65536, 10'000'000'000, 300'000, 10'000, 100);

	r.jobs = {a, b, w};

	GroupResult root{"/", 1000, 2, 29990.0, 300000, 10, 9, 29950.0};
	GroupResult ga{"/a", 1000, 2, 19990.0, 240000, 5, 4, 19960.0};
	GroupResult gb{"/b", 500, 2, 10000.0, 60000, 5, 5, 9990.0};
	// Out of order on purpose: the reports sort by path.
	r.groups = {gb, root, ga};
	return r;
}

} // namespace efqsim::report::test
