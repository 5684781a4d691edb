/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: a kobject is only a reference count with a release
 * function here (no sysfs tree).
 *
 * Kind: kernel behaviour (a kref's life cycle: release at the last put, WARN on underflow)
 * Exceptions: no sysfs directory, no name handling (stub)
 */
#ifndef _SIM_LINUX_KOBJECT_H
#define _SIM_LINUX_KOBJECT_H

#include <linux/types.h>
#include <linux/sysfs.h>
#include <linux/bug.h>

struct kobject {
	const char *name;
	int refcount;
	void (*sim_release)(struct kobject *kobj);
};

static inline struct kobject *kobject_get(struct kobject *kobj)
{
	if (kobj)
		kobj->refcount++;
	return kobj;
}

static inline void kobject_put(struct kobject *kobj)
{
	if (!kobj)
		return;
	if (WARN_ON(kobj->refcount <= 0))
		return;
	if (--kobj->refcount == 0 && kobj->sim_release)
		kobj->sim_release(kobj);
}

#endif
