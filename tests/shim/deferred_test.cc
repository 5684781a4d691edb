// SPDX-License-Identifier: GPL-2.0
// RCU callbacks, work items, percpu_ref and module_init/module_exit.

#include <sim/gtest_guard.h>

#include <string>
#include <vector>

extern "C" {
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/init.h>
#include <linux/rcupdate.h>
#include <linux/percpu-refcount.h>
#include <linux/workqueue.h>
#include <linux/slab.h>
#include <linux/sched.h>
#include <linux/preempt.h>
#include <linux/ktime.h>
}

namespace {

std::vector<std::string> g_log;

struct Item {
	struct rcu_head rcu;
	struct work_struct work;
	struct delayed_work dwork;
	struct percpu_ref ref;
	int id;
	bool ctx_softirq = false;
	pid_t work_pid = -1;
};

void item_rcu_cb(struct rcu_head *head)
{
	Item *it = container_of(head, Item, rcu);
	it->ctx_softirq = in_serving_softirq();
	g_log.push_back("rcu" + std::to_string(it->id));
}

void item_work_fn(struct work_struct *work)
{
	Item *it = container_of(work, Item, work);
	it->work_pid = current->pid;
	g_log.push_back("work" + std::to_string(it->id));
}

void item_dwork_fn(struct work_struct *work)
{
	Item *it = container_of(to_delayed_work(work), Item, dwork);
	g_log.push_back("dwork" + std::to_string(it->id) + "@" + std::to_string(ktime_get()));
}

class DeferredTest : public SimTest {
protected:
	void SetUp() override
	{
		SimTest::SetUp();
		g_log.clear();
	}
};

TEST_F(DeferredTest, CallRcuRunsAtSafePointsInSoftirq)
{
	Item a, b;
	a.id = 1;
	b.id = 2;
	call_rcu(&a.rcu, item_rcu_cb);
	call_rcu(&b.rcu, item_rcu_cb);
	EXPECT_TRUE(g_log.empty()); // never from inside call_rcu()
	synchronize_rcu();
	EXPECT_EQ(g_log, (std::vector<std::string>{"rcu1", "rcu2"}));
	EXPECT_TRUE(a.ctx_softirq);

	call_rcu(&a.rcu, item_rcu_cb);
	sim_clock_advance(1); // every clock step is a safe point
	EXPECT_EQ(g_log.size(), 3u);
}

TEST_F(DeferredTest, KfreeRcu)
{
	Item *it = static_cast<Item *>(kzalloc(sizeof(Item), GFP_KERNEL));
	kfree_rcu(it, rcu);
	EXPECT_EQ(sim_slab_live(), live_at_start_ + 1);
	sim_quiesce();
	EXPECT_EQ(sim_slab_live(), live_at_start_);
}

TEST_F(DeferredTest, WorkRunsInTaskContextAsKworker)
{
	Item a;
	a.id = 1;
	INIT_WORK(&a.work, item_work_fn);
	EXPECT_TRUE(schedule_work(&a.work));
	EXPECT_FALSE(schedule_work(&a.work)); // already pending
	EXPECT_TRUE(work_pending(&a.work));
	sim_set_current(100, "fio");
	flush_work(&a.work);
	EXPECT_EQ(g_log, (std::vector<std::string>{"work1"}));
	EXPECT_EQ(a.work_pid, SIM_KWORKER_PID);
	EXPECT_EQ(current->pid, 100); // restored

	schedule_work(&a.work);
	EXPECT_TRUE(cancel_work_sync(&a.work));
	sim_quiesce();
	EXPECT_EQ(g_log.size(), 1u);
}

TEST_F(DeferredTest, DelayedWorkUsesTheClock)
{
	Item a;
	a.id = 3;
	INIT_DELAYED_WORK(&a.dwork, item_dwork_fn);
	schedule_delayed_work(&a.dwork, 2);
	EXPECT_TRUE(delayed_work_pending(&a.dwork));
	sim_clock_advance(4 * NSEC_PER_MSEC);
	EXPECT_TRUE(g_log.empty());
	sim_clock_advance(4 * NSEC_PER_MSEC);
	EXPECT_EQ(g_log, (std::vector<std::string>{"dwork3@" + std::to_string(SIM_CLOCK_START_NS +
									      8 * NSEC_PER_MSEC)}));
	schedule_delayed_work(&a.dwork, 1);
	EXPECT_TRUE(cancel_delayed_work_sync(&a.dwork));
	sim_clock_advance(NSEC_PER_SEC);
	EXPECT_EQ(g_log.size(), 1u);
}

int g_released;
void ref_release(struct percpu_ref *ref)
{
	g_released++;
	EXPECT_TRUE(percpu_ref_is_zero(ref));
}

TEST_F(DeferredTest, PercpuRefReleasesAfterKillAndGracePeriod)
{
	Item it;
	g_released = 0;
	ASSERT_EQ(percpu_ref_init(&it.ref, ref_release, 0, GFP_KERNEL), 0);
	percpu_ref_get(&it.ref);
	EXPECT_TRUE(percpu_ref_tryget_live(&it.ref));
	EXPECT_FALSE(percpu_ref_is_zero(&it.ref));
	percpu_ref_kill(&it.ref); // drops the initial reference
	EXPECT_TRUE(percpu_ref_is_dying(&it.ref));
	EXPECT_FALSE(percpu_ref_tryget_live(&it.ref));
	EXPECT_EQ(g_released, 0); // never from inside kill()
	sim_quiesce();		  // switch to atomic after the grace period
	EXPECT_EQ(g_released, 0); // two references are still held
	percpu_ref_put(&it.ref);
	EXPECT_EQ(g_released, 0);
	percpu_ref_put(&it.ref);
	EXPECT_EQ(g_released, 1);
	EXPECT_FALSE(percpu_ref_tryget(&it.ref));
	percpu_ref_exit(&it.ref);
}

TEST_F(DeferredTest, PercpuRefKillWithNoOtherRefReleasesInRcu)
{
	Item it;
	g_released = 0;
	ASSERT_EQ(percpu_ref_init(&it.ref, ref_release, 0, GFP_KERNEL), 0);
	percpu_ref_kill(&it.ref);
	EXPECT_EQ(g_released, 0);
	sim_quiesce();
	EXPECT_EQ(g_released, 1);
	percpu_ref_exit(&it.ref);
}

TEST_F(DeferredTest, PercpuRefMisuseWarns)
{
	Item it;
	g_released = 0;
	sim_slab_fail_next(1);
	EXPECT_EQ(percpu_ref_init(&it.ref, ref_release, 0, GFP_KERNEL | __GFP_NOWARN), -ENOMEM);
	ASSERT_EQ(percpu_ref_init(&it.ref, ref_release, PERCPU_REF_INIT_ATOMIC, GFP_KERNEL), 0);
	percpu_ref_kill(&it.ref); // atomic mode: release at once
	EXPECT_EQ(g_released, 1);
	percpu_ref_kill(&it.ref);
	percpu_ref_put(&it.ref);
	ExpectWarnings(2);
	percpu_ref_exit(&it.ref);
}

int g_init_calls, g_exit_calls;

int __init test_module_init(void)
{
	g_init_calls++;
	return 0;
}

void __exit test_module_exit(void)
{
	g_exit_calls++;
}

} // namespace

module_init(test_module_init);
module_exit(test_module_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("shim test module");
MODULE_ALIAS("shim-test");
EXPORT_SYMBOL_GPL(g_init_calls);

namespace {

TEST_F(DeferredTest, ModuleInitAndExitRun)
{
	EXPECT_EQ(sim_modules_count(), 1);
	g_init_calls = g_exit_calls = 0;
	EXPECT_EQ(sim_modules_init(), 0);
	EXPECT_EQ(sim_modules_init(), 0); // loaded once
	EXPECT_EQ(g_init_calls, 1);
	sim_modules_exit();
	sim_modules_exit();
	EXPECT_EQ(g_exit_calls, 1);
	EXPECT_TRUE(try_module_get(THIS_MODULE));
	module_put(THIS_MODULE);
}

} // namespace
