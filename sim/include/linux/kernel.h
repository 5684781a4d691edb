/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: the grab bag of <linux/kernel.h>.
 *
 * Kind: kernel behaviour (ALIGN() and friends, might_sleep() checked, scnprintf(), kasprintf())
 */
#ifndef _SIM_LINUX_KERNEL_H
#define _SIM_LINUX_KERNEL_H

#include_next <linux/kernel.h>
#include <stdarg.h>
#include <stdio.h>
#include <linux/types.h>
#include <linux/compiler.h>
#include <linux/limits.h>
#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/minmax.h>
#include <linux/container_of.h>
#include <linux/math.h>
#include <linux/kstrtox.h>
#include <linux/printk.h>
#include <linux/bug.h>
#include <linux/err.h>

#define ARRAY_SIZE(arr) (sizeof(arr) / sizeof((arr)[0]))

#define REPEAT_BYTE(x) ((~0ul / 0xff) * (x))
#define ALIGN(x, a) (((x) + ((__typeof__(x))(a) - 1)) & ~((__typeof__(x))(a) - 1))
#define ALIGN_DOWN(x, a) ((x) & ~((__typeof__(x))(a) - 1))
#define IS_ALIGNED(x, a) (((x) & ((__typeof__(x))(a) - 1)) == 0)
#define PTR_ALIGN(p, a) ((__typeof__(p))ALIGN((unsigned long)(p), (a)))

#define upper_32_bits(n) ((u32)(((n) >> 16) >> 16))
#define lower_32_bits(n) ((u32)((n) & 0xffffffff))

#define might_resched() do { } while (0)
#define cond_resched() ({ might_sleep(); 0; })

/* The sim's might_sleep(): a sleeping call in atomic context is a lock error. */
SIM_BEGIN_DECLS
void sim_might_sleep(const char *file, int line);
int scnprintf(char *buf, size_t size, const char *fmt, ...) __printf(3, 4);
int vscnprintf(char *buf, size_t size, const char *fmt, va_list args) __printf(3, 0);
char *kasprintf(gfp_t gfp, const char *fmt, ...) __printf(2, 3);
SIM_END_DECLS
#define might_sleep() sim_might_sleep(__FILE__, __LINE__)
#define might_sleep_if(cond) do { if (cond) might_sleep(); } while (0)

#endif
