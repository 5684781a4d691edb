// SPDX-License-Identifier: GPL-2.0
// A scheduler's misuse of the engine (Documentation/block/io-controller.rst,
// "The contract"; Documentation/kernel/warnings.rst): the WARN_ON_ONCE()s
// and lock assertions of block/elevator-fq.c that no correct caller makes
// true.  Each guards the engine's contract with its scheduler: attach a
// queue once, put only the references taken, remove, requeue and complete
// a request once per insert or dispatch, expire only the queue in service,
// call with efqd->lock held.  Each test breaks that contract on purpose
// (the fake scheduler of efq_harness.h is the caller), expects exactly the
// warning(s) it must give, and checks that nothing else was damaged: what
// the engine must not change is unchanged (a call refused, a count kept
// from going below zero), the tree walk and the harness's counts agree
// (CheckInvariants()), and the teardown finds no leaked reference or slab
// object (SimTest).
//
// Where the misuse itself would free memory still in use (an extra put of
// a queue with requests), the test forges the state that put would find
// instead, and the last put frees the queue as usual.  One test writes a
// field no interface can set, to show a check the interface makes
// unreachable and its fallback
// (AQueueWeightAboveTheMaximumWarnsAndGetsTheBaseSlice).

#include "efq_harness.h"

using namespace efqt;

namespace {

class Misuse : public EfqTest {
protected:
	using ReleaseFn = void (*)(struct efq_data *, struct efq_queue *, struct request *);

