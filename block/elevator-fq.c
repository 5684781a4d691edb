// SPDX-License-Identifier: GPL-2.0
/*
 * efq: the elevator fair-queuing engine.
 *
 * The engine decides which queue of requests a device serves next, and for
 * how long.  The schedulers built on it (cfq, deadline-fq, as, noop) only
 * decide which queue a request belongs to and in which order a queue's own
 * requests leave it.  Documentation/block/io-controller.rst explains the
 * design, its formulas and the contract with the schedulers at length.
 *
 * Time, not bytes.  The currency is disk time: a queue in service owns the
 * disk for a slice, and at the end of the slice the time it used is
 * charged to it.  Charges are turned into virtual time ("vdisktime") by
 * dividing by the entity's weight, so a heavier entity's clock runs slower
 * and it is picked more often.  Every group keeps its children in three
 * service trees, one per ioprio class; the entity with the smallest
 * vdisktime in the highest non-empty class runs next, and the tree's
 * min_vdisktime, which only moves forward, is the reference against which
 * new arrivals are placed.
 *
 * Hierarchy.  Queues are leaves; groups are inner nodes holding three
 * trees of their own.  Selection walks from the root group down, picking
 * one child per level, until it reaches a queue.  At expiry the charge
 * walks back up: the queue is charged its allocated slice (or, with the
 * fairness tunable, what it really used) and each ancestor group what the
 * queue really used, capped at the slice, each at its own weight.  The
 * root group itself is never charged, so in flat mode, where every queue
 * hangs off the root, the scheme is a weighted round robin of slices.
 *
 * History.  A reader's queue usually empties at the end of its slice and
 * comes back a moment later.  Placed as a newcomer it would gain a full
 * round each time.  The idle tree of each service tree keeps recently
 * served entities that left while their vdisktime was still ahead of the
 * tree's clock, so that a prompt return resumes at the earned time.  The
 * cache is bounded by the clock: entries are dropped as min_vdisktime
 * passes them.
 *
 * Holding the disk.  Fairness needs backlog: a group that empties loses its
 * place.  So the engine waits, on one hrtimer per device, in three ways:
 * the scheduler may idle an empty queue for its next request (slice_idle),
 * a group whose last queue empties idles for group_idle, and a queue that
 * used its slice while empty gets a short wait-busy grace before expiry.
 * While waiting, efq_has_work() is false and blk-mq stops asking; the
 * event that ends the wait (a request completes, the timer fires) has the
 * engine run the hardware queues, and blk-mq runs them itself after a
 * request arrives.
 *
 * Preemption.  A new request may take the disk from the queue in service:
 * by class (RT over BE over IDLE, compared between the two entities that
 * are siblings under a common parent), a sync request over an async queue
 * running below the new queue's group, a request arriving in a group that
 * is idling, or by the scheduler's own rules within one group.  A sync
 * queue refused because it is in another group marks its group for "late
 * preemption": when the group next runs an async queue while sync queues
 * wait, that queue gets one dispatch round only.
 *
 * Everything here runs under efq_data.lock (lockdep-checked), including
 * the timer callback, which takes it itself.  Time is in nanoseconds.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/math64.h>
#include <linux/ktime.h>
#include <linux/jiffies.h>
#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/bio.h>
#include <linux/sbitmap.h>
#include <linux/blktrace_api.h>
#include <linux/kstrtox.h>
#include <linux/seq_file.h>
#include <linux/sysfs.h>
#include <linux/elevator-fq.h>
#include <trace/events/block.h>

#include "elevator.h"
#include "blk.h"
#include "blk-mq.h"
#include "blk-mq-sched.h"
#include "blk-wbt.h"

static struct kmem_cache *efq_queue_pool;

#define efq_log(efqd, fmt, ...)						\
	blk_add_trace_msg((efqd)->queue, "efq " fmt, ##__VA_ARGS__)

#define efq_log_queue(ioq, fmt, ...)					\
	do {								\
		struct efq_queue *__ioq = (ioq);			\
									\
		blk_add_trace_msg(__ioq->efqd->queue, "efq%d%c " fmt,	\
				  __ioq->pid,				\
				  efq_queue_sync(__ioq) ? 'S' : 'A',	\
				  ##__VA_ARGS__);			\
	} while (0)

/* Virtual time comparisons survive a wrap of the u64 clock. */
static inline bool efq_vdisktime_gt(u64 a, u64 b)
{
	return (s64)(a - b) > 0;
}

static inline u64 efq_vdisktime_max(u64 a, u64 b)
{
	return efq_vdisktime_gt(a, b) ? a : b;
}

static inline u64 efq_vdisktime_min(u64 a, u64 b)
{
	return efq_vdisktime_gt(a, b) ? b : a;
}

static inline struct efq_queue *efq_entity_queue(struct efq_entity *e)
{
	return e->my_sd ? NULL : container_of(e, struct efq_queue, entity);
}

static inline struct efq_group *efq_entity_group(struct efq_entity *e)
{
	return e->my_sd ? container_of(e, struct efq_group, entity) : NULL;
}

static inline struct efq_sched_data *efq_entity_parent_sd(struct efq_entity *e)
{
	return e->parent->my_sd;
}

static inline bool efq_entity_counts_sync(struct efq_entity *e)
{
	struct efq_queue *ioq = efq_entity_queue(e);

	return ioq && efq_queue_sync(ioq) &&
	       e->ioprio_class != IOPRIO_CLASS_IDLE;
}

/*
 * The most service one charge may carry: at the lightest weight its
 * virtual time stays below 2^62, so keys (s64 differences) keep their sign
 * and mul_u64_u32_div() its quotient in 64 bits (x86's divq faults
 * otherwise).  About two days; only absurd slice tunables get near it.
 */
#define EFQ_CHARGE_MAX	(((u64)1 << 62 >> EFQ_SERVICE_SHIFT) /	\
			 (EFQ_WEIGHT_DEFAULT / EFQ_WEIGHT_MIN))

/**
 * efq_delta_fair() - virtual time worth @charge ns of service to @e
 * @charge: service in nanoseconds, capped at EFQ_CHARGE_MAX
 * @e: the entity charged
 *
 * Return: (@charge << EFQ_SERVICE_SHIFT) * 500 / weight.
 */
static u64 efq_delta_fair(u64 charge, struct efq_entity *e)
{
	u64 delta = min_t(u64, charge, EFQ_CHARGE_MAX) << EFQ_SERVICE_SHIFT;

	if (e->weight != EFQ_WEIGHT_DEFAULT)
		delta = mul_u64_u32_div(delta, EFQ_WEIGHT_DEFAULT, e->weight);
	return delta;
}

/**
 * efq_queue_slice() - slice length of a queue
 * @efqd: the device
 * @ioq: the queue
 *
 * Return: the base slice of the queue's kind (sync or async) scaled by
 * weight / 500, in nanoseconds.
 */
u64 efq_queue_slice(struct efq_data *efqd, struct efq_queue *ioq)
{
	u64 base = efqd->slice[efq_queue_sync(ioq) ? 1 : 0];

	if (WARN_ON_ONCE(ioq->entity.weight > efq_ioprio_to_weight(0)))
		return base;
	return div_u64(base * ioq->entity.weight, EFQ_WEIGHT_DEFAULT);
}
EXPORT_SYMBOL_GPL(efq_queue_slice);

/**
 * efq_queue_slice_used() - has the queue's slice run out?
 * @ioq: the queue
 *
 * A slice starts at the first completion of an activation, so a queue that
 * has not seen one (slice_new) has not used anything yet.
 *
 * Return: true once the current time reaches the end of the slice.
 */
bool efq_queue_slice_used(struct efq_queue *ioq)
{
	if (efq_queue_slice_new(ioq))
		return false;
	return ktime_get_ns() >= ioq->slice_end;
}
EXPORT_SYMBOL_GPL(efq_queue_slice_used);

/*
 * efq_queue_slice_used() at @now, for an event that has read the clock
 * already: one clock read per event instead of one per question.
 */
static bool efq_queue_slice_used_at(struct efq_queue *ioq, u64 now)
{
	return !efq_queue_slice_new(ioq) && now >= ioq->slice_end;
}

/* --- service trees ------------------------------------------------------ */

static void efq_st_init(struct efq_service_tree *st)
{
	st->active = RB_ROOT_CACHED;
	st->idle = RB_ROOT_CACHED;
	st->active_entity = NULL;
	st->min_vdisktime = 0;
	st->nr_active = 0;
}

static inline s64 efq_entity_key(struct efq_service_tree *st,
				 struct efq_entity *e)
{
	return (s64)(e->vdisktime - st->min_vdisktime);
}

static struct efq_entity *efq_st_first(struct efq_service_tree *st)
{
	struct rb_node *n = rb_first_cached(&st->active);

	return n ? rb_entry(n, struct efq_entity, rb_node) : NULL;
}

/*
 * Equal keys queue up behind each other unless @add_front, which puts the
 * entity ahead of its equals.
 */
static void efq_st_insert(struct efq_service_tree *st, struct efq_entity *e,
			  bool add_front)
{
	struct rb_node **p = &st->active.rb_root.rb_node, *parent = NULL;
	s64 key = efq_entity_key(st, e);
	bool leftmost = true;

	while (*p) {
		struct efq_entity *entry;
		s64 ekey;

		parent = *p;
		entry = rb_entry(parent, struct efq_entity, rb_node);
		ekey = efq_entity_key(st, entry);
		if (key < ekey || (add_front && key == ekey)) {
			p = &parent->rb_left;
		} else {
			p = &parent->rb_right;
			leftmost = false;
		}
	}
	rb_link_node(&e->rb_node, parent, p);
	rb_insert_color_cached(&e->rb_node, &st->active, leftmost);
}

static void efq_st_erase(struct efq_service_tree *st, struct efq_entity *e)
{
	rb_erase_cached(&e->rb_node, &st->active);
	RB_CLEAR_NODE(&e->rb_node);
}

/* --- the idle tree: recently served entities that may come back ---------- */

static void efq_idle_insert(struct efq_service_tree *st, struct efq_entity *e)
{
	struct rb_node **p = &st->idle.rb_root.rb_node, *parent = NULL;
	struct efq_queue *ioq = efq_entity_queue(e);
	bool leftmost = true;

	while (*p) {
		struct efq_entity *entry;

		parent = *p;
		entry = rb_entry(parent, struct efq_entity, rb_node);
		if (efq_vdisktime_gt(entry->vdisktime, e->vdisktime)) {
			p = &parent->rb_left;
		} else {
			p = &parent->rb_right;
			leftmost = false;
		}
	}
	rb_link_node(&e->rb_node, parent, p);
	rb_insert_color_cached(&e->rb_node, &st->idle, leftmost);
	e->on_idle_st = true;
	if (ioq)
		efq_get_queue(ioq);
}

static void efq_idle_remove(struct efq_service_tree *st, struct efq_entity *e)
{
	struct efq_queue *ioq = efq_entity_queue(e);

	rb_erase_cached(&e->rb_node, &st->idle);
	RB_CLEAR_NODE(&e->rb_node);
	e->on_idle_st = false;
	if (ioq)
		efq_put_queue(ioq);
}

/*
 * Drop the cached entities the tree's clock has passed: their history is
 * worth no more than a fresh placement now.
 */
static void efq_idle_release(struct efq_service_tree *st)
{
	struct rb_node *n;

	while ((n = rb_first_cached(&st->idle))) {
		struct efq_entity *e = rb_entry(n, struct efq_entity, rb_node);

		if (!efq_vdisktime_gt(st->min_vdisktime, e->vdisktime))
			break;
		efq_idle_remove(st, e);
	}
}

static void efq_idle_flush(struct efq_service_tree *st)
{
	struct rb_node *n;

	while ((n = rb_first_cached(&st->idle)))
		efq_idle_remove(st, rb_entry(n, struct efq_entity, rb_node));
}

static void efq_group_flush_idle(struct efq_group *iog)
{
	int i;

	for (i = 0; i < EFQ_NR_CLASSES; i++)
		efq_idle_flush(&iog->sched_data.service_tree[i]);
}

/**
 * efq_update_min_vdisktime() - advance a service tree's virtual clock
 * @st: the tree
 *
 * The clock follows the smallest vdisktime among the entity in service and
 * the leftmost backlogged one, and never goes backwards.
 */
static void efq_update_min_vdisktime(struct efq_service_tree *st)
{
	struct efq_entity *left = efq_st_first(st);
	u64 vt = st->min_vdisktime;

	if (st->active_entity)
		vt = st->active_entity->vdisktime;
	if (left) {
		if (!st->active_entity)
			vt = left->vdisktime;
		else
			vt = efq_vdisktime_min(vt, left->vdisktime);
	}
	st->min_vdisktime = efq_vdisktime_max(st->min_vdisktime, vt);
	efq_idle_release(st);
}

/* --- entities ----------------------------------------------------------- */

static void efq_entity_set_parent(struct efq_entity *e,
				  struct efq_entity *parent)
{
	e->parent = parent;
	e->st = &parent->my_sd->service_tree[e->ioprio_class - 1];
}

/*
 * Apply a weight or class written since the entity was last (re)queued.
 * Return true if the class changed: the entity then belongs to another
 * tree, where its old vdisktime means nothing.
 */
static bool efq_entity_update_prio(struct efq_entity *e)
{
	unsigned short ioclass;

	/*
	 * Clear the flag and read the values in that order: xchg() is a full
	 * barrier, and pairs with the smp_wmb() of the setters (values before
	 * the flag).  A plain store could land after the value loads and wipe
	 * out a setter's flag whose value was not read (review lead 16).
	 */
	if (!READ_ONCE(e->prio_changed) || !xchg(&e->prio_changed, 0))
		return false;
	e->weight = READ_ONCE(e->new_weight);
	ioclass = READ_ONCE(e->new_class);
	if (ioclass == e->ioprio_class)
		return false;
	e->ioprio_class = ioclass;
	e->st = &efq_entity_parent_sd(e)->service_tree[ioclass - 1];
	return true;
}

static void efq_entity_count_sync(struct efq_entity *e)
{
	struct efq_sched_data *sd = efq_entity_parent_sd(e);
	bool sync = e->on_st && efq_entity_counts_sync(e);

	if (sync && !e->counted_sync)
		sd->nr_sync++;
	else if (!sync && e->counted_sync)
		sd->nr_sync--;
	e->counted_sync = sync;
}

/**
 * efq_place_entity() - choose the vdisktime of a newly backlogged entity
 * @st: its service tree (nr_active already counts it)
 * @e: the entity
 * @add_front: place it at the front of the tree
 *
 * Alone on the tree, or asked to go first, it starts at min_vdisktime.  A
 * sync entity (groups count as sync) that returns with history still ahead
 * of the clock keeps it; any other sync entity is treated as new and
 * starts at min_vdisktime.  An async queue goes behind the last entity.
 */
static void efq_place_entity(struct efq_service_tree *st,
			     struct efq_entity *e, bool add_front)
{
	struct efq_queue *ioq = efq_entity_queue(e);
	bool sync = !ioq || efq_queue_sync(ioq);
	u64 vt;

	if (add_front || st->nr_active <= 1) {
		vt = st->min_vdisktime;
	} else if (sync && e->has_history &&
		   efq_vdisktime_gt(e->vdisktime, st->min_vdisktime)) {
		vt = e->vdisktime;
	} else if (sync) {
		vt = st->min_vdisktime;
	} else {
		struct rb_node *last = rb_last(&st->active.rb_root);

		vt = last ? rb_entry(last, struct efq_entity, rb_node)->vdisktime
			  : st->min_vdisktime;
	}
	e->vdisktime = efq_vdisktime_max(st->min_vdisktime, vt);
}

static void efq_enqueue_entity(struct efq_entity *e)
{
	struct efq_sched_data *sd = efq_entity_parent_sd(e);
	struct efq_queue *ioq = efq_entity_queue(e);
	struct efq_group *iog = efq_entity_group(e);
	struct efq_service_tree *st;
	bool add_front;

	if (e->on_idle_st) {
		/* the idle tree's reference goes; busy state holds one */
		efq_idle_remove(e->st, e);
		e->has_history = true;
	} else {
		e->has_history = false;
	}
	if (efq_entity_update_prio(e))
		e->has_history = false;

	st = e->st;
	st->nr_active++;
	sd->nr_active++;
	e->on_st = true;
	efq_entity_count_sync(e);
	e->nr_enqueued++;

	add_front = ioq && ioq->meta_pending;
	efq_place_entity(st, e, add_front);
	efq_st_insert(st, e, add_front);
	if (iog)
		efq_log(iog->efqd, "add group weight=%u", e->weight);
}

