// SPDX-License-Identifier: GPL-2.0
// efq unit-test harness: a fake scheduler on top of the engine.
//
// EfqTest (a SimTest) builds a request queue, a gendisk (8:0) and an
// elevator_queue, registers a fake scheduler (struct efq_sched_ops whose
// hooks record their calls and answer what the test configured), calls
// efq_data_init() and sets q->elevator as the elevator core would.  Tests
// then drive requests through the engine the way a scheduler does:
//
//   FakeQueue *a = NewQueue(Root());        // efq_alloc/init/set_group
//   Add(a);                                  // efq_request_add
//   request *rq = Dispatch();                // efq_select_queue + dispatched
//   Advance(10 * kMs);                       // simulated clock, timers fire
//   Complete(rq);                            // efq_request_completed
//
// Every engine call is made with efqd->lock held (except the ones the test
// wants to make without it).  TearDown drains what is left (forced
// dispatch), releases the queues the harness owns, calls efq_data_exit(),
// destroys the cgroups and the queue, and SimTest::TearDown then fails the
// test on any WARN, lock error or leaked slab object.
//
// Include this first: the kernel headers' min/max macros break standard
// C++ headers included after them, so every standard header the tests need
// is included here, before the kernel headers.
#pragma once

#include <sim/gtest_guard.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

extern "C" {
#include <linux/elevator-fq.h>
#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/ioprio.h>
#include <linux/kdev_t.h>
#include <linux/rbtree.h>
#include <linux/refcount.h>
#include <sim/kernel.h>
#include <sim/clock.h>
#include <sim/slab.h>
#include <sim/blk.h>
#include <sim/blkcg.h>
#include "elevator.h"
#include "blk-cgroup.h"
}

namespace efqt {

constexpr u64 kUs = 1000ULL;
constexpr u64 kMs = 1000ULL * 1000ULL;

// (ns << EFQ_SERVICE_SHIFT) * 500 / weight, V10's formula (io-controller.rst, "Virtual time"),
// computed independently of the engine (128-bit intermediate, truncating).
constexpr u64 Vt(u64 ns, unsigned weight = 500)
{
	return (u64)(((unsigned __int128)ns << EFQ_SERVICE_SHIFT) * 500u / weight);
}

class EfqTest;

// A queue of the fake scheduler: the scheduler-side object behind one
// efq_queue (efq_queue.sched_queue points here).
struct FakeQueue {
	int id = 0;
	EfqTest *t = nullptr;
	struct efq_queue *ioq = nullptr; // invalid once freed
	bool sync = true;
	bool owner = false;  // the harness holds the owner reference
	bool freed = false;  // free_sched_queue() was called
	bool single = false; // a group's single queue (owned by the group)
	std::deque<struct request *> queued;
	unsigned inflight = 0;
};

// What the fake scheduler's hooks saw.
struct HookLog {
	int active_set = 0;
	int active_reset = 0;
	int arm_slice_timer = 0;
	int should_preempt = 0;
	int close_cooperator = 0;
	int may_expire = 0;
	int freed = 0;
	FakeQueue *last_active = nullptr;
	bool last_coop = false;
	bool last_may_expire_force = false;
	bool last_may_expire_slice_expired = false;
	std::vector<FakeQueue *> activations; // every active_queue_set, in order
};

struct Options {
	unsigned features = 0;
	bool alloc_sched_queue = false; // provide the hook (single-queue schedulers)
	unsigned fairness = 0;
	bool hierarchical = true;
	u64 group_idle = EFQ_GROUP_IDLE_NS;
};

class EfqTest : public SimTest {
public:
	// ---- hook answers, set by tests ----
	u64 idle_ns = 0;		    // arm_slice_timer: idle this long (0: don't)
	bool preempt_answer = false;	    // should_preempt
	FakeQueue *coop_answer = nullptr;   // close_cooperator
	std::deque<bool> may_expire_script; // may_expire answers, then true
	std::function<bool(FakeQueue *, bool, bool)> may_expire_fn;
	std::function<void(FakeQueue *)> on_active_set;
	std::function<struct efq_queue *(FakeQueue *)> coop_fn;
	std::function<void(FakeQueue *)> arm_fn;
	std::function<bool(FakeQueue *)> preempt_fn;
	bool fail_alloc_sched_queue = false; // alloc_sched_queue returns NULL
	HookLog hooks;

	struct efq_data *efqd() { return efqd_; }
	struct request_queue *queue() { return q_.get(); }
	struct efq_group *Root() { return efqd_->root_group; }

protected:
	Options opts_;

	void SetUp() override;
	void TearDown() override;

	// Re-create the device with other options (call at the start of a test).
	void Reinit(const Options &o);

	// ---- locking ----
	void Lock() { spin_lock_irq(&efqd_->lock); }
	void Unlock() { spin_unlock_irq(&efqd_->lock); }

	// ---- cgroups and groups ----
	// mkdir @name under @parent (NULL: root), with a default weight/class.
	struct blkcg *Cgroup(const char *name, struct blkcg *parent = nullptr,
			     unsigned weight = EFQ_WEIGHT_DEFAULT,
			     unsigned ioclass = IOPRIO_CLASS_BE);
	// The blkg of @cg on this device (created on first use, ref held
	// by the harness until teardown or DropBlkg()).
	struct blkcg_gq *Blkg(struct blkcg *cg);
	void DropBlkg(struct blkcg *cg);
	// efq_group_of_blkg() under the lock: links the group lazily.
	struct efq_group *GroupOf(struct blkcg *cg);
	// rmdir (children must be gone).
	void DestroyCgroup(struct blkcg *cg);

