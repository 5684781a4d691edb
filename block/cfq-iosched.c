// SPDX-License-Identifier: GPL-2.0
/*
 * cfq: completely fair queuing, on the efq fair-queuing engine.
 *
 * Every process gets a sync queue of its own per group it submits in
 * (kept in its io_cq), and the processes of a group share one async queue
 * per ioprio class and level (kept in the group).  The engine decides which
 * queue runs and for how long (slices scaled by ioprio, groups by weight);
 * cfq decides the order of requests inside a queue (sector order with a
 * bounded backward seek, and a FIFO deadline), how many of them may be in
 * flight, when an empty queue is worth idling for (think time and
 * seekiness of its process) and which new request may preempt the queue in
 * service within its group.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/rbtree.h>
#include <linux/ioprio.h>
#include <linux/iocontext.h>
#include <linux/sched.h>
#include <linux/kstrtox.h>
#include <linux/elevator-fq.h>

#include "elevator.h"
#include "blk.h"
#include "blk-mq.h"
#include "blk-mq-sched.h"
#include "blk-mq-debugfs.h"

/* Defaults of cfq's own tunables. */
#define CFQ_QUANTUM		4
#define CFQ_FIFO_EXPIRE_SYNC	(125 * NSEC_PER_MSEC)
#define CFQ_FIFO_EXPIRE_ASYNC	(250 * NSEC_PER_MSEC)
#define CFQ_BACK_SEEK_MAX	(16 * 1024)	/* KiB */
#define CFQ_BACK_SEEK_PENALTY	2
#define CFQ_SLICE_ASYNC_RQ	2
#define CFQ_SLICE_IDLE		(8 * NSEC_PER_MSEC)
/* A seeky process is idled for at most this long. */
#define CFQ_MIN_TT		(2 * NSEC_PER_MSEC)
/* Mean seek distance, in sectors, above which a process is seeky. */
#define CFQ_SEEK_THR		(8 * 1024)
/* Statistics are trusted once their decaying sample count passes this. */
#define CFQ_SAMPLE_VALID	80
/* Queue depth above which the device is taken to queue commands. */
#define CFQ_HW_QUEUE_MIN	5
#define CFQ_HW_TAG_SAMPLES	50

/* The two sync queues of a process, see struct cfq_io_cq. */
enum { CFQ_SLOT_GROUP, CFQ_SLOT_ROOT, CFQ_NR_SYNC_SLOTS };

/**
 * struct cfq_io_cq - a process's context on one device
 * @icq: the block layer's part; must come first
 * @cfqq: the process's sync queues: [CFQ_SLOT_GROUP] in the group it last
 *	submitted data in, [CFQ_SLOT_ROOT] in the root group, for the IO the
 *	block layer issues as root (REQ_META, REQ_SWAP) and for a process of
 *	the root cgroup; two slots, so that a process alternating data and
 *	metadata keeps both queues (and their idling) instead of trading one
 *	for the other at every switch
 * @exited: exit_icq ran (the process exited or the elevator goes): no
 *	sync queue is attached again
 * @last_end_request: completion time of its last sync request (ns)
 * @ttime: its decaying mean think time (ns)
 * @seek: its decaying mean seek distance (sectors)
 * @last_request_pos: sector after its last request
 */
struct cfq_io_cq {
	struct io_cq icq;
	struct cfq_queue *cfqq[CFQ_NR_SYNC_SLOTS];
	bool exited;
	u64 last_end_request;
	struct efq_decay ttime;
	struct efq_decay seek;
	sector_t last_request_pos;
};

/**
 * struct cfq_queue - cfq's side of an efq queue
 * @ioq: the engine's queue
 * @cfqd: the device
 * @cic: owner of a sync queue while the process lives, else NULL
 * @sort_list: queued requests by sector
 * @fifo: queued requests by arrival, with their deadline in fifo_time
 * @next_rq: the request to dispatch next in sector order
 * @slice_dispatch: requests dispatched in the current activation
 * @fifo_checked: the FIFO was looked at in this activation
 * @coop: it was chosen as a close cooperator for its current activation
 * @ioprio: the raw ioprio value the class and level were taken from
 * @p_node: link in @p_root, keyed by the sector of @next_rq
 * @p_root: the cfq_data.prio_trees tree it is in, or NULL
 */
struct cfq_queue {
	struct efq_queue *ioq;
	struct cfq_data *cfqd;
	struct cfq_io_cq *cic;
	struct rb_root sort_list;
	struct list_head fifo;
	struct request *next_rq;
	unsigned int slice_dispatch;
	bool fifo_checked;
	bool coop;
	unsigned short ioprio;
	struct rb_node p_node;
	struct rb_root *p_root;
};

/**
 * struct cfq_data - cfq's per-device data
 * @efqd: the engine's device
 * @oom_cfqq: cfq's side of the engine's fallback queue
 * @hw_tag: the device queues commands
 * @hw_tag_samples: samples taken towards the next @hw_tag decision
 * @rq_in_driver_peak: the most requests seen in the driver while sampling
 * @last_position: sector after the last dispatched request
 * @blocked: the last dispatch held back on cfq's own rules (quantum, async
 *	waiting for sync); cleared by a completion or a new queue in service
 * @last_end_sync_rq: completion time of the last sync request (ns)
 * @quantum: tunable, requests
 * @fifo_expire: tunables, [0] async and [1] sync, ns
 * @back_seek_max: tunable, KiB
 * @back_seek_penalty: tunable, factor
 * @slice_async_rq: tunable, requests
 * @slice_idle: tunable, ns
 * @low_latency: tunable, 0 or 1
 * @prio_trees: sync queues with requests by the sector of their next
 *	request, per priority level: where close cooperators are found
 */
struct cfq_data {
	struct efq_data *efqd;
	struct cfq_queue oom_cfqq;
	bool hw_tag;
	unsigned int hw_tag_samples;
	unsigned int rq_in_driver_peak;
	sector_t last_position;
	bool blocked;
	u64 last_end_sync_rq;
	unsigned int quantum;
	u64 fifo_expire[2];
	unsigned int back_seek_max;
	unsigned int back_seek_penalty;
	unsigned int slice_async_rq;
	u64 slice_idle;
	unsigned int low_latency;
	struct rb_root prio_trees[EFQ_NR_PRIO];
};

