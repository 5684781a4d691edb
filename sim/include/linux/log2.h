/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: integer logarithms and powers of two.
 *
 * Kind: kernel behaviour (ilog2(), roundup_pow_of_two() and friends)
 */
#ifndef _SIM_LINUX_LOG2_H
#define _SIM_LINUX_LOG2_H

#include <linux/bitops.h>

#define ilog2(n) ((int)(sizeof(n) <= 4 ? fls((unsigned int)(n)) - 1 : fls64((u64)(n)) - 1))

static inline bool is_power_of_2(unsigned long n)
{
	return n != 0 && ((n & (n - 1)) == 0);
}

static inline unsigned long roundup_pow_of_two(unsigned long n)
{
	return n <= 1 ? 1UL : 1UL << fls_long(n - 1);
}

static inline unsigned long rounddown_pow_of_two(unsigned long n)
{
	return 1UL << (fls_long(n) - 1);
}

static inline int order_base_2(unsigned long n)
{
	return n > 1 ? ilog2(n - 1) + 1 : 0;
}

#endif
