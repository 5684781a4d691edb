/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim: the simulated clock and its timer queue (C and C++).
 *
 * The clock (nanoseconds, what ktime_get() returns) only moves when the
 * sim moves it.  It is the clock of the simulation's one event queue
 * (sim/events.h), where each armed timer is an event.  Moving it runs
 * every event that falls due -- the timers, in expiry order (ties: arming
 * order), and the block layer model's events if a model runs -- each with
 * the clock set to its time; a timer runs in interrupt context (hrtimer:
 * hardirq; HRTIMER_MODE_SOFT and timer_list: softirq).  Before the clock
 * moves, and before and after each timer, pending RCU callbacks and work
 * items run (sim_quiesce()).  Events must not be run from a timer callback
 * or with a lock held.
 *
 * Kind: simulation
 */
#ifndef _SIM_CLOCK_H
#define _SIM_CLOCK_H

#include <linux/types.h>

/* sim_clock_reset() puts the clock here, so 0 never looks like a valid time. */
#define SIM_CLOCK_START_NS 1000000000LL

SIM_BEGIN_DECLS
s64 sim_clock_now(void);
/* Advance by @ns, running the events that fall due; returns their number. */
unsigned long sim_clock_advance(s64 ns);
/* Advance to absolute time @ns (>= now; going back is a WARN and does
 * nothing); returns the number of events run (timers fired). */
unsigned long sim_clock_set(s64 ns);
/* Earliest armed timer expiry (may be in the past); false if no timer is
 * armed. */
bool sim_clock_next_expiry(s64 *ns);
/* Run the earliest event (without a block layer model: the earliest
 * timer), moving the clock to its time if that is in the future; false if
 * the queue is empty. */
bool sim_clock_run_next(void);
/* Number of armed timers. */
unsigned long sim_clock_pending(void);
/* Drop all timers (they become unqueued) and set the clock to SIM_CLOCK_START_NS. */
void sim_clock_reset(void);
SIM_END_DECLS

#endif
