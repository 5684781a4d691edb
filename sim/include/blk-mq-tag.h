/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim of block/blk-mq-tag.h: struct blk_mq_tags is in <linux/blk-mq.h>.
 *
 * Kind: stub (an include only)
 */
#ifndef _SIM_BLK_MQ_TAG_H
#define _SIM_BLK_MQ_TAG_H

#include <linux/blk-mq.h>

#endif
