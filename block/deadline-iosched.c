// SPDX-License-Identifier: GPL-2.0
/*
 * deadline-fq: the deadline IO scheduler on the efq fair-queuing engine.
 *
 * Each group (cgroup) of a device has one queue, a struct deadline_queue.
 * The engine chooses which group's queue is served and for how long;
 * inside a queue the deadline rules choose the request:
 *
 * - Requests are kept twice per direction: in a tree sorted by start
 *   sector and in a FIFO in arrival order, each stamped with a deadline
 *   (read_expire or write_expire after its insertion).
 * - Dispatch goes in batches.  A batch runs in one direction, in ascending
 *   sector order from where it started, for at most fifo_batch requests,
 *   or until that direction has nothing above the last request.
 * - Between batches a direction is chosen: reads, unless writes are
 *   waiting and reads have already won writes_starved choices in a row.
 * - The new batch starts at the sorted successor of the previous request
 *   of that direction; if the oldest request of the direction is past its
 *   deadline, or there is no successor, it starts at that oldest request.
 * - "Successor" is what the kernel's own mq-deadline means by it, which
 *   changed between the kernels efq builds for (efq-compat-*.h,
 *   efq_mq_deadline_sweeps_from_pos): 6.1's is the request that followed
 *   the last one in the sort tree when that one was dispatched; 6.12's is
 *   the first request at or above the last one's start sector now, which
 *   takes in requests inserted since, and it starts with a write batch.
 *
 * Batching state (next_rq, batching, starved) is per queue, so a group
 * interrupted by the engine resumes its own batch; the head position
 * (last_sector) and the tunables are per device.  In flat mode every
 * request goes to the root group's queue, and the scheduler is the classic
 * deadline scheduler.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/bio.h>
#include <linux/rbtree.h>
#include <linux/ktime.h>
#include <linux/kstrtox.h>
#include <linux/elevator-fq.h>

#include "elevator.h"
#include "blk.h"
#include "blk-mq.h"
#include "blk-mq-sched.h"
#include "blk-mq-debugfs.h"

/* Defaults of the tunables. */
#define DL_READ_EXPIRE_MS	500
#define DL_WRITE_EXPIRE_MS	5000
#define DL_WRITES_STARVED	2
#define DL_FIFO_BATCH		16

/**
 * struct deadline_queue - the requests of one group
 * @sort_list: per direction (READ, WRITE), queued requests by start sector;
 *	requests with the same start sector are all kept
 * @fifo_list: per direction, queued requests in arrival order; each
 *	request's fifo_time is its deadline in ns
 * @dispatch: requests inserted at the head (requeues), served first
 * @next_rq: per direction, the sorted successor of the last request
 *	dispatched from this queue in that direction, when it was dispatched
 * @sweep_pos: per direction, the start sector of that last request
 * @last_dir: direction of the batch in progress
 * @batching: requests dispatched in the current batch
 * @starved: times reads were chosen while writes were waiting
 */
struct deadline_queue {
	struct rb_root sort_list[2];
	struct list_head fifo_list[2];
	struct list_head dispatch;
	struct request *next_rq[2];
	sector_t sweep_pos[2];
	int last_dir;
	unsigned int batching;
	unsigned int starved;
};

/**
 * struct deadline_data - the per-device part, shared by all groups
 * @last_sector: end of the last request dispatched (the head position)
 * @fifo_expire: per direction, how long a request may wait, in ns
 * @fifo_batch: most requests in one batch
 * @writes_starved: read batches chosen over waiting writes before writes
 *	get a batch
 * @front_merges: look bios up for front merges in the sort trees
 * @sweep_from_pos: a batch goes on from the last request's position
 *	(6.12's mq-deadline), not from its successor at its dispatch (6.1's)
 */
struct deadline_data {
	sector_t last_sector;
	u64 fifo_expire[2];
	unsigned int fifo_batch;
	unsigned int writes_starved;
	unsigned int front_merges;
	bool sweep_from_pos;
};

