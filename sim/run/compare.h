// SPDX-License-Identifier: GPL-2.0
// `efqsim compare`: the same job files under every scheduler (efq's cfq,
// deadline-fq, as, noop, each flat and hierarchical, and Linux's own
// mq-deadline, which knows no groups: flat only), side by side, so a user
// can choose a scheduler for a workload.  Documentation/sim/efqsim.rst.
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "report/results.h"
#include "run/run.h"

namespace efqsim::run {

// The schedulers compare runs, in table order: efq's four, then
// mq-deadline if it was built (EFQ_LINUX_SCHEDULERS).
const std::vector<std::string> &compare_schedulers();

// One cgroup's figures in one run.  The share is the cgroup's part of the
// device busy time of all the job cgroups (the device's own measurement,
// which flat and hierarchical runs both have); bandwidth and latencies
// cover every job in the cgroup, both directions.
struct CompareGroup {
	std::string path; // "/" for jobs without a cgroup
	unsigned int weight = 0;
	double share_pct = 0;
	double bw_mbps = 0;	// 10^6 bytes/s over the run's duration
	double clat_p99_ms = 0; // completion latency
	double clat_max_ms = 0;
	uint64_t ios = 0;
};

struct CompareRow {
	std::string scheduler;
	bool hierarchical = true;
	// The --set tunables applied in this run, and those left out because
	// this scheduler has no such tunable.
	std::vector<std::pair<std::string, std::string>> applied;
	std::vector<std::string> skipped;
	double total_mbps = 0;
	int64_t duration_ns = 0;
	std::vector<CompareGroup> groups; // in the order the jobs name them
};

struct Comparison {
	std::vector<std::string> jobfiles;
	std::string device;
	uint64_t seed = 0;
	// compare_schedulers() x {hier, flat}; flat only for mq-deadline
	std::vector<CompareRow> rows;
};

// Runs @paths under every scheduler, hierarchical then flat (a scheduler
// without groups, mq-deadline: flat only).  @base gives
// the device, the seed, the --set tunables and the progress callback; its
// scheduler and hierarchical are ignored.  A tunable is applied only to the
// schedulers that have it (the row notes the others); one that no scheduler
// has, "hierarchical" (compare sets it itself), or a value a scheduler
// rejects is bad input.  @starting (may be empty) is told each run's name
// ("cfq hierarchical") as it starts.  A run that reaches the simulated-time
// limit keeps its row (the first 24 h) and the others still run; then
// Status::time_limit, *err naming those runs.
Status compare(const Setup &base, const std::vector<std::string> &paths, Comparison *out,
	       std::string *err, const std::function<void(const std::string &)> &starting = {});

// The same for job files already read (workload::read_jobfile(), or jobs
// given on the command line); the table names them by JobSource::name.
Status compare(const Setup &base, const std::vector<workload::JobSource> &sources, Comparison *out,
	       std::string *err, const std::function<void(const std::string &)> &starting = {});

// The side-by-side table; one line per cgroup and run.
void print_comparison(const Comparison &c, std::ostream &out);
// The same as JSON (ends in a newline).
std::string comparison_json(const Comparison &c);

} // namespace efqsim::run
