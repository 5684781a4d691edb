/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: 64-bit division helpers (x86-64 divides natively).
 *
 * Kind: kernel behaviour (x86-64's div64 helpers and do_div())
 */
#ifndef _SIM_LINUX_MATH64_H
#define _SIM_LINUX_MATH64_H

#include <linux/types.h>
#include <linux/bug.h>

static inline u64 div_u64_rem(u64 dividend, u32 divisor, u32 *remainder)
{
	*remainder = (u32)(dividend % divisor);
	return dividend / divisor;
}

static inline s64 div_s64_rem(s64 dividend, s32 divisor, s32 *remainder)
{
	*remainder = (s32)(dividend % divisor);
	return dividend / divisor;
}

static inline u64 div64_u64_rem(u64 dividend, u64 divisor, u64 *remainder)
{
	*remainder = dividend % divisor;
	return dividend / divisor;
}

static inline u64 div_u64(u64 dividend, u32 divisor)
{
	return dividend / divisor;
}

static inline s64 div_s64(s64 dividend, s32 divisor)
{
	return dividend / divisor;
}

static inline u64 div64_u64(u64 dividend, u64 divisor)
{
	return dividend / divisor;
}

static inline s64 div64_s64(s64 dividend, s64 divisor)
{
	return dividend / divisor;
}

#define div64_ul(x, y) div64_u64((x), (y))
#define div64_long(x, y) div64_s64((x), (y))

/* Divide @n (a u64 lvalue) in place by @base; evaluates to the remainder. */
#define do_div(n, base) ({                                     \
	u32 __sim_base = (base);                               \
	u32 __sim_rem = (u32)((u64)(n) % __sim_base);          \
	(n) = (u64)(n) / __sim_base;                           \
	__sim_rem; })

/*
 * x86-64 computes these with mulq and divq: a quotient that does not fit
 * in 64 bits raises a divide error (#DE), an oops in the kernel.  So does
 * the shim, rather than truncating.
 */
static inline u64 mul_u64_u64_div_u64(u64 a, u64 mul, u64 div)
{
	unsigned __int128 q = ((unsigned __int128)a * mul) / div;

	if (q >> 64)
		BUG();
	return (u64)q;
}

static inline u64 mul_u64_u32_div(u64 a, u32 mul, u32 divisor)
{
	return mul_u64_u64_div_u64(a, mul, divisor);
}

static inline u64 mul_u64_u32_shr(u64 a, u32 mul, unsigned int shift)
{
	return (u64)(((unsigned __int128)a * mul) >> shift);
}

static inline u64 mul_u32_u32(u32 a, u32 b)
{
	return (u64)a * b;
}

#define DIV64_U64_ROUND_UP(ll, d) ({ u64 __sim_d = (d); div64_u64((ll) + __sim_d - 1, __sim_d); })
#define DIV64_U64_ROUND_CLOSEST(dividend, divisor) ({          \
	u64 __sim_dv = (divisor);                              \
	div64_u64((dividend) + __sim_dv / 2, __sim_dv); })
#define DIV_ROUND_CLOSEST_ULL(x, divisor) ({                   \
	u32 __sim_dvs = (divisor);                             \
	unsigned long long __sim_x = (x) + __sim_dvs / 2;      \
	do_div(__sim_x, __sim_dvs);                            \
	__sim_x; })

#endif