static inline struct efq_data *dl_efqd(struct request_queue *q)
{
	return q->elevator->elevator_data;
}

static inline struct deadline_data *dl_data(struct efq_data *efqd)
{
	return efqd->sched_data;
}

static void *dl_alloc_sched_queue(struct efq_data *efqd, struct efq_queue *ioq,
				  gfp_t gfp)
{
	struct deadline_queue *dq;
	int dir;

	dq = kzalloc_node(sizeof(*dq), gfp, efqd->queue->node);
	if (!dq)
		return NULL;
	for (dir = READ; dir <= WRITE; dir++) {
		dq->sort_list[dir] = RB_ROOT;
		INIT_LIST_HEAD(&dq->fifo_list[dir]);
	}
	INIT_LIST_HEAD(&dq->dispatch);
	/* 6.12's mq-deadline starts as if after a write batch at sector 0 */
	if (dl_data(efqd)->sweep_from_pos)
		dq->last_dir = WRITE;
	return dq;
}

static void dl_free_sched_queue(struct efq_data *efqd, void *sq)
{
	struct deadline_queue *dq = sq;

	WARN_ON_ONCE(!list_empty(&dq->fifo_list[READ]));
	WARN_ON_ONCE(!list_empty(&dq->fifo_list[WRITE]));
	WARN_ON_ONCE(!list_empty(&dq->dispatch));
	kfree(dq);
}

static const struct efq_sched_ops dl_efq_ops = {
	.features		= EFQ_FEAT_SINGLE_QUEUE,
	.alloc_sched_queue	= dl_alloc_sched_queue,
	.free_sched_queue	= dl_free_sched_queue,
};

static int dl_init_sched(struct request_queue *q, efq_init_sched_t e)
{
	struct deadline_data *dd;
	struct elevator_queue *eq;
	struct efq_data *efqd;

	eq = efq_elevator_alloc(q, e);
	if (!eq)
		return -ENOMEM;
	dd = kzalloc_node(sizeof(*dd), GFP_KERNEL, q->node);
	if (!dd) {
		efq_elevator_put(eq);
		return -ENOMEM;
	}
	dd->fifo_expire[READ] = DL_READ_EXPIRE_MS * NSEC_PER_MSEC;
	dd->fifo_expire[WRITE] = DL_WRITE_EXPIRE_MS * NSEC_PER_MSEC;
	dd->fifo_batch = DL_FIFO_BATCH;
	dd->writes_starved = DL_WRITES_STARVED;
	dd->front_merges = 1;
	dd->sweep_from_pos = efq_mq_deadline_sweeps_from_pos;

	efqd = efq_data_init(q, eq, &dl_efq_ops, dd);
	if (IS_ERR(efqd)) {
		kfree(dd);
		efq_elevator_put(eq);
		return PTR_ERR(efqd);
	}
	efqd->hierarchical = IS_ENABLED(CONFIG_IOSCHED_DEADLINE_FQ_HIER);
	blk_queue_flag_set(QUEUE_FLAG_SQ_SCHED, q);
	return 0;
}

static void dl_exit_sched(struct elevator_queue *e)
{
	struct efq_data *efqd = e->elevator_data;
	struct deadline_data *dd = dl_data(efqd);

	efq_data_exit(efqd);
	kfree(dd);
}

static void dl_prepare_request(struct request *rq)
{
	RB_CLEAR_NODE(&rq->rb_node);	/* in no sort tree yet */
	efq_rq_prepare(rq);
}

/*
 * Take @rq out of @dq (tree, FIFO or head list); the engine takes it off the
 * merge hash and out of q->last_merge (efq_request_dispatched() and
 * efq_request_merged_away()).
 */
static void dl_del_request(struct request_queue *q, struct deadline_queue *dq,
			   struct request *rq)
{
	int dir = rq_data_dir(rq);

	if (!RB_EMPTY_NODE(&rq->rb_node)) {
		if (dq->next_rq[dir] == rq)
			dq->next_rq[dir] = elv_rb_latter_request(q, rq);
		elv_rb_del(&dq->sort_list[dir], rq);
	}
	rq_fifo_clear(rq);
}

