// SPDX-License-Identifier: GPL-2.0
// Hierarchy (lazy linking, flat mode, dead cgroups), charging, served time,
// per-group statistics and group lifetime (the rules of
// Documentation/block/io-controller.rst, "Entities, trees and groups",
// "Charging" and "Groups and cgroups").

#include "efq_harness.h"

using namespace efqt;

namespace {

class Hierarchy : public EfqTest {};
class Charging : public EfqTest {};
class Served : public EfqTest {};
class Stats : public EfqTest {};
class GroupRemoval : public EfqTest {};

// ---------------------------------------------------------------------------
// Hierarchy
// ---------------------------------------------------------------------------

TEST_F(Hierarchy, GroupsAreLinkedLazilyOnFirstUse)
{
	struct blkcg *a = Cgroup("a");
	struct blkcg *b = Cgroup("b", a);
	Blkg(b);				      // the blkgs (and their groups) exist now ...
	EXPECT_TRUE(list_empty(&efqd()->group_list)); // ... but are not linked
	struct efq_group *gb = GroupOf(b);
	ASSERT_NE(gb, Root());
	EXPECT_TRUE(gb->linked);
	struct efq_group *ga = container_of(gb->entity.parent, struct efq_group, entity);
	EXPECT_TRUE(ga->linked); // the ancestor came along, top-down
	EXPECT_EQ(ga->entity.parent, &Root()->entity);
	EXPECT_EQ(GroupOf(a), ga);
	EXPECT_EQ(gb->efqd, efqd());
	EXPECT_EQ(gb->dev, MKDEV(8, 0));
	EXPECT_TRUE(efq_group_idle_window(gb));
	EXPECT_TRUE(efq_group_idle_window(ga));
	EXPECT_FALSE(efq_group_idle_window(Root()));
	size_t n = 0;
	struct list_head *pos;
	list_for_each(pos, &efqd()->group_list)
		n++;
	EXPECT_EQ(n, 2u);
	EXPECT_EQ(gb->entity.st, &ga->sched_data.service_tree[IOPRIO_CLASS_BE - 1]);
}

TEST_F(Hierarchy, LinkingTwiceChangesNothing)
{
	struct blkcg *a = Cgroup("a");
	struct efq_group *ga = GroupOf(a);
	unsigned ref = refcount_read(&Root()->ref);
	EXPECT_EQ(GroupOf(a), ga);
	EXPECT_EQ(refcount_read(&Root()->ref), ref);
}

TEST_F(Hierarchy, FlatModeMapsEveryCgroupToTheRootGroup)
{
	Options o;
	o.hierarchical = false;
	Reinit(o);
	struct blkcg *a = Cgroup("a");
	struct blkcg *b = Cgroup("b", a);
	EXPECT_EQ(GroupOf(a), Root());
	EXPECT_EQ(GroupOf(b), Root());
	EXPECT_TRUE(list_empty(&efqd()->group_list));
	// every queue lives in the root group: a flat weighted round robin
	FakeQueue *q = NewQueue(GroupOf(b));
	Add(q);
	EXPECT_EQ(q->ioq->entity.parent, &Root()->entity);
}

TEST_F(Hierarchy, HierarchicalSwitchIsRefusedWhileRequestsAreQueued)
{
	FakeQueue *q = NewQueue(Root());
	Add(q);
	Lock();
	EXPECT_EQ(efq_set_hierarchical(efqd(), false), -EBUSY);
	Unlock();
	EXPECT_TRUE(efqd()->hierarchical);
	Drain();
	Lock();
	EXPECT_EQ(efq_set_hierarchical(efqd(), false), 0);
	EXPECT_EQ(efq_set_hierarchical(efqd(), true), 0);
	Unlock();
}

TEST_F(Hierarchy, DeadCgroupMapsToItsNearestLiveAncestor)
{
	struct blkcg *a = Cgroup("a");
	struct blkcg *b = Cgroup("b", a);
	struct blkcg *c = Cgroup("c", b);
	struct efq_group *ga = GroupOf(a);
	struct blkcg_gq *blkg_c = Blkg(c); // e.g. held by late writeback
	GroupOf(c);
	DestroyCgroup(c);
	DestroyCgroup(b);
	Lock();
	EXPECT_EQ(efq_group_of_blkg(efqd(), blkg_c), ga);
	Unlock();
	DestroyCgroup(a);
	Lock();
	EXPECT_EQ(efq_group_of_blkg(efqd(), blkg_c), Root());
	Unlock();
}

TEST_F(Hierarchy, DeadCgroupWithoutLinkedGroupMapsToItsLiveParent)
{
	struct blkcg *a = Cgroup("a");
	struct blkcg *b = Cgroup("b", a);
	struct blkcg_gq *blkg_b = Blkg(b); // never used on this device
	DestroyCgroup(b);
	Lock();
	struct efq_group *g = efq_group_of_blkg(efqd(), blkg_b);
	Unlock();
	EXPECT_EQ(g, GroupOf(a));
	EXPECT_TRUE(g->online);
}

TEST_F(Hierarchy, RequestWithoutBioOrIssuedAsRootGoesToTheRootGroup)
{
	struct blkcg *a = Cgroup("a");
	struct efq_group *ga = GroupOf(a);
	struct request *plain = NewRequest(REQ_OP_READ, Blkg(a));
	struct request *nobio = NewRequest(REQ_OP_READ, nullptr);
	struct request *meta = NewRequest(REQ_OP_READ | REQ_META, Blkg(a));
	struct request *swap = NewRequest(REQ_OP_WRITE | REQ_SWAP, Blkg(a));
	Lock();
	EXPECT_EQ(efq_group_of_rq(efqd(), plain), ga);
	EXPECT_EQ(efq_group_of_rq(efqd(), nobio), Root());
	EXPECT_EQ(efq_group_of_rq(efqd(), meta), Root());
	EXPECT_EQ(efq_group_of_rq(efqd(), swap), Root());
	EXPECT_EQ(efq_group_of_bio(efqd(), nullptr), Root());
	EXPECT_EQ(efq_group_of_blkg(efqd(), nullptr), Root());
	EXPECT_EQ(efq_group_of_blkg(efqd(), Blkg(&blkcg_root)), Root());
	Unlock();
	for (struct request *rq : {plain, nobio, meta, swap})
		FreeRequest(rq);
}

TEST_F(Hierarchy, SelectionPutsEveryLevelOfThePathInService)
{
	struct blkcg *a = Cgroup("a");
	struct blkcg *b = Cgroup("b", a);
	struct efq_group *ga = GroupOf(a), *gb = GroupOf(b);
	FakeQueue *q = NewQueue(gb);
	AddN(q, 2);
	EXPECT_TRUE(ga->entity.on_st);
	EXPECT_TRUE(gb->entity.on_st);
	EXPECT_EQ(Root()->sched_data.nr_active, 1u);
	ASSERT_EQ(Select(), q);
	EXPECT_EQ(Root()->sched_data.active_entity, &ga->entity);
	EXPECT_EQ(ga->sched_data.active_entity, &gb->entity);
	EXPECT_EQ(gb->sched_data.active_entity, &q->ioq->entity);
	EXPECT_EQ(CheckInvariants(), "");
	Expire();
	EXPECT_EQ(Root()->sched_data.active_entity, nullptr);
	EXPECT_EQ(ga->sched_data.active_entity, nullptr);
	EXPECT_EQ(gb->sched_data.active_entity, nullptr);
}

TEST_F(Hierarchy, EmptiedAncestorsLeaveTheirTreesUpToABusyOne)
{
	efqd()->group_idle = 0;
	struct blkcg *a = Cgroup("a");
	struct blkcg *b = Cgroup("b", a);
	struct efq_group *ga = GroupOf(a), *gb = GroupOf(b);
	FakeQueue *qb = NewQueue(gb), *qa = NewQueue(ga);
	Add(qb);
	AddN(qa, 2);
	ASSERT_EQ(Select(), qb);
	Complete(DispatchFrom(qb));
	ASSERT_EQ(Select(), qa); // qb expired empty: b leaves a's tree, a stays
	EXPECT_FALSE(gb->entity.on_st);
	EXPECT_TRUE(ga->entity.on_st);
	EXPECT_EQ(ga->sched_data.nr_active, 1u);
}

// ---------------------------------------------------------------------------
// Charging
// ---------------------------------------------------------------------------

TEST_F(Charging, Fairness0QueuePaysItsSliceGroupPaysWhatItUsed)
{
	struct efq_group *g = GroupOf(Cgroup("a"));
	FakeQueue *q = NewQueue(g);
	AddN(q, 3);
	RunSlice(q, 10 * kMs); // used 10 of its 100 ms
	EXPECT_EQ(q->ioq->entity.vdisktime, Vt(100 * kMs));
	EXPECT_EQ(g->entity.vdisktime, Vt(10 * kMs));
	EXPECT_EQ(q->ioq->entity.total_time, 10 * kMs);
	EXPECT_EQ(g->entity.total_time, 10 * kMs);
}

TEST_F(Charging, Fairness0GroupChargeIsCappedAtTheSlice)
{
	struct efq_group *g = GroupOf(Cgroup("a"));
	FakeQueue *q = NewQueue(g);
	AddN(q, 3);
	RunSlice(q, 150 * kMs);
	EXPECT_EQ(q->ioq->entity.vdisktime, Vt(100 * kMs));
	EXPECT_EQ(g->entity.vdisktime, Vt(100 * kMs));
	EXPECT_EQ(g->entity.total_time, 150 * kMs); // statistics are real
}

TEST_F(Charging, Fairness0SlicePaymentUsesThePrioScaledSlice)
{
	struct efq_group *g = GroupOf(Cgroup("a"));
	FakeQueue *q = NewQueue(g, true, 7); // 40 ms slice, weight 200
	AddN(q, 3);
	RunSlice(q, 60 * kMs);
	EXPECT_EQ(q->ioq->entity.vdisktime, Vt(40 * kMs, 200));
	EXPECT_EQ(g->entity.vdisktime, Vt(40 * kMs)); // min(60, 40) at 500
}

TEST_F(Charging, Fairness1EveryLevelPaysWhatWasUsed)
{
	efqd()->fairness = 1;
	struct efq_group *g = GroupOf(Cgroup("a"));
	FakeQueue *q = NewQueue(g);
	AddN(q, 4);
	RunSlice(q, 150 * kMs);
	EXPECT_EQ(q->ioq->entity.vdisktime, Vt(150 * kMs));
	EXPECT_EQ(g->entity.vdisktime, Vt(150 * kMs));
	RunSlice(q, 10 * kMs);
	EXPECT_EQ(q->ioq->entity.vdisktime, Vt(160 * kMs));
	EXPECT_EQ(g->entity.vdisktime, Vt(160 * kMs));
}

TEST_F(Charging, EachLevelIsChargedAtItsOwnWeight)
{
	efqd()->fairness = 1;
	struct blkcg *a = Cgroup("a", nullptr, 200);
	struct blkcg *b = Cgroup("b", a, 800);
	struct efq_group *ga = GroupOf(a), *gb = GroupOf(b);
	FakeQueue *q = NewQueue(gb, true, 0); // weight 900
	AddN(q, 3);
	RunSlice(q, 9 * kMs);
	EXPECT_EQ(q->ioq->entity.vdisktime, 1280000000ULL); // (9 ms << 8) * 500 / 900
	EXPECT_EQ(gb->entity.vdisktime, 1440000000ULL);	    // ... / 800
	EXPECT_EQ(ga->entity.vdisktime, 5760000000ULL);	    // ... / 200
}

TEST_F(Charging, RootGroupIsNeverChargedButCountsTheDevicesService)
{
	efqd()->fairness = 1;
	struct efq_group *g = GroupOf(Cgroup("a"));
	FakeQueue *r = NewQueue(Root()), *q = NewQueue(g);
	AddN(r, 3);
	AddN(q, 3);
	RunSlice(r, 10 * kMs);
	RunSlice(q, 20 * kMs);
	EXPECT_EQ(Root()->entity.vdisktime, 0u);
	EXPECT_EQ(Root()->entity.total_time, 30 * kMs);
	EXPECT_EQ(Root()->entity.total_sectors, 16u); // two 8-sector requests
	EXPECT_EQ(g->entity.total_time, 20 * kMs);
	EXPECT_EQ(g->entity.total_sectors, 8u);
	EXPECT_EQ(r->ioq->entity.total_time, 10 * kMs);
}

// ---------------------------------------------------------------------------
// Served time and the slice start
// ---------------------------------------------------------------------------

TEST_F(Served, SliceStartsAtTheFirstCompletionNotAtActivation)
{
	FakeQueue *a = NewQueue(Root());
	AddN(a, 3);
	u64 t0 = Now();
	ASSERT_EQ(Select(), a);
	EXPECT_EQ(a->ioq->dispatch_start, t0);
	EXPECT_TRUE(efq_queue_slice_new(a->ioq));
	EXPECT_EQ(a->ioq->slice_end, 0u);
	struct request *rq = DispatchFrom(a);
	Advance(30 * kMs);
	EXPECT_FALSE(efq_queue_slice_used(a->ioq));
	Complete(rq);
	EXPECT_FALSE(efq_queue_slice_new(a->ioq));
	EXPECT_EQ(a->ioq->slice_start, t0 + 30 * kMs);
	EXPECT_EQ(a->ioq->slice_end, t0 + 130 * kMs);
	Advance(100 * kMs - 1);
	EXPECT_FALSE(efq_queue_slice_used(a->ioq));
	Advance(1);
	EXPECT_TRUE(efq_queue_slice_used(a->ioq));
}

TEST_F(Served, OnlyTheFirstCompletionStartsTheSlice)
{
	FakeQueue *a = NewQueue(Root());
	AddN(a, 3);
	u64 t0 = Now();
	ASSERT_EQ(Select(), a);
	struct request *r1 = DispatchFrom(a), *r2 = DispatchFrom(a);
	Complete(r1);
	Advance(5 * kMs);
	Complete(r2);
	EXPECT_EQ(a->ioq->slice_start, t0);
	EXPECT_EQ(a->ioq->slice_end, t0 + 100 * kMs);
}

TEST_F(Served, TimeBeforeTheFirstCompletionIsNotCharged)
{
	efqd()->fairness = 1;
	FakeQueue *a = NewQueue(Root());
	AddN(a, 3);
	ASSERT_EQ(Select(), a);
	struct request *rq = DispatchFrom(a);
	Advance(30 * kMs);
	Complete(rq);
	Advance(20 * kMs);
	Expire();
	EXPECT_EQ(a->ioq->entity.total_time, 20 * kMs);
	EXPECT_EQ(a->ioq->entity.vdisktime, Vt(20 * kMs));
}

TEST_F(Served, WithoutACompletionItIsTheTimeSinceActivation)
{
	efqd()->fairness = 1;
	FakeQueue *a = NewQueue(Root());
	AddN(a, 3);
	ASSERT_EQ(Select(), a);
	DispatchFrom(a);
	Advance(7 * kMs);
	Expire();
	EXPECT_EQ(a->ioq->entity.total_time, 7 * kMs);
	EXPECT_EQ(a->ioq->entity.vdisktime, Vt(7 * kMs));
}

TEST_F(Served, ExpiryAtTheFirstCompletionsInstantCountsFromActivation)
{
	efqd()->fairness = 1;
	FakeQueue *a = NewQueue(Root());
	AddN(a, 3);
	ASSERT_EQ(Select(), a);
	struct request *rq = DispatchFrom(a);
	Advance(5 * kMs);
	Complete(rq);
	Expire(); // slice_start == now
	EXPECT_EQ(a->ioq->entity.total_time, 5 * kMs);
}

TEST_F(Served, IsAtLeastOneNanosecond)
{
	efqd()->fairness = 1;
	FakeQueue *a = NewQueue(Root());
	AddN(a, 2);
	ASSERT_EQ(Select(), a);
	Expire();
	EXPECT_EQ(a->ioq->entity.total_time, 1u);
	EXPECT_EQ(a->ioq->entity.vdisktime, 256u); // 1 << 8
}

TEST_F(Served, SectorsOfTheActivationAreCountedAndReset)
{
	FakeQueue *a = NewQueue(Root());
	Add(a, 0, 8);
	Add(a, 0, 24);
	Add(a, 0, 8);
	ASSERT_EQ(Select(), a);
	DispatchFrom(a);
	DispatchFrom(a);
	EXPECT_EQ(a->ioq->nr_sectors, 32u);
	Expire();
	EXPECT_EQ(a->ioq->nr_sectors, 0u);
	EXPECT_EQ(a->ioq->entity.total_sectors, 32u);
}

// ---------------------------------------------------------------------------
// Stats
// ---------------------------------------------------------------------------

TEST_F(Stats, GroupCountsEnqueuesDequeuesTimeAndSectors)
{
	efqd()->group_idle = 0;
	struct efq_group *g = GroupOf(Cgroup("a"));
	FakeQueue *q = NewQueue(g);
	for (int round = 0; round < 2; round++) {
		Add(q, 0, 16);
		ASSERT_EQ(Select(), q);
		struct request *rq = DispatchFrom(q);
		Advance(5 * kMs);
		Complete(rq); // the last busy queue went empty: expired, dequeued
		ASSERT_EQ(efqd()->active_queue, nullptr);
	}
	EXPECT_EQ(Expired(EFQ_EXPIRE_LAST_EMPTY), 2u);
	EXPECT_EQ(g->entity.nr_enqueued, 2u);
	EXPECT_EQ(g->entity.nr_dequeued, 2u);
	EXPECT_EQ(q->ioq->entity.nr_enqueued, 2u);
	EXPECT_EQ(q->ioq->entity.nr_dequeued, 2u);
	EXPECT_EQ(g->entity.total_time, 10 * kMs);
	EXPECT_EQ(g->entity.total_sectors, 32u);
	EXPECT_EQ(Root()->entity.total_time, 10 * kMs);
	EXPECT_EQ(Root()->entity.total_sectors, 32u);
}

TEST_F(Stats, ParentGroupAccumulatesItsChildrensService)
{
	efqd()->fairness = 1;
	struct blkcg *a = Cgroup("a");
	struct efq_group *ga = GroupOf(a);
	struct efq_group *gb = GroupOf(Cgroup("b", a));
	struct efq_group *gc = GroupOf(Cgroup("c", a));
	FakeQueue *qb = NewQueue(gb), *qc = NewQueue(gc);
	AddN(qb, 3);
	AddN(qc, 3);
	RunSlice(qb, 7 * kMs);
	RunSlice(qc, 11 * kMs);
	EXPECT_EQ(gb->entity.total_time, 7 * kMs);
	EXPECT_EQ(gc->entity.total_time, 11 * kMs);
	EXPECT_EQ(ga->entity.total_time, 18 * kMs);
	EXPECT_EQ(ga->entity.total_sectors, 16u);
}

// ---------------------------------------------------------------------------
// GroupRemoval
// ---------------------------------------------------------------------------

TEST_F(GroupRemoval, CgroupRemovedWithQueuedRequestsFreesNothingEarly)
{
	efqd()->group_idle = 0;
	long live0 = sim_slab_live();
	struct blkcg *cg = Cgroup("a");
	struct efq_group *g = GroupOf(cg);
	FakeQueue *q = NewQueue(g), *w = AsyncQueue(g);
	AddN(q, 3);
	AddN(w, 2);
	DestroyCgroup(cg);
	DropBlkg(cg); // the last blkg reference: policy data goes
	sim_quiesce();
	EXPECT_FALSE(g->online);
	EXPECT_FALSE(q->freed);
	EXPECT_FALSE(w->freed); // the group's slot let go, its requests did not
	EXPECT_EQ(efq_group_async_queue(g, IOPRIO_CLASS_BE, IOPRIO_NORM), nullptr);
	EXPECT_TRUE(g->entity.on_st); // still scheduled
	// the requests still dispatch, through the dead group
	int n = 0;
	while (struct request *rq = Dispatch()) {
		EXPECT_EQ(static_cast<FakeQueue *>(rq->elv.priv[0])->ioq->group, g);
		Complete(rq);
		n++;
	}
	EXPECT_EQ(n, 5);
	EXPECT_TRUE(w->freed);
	EXPECT_FALSE(q->freed);
	Release(q);
	sim_quiesce();
	EXPECT_TRUE(q->freed);
	EXPECT_EQ(sim_slab_live(), live0); // group, blkg, cgroup data: all gone
}

TEST_F(GroupRemoval, NewRequestsOfARemovedCgroupGoToItsParent)
{
	struct blkcg *a = Cgroup("a");
	struct blkcg *b = Cgroup("b", a);
	struct efq_group *ga = GroupOf(a), *gb = GroupOf(b);
	struct blkcg_gq *blkg_b = Blkg(b);
	DestroyCgroup(b);
	struct request *rq = NewRequest(REQ_OP_WRITE, blkg_b);
	Lock();
	EXPECT_EQ(efq_group_of_rq(efqd(), rq), ga);
	Unlock();
	EXPECT_FALSE(gb->online);
	EXPECT_TRUE(list_empty(&gb->efqd_node));
	FreeRequest(rq);
}

TEST_F(GroupRemoval, OfflineGroupFlushesItsIdleTrees)
{
	efqd()->fairness = 1;
	efqd()->group_idle = 0;
	struct blkcg *cg = Cgroup("a");
	struct efq_group *g = GroupOf(cg);
	FakeQueue *q1 = NewQueue(g), *q2 = NewQueue(g);
	Add(q1);
	AddN(q2, 3);
	ASSERT_EQ(Select(), q1);
	struct request *rq = DispatchFrom(q1);
	Advance(20 * kMs);
	Complete(rq);
	ASSERT_EQ(Select(), q2); // q1 cached in g's tree (ahead of q2 at 0)
	ASSERT_TRUE(q1->ioq->entity.on_idle_st);
	ASSERT_EQ(refcount_read(&q1->ioq->ref), 2u);
	DestroyCgroup(cg);
	EXPECT_FALSE(q1->ioq->entity.on_idle_st);
	EXPECT_EQ(refcount_read(&q1->ioq->ref), 1u);
}

TEST_F(GroupRemoval, ChildrenOfAnExitingGroupAreNeverCached)
{
	efqd()->fairness = 1;
	efqd()->group_idle = 0;
	struct blkcg *cg = Cgroup("a");
	struct efq_group *g = GroupOf(cg);
	FakeQueue *q1 = NewQueue(g), *q2 = NewQueue(g);
	Add(q1);
	AddN(q2, 3);
	DestroyCgroup(cg);
	ASSERT_EQ(Select(), q1);
	struct request *rq = DispatchFrom(q1);
	Advance(20 * kMs);
	Complete(rq);
	ASSERT_EQ(Select(), q2);
	EXPECT_FALSE(q1->ioq->entity.on_idle_st); // ahead of min, but g is exiting
}

} // namespace
