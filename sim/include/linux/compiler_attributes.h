/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: attribute shorthands used by kernel code (GCC/G++ only).
 *
 * Kind: stub (attribute shorthands)
 */
#ifndef _SIM_LINUX_COMPILER_ATTRIBUTES_H
#define _SIM_LINUX_COMPILER_ATTRIBUTES_H

#define __aligned(x) __attribute__((__aligned__(x)))
#define __always_inline inline __attribute__((__always_inline__))
#define __always_unused __attribute__((__unused__))
#define __maybe_unused __attribute__((__unused__))
#define __attribute_const__ __attribute__((__const__))
#define __cold __attribute__((__cold__))
#define __malloc __attribute__((__malloc__))
#define __must_check __attribute__((__warn_unused_result__))
#define __noreturn __attribute__((__noreturn__))
#define __packed __attribute__((__packed__))
#define __printf(a, b) __attribute__((__format__(printf, a, b)))
#define __scanf(a, b) __attribute__((__format__(scanf, a, b)))
#define __pure __attribute__((__pure__))
#define __used __attribute__((__used__))
#define __weak __attribute__((__weak__))
#define __section(s) __attribute__((__section__(s)))
#define noinline __attribute__((__noinline__))
#define __noclone __attribute__((__noclone__))
#define fallthrough __attribute__((__fallthrough__))

#endif