static inline struct cfq_io_cq *icq_to_cic(struct io_cq *icq)
{
	return container_of(icq, struct cfq_io_cq, icq);
}

static inline struct cfq_io_cq *cfq_rq_cic(struct request *rq)
{
	return rq->elv.icq ? icq_to_cic(rq->elv.icq) : NULL;
}

static inline bool cfq_sample_valid(unsigned long samples)
{
	return samples > CFQ_SAMPLE_VALID;
}

static inline bool cfq_cic_seeky(struct cfq_io_cq *cic)
{
	return cic->seek.mean > CFQ_SEEK_THR;
}

/* --- request order inside a queue -------------------------------------- */

/*
 * Of two requests, the one to serve first from the current head position:
 * sync before async, metadata before data, then the shorter seek, where a
 * backward seek within back_seek_max counts back_seek_penalty times.
 */
static struct request *cfq_choose_req(struct cfq_data *cfqd,
				      struct request *rq1,
				      struct request *rq2)
{
	sector_t last = cfqd->last_position;
	sector_t back_max = (sector_t)cfqd->back_seek_max * 2;
	sector_t s1, s2, d1 = 0, d2 = 0;
	bool wrap1 = false, wrap2 = false;

	if (!rq1 || rq1 == rq2)
		return rq2;
	if (!rq2)
		return rq1;
	if (rq_is_sync(rq1) != rq_is_sync(rq2))
		return rq_is_sync(rq1) ? rq1 : rq2;
	if ((rq1->cmd_flags ^ rq2->cmd_flags) & REQ_META)
		return (rq1->cmd_flags & REQ_META) ? rq1 : rq2;

	s1 = blk_rq_pos(rq1);
	s2 = blk_rq_pos(rq2);
	if (s1 >= last)
		d1 = s1 - last;
	else if (s1 + back_max >= last)
		d1 = (last - s1) * cfqd->back_seek_penalty;
	else
		wrap1 = true;
	if (s2 >= last)
		d2 = s2 - last;
	else if (s2 + back_max >= last)
		d2 = (last - s2) * cfqd->back_seek_penalty;
	else
		wrap2 = true;

	if (!wrap1 && !wrap2) {
		if (d1 != d2)
			return d1 < d2 ? rq1 : rq2;
		return s1 >= s2 ? rq1 : rq2;
	}
	if (wrap1 && wrap2)
		return s1 <= s2 ? rq1 : rq2;
	return wrap1 ? rq2 : rq1;
}

/* The request after @last (which is leaving) in sector order. */
static struct request *cfq_find_next_rq(struct cfq_data *cfqd,
					struct cfq_queue *cfqq,
					struct request *last)
{
	struct rb_node *rbnext = rb_next(&last->rb_node);
	struct rb_node *rbprev = rb_prev(&last->rb_node);
	struct request *next = NULL, *prev = NULL;

	if (rbprev)
		prev = rb_entry_rq(rbprev);
	if (rbnext) {
		next = rb_entry_rq(rbnext);
	} else {
		rbnext = rb_first(&cfqq->sort_list);
		if (rbnext && rbnext != &last->rb_node)
			next = rb_entry_rq(rbnext);
	}
	return cfq_choose_req(cfqd, next, prev);
}

/*
 * Keep a sync queue in the tree of its level under the sector of its next
 * request, so that a queue going empty can find a neighbour to run.
 */
static void cfq_prio_tree_update(struct cfq_data *cfqd,
				 struct cfq_queue *cfqq)
{
	struct rb_node **p, *parent = NULL;
	struct efq_queue *ioq = cfqq->ioq;
	struct rb_root *root;
	sector_t pos;

	if (cfqq->p_root) {
		rb_erase(&cfqq->p_node, cfqq->p_root);
		cfqq->p_root = NULL;
	}
	if (!cfqq->next_rq || !efq_queue_sync(ioq) ||
	    efq_queue_class_idle(ioq) || ioq->ioprio >= EFQ_NR_PRIO)
		return;
	root = &cfqd->prio_trees[ioq->ioprio];
	pos = blk_rq_pos(cfqq->next_rq);
	p = &root->rb_node;
	while (*p) {
		struct cfq_queue *other = rb_entry(*p, struct cfq_queue,
						   p_node);

		parent = *p;
		if (pos < blk_rq_pos(other->next_rq))
			p = &parent->rb_left;
		else
			p = &parent->rb_right;
	}
	rb_link_node(&cfqq->p_node, parent, p);
	rb_insert_color(&cfqq->p_node, root);
	cfqq->p_root = root;
}

/* Take @rq out of its queue's sort tree and FIFO. */
static void cfq_remove_request(struct cfq_queue *cfqq, struct request *rq)
{
	if (cfqq->next_rq == rq) {
		cfqq->next_rq = cfq_find_next_rq(cfqq->cfqd, cfqq, rq);
		cfq_prio_tree_update(cfqq->cfqd, cfqq);
	}
	elv_rb_del(&cfqq->sort_list, rq);
	list_del_init(&rq->queuelist);
}

/*
 * The oldest request if its deadline has passed, looked at once per
 * activation of the queue.
 */
static struct request *cfq_check_fifo(struct cfq_queue *cfqq)
{
	struct request *rq;

	if (cfqq->fifo_checked)
		return NULL;
	cfqq->fifo_checked = true;
	rq = list_first_entry_or_null(&cfqq->fifo, struct request, queuelist);
	if (!rq || ktime_get_ns() < rq->fifo_time)
		return NULL;
	return rq;
}

/* --- queues -------------------------------------------------------------- */

static void cfq_init_cfqq(struct cfq_data *cfqd, struct cfq_queue *cfqq,
			  struct efq_queue *ioq)
{
	cfqq->ioq = ioq;
	cfqq->cfqd = cfqd;
	cfqq->sort_list = RB_ROOT;
	INIT_LIST_HEAD(&cfqq->fifo);
}

