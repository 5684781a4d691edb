/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim of block/blk.h (6.1): the few helpers schedulers use.
 *
 * Kind: kernel behaviour (6.1's block/blk.h: rq_mergeable(), discard merges, io_cq; 6.12 the same)
 */
#ifndef _SIM_BLK_INTERNAL_H
#define _SIM_BLK_INTERNAL_H

#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/iocontext.h>

static inline bool rq_mergeable(struct request *rq)
{
	if (blk_rq_is_passthrough(rq))
		return false;
	if (req_op(rq) == REQ_OP_FLUSH || req_op(rq) == REQ_OP_WRITE_ZEROES)
		return false;
	if (rq->cmd_flags & REQ_NOMERGE_FLAGS)
		return false;
	if (rq->rq_flags & RQF_NOMERGE_FLAGS)
		return false;
	return true;
}

/*
 * A discard on a queue that takes several ranges per command
 * (max_discard_segments > 1): 6.1 merges such discards by appending the bio
 * or request as one more range, wherever it lies on the device.  On any
 * other queue a discard merges as a read or write does, contiguously.
 */
static inline bool blk_discard_mergable(struct request *req)
{
	return req_op(req) == REQ_OP_DISCARD && queue_max_discard_segments(req->q) > 1;
}

SIM_BEGIN_DECLS
/*
 * io_cq management (block/blk-ioc.c).  As in 6.1, the block layer does
 * not attach an io_cq to requests: a scheduler with icq_size calls
 * ioc_find_get_icq() from prepare_request (the request then holds a
 * reference on icq->ioc, which the scheduler drops with put_io_context()
 * in finish_request); ioc_clear_queue() runs when the elevator goes.
 */
struct io_cq *ioc_find_get_icq(struct request_queue *q);
struct io_cq *ioc_lookup_icq(struct request_queue *q);
void ioc_clear_queue(struct request_queue *q);
SIM_END_DECLS

#endif