static bool efq_entity_may_cache(struct efq_entity *e)
{
	return !e->exiting && !e->parent->exiting &&
	       efq_vdisktime_gt(e->vdisktime, e->st->min_vdisktime);
}

static void efq_dequeue_entity(struct efq_entity *e)
{
	struct efq_sched_data *sd = efq_entity_parent_sd(e);
	struct efq_service_tree *st = e->st;

	WARN_ON_ONCE(st->active_entity == e);
	if (!RB_EMPTY_NODE(&e->rb_node))
		efq_st_erase(st, e);
	e->on_st = false;
	st->nr_active--;
	sd->nr_active--;
	efq_entity_count_sync(e);
	e->nr_dequeued++;
	if (efq_entity_may_cache(e))
		efq_idle_insert(st, e);
}

/*
 * Give the entity in service back to its tree, at its charged vdisktime;
 * one that is @leaving its tree at once (efq_expire_queue()) is not put in
 * it first.
 */
static void efq_put_prev_entity(struct efq_entity *e, bool leaving)
{
	struct efq_sched_data *sd = efq_entity_parent_sd(e);
	struct efq_service_tree *old = e->st;

	WARN_ON_ONCE(old->active_entity != e);
	old->active_entity = NULL;
	sd->active_entity = NULL;
	if (efq_entity_update_prio(e)) {
		old->nr_active--;
		e->st->nr_active++;
		efq_entity_count_sync(e);
		e->has_history = false;
		efq_place_entity(e->st, e, false);
	}
	if (!leaving)
		efq_st_insert(e->st, e, false);
}

/*
 * Move a backlogged entity within its tree: to the front (preemption, close
 * cooperator) or behind the last entity (async queue with a backlog).  An
 * async queue never moves to a smaller vdisktime than it was charged.
 */
static void efq_requeue_entity(struct efq_entity *e, bool add_front)
{
	struct efq_service_tree *st = e->st;
	u64 charged = e->vdisktime;

	if (WARN_ON_ONCE(RB_EMPTY_NODE(&e->rb_node)))
		return;
	if (add_front && efq_st_first(st) == e)
		return;
	efq_st_erase(st, e);
	efq_place_entity(st, e, add_front);
	if (!add_front)
		e->vdisktime = efq_vdisktime_max(e->vdisktime, charged);
	efq_st_insert(st, e, add_front);
}

/*
 * Pick the next entity of one level: the leftmost of the highest non-empty
 * class.  It leaves the tree while in service but stays counted.
 */
static struct efq_entity *efq_lookup_next_entity(struct efq_sched_data *sd)
{
	int i;

	if (WARN_ON_ONCE(sd->active_entity) || !sd->nr_active)
		return NULL;
	for (i = 0; i < EFQ_NR_CLASSES; i++) {
		struct efq_service_tree *st = &sd->service_tree[i];
		struct efq_entity *e = efq_st_first(st);

		if (!e)
			continue;
		efq_st_erase(st, e);
		st->active_entity = e;
		sd->active_entity = e;
		efq_update_min_vdisktime(st);
		return e;
	}
	return NULL;
}

static void efq_put_prev_chain(struct efq_entity *e)
{
	for (; e->parent; e = e->parent)
		efq_put_prev_entity(e, false);
}

/*
 * efq_put_prev_chain() for a queue that leaves the busy set next
 * (efq_del_busy()): the levels that efq_del_busy() takes off their trees,
 * the queue's and every group's that has no other backlogged child, are
 * not inserted in them first.  On a fast device a queue empties and
 * expires at nearly every request, and that insert and erase, per level,
 * changed nothing.
 */
static void efq_put_prev_chain_leaving(struct efq_entity *e)
{
	bool leaving = true;

	for (; e->parent; e = e->parent) {
		efq_put_prev_entity(e, leaving);
		/* efq_del_busy() goes up while a level's parent empties */
		leaving = leaving && efq_entity_parent_sd(e)->nr_active == 1;
	}
}

/* Walk from the root group down to the queue to serve next. */
static struct efq_queue *efq_get_next_queue(struct efq_data *efqd)
{
	struct efq_sched_data *sd = &efqd->root_group->sched_data;
	struct efq_entity *e, *last = NULL;

	if (WARN_ON_ONCE(efqd->active_queue) || !efqd->busy_queues)
		return NULL;
	for (;;) {
		e = efq_lookup_next_entity(sd);
		if (!e)
			break;
		if (!e->my_sd)
			return efq_entity_queue(e);
		last = e;
		sd = e->my_sd;
	}
	/* a backlogged group without backlogged children: undo the walk */
	WARN_ON_ONCE(1);
	if (last)
		efq_put_prev_chain(last);
	return NULL;
}

/* --- busy queues -------------------------------------------------------- */

static void efq_add_busy(struct efq_data *efqd, struct efq_queue *ioq)
{
	struct efq_entity *e = &ioq->entity;

	WARN_ON_ONCE(ioq == efqd->active_queue);
	efq_mark_queue_busy(ioq);
	efqd->busy_queues++;
	efq_get_queue(ioq);
	for (; e->parent; e = e->parent) {
		if (e->on_st)
			break;
		efq_enqueue_entity(e);
	}
	efq_log_queue(ioq, "add to busy: qued=%u", ioq->nr_queued);
}

static void efq_del_busy(struct efq_data *efqd, struct efq_queue *ioq)
{
	struct efq_entity *e = &ioq->entity;

	efq_log_queue(ioq, "del from busy: qued=%u", ioq->nr_queued);
	efq_clear_queue_busy(ioq);
	efqd->busy_queues--;
	for (; e->parent; e = e->parent) {
		struct efq_sched_data *sd = efq_entity_parent_sd(e);

		efq_dequeue_entity(e);
		if (sd->nr_active)
			break;
	}
	efq_put_queue(ioq);
}

/* --- queues ------------------------------------------------------------- */

/**
 * efq_queue_alloc() - allocate a zeroed queue
 * @efqd: the device
 * @gfp: allocation flags; under efqd->lock use GFP_NOWAIT
 *
 * Return: the queue, or NULL.
 */
struct efq_queue *efq_queue_alloc(struct efq_data *efqd, gfp_t gfp)
{
	return kmem_cache_alloc_node(efq_queue_pool, gfp | __GFP_ZERO,
				     efqd->queue->node);
}
EXPORT_SYMBOL_GPL(efq_queue_alloc);

/**
 * efq_queue_init() - initialise a queue
 * @efqd: the device
 * @ioq: a zeroed queue
 * @pid: owner, for logging
 * @sync: sync queue (sync slice, may idle)
 * @sched_queue: the scheduler's queue object
 *
 * The queue starts best-effort at priority 4 (weight 500), with one
 * reference owned by the caller, and must be given a group with
 * efq_queue_set_group() before its first request.
 */
void efq_queue_init(struct efq_data *efqd, struct efq_queue *ioq, int pid,
		    bool sync, void *sched_queue)
{
	RB_CLEAR_NODE(&ioq->entity.rb_node);
	refcount_set(&ioq->ref, 1);
	ioq->efqd = efqd;
	ioq->pid = pid;
	ioq->sched_queue = sched_queue;
	ioq->ioprio = IOPRIO_NORM;
	ioq->entity.weight = efq_ioprio_to_weight(IOPRIO_NORM);
	ioq->entity.new_weight = ioq->entity.weight;
	ioq->entity.ioprio_class = IOPRIO_CLASS_BE;
	ioq->entity.new_class = IOPRIO_CLASS_BE;
	if (sync)
		efq_mark_queue_sync(ioq);
}
EXPORT_SYMBOL_GPL(efq_queue_init);

/**
 * efq_queue_set_group() - attach a new queue to its group
 * @ioq: the queue, not yet attached
 * @iog: the group; the queue takes a reference on it
 */
void efq_queue_set_group(struct efq_queue *ioq, struct efq_group *iog)
{
	if (WARN_ON_ONCE(ioq->group))
		return;
	efq_get_group(iog);
	ioq->group = iog;
	efq_entity_set_parent(&ioq->entity, &iog->entity);
}
EXPORT_SYMBOL_GPL(efq_queue_set_group);

/**
 * efq_queue_set_ioprio() - set the priority level, hence the weight
 * @ioq: the queue
 * @prio: 0 (highest) .. 7 (lowest)
 *
 * The new weight applies from the queue's next (re)queue; the queue keeps
 * its place in virtual time.
 *
 * Return: 0, or -EINVAL if @prio is out of range.
 */
int efq_queue_set_ioprio(struct efq_queue *ioq, unsigned int prio)
{
	if (prio >= EFQ_NR_PRIO)
		return -EINVAL;
	ioq->ioprio = prio;
	WRITE_ONCE(ioq->entity.new_weight, efq_ioprio_to_weight(prio));
	/* publish the value before the flag; see efq_entity_update_prio() */
	smp_wmb();
	WRITE_ONCE(ioq->entity.prio_changed, 1);
	return 0;
}
EXPORT_SYMBOL_GPL(efq_queue_set_ioprio);

/**
 * efq_queue_set_ioprio_class() - set the class of a queue
 * @ioq: the queue
 * @ioclass: IOPRIO_CLASS_RT, _BE or _IDLE
 *
 * The queue moves to the class's tree at its next (re)queue, as a newcomer.
 *
 * Return: 0, or -EINVAL if @ioclass is not one of the three.
 */
int efq_queue_set_ioprio_class(struct efq_queue *ioq, unsigned int ioclass)
{
	if (ioclass < IOPRIO_CLASS_RT || ioclass > IOPRIO_CLASS_IDLE)
		return -EINVAL;
	WRITE_ONCE(ioq->entity.new_class, ioclass);
	/* publish the value before the flag; see efq_entity_update_prio() */
	smp_wmb();
	WRITE_ONCE(ioq->entity.prio_changed, 1);
	return 0;
}
EXPORT_SYMBOL_GPL(efq_queue_set_ioprio_class);

void efq_get_queue(struct efq_queue *ioq)
{
	refcount_inc(&ioq->ref);
}
EXPORT_SYMBOL_GPL(efq_get_queue);

/**
 * efq_put_queue() - drop a reference to a queue
 * @ioq: the queue
 *
 * The last reference frees the scheduler's queue through
 * efq_sched_ops.free_sched_queue, then the queue, then drops the queue's
 * reference on its group.
 */
void efq_put_queue(struct efq_queue *ioq)
{
	struct efq_data *efqd = ioq->efqd;
	struct efq_group *iog = ioq->group;

	if (!refcount_dec_and_test(&ioq->ref))
		return;
	WARN_ON_ONCE(ioq->nr_queued || ioq->dispatched);
	WARN_ON_ONCE(efq_queue_busy(ioq) || ioq == efqd->active_queue);
	WARN_ON_ONCE(ioq->entity.on_st || ioq->entity.on_idle_st);
	if (WARN_ON_ONCE(ioq == &efqd->oom_queue))
		return;
	if (ioq->sched_queue)
		efqd->ops->free_sched_queue(efqd, ioq->sched_queue);
	kmem_cache_free(efq_queue_pool, ioq);
	if (iog)
		efq_put_group(iog);
}
EXPORT_SYMBOL_GPL(efq_put_queue);

/**
 * efq_queue_exit() - the owner of a sync queue goes away
 * @efqd: the device
 * @ioq: the queue
 *
 * A queue nobody will submit to again must not linger in an idle tree:
 * drop it from there, or make sure it never gets there.
 */
void efq_queue_exit(struct efq_data *efqd, struct efq_queue *ioq)
{
	lockdep_assert_held(&efqd->lock);
	if (!efq_queue_sync(ioq))
		return;
	if (ioq->entity.on_st)
		ioq->entity.exiting = true;
	else if (ioq->entity.on_idle_st)
		efq_idle_remove(ioq->entity.st, &ioq->entity);
}
EXPORT_SYMBOL_GPL(efq_queue_exit);

/**
 * efq_oom_queue() - the device's fallback queue, for allocation failures
 * @efqd: the device
 *
 * Return: the queue, in the root group, with a new reference.
 */
struct efq_queue *efq_oom_queue(struct efq_data *efqd)
{
	efq_get_queue(&efqd->oom_queue);
	return &efqd->oom_queue;
}
EXPORT_SYMBOL_GPL(efq_oom_queue);

static struct efq_queue *efq_new_single_queue(struct efq_data *efqd,
					      struct efq_group *iog, gfp_t gfp)
{
	struct efq_queue *ioq;
	void *sq;

	ioq = efq_queue_alloc(efqd, gfp);
	if (!ioq)
		return NULL;
	sq = efqd->ops->alloc_sched_queue(efqd, ioq, gfp);
	if (!sq) {
		kmem_cache_free(efq_queue_pool, ioq);
		return NULL;
	}
	efq_queue_init(efqd, ioq, 0, true, sq);
	if (efqd->ops->features & EFQ_FEAT_QUEUE_IDLE)
		efq_mark_queue_idle_window(ioq);
	efq_queue_set_group(ioq, iog);
	iog->ioq = ioq;
	return ioq;
}

/**
 * efq_group_single_queue() - the queue of a group, single-queue schedulers
 * @efqd: the device
 * @iog: the group
 *
 * Creates the queue on first use without sleeping.  If that fails, the
 * request goes to the root group's queue, which exists from init.
 *
 * Return: the queue; the group owns the reference.
 */
struct efq_queue *efq_group_single_queue(struct efq_data *efqd,
					 struct efq_group *iog)
{
	lockdep_assert_held(&efqd->lock);
	if (iog->ioq)
		return iog->ioq;
	if (efq_new_single_queue(efqd, iog, GFP_NOWAIT | __GFP_NOWARN))
		return iog->ioq;
	return efqd->root_group->ioq;
}
EXPORT_SYMBOL_GPL(efq_group_single_queue);

static struct efq_queue **efq_async_slot(struct efq_group *iog,
					 unsigned int ioclass,
					 unsigned int prio)
{
	if (ioclass == IOPRIO_CLASS_IDLE)
		return &iog->async_idle_queue;
	if (WARN_ON_ONCE(prio >= EFQ_NR_PRIO))
		return NULL;
	if (ioclass == IOPRIO_CLASS_RT)
		return &iog->async_queue[0][prio];
	if (ioclass == IOPRIO_CLASS_BE)
		return &iog->async_queue[1][prio];
	WARN_ON_ONCE(1);
	return NULL;
}

/**
 * efq_group_async_queue() - a group's shared async queue
 * @iog: the group
 * @ioclass: class of the submitter
 * @prio: priority level of the submitter (ignored for the idle class)
 *
 * Return: the queue, or NULL if there is none yet.
 */
struct efq_queue *efq_group_async_queue(struct efq_group *iog,
					unsigned int ioclass,
					unsigned int prio)
{
	struct efq_queue **slot = efq_async_slot(iog, ioclass, prio);

	return slot ? *slot : NULL;
}
EXPORT_SYMBOL_GPL(efq_group_async_queue);

/**
 * efq_group_set_async_queue() - install a group's shared async queue
 * @iog: the group
 * @ioclass: class
 * @prio: priority level
 * @ioq: the queue; the group takes a reference until it goes offline
 */
void efq_group_set_async_queue(struct efq_group *iog, unsigned int ioclass,
			       unsigned int prio, struct efq_queue *ioq)
{
	struct efq_queue **slot = efq_async_slot(iog, ioclass, prio);

	if (!slot || WARN_ON_ONCE(*slot))
		return;
	efq_get_queue(ioq);
	*slot = ioq;
}
EXPORT_SYMBOL_GPL(efq_group_set_async_queue);

static void efq_group_put_queues(struct efq_group *iog)
{
	struct efq_queue *ioq;
	int i, j;

	for (i = 0; i < 2; i++) {
		for (j = 0; j < EFQ_NR_PRIO; j++) {
			ioq = iog->async_queue[i][j];
			iog->async_queue[i][j] = NULL;
			if (ioq)
				efq_put_queue(ioq);
		}
	}
	ioq = iog->async_idle_queue;
	iog->async_idle_queue = NULL;
	if (ioq)
		efq_put_queue(ioq);
	ioq = iog->ioq;
	iog->ioq = NULL;
	if (ioq)
		efq_put_queue(ioq);
}

/* --- groups ------------------------------------------------------------- */

