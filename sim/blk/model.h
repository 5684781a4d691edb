// SPDX-License-Identifier: GPL-2.0
// efqsim's block layer: a userspace model of Linux 6.1's blk-mq between the
// workloads (tasks submitting bios) and a device model, driving a real
// scheduler from block/ through its elevator_mq_ops.
//
// What it models, as blk-mq does it:
// - bios become requests, after the scheduler's bio_merge hook (back and
//   front merges through elv_merge) had its chance;
// - scheduler tags per hardware queue: nr_requests = 2 * min(queue depth,
//   128), in a map of words as sbitmap makes it; the scheduler's
//   limit_depth may set a shallow depth, which limits the tags taken in each
//   word, as sbitmap_get_shallow() does; a submitter that finds no tag
//   runs the hardware queue, is counted in the tags' ws_active
//   (sbitmap_prepare_to_wait()), sleeps and is woken in FIFO order, and is
//   uncounted when it runs again (sbitmap_finish_wait()); nothing is
//   dropped;
// - insert_requests, then a run of the hardware queue: while the device has
//   room and has_work() says so, dispatch_request();
// - when dispatch_request() returns nothing although has_work() said yes,
//   blk-mq re-runs the queue 3 ms later (BLK_MQ_BUDGET_DELAY); counted as
//   "budget re-runs" (efq's schedulers should never need one);
// - a device that asks for a request later (Device::defer_until(), e.g.
//   dm-multipath's merge deadline): the request is requeued to the scheduler
//   (.requeue_request, then inserted at the head), dispatching stops, and
//   the queue is re-run at the asked time; counted as "deferred";
// - discards (workload::Io::discard): REQ_OP_DISCARD bios with no data,
//   merged as 6.1 merges them (Config::max_discard_segments), sent to the
//   device as one range, or one range per bio on a multi-range queue, as
//   6.1's NVMe and virtio-blk drivers build their range lists;
// - completion: the bios end (their tasks are woken), the request is freed
//   (finish_request), its tag goes back, sleepers are woken, and the queue
//   is re-run if it stopped because the device was full;
// - blk_mq_run_hw_queues() from the scheduler (its timers, completions)
//   schedules a run.
// The model is a client of the simulation's one event queue (sim/events.h),
// which also holds the shims' kernel timers: its own events (queue runs,
// wake-ups, bio completions, the workload's) and its device's next event
// (Device::next_event(), rescheduled after each call that may move it) are
// events there.  Deterministic.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "dev/device.h"
#include "report/results.h"
#include "workload/host.h"
#include <sim/events.h>

struct request;
struct request_queue;
struct gendisk;
struct blk_mq_hw_ctx;
struct blk_mq_tags;
struct blkcg;

namespace efqsim::blk {

// Run the module_init of everything compiled in (efq, the schedulers), once.
void ensure_modules();
// Is a scheduler of that name (or alias) registered?
bool scheduler_exists(const std::string &name);
// The name and the alias (if any) of the scheduler registered as @name (or
// with that alias); empty if there is none.
std::vector<std::string> scheduler_names(const std::string &name);

struct Config {
	std::string scheduler = "noop";
	// efq's schedulers only: a scheduler without the efq engine (Linux's
	// mq-deadline) knows no groups and runs flat whatever this says.
	bool hierarchical = true;
	// "name=value" applied through the scheduler's sysfs attributes.
	std::vector<std::pair<std::string, std::string>> tunables;
	unsigned int nr_requests = 0; // 0: 2 * min(device queue depth, 128)
	// Fault injection: the driver gives every Nth completed request back
	// instead of completing it (a retryable error, as SCSI requeues),
	// through blk_mq_requeue_request(); with requeue_dontprep the
	// request keeps RQF_DONTPREP and goes to the hardware queue's
	// dispatch list, bypassing the scheduler, else back into the
	// scheduler at the head.  0: never.
	unsigned int requeue_every = 0;
	bool requeue_dontprep = false;
	// The queue's max_discard_segments: how many ranges the driver takes
	// in one discard command.  1 (null_blk, SCSI): a discard merges as a
	// write does, with contiguous bios only; more (virtio-blk, NVMe): 6.1
	// merges discard bios and requests as ranges anywhere on the device,
	// without telling the scheduler of a request merge (see
	// sim/shim/blk-mq.cc).  max_discard_sectors is null_blk's, UINT_MAX >> 9.
	unsigned short max_discard_segments = 1;
};

struct Counters {
	uint64_t bios = 0;	    // submitted
	uint64_t bio_merges = 0;    // bios merged into a queued request
	uint64_t plug_merges = 0;   // bios merged into a plugged request
	uint64_t rq_merges = 0;	    // requests merged into another
	uint64_t requests = 0;	    // allocated
	uint64_t dispatched = 0;    // handed to the device
	uint64_t completed = 0;	    // completed by the device
	uint64_t tag_waits = 0;	    // submitters that slept for a tag
	uint64_t budget_reruns = 0; // dispatch_request() gave nothing after has_work()
	uint64_t runs = 0;	    // hardware queue runs
	// requests the device asked to have later (Device::defer_until()):
	// given back to the scheduler, the queue re-run at the asked time
	uint64_t deferred = 0;
	uint64_t dispatched_sectors = 0; // their sum over dispatched: the average request size
	uint64_t driver_requeues = 0;	 // given back by the driver (requeue_every)
};

class Model final : public workload::Host, private sim::EventClient {
public:
	Model(std::unique_ptr<dev::Device> dev, Config cfg);
	~Model() override;
	Model(const Model &) = delete;
	Model &operator=(const Model &) = delete;

