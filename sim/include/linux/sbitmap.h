/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: the scalable bitmap's shape only (depth, words, shallow
 * depth); allocation of tags is the sim's blk model's job, which applies a
 * shallow depth to each word of 2^shift tags, as 6.1's sbitmap does.
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

/*
 * The word size blk-mq's tag maps get (sbitmap_init_node() with shift -1):
 * 64 bits per word, halved while that leaves fewer than 4 words for a map
 * of at least 4 bits.
 */
static inline int sbitmap_calculate_shift(unsigned int depth)
{
	int shift = 6; /* ilog2(BITS_PER_LONG) */

	if (depth >= 4)
		while ((4U << shift) > depth)
			shift--;
	return shift;
}

static inline void sbitmap_queue_min_shallow_depth(struct sbitmap_queue *sbq,
						   unsigned int min_shallow_depth)
{
	sbq->min_shallow_depth = min_shallow_depth;
}

#endif