static void dl_insert_requests(struct blk_mq_hw_ctx *hctx,
			       struct list_head *list, efq_insert_t flags)
{
	bool at_head = efq_insert_at_head(flags);
	struct request_queue *q = hctx->queue;
	struct efq_data *efqd = dl_efqd(q);
	struct deadline_data *dd = dl_data(efqd);
	LIST_HEAD(free);

	spin_lock_irq(&efqd->lock);
	while (!list_empty(list)) {
		struct request *rq = list_first_entry(list, struct request,
						      queuelist);
		struct deadline_queue *dq;
		struct efq_queue *ioq;
		int dir = rq_data_dir(rq);

		list_del_init(&rq->queuelist);
		if (efq_bypass_insert(efqd, rq, at_head))
			continue;
		if (!at_head && blk_mq_sched_try_insert_merge(q, rq, &free))
			continue;
		ioq = efq_group_single_queue(efqd, efq_group_of_rq(efqd, rq));
		dq = ioq->sched_queue;
		efq_rq_set_queue(rq, ioq);
		if (at_head) {
			RB_CLEAR_NODE(&rq->rb_node);
			list_add(&rq->queuelist, &dq->dispatch);
		} else {
			elv_rb_add(&dq->sort_list[dir], rq);
			rq->fifo_time = ktime_get_ns() + dd->fifo_expire[dir];
			list_add_tail(&rq->queuelist, &dq->fifo_list[dir]);
			if (efq_rq_hash_add(q, rq) && !q->last_merge)
				q->last_merge = rq;
		}
		efq_request_add(efqd, ioq, rq);
	}
	spin_unlock_irq(&efqd->lock);
	blk_mq_free_requests(&free);
}

/* Is the oldest request of direction @dir past its deadline? */
static bool dl_fifo_expired(struct deadline_queue *dq, int dir)
{
	struct request *rq;

	if (list_empty(&dq->fifo_list[dir]))
		return false;
	rq = rq_entry_fifo(dq->fifo_list[dir].next);
	return ktime_get_ns() > rq->fifo_time;
}

/*
 * The request a batch in direction @dir goes on with: by 6.1's rule, the
 * successor the last dispatch left in next_rq; by 6.12's, the first request
 * at or above the last one's start sector.
 */
static struct request *dl_sweep_next(struct deadline_data *dd,
				     struct deadline_queue *dq, int dir)
{
	struct rb_node *node = dq->sort_list[dir].rb_node;
	struct request *found = NULL;

	if (!dd->sweep_from_pos)
		return dq->next_rq[dir];
	while (node) {
		struct request *rq = rb_entry_rq(node);

		if (blk_rq_pos(rq) >= dq->sweep_pos[dir]) {
			found = rq;
			node = node->rb_left;
		} else {
			node = node->rb_right;
		}
	}
	return found;
}

/*
 * The request @dq sends next by the deadline rules, left in place.  Batch
 * and starvation counts are updated as if it is dispatched, which it is.
 */
static struct request *dl_choose_request(struct deadline_data *dd,
					 struct deadline_queue *dq)
{
	bool reads = !list_empty(&dq->fifo_list[READ]);
	bool writes = !list_empty(&dq->fifo_list[WRITE]);
	struct request *rq;
	int dir;

	if (!list_empty(&dq->dispatch))
		return list_first_entry(&dq->dispatch, struct request,
					queuelist);

	/* The batch in progress goes on in sector order. */
	rq = dl_sweep_next(dd, dq, dq->last_dir);
	if (rq && dq->batching < dd->fifo_batch) {
		dq->batching++;
		return rq;
	}

	/* A new batch: reads first, unless writes waited long enough. */
	if (reads && !(writes && dq->starved++ >= dd->writes_starved)) {
		dir = READ;
	} else if (writes) {
		dq->starved = 0;
		dir = WRITE;
	} else {
		return NULL;
	}

