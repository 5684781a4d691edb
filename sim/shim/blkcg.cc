// SPDX-License-Identifier: GPL-2.0
// efqsim: blkcg -- the io controller's cgroups, the blkgs of each
// (cgroup, queue) pair, policy registration and activation, and the
// cgroup files of policies.  Locking and callback order follow 6.1's
// block/blk-cgroup.c (see the comment in sim/include/blk-cgroup.h).
//
// Kind: kernel behaviour (6.1's block/blk-cgroup.c order of callbacks and locks)
// Exceptions: the sim_* hierarchy, cgroup file and disk calls are the sim's (simulation)

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "internal.h"

extern "C" {
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/rculist.h>
#include <linux/blkdev.h>
#include "blk-cgroup.h"
#include <sim/blkcg.h>
#include <sim/kernel.h>
}

struct cgroup {
	struct blkcg *blkcg;
};

namespace {

// A non-root blkcg with the parts the kernel keeps in struct cgroup.
struct sim_blkcg {
	struct blkcg blkcg;
	struct cgroup cgroup;
	struct rcu_head rcu;
	struct work_struct free_work;
};

struct blkcg_policy *g_policies[BLKCG_MAX_POLS];
LIST_HEAD(g_all_blkcgs);
struct cgroup g_root_cgroup;
int g_next_css_id = 2;
int g_next_queue_id;
std::vector<gendisk *> g_disks;

// What the driver's open (blkdev_get_by_dev) does to a disk.
struct disk_open_state {
	int error;	       // the driver's open fails with this (0: succeeds)
	unsigned long calls;   // times the driver's open ran
	unsigned long holders; // opens not yet put
};
std::map<const gendisk *, disk_open_state> g_disk_opens;

void (*g_create_hook)(struct blkcg_gq *, void *);
void *g_create_hook_arg;

gendisk *find_disk(dev_t dev)
{
	for (gendisk *d : g_disks)
		if (disk_devt(d) == dev)
			return d;
	return nullptr;
}

// Files other controllers own on Debian's 6.1 (a policy cftype with one of
// these names would break cgroup creation there): io.weight is iocost's
// (CONFIG_BLK_CGROUP_IOCOST=y), the bfq names bfq.ko's, blkio.reset_stats
// the v1 core's.
const char *const g_foreign_files[] = {"io.stat",
				       "io.weight",
				       "io.cost.qos",
				       "io.cost.model",
				       "io.latency",
				       "io.max",
				       "io.prio.class",
				       "io.pressure",
				       "io.bfq.weight",
				       "blkio.bfq.weight",
				       "blkio.bfq.weight_device",
				       "blkio.reset_stats",
				       nullptr};

void ensure_root()
{
	static bool done;
	if (done)
		return;
	done = true;
	blkcg *r = &blkcg_root;
	std::strcpy(r->sim_name, "");
	spin_lock_init(&r->lock);
	refcount_set(&r->online_pin, 1);
	INIT_HLIST_HEAD(&r->blkg_list);
	list_add_tail(&r->all_blkcgs_node, &g_all_blkcgs);
	r->css.id = 1;
	r->css.flags = CSS_ONLINE;
	r->css.refcnt.count = 1; // never killed: a percpu_ref in percpu mode
	INIT_LIST_HEAD(&r->css.sibling);
	INIT_LIST_HEAD(&r->css.children);
	g_root_cgroup.blkcg = r;
	r->css.cgroup = &g_root_cgroup;
}

blkcg *blkcg_parent(blkcg *b)
{
	return css_to_blkcg(b->css.parent);
}

bool policy_enabled(request_queue *q, const blkcg_policy *pol)
{
	return pol && test_bit(pol->plid, q->blkcg_pols);
}

/* ---- blkg life cycle ---- */

void free_pds(blkcg_gq *blkg)
{
	for (int i = 0; i < BLKCG_MAX_POLS; i++) {
		if (!blkg->pd[i])
			continue;
		if (WARN(!g_policies[i], "blkg freed after its policy %d was unregistered\n", i))
			continue;
		g_policies[i]->pd_free_fn(blkg->pd[i]);
	}
}

void blkg_free_workfn(struct work_struct *work)
{
	blkcg_gq *blkg = container_of(work, blkcg_gq, free_work);

	free_pds(blkg);
	if (blkg->parent)
		blkg_put(blkg->parent);
	percpu_ref_exit(&blkg->refcnt);
	kfree(blkg);
}

void blkg_free(blkcg_gq *blkg)
{
	INIT_WORK(&blkg->free_work, blkg_free_workfn);
	schedule_work(&blkg->free_work);
}

void __blkg_release(struct rcu_head *rcu)
{
	blkcg_gq *blkg = container_of(rcu, blkcg_gq, rcu_head);
	css_put(&blkg->blkcg->css);
	blkg_free(blkg);
}

void blkg_release(struct percpu_ref *ref)
{
	blkcg_gq *blkg = container_of(ref, blkcg_gq, refcnt);
	call_rcu(&blkg->rcu_head, __blkg_release);
}

// Free a blkg that never went live (no css reference taken yet).
void blkg_free_unborn(blkcg_gq *blkg)
{
	free_pds(blkg);
	percpu_ref_exit(&blkg->refcnt);
	kfree(blkg);
}

blkcg_gq *blkg_alloc(blkcg *b, request_queue *q, gfp_t gfp)
{
	auto *blkg = static_cast<blkcg_gq *>(kzalloc_node(sizeof(blkcg_gq), gfp, q->node));
	if (!blkg)
		return nullptr;
	if (percpu_ref_init(&blkg->refcnt, blkg_release, 0, gfp)) {
		kfree(blkg);
		return nullptr;
	}
	blkg->q = q;
	INIT_LIST_HEAD(&blkg->q_node);
	INIT_HLIST_NODE(&blkg->blkcg_node);
	blkg->blkcg = b;
	for (int i = 0; i < BLKCG_MAX_POLS; i++) {
		blkcg_policy *pol = g_policies[i];
		if (!policy_enabled(q, pol))
			continue;
		blkg_policy_data *pd = pol->pd_alloc_fn(gfp, q, b);
		if (!pd) {
			blkg_free_unborn(blkg);
			return nullptr;
		}
		blkg->pd[i] = pd;
		pd->blkg = blkg;
		pd->plid = i;
	}
	return blkg;
}

// Create the blkg of (@b, @q) from @new_blkg (preallocated, or NULL to
// allocate with GFP_NOWAIT); the parent's blkg must exist.  Queue lock held.
blkcg_gq *blkg_create(blkcg *b, request_queue *q, blkcg_gq *new_blkg)
{
	lockdep_assert_held(&q->queue_lock);

	if (blk_queue_dying(q) || q->sim_dying || !css_tryget_online(&b->css)) {
		if (new_blkg)
			blkg_free_unborn(new_blkg);
		return static_cast<blkcg_gq *>(ERR_PTR(-ENODEV));
	}
	blkcg_gq *blkg = new_blkg ? new_blkg : blkg_alloc(b, q, GFP_NOWAIT | __GFP_NOWARN);
	if (!blkg) {
		css_put(&b->css);
		return static_cast<blkcg_gq *>(ERR_PTR(-ENOMEM));
	}
	if (blkcg_parent(b)) {
		blkg->parent = blkg_lookup(blkcg_parent(b), q);
		if (WARN_ON_ONCE(!blkg->parent)) {
			css_put(&b->css);
			blkg_free_unborn(blkg);
			return static_cast<blkcg_gq *>(ERR_PTR(-ENODEV));
		}
		blkg_get(blkg->parent);
	}
	for (int i = 0; i < BLKCG_MAX_POLS; i++)
		if (blkg->pd[i] && g_policies[i]->pd_init_fn)
			g_policies[i]->pd_init_fn(blkg->pd[i]);

	// The window between pd_init_fn and the link into b->blkg_list, in
	// which another CPU (a cgroup file write) may walk the list.
	if (g_create_hook) {
		unsigned long flags = sim_local_irq_save(__FILE__, __LINE__);
		g_create_hook(blkg, g_create_hook_arg);
		sim_local_irq_restore(flags, __FILE__, __LINE__);
	}

	spin_lock(&b->lock);
	hlist_add_head_rcu(&blkg->blkcg_node, &b->blkg_list);
	list_add(&blkg->q_node, &q->blkg_list);
	for (int i = 0; i < BLKCG_MAX_POLS; i++) {
		if (!blkg->pd[i])
			continue;
		if (g_policies[i]->pd_online_fn)
			g_policies[i]->pd_online_fn(blkg->pd[i]);
		blkg->pd[i]->online = true;
	}
	blkg->online = true;
	spin_unlock(&b->lock);
	return blkg;
}

// Offline @blkg and drop the reference its creation held.  Both locks held.
void blkg_destroy(blkcg_gq *blkg)
{
	blkcg *b = blkg->blkcg;

	lockdep_assert_held(&blkg->q->queue_lock);
	lockdep_assert_held(&b->lock);
	WARN_ON_ONCE(list_empty(&blkg->q_node));
	WARN_ON_ONCE(hlist_unhashed(&blkg->blkcg_node));

	for (int i = 0; i < BLKCG_MAX_POLS; i++) {
		blkg_policy_data *pd = blkg->pd[i];
		if (pd && pd->online) {
			if (g_policies[i]->pd_offline_fn)
				g_policies[i]->pd_offline_fn(pd);
			pd->online = false;
		}
	}
	blkg->online = false;
	list_del_init(&blkg->q_node);
	hlist_del_init_rcu(&blkg->blkcg_node);
	if (rcu_access_pointer(b->blkg_hint) == blkg)
		rcu_assign_pointer(b->blkg_hint, nullptr);
	percpu_ref_kill(&blkg->refcnt);
}

void blkcg_destroy_blkgs(blkcg *b)
{
	might_sleep();
	spin_lock_irq(&b->lock);
	while (!hlist_empty(&b->blkg_list)) {
		blkcg_gq *blkg = hlist_entry(b->blkg_list.first, blkcg_gq, blkcg_node);
		request_queue *q = blkg->q;

		// The kernel trylocks (reverse lock order); nobody contends here.
		spin_lock(&q->queue_lock);
		blkg_destroy(blkg);
		spin_unlock(&q->queue_lock);
	}
	spin_unlock_irq(&b->lock);
}

// Lookup, else create walking down from the root (queue lock held).
blkcg_gq *lookup_create(blkcg *b, request_queue *q)
{
	blkcg_gq *blkg = blkg_lookup(b, q);
	if (blkg)
		return blkg;
	for (;;) {
		blkcg *pos = b;
		blkcg *parent = blkcg_parent(b);
		blkcg_gq *closest = q->root_blkg;

		while (parent) {
			blkg = blkg_lookup(parent, q);
			if (blkg) {
				closest = blkg;
				break;
			}
			pos = parent;
			parent = blkcg_parent(parent);
		}
		blkg = blkg_create(pos, q, nullptr);
		if (IS_ERR(blkg))
			return closest;
		if (pos == b)
			return blkg;
	}
}

/* ---- blkcg life cycle ---- */

void blkcg_free_workfn(struct work_struct *work)
{
	sim_blkcg *sb = container_of(work, sim_blkcg, free_work);
	blkcg *b = &sb->blkcg;
	blkcg *parent = blkcg_parent(b);

	list_del(&b->all_blkcgs_node);
	for (int i = 0; i < BLKCG_MAX_POLS; i++)
		if (b->cpd[i])
			g_policies[i]->cpd_free_fn(b->cpd[i]);
	list_del(&b->css.sibling);
	percpu_ref_exit(&b->css.refcnt);
	kfree(sb);
	if (parent)
		css_put(&parent->css);
}

void css_free_rcu(struct rcu_head *rcu)
{
	sim_blkcg *sb = container_of(rcu, sim_blkcg, rcu);
	INIT_WORK(&sb->free_work, blkcg_free_workfn);
	schedule_work(&sb->free_work);
}

// As the kernel's css release: free after a grace period, from a work item.
void css_release(struct percpu_ref *ref)
{
	cgroup_subsys_state *css = container_of(ref, cgroup_subsys_state, refcnt);
	sim_blkcg *sb = container_of(css_to_blkcg(css), sim_blkcg, blkcg);
	call_rcu(&sb->rcu, css_free_rcu);
}

bool alloc_cpd(blkcg *b, int plid, gfp_t gfp)
{
	blkcg_policy *pol = g_policies[plid];
	if (!pol || !pol->cpd_alloc_fn)
		return true;
	blkcg_policy_data *cpd = pol->cpd_alloc_fn(gfp);
	if (!cpd)
		return false;
	b->cpd[plid] = cpd;
	cpd->blkcg = b;
	cpd->plid = plid;
	if (pol->cpd_init_fn)
		pol->cpd_init_fn(cpd);
	return true;
}

/* ---- cgroup files ---- */

struct file_ref {
	cftype *cft;
	const blkcg_policy *pol;
};

bool file_applies(const cftype *cft, const blkcg *b)
{
	bool root = b == &blkcg_root;
	if (root && (cft->flags & CFTYPE_NOT_ON_ROOT))
		return false;
	if (!root && (cft->flags & CFTYPE_ONLY_ON_ROOT))
		return false;
	return true;
}

std::string file_name(const cftype *cft, bool dfl)
{
	if (cft->flags & CFTYPE_NO_PREFIX)
		return cft->name;
	return std::string(dfl ? "io." : "blkio.") + cft->name;
}

// The policy cftype called @file, or {nullptr, nullptr}; @skip is ignored
// (used to check a policy against the others).
file_ref find_file(const char *file, const blkcg_policy *skip = nullptr)
{
	for (blkcg_policy *pol : g_policies) {
		if (!pol || pol == skip)
			continue;
		for (int dfl = 1; dfl >= 0; dfl--) {
			cftype *cfts = dfl ? pol->dfl_cftypes : pol->legacy_cftypes;
			for (cftype *cft = cfts; cft && cft->name[0]; cft++)
				if (file_name(cft, dfl) == file)
					return {cft, pol};
		}
	}
	return {nullptr, nullptr};
}

void print_io_stat(seq_file *sf, blkcg *b)
{
	blkcg_gq *blkg;

	rcu_read_lock();
	hlist_for_each_entry_rcu(blkg, &b->blkg_list, blkcg_node)
	{
		const char *dname = blkg_dev_name(blkg);
		if (!dname)
			continue;
		const blkg_iostat &st = blkg->iostat.cur;
		seq_printf(sf,
			   "%s rbytes=%llu wbytes=%llu rios=%llu wios=%llu dbytes=%llu dios=%llu",
			   dname, st.bytes[BLKG_IOSTAT_READ], st.bytes[BLKG_IOSTAT_WRITE],
			   st.ios[BLKG_IOSTAT_READ], st.ios[BLKG_IOSTAT_WRITE],
			   st.bytes[BLKG_IOSTAT_DISCARD], st.ios[BLKG_IOSTAT_DISCARD]);
		spin_lock_irq(&blkg->q->queue_lock);
		for (int i = 0; i < BLKCG_MAX_POLS; i++)
			if (g_policies[i] && blkg->pd[i] && g_policies[i]->pd_stat_fn)
				g_policies[i]->pd_stat_fn(blkg->pd[i], sf);
		spin_unlock_irq(&blkg->q->queue_lock);
		seq_putc(sf, '\n');
	}
	rcu_read_unlock();
}

} // namespace

