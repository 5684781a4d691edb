/* SPDX-License-Identifier: GPL-2.0 */
/* efqsim shim of block/blk.h (6.1): the few helpers schedulers use. */
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

SIM_BEGIN_DECLS
/*
 * io_cq management (block/blk-ioc.c): the sim's block layer model calls
 * ioc_find_get_icq() when it sets up a request for an elevator with
 * icq_size (the request then holds a reference on icq->ioc, dropped with
 * put_io_context()), and ioc_clear_queue() when the elevator goes.
 */
struct io_cq *ioc_find_get_icq(struct request_queue *q);
struct io_cq *ioc_lookup_icq(struct request_queue *q);
void ioc_clear_queue(struct request_queue *q);
SIM_END_DECLS

#endif