/*
 * Class and level of a request's ioprio; no class means best-effort.  The
 * level is the data's low bits only: the bits above it are an I/O hint
 * (ioprio_set(), aio and io_uring accept them), not a lower priority.
 */
static void cfq_ioprio_of(unsigned short ioprio, unsigned int *ioclass,
			  unsigned int *level)
{
	*ioclass = IOPRIO_PRIO_CLASS(ioprio);
	*level = IOPRIO_PRIO_LEVEL(ioprio);
	switch (*ioclass) {
	case IOPRIO_CLASS_RT:
	case IOPRIO_CLASS_BE:
		if (*level >= EFQ_NR_PRIO)
			*level = EFQ_NR_PRIO - 1;
		break;
	case IOPRIO_CLASS_IDLE:
		*level = EFQ_NR_PRIO - 1;
		break;
	default:
		*ioclass = IOPRIO_CLASS_BE;
		*level = IOPRIO_NORM;
		break;
	}
}

static void cfq_set_prio(struct cfq_queue *cfqq, unsigned short ioprio)
{
	struct efq_queue *ioq = cfqq->ioq;
	unsigned int ioclass, level;

	cfqq->ioprio = ioprio;
	cfq_ioprio_of(ioprio, &ioclass, &level);
	efq_queue_set_ioprio_class(ioq, ioclass);
	efq_queue_set_ioprio(ioq, level);
	if (ioclass == IOPRIO_CLASS_IDLE)
		efq_clear_queue_idle_window(ioq);
}

/* A new queue of group @iog, or NULL. */
static struct cfq_queue *cfq_new_queue(struct cfq_data *cfqd,
				       struct efq_group *iog, bool sync,
				       unsigned short ioprio, int pid)
{
	struct efq_data *efqd = cfqd->efqd;
	struct cfq_queue *cfqq;
	struct efq_queue *ioq;

	ioq = efq_queue_alloc(efqd, GFP_NOWAIT | __GFP_NOWARN);
	if (!ioq)
		return NULL;
	cfqq = kzalloc_node(sizeof(*cfqq), GFP_NOWAIT | __GFP_NOWARN,
			    efqd->queue->node);
	if (!cfqq) {
		/* not initialised yet: the last reference frees it quietly */
		efq_queue_init(efqd, ioq, pid, sync, NULL);
		efq_put_queue(ioq);
		return NULL;
	}
	efq_queue_init(efqd, ioq, pid, sync, cfqq);
	cfq_init_cfqq(cfqd, cfqq, ioq);
	if (sync)
		efq_mark_queue_idle_window(ioq);
	cfq_set_prio(cfqq, ioprio);
	efq_queue_set_group(ioq, iog);
	return cfqq;
}

/* The shared async queue of @iog for @ioprio, created on first use. */
static struct efq_queue *cfq_async_queue(struct cfq_data *cfqd,
					 struct efq_group *iog,
					 unsigned short ioprio)
{
	unsigned int ioclass, level;
	struct cfq_queue *cfqq;
	struct efq_queue *ioq;

	cfq_ioprio_of(ioprio, &ioclass, &level);
	ioq = efq_group_async_queue(iog, ioclass, level);
	if (ioq)
		return ioq;
	cfqq = cfq_new_queue(cfqd, iog, false, ioprio, 0);
	if (!cfqq)
		return NULL;
	efq_group_set_async_queue(iog, ioclass, level, cfqq->ioq);
	efq_put_queue(cfqq->ioq);
	return efq_group_async_queue(iog, ioclass, level);
}

/*
 * @ioq's process has no more requests for it (its process left it, or
 * submits to its other sync queue): if @ioq is in service with nothing
 * queued, it would idle (or its group would) for a request that will not
 * come to it.  The engine ends its slice at its next decision, once the
 * requests it has in the driver completed if fairness asks for that.
 */
static void cfq_expire_if_awaited(struct efq_data *efqd,
				  struct efq_queue *ioq)
{
	if (ioq == efqd->active_queue && !ioq->nr_queued) {
		efq_mark_queue_must_expire(ioq);
		efq_schedule_dispatch(efqd);
	}
}

/* A process's sync queue leaves its io_cq (process exit, group change). */
static void cfq_detach_sync_queue(struct cfq_data *cfqd,
				  struct cfq_io_cq *cic, int slot)
{
	struct efq_data *efqd = cfqd->efqd;
	struct cfq_queue *cfqq = cic->cfqq[slot];
	struct efq_queue *ioq;

	if (!cfqq)
		return;
	ioq = cfqq->ioq;
	cic->cfqq[slot] = NULL;
	cfqq->cic = NULL;
	efq_queue_exit(efqd, ioq);
	cfq_expire_if_awaited(efqd, ioq);
	efq_put_queue(ioq);
}

/*
 * The queue of a request, under efqd->lock: the submitter's sync queue in
 * the request's group, or the group's async queue for its priority; the
 * fallback queue if memory is short.  The io_cq, the group or the device
 * holds it; the request takes its own reference (efq_rq_set_queue()).
 */
static struct efq_queue *cfq_get_queue(struct cfq_data *cfqd,
				       struct request *rq)
{
	struct efq_data *efqd = cfqd->efqd;
	struct cfq_io_cq *cic = cfq_rq_cic(rq);
	struct efq_group *iog = efq_group_of_rq(efqd, rq);
	/* from rq->bio: 6.12 has no rq->ioprio */
	unsigned short ioprio = req_get_ioprio(rq);
	struct efq_queue *ioq = NULL;
	struct cfq_queue *cfqq, *other;

