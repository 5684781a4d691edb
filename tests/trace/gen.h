// SPDX-License-Identifier: GPL-2.0
// Synthetic traces for the trace tests and benchmarks: two processes on
// two CPUs, each IO as Q G I D C (with merges, plugs and messages), as
// events, blktrace binary files or blkparse text.
#pragma once

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include "trace/blkparse.h"
#include "trace/blktrace.h"
#include "trace/event.h"

namespace efqsim::trace::testgen {

inline Event ev(int64_t t, uint32_t cpu, uint32_t pid, char a, uint32_t rwbs, uint64_t sector,
		uint32_t sectors, const std::string &comm)
{
	Event e;
	e.time_ns = t;
	e.cpu = cpu;
	e.pid = pid;
	e.dev = make_dev(8, 0);
	e.action = a;
	e.rwbs = rwbs;
	e.sector = sector;
	e.sectors = sectors;
	e.comm = a == 'C' ? "" : comm;
	return e;
}

// @n IOs per process: "reader" (pid 100, cgroup id 11, cpu 0, sync reads)
// and "writer" (pid 200, cgroup id 22, cpu 1, writes), interleaved; every
// 8th writer IO is back-merged into the one before it, and the first is
// preceded by a plug, an unplug and a message.  Per CPU, in time order.
inline std::vector<std::vector<Event>> two_processes(int n, bool cgroups = true)
{
	std::vector<std::vector<Event>> cpus(2);
	uint64_t seq[2] = {1, 1};
	auto push = [&](Event e) {
		e.seq = seq[e.cpu]++;
		if (cgroups && e.action != 'm') {
			e.has_cgroup = true;
			e.cgroup = e.pid == 100 ? 11 : 22;
		}
		cpus[e.cpu].push_back(e);
	};
	Event m = ev(0, 0, 0, 'm', 0, 0, 0, "");
	m.message = "efq test trace";
	m.comm.clear();
	push(m);
	push(ev(10, 0, 100, 'P', 0, 0, 0, "reader"));
	push(ev(20, 0, 100, 'U', 0, 0, 0, "reader"));
	int64_t t = 1000;
	uint64_t wsector = 1'000'000;
	for (int i = 0; i < n; i++, t += 100'000) {
		uint64_t rs = static_cast<uint64_t>(i) * 64;
		push(ev(t, 0, 100, 'Q', kData | kSync, rs, 8, "reader"));
		push(ev(t + 1000, 0, 100, 'G', kData | kSync, rs, 8, "reader"));
		push(ev(t + 2000, 0, 100, 'I', kData | kSync, rs, 8, "reader"));
		push(ev(t + 3000, 0, 100, 'D', kData | kSync, rs, 8, "reader"));
		push(ev(t + 50'000, 0, 0, 'C', kData | kSync, rs, 8, ""));
		bool merge = i % 8 == 7;
		int64_t wt = t + 500;
		if (merge) {
			// Queued right behind the previous write, merged into it
			// before that one was issued (timing is synthetic).
			push(ev(wt, 1, 200, 'Q', kWrite | kData, wsector, 16, "writer"));
			push(ev(wt + 100, 1, 200, 'M', kWrite | kData, wsector, 16, "writer"));
			wsector += 16;
			continue;
		}
		push(ev(wt, 1, 200, 'Q', kWrite | kData, wsector, 16, "writer"));
		push(ev(wt + 1000, 1, 200, 'G', kWrite | kData, wsector, 16, "writer"));
		push(ev(wt + 2000, 1, 200, 'I', kWrite | kData, wsector, 16, "writer"));
		// Issue and completion after the next IO's merge window: the
		// completion covers the merged request.
		bool next_merges = (i + 1) % 8 == 7 && i + 1 < n;
		int64_t done = next_merges ? t + 100'000 + 60'000 : t + 80'000;
		uint32_t len = next_merges ? 32 : 16;
		push(ev(done - 10'000, 1, 200, 'D', kWrite | kData, wsector, len, "writer"));
		push(ev(done, 1, 0, 'C', kWrite | kData, wsector, len, ""));
		wsector += 16;
	}
	for (auto &c : cpus)
		std::stable_sort(c.begin(), c.end(), [](const Event &a, const Event &b) {
			return a.time_ns < b.time_ns;
		});
	for (auto &c : cpus) {
		uint64_t s = 1;
		for (auto &e : c)
			e.seq = s++;
	}
	return cpus;
}

// One CPU's events as a blktrace file's bytes (a process notify record
// before each pid's first event).
inline std::string binary(const std::vector<Event> &events, bool swap = false)
{
	std::string out;
	std::vector<uint32_t> seen;
	for (const Event &e : events) {
		bool first = e.pid && !e.comm.empty() &&
			     std::find(seen.begin(), seen.end(), e.pid) == seen.end();
		if (first)
			seen.push_back(e.pid);
		Event copy = e;
		out += encode_event(copy, first, swap);
	}
	return out;
}

// All CPUs' events merged in time order, as blkparse prints them, with
// a summary at the end.
inline std::string text(const std::vector<std::vector<Event>> &cpus)
{
	std::vector<Event> all;
	for (const auto &c : cpus)
		all.insert(all.end(), c.begin(), c.end());
	std::stable_sort(all.begin(), all.end(), [](const Event &a, const Event &b) {
		return a.time_ns < b.time_ns || (a.time_ns == b.time_ns && a.seq < b.seq);
	});
	std::string out;
	for (const Event &e : all)
		out += format_event(e);
	out += "CPU0 (8,0):\n Reads Queued:           1,        4KiB\t Writes Queued:           0,"
	       "        0KiB\nTotal (8,0):\n Reads Queued:           1,        4KiB\n\n"
	       "Throughput (R/W): 4KiB/s / 0KiB/s\nEvents (8,0): 5 entries\nSkips: 0 forward "
	       "(0 -   0.0%)\n";
	return out;
}

inline void write_file(const std::string &path, const std::string &bytes)
{
	std::ofstream(path, std::ios::binary) << bytes;
}

} // namespace efqsim::trace::testgen