/**
 * efq_group_init() - initialise a group
 * @iog: a zeroed group
 * @weight: its weight
 * @ioclass: its class
 *
 * The group starts online with one reference, owned by whoever allocated
 * it (the blkcg policy data, or the device for its root group).
 */
void efq_group_init(struct efq_group *iog, unsigned int weight,
		    unsigned short ioclass)
{
	int i;

	for (i = 0; i < EFQ_NR_CLASSES; i++)
		efq_st_init(&iog->sched_data.service_tree[i]);
	RB_CLEAR_NODE(&iog->entity.rb_node);
	iog->entity.my_sd = &iog->sched_data;
	iog->entity.weight = weight;
	iog->entity.new_weight = weight;
	iog->entity.ioprio_class = ioclass;
	iog->entity.new_class = ioclass;
	refcount_set(&iog->ref, 1);
	INIT_LIST_HEAD(&iog->efqd_node);
	iog->online = true;
}
EXPORT_SYMBOL_GPL(efq_group_init);

/**
 * efq_group_link() - make a group part of its device's hierarchy
 * @efqd: the device
 * @iog: the group
 * @parent: its parent group, already linked (or the root group)
 *
 * Groups are linked lazily, when their cgroup first sends a request to the
 * device.  Non-root groups may idle (group_idle).
 */
void efq_group_link(struct efq_data *efqd, struct efq_group *iog,
		    struct efq_group *parent)
{
	lockdep_assert_held(&efqd->lock);
	if (iog->linked || WARN_ON_ONCE(iog == efqd->root_group))
		return;
	efq_get_group(parent);
	iog->efqd = efqd;
	iog->dev = efqd->dev;
	efq_entity_set_parent(&iog->entity, &parent->entity);
	efq_mark_group_idle_window(iog);
	list_add(&iog->efqd_node, &efqd->group_list);
	iog->linked = true;
}
EXPORT_SYMBOL_GPL(efq_group_link);

/**
 * efq_group_offline() - a group's cgroup goes away
 * @efqd: the device
 * @iog: the group
 *
 * Nothing of the group enters an idle tree any more, its cached entities
 * and shared queues are released and it leaves the device's list.  Queues
 * still holding requests keep it alive until they are done.
 */
void efq_group_offline(struct efq_data *efqd, struct efq_group *iog)
{
	lockdep_assert_held(&efqd->lock);
	iog->online = false;
	if (!iog->linked)
		return;
	iog->entity.exiting = true;
	efq_group_flush_idle(iog);
	list_del_init(&iog->efqd_node);
	efq_group_put_queues(iog);
	if (iog->entity.on_idle_st)
		efq_idle_remove(iog->entity.st, &iog->entity);
}
EXPORT_SYMBOL_GPL(efq_group_offline);

void efq_get_group(struct efq_group *iog)
{
	refcount_inc(&iog->ref);
}
EXPORT_SYMBOL_GPL(efq_get_group);

/**
 * efq_put_group() - drop a reference to a group
 * @iog: the group
 *
 * The last reference frees the group and drops its reference on its
 * parent.  The root group is the last group of a device to go, and takes
 * the device's efq_data with it: a group whose cgroup was removed can
 * outlive the scheduler while a bio still holds its blkg.
 */
void efq_put_group(struct efq_group *iog)
{
	struct efq_group *parent = NULL;

	if (!refcount_dec_and_test(&iog->ref))
		return;
	WARN_ON_ONCE(iog->sched_data.nr_active || iog->entity.on_st);
	WARN_ON_ONCE(iog->entity.on_idle_st);
	if (iog->efqd && iog == iog->efqd->root_group) {
		/* the device's last group: the device goes with it */
		struct efq_data *efqd = iog->efqd;

		efq_group_free(iog);
		kfree(efqd);
		return;
	}
	if (iog->linked)
		parent = efq_entity_group(iog->entity.parent);
	efq_group_free(iog);
	if (parent)
		efq_put_group(parent);
}
EXPORT_SYMBOL_GPL(efq_put_group);

/**
 * efq_group_set_weight() - change a group's weight
 * @iog: the group
 * @weight: EFQ_WEIGHT_MIN .. EFQ_WEIGHT_MAX, checked by the caller
 *
 * May be called without the device's lock; the weight applies at the
 * group's next (re)queue.
 */
void efq_group_set_weight(struct efq_group *iog, unsigned int weight)
{
	WRITE_ONCE(iog->entity.new_weight, weight);
	/* publish the value before the flag; see efq_entity_update_prio() */
	smp_wmb();
	WRITE_ONCE(iog->entity.prio_changed, 1);
}
EXPORT_SYMBOL_GPL(efq_group_set_weight);

/**
 * efq_group_set_ioprio_class() - change a group's class
 * @iog: the group
 * @ioclass: IOPRIO_CLASS_RT, _BE or _IDLE, checked by the caller
 *
 * May be called without the device's lock; the group moves to the new
 * class's tree, as a newcomer, at its next (re)queue.
 */
void efq_group_set_ioprio_class(struct efq_group *iog, unsigned short ioclass)
{
	WRITE_ONCE(iog->entity.new_class, ioclass);
	/* publish the value before the flag; see efq_entity_update_prio() */
	smp_wmb();
	WRITE_ONCE(iog->entity.prio_changed, 1);
}
EXPORT_SYMBOL_GPL(efq_group_set_ioprio_class);

struct efq_group *efq_queue_group(struct efq_queue *ioq)
{
	return ioq->group;
}
EXPORT_SYMBOL_GPL(efq_queue_group);

/* --- charging ----------------------------------------------------------- */

/*
 * Charge each level from the queue up to the child of the root: the queue
 * its own charge, every group the group charge, each at its own weight.
 * Statistics record what was really used.
 */
static void efq_entity_served(struct efq_entity *e, u64 served,
			      u64 queue_charge, u64 group_charge, u64 sectors)
{
	u64 charge = queue_charge;

	for (; e->parent; e = e->parent) {
		e->vdisktime += efq_delta_fair(charge, e);
		e->total_time += served;
		e->total_sectors += sectors;
		efq_update_min_vdisktime(e->st);
		charge = group_charge;
	}
}

/**
 * efq_queue_served() - charge a queue for the slice it just ended
 * @efqd: the device
 * @ioq: the queue
 * @served: time it really had the disk, in ns
 *
 * With fairness off, the queue pays exactly its allocated slice (no more,
 * or it could miss a round; no less, or CFQ's "use it or lose it" would be
 * gone) and its groups pay what was used, at most the slice.  With fairness
 * on, everybody pays what was used.  A single queue that ran untimed pays
 * at most one slice either way.
 */
static void efq_queue_served(struct efq_data *efqd, struct efq_queue *ioq,
			     u64 served)
{
	u64 alloc = efq_queue_slice(efqd, ioq);
	u64 queue_charge = served, group_charge = served;
	struct efq_entity *root = &efqd->root_group->entity;

	if (efq_queue_charge_one_slice(ioq)) {
		if (queue_charge > alloc) {
			queue_charge = alloc;
			group_charge = alloc;
		}
		efq_clear_queue_charge_one_slice(ioq);
	}
	if (!efqd->fairness) {
		queue_charge = alloc;
		group_charge = min(group_charge, alloc);
	}
	efq_entity_served(&ioq->entity, served, queue_charge, group_charge,
			  ioq->nr_sectors);
	root->total_time += served;
	root->total_sectors += ioq->nr_sectors;
	efq_log_queue(ioq, "served: QSt=%llu QSs=%llu qued=%u",
		      (unsigned long long)served,
		      (unsigned long long)ioq->nr_sectors, ioq->nr_queued);
	if (IS_ENABLED(CONFIG_DEBUG_ELV_FAIR_QUEUING)) {
		struct efq_entity *e = &ioq->entity;

		efq_log_queue(ioq, "vdisktime=%llu min_vdisktime=%llu",
			      (unsigned long long)e->vdisktime,
			      (unsigned long long)e->st->min_vdisktime);
	}
}

/* --- the idle timer ----------------------------------------------------- */

static void efq_timer_arm(struct efq_data *efqd, u64 ns)
{
	efqd->idle_armed = true;
	efqd->idle_end = ktime_get_ns() + ns;
	hrtimer_start(&efqd->idle_timer, ns_to_ktime(ns), HRTIMER_MODE_REL);
}

/*
 * Called under the lock, so never wait for a running callback: it will
 * find idle_armed clear and do nothing.
 */
static void efq_timer_cancel(struct efq_data *efqd)
{
	if (!efqd->idle_armed)
		return;
	efqd->idle_armed = false;
	hrtimer_try_to_cancel(&efqd->idle_timer);
}

/**
 * efq_arm_idle_timer() - idle the queue in service, waiting for a request
 * @efqd: the device
 * @ns: how long to wait
 *
 * For efq_sched_ops.arm_slice_timer: the scheduler decides whether and how
 * long to idle; the engine does the waiting.
 */
void efq_arm_idle_timer(struct efq_data *efqd, u64 ns)
{
	struct efq_queue *ioq = efqd->active_queue;

	lockdep_assert_held(&efqd->lock);
	if (WARN_ON_ONCE(!ioq))
		return;
	efq_mark_queue_wait_request(ioq);
	efq_timer_arm(efqd, ns);
	efq_log_queue(ioq, "arm_idle: %llu", (unsigned long long)ns);
}
EXPORT_SYMBOL_GPL(efq_arm_idle_timer);

/**
 * efq_queue_is_idling() - is the device waiting on behalf of @ioq?
 * @efqd: the device
 * @ioq: the queue in service
 *
 * Return: true while the queue waits for a request or any idle wait runs.
 */
bool efq_queue_is_idling(struct efq_data *efqd, struct efq_queue *ioq)
{
	return efq_queue_wait_request(ioq) || efqd->idle_armed;
}
EXPORT_SYMBOL_GPL(efq_queue_is_idling);

/**
 * efq_group_should_idle() - should the device wait for @ioq's group?
 * @ioq: the queue in service
 *
 * A non-root group whose last backlogged queue has gone empty idles for
 * group_idle rather than lose its place.
 *
 * Return: true if it should.
 */
bool efq_group_should_idle(struct efq_queue *ioq)
{
	struct efq_group *iog = ioq->group;

	if (!ioq->efqd->group_idle || !efq_group_idle_window(iog))
		return false;
	return iog->sched_data.nr_active <= 1 && !ioq->nr_queued;
}
EXPORT_SYMBOL_GPL(efq_group_should_idle);

/*
 * Wait-busy keeps a group on its tree when its only queue used its slice
 * and went empty: the next request keeps the group's place.  A group with
 * another busy queue stays on the tree anyway (as 2.6.33 refused it with
 * more than one queue).  @used: efq_queue_slice_used(), which the callers
 * have just asked (the answer is passed on rather than the clock read
 * again).
 */
static bool efq_queue_should_wait_busy(struct efq_queue *ioq, bool used)
{
	if (!efq_group_idle_window(ioq->group) ||
	    ioq->group->sched_data.nr_active > 1)
		return false;
	return !ioq->nr_queued && efq_queue_idle_window(ioq) && used;
}

static void efq_arm_group_timer(struct efq_data *efqd, struct efq_group *iog,
				bool wait_busy)
{
	if (!efqd->group_idle || !efq_group_idle_window(iog))
		return;
	if (wait_busy)
		efq_mark_group_wait_busy(iog);
	else
		efq_mark_group_wait_request(iog);
	efq_timer_arm(efqd, efqd->group_idle);
	efq_log(efqd, "arm idle group: %llu wait busy=%d",
		(unsigned long long)efqd->group_idle, wait_busy);
}

static void efq_arm_wait_busy_timer(struct efq_data *efqd,
				    struct efq_queue *ioq)
{
	efq_mark_group_wait_busy(ioq->group);
	efq_timer_arm(efqd, EFQ_WAIT_BUSY_NS);
	efq_log_queue(ioq, "arm wait busy ioq: %llu",
		      (unsigned long long)EFQ_WAIT_BUSY_NS);
}

/*
 * Ask the scheduler before expiring.  A refused expiry keeps the queue and
 * marks it so the next selection asks again; a forced one cannot be
 * refused.
 */
static bool efq_may_expire(struct efq_data *efqd, struct efq_queue *ioq,
			   bool slice_expired, bool force)
{
	bool ok;

	if (!efqd->ops->may_expire)
		return true;
	ok = efqd->ops->may_expire(efqd, ioq->sched_queue, slice_expired,
				   force);
	if (force)
		return true;
	if (!ok)
		efq_mark_queue_must_expire(ioq);
	return ok;
}

/*
 * Hold requests back, or not.  A hold makes has_work false, and blk-mq
 * stops asking: note it in held_back until blk-mq gets a request again
 * (efq_request_dispatched()) or the hardware queues are run.
 */
static void efq_set_hold(struct efq_data *efqd, bool hold)
{
	efqd->hold = hold;
	if (hold)
		efqd->held_back = true;
}

static void efq_update_hold(struct efq_data *efqd, bool kick);

/* The timer fired: decide under the lock.  Return true to re-run queues. */
static bool efq_idle_timeout(struct efq_data *efqd)
{
	struct efq_queue *ioq = efqd->active_queue;
	enum efq_expire_reason reason = EFQ_EXPIRE_IDLE_TIMEOUT;
	struct efq_group *iog;

	/* Nobody to expire (an expiry cancels its wait): only decide again. */
	if (!ioq)
		goto kick;
	iog = ioq->group;
	efq_clear_queue_wait_request(ioq);
	efq_clear_group_wait_request(iog);
	/*
	 * The group did not get busy again within its wait-busy: it gives
	 * up its place, as a request would have ended the wait.
	 */
	if (efq_group_wait_busy(iog)) {
		efq_clear_group_wait_busy(iog);
		reason = EFQ_EXPIRE_WAIT_BUSY_TIMEOUT;
		goto expire;
	}
	/* The request waited for is there: it goes out, slice or not. */
	if (efq_queue_must_dispatch(ioq))
		goto kick;
	/* The slice ran out during the wait: the turn is over. */
	if (efq_queue_slice_used(ioq))
		goto expire;
	/* Nothing is busy: nothing to switch to or to run. */
	if (!efqd->busy_queues)
		return false;
	/* It has requests and slice left: it goes on serving them. */
	if (ioq->nr_queued)
		goto kick;
	/*
	 * The wait ran out without a request: the queue (and, for
	 * group_idle, its group) loses its turn.  The window bet on a
	 * request coming soon, and lost; waiting longer would only keep the
	 * disk idle.
	 */
expire:
	/*
	 * fairness: a wait that ends while the queue still has requests in
	 * the driver does not cut the drain; the completion of the last one
	 * expires it.
	 */
	if (efqd->fairness && ioq->dispatched &&
	    !(efqd->ops->features & EFQ_FEAT_SELF_DRAIN)) {
		efq_mark_queue_must_expire(ioq);
		goto kick;
	}
	/* a timeout is not the scheduler's to veto: it is only told */
	efq_may_expire(efqd, ioq, false, true);
	efq_expire_queue(efqd, ioq, reason);
kick:
	efq_update_hold(efqd, false);
	if (efqd->hold)
		return false;
	efqd->held_back = false;	/* the caller runs the queues */
	return true;
}

static enum hrtimer_restart efq_idle_timer_fn(struct hrtimer *timer)
{
	struct efq_data *efqd = container_of(timer, struct efq_data,
					     idle_timer);
	unsigned long flags;
	bool kick = false;

	spin_lock_irqsave(&efqd->lock, flags);
	/*
	 * Queued again means that while this callback waited for the lock,
	 * the wait it fired for was cancelled and a new one armed: that one
	 * has its own expiry to come (review lead 14).
	 */
	if (efqd->idle_armed && !hrtimer_is_queued(timer)) {
		efqd->idle_armed = false;
		kick = efq_idle_timeout(efqd);
	}
	spin_unlock_irqrestore(&efqd->lock, flags);
	if (kick)
		blk_mq_run_hw_queues(efqd->queue, true);
	return HRTIMER_NORESTART;
}

/**
 * efq_schedule_dispatch() - an event of the scheduler's own may end a wait
 * @efqd: the device
 *
 * Decides afresh whether a dispatch would give a request (ending an
 * efq_hold_dispatch() too), and if that ends a hold has blk-mq call the
 * scheduler soon.  For the scheduler's own timers and state changes;
 * asynchronous.
 */
