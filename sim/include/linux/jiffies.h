/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: jiffies follow the simulated clock: HZ is 250 (Debian's
 * kernel), and, as in the kernel, jiffies start 5 minutes before a 32-bit
 * wrap (INITIAL_JIFFIES) at clock time 0.  `jiffies` is a variable the
 * clock updates whenever it moves.
 *
 * Kind: kernel behaviour (HZ 250, INITIAL_JIFFIES, time_after(), conversions; 6.1 = 6.12)
 * Exceptions: jiffies follow the simulated clock; jiffies_to_nsecs() does not wrap as 6.1's
 */
#ifndef _SIM_LINUX_JIFFIES_H
#define _SIM_LINUX_JIFFIES_H

#include <linux/types.h>
#include <linux/time64.h>
#include <linux/math64.h>
#include <linux/limits.h>

#ifdef HZ
#undef HZ
#endif
#define HZ CONFIG_HZ
#define USER_HZ 100
#define TICK_NSEC ((NSEC_PER_SEC + HZ / 2) / HZ)
#define TICK_USEC ((USEC_PER_SEC + HZ / 2) / HZ)

#define INITIAL_JIFFIES ((unsigned long)(unsigned int)(-300 * HZ))
#define MAX_JIFFY_OFFSET ((LONG_MAX >> 1) - 1)

SIM_BEGIN_DECLS
extern volatile unsigned long jiffies;
extern u64 jiffies_64;
SIM_END_DECLS

static inline u64 get_jiffies_64(void)
{
	return jiffies_64;
}

#define time_after(a, b) ((long)((b) - (a)) < 0)
#define time_before(a, b) time_after(b, a)
#define time_after_eq(a, b) ((long)((a) - (b)) >= 0)
#define time_before_eq(a, b) time_after_eq(b, a)
#define time_in_range(a, b, c) (time_after_eq(a, b) && time_before_eq(a, c))
#define time_in_range_open(a, b, c) (time_after_eq(a, b) && time_before(a, c))
#define time_after64(a, b) ((s64)((b) - (a)) < 0)
#define time_before64(a, b) time_after64(b, a)
#define time_after_eq64(a, b) ((s64)((a) - (b)) >= 0)
#define time_before_eq64(a, b) time_after_eq64(b, a)
#define time_is_before_jiffies(a) time_after(jiffies, a)
#define time_is_after_jiffies(a) time_before(jiffies, a)
#define time_is_before_eq_jiffies(a) time_after_eq(jiffies, a)
#define time_is_after_eq_jiffies(a) time_before_eq(jiffies, a)

static inline unsigned int jiffies_to_msecs(const unsigned long j)
{
	return (unsigned int)((MSEC_PER_SEC / HZ) * j);
}

static inline unsigned int jiffies_to_usecs(const unsigned long j)
{
	return (unsigned int)((USEC_PER_SEC / HZ) * j);
}

static inline u64 jiffies_to_nsecs(const unsigned long j)
{
	return (u64)j * TICK_NSEC;
}

static inline u64 jiffies64_to_nsecs(u64 j)
{
	return j * TICK_NSEC;
}

/* Rounds up: a non-zero time never becomes 0 jiffies. */
static inline unsigned long msecs_to_jiffies(const unsigned int m)
{
	if ((int)m < 0)
		return MAX_JIFFY_OFFSET;
	return (m + (MSEC_PER_SEC / HZ) - 1) / (MSEC_PER_SEC / HZ);
}

static inline unsigned long usecs_to_jiffies(const unsigned int u)
{
	if ((int)u < 0)
		return MAX_JIFFY_OFFSET;
	return (u + (USEC_PER_SEC / HZ) - 1) / (USEC_PER_SEC / HZ);
}

/* Rounds down, as the kernel's does. */
static inline unsigned long nsecs_to_jiffies(u64 n)
{
	return (unsigned long)div_u64(n, NSEC_PER_SEC / HZ);
}

static inline u64 nsecs_to_jiffies64(u64 n)
{
	return div_u64(n, NSEC_PER_SEC / HZ);
}

#endif
