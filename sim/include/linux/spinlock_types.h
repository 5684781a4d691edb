/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: spinlock_t and raw_spinlock_t, each only the lock checker's state.
 *
 * Kind: kernel behaviour (spinlock_t carries the lock checker's state)
 */
#ifndef _SIM_LINUX_SPINLOCK_TYPES_H
#define _SIM_LINUX_SPINLOCK_TYPES_H

#include <linux/lockdep_types.h>

typedef struct spinlock {
	struct lockdep_map dep_map;
} spinlock_t;

typedef struct raw_spinlock {
	struct lockdep_map dep_map;
} raw_spinlock_t;

#define __SPIN_LOCK_UNLOCKED(lockname) { { #lockname, NULL, 0, 0, 0, 0, 0, 0, 0 } }
#define __RAW_SPIN_LOCK_UNLOCKED(lockname) __SPIN_LOCK_UNLOCKED(lockname)
#define DEFINE_SPINLOCK(x) spinlock_t x = __SPIN_LOCK_UNLOCKED(x)
#define DEFINE_RAW_SPINLOCK(x) raw_spinlock_t x = __RAW_SPIN_LOCK_UNLOCKED(x)

#endif
