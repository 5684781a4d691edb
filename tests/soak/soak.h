// SPDX-License-Identifier: GPL-2.0
// The random-scenario soak of the real schedulers (issue 18, part 3): one
// seed makes one case -- a scheduler (the four of efq, and Linux's
// mq-deadline where it was built) in flat or hierarchical mode with random
// tunables, a device, a random cgroup hierarchy of 1 to 3 levels with
// weights and classes, fio jobs run by efqsim's job engine and submitters
// of our own (discards, metadata, plugs, shared io_contexts, writeback
// charged to another task, exits), and changes while it runs: weights,
// classes, per-device rules, tunables, a cgroup removed with its IO still
// queued, a switch to another scheduler (the queue frozen: new IO waits,
// what is queued drains; then the elevator exits and the new one starts).  run_case() runs it on
// the block layer model with every checker on and says what broke, if anything.
//
// Plain C++: the kernel side is in soak.cc.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace efqsoak {

struct CgroupSpec {
	std::string path;	// "a", "a/b", "a/b/c"
	unsigned int weight;	// 0: the default
	int ioprio_class;	// 0: the default (BE), else 1 RT, 2 BE, 3 IDLE
	bool removable = false; // a leaf of our own submitters, removed mid-run
};

// A submitter of our own: a task keeping @depth IOs in flight.
struct RawSpec {
	std::string cgroup;
	int prio_class = 0, prio = 4;
	unsigned int depth = 1;
	uint32_t bs = 4096;
	bool random = false;
	unsigned int read_pct = 100, discard_pct = 0, meta_pct = 0;
	bool sync = true;	     // REQ_SYNC on writes and discards
	bool idle = false;	     // REQ_IDLE on sync writes
	unsigned int plug_batch = 0; // submit in plugged batches of this many
	unsigned int flush_pct = 0;  // 6.12's flush data part (efq schedulers)
	unsigned int unprep_pct = 0; // 6.12's unprepared request (efq schedulers)
	int64_t think_ns = 0;	     // after each completion
	int64_t start_ns = 0, stop_ns = 0;
	unsigned int max_ios = 0;
	bool exit_at_stop = false; // the task exits when it stops
	int share_with = -1;	   // shares that raw submitter's io_context
	int charge_to = -1;	   // writes charged to that raw submitter's cgroup
	uint64_t region_start = 0, region_bytes = 0;
};

struct EventSpec {
	enum Kind { Weight, Class, Policy, Tunable, Remove, Read, Switch };
	int64_t at_ns = 0;
	Kind kind = Read;
	std::string target; // a cgroup path, a tunable's name, or a scheduler
	std::string value;
	// Tunable: the scheduler it is of (a switch may have come before).
	// Switch: "1" hierarchical, "0" flat.
	std::string scheduler;
};

struct Case {
	uint64_t seed = 0;
	std::string scheduler;
	bool hierarchical = true;
	std::string device;
	unsigned int nr_requests = 0;
	unsigned int requeue_every = 0;
	bool requeue_dontprep = false;
	unsigned short max_discard_segments = 1;
	std::vector<std::pair<std::string, std::string>> tunables;
	std::vector<CgroupSpec> cgroups;
	std::string jobfile; // fio jobs; may be empty
	std::vector<RawSpec> raws;
	std::vector<EventSpec> events;
	int64_t end_ns = 0; // every job and submitter has stopped by then
	bool storm = false; // an aliased-IO storm was added (soak.cc, AddStorm())

	// Several lines: everything above, the job file verbatim.
	std::string describe() const;
};

// The case of @seed (deterministic: std::mt19937_64 and our own ranges).
Case make_case(uint64_t seed);

struct Result {
	std::string failure; // "" if every check held
	bool fatal = false;  // the shim's state is broken: run no more cases here
	uint64_t bios = 0, requests = 0, dispatched = 0, checkpoints = 0;
	int64_t sim_ns = 0;
	// the service bound (soak.cc, Runner::CheckService()): whether it
	// applied (queues of best-effort paths waited), how many waits it
	// looked at (a queue at a checkpoint), and the longest wait over its
	// bound
	bool service_bound = false;
	uint64_t waits_checked = 0;
	uint64_t waits_within_case = 0; // with a bound shorter than the case: ones that could fail
	double worst_wait_ratio = 0;
};

// Runs @c on a fresh shim (sim_reset()) and checks it; leaves the shim reset.
Result run_case(const Case &c);

struct Failure {
	uint64_t seed;
	std::string text; // what broke, then the case
};

// The @n seeds from @first, each case in a child process of its own (one
// case alone: in this one): how many ran.  Each failure is added to
// *failures; the 50th ends the run.  Progress lines go to stderr every
// @report cases (0: none).
unsigned int run_seeds(uint64_t first, unsigned int n, std::vector<Failure> *failures,
		       unsigned int report = 0);

// Test hooks of the checkers themselves (soak_test.cc): the next
// run_case() has its device drop the completion of its @n-th request (a
// lost IO), or complete it twice.
void inject_lost_completion(unsigned int n);
void inject_double_completion(unsigned int n);
// ... or has the first walk of the engine's trees find busy_queues one off.
void inject_tree_miscount();
// ... or has the service bound of every case multiplied by @scale (1: as
// it is), until called again.
void inject_service_bound_scale(double scale);

} // namespace efqsoak
