/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efq - the elevator fair-queuing layer shared by the cfq, deadline-fq, as
 * and noop IO schedulers.
 *
 * This header is the contract between the engine (block/elevator-fq.c),
 * its cgroup glue (block/elevator-fq-cgroup.c) and the schedulers built on
 * them.  A scheduler owns the ordering of requests inside its queues; the
 * engine owns everything else: which queue (and which cgroup) is served,
 * for how long, when the disk idles and who may preempt whom.
 *
 * Locking: every function below that takes a struct efq_data must be
 * called with efqd->lock held unless its comment says otherwise.  The
 * engine checks this with lockdep_assert_held().
 */
#ifndef _LINUX_ELEVATOR_FQ_H
#define _LINUX_ELEVATOR_FQ_H

#include <linux/types.h>
#include <linux/blk_types.h>
#include <linux/blk-mq.h>
#include <linux/list.h>
#include <linux/rbtree.h>
#include <linux/spinlock.h>
#include <linux/hrtimer.h>
#include <linux/refcount.h>
#include <linux/bitops.h>
#include <linux/bits.h>
#include <linux/ioprio.h>
#include <linux/time64.h>
#include <linux/math64.h>

struct request;
struct request_queue;
struct elevator_queue;
struct blkcg;
struct blkcg_gq;
struct bio;

/*
 * Weights.  The engine's range, wide enough that every file below maps
 * onto it with ratios kept exactly; EFQ_WEIGHT_DEFAULT is the reference
 * weight of all scaling.
 */
#define EFQ_WEIGHT_MIN		5
#define EFQ_WEIGHT_MAX		50000
#define EFQ_WEIGHT_DEFAULT	500

/* io.efq.weight and io.efq.policy: V10's range, taken as it is. */
#define EFQ_V10_WEIGHT_MIN	100
#define EFQ_V10_WEIGHT_MAX	1000

/* blkio.weight and blkio.weight_device (cgroup v1): CFQ's range. */
#define EFQ_BLKIO_WEIGHT_MIN	10
#define EFQ_BLKIO_WEIGHT_MAX	1000

/*
 * io.weight (cgroup v2's convention, followed through io.efq.io_weight):
 * 1..10000, default 100; efq applies EFQ_IO_WEIGHT_SCALE times the value,
 * so io.weight's default is efq's.
 */
#define EFQ_IO_WEIGHT_MIN	1
#define EFQ_IO_WEIGHT_MAX	10000
#define EFQ_IO_WEIGHT_DEFAULT	100
#define EFQ_IO_WEIGHT_SCALE	(EFQ_WEIGHT_DEFAULT / EFQ_IO_WEIGHT_DEFAULT)

/* Fixed-point shift applied to nanoseconds of service before weighting. */
#define EFQ_SERVICE_SHIFT	8

/* One service tree per ioprio class: RT, BE and IDLE, in that order. */
#define EFQ_NR_CLASSES		3

/* Defaults of the common tunables, in nanoseconds. */
#define EFQ_SLICE_SYNC_NS	(100 * NSEC_PER_MSEC)
#define EFQ_SLICE_ASYNC_NS	(40 * NSEC_PER_MSEC)
#define EFQ_GROUP_IDLE_NS	(8 * NSEC_PER_MSEC)
/* How long an empty queue that used its slice waits to become busy again. */
#define EFQ_WAIT_BUSY_NS	(8 * NSEC_PER_MSEC)

/* Requests a group may hold (queued or in flight) before it must wait. */
#define EFQ_NR_GROUP_REQUESTS	128
#define EFQ_MIN_GROUP_REQUESTS	4

/*
 * The longest idle window (group_idle, cfq's slice_idle), ms.  An idle
 * wait holds back every other group's requests; when the scheduler tags
 * are all taken by those requests, the awaited group cannot even allocate
 * its next one, and the wait only ends when the window does.  A disk
 * needs a few milliseconds; more than a second is never worth a stall.
 */
#define EFQ_IDLE_MAX_MS		1000

/* Number of best-effort and real-time priority levels (0 is highest). */
#define EFQ_NR_PRIO		8

/**
 * struct efq_service_tree - the entities of one class under one group
 * @active: backlogged entities not in service, keyed by vdisktime relative
 *	to @min_vdisktime; the leftmost node is cached
 * @idle: recently served entities that went empty while still ahead of
 *	@min_vdisktime, keyed by absolute vdisktime (the "idle tree" cache)
 * @active_entity: the entity of this tree in service, if any; it is kept
 *	out of @active while it runs
 * @min_vdisktime: the tree's virtual clock; it never goes backwards
 * @nr_active: entities backlogged on this tree, the one in service included
 */
struct efq_service_tree {
	struct rb_root_cached active;
	struct rb_root_cached idle;
	struct efq_entity *active_entity;
	u64 min_vdisktime;
	unsigned int nr_active;
};

/**
 * struct efq_sched_data - the children of one group
 * @service_tree: one tree per class, indexed by class - 1
 * @active_entity: the child in service at this level, if any
 * @nr_active: backlogged children, the one in service included
 * @nr_sync: backlogged children that are sync, non-idle-class queues
 */
struct efq_sched_data {
	struct efq_service_tree service_tree[EFQ_NR_CLASSES];
	struct efq_entity *active_entity;
	unsigned int nr_active;
	unsigned int nr_sync;
};

