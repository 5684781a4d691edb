/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: local_bh_disable()/local_bh_enable() live in <linux/irqflags.h>.
 *
 * Kind: stub (an include only)
 */
#ifndef _SIM_LINUX_BOTTOM_HALF_H
#define _SIM_LINUX_BOTTOM_HALF_H
#include <linux/irqflags.h>
#endif