	/*
	 * A process that exited (its io_cq's exit_icq ran) gets no new sync
	 * queue: nothing would detach it again.  Its requests still queued
	 * or requeued go to the group's async queue.
	 */
	if (rq_is_sync(rq) && cic && !cic->exited) {
		int slot = iog == efqd->root_group ? CFQ_SLOT_ROOT :
						     CFQ_SLOT_GROUP;

		cfqq = cic->cfqq[slot];
		if (cfqq && efq_queue_group(cfqq->ioq) != iog)
			cfq_detach_sync_queue(cfqd, cic, slot);
		/*
		 * The process's queue in its other group (data in its
		 * cgroup, metadata in the root group) may idle for this
		 * very request, and no preemption reaches across groups:
		 * without this every switch would cost a whole slice_idle.
		 */
		other = cic->cfqq[slot ^ 1];
		if (other)
			cfq_expire_if_awaited(efqd, other->ioq);
		if (!cic->cfqq[slot]) {
			cfqq = cfq_new_queue(cfqd, iog, true, ioprio,
					     current->pid);
			if (cfqq) {
				cfqq->cic = cic;
				cic->cfqq[slot] = cfqq;
			}
		}
		cfqq = cic->cfqq[slot];
		if (cfqq) {
			if (cfqq->ioprio != ioprio)
				cfq_set_prio(cfqq, ioprio);
			ioq = cfqq->ioq;
		}
	} else {
		ioq = cfq_async_queue(cfqd, iog, ioprio);
	}
	if (!ioq) {
		/* the device keeps its fallback queue: drop the new reference */
		ioq = efq_oom_queue(efqd);
		efq_put_queue(ioq);
	}
	return ioq;
}

static void cfq_free_sched_queue(struct efq_data *efqd, void *sq)
{
	struct cfq_queue *cfqq = sq;

	WARN_ON_ONCE(!RB_EMPTY_ROOT(&cfqq->sort_list));
	WARN_ON_ONCE(!list_empty(&cfqq->fifo));
	WARN_ON_ONCE(cfqq->p_root);
	kfree(cfqq);
}

/* --- per-process statistics ---------------------------------------------- */

/* @now: the insert's time, read once for the whole insert */
static void cfq_update_thinktime(struct cfq_data *cfqd, struct cfq_io_cq *cic,
				 u64 now)
{
	u64 ttime = now > cic->last_end_request ?
		    now - cic->last_end_request : 0;

	ttime = min_t(u64, ttime, 2 * cfqd->slice_idle);
	efq_decay_add(&cic->ttime, ttime);
}

static void cfq_update_seektime(struct cfq_io_cq *cic, struct request *rq)
{
	sector_t pos = blk_rq_pos(rq);
	u64 sdist, cap;

	if (!cic->seek.samples)
		sdist = 0;
	else if (cic->last_request_pos < pos)
		sdist = pos - cic->last_request_pos;
	else
		sdist = cic->last_request_pos - pos;

	/* one wild seek must not make a sequential process seeky */
	if (cic->seek.samples <= 60)
		cap = cic->seek.mean * 4 + 2 * 1024 * 1024;
	else
		cap = cic->seek.mean * 4 + 2 * 1024 * 64;
	sdist = min(sdist, cap);

	efq_decay_add(&cic->seek, sdist);
}

/* Is the process worth idling for? */
static void cfq_update_idle_window(struct cfq_data *cfqd,
				   struct efq_queue *ioq,
				   struct cfq_io_cq *cic)
{
	bool enable;

	if (!efq_queue_sync(ioq) || efq_queue_class_idle(ioq))
		return;
	enable = efq_queue_idle_window(ioq);
	if (!cfqd->slice_idle ||
	    (!cfqd->low_latency && cfqd->hw_tag &&
	     cfq_sample_valid(cic->seek.samples) && cfq_cic_seeky(cic)))
		enable = false;
	else if (cfq_sample_valid(cic->ttime.samples))
		enable = cic->ttime.mean <= cfqd->slice_idle;
	if (enable)
		efq_mark_queue_idle_window(ioq);
	else
		efq_clear_queue_idle_window(ioq);
}

/* Does the device queue commands?  Sampled while it is loaded. */
static void cfq_update_hw_tag(struct cfq_data *cfqd)
{
	struct efq_data *efqd = cfqd->efqd;

	if (efqd->rq_in_driver > cfqd->rq_in_driver_peak)
		cfqd->rq_in_driver_peak = efqd->rq_in_driver;
	if (efqd->nr_queued <= CFQ_HW_QUEUE_MIN &&
	    efqd->rq_in_driver <= CFQ_HW_QUEUE_MIN)
		return;
	if (cfqd->hw_tag_samples++ < CFQ_HW_TAG_SAMPLES)
		return;
	cfqd->hw_tag = cfqd->rq_in_driver_peak > CFQ_HW_QUEUE_MIN;
	cfqd->rq_in_driver_peak = 0;
	cfqd->hw_tag_samples = 0;
}

/* --- engine hooks ---------------------------------------------------------- */

static void cfq_active_queue_set(struct efq_data *efqd, void *sq, bool coop)
{
	struct cfq_queue *cfqq = sq;
	struct cfq_data *cfqd = efqd->sched_data;

	cfqq->slice_dispatch = 0;
	cfqq->fifo_checked = false;
	cfqq->coop = coop;
	cfqd->blocked = false;
}

static void cfq_active_queue_reset(struct efq_data *efqd, void *sq)
{
	struct cfq_data *cfqd = efqd->sched_data;

	cfqd->blocked = false;
}

