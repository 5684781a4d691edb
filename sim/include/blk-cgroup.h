/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim of block/blk-cgroup.h (6.1): blkcg, blkg and policy data,
 * policy (de)registration and (de)activation with the kernel's order of
 * callbacks and locks:
 *
 *  - blkcg_policy_register(): cpd_alloc_fn + cpd_init_fn for every blkcg,
 *    root first; blkcg_policy_unregister(): cpd_free_fn for each.
 *  - blkcg_activate_policy(q, pol): for each blkg of @q, parents first:
 *    pd_alloc_fn (GFP_NOWAIT under the queue lock, retried with GFP_KERNEL
 *    outside it), pd_init_fn, pd_online_fn -- init and online under the
 *    queue lock and the blkcg lock, interrupts off.
 *  - a new blkg (sim_blkg_get()): pd_alloc_fn for every policy enabled on
 *    its queue, pd_init_fn under the queue lock, pd_online_fn under both.
 *  - blkg destruction (cgroup removal, queue exit): pd_offline_fn under
 *    both locks; pd_free_fn after the last reference is gone and an RCU
 *    grace period has passed, from a work item (task context).
 *  - blkcg_deactivate_policy(q, pol): pd_offline_fn (if online) and
 *    pd_free_fn for each blkg of @q, children first, under both locks.
 *  - pd_free_fn of policy data that never saw pd_init_fn, as in 6.1: a
 *    blkg_alloc() whose later pd_alloc_fn fails, a blkg_create() that
 *    fails (dying queue or cgroup), a blkg_conf_prep() that finds the blkg
 *    created while it allocated (GFP_KERNEL, locks dropped: a sleep point,
 *    see sim_set_sleep_hook()), an unused preallocation of activation.
 *  - blkcg_conf_open_bdev()/blkg_conf_prep() take a reference on the disk
 *    without opening it (blkdev_get_no_open()); blkdev_get_by_dev() opens
 *    it and runs the driver's open (see sim_disk_set_open_error()).
 *
 * Kind: kernel behaviour (6.1's block/blk-cgroup.[ch]; 6.12's disk-based API not followed)
 * Exceptions: sim_name (the cgroup's name, for the sim's files) is the sim's
 */
#ifndef _SIM_BLK_CGROUP_PRIVATE_H
#define _SIM_BLK_CGROUP_PRIVATE_H

#include <linux/blk-cgroup.h>
#include <linux/cgroup.h>
#include <linux/blk-mq.h>
#include <linux/refcount.h>
#include <linux/rcupdate.h>
#include <linux/workqueue.h>

struct blkcg_gq;
struct blkg_policy_data;

enum blkg_iostat_type {
	BLKG_IOSTAT_READ,
	BLKG_IOSTAT_WRITE,
	BLKG_IOSTAT_DISCARD,
	BLKG_IOSTAT_NR,
};

struct blkg_iostat {
	u64 bytes[BLKG_IOSTAT_NR];
	u64 ios[BLKG_IOSTAT_NR];
};

struct blkg_iostat_set {
	struct blkg_iostat cur;
	struct blkg_iostat last;
};

/* association between a blk cgroup and a request queue */
struct blkcg_gq {
	struct request_queue *q;
	struct list_head q_node;
	struct hlist_node blkcg_node;
	struct blkcg *blkcg;
	struct blkcg_gq *parent;
	struct percpu_ref refcnt;
	bool online;
	struct blkg_iostat_set iostat;
	struct blkg_policy_data *pd[BLKCG_MAX_POLS];
	struct work_struct free_work;
	struct rcu_head rcu_head;
};

struct blkcg {
	struct cgroup_subsys_state css;
	spinlock_t lock;
	refcount_t online_pin;
	struct blkcg_gq *blkg_hint;
	struct hlist_head blkg_list;
	struct blkcg_policy_data *cpd[BLKCG_MAX_POLS];
	struct list_head all_blkcgs_node;
	/* sim: the cgroup's name ("" for the root) */
	char sim_name[64];
};

static inline struct blkcg *css_to_blkcg(struct cgroup_subsys_state *css)
{
	return css ? container_of(css, struct blkcg, css) : NULL;
}

struct blkg_policy_data {
	struct blkcg_gq *blkg;
	int plid;
	bool online;
	struct rcu_head rcu_head;
};

struct blkcg_policy_data {
	struct blkcg *blkcg;
	int plid;
};

typedef struct blkcg_policy_data *(blkcg_pol_alloc_cpd_fn)(gfp_t gfp);
typedef void (blkcg_pol_init_cpd_fn)(struct blkcg_policy_data *cpd);
typedef void (blkcg_pol_free_cpd_fn)(struct blkcg_policy_data *cpd);
typedef void (blkcg_pol_bind_cpd_fn)(struct blkcg_policy_data *cpd);
typedef struct blkg_policy_data *(blkcg_pol_alloc_pd_fn)(gfp_t gfp, struct request_queue *q,
							  struct blkcg *blkcg);
