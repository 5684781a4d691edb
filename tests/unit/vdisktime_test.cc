// SPDX-License-Identifier: GPL-2.0
// Virtual time, slices, priorities, service-tree order, placement, the idle
// tree and class priority (Documentation/block/io-controller.rst, "Virtual
// time", "Weights", "Slices", "Placing a newly backlogged entity").
//
// Expected values come from V10's formulas:
//   delta  = (ns << 8) * 500 / weight                    (Vt() below)
//   slice  = base * weight / 500, base 100 ms sync / 40 ms async
//   weight = 500 + 100 * (4 - prio)

#include "efq_harness.h"

using namespace efqt;

namespace {

class Vdisktime : public EfqTest {};
class Slice : public EfqTest {};
class Ioprio : public EfqTest {};
class ServiceTree : public EfqTest {};
class Placement : public EfqTest {};
class IdleTree : public EfqTest {};
class ClassPriority : public EfqTest {};

// ---------------------------------------------------------------------------
// Vdisktime
// ---------------------------------------------------------------------------

TEST_F(Vdisktime, FormulaHelperMatchesTheSpecsNumbers)
{
	// 1 ms at weight 500 = 1e6 << 8 (io-controller.rst, "Virtual time":
	// nanoseconds shifted by 8, scaled by 500 / weight)
	EXPECT_EQ(Vt(1 * kMs), 256000000ULL);
	EXPECT_EQ(Vt(100 * kMs, 1000), 12800000000ULL);
	EXPECT_EQ(Vt(100 * kMs, 500), 25600000000ULL);
	EXPECT_EQ(Vt(1234567, 700), 225749394ULL);
}

TEST_F(Vdisktime, ChargeAtWeight500IsServiceShiftedBy8)
{
	efqd()->fairness = 1; // charge what was used
	FakeQueue *a = NewQueue(Root());
	AddN(a, 3);
	RunSlice(a, 10 * kMs);
	// placed at min_vdisktime 0, then + (10 ms << 8) * 500 / 500
	EXPECT_EQ(a->ioq->entity.vdisktime, 2560000000ULL);
	EXPECT_EQ(a->ioq->entity.total_time, 10 * kMs);
}

TEST_F(Vdisktime, EqualWeightsAdvanceByExactlyTheShiftedService)
{
	efqd()->fairness = 1;
	struct efq_group *g1 = GroupOf(Cgroup("g1"));
	struct efq_group *g2 = GroupOf(Cgroup("g2"));
	FakeQueue *q1 = NewQueue(g1), *q2 = NewQueue(g2);
	AddN(q1, 3);
	AddN(q2, 3);
	RunSlice(q1, 1234567);
	RunSlice(q2, 1234567);
	// weight 500 everywhere: the identity, no rounding
	EXPECT_EQ(g1->entity.vdisktime, 1234567ULL << 8);
	EXPECT_EQ(g2->entity.vdisktime, 1234567ULL << 8);
	EXPECT_EQ(q1->ioq->entity.vdisktime, 1234567ULL << 8);
	EXPECT_EQ(q2->ioq->entity.vdisktime, 1234567ULL << 8);
}

TEST_F(Vdisktime, Weight1000GroupAdvancesHalfAsFastAsWeight500)
{
	efqd()->fairness = 1;
	struct efq_group *heavy = GroupOf(Cgroup("heavy", nullptr, 1000));
	struct efq_group *light = GroupOf(Cgroup("light", nullptr, 500));
	ASSERT_EQ(heavy->entity.weight, 1000u);
	ASSERT_EQ(light->entity.weight, 500u);
	FakeQueue *qh = NewQueue(heavy), *ql = NewQueue(light);
	AddN(qh, 3);
	AddN(ql, 3);
	RunSlice(qh, 20 * kMs); // heavy was backlogged first
	RunSlice(ql, 20 * kMs);
	EXPECT_EQ(heavy->entity.vdisktime, 2560000000ULL); // (20 ms << 8) * 500 / 1000
	EXPECT_EQ(light->entity.vdisktime, 5120000000ULL); // (20 ms << 8) * 500 / 500
	EXPECT_EQ(2 * heavy->entity.vdisktime, light->entity.vdisktime);
}

TEST_F(Vdisktime, NonDefaultWeightTruncatesTheDivision)
{
	efqd()->fairness = 1;
	FakeQueue *a = NewQueue(Root(), true, 2); // weight 700
	AddN(a, 3);
	RunSlice(a, 1234567);
	ASSERT_EQ(a->ioq->entity.weight, 700u);
	// (1234567 << 8) * 500 / 700 = 225749394.28...
	EXPECT_EQ(a->ioq->entity.vdisktime, 225749394ULL);
}

TEST_F(Vdisktime, Fairness0ChargesEveryPrioTheSameVirtualSlice)
{
	// flat: one prio-scaled slice per round (with fairness=0 a queue is
	// charged its allocated slice, io-controller.rst "Charging")
	FakeQueue *a = NewQueue(Root(), true, 0); // 180 ms at weight 900
	FakeQueue *b = NewQueue(Root(), true, 7); // 40 ms at weight 200
	AddN(a, 3);
	AddN(b, 3);
	RunSlice(a, 5 * kMs);
	RunSlice(b, 5 * kMs);
	EXPECT_EQ(a->ioq->entity.vdisktime, 25600000000ULL); // (180 ms << 8) * 500 / 900
	EXPECT_EQ(b->ioq->entity.vdisktime, 25600000000ULL); // (40 ms << 8) * 500 / 200
}

// ---------------------------------------------------------------------------
// Slice
// ---------------------------------------------------------------------------

TEST_F(Slice, SyncSliceIsBaseTimesWeightOver500ForEveryPrio)
{
	const u64 expect_ms[8] = {180, 160, 140, 120, 100, 80, 60, 40};
	for (unsigned prio = 0; prio < 8; prio++) {
		FakeQueue *q = NewQueue(Root(), true, prio);
		Add(q); // the new weight applies when the queue is enqueued
		EXPECT_EQ(q->ioq->entity.weight, 900u - 100u * prio);
		EXPECT_EQ(efq_queue_slice(efqd(), q->ioq), expect_ms[prio] * kMs)
			<< "prio " << prio;
	}
}

TEST_F(Slice, AsyncSliceIs72_40_16msForPrio0_4_7)
{
	const unsigned prios[3] = {0, 4, 7};
	const u64 expect_ms[3] = {72, 40, 16};
	for (int i = 0; i < 3; i++) {
		FakeQueue *q = NewQueue(Root(), false, prios[i]);
		Add(q);
		EXPECT_EQ(efq_queue_slice(efqd(), q->ioq), expect_ms[i] * kMs)
			<< "prio " << prios[i];
	}
}

TEST_F(Slice, SyncPrio0_4_7Are180_100_40ms)
{
	const unsigned prios[3] = {0, 4, 7};
	const u64 expect_ms[3] = {180, 100, 40};
	for (int i = 0; i < 3; i++) {
		FakeQueue *q = NewQueue(Root(), true, prios[i]);
		Add(q);
		EXPECT_EQ(efq_queue_slice(efqd(), q->ioq), expect_ms[i] * kMs)
			<< "prio " << prios[i];
	}
}

TEST_F(Slice, FollowsTheBaseSliceTunables)
{
	efqd()->slice[1] = 50 * kMs;
	efqd()->slice[0] = 10 * kMs;
	FakeQueue *s = NewQueue(Root(), true, 0), *a = NewQueue(Root(), false, 7);
	Add(s);
	Add(a);
	EXPECT_EQ(efq_queue_slice(efqd(), s->ioq), 90 * kMs); // 50 * 900 / 500
	EXPECT_EQ(efq_queue_slice(efqd(), a->ioq), 4 * kMs);  // 10 * 200 / 500
}

// ---------------------------------------------------------------------------
// Ioprio
// ---------------------------------------------------------------------------

TEST_F(Ioprio, WeightIs900DownTo200InStepsOf100)
{
	for (unsigned prio = 0; prio < 8; prio++) {
		EXPECT_EQ(efq_ioprio_to_weight(prio), 900u - 100u * prio);
	}
	EXPECT_EQ(efq_ioprio_to_weight(IOPRIO_NORM), (unsigned)EFQ_WEIGHT_DEFAULT);
}

TEST_F(Ioprio, NewQueueIsBestEffortPrio4Weight500)
{
	FakeQueue *q = NewQueue(Root());
	EXPECT_EQ(q->ioq->ioprio, IOPRIO_NORM);
	EXPECT_EQ(q->ioq->entity.weight, 500u);
	EXPECT_EQ(q->ioq->entity.ioprio_class, IOPRIO_CLASS_BE);
}

TEST_F(Ioprio, NewWeightAppliesAtTheNextEnqueue)
{
	FakeQueue *q = NewQueue(Root());
	ASSERT_EQ(efq_queue_set_ioprio(q->ioq, 0), 0);
	EXPECT_EQ(q->ioq->entity.weight, 500u); // lazily applied
	EXPECT_TRUE(q->ioq->entity.prio_changed);
	Add(q);
	EXPECT_EQ(q->ioq->entity.weight, 900u);
	EXPECT_FALSE(q->ioq->entity.prio_changed);
}

TEST_F(Ioprio, SetIoprio8IsEinval)
{
	FakeQueue *q = NewQueue(Root());
	EXPECT_EQ(efq_queue_set_ioprio(q->ioq, 8), -EINVAL);
	EXPECT_EQ(efq_queue_set_ioprio(q->ioq, 1000), -EINVAL);
	EXPECT_EQ(q->ioq->ioprio, IOPRIO_NORM);
	EXPECT_FALSE(q->ioq->entity.prio_changed);
	EXPECT_EQ(efq_queue_set_ioprio(q->ioq, 7), 0);
}

TEST_F(Ioprio, SetIoprioClass0Or4IsEinval)
{
	FakeQueue *q = NewQueue(Root());
	EXPECT_EQ(efq_queue_set_ioprio_class(q->ioq, IOPRIO_CLASS_NONE), -EINVAL);
	EXPECT_EQ(efq_queue_set_ioprio_class(q->ioq, 4), -EINVAL);
	EXPECT_FALSE(q->ioq->entity.prio_changed);
	EXPECT_EQ(q->ioq->entity.new_class, IOPRIO_CLASS_BE);
	EXPECT_EQ(efq_queue_set_ioprio_class(q->ioq, IOPRIO_CLASS_RT), 0);
	EXPECT_EQ(efq_queue_set_ioprio_class(q->ioq, IOPRIO_CLASS_IDLE), 0);
}

// ---------------------------------------------------------------------------
// ServiceTree
// ---------------------------------------------------------------------------

TEST_F(ServiceTree, EqualKeysAreServedFifo)
{
	FakeQueue *a = NewQueue(Root()), *b = NewQueue(Root()), *c = NewQueue(Root());
	Add(a);
	Add(b);
	Add(c);
	auto order = TreeOrder(St(Root(), IOPRIO_CLASS_BE));
	ASSERT_EQ(order.size(), 3u);
	EXPECT_EQ(order[0], &a->ioq->entity);
	EXPECT_EQ(order[1], &b->ioq->entity);
	EXPECT_EQ(order[2], &c->ioq->entity);
	for (int i = 0; i < 3; i++) {
		struct request *rq = Dispatch();
		ASSERT_NE(rq, nullptr);
		Complete(rq);
	}
	ASSERT_EQ(hooks.activations.size(), 3u);
	EXPECT_EQ(hooks.activations[0], a);
	EXPECT_EQ(hooks.activations[1], b);
	EXPECT_EQ(hooks.activations[2], c);
}

TEST_F(ServiceTree, AddFrontGoesAheadOfEqualKeys)
{
	FakeQueue *a = NewQueue(Root()), *b = NewQueue(Root()), *m = NewQueue(Root());
	Add(a);
	Add(b);
	Add(m, REQ_OP_READ | REQ_META); // metadata: enqueued add_front
	auto order = TreeOrder(St(Root(), IOPRIO_CLASS_BE));
	ASSERT_EQ(order.size(), 3u);
	EXPECT_EQ(order[0], &m->ioq->entity);
	EXPECT_EQ(order[1], &a->ioq->entity);
	EXPECT_EQ(order[2], &b->ioq->entity);
	EXPECT_EQ(Select(), m);
}

TEST_F(ServiceTree, OrderingIsWrapSafeAcrossU64Wrap)
{
	efqd()->fairness = 1;
	struct efq_service_tree *st = St(Root(), IOPRIO_CLASS_BE);
	const u64 m = 0 - Vt(5 * kMs); // 5 ms of service from the wrap
	st->min_vdisktime = m;
	FakeQueue *a = NewQueue(Root()), *b = NewQueue(Root());
	AddN(a, 3);
	AddN(b, 3);
	EXPECT_EQ(a->ioq->entity.vdisktime, m);
	EXPECT_EQ(b->ioq->entity.vdisktime, m);
	RunSlice(a, 10 * kMs);
	// a wrapped past 0: numerically tiny, virtually ahead of b
	EXPECT_EQ(a->ioq->entity.vdisktime, m + Vt(10 * kMs));
	EXPECT_EQ(a->ioq->entity.vdisktime, Vt(5 * kMs));
	EXPECT_LT(a->ioq->entity.vdisktime, b->ioq->entity.vdisktime);
	auto order = TreeOrder(st);
	ASSERT_EQ(order.size(), 2u);
	EXPECT_EQ(order[0], &b->ioq->entity);
	EXPECT_EQ(order[1], &a->ioq->entity);
	EXPECT_EQ(Select(), b);
}

TEST_F(ServiceTree, MinVdisktimeAdvancesAcrossU64Wrap)
{
	efqd()->fairness = 1;
	struct efq_service_tree *st = St(Root(), IOPRIO_CLASS_BE);
	const u64 m = 0 - Vt(5 * kMs);
	st->min_vdisktime = m;
	FakeQueue *a = NewQueue(Root()), *b = NewQueue(Root());
	AddN(a, 3);
	AddN(b, 3);
	RunSlice(a, 10 * kMs); // a at m + 10 ms (wrapped), b at m
	EXPECT_EQ(st->min_vdisktime, m);
	RunSlice(b, 20 * kMs); // b at m + 20 ms: the clock follows a
	EXPECT_EQ(st->min_vdisktime, m + Vt(10 * kMs));
	EXPECT_LT(st->min_vdisktime, m);	    // numerically smaller ...
	EXPECT_GT((s64)(st->min_vdisktime - m), 0); // ... but later
}

TEST_F(ServiceTree, MinVdisktimeNeverMovesBackwards)
{
	struct efq_service_tree *st = St(Root(), IOPRIO_CLASS_BE);
	FakeQueue *a = NewQueue(Root());
	AddN(a, 2);
	ASSERT_EQ(a->ioq->entity.vdisktime, 0u);
	// the clock has moved past a (as if a had been placed long ago)
	st->min_vdisktime = Vt(30 * kMs);
	EXPECT_EQ(Select(), a); // picking a (vt 0) updates the clock
	EXPECT_EQ(st->min_vdisktime, Vt(30 * kMs));
	Expire(); // charged 100 ms: vt 25.6e9 < 30 ms, the clock stays
	EXPECT_EQ(a->ioq->entity.vdisktime, Vt(100 * kMs));
	EXPECT_EQ(st->min_vdisktime, Vt(100 * kMs));
}

TEST_F(ServiceTree, TreeKeysAreRelativeToMinVdisktime)
{
	// with the clock just below the wrap, an entity at min + 1 ms sorts
	// before one at min + 8 ms although its absolute value is larger
	efqd()->fairness = 1;
	struct efq_service_tree *st = St(Root(), IOPRIO_CLASS_BE);
	const u64 m = 0 - Vt(4 * kMs);
	st->min_vdisktime = m;
	FakeQueue *a = NewQueue(Root()), *b = NewQueue(Root()), *c = NewQueue(Root());
	AddN(a, 3);
	AddN(b, 3);
	AddN(c, 3);
	RunSlice(a, 8 * kMs); // a: m + 8 ms, wrapped
	RunSlice(b, 1 * kMs); // b: m + 1 ms, not wrapped
	ASSERT_GT(b->ioq->entity.vdisktime, a->ioq->entity.vdisktime);
	auto order = TreeOrder(st);
	ASSERT_EQ(order.size(), 3u);
	EXPECT_EQ(order[0], &c->ioq->entity);
	EXPECT_EQ(order[1], &b->ioq->entity);
	EXPECT_EQ(order[2], &a->ioq->entity);
}

// ---------------------------------------------------------------------------
// Placement.  Scenario used below (fairness 1, all in the root group):
// a and b have one request each, a runs 50 ms and goes empty (charged 50
// ms, cached), then b runs 10 ms.
// ---------------------------------------------------------------------------

class CachedScenario : public EfqTest {
protected:
	FakeQueue *a = nullptr, *b = nullptr, *c = nullptr;