void efq_schedule_dispatch(struct efq_data *efqd)
{
	lockdep_assert_held(&efqd->lock);
	efq_update_hold(efqd, true);
}
EXPORT_SYMBOL_GPL(efq_schedule_dispatch);

/**
 * efq_hold_dispatch() - the scheduler holds its requests back for now
 * @efqd: the device
 *
 * efq_has_work() stays false until the next request, completion or timer.
 */
void efq_hold_dispatch(struct efq_data *efqd)
{
	lockdep_assert_held(&efqd->lock);
	efq_set_hold(efqd, true);
}
EXPORT_SYMBOL_GPL(efq_hold_dispatch);

/**
 * efq_has_work() - can a request be dispatched now?
 * @efqd: the device
 *
 * Lockless, for elevator_mq_ops.has_work: false while the engine holds
 * requests back on purpose.
 *
 * Return: true if dispatching should be tried.
 */
bool efq_has_work(struct efq_data *efqd)
{
	return READ_ONCE(efqd->nr_queued) && !READ_ONCE(efqd->hold);
}
EXPORT_SYMBOL_GPL(efq_has_work);

/* --- expiry, activation and selection ----------------------------------- */

/*
 * efq_expire_queue() at @now: an event that read the clock already passes
 * its time on (one clock read per event).
 */
static void __efq_expire_queue(struct efq_data *efqd, struct efq_queue *ioq,
			       enum efq_expire_reason reason, u64 now)
{
	struct efq_group *iog = ioq->group;
	u64 served;

	lockdep_assert_held(&efqd->lock);
	if (WARN_ON_ONCE(ioq != efqd->active_queue))
		return;
	efq_timer_cancel(efqd);
	efq_clear_queue_wait_request(ioq);
	efq_clear_queue_must_expire(ioq);
	efq_clear_group_wait_request(iog);
	efq_clear_group_wait_busy(iog);
	efq_clear_group_wait_busy_done(iog);
	if (efq_queue_sync(ioq))
		iog->late_preemption = false;

	if (!ioq->slice_end || ioq->slice_start == now)
		served = max_t(u64, now - ioq->dispatch_start, 1);
	else
		served = now - ioq->slice_start;
	efq_queue_served(efqd, ioq, served);

	efqd->active_queue = NULL;
	if (efqd->ops->active_queue_reset)
		efqd->ops->active_queue_reset(efqd, ioq->sched_queue);
	ioq->nr_sectors = 0;
	if (ioq->nr_queued)
		efq_put_prev_chain(&ioq->entity);
	else
		efq_put_prev_chain_leaving(&ioq->entity);
	efqd->nr_expired[reason]++;
	efq_log_queue(ioq, "expire reason=%d qued=%u", reason, ioq->nr_queued);

	if (!ioq->nr_queued)
		efq_del_busy(efqd, ioq);
	else if (!efq_queue_sync(ioq))
		efq_requeue_entity(&ioq->entity, false);
}

/**
 * efq_expire_queue() - end the slice of the queue in service
 * @efqd: the device
 * @ioq: the queue in service
 * @reason: why, for statistics and traces
 *
 * The queue is charged for the time since its first completion (or since
 * activation if none came), every level of its path goes back to its tree,
 * and an empty queue stops being busy.  An async queue with a backlog goes
 * behind the other queues of its tree so that sync queues get a chance.
 * The queue may be freed on return.
 */
void efq_expire_queue(struct efq_data *efqd, struct efq_queue *ioq,
		      enum efq_expire_reason reason)
{
	__efq_expire_queue(efqd, ioq, reason, ktime_get_ns());
}
EXPORT_SYMBOL_GPL(efq_expire_queue);

/**
 * efq_expire_active() - end the slice of the queue in service, if any
 * @efqd: the device
 * @reason: why
 */
void efq_expire_active(struct efq_data *efqd, enum efq_expire_reason reason)
{
	if (efqd->active_queue)
		efq_expire_queue(efqd, efqd->active_queue, reason);
}
EXPORT_SYMBOL_GPL(efq_expire_active);

static struct efq_queue *efq_set_active_queue(struct efq_data *efqd,
					      struct efq_queue *coop)
{
	struct efq_queue *ioq;

	if (coop)
		efq_requeue_entity(&coop->entity, true);
	ioq = efq_get_next_queue(efqd);
	if (!ioq)
		return NULL;
	ioq->slice_start = 0;
	ioq->slice_end = 0;
	ioq->dispatch_start = ktime_get_ns();
	efq_clear_queue_wait_request(ioq);
	efq_clear_queue_must_dispatch(ioq);
	efq_clear_queue_must_expire(ioq);
	efq_mark_queue_slice_new(ioq);
	efq_clear_group_wait_request(ioq->group);
	efq_clear_group_wait_busy_done(ioq->group);
	efq_timer_cancel(efqd);
	efqd->active_queue = ioq;
	if (efqd->ops->active_queue_set)
		efqd->ops->active_queue_set(efqd, ioq->sched_queue,
					    coop == ioq);
	efq_log_queue(ioq, "set_active busy=%u qued=%u", efqd->busy_queues,
		      ioq->nr_queued);
	return ioq;
}

/*
 * A single-queue scheduler with no group on this device has nothing to
 * share the disk with: let its queue run without timed expiry.
 */
static bool efq_single_queue_untimed(struct efq_data *efqd)
{
	struct efq_queue *ioq = efqd->active_queue;

	return (efqd->ops->features & EFQ_FEAT_SINGLE_QUEUE) &&
	       list_empty(&efqd->group_list) && efqd->busy_queues == 1 &&
	       ioq && ioq == efqd->root_group->ioq;
}

/*
 * An async queue of a group whose sync queue was refused preemption gets
 * one dispatch round while sync queues of the group wait.
 */
static void efq_check_late_preemption(struct efq_data *efqd,
				      struct efq_queue *ioq)
{
	struct efq_group *iog = ioq->group;

	if (efqd->ops->features & EFQ_FEAT_SINGLE_QUEUE)
		return;
	if (iog->late_preemption && !efq_queue_sync(ioq) &&
	    iog->sched_data.nr_sync) {
		efq_mark_queue_must_expire(ioq);
		efq_log_queue(ioq, "late preempt, must expire");
	}
}

static struct efq_queue *efq_cooperator(struct efq_data *efqd,
					struct efq_queue *ioq)
{
	struct efq_queue *coop;

	if (!efqd->ops->close_cooperator)
		return NULL;
	coop = efqd->ops->close_cooperator(efqd, ioq->sched_queue);
	if (!coop || coop == ioq || coop->group != ioq->group ||
	    !efq_queue_busy(coop))
		return NULL;
	return coop;
}

/* Doublings of writeback's depth after which it is unbounded (1024 units). */
#define EFQ_WRITEBACK_RAMP	10
/* The unit of writeback's depth: 128 KiB, in sectors. */
#define EFQ_WRITEBACK_UNIT	256U
/* A sync request that took longer from allocation to completion waited. */
#define EFQ_SYNC_DELAYED_NS	(10 * NSEC_PER_MSEC)

/**
 * efq_writeback_sectors() - how much writeback may have in the device now
 * @efqd: the device
 *
 * EFQ_WRITEBACK_UNIT sectors, doubled for each sync slice (slice_sync)
 * that has passed since a delayed sync request completed on the device
 * (one that took more than EFQ_SYNC_DELAYED_NS from its allocation);
 * unbounded after EFQ_WRITEBACK_RAMP doublings.  A process blocked on a
 * sync request (a read, an fsync's data or journal write, the flush after
 * it) waits behind whatever the device already holds, and a device that
 * queues commands serves them in its own order: 4 MiB of writes ahead of
 * a read are 100 ms at 40 MB/s, and an fsync'd commit takes several such
 * steps.  The bound is in sectors, not requests, since what a read waits
 * for is the data ahead of it: AHCI's writeback requests are 128 KiB,
 * virtio-blk's up to 1.25 MiB, and ten of those are 0.3 s.  Only a sync
 * request that waited lowers the depth (as legacy CFQ learned in 2.6.33):
 * on a device that serves its queue fast, sync requests do not wait behind
 * writeback, and a writer held to one unit would leave its parallelism
 * unused.  The depth doubles, and does not jump to the device's, so that
 * a deep device (virtio's 256 commands) is not filled at once: the first
 * read that waits again lowers it.  The rule is device-wide: it limits
 * how deep writeback runs in its turn, not whose turn it is, and applies
 * to a single-queue scheduler's queue that holds writes only
 * (efq_decide()), which may always have one request in flight, however
 * large; cfq ramps its async queues its own way (low_latency).
 *
 * Return: the sectors, UINT_MAX for no bound.
 */
static unsigned int efq_writeback_sectors(struct efq_data *efqd)
{
	u64 since = ktime_get_ns() - efqd->last_delayed_sync;
	u64 slices = div64_u64(since, max_t(u64, efqd->slice[1], 1));

	lockdep_assert_held(&efqd->lock);
	if (!efqd->last_delayed_sync || slices >= EFQ_WRITEBACK_RAMP)
		return UINT_MAX;
	return EFQ_WRITEBACK_UNIT << slices;
}

/* What a selection would do with the queue in service. */
enum efq_verdict {
	EFQ_NOTHING,	/* nothing is busy */
	EFQ_KEEP,	/* keep serving the queue in service */
	EFQ_HOLD,	/* wait: idling, draining, or waiting for completions */
	EFQ_EXPIRE,	/* expire it and choose the next queue */
	EFQ_NEW,	/* nothing in service: choose a queue */
};

struct efq_decision {
	enum efq_expire_reason reason;
	bool slice_expired;
	bool untimed;
	struct efq_queue *coop;
};

/*
 * The selection policy, without side effects, so that the engine can tell
 * blk-mq exactly whether a dispatch would give a request (efq_has_work()).
 * Each exit below states its rule and the reason for it; the rules are
 * those of "Idling" and "Expiry" in Documentation/block/io-controller.rst.
 * Their order is part of the policy: a forced dispatch skips every wait,
 * must_expire comes before the untimed run, and an armed wait-busy before
 * the used slice it was armed for.
 */
static enum efq_verdict efq_decide(struct efq_data *efqd, bool force,
				   struct efq_decision *d)
{
	struct efq_queue *ioq = efqd->active_queue;
	struct efq_group *iog;
	bool used;

	d->reason = EFQ_EXPIRE_EMPTY;
	d->slice_expired = false;
	d->untimed = false;
	d->coop = NULL;
	/* No queue is backlogged, so none is in service either: no work. */
	if (!efqd->busy_queues)
		return EFQ_NOTHING;
	/* Nothing in service: the trees choose the next queue. */
	if (!ioq)
		return EFQ_NEW;
	iog = ioq->group;

	/*
	 * The queue in service is the only busy queue and has nothing
	 * queued: nothing anywhere to dispatch, and nobody to give the disk
	 * to.  Leave it in service; its completions decide (idle for it, or
	 * EFQ_EXPIRE_LAST_EMPTY once nothing is in flight) and a request of
	 * its own continues its slice.  Expiring it here would end the slice
	 * for nobody's benefit, and with fairness off still charge it a
	 * whole slice.
	 */
	if (efqd->busy_queues == 1 && !ioq->nr_queued)
		return EFQ_HOLD;
	/*
	 * A forced dispatch drains the scheduler: every request must leave
	 * now, so no rule that waits applies (no idling, no fairness drain,
	 * no veto).  Serve the queue in service while it has requests, since
	 * a switch costs an expiry and buys nothing when all must go; then
	 * expire it for the next.
	 */
	if (force) {
		if (ioq->nr_queued)
			return EFQ_KEEP;
		d->reason = EFQ_EXPIRE_FORCED;
		return EFQ_EXPIRE;
	}
	/*
	 * must_expire: an expiry the scheduler vetoed (it is asked again),
	 * one the scheduler requested, late preemption, or a wait that ended
	 * during the fairness drain.  The queue goes whatever is left of its
	 * slice, else the rule that marked it would be lost.  But late
	 * preemption promises the async queue one dispatch round, and a
	 * queue chosen at a completion has not had it yet: with nothing
	 * sent, no completion and requests queued, it keeps the disk.
	 */
	if (efq_queue_must_expire(ioq) &&
	    (ioq->dispatched || !efq_queue_slice_new(ioq) || !ioq->nr_queued)) {
		d->reason = EFQ_EXPIRE_MUST_EXPIRE;
		goto expire;
	}
	/*
	 * A single-queue scheduler alone on the device (no group but the
	 * root) shares the disk with nobody: slices would only add expiries
	 * and idle waits and cut the scheduler's own batches.  Keep the
	 * queue untimed; it pays at most one slice once a group appears.
	 */
	if (efq_single_queue_untimed(efqd)) {
		d->untimed = true;
		return EFQ_KEEP;
	}
	/*
	 * Wait-busy: the group's only queue used its slice and went empty,
	 * and a completion armed a wait for it to get busy again.  Expiring
	 * now would take the group off its tree and lose its place, which
	 * the wait is there to keep; a request in the group or the timer
	 * ends it.
	 */
	if (efq_group_wait_busy(iog))
		return EFQ_HOLD;
	/* the slice's end, read once (this runs at every event) */
	used = efq_queue_slice_used(ioq);
	/*
	 * The slice is used, or the queue is of the idle class, which gets
	 * one dispatch round per turn so that it barely delays the other
	 * classes: the queue's turn is over and the trees choose the next
	 * by vdisktime.  Not while must_dispatch is set: the request the
	 * queue idled for is dispatched even past the slice, else the wait
	 * it paid for would be wasted.
	 */
	if ((used || efq_queue_class_idle(ioq)) &&
	    !efq_queue_must_dispatch(ioq)) {
		d->slice_expired = true;
		/*
		 * Unless the group is about to lose its last backlogged
		 * queue: then a group_idle or wait-busy wait keeps the
		 * group's place first.  Once per activation: after a request
		 * ended one (wait_busy_done) the queue goes, as waiting again
		 * could stretch its turn past the slice without bound.  Wait
		 * for the group only if a wait is armed or a completion will
		 * come to arm it: the slice may have ended after the last
		 * completion looked at it, and then nothing would end the
		 * hold (review lead 7).
		 */
		if ((efq_group_should_idle(ioq) ||
		     efq_queue_should_wait_busy(ioq, used)) &&
		    !efq_group_wait_busy_done(iog) &&
		    (efqd->idle_armed || ioq->dispatched))
			return EFQ_HOLD;
		d->reason = used ? EFQ_EXPIRE_SLICE_USED : EFQ_EXPIRE_IDLE_CLASS;
		goto expire;
	}
	/*
	 * Slice left and requests queued: the queue keeps the disk, but a
	 * single-queue scheduler's queue that holds writeback only (no sync
	 * request queued) sends another request only while what it has in
	 * the device is under efq_writeback_sectors(); one of its
	 * completions ends the hold.
	 */
	if (ioq->nr_queued) {
		if ((efqd->ops->features & EFQ_FEAT_SINGLE_QUEUE) &&
		    !ioq->sync_pending && ioq->dispatched &&
		    ioq->flight_sectors >= efq_writeback_sectors(efqd))
			return EFQ_HOLD;
		return EFQ_KEEP;
	}
	/*
	 * Empty, but the scheduler proposes a queue of the same group whose
	 * next request is close to the head: rather than idle for this one,
	 * put that one at the front of the group's tree
	 * (efq_set_active_queue()), trading an idle wait and a seek for a
	 * nearby request.  Being of the same group, it spends the group's
	 * share and no other group's.
	 */
	d->coop = efq_cooperator(efqd, ioq);
	if (d->coop) {
		d->reason = EFQ_EXPIRE_COOPERATOR;
		goto expire;
	}
	/*
	 * Empty, but a wait for it runs (slice_idle, or any idle wait), or
	 * it has requests in flight and the scheduler lets it idle: a sync
	 * queue's next request usually follows a completion after a short
	 * think time.  Switching now would cost the reader its slice and
	 * the disk a seek to another queue and back.  The completion or the
	 * timer decides.
	 */
	if (efq_queue_is_idling(efqd, ioq) ||
	    (ioq->dispatched && efq_queue_idle_window(ioq)))
		return EFQ_HOLD;
	/*
	 * Empty, and the last backlogged queue of a group that may idle:
	 * the group_idle wait starts at the last completion, so wait for
	 * it.  Expiring now would take the group off its tree before it
	 * had the chance to send its next request.
	 */
	if (efq_group_should_idle(ioq) && ioq->dispatched)
		return EFQ_HOLD;
	/* Empty and nothing worth waiting for: EFQ_EXPIRE_EMPTY. */
expire:
	/*
	 * fairness: the old queue's requests complete before a switch, so
	 * that the time they take is charged to it and not to the next
	 * queue's slice.  Not for a scheduler that drains itself
	 * (EFQ_FEAT_SELF_DRAIN: its may_expire refuses while requests are
	 * in flight).
	 */
	if (efqd->fairness && ioq->dispatched &&
	    !(efqd->ops->features & EFQ_FEAT_SELF_DRAIN))
		return EFQ_HOLD;
	return EFQ_EXPIRE;
}

