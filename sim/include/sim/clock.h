/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim: the simulated clock and its timer queue (C and C++).
 *
 * The clock (nanoseconds, what ktime_get() returns) only moves when the
 * sim moves it.  Moving it fires every timer that falls due, in expiry
 * order (ties: arming order), each with the clock set to its expiry time
 * and in interrupt context (hrtimer: hardirq; HRTIMER_MODE_SOFT and
 * timer_list: softirq).  Before each timer, and after the last, pending
 * RCU callbacks and work items run (sim_quiesce()).  Timers must not be
 * run from a timer callback or with a lock held.
 */
#ifndef _SIM_CLOCK_H
#define _SIM_CLOCK_H

#include <linux/types.h>

/* sim_clock_reset() puts the clock here, so 0 never looks like a valid time. */
#define SIM_CLOCK_START_NS 1000000000LL

SIM_BEGIN_DECLS
s64 sim_clock_now(void);
/* Advance by @ns, firing due timers; returns the number fired. */
unsigned long sim_clock_advance(s64 ns);
/* Advance to absolute time @ns (>= now; going back is a WARN and does
 * nothing); returns the number of timers fired. */
unsigned long sim_clock_set(s64 ns);
/* Earliest armed expiry (may be in the past); false if no timer is armed. */
bool sim_clock_next_expiry(s64 *ns);
/* Fire the earliest timer, moving the clock to its expiry if that is in
 * the future; false if no timer is armed. */
bool sim_clock_run_next(void);
/* Number of armed timers. */
unsigned long sim_clock_pending(void);
/* Drop all timers (they become unqueued) and set the clock to SIM_CLOCK_START_NS. */
void sim_clock_reset(void);
SIM_END_DECLS

#endif
