// SPDX-License-Identifier: GPL-2.0
// blkcg: a recording policy checks the order and locking of every policy
// callback over the life of cgroups, queues and blkgs, and cgroup files.

#include <sim/gtest_guard.h>

#include <cstdlib>
#include <string>
#include <vector>

extern "C" {
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/blkdev.h>
#include <linux/seq_file.h>
#include <linux/string.h>
#include "blk-cgroup.h"
#include <sim/blkcg.h>
}

namespace {

std::vector<std::string> g_ev;
std::string g_fail_pd_for; // t_pd_alloc() fails for this cgroup

struct TestCpd {
	struct blkcg_policy_data cpd;
	unsigned int weight;
};

struct TestPd {
	struct blkg_policy_data pd;
	u64 value;
};

std::string cg_name(struct blkcg *b)
{
	return b == &blkcg_root ? "root" : b->sim_name;
}

std::string pd_name(struct blkg_policy_data *pd)
{
	return cg_name(pd->blkg->blkcg);
}

bool both_locked(struct blkg_policy_data *pd)
{
	return lockdep_is_held(&pd->blkg->q->queue_lock) && lockdep_is_held(&pd->blkg->blkcg->lock);
}

struct blkcg_policy_data *t_cpd_alloc(gfp_t gfp)
{
	g_ev.push_back("cpd_alloc");
	auto *c = static_cast<TestCpd *>(kzalloc(sizeof(TestCpd), gfp));
	return c ? &c->cpd : nullptr;
}

void t_cpd_init(struct blkcg_policy_data *cpd)
{
	container_of(cpd, TestCpd, cpd)->weight = 100;
	g_ev.push_back("cpd_init " + cg_name(cpd->blkcg));
}

void t_cpd_free(struct blkcg_policy_data *cpd)
{
	g_ev.push_back("cpd_free " + cg_name(cpd->blkcg));
	kfree(container_of(cpd, TestCpd, cpd));
}

struct blkg_policy_data *t_pd_alloc(gfp_t gfp, struct request_queue *, struct blkcg *blkcg)
{
	g_ev.push_back(std::string("pd_alloc ") + cg_name(blkcg) +
		       (gfp & __GFP_DIRECT_RECLAIM ? " kernel" : " nowait"));
	if (cg_name(blkcg) == g_fail_pd_for)
		return nullptr;
	auto *p = static_cast<TestPd *>(kzalloc(sizeof(TestPd), gfp));
	return p ? &p->pd : nullptr;
}

void t_pd_init(struct blkg_policy_data *pd)
{
	EXPECT_TRUE(lockdep_is_held(&pd->blkg->q->queue_lock));
	container_of(pd, TestPd, pd)->value = 7;
	g_ev.push_back("pd_init " + pd_name(pd));
}

void t_pd_online(struct blkg_policy_data *pd)
{
	EXPECT_TRUE(both_locked(pd));
	g_ev.push_back("pd_online " + pd_name(pd));
}

void t_pd_offline(struct blkg_policy_data *pd)
{
	EXPECT_TRUE(both_locked(pd));
	g_ev.push_back("pd_offline " + pd_name(pd));
}

void t_pd_free(struct blkg_policy_data *pd)
{
	g_ev.push_back("pd_free " + pd_name(pd));
	kfree(container_of(pd, TestPd, pd));
}

void t_pd_stat(struct blkg_policy_data *pd, struct seq_file *s)
{
	seq_printf(s, " test.value=%llu", container_of(pd, TestPd, pd)->value);
}

struct blkcg_policy g_pol;

int t_weight_show(struct seq_file *sf, void *)
{
	struct blkcg *blkcg = css_to_blkcg(seq_css(sf));
	auto *c = container_of(blkcg_to_cpd(blkcg, &g_pol), TestCpd, cpd);
	seq_printf(sf, "default %u\n", c->weight);
	return 0;
}

ssize_t t_weight_write(struct kernfs_open_file *of, char *buf, size_t nbytes, loff_t)
{
	struct blkcg *blkcg = css_to_blkcg(of_css(of));
	unsigned int v;
	int ret = kstrtouint(buf, 10, &v);
	if (ret)
		return ret;
	container_of(blkcg_to_cpd(blkcg, &g_pol), TestCpd, cpd)->weight = v;
	return nbytes;
}

u64 t_value_prfill(struct seq_file *sf, struct blkg_policy_data *pd, int)
{
	return __blkg_prfill_u64(sf, pd, container_of(pd, TestPd, pd)->value);
}

int t_value_show(struct seq_file *sf, void *)
{
	blkcg_print_blkgs(sf, css_to_blkcg(seq_css(sf)), t_value_prfill, &g_pol, 0, true);
	return 0;
}

ssize_t t_value_write(struct kernfs_open_file *of, char *buf, size_t nbytes, loff_t)
{
	struct blkcg *blkcg = css_to_blkcg(of_css(of));
	struct blkg_conf_ctx ctx;
	unsigned long long v;
	int ret = blkg_conf_prep(blkcg, &g_pol, buf, &ctx);
	if (ret)
		return ret;
	EXPECT_TRUE(lockdep_is_held(&ctx.blkg->q->queue_lock));
	ret = kstrtoull(ctx.body, 10, &v);
	if (!ret)
		container_of(blkg_to_pd(ctx.blkg, &g_pol), TestPd, pd)->value = v;
	blkg_conf_finish(&ctx);
	return ret ? ret : (ssize_t)nbytes;
}

u64 t_private_read(struct cgroup_subsys_state *, struct cftype *cft)
{
	return cft->private_;
}

struct cftype g_files[4];

void setup_policy()
{
	g_pol = blkcg_policy{};
	g_pol.cpd_alloc_fn = t_cpd_alloc;
	g_pol.cpd_init_fn = t_cpd_init;
	g_pol.cpd_free_fn = t_cpd_free;
	g_pol.pd_alloc_fn = t_pd_alloc;
	g_pol.pd_init_fn = t_pd_init;
	g_pol.pd_online_fn = t_pd_online;
	g_pol.pd_offline_fn = t_pd_offline;
	g_pol.pd_free_fn = t_pd_free;
	g_pol.pd_stat_fn = t_pd_stat;
	for (auto &f : g_files)
		f = cftype{};
	strscpy(g_files[0].name, "test.weight", MAX_CFTYPE_NAME);
	g_files[0].seq_show = t_weight_show;
	g_files[0].write = t_weight_write;
	strscpy(g_files[1].name, "test.value", MAX_CFTYPE_NAME);
	g_files[1].flags = CFTYPE_NOT_ON_ROOT;
	g_files[1].seq_show = t_value_show;
	g_files[1].write = t_value_write;
	strscpy(g_files[2].name, "test.private", MAX_CFTYPE_NAME);
	g_files[2].private_ = 42;
	g_files[2].read_u64 = t_private_read;
	g_pol.dfl_cftypes = g_files;
}

class BlkcgTest : public SimTest {
protected:
	struct request_queue q {};
	struct gendisk disk {};

