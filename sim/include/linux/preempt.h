/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: execution context.  The sim is single-threaded; a stack of
 * contexts (task, then nested softirq/hardirq while a timer or a simulated
 * interrupt runs) answers in_interrupt() and friends.
 *
 * Kind: kernel behaviour (in_interrupt(), in_atomic() and friends answer as the kernel's)
 * Exceptions: the context stack they read is the sim's (simulation)
 */
#ifndef _SIM_LINUX_PREEMPT_H
#define _SIM_LINUX_PREEMPT_H

#include <linux/types.h>

SIM_BEGIN_DECLS
bool sim_in_hardirq(void);
bool sim_in_softirq(void);
bool sim_in_serving_softirq(void);
bool sim_in_task(void);
void sim_preempt_count_add(int val);
int sim_preempt_count(void);
SIM_END_DECLS

#define in_interrupt() (!sim_in_task())
#define in_irq() sim_in_hardirq()
#define in_hardirq() sim_in_hardirq()
#define in_softirq() sim_in_softirq()
#define in_serving_softirq() sim_in_serving_softirq()
#define in_task() sim_in_task()
#define in_atomic() (sim_preempt_count() != 0)
#define preempt_count() sim_preempt_count()
#define preempt_disable() sim_preempt_count_add(1)
#define preempt_enable() sim_preempt_count_add(-1)
#define preempt_enable_no_resched() preempt_enable()
#define migrate_disable() preempt_disable()
#define migrate_enable() preempt_enable()

#endif
