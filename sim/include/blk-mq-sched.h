/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim of block/blk-mq-sched.h (6.1).  The merge helpers are the
 * block core's, re-implemented with 6.1's semantics in sim/shim/blk-mq.cc
 * (not by the block layer model in sim/blk).
 *
 * Kind: kernel behaviour (6.1's block/blk-mq-sched.[ch] merge entry points; 6.12 the same)
 * Exceptions: blk_mq_sched_mark_restart_hctx() also counts the call for the model (simulation)
 */
#ifndef _SIM_BLK_MQ_SCHED_H
#define _SIM_BLK_MQ_SCHED_H

#include "elevator.h"
#include "blk-mq.h"
#include "blk-mq-tag.h"

#define MAX_SCHED_RQ (16 * BLKDEV_DEFAULT_RQ)

SIM_BEGIN_DECLS
bool blk_mq_sched_try_merge(struct request_queue *q, struct bio *bio, unsigned int nr_segs,
			    struct request **merged_request);
bool blk_mq_sched_try_insert_merge(struct request_queue *q, struct request *rq,
				   struct list_head *free);
/* Sets BLK_MQ_S_SCHED_RESTART, as 6.1 does; also counts the call in
 * hctx->queue->sim_restart_count. */
void blk_mq_sched_mark_restart_hctx(struct blk_mq_hw_ctx *hctx);
SIM_END_DECLS

static inline bool blk_mq_sched_needs_restart(struct blk_mq_hw_ctx *hctx)
{
	return test_bit(BLK_MQ_S_SCHED_RESTART, &hctx->state);
}

static inline bool bio_mergeable(struct bio *bio)
{
	return !(bio->bi_opf & REQ_NOMERGE_FLAGS);
}

#endif
