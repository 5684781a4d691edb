/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: bit and mask helpers.
 *
 * Kind: kernel behaviour (BIT(), GENMASK() on a 64-bit kernel)
 */
#ifndef _SIM_LINUX_BITS_H
#define _SIM_LINUX_BITS_H

#define BITS_PER_BYTE 8
#define BITS_PER_LONG 64
#define BITS_PER_LONG_LONG 64

#define BIT(nr) (1UL << (nr))
#define BIT_ULL(nr) (1ULL << (nr))
#define BIT_MASK(nr) (1UL << ((nr) % BITS_PER_LONG))
#define BIT_WORD(nr) ((nr) / BITS_PER_LONG)
#define GENMASK(h, l) ((~0UL << (l)) & (~0UL >> (BITS_PER_LONG - 1 - (h))))
#define GENMASK_ULL(h, l) ((~0ULL << (l)) & (~0ULL >> (BITS_PER_LONG_LONG - 1 - (h))))

#endif
