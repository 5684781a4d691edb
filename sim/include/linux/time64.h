/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: time unit constants.
 *
 * Kind: kernel behaviour (time unit constants, KTIME_MAX)
 */
#ifndef _SIM_LINUX_TIME64_H
#define _SIM_LINUX_TIME64_H

#include <linux/types.h>

typedef s64 time64_t;

#define MSEC_PER_SEC 1000L
#define USEC_PER_MSEC 1000L
#define NSEC_PER_USEC 1000L
#define NSEC_PER_MSEC 1000000L
#define USEC_PER_SEC 1000000L
#define NSEC_PER_SEC 1000000000L
#define PSEC_PER_SEC 1000000000000LL
#define FSEC_PER_SEC 1000000000000000LL

#define TIME64_MAX ((s64)~((u64)1 << 63))
#define KTIME_MAX ((s64)~((u64)1 << 63))
#define KTIME_SEC_MAX (KTIME_MAX / NSEC_PER_SEC)

#endif
