/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: branch hints, compiler barrier, READ_ONCE/WRITE_ONCE.
 *
 * Kind: stub (hints, compiler barrier, READ_ONCE/WRITE_ONCE on one thread)
 */
#ifndef _SIM_LINUX_COMPILER_H
#define _SIM_LINUX_COMPILER_H

#include <linux/compiler_types.h>

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

#define barrier() __asm__ __volatile__("" : : : "memory")
#define unreachable() __builtin_unreachable()

/* One volatile access; the sim is single-threaded, this only stops caching. */
#define READ_ONCE(x) (*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, val)                                  \
	do {                                                \
		*(volatile __typeof__(x) *)&(x) = (val);    \
	} while (0)

#define data_race(expr) (expr)

#include <asm/barrier.h>

#endif
