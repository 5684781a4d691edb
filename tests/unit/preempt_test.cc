// SPDX-License-Identifier: GPL-2.0
// Preemption (class rules between matched siblings, V10's cross-group
// rules with Gui Jianfeng's condition that no sync queue waits in between,
// group_wait_req, the scheduler hook) and late preemption
// (Documentation/block/io-controller.rst, "Preemption").

#include "efq_harness.h"

using namespace efqt;

namespace {

class Preempt : public EfqTest {};
class LatePreemption : public EfqTest {};

TEST_F(Preempt, RtGroupPreemptsABeSiblingGroup)
{
	struct efq_group *g1 = GroupOf(Cgroup("be"));
	struct efq_group *g2 = GroupOf(Cgroup("rt", nullptr, 500, IOPRIO_CLASS_RT));
	FakeQueue *q1 = NewQueue(g1), *q2 = NewQueue(g2); // q2 is a BE queue
	AddN(q1, 2);
	ASSERT_EQ(Select(), q1);
	Add(q2);
	EXPECT_EQ(efqd()->nr_preempted, 1u);
	EXPECT_EQ(Expired(EFQ_EXPIRE_PREEMPTED), 1u);
	EXPECT_EQ(hooks.should_preempt, 0);
	EXPECT_EQ(Select(), q2);
}

TEST_F(Preempt, RtQueueInsideABeGroupDoesNotPreemptASiblingGroup)
{
	struct efq_group *g1 = GroupOf(Cgroup("a")), *g2 = GroupOf(Cgroup("b"));
	FakeQueue *q1 = NewQueue(g1), *q2 = NewQueue(g2, true, 4, IOPRIO_CLASS_RT);
	AddN(q1, 2);
	ASSERT_EQ(Select(), q1);
	Add(q2); // matched siblings g2 and g1 are both BE
	EXPECT_EQ(efqd()->nr_preempted, 0u);
	EXPECT_EQ(hooks.should_preempt, 0); // other group: no hook
	EXPECT_EQ(efqd()->active_queue, q1->ioq);
}

TEST_F(Preempt, RtQueuePreemptsABeQueueOfTheSameGroup)
{
	FakeQueue *a = NewQueue(Root()), *r = NewQueue(Root(), true, 4, IOPRIO_CLASS_RT);
	AddN(a, 2);
	ASSERT_EQ(Select(), a);
	Add(r);
	EXPECT_EQ(efqd()->nr_preempted, 1u);
	EXPECT_EQ(hooks.should_preempt, 0);
	EXPECT_EQ(Select(), r);
}

TEST_F(Preempt, RtQueueInAChildBeGroupDoesNotPreemptTheParentsBeQueue)
{
	// matched siblings: the child group (BE) against the parent's queue
	// (BE): no class preemption between them
	struct efq_group *g = GroupOf(Cgroup("a"));
	FakeQueue *a = NewQueue(Root()), *r = NewQueue(g, true, 4, IOPRIO_CLASS_RT);
	AddN(a, 2);
	ASSERT_EQ(Select(), a);
	Add(r);
	EXPECT_EQ(efqd()->nr_preempted, 0u);
}

TEST_F(Preempt, BeQueuePreemptsAnIdleClassQueue)
{
	FakeQueue *i = NewQueue(Root(), true, 7, IOPRIO_CLASS_IDLE), *b = NewQueue(Root());
	AddN(i, 2);
	ASSERT_EQ(Select(), i);
	Add(b);
	EXPECT_EQ(efqd()->nr_preempted, 1u);
	EXPECT_EQ(Select(), b);
}

TEST_F(Preempt, IdleClassArrivalDoesNotPreemptByClass)
{
	FakeQueue *b = NewQueue(Root()), *i = NewQueue(Root(), true, 7, IOPRIO_CLASS_IDLE);
	AddN(b, 2);
	ASSERT_EQ(Select(), b);
	Add(i);
	EXPECT_EQ(efqd()->nr_preempted, 0u);
	EXPECT_EQ(hooks.should_preempt, 1); // same group: the scheduler said no
}

TEST_F(Preempt, SyncInAnAncestorGroupPreemptsAsyncInAChildGroup)
{
	struct efq_group *g = GroupOf(Cgroup("a"));
	FakeQueue *w = AsyncQueue(g), *r = NewQueue(Root());
	AddN(w, 2);
	ASSERT_NE(Dispatch(), nullptr); // w has sent one in this activation
	ASSERT_EQ(g->sched_data.nr_sync, 0u);
	Add(r);
	EXPECT_EQ(efqd()->nr_preempted, 1u);
	EXPECT_EQ(hooks.should_preempt, 0);
	EXPECT_EQ(Select(), r);
}

TEST_F(Preempt, SyncInAGrandparentPreemptsAsyncTwoLevelsDown)
{
	struct blkcg *a = Cgroup("a");
	struct efq_group *gb = GroupOf(Cgroup("b", a));
	FakeQueue *w = AsyncQueue(gb), *r = NewQueue(Root());
	AddN(w, 2);
	ASSERT_NE(Dispatch(), nullptr);
	Add(r);
	EXPECT_EQ(efqd()->nr_preempted, 1u);
}

// Liveness (an async queue must dispatch at least once per turn, as Jens Axboe
// required in 2009; io-controller.rst, deviations): the next queue is
// chosen at a completion, before the reader sends its next request; a
// writer chosen then keeps the disk until it has sent something.
TEST_F(Preempt, SyncInAnAncestorWaitsUntilTheChildsAsyncQueueSentOne)
{
	struct efq_group *g = GroupOf(Cgroup("a"));
	FakeQueue *w = AsyncQueue(g), *r = NewQueue(Root());
	AddN(w, 2);
	ASSERT_EQ(Select(), w);
	Add(r);
	EXPECT_EQ(efqd()->nr_preempted, 0u);
	EXPECT_EQ(efqd()->active_queue, w->ioq);
	ASSERT_NE(DispatchFrom(w), nullptr);
	// once w has sent, the reader's next request preempts it
	Add(r);
	EXPECT_EQ(efqd()->nr_preempted, 1u);
	EXPECT_EQ(Select(), r);
}

TEST_F(Preempt, SyncDoesNotPreemptAsyncInASiblingGroup)
{
	struct efq_group *g1 = GroupOf(Cgroup("a")), *g2 = GroupOf(Cgroup("b"));
	FakeQueue *w = AsyncQueue(g1), *r = NewQueue(g2);
	AddN(w, 2);
	ASSERT_EQ(Select(), w);
	Add(r);
	EXPECT_EQ(efqd()->nr_preempted, 0u);
	EXPECT_EQ(hooks.should_preempt, 0);
	EXPECT_TRUE(g2->late_preemption);
}

TEST_F(Preempt, AncestorSyncDoesNotPreemptChildAsyncWhileTheChildHasSyncBacklog)
{
	// Gui Jianfeng's condition: the child group's own readers come first
	struct efq_group *g = GroupOf(Cgroup("a"));
	FakeQueue *w = AsyncQueue(g), *s = NewQueue(g), *r = NewQueue(Root());
	AddN(w, 2);
	Add(s);
	ASSERT_EQ(Select(), w);
	ASSERT_EQ(g->sched_data.nr_sync, 1u);
	Add(r);
	EXPECT_EQ(efqd()->nr_preempted, 0u);
	EXPECT_EQ(efqd()->active_queue, w->ioq);
}

TEST_F(Preempt, AncestorSyncDoesNotJumpOverReadersOfAnIntermediateGroup)
{
	// root{R, G1{S, G2{W}}}: S waits in G1, between R and W
	struct blkcg *a = Cgroup("a");
	struct efq_group *g1 = GroupOf(a), *g2 = GroupOf(Cgroup("b", a));
	FakeQueue *w = AsyncQueue(g2), *s = NewQueue(g1), *r = NewQueue(Root());
	AddN(w, 2);
	Add(s);
	ASSERT_EQ(Select(), w) << "the writer's group was selected first";
	ASSERT_EQ(g2->sched_data.nr_sync, 0u);
	ASSERT_EQ(g1->sched_data.nr_sync, 1u);
	Add(r);
	EXPECT_EQ(efqd()->nr_preempted, 0u);
	EXPECT_EQ(efqd()->active_queue, w->ioq);
}

TEST_F(Preempt, MetaRequestInAnAncestorPreemptsANonMetaChildQueue)
{
	struct efq_group *g = GroupOf(Cgroup("a"));
	FakeQueue *w = AsyncQueue(g), *m = AsyncQueue(Root());
	AddN(w, 2);
	ASSERT_NE(Dispatch(), nullptr);
	Add(m, REQ_OP_WRITE | REQ_META); // async, but metadata
	EXPECT_EQ(efqd()->nr_preempted, 1u);
	EXPECT_EQ(Select(), m);
}

TEST_F(Preempt, MetaRequestDoesNotPreemptAChildQueueWithMetaPending)
{
	struct efq_group *g = GroupOf(Cgroup("a"));
	FakeQueue *w = AsyncQueue(g), *m = AsyncQueue(Root());
	Add(w, REQ_OP_WRITE | REQ_META);
	Add(w);
	ASSERT_EQ(Select(), w);
	ASSERT_EQ(w->ioq->meta_pending, 1u);
	Add(m, REQ_OP_WRITE | REQ_META);
	EXPECT_EQ(efqd()->nr_preempted, 0u);
}

TEST_F(Preempt, AsyncInAnAncestorDoesNotPreemptAsyncInAChild)
{
	struct efq_group *g = GroupOf(Cgroup("a"));
	FakeQueue *w = AsyncQueue(g), *v = AsyncQueue(Root());
	AddN(w, 2);
	ASSERT_EQ(Select(), w);
	Add(v);
	EXPECT_EQ(efqd()->nr_preempted, 0u);
}

TEST_F(Preempt, MetaRequestInASiblingGroupDoesNotPreemptButGoesFirstInItsGroup)
{
	// root{g1{R1}, g2{R3, R2 with a metadata request}}: as in
	// tests/scenarios/hierarchy_preemption_test.cc (d)
	efqd()->group_idle = 0;
	struct efq_group *g1 = GroupOf(Cgroup("a")), *g2 = GroupOf(Cgroup("b"));
	FakeQueue *r1 = NewQueue(g1), *r3 = NewQueue(g2), *r2 = NewQueue(g2);
	Add(r1);
	ASSERT_EQ(Select(), r1);
	Add(r3);
	Add(r2, REQ_OP_READ | REQ_META);
	EXPECT_EQ(efqd()->nr_preempted, 0u);
	Complete(DispatchFrom(r1));
	EXPECT_EQ(Select(), r2); // g2's turn: the metadata queue first
}

TEST_F(Preempt, SchedulerHookIsConsultedOnlyWithinAGroup)
{
	preempt_answer = true;
	struct efq_group *g1 = GroupOf(Cgroup("a")), *g2 = GroupOf(Cgroup("b"));
	FakeQueue *q1 = NewQueue(g1), *q2 = NewQueue(g1), *q3 = NewQueue(g2);
	AddN(q1, 2);
	ASSERT_EQ(Select(), q1);
	Add(q3);
	EXPECT_EQ(hooks.should_preempt, 0);
	EXPECT_EQ(efqd()->nr_preempted, 0u);
	Add(q2);
	EXPECT_EQ(hooks.should_preempt, 1);
	EXPECT_EQ(efqd()->nr_preempted, 1u);
	auto order = TreeOrder(St(g1, IOPRIO_CLASS_BE));
	ASSERT_FALSE(order.empty());
	EXPECT_EQ(order[0], &q2->ioq->entity);
}

TEST_F(Preempt, SchedulerHookRefusalKeepsTheQueueInService)
{
	FakeQueue *a = NewQueue(Root()), *b = NewQueue(Root());
	AddN(a, 2);
	ASSERT_EQ(Select(), a);
	Add(b);
	EXPECT_EQ(hooks.should_preempt, 1);
	EXPECT_EQ(efqd()->nr_preempted, 0u);
	EXPECT_EQ(Select(), a);
}

TEST_F(Preempt, PreemptingQueueGoesToTheFrontAtMinWithANewSlice)
{
	efqd()->fairness = 1;
	struct efq_service_tree *st = St(Root(), IOPRIO_CLASS_BE);
	FakeQueue *a = NewQueue(Root()), *b = NewQueue(Root()), *c = NewQueue(Root());
	AddN(a, 3);
	AddN(b, 3);
	AddN(c, 3);
	RunSlice(a, 10 * kMs);
	RunSlice(b, 20 * kMs);
	ASSERT_EQ(Select(), c);
	Complete(DispatchFrom(c)); // c's slice starts
	Advance(1 * kMs);
	preempt_answer = true;
	Add(b); // b is busy and behind: the scheduler wants it now
	EXPECT_EQ(efqd()->nr_preempted, 1u);
	EXPECT_EQ(b->ioq->entity.vdisktime, st->min_vdisktime);
	EXPECT_TRUE(efq_queue_slice_new(b->ioq));
	auto order = TreeOrder(st);
	ASSERT_EQ(order.size(), 3u);
	EXPECT_EQ(order[0], &b->ioq->entity);
	EXPECT_EQ(Select(), b);
}

TEST_F(Preempt, NoQueueInServiceNoPreemption)
{
	FakeQueue *a = NewQueue(Root()), *r = NewQueue(Root(), true, 4, IOPRIO_CLASS_RT);
	Add(a);
	Add(r);
	EXPECT_EQ(efqd()->nr_preempted, 0u);
	EXPECT_EQ(hooks.should_preempt, 0);
}

// ---------------------------------------------------------------------------
// LatePreemption
// ---------------------------------------------------------------------------

class LatePreemptionScenario : public EfqTest {
protected:
	struct efq_group *g1 = nullptr, *g2 = nullptr;
	FakeQueue *q = nullptr, *w = nullptr, *r = nullptr;