	// Set up the queue and the scheduler; false with *err on failure
	// (unknown scheduler, bad tunable, ...).
	bool init(std::string *err);

	// workload::Host
	int64_t now() const override;
	void at(int64_t when, std::function<void()> fn) override;
	workload::TaskId create_task(const workload::TaskSpec &spec) override;
	// The task exits: its io_context goes (the scheduler's exit_icq runs
	// now; requests it still has outstanding keep the context alive).  It
	// must not submit again.
	void exit_task(workload::TaskId task);
	// @task shares @with's io_context from now on (clone(CLONE_IO)).
	void share_io_context(workload::TaskId task, workload::TaskId with);
	void submit(workload::TaskId task, const workload::Io &io,
		    std::function<void(int64_t done)> done) override;
	uint64_t capacity_bytes() const override;
	// 6.1's plug: a plugged task's bios first try to merge with its last
	// plugged request (no scheduler involved), then the scheduler's
	// bio_merge; new requests are held in the plug (flushed when it holds
	// 32, or its last request reached 128 KiB, or the task must sleep for
	// a tag) and inserted together, in submission order, at unplug().
	void plug(workload::TaskId task) override;
	void unplug(workload::TaskId task) override;
	// The error of the last create_task() that failed (e.g. a bad weight).
	const std::string &task_error() const { return task_error_; }

	// Run every event of the queue up to and including time @t, then set
	// the clock to @t.
	void run_until(int64_t t);
	// Run the queue until nothing of the model is pending or in flight
	// (requests, its own events, the device's), or until @limit; true if
	// everything drained.
	bool drain(int64_t limit);
	// Requests queued in the scheduler or in flight.
	uint64_t outstanding() const;
	// Abandons the bios whose submitters sleep for a tag: they end
	// without completing (their callbacks are not called) and nothing of
	// them is left.  For a run given up at its time limit, so that what
	// drains is bounded by the tags, not by the backlog.
	void cancel_waiters();

