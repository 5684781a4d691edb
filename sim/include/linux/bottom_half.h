/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _SIM_LINUX_BOTTOM_HALF_H
#define _SIM_LINUX_BOTTOM_HALF_H
#include <linux/irqflags.h>
#endif
