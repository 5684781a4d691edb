/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim: the event-queue entry the simulated clock keeps for each armed
 * timer (embedded in struct hrtimer and struct timer_list).  Not a kernel
 * header: only the shims include it.
 *
 * Kind: simulation (the event-queue entry of a timer)
 */
#ifndef _SIM_LINUX_SIM_TIMER_TYPES_H
#define _SIM_LINUX_SIM_TIMER_TYPES_H

#include <linux/types.h>

struct sim_timer_node {
	s64 when;		/* clock time at which it fires */
	u64 seq;		/* arming order, breaks ties */
	unsigned int magic;	/* set by the init function */
	unsigned char kind;	/* SIM_TIMER_HRTIMER / SIM_TIMER_LIST */
	unsigned char queued;
};

#endif
