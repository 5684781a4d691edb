/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: lockdep assertions, always on.  A failed assertion is a
 * lock error (see <linux/spinlock.h>).  "Held" means held by the current
 * context, as lockdep checks the current task's held locks.
 *
 * Kind: kernel behaviour (a lockdep kernel's assertions, always on)
 * Exceptions: lockdep_set_class() and the key calls do nothing (stub)
 */
#ifndef _SIM_LINUX_LOCKDEP_H
#define _SIM_LINUX_LOCKDEP_H

#include <linux/lockdep_types.h>

SIM_BEGIN_DECLS
bool sim_lock_held_by_current(const struct lockdep_map *map);
void sim_lockdep_assert(bool ok, const char *what, const struct lockdep_map *map,
			const char *file, int line);
SIM_END_DECLS

#define lockdep_is_held(lock) sim_lock_held_by_current(&(lock)->dep_map)
#define lockdep_assert_held(lock)                                           \
	sim_lockdep_assert(sim_lock_held_by_current(&(lock)->dep_map),      \
			   "lockdep_assert_held(" #lock ")", &(lock)->dep_map, \
			   __FILE__, __LINE__)
#define lockdep_assert_not_held(lock)                                       \
	sim_lockdep_assert(!sim_lock_held_by_current(&(lock)->dep_map),     \
			   "lockdep_assert_not_held(" #lock ")",            \
			   &(lock)->dep_map, __FILE__, __LINE__)
#define lockdep_assert_held_once(lock) lockdep_assert_held(lock)
#define lockdep_assert_irqs_disabled()                                      \
	sim_lockdep_assert(sim_irqs_disabled(), "lockdep_assert_irqs_disabled()", \
			   NULL, __FILE__, __LINE__)
#define lockdep_assert_irqs_enabled()                                       \
	sim_lockdep_assert(!sim_irqs_disabled(), "lockdep_assert_irqs_enabled()", \
			   NULL, __FILE__, __LINE__)
#define lockdep_assert_in_irq()                                             \
	sim_lockdep_assert(sim_in_hardirq(), "lockdep_assert_in_irq()", NULL, \
			   __FILE__, __LINE__)
#define lockdep_set_class(lock, key) do { (void)(key); } while (0)
#define lockdep_set_class_and_name(lock, key, name) do { (void)(key); } while (0)
#define lockdep_set_subclass(lock, sub) do { } while (0)
#define lockdep_register_key(key) do { } while (0)
#define lockdep_unregister_key(key) do { } while (0)

#include <linux/irqflags.h>
#include <linux/preempt.h>

#endif
