/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _SIM_LINUX_HARDIRQ_H
#define _SIM_LINUX_HARDIRQ_H
#include <linux/preempt.h>
#endif
