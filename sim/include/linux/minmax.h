/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: min/max/clamp.  Each argument is evaluated once.  The
 * kernel's strict type check of min()/max() is done in C (where kernel
 * code lives) with __builtin_types_compatible_p; C++ skips it.
 *
 * Kind: kernel behaviour (min()/max()/clamp(), at least 6.1's type check in C)
 */
#ifndef _SIM_LINUX_MINMAX_H
#define _SIM_LINUX_MINMAX_H

#include <linux/compiler_types.h>

#ifdef __cplusplus
#define __sim_types_check(x, y) ((void)0)
#else
#define __sim_types_check(x, y) \
	((void)sizeof(char[1 - 2 * !__same_type(x, y)]))
#endif

#define __sim_cmp(x, y, op) ((x) op (y) ? (x) : (y))

#define __sim_cmp_once(x, y, op) ({                 \
	__typeof__(x) __sim_x = (x);                \
	__typeof__(y) __sim_y = (y);                \
	__sim_types_check(__sim_x, __sim_y);        \
	__sim_cmp(__sim_x, __sim_y, op); })

#define min(x, y) __sim_cmp_once(x, y, <)
#define max(x, y) __sim_cmp_once(x, y, >)
#define min3(x, y, z) min((__typeof__(x))min(x, y), z)
#define max3(x, y, z) max((__typeof__(x))max(x, y), z)

#define min_t(type, x, y) ({ type __sim_a = (x); type __sim_b = (y); \
	__sim_cmp(__sim_a, __sim_b, <); })
#define max_t(type, x, y) ({ type __sim_a = (x); type __sim_b = (y); \
	__sim_cmp(__sim_a, __sim_b, >); })

#define clamp_t(type, val, lo, hi) min_t(type, max_t(type, val, lo), hi)
#define clamp(val, lo, hi) ({                              \
	__typeof__(val) __sim_v = (val);                   \
	__typeof__(lo) __sim_lo = (lo);                    \
	__typeof__(hi) __sim_hi = (hi);                    \
	__sim_types_check(__sim_v, __sim_lo);              \
	__sim_types_check(__sim_v, __sim_hi);              \
	__sim_v < __sim_lo ? __sim_lo : (__sim_v > __sim_hi ? __sim_hi : __sim_v); })
#define clamp_val(val, lo, hi) clamp_t(__typeof__(val), val, lo, hi)

#define min_not_zero(x, y) ({                               \
	__typeof__(x) __sim_mx = (x);                       \
	__typeof__(y) __sim_my = (y);                       \
	__sim_mx == 0 ? __sim_my : (__sim_my == 0 ? __sim_mx : min(__sim_mx, __sim_my)); })

#define swap(a, b) do {                                     \
	__typeof__(a) __sim_tmp = (a);                      \
	(a) = (b);                                          \
	(b) = __sim_tmp;                                    \
} while (0)

#endif