	const Counters &counters() const { return counters_; }
	const dev::Device &device() const { return *dev_; }
	// Per cgroup: the engine's accounting (efq_group_stats()) and the
	// device's measurement.
	std::vector<report::GroupResult> group_results();
	// Tunables as the scheduler shows them.
	std::map<std::string, std::string> tunables();
	// Write a tunable now (sysfs iosched/<name>): 0 or the store's -errno.
	int set_tunable(const std::string &name, const std::string &value);
	// The queue's nr_requests (scheduler tags).
	unsigned int nr_requests() const;
	// Submitters asleep for a scheduler tag, as the scheduler sees them
	// (the tags' ws_active), and the tags taken (sbitmap_weight()).
	unsigned int tag_waiters() const;
	unsigned int tags_in_use() const;
	// Is the scheduler one of efq's, on its engine (with groups, disk time
	// accounting and the `hierarchical` tunable)?  False for Linux's
	// mq-deadline.  Known after init().
	bool efq_engine() const { return efq_; }
	// Do cgroups get their weights: an efq scheduler in hierarchical mode.
	bool hierarchical() const { return efq_ && cfg_.hierarchical; }
	// Each tunable with the value it starts with and the range its store
	// accepts, found by asking the scheduler itself: the smallest and the
	// largest value it keeps when given 0 and a huge number (it clamps).
	// Only before any IO; the tunables are restored.
	struct TunableInfo {
		std::string name, initial, min, max;
	};
	std::vector<TunableInfo> probe_tunables();
	// The scheduler's debugfs attribute @name (sched/<name>), or "" with
	// *err set.
	std::string debugfs(const std::string &name, std::string *err) const;
	// Called with every request the driver is given (a checker's view of
	// what the scheduler dispatched: rq->elv.priv[] is still the
	// scheduler's); may be empty.
	std::function<void(struct request *)> on_issue;
	// The request queue the scheduler runs on (for checkers that look at
	// the scheduler's own state).
	struct request_queue *queue() const { return q_.get(); }
	// Invariants: every request dispatched at most once and completed once;
	// an empty message if all hold.
	std::string check_invariants() const;

private:
	struct Task;
	struct Bio;
	struct Rq;
	struct Cgroup;

	Cgroup *cgroup(const std::string &path);
	void set_current(const Task *t);
	void submit_bio(Bio *bio);
	bool alloc_request(Bio *bio);
	void wake_waiters();
	void flush_plug(Task *t);
	void insert(struct request *rq, bool at_head = false);
	void schedule_run();
	void run_queue();
	void issue(struct request *rq);
	dev::Request to_device(struct request *rq) const;
	void check_discard(struct request *rq);
	void requeue(struct request *rq);
	void driver_requeue(struct request *rq);
	void delay_run(int64_t when);
	void complete(uint64_t id, int64_t when);
	void free_request(struct request *rq);
	// (Re)schedule the device's next event after a call that may have
	// moved it; device_event() runs it.
	void sync_device();
	void device_event(int64_t when);
	static void run_hook(struct request_queue *q, bool async);
	static void free_hook(struct request_queue *q, struct request *rq);

	std::unique_ptr<dev::Device> dev_;
	Config cfg_;
	std::unique_ptr<struct request_queue> q_;
	std::unique_ptr<struct gendisk> disk_;
	std::unique_ptr<struct blk_mq_hw_ctx> hctx_;
	// The scheduler tags' shape (depth, min_shallow_depth); the tags
	// themselves are free_tags_.
	std::unique_ptr<struct blk_mq_tags> sched_tags_;
	// limit_depth() gave a shallow depth below min_shallow_depth, which
	// the kernel's sbitmap warns about (wake-ups could be lost).
	uint64_t shallow_below_min_ = 0;
	struct blk_mq_hw_ctx *hctxs_[1] = {};
	bool sched_up_ = false;
	bool queue_up_ = false;
	bool efq_ = false; // efq_engine()

	std::vector<std::unique_ptr<Rq>> rqs_; // index = tag
	std::vector<unsigned int> free_tags_;  // sorted, lowest first
	std::vector<std::unique_ptr<Task>> tasks_;
	std::map<std::string, std::unique_ptr<Cgroup>> cgroups_;
	std::vector<Cgroup *> cgroup_by_tag_;
	std::list<Bio *> waiters_;  // FIFO of bios waiting for a tag
	sim::EventId device_event_; // the device's next event on the queue
	int64_t device_event_at_ = dev::kNever;
	bool run_pending_ = false;
	bool in_run_ = false;
	bool restart_ = false;
	int64_t delayed_run_ = -1; // time of the pending delayed run, -1: none
	bool requeueing_ = false;  // in requeue(): the scheduler's run requests wait
	uint64_t next_id_ = 1;
	std::map<uint64_t, struct request *> in_device_;
	// hctx->dispatch: requests that bypass the scheduler (requeued with
	// RQF_DONTPREP), dispatched before it is asked again
	std::deque<struct request *> hctx_dispatch_;
	uint64_t completions_seen_ = 0;
	unsigned long violations_at_start_ = 0; // sim_blk_violations() at init()
	Counters counters_;
	std::string task_error_;
};

} // namespace efqsim::blk
