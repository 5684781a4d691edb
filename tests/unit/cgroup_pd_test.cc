// SPDX-License-Identifier: GPL-2.0
// The efq policy data of a blkg (its group) over the paths 6.1's
// blk-cgroup.c takes, including the ones that free policy data that never
// saw pd_init_fn (blkg_alloc's error path, a blkg_conf_prep that lost the
// race to create the blkg), the window between pd_init_fn and the blkg's
// link into its blkcg's list, and a group that outlives its blkg (the
// paths a review of the kernel code in December 2026 singled out;
// Documentation/block/io-controller.rst, "Groups and cgroups", describes
// the rules).

#include <cstdlib>

#include "efq_harness.h"

extern "C" {
#include <linux/slab.h>
#include <linux/seq_file.h>
#include <linux/kernfs.h>
}

using namespace efqt;

namespace {

// A second policy, registered after efq (a higher plid, as a policy module
// loaded after efq's), active on the test device: its pd_alloc_fn can fail,
// and its "io.cgpdtest.max" file configures through blkg_conf_prep() as
// io.max does.
bool g_fail_pd;

struct blkg_policy_data *t_pd_alloc(gfp_t gfp, struct request_queue *, struct blkcg *)
{
	if (g_fail_pd)
		return nullptr;
	return static_cast<struct blkg_policy_data *>(
		kzalloc(sizeof(struct blkg_policy_data), gfp));
}

void t_pd_free(struct blkg_policy_data *pd)
{
	kfree(pd);
}

struct blkcg_policy g_tpol;

ssize_t t_max_write(struct kernfs_open_file *of, char *buf, size_t nbytes, loff_t)
{
	struct blkg_conf_ctx ctx;
	int ret = blkg_conf_prep(css_to_blkcg(of_css(of)), &g_tpol, buf, &ctx);
	if (ret)
		return ret;
	blkg_conf_finish(&ctx);
	return (ssize_t)nbytes;
}

struct cftype g_tfiles[2]; // set up in SetUp(), terminated by an empty one

class CgroupPd : public EfqTest {
protected:
	void SetUp() override
	{
		EfqTest::SetUp();
		g_fail_pd = false;
		g_tpol = {};
		for (struct cftype &f : g_tfiles)
			f = cftype{};
		snprintf(g_tfiles[0].name, sizeof(g_tfiles[0].name), "cgpdtest.max");
		g_tfiles[0].flags = CFTYPE_NOT_ON_ROOT;
		g_tfiles[0].write = t_max_write;
		g_tpol.dfl_cftypes = g_tfiles;
		g_tpol.pd_alloc_fn = t_pd_alloc;
		g_tpol.pd_free_fn = t_pd_free;
		ASSERT_EQ(blkcg_policy_register(&g_tpol), 0);
		ASSERT_EQ(blkcg_activate_policy(queue(), &g_tpol), 0);
	}
	void TearDown() override
	{
		sim_set_sleep_hook(nullptr, nullptr);
		sim_blkcg_set_create_hook(nullptr, nullptr);
		blkcg_deactivate_policy(queue(), &g_tpol);
		blkcg_policy_unregister(&g_tpol);
		EfqTest::TearDown();
	}

public:
	// The cgroup's process submits its first bio to the device.
	void FirstIo(struct blkcg *cg) { Blkg(cg); }

protected:
	// debugfs "state" of the device.
	std::string State()
	{
		struct seq_file sf {};
		EXPECT_EQ(efq_debugfs_state_show(queue(), &sf), 0);
		std::string s = sf.buf ? sf.buf : "";
		std::free(sf.buf);
		return s;
	}
};

// 6.1's blkg_alloc() frees the policy data it allocated so far when a later
// policy's pd_alloc_fn fails: efq's group never saw pd_init_fn.
TEST_F(CgroupPd, BlkgAllocFailureFreesAGroupThatNeverSawPdInit)
{
	struct blkcg *a = Cgroup("a");
	long live = sim_slab_live();
	g_fail_pd = true;
	struct blkcg_gq *blkg = sim_blkg_get(a, queue()); // the bio path, GFP_NOWAIT
	g_fail_pd = false;
	ASSERT_NE(blkg, nullptr);
	EXPECT_EQ(blkg->blkcg, &blkcg_root); // fell back to the closest ancestor
	sim_blkg_put(blkg);
	sim_quiesce();
	EXPECT_EQ(sim_warn_count(), 0u) << sim_warn_last();
	EXPECT_EQ(sim_slab_live(), live); // the group is gone, not saturated and leaked
	// and the cgroup still gets its group later
	EXPECT_NE(GroupOf(a), Root());
}

// A fresh cgroup writes a blkg_conf_prep() file (io.max) while its process
// starts IO: blkg_conf_prep() allocates the blkg with GFP_KERNEL, locks
// dropped; meanwhile the bio path creates the blkg; blkg_conf_prep() then
// finds it and frees its own, whose efq group never saw pd_init_fn.
TEST_F(CgroupPd, ConfPrepLosingTheRaceToTheFirstIoFreesAGroupThatNeverSawPdInit)
{
	struct blkcg *a = Cgroup("a");
	struct Race {
		CgroupPd *t;
		struct blkcg *cg;
		int ran;
	} race{this, a, 0};
	sim_set_sleep_hook(
		[](void *arg) {
			auto *r = static_cast<Race *>(arg);
			if (r->ran++)
				return;
			// the cgroup's process submits its first bio
			r->t->FirstIo(r->cg);
		},
		&race);
	EXPECT_EQ(sim_cgroup_write(a, "io.cgpdtest.max", "8:0 rbps=1048576"),
		  (ssize_t)strlen("8:0 rbps=1048576"));
	sim_set_sleep_hook(nullptr, nullptr);
	ASSERT_GE(race.ran, 1);
	sim_quiesce();
	EXPECT_EQ(sim_warn_count(), 0u) << sim_warn_last();
	// one group for the cgroup on this device, initialised
	struct efq_group *g = GroupOf(a);
	EXPECT_NE(g, Root());
	EXPECT_EQ(refcount_read(&g->ref), 1u);
}

// 6.1's blkg_create() runs pd_init_fn before it links the blkg into
// blkcg->blkg_list, and pd_online_fn after.  A weight write in between
// walks the list without the new blkg: the settings the group keeps must
// be the ones written last.
TEST_F(CgroupPd, WeightWrittenBetweenPdInitAndTheLinkApplies)
{
	struct blkcg *a = Cgroup("a");
	struct Race {
		struct blkcg *cg;
		int ran;
	} race{a, 0};
	sim_blkcg_set_create_hook(
		[](struct blkcg_gq *blkg, void *arg) {
			auto *r = static_cast<Race *>(arg);
			if (blkg->blkcg != r->cg || r->ran++)
				return;
			// another CPU: echo 800 > io.efq.weight; echo 1 > io.efq.ioprio_class
			EXPECT_EQ(sim_cgroup_write(r->cg, "io.efq.weight", "800"), 3);
			EXPECT_EQ(sim_cgroup_write(r->cg, "io.efq.ioprio_class", "1"), 1);
		},
		&race);
	struct efq_group *g = GroupOf(a);
	sim_blkcg_set_create_hook(nullptr, nullptr);
	ASSERT_EQ(race.ran, 1);
	EXPECT_EQ(g->entity.new_weight, 800u);
	EXPECT_EQ(g->entity.new_class, IOPRIO_CLASS_RT);
}

// A removed cgroup's group lives on while its queue does (here: the queue
// in service, idling); its blkg is freed once its last reference goes.
// debugfs must not read the freed blkg.
TEST_F(CgroupPd, DebugfsOfAGroupThatOutlivedItsBlkg)
{
	idle_ns = 10 * kMs;
	struct blkcg *a = Cgroup("a");
	struct efq_group *g = GroupOf(a);
	FakeQueue *fq = NewQueue(g);
	Add(fq);
	ASSERT_EQ(Select(), fq);
	Complete(DispatchFrom(fq));
	ASSERT_EQ(Select(), nullptr); // idling: fq stays in service
	EXPECT_NE(State().find("group=/a "), std::string::npos) << State();

	DestroyCgroup(a);
	DropBlkg(a);
	sim_quiesce(); // the blkg (and efq's pd reference) is gone
	ASSERT_EQ(efqd()->active_queue, fq->ioq);
	ASSERT_EQ(efq_queue_group(fq->ioq), g);
	std::string s = State();
	EXPECT_NE(s.find("group=(offline) "), std::string::npos) << s;
	char path[64];
	Lock();
	efq_group_path(efqd(), g, path, sizeof(path));
	Unlock();
	EXPECT_STREQ(path, "(offline)");
}

} // namespace
