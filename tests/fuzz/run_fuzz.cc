// SPDX-License-Identifier: GPL-2.0
// Fuzzes one bounded simulation (sim/run, sim/blk, the schedulers in
// block/, the job engine and page cache in sim/workload): the input's first
// byte picks the scheduler, flat or hierarchical, the device and
// nr_requests; the rest is a job file.  The jobs are bounded (bound_jobs:
// at most 8 clones of at most 32 IOs and 50 ms each), so one input takes
// milliseconds.  The run must end well (the model's own checks: every
// request dispatched and completed once, nothing left in the scheduler) or
// the jobs must be bad input with a message; each job moves at most its
// bounded bytes.
#include <cstdint>
#include <string>

#include "blk/model.h"
#include "dev/device.h"
#include "fuzz.h"
#include "run/run.h"
#include "workload/jobfile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const schedulers[] = {"cfq", "deadline-fq", "as", "noop", "mq-deadline"};
	static const char *const devices[] = {"null", "ssd", "hdd", "multipath"};
	static const unsigned int nr_requests[] = {0, 4, 16, 64};
	if (size < 1)
		return -1;
	efqsim::run::Setup setup;
	setup.scheduler = schedulers[(data[0] & 7) % 5];
	setup.hierarchical = data[0] & 8;
	setup.device = devices[(data[0] >> 4) & 3];
	setup.nr_requests = nr_requests[data[0] >> 6];
	setup.seed = size;
	efqsim::blk::ensure_modules();
	if (!efqsim::blk::scheduler_exists(setup.scheduler))
		return -1; // built without Linux's mq-deadline

	std::string err;
	std::unique_ptr<efqsim::dev::Device> dev = efqsim::dev::make_device(setup.device, &err);
	if (!dev)
		efqfuzz::fail("built-in device " + setup.device + ": " + err);
	efqsim::workload::ParseContext ctx;
	ctx.capacity_bytes = dev->capacity_sectors() * 512;
	ctx.scheduler_names = efqsim::run::scheduler_names(setup.scheduler);
	ctx.seed = setup.seed;
	efqsim::workload::JobFileInfo info;
	std::string text(reinterpret_cast<const char *>(data) + 1, size - 1);
	std::vector<efqsim::workload::JobSpec> jobs =
		efqsim::workload::parse_jobs({{"job.fio", text}}, ctx, &err, &info);
	if (jobs.empty()) {
		efqfuzz::check_message(err, "job.fio");
		return 0;
	}
	efqfuzz::bound_jobs(jobs);
	std::vector<uint64_t> limit;
	for (const auto &j : jobs)
		limit.push_back(j.io_bytes);

	efqsim::report::RunResult r;
	efqsim::run::Status st = efqsim::run::run_jobs(setup, jobs, info, &r, &err);
	if (st == efqsim::run::Status::internal)
		efqfuzz::fail("internal error: " + err);
	if (st == efqsim::run::Status::bad_input) {
		efqfuzz::check_message(err, "");
		return 0;
	}
	if (r.jobs.size() != jobs.size())
		efqfuzz::fail(std::to_string(r.jobs.size()) + " job results for " +
			      std::to_string(jobs.size()) + " jobs");
	for (size_t i = 0; i < jobs.size(); i++) {
		const auto &j = r.jobs[i];
		if (j.read.io_bytes + j.write.io_bytes >
		    limit[i] + std::max(jobs[i].bs_read, jobs[i].bs_write))
			efqfuzz::fail(jobs[i].where + ": " +
				      std::to_string(j.read.io_bytes + j.write.io_bytes) +
				      " bytes moved for a limit of " + std::to_string(limit[i]));
	}
	return 0;
}
