/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: the bitmap helpers the code needs.
 *
 * Kind: kernel behaviour (lib/bitmap.c results)
 */
#ifndef _SIM_LINUX_BITMAP_H
#define _SIM_LINUX_BITMAP_H

#include <linux/string.h>
#include <linux/bitops.h>

static inline void bitmap_zero(unsigned long *dst, unsigned int nbits)
{
	memset(dst, 0, BITS_TO_LONGS(nbits) * sizeof(unsigned long));
}

static inline void bitmap_fill(unsigned long *dst, unsigned int nbits)
{
	memset(dst, 0xff, BITS_TO_LONGS(nbits) * sizeof(unsigned long));
}

static inline unsigned int bitmap_weight(const unsigned long *src, unsigned int nbits)
{
	unsigned int i, w = 0;

	for (i = 0; i < nbits; i++)
		w += test_bit(i, src);
	return w;
}

static inline bool bitmap_empty(const unsigned long *src, unsigned int nbits)
{
	return find_first_bit(src, nbits) == nbits;
}

#endif
