/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: every clock reads the simulated clock (<sim/clock.h>).
 * Nothing in the sim ever reads the host's time.
 *
 * Kind: simulation (every clock reads the simulated clock)
 */
#ifndef _SIM_LINUX_TIMEKEEPING_H
#define _SIM_LINUX_TIMEKEEPING_H

#include <linux/types.h>

SIM_BEGIN_DECLS
s64 sim_clock_now(void);
SIM_END_DECLS

static inline s64 ktime_get(void)
{
	return sim_clock_now();
}

static inline u64 ktime_get_ns(void)
{
	return (u64)sim_clock_now();
}

#define ktime_get_raw() ktime_get()
#define ktime_get_boottime() ktime_get()
#define ktime_get_mono_fast_ns() ktime_get_ns()
#define ktime_get_raw_ns() ktime_get_ns()
#define ktime_get_boottime_ns() ktime_get_ns()
#define local_clock() ktime_get_ns()
#define sched_clock() ktime_get_ns()

#endif