/*
 * After an event (a request queued or completed, a timer), note whether a
 * dispatch would now give a request.  With @kick, have blk-mq ask for it
 * when a hold set since blk-mq last got a request has ended, and only
 * then: blk-mq runs the hardware queue itself after every insert, and while
 * has_work is true a run is always coming (it dispatches until has_work
 * turns false, and a driver out of tags or budget, or a dispatch that gives
 * nothing, schedules the next run).  What blk-mq cannot see is a hold
 * ending, because it stopped asking when has_work turned false.  That hold
 * may have ended before this event already, through a selection a
 * scheduler made for its own purposes (AS does), hence held_back and not
 * the hold's last value.  A run per event instead would queue a kblockd
 * work item for every request on a busy device (review lead 11).
 */
static void efq_update_hold(struct efq_data *efqd, bool kick)
{
	struct efq_decision d;
	bool hold;

	hold = efqd->nr_queued && efq_decide(efqd, false, &d) == EFQ_HOLD;
	efq_set_hold(efqd, hold);
	if (kick && efqd->held_back && efqd->nr_queued && !efqd->hold) {
		efqd->held_back = false;
		blk_mq_run_hw_queues(efqd->queue, true);
	}
}

/**
 * efq_select_queue() - the queue to dispatch from
 * @efqd: the device
 * @force: dispatch everything (drain), no idling
 *
 * Keeps the queue in service while it has a slice and requests, waits
 * when idling is worth it, else expires it and picks the next queue down
 * the hierarchy.  A NULL return with requests queued means the engine is
 * holding back on purpose; it will re-run the hardware queues itself.
 *
 * Return: the queue in service, or NULL.
 */
struct efq_queue *efq_select_queue(struct efq_data *efqd, bool force)
{
	struct efq_queue *ioq = efqd->active_queue;
	struct efq_decision d;

	lockdep_assert_held(&efqd->lock);
	switch (efq_decide(efqd, force, &d)) {
	case EFQ_NOTHING:
		efqd->hold = false;
		return NULL;
	case EFQ_HOLD:
		efq_set_hold(efqd, true);
		return NULL;
	case EFQ_KEEP:
		if (d.untimed)
			efq_mark_queue_charge_one_slice(ioq);
		break;
	case EFQ_EXPIRE:
		if (!efq_may_expire(efqd, ioq, d.slice_expired, force))
			break;
		efq_expire_queue(efqd, ioq, d.reason);
		fallthrough;
	case EFQ_NEW:
		ioq = efq_set_active_queue(efqd, d.coop);
		break;
	}
	if (ioq)
		efq_check_late_preemption(efqd, ioq);
	efqd->hold = false;
	return ioq;
}
EXPORT_SYMBOL_GPL(efq_select_queue);

/* --- preemption --------------------------------------------------------- */

static int efq_entity_depth(struct efq_entity *e)
{
	int depth = 0;

	for (e = e->parent; e && e->parent; e = e->parent)
		depth++;
	return depth;
}

/* Climb both entities until they are siblings under one parent. */
static void efq_find_matching_entity(struct efq_entity **new_e,
				     struct efq_entity **act_e)
{
	int new_depth = efq_entity_depth(*new_e);
	int act_depth = efq_entity_depth(*act_e);

	for (; new_depth > act_depth; new_depth--)
		*new_e = (*new_e)->parent;
	for (; act_depth > new_depth; act_depth--)
		*act_e = (*act_e)->parent;
	while ((*new_e)->parent != (*act_e)->parent) {
		*new_e = (*new_e)->parent;
		*act_e = (*act_e)->parent;
	}
}

/*
 * Do sync queues wait in the groups from @ioq's up to the group entity
 * @top?  Then a reader above must not jump over them.
 */
static bool efq_readers_below(struct efq_queue *ioq, struct efq_entity *top)
{
	struct efq_entity *e = &ioq->group->entity;

	for (; e; e = e->parent) {
		if (e->my_sd->nr_sync)
			return true;
		if (e == top)
			break;
	}
	return false;
}

/**
 * efq_async_yields() - does writeback in service end its turn for @rq?
 * @efqd: the device
 * @new_ioq: the queue @rq was added to, not the queue in service
 * @rq: the new request, which did not preempt
 *
 * Yes when the queue in service serves only async requests (writeback: an
 * async queue, or a single-queue scheduler's queue with no sync request
 * queued), its group has no sync request in flight (a reader's turn,
 * between a read and the next) and no reader waiting in it, the queue is
 * not waiting for a request of its own, and it has sent something in this
 * activation; @rq is sync and of another group; and
 * @rq's side is in turn: lifted to the sibling of the side in service
 * under their common parent, it is of the same class and its vdisktime is
 * not past the one the side in service started its turn with.  The next
 * selection would choose @rq's side (or another side as far behind) as
 * soon as the turn in service ended, so ending it early gives nobody disk
 * time out of turn: the queue in service is charged what it used, as at
 * any expiry.  Otherwise a process blocked on a sync request (a read, an
 * fsync's data or journal write) waits out a whole slice of another
 * group's writeback at every step, and an fsync'd commit takes several
 * such steps in up to three groups: the committing process's, the journal
 * thread's, and the one whose ordered data the journal waits for.
 *
 * The turn ends through must_expire, at the next selection, so the
 * scheduler may still refuse the expiry while it drains (AS), and with
 * fairness the requests in flight complete first.  The guard on the
 * activation keeps writeback alive under a stream of reads: it gets a
 * dispatch round every turn.
 *
 * Return: true if the queue in service should end its turn.
 */
static bool efq_async_yields(struct efq_data *efqd, struct efq_queue *new_ioq,
			     struct request *rq)
{
	struct efq_queue *ioq = efqd->active_queue;
	struct efq_entity *new_e = &new_ioq->entity, *act_e;

	if (!ioq || !rq_is_sync(rq) || new_ioq->group == ioq->group)
		return false;
	if (ioq->sync_pending || ioq->group->sync_flight ||
	    efq_queue_is_idling(efqd, ioq) || efq_queue_must_expire(ioq))
		return false;
	/*
	 * A sync queue with an idle window and requests in flight may idle
	 * for its process once they complete.  Not a single-queue
	 * scheduler's queue that holds writes only: its idle window (AS's)
	 * is for its readers, none of which has a request queued or in
	 * flight, and AS's anticipation of one is efq_queue_is_idling().
	 */
	if (ioq->dispatched && efq_queue_idle_window(ioq) &&
	    !(efqd->ops->features & EFQ_FEAT_SINGLE_QUEUE))
		return false;
	if (efq_queue_sync(ioq) &&
	    !(efqd->ops->features & EFQ_FEAT_SINGLE_QUEUE))
		return false;
	if (!ioq->dispatched && efq_queue_slice_new(ioq))
		return false;
	act_e = &ioq->entity;
	efq_find_matching_entity(&new_e, &act_e);
	if (new_e == act_e || new_e->ioprio_class != act_e->ioprio_class)
		return false;
	/* readers waiting in the groups in service keep their turn */
	if (!(efqd->ops->features & EFQ_FEAT_SINGLE_QUEUE) && act_e->my_sd &&
	    efq_readers_below(ioq, act_e))
		return false;
	return !efq_vdisktime_gt(new_e->vdisktime, act_e->vdisktime);
}

/*
 * Should a request @rq, just queued to @new_ioq, take the disk from the
 * queue in service?  Classes are compared between sibling entities; a sync
 * (or metadata) request in an ancestor group beats an async (non-metadata)
 * queue below it, unless readers wait in a group between the two;
 * otherwise only queues of the same group preempt each other.  The
 * exits follow the order of "Preemption" in
 * Documentation/block/io-controller.rst.
 */
static bool efq_should_preempt(struct efq_data *efqd,
			       struct efq_queue *new_ioq, struct request *rq,
			       bool group_wait_req)
{
	struct efq_queue *ioq = efqd->active_queue;
	struct efq_entity *new_e, *act_e;

	/* Nothing in service: the next selection takes the trees' order. */
	if (!ioq)
		return false;
	/*
	 * A single-queue scheduler never preempts.  Its queue is a whole
	 * group served in the scheduler's own order (deadline's batches,
	 * AS's anticipation), which any other group's arrival would cut
	 * short; the next selection orders the groups by class and
	 * vdisktime anyway (and writeback yields: efq_async_yields()).
	 */
	if (efqd->ops->features & EFQ_FEAT_SINGLE_QUEUE)
		return false;
	/*
	 * Classes are strict priorities at every level, so compare them as
	 * the selection would: between the two siblings under the common
	 * parent, not between the queues, whose own classes only rank them
	 * within their groups.  An RT entity does not wait out a BE slice,
	 * nor BE an IDLE one: the lower class has the disk only while the
	 * higher one has nothing to do.
	 */
	new_e = &new_ioq->entity;
	act_e = &ioq->entity;
	efq_find_matching_entity(&new_e, &act_e);

	if (new_e->ioprio_class == IOPRIO_CLASS_RT &&
	    act_e->ioprio_class != IOPRIO_CLASS_RT)
		return true;
	if (new_e->ioprio_class == IOPRIO_CLASS_BE &&
	    act_e->ioprio_class == IOPRIO_CLASS_IDLE)
		return true;
	/*
	 * The new queue itself is the sibling of a group holding the queue
	 * in service, i.e. it sits in an ancestor group.  Its process
	 * blocks on a sync request, and further IO waits for metadata,
	 * while nobody waits for an async write: a sync request beats an
	 * async queue below, and metadata a queue without.  Not when sync
	 * queues wait in the groups in between: the ancestor's reader
	 * would then jump over them and could starve the child groups'
	 * readers.
	 *
	 * A reader beats writers in a group below it, but only once the
	 * writer's queue has sent something in this activation: the next
	 * queue is chosen at a completion, before the reader whose request
	 * just completed sends its next one, so an unconditional rule would
	 * take every turn from the writer (liveness, seed E10).
	 */
	if (new_e == &new_ioq->entity && act_e->my_sd &&
	    !efq_readers_below(ioq, act_e) &&
	    (ioq->dispatched || !efq_queue_slice_new(ioq))) {
		if (efq_queue_sync(new_ioq) && !efq_queue_sync(ioq))
			return true;
		if (new_ioq->meta_pending && !ioq->meta_pending)
			return true;
	}
	/*
	 * Otherwise groups take turns by vdisktime only: a preemption would
	 * give the new group disk time out of turn, at the expense of the
	 * group in service's share (but writeback in service yields to a
	 * sync request whose group is in turn anyway: efq_async_yields()).
	 * A sync queue refused here marks its group for late preemption
	 * instead (efq_set_late_preemption()).
	 */
	if (new_ioq->group != ioq->group)
		return false;
	/*
	 * Same group.  The group was idling (group_idle) for a request and
	 * this is one: the request's queue takes the group's turn, which
	 * the queue in service has nothing left to use.
	 */
	if (group_wait_req)
		return true;
	/*
	 * Within one group the scheduler knows its queues best (cfq: an
	 * expired slice, the idle class, sync over async, metadata, a
	 * request close to where an idling queue left off).
	 */
	if (efqd->ops->should_preempt)
		return efqd->ops->should_preempt(efqd, new_ioq->sched_queue,
						 rq);
	/* No rule applies: the new queue waits for its turn on its tree. */
	return false;
}

static void efq_preempt_queue(struct efq_data *efqd, struct efq_queue *ioq)
{
	struct efq_queue *active = efqd->active_queue;

	efq_log_queue(ioq, "preempt");
	efq_may_expire(efqd, active, false, true);
	efq_expire_queue(efqd, active, EFQ_EXPIRE_PREEMPTED);
	efq_requeue_entity(&ioq->entity, true);
	efq_mark_queue_slice_new(ioq);
	efqd->nr_preempted++;
}

static void efq_set_late_preemption(struct efq_data *efqd,
				    struct efq_queue *ioq)
{
	struct efq_queue *active = efqd->active_queue;

	if (efqd->ops->features & EFQ_FEAT_SINGLE_QUEUE)
		return;
	if (!active || !efq_queue_sync(ioq))
		return;
	if (ioq->group != active->group && !ioq->group->late_preemption) {
		ioq->group->late_preemption = true;
		efq_log_queue(ioq, "set late preempt");
	}
}

/* --- request events ----------------------------------------------------- */

/*
 * May the device idle after this request completes?  Reads may; sync
 * writes only when the submitter announced more (REQ_IDLE).
 */
static bool efq_rq_may_idle(struct request *rq)
{
	if (!rq_is_sync(rq))
		return false;
	return !op_is_write(req_op(rq)) || (rq->cmd_flags & REQ_IDLE);
}

/**
 * efq_request_add() - a request was queued to @ioq
 * @efqd: the device
 * @ioq: the queue the scheduler put it in
 * @rq: the request
 *
 * Makes the queue busy if needed, ends idle waits the request answers and
 * decides preemption.
 */
void efq_request_add(struct efq_data *efqd, struct efq_queue *ioq,
		     struct request *rq)
{
	struct efq_group *iog = ioq->group;
	bool group_wait_req = false;

	lockdep_assert_held(&efqd->lock);
	/* blk-mq traces inserts only without a scheduler: blkparse's "I" */
	trace_block_rq_insert(rq);
	ioq->nr_queued++;
	efqd->nr_queued++;
	iog->nr_requests++;
	WRITE_ONCE(efqd->nr_held, efqd->nr_held + 1);
	if (rq->cmd_flags & REQ_META)
		ioq->meta_pending++;
	if (rq_is_sync(rq))
		ioq->sync_pending++;
	if (!efq_queue_busy(ioq))
		efq_add_busy(efqd, ioq);

	/*
	 * The group in service idles (group_idle) for a request of its own
	 * and this is one: the wait is over.  The branches below serve the
	 * request within the group's turn.
	 */
	if (efq_group_wait_request(iog)) {
		efq_timer_cancel(efqd);
		efq_clear_group_wait_request(iog);
		group_wait_req = true;
	}
	if (efq_group_wait_busy(iog)) {
		/*
		 * The group in service waited to get busy again after its
		 * queue's turn ended, and now is: the next selection expires
		 * the queue with the group still backlogged, keeping its
		 * place, which is all the wait was for.  Neither
		 * must_dispatch nor a preemption, since the turn is over
		 * anyway; wait_busy_done allows no second wait.
		 */
		efq_timer_cancel(efqd);
		efq_clear_group_wait_busy(iog);
		efq_mark_group_wait_busy_done(iog);
	} else if (ioq == efqd->active_queue) {
		/*
		 * More work for the queue in service, which cannot preempt
		 * itself.  If it or its group idled, the idle time charged to
		 * the queue was spent on this request: end the wait, and do
		 * not let a slice that ended meanwhile waste it.
		 */
		if (group_wait_req || efq_queue_wait_request(ioq)) {
			/* what we idled for: dispatch it even past the slice */
			efq_clear_queue_wait_request(ioq);
			efq_timer_cancel(efqd);
			efq_mark_queue_must_dispatch(ioq);
		}
	} else if (efq_should_preempt(efqd, ioq, rq, group_wait_req)) {
		/* another queue may take the disk at once: the rules there */
		efq_preempt_queue(efqd, ioq);
	} else if (efq_async_yields(efqd, ioq, rq)) {
		/*
		 * Writeback in service ends its turn at the next selection;
		 * inside the new group, the reader may still find an async
		 * queue of its own ahead of it: late preemption cuts that
		 * one's turn short too.
		 */
		efq_mark_queue_must_expire(efqd->active_queue);
		efqd->nr_yields++;
		efq_log_queue(ioq, "writeback in service yields");
		efq_set_late_preemption(efqd, ioq);
	} else {
		/*
		 * It waits for its turn; a sync queue refused across groups
		 * has its group's async queue cut short later (late
		 * preemption).
		 */
		efq_set_late_preemption(efqd, ioq);
	}
	/* blk-mq runs the hardware queue after the insert: it asks again */
	efq_update_hold(efqd, false);
	if (!efqd->hold)
		efqd->held_back = false;
}
EXPORT_SYMBOL_GPL(efq_request_add);

