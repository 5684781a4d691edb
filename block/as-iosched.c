// SPDX-License-Identifier: GPL-2.0
/*
 * as: the anticipatory IO scheduler on the efq fair-queuing engine.
 *
 * Inside a queue, requests are kept twice: sorted by sector, one tree per
 * direction (sync and async), and in arrival order with a deadline, one
 * FIFO per direction.  Service alternates between batches of one
 * direction: a sync ("read") batch lasts read_batch_expire from its first
 * completion, an async ("write") batch write_batch_expire or a number of
 * requests sized from how long past write batches took.  Within a batch
 * the disk head sweeps upwards through the sorted tree, except that a
 * request whose FIFO deadline has passed is served next.
 *
 * Anticipation.  A process that reads synchronously submits its next read
 * only after the previous one completed.  Serving someone else in that
 * gap moves the head away, and the reader pays a seek for every request.
 * So after a read of process P completes, the device waits up to
 * antic_expire for P's next read, holding back everything else, unless
 * P's history says the wait will not pay: its mean think time exceeds
 * antic_expire, or it already has a read queued.  A read from P, or a
 * read close to where the head is, ends the wait at once (the
 * "anticipation" broke); otherwise the antic timer ends it.  While
 * waiting, has_work is false; the timer and the request that breaks the
 * wait re-run the hardware queues.
 *
 * Per-process statistics (think time and seek distance, decaying means)
 * live in the io_cq of the submitter's io_context on this device, as
 * cfq's per-process state does: tasks that share an io_context (CLONE_IO)
 * are one process to AS, as they were to 2.6.31's AS, whose as_io_context
 * hung off the io_context.  The io_cq is looked up (or made) when a
 * request is allocated and the request holds a reference on the
 * io_context until it is freed; when the task exits, AS stops waiting for
 * it.
 *
 * Groups.  Each group (cgroup) of a device has one as_queue; the engine
 * picks the group to serve and gives it a time slice, and within the
 * slice the as_queue runs its batches.  The batch state is per device and
 * belongs to the queue in service: when the engine switches queues, the
 * direction and the time left of the current batch are saved in the
 * as_queue and restored when it runs again.  AS drains itself: it refuses
 * an expiry while requests are in flight (then stops dispatching so the
 * switch can happen soon) or while it anticipates and the slice has time
 * left.  In flat mode there is a single queue and the scheduler is
 * classic AS.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/kstrtox.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/blktrace_api.h>
#include <linux/elevator-fq.h>

#include "elevator.h"
#include "blk.h"
#include "blk-mq.h"
#include "blk-mq-sched.h"
#include "blk-mq-debugfs.h"

/* Directions: index of sort_list[], fifo_list[], next_rq[]. */
#define AS_ASYNC	0
#define AS_SYNC		1

/* Defaults, in milliseconds (the 2.6.31 values). */
#define AS_READ_EXPIRE_MS		125
#define AS_WRITE_EXPIRE_MS		250
#define AS_READ_BATCH_EXPIRE_MS		500
#define AS_WRITE_BATCH_EXPIRE_MS	125
#define AS_ANTIC_EXPIRE_MS		6

/* Upper bounds of the tunables, in milliseconds; larger values clamp. */
#define AS_EXPIRE_MAX_MS		60000
#define AS_ANTIC_EXPIRE_MAX_MS		1000

/* A read this close to the head (sectors) is as good as the one awaited. */
#define AS_CLOSE_SECTORS		128

/* Think times longer than this are counted as this (ns). */
#define AS_TTIME_CAP_NS			NSEC_PER_SEC

