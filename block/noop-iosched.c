// SPDX-License-Identifier: GPL-2.0
/*
 * noop: first in, first out, on the efq fair-queuing engine.
 *
 * Each group (cgroup) of a device has one queue, a plain FIFO.  The engine
 * chooses which group's queue is served and for how long; inside a queue
 * requests leave in arrival order.  In flat mode every request goes to the
 * root group's queue and the scheduler is the classic noop; with no group
 * linked on the device the queue is never expired by time.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/elevator-fq.h>

#include "elevator.h"
#include "blk.h"
#include "blk-mq.h"
#include "blk-mq-sched.h"
#include "blk-mq-debugfs.h"

/**
 * struct noop_queue - the requests of one group, in arrival order
 * @fifo: queued requests, oldest first
 */
struct noop_queue {
	struct list_head fifo;
};

static void *noop_alloc_sched_queue(struct efq_data *efqd,
				    struct efq_queue *ioq, gfp_t gfp)
{
	struct noop_queue *nq;

	nq = kzalloc_node(sizeof(*nq), gfp, efqd->queue->node);
	if (nq)
		INIT_LIST_HEAD(&nq->fifo);
	return nq;
}

static void noop_free_sched_queue(struct efq_data *efqd, void *sq)
{
	struct noop_queue *nq = sq;

	WARN_ON_ONCE(!list_empty(&nq->fifo));
	kfree(nq);
}

static const struct efq_sched_ops noop_efq_ops = {
	.features		= EFQ_FEAT_SINGLE_QUEUE,
	.alloc_sched_queue	= noop_alloc_sched_queue,
	.free_sched_queue	= noop_free_sched_queue,
};

static int noop_init_sched(struct request_queue *q, efq_init_sched_t e)
{
	struct elevator_queue *eq;
	struct efq_data *efqd;

	eq = efq_elevator_alloc(q, e);
	if (!eq)
		return -ENOMEM;
	efqd = efq_data_init(q, eq, &noop_efq_ops, NULL);
	if (IS_ERR(efqd)) {
		efq_elevator_put(eq);
		return PTR_ERR(efqd);
	}
	efqd->hierarchical = IS_ENABLED(CONFIG_IOSCHED_NOOP_HIER);
	blk_queue_flag_set(QUEUE_FLAG_SQ_SCHED, q);
	return 0;
}

static void noop_exit_sched(struct elevator_queue *e)
{
	efq_data_exit(e->elevator_data);
}

static void noop_insert_requests(struct blk_mq_hw_ctx *hctx,
				 struct list_head *list, efq_insert_t flags)
{
	bool at_head = efq_insert_at_head(flags);
	struct request_queue *q = hctx->queue;
	struct efq_data *efqd = q->elevator->elevator_data;
	LIST_HEAD(free);

	spin_lock_irq(&efqd->lock);
	while (!list_empty(list)) {
		struct request *rq = list_first_entry(list, struct request,
						      queuelist);
		struct efq_queue *ioq;
		struct noop_queue *nq;

		list_del_init(&rq->queuelist);
		if (efq_bypass_insert(efqd, rq, at_head))
			continue;
		if (!at_head && blk_mq_sched_try_insert_merge(q, rq, &free))
			continue;
		ioq = efq_group_single_queue(efqd, efq_group_of_rq(efqd, rq));
		nq = ioq->sched_queue;
		efq_rq_set_queue(rq, ioq);
		if (at_head) {
			list_add(&rq->queuelist, &nq->fifo);
		} else {
			list_add_tail(&rq->queuelist, &nq->fifo);
			efq_rq_hash_add(q, rq);
		}
		efq_request_add(efqd, ioq, rq);
	}
	spin_unlock_irq(&efqd->lock);
	blk_mq_free_requests(&free);
}

static struct request *noop_dispatch_request(struct blk_mq_hw_ctx *hctx)
{
	struct efq_data *efqd = hctx->queue->elevator->elevator_data;
	struct request *rq = NULL;
	struct noop_queue *nq;
	struct efq_queue *ioq;

	spin_lock_irq(&efqd->lock);
	rq = efq_bypass_dispatch(efqd);
	if (rq)
		goto out;
	ioq = efq_select_queue(efqd, false);
	if (!ioq)
		goto out;
	nq = ioq->sched_queue;
	rq = list_first_entry_or_null(&nq->fifo, struct request, queuelist);
	if (!rq) {
		efq_hold_dispatch(efqd);
		goto out;
	}
	list_del_init(&rq->queuelist);
	efq_rq_dispatched(efqd, rq);
out:
	spin_unlock_irq(&efqd->lock);
	return rq;
}

static bool noop_has_work(struct blk_mq_hw_ctx *hctx)
{
	struct efq_data *efqd = hctx->queue->elevator->elevator_data;

	return efq_bypass_pending(efqd) || efq_has_work(efqd);
}

static void noop_requests_merged(struct request_queue *q, struct request *rq,
				 struct request *next)
{
	struct efq_data *efqd = q->elevator->elevator_data;
	struct efq_queue *ioq = efq_rq_queue(next);

	list_del_init(&next->queuelist);
	if (ioq)
		efq_request_merged_away(efqd, ioq, next);
}

EFQ_ATTRS(noop, EFQ_ATTR(slice_sync));

static struct elevator_type noop_sched = {
	.ops = {
		.init_sched		= noop_init_sched,
		.exit_sched		= noop_exit_sched,
		.prepare_request	= efq_rq_prepare,
		.limit_depth		= efq_limit_depth,
		.depth_updated		= efq_depth_updated,
		.init_hctx		= efq_init_hctx,
		.insert_requests	= noop_insert_requests,
		.dispatch_request	= noop_dispatch_request,
		.has_work		= noop_has_work,
		.finish_request		= efq_finish_request,
		.requeue_request	= efq_requeue_request,
		.bio_merge		= efq_bio_merge,
		.allow_merge		= efq_allow_merge,
		.requests_merged	= noop_requests_merged,
	},
	EFQ_ELEVATOR_DEBUGFS
	.elevator_attrs	= noop_attrs,
	.elevator_name	= "noop",
	.elevator_owner	= THIS_MODULE,
};
MODULE_ALIAS("noop-iosched");

module_efq_elevator(noop_sched);

MODULE_AUTHOR("The efq authors");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("noop IO scheduler on the efq fair-queuing engine");
