// SPDX-License-Identifier: GPL-2.0
// The loop that drives a simulated run: the simulation's event queue runs
// (the workload's events, the block layer's, the device's, the kernel's
// timers) one simulated second at a time, with the progress callback and
// the simulated-time limit, and what is outstanding drains at the end.
// Job runs (run.cc) and replays (replay.cc) both go through it.
#pragma once

#include <cstdint>
#include <functional>

namespace efqsim::blk {
class Model;
}

namespace efqsim::run {

class Drive {
public:
	// @start: the simulated time the run started at (progress counts the
	// seconds since); @progress may be empty.
	Drive(blk::Model &model, int64_t start, std::function<void(int64_t seconds)> progress);

	// Runs until @finished() (asked before each simulated second): true;
	// or until the clock reaches @deadline() (an absolute simulated time,
	// asked each second: it may move): false, the time limit.
	bool run(const std::function<bool()> &finished, const std::function<int64_t()> &deadline);
	// The workload ended: what is outstanding drains, within an hour of
	// simulated time; false if some is left.
	bool drain();
	// The workload was given up (its time limit): the submitters asleep
	// for a tag are dropped and what is outstanding drains, within
	// kMaxSimNs; false if some is left.
	bool abandon();

private:
	blk::Model &model_;
	int64_t start_;
	std::function<void(int64_t)> progress_;
	int64_t last_shown_ = -1;
};

} // namespace efqsim::run