/**
 * struct efq_entity - what the engine schedules: a queue or a group
 * @rb_node: link in either the active or the idle tree of @st, never both
 * @st: service tree of the parent group matching @ioprio_class
 * @parent: entity of the owning group; NULL only for a device's root group
 * @my_sd: children of a group entity; NULL for a queue
 * @vdisktime: virtual time of the entity, compared wrap-safely
 * @weight: effective weight (queues: from ioprio, groups: from the cgroup)
 * @new_weight: weight to apply at the next (re)queue, see @prio_changed
 * @ioprio_class: effective class, IOPRIO_CLASS_RT/BE/IDLE
 * @new_class: class to apply at the next (re)queue
 * @prio_changed: @new_weight or @new_class were written; applied lazily
 *	(taken with xchg(), so a word, not a bool: some architectures have
 *	no one-byte xchg())
 * @on_st: backlogged on @st (also true while in service)
 * @on_idle_st: cached in the idle tree of @st
 * @has_history: @vdisktime was earned (taken back from the idle tree)
 *	rather than being a fresh placement
 * @exiting: the entity goes away and must never enter an idle tree
 * @counted_sync: counted in the parent's nr_sync
 * @total_time: disk time charged to this entity, in ns (real usage)
 * @total_sectors: sectors dispatched by or below this entity
 * @nr_enqueued: times the entity became backlogged
 * @nr_dequeued: times the entity stopped being backlogged
 */
struct efq_entity {
	struct rb_node rb_node;
	struct efq_service_tree *st;
	struct efq_entity *parent;
	struct efq_sched_data *my_sd;
	u64 vdisktime;
	unsigned int weight;
	unsigned int new_weight;
	unsigned short ioprio_class;
	unsigned short new_class;
	unsigned int prio_changed;
	bool on_st;
	bool on_idle_st;
	bool has_history;
	bool exiting;
	bool counted_sync;
	u64 total_time;
	u64 total_sectors;
	unsigned long nr_enqueued;
	unsigned long nr_dequeued;
};

/* Bits of efq_queue.flags. */
enum efq_queue_flag {
	EFQ_QUEUE_FLAG_busy,		/* backlogged or in service */
	EFQ_QUEUE_FLAG_wait_request,	/* idling: waiting for a new request */
	EFQ_QUEUE_FLAG_must_dispatch,	/* a request arrived while idling */
	EFQ_QUEUE_FLAG_idle_window,	/* the scheduler allows idling on it */
	EFQ_QUEUE_FLAG_slice_new,	/* no completion yet in this activation */
	EFQ_QUEUE_FLAG_sync,		/* sync queue: sync slice, may idle */
	EFQ_QUEUE_FLAG_must_expire,	/* expire once drained (fairness) */
	EFQ_QUEUE_FLAG_charge_one_slice, /* ran untimed, charge <= 1 slice */
};

/**
 * struct efq_queue - a leaf: requests are queued and dispatched here
 * @entity: the schedulable part
 * @ref: references (owner, requests, busy state, idle tree, group slot)
 * @flags: EFQ_QUEUE_FLAG_* bits
 * @efqd: the device
 * @group: owning group (holds a reference on it)
 * @sched_queue: the scheduler's own queue object
 * @pid: owner, for logging
 * @ioprio: priority level 0..7 the weight was derived from
 * @nr_queued: requests in the scheduler, not yet dispatched
 * @dispatched: requests dispatched and not yet completed
 * @flight_sectors: the data those requests carried to the driver, in
 *	sectors (a discard's or a write of zeroes' range is not data)
 * @meta_pending: queued metadata requests
 * @sync_pending: queued sync requests (rq_is_sync())
 * @nr_sectors: sectors dispatched in the current activation
 * @dispatch_start: when the queue became active (ns)
 * @slice_start: first completion of the activation (ns), 0 if none yet
 * @slice_end: end of the slice (ns), 0 if the slice has not started
 */
struct efq_queue {
	struct efq_entity entity;
	refcount_t ref;
	unsigned long flags;
	struct efq_data *efqd;
	struct efq_group *group;
	void *sched_queue;
	int pid;
	unsigned short ioprio;
	unsigned int nr_queued;
	unsigned int dispatched;
	unsigned int flight_sectors;
	unsigned int meta_pending;
	unsigned int sync_pending;
	u64 nr_sectors;
	u64 dispatch_start;
	u64 slice_start;
	u64 slice_end;
};

/* Bits of efq_group.flags. */
enum efq_group_flag {
	EFQ_GROUP_FLAG_idle_window,	/* group idling allowed (non-root) */
	EFQ_GROUP_FLAG_wait_request,	/* group idle timer armed */
	EFQ_GROUP_FLAG_wait_busy,	/* slice used, waiting to get busy */
	EFQ_GROUP_FLAG_wait_busy_done,	/* a wait-busy ended by a request */
};