static void cfq_arm_slice_timer(struct efq_data *efqd, void *sq)
{
	struct cfq_data *cfqd = efqd->sched_data;
	struct cfq_queue *cfqq = sq, *other;
	struct cfq_io_cq *cic = cfqq->cic;
	u64 sl;

	if (!cic)
		return;
	/*
	 * The process's next request is already queued, to its queue in the
	 * other group: nothing will come here to wait for, nor to its group.
	 */
	other = cic->cfqq[cic->cfqq[CFQ_SLOT_GROUP] == cfqq ? CFQ_SLOT_ROOT :
							       CFQ_SLOT_GROUP];
	if (other && other->ioq->nr_queued) {
		efq_mark_queue_must_expire(cfqq->ioq);
		return;
	}
	/*
	 * Requests of the queue still in flight: their completions come
	 * back here, and the engine holds the queue meanwhile (its idle
	 * window).  A wait armed now, short for a seeky process, could run
	 * out between two completions of a deep queue, which a queueing or
	 * throttled device spaces unevenly, and expire the queue with its
	 * group's share in flight.
	 */
	if (cfqq->ioq->dispatched)
		return;
	/* a queueing SSD has no seek to save: keep it busy instead */
	if (efq_queue_nonrot(efqd->queue) && cfqd->hw_tag)
		return;
	if (!cfqd->slice_idle || !efq_queue_idle_window(cfqq->ioq))
		return;
	sl = cfqd->slice_idle;
	if (cfq_sample_valid(cic->seek.samples) && cfq_cic_seeky(cic))
		sl = min_t(u64, sl, CFQ_MIN_TT);
	efq_arm_idle_timer(efqd, sl);
}

/* Is @rq near where the head is, as the active process usually seeks? */
static bool cfq_rq_close(struct cfq_data *cfqd, struct cfq_io_cq *cic,
			 struct request *rq)
{
	sector_t pos = blk_rq_pos(rq);
	u64 sdist = CFQ_SEEK_THR;

	if (cfq_sample_valid(cic->seek.samples))
		sdist = cic->seek.mean;
	if (pos >= cfqd->last_position)
		return pos - cfqd->last_position <= sdist;
	return cfqd->last_position - pos <= sdist;
}

static bool cfq_should_preempt(struct efq_data *efqd, void *new_sq,
			       struct request *rq)
{
	struct cfq_data *cfqd = efqd->sched_data;
	struct efq_queue *active = efqd->active_queue;
	struct cfq_queue *new_cfqq = new_sq;
	struct cfq_queue *cfqq;

	if (!active)
		return false;
	cfqq = active->sched_queue;
	if (efq_queue_slice_used(active))
		return true;
	if (efq_queue_class_idle(new_cfqq->ioq))
		return false;
	if (efq_queue_class_idle(active))
		return true;
	/*
	 * A sync request beats an async queue, but only once that queue
	 * sent something in this activation: the async queue is chosen at a
	 * completion, before the reader whose request just completed sends
	 * its next one, and would otherwise lose every turn to that reader.
	 */
	if (rq_is_sync(rq) && !efq_queue_sync(active))
		return active->dispatched || !efq_queue_slice_new(active);
	if ((rq->cmd_flags & REQ_META) && !active->meta_pending)
		return true;
	if (!cfqq || !cfqq->cic || !efq_queue_wait_request(active))
		return false;
	return cfq_rq_close(cfqd, cfqq->cic, rq);
}

/* A queue of @root whose next request is close to the head, or NULL. */
static struct cfq_queue *cfq_close_in_tree(struct cfq_data *cfqd,
					   struct cfq_io_cq *cic,
					   struct rb_root *root)
{
	sector_t pos = cfqd->last_position;
	struct rb_node *n = root->rb_node, *parent = NULL;
	struct cfq_queue *cfqq = NULL;

	while (n) {
		cfqq = rb_entry(n, struct cfq_queue, p_node);
		parent = n;
		if (blk_rq_pos(cfqq->next_rq) == pos)
			return cfqq;
		n = pos < blk_rq_pos(cfqq->next_rq) ? n->rb_left :
						       n->rb_right;
	}
	if (!parent)
		return NULL;
	if (cfq_rq_close(cfqd, cic, cfqq->next_rq))
		return cfqq;
	/* the neighbour on the other side of the head */
	n = blk_rq_pos(cfqq->next_rq) < pos ? rb_next(parent) : rb_prev(parent);
	if (!n)
		return NULL;
	cfqq = rb_entry(n, struct cfq_queue, p_node);
	return cfq_rq_close(cfqd, cic, cfqq->next_rq) ? cfqq : NULL;
}

/*
 * The queue in service went empty: rather than idle, run a queue of the
 * same group and level whose next request is close to where the head is
 * (processes working on the same area of the disk), once per activation.
 */
static struct efq_queue *cfq_close_cooperator(struct efq_data *efqd,
					      void *cur_sq)
{
	struct cfq_data *cfqd = efqd->sched_data;
	struct cfq_queue *cur = cur_sq, *q;

	if (!cur->cic || cur->ioq->ioprio >= EFQ_NR_PRIO)
		return NULL;
	q = cfq_close_in_tree(cfqd, cur->cic,
			      &cfqd->prio_trees[cur->ioq->ioprio]);
	if (!q || q == cur || q->coop ||
	    efq_queue_group(q->ioq) != efq_queue_group(cur->ioq))
		return NULL;
	return q->ioq;
}

static const struct efq_sched_ops cfq_efq_ops = {
	.free_sched_queue	= cfq_free_sched_queue,
	.active_queue_set	= cfq_active_queue_set,
	.active_queue_reset	= cfq_active_queue_reset,
	.arm_slice_timer	= cfq_arm_slice_timer,
	.should_preempt		= cfq_should_preempt,
	.close_cooperator	= cfq_close_cooperator,
};

/* --- elevator ops ---------------------------------------------------------- */

