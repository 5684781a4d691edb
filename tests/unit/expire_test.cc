// SPDX-License-Identifier: GPL-2.0
// Every expiry reason, idling, group idling, wait-busy, the fairness drain
// and the single-queue untimed shortcut (the rules of
// Documentation/block/io-controller.rst, "Idling", "Expiry" and "Charging";
// the shortcut is for single-queue schedulers only, unlike V10's flat
// build, which applied it to cfq too).

#include "efq_harness.h"

using namespace efqt;

namespace {

class ExpireReason : public EfqTest {};
class Idling : public EfqTest {};
class GroupIdle : public EfqTest {};
class WaitBusy : public EfqTest {
protected:
	struct efq_group *g = nullptr;
	FakeQueue *q = nullptr, *r = nullptr;

	// group_idle 0; q (idle window on), in group g, has two requests, r in
	// the root one; q is served and its first request completes, which
	// starts its slice.  Returns q's second request, dispatched.
	struct request *Start(bool sibling = false)
	{
		efqd()->group_idle = 0;
		g = GroupOf(Cgroup("a"));
		q = NewQueue(g);
		r = NewQueue(Root());
		AddN(q, 2);
		if (sibling)
			Add(NewQueue(g));
		Add(r);
		Lock();
		efq_mark_queue_idle_window(q->ioq);
		Unlock();
		EXPECT_EQ(Select(), q);
		Complete(DispatchFrom(q));
		return DispatchFrom(q);
	}
};
class Fairness : public EfqTest {};
class UntimedShortcut : public EfqTest {};
class SingleQueueMode : public EfqTest {
protected:
	void SetUp() override
	{
		opts_.features = EFQ_FEAT_SINGLE_QUEUE;
		EfqTest::SetUp();
	}
};

// Only @reason was counted, @n times.
::testing::AssertionResult OnlyExpired(EfqTest *t, const unsigned long *nr, int reason,
				       unsigned long n)
{
	std::ostringstream err;
	for (int i = 0; i < EFQ_EXPIRE_NR; i++) {
		unsigned long want = i == reason ? n : 0;
		if (nr[i] != want)
			err << ReasonName(i) << "=" << nr[i] << " (want " << want << ") ";
	}
	(void)t;
	if (err.str().empty())
		return ::testing::AssertionSuccess();
	return ::testing::AssertionFailure() << err.str();
}

#define EXPECT_ONLY_EXPIRED(reason, n) EXPECT_TRUE(OnlyExpired(this, efqd()->nr_expired, reason, n))

// ---------------------------------------------------------------------------
// Expire: one test per enum efq_expire_reason
// ---------------------------------------------------------------------------

TEST_F(ExpireReason, SliceUsedAtSelect)
{
	FakeQueue *a = NewQueue(Root()), *b = NewQueue(Root());
	AddN(a, 3);
	Add(b);
	ASSERT_EQ(Select(), a);
	Complete(DispatchFrom(a));
	Advance(100 * kMs - 1);
	EXPECT_EQ(Select(), a);
	Advance(1);
	EXPECT_EQ(Select(), b);
	EXPECT_ONLY_EXPIRED(EFQ_EXPIRE_SLICE_USED, 1);
}

TEST_F(ExpireReason, IdleClassQueueGetsOneDispatchRoundPerSelection)
{
	FakeQueue *i = NewQueue(Root(), true, 7, IOPRIO_CLASS_IDLE);
	AddN(i, 2);
	ASSERT_EQ(Select(), i);
	DispatchFrom(i);
	EXPECT_EQ(Select(), i); // expired and chosen again: it is alone
	EXPECT_ONLY_EXPIRED(EFQ_EXPIRE_IDLE_CLASS, 1);
	EXPECT_EQ(hooks.active_set, 2);
}

TEST_F(ExpireReason, CompletionAfterTheSliceIsUsed)
{
	FakeQueue *a = NewQueue(Root()), *b = NewQueue(Root());
	AddN(a, 3);
	Add(b);
	ASSERT_EQ(Select(), a);
	Complete(DispatchFrom(a)); // slice starts
	struct request *rq = DispatchFrom(a);
	Advance(100 * kMs);
	Complete(rq);
	EXPECT_EQ(efqd()->active_queue, nullptr);
	EXPECT_ONLY_EXPIRED(EFQ_EXPIRE_COMPLETION, 1);
	EXPECT_TRUE(efq_queue_busy(a->ioq)); // one request left
}

TEST_F(ExpireReason, IdleClassQueueExpiresAtItsFirstCompletion)
{
	FakeQueue *i = NewQueue(Root(), true, 7, IOPRIO_CLASS_IDLE);
	AddN(i, 2);
	ASSERT_EQ(Select(), i);
	Complete(DispatchFrom(i));
	EXPECT_EQ(efqd()->active_queue, nullptr);
	EXPECT_ONLY_EXPIRED(EFQ_EXPIRE_COMPLETION, 1);
}

TEST_F(ExpireReason, EmptyQueueThatMayNotIdleAtSelect)
{
	FakeQueue *a = NewQueue(Root()), *b = NewQueue(Root());
	Add(a);
	Add(b);
	ASSERT_EQ(Select(), a);
	Complete(DispatchFrom(a));
	EXPECT_EQ(Select(), b);
	EXPECT_ONLY_EXPIRED(EFQ_EXPIRE_EMPTY, 1);
}

TEST_F(ExpireReason, EmptyQueueWithIdleWindowWaitsForItsRequestsInFlight)
{
	FakeQueue *a = NewQueue(Root()), *b = NewQueue(Root());
	AddN(a, 1);
	Add(b);
	Lock();
	efq_mark_queue_idle_window(a->ioq);
	Unlock();
	ASSERT_EQ(Select(), a);
	struct request *rq = DispatchFrom(a);
	EXPECT_EQ(Select(), nullptr); // empty, but a request is in flight
	EXPECT_TRUE(efqd()->hold);
	Complete(rq);
	EXPECT_EQ(Select(), b);
	EXPECT_ONLY_EXPIRED(EFQ_EXPIRE_EMPTY, 1);
}

TEST_F(ExpireReason, CloseCooperatorRunsNext)
{
	FakeQueue *a = NewQueue(Root()), *b = NewQueue(Root()), *c = NewQueue(Root());
	Add(a);
	Add(b);
	Add(c);
	coop_answer = c;
	ASSERT_EQ(Select(), a);
	Complete(DispatchFrom(a));
	EXPECT_EQ(hooks.arm_slice_timer, 0); // a cooperator exists: no idling
	EXPECT_EQ(Select(), c);		     // ahead of b
	EXPECT_ONLY_EXPIRED(EFQ_EXPIRE_COOPERATOR, 1);
	EXPECT_TRUE(hooks.last_coop);
	EXPECT_GE(hooks.close_cooperator, 1);
}

TEST_F(ExpireReason, CooperatorOfAnotherGroupIsIgnored)
{
	efqd()->group_idle = 0;
	struct efq_group *g1 = GroupOf(Cgroup("a")), *g2 = GroupOf(Cgroup("b"));
	FakeQueue *a = NewQueue(g1), *b = NewQueue(Root()), *c = NewQueue(g2);
	Add(a);
	Add(b);
	Add(c);
	coop_answer = c;
	ASSERT_EQ(Select(), a);
	Complete(DispatchFrom(a));
	EXPECT_EQ(Select(), b); // the tree's choice, not the foreign cooperator
	EXPECT_ONLY_EXPIRED(EFQ_EXPIRE_EMPTY, 1);
	EXPECT_FALSE(hooks.last_coop);
}

TEST_F(ExpireReason, ForcedDispatchExpiresAnEmptyQueue)
{
	idle_ns = 10 * kMs;
	FakeQueue *a = NewQueue(Root()), *b = NewQueue(Root());
	Add(a);
	Add(b);
	ASSERT_EQ(Select(), a);
	Complete(DispatchFrom(a));
	ASSERT_EQ(Select(), nullptr); // idling
	EXPECT_EQ(Select(true), b);   // forced: no idling
	EXPECT_ONLY_EXPIRED(EFQ_EXPIRE_FORCED, 1);
	EXPECT_EQ(sim_clock_pending(), 0u);
}

TEST_F(ExpireReason, ForcedDispatchKeepsAQueueWithRequests)
{
	FakeQueue *a = NewQueue(Root()), *b = NewQueue(Root());
	AddN(a, 2);
	Add(b);
	ASSERT_EQ(Select(), a);
	Complete(DispatchFrom(a));
	Advance(200 * kMs); // the slice is long gone
	EXPECT_EQ(Select(true), a);
	EXPECT_EQ(TotalExpired(), 0u);
}

TEST_F(ExpireReason, PreemptionExpiresTheQueueInService)
{
	FakeQueue *a = NewQueue(Root()), *r = NewQueue(Root(), true, 4, IOPRIO_CLASS_RT);
	AddN(a, 2);
	ASSERT_EQ(Select(), a);
	Add(r);
	EXPECT_ONLY_EXPIRED(EFQ_EXPIRE_PREEMPTED, 1);
	EXPECT_EQ(efqd()->nr_preempted, 1u);
	EXPECT_EQ(Select(), r);
}

TEST_F(ExpireReason, IdleTimeoutExpiresTheQueue)
{
	idle_ns = 5 * kMs;
	FakeQueue *a = NewQueue(Root()), *b = NewQueue(Root());
	Add(a);
	Add(b);
	ASSERT_EQ(Select(), a);
	Complete(DispatchFrom(a));
	Advance(5 * kMs);
	EXPECT_ONLY_EXPIRED(EFQ_EXPIRE_IDLE_TIMEOUT, 1);
	EXPECT_EQ(Select(), b);
}

TEST_F(ExpireReason, WaitBusyTimeoutExpiresTheQueue)
{
	struct efq_group *g = GroupOf(Cgroup("a"));
	FakeQueue *q = NewQueue(g), *r = NewQueue(Root());
	AddN(q, 2);
	Add(r);
	ASSERT_EQ(Select(), q);
	Complete(DispatchFrom(q));
	struct request *rq = DispatchFrom(q);
	Advance(100 * kMs);
	Complete(rq); // slice used, group's last queue empty: wait busy
	Advance(EFQ_GROUP_IDLE_NS);
	EXPECT_ONLY_EXPIRED(EFQ_EXPIRE_WAIT_BUSY_TIMEOUT, 1);
	EXPECT_EQ(Select(), r);
}

TEST_F(ExpireReason, LastBusyQueueGoingEmptyAtCompletion)
{
	FakeQueue *a = NewQueue(Root());
	Add(a);
	ASSERT_EQ(Select(), a);
	struct request *rq = DispatchFrom(a);
	Advance(5 * kMs);
	Complete(rq);
	EXPECT_EQ(efqd()->active_queue, nullptr);
	EXPECT_FALSE(efq_queue_busy(a->ioq));
	EXPECT_ONLY_EXPIRED(EFQ_EXPIRE_LAST_EMPTY, 1);
	EXPECT_EQ(a->ioq->entity.total_time, 5 * kMs);
}

TEST_F(ExpireReason, VetoedExpiryBecomesMustExpireAtTheNextSelection)
{
	may_expire_script = {false};
	FakeQueue *a = NewQueue(Root()), *b = NewQueue(Root());
	Add(a);
	Add(b);
	ASSERT_EQ(Select(), a);
	Complete(DispatchFrom(a));
	EXPECT_EQ(Select(), a); // the scheduler refused: a stays
	EXPECT_TRUE(efq_queue_must_expire(a->ioq));
	EXPECT_FALSE(hooks.last_may_expire_force);
	EXPECT_EQ(TotalExpired(), 0u);
	EXPECT_EQ(Select(), b);
	EXPECT_ONLY_EXPIRED(EFQ_EXPIRE_MUST_EXPIRE, 1);
}

TEST_F(ExpireReason, SchedulerRequestedExpiry)
{
	FakeQueue *a = NewQueue(Root());
	AddN(a, 2);
	ASSERT_EQ(Select(), a);
	Expire(EFQ_EXPIRE_SCHED);
	EXPECT_ONLY_EXPIRED(EFQ_EXPIRE_SCHED, 1);
	EXPECT_EQ(hooks.active_reset, 1);
	Lock();
	efq_expire_active(efqd(), EFQ_EXPIRE_SCHED); // nothing in service: no-op
	Unlock();
	EXPECT_ONLY_EXPIRED(EFQ_EXPIRE_SCHED, 1);
}

TEST_F(ExpireReason, ForcedExpiriesCannotBeVetoed)
{
	may_expire_fn = [](FakeQueue *, bool, bool) { return false; };
	FakeQueue *a = NewQueue(Root()), *r = NewQueue(Root(), true, 4, IOPRIO_CLASS_RT);
	AddN(a, 2);
	ASSERT_EQ(Select(), a);
	Add(r); // preemption asks with force
	EXPECT_TRUE(hooks.last_may_expire_force);
	EXPECT_ONLY_EXPIRED(EFQ_EXPIRE_PREEMPTED, 1);
}

TEST_F(ExpireReason, EmptyQueueIsDeletedFromTheBusySetAtExpiry)
{
	FakeQueue *a = NewQueue(Root()), *b = NewQueue(Root());
	Add(a);
	AddN(b, 2);
	EXPECT_EQ(efqd()->busy_queues, 2u);
	ASSERT_EQ(Select(), a);
	Complete(DispatchFrom(a));
	ASSERT_EQ(Select(), b);
	EXPECT_EQ(efqd()->busy_queues, 1u);
	EXPECT_FALSE(efq_queue_busy(a->ioq));
	EXPECT_EQ(refcount_read(&a->ioq->ref), 2u); // owner + idle tree
}

// ---------------------------------------------------------------------------
// Idling (slice_idle, the scheduler's decision)
// ---------------------------------------------------------------------------

TEST_F(Idling, ArmedIdleWindowHoldsDispatchAndHasWorkIsFalse)
{
	idle_ns = 5 * kMs;
	FakeQueue *a = NewQueue(Root()), *b = NewQueue(Root());
	Add(a);
	Add(b);
	ASSERT_EQ(Select(), a);
	Complete(DispatchFrom(a));
	EXPECT_EQ(hooks.arm_slice_timer, 1);
	EXPECT_TRUE(efq_queue_wait_request(a->ioq));
	EXPECT_TRUE(efq_queue_is_idling(efqd(), a->ioq));
	EXPECT_EQ(Select(), nullptr);
	EXPECT_TRUE(efqd()->hold);
	EXPECT_EQ(efqd()->nr_queued, 1u);   // b waits ...
	EXPECT_FALSE(efq_has_work(efqd())); // ... yet nothing may go now
	s64 when = 0;
	ASSERT_TRUE(sim_clock_next_expiry(&when));
	EXPECT_EQ((u64)when, Now() + 5 * kMs);
}

TEST_F(Idling, RequestArrivalEndsIdlingAndIsDispatchedEvenPastTheSlice)
{
	idle_ns = 20 * kMs;
	FakeQueue *a = NewQueue(Root()), *b = NewQueue(Root());
	AddN(a, 2);
	Add(b);
	ASSERT_EQ(Select(), a);
	Complete(DispatchFrom(a)); // slice: t0 .. t0 + 100 ms
	struct request *rq = DispatchFrom(a);
	Advance(95 * kMs);
	Complete(rq); // empty: idle 20 ms
	ASSERT_TRUE(efq_queue_wait_request(a->ioq));
	Advance(10 * kMs); // the slice ended while idling
	EXPECT_TRUE(efq_queue_slice_used(a->ioq));
	unsigned long runs = queue()->sim_run_count;
	Add(a);
	EXPECT_FALSE(efq_queue_wait_request(a->ioq));
	EXPECT_TRUE(efq_queue_must_dispatch(a->ioq));
	EXPECT_EQ(sim_clock_pending(), 0u); // idle timer cancelled
	// blk-mq runs the hardware queue after every insert: no run of ours
	EXPECT_EQ(queue()->sim_run_count, runs);
	EXPECT_TRUE(efq_has_work(efqd()));
	EXPECT_EQ(Select(), a); // what we idled for goes out
	DispatchFrom(a);
	EXPECT_FALSE(efq_queue_must_dispatch(a->ioq));
	EXPECT_EQ(Select(), b); // now the used slice counts
	EXPECT_ONLY_EXPIRED(EFQ_EXPIRE_SLICE_USED, 1);
}

TEST_F(Idling, TimerExpiryExpiresTheQueueAndRerunsTheHardwareQueues)
{
	idle_ns = 5 * kMs;
	FakeQueue *a = NewQueue(Root()), *b = NewQueue(Root());
	Add(a);
	Add(b);
	ASSERT_EQ(Select(), a);
	Complete(DispatchFrom(a));
	unsigned long runs = queue()->sim_run_count;
	Advance(5 * kMs - 1);
	EXPECT_EQ(efqd()->active_queue, a->ioq);
	Advance(1);
	EXPECT_EQ(efqd()->active_queue, nullptr);
	EXPECT_EQ(queue()->sim_run_count, runs + 1);
	EXPECT_FALSE(efqd()->hold);
	EXPECT_TRUE(efq_has_work(efqd()));
	EXPECT_EQ(Expired(EFQ_EXPIRE_IDLE_TIMEOUT), 1u);
	EXPECT_EQ(Select(), b);
}

TEST_F(Idling, TimerWithQueuedRequestsKicksWithoutExpiring)
{
	idle_ns = 5 * kMs;
	FakeQueue *a = NewQueue(Root()), *b = NewQueue(Root());
	Add(a);
	Add(b);
	ASSERT_EQ(Select(), a);
	Complete(DispatchFrom(a));
	// a request arrives for a without cancelling the timer (as if it
	// had been queued by a merge path the engine did not see)
	Lock();
	efq_clear_queue_wait_request(a->ioq);
	Unlock();
	Add(a);
	ASSERT_EQ(sim_clock_pending(), 1u);
	unsigned long runs = queue()->sim_run_count;
	Advance(5 * kMs);
	EXPECT_EQ(efqd()->active_queue, a->ioq);
	EXPECT_EQ(TotalExpired(), 0u);
	EXPECT_GE(queue()->sim_run_count, runs + 1);
}

TEST_F(Idling, OnlyReadsAndReqIdleSyncWritesMayIdle)
{
	FakeQueue *a = NewQueue(Root());
	struct {
		blk_opf_t flags;
		int arms;
	} cases[] = {
		{REQ_OP_READ, 1},
		{REQ_OP_WRITE | REQ_SYNC, 0},
		{REQ_OP_WRITE | REQ_SYNC | REQ_IDLE, 1},
		{REQ_OP_WRITE, 0},
	};
	for (auto &c : cases) {
		int before = hooks.arm_slice_timer;
		Add(a, c.flags);
		ASSERT_EQ(Select(), a);
		Complete(DispatchFrom(a));
		EXPECT_EQ(hooks.arm_slice_timer - before, c.arms) << "flags " << c.flags;
	}
}

TEST_F(Idling, NoIdlingWhileTheQueueStillHasRequests)
{
	idle_ns = 5 * kMs;
	FakeQueue *a = NewQueue(Root());
	AddN(a, 2);
	ASSERT_EQ(Select(), a);
	Complete(DispatchFrom(a));
	EXPECT_EQ(hooks.arm_slice_timer, 0);
}

// ---------------------------------------------------------------------------
// GroupIdle
// ---------------------------------------------------------------------------

TEST_F(GroupIdle, RootGroupNeverIdles)
{
	FakeQueue *a = NewQueue(Root()), *b = NewQueue(Root());
	Add(a);
	Add(b);
	ASSERT_EQ(Select(), a);
	Complete(DispatchFrom(a));
	EXPECT_FALSE(efq_group_should_idle(a->ioq));
	EXPECT_EQ(sim_clock_pending(), 0u);
	EXPECT_EQ(Select(), b);
	EXPECT_ONLY_EXPIRED(EFQ_EXPIRE_EMPTY, 1);
}

TEST_F(GroupIdle, LastQueueOfAGroupGoingEmptyIdlesGroupIdleNs)
{
	struct efq_group *g = GroupOf(Cgroup("a"));
	FakeQueue *q = NewQueue(g), *r = NewQueue(Root());
	Add(q);
	Add(r);
	ASSERT_EQ(Select(), q);
	struct request *rq = DispatchFrom(q);
	Advance(1 * kMs);
	Complete(rq);
	EXPECT_TRUE(efq_group_wait_request(g));
	s64 when = 0;
	ASSERT_TRUE(sim_clock_next_expiry(&when));
	EXPECT_EQ((u64)when, Now() + EFQ_GROUP_IDLE_NS);
	EXPECT_EQ(Select(), nullptr);
	EXPECT_FALSE(efq_has_work(efqd()));
	Advance(EFQ_GROUP_IDLE_NS - 1);
	EXPECT_EQ(efqd()->active_queue, q->ioq);
	Advance(1);
	EXPECT_ONLY_EXPIRED(EFQ_EXPIRE_IDLE_TIMEOUT, 1);
	EXPECT_FALSE(efq_group_wait_request(g));
	EXPECT_EQ(Select(), r);
}

TEST_F(GroupIdle, FollowsTheGroupIdleTunable)
{
	efqd()->group_idle = 3 * kMs;
	struct efq_group *g = GroupOf(Cgroup("a"));
	FakeQueue *q = NewQueue(g), *r = NewQueue(Root());
	Add(q);
	Add(r);
	ASSERT_EQ(Select(), q);
	Complete(DispatchFrom(q));
	s64 when = 0;
	ASSERT_TRUE(sim_clock_next_expiry(&when));
	EXPECT_EQ((u64)when, Now() + 3 * kMs);
}

TEST_F(GroupIdle, ZeroDisablesGroupIdling)
{
	efqd()->group_idle = 0;
	struct efq_group *g = GroupOf(Cgroup("a"));
	FakeQueue *q = NewQueue(g), *r = NewQueue(Root());
	Add(q);
	Add(r);
	ASSERT_EQ(Select(), q);
	Complete(DispatchFrom(q));
	EXPECT_FALSE(efq_group_should_idle(q->ioq));
	EXPECT_EQ(sim_clock_pending(), 0u);
	EXPECT_EQ(Select(), r);
	EXPECT_ONLY_EXPIRED(EFQ_EXPIRE_EMPTY, 1);
}

TEST_F(GroupIdle, GroupWithAnotherBackloggedQueueDoesNotIdle)
{
	struct efq_group *g = GroupOf(Cgroup("a"));
	FakeQueue *q1 = NewQueue(g), *q2 = NewQueue(g);
	Add(q1);
	Add(q2);
	ASSERT_EQ(Select(), q1);
	Complete(DispatchFrom(q1));
	EXPECT_EQ(sim_clock_pending(), 0u);
	EXPECT_EQ(Select(), q2);
}

TEST_F(GroupIdle, RequestArrivingInTheIdlingGroupPreemptsWithinIt)
{
	struct efq_group *g = GroupOf(Cgroup("a"));
	FakeQueue *q1 = NewQueue(g);
	Add(q1);
	ASSERT_EQ(Select(), q1);
	Complete(DispatchFrom(q1)); // the only busy queue idles for its group
	ASSERT_TRUE(efq_group_wait_request(g));
	EXPECT_EQ(efqd()->active_queue, q1->ioq);
	Advance(3 * kMs);
	FakeQueue *q2 = NewQueue(g);
	Add(q2);
	EXPECT_EQ(hooks.should_preempt, 0); // decided before the hook
	EXPECT_EQ(efqd()->nr_preempted, 1u);
	EXPECT_ONLY_EXPIRED(EFQ_EXPIRE_PREEMPTED, 1);
	EXPECT_EQ(sim_clock_pending(), 0u);
	EXPECT_EQ(Select(), q2);
}

TEST_F(GroupIdle, PreemptionWithinAGroupDoesNotMoveTheGroup)
{
	// requeue at the front acts on the queue's own level only: the
	// preempting group was charged and other groups may come first
	struct efq_group *g = GroupOf(Cgroup("a"));
	FakeQueue *q1 = NewQueue(g), *r = NewQueue(Root());
	Add(q1);
	Add(r);
	ASSERT_EQ(Select(), q1);
	Complete(DispatchFrom(q1));
	Advance(3 * kMs);
	FakeQueue *q2 = NewQueue(g);
	Add(q2);
	EXPECT_EQ(efqd()->nr_preempted, 1u);
	auto order = TreeOrder(St(g, IOPRIO_CLASS_BE));
	ASSERT_FALSE(order.empty());
	EXPECT_EQ(order[0], &q2->ioq->entity);
	EXPECT_EQ(g->entity.vdisktime, Vt(3 * kMs)); // g paid for the idling
	EXPECT_EQ(Select(), r);
}

TEST_F(GroupIdle, RequestForTheIdlingQueueItselfIsDispatchedAtOnce)
{
	struct efq_group *g = GroupOf(Cgroup("a"));
	FakeQueue *q = NewQueue(g), *r = NewQueue(Root());
	Add(q);
	Add(r);
	ASSERT_EQ(Select(), q);
	Complete(DispatchFrom(q));
	ASSERT_TRUE(efq_group_wait_request(g));
	Add(q);
	EXPECT_FALSE(efq_group_wait_request(g));
	EXPECT_TRUE(efq_queue_must_dispatch(q->ioq));
	EXPECT_EQ(sim_clock_pending(), 0u);
	EXPECT_EQ(Select(), q);
	EXPECT_EQ(TotalExpired(), 0u);
}

TEST_F(GroupIdle, SelectWaitsForInFlightRequestsOfTheGroupsLastQueue)
{
	struct efq_group *g = GroupOf(Cgroup("a"));
	FakeQueue *q = NewQueue(g), *r = NewQueue(Root());
	Add(q);
	Add(r);
	ASSERT_EQ(Select(), q);
	struct request *rq = DispatchFrom(q);
	EXPECT_EQ(Select(), nullptr); // empty, one in flight: wait for it
	Complete(rq);
	EXPECT_TRUE(efq_group_wait_request(g)); // then idle for the group
}

// ---------------------------------------------------------------------------
// WaitBusy
// ---------------------------------------------------------------------------

class WaitBusyScenario : public EfqTest {
protected:
	struct efq_group *g = nullptr;
	FakeQueue *q = nullptr, *r = nullptr;