	/*
	 * Continue this direction's sweep at its sorted successor, unless
	 * the oldest request is late or the sweep reached the end: then
	 * start over at the oldest request.
	 */
	rq = dl_sweep_next(dd, dq, dir);
	if (dl_fifo_expired(dq, dir) || !rq)
		rq = rq_entry_fifo(dq->fifo_list[dir].next);
	dq->last_dir = dir;
	dq->batching = 1;
	return rq;
}

static struct request *dl_dispatch_request(struct blk_mq_hw_ctx *hctx)
{
	struct request_queue *q = hctx->queue;
	struct efq_data *efqd = dl_efqd(q);
	struct deadline_data *dd = dl_data(efqd);
	struct deadline_queue *dq;
	struct request *rq = NULL;
	struct efq_queue *ioq;

	spin_lock_irq(&efqd->lock);
	rq = efq_bypass_dispatch(efqd);
	if (rq)
		goto out;
	ioq = efq_select_queue(efqd, false);
	if (!ioq)
		goto out;
	dq = ioq->sched_queue;
	rq = dl_choose_request(dd, dq);
	if (!rq) {
		efq_hold_dispatch(efqd);
		goto out;
	}
	if (!RB_EMPTY_NODE(&rq->rb_node)) {
		int dir = rq_data_dir(rq);

		/*
		 * This direction's sweep goes on from here; the other keeps
		 * its place, as in today's mq-deadline (2.6.31's deadline
		 * forgot it).
		 */
		dq->next_rq[dir] = elv_rb_latter_request(q, rq);
		dq->sweep_pos[dir] = blk_rq_pos(rq);
	}
	dl_del_request(q, dq, rq);
	dd->last_sector = blk_rq_pos(rq) + blk_rq_sectors(rq);
	efq_rq_dispatched(efqd, rq);
out:
	spin_unlock_irq(&efqd->lock);
	return rq;
}

static bool dl_has_work(struct blk_mq_hw_ctx *hctx)
{
	struct efq_data *efqd = dl_efqd(hctx->queue);

	return efq_bypass_pending(efqd) || efq_has_work(efqd);
}

/*
 * Front merges: a queued request of the bio's group that starts where the
 * bio ends.  Back merges are found by the block core's hash.  A discard the
 * device takes as a list of ranges is a discard merge, never a front merge:
 * a front merge would count no segment for the new range (the driver then
 * refuses the request), and the block core's attempt_front_merge() would
 * go on to merge it into its neighbour without requests_merged, freeing a
 * request still queued here.
 */
static int dl_request_merge(struct request_queue *q, struct request **req,
			    struct bio *bio)
{
	struct efq_data *efqd = dl_efqd(q);
	struct deadline_queue *dq;
	struct efq_group *iog;
	struct request *rq;

	lockdep_assert_held(&efqd->lock);
	if (!dl_data(efqd)->front_merges)
		return ELEVATOR_NO_MERGE;
	iog = efq_group_of_bio(efqd, bio);
	if (!iog->ioq)
		return ELEVATOR_NO_MERGE;
	dq = iog->ioq->sched_queue;
	rq = elv_rb_find(&dq->sort_list[bio_data_dir(bio)],
			 bio_end_sector(bio));
	if (!rq || !elv_bio_merge_ok(rq, bio))
		return ELEVATOR_NO_MERGE;
	*req = rq;
	if (blk_discard_mergable(rq))
		return ELEVATOR_DISCARD_MERGE;
	return ELEVATOR_FRONT_MERGE;
}

/* A front merge moved @rq's start sector: move it in its sort tree. */
static void dl_request_merged(struct request_queue *q, struct request *rq,
			      enum elv_merge type)
{
	struct efq_queue *ioq = efq_rq_queue(rq);
	struct deadline_queue *dq;
	int dir = rq_data_dir(rq);

