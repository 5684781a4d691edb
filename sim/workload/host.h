// SPDX-License-Identifier: GPL-2.0
// efqsim workloads: what a workload (fio jobs, page cache, writeback) sees
// of the simulated machine.  The simulated block layer (sim/blk) implements
// Host.  Time is simulated nanoseconds.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace efqsim::workload {

using TaskId = uint32_t;

// A simulated process: pid, comm, cgroup and ioprio, as the block layer and
// the schedulers see them.
struct TaskSpec {
	std::string comm;   // process name (fio: the job name)
	std::string cgroup; // cgroup path relative to the root, "" = root; created on demand
	unsigned int cgroup_weight = 0; // 0 = leave the cgroup's weight alone
	int ioprio_class = 0;		// 0 = none (from nice), 1 RT, 2 BE, 3 IDLE
	int ioprio = 4;			// level 0..7
};

// One IO as a task submits it (one bio; the block layer may merge it).
struct Io {
	uint64_t offset = 0; // bytes from the start of the device
	uint32_t bytes = 0;
	bool write = false;
	// REQ_OP_DISCARD of [offset, offset + bytes): a bio with a sector
	// range and no data pages (@write is ignored: 6.1 counts a discard in
	// the write direction).  @sync, @meta and @idle apply as to a write;
	// BLKDISCARD and fstrim (blkdev_issue_discard()) set none of them.
	bool discard = false;
	bool sync = true;  // REQ_SYNC (direct IO and reads are sync)
	bool meta = false; // REQ_META
	bool idle = false; // REQ_IDLE: more IO follows (sync writes)
	// Writeback: charge this IO to another task's cgroup (the dirtier),
	// as cgroup v2 writeback does.  0 = the submitter's own.
	TaskId charge_to = 0;
	// The bio's own ioprio (IOPRIO_PRIO_VALUE(class, level)): an aio or
	// io_uring request's (fio's cmdprio_*).  0 = none: the block layer
	// gives the bio the submitting task's, as bio_set_ioprio() does.
	unsigned short ioprio = 0;
	// Two requests the scheduler gets only from Linux 6.12's block core,
	// modelled for the tests of how the schedulers take them (efqsim
	// otherwise follows 6.1, which never inserts either):
	// @flush_data: a REQ_PREFLUSH write's data part (RQF_FLUSH_SEQ), which
	// 6.12's flush machinery inserts at the head from its requeue work
	// (on 6.1 it bypasses the scheduler);
	// @unprepared: a request the scheduler never prepared (6.12 can reuse
	// a plug-cached passthrough request for a bio): no prepare_request,
	// so no finish_request either.
	bool flush_data = false;
	bool unprepared = false;
};

class Host {
public:
	virtual ~Host() = default;

	virtual int64_t now() const = 0;
	// Run @fn at time @when (>= now()); events at the same time run in the
	// order they were scheduled.
	virtual void at(int64_t when, std::function<void()> fn) = 0;
	virtual TaskId create_task(const TaskSpec &spec) = 0; // ids start at 1
	// Submit @io from @task.  The block layer may make the task wait for a
	// request tag; @done runs when the IO completes, with the completion
	// time.  Nothing is ever dropped.
	virtual void submit(TaskId task, const Io &io, std::function<void(int64_t done)> done) = 0;
	virtual uint64_t capacity_bytes() const = 0;
	// blk_start_plug() / blk_finish_plug() around a task's submissions:
	// the requests they make are held (and merged) in the task's plug,
	// then inserted into the scheduler together.  No-ops by default.
	virtual void plug(TaskId /*task*/) {}
	virtual void unplug(TaskId /*task*/) {}
};

} // namespace efqsim::workload
