/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: the interrupt flag of the current context.  Hardirq
 * context starts with interrupts disabled; enabling them there is a lock
 * error, as the kernel warns about handlers that enable interrupts.
 *
 * Kind: kernel behaviour (interrupt state with lockdep's rules, checked)
 */
#ifndef _SIM_LINUX_IRQFLAGS_H
#define _SIM_LINUX_IRQFLAGS_H

#include <linux/types.h>

SIM_BEGIN_DECLS
unsigned long sim_local_irq_save(const char *file, int line);
void sim_local_irq_restore(unsigned long flags, const char *file, int line);
void sim_local_irq_disable(const char *file, int line);
void sim_local_irq_enable(const char *file, int line);
bool sim_irqs_disabled(void);
void sim_local_bh_disable(const char *file, int line);
void sim_local_bh_enable(const char *file, int line);
SIM_END_DECLS

#define local_irq_save(flags) do { (flags) = sim_local_irq_save(__FILE__, __LINE__); } while (0)
#define local_irq_restore(flags) sim_local_irq_restore(flags, __FILE__, __LINE__)
#define local_irq_disable() sim_local_irq_disable(__FILE__, __LINE__)
#define local_irq_enable() sim_local_irq_enable(__FILE__, __LINE__)
#define irqs_disabled() sim_irqs_disabled()
#define local_bh_disable() sim_local_bh_disable(__FILE__, __LINE__)
#define local_bh_enable() sim_local_bh_enable(__FILE__, __LINE__)

#endif
