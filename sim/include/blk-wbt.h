/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim of block/blk-wbt.h (6.1): the sim has no writeback throttling;
 * it records whether the scheduler turned the default off (and back on).
 */
#ifndef _SIM_BLK_WBT_H
#define _SIM_BLK_WBT_H

#include <linux/blkdev.h>

static inline void wbt_disable_default(struct request_queue *q)
{
	q->sim_wbt_disabled = true;
}

static inline void wbt_enable_default(struct request_queue *q)
{
	q->sim_wbt_disabled = false;
}

/*
 * efq's wrappers (kernel/efq-compat-6.1.h), with 6.1's meaning: the queue's
 * default throttling off while the scheduler runs, back on when it goes.
 */
#define efq_wbt_disable(q) wbt_disable_default(q)
#define efq_wbt_enable(q) wbt_enable_default(q)

#endif