/**
 * struct efq_group - the queues of one cgroup on one device
 *
 * Groups are the per-(cgroup, device) data of the "efq" blkcg policy; the
 * cgroup glue allocates and frees them (efq_group_alloc(), efq_group_free())
 * and the engine schedules them.  A device's root group belongs to the
 * device, not to a blkcg.
 *
 * @entity: the schedulable part, in the parent group's trees
 * @sched_data: the children of this group
 * @ref: references (blkcg, child groups, queues)
 * @efqd: device of the group, set when the group is linked
 * @efqd_node: link in efqd->group_list while linked
 * @flags: EFQ_GROUP_FLAG_* bits
 * @linked: the group has a parent in its device's hierarchy (and holds a
 *	reference on it)
 * @online: the cgroup is alive; an offline group takes no new requests
 * @late_preemption: a sync queue of this group was refused preemption
 *	across groups; see efq_select_queue()
 * @dev: device number of the device
 * @async_queue: shared async queues of the group, per RT/BE class and prio
 * @async_idle_queue: shared async queue of the idle class
 * @ioq: the group's single queue (single-queue schedulers)
 * @nr_requests: requests of the group queued or in flight
 * @sync_flight: sync requests of the group dispatched and not completed
 */
struct efq_group {
	struct efq_entity entity;
	struct efq_sched_data sched_data;
	refcount_t ref;
	struct efq_data *efqd;
	struct list_head efqd_node;
	unsigned long flags;
	bool linked;
	bool online;
	bool late_preemption;
	dev_t dev;
	struct efq_queue *async_queue[2][EFQ_NR_PRIO];
	struct efq_queue *async_idle_queue;
	struct efq_queue *ioq;
	unsigned int nr_requests;
	unsigned int sync_flight;
};

/* Scheduler features (efq_sched_ops.features). */
#define EFQ_FEAT_SINGLE_QUEUE	BIT(0)	/* one queue per group */
#define EFQ_FEAT_SELF_DRAIN	BIT(1)	/* drains itself before switching */
#define EFQ_FEAT_QUEUE_IDLE	BIT(2)	/* single queues get idle_window */

/**
 * struct efq_sched_ops - what a scheduler provides to the engine
 * @features: EFQ_FEAT_* bits
 * @alloc_sched_queue: single-queue schedulers: allocate the scheduler
 *	queue of a new group queue @ioq with @gfp; may fail
 * @free_sched_queue: mandatory; the last reference of the efq_queue
 *	owning @sq is gone: free @sq (the request queue may be going away)
 * @active_queue_set: @sq becomes the queue in service; @coop is true when
 *	it was proposed by @close_cooperator
 * @active_queue_reset: @sq stops being the queue in service
 * @arm_slice_timer: the queue in service just went empty at a completion
 *	and may idle: call efq_arm_idle_timer() if it should
 * @should_preempt: may a request @rq of @new_sq, in the same group as the
 *	queue in service, preempt it?
 * @close_cooperator: the queue in service @cur_sq is empty; propose a
 *	queue to run next, or NULL
 * @may_expire: veto an expiry of @sq (anticipation); returning false makes
 *	the engine keep the queue and mark it must_expire.  @force expiries
 *	cannot be refused.
 */
struct efq_sched_ops {
	unsigned int features;
	void *(*alloc_sched_queue)(struct efq_data *efqd, struct efq_queue *ioq,
				   gfp_t gfp);
	void (*free_sched_queue)(struct efq_data *efqd, void *sq);
	void (*active_queue_set)(struct efq_data *efqd, void *sq, bool coop);
	void (*active_queue_reset)(struct efq_data *efqd, void *sq);
	void (*arm_slice_timer)(struct efq_data *efqd, void *sq);
	bool (*should_preempt)(struct efq_data *efqd, void *new_sq,
			       struct request *rq);
	struct efq_queue *(*close_cooperator)(struct efq_data *efqd,
					      void *cur_sq);
	bool (*may_expire)(struct efq_data *efqd, void *sq, bool slice_expired,
			   bool force);
};

/* Why a queue stopped being served; counted in efq_data.nr_expired. */
enum efq_expire_reason {
	EFQ_EXPIRE_SLICE_USED,		/* select: slice used */
	EFQ_EXPIRE_IDLE_CLASS,		/* idle class: one round at a time */
	EFQ_EXPIRE_COMPLETION,		/* completion: slice used */
	EFQ_EXPIRE_EMPTY,		/* select: empty and not idling */
	EFQ_EXPIRE_COOPERATOR,		/* select: a close cooperator runs */
	EFQ_EXPIRE_FORCED,		/* forced dispatch drained it */
	EFQ_EXPIRE_PREEMPTED,		/* another queue preempted it */
	EFQ_EXPIRE_IDLE_TIMEOUT,	/* queue or group idle: no request came */
	EFQ_EXPIRE_WAIT_BUSY_TIMEOUT,	/* wait-busy (queue or group) timed out */
	EFQ_EXPIRE_LAST_EMPTY,		/* last busy queue went empty */
	EFQ_EXPIRE_MUST_EXPIRE,		/* late preemption or a vetoed expiry */
	EFQ_EXPIRE_SCHED,		/* the scheduler asked for it */
	EFQ_EXPIRE_NR
};

