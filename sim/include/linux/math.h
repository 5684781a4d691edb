/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: rounding helpers of <linux/math.h>.
 *
 * Kind: kernel behaviour (DIV_ROUND_UP() and the rounding helpers)
 */
#ifndef _SIM_LINUX_MATH_H
#define _SIM_LINUX_MATH_H

#define DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))
#define DIV_ROUND_UP_ULL(ll, d) ((unsigned long long)DIV_ROUND_UP((unsigned long long)(ll), (d)))
#define DIV_ROUND_DOWN_ULL(ll, d) ((unsigned long long)(ll) / (d))
#define DIV_ROUND_CLOSEST(x, d) ({                                         \
	__typeof__(x) __sim_x = (x);                                       \
	__typeof__(d) __sim_d = (d);                                       \
	(((__typeof__(x))-1) > 0 || ((__typeof__(d))-1) > 0 ||             \
	 ((__sim_x) > 0) == ((__sim_d) > 0)) ?                             \
		(((__sim_x) + ((__sim_d) / 2)) / (__sim_d)) :              \
		(((__sim_x) - ((__sim_d) / 2)) / (__sim_d)); })
#define roundup(x, y) ((((x) + ((y) - 1)) / (y)) * (y))
#define rounddown(x, y) ((x) - ((x) % (y)))
#define round_up(x, y) ((((x) - 1) | ((__typeof__(x))((y) - 1))) + 1)
#define round_down(x, y) ((x) & ~((__typeof__(x))((y) - 1)))
#ifndef __cplusplus
#define abs(x) ({ __typeof__(x) __sim_abs = (x); __sim_abs < 0 ? -__sim_abs : __sim_abs; })
#endif

#endif
