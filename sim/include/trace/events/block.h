/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: the block tracepoints schedulers fire.  The sim has no
 * tracing: they compile to nothing.
 *
 * Kind: stub (the tracepoints are empty)
 */
#ifndef _SIM_TRACE_BLOCK_H
#define _SIM_TRACE_BLOCK_H

#include <linux/blk-mq.h>

static inline void trace_block_rq_insert(struct request *rq __always_unused)
{
}

static inline void trace_block_rq_issue(struct request *rq __always_unused)
{
}

static inline void trace_block_rq_merge(struct request *rq __always_unused)
{
}

static inline void trace_block_rq_requeue(struct request *rq __always_unused)
{
}

static inline void trace_block_rq_complete(struct request *rq __always_unused,
					   blk_status_t error __always_unused,
					   unsigned int nr_bytes __always_unused)
{
}

#endif
