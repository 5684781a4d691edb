/* SPDX-License-Identifier: GPL-2.0 */
/* efqsim shim of block/blk.h (6.1): the few helpers schedulers use. */
#ifndef _SIM_BLK_INTERNAL_H
#define _SIM_BLK_INTERNAL_H

#include <linux/blkdev.h>
#include <linux/blk-mq.h>

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

#endif