/*
 * A dispatched request of @iog left the driver: its group's count of sync
 * requests in flight (cfq_may_dispatch(), efq_async_yields()).
 */
static void efq_group_sync_done(struct efq_group *iog, struct request *rq)
{
	if (!rq_is_sync(rq))
		return;
	if (!WARN_ON_ONCE(!iog->sync_flight))
		iog->sync_flight--;
}

static void efq_group_rq_done(struct efq_data *efqd, struct efq_group *iog)
{
	/* a release without its request: neither count moves */
	if (WARN_ON_ONCE(!iog->nr_requests || !efqd->nr_held))
		return;
	iog->nr_requests--;
	WRITE_ONCE(efqd->nr_held, efqd->nr_held - 1);
}

static void efq_request_removed(struct efq_data *efqd, struct efq_queue *ioq,
				struct request *rq)
{
	if (!WARN_ON_ONCE(!ioq->nr_queued))
		ioq->nr_queued--;
	if (!WARN_ON_ONCE(!efqd->nr_queued))
		efqd->nr_queued--;
	if ((rq->cmd_flags & REQ_META) && !WARN_ON_ONCE(!ioq->meta_pending))
		ioq->meta_pending--;
	if (rq_is_sync(rq) && !WARN_ON_ONCE(!ioq->sync_pending))
		ioq->sync_pending--;
}

/*
 * @rq leaves the scheduler (dispatched or merged away): no bio or request
 * may join it from now on.  6.1's block core leaves this to the scheduler:
 * it sets q->last_merge after every merge and never clears it, and it does
 * not take a merged-away request off the elevator hash.  A stale
 * q->last_merge lets the next bio join a request the driver has (its data
 * never reaches the device) or a completed one (rq->bio is NULL:
 * blk_rq_merge_ok() oopses); a freed request left on the hash corrupts it
 * when its tag is reused.
 */
static void efq_rq_unlink(struct efq_data *efqd, struct request *rq)
{
	struct request_queue *q = efqd->queue;

	elv_rqhash_del(q, rq);
	if (q->last_merge == rq)
		q->last_merge = NULL;
}

/**
 * efq_bypass_insert() - keep a request out of the queues if it must be
 * @efqd: the device
 * @rq: a request the block core inserts
 * @at_head: the core inserts it at the head
 *
 * Two kinds of request are not the policy's to schedule, and go to the
 * device's bypass list, which is dispatched before any queue and whatever
 * the engine holds back (idling, anticipation, draining, a starved idle
 * class), as mq-deadline and bfq dispatch their own dispatch lists:
 *
 * - a write's data part within a flush sequence (RQF_FLUSH_SEQ).  6.1's
 *   core never gives one to the scheduler; 6.12's inserts a pre-flushed
 *   write's data part at the head from the requeue work, and an FUA write
 *   on a device without FUA (data, then a post-flush) at the tail like any
 *   write.  While either is held, every other flush of the device waits,
 *   up to 5 s (blk_kick_flush()'s FLUSH_PENDING_TIMEOUT).  Both bypass,
 *   as on 6.1: the price is that such a write escapes weights and classes
 *   (6.12's mq-deadline and bfq schedule the tail one, and hold it only
 *   briefly: no idling on it in mq-deadline);
 * - a request the scheduler did not prepare (efq_rq_sched_prepared()):
 *   6.12 may hand one over (a plug-cached request allocated for
 *   passthrough, reused for a read or write), and 6.1 an FUA-only write
 *   its driver requeued without RQF_DONTPREP; the core never calls
 *   finish_request for it, so the engine must not count it.
 *
 * Such a request holds no queue (efq leaves rq->elv.priv[] alone and never
 * reads it for the request: finish and requeue do nothing for a prepared
 * one, whose efq_rq_queue() is NULL, and are not called for the others)
 * and is charged to no group.
 *
 * Return: true if @rq went to the bypass list.
 */
bool efq_bypass_insert(struct efq_data *efqd, struct request *rq,
		       bool at_head)
{
	lockdep_assert_held(&efqd->lock);
	if (!(rq->rq_flags & RQF_FLUSH_SEQ) && efq_rq_sched_prepared(rq))
		return false;
	trace_block_rq_insert(rq);
	if (at_head)
		list_add(&rq->queuelist, &efqd->bypass);
	else
		list_add_tail(&rq->queuelist, &efqd->bypass);
	WRITE_ONCE(efqd->nr_bypass, efqd->nr_bypass + 1);
	return true;
}
EXPORT_SYMBOL_GPL(efq_bypass_insert);

/**
 * efq_bypass_dispatch() - the next request of the bypass list
 * @efqd: the device
 *
 * For the start of elevator_mq_ops.dispatch_request.  The request is
 * marked RQF_STARTED like every dispatched one.
 *
 * Return: the request, or NULL if the list is empty.
 */
struct request *efq_bypass_dispatch(struct efq_data *efqd)
{
	struct request *rq;

	lockdep_assert_held(&efqd->lock);
	rq = list_first_entry_or_null(&efqd->bypass, struct request,
				      queuelist);
	if (!rq)
		return NULL;
	list_del_init(&rq->queuelist);
	WRITE_ONCE(efqd->nr_bypass, efqd->nr_bypass - 1);
	rq->rq_flags |= RQF_STARTED;
	return rq;
}
EXPORT_SYMBOL_GPL(efq_bypass_dispatch);

/**
 * efq_rq_hash_add() - offer a queued request for back merges
 * @q: the request queue
 * @rq: a request just queued at the tail
 *
 * Puts @rq on the elevator hash if it may be merged into.  Not a discard
 * that the device takes as a list of ranges (max_discard_segments > 1):
 * 6.1's attempt_merge() merges those without calling requests_merged, so
 * the insert-merge chain of elv_attempt_insert_merge() would free a queued
 * discard behind the scheduler's back.  Such discards then merge only in
 * their submitter's plug.
 *
 * Return: true if @rq was hashed.
 */
bool efq_rq_hash_add(struct request_queue *q, struct request *rq)
{
	if (!rq_mergeable(rq) ||
	    (req_op(rq) == REQ_OP_DISCARD && queue_max_discard_segments(q) > 1))
		return false;
	elv_rqhash_add(q, rq);
	return true;
}
EXPORT_SYMBOL_GPL(efq_rq_hash_add);

/**
 * efq_request_merged_away() - a queued request was merged into another
 * @efqd: the device
 * @ioq: its queue
 * @rq: the request that goes away (the block core frees it)
 *
 * Takes @rq off the elevator hash and out of q->last_merge.  The request it
 * joined may belong to another queue: the insert-merge chain of
 * elv_attempt_insert_merge() merges queued requests found on the elevator
 * hash through attempt_merge(), which never asks the scheduler and
 * compares the operation, direction, priority and cgroup, not the queue,
 * so two processes reading adjacent sectors merge across their queues (and
 * one cgroup's requests across two queues of one group, e.g. one in the
 * fallback queue).  Then @ioq may lose its last request here.  A queue not
 * in service stops being busy at once: on its tree with nothing queued it
 * would be chosen for a slice with no request to give, and it would keep
 * the device's busy count (and its reference) past the scheduler's exit.
 * The queue in service stays; the next selection expires it or idles for
 * it, as when it dispatched its last request.
 */
void efq_request_merged_away(struct efq_data *efqd, struct efq_queue *ioq,
			     struct request *rq)
{
	lockdep_assert_held(&efqd->lock);
	efq_rq_unlink(efqd, rq);
	efq_request_removed(efqd, ioq, rq);
	efq_group_rq_done(efqd, ioq->group);
	/* @rq still holds @ioq (efq_rq_set_queue()): the put cannot free it */
	if (!ioq->nr_queued && efq_queue_busy(ioq) &&
	    ioq != efqd->active_queue) {
		efq_del_busy(efqd, ioq);
		/* has_work may change with the busy set */
		efq_update_hold(efqd, false);
	}
}
EXPORT_SYMBOL_GPL(efq_request_merged_away);

/* @rq left the driver (a completion or a requeue): @ioq's counts of it. */
static void efq_flight_done(struct efq_queue *ioq, struct request *rq)
{
	unsigned int n = efq_rq_flight_sectors(rq);

	if (!WARN_ON_ONCE(!ioq->dispatched))
		ioq->dispatched--;
	if (!WARN_ON_ONCE(n > ioq->flight_sectors))
		ioq->flight_sectors -= n;
}

/**
 * efq_request_dispatched() - a request of @ioq goes to the driver
 * @efqd: the device
 * @ioq: its queue
 * @rq: the request
 *
 * Takes @rq off the elevator hash and out of q->last_merge, and marks it
 * RQF_STARTED (as mq-deadline and bfq do), which rq_mergeable() refuses: a
 * requeued request that comes back keeps it and is never merged into.
 */
void efq_request_dispatched(struct efq_data *efqd, struct efq_queue *ioq,
			    struct request *rq)
{
	unsigned int n;

	lockdep_assert_held(&efqd->lock);
	/*
	 * The data it carries, for its completion (efq_rq_flight_sectors()):
	 * a discard or a write of zeroes moves none, and may span 4 GiB.
	 */
	n = rq->bio && bio_has_data(rq->bio) ? blk_rq_sectors(rq) : 0;
	rq->elv.priv[1] = (void *)((uintptr_t)n + 1);
	efq_rq_unlink(efqd, rq);
	rq->rq_flags |= RQF_STARTED;
	efq_request_removed(efqd, ioq, rq);
	ioq->dispatched++;
	ioq->flight_sectors += n;
	efqd->rq_in_driver++;
	if (rq_is_sync(rq))
		ioq->group->sync_flight++;
	ioq->nr_sectors += blk_rq_sectors(rq);
	efq_clear_queue_must_dispatch(ioq);
	efqd->held_back = false;
	/*
	 * blk-mq asks has_work again before its next dispatch: this one may
	 * have started a hold (the queue now waits for what it has in
	 * flight), and a dispatch that gives nothing after has_work said
	 * yes costs a delayed run of every hardware queue.
	 */
	efq_update_hold(efqd, false);
}
EXPORT_SYMBOL_GPL(efq_request_dispatched);

/**
 * efq_request_requeued() - the driver gave a dispatched request back
 * @efqd: the device
 * @ioq: its queue
 * @rq: the request; it will be added again with efq_request_add()
 */
void efq_request_requeued(struct efq_data *efqd, struct efq_queue *ioq,
			  struct request *rq)
{
	lockdep_assert_held(&efqd->lock);
	efq_flight_done(ioq, rq);
	if (!WARN_ON_ONCE(!efqd->rq_in_driver))
		efqd->rq_in_driver--;
	ioq->nr_sectors -= min_t(u64, ioq->nr_sectors, blk_rq_sectors(rq));
	efq_group_sync_done(ioq->group, rq);
	efq_group_rq_done(efqd, ioq->group);
	/*
	 * A hold may have been waiting for this request to complete (the
	 * fairness drain, idling with requests in flight).  A request the
	 * driver requeues with RQF_DONTPREP goes to hctx->dispatch and never
	 * comes back through the scheduler, so decide again now.
	 */
	efq_update_hold(efqd, true);
}
EXPORT_SYMBOL_GPL(efq_request_requeued);

/**
 * efq_rq_prepare() - a new request owes the engine nothing yet
 * @rq: the request (for elevator_mq_ops.prepare_request)
 */
void efq_rq_prepare(struct request *rq)
{
	rq->elv.priv[0] = NULL;
	rq->elv.priv[1] = NULL;
}
EXPORT_SYMBOL_GPL(efq_rq_prepare);

/**
 * efq_rq_set_queue() - @rq is queued to @ioq
 * @rq: the request
 * @ioq: its queue; the request holds a reference until it is finished
 */
void efq_rq_set_queue(struct request *rq, struct efq_queue *ioq)
{
	/* a request queued twice would leak its first reference */
	WARN_ON_ONCE(rq->elv.priv[0]);
	efq_get_queue(ioq);
	rq->elv.priv[0] = ioq;
}
EXPORT_SYMBOL_GPL(efq_rq_set_queue);

/**
 * efq_rq_clear_queue() - @rq is done with its queue
 * @rq: the request
 *
 * Forgets the queue efq_rq_set_queue() set and that the request was
 * dispatched, and drops the request's reference on the queue.  Called with
 * efqd->lock held: the reference may be the queue's last.
 */
void efq_rq_clear_queue(struct request *rq)
{
	struct efq_queue *ioq = efq_rq_queue(rq);

	efq_rq_prepare(rq);
	if (ioq)
		efq_put_queue(ioq);
}
EXPORT_SYMBOL_GPL(efq_rq_clear_queue);

/**
 * efq_rq_dispatched() - @rq leaves its queue for the driver
 * @efqd: the device
 * @rq: the request
 */
void efq_rq_dispatched(struct efq_data *efqd, struct request *rq)
{
	efq_request_dispatched(efqd, efq_rq_queue(rq), rq);
}
EXPORT_SYMBOL_GPL(efq_rq_dispatched);

/* The request is done with its queue: completed, merged away or requeued. */
static void efq_rq_release(struct request *rq, bool requeue)
{
	struct efq_queue *ioq = efq_rq_queue(rq);
	struct efq_data *efqd;
	unsigned long flags;

	if (!ioq)
		return;
	efqd = ioq->efqd;
	spin_lock_irqsave(&efqd->lock, flags);
	if (efq_rq_was_dispatched(rq) && requeue)
		efq_request_requeued(efqd, ioq, rq);
	else if (efq_rq_was_dispatched(rq))
		efq_request_completed(efqd, ioq, rq);
	efq_rq_clear_queue(rq);
	spin_unlock_irqrestore(&efqd->lock, flags);
}

/**
 * efq_finish_request() - elevator_mq_ops.finish_request for the engine
 * @rq: a request that completed, or was merged away before dispatch
 */
void efq_finish_request(struct request *rq)
{
	efq_rq_release(rq, false);
}
EXPORT_SYMBOL_GPL(efq_finish_request);

/**
 * efq_requeue_request() - elevator_mq_ops.requeue_request for the engine
 * @rq: a dispatched request the driver gave back; it is inserted again
 */
void efq_requeue_request(struct request *rq)
{
	efq_rq_release(rq, true);
}
EXPORT_SYMBOL_GPL(efq_requeue_request);

/**
 * efq_bio_merge() - elevator_mq_ops.bio_merge for the engine's schedulers
 * @q: the request queue
 * @bio: the bio to merge into a queued request
 * @nr_segs: its segments
 *
 * Return: true if @bio was merged (a request it made redundant is freed).
 */
bool efq_bio_merge(struct request_queue *q, struct bio *bio,
		   unsigned int nr_segs)
{
	struct efq_data *efqd = q->elevator->elevator_data;
	struct request *free = NULL;
	bool ret;

	spin_lock_irq(&efqd->lock);
	ret = blk_mq_sched_try_merge(q, bio, nr_segs, &free);
	spin_unlock_irq(&efqd->lock);
	if (free)
		blk_mq_free_request(free);
	return ret;
}
EXPORT_SYMBOL_GPL(efq_bio_merge);

/**
 * efq_allow_merge() - elevator_mq_ops.allow_merge: never across groups
 * @q: the request queue
 * @rq: a queued request (its queue set by efq_rq_set_queue())
 * @bio: the bio that would join it
 *
 * Return: true if @bio belongs to the group of @rq's queue.
 */
bool efq_allow_merge(struct request_queue *q, struct request *rq,
		     struct bio *bio)
{
	struct efq_data *efqd = q->elevator->elevator_data;
	struct efq_queue *ioq = efq_rq_queue(rq);

	lockdep_assert_held(&efqd->lock);
	return ioq && efq_queue_group(ioq) == efq_group_of_bio(efqd, bio);
}
EXPORT_SYMBOL_GPL(efq_allow_merge);

/* A request of the queue in service completed. */
static void efq_active_completed(struct efq_data *efqd, struct efq_queue *ioq,
				 struct request *rq)
{
	struct efq_group *iog = ioq->group;
	/*
	 * The completion's time, read once for the slice and the expiry
	 * alike, and only where they need it: an untimed queue asks nothing
	 * after its first completion.
	 */
	bool have_now = false, used;
	u64 now = 0;

