/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: jiffies timers on the simulated clock.  A timer fires when
 * jiffies reaches ->expires (at that tick's clock time; at the next clock
 * step if already due), in softirq context, in expiry then arming order.
 *
 * Kind: kernel behaviour (timer_list API on the simulated clock; 6.1 = 6.12)
 * Exceptions: fires exactly at its jiffy, where 6.1's timer wheel may round up
 */
#ifndef _SIM_LINUX_TIMER_H
#define _SIM_LINUX_TIMER_H

#include <linux/types.h>
#include <linux/list.h>
#include <linux/jiffies.h>
#include <linux/container_of.h>
#include <linux/sim_timer_types.h>

struct timer_list {
	struct hlist_node entry;
	unsigned long expires;
	void (*function)(struct timer_list *);
	u32 flags;
	struct sim_timer_node node;
};

#define TIMER_DEFERRABLE 0x00080000
#define TIMER_PINNED 0x00100000
#define TIMER_IRQSAFE 0x00200000

SIM_BEGIN_DECLS
void timer_setup(struct timer_list *timer, void (*func)(struct timer_list *),
		 unsigned int flags);
int mod_timer(struct timer_list *timer, unsigned long expires);
void add_timer(struct timer_list *timer);
int del_timer(struct timer_list *timer);
int del_timer_sync(struct timer_list *timer);
int timer_reduce(struct timer_list *timer, unsigned long expires);
SIM_END_DECLS

static inline int timer_pending(const struct timer_list *timer)
{
	return timer->node.queued;
}

#define from_timer(var, callback_timer, timer_fieldname) \
	container_of(callback_timer, __typeof__(*var), timer_fieldname)

#endif