	if (type != ELEVATOR_FRONT_MERGE || !ioq ||
	    RB_EMPTY_NODE(&rq->rb_node))
		return;
	dq = ioq->sched_queue;
	elv_rb_del(&dq->sort_list[dir], rq);
	elv_rb_add(&dq->sort_list[dir], rq);
}

/* @next was merged into @rq: @rq keeps the earlier deadline, @next goes. */
static void dl_requests_merged(struct request_queue *q, struct request *rq,
			       struct request *next)
{
	struct efq_data *efqd = dl_efqd(q);
	struct efq_queue *ioq = efq_rq_queue(next);

	if (!ioq)
		return;		/* @next was never inserted */
	if (efq_rq_queue(rq) == ioq && !RB_EMPTY_NODE(&rq->rb_node) &&
	    !RB_EMPTY_NODE(&next->rb_node) && next->fifo_time < rq->fifo_time) {
		list_move(&rq->queuelist, &next->queuelist);
		rq->fifo_time = next->fifo_time;
	}
	dl_del_request(q, ioq->sched_queue, next);
	efq_request_merged_away(efqd, ioq, next);
}

/* --- sysfs tunables ------------------------------------------------------ */

/*
 * Any 64-bit signed number, clamped (EFQ_TUNE_SIGNED: a negative one to the
 * minimum); read_expire and write_expire in milliseconds.
 */
#define DL_TUNE_NUM	(EFQ_TUNE_NUM | EFQ_TUNE_SIGNED)
#define DL_TUNE_MS	(EFQ_TUNE_MS | EFQ_TUNE_SIGNED)

EFQ_TUNABLE(dl, read_expire, dl_data(efqd)->fifo_expire[READ],
	    0, INT_MAX, DL_TUNE_MS)
EFQ_TUNABLE(dl, write_expire, dl_data(efqd)->fifo_expire[WRITE],
	    0, INT_MAX, DL_TUNE_MS)
EFQ_TUNABLE(dl, writes_starved, dl_data(efqd)->writes_starved,
	    0, INT_MAX, DL_TUNE_NUM)
EFQ_TUNABLE(dl, front_merges, dl_data(efqd)->front_merges, 0, 1, DL_TUNE_NUM)
EFQ_TUNABLE(dl, fifo_batch, dl_data(efqd)->fifo_batch,
	    1, INT_MAX, DL_TUNE_NUM)

EFQ_ATTRS(dl,
	  EFQ_TUNABLE_ATTR(dl, read_expire),
	  EFQ_TUNABLE_ATTR(dl, write_expire),
	  EFQ_TUNABLE_ATTR(dl, writes_starved),
	  EFQ_TUNABLE_ATTR(dl, front_merges),
	  EFQ_TUNABLE_ATTR(dl, fifo_batch),
	  EFQ_ATTR(slice_sync));

static struct elevator_type dl_sched = {
	.ops = {
		.init_sched		= dl_init_sched,
		.exit_sched		= dl_exit_sched,
		.prepare_request	= dl_prepare_request,
		.limit_depth		= efq_limit_depth,
		.depth_updated		= efq_depth_updated,
		.init_hctx		= efq_init_hctx,
		.insert_requests	= dl_insert_requests,
		.dispatch_request	= dl_dispatch_request,
		.has_work		= dl_has_work,
		.finish_request		= efq_finish_request,
		.requeue_request	= efq_requeue_request,
		.bio_merge		= efq_bio_merge,
		.request_merge		= dl_request_merge,
		.request_merged		= dl_request_merged,
		.requests_merged	= dl_requests_merged,
		.allow_merge		= efq_allow_merge,
		.former_request		= elv_rb_former_request,
		.next_request		= elv_rb_latter_request,
	},
	EFQ_ELEVATOR_DEBUGFS
	.elevator_attrs	= dl_attrs,
	.elevator_name	= "deadline-fq",
	.elevator_owner	= THIS_MODULE,
};
MODULE_ALIAS("deadline-fq-iosched");

module_efq_elevator(dl_sched);

MODULE_AUTHOR("The efq authors");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("deadline IO scheduler on the efq fair-queuing engine");