	// @with_c: a third queue c keeps the tree busy after a and b leave.
	void Build(bool with_c)
	{
		efqd()->fairness = 1;
		a = NewQueue(Root());
		b = NewQueue(Root());
		Add(a);
		Add(b);
		if (with_c) {
			c = NewQueue(Root());
			AddN(c, 3);
		}
		ASSERT_EQ(Select(), a);
		struct request *rq = DispatchFrom(a);
		Advance(50 * kMs);
		Complete(rq);
		ASSERT_EQ(Select(), b); // a expired empty: charged 50 ms
		rq = DispatchFrom(b);
		Advance(10 * kMs);
		Complete(rq); // without c: b is the last busy queue and expires here
		if (with_c) {
			ASSERT_EQ(Select(), c);
		}
	}
};

class PlacementCached : public CachedScenario {};
class IdleTreeCached : public CachedScenario {};

TEST_F(PlacementCached, AloneOnItsTreeStartsAtMinVdisktimeEvenWithHistory)
{
	Build(false);
	struct efq_service_tree *st = St(Root(), IOPRIO_CLASS_BE);
	ASSERT_TRUE(a->ioq->entity.on_idle_st);
	ASSERT_EQ(a->ioq->entity.vdisktime, Vt(50 * kMs));
	ASSERT_EQ(st->min_vdisktime, Vt(10 * kMs)); // b's charge moved the clock
	Add(a);
	EXPECT_FALSE(a->ioq->entity.on_idle_st);
	EXPECT_EQ(a->ioq->entity.vdisktime, Vt(10 * kMs)); // min, not its 50 ms
}

TEST_F(PlacementCached, SyncWithHistoryAheadOfMinKeepsItsVdisktime)
{
	Build(true);
	struct efq_service_tree *st = St(Root(), IOPRIO_CLASS_BE);
	ASSERT_EQ(st->min_vdisktime, 0u);
	ASSERT_TRUE(a->ioq->entity.on_idle_st);
	Add(a);
	EXPECT_EQ(a->ioq->entity.vdisktime, Vt(50 * kMs));
	auto order = TreeOrder(st);
	ASSERT_EQ(order.size(), 1u); // c is in service
	EXPECT_EQ(order[0], &a->ioq->entity);
}

TEST_F(PlacementCached, MetaPendingGoesToTheFrontEvenWithHistory)
{
	Build(true);
	struct efq_service_tree *st = St(Root(), IOPRIO_CLASS_BE);
	Add(b);
	Add(a, REQ_OP_READ | REQ_META);
	EXPECT_EQ(a->ioq->entity.vdisktime, st->min_vdisktime);
	EXPECT_EQ(a->ioq->meta_pending, 1u);
	auto order = TreeOrder(st);
	ASSERT_EQ(order.size(), 2u);
	EXPECT_EQ(order[0], &a->ioq->entity);
}

TEST_F(Placement, SyncNewcomerStartsAtMinVdisktime)
{
	efqd()->fairness = 1;
	struct efq_service_tree *st = St(Root(), IOPRIO_CLASS_BE);
	FakeQueue *a = NewQueue(Root());
	AddN(a, 3);
	RunSlice(a, 10 * kMs);
	ASSERT_EQ(st->min_vdisktime, Vt(10 * kMs));
	FakeQueue *d = NewQueue(Root());
	Add(d);
	EXPECT_EQ(d->ioq->entity.vdisktime, Vt(10 * kMs));
	EXPECT_FALSE(d->ioq->entity.has_history);
}

TEST_F(Placement, AsyncNewcomerGoesBehindTheLastEntity)
{
	efqd()->fairness = 1;
	struct efq_service_tree *st = St(Root(), IOPRIO_CLASS_BE);
	FakeQueue *a = NewQueue(Root()), *b = NewQueue(Root());
	AddN(a, 3);
	AddN(b, 3);
	RunSlice(a, 10 * kMs); // a at 10 ms, b at 0
	ASSERT_EQ(Select(), b);
	FakeQueue *w = AsyncQueue(Root());
	Add(w);
	EXPECT_EQ(w->ioq->entity.vdisktime, Vt(10 * kMs));
	EXPECT_EQ(st->min_vdisktime, 0u);
	auto order = TreeOrder(st);
	ASSERT_EQ(order.size(), 2u);
	EXPECT_EQ(order[0], &a->ioq->entity);
	EXPECT_EQ(order[1], &w->ioq->entity); // behind its equal
}

TEST_F(Placement, AsyncQueueWithBacklogIsRequeuedBehindTheLastAtExpiry)
{
	efqd()->fairness = 1;
	struct efq_service_tree *st = St(Root(), IOPRIO_CLASS_BE);
	FakeQueue *a = NewQueue(Root());
	AddN(a, 3);
	FakeQueue *w = AsyncQueue(Root());
	AddN(w, 3);
	FakeQueue *b = NewQueue(Root());
	AddN(b, 3);
	RunSlice(a, 30 * kMs); // a at 30 ms; w and b at 0
	RunSlice(w, 1 * kMs);  // w charged 1 ms, then sent behind a
	EXPECT_EQ(w->ioq->entity.vdisktime, Vt(30 * kMs));
	EXPECT_EQ(b->ioq->entity.vdisktime, 0u); // sync queues keep their place
	auto order = TreeOrder(st);
	ASSERT_EQ(order.size(), 3u);
	EXPECT_EQ(order[0], &b->ioq->entity);
	EXPECT_EQ(order[1], &a->ioq->entity);
	EXPECT_EQ(order[2], &w->ioq->entity);
}

TEST_F(Placement, AsyncRequeueNeverMovesToASmallerVdisktime)
{
	// an async queue with a backlog goes behind the last entity at expiry,
	// but never back in virtual time (deviation from V10)
	efqd()->fairness = 1;
	struct efq_service_tree *st = St(Root(), IOPRIO_CLASS_BE);
	FakeQueue *w = AsyncQueue(Root()), *a = NewQueue(Root());
	AddN(w, 3);
	AddN(a, 3);
	RunSlice(w, 30 * kMs); // w charged 30 ms: ahead of a (0)
	EXPECT_EQ(w->ioq->entity.vdisktime, Vt(30 * kMs));
	RunSlice(a, 5 * kMs); // a at 5 ms: w stays at its own 30 ms
	EXPECT_EQ(a->ioq->entity.vdisktime, Vt(5 * kMs));
	EXPECT_EQ(w->ioq->entity.vdisktime, Vt(30 * kMs));
	auto order = TreeOrder(st);
	ASSERT_EQ(order.size(), 2u);
	EXPECT_EQ(order[0], &a->ioq->entity);
	EXPECT_EQ(order[1], &w->ioq->entity);
}

// ---------------------------------------------------------------------------
// IdleTree
// ---------------------------------------------------------------------------

TEST_F(IdleTreeCached, EntityLeavingAheadOfMinIsCachedWithAReference)
{
	Build(true);
	struct efq_service_tree *st = St(Root(), IOPRIO_CLASS_BE);
	EXPECT_TRUE(a->ioq->entity.on_idle_st);
	EXPECT_FALSE(a->ioq->entity.on_st);
	EXPECT_FALSE(efq_queue_busy(a->ioq));
	EXPECT_EQ(refcount_read(&a->ioq->ref), 2u); // owner + idle tree
	auto idle = IdleOrder(st);
	ASSERT_EQ(idle.size(), 2u); // ordered by vdisktime: b (10 ms), a (50 ms)
	EXPECT_EQ(idle[0], &b->ioq->entity);
	EXPECT_EQ(idle[1], &a->ioq->entity);
}

TEST_F(IdleTreeCached, EntityLeavingAtMinIsNotCached)
{
	Build(false); // b was charged last and alone: it left at min exactly
	struct efq_service_tree *st = St(Root(), IOPRIO_CLASS_BE);
	EXPECT_EQ(b->ioq->entity.vdisktime, st->min_vdisktime);
	EXPECT_FALSE(b->ioq->entity.on_idle_st);
	EXPECT_EQ(refcount_read(&b->ioq->ref), 1u);
}

TEST_F(IdleTreeCached, ReturningEntityLeavesTheIdleTreeAndItsReference)
{
	Build(true);
	Add(a);
	EXPECT_FALSE(a->ioq->entity.on_idle_st);
	EXPECT_TRUE(a->ioq->entity.on_st);
	EXPECT_TRUE(a->ioq->entity.has_history);
	EXPECT_EQ(refcount_read(&a->ioq->ref), 3u); // owner + busy + request
	EXPECT_EQ(IdleOrder(St(Root(), IOPRIO_CLASS_BE)).size(), 1u);
}

TEST_F(IdleTreeCached, EveryStaleEntryIsReleasedOnceMinPassesIt)
{
	Build(true);
	struct efq_service_tree *st = St(Root(), IOPRIO_CLASS_BE);
	ASSERT_EQ(IdleOrder(st).size(), 2u);
	struct request *rq = DispatchFrom(c);
	Complete(rq);
	Advance(100 * kMs);
	Expire(); // c charged 100 ms: the clock jumps past a (50) and b (10)
	EXPECT_EQ(st->min_vdisktime, Vt(100 * kMs));
	EXPECT_TRUE(IdleOrder(st).empty()); // both in one update
	EXPECT_FALSE(a->ioq->entity.on_idle_st);
	EXPECT_FALSE(b->ioq->entity.on_idle_st);
	EXPECT_EQ(refcount_read(&a->ioq->ref), 1u);
	EXPECT_EQ(refcount_read(&b->ioq->ref), 1u);
}

TEST_F(IdleTreeCached, EntryIsKeptUntilMinStrictlyPassesIt)
{
	Build(true);
	struct efq_service_tree *st = St(Root(), IOPRIO_CLASS_BE);
	struct request *rq = DispatchFrom(c);
	Complete(rq);
	Advance(50 * kMs);
	Expire(); // c charged 50 ms: the clock reaches a (50) and passes b (10)
	EXPECT_EQ(st->min_vdisktime, Vt(50 * kMs));
	EXPECT_TRUE(a->ioq->entity.on_idle_st);
	EXPECT_FALSE(b->ioq->entity.on_idle_st);
}

TEST_F(IdleTreeCached, ReleasedEntityReturnsAsANewcomer)
{
	Build(true);
	struct request *rq = DispatchFrom(c);
	Complete(rq);
	Advance(100 * kMs);
	Expire();
	Add(a);
	EXPECT_FALSE(a->ioq->entity.has_history);
	// c is the only other entity, at 100 ms = min: a is placed at min
	EXPECT_EQ(a->ioq->entity.vdisktime, Vt(100 * kMs));
}

TEST_F(IdleTree, ExitingQueueIsNeverCached)
{
	efqd()->fairness = 1;
	FakeQueue *a = NewQueue(Root()), *b = NewQueue(Root());
	Add(a);
	Add(b);
	ASSERT_EQ(Select(), a);
	struct request *rq = DispatchFrom(a);
	Release(a); // the owner exits while a is busy: efq_queue_exit marks it
	EXPECT_TRUE(a->ioq->entity.exiting);
	Advance(50 * kMs);
	Complete(rq);
	EXPECT_FALSE(a->freed); // still busy (and active)
	EXPECT_EQ(Select(), b); // a leaves ahead of min but may not be cached
	EXPECT_TRUE(a->freed);
	EXPECT_TRUE(IdleOrder(St(Root(), IOPRIO_CLASS_BE)).empty());
}

TEST_F(IdleTreeCached, ExitQueueDropsACachedQueue)
{
	Build(true);
	ASSERT_TRUE(a->ioq->entity.on_idle_st);
	Lock();
	efq_queue_exit(efqd(), a->ioq);
	Unlock();
	EXPECT_FALSE(a->ioq->entity.on_idle_st);
	EXPECT_EQ(refcount_read(&a->ioq->ref), 1u);
	Release(a);
	EXPECT_TRUE(a->freed);
}

TEST_F(IdleTree, ExitQueueIgnoresAsyncQueues)
{
	FakeQueue *w = AsyncQueue(Root());
	Add(w);
	Lock();
	efq_queue_exit(efqd(), w->ioq); // owned by the group, not a task
	Unlock();
	EXPECT_FALSE(w->ioq->entity.exiting);
}

TEST_F(IdleTree, EmptiedGroupIsCachedAndLeavesWhenItsCgroupDies)
{
	efqd()->fairness = 1;
	efqd()->group_idle = 0;
	struct blkcg *cg = Cgroup("a");
	struct efq_group *g = GroupOf(cg);
	FakeQueue *q = NewQueue(g), *r = NewQueue(Root());
	Add(q);
	AddN(r, 2);
	ASSERT_EQ(Select(), q);
	struct request *rq = DispatchFrom(q);
	Advance(30 * kMs);
	Complete(rq);
	ASSERT_EQ(Select(), r);
	// g was charged 30 ms and left ahead of the root tree's clock (r at 0)
	EXPECT_EQ(g->entity.vdisktime, Vt(30 * kMs));
	EXPECT_TRUE(g->entity.on_idle_st);
	EXPECT_FALSE(g->entity.on_st);
	DestroyCgroup(cg);
	EXPECT_FALSE(g->online);
	EXPECT_TRUE(g->entity.exiting);
	EXPECT_FALSE(g->entity.on_idle_st);
	EXPECT_TRUE(IdleOrder(St(Root(), IOPRIO_CLASS_BE)).empty());
	Release(q);
	EXPECT_TRUE(q->freed);
}

TEST_F(IdleTree, ReturningGroupResumesItsCachedVdisktime)
{
	efqd()->fairness = 1;
	efqd()->group_idle = 0;
	struct efq_group *g = GroupOf(Cgroup("a"));
	FakeQueue *q = NewQueue(g), *r = NewQueue(Root());
	Add(q);
	AddN(r, 3);
	ASSERT_EQ(Select(), q);
	struct request *rq = DispatchFrom(q);
	Advance(30 * kMs);
	Complete(rq);
	ASSERT_EQ(Select(), r);
	ASSERT_TRUE(g->entity.on_idle_st);
	Add(q); // g comes back while r (vt 0 = min) is in service
	EXPECT_TRUE(g->entity.on_st);
	EXPECT_EQ(g->entity.vdisktime, Vt(30 * kMs));
}

// ---------------------------------------------------------------------------
// ClassPriority
// ---------------------------------------------------------------------------

TEST_F(ClassPriority, RtThenBeThenIdleWithinAGroup)
{
	FakeQueue *i = NewQueue(Root(), true, 7, IOPRIO_CLASS_IDLE);
	FakeQueue *b = NewQueue(Root());
	FakeQueue *r = NewQueue(Root(), true, 4, IOPRIO_CLASS_RT);
	Add(i);
	Add(b);
	Add(r);
	for (int n = 0; n < 3; n++) {
		struct request *rq = Dispatch();
		ASSERT_NE(rq, nullptr);
		Complete(rq);
	}
	ASSERT_EQ(hooks.activations.size(), 3u);
	EXPECT_EQ(hooks.activations[0], r);
	EXPECT_EQ(hooks.activations[1], b);
	EXPECT_EQ(hooks.activations[2], i);
}

TEST_F(ClassPriority, RtGroupOfBeQueuesBeatsBeSiblings)
{
	struct efq_group *gbe = GroupOf(Cgroup("be"));
	struct efq_group *grt = GroupOf(Cgroup("rt", nullptr, 500, IOPRIO_CLASS_RT));
	FakeQueue *qb = NewQueue(gbe), *r = NewQueue(Root()), *qrt = NewQueue(grt);
	Add(qb);
	Add(r);
	Add(qrt);
	EXPECT_EQ(grt->entity.ioprio_class, IOPRIO_CLASS_RT);
	EXPECT_EQ(grt->entity.st, St(Root(), IOPRIO_CLASS_RT));
	EXPECT_EQ(qrt->ioq->entity.ioprio_class, IOPRIO_CLASS_BE);
	EXPECT_EQ(Select(), qrt);
}

TEST_F(ClassPriority, HigherClassWinsWhateverTheVdisktimes)
{
	FakeQueue *r = NewQueue(Root(), true, 4, IOPRIO_CLASS_RT), *b = NewQueue(Root());
	Add(b);
	AddN(r, 6);
	RunSlice(r, 100 * kMs);
	RunSlice(r, 100 * kMs);
	RunSlice(r, 100 * kMs); // r far ahead in virtual time, b at 0
	EXPECT_EQ(r->ioq->entity.vdisktime, 3 * Vt(100 * kMs));
	EXPECT_EQ(Select(), r);
	EXPECT_EQ(std::count(hooks.activations.begin(), hooks.activations.end(), b), 0);
}

TEST_F(ClassPriority, IdleGroupRunsOnlyWhenNoBeSiblingIsBacklogged)
{
	struct efq_group *gi = GroupOf(Cgroup("idle", nullptr, 500, IOPRIO_CLASS_IDLE));
	FakeQueue *qi = NewQueue(gi), *b = NewQueue(Root());
	Add(qi);
	Add(b);
	EXPECT_EQ(Select(), b);
	struct request *rq = DispatchFrom(b);
	Complete(rq);
	EXPECT_EQ(Select(), qi);
}

} // namespace
