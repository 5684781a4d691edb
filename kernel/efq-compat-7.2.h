/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efq-compat-7.2.h: efq's kernel wrappers for Linux 7.2 and 7.3 (Debian
 * 13's trixie-backports, Debian 14).
 *
 * Included by efq-compat.h when building against 7.2 or 7.3 headers,
 * whose interfaces for a scheduler like efq's are the same.  Macros
 * only: this is included before any kernel header, so a wrapper names
 * kernel types and functions only where it is used.
 */
#ifndef _EFQ_COMPAT_7_2_H
#define _EFQ_COMPAT_7_2_H

/* elevator_mq_ops.insert_requests: blk_insert_t flags, as in 6.12. */
#define efq_insert_t blk_insert_t
#define efq_insert_at_head(flags) (!!((flags) & BLK_MQ_INSERT_AT_HEAD))

/*
 * EFQ_DEFINE_PD_ALLOC(fn) defines fn##_fn, a blkcg pd_alloc_fn (disk,
 * cgroup, gfp, as in 6.12) on top of
 * struct blkg_policy_data *fn(struct request_queue *q, struct blkcg *blkcg,
 *			       gfp_t gfp).
 */
#define EFQ_DEFINE_PD_ALLOC(fn)						\
static struct blkg_policy_data *fn##_fn(struct gendisk *disk,		\
					struct blkcg *blkcg, gfp_t gfp)	\
{									\
	return fn(disk->queue, blkcg, gfp);				\
}									\
static struct blkg_policy_data *fn##_fn(struct gendisk *disk,		\
					struct blkcg *blkcg, gfp_t gfp)

/* A request the scheduler prepared is marked RQF_USE_SCHED, as in 6.12. */
#define efq_rq_sched_prepared(rq) ((rq)->rq_flags & RQF_USE_SCHED)

/* mq-deadline goes on from the last dispatched position, as in 6.12. */
#define efq_mq_deadline_sweeps_from_pos true

/*
 * The shallow depth that leaves one tag of each sbitmap word: sbitmap
 * still applies shallow_depth to the whole bitmap, each word getting its
 * share, as in 6.12, so one per word takes as many as there are words.
 */
#define efq_shallow_one_per_word(bt) ((bt)->sb.map_nr)

/* blkcg_activate_policy() and blkcg_deactivate_policy() take the disk. */
#define efq_blkcg_activate(q, pol) blkcg_activate_policy((q)->disk, pol)
#define efq_blkcg_deactivate(q, pol) blkcg_deactivate_policy((q)->disk, pol)

/*
 * Writeback throttling off while the scheduler runs, back on when it
 * goes.  The elevator's ELEVATOR_FLAG_DISABLE_WBT of 6.12 is gone: the
 * queue's QUEUE_FLAG_DISABLE_WBT_DEF keeps wbt_enable_default() (called
 * again when the queue is registered, or by io.cost) from turning wbt
 * back on while it is set; set it first, clear it before enabling.
 */
#define efq_wbt_disable(q)						\
	do {								\
		struct request_queue *__q = (q);			\
									\
		blk_queue_flag_set(QUEUE_FLAG_DISABLE_WBT_DEF, __q);	\
		wbt_disable_default(__q->disk);				\
	} while (0)
#define efq_wbt_enable(q)						\
	do {								\
		struct request_queue *__q = (q);			\
									\
		blk_queue_flag_clear(QUEUE_FLAG_DISABLE_WBT_DEF, __q);	\
		wbt_enable_default(__q->disk);				\
	} while (0)

/*
 * elevator_mq_ops.init_sched(q, eq): the core allocates the
 * elevator_queue (elevator_alloc() is no longer exported) with the queue
 * frozen, after the scheduler tags it made before the freeze, hands it to
 * init_sched, and drops it itself when init_sched fails.  The scheduler
 * still publishes it as q->elevator.
 */
#define efq_init_sched_t struct elevator_queue *
#define efq_elevator_alloc(q, eq) ((void)(q), (eq))
#define efq_elevator_put(eq) ((void)(eq))

/*
 * elevator_mq_ops.depth_updated(q): called for the whole queue (after
 * nr_requests or queue/async_depth change); efq_depth_updated_each(q, fn)
 * calls fn(hctx) for each of its hardware queues.
 */
#define efq_depth_updated_t struct request_queue *
#define efq_depth_updated_each(q, fn)					\
	do {								\
		struct blk_mq_hw_ctx *__hctx;				\
		unsigned long __i;					\
									\
		queue_for_each_hw_ctx(q, __hctx, __i)			\
			fn(__hctx);					\
	} while (0)

/* An hrtimer with its callback: hrtimer_init() is gone. */
#define efq_hrtimer_setup(timer, fn, clock, mode)			\
	hrtimer_setup(timer, fn, clock, mode)

/* Is the queue's device non-rotational?  blk_queue_nonrot() is gone. */
#define efq_queue_nonrot(q) (!blk_queue_rot(q))

/*
 * The scheduler's debugfs files (sched/state, sched/service_trees) outlive
 * exit_sched: 7.x removes them once the switch is done, after q->elevator
 * went to NULL or to the next scheduler.  A show holds q->elevator_lock,
 * which every switch holds, and checks that q->elevator is still efq's
 * (efq_debugfs_lock() returns 0 or -EINTR).
 */
#define efq_debugfs_lock(q) mutex_lock_interruptible(&(q)->elevator_lock)
#define efq_debugfs_unlock(q) mutex_unlock(&(q)->elevator_lock)

/*
 * blkcg_print_blkgs() calls its prfill under rcu_read_lock() alone (6.x
 * held the blkg's queue_lock there), while blkcg_deactivate_policy()
 * frees the policy data under queue_lock: a prfill that follows the pd
 * past its own memory takes queue_lock and checks the policy is still on.
 */
#define efq_blkg_print_lock(q) spin_lock_irq(&(q)->queue_lock)
#define efq_blkg_print_unlock(q) spin_unlock_irq(&(q)->queue_lock)
#define efq_blkg_pd_current(blkg, pol, pd)				\
	({								\
		struct blkcg_gq *__blkg = (blkg);			\
		const struct blkcg_policy *__pol = (pol);		\
									\
		blkcg_policy_enabled(__blkg->q, __pol) &&		\
			blkg_to_pd(__blkg, __pol) == (pd);		\
	})

/*
 * queue/async_depth: each scheduler says what its async requests may
 * take; efq limits requests by group and by sync/async itself
 * (efq_limit_depth()) and leaves the file at nr_requests, as mq-deadline
 * starts it, rather than show the previous scheduler's value.
 */
#define efq_init_async_depth(q)						\
	do {								\
		struct request_queue *__q = (q);			\
									\
		__q->async_depth = __q->nr_requests;			\
	} while (0)

#endif /* _EFQ_COMPAT_7_2_H */
