/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: the scalable bitmap's shape only (depth, words, shallow
 * depth); allocation of tags is the sim's blk model's job.
 */
#ifndef _SIM_LINUX_SBITMAP_H
#define _SIM_LINUX_SBITMAP_H

#include <linux/types.h>

struct sbitmap {
	unsigned int depth;	/* number of bits in use */
	unsigned int shift;	/* log2 of bits per word */
	unsigned int map_nr;	/* number of words */
};

struct sbitmap_queue {
	struct sbitmap sb;
	unsigned int wake_batch;
	unsigned int min_shallow_depth;
};

static inline void sbitmap_queue_min_shallow_depth(struct sbitmap_queue *sbq,
						   unsigned int min_shallow_depth)
{
	sbq->min_shallow_depth = min_shallow_depth;
}

#endif
