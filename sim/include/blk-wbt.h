/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim of block/blk-wbt.h (6.1): the sim has no writeback throttling;
 * it records whether the scheduler turned the default off (and back on).
 *
 * Kind: stub (no writeback throttling; 6.12's versions take the disk)
 * Exceptions: the call is recorded in q->sim_wbt_disabled for the tests
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

#endif