static int cfq_init_sched(struct request_queue *q, efq_init_sched_t e)
{
	struct elevator_queue *eq;
	struct efq_data *efqd;
	struct cfq_data *cfqd;

	eq = efq_elevator_alloc(q, e);
	if (!eq)
		return -ENOMEM;
	cfqd = kzalloc_node(sizeof(*cfqd), GFP_KERNEL, q->node);
	if (!cfqd) {
		efq_elevator_put(eq);
		return -ENOMEM;
	}
	cfqd->quantum = CFQ_QUANTUM;
	cfqd->fifo_expire[0] = CFQ_FIFO_EXPIRE_ASYNC;
	cfqd->fifo_expire[1] = CFQ_FIFO_EXPIRE_SYNC;
	cfqd->back_seek_max = CFQ_BACK_SEEK_MAX;
	cfqd->back_seek_penalty = CFQ_BACK_SEEK_PENALTY;
	cfqd->slice_async_rq = CFQ_SLICE_ASYNC_RQ;
	cfqd->slice_idle = CFQ_SLICE_IDLE;
	cfqd->low_latency = 1;
	cfqd->hw_tag = true;

	efqd = efq_data_init(q, eq, &cfq_efq_ops, cfqd);
	if (IS_ERR(efqd)) {
		kfree(cfqd);
		efq_elevator_put(eq);
		return PTR_ERR(efqd);
	}
	cfqd->efqd = efqd;
	efqd->hierarchical = IS_ENABLED(CONFIG_IOSCHED_CFQ_HIER);
	cfq_init_cfqq(cfqd, &cfqd->oom_cfqq, &efqd->oom_queue);
	efqd->oom_queue.sched_queue = &cfqd->oom_cfqq;
	blk_queue_flag_set(QUEUE_FLAG_SQ_SCHED, q);
	return 0;
}

static void cfq_exit_sched(struct elevator_queue *e)
{
	struct efq_data *efqd = e->elevator_data;
	struct cfq_data *cfqd = efqd->sched_data;

	efq_data_exit(efqd);
	kfree(cfqd);
}

/*
 * The process exited (or the elevator goes): called under the io_context's
 * lock.  q->elevator is cfq's: the block layer exits every icq of a queue
 * (ioc_clear_queue()) before exit_sched.  Under cfq's lock, so that an
 * insert cannot attach a new queue behind our back.
 */
static void cfq_exit_icq(struct io_cq *icq)
{
	struct cfq_io_cq *cic = icq_to_cic(icq);
	struct efq_data *efqd = icq->q->elevator->elevator_data;
	unsigned long flags;

	spin_lock_irqsave(&efqd->lock, flags);
	cic->exited = true;
	cfq_detach_sync_queue(efqd->sched_data, cic, CFQ_SLOT_GROUP);
	cfq_detach_sync_queue(efqd->sched_data, cic, CFQ_SLOT_ROOT);
	spin_unlock_irqrestore(&efqd->lock, flags);
}

static void cfq_init_icq(struct io_cq *icq)
{
	struct cfq_io_cq *cic = icq_to_cic(icq);

	cic->last_end_request = ktime_get_ns();
}

/*
 * Since 6.0 the block layer leaves the io_cq to the scheduler: look it up
 * (or create it) for the submitting task here; the request holds a
 * reference on the io_context until cfq_finish_request().
 */
static void cfq_prepare_request(struct request *rq)
{
	rq->elv.icq = ioc_find_get_icq(rq->q);
	efq_rq_prepare(rq);
}

/* Queue one request to its cfq queue and tell the engine. */
static void cfq_insert_one(struct cfq_data *cfqd, struct request *rq,
			   bool at_head)
{
	struct efq_data *efqd = cfqd->efqd;
	struct request_queue *q = efqd->queue;
	struct cfq_io_cq *cic = cfq_rq_cic(rq);
	struct efq_queue *ioq = cfq_get_queue(cfqd, rq);
	struct cfq_queue *cfqq = ioq->sched_queue;
	bool sync = rq_is_sync(rq);
	/* one clock read per insert: the deadline and the think time */
	u64 now = ktime_get_ns();

	efq_rq_set_queue(rq, ioq);
	elv_rb_add(&cfqq->sort_list, rq);
	rq->fifo_time = now + cfqd->fifo_expire[sync];
	if (at_head) {
		list_add(&rq->queuelist, &cfqq->fifo);
		cfqq->next_rq = rq;
	} else {
		list_add_tail(&rq->queuelist, &cfqq->fifo);
		cfqq->next_rq = cfq_choose_req(cfqd, cfqq->next_rq, rq);
		efq_rq_hash_add(q, rq);
	}
	cfq_prio_tree_update(cfqd, cfqq);
	if (sync && cic && cfqq->cic == cic) {
		cfq_update_thinktime(cfqd, cic, now);
		cfq_update_seektime(cic, rq);
		cfq_update_idle_window(cfqd, ioq, cic);
		cic->last_request_pos = blk_rq_pos(rq) + blk_rq_sectors(rq);
	}
	efq_request_add(efqd, ioq, rq);
	cfq_update_hw_tag(cfqd);
}

static void cfq_update_blocked(struct cfq_data *cfqd);

static void cfq_insert_requests(struct blk_mq_hw_ctx *hctx,
				struct list_head *list, efq_insert_t flags)
{
	bool at_head = efq_insert_at_head(flags);
	struct request_queue *q = hctx->queue;
	struct efq_data *efqd = q->elevator->elevator_data;
	struct cfq_data *cfqd = efqd->sched_data;
	LIST_HEAD(free);

	spin_lock_irq(&efqd->lock);
	while (!list_empty(list)) {
		struct request *rq = list_first_entry(list, struct request,
						      queuelist);

		list_del_init(&rq->queuelist);
		if (efq_bypass_insert(efqd, rq, at_head))
			continue;
		if (!at_head && blk_mq_sched_try_insert_merge(q, rq, &free))
			continue;
		cfq_insert_one(cfqd, rq, at_head);
	}
	cfq_update_blocked(cfqd);
	spin_unlock_irq(&efqd->lock);
	blk_mq_free_requests(&free);
}

/* Requests a queue may dispatch in one activation when others wait. */
static u64 cfq_prio_to_maxrq(struct cfq_data *cfqd, struct efq_queue *ioq)
{
	u64 base = cfqd->slice_async_rq;

	return 2 * (base + base * (EFQ_NR_PRIO - 1 - ioq->ioprio));
}