	/*
	 * The slice starts at the first completion of the activation, not
	 * at activation: on a deep device queue the time before it belongs
	 * partly to the previous queue's requests still in the driver.
	 */
	if (efq_queue_slice_new(ioq)) {
		now = ktime_get_ns();
		have_now = true;
		ioq->slice_start = now;
		ioq->slice_end = now + efq_queue_slice(efqd, ioq);
		efq_clear_queue_slice_new(ioq);
		efq_log_queue(ioq, "set_slice=%llu",
			      (unsigned long long)(ioq->slice_end - now));
	}
	/*
	 * A single-queue scheduler alone on the device runs untimed (see
	 * efq_decide()): no slice to check, no idling.  Should a group
	 * appear, the run so far is charged as one slice at most.
	 */
	if (efq_single_queue_untimed(efqd)) {
		efq_mark_queue_charge_one_slice(ioq);
		return;
	}
	if (!have_now)
		now = ktime_get_ns();
	used = efq_queue_slice_used_at(ioq, now);
	/*
	 * The turn is over (slice used, or the idle class's round), in this
	 * order of preference:
	 * - the group's last backlogged queue is empty: wait group_idle,
	 *   as a wait-busy, for the group to get busy again, since the
	 *   expiry would take the group off its tree and lose its place;
	 * - the same with group_idle = 0, for a queue with an idle window
	 *   that used its slice: the short fixed wait-busy grace;
	 * - fairness: let the queue's requests in the driver complete
	 *   first, so that their time is charged to it; the completion of
	 *   the last one comes back here to decide again;
	 * - else expire it now, unless the scheduler vetoes (which marks
	 *   must_expire, for efq_decide() to ask again).
	 */
	if (used || efq_queue_class_idle(ioq)) {
		if (efq_group_should_idle(ioq))
			efq_arm_group_timer(efqd, iog, true);
		else if (efq_queue_should_wait_busy(ioq, used))
			efq_arm_wait_busy_timer(efqd, ioq);
		else if (efqd->fairness && ioq->dispatched)
			return;
		else if (efq_may_expire(efqd, ioq, true, false))
			__efq_expire_queue(efqd, ioq, EFQ_EXPIRE_COMPLETION,
					   now);
		return;
	}
	/*
	 * Slice left, and the queue has gone empty: its scheduler may idle
	 * for its next request (slice_idle), as a sync reader's usually
	 * follows this completion after a short think time, and serving
	 * another queue meanwhile would cost seeks and the reader its
	 * slice.  Not when a cooperator is at hand (efq_decide() switches
	 * to it instead), nor after an async request or a sync write
	 * without REQ_IDLE: no follow-up is coming soon.
	 */
	if (!ioq->nr_queued && !efq_cooperator(efqd, ioq) &&
	    efq_rq_may_idle(rq) && efqd->ops->arm_slice_timer)
		efqd->ops->arm_slice_timer(efqd, ioq->sched_queue);
	/*
	 * And once the last request of the group's last backlogged queue
	 * has completed, the group waits group_idle for a request before
	 * another group gets the disk: a group that empties loses its
	 * place, and with it its share.  There is one timer per device: a
	 * queue's own wait covers the group if it lasts as long; a shorter
	 * one (a seeky queue's) gives way to the group's, as in CFQ, where
	 * group idling replaced the idling a queue was not worth.
	 */
	if (efq_group_should_idle(ioq) && !ioq->dispatched &&
	    (!efq_queue_is_idling(efqd, ioq) ||
	     (efqd->idle_armed &&
	      time_after64(now + efqd->group_idle, efqd->idle_end))))
		efq_arm_group_timer(efqd, iog, false);
	/*
	 * nothing left anywhere and nothing to wait for: do not charge idling.
	 * The only busy queue is fully idle.  Kept in service, its groups
	 * (and with fairness the queue too) would be charged the time the
	 * disk sits unused until another queue's request ends its turn.
	 * (With other queues busy, the next selection expires it anyway.)
	 */
	if (efqd->busy_queues == 1 && !ioq->dispatched && !ioq->nr_queued &&
	    !efq_queue_is_idling(efqd, ioq) &&
	    efq_may_expire(efqd, ioq, false, false))
		__efq_expire_queue(efqd, ioq, EFQ_EXPIRE_LAST_EMPTY, now);
}

/**
 * efq_request_completed() - a dispatched request of @ioq completed
 * @efqd: the device
 * @ioq: its queue
 * @rq: the request
 *
 * Starts the slice at the first completion of an activation, and decides
 * between expiring the queue in service and idling for it.  Runs the
 * hardware queues when that ends a hold (efq_update_hold()).
 */
void efq_request_completed(struct efq_data *efqd, struct efq_queue *ioq,
			   struct request *rq)
{
	lockdep_assert_held(&efqd->lock);
	if (!WARN_ON_ONCE(!efqd->rq_in_driver))
		efqd->rq_in_driver--;
	efq_flight_done(ioq, rq);
	if (rq_is_sync(rq) && rq->start_time_ns) {
		u64 now = ktime_get_ns();

		if (now - rq->start_time_ns > EFQ_SYNC_DELAYED_NS)
			efqd->last_delayed_sync = now;
	}
	efq_group_sync_done(ioq->group, rq);
	efq_group_rq_done(efqd, ioq->group);
	if (ioq == efqd->active_queue)
		efq_active_completed(efqd, ioq, rq);
	efq_update_hold(efqd, true);
}
EXPORT_SYMBOL_GPL(efq_request_completed);

/* --- sysfs tunables ----------------------------------------------------- */

/* The most of a refused write efq_warn_bad_tunable() shows. */
#define EFQ_BAD_TEXT_MAX	32

/**
 * efq_warn_bad_tunable() - say why a tunable write was refused
 * @e: the elevator the tunable belongs to
 * @name: the tunable's file name
 * @page: what was written (sysfs passes it NUL-terminated)
 * @count: its length
 * @err: the kstrto*() error: -ERANGE for a number too large, else -EINVAL
 *
 * Ratelimited (one state for every scheduler's tunables): the writer may
 * repeat the write in a loop.  At most EFQ_BAD_TEXT_MAX bytes of @page are
 * shown, without the final newline, every byte that is not printable ASCII
 * as '?', so that no control character reaches the log.
 */
void efq_warn_bad_tunable(struct elevator_queue *e, const char *name,
			  const char *page, size_t count, int err)
{
	struct efq_data *efqd = e->elevator_data;
	char text[EFQ_BAD_TEXT_MAX + 1];
	size_t i, n = count;

	if (n && page[n - 1] == '\n')
		n--;
	for (i = 0; i < n && i < EFQ_BAD_TEXT_MAX; i++)
		text[i] = page[i] >= ' ' && page[i] <= '~' ? page[i] : '?';
	text[i] = '\0';
	pr_warn_ratelimited("efq: %s: %s: %s: \"%s\"%s is %s\n",
			    efqd->queue->disk ? efqd->queue->disk->disk_name : "?",
			    e->type->elevator_name, name, text,
			    n > i ? "..." : "",
			    err == -ERANGE ? "too large a number" : "not a number");
}
EXPORT_SYMBOL_GPL(efq_warn_bad_tunable);

/**
 * efq_tunable_show() - the sysfs show of a tunable
 * @e: the elevator the tunable belongs to
 * @page: the sysfs page
 * @t: the tunable
 *
 * Return: the length of "VALUE\n", VALUE in the unit of @t (whole
 * milliseconds for EFQ_TUNE_MS).
 */
ssize_t efq_tunable_show(struct elevator_queue *e, char *page,
			 const struct efq_tunable *t)
{
	struct efq_data *efqd = e->elevator_data;
	u64 v;

	spin_lock_irq(&efqd->lock);
	t->rw(efqd, &v, false);
	spin_unlock_irq(&efqd->lock);
	if (t->flags & EFQ_TUNE_MS)
		v = div_u64(v, NSEC_PER_MSEC);
	return sysfs_emit(page, "%llu\n", (unsigned long long)v);
}
EXPORT_SYMBOL_GPL(efq_tunable_show);

/**
 * efq_tunable_store() - the sysfs store of a tunable
 * @e: the elevator the tunable belongs to
 * @page: what was written (sysfs passes it NUL-terminated)
 * @count: its length
 * @t: the tunable
 *
 * A decimal number from 0 up (kstrtoull()), or with EFQ_TUNE_SIGNED any
 * 64-bit signed one (kstrtoll()), a negative one clamping to the minimum;
 * clamped to @t->min..@t->max and stored by @t->rw under efqd->lock.
 *
 * Return: @count; -EINVAL (after efq_warn_bad_tunable()) for any other
 * write; or the -errno of @t->rw, -EBUSY (a tunable that only changes
 * while no request is queued: hierarchical) with a ratelimited message.
 */
ssize_t efq_tunable_store(struct elevator_queue *e, const char *page,
			  size_t count, const struct efq_tunable *t)
{
	struct efq_data *efqd = e->elevator_data;
	unsigned long long v;
	long long s;
	int ret;

	if (t->flags & EFQ_TUNE_SIGNED) {
		ret = kstrtoll(page, 10, &s);
		v = ret || s < 0 ? 0 : s;
	} else {
		ret = kstrtoull(page, 10, &v);
	}
	if (ret) {
		efq_warn_bad_tunable(e, t->file, page, count, ret);
		return -EINVAL;
	}
	v = clamp_t(u64, v, t->min, t->max);
	if (t->flags & EFQ_TUNE_MS)
		v *= NSEC_PER_MSEC;
	spin_lock_irq(&efqd->lock);
	ret = t->rw(efqd, &v, true);
	spin_unlock_irq(&efqd->lock);
	if (ret > 0)
		blk_mq_run_hw_queues(efqd->queue, true);
	if (ret == -EBUSY)
		pr_warn_ratelimited("efq: %s: %s: %s: not changed while requests are queued (write it while the device is idle)\n",
				    efqd->queue->disk ?
				    efqd->queue->disk->disk_name : "?",
				    e->type->elevator_name, t->file);
	return ret < 0 ? ret : count;
}
EXPORT_SYMBOL_GPL(efq_tunable_store);

/*
 * The engine's tunables: external (EFQ_DECLARE_ATTR()), their show and
 * store exported for the schedulers' tables (EFQ_ATTR()).
 */
__EFQ_TUNABLE(slice_sync, efq, efqd->slice[1], 1, UINT_MAX, EFQ_TUNE_MS,
	      EFQ_TUNE_STORE)
EXPORT_SYMBOL_GPL(efq_slice_sync_show);
EXPORT_SYMBOL_GPL(efq_slice_sync_store);
__EFQ_TUNABLE(slice_async, efq, efqd->slice[0], 1, UINT_MAX, EFQ_TUNE_MS,
	      EFQ_TUNE_STORE)
EXPORT_SYMBOL_GPL(efq_slice_async_show);
EXPORT_SYMBOL_GPL(efq_slice_async_store);
__EFQ_TUNABLE(group_idle, efq, efqd->group_idle, 0, EFQ_IDLE_MAX_MS,
	      EFQ_TUNE_MS, EFQ_TUNE_STORE)
EXPORT_SYMBOL_GPL(efq_group_idle_show);
EXPORT_SYMBOL_GPL(efq_group_idle_store);
__EFQ_TUNABLE(fairness, efq, efqd->fairness, 0, 1, EFQ_TUNE_NUM,
	      EFQ_TUNE_STORE)
EXPORT_SYMBOL_GPL(efq_fairness_show);
EXPORT_SYMBOL_GPL(efq_fairness_store);
__EFQ_TUNABLE(hierarchical, efq, efqd->hierarchical, 0, 1, EFQ_TUNE_NUM,
	      efq_set_hierarchical(efqd, val))
EXPORT_SYMBOL_GPL(efq_hierarchical_show);
EXPORT_SYMBOL_GPL(efq_hierarchical_store);
__EFQ_TUNABLE(nr_group_requests, efq, efqd->nr_group_requests,
	      EFQ_MIN_GROUP_REQUESTS, UINT_MAX, EFQ_TUNE_NUM, EFQ_TUNE_STORE)
EXPORT_SYMBOL_GPL(efq_nr_group_requests_show);
EXPORT_SYMBOL_GPL(efq_nr_group_requests_store);

/**
 * efq_limit_depth() - elevator_mq_ops.limit_depth: per-group request caps
 * @opf: the request's operation and flags
 * @data: the tag allocation; its shallow depth is set here
 *
 * A group holding nr_group_requests requests (queued or in flight) gets a
 * shallow depth that leaves it one tag of each word of the tag map
 * (efq_shallow_one_per_word(): 1 where sbitmap applies the depth per word,
 * as 6.1's does; the number of words where it applies it to the whole
 * map, as Debian's 6.12 does), so its submitters wait while other groups
 * still find tags (the blk-mq form of V10's per-group request lists).  The
 * depth holds for the whole wait of the allocation that got it.  In flat mode, and while no cgroup
 * sent IO yet, there is nobody to protect and nothing is capped.  The
 * group is the submitting task's; writeback submitted by a flusher thread
 * counts against the flusher's group here, although its requests are the
 * dirtier's.  Without the lock where nothing can be capped (flat mode, no
 * cgroup, or fewer requests on the device than one group may hold): the
 * cap is advisory anyway (a group's count changes as soon as the lock is
 * dropped), and this runs for every request (review lead 11).
 */
void efq_limit_depth(blk_opf_t opf, struct blk_mq_alloc_data *data)
{
	struct efq_data *efqd = data->q->elevator->elevator_data;
	struct efq_group *iog;

	if (!READ_ONCE(efqd->hierarchical) || list_empty(&efqd->group_list))
		return;
	/*
	 * No group can be at its cap while all groups together hold fewer
	 * than nr_group_requests: then the group's lookup (the lock and the
	 * blkg walk, once per request) decides nothing.  nr_held is one
	 * counter, read once: a sum of two counters read apart could miss a
	 * request moving from one to the other and let a capped group
	 * through.  It may be stale by the time the tag is taken, as every
	 * count is once the lock is dropped: the cap is advisory.
	 */
	if (READ_ONCE(efqd->nr_held) < READ_ONCE(efqd->nr_group_requests))
		return;
	spin_lock_irq(&efqd->lock);
	iog = efq_group_of_current(efqd);
	/*
	 * A cap only matters while there is another group to protect; flat
	 * mode has one group, whatever groups an earlier hierarchical period
	 * left on group_list (review lead 12).
	 */
	if (efqd->hierarchical && !list_empty(&efqd->group_list) &&
	    iog->nr_requests >= efqd->nr_group_requests)
		data->shallow_depth =
			efq_shallow_one_per_word(&data->hctx->sched_tags->bitmap_tags);
	spin_unlock_irq(&efqd->lock);
}
EXPORT_SYMBOL_GPL(efq_limit_depth);

/*
 * efq_limit_depth() hands out efq_shallow_one_per_word(); sbitmap must be
 * told the smallest shallow depth in use, or its batched wake-ups could
 * leave a waiter asleep with tags free.
 */
static void efq_hctx_depth_updated(struct blk_mq_hw_ctx *hctx)
{
	struct sbitmap_queue *bt = &hctx->sched_tags->bitmap_tags;

	sbitmap_queue_min_shallow_depth(bt, efq_shallow_one_per_word(bt));
}

/**
 * efq_depth_updated() - elevator_mq_ops.depth_updated
 * @arg: what the kernel passes (efq_depth_updated_t): the hardware queue
 *	whose scheduler tags changed (nr_requests), or the request queue
 *
 * Tells each hardware queue's scheduler tags the smallest shallow depth
 * efq_limit_depth() hands out.
 */
void efq_depth_updated(efq_depth_updated_t arg)
{
	efq_depth_updated_each(arg, efq_hctx_depth_updated);
}
EXPORT_SYMBOL_GPL(efq_depth_updated);

/**
 * efq_init_hctx() - elevator_mq_ops.init_hctx
 * @hctx: the hardware queue
 * @hctx_idx: its index
 *
 * Return: 0.
 */
int efq_init_hctx(struct blk_mq_hw_ctx *hctx, unsigned int hctx_idx)
{
	efq_hctx_depth_updated(hctx);
	return 0;
}
EXPORT_SYMBOL_GPL(efq_init_hctx);

/* --- device lifetime ---------------------------------------------------- */

/**
 * efq_set_hierarchical() - switch group scheduling on or off
 * @efqd: the device
 * @on: true for hierarchical, false for flat (every queue in the root)
 *
 * Return: 0, or -EBUSY while requests are queued.
 */