	// A request of @a's that was never dispatched is given to @release
	// (efq_request_requeued() or efq_request_completed()): each warns
	// for the queue's dispatched count and the device's, for the group's
	// count of sync requests in flight (the request is a sync read), and
	// efq_group_rq_done() for the group's.
	void ReleaseUndispatched(FakeQueue *a, ReleaseFn release)
	{
		struct request *rq = NewRequest(REQ_OP_READ, nullptr);
		Lock();
		release(efqd(), a->ioq, rq);
		Unlock();
		FreeRequest(rq);
	}
	// ... and none of those counts moved.
	void ExpectNothingCounted(FakeQueue *a)
	{
		EXPECT_EQ(a->ioq->dispatched, 0u);
		EXPECT_EQ(efqd()->rq_in_driver, 0u);
		EXPECT_EQ(efqd()->nr_held, 0u);
		EXPECT_EQ(Root()->nr_requests, 0u);
		EXPECT_EQ(CheckInvariants(), "");
	}
};

unsigned int Refs(struct efq_group *g)
{
	return refcount_read(&g->ref);
}

unsigned int Refs(struct efq_queue *ioq)
{
	return refcount_read(&ioq->ref);
}

// ---------------------------------------------------------------------------
// Queues and groups
// ---------------------------------------------------------------------------

TEST_F(Misuse, SettingAQueuesGroupTwiceWarnsAndKeepsTheFirstGroup)
{
	struct efq_group *g = GroupOf(Cgroup("a"));
	FakeQueue *a = NewQueue(Root());
	unsigned int root_refs = Refs(Root());
	unsigned int g_refs = Refs(g);

	// efq_queue_set_group(): the queue has a group already.  A second
	// attach would take a reference on @g and move the queue under it.
	Lock();
	efq_queue_set_group(a->ioq, g);
	Unlock();
	ExpectWarnings(1);
	EXPECT_EQ(a->ioq->group, Root());
	EXPECT_EQ(a->ioq->entity.parent, &Root()->entity);
	EXPECT_EQ(Refs(Root()), root_refs);
	EXPECT_EQ(Refs(g), g_refs);

	// the queue is served in its first group
	Add(a);
	EXPECT_EQ(Select(), a);
	EXPECT_EQ(CheckInvariants(), "");
}

// An extra efq_put_queue() from a scheduler would free the queue under the
// requests holding it (a use-after-free, not a warning).  The three tests
// below give the queue the state that last put would find instead, then
// let its owner put the last reference: the engine warns and frees it as
// usual, and the device's own counts are untouched.

TEST_F(Misuse, LastPutOfAQueueWithARequestDispatchedWarns)
{
	FakeQueue *a = NewQueue(Root());

	// efq_put_queue(): a dispatched request holds a reference
	a->ioq->dispatched = 1;
	Release(a);
	ExpectWarnings(1);
	EXPECT_TRUE(a->freed);
	EXPECT_EQ(efqd()->rq_in_driver, 0u);
	EXPECT_EQ(CheckInvariants(), "");
}

TEST_F(Misuse, LastPutOfABusyQueueWarns)
{
	FakeQueue *a = NewQueue(Root());

	// efq_put_queue(): the busy state holds a reference
	efq_mark_queue_busy(a->ioq);
	Release(a);
	ExpectWarnings(1);
	EXPECT_TRUE(a->freed);
	EXPECT_EQ(efqd()->busy_queues, 0u);
	EXPECT_EQ(CheckInvariants(), "");
}

TEST_F(Misuse, LastPutOfAQueueOnAServiceTreeWarns)
{
	FakeQueue *a = NewQueue(Root());

	// efq_put_queue(): a queue on a tree is busy, which holds a reference
	a->ioq->entity.on_st = true;
	Release(a);
	ExpectWarnings(1);
	EXPECT_TRUE(a->freed);
	EXPECT_EQ(CheckInvariants(), "");
}

TEST_F(Misuse, PuttingTheFallbackQueuesOwnReferenceWarnsAndFreesNothing)
{
	// efq_put_queue(): the fallback queue is part of efq_data, and its
	// first reference is the device's until efq_data_exit().  The put
	// must not hand it to the slab allocator or the scheduler.
	Lock();
	efq_put_queue(&efqd()->oom_queue);
	Unlock();
	ExpectWarnings(1);
	EXPECT_EQ(hooks.freed, 0);
	EXPECT_EQ(efqd()->oom_queue.group, Root());
	// The count went to 0 and the engine cannot undo that: give the
	// device its reference back, so that efq_data_exit()'s own check of
	// it (exactly 1) holds at the teardown.
	refcount_set(&efqd()->oom_queue.ref, 1);
	EXPECT_EQ(CheckInvariants(), "");
}

TEST_F(Misuse, AnAsyncSlotOfALevelOutOfRangeWarnsAndHoldsNothing)
{
	FakeQueue *b = NewQueue(Root(), false);
	unsigned int refs = Refs(b->ioq);

	// efq_async_slot(): levels are 0-7, one slot each; there is no slot
	// to look up nor to install into
	Lock();
	EXPECT_EQ(efq_group_async_queue(Root(), IOPRIO_CLASS_BE, EFQ_NR_PRIO), nullptr);
	efq_group_set_async_queue(Root(), IOPRIO_CLASS_BE, EFQ_NR_PRIO, b->ioq);
	Unlock();
	ExpectWarnings(2);
	EXPECT_EQ(Refs(b->ioq), refs);
	Lock();
	for (unsigned int prio = 0; prio < EFQ_NR_PRIO; prio++)
		EXPECT_EQ(efq_group_async_queue(Root(), IOPRIO_CLASS_BE, prio), nullptr);
	Unlock();
	EXPECT_EQ(CheckInvariants(), "");
}

TEST_F(Misuse, AnAsyncSlotOfClassNoneWarnsAndHoldsNothing)
{
	FakeQueue *b = NewQueue(Root(), false);
	unsigned int refs = Refs(b->ioq);

	// efq_async_slot(): only RT, BE and IDLE have slots (cfq makes
	// "none" BE before it asks)
	Lock();
	EXPECT_EQ(efq_group_async_queue(Root(), IOPRIO_CLASS_NONE, 0), nullptr);
	efq_group_set_async_queue(Root(), IOPRIO_CLASS_NONE, 0, b->ioq);
	Unlock();
	ExpectWarnings(2);
	EXPECT_EQ(Refs(b->ioq), refs);
	EXPECT_EQ(CheckInvariants(), "");
}

TEST_F(Misuse, InstallingASecondSharedAsyncQueueWarnsAndKeepsTheFirst)
{
	FakeQueue *w = AsyncQueue(Root());
	FakeQueue *b = NewQueue(Root(), false);
	unsigned int w_refs = Refs(w->ioq);
	unsigned int b_refs = Refs(b->ioq);

	// efq_group_set_async_queue(): the slot is taken.  Replacing its
	// queue would leak the slot's reference on it.
	Lock();
	efq_group_set_async_queue(Root(), IOPRIO_CLASS_BE, IOPRIO_NORM, b->ioq);
	Unlock();
	ExpectWarnings(1);
	EXPECT_EQ(AsyncQueue(Root()), w);
	EXPECT_EQ(Refs(w->ioq), w_refs);
	EXPECT_EQ(Refs(b->ioq), b_refs);
	EXPECT_EQ(CheckInvariants(), "");
}

TEST_F(Misuse, LinkingTheRootGroupWarnsAndLeavesItAtTheTop)
{
	struct efq_group *g = GroupOf(Cgroup("a"));
	unsigned int g_refs = Refs(g);

	// efq_group_link(): the root group has no parent.  Linking it under
	// its own child would make a cycle of the hierarchy.
	Lock();
	efq_group_link(efqd(), Root(), g);
	Unlock();
	ExpectWarnings(1);
	EXPECT_EQ(Root()->entity.parent, nullptr);
	EXPECT_FALSE(Root()->linked);
	EXPECT_TRUE(list_empty(&Root()->efqd_node));
	EXPECT_EQ(Refs(g), g_refs);
	EXPECT_EQ(CheckInvariants(), "");
}

// ---------------------------------------------------------------------------
// Service
// ---------------------------------------------------------------------------

TEST_F(Misuse, ArmingTheIdleTimerWithNoQueueInServiceWarnsAndArmsNothing)
{
	// efq_arm_idle_timer(): idling waits for the queue in service, and
	// there is none; the timer would expire nothing
	Lock();
	efq_arm_idle_timer(efqd(), kMs);
	Unlock();
	ExpectWarnings(1);
	EXPECT_FALSE(efqd()->idle_armed);
	EXPECT_FALSE(hrtimer_active(&efqd()->idle_timer));
	Advance(2 * kMs);
	EXPECT_EQ(TotalExpired(), 0u);
	EXPECT_EQ(CheckInvariants(), "");
}

TEST_F(Misuse, ExpiringAQueueNotInServiceWarnsAndChangesNothing)
{
	FakeQueue *a = NewQueue(Root());
	FakeQueue *b = NewQueue(Root());
	Add(a);
	Add(b);
	ASSERT_EQ(Select(), a);

	// __efq_expire_queue(): only the queue in service is charged and
	// taken out of service; b is on its tree and a keeps its slice
	Lock();
	efq_expire_queue(efqd(), b->ioq, EFQ_EXPIRE_SCHED);
	Unlock();
	ExpectWarnings(1);
	EXPECT_EQ(efqd()->active_queue, a->ioq);
	EXPECT_EQ(TotalExpired(), 0u);
	EXPECT_EQ(hooks.active_reset, 0);
	EXPECT_TRUE(efq_queue_busy(b->ioq));
	EXPECT_EQ(CheckInvariants(), "");
}

// ---------------------------------------------------------------------------
// Requests
// ---------------------------------------------------------------------------

TEST_F(Misuse, MergingARequestAwayTwiceWarnsAndKeepsTheCounts)
{
	FakeQueue *a = NewQueue(Root());
	struct request *rq = Add(a);
	a->queued.pop_back(); // the scheduler lets go of it

	// The second removal finds nothing to take: efq_request_removed()
	// warns for the queue's count, the device's and the queue's sync
	// count (the request is a sync read), efq_group_rq_done() for the
	// group's; none goes below zero.
	Lock();
	efq_request_merged_away(efqd(), a->ioq, rq);
	efq_request_merged_away(efqd(), a->ioq, rq);
	efq_put_queue(a->ioq); // the request's reference, once
	Unlock();
	FreeRequest(rq);
	ExpectWarnings(4);
	EXPECT_EQ(a->ioq->nr_queued, 0u);
	EXPECT_EQ(a->ioq->sync_pending, 0u);
	EXPECT_EQ(efqd()->nr_queued, 0u);
	EXPECT_EQ(efqd()->nr_held, 0u);
	EXPECT_EQ(Root()->nr_requests, 0u);
	EXPECT_FALSE(efq_queue_busy(a->ioq));
	EXPECT_EQ(CheckInvariants(), "");
}

TEST_F(Misuse, MetadataFlagSetOnAQueuedRequestWarnsAtItsRemoval)
{
	FakeQueue *a = NewQueue(Root());
	AddN(a, 2);

	// efq_request_removed(): REQ_META is counted at the insert; a flag
	// set afterwards has no count to give back
	a->queued.back()->cmd_flags |= REQ_META;
	MergeAway(a);
	ExpectWarnings(1);
	EXPECT_EQ(a->ioq->meta_pending, 0u);
	EXPECT_EQ(a->ioq->nr_queued, 1u);
	EXPECT_EQ(CheckInvariants(), "");
}

TEST_F(Misuse, RequeuingARequestNeverDispatchedWarnsAndKeepsTheCounts)
{
	FakeQueue *a = NewQueue(Root());
	ReleaseUndispatched(a, efq_request_requeued);
	ExpectWarnings(4);
	ExpectNothingCounted(a);
}

TEST_F(Misuse, CompletingARequestNeverDispatchedWarnsAndKeepsTheCounts)
{
	FakeQueue *a = NewQueue(Root());
	ReleaseUndispatched(a, efq_request_completed);
	ExpectWarnings(4);
	ExpectNothingCounted(a);
}

// ---------------------------------------------------------------------------
// The device
// ---------------------------------------------------------------------------

TEST_F(Misuse, ExitingWithAFallbackQueueReferenceLeftWarns)
{
	// efq_data_exit(): a reference taken with efq_oom_queue() and never
	// put.  The fallback queue lives in efq_data, which is freed with
	// the root group all the same: the teardown's leak check sees
	// nothing left.
	Lock();
	efq_oom_queue(efqd());
	Unlock();
	Reinit(opts_);
	ExpectWarnings(1);
	EXPECT_EQ(Refs(&efqd()->oom_queue), 1u);
	EXPECT_EQ(CheckInvariants(), "");
}

// Not a caller's misuse of an interface: efq_queue_init() gives 500 and
// efq_queue_set_ioprio() refuses a level of 8 or more, so only a write to
// the field itself gets past the maximum (warnings.rst keeps this WARN
// UNREACHABLE).  The test shows the check and its fallback.
TEST_F(Misuse, AQueueWeightAboveTheMaximumWarnsAndGetsTheBaseSlice)
{
	FakeQueue *a = NewQueue(Root());

	// efq_queue_slice(): a level's weight is 200-900, its slice 0.4 to
	// 1.8 times the base; past level 0's weight (900) the queue gets the
	// base, warned
	a->ioq->entity.weight = efq_ioprio_to_weight(0);
	EXPECT_EQ(efq_queue_slice(efqd(), a->ioq), efqd()->slice[1] * 9 / 5);
	ExpectWarnings(0);
	a->ioq->entity.weight = efq_ioprio_to_weight(0) + 1;
	EXPECT_EQ(efq_queue_slice(efqd(), a->ioq), efqd()->slice[1]);
	ExpectWarnings(1);
	a->ioq->entity.weight = EFQ_WEIGHT_DEFAULT;
	EXPECT_EQ(CheckInvariants(), "");
}

// ---------------------------------------------------------------------------
// Locking (as Locking.* in cgroup_test.cc)
// ---------------------------------------------------------------------------

TEST_F(Misuse, BypassDispatchWithoutTheLockIsDetected)
{
	// efq_bypass_dispatch(): the bypass list is efqd->lock's
	EXPECT_EQ(efq_bypass_dispatch(efqd()), nullptr);
	ExpectLockErrors(1);
	EXPECT_EQ(efqd()->nr_bypass, 0u);
	EXPECT_EQ(CheckInvariants(), "");
}

TEST_F(Misuse, AllowMergeWithoutTheLockIsDetected)
{
	struct request *rq = NewRequest(REQ_OP_READ, nullptr);

	// efq_allow_merge(): the request's queue and group are read under
	// efqd->lock; a request with no queue never merges
	EXPECT_FALSE(efq_allow_merge(queue(), rq, nullptr));
	ExpectLockErrors(1);
	FreeRequest(rq);
	EXPECT_EQ(CheckInvariants(), "");
}

} // namespace
