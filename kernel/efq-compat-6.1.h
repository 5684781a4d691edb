/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efq's wrappers of the block layer interfaces whose form changed after
 * Linux 6.1: the definitions for 6.1 (Debian 12).
 *
 * Force-included into efq's sources: out of tree through efq-compat.h,
 * which picks this file for 6.1 headers; in a 6.1 kernel tree from
 * block/Makefile; in efqsim, whose shims follow 6.1, from CMakeLists.txt.
 * Macros only: this comes before any kernel header, so a
 * wrapper names kernel types and functions only where it is used.
 */
#ifndef _EFQ_COMPAT_6_1_H
#define _EFQ_COMPAT_6_1_H

/*
 * elevator_mq_ops.insert_requests: 6.1 passes a bool, "insert at the head
 * of the queue" (requeues, and flushes' data parts).
 */
#define efq_insert_t bool
#define efq_insert_at_head(flags) (flags)

/*
 * EFQ_DEFINE_PD_ALLOC(fn) defines fn##_fn, a blkcg pd_alloc_fn (6.1: gfp,
 * queue, cgroup) on top of
 * struct blkg_policy_data *fn(struct request_queue *q, struct blkcg *blkcg,
 *			       gfp_t gfp).
 */
#define EFQ_DEFINE_PD_ALLOC(fn)						\
static struct blkg_policy_data *fn##_fn(gfp_t gfp,			\
					struct request_queue *q,	\
					struct blkcg *blkcg)		\
{									\
	return fn(q, blkcg, gfp);					\
}									\
static struct blkg_policy_data *fn##_fn(gfp_t gfp,			\
					struct request_queue *q,	\
					struct blkcg *blkcg)

/*
 * Did the scheduler prepare @rq (prepare_request), so that the core will
 * call finish_request for it?  6.1 marks such a request RQF_ELVPRIV.
 */
#define efq_rq_sched_prepared(rq) ((rq)->rq_flags & RQF_ELVPRIV)

/*
 * How mq-deadline goes on with a batch (deadline-fq does as the kernel's
 * own): 6.1 takes the successor its last dispatch cached.
 */
#define efq_mq_deadline_sweeps_from_pos false

/*
 * The shallow depth that leaves one tag of each sbitmap word to an
 * allocation (efq_limit_depth()'s cap): 6.1's sbitmap applies
 * shallow_depth to each word.
 */
#define efq_shallow_one_per_word(bt) ((void)(bt), 1)

/* blkcg_activate_policy() and blkcg_deactivate_policy() take the queue. */
#define efq_blkcg_activate(q, pol) blkcg_activate_policy(q, pol)
#define efq_blkcg_deactivate(q, pol) blkcg_deactivate_policy(q, pol)

/*
 * Writeback throttling off while the scheduler runs, back on when it goes
 * (as bfq does): 6.1's wbt_{disable,enable}_default() take the queue.
 */
#define efq_wbt_disable(q) wbt_disable_default(q)
#define efq_wbt_enable(q) wbt_enable_default(q)

/*
 * elevator_mq_ops.init_sched(q, e): 6.1 hands the scheduler its
 * elevator_type, and the scheduler allocates its elevator_queue
 * (efq_elevator_alloc()) and drops it again if it then fails
 * (efq_elevator_put()).
 */
#define efq_init_sched_t struct elevator_type *
#define efq_elevator_alloc(q, e) elevator_alloc(q, e)
#define efq_elevator_put(eq) kobject_put(&(eq)->kobj)

/*
 * elevator_mq_ops.depth_updated(hctx): 6.1 calls it for one hardware
 * queue; efq_depth_updated_each(hctx, fn) calls fn(hctx).
 */
#define efq_depth_updated_t struct blk_mq_hw_ctx *
#define efq_depth_updated_each(hctx, fn) fn(hctx)

/* An hrtimer with its callback: 6.1 sets ->function after hrtimer_init(). */
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

#endif /* _EFQ_COMPAT_6_1_H */
