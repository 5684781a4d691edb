// SPDX-License-Identifier: GPL-2.0
// One simulated run: job files (or parsed jobs) on a device under a
// scheduler, to a report::RunResult.  The efqsim program, `efqsim compare`,
// the scenario tests and the demo all run jobs through here, so a run means
// the same thing everywhere.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "report/results.h"
#include "workload/jobfile.h"

namespace efqsim::blk {
class Model;
}
namespace efqsim::dev {
class Device;
}

namespace efqsim::run {

constexpr const char *kVersion = "0.1";

struct Setup {
	std::string device = "hdd"; // make_device(): hdd, ssd, null or a parameter file
	std::string scheduler = "noop";
	// efq's schedulers: cgroups get their weights (else flat).  Linux's
	// mq-deadline knows no groups: its runs are flat whatever this says.
	bool hierarchical = true;
	// "name=value", applied through the scheduler's sysfs attributes.
	std::vector<std::pair<std::string, std::string>> tunables;
	uint64_t seed = 0;
	// Scheduler tags (blk-mq's nr_requests); 0: 2 x min(queue depth, 128).
	unsigned int nr_requests = 0;
	// Called about once per simulated second with the seconds simulated
	// so far (the CLI's progress line); may be empty.
	std::function<void(int64_t seconds)> progress;
	// Called once after a successful run, with the block layer model
	// (its counters, e.g. the average request size, and its device); may
	// be empty.
	std::function<void(const blk::Model &)> inspect;
	// Called with the device before the run starts (e.g. to trace what
	// it decides); may be empty.
	std::function<void(dev::Device &)> prepare_device;
	// Called with a job run's parsed jobs before they start (the fuzzers
	// bound each job's time and IO); may be empty.
	std::function<void(std::vector<workload::JobSpec> &)> prepare_jobs;
};

enum class Status {
	ok,
	bad_input, // the device, scheduler, tunables or jobs are wrong: *err says why
	internal,  // an invariant of the simulation broke: *err says which
	// The run reached the simulated-time limit (kMaxSimNs after the start,
	// or after the end of a replayed trace) without finishing: *result
	// holds the report up to then (RunResult::stopped says so), *err too.
	// The workload was stopped and the IO it had outstanding drained, so
	// that nothing is left behind.
	time_limit,
};

// The simulated-time limit of a run: a run that has not finished after
// this much simulated time (a replay: after the end of its trace) stops
// with Status::time_limit.
constexpr int64_t kMaxSimNs = int64_t{24} * 3600 * 1'000'000'000;

// The names ioscheduler= accepts for @scheduler: its name and its alias,
// as the scheduler registered them ("as" and "anticipatory", "mq-deadline"
// and "deadline"); just @scheduler if no such scheduler is registered.
std::vector<std::string> scheduler_names(const std::string &scheduler);
// The schedulers efqsim has, for messages: "cfq, deadline-fq, as, noop,
// mq-deadline" (mq-deadline when it was built, EFQ_LINUX_SCHEDULERS).
std::string scheduler_list();

// Parses @paths as fio job files for @setup's device and runs them.
Status run_jobfiles(const Setup &setup, const std::vector<std::string> &paths,
		    report::RunResult *result, std::string *err);

// The same for job files already read (workload::read_jobfile(), or jobs
// given on the command line).
Status run_sources(const Setup &setup, const std::vector<workload::JobSource> &sources,
		   report::RunResult *result, std::string *err);

// Runs jobs already parsed (with a ParseContext for @setup's device).
// The simulated block layer for @setup: its device (prepared with
// setup.prepare_device), scheduler, mode and tunables, initialised.  NULL
// with *err on bad input; *device_name is the device's name.
std::unique_ptr<blk::Model> make_model(const Setup &setup, std::string *device_name,
				       std::string *err);

Status run_jobs(const Setup &setup, std::vector<workload::JobSpec> jobs,
		const workload::JobFileInfo &info, report::RunResult *result, std::string *err);

} // namespace efqsim::run