extern "C" {

struct blkcg blkcg_root;
struct cgroup_subsys_state *const blkcg_root_css = &blkcg_root.css;
bool blkcg_debug_stats;

struct cgroup_subsys_state *bio_blkcg_css(struct bio *bio)
{
	ensure_root();
	if (!bio || !bio->bi_blkg)
		return &blkcg_root.css;
	return &bio->bi_blkg->blkcg->css;
}

struct cgroup_subsys_state *sim_task_io_css(struct task_struct *task)
{
	ensure_root();
	return task->sim_io_css ? task->sim_io_css : &blkcg_root.css;
}

struct cgroup_subsys_state *of_css(struct kernfs_open_file *of)
{
	return of->sim_css;
}

struct cftype *seq_cft(struct seq_file *seq)
{
	return of_cft(static_cast<kernfs_open_file *>(seq->private_));
}

struct cgroup_subsys_state *seq_css(struct seq_file *seq)
{
	return of_css(static_cast<kernfs_open_file *>(seq->private_));
}

int cgroup_path(struct cgroup *cgrp, char *buf, size_t buflen)
{
	std::string path;
	for (blkcg *b = cgrp->blkcg; b && b != &blkcg_root; b = blkcg_parent(b))
		path = "/" + std::string(b->sim_name) + path;
	if (path.empty())
		path = "/";
	if (buflen)
		snprintf(buf, buflen, "%s", path.c_str());
	return (int)path.size();
}

void blkcg_pin_online(struct cgroup_subsys_state *blkcg_css)
{
	refcount_inc(&css_to_blkcg(blkcg_css)->online_pin);
}

void blkcg_unpin_online(struct cgroup_subsys_state *blkcg_css)
{
	blkcg *b = css_to_blkcg(blkcg_css);
	do {
		if (!refcount_dec_and_test(&b->online_pin))
			break;
		blkcg *parent = blkcg_parent(b);
		blkcg_destroy_blkgs(b);
		b = parent;
	} while (b);
}

/* ---- policies ---- */

int blkcg_policy_register(struct blkcg_policy *pol)
{
	might_sleep();
	ensure_root();
	int i;
	for (i = 0; i < BLKCG_MAX_POLS; i++)
		if (!g_policies[i])
			break;
	if (i >= BLKCG_MAX_POLS) {
		pr_warn("blkcg_policy_register: BLKCG_MAX_POLS too small\n");
		return -ENOSPC;
	}
	if ((!pol->cpd_alloc_fn ^ !pol->cpd_free_fn) || (!pol->pd_alloc_fn ^ !pol->pd_free_fn))
		return -ENOSPC;
	pol->plid = i;
	g_policies[i] = pol;

	blkcg *b;
	list_for_each_entry(b, &g_all_blkcgs, all_blkcgs_node) {
		if (!alloc_cpd(b, i, GFP_KERNEL)) {
			list_for_each_entry(b, &g_all_blkcgs, all_blkcgs_node) {
				if (b->cpd[i]) {
					pol->cpd_free_fn(b->cpd[i]);
					b->cpd[i] = nullptr;
				}
			}
			g_policies[i] = nullptr;
			return -ENOMEM;
		}
	}
	// Adding cftypes fails in the kernel on a name another file has.
	for (int dfl = 1; dfl >= 0; dfl--) {
		cftype *cfts = dfl ? pol->dfl_cftypes : pol->legacy_cftypes;
		for (cftype *cft = cfts; cft && cft->name[0]; cft++) {
			std::string name = file_name(cft, dfl);
			bool taken = find_file(name.c_str(), pol).cft != nullptr;
			for (const char *const *f = g_foreign_files; *f && !taken; f++)
				taken = name == *f;
			WARN(taken, "blkcg_policy_register: cgroup file %s already exists\n",
			     name.c_str());
		}
	}
	return 0;
}

void blkcg_policy_unregister(struct blkcg_policy *pol)
{
	if (WARN_ON(pol->plid < 0 || pol->plid >= BLKCG_MAX_POLS || g_policies[pol->plid] != pol))
		return;
	if (pol->cpd_free_fn) {
		blkcg *b;
		list_for_each_entry(b, &g_all_blkcgs, all_blkcgs_node) {
			if (b->cpd[pol->plid]) {
				pol->cpd_free_fn(b->cpd[pol->plid]);
				b->cpd[pol->plid] = nullptr;
			}
		}
	}
	g_policies[pol->plid] = nullptr;
}

int blkcg_activate_policy(struct request_queue *q, const struct blkcg_policy *pol)
{
	blkg_policy_data *pd_prealloc = nullptr;
	blkcg_gq *blkg, *pinned_blkg = nullptr;
	int ret = 0;

	if (policy_enabled(q, pol))
		return 0;
	blk_mq_freeze_queue(q);
retry:
	spin_lock_irq(&q->queue_lock);
	// q->blkg_list has the newest first: walk it backwards, parents first.
	list_for_each_entry_reverse(blkg, &q->blkg_list, q_node) {
		blkg_policy_data *pd;

		if (blkg->pd[pol->plid])
			continue;
		if (hlist_unhashed(&blkg->blkcg_node))
			continue;
		if (blkg == pinned_blkg) {
			pd = pd_prealloc;
			pd_prealloc = nullptr;
		} else {
			pd = pol->pd_alloc_fn(GFP_NOWAIT | __GFP_NOWARN, q, blkg->blkcg);
		}
		if (!pd) {
			// Retry this blkg with a sleeping allocation, unlocked.
			if (pinned_blkg)
				blkg_put(pinned_blkg);
			blkg_get(blkg);
			pinned_blkg = blkg;
			spin_unlock_irq(&q->queue_lock);
			if (pd_prealloc)
				pol->pd_free_fn(pd_prealloc);
			pd_prealloc = pol->pd_alloc_fn(GFP_KERNEL, q, blkg->blkcg);
			if (pd_prealloc)
				goto retry;
			goto enomem;
		}
		spin_lock(&blkg->blkcg->lock);
		pd->blkg = blkg;
		pd->plid = pol->plid;
		blkg->pd[pol->plid] = pd;
		if (pol->pd_init_fn)
			pol->pd_init_fn(pd);
		if (pol->pd_online_fn)
			pol->pd_online_fn(pd);
		pd->online = true;
		spin_unlock(&blkg->blkcg->lock);
	}
	__set_bit(pol->plid, q->blkcg_pols);
	spin_unlock_irq(&q->queue_lock);
out:
	blk_mq_unfreeze_queue(q);
	if (pinned_blkg)
		blkg_put(pinned_blkg);
	if (pd_prealloc)
		pol->pd_free_fn(pd_prealloc);
	return ret;

enomem:
	spin_lock_irq(&q->queue_lock);
	list_for_each_entry(blkg, &q->blkg_list, q_node) {
		blkcg *b = blkg->blkcg;
		spin_lock(&b->lock);
		blkg_policy_data *pd = blkg->pd[pol->plid];
		if (pd) {
			if (pd->online && pol->pd_offline_fn)
				pol->pd_offline_fn(pd);
			pd->online = false;
			pol->pd_free_fn(pd);
			blkg->pd[pol->plid] = nullptr;
		}
		spin_unlock(&b->lock);
	}
	spin_unlock_irq(&q->queue_lock);
	ret = -ENOMEM;
	goto out;
}

void blkcg_deactivate_policy(struct request_queue *q, const struct blkcg_policy *pol)
{
	blkcg_gq *blkg;

	if (!policy_enabled(q, pol))
		return;
	blk_mq_freeze_queue(q);
	spin_lock_irq(&q->queue_lock);
	__clear_bit(pol->plid, q->blkcg_pols);
	list_for_each_entry(blkg, &q->blkg_list, q_node) {
		blkcg *b = blkg->blkcg;
		spin_lock(&b->lock);
		if (blkg->pd[pol->plid]) {
			if (blkg->pd[pol->plid]->online && pol->pd_offline_fn)
				pol->pd_offline_fn(blkg->pd[pol->plid]);
			pol->pd_free_fn(blkg->pd[pol->plid]);
			blkg->pd[pol->plid] = nullptr;
		}
		spin_unlock(&b->lock);
	}
	spin_unlock_irq(&q->queue_lock);
	blk_mq_unfreeze_queue(q);
}

/* ---- printing and configuration helpers for cgroup files ---- */

const char *blkg_dev_name(struct blkcg_gq *blkg)
{
	if (!blkg->q->disk || !blkg->q->disk->sim_devname[0])
		return nullptr;
	return blkg->q->disk->sim_devname;
}

void blkcg_print_blkgs(struct seq_file *sf, struct blkcg *blkcg,
		       u64 (*prfill)(struct seq_file *, struct blkg_policy_data *, int),
		       const struct blkcg_policy *pol, int data, bool show_total)
{
	blkcg_gq *blkg;
	u64 total = 0;

	rcu_read_lock();
	hlist_for_each_entry_rcu(blkg, &blkcg->blkg_list, blkcg_node)
	{
		spin_lock_irq(&blkg->q->queue_lock);
		if (policy_enabled(blkg->q, pol))
			total += prfill(sf, blkg->pd[pol->plid], data);
		spin_unlock_irq(&blkg->q->queue_lock);
	}
	rcu_read_unlock();
	if (show_total)
		seq_printf(sf, "Total %llu\n", (unsigned long long)total);
}

u64 __blkg_prfill_u64(struct seq_file *sf, struct blkg_policy_data *pd, u64 v)
{
	const char *dname = blkg_dev_name(pd->blkg);
	if (!dname)
		return 0;
	seq_printf(sf, "%s %llu\n", dname, (unsigned long long)v);
	return v;
}

// As 6.1's: blkdev_get_no_open() (a reference, no open: the driver's open
// does not run) of a live whole disk; blkdev_put_no_open() undoes it.
struct block_device *blkcg_conf_open_bdev(char **inputp)
{
	char *input = *inputp;
	unsigned int major, minor;
	int key_len;

	if (sscanf(input, "%u:%u%n", &major, &minor, &key_len) != 2)
		return static_cast<block_device *>(ERR_PTR(-EINVAL));
	input += key_len;
	if (!isspace((unsigned char)*input))
		return static_cast<block_device *>(ERR_PTR(-EINVAL));
	input = skip_spaces(input);

	gendisk *disk = find_disk(MKDEV(major, minor));
	if (!disk) // no such disk, or a partition (the sim has none)
		return static_cast<block_device *>(ERR_PTR(-ENODEV));
	*inputp = input;
	return disk->part0;
}

// On success returns 0 with rcu_read_lock() and the queue lock (irqs off)
// held, released by blkg_conf_finish().
int blkg_conf_prep(struct blkcg *blkcg, const struct blkcg_policy *pol, char *input,
		   struct blkg_conf_ctx *ctx)
{
	block_device *bdev = blkcg_conf_open_bdev(&input);
	if (IS_ERR(bdev))
		return (int)PTR_ERR(bdev);
	request_queue *q = bdev_get_queue(bdev);
	int ret;

	rcu_read_lock();
	spin_lock_irq(&q->queue_lock);
	if (!policy_enabled(q, pol)) {
		ret = -EOPNOTSUPP;
		goto fail_unlock;
	}
	{
		blkcg_gq *blkg = blkg_lookup(blkcg, q);
		if (!blkg) {
			// Create it and its missing ancestors, as the kernel does
			// (it preallocates with GFP_KERNEL outside the lock).
			for (;;) {
				struct blkcg *pos = blkcg;
				struct blkcg *parent = blkcg_parent(blkcg);
				while (parent && !blkg_lookup(parent, q)) {
					pos = parent;
					parent = blkcg_parent(parent);
				}
				// Drop the locks to allocate with GFP_KERNEL.
				spin_unlock_irq(&q->queue_lock);
				rcu_read_unlock();
				blkcg_gq *new_blkg = blkg_alloc(pos, q, GFP_KERNEL);
				rcu_read_lock();
				spin_lock_irq(&q->queue_lock);
				if (!new_blkg) {
					ret = -ENOMEM;
					goto fail_unlock;
				}
				if (!policy_enabled(q, pol)) {
					blkg_free_unborn(new_blkg);
					ret = -EOPNOTSUPP;
					goto fail_unlock;
				}
				blkg = blkg_lookup(pos, q);
				if (blkg) {
					blkg_free_unborn(new_blkg);
				} else {
					blkg = blkg_create(pos, q, new_blkg);
					if (IS_ERR(blkg)) {
						ret = (int)PTR_ERR(blkg);
						goto fail_unlock;
					}
				}
				if (pos == blkcg)
					break;
			}
		}
		ctx->bdev = bdev;
		ctx->blkg = blkg;
		ctx->body = input;
	}
	return 0;

fail_unlock:
	spin_unlock_irq(&q->queue_lock);
	rcu_read_unlock();
	return ret; // blkdev_put_no_open()
}

void blkg_conf_finish(struct blkg_conf_ctx *ctx)
{
	spin_unlock_irq(&bdev_get_queue(ctx->bdev)->queue_lock);
	rcu_read_unlock();
	// blkdev_put_no_open()
}

/* ---- disks ---- */

// An open: the driver's open runs (it may fail, or spin the disk up, load
// a medium, ...); every successful open needs its blkdev_put().
struct block_device *blkdev_get_by_dev(dev_t dev, fmode_t /*mode*/, void * /*holder*/)
{
	might_sleep();
	gendisk *d = find_disk(dev);
	if (!d)
		return static_cast<block_device *>(ERR_PTR(-ENXIO));
	disk_open_state &st = g_disk_opens[d];
	st.calls++;
	if (st.error)
		return static_cast<block_device *>(ERR_PTR(st.error));
	st.holders++;
	return d->part0;
}

void blkdev_put(struct block_device *bdev, fmode_t /*mode*/)
{
	disk_open_state &st = g_disk_opens[bdev->bd_disk];
	if (WARN(!st.holders, "blkdev_put: %s is not open\n", bdev->bd_disk->sim_devname))
		return;
	st.holders--;
}

/* ---- sim API ---- */

struct blkcg *sim_blkcg_create(struct blkcg *parent, const char *name)
{
	ensure_root();
	if (!parent)
		parent = &blkcg_root;
	if (!(parent->css.flags & CSS_ONLINE) || !name || !name[0] ||
	    std::strlen(name) >= sizeof(parent->sim_name) || sim_blkcg_find(parent, name))
		return nullptr;

	auto *sb = static_cast<sim_blkcg *>(kzalloc(sizeof(sim_blkcg), GFP_KERNEL));
	if (!sb)
		return nullptr;
	blkcg *b = &sb->blkcg;
	if (percpu_ref_init(&b->css.refcnt, css_release, 0, GFP_KERNEL)) {
		kfree(sb);
		return nullptr;
	}
	snprintf(b->sim_name, sizeof(b->sim_name), "%s", name);
	for (int i = 0; i < BLKCG_MAX_POLS; i++) {
		if (!alloc_cpd(b, i, GFP_KERNEL)) {
			for (int j = 0; j < i; j++)
				if (b->cpd[j])
					g_policies[j]->cpd_free_fn(b->cpd[j]);
			percpu_ref_exit(&b->css.refcnt);
			kfree(sb);
			return nullptr;
		}
	}
	spin_lock_init(&b->lock);
	refcount_set(&b->online_pin, 1);
	INIT_HLIST_HEAD(&b->blkg_list);
	list_add_tail(&b->all_blkcgs_node, &g_all_blkcgs);

	sb->cgroup.blkcg = b;
	b->css.cgroup = &sb->cgroup;
	b->css.parent = &parent->css;
	b->css.id = g_next_css_id++;
	b->css.serial_nr = (u64)b->css.id;
	INIT_LIST_HEAD(&b->css.children);
	list_add_tail(&b->css.sibling, &parent->css.children);
	css_get(&parent->css);
	b->css.flags = CSS_ONLINE;
	blkcg_pin_online(&parent->css); // css_online: offline towards the root
	return b;
}

void sim_blkcg_destroy(struct blkcg *blkcg)
{
	if (WARN(blkcg == &blkcg_root, "sim_blkcg_destroy: the root cgroup cannot go\n"))
		return;
	cgroup_subsys_state *child;
	list_for_each_entry(child, &blkcg->css.children, sibling) {
		if (WARN(child->flags & CSS_ONLINE, "sim_blkcg_destroy(%s): it has children\n",
			 blkcg->sim_name))
			return;
	}
	if (WARN(!(blkcg->css.flags & CSS_ONLINE), "sim_blkcg_destroy(%s): already gone\n",
		 blkcg->sim_name))
		return;
	blkcg->css.flags = (blkcg->css.flags & ~CSS_ONLINE) | CSS_DYING;
	blkcg_unpin_online(&blkcg->css); // css_offline
	percpu_ref_kill(&blkcg->css.refcnt);
}

struct blkcg *sim_blkcg_find(struct blkcg *parent, const char *name)
{
	ensure_root();
	if (!parent)
		parent = &blkcg_root;
	cgroup_subsys_state *pos;
	list_for_each_entry(pos, &parent->css.children, sibling) {
		blkcg *b = css_to_blkcg(pos);
		if ((b->css.flags & CSS_ONLINE) && !std::strcmp(b->sim_name, name))
			return b;
	}
	return nullptr;
}

int sim_queue_init(struct request_queue *q, struct gendisk *disk)
{
	ensure_root();
	q->disk = disk;
	disk->queue = q;
	spin_lock_init(&q->queue_lock);
	mutex_init(&q->sysfs_lock);
	INIT_LIST_HEAD(&q->icq_list);
	INIT_LIST_HEAD(&q->blkg_list);
	for (unsigned long &w : q->blkcg_pols)
		w = 0;
	q->id = g_next_queue_id++;
	snprintf(disk->sim_devname, sizeof(disk->sim_devname), "%u:%u", MAJOR(disk_devt(disk)),
		 MINOR(disk_devt(disk)));

	auto *bdev = static_cast<block_device *>(kzalloc(sizeof(block_device), GFP_KERNEL));
	if (!bdev)
		return -ENOMEM;
	bdev->bd_dev = disk_devt(disk);
	bdev->bd_disk = disk;
	bdev->bd_queue = q;
	disk->part0 = bdev;

	blkcg_gq *new_blkg = blkg_alloc(&blkcg_root, q, GFP_KERNEL);
	blkcg_gq *blkg = static_cast<blkcg_gq *>(ERR_PTR(-ENOMEM));
	if (new_blkg) {
		spin_lock_irq(&q->queue_lock);
		blkg = blkg_create(&blkcg_root, q, new_blkg);
		spin_unlock_irq(&q->queue_lock);
	}
	if (IS_ERR(blkg)) {
		kfree(bdev);
		disk->part0 = nullptr;
		return (int)PTR_ERR(blkg);
	}
	q->root_blkg = blkg;
	g_disks.push_back(disk);
	return 0;
}

void sim_queue_exit(struct request_queue *q)
{
	blkcg_gq *blkg, *n;

	might_sleep();
	spin_lock_irq(&q->queue_lock);
	list_for_each_entry_safe(blkg, n, &q->blkg_list, q_node) {
		blkcg *b = blkg->blkcg;
		if (hlist_unhashed(&blkg->blkcg_node))
			continue;
		spin_lock(&b->lock);
		blkg_destroy(blkg);
		spin_unlock(&b->lock);
	}
	for (int i = 0; i < BLKCG_MAX_POLS; i++)
		__clear_bit(i, q->blkcg_pols);
	q->root_blkg = nullptr;
	spin_unlock_irq(&q->queue_lock);

	gendisk *disk = q->disk;
	if (disk) {
		for (auto it = g_disks.begin(); it != g_disks.end(); ++it) {
			if (*it == disk) {
				g_disks.erase(it);
				break;
			}
		}
		auto st = g_disk_opens.find(disk);
		if (st != g_disk_opens.end()) {
			WARN(st->second.holders, "sim_queue_exit: %s is still open %lu time(s)\n",
			     disk->sim_devname, st->second.holders);
			g_disk_opens.erase(st);
		}
		kfree(disk->part0);
		disk->part0 = nullptr;
	}
}

void sim_disk_set_open_error(struct gendisk *disk, int err)
{
	g_disk_opens[disk].error = err;
}

unsigned long sim_disk_opens(struct gendisk *disk)
{
	auto st = g_disk_opens.find(disk);
	return st == g_disk_opens.end() ? 0 : st->second.calls;
}

void sim_blkcg_set_create_hook(void (*fn)(struct blkcg_gq *blkg, void *arg), void *arg)
{
	g_create_hook = fn;
	g_create_hook_arg = arg;
}

struct blkcg_gq *sim_blkg_get(struct blkcg *blkcg, struct request_queue *q)
{
	if (WARN(!q->root_blkg, "sim_blkg_get: queue without sim_queue_init()\n"))
		return nullptr;
	if (!blkcg)
		blkcg = &blkcg_root;
	rcu_read_lock();
	blkcg_gq *blkg = blkg_lookup(blkcg, q);
	if (!blkg) {
		unsigned long flags;
		spin_lock_irqsave(&q->queue_lock, flags);
		blkg = lookup_create(blkcg, q);
		if (blkcg != &blkcg_root && blkg->blkcg == blkcg)
			rcu_assign_pointer(blkcg->blkg_hint, blkg);
		spin_unlock_irqrestore(&q->queue_lock, flags);
	}
	blkg_get(blkg);
	rcu_read_unlock();
	return blkg;
}

void sim_blkg_put(struct blkcg_gq *blkg)
{
	blkg_put(blkg);
}

bool sim_cgroup_file_exists(struct blkcg *blkcg, const char *file)
{
	if (!std::strcmp(file, "io.stat"))
		return true;
	file_ref f = find_file(file);
	return f.cft && file_applies(f.cft, blkcg);
}

char *sim_cgroup_read(struct blkcg *blkcg, const char *file, int *err)
{
	seq_file sf{};
	kernfs_open_file of{};
	int ret = 0;

	ensure_root();
	of.seq_file = &sf;
	of.sim_css = &blkcg->css;
	sf.private_ = &of;
	if (!std::strcmp(file, "io.stat")) {
		print_io_stat(&sf, blkcg);
	} else {
		file_ref f = find_file(file);
		if (!f.cft || !file_applies(f.cft, blkcg)) {
			*err = -ENOENT;
			return nullptr;
		}
		of.cft = f.cft;
		if (f.cft->seq_show)
			ret = f.cft->seq_show(&sf, SEQ_START_TOKEN);
		else if (f.cft->read_u64)
			seq_printf(&sf, "%llu\n",
				   (unsigned long long)f.cft->read_u64(&blkcg->css, f.cft));
		else if (f.cft->read_s64)
			seq_printf(&sf, "%lld\n", (long long)f.cft->read_s64(&blkcg->css, f.cft));
		else
			ret = -EINVAL;
	}
	if (ret) {
		std::free(sf.buf);
		*err = ret;
		return nullptr;
	}
	*err = 0;
	return sf.buf ? sf.buf : strdup("");
}

ssize_t sim_cgroup_write(struct blkcg *blkcg, const char *file, const char *data)
{
	ensure_root();
	file_ref f = find_file(file);
	if (!f.cft || !file_applies(f.cft, blkcg))
		return -ENOENT;
	cftype *cft = f.cft;
	size_t nbytes = std::strlen(data);
	// cgroup core makes a max_write_len other than PAGE_SIZE kernfs's
	// atomic_write_len: a longer write is -E2BIG.  Without one, a write
	// is cut into pages; the sim takes a single page at most.
	if (cft->max_write_len && cft->max_write_len != PAGE_SIZE ? nbytes > cft->max_write_len
								  : nbytes >= PAGE_SIZE)
		return -E2BIG;

	std::string buf(data);
	kernfs_open_file of{};
	of.sim_css = &blkcg->css;
	of.cft = cft;
	ssize_t ret;
	if (cft->write) {
		ret = cft->write(&of, buf.data(), nbytes, 0);
	} else if (cft->write_u64) {
		unsigned long long v;
		ret = kstrtoull(buf.c_str(), 0, &v);
		if (!ret)
			ret = cft->write_u64(&blkcg->css, cft, v);
	} else if (cft->write_s64) {
		long long v;
		ret = kstrtoll(buf.c_str(), 0, &v);
		if (!ret)
			ret = cft->write_s64(&blkcg->css, cft, v);
	} else {
		ret = -EINVAL;
	}
	return ret ? ret : (ssize_t)nbytes;
}

} // extern "C"
