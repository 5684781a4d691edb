/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: the per-lock state the sim's lock checker keeps.  Every
 * spinlock_t and struct mutex embeds one as ->dep_map, the member the
 * kernel's lockdep_assert_held() reaches too.  All-zero is "unlocked".
 *
 * Kind: kernel behaviour (the per-lock state of the lock checker that stands for lockdep)
 */
#ifndef _SIM_LINUX_LOCKDEP_TYPES_H
#define _SIM_LINUX_LOCKDEP_TYPES_H

#include <linux/types.h>

struct lock_class_key {
	int unused;
};

struct lockdep_map {
	const char *name;
	const char *held_file;	/* where the holder took it */
	int held_line;
	int owner;		/* context id of the holder (sim/kernel.h) */
	int frame;		/* context stack depth of the holder */
	unsigned char held;
	unsigned char sleeping;	/* a mutex, not a spinlock */
	unsigned char usage;	/* irq-safety bits seen so far */
	unsigned char reported;	/* irq-safety violation already reported */
};

#endif