/**
 * struct efq_data - fair-queuing state of one device
 * @lock: the scheduler instance's lock; it protects everything here
 * @queue: the request queue
 * @ops: the scheduler
 * @sched_data: the scheduler's per-device data
 * @root_group: the device's root group (root cgroup, never charged)
 * @group_list: linked non-root groups
 * @active_queue: the queue in service, or NULL
 * @busy_queues: busy queues, the active one included
 * @rq_in_driver: dispatched requests not yet completed
 * @nr_queued: requests held in all queues
 * @nr_held: requests of all groups queued or in flight, the sum of every
 *	group's @nr_requests: efq_limit_depth() reads it without the lock,
 *	in one read, to skip the group lookup while no group can be capped
 * @bypass: requests no queue holds, dispatched before any queue's
 *	(efq_bypass_insert())
 * @nr_bypass: requests on @bypass; read locklessly by has_work
 * @hold: the last selection held requests back on purpose (idling,
 *	anticipation, draining): efq_has_work() is false until an event
 * @held_back: @hold was set since blk-mq last got a request, so blk-mq
 *	may have stopped asking: an event that ends the hold runs the queues
 * @idle_armed: @idle_timer is armed and its expiry must be acted upon
 * @idle_end: when the wait @idle_timer was armed for ends (ns)
 * @last_delayed_sync: when a sync request that took longer than
 *	EFQ_SYNC_DELAYED_NS completed on the device (ns): the depth of
 *	writeback ramps up from it (efq_writeback_sectors())
 * @idle_timer: the one timer of queue idling, group idling and wait-busy
 * @oom_queue: fallback queue of the root group when allocation fails
 * @dev: device number
 * @slice: base slice lengths in ns, [0] async, [1] sync
 * @group_idle: group idle period in ns; 0 disables group idling
 * @fairness: 1: drain before switching queues and charge real time
 * @nr_group_requests: requests a group may hold before its submitters
 *	wait for a tag (through limit_depth)
 * @hierarchical: group scheduling on (else every queue is in the root)
 * @nr_expired: expiries per enum efq_expire_reason
 * @nr_preempted: preemptions done
 * @nr_yields: turns of writeback ended for a sync request in turn
 */
struct efq_data {
	spinlock_t lock;	/* the scheduler instance's lock */
	struct request_queue *queue;
	const struct efq_sched_ops *ops;
	void *sched_data;
	struct efq_group *root_group;
	struct list_head group_list;
	struct efq_queue *active_queue;
	unsigned int busy_queues;
	unsigned int rq_in_driver;
	unsigned int nr_queued;
	unsigned int nr_held;
	struct list_head bypass;
	unsigned int nr_bypass;
	bool hold;
	bool held_back;
	bool idle_armed;
	u64 idle_end;
	u64 last_delayed_sync;
	struct hrtimer idle_timer;
	struct efq_queue oom_queue;
	dev_t dev;
	u64 slice[2];
	u64 group_idle;
	unsigned int fairness;
	unsigned int nr_group_requests;
	bool hierarchical;
	unsigned long nr_expired[EFQ_EXPIRE_NR];
	unsigned long nr_preempted;
	unsigned long nr_yields;
};

