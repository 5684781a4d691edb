/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim of block/blk-mq.h (6.1): what schedulers use of it.
 *
 * Kind: kernel behaviour (6.1's block/blk-mq.h: alloc data, blk_mq_free_requests(); 6.12 the same)
 * Exceptions: one software and one hardware context
 */
#ifndef _SIM_BLK_MQ_PRIVATE_H
#define _SIM_BLK_MQ_PRIVATE_H

#include <linux/blk-mq.h>
#include "elevator.h"

struct blk_mq_ctx {
	unsigned int cpu;
	unsigned short index_hw[1];
	struct blk_mq_hw_ctx *hctxs[1];
	struct request_queue *queue;
};

struct blk_mq_alloc_data {
	struct request_queue *q;
	blk_mq_req_flags_t flags;
	unsigned int shallow_depth;
	blk_opf_t cmd_flags;
	req_flags_t rq_flags;
	unsigned int nr_tags;
	struct request **cached_rq;
	struct blk_mq_ctx *ctx;
	struct blk_mq_hw_ctx *hctx;
};

static inline void blk_mq_free_requests(struct list_head *list)
{
	while (!list_empty(list)) {
		struct request *rq = list_entry(list->next, struct request, queuelist);

		list_del_init(&rq->queuelist);
		blk_mq_free_request(rq);
	}
}

#endif
