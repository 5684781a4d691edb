// SPDX-License-Identifier: GPL-2.0
// Device lifetime: efq_data_init() argument checks and failure paths,
// efq_data_exit() with cached queues, armed timers and groups outliving
// the device (Documentation/block/io-controller.rst, "Groups and cgroups":
// queues still holding a group's requests keep it alive).

#include "efq_harness.h"

using namespace efqt;

namespace {

class Lifetime : public EfqTest {
protected:
	// A second device to initialise efq on.
	struct Dev {
		std::unique_ptr<struct request_queue> q = std::make_unique<struct request_queue>();
		std::unique_ptr<struct gendisk> disk = std::make_unique<struct gendisk>();
		std::unique_ptr<struct elevator_queue> eq =
			std::make_unique<struct elevator_queue>();
		Dev()
		{
			disk->major = 8;
			disk->first_minor = 32;
			disk->minors = 16;
			q->node = -1;
			EXPECT_EQ(sim_queue_init(q.get(), disk.get()), 0);
		}
		~Dev() { sim_queue_exit(q.get()); }
	};
};

TEST_F(Lifetime, InitDataRejectsOpsWithoutFreeSchedQueue)
{
	Dev d;
	struct efq_sched_ops bad = {};
	struct efq_data *e = efq_data_init(d.q.get(), d.eq.get(), &bad, this);
	EXPECT_EQ(e, ERR_PTR(-EINVAL));
	ExpectWarnings(1);
}

TEST_F(Lifetime, InitDataRejectsASingleQueueSchedulerWithoutAlloc)
{
	Dev d;
	struct efq_sched_ops bad = ops_;
	bad.features = EFQ_FEAT_SINGLE_QUEUE;
	bad.alloc_sched_queue = nullptr;
	struct efq_data *e = efq_data_init(d.q.get(), d.eq.get(), &bad, this);
	EXPECT_EQ(e, ERR_PTR(-EINVAL));
	ExpectWarnings(1);
}

TEST_F(Lifetime, InitDataFailsCleanlyWhenItsFirstAllocationFails)
{
	Dev d;
	sim_slab_fail_next(1);
	struct efq_data *e = efq_data_init(d.q.get(), d.eq.get(), &ops_, this);
	EXPECT_EQ(e, ERR_PTR(-ENOMEM));
	EXPECT_EQ(d.eq->elevator_data, nullptr);
}

TEST_F(Lifetime, InitDataFailsCleanlyWhenTheRootQueueCannotBeAllocated)
{
	Dev d;
	struct efq_sched_ops single = ops_;
	single.features = EFQ_FEAT_SINGLE_QUEUE;
	single.alloc_sched_queue = ops_.alloc_sched_queue;
	if (!single.alloc_sched_queue) {
		Options o;
		o.alloc_sched_queue = true;
		Reinit(o);
		single.alloc_sched_queue = ops_.alloc_sched_queue;
	}
	fail_alloc_sched_queue = true;
	long live = sim_slab_live();
	struct efq_data *e = efq_data_init(d.q.get(), d.eq.get(), &single, this);
	fail_alloc_sched_queue = false;
	EXPECT_EQ(e, ERR_PTR(-ENOMEM));
	EXPECT_EQ(d.eq->elevator_data, nullptr);
	// groups go after a grace period (a statistics file may be reading)
	rcu_barrier();
	EXPECT_EQ(sim_slab_live(), live);
}

// Writeback throttling is turned off while efq runs a device and comes back
// when it goes, as bfq does (review lead 10: it stayed off after a switch
// back to mq-deadline or none).
TEST_F(Lifetime, WritebackThrottlingIsOffWhileEfqRunsAndBackAfter)
{
	Dev d;
	ASSERT_FALSE(d.q->sim_wbt_disabled);
	struct efq_data *e = efq_data_init(d.q.get(), d.eq.get(), &ops_, this);
	ASSERT_FALSE(IS_ERR_OR_NULL(e));
	d.q->elevator = d.eq.get();
	EXPECT_TRUE(d.q->sim_wbt_disabled);
	efq_data_exit(e);
	d.q->elevator = nullptr;
	EXPECT_FALSE(d.q->sim_wbt_disabled);
}

TEST_F(Lifetime, SecondDeviceHasItsOwnRootAndGroups)
{
	Dev d;
	struct efq_data *e = efq_data_init(d.q.get(), d.eq.get(), &ops_, this);
	ASSERT_FALSE(IS_ERR_OR_NULL(e));
	d.q->elevator = d.eq.get();
	EXPECT_EQ(e->dev, MKDEV(8, 32));
	EXPECT_NE(e->root_group, Root());
	struct blkcg *cg = Cgroup("a");
	struct blkcg_gq *blkg2 = sim_blkg_get(cg, d.q.get());
	spin_lock_irq(&e->lock);
	struct efq_group *g2 = efq_group_of_blkg(e, blkg2);
	spin_unlock_irq(&e->lock);
	struct efq_group *g1 = GroupOf(cg);
	EXPECT_NE(g1, g2);
	EXPECT_EQ(g2->efqd, e);
	EXPECT_EQ(g2->dev, MKDEV(8, 32));
	EXPECT_EQ(efq_cgroup_set_dev_policy(cg, MKDEV(8, 32), 900, IOPRIO_CLASS_BE), 0);
	EXPECT_EQ(g2->entity.new_weight, 900u);
	EXPECT_EQ(g1->entity.new_weight, 500u);
	sim_blkg_put(blkg2);
	efq_data_exit(e);
	d.q->elevator = nullptr;
}

TEST_F(Lifetime, QueuesStillCachedAtExitAreFreed)
{
	efqd()->group_idle = 0;
	struct efq_group *g = GroupOf(Cgroup("a"));
	FakeQueue *q1 = NewQueue(g), *q2 = NewQueue(g), *r1 = NewQueue(Root()),
		  *r2 = NewQueue(Root());
	Add(q1);
	Add(q2);
	Add(r1);
	Add(r2);
	Drain();
	int cached = 0;
	for (FakeQueue *q : {q1, q2, r1, r2})
		cached += q->ioq->entity.on_idle_st;
	EXPECT_GT(cached, 0);
	int freed_before = hooks.freed;
	EXPECT_EQ(freed_before, 0);
	// owners go, then the device: the caches must let go of every queue
	// (ExitDevice() fails the test for a queue never freed)
	Reinit(opts_);
}

TEST_F(Lifetime, ExitWithAnArmedIdleTimerCancelsIt)
{
	idle_ns = 5 * kMs;
	FakeQueue *a = NewQueue(Root()), *b = NewQueue(Root());
	Add(a);
	Add(b);
	ASSERT_EQ(Select(), a);
	Complete(DispatchFrom(a));
	ASSERT_EQ(sim_clock_pending(), 1u);
	Reinit(opts_);
	EXPECT_EQ(sim_clock_pending(), 0u);
	Advance(10 * kMs); // nothing may fire on the freed device
}

TEST_F(Lifetime, DeviceExitWhileARemovedCgroupsBlkgIsStillReferenced)
{
	// Found by this test (efq_data_exit() WARNed "root->ref != 1"), fixed
	// in 9646460: the root group, and with it the efq_data, now lives
	// until the last group of the device goes.
	struct blkcg *cg = Cgroup("a");
	struct efq_group *g = GroupOf(cg);
	FakeQueue *q = NewQueue(g);
	Add(q);
	Complete(Dispatch());
	Release(q);
	DestroyCgroup(cg); // a bio still holds the blkg (the harness's ref)
	// the scheduler is switched now
	efq_data_exit(efqd_);
	efqd_ = nullptr;
	q_->elevator = nullptr;
	EXPECT_EQ(sim_warn_count(), 0u) << sim_warn_last();
	EXPECT_FALSE(g->online);
	long live = sim_slab_live();
	DropBlkg(cg); // the bio completes: the group (and the root) go now
	sim_quiesce();
	EXPECT_LT(sim_slab_live(), live);
}

} // namespace
