/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: in_irq() and friends live in <linux/preempt.h>.
 *
 * Kind: stub (an include only)
 */
#ifndef _SIM_LINUX_HARDIRQ_H
#define _SIM_LINUX_HARDIRQ_H
#include <linux/preempt.h>
#endif