#define as_log(ad, fmt, ...)						\
	blk_add_trace_msg((ad)->efqd->queue, "as " fmt, ##__VA_ARGS__)

enum as_antic_status {
	ANTIC_OFF,		/* not anticipating */
	ANTIC_WAIT_REQ,		/* the awaited process's read is in flight */
	ANTIC_WAIT_NEXT,	/* it completed: the antic timer runs */
	ANTIC_FINISHED,		/* ended; not again before a dispatch */
};

/**
 * struct as_proc - what AS knows about one submitting process (io_context)
 * @nr_queued: its sync requests in the scheduler
 * @nr_dispatched: its sync requests in flight
 * @last_end: when its last sync request completed (ns), 0 if none yet
 * @last_pos: sector after its last sync request
 * @has_pos: @last_pos is valid
 * @ttime: its decaying mean think time (ns)
 * @seek: its decaying mean seek distance (sectors)
 * @exited: its task exited; never waited for again (its io_cq goes once
 *	the last of its requests is freed)
 */
struct as_proc {
	unsigned int nr_queued;
	unsigned int nr_dispatched;
	u64 last_end;
	sector_t last_pos;
	bool has_pos;
	struct efq_decay ttime;
	struct efq_decay seek;
	bool exited;
};

/**
 * struct as_io_cq - a process's io_cq on a device under AS
 * @icq: the block layer's part; must come first
 * @proc: AS's statistics of the process
 */
struct as_io_cq {
	struct io_cq icq;
	struct as_proc proc;
};

/**
 * struct as_queue - the requests of one group
 * @ioq: the engine's queue owning this one
 * @sort_list: queued requests by sector, per direction
 * @fifo_list: queued requests by arrival, per direction
 * @next_rq: next request of the upward sweep, per direction
 * @nr_queued: queued requests per direction
 * @write_batch_count: requests in a write batch (adapted)
 * @current_write_count: requests left in the current write batch
 * @write_batch_idled: the last write batch ended because writes ran out
 * @time_left: saved time left of the batch (ns), 0 if expired
 * @saved_batch_dir: saved batch direction
 */
struct as_queue {
	struct efq_queue *ioq;
	struct rb_root sort_list[2];
	struct list_head fifo_list[2];
	struct request *next_rq[2];
	unsigned int nr_queued[2];
	unsigned int write_batch_count;
	int current_write_count;
	bool write_batch_idled;
	u64 time_left;
	int saved_batch_dir;
};

/**
 * struct as_data - per-device state of AS
 * @efqd: the engine's device
 * @antic_status: enum as_antic_status
 * @antic_armed: @antic_timer runs and its expiry must be acted upon
 * @antic_timer: ends ANTIC_WAIT_NEXT after antic_expire
 * @antic_proc: the process anticipated (its last read was dispatched)
 * @antic_aq: the queue of that read
 * @proc_finished: @antic_proc's last read completed
 * @antic_start: when it completed (ns)
 * @blocked: dispatch gives nothing now (anticipation, or a drain before a
 *	batch change or a queue switch); read locklessly by has_work
 * @held_back: @blocked was set since blk-mq last got a request, so blk-mq
 *	may have stopped asking: the event that finds it clear re-runs the
 *	queues, whatever cleared it (a queue switch clears it too)
 * @batch_dir: direction of the current batch
 * @batch_expires: end of the current batch (ns)
 * @write_batch_start: when the current write batch began (ns)
 * @changed_batch: the direction changed; the old batch drains first
 * @new_batch: a read batch whose clock starts at its first completion
 * @switch_queue: an expiry was refused; drain so that it can happen
 * @nr_dispatched: requests in flight
 * @last_sector: head position after the last request, per direction
 * @fifo_expire: read_expire, write_expire (ns), by direction
 * @batch_expire: read_batch_expire, write_batch_expire (ns), by direction
 * @antic_expire: antic_expire (ns); 0 disables anticipation
 */
struct as_data {
	struct efq_data *efqd;
	enum as_antic_status antic_status;
	bool antic_armed;
	struct hrtimer antic_timer;
	struct as_proc *antic_proc;
	struct as_queue *antic_aq;
	bool proc_finished;
	u64 antic_start;
	bool blocked;
	bool held_back;
	int batch_dir;
	u64 batch_expires;
	u64 write_batch_start;
	bool changed_batch;
	bool new_batch;
	bool switch_queue;
	unsigned int nr_dispatched;
	sector_t last_sector[2];
	u64 fifo_expire[2];
	u64 batch_expire[2];
	u64 antic_expire;
};

/*
 * A request's efq_queue is kept by the engine (efq_rq_set_queue(), NULL
 * until inserted); rq->elv.icq is the submitter's io_cq (its as_io_cq).
 */
static inline struct as_queue *as_rq_aq(struct request *rq)
{
	struct efq_queue *ioq = efq_rq_queue(rq);

	return ioq ? ioq->sched_queue : NULL;
}

static inline int as_rq_dir(struct request *rq)
{
	return rq_is_sync(rq) ? AS_SYNC : AS_ASYNC;
}

static inline struct as_data *as_of(struct efq_data *efqd)
{
	return efqd->sched_data;
}

static inline struct as_queue *as_active_aq(struct as_data *ad)
{
	return efq_active_sched_queue(ad->efqd);
}

/* --- per-process statistics ---------------------------------------------- */

/* The statistics of the process that allocated @rq (NULL without io_cq). */
static struct as_proc *as_rq_proc(struct request *rq)
{
	struct io_cq *icq = rq->elv.icq;

	return icq ? &container_of(icq, struct as_io_cq, icq)->proc : NULL;
}

/* A sync request of @p arrives: sample its think time and seek distance. */
static void as_update_proc(struct as_proc *p, struct request *rq)
{
	sector_t pos = blk_rq_pos(rq);

	if (p->last_end && !p->nr_queued && !p->nr_dispatched) {
		u64 ttime = ktime_get_ns() - p->last_end;

		ttime = min_t(u64, ttime, AS_TTIME_CAP_NS);
		efq_decay_add(&p->ttime, ttime);
	}
	if (p->has_pos) {
		u64 dist = pos >= p->last_pos ? pos - p->last_pos :
						p->last_pos - pos;

		dist = min_t(u64, dist, 1ULL << 32);
		efq_decay_add(&p->seek, dist);
	}
	p->last_pos = pos + blk_rq_sectors(rq);
	p->has_pos = true;
}

/* --- sorted and FIFO lists ------------------------------------------------ */

/* First request of @dir at or above @head, else the lowest one. */
static struct request *as_sweep_next(struct as_queue *aq, int dir,
				     sector_t head)
{
	struct rb_node *n = aq->sort_list[dir].rb_node;
	struct request *best = NULL;

	while (n) {
		struct request *rq = rb_entry_rq(n);

		if (blk_rq_pos(rq) >= head) {
			best = rq;
			n = n->rb_left;
		} else {
			n = n->rb_right;
		}
	}
	if (!best && aq->sort_list[dir].rb_node)
		best = rb_entry_rq(rb_first(&aq->sort_list[dir]));
	return best;
}

static void as_update_next(struct as_data *ad, struct as_queue *aq, int dir)
{
	aq->next_rq[dir] = as_sweep_next(aq, dir, ad->last_sector[dir]);
}

/* Take @rq off its queue's lists (dispatch or merge). */
static void as_remove_request(struct as_data *ad, struct as_queue *aq,
			      struct request *rq)
{
	int dir = as_rq_dir(rq);
	struct as_proc *p;

	rq_fifo_clear(rq);
	elv_rb_del(&aq->sort_list[dir], rq);
	if (!WARN_ON_ONCE(!aq->nr_queued[dir]))
		aq->nr_queued[dir]--;
	if (aq->next_rq[dir] == rq)
		as_update_next(ad, aq, dir);
	if (dir == AS_SYNC) {
		p = as_rq_proc(rq);
		if (p && p->nr_queued)
			p->nr_queued--;
	}
}

static struct request *as_fifo_head(struct as_queue *aq, int dir)
{
	return list_first_entry_or_null(&aq->fifo_list[dir], struct request,
					queuelist);
}

static bool as_fifo_expired(struct as_queue *aq, int dir)
{
	struct request *rq = as_fifo_head(aq, dir);

	return rq && ktime_get_ns() > rq->fifo_time;
}

/* --- batches ---------------------------------------------------------------- */

static bool as_batch_expired(struct as_data *ad, struct as_queue *aq)
{
	if (ad->changed_batch || ad->new_batch)
		return false;
	if (ad->batch_dir == AS_SYNC)
		return ktime_get_ns() > ad->batch_expires;
	return ktime_get_ns() > ad->batch_expires ||
	       aq->current_write_count <= 0;
}

/*
 * The last write of a write batch completed at a change to reads: size the
 * next write batch so that it takes about write_batch_expire.
 */
static void as_update_write_batch(struct as_data *ad, struct as_queue *aq)
{
	u64 expire = ad->batch_expire[AS_ASYNC];
	u64 took = ktime_get_ns() - ad->write_batch_start;
	unsigned int count = aq->write_batch_count;

	if (took > expire) {
		if (took > 2 * expire)
			count /= 2;
		else
			count -= count / 4;
	} else if (!aq->write_batch_idled && aq->current_write_count <= 0) {
		count++;
	}
	aq->write_batch_count = max(count, 1U);
	as_log(ad, "upd write count=%u", aq->write_batch_count);
}

/* Start a batch of direction @dir. */
static void as_new_batch(struct as_data *ad, struct as_queue *aq, int dir)
{
	if (ad->batch_dir != dir)
		ad->changed_batch = true;
	if (dir == AS_ASYNC) {
		ad->new_batch = false;
		aq->current_write_count = aq->write_batch_count;
		aq->write_batch_idled = false;
	}
	ad->batch_dir = dir;
	as_log(ad, "new batch dir is %s", dir == AS_SYNC ? "sync" : "async");
}

/* The queue stops being served: remember where its batch was. */
static void as_save_batch(struct as_data *ad, struct as_queue *aq)
{
	u64 now = ktime_get_ns();

	aq->saved_batch_dir = ad->batch_dir;
	if (ad->changed_batch) {
		aq->time_left = ad->batch_expire[ad->batch_dir];
		ad->changed_batch = false;
	} else if (ad->new_batch) {
		aq->time_left = ad->batch_expire[ad->batch_dir];
		ad->new_batch = false;
	} else {
		aq->time_left = ad->batch_expires > now ?
				ad->batch_expires - now : 0;
	}
	ad->antic_proc = NULL;
	ad->antic_aq = NULL;
	as_log(ad, "save batch: dir=%c time_left=%llu",
	       aq->saved_batch_dir == AS_SYNC ? 'R' : 'W',
	       (unsigned long long)aq->time_left);
}

/* --- anticipation ----------------------------------------------------------- */

static bool as_close(struct as_data *ad, struct request *rq)
{
	sector_t head = ad->last_sector[AS_SYNC];
	sector_t pos = blk_rq_pos(rq);

	return (pos >= head ? pos - head : head - pos) <= AS_CLOSE_SECTORS;
}

/*
 * Would @rq (or, with @rq NULL, what we know of the awaited process) make
 * waiting pointless?
 */
static bool as_can_break(struct as_data *ad, struct as_queue *aq,
			 struct request *rq)
{
	struct as_proc *p = ad->antic_proc;

	if (!p)
		return true;
	if (rq) {
		if (aq != ad->antic_aq)
			return false;	/* another group: never */
		if (rq_is_sync(rq) && as_rq_proc(rq) == p)
			return true;	/* what we waited for */
		if (rq_is_sync(rq) && as_close(ad, rq))
			return true;
	}
	if (p->nr_queued)
		return true;		/* its next read is already here */
	if (p->ttime.samples && p->ttime.mean > ad->antic_expire)
		return true;		/* it thinks too long */
	if (rq && rq_is_sync(rq) && p->seek.samples) {
		sector_t head = ad->last_sector[AS_SYNC];
		sector_t pos = blk_rq_pos(rq);
		u64 dist = pos >= head ? pos - head : head - pos;

		if (p->seek.mean > dist)
			return true;	/* @rq is nearer than it would be */
	}
	return false;
}

static bool as_can_anticipate(struct as_data *ad, struct as_queue *aq,
			      struct request *rq)
{
	if (!ad->antic_expire || !ad->antic_proc || ad->antic_aq != aq)
		return false;
	if (ad->antic_status == ANTIC_FINISHED)
		return false;
	if (ad->proc_finished &&
	    ktime_get_ns() >= ad->antic_start + ad->antic_expire)
		return false;
	return !as_can_break(ad, aq, rq);
}

/*
 * Side-effect-free: would a dispatch from @aq now wait for the anticipated
 * process?  Mirrors the first step of as_next_request().
 */
static bool as_would_anticipate(struct as_data *ad, struct as_queue *aq)
{
	bool reads = aq->nr_queued[AS_SYNC], writes = aq->nr_queued[AS_ASYNC];

	if (ad->batch_dir != AS_SYNC)
		return false;
	if (reads && writes && as_batch_expired(ad, aq))
		return false;
	if (as_fifo_expired(aq, AS_SYNC))
		return false;
	return as_can_anticipate(ad, aq, aq->next_rq[AS_SYNC]);
}

static bool as_waiting(struct as_data *ad)
{
	return ad->antic_status == ANTIC_WAIT_REQ ||
	       ad->antic_status == ANTIC_WAIT_NEXT;
}

/* Recompute @blocked after a state change. */
static void as_update_blocked(struct as_data *ad)
{
	ad->blocked = as_waiting(ad) ||
		      (ad->nr_dispatched &&
		       (ad->changed_batch || ad->switch_queue));
	if (ad->blocked)
		ad->held_back = true;
}

static void as_antic_waitnext(struct as_data *ad)
{
	u64 now = ktime_get_ns();
	u64 end = ad->antic_start + ad->antic_expire;
	struct efq_queue *ioq = ad->efqd->active_queue;

	if (now >= end) {
		ad->antic_status = ANTIC_FINISHED;
		return;
	}
	ad->antic_status = ANTIC_WAIT_NEXT;
	ad->antic_armed = true;
	hrtimer_start(&ad->antic_timer, ns_to_ktime(end - now),
		      HRTIMER_MODE_REL);
	if (ioq)
		efq_mark_queue_wait_request(ioq);
	as_log(ad, "antic_waitnext set");
}

static void as_antic_begin(struct as_data *ad)
{
	if (ad->proc_finished) {
		as_antic_waitnext(ad);
	} else if (WARN_ON_ONCE(!ad->antic_proc ||
				!ad->antic_proc->nr_dispatched)) {
		/* no read in flight would end ANTIC_WAIT_REQ */
		ad->antic_status = ANTIC_FINISHED;
	} else {
		ad->antic_status = ANTIC_WAIT_REQ;
		as_log(ad, "antic_waitreq set");
	}
}

/* Anticipation ends (@status: ANTIC_FINISHED or ANTIC_OFF). */
static void as_antic_stop(struct as_data *ad, enum as_antic_status status)
{
	struct efq_queue *ioq = ad->efqd->active_queue;

	if (ad->antic_armed) {
		ad->antic_armed = false;
		hrtimer_try_to_cancel(&ad->antic_timer);
	}
	if (ioq && as_waiting(ad))
		efq_clear_queue_wait_request(ioq);
	as_log(ad, "antic stop antic_status=%d", ad->antic_status);
	ad->antic_status = status;
}

/* After an event: start waiting now if a dispatch would. */
static void as_maybe_anticipate(struct as_data *ad)
{
	struct as_queue *aq = as_active_aq(ad);

	if (ad->antic_status == ANTIC_OFF && aq && as_would_anticipate(ad, aq))
		as_antic_begin(ad);
}

/*
 * After an insert (@insert) or a completion, lock held: blk-mq stopped
 * asking when has_work turned false, so once AS blocked since blk-mq last
 * got a request, the first event that finds dispatching possible again
 * re-runs the queues.  After an insert blk-mq runs the hardware queue
 * itself.
 */
static void as_after_event(struct as_data *ad, bool insert)
{
	as_maybe_anticipate(ad);
	as_update_blocked(ad);
	if (!ad->held_back || ad->blocked || !efq_has_work(ad->efqd))
		return;
	ad->held_back = false;
	if (!insert)
		blk_mq_run_hw_queues(ad->efqd->queue, true);
}

/*
 * The wait ends without the awaited read (the antic timer fired, or the
 * awaited process exited): stop it, expire the active queue if it is
 * empty and idle, and let the engine choose again.  Lock held.  Return:
 * true if the caller must re-run the hardware queues.
 */
static bool as_antic_give_up(struct as_data *ad)
{
	struct efq_data *efqd = ad->efqd;
	struct efq_queue *ioq;

	as_antic_stop(ad, ANTIC_FINISHED);
	/* there may be no active queue now: the wait can outlive it */
	ioq = efqd->active_queue;
	if (ioq && !ad->nr_dispatched && !ioq->nr_queued) {
		/* an empty queue is not charged for our wait */
		ad->switch_queue = false;
		efq_expire_queue(efqd, ioq, EFQ_EXPIRE_SCHED);
	}
	as_update_blocked(ad);
	/* let the engine decide afresh: its hold predates this event */
	if (!efqd->nr_queued || !efq_select_queue(efqd, false) || ad->blocked)
		return false;
	/* the caller runs the queues */
	ad->held_back = false;
	efqd->held_back = false;
	return true;
}

static enum hrtimer_restart as_antic_timeout(struct hrtimer *timer)
{
	struct as_data *ad = container_of(timer, struct as_data, antic_timer);
	struct efq_data *efqd = ad->efqd;
	unsigned long flags;
	bool kick = false;

	spin_lock_irqsave(&efqd->lock, flags);
	/*
	 * Queued again: while this callback waited for the lock, the wait it
	 * fired for was stopped and a new one armed, which expires on its own
	 * (as the engine's idle timer, review lead 14).
	 */
	if (!ad->antic_armed || hrtimer_is_queued(timer))
		goto out;
	ad->antic_armed = false;
	if (!as_waiting(ad))
		goto out;
	as_log(ad, "antic timeout antic_status=%d", ad->antic_status);
	kick = as_antic_give_up(ad);
out:
	spin_unlock_irqrestore(&efqd->lock, flags);
	if (kick)
		blk_mq_run_hw_queues(efqd->queue, true);
	return HRTIMER_NORESTART;
}

/* --- engine hooks ----------------------------------------------------------- */

static void *as_alloc_sched_queue(struct efq_data *efqd, struct efq_queue *ioq,
				  gfp_t gfp)
{
	struct as_data *ad = as_of(efqd);
	struct as_queue *aq;
	u64 wbe;

	aq = kzalloc_node(sizeof(*aq), gfp, efqd->queue->node);
	if (!aq)
		return NULL;
	aq->ioq = ioq;
	aq->sort_list[AS_ASYNC] = RB_ROOT;
	aq->sort_list[AS_SYNC] = RB_ROOT;
	INIT_LIST_HEAD(&aq->fifo_list[AS_ASYNC]);
	INIT_LIST_HEAD(&aq->fifo_list[AS_SYNC]);
	wbe = ad ? div_u64(ad->batch_expire[AS_ASYNC], NSEC_PER_MSEC) :
		   AS_WRITE_BATCH_EXPIRE_MS;
	aq->write_batch_count = max_t(u64, div_u64(wbe, 10), 2);
	/* a new queue starts async with no time left: a fresh batch */
	aq->saved_batch_dir = AS_ASYNC;
	return aq;
}

static void as_free_sched_queue(struct efq_data *efqd, void *sq)
{
	struct as_queue *aq = sq;

	WARN_ON_ONCE(!list_empty(&aq->fifo_list[AS_ASYNC]));
	WARN_ON_ONCE(!list_empty(&aq->fifo_list[AS_SYNC]));
	kfree(aq);
}

/* The engine gives @sq the disk: restore its batch. */
static void as_active_queue_set(struct efq_data *efqd, void *sq, bool coop)
{
	struct as_data *ad = as_of(efqd);
	struct as_queue *aq = sq;

	ad->batch_expires = ktime_get_ns() + aq->time_left;
	ad->batch_dir = aq->saved_batch_dir;
	ad->changed_batch = false;
	ad->new_batch = false;
	ad->switch_queue = false;
	ad->antic_status = ANTIC_OFF;
	ad->antic_proc = NULL;
	ad->antic_aq = NULL;
	as_update_next(ad, aq, AS_ASYNC);
	as_update_next(ad, aq, AS_SYNC);
	as_log(ad, "restore batch: dir=%c time=%llu reads_q=%u writes_q=%u",
	       ad->batch_dir == AS_SYNC ? 'R' : 'W',
	       (unsigned long long)aq->time_left, aq->nr_queued[AS_SYNC],
	       aq->nr_queued[AS_ASYNC]);
}

/* The engine takes the disk from @sq: stop waiting, save its batch. */
static void as_active_queue_reset(struct efq_data *efqd, void *sq)
{
	struct as_data *ad = as_of(efqd);

	as_antic_stop(ad, ANTIC_OFF);
	as_save_batch(ad, sq);
	ad->switch_queue = false;
	as_update_blocked(ad);
}

/*
 * May the engine expire @sq?  A forced expiry always may.  Otherwise not
 * while requests are in flight (that includes a pending batch change and
 * ANTIC_WAIT_REQ) nor while anticipating with slice time left; a refusal
 * makes AS drain so that the switch can happen.  The batch is saved when
 * the queue is reset.
 */
static bool as_may_expire(struct efq_data *efqd, void *sq, bool slice_expired,
			  bool force)
{
	struct as_data *ad = as_of(efqd);

	as_log(ad, "as_expire_ioq slice_expired=%d, force=%d", slice_expired,
	       force);
	if (force) {
		as_antic_stop(ad, ANTIC_OFF);
		ad->switch_queue = false;
		return true;
	}
	if (ad->nr_dispatched)
		goto deny;
	WARN_ON_ONCE(ad->antic_status == ANTIC_WAIT_REQ);
	if (ad->antic_status == ANTIC_WAIT_NEXT) {
		if (!slice_expired)
			goto deny;
		as_antic_stop(ad, ANTIC_OFF);
	}
	ad->switch_queue = false;
	return true;
deny:
	ad->switch_queue = true;
	as_update_blocked(ad);
	return false;
}

static const struct efq_sched_ops as_efq_ops = {
	.features		= EFQ_FEAT_SINGLE_QUEUE | EFQ_FEAT_SELF_DRAIN |
				  EFQ_FEAT_QUEUE_IDLE,
	.alloc_sched_queue	= as_alloc_sched_queue,
	.free_sched_queue	= as_free_sched_queue,
	.active_queue_set	= as_active_queue_set,
	.active_queue_reset	= as_active_queue_reset,
	.may_expire		= as_may_expire,
};

/* --- dispatch --------------------------------------------------------------- */

/* The request to serve next from @aq, or NULL to wait. */
static struct request *as_next_request(struct as_data *ad,
				       struct as_queue *aq)
{
	bool reads = aq->nr_queued[AS_SYNC], writes = aq->nr_queued[AS_ASYNC];
	int dir = ad->batch_dir;
	struct request *rq;

	if (!(reads && writes && as_batch_expired(ad, aq))) {
		/* the current batch goes on */
		rq = aq->next_rq[dir];
		if (dir == AS_SYNC) {
			if (as_fifo_expired(aq, AS_SYNC))
				return as_fifo_head(aq, AS_SYNC);
			if (as_can_anticipate(ad, aq, rq)) {
				as_antic_begin(ad);
				return NULL;
			}
		}
		if (rq) {
			if (dir == AS_SYNC && !writes && !ad->new_batch &&
			    !ad->changed_batch)
				ad->batch_expires = ktime_get_ns() +
						    ad->batch_expire[AS_SYNC];
			if (as_fifo_expired(aq, dir))
				rq = as_fifo_head(aq, dir);
			return rq;
		}
	}
	/* a new batch: after reads go to writes, after writes to reads */
	if (dir == AS_ASYNC && writes && !reads)
		aq->write_batch_idled = false;
	if (dir == AS_ASYNC && !writes)
		aq->write_batch_idled = true;
	if (reads && !(writes && dir == AS_SYNC)) {
		as_new_batch(ad, aq, AS_SYNC);
		return as_fifo_head(aq, AS_SYNC);
	}
	if (writes) {
		as_new_batch(ad, aq, AS_ASYNC);
		return as_fifo_head(aq, AS_ASYNC);
	}
	return NULL;
}

static void as_move_to_dispatch(struct as_data *ad, struct as_queue *aq,
				struct request *rq)
{
	int dir = as_rq_dir(rq);
	struct as_proc *p = as_rq_proc(rq);

	as_remove_request(ad, aq, rq);
	ad->last_sector[dir] = blk_rq_pos(rq) + blk_rq_sectors(rq);
	as_update_next(ad, aq, dir);
	if (dir == AS_SYNC) {
		ad->antic_proc = p && !p->exited ? p : NULL;
		ad->antic_aq = aq;
		ad->proc_finished = false;
		if (p)
			p->nr_dispatched++;
	} else if (ad->batch_dir == AS_ASYNC) {
		aq->current_write_count--;
	}
	ad->antic_status = ANTIC_OFF;
	ad->nr_dispatched++;
	as_log(ad, "dispatch req dir=%c nr_dispatched = %u",
	       dir == AS_SYNC ? 'R' : 'W', ad->nr_dispatched);
}

static struct request *as_dispatch_request(struct blk_mq_hw_ctx *hctx)
{
	struct efq_data *efqd = hctx->queue->elevator->elevator_data;
	struct as_data *ad = as_of(efqd);
	struct request *rq = NULL;
	struct efq_queue *ioq;
	struct as_queue *aq;

	spin_lock_irq(&efqd->lock);
	rq = efq_bypass_dispatch(efqd);
	if (rq)
		goto out;
	ioq = efq_select_queue(efqd, false);
	if (!ioq)
		goto out;
	aq = ioq->sched_queue;
	if (as_waiting(ad)) {
		as_update_blocked(ad);
		goto out;
	}
	rq = as_next_request(ad, aq);
	if (rq && ad->changed_batch) {
		if (ad->nr_dispatched) {
			/* the old batch drains first */
			rq = NULL;
			as_update_blocked(ad);
			goto out;
		}
		ad->changed_batch = false;
		if (ad->batch_dir == AS_ASYNC) {
			ad->batch_expires = ktime_get_ns() +
					    ad->batch_expire[AS_ASYNC];
			ad->write_batch_start = ktime_get_ns();
		} else {
			ad->new_batch = true;
		}
	}
	if (!rq) {
		as_log(ad, "no dispatch. read_q=%u, writes_q=%u antic_status=%d",
		       aq->nr_queued[AS_SYNC], aq->nr_queued[AS_ASYNC],
		       ad->antic_status);
		as_update_blocked(ad);
		goto out;
	}
	as_move_to_dispatch(ad, aq, rq);
	efq_rq_dispatched(efqd, rq);
	/* blk-mq got a request: it asks has_work again */
	ad->held_back = false;
	as_maybe_anticipate(ad);
	as_update_blocked(ad);
out:
	spin_unlock_irq(&efqd->lock);
	return rq;
}

/*
 * Exact, lockless: the engine would give a queue and AS is neither
 * anticipating nor draining.  AS keeps its own flag rather than
 * efq_hold_dispatch(), because its waits end from its own timer, which has
 * no engine event to clear the engine's hold.
 */
static bool as_has_work(struct blk_mq_hw_ctx *hctx)
{
	struct efq_data *efqd = hctx->queue->elevator->elevator_data;
	struct as_data *ad = as_of(efqd);

	return efq_bypass_pending(efqd) ||
	       (efq_has_work(efqd) && !READ_ONCE(ad->blocked));
}

/* --- request events --------------------------------------------------------- */

/*
 * Since 6.0 the block layer leaves the io_cq to the scheduler: look it up
 * (or create it) for the allocating task; the request holds a reference
 * on the io_context until as_finish_request().
 */
static void as_prepare_request(struct request *rq)
{
	rq->elv.icq = ioc_find_get_icq(rq->q);
	efq_rq_prepare(rq);
}

static void as_add_request(struct as_data *ad, struct efq_queue *ioq,
			   struct request *rq, bool at_head)
{
	struct request_queue *q = ad->efqd->queue;
	struct as_queue *aq = ioq->sched_queue;
	int dir = as_rq_dir(rq);
	struct as_proc *p = NULL;

	if (dir == AS_SYNC) {
		p = as_rq_proc(rq);
		if (p)
			as_update_proc(p, rq);
	}
	elv_rb_add(&aq->sort_list[dir], rq);
	rq->fifo_time = ktime_get_ns() + (at_head ? 0 : ad->fifo_expire[dir]);
	if (at_head)
		list_add(&rq->queuelist, &aq->fifo_list[dir]);
	else
		list_add_tail(&rq->queuelist, &aq->fifo_list[dir]);
	if (!at_head)
		efq_rq_hash_add(q, rq);
	aq->nr_queued[dir]++;
	if (p)
		p->nr_queued++;
	as_update_next(ad, aq, dir);
	as_log(ad, "add a %c request read_q=%u write_q=%u",
	       dir == AS_SYNC ? 'R' : 'W', aq->nr_queued[AS_SYNC],
	       aq->nr_queued[AS_ASYNC]);
	efq_request_add(ad->efqd, ioq, rq);
	if (!as_waiting(ad))
		return;
	if (aq == as_active_aq(ad)) {
		if (as_can_break(ad, aq, rq))
			as_antic_stop(ad, ANTIC_FINISHED);
	} else if (p && p == ad->antic_proc) {
		/*
		 * The awaited read came, in another group's queue (REQ_META):
		 * waiting on would only idle the disk.  The caller's queue
		 * run follows the insert.
		 */
		as_antic_give_up(ad);
	}
}

static void as_insert_requests(struct blk_mq_hw_ctx *hctx,
			       struct list_head *list, efq_insert_t flags)
{
	bool at_head = efq_insert_at_head(flags);
	struct request_queue *q = hctx->queue;
	struct efq_data *efqd = q->elevator->elevator_data;
	struct as_data *ad = as_of(efqd);
	LIST_HEAD(free);

	spin_lock_irq(&efqd->lock);
	while (!list_empty(list)) {
		struct request *rq = list_first_entry(list, struct request,
						      queuelist);
		struct efq_queue *ioq;

		list_del_init(&rq->queuelist);
		if (efq_bypass_insert(efqd, rq, at_head))
			continue;
		if (!at_head && blk_mq_sched_try_insert_merge(q, rq, &free))
			continue;
		ioq = efq_group_single_queue(efqd, efq_group_of_rq(efqd, rq));
		efq_rq_set_queue(rq, ioq);
		as_add_request(ad, ioq, rq, at_head);
	}
	as_after_event(ad, true);
	spin_unlock_irq(&efqd->lock);
	blk_mq_free_requests(&free);
}

/* A dispatched request of @aq completed (or came back); lock held. */
static void as_request_done(struct as_data *ad, struct request *rq,
			    bool completed)
{
	struct as_queue *aq = as_rq_aq(rq);
	int dir = as_rq_dir(rq);
	struct as_proc *p = NULL;

	if (!WARN_ON_ONCE(!ad->nr_dispatched))
		ad->nr_dispatched--;
	if (dir == AS_SYNC) {
		p = as_rq_proc(rq);
		if (p && p->nr_dispatched)
			p->nr_dispatched--;
	}
	if (!completed) {
		/*
		 * Given back by the driver: it completes out of our sight
		 * (RQF_DONTPREP: through hctx->dispatch) or comes back later.
		 * A wait for the awaited process's requests to finish would
		 * never end, and one begun later would not either: forget the
		 * process until AS dispatches a read again.
		 */
		if (p && p == ad->antic_proc && !p->nr_dispatched) {
			if (as_waiting(ad))
				as_antic_stop(ad, ANTIC_FINISHED);
			ad->antic_proc = NULL;
		}
		return;
	}
	if (p)
		p->last_end = ktime_get_ns();
	/*
	 * The awaited process's last read completed, whichever queue it came
	 * from: one process's reads can sit in two groups' queues (its
	 * REQ_META reads are the root group's, efq_group_of_bio()), and
	 * ANTIC_WAIT_REQ has no timer to end it.
	 */
	if (p && p == ad->antic_proc && !p->nr_dispatched) {
		ad->antic_start = ktime_get_ns();
		ad->proc_finished = true;
		if (ad->antic_status == ANTIC_WAIT_REQ)
			as_antic_waitnext(ad);
	}
	if (aq != as_active_aq(ad))
		return;
	/* the last write of a batch that changes to reads */
	if (ad->changed_batch && !ad->nr_dispatched &&
	    ad->batch_dir == AS_SYNC && dir == AS_ASYNC)
		as_update_write_batch(ad, aq);
	/* a read batch's clock starts at its first completion */
	if (ad->new_batch && ad->batch_dir == AS_SYNC && dir == AS_SYNC &&
	    !ad->changed_batch) {
		ad->batch_expires = ktime_get_ns() + ad->batch_expire[AS_SYNC];
		ad->new_batch = false;
	}
	as_maybe_anticipate(ad);
	as_log(ad, "complete: reads_q=%u writes_q=%u changed=%d new=%d switch=%d dir=%c",
	       aq->nr_queued[AS_SYNC], aq->nr_queued[AS_ASYNC],
	       ad->changed_batch, ad->new_batch, ad->switch_queue,
	       dir == AS_SYNC ? 'R' : 'W');
}

static void as_finish_request(struct request *rq)
{
	struct efq_queue *ioq = efq_rq_queue(rq);
	struct efq_data *efqd;
	struct as_data *ad;
	unsigned long flags;

	if (ioq) {
		efqd = ioq->efqd;
		ad = as_of(efqd);
		spin_lock_irqsave(&efqd->lock, flags);
		if (efq_rq_was_dispatched(rq)) {
			as_request_done(ad, rq, true);
			efq_request_completed(efqd, ioq, rq);
			as_after_event(ad, false);
		}
		efq_rq_clear_queue(rq);
		spin_unlock_irqrestore(&efqd->lock, flags);
	}
	if (rq->elv.icq) {
		put_io_context(rq->elv.icq->ioc);
		rq->elv.icq = NULL;
	}
}

/*
 * The task of @icq exits (or the queue's io_cqs go): AS no longer waits
 * for it, and forgets it as the process it may wait for.  Its requests
 * still hold the io_context, so the statistics stay valid until the last
 * of them is freed.
 */
static void as_exit_icq(struct io_cq *icq)
{
	struct as_proc *p = &container_of(icq, struct as_io_cq, icq)->proc;
	struct efq_data *efqd = icq->q->elevator->elevator_data;
	struct as_data *ad = as_of(efqd);
	unsigned long flags;
	bool kick = false;

	spin_lock_irqsave(&efqd->lock, flags);
	p->exited = true;
	if (ad->antic_proc == p) {
		ad->antic_proc = NULL;
		if (as_waiting(ad)) {
			as_log(ad, "antic ends: the awaited process exits");
			kick = as_antic_give_up(ad);
		}
	}
	spin_unlock_irqrestore(&efqd->lock, flags);
	if (kick)
		blk_mq_run_hw_queues(efqd->queue, true);
}

static void as_requeue_request(struct request *rq)
{
	struct efq_queue *ioq = efq_rq_queue(rq);
	struct efq_data *efqd;
	struct as_data *ad;
	unsigned long flags;

	if (!ioq)
		return;
	efqd = ioq->efqd;
	ad = as_of(efqd);
	spin_lock_irqsave(&efqd->lock, flags);
	if (efq_rq_was_dispatched(rq)) {
		as_request_done(ad, rq, false);
		efq_request_requeued(efqd, ioq, rq);
		as_after_event(ad, false);
	}
	efq_rq_clear_queue(rq);
	spin_unlock_irqrestore(&efqd->lock, flags);
}

/* A front merge moved @rq's start sector: put it back in sector order. */
static void as_request_merged(struct request_queue *q, struct request *rq,
			      enum elv_merge type)
{
	struct efq_data *efqd = q->elevator->elevator_data;
	struct efq_queue *ioq = efq_rq_queue(rq);
	struct as_queue *aq;
	int dir = as_rq_dir(rq);

	lockdep_assert_held(&efqd->lock);
	if (type != ELEVATOR_FRONT_MERGE || !ioq || RB_EMPTY_NODE(&rq->rb_node))
		return;
	aq = ioq->sched_queue;
	elv_rb_del(&aq->sort_list[dir], rq);
	elv_rb_add(&aq->sort_list[dir], rq);
	as_update_next(as_of(efqd), aq, dir);
}

/*
 * @next was merged into @rq: it leaves, and @rq keeps the older deadline if
 * both are of one queue.  They may not be: the block core's request merges
 * compare the cgroup, not the scheduler's queue, and one cgroup's requests
 * can sit in two queues (a request that fell back to the root group's
 * queue when its group's could not be allocated, a group gone offline with
 * requests queued).  Moved onto the other queue's FIFO, @rq would be
 * dispatched from a list its own queue does not own, and left there when
 * that queue is freed.
 */
static void as_requests_merged(struct request_queue *q, struct request *rq,
			       struct request *next)
{
	struct efq_data *efqd = q->elevator->elevator_data;
	struct efq_queue *ioq = efq_rq_queue(next);

	if (!ioq) {
		list_del_init(&next->queuelist);
		return;
	}
	if (efq_rq_queue(rq) == ioq && !list_empty(&rq->queuelist) &&
	    as_rq_dir(rq) == as_rq_dir(next) &&
	    next->fifo_time < rq->fifo_time) {
		list_move(&rq->queuelist, &next->queuelist);
		rq->fifo_time = next->fifo_time;
	}
	as_remove_request(as_of(efqd), ioq->sched_queue, next);
	efq_request_merged_away(efqd, ioq, next);
}

/* --- tunables ------------------------------------------------------------- */

/*
 * A wait under way ends by the new antic_expire (@ns).  1 if the hardware
 * queues must run (EFQ_TUNABLE_SET()).
 */
static int as_set_antic_expire(struct efq_data *efqd, u64 ns)
{
	struct as_data *ad = as_of(efqd);
	u64 end, now;

	ad->antic_expire = ns;
	if (ad->antic_status != ANTIC_WAIT_NEXT)
		return 0;
	end = ad->antic_start + ad->antic_expire;
	now = ktime_get_ns();
	if (now >= end)
		return as_antic_give_up(ad);
	hrtimer_start(&ad->antic_timer, ns_to_ktime(end - now),
		      HRTIMER_MODE_REL);
	return 0;
}

/*
 * Milliseconds.  read_expire and write_expire clamp to 1..60000, the batch
 * expiries to 0..60000, antic_expire to 0..1000 (0: never anticipate).
 */
EFQ_TUNABLE(as, read_expire, as_of(efqd)->fifo_expire[AS_SYNC],
	    1, AS_EXPIRE_MAX_MS, EFQ_TUNE_MS)
EFQ_TUNABLE(as, write_expire, as_of(efqd)->fifo_expire[AS_ASYNC],
	    1, AS_EXPIRE_MAX_MS, EFQ_TUNE_MS)
EFQ_TUNABLE(as, read_batch_expire, as_of(efqd)->batch_expire[AS_SYNC],
	    0, AS_EXPIRE_MAX_MS, EFQ_TUNE_MS)
EFQ_TUNABLE(as, write_batch_expire, as_of(efqd)->batch_expire[AS_ASYNC],
	    0, AS_EXPIRE_MAX_MS, EFQ_TUNE_MS)
EFQ_TUNABLE_SET(as, antic_expire, as_of(efqd)->antic_expire,
		0, AS_ANTIC_EXPIRE_MAX_MS, EFQ_TUNE_MS,
		as_set_antic_expire(efqd, val))

EFQ_ATTRS(as,
	  EFQ_TUNABLE_ATTR(as, read_expire),
	  EFQ_TUNABLE_ATTR(as, write_expire),
	  EFQ_TUNABLE_ATTR(as, read_batch_expire),
	  EFQ_TUNABLE_ATTR(as, write_batch_expire),
	  EFQ_TUNABLE_ATTR(as, antic_expire),
	  EFQ_ATTR(slice_sync));

/* --- lifetime --------------------------------------------------------------- */

static int as_init_sched(struct request_queue *q, efq_init_sched_t e)
{
	struct elevator_queue *eq;
	struct efq_data *efqd;
	struct as_data *ad;

	ad = kzalloc_node(sizeof(*ad), GFP_KERNEL, q->node);
	if (!ad)
		return -ENOMEM;
	ad->fifo_expire[AS_SYNC] = AS_READ_EXPIRE_MS * NSEC_PER_MSEC;
	ad->fifo_expire[AS_ASYNC] = AS_WRITE_EXPIRE_MS * NSEC_PER_MSEC;
	ad->batch_expire[AS_SYNC] = AS_READ_BATCH_EXPIRE_MS * NSEC_PER_MSEC;
	ad->batch_expire[AS_ASYNC] = AS_WRITE_BATCH_EXPIRE_MS * NSEC_PER_MSEC;
	ad->antic_expire = AS_ANTIC_EXPIRE_MS * NSEC_PER_MSEC;
	ad->batch_dir = AS_ASYNC;
	efq_hrtimer_setup(&ad->antic_timer, as_antic_timeout, CLOCK_MONOTONIC,
			  HRTIMER_MODE_REL);

	eq = efq_elevator_alloc(q, e);
	if (!eq) {
		kfree(ad);
		return -ENOMEM;
	}
	efqd = efq_data_init(q, eq, &as_efq_ops, ad);
	if (IS_ERR(efqd)) {
		efq_elevator_put(eq);
		kfree(ad);
		return PTR_ERR(efqd);
	}
	ad->efqd = efqd;
	efqd->hierarchical = IS_ENABLED(CONFIG_IOSCHED_AS_HIER);
	blk_queue_flag_set(QUEUE_FLAG_SQ_SCHED, q);
	return 0;
}

static void as_exit_sched(struct elevator_queue *e)
{
	struct efq_data *efqd = e->elevator_data;
	struct as_data *ad = as_of(efqd);

	hrtimer_cancel(&ad->antic_timer);
	efq_data_exit(efqd);
	hrtimer_cancel(&ad->antic_timer);
	kfree(ad);
}

static struct elevator_type as_sched = {
	.ops = {
		.init_sched		= as_init_sched,
		.exit_sched		= as_exit_sched,
		.prepare_request	= as_prepare_request,
		.exit_icq		= as_exit_icq,
		.limit_depth		= efq_limit_depth,
		.depth_updated		= efq_depth_updated,
		.init_hctx		= efq_init_hctx,
		.insert_requests	= as_insert_requests,
		.dispatch_request	= as_dispatch_request,
		.has_work		= as_has_work,
		.finish_request		= as_finish_request,
		.requeue_request	= as_requeue_request,
		.bio_merge		= efq_bio_merge,
		.allow_merge		= efq_allow_merge,
		.request_merged		= as_request_merged,
		.requests_merged	= as_requests_merged,
	},
	EFQ_ELEVATOR_DEBUGFS
	.icq_size	= sizeof(struct as_io_cq),
	.icq_align	= __alignof__(struct as_io_cq),
	.elevator_attrs	= as_attrs,
	.elevator_name	= "as",
	.elevator_alias	= "anticipatory",
	.elevator_owner	= THIS_MODULE,
};
MODULE_ALIAS("as-iosched");
MODULE_ALIAS("anticipatory-iosched");

module_efq_elevator(as_sched);

MODULE_AUTHOR("The efq authors");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("anticipatory IO scheduler on the efq fair-queuing engine");
