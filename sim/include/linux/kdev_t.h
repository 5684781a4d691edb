/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: in-kernel dev_t encoding (12-bit major, 20-bit minor).
 *
 * Kind: kernel behaviour (the in-kernel dev_t encoding)
 */
#ifndef _SIM_LINUX_KDEV_T_H
#define _SIM_LINUX_KDEV_T_H

#include <linux/types.h>

#define MINORBITS 20
#define MINORMASK ((1U << MINORBITS) - 1)

#define MAJOR(dev) ((unsigned int)((dev) >> MINORBITS))
#define MINOR(dev) ((unsigned int)((dev) & MINORMASK))
#define MKDEV(ma, mi) ((dev_t)(((dev_t)(ma) << MINORBITS) | (dev_t)(mi)))

#endif
