/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: the scalable bitmap's shape (depth, words, shallow depth),
 * the count of its bits in use and the count of its waiters.  Allocation of
 * tags is the sim's blk model's job, which applies a shallow depth to each
 * word of 2^shift tags, as 6.1's sbitmap does, keeps @sim_in_use, and
 * brackets every sleep of a submitter that found no tag with
 * sbitmap_prepare_to_wait() and sbitmap_finish_wait(), as 6.1's
 * blk_mq_get_tag() does: @ws_active counts the submitters between the two,
 * those asleep and those woken that have not run yet.
 *
 * Kind: kernel behaviour (6.1's sbitmap: shape, per-word shallow depth, ws_active; not 6.12's whole-map depth)
 * Exceptions: the bits themselves are the block model's (sim_in_use)
 */
#ifndef _SIM_LINUX_SBITMAP_H
#define _SIM_LINUX_SBITMAP_H

#include <linux/types.h>
#include <linux/atomic.h>

struct sbitmap {
	unsigned int depth;	/* number of bits in use */
	unsigned int shift;	/* log2 of bits per word */
	unsigned int map_nr;	/* number of words */
	/*
	 * sim: bits set (tags taken), kept by the model; what the kernel's
	 * sbitmap_weight() counts (set bits less the deferred-cleared ones)
	 */
	unsigned int sim_in_use;
};

struct sbitmap_queue {
	struct sbitmap sb;
	unsigned int wake_batch;
	unsigned int min_shallow_depth;
	/* submitters between sbitmap_prepare_to_wait() and _finish_wait() */
	atomic_t ws_active;
};

/* One waiter (the kernel's also holds its wait queue entry). */
struct sbq_wait {
	struct sbitmap_queue *sbq;	/* set while counted in ws_active */
};

/* The kernel's per-wait-queue state; the model keeps one FIFO instead. */
struct sbq_wait_state;

/*
 * As 6.1: a waiter is counted once however often it goes back to sleep
 * without finishing its wait, and uncounted once.  @ws and @state are the
 * kernel's wait queue and task state; the model sleeps its submitters
 * itself.
 */
static inline void sbitmap_prepare_to_wait(struct sbitmap_queue *sbq,
					   struct sbq_wait_state *ws,
					   struct sbq_wait *sbq_wait, int state)
{
	(void)ws;
	(void)state;
	if (!sbq_wait->sbq) {
		atomic_inc(&sbq->ws_active);
		sbq_wait->sbq = sbq;
	}
}

static inline void sbitmap_finish_wait(struct sbitmap_queue *sbq,
				       struct sbq_wait_state *ws,
				       struct sbq_wait *sbq_wait)
{
	(void)ws;
	if (sbq_wait->sbq) {
		atomic_dec(&sbq->ws_active);
		sbq_wait->sbq = NULL;
	}
}

/* The bits in use, as the kernel's (exported) sbitmap_weight() gives them. */
static inline unsigned int sbitmap_weight(const struct sbitmap *sb)
{
	return sb->sim_in_use;
}

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