	// q (group b) is in service when reader r of group a arrives; a's
	// writer w is backlogged ahead of r.
	void Build()
	{
		efqd()->group_idle = 0;
		g1 = GroupOf(Cgroup("a"));
		g2 = GroupOf(Cgroup("b"));
		q = NewQueue(g2);
		w = AsyncQueue(g1);
		r = NewQueue(g1);
		Add(q);
		AddN(w, 3);
		ASSERT_EQ(Select(), q);
		Add(r);
	}
};

class LatePreemptionFlow : public LatePreemptionScenario {};

TEST_F(LatePreemptionFlow, RefusedCrossGroupReaderMarksItsGroup)
{
	Build();
	EXPECT_EQ(efqd()->nr_preempted, 0u);
	EXPECT_TRUE(g1->late_preemption);
	EXPECT_FALSE(g2->late_preemption);
}

TEST_F(LatePreemptionFlow, AsyncQueueGetsOneDispatchRoundWhileTheGroupsReaderWaits)
{
	Build();
	Complete(DispatchFrom(q));
	ASSERT_EQ(Select(), w); // g1's turn: w is ahead of r
	EXPECT_TRUE(efq_queue_must_expire(w->ioq));
	ASSERT_NE(DispatchFrom(w), nullptr);
	EXPECT_EQ(Select(), r);
	EXPECT_EQ(Expired(EFQ_EXPIRE_MUST_EXPIRE), 1u);
	EXPECT_EQ(w->ioq->dispatched, 1u);
	EXPECT_EQ(w->queued.size(), 2u);
}

// With fairness=1 the round is over when its requests completed, as at any
// switch: r waits for w's write in the driver, then runs.
TEST_F(LatePreemptionFlow, WithFairnessTheRoundEndsWhenItsRequestsComplete)
{
	Build();
	efqd()->fairness = 1;
	Complete(DispatchFrom(q));
	ASSERT_EQ(Select(), w);
	ASSERT_TRUE(efq_queue_must_expire(w->ioq));
	struct request *wr = DispatchFrom(w);
	ASSERT_NE(wr, nullptr);
	EXPECT_EQ(Select(), nullptr) << "r cut in before w's write completed";
	Complete(wr);
	EXPECT_EQ(Select(), r);
	EXPECT_EQ(Expired(EFQ_EXPIRE_MUST_EXPIRE), 1u);
}

TEST_F(LatePreemptionFlow, FlagIsClearedWhenASyncQueueOfTheGroupExpires)
{
	Build();
	Complete(DispatchFrom(q));
	ASSERT_EQ(Select(), w);
	DispatchFrom(w);
	ASSERT_EQ(Select(), r);
	EXPECT_TRUE(g1->late_preemption);
	Expire();
	EXPECT_FALSE(g1->late_preemption);
}

TEST_F(LatePreemption, AsyncArrivalDoesNotMarkItsGroup)
{
	struct efq_group *g1 = GroupOf(Cgroup("a")), *g2 = GroupOf(Cgroup("b"));
	FakeQueue *q = NewQueue(g2), *w = AsyncQueue(g1);
	AddN(q, 2);
	ASSERT_EQ(Select(), q);
	Add(w);
	EXPECT_FALSE(g1->late_preemption);
}

TEST_F(LatePreemption, ArrivalInTheActiveGroupDoesNotMarkIt)
{
	struct efq_group *g = GroupOf(Cgroup("a"));
	FakeQueue *q1 = NewQueue(g), *q2 = NewQueue(g);
	AddN(q1, 2);
	ASSERT_EQ(Select(), q1);
	Add(q2);
	EXPECT_FALSE(g->late_preemption);
}

TEST_F(LatePreemption, AsyncQueueIsNotCutShortWithoutWaitingReaders)
{
	efqd()->group_idle = 0;
	struct efq_group *g1 = GroupOf(Cgroup("a"));
	FakeQueue *w = AsyncQueue(g1);
	AddN(w, 3);
	g1->late_preemption = true; // set earlier, reader since gone
	ASSERT_EQ(Select(), w);
	EXPECT_FALSE(efq_queue_must_expire(w->ioq)); // nr_sync is 0
}

} // namespace
