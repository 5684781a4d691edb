// SPDX-License-Identifier: GPL-2.0
// Fuzzes the fio job-file parser (sim/workload/jobfile.cc): one or more job
// files (split at kFileSeparator, named f0, f1, ...) parsed in memory for a
// 64 GiB device under cfq.  A bad file must fail with "fN:LINE: message"
// (or "fN: message"); the jobs of a good one must fit the device and have
// sane block sizes, depths and weights.
#include <cstdint>
#include <string>

#include "fuzz.h"
#include "workload/jobfile.h"

using efqsim::workload::JobSpec;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	std::vector<efqsim::workload::JobSource> sources;
	for (const std::string &text : efqfuzz::split_files(data, size))
		sources.push_back({"f" + std::to_string(sources.size()), text});
	efqsim::workload::ParseContext ctx;
	ctx.capacity_bytes = uint64_t{64} << 30;
	ctx.scheduler_names = {"cfq"};
	ctx.seed = size;
	std::string err;
	efqsim::workload::JobFileInfo info;
	std::vector<JobSpec> jobs = efqsim::workload::parse_jobs(sources, ctx, &err, &info);
	if (jobs.empty()) {
		efqfuzz::check_message(err, "f");
		return 0;
	}
	if (!err.empty())
		efqfuzz::fail("jobs and an error: " + err);
	for (const JobSpec &j : jobs) {
		const std::string what = j.where + " (" + j.name + "): ";
		if (j.region_start + j.region_bytes > ctx.capacity_bytes ||
		    j.region_start + j.region_bytes < j.region_start)
			efqfuzz::fail(what + "region past the device");
		if (j.file_start + j.file_bytes > ctx.capacity_bytes ||
		    j.region_start < j.file_start ||
		    j.region_start + j.region_bytes > j.file_start + j.file_bytes)
			efqfuzz::fail(what + "region outside its file");
		for (uint32_t bs : {j.bs_read, j.bs_write})
			if (bs == 0 || bs % 512 || bs > j.region_bytes)
				efqfuzz::fail(what + "block size " + std::to_string(bs) +
					      " for a region of " + std::to_string(j.region_bytes));
		if (j.effective_depth() == 0 || j.numjobs < 1 || j.clone >= j.numjobs)
			efqfuzz::fail(what + "depth or clones");
		if (j.cgroup_weight && (j.cgroup_weight < 100 || j.cgroup_weight > 1000))
			efqfuzz::fail(what + "weight " + std::to_string(j.cgroup_weight));
		if (j.rwmixread > 100 || j.runtime_ns < 0 || j.ramp_ns < 0 || j.startdelay_ns < 0 ||
		    j.thinktime_ns < 0)
			efqfuzz::fail(what + "a negative time or a mix past 100%");
	}
	return 0;
}