/* May the queue in service send one more request to the device now? */
static bool cfq_may_dispatch(struct cfq_data *cfqd, struct efq_queue *ioq)
{
	struct efq_data *efqd = cfqd->efqd;
	struct efq_group *iog = efq_queue_group(ioq);
	unsigned int max_dispatch = cfqd->quantum;

	/*
	 * async waits while sync requests of its group are in flight.  Of
	 * its group only: another group's readers get the disk in their own
	 * turns, by vdisktime, and a device-wide rule would let a reader at
	 * weight 100 take nearly all the disk from a writer at 1000.
	 */
	if (iog->sync_flight && !efq_queue_sync(ioq))
		return false;
	if (efq_queue_class_idle(ioq))
		max_dispatch = 1;
	if (ioq->dispatched >= max_dispatch) {
		if (efq_queue_class_idle(ioq) || efqd->busy_queues > 1)
			return false;
		if (ioq->dispatched >= 4 * max_dispatch)
			return false;
	}
	/*
	 * after sync activity anywhere on the device, async depth grows by
	 * one per sync slice: a reader that just got the disk back after
	 * another group's writeback does not find the device's queue full
	 * of writes
	 */
	if (cfqd->low_latency && !efq_queue_sync(ioq)) {
		u64 since = ktime_get_ns() - cfqd->last_end_sync_rq;
		u64 depth = div64_u64(since, max_t(u64, efqd->slice[1], 1));

		if (!depth && !ioq->dispatched)
			depth = 1;
		if (depth < max_dispatch && ioq->dispatched >= depth)
			return false;
	}
	return true;
}

/*
 * After an event, make has_work exact: settle now which queue the next
 * dispatch serves (the engine's selection, which a dispatch would make
 * anyway), and hold dispatching while cfq's own rules keep that queue from
 * sending a request.  Every such rule waits for a request in flight, whose
 * completion comes back here.
 *
 * When the hold ends here, the queues are re-run: a run the engine asks
 * for at a completion comes before this (inside efq_request_completed()),
 * and blk-mq evaluates has_work at once, so it saw @blocked still set and
 * did nothing.  Without this re-run nothing would dispatch again (review
 * lead 3).  A block also makes the engine's hold (efq_hold_dispatch()), so
 * a block cleared by a queue switch within an event is the engine's to
 * end: its held_back runs the queues.
 */
static void cfq_update_blocked(struct cfq_data *cfqd)
{
	struct efq_data *efqd = cfqd->efqd;
	struct efq_queue *ioq = NULL;
	bool was = cfqd->blocked;

	if (efqd->nr_queued && !efqd->hold)
		ioq = efq_select_queue(efqd, false);
	WRITE_ONCE(cfqd->blocked, ioq && !cfq_may_dispatch(cfqd, ioq));
	if (cfqd->blocked)
		efq_hold_dispatch(efqd);
	else if (was && efq_has_work(efqd))
		blk_mq_run_hw_queues(efqd->queue, true);
}

static struct request *cfq_dispatch_request(struct blk_mq_hw_ctx *hctx)
{
	struct efq_data *efqd = hctx->queue->elevator->elevator_data;
	struct cfq_data *cfqd = efqd->sched_data;
	struct request *rq = NULL;
	struct cfq_queue *cfqq;
	struct efq_queue *ioq;

	spin_lock_irq(&efqd->lock);
	rq = efq_bypass_dispatch(efqd);
	if (rq)
		goto out;
	ioq = efq_select_queue(efqd, false);
	if (!ioq)
		goto out;
	cfqq = ioq->sched_queue;
	if (!cfq_may_dispatch(cfqd, ioq))
		goto out;
	rq = cfq_check_fifo(cfqq);
	if (!rq)
		rq = cfqq->next_rq;
	if (WARN_ON_ONCE(!rq))
		goto out;
	cfq_remove_request(cfqq, rq);
	efq_rq_dispatched(efqd, rq);
	cfqd->last_position = blk_rq_pos(rq) + blk_rq_sectors(rq);
	cfqq->slice_dispatch++;

	/* an async or idle queue makes way once it had its share */
	if (efqd->busy_queues > 1 &&
	    ((!efq_queue_sync(ioq) &&
	      cfqq->slice_dispatch >= cfq_prio_to_maxrq(cfqd, ioq)) ||
	     efq_queue_class_idle(ioq)) &&
	    !efq_group_should_idle(ioq))
		efq_expire_active(efqd, EFQ_EXPIRE_SCHED);
out:
	cfq_update_blocked(cfqd);
	spin_unlock_irq(&efqd->lock);
	return rq;
}

static bool cfq_has_work(struct blk_mq_hw_ctx *hctx)
{
	struct efq_data *efqd = hctx->queue->elevator->elevator_data;
	struct cfq_data *cfqd = efqd->sched_data;

	return efq_bypass_pending(efqd) ||
	       (efq_has_work(efqd) && !READ_ONCE(cfqd->blocked));
}

/* The request leaves the scheduler: completed (@done) or requeued. */
static void cfq_release_request(struct request *rq, bool done)
{
	struct efq_queue *ioq = efq_rq_queue(rq);
	struct cfq_io_cq *cic = cfq_rq_cic(rq);
	struct cfq_data *cfqd;
	struct efq_data *efqd;
	unsigned long flags;

	if (!ioq)
		return;
	efqd = ioq->efqd;
	cfqd = efqd->sched_data;
	spin_lock_irqsave(&efqd->lock, flags);
	if (efq_rq_was_dispatched(rq)) {
		if (done) {
			if (rq_is_sync(rq)) {
				u64 now = ktime_get_ns();

				cfqd->last_end_sync_rq = now;
				if (cic)
					cic->last_end_request = now;
			}
			cfq_update_hw_tag(cfqd);
			efq_request_completed(efqd, ioq, rq);
		} else {
			efq_request_requeued(efqd, ioq, rq);
		}
	}
	efq_rq_clear_queue(rq);
	cfq_update_blocked(cfqd);
	spin_unlock_irqrestore(&efqd->lock, flags);
}

static void cfq_finish_request(struct request *rq)
{
	cfq_release_request(rq, true);
	if (rq->elv.icq) {
		put_io_context(rq->elv.icq->ioc);
		rq->elv.icq = NULL;
	}
}

static void cfq_requeue_request(struct request *rq)
{
	cfq_release_request(rq, false);
}

/*
 * A bio joins only a request of its own queue: same group, same kind, and
 * for sync IO the same process.
 */