	void SetUp() override
	{
		SimTest::SetUp();
		g_ev.clear();
		g_fail_pd_for.clear();
		setup_policy();
		disk.major = 8;
		disk.first_minor = 0;
		strscpy(disk.disk_name, "sda", sizeof(disk.disk_name));
	}

	void TearDown() override
	{
		sim_quiesce();
		SimTest::TearDown();
	}

	void init_queue() { ASSERT_EQ(sim_queue_init(&q, &disk), 0); }

	std::string read(struct blkcg *b, const char *file)
	{
		int err;
		char *s = sim_cgroup_read(b, file, &err);
		if (!s)
			return "error " + std::to_string(err);
		std::string out(s);
		std::free(s);
		return out;
	}

	std::vector<std::string> take()
	{
		std::vector<std::string> ev = std::move(g_ev);
		g_ev.clear();
		return ev;
	}
};

using V = std::vector<std::string>;

TEST_F(BlkcgTest, RegisterAllocatesCpdsRootFirst)
{
	struct blkcg *a = sim_blkcg_create(nullptr, "a");
	ASSERT_NE(a, nullptr);
	ASSERT_EQ(blkcg_policy_register(&g_pol), 0);
	EXPECT_EQ(take(), (V{"cpd_alloc", "cpd_init root", "cpd_alloc", "cpd_init a"}));
	struct blkcg *b = sim_blkcg_create(a, "b");
	EXPECT_EQ(take(), (V{"cpd_alloc", "cpd_init b"}));
	EXPECT_EQ(cpd_to_blkcg(blkcg_to_cpd(b, &g_pol)), b);
	EXPECT_EQ(sim_blkcg_find(a, "b"), b);
	EXPECT_EQ(sim_blkcg_create(a, "b"), nullptr); // exists

	sim_blkcg_destroy(b);
	sim_blkcg_destroy(a);
	sim_quiesce();
	EXPECT_EQ(take(), (V{"cpd_free b", "cpd_free a"}));
	blkcg_policy_unregister(&g_pol);
	EXPECT_EQ(take(), (V{"cpd_free root"}));
}

TEST_F(BlkcgTest, ActivateDeactivateOrderAndLocks)
{
	ASSERT_EQ(blkcg_policy_register(&g_pol), 0);
	init_queue();
	struct blkcg *a = sim_blkcg_create(nullptr, "a");
	struct blkcg *b = sim_blkcg_create(a, "b");
	take();

	struct blkcg_gq *gb = sim_blkg_get(b, &q); // creates a's blkg, then b's
	ASSERT_NE(gb, nullptr);
	EXPECT_EQ(gb->blkcg, b);
	EXPECT_EQ(gb->parent->blkcg, a);
	EXPECT_EQ(gb->parent->parent, q.root_blkg);
	EXPECT_TRUE(take().empty()); // policy not active on q yet

	ASSERT_EQ(blkcg_activate_policy(&q, &g_pol), 0);
	EXPECT_EQ(take(),
		  (V{"pd_alloc root nowait", "pd_init root", "pd_online root", "pd_alloc a nowait",
		     "pd_init a", "pd_online a", "pd_alloc b nowait", "pd_init b", "pd_online b"}));
	EXPECT_EQ(blkcg_activate_policy(&q, &g_pol), 0); // already: nothing
	EXPECT_TRUE(take().empty());
	EXPECT_EQ(pd_to_blkg(blkg_to_pd(gb, &g_pol)), gb);

	struct blkcg *c = sim_blkcg_create(nullptr, "c");
	struct blkcg_gq *gc = sim_blkg_get(c, &q);
	EXPECT_EQ(take(),
		  (V{"cpd_alloc", "cpd_init c", "pd_alloc c nowait", "pd_init c", "pd_online c"}));

	blkcg_deactivate_policy(&q, &g_pol);
	EXPECT_EQ(take(), (V{"pd_offline c", "pd_free c", "pd_offline b", "pd_free b",
			     "pd_offline a", "pd_free a", "pd_offline root", "pd_free root"}));
	EXPECT_EQ(blkg_to_pd(gb, &g_pol), nullptr);

	sim_blkg_put(gb);
	sim_blkg_put(gc);
	sim_blkcg_destroy(c);
	sim_blkcg_destroy(b);
	sim_blkcg_destroy(a);
	sim_queue_exit(&q);
	sim_quiesce();
	blkcg_policy_unregister(&g_pol);
	EXPECT_EQ(sim_slab_live(), live_at_start_);
}

TEST_F(BlkcgTest, RmdirOfflinesNowFreesAfterLastReference)
{
	ASSERT_EQ(blkcg_policy_register(&g_pol), 0);
	init_queue();
	ASSERT_EQ(blkcg_activate_policy(&q, &g_pol), 0);
	struct blkcg *a = sim_blkcg_create(nullptr, "a");
	struct blkcg_gq *ga = sim_blkg_get(a, &q);
	take();

	sim_blkcg_destroy(a);
	EXPECT_EQ(take(), (V{"pd_offline a"}));
	EXPECT_FALSE(ga->online);
	EXPECT_EQ(sim_blkcg_find(nullptr, "a"), nullptr);
	sim_quiesce();
	EXPECT_TRUE(take().empty()); // the test still holds ga
	EXPECT_EQ(ga->blkcg, a);

	sim_blkg_put(ga);
	EXPECT_TRUE(take().empty()); // freed at a safe point, not in the put
	sim_quiesce();
	EXPECT_EQ(take(), (V{"pd_free a", "cpd_free a"}));

	blkcg_deactivate_policy(&q, &g_pol);
	sim_queue_exit(&q);
	blkcg_policy_unregister(&g_pol);
}

TEST_F(BlkcgTest, RmdirWithChildrenWarns)
{
	struct blkcg *a = sim_blkcg_create(nullptr, "a");
	struct blkcg *b = sim_blkcg_create(a, "b");
	sim_blkcg_destroy(a);
	ExpectWarnings(1);
	EXPECT_EQ(sim_blkcg_find(nullptr, "a"), a);
	sim_blkcg_destroy(b);
	sim_blkcg_destroy(a);
}

TEST_F(BlkcgTest, QueueExitOfflinesEveryBlkg)
{
	ASSERT_EQ(blkcg_policy_register(&g_pol), 0);
	init_queue();
	ASSERT_EQ(blkcg_activate_policy(&q, &g_pol), 0);
	struct blkcg *a = sim_blkcg_create(nullptr, "a");
	sim_blkg_put(sim_blkg_get(a, &q));
	take();
	// (Without exit_sched deactivating first, pds go with their blkgs.)
	sim_queue_exit(&q);
	EXPECT_EQ(take(), (V{"pd_offline a", "pd_offline root"}));
	EXPECT_EQ(q.root_blkg, nullptr);
	sim_quiesce();
	EXPECT_EQ(take(), (V{"pd_free a", "pd_free root"}));
	sim_blkcg_destroy(a);
	sim_quiesce();
	blkcg_policy_unregister(&g_pol);
}

TEST_F(BlkcgTest, ActivateRetriesWithGfpKernel)
{
	ASSERT_EQ(blkcg_policy_register(&g_pol), 0);
	init_queue();
	take();
	sim_slab_fail_nowait(true);
	ASSERT_EQ(blkcg_activate_policy(&q, &g_pol), 0);
	EXPECT_EQ(take(), (V{"pd_alloc root nowait", "pd_alloc root kernel", "pd_init root",
			     "pd_online root"}));
	sim_slab_fail_nowait(false);
	blkcg_deactivate_policy(&q, &g_pol);
	sim_queue_exit(&q);
	blkcg_policy_unregister(&g_pol);
}

TEST_F(BlkcgTest, ActivateFailureUndoesEverything)
{
	ASSERT_EQ(blkcg_policy_register(&g_pol), 0);
	init_queue();
	struct blkcg *a = sim_blkcg_create(nullptr, "a");
	sim_blkg_put(sim_blkg_get(a, &q));
	take();
	// root's pd succeeds; a's NOWAIT and then GFP_KERNEL attempts fail.
	g_fail_pd_for = "a";
	EXPECT_EQ(blkcg_activate_policy(&q, &g_pol), 0 - ENOMEM);
	EXPECT_EQ(take(),
		  (V{"pd_alloc root nowait", "pd_init root", "pd_online root", "pd_alloc a nowait",
		     "pd_alloc a kernel", "pd_offline root", "pd_free root"}));
	EXPECT_EQ(blkg_to_pd(q.root_blkg, &g_pol), nullptr);
	sim_blkcg_destroy(a);
	sim_queue_exit(&q);
	sim_quiesce();
	blkcg_policy_unregister(&g_pol);
}

TEST_F(BlkcgTest, BlkgCreationFailureFallsBackToClosestAncestor)
{
	init_queue();
	struct blkcg *a = sim_blkcg_create(nullptr, "a");
	struct blkcg *b = sim_blkcg_create(a, "b");
	struct blkcg_gq *ga = sim_blkg_get(a, &q);
	sim_slab_fail_nowait(true);
	struct blkcg_gq *g = sim_blkg_get(b, &q);
	sim_slab_fail_nowait(false);
	EXPECT_EQ(g, ga);
	sim_blkg_put(g);
	sim_blkg_put(ga);
	rcu_read_lock();
	EXPECT_EQ(blkg_lookup(b, &q), nullptr);
	EXPECT_EQ(blkg_lookup(a, &q), ga);
	EXPECT_EQ(blkg_lookup(&blkcg_root, &q), q.root_blkg);
	rcu_read_unlock();
	sim_blkcg_destroy(b);
	sim_blkcg_destroy(a);
	sim_queue_exit(&q);
}

TEST_F(BlkcgTest, BlkgListsAndPaths)
{
	init_queue();
	struct blkcg *a = sim_blkcg_create(nullptr, "a");
	struct blkcg *b = sim_blkcg_create(a, "b");
	struct blkcg_gq *gb = sim_blkg_get(b, &q);
	char path[64];
	EXPECT_EQ(blkg_path(gb, path, sizeof(path)), 4);
	EXPECT_STREQ(path, "/a/b");
	EXPECT_EQ(blkg_path(q.root_blkg, path, sizeof(path)), 1);
	EXPECT_STREQ(path, "/");
	EXPECT_STREQ(blkg_dev_name(gb), "8:0");
	int n = 0;
	struct blkcg_gq *pos;
	hlist_for_each_entry(pos, &b->blkg_list, blkcg_node)
		n++;
	EXPECT_EQ(n, 1);
	n = 0;
	list_for_each_entry(pos, &q.blkg_list, q_node)
		n++;
	EXPECT_EQ(n, 3);
	EXPECT_EQ(css_to_blkcg(b->css.parent), a);
	sim_blkg_put(gb);
	sim_blkcg_destroy(b);
	sim_blkcg_destroy(a);
	sim_queue_exit(&q);
}

TEST_F(BlkcgTest, CgroupFiles)
{
	ASSERT_EQ(blkcg_policy_register(&g_pol), 0);
	init_queue();
	ASSERT_EQ(blkcg_activate_policy(&q, &g_pol), 0);
	struct blkcg *a = sim_blkcg_create(nullptr, "a");

	EXPECT_TRUE(sim_cgroup_file_exists(a, "io.test.weight"));
	EXPECT_FALSE(sim_cgroup_file_exists(a, "io.nope"));
	EXPECT_FALSE(sim_cgroup_file_exists(&blkcg_root, "io.test.value")); // not on root
	EXPECT_EQ(read(&blkcg_root, "io.test.value"), "error -2");
	EXPECT_EQ(read(a, "io.test.weight"), "default 100\n");
	EXPECT_EQ(sim_cgroup_write(a, "io.test.weight", "300\n"), 4);
	EXPECT_EQ(read(a, "io.test.weight"), "default 300\n");
	EXPECT_EQ(sim_cgroup_write(a, "io.test.weight", "x"), -EINVAL);
	EXPECT_EQ(sim_cgroup_write(a, "io.nope", "1"), -ENOENT);
	EXPECT_EQ(read(a, "io.test.private"), "42\n");

	// MAJ:MIN lines go through blkg_conf_prep(), which creates the blkg.
	EXPECT_EQ(read(a, "io.test.value"), "Total 0\n");
	EXPECT_EQ(sim_cgroup_write(a, "io.test.value", "8:0 55\n"), 7);
	EXPECT_EQ(read(a, "io.test.value"), "8:0 55\nTotal 55\n");
	EXPECT_EQ(sim_cgroup_write(a, "io.test.value", "8:1 5"), -ENODEV);
	EXPECT_EQ(sim_cgroup_write(a, "io.test.value", "9:0 5"), -ENODEV);
	EXPECT_EQ(sim_cgroup_write(a, "io.test.value", "8:0"), -EINVAL);
	EXPECT_EQ(sim_cgroup_write(a, "io.test.value", "sda 5"), -EINVAL);
	EXPECT_EQ(read(a, "io.stat"),
		  "8:0 rbytes=0 wbytes=0 rios=0 wios=0 dbytes=0 dios=0 test.value=55\n");

	blkcg_deactivate_policy(&q, &g_pol);
	EXPECT_EQ(sim_cgroup_write(a, "io.test.value", "8:0 5"), -EOPNOTSUPP);
	sim_blkcg_destroy(a);
	sim_queue_exit(&q);
	sim_quiesce();
	blkcg_policy_unregister(&g_pol);
	EXPECT_FALSE(sim_cgroup_file_exists(a == nullptr ? a : &blkcg_root, "io.test.weight"));
}

TEST_F(BlkcgTest, CftypeNameCollisionWarns)
{
	strscpy(g_files[0].name, "weight", MAX_CFTYPE_NAME); // io.weight is iocost's
	ASSERT_EQ(blkcg_policy_register(&g_pol), 0);
	ExpectWarnings(1);
	blkcg_policy_unregister(&g_pol);
}

TEST_F(BlkcgTest, TaskCss)
{
	struct blkcg *a = sim_blkcg_create(nullptr, "a");
	EXPECT_EQ(task_css(current, io_cgrp_id), &blkcg_root.css);
	sim_current_set_io_css(&a->css);
	EXPECT_EQ(css_to_blkcg(task_css(current, io_cgrp_id)), a);
	sim_current_set_io_css(nullptr);
	struct bio bio {};
	EXPECT_EQ(bio_blkcg_css(&bio), blkcg_root_css);
	sim_blkcg_destroy(a);
}

} // namespace
