// SPDX-License-Identifier: GPL-2.0
// `efqsim replay`: a recorded blktrace (binary files or blkparse text) as a
// workload.  Every IO of the trace is submitted by a simulated process (one
// task per traced pid, named after its comm), in the cgroup a --map rule
// gives it, either at its recorded queue time (open loop) or when the IO
// it depended on completes in the simulation, plus the recorded think time
// (closed loop).  Documentation/sim/replay.rst.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "report/results.h"
#include "run/run.h"

namespace efqsim::run {

// --map KIND=KEY=GROUP[:WEIGHT]: the IOs of a pid, a comm or a cgroup id go
// to cgroup GROUP (a path under the root, e.g. "a" or "db/a"; "/" or "" is
// the root), with WEIGHT (0: leave the group's weight alone).
struct MapRule {
	enum class Kind { pid, comm, cgroup };
	Kind kind = Kind::pid;
	std::string key;
	std::string group;
	unsigned int weight = 0;
};

// Parses "pid=1234=a:500", "comm=fio=a", "cgroup=4242=b:100".
bool parse_map(const std::string &arg, MapRule *out, std::string *err);

enum class ReplayMode { open, closed };

struct ReplayOptions {
	std::vector<std::string> traces;
	std::vector<MapRule> maps;
	ReplayMode mode = ReplayMode::open;
};

// A span of time in ns: in the trace since its first queue, in the
// simulation since the replay's start.  {-1, -1}: none.
struct Window {
	int64_t from = -1, to = -1;
	bool valid() const { return from >= 0 && to > from; }
};

// Recorded vs simulated, per cgroup.  Shares are of the bytes all groups
// completed within the recorded span (the time from the first queue to the
// last event of the trace, measured from the replay's start).
struct ShareRow {
	std::string group; // "/" for the root
	unsigned int weight = 0;
	uint64_t ios = 0;
	uint64_t bytes = 0;
	double recorded_pct = 0;
	double predicted_pct = 0;
	// The same within the contended window (ReplayResult): the share each
	// mapped group got while every mapped group was busy; -1 for groups
	// no --map names and when there is no such window.
	double contended_recorded_pct = -1;
	double contended_predicted_pct = -1;
	double recorded_lat_ms = 0;  // mean queue-to-completion in the trace
	double predicted_lat_ms = 0; // mean submission-to-completion simulated
};

struct ReplayResult {
	report::RunResult run;
	std::vector<ShareRow> shares;
	ReplayMode mode = ReplayMode::open;
	uint64_t events = 0;
	uint64_t ios = 0;
	uint64_t merges = 0;
	uint64_t incomplete = 0; // IOs the trace has no completion for
	uint64_t unmatched = 0;	 // completions of IO queued before the trace
	int64_t recorded_span_ns = 0;
	int64_t simulated_span_ns = 0; // first submission to last completion
	// While every group a --map names (and that has IO) was busy: from the
	// latest of their first IOs to the earliest of their last completions,
	// in the trace and in the simulation.  In closed loop each group
	// replays a fixed set of IOs, so once one group has run out, the others
	// have the disk to themselves and the whole span's shares drift back to
	// the recorded ones; the contended shares are what the weights decide.
	Window contended_recorded, contended_simulated;
	// What is odd about the trace but does not stop the replay: files
	// given twice, CPU files missing from a NAME.blktrace.N sequence,
	// duplicate events dropped, many IOs without a completion.  For
	// stderr (the CLI prints "efqsim: warning: ..."), and the JSON.
	std::vector<std::string> warnings;
};

// A warning when more than this fraction of a trace's IOs (and at least
// kIncompleteWarnMin of them) have no completion: normally only the IOs at
// the very end of a recording lack one.
constexpr double kIncompleteWarnFraction = 0.05;
constexpr uint64_t kIncompleteWarnMin = 16;

// Replays @opt.traces (trace::open_trace(): files, or a recording's base
// name NAME for NAME.blktrace.N) under @setup (device, scheduler, hierarchical,
// tunables, seed, nr_requests, progress).  A replay still running 24 h of
// simulated time after the end of its trace stops: Status::time_limit,
// with *out covering the replay up to then (run.stopped says so).
Status replay(const Setup &setup, const ReplayOptions &opt, ReplayResult *out, std::string *err);

// The per-group table: recorded vs predicted share.
void print_shares(const ReplayResult &r, std::ostream &out);
// The run's JSON (report::to_json) with a "replay" object added.
std::string replay_json(const ReplayResult &r);

} // namespace efqsim::run