#define EFQ_QUEUE_FNS(name)						\
static inline void efq_mark_queue_##name(struct efq_queue *ioq)		\
{									\
	__set_bit(EFQ_QUEUE_FLAG_##name, &ioq->flags);			\
}									\
static inline void efq_clear_queue_##name(struct efq_queue *ioq)	\
{									\
	__clear_bit(EFQ_QUEUE_FLAG_##name, &ioq->flags);		\
}									\
static inline bool efq_queue_##name(const struct efq_queue *ioq)	\
{									\
	return test_bit(EFQ_QUEUE_FLAG_##name, &ioq->flags);		\
}

EFQ_QUEUE_FNS(busy)
EFQ_QUEUE_FNS(wait_request)
EFQ_QUEUE_FNS(must_dispatch)
EFQ_QUEUE_FNS(idle_window)
EFQ_QUEUE_FNS(slice_new)
EFQ_QUEUE_FNS(sync)
EFQ_QUEUE_FNS(must_expire)
EFQ_QUEUE_FNS(charge_one_slice)
#undef EFQ_QUEUE_FNS

#define EFQ_GROUP_FNS(name)						\
static inline void efq_mark_group_##name(struct efq_group *iog)		\
{									\
	__set_bit(EFQ_GROUP_FLAG_##name, &iog->flags);			\
}									\
static inline void efq_clear_group_##name(struct efq_group *iog)	\
{									\
	__clear_bit(EFQ_GROUP_FLAG_##name, &iog->flags);		\
}									\
static inline bool efq_group_##name(const struct efq_group *iog)	\
{									\
	return test_bit(EFQ_GROUP_FLAG_##name, &iog->flags);		\
}

EFQ_GROUP_FNS(idle_window)
EFQ_GROUP_FNS(wait_request)
EFQ_GROUP_FNS(wait_busy)
EFQ_GROUP_FNS(wait_busy_done)
#undef EFQ_GROUP_FNS

/**
 * efq_ioprio_to_weight() - weight of a queue of priority level @prio
 * @prio: 0 (highest) .. 7 (lowest)
 *
 * Return: 500 + 100 * (4 - @prio), that is 900 .. 200.
 */
static inline unsigned int efq_ioprio_to_weight(unsigned int prio)
{
	return EFQ_WEIGHT_DEFAULT + EFQ_WEIGHT_DEFAULT / 5 * (4 - (int)prio);
}

static inline bool efq_queue_class_idle(const struct efq_queue *ioq)
{
	return ioq->entity.ioprio_class == IOPRIO_CLASS_IDLE;
}

static inline bool efq_queue_class_rt(const struct efq_queue *ioq)
{
	return ioq->entity.ioprio_class == IOPRIO_CLASS_RT;
}

static inline void *efq_active_sched_queue(struct efq_data *efqd)
{
	return efqd->active_queue ? efqd->active_queue->sched_queue : NULL;
}

/* --- device lifetime (elevator init_sched / exit_sched) --- */
struct efq_data *efq_data_init(struct request_queue *q,
			       struct elevator_queue *eq,
			       const struct efq_sched_ops *ops,
			       void *sched_data);
void efq_data_exit(struct efq_data *efqd);
int efq_set_hierarchical(struct efq_data *efqd, bool on);

/* --- queues --- */
struct efq_queue *efq_queue_alloc(struct efq_data *efqd, gfp_t gfp);
void efq_queue_init(struct efq_data *efqd, struct efq_queue *ioq, int pid,
		    bool sync, void *sched_queue);
void efq_queue_set_group(struct efq_queue *ioq, struct efq_group *iog);
int efq_queue_set_ioprio(struct efq_queue *ioq, unsigned int prio);
int efq_queue_set_ioprio_class(struct efq_queue *ioq, unsigned int ioclass);
void efq_get_queue(struct efq_queue *ioq);
void efq_put_queue(struct efq_queue *ioq);
void efq_queue_exit(struct efq_data *efqd, struct efq_queue *ioq);
struct efq_queue *efq_oom_queue(struct efq_data *efqd);
struct efq_queue *efq_group_single_queue(struct efq_data *efqd,
					 struct efq_group *iog);
struct efq_queue *efq_group_async_queue(struct efq_group *iog,
					unsigned int ioclass,
					unsigned int prio);
void efq_group_set_async_queue(struct efq_group *iog, unsigned int ioclass,
			       unsigned int prio, struct efq_queue *ioq);
u64 efq_queue_slice(struct efq_data *efqd, struct efq_queue *ioq);
bool efq_queue_slice_used(struct efq_queue *ioq);

/* --- requests that bypass the queues --- */
bool efq_bypass_insert(struct efq_data *efqd, struct request *rq,
		       bool at_head);
struct request *efq_bypass_dispatch(struct efq_data *efqd);

/**
 * efq_bypass_pending() - are requests waiting on the bypass list?
 * @efqd: the device
 *
 * Lockless, for elevator_mq_ops.has_work: such requests are dispatched
 * whatever the engine holds back.
 *
 * Return: true if efq_bypass_dispatch() has a request to give.
 */
static inline bool efq_bypass_pending(struct efq_data *efqd)
{
	return READ_ONCE(efqd->nr_bypass);
}

/* --- request events, in the order a request sees them --- */
void efq_request_add(struct efq_data *efqd, struct efq_queue *ioq,
		     struct request *rq);
bool efq_rq_hash_add(struct request_queue *q, struct request *rq);
void efq_request_merged_away(struct efq_data *efqd, struct efq_queue *ioq,
			     struct request *rq);
void efq_request_dispatched(struct efq_data *efqd, struct efq_queue *ioq,
			    struct request *rq);
void efq_request_requeued(struct efq_data *efqd, struct efq_queue *ioq,
			  struct request *rq);
void efq_request_completed(struct efq_data *efqd, struct efq_queue *ioq,
			   struct request *rq);

/**
 * struct efq_decay - a decaying mean, as cfq and as keep a process's think
 *	time and seek distance: each sample weighs 1/8, the mean before 7/8
 * @samples: the decaying count of samples, scaled by 256: 32 after the
 *	first, tending to 256 (a scheduler trusts the mean past a threshold)
 * @total: the decaying sum of the samples, scaled by 256
 * @mean: (@total + 128) / @samples, as V10's cfq and as rounded their think
 *	time (and as its seek distance): the nearest once @samples reaches
 *	256, up to 4 above the exact mean after the first sample; 0 before
 *	any sample
 *
 * Zeroed means no sample yet.  A sample must stay below 2^54 / 7 (the
 * schedulers cap theirs far lower).
 */
struct efq_decay {
	unsigned int samples;
	u64 total;
	u64 mean;
};

/**
 * efq_decay_add() - add one sample to a decaying mean
 * @d: the mean
 * @value: the sample
 */
static inline void efq_decay_add(struct efq_decay *d, u64 value)
{
	d->samples = (7 * d->samples + 256) / 8;
	d->total = div_u64(7 * d->total + 256 * value, 8);
	d->mean = div_u64(d->total + 128, d->samples);
}

/*
 * --- a request's queue, kept in rq->elv.priv[] by these helpers alone
 * (every scheduler uses them): priv[0] is the request's queue (with a
 * reference), priv[1] is NULL until it is dispatched, then one more than
 * the sectors of data it carried to the driver (efq_rq_flight_sectors()) ---
 */
void efq_rq_prepare(struct request *rq);
void efq_rq_set_queue(struct request *rq, struct efq_queue *ioq);
void efq_rq_clear_queue(struct request *rq);
void efq_rq_dispatched(struct efq_data *efqd, struct request *rq);

/**
 * efq_rq_queue() - the queue of a request
 * @rq: the request
 *
 * Return: the queue set by efq_rq_set_queue(), or NULL.
 */
static inline struct efq_queue *efq_rq_queue(struct request *rq)
{
	/* the cast: C++ (efqsim's tests) includes this header too */
	return (struct efq_queue *)rq->elv.priv[0];
}

/**
 * efq_rq_was_dispatched() - did @rq reach the driver?
 * @rq: a request with a queue (efq_rq_set_queue())
 *
 * Return: true once efq_rq_dispatched() ran for it: the engine counts it
 * in flight, and its completion or requeue must be told to the engine.
 */
static inline bool efq_rq_was_dispatched(struct request *rq)
{
	return !!rq->elv.priv[1];
}

/**
 * efq_rq_flight_sectors() - the data @rq carried to the driver
 * @rq: a dispatched request (efq_rq_was_dispatched())
 *
 * Its data's size when it was dispatched, in sectors: the block layer has
 * consumed it by the time the request finishes.
 *
 * Return: the sectors, counted in its queue's flight_sectors; 0 for a
 * request efq_request_dispatched() did not see.
 */
static inline unsigned int efq_rq_flight_sectors(struct request *rq)
{
	return rq->elv.priv[1] ? (unsigned int)((uintptr_t)rq->elv.priv[1] - 1) : 0;
}

void efq_finish_request(struct request *rq);
void efq_requeue_request(struct request *rq);
bool efq_bio_merge(struct request_queue *q, struct bio *bio,
		   unsigned int nr_segs);
bool efq_allow_merge(struct request_queue *q, struct request *rq,
		     struct bio *bio);

/* --- selection and expiry --- */
struct efq_queue *efq_select_queue(struct efq_data *efqd, bool force);
void efq_expire_queue(struct efq_data *efqd, struct efq_queue *ioq,
		      enum efq_expire_reason reason);
void efq_expire_active(struct efq_data *efqd, enum efq_expire_reason reason);
void efq_arm_idle_timer(struct efq_data *efqd, u64 ns);
bool efq_queue_is_idling(struct efq_data *efqd, struct efq_queue *ioq);
bool efq_group_should_idle(struct efq_queue *ioq);
void efq_hold_dispatch(struct efq_data *efqd);
bool efq_has_work(struct efq_data *efqd);
void efq_schedule_dispatch(struct efq_data *efqd);

/*
 * --- sysfs tunables (queue/iosched/): the engine's and the schedulers' ---
 *
 * One policy for every tunable (efq_tunable_show(), efq_tunable_store()):
 * a write that is not a decimal number is -EINVAL with a ratelimited
 * "efq: DISK: SCHED: TUNABLE: ..." message (efq_warn_bad_tunable()); a
 * number out of range is clamped into it; reads and writes hold
 * efqd->lock; a read shows the value in its unit.  EFQ_TUNABLE() defines a
 * tunable, EFQ_TUNABLE_ATTR() its entry, EFQ_ATTRS() a scheduler's table.
 *
 * The engine's tunables (efq_<name>_show/_store, entries EFQ_ATTR(name)):
 * slice_sync, slice_async (ms, clamped to 1..UINT_MAX), group_idle (ms,
 * 0..EFQ_IDLE_MAX_MS, 0 disables), fairness (0..1), hierarchical (0..1,
 * -EBUSY with a message while requests are queued) and nr_group_requests
 * (4..UINT_MAX: the requests one group holds; schedulers enforce it with
 * efq_limit_depth()).
 */

/**
 * enum efq_tune_flags - how a tunable is written, shown and kept
 * @EFQ_TUNE_NUM: none: a number from 0 up, kept as written
 * @EFQ_TUNE_MS: milliseconds, kept in nanoseconds
 * @EFQ_TUNE_SIGNED: a negative number is taken, and clamped to the
 *	minimum, where it would be refused (deadline-fq's tunables: like
 *	mq-deadline's, they take negative numbers; unlike them, they take
 *	decimal only, clamp rather than refuse above INT_MAX, and clamp a
 *	negative writes_starved to 0)
 */
enum efq_tune_flags {
	EFQ_TUNE_NUM	= 0,
	EFQ_TUNE_MS	= 1 << 0,
	EFQ_TUNE_SIGNED	= 1 << 1,
};

/**
 * struct efq_tunable - one sysfs tunable, made by EFQ_TUNABLE()
 * @file: its file name
 * @min: the smallest value kept, in the unit of @flags
 * @max: the largest value kept, in the unit of @flags
 * @flags: enum efq_tune_flags
 * @rw: under efqd->lock, reads the field into *@val (@store false) or
 *	stores *@val, clamped and in the field's unit (@store true); returns
 *	0, a -errno that refuses the write, or 1 to run the hardware queues
 *	once the lock is dropped
 */
struct efq_tunable {
	const char *file;
	u64 min;
	u64 max;
	unsigned int flags;
	int (*rw)(struct efq_data *efqd, u64 *val, bool store);
};

ssize_t efq_tunable_show(struct elevator_queue *e, char *page,
			 const struct efq_tunable *t);
ssize_t efq_tunable_store(struct elevator_queue *e, const char *page,
			  size_t count, const struct efq_tunable *t);
void efq_warn_bad_tunable(struct elevator_queue *e, const char *name,
			  const char *page, size_t count, int err);

/*
 * The @set of EFQ_TUNABLE_SET() and __EFQ_TUNABLE() for a tunable whose
 * write only stores its field (EFQ_TUNABLE()).
 */
#define EFQ_TUNE_STORE	({ WRITE_ONCE(*field, val); 0; })

/**
 * __EFQ_TUNABLE() - define a tunable's struct efq_tunable and its sysfs
 *	show and store functions
 * @name: the tunable's file name
 * @prefix: the functions are @prefix_@name_show() and @prefix_@name_store(),
 *	with the linkage of their declaration before: static for a
 *	scheduler's (EFQ_TUNABLE_SET()), external for the engine's
 *	(EFQ_DECLARE_ATTR())
 * @ref: the tunable's field, as an lvalue of the local struct efq_data
 *	*efqd, e.g. dl_data(efqd)->fifo_batch
 * @lo: the smallest value kept, in @unit
 * @hi: the largest value kept, in @unit
 * @unit: enum efq_tune_flags
 * @set: an int expression that stores the local u64 val (clamped, in the
 *	field's unit) and returns as &struct efq_tunable.rw; it may use the
 *	locals efqd and field (the address of @ref), e.g. EFQ_TUNE_STORE
 */
#define __EFQ_TUNABLE(name, prefix, ref, lo, hi, unit, set)		\
static int prefix##_##name##_rw(struct efq_data *efqd, u64 *v, bool store) \
{									\
	typeof(ref) *field = &(ref);					\
	u64 val;							\
									\
	if (!store) {							\
		*v = *field;						\
		return 0;						\
	}								\
	val = *v;							\
	return set;							\
}									\
static const struct efq_tunable prefix##_##name##_tunable = {		\
	.file = #name,							\
	.min = (lo),							\
	.max = (hi),							\
	.flags = (unit),						\
	.rw = prefix##_##name##_rw,					\
};									\
ssize_t prefix##_##name##_show(struct elevator_queue *e, char *page)	\
{									\
	return efq_tunable_show(e, page, &prefix##_##name##_tunable);	\
}									\
ssize_t prefix##_##name##_store(struct elevator_queue *e,		\
				const char *page, size_t count)		\
{									\
	return efq_tunable_store(e, page, count,			\
				 &prefix##_##name##_tunable);		\
}

/**
 * EFQ_TUNABLE_SET() - define a scheduler's tunable whose write does more
 *	than store its field: static @prefix_@name_show() and
 *	@prefix_@name_store()
 * @prefix: the scheduler's prefix
 * @name: the tunable's file name
 * @ref: its field, as in __EFQ_TUNABLE()
 * @lo: the smallest value kept, in @unit
 * @hi: the largest value kept, in @unit
 * @unit: enum efq_tune_flags
 * @set: what a write does, under efqd->lock, as in __EFQ_TUNABLE(), e.g.
 *	as_set_antic_expire(efqd, val)
 */
#define EFQ_TUNABLE_SET(prefix, name, ref, lo, hi, unit, set)		\
static ssize_t prefix##_##name##_show(struct elevator_queue *e, char *page); \
static ssize_t prefix##_##name##_store(struct elevator_queue *e,	\
				       const char *page, size_t count);	\
__EFQ_TUNABLE(name, prefix, ref, lo, hi, unit, set)

/**
 * EFQ_TUNABLE() - define a scheduler's tunable, a field: static
 *	@prefix_@name_show() and @prefix_@name_store()
 * @prefix: the scheduler's prefix
 * @name: the tunable's file name
 * @ref: its field, as in __EFQ_TUNABLE()
 * @lo: the smallest value kept, in @unit
 * @hi: the largest value kept, in @unit
 * @unit: enum efq_tune_flags
 */
#define EFQ_TUNABLE(prefix, name, ref, lo, hi, unit)			\
	EFQ_TUNABLE_SET(prefix, name, ref, lo, hi, unit, EFQ_TUNE_STORE)

/**
 * EFQ_TUNABLE_ATTR() - the elv_fs_entry of a tunable (mode 0644)
 * @prefix: the prefix its EFQ_TUNABLE() was given
 * @name: the tunable's file name
 */
#define EFQ_TUNABLE_ATTR(prefix, name)					\
	__ATTR(name, 0644, prefix##_##name##_show, prefix##_##name##_store)

/**
 * EFQ_ATTR() - the elv_fs_entry of one of the engine's tunables
 * @name: the tunable's file name
 */
#define EFQ_ATTR(name) EFQ_TUNABLE_ATTR(efq, name)

/**
 * EFQ_ATTRS() - define a scheduler's table of tunables (elevator_attrs)
 * @prefix: the table is @prefix_attrs
 * @...: its first entries, in order: the scheduler's own
 *	(EFQ_TUNABLE_ATTR()), then the engine's slice tunables it offers
 *	(EFQ_ATTR(slice_sync), ...)
 *
 * The engine's group_idle, fairness, hierarchical and nr_group_requests
 * follow, then the table's end.
 */
#define EFQ_ATTRS(prefix, ...)						\
static struct elv_fs_entry prefix##_attrs[] = {				\
	__VA_ARGS__,							\
	EFQ_ATTR(group_idle),						\
	EFQ_ATTR(fairness),						\
	EFQ_ATTR(hierarchical),						\
	EFQ_ATTR(nr_group_requests),					\
	__ATTR_NULL							\
}

#define EFQ_DECLARE_ATTR(name)						\
ssize_t efq_##name##_show(struct elevator_queue *e, char *page);	\
ssize_t efq_##name##_store(struct elevator_queue *e, const char *page,	\
			   size_t count)

EFQ_DECLARE_ATTR(slice_sync);
EFQ_DECLARE_ATTR(slice_async);
EFQ_DECLARE_ATTR(group_idle);
EFQ_DECLARE_ATTR(fairness);
EFQ_DECLARE_ATTR(hierarchical);
EFQ_DECLARE_ATTR(nr_group_requests);

struct blk_mq_alloc_data;
void efq_limit_depth(blk_opf_t opf, struct blk_mq_alloc_data *data);
struct blk_mq_hw_ctx;
void efq_depth_updated(efq_depth_updated_t arg);
int efq_init_hctx(struct blk_mq_hw_ctx *hctx, unsigned int hctx_idx);

/*
 * --- debugfs: show functions of the engine's state and service trees, for
 * a scheduler's queue_debugfs_attrs (/sys/kernel/debug/block/<disk>/sched/,
 * named "state" and "service_trees") ---
 */
struct seq_file;
int efq_debugfs_state_show(void *data, struct seq_file *m);
int efq_debugfs_trees_show(void *data, struct seq_file *m);

/*
 * EFQ_ELEVATOR_DEBUGFS, in a scheduler's struct elevator_type: the engine's
 * debugfs files "state" and "service_trees" in the queue's sched/ folder,
 * read-only for root; nothing without CONFIG_BLK_DEBUG_FS.  Where it is
 * used, block/blk-mq-debugfs.h declares struct blk_mq_debugfs_attr.
 */
#ifdef CONFIG_BLK_DEBUG_FS
#define EFQ_ELEVATOR_DEBUGFS						\
	.queue_debugfs_attrs = (const struct blk_mq_debugfs_attr[]) {	\
		{ "state", 0400, efq_debugfs_state_show },		\
		{ "service_trees", 0400, efq_debugfs_trees_show },	\
		{},							\
	},
#else
#define EFQ_ELEVATOR_DEBUGFS
#endif

/**
 * module_efq_elevator() - register a scheduler when its module loads and
 *	unregister it when the module goes
 * @sched: the scheduler's struct elevator_type
 */
#define module_efq_elevator(sched)					\
static struct elevator_type *const efq_elv_##sched = &(sched);		\
static int __init efq_init_##sched(void)				\
{									\
	return elv_register(efq_elv_##sched);				\
}									\
module_init(efq_init_##sched);						\
static void __exit efq_exit_##sched(void)				\
{									\
	elv_unregister(efq_elv_##sched);				\
}									\
module_exit(efq_exit_##sched)

/* --- groups (engine side) --- */
void efq_group_init(struct efq_group *iog, unsigned int weight,
		    unsigned short ioclass);
void efq_group_link(struct efq_data *efqd, struct efq_group *iog,
		    struct efq_group *parent);
void efq_group_offline(struct efq_data *efqd, struct efq_group *iog);
void efq_get_group(struct efq_group *iog);
void efq_put_group(struct efq_group *iog);
void efq_group_set_weight(struct efq_group *iog, unsigned int weight);
void efq_group_set_ioprio_class(struct efq_group *iog, unsigned short ioclass);
struct efq_group *efq_queue_group(struct efq_queue *ioq);

/* --- groups (cgroup glue, block/elevator-fq-cgroup.c) --- */
struct efq_group *efq_group_alloc(gfp_t gfp, int node);
void efq_group_free(struct efq_group *iog);
struct efq_group *efq_group_of_blkg(struct efq_data *efqd,
				    struct blkcg_gq *blkg);
struct efq_group *efq_group_of_rq(struct efq_data *efqd, struct request *rq);
struct efq_group *efq_group_of_bio(struct efq_data *efqd, struct bio *bio);
struct efq_group *efq_group_of_current(struct efq_data *efqd);
void efq_group_path(struct efq_data *efqd, struct efq_group *iog, char *buf,
		    size_t len);
int efq_cgroup_activate(struct efq_data *efqd);
void efq_cgroup_deactivate(struct efq_data *efqd);
int efq_cgroup_set_weight(struct blkcg *blkcg, unsigned int weight);
int efq_cgroup_set_ioprio_class(struct blkcg *blkcg, unsigned int ioclass);
int efq_cgroup_set_dev_policy(struct blkcg *blkcg, dev_t dev,
			      unsigned int weight, unsigned int ioclass);
int efq_cgroup_write_weight(struct blkcg *blkcg, char *buf);
int efq_cgroup_write_io_weight(struct blkcg *blkcg, char *buf);
int efq_cgroup_write_blkio_weight(struct blkcg *blkcg, char *buf);
int efq_cgroup_write_blkio_weight_device(struct blkcg *blkcg, char *buf);
int efq_cgroup_write_policy(struct blkcg *blkcg, char *buf);
int efq_cgroup_write_blkio_policy(struct blkcg *blkcg, char *buf);
int efq_cgroup_init(void);
void efq_cgroup_exit(void);

/**
 * struct efq_group_stats - a group's accounting, from efq_group_stats()
 * @weight: the group's effective weight
 * @ioprio_class: its effective class
 * @disk_time: disk time charged to the group and below, in ns
 * @disk_sectors: sectors dispatched by the group and below
 * @nr_enqueued: times the group became backlogged
 * @nr_dequeued: times the group stopped being backlogged
 */
struct efq_group_stats {
	unsigned int weight;
	unsigned short ioprio_class;
	u64 disk_time;
	u64 disk_sectors;
	unsigned long nr_enqueued;
	unsigned long nr_dequeued;
};

bool efq_group_stats(struct request_queue *q, struct blkcg_gq *blkg,
		     struct efq_group_stats *stats);

#endif /* _LINUX_ELEVATOR_FQ_H */