static bool cfq_allow_merge(struct request_queue *q, struct request *rq,
			    struct bio *bio)
{
	struct cfq_io_cq *cic = cfq_rq_cic(rq);

	if (!efq_allow_merge(q, rq, bio))
		return false;
	if (op_is_sync(bio->bi_opf) != rq_is_sync(rq))
		return false;
	if (rq_is_sync(rq))
		return cic && cic->icq.ioc == current->io_context;
	return true;
}

/*
 * A front merge moved @rq's start sector: put it back in sector order, and
 * the queue back under its next request's sector.
 */
static void cfq_request_merged(struct request_queue *q, struct request *rq,
			       enum elv_merge type)
{
	struct efq_data *efqd = q->elevator->elevator_data;
	struct efq_queue *ioq = efq_rq_queue(rq);
	struct cfq_queue *cfqq;

	lockdep_assert_held(&efqd->lock);
	if (type != ELEVATOR_FRONT_MERGE || !ioq || RB_EMPTY_NODE(&rq->rb_node))
		return;
	cfqq = ioq->sched_queue;
	elv_rb_del(&cfqq->sort_list, rq);
	elv_rb_add(&cfqq->sort_list, rq);
	cfqq->next_rq = cfq_choose_req(efqd->sched_data, cfqq->next_rq, rq);
	cfq_prio_tree_update(efqd->sched_data, cfqq);
}

static void cfq_requests_merged(struct request_queue *q, struct request *rq,
				struct request *next)
{
	struct efq_data *efqd = q->elevator->elevator_data;
	struct efq_queue *ioq = efq_rq_queue(next);

	if (!ioq) {
		list_del_init(&next->queuelist);
		return;
	}
	/* the merged request keeps the earlier deadline */
	if (next->fifo_time < rq->fifo_time &&
	    efq_rq_queue(rq) == ioq) {
		list_move(&rq->queuelist, &next->queuelist);
		rq->fifo_time = next->fifo_time;
	}
	cfq_remove_request(ioq->sched_queue, next);
	efq_request_merged_away(efqd, ioq, next);
}

/* --- sysfs tunables -------------------------------------------------------- */

/* cfq's data, for the tunables' fields (EFQ_TUNABLE()'s @ref) */
static inline struct cfq_data *cfq_of(struct efq_data *efqd)
{
	return efqd->sched_data;
}

/* EFQ_TUNE_MS ones in milliseconds; fifo_expire_sync is fifo_expire[1]. */
EFQ_TUNABLE(cfq, quantum, cfq_of(efqd)->quantum, 1, UINT_MAX, EFQ_TUNE_NUM)
EFQ_TUNABLE(cfq, fifo_expire_sync, cfq_of(efqd)->fifo_expire[1],
	    1, UINT_MAX, EFQ_TUNE_MS)
EFQ_TUNABLE(cfq, fifo_expire_async, cfq_of(efqd)->fifo_expire[0],
	    1, UINT_MAX, EFQ_TUNE_MS)
EFQ_TUNABLE(cfq, back_seek_max, cfq_of(efqd)->back_seek_max,
	    0, UINT_MAX, EFQ_TUNE_NUM)
EFQ_TUNABLE(cfq, back_seek_penalty, cfq_of(efqd)->back_seek_penalty,
	    1, UINT_MAX, EFQ_TUNE_NUM)
EFQ_TUNABLE(cfq, slice_async_rq, cfq_of(efqd)->slice_async_rq,
	    1, UINT_MAX, EFQ_TUNE_NUM)
EFQ_TUNABLE(cfq, slice_idle, cfq_of(efqd)->slice_idle,
	    0, EFQ_IDLE_MAX_MS, EFQ_TUNE_MS)
EFQ_TUNABLE(cfq, low_latency, cfq_of(efqd)->low_latency, 0, 1, EFQ_TUNE_NUM)

EFQ_ATTRS(cfq,
	  EFQ_TUNABLE_ATTR(cfq, quantum),
	  EFQ_TUNABLE_ATTR(cfq, fifo_expire_sync),
	  EFQ_TUNABLE_ATTR(cfq, fifo_expire_async),
	  EFQ_TUNABLE_ATTR(cfq, back_seek_max),
	  EFQ_TUNABLE_ATTR(cfq, back_seek_penalty),
	  EFQ_TUNABLE_ATTR(cfq, slice_async_rq),
	  EFQ_TUNABLE_ATTR(cfq, slice_idle),
	  EFQ_TUNABLE_ATTR(cfq, low_latency),
	  EFQ_ATTR(slice_sync),
	  EFQ_ATTR(slice_async));

static struct elevator_type cfq_sched = {
	.ops = {
		.init_sched		= cfq_init_sched,
		.exit_sched		= cfq_exit_sched,
		.init_icq		= cfq_init_icq,
		.exit_icq		= cfq_exit_icq,
		.prepare_request	= cfq_prepare_request,
		.limit_depth		= efq_limit_depth,
		.depth_updated		= efq_depth_updated,
		.init_hctx		= efq_init_hctx,
		.insert_requests	= cfq_insert_requests,
		.dispatch_request	= cfq_dispatch_request,
		.has_work		= cfq_has_work,
		.finish_request		= cfq_finish_request,
		.requeue_request	= cfq_requeue_request,
		.bio_merge		= efq_bio_merge,
		.allow_merge		= cfq_allow_merge,
		.request_merged		= cfq_request_merged,
		.requests_merged	= cfq_requests_merged,
	},
	.icq_size	= sizeof(struct cfq_io_cq),
	.icq_align	= __alignof__(struct cfq_io_cq),
	EFQ_ELEVATOR_DEBUGFS
	.elevator_attrs	= cfq_attrs,
	.elevator_name	= "cfq",
	.elevator_owner	= THIS_MODULE,
};
MODULE_ALIAS("cfq-iosched");

module_efq_elevator(cfq_sched);

MODULE_AUTHOR("The efq authors");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("cfq IO scheduler on the efq fair-queuing engine");
