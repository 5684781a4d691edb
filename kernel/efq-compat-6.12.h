/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efq-compat-6.12.h: efq's kernel wrappers for Linux 6.12 (Debian 13).
 *
 * Included by efq-compat.h when building against 6.12 headers.  Macros
 * only: this is included before any kernel header, so a wrapper names
 * kernel types and functions only where it is used.
 */
#ifndef _EFQ_COMPAT_6_12_H
#define _EFQ_COMPAT_6_12_H

/*
 * elevator_mq_ops.insert_requests: 6.12 passes blk_insert_t flags, of
 * which BLK_MQ_INSERT_AT_HEAD is the only one (requeues, and flushes'
 * data parts).
 */
#define efq_insert_t blk_insert_t
#define efq_insert_at_head(flags) (!!((flags) & BLK_MQ_INSERT_AT_HEAD))

/*
 * EFQ_DEFINE_PD_ALLOC(fn) defines fn##_fn, a blkcg pd_alloc_fn (6.12:
 * disk, cgroup, gfp) on top of
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

/*
 * Did the scheduler prepare @rq (prepare_request), so that the core will
 * call finish_request for it?  6.12 marks such a request RQF_USE_SCHED
 * (RQF_ELVPRIV is gone).
 */
#define efq_rq_sched_prepared(rq) ((rq)->rq_flags & RQF_USE_SCHED)

/*
 * How mq-deadline goes on with a batch (deadline-fq does as the kernel's
 * own): 6.12 takes the first request at or above the last dispatched
 * one's start sector (dd_per_prio's latest_pos), and starts as if after a
 * write batch.
 */
#define efq_mq_deadline_sweeps_from_pos true

/*
 * The shallow depth that leaves one tag of each sbitmap word to an
 * allocation (efq_limit_depth()'s cap): Debian's 6.12 sbitmap applies
 * shallow_depth to the whole bitmap, each word getting its share
 * (word depth x shallow_depth / depth), so one per word takes as many as
 * there are words; a shallow depth of 1 would leave tag 0 alone.
 */
#define efq_shallow_one_per_word(bt) ((bt)->sb.map_nr)

/* blkcg_activate_policy() and blkcg_deactivate_policy() take the disk. */
#define efq_blkcg_activate(q, pol) blkcg_activate_policy((q)->disk, pol)
#define efq_blkcg_deactivate(q, pol) blkcg_deactivate_policy((q)->disk, pol)

/*
 * Writeback throttling off while the scheduler runs, back on when it goes
 * (as bfq does).  6.12's wbt_{disable,enable}_default() take the disk, and
 * wbt_enable_default() (called again when the queue is registered, or by
 * io.cost) leaves wbt off while the elevator's ELEVATOR_FLAG_DISABLE_WBT
 * is set: set it first, clear it before enabling.  q->elevator is the
 * scheduler's elevator_queue in init_sched (efq publishes it) and in
 * exit_sched.
 */
#define efq_wbt_disable(q)						\
	do {								\
		struct request_queue *__q = (q);			\
									\
		set_bit(ELEVATOR_FLAG_DISABLE_WBT, &__q->elevator->flags); \
		wbt_disable_default(__q->disk);				\
	} while (0)
#define efq_wbt_enable(q)						\
	do {								\
		struct request_queue *__q = (q);			\
									\
		clear_bit(ELEVATOR_FLAG_DISABLE_WBT, &__q->elevator->flags); \
		wbt_enable_default(__q->disk);				\
	} while (0)

/*
 * elevator_mq_ops.init_sched(q, e): 6.12 hands the scheduler its
 * elevator_type, and the scheduler allocates its elevator_queue
 * (efq_elevator_alloc()) and drops it again if it then fails
 * (efq_elevator_put()).
 */
#define efq_init_sched_t struct elevator_type *
#define efq_elevator_alloc(q, e) elevator_alloc(q, e)
#define efq_elevator_put(eq) kobject_put(&(eq)->kobj)

/*
 * elevator_mq_ops.depth_updated(hctx): 6.12 calls it for one hardware
 * queue; efq_depth_updated_each(hctx, fn) calls fn(hctx).
 */
#define efq_depth_updated_t struct blk_mq_hw_ctx *
#define efq_depth_updated_each(hctx, fn) fn(hctx)

/* An hrtimer with its callback: 6.12 sets ->function after hrtimer_init(). */
#define efq_hrtimer_setup(timer, fn, clock, mode)			\
	do {								\
		struct hrtimer *__t = (timer);				\
									\
		hrtimer_init(__t, clock, mode);				\
		__t->function = (fn);					\
	} while (0)

/* Is the queue's device non-rotational (an SSD)? */
#define efq_queue_nonrot(q) blk_queue_nonrot(q)

/*
 * The scheduler's debugfs files are removed before exit_sched, and their
 * removal waits for the shows running: nothing to lock (7.x: see
 * efq-compat-7.2.h).
 */
#define efq_debugfs_lock(q) ((void)(q), 0)
#define efq_debugfs_unlock(q) ((void)(q))

/*
 * blkcg_print_blkgs() holds the blkg's queue_lock around each prfill and
 * has checked that the policy is on and @pd is the blkg's.
 */
#define efq_blkg_print_lock(q) lockdep_assert_held(&(q)->queue_lock)
#define efq_blkg_print_unlock(q) ((void)(q))
#define efq_blkg_pd_current(blkg, pol, pd)				\
	((void)(blkg), (void)(pol), (void)(pd), true)

/* No queue/async_depth file. */
#define efq_init_async_depth(q) ((void)(q))

#endif /* _EFQ_COMPAT_6_12_H */