	// ---- queues ----
	FakeQueue *NewQueue(struct efq_group *g, bool sync = true, unsigned prio = IOPRIO_NORM,
			    unsigned ioclass = IOPRIO_CLASS_BE);
	// The group's shared async queue of (class, prio), created on first
	// use; the group's slot owns it.
	FakeQueue *AsyncQueue(struct efq_group *g, unsigned ioclass = IOPRIO_CLASS_BE,
			      unsigned prio = IOPRIO_NORM);
	// Single-queue schedulers: the group's queue.
	FakeQueue *SingleQueue(struct efq_group *g);
	// The owner goes away: efq_queue_exit() + drop the owner reference.
	void Release(FakeQueue *fq);
	FakeQueue *Fq(struct efq_queue *ioq)
	{
		return ioq ? static_cast<FakeQueue *>(ioq->sched_queue) : nullptr;
	}

	// ---- requests ----
	// Queue a request of @fq: sync queues default to a read, async ones
	// to a write.  @flags replaces the default if non-zero.
	struct request *Add(FakeQueue *fq, blk_opf_t flags = 0, unsigned sectors = 8,
			    struct blkcg_gq *blkg = nullptr);
	void AddN(FakeQueue *fq, int n)
	{
		for (int i = 0; i < n; i++)
			Add(fq);
	}
	// A request not queued to the engine (for efq_group_of_rq tests).
	struct request *NewRequest(blk_opf_t flags, struct blkcg_gq *blkg);
	void FreeRequest(struct request *rq);
	// efq_select_queue() under the lock.
	FakeQueue *Select(bool force = false);
	// Select, then dispatch the first queued request of the selected queue.
	struct request *Dispatch(bool force = false);
	// Dispatch from @fq, which must be the active queue (no select).
	struct request *DispatchFrom(FakeQueue *fq);
	void Complete(struct request *rq);
	// The driver gives @rq back with RQF_DONTPREP: the engine forgets the
	// dispatch (efq_request_requeued()), and the request completes later
	// through hctx->dispatch, never seen by the scheduler again.
	void RequeueBypassing(struct request *rq);
	void Release(struct request *rq, bool requeued);
	void CompleteAll()
	{
		while (!inflight_.empty())
			Complete(inflight_.front());
	}
	// A queued request of @fq is merged into another one of the same queue,
	// or with @into_other of another queue (the block core's request merges
	// cross queues), which may take @fq's last request.
	void MergeAway(FakeQueue *fq, bool into_other = false);
	void Expire(enum efq_expire_reason reason = EFQ_EXPIRE_SCHED);
	void Advance(u64 ns) { sim_clock_advance((s64)ns); }
	u64 Now() { return (u64)sim_clock_now(); }

	// Select @fq, dispatch one request, complete it at once (the slice
	// starts), advance @used and expire with EFQ_EXPIRE_SCHED: one
	// activation that used @used ns.  @fq needs >= 2 queued requests
	// unless @allow_empty.
	void RunSlice(FakeQueue *fq, u64 used, bool allow_empty = false);

	// Drain everything (forced dispatch, completions).
	void Drain();

	unsigned long Expired(enum efq_expire_reason r) { return efqd_->nr_expired[r]; }
	unsigned long TotalExpired()
	{
		unsigned long n = 0;
		for (int i = 0; i < EFQ_EXPIRE_NR; i++)
			n += efqd_->nr_expired[i];
		return n;
	}

	struct efq_service_tree *St(struct efq_group *g, unsigned ioclass)
	{
		return &g->sched_data.service_tree[ioclass - 1];
	}
	// Entities of @st's active tree, in order.
	std::vector<struct efq_entity *> TreeOrder(struct efq_service_tree *st);
	std::vector<struct efq_entity *> IdleOrder(struct efq_service_tree *st);

	// Full structural check of the engine state; "" if consistent.
	std::string CheckInvariants();
	// At the moment a queue is activated: is every level of its path the
	// leftmost of the highest non-empty class?  "" if so.
	std::string CheckActivePath();

	std::vector<std::unique_ptr<FakeQueue>> queues_;
	std::vector<struct request *> inflight_;
	std::vector<struct blkcg *> cgroups_; // creation order
	std::set<struct blkcg *> destroyed_;
	std::map<struct blkcg *, struct blkcg_gq *> blkgs_;
	std::unique_ptr<struct request_queue> q_;
	std::unique_ptr<struct gendisk> disk_;
	std::unique_ptr<struct elevator_queue> eq_;
	struct efq_data *efqd_ = nullptr;
	struct efq_sched_ops ops_ = {};
	sector_t next_sector_ = 0;
	int next_id_ = 1;

	// Set up / tear down the device only.
	void InitDevice();
	void ExitDevice();

	friend struct HarnessOps;
};

// Make sure module_init (engine slab cache, blkcg policy) ran once.
void EnsureModules();

const char *ReasonName(int reason);

} // namespace efqt