int efq_set_hierarchical(struct efq_data *efqd, bool on)
{
	lockdep_assert_held(&efqd->lock);
	if (efqd->nr_queued || efqd->busy_queues)
		return -EBUSY;
	/* efq_limit_depth() reads it without the lock */
	WRITE_ONCE(efqd->hierarchical, on);
	return 0;
}
EXPORT_SYMBOL_GPL(efq_set_hierarchical);

/**
 * efq_group_stats() - what the engine accounted to a cgroup's group
 * @q: a queue run by one of efq's schedulers
 * @blkg: the cgroup's blkg on @q, or NULL for the root group
 * @stats: filled in if the function returns true
 *
 * For code outside the engine that reports per group (efqsim's results):
 * the group that serves @blkg's requests, found as efq_group_of_blkg()
 * finds it (which links it into the hierarchy on first use), and its
 * accounting.  @q must run one of efq's schedulers and stay on it for
 * the call (no scheduler switch), and the caller holds a reference on
 * @blkg.  The lookup links the group into the hierarchy, which changes
 * what the engine does next: read the stats once a run is over.
 *
 * Return: true with @stats filled in; false, leaving @stats alone, if
 * @blkg's requests go to the root group (flat mode, or neither its cgroup
 * nor any ancestor below the root has a live group).
 */
bool efq_group_stats(struct request_queue *q, struct blkcg_gq *blkg,
		     struct efq_group_stats *stats)
{
	struct efq_data *efqd = q->elevator->elevator_data;
	struct efq_group *iog;
	unsigned long flags;

	spin_lock_irqsave(&efqd->lock, flags);
	iog = blkg ? efq_group_of_blkg(efqd, blkg) : efqd->root_group;
	if (blkg && iog == efqd->root_group)
		iog = NULL;
	if (iog) {
		stats->weight = iog->entity.weight;
		stats->ioprio_class = iog->entity.ioprio_class;
		stats->disk_time = iog->entity.total_time;
		stats->disk_sectors = iog->entity.total_sectors;
		stats->nr_enqueued = iog->entity.nr_enqueued;
		stats->nr_dequeued = iog->entity.nr_dequeued;
	}
	spin_unlock_irqrestore(&efqd->lock, flags);
	return iog;
}
EXPORT_SYMBOL_GPL(efq_group_stats);

/* --- debugfs ------------------------------------------------------------- */
#ifdef CONFIG_BLK_DEBUG_FS

static const char *const efq_expire_names[EFQ_EXPIRE_NR] = {
	[EFQ_EXPIRE_SLICE_USED]		= "slice_used",
	[EFQ_EXPIRE_IDLE_CLASS]		= "idle_class",
	[EFQ_EXPIRE_COMPLETION]		= "completion",
	[EFQ_EXPIRE_EMPTY]		= "empty",
	[EFQ_EXPIRE_COOPERATOR]		= "cooperator",
	[EFQ_EXPIRE_FORCED]		= "forced",
	[EFQ_EXPIRE_PREEMPTED]		= "preempted",
	[EFQ_EXPIRE_IDLE_TIMEOUT]	= "idle_timeout",
	[EFQ_EXPIRE_WAIT_BUSY_TIMEOUT]	= "wait_busy_timeout",
	[EFQ_EXPIRE_LAST_EMPTY]		= "last_empty",
	[EFQ_EXPIRE_MUST_EXPIRE]	= "must_expire",
	[EFQ_EXPIRE_SCHED]		= "sched",
};

static const char efq_class_letter[] = "?rbi";

/* Enough for a cgroup path in debugging output; longer ones are cut. */
#define EFQ_PATH_LEN	128

static void efq_debugfs_queue(struct seq_file *m, struct efq_data *efqd,
			      struct efq_queue *ioq, char *path)
{
	u64 now = ktime_get_ns();

	efq_group_path(efqd, efq_queue_group(ioq), path, EFQ_PATH_LEN);
	seq_printf(m, "pid=%d class=%c prio=%u %s group=%s queued=%u dispatched=%u",
		   ioq->pid, efq_class_letter[ioq->entity.ioprio_class & 3],
		   ioq->ioprio, efq_queue_sync(ioq) ? "sync" : "async", path,
		   ioq->nr_queued, ioq->dispatched);
	if (!efq_queue_slice_new(ioq) && ioq->slice_end)
		seq_printf(m, " slice_left_us=%lld",
			   div_s64((s64)(ioq->slice_end - now), NSEC_PER_USEC));
}

/*
 * Begin a debugfs show: take efq_debugfs_lock() and find the device.  On
 * success *@efqd is NULL, with nothing held, once @q's elevator is no
 * longer one of efq's (7.x removes the files after the switch that ended
 * the scheduler; efq-compat-7.2.h), else the device, with the lock held
 * until efq_debugfs_unlock().  Every efq scheduler's limit_depth is
 * efq_limit_depth().
 */
static int efq_debugfs_enter(struct request_queue *q, struct efq_data **efqd)
{
	struct elevator_queue *e;
	int ret = efq_debugfs_lock(q);

	*efqd = NULL;
	if (ret)
		return ret;
	e = q->elevator;
	if (e && e->type->ops.limit_depth == efq_limit_depth)
		*efqd = e->elevator_data;
	else
		efq_debugfs_unlock(q);
	return 0;
}

/**
 * efq_debugfs_state_show() - debugfs "state": what the engine is doing
 * @data: the request queue
 * @m: the output
 *
 * The queue in service and its group, the counters that decide dispatch,
 * and why queues were expired so far.
 *
 * Return: 0.
 */
int efq_debugfs_state_show(void *data, struct seq_file *m)
{
	struct request_queue *q = data;
	struct efq_data *efqd;
	char *path;
	int i, ret;

	path = kmalloc(EFQ_PATH_LEN, GFP_KERNEL);
	if (!path)
		return -ENOMEM;
	ret = efq_debugfs_enter(q, &efqd);
	if (ret || !efqd)
		goto free;
	spin_lock_irq(&efqd->lock);
	seq_printf(m, "hierarchical=%d fairness=%u\n", efqd->hierarchical,
		   efqd->fairness);
	seq_printf(m, "busy_queues=%u queued=%u in_driver=%u hold=%d idle_armed=%d bypass=%u\n",
		   efqd->busy_queues, efqd->nr_queued, efqd->rq_in_driver,
		   efqd->hold, efqd->idle_armed, efqd->nr_bypass);
	seq_puts(m, "active_queue: ");
	if (efqd->active_queue)
		efq_debugfs_queue(m, efqd, efqd->active_queue, path);
	else
		seq_puts(m, "none");
	seq_puts(m, "\nexpired:");
	for (i = 0; i < EFQ_EXPIRE_NR; i++)
		seq_printf(m, " %s=%lu", efq_expire_names[i],
			   efqd->nr_expired[i]);
	seq_printf(m, "\npreempted=%lu yields=%lu\n", efqd->nr_preempted,
		   efqd->nr_yields);
	spin_unlock_irq(&efqd->lock);
	efq_debugfs_unlock(q);
free:
	kfree(path);
	return ret;
}
EXPORT_SYMBOL_GPL(efq_debugfs_state_show);

/* One group's three trees: each entity with its key and weight. */
static void efq_debugfs_group(struct seq_file *m, struct efq_data *efqd,
			      struct efq_group *iog, char *path)
{
	int c;

	efq_group_path(efqd, iog, path, EFQ_PATH_LEN);
	seq_printf(m, "group %s weight=%u class=%c vdisktime=%llu time_ms=%llu sectors=%llu\n",
		   path, iog->entity.weight,
		   efq_class_letter[iog->entity.ioprio_class & 3],
		   iog->entity.vdisktime,
		   div_u64(iog->entity.total_time, NSEC_PER_MSEC),
		   iog->entity.total_sectors);
	for (c = 0; c < EFQ_NR_CLASSES; c++) {
		struct efq_service_tree *st = &iog->sched_data.service_tree[c];
		struct rb_node *n;

		if (!st->nr_active && !st->active_entity)
			continue;
		seq_printf(m, "  %c min_vdisktime=%llu active=%u\n",
			   efq_class_letter[c + 1], st->min_vdisktime,
			   st->nr_active);
		for (n = rb_first_cached(&st->active); n; n = rb_next(n)) {
			struct efq_entity *e = rb_entry(n, struct efq_entity,
							rb_node);

			seq_printf(m, "    key=%lld weight=%u ",
				   (s64)(e->vdisktime - st->min_vdisktime),
				   e->weight);
			if (e->my_sd) {
				efq_group_path(efqd, container_of(e, struct efq_group, entity),
					       path, EFQ_PATH_LEN);
				seq_printf(m, "group %s\n", path);
			} else {
				seq_printf(m, "queue pid=%d\n",
					   container_of(e, struct efq_queue,
							entity)->pid);
			}
		}
	}
}

/**
 * efq_debugfs_trees_show() - debugfs "service_trees": every linked group
 * @data: the request queue
 * @m: the output
 *
 * Per group (the root first), its weight and virtual time, then per class
 * the backlogged entities in service order with their keys
 * (vdisktime - min_vdisktime).
 *
 * Return: 0.
 */
int efq_debugfs_trees_show(void *data, struct seq_file *m)
{
	struct request_queue *q = data;
	struct efq_data *efqd;
	struct efq_group *iog;
	char *path;
	int ret;

	path = kmalloc(EFQ_PATH_LEN, GFP_KERNEL);
	if (!path)
		return -ENOMEM;
	ret = efq_debugfs_enter(q, &efqd);
	if (ret || !efqd)
		goto free;
	spin_lock_irq(&efqd->lock);
	efq_debugfs_group(m, efqd, efqd->root_group, path);
	list_for_each_entry(iog, &efqd->group_list, efqd_node)
		efq_debugfs_group(m, efqd, iog, path);
	spin_unlock_irq(&efqd->lock);
	efq_debugfs_unlock(q);
free:
	kfree(path);
	return ret;
}
EXPORT_SYMBOL_GPL(efq_debugfs_trees_show);
#endif /* CONFIG_BLK_DEBUG_FS */

/**
 * efq_data_init() - set up fair queuing for a device
 * @q: the request queue
 * @eq: the elevator being initialised; its elevator_data becomes the
 *	returned efq_data (schedulers find their own data in sched_data)
 * @ops: the scheduler
 * @sched_data: the scheduler's per-device data
 *
 * Creates the root group, the fallback queue and, for single-queue
 * schedulers, the root group's queue, publishes @eq as q->elevator and
 * activates the efq blkcg policy on @q (on failure q->elevator is NULL
 * again).  Hierarchical mode is on.
 *
 * Return: the new efq_data or an ERR_PTR().
 */
struct efq_data *efq_data_init(struct request_queue *q,
			       struct elevator_queue *eq,
			       const struct efq_sched_ops *ops,
			       void *sched_data)
{
	struct efq_data *efqd;
	struct efq_group *root;
	int ret = -ENOMEM;

	if (WARN_ON_ONCE(!ops->free_sched_queue))
		return ERR_PTR(-EINVAL);
	if (WARN_ON_ONCE((ops->features & EFQ_FEAT_SINGLE_QUEUE) &&
			 !ops->alloc_sched_queue))
		return ERR_PTR(-EINVAL);
	efqd = kzalloc_node(sizeof(*efqd), GFP_KERNEL, q->node);
	if (!efqd)
		return ERR_PTR(-ENOMEM);
	spin_lock_init(&efqd->lock);
	efqd->queue = q;
	efqd->ops = ops;
	efqd->sched_data = sched_data;
	INIT_LIST_HEAD(&efqd->group_list);
	INIT_LIST_HEAD(&efqd->bypass);
	efqd->dev = q->disk ? disk_devt(q->disk) : 0;
	efqd->slice[0] = EFQ_SLICE_ASYNC_NS;
	efqd->slice[1] = EFQ_SLICE_SYNC_NS;
	efqd->group_idle = EFQ_GROUP_IDLE_NS;
	efqd->nr_group_requests = EFQ_NR_GROUP_REQUESTS;
	efqd->hierarchical = true;
	efq_hrtimer_setup(&efqd->idle_timer, efq_idle_timer_fn, CLOCK_MONOTONIC,
			  HRTIMER_MODE_REL);

	root = efq_group_alloc(GFP_KERNEL, q->node);
	if (!root)
		goto free_efqd;
	efq_group_init(root, EFQ_WEIGHT_DEFAULT, IOPRIO_CLASS_BE);
	root->efqd = efqd;
	root->dev = efqd->dev;
	efqd->root_group = root;

	efq_queue_init(efqd, &efqd->oom_queue, 0, false, NULL);
	efq_queue_set_group(&efqd->oom_queue, root);

	if ((ops->features & EFQ_FEAT_SINGLE_QUEUE) &&
	    !efq_new_single_queue(efqd, root, GFP_KERNEL))
		goto put_root;

	/*
	 * The elevator is published before the policy is activated, as bfq
	 * does: from then on a group's callbacks and the statistics files
	 * find the device through q->elevator.
	 */
	eq->elevator_data = efqd;
	spin_lock_irq(&q->queue_lock);
	q->elevator = eq;
	spin_unlock_irq(&q->queue_lock);
	ret = efq_cgroup_activate(efqd);
	if (ret)
		goto put_queues;
	/*
	 * Writeback throttling would second-guess the weights; it comes back
	 * when the scheduler goes (efq_data_exit()), as with bfq.
	 */
	efq_wbt_disable(q);
	/* efq_limit_depth() splits the tags itself: no async_depth of its own */
	efq_init_async_depth(q);
	return efqd;

put_queues:
	spin_lock_irq(&q->queue_lock);
	q->elevator = NULL;
	spin_unlock_irq(&q->queue_lock);
	eq->elevator_data = NULL;
	spin_lock_irq(&efqd->lock);
	efq_group_put_queues(root);
	spin_unlock_irq(&efqd->lock);
put_root:
	/* the fallback queue's reference, then the device's, which frees efqd */
	efq_put_group(root);
	efq_put_group(root);
	return ERR_PTR(ret);
free_efqd:
	kfree(efqd);
	return ERR_PTR(ret);
}
EXPORT_SYMBOL_GPL(efq_data_init);

/**
 * efq_data_exit() - tear down fair queuing for a device
 * @efqd: the device
 *
 * Call from exit_sched before freeing the scheduler's own data: queues
 * still cached release their scheduler queues through the ops.  The
 * device must be drained: no request may be queued or in flight.  @efqd
 * must not be used afterwards; its memory lives until the last group of
 * the device is freed.
 */
void efq_data_exit(struct efq_data *efqd)
{
	struct efq_group *root = efqd->root_group;

	hrtimer_cancel(&efqd->idle_timer);
	spin_lock_irq(&efqd->lock);
	efqd->idle_armed = false;
	efq_expire_active(efqd, EFQ_EXPIRE_FORCED);
	WARN_ON_ONCE(efqd->busy_queues || efqd->nr_queued || efqd->nr_bypass ||
		     efqd->nr_held);
	spin_unlock_irq(&efqd->lock);

	efq_cgroup_deactivate(efqd);
	efq_wbt_enable(efqd->queue);

	spin_lock_irq(&efqd->lock);
	efq_group_flush_idle(root);
	efq_group_put_queues(root);
	spin_unlock_irq(&efqd->lock);
	hrtimer_cancel(&efqd->idle_timer);

	WARN_ON_ONCE(refcount_read(&efqd->oom_queue.ref) != 1);
	WARN_ON_ONCE(!list_empty(&efqd->group_list));
	/*
	 * Drop the fallback queue's reference on the root group, then the
	 * device's.  Groups of removed cgroups whose blkg a bio still holds
	 * keep the root group, and with it this efq_data, until they go.
	 */
	efq_put_group(root);
	efq_put_group(root);
}
EXPORT_SYMBOL_GPL(efq_data_exit);

static int __init efq_init(void)
{
	int ret;

	efq_queue_pool = KMEM_CACHE(efq_queue, 0);
	if (!efq_queue_pool)
		return -ENOMEM;
	ret = efq_cgroup_init();
	if (ret)
		kmem_cache_destroy(efq_queue_pool);
	return ret;
}

static void __exit efq_exit(void)
{
	efq_cgroup_exit();
	kmem_cache_destroy(efq_queue_pool);
}

module_init(efq_init);
module_exit(efq_exit);

MODULE_AUTHOR("The efq authors");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Elevator fair queuing: hierarchical proportional IO control");