	// q, the only queue of group g, uses its slice and goes empty at the
	// completion of its last request; r in the root waits.
	void Build()
	{
		g = GroupOf(Cgroup("a"));
		q = NewQueue(g);
		r = NewQueue(Root());
		AddN(q, 2);
		Add(r);
		ASSERT_EQ(Select(), q);
		Complete(DispatchFrom(q));
		struct request *rq = DispatchFrom(q);
		Advance(100 * kMs);
		Complete(rq);
	}
};

class WaitBusyGroup : public WaitBusyScenario {};

TEST_F(WaitBusyGroup, GroupWaitsBusyAfterItsLastQueueUsedItsSlice)
{
	Build();
	EXPECT_TRUE(efq_group_wait_busy(g));
	EXPECT_EQ(efqd()->active_queue, q->ioq);
	s64 when = 0;
	ASSERT_TRUE(sim_clock_next_expiry(&when));
	EXPECT_EQ((u64)when, Now() + EFQ_GROUP_IDLE_NS);
	EXPECT_EQ(Select(), nullptr);
	Advance(EFQ_GROUP_IDLE_NS);
	EXPECT_ONLY_EXPIRED(EFQ_EXPIRE_WAIT_BUSY_TIMEOUT, 1);
	EXPECT_FALSE(efq_group_wait_busy(g));
	EXPECT_FALSE(g->entity.on_st);
}

TEST_F(WaitBusyGroup, RequestDuringWaitBusyKeepsTheGroupBacklogged)
{
	Build();
	Advance(3 * kMs);
	Add(q);
	EXPECT_FALSE(efq_group_wait_busy(g));
	EXPECT_TRUE(efq_group_wait_busy_done(g));
	EXPECT_EQ(sim_clock_pending(), 0u);
	EXPECT_EQ(efqd()->nr_preempted, 0u);
	EXPECT_EQ(Select(), r); // the used slice ends now ...
	EXPECT_ONLY_EXPIRED(EFQ_EXPIRE_SLICE_USED, 1);
	EXPECT_TRUE(g->entity.on_st); // ... without g leaving its tree
	EXPECT_EQ(g->entity.nr_dequeued, 0u);
	EXPECT_EQ(g->entity.vdisktime, Vt(100 * kMs)); // min(103, 100) ms
}

TEST_F(WaitBusy, QueueWaitsBusyEvenWithGroupIdleZero)
{
	struct request *rq = Start();
	Advance(100 * kMs);
	Complete(rq);
	EXPECT_TRUE(efq_group_wait_busy(g));
	s64 when = 0;
	ASSERT_TRUE(sim_clock_next_expiry(&when));
	EXPECT_EQ((u64)when, Now() + EFQ_WAIT_BUSY_NS);
	Advance(EFQ_WAIT_BUSY_NS);
	EXPECT_ONLY_EXPIRED(EFQ_EXPIRE_WAIT_BUSY_TIMEOUT, 1);
}

// The slice may end after the last completion looked at it (the dispatch
// that follows comes later, from kblockd).  Nothing was armed then, and
// nothing is in flight: holding for wait-busy now would have nothing to end
// it, and the other queues would stall (review lead 7).
TEST_F(WaitBusy, NoHoldWhenTheSliceEndsAfterTheLastCompletionWithNothingArmed)
{
	struct request *rq = Start();
	Advance(q->ioq->slice_end - Now() - 1);
	Complete(rq); // empty, its slice not yet used: no wait-busy armed
	ASSERT_EQ(sim_clock_pending(), 0u);
	ASSERT_FALSE(efq_group_wait_busy(g));
	Advance(2);
	EXPECT_EQ(Select(), r) << "a hold here has nothing to end it";
}

// A group whose used-up queue went empty while another of its queues is
// busy stays on its tree anyway: no wait-busy (2.6.33 refused it with more
// than one queue), the disk goes on.
TEST_F(WaitBusy, NoWaitBusyWhileAnotherQueueOfTheGroupIsBusy)
{
	struct request *rq = Start(/*sibling=*/true);
	Advance(100 * kMs);
	Complete(rq);
	EXPECT_FALSE(efq_group_wait_busy(g));
	EXPECT_EQ(sim_clock_pending(), 0u);
	EXPECT_TRUE(efq_has_work(efqd()));
	EXPECT_NE(Select(), nullptr);
}

TEST_F(WaitBusy, QueueWithoutIdleWindowExpiresAtOnceWithGroupIdleZero)
{
	efqd()->group_idle = 0;
	struct efq_group *g = GroupOf(Cgroup("a"));
	FakeQueue *q = NewQueue(g), *r = NewQueue(Root());
	AddN(q, 2);
	Add(r);
	ASSERT_EQ(Select(), q);
	Complete(DispatchFrom(q));
	struct request *rq = DispatchFrom(q);
	Advance(100 * kMs);
	Complete(rq);
	EXPECT_EQ(sim_clock_pending(), 0u);
	EXPECT_ONLY_EXPIRED(EFQ_EXPIRE_COMPLETION, 1);
}

TEST_F(WaitBusy, RootGroupQueuesNeverWaitBusy)
{
	FakeQueue *q = NewQueue(Root()), *r = NewQueue(Root());
	AddN(q, 2);
	Add(r);
	Lock();
	efq_mark_queue_idle_window(q->ioq);
	Unlock();
	ASSERT_EQ(Select(), q);
	Complete(DispatchFrom(q));
	struct request *rq = DispatchFrom(q);
	Advance(100 * kMs);
	Complete(rq);
	EXPECT_FALSE(efq_group_wait_busy(Root()));
	EXPECT_ONLY_EXPIRED(EFQ_EXPIRE_COMPLETION, 1);
}

// ---------------------------------------------------------------------------
// Fairness
// ---------------------------------------------------------------------------

class FairnessDrain : public EfqTest {
protected:
	FakeQueue *a = nullptr, *b = nullptr;
	struct request *r2 = nullptr, *r3 = nullptr;