typedef void (blkcg_pol_init_pd_fn)(struct blkg_policy_data *pd);
typedef void (blkcg_pol_online_pd_fn)(struct blkg_policy_data *pd);
typedef void (blkcg_pol_offline_pd_fn)(struct blkg_policy_data *pd);
typedef void (blkcg_pol_free_pd_fn)(struct blkg_policy_data *pd);
typedef void (blkcg_pol_reset_pd_stats_fn)(struct blkg_policy_data *pd);
typedef void (blkcg_pol_stat_pd_fn)(struct blkg_policy_data *pd, struct seq_file *s);

struct blkcg_policy {
	int plid;
	struct cftype *dfl_cftypes;
	struct cftype *legacy_cftypes;

	blkcg_pol_alloc_cpd_fn *cpd_alloc_fn;
	blkcg_pol_init_cpd_fn *cpd_init_fn;
	blkcg_pol_free_cpd_fn *cpd_free_fn;
	blkcg_pol_bind_cpd_fn *cpd_bind_fn;

	blkcg_pol_alloc_pd_fn *pd_alloc_fn;
	blkcg_pol_init_pd_fn *pd_init_fn;
	blkcg_pol_online_pd_fn *pd_online_fn;
	blkcg_pol_offline_pd_fn *pd_offline_fn;
	blkcg_pol_free_pd_fn *pd_free_fn;
	blkcg_pol_reset_pd_stats_fn *pd_reset_stats_fn;
	blkcg_pol_stat_pd_fn *pd_stat_fn;
};

struct blkg_conf_ctx {
	struct block_device *bdev;
	struct blkcg_gq *blkg;
	char *body;
};

SIM_BEGIN_DECLS
extern struct blkcg blkcg_root;
extern bool blkcg_debug_stats;

int blkcg_policy_register(struct blkcg_policy *pol);
void blkcg_policy_unregister(struct blkcg_policy *pol);
int blkcg_activate_policy(struct request_queue *q, const struct blkcg_policy *pol);
void blkcg_deactivate_policy(struct request_queue *q, const struct blkcg_policy *pol);

const char *blkg_dev_name(struct blkcg_gq *blkg);
void blkcg_print_blkgs(struct seq_file *sf, struct blkcg *blkcg,
		       u64 (*prfill)(struct seq_file *, struct blkg_policy_data *, int),
		       const struct blkcg_policy *pol, int data, bool show_total);
u64 __blkg_prfill_u64(struct seq_file *sf, struct blkg_policy_data *pd, u64 v);
struct block_device *blkcg_conf_open_bdev(char **inputp);
int blkg_conf_prep(struct blkcg *blkcg, const struct blkcg_policy *pol, char *input,
		   struct blkg_conf_ctx *ctx);
void blkg_conf_finish(struct blkg_conf_ctx *ctx);
SIM_END_DECLS

/* A bio issued as root is charged to the root group (metadata, swap). */
static inline bool bio_issue_as_root_blkg(struct bio *bio)
{
	return (bio->bi_opf & (REQ_META | REQ_SWAP)) != 0;
}

/* The blkg of (@blkcg, @q) or NULL.  Call under rcu_read_lock(). */
static inline struct blkcg_gq *blkg_lookup(struct blkcg *blkcg, struct request_queue *q)
{
	struct blkcg_gq *blkg;

	WARN_ON_ONCE(!rcu_read_lock_held());
	if (blkcg == &blkcg_root)
		return q->root_blkg;
	blkg = rcu_dereference(blkcg->blkg_hint);
	if (blkg && blkg->q == q)
		return blkg;
	hlist_for_each_entry(blkg, &blkcg->blkg_list, blkcg_node)
		if (blkg->q == q)
			return blkg;
	return NULL;
}

static inline struct blkg_policy_data *blkg_to_pd(struct blkcg_gq *blkg, struct blkcg_policy *pol)
{
	return blkg ? blkg->pd[pol->plid] : NULL;
}

static inline struct blkcg_policy_data *blkcg_to_cpd(struct blkcg *blkcg,
						     struct blkcg_policy *pol)
{
	return blkcg ? blkcg->cpd[pol->plid] : NULL;
}

static inline struct blkcg_gq *pd_to_blkg(struct blkg_policy_data *pd)
{
	return pd ? pd->blkg : NULL;
}

static inline struct blkcg *cpd_to_blkcg(struct blkcg_policy_data *cpd)
{
	return cpd ? cpd->blkcg : NULL;
}

static inline int blkg_path(struct blkcg_gq *blkg, char *buf, int buflen)
{
	return cgroup_path(blkg->blkcg->css.cgroup, buf, buflen);
}

static inline void blkg_get(struct blkcg_gq *blkg)
{
	percpu_ref_get(&blkg->refcnt);
}

static inline bool blkg_tryget(struct blkcg_gq *blkg)
{
	return blkg && percpu_ref_tryget(&blkg->refcnt);
}

static inline void blkg_put(struct blkcg_gq *blkg)
{
	percpu_ref_put(&blkg->refcnt);
}

static inline bool blk_cgroup_mergeable(struct request *rq, struct bio *bio)
{
	return rq->bio->bi_blkg == bio->bi_blkg &&
	       bio_issue_as_root_blkg(rq->bio) == bio_issue_as_root_blkg(bio);
}

#endif