	// a used its slice with two requests in flight; b waits.
	void Build()
	{
		a = NewQueue(Root());
		b = NewQueue(Root());
		AddN(a, 4);
		Add(b);
		ASSERT_EQ(Select(), a);
		Complete(DispatchFrom(a));
		r2 = DispatchFrom(a);
		r3 = DispatchFrom(a);
		Advance(100 * kMs);
	}
};

TEST_F(FairnessDrain, Fairness1WaitsForDispatchedRequestsBeforeSwitching)
{
	efqd()->fairness = 1;
	Build();
	EXPECT_EQ(Select(), nullptr);
	EXPECT_TRUE(efqd()->hold);
	Complete(r2);
	EXPECT_EQ(efqd()->active_queue, a->ioq); // one still in flight
	EXPECT_EQ(Select(), nullptr);
	Advance(2 * kMs);
	Complete(r3); // drained: expired at completion
	EXPECT_EQ(efqd()->active_queue, nullptr);
	EXPECT_ONLY_EXPIRED(EFQ_EXPIRE_COMPLETION, 1);
	EXPECT_EQ(a->ioq->entity.total_time, 102 * kMs); // charged the drain too
	EXPECT_EQ(Select(), b);
}

// The last request the drain waits for is given back by the driver with
// RQF_DONTPREP: it completes through hctx->dispatch, out of the engine's
// sight.  The requeue must end the wait and ask for a run (review lead 6),
// or nothing would: no request of a's is in flight any more.
TEST_F(FairnessDrain, ARequeueOfTheLastAwaitedRequestEndsTheDrain)
{
	efqd()->fairness = 1;
	Build();
	EXPECT_EQ(Select(), nullptr);
	Complete(r2);
	ASSERT_TRUE(efqd()->hold);
	unsigned long runs = queue()->sim_run_count;
	RequeueBypassing(r3);
	EXPECT_FALSE(efqd()->hold);
	EXPECT_TRUE(efq_has_work(efqd()));
	EXPECT_GT(queue()->sim_run_count, runs) << "the requeue asks for a run";
	EXPECT_NE(Select(), nullptr);
}

TEST_F(FairnessDrain, Fairness0SwitchesWithRequestsInFlight)
{
	Build();
	EXPECT_EQ(Select(), b);
	EXPECT_ONLY_EXPIRED(EFQ_EXPIRE_SLICE_USED, 1);
	EXPECT_EQ(a->ioq->dispatched, 2u);
}

TEST_F(Fairness, SelfDrainingSchedulersAreNotHeld)
{
	Options o;
	o.features = EFQ_FEAT_SELF_DRAIN;
	o.fairness = 1;
	Reinit(o);
	FakeQueue *a = NewQueue(Root()), *b = NewQueue(Root());
	AddN(a, 3);
	Add(b);
	ASSERT_EQ(Select(), a);
	Complete(DispatchFrom(a));
	DispatchFrom(a);
	Advance(100 * kMs);
	EXPECT_EQ(Select(), b);
}

// ---------------------------------------------------------------------------
// SingleQueue (EFQ_FEAT_SINGLE_QUEUE)
// ---------------------------------------------------------------------------

TEST_F(SingleQueueMode, EveryGroupHasOneQueueCreatedOnFirstUse)
{
	FakeQueue *rq0 = SingleQueue(Root());
	ASSERT_NE(rq0, nullptr);
	EXPECT_EQ(Root()->ioq, rq0->ioq);
	EXPECT_TRUE(efq_queue_sync(rq0->ioq));
	struct efq_group *g = GroupOf(Cgroup("a"));
	EXPECT_EQ(g->ioq, nullptr);
	FakeQueue *gq = SingleQueue(g);
	ASSERT_NE(gq, nullptr);
	EXPECT_EQ(g->ioq, gq->ioq);
	EXPECT_EQ(SingleQueue(g), gq);
}

TEST_F(SingleQueueMode, RootQueueRunsWithoutTimedExpiryWhileNoGroupIsLinked)
{
	FakeQueue *r = SingleQueue(Root());
	AddN(r, 5);
	ASSERT_EQ(Select(), r);
	Complete(DispatchFrom(r));
	Advance(300 * kMs);
	EXPECT_EQ(Select(), r);
	Complete(DispatchFrom(r));
	EXPECT_EQ(Select(), r);
	EXPECT_EQ(TotalExpired(), 0u);
	EXPECT_EQ(hooks.active_set, 1);
	EXPECT_TRUE(efq_queue_charge_one_slice(r->ioq));
}

TEST_F(SingleQueueMode, UntimedRunIsChargedAtMostOneSlice)
{
	efqd()->fairness = 1;
	FakeQueue *r = SingleQueue(Root());
	AddN(r, 5);
	ASSERT_EQ(Select(), r);
	Complete(DispatchFrom(r));
	Advance(300 * kMs);
	ASSERT_EQ(Select(), r);
	Expire();
	EXPECT_EQ(r->ioq->entity.vdisktime, Vt(100 * kMs)); // capped at the slice
	EXPECT_EQ(r->ioq->entity.total_time, 300 * kMs);    // real service
	EXPECT_FALSE(efq_queue_charge_one_slice(r->ioq));
}

TEST_F(SingleQueueMode, UntimedRunStopsOnceAGroupIsLinked)
{
	FakeQueue *r = SingleQueue(Root());
	AddN(r, 5);
	ASSERT_EQ(Select(), r);
	Complete(DispatchFrom(r));
	Advance(300 * kMs);
	ASSERT_EQ(Select(), r);
	struct efq_group *g = GroupOf(Cgroup("a"));
	FakeQueue *gq = SingleQueue(g);
	Add(gq);
	EXPECT_EQ(efqd()->nr_preempted, 0u); // single-queue schedulers never preempt
	EXPECT_EQ(Select(), gq);
	EXPECT_ONLY_EXPIRED(EFQ_EXPIRE_SLICE_USED, 1);
}

TEST_F(SingleQueueMode, GroupQueueFallsBackToTheRootQueueWhenAllocationFails)
{
	struct efq_group *g = GroupOf(Cgroup("a"));
	sim_slab_fail_nowait(true);
	FakeQueue *fq = SingleQueue(g);
	sim_slab_fail_nowait(false);
	EXPECT_EQ(fq->ioq, Root()->ioq);
	EXPECT_EQ(g->ioq, nullptr);
	EXPECT_EQ(SingleQueue(g)->ioq, g->ioq); // created once memory is back
	EXPECT_NE(g->ioq, nullptr);
}

TEST_F(SingleQueueMode, NoPreemptionAndNoLatePreemption)
{
	efqd()->group_idle = 0;
	struct efq_group *gbe = GroupOf(Cgroup("be"));
	struct efq_group *grt = GroupOf(Cgroup("rt", nullptr, 500, IOPRIO_CLASS_RT));
	FakeQueue *qb = SingleQueue(gbe), *qr = SingleQueue(grt);
	AddN(qb, 2);
	ASSERT_EQ(Select(), qb);
	Add(qr);
	EXPECT_EQ(efqd()->nr_preempted, 0u);
	EXPECT_FALSE(grt->late_preemption);
}

TEST_F(UntimedShortcut, AppliesOnlyToSingleQueueSchedulers)
{
	// the untimed shortcut is for single-queue schedulers only (V10's flat
	// build applied it to cfq too, which then never expired a slice)
	FakeQueue *a = NewQueue(Root());
	AddN(a, 5);
	ASSERT_EQ(Select(), a);
	Complete(DispatchFrom(a));
	Advance(100 * kMs);
	EXPECT_EQ(Select(), a); // alone, but its slice still ends
	EXPECT_ONLY_EXPIRED(EFQ_EXPIRE_SLICE_USED, 1);
	EXPECT_EQ(hooks.active_set, 2);
	EXPECT_FALSE(efq_queue_charge_one_slice(a->ioq));
}

} // namespace
