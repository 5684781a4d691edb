/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: mutexes, checked like spinlocks (owner = the task); taking
 * one in atomic context is a lock error (it might sleep).
 *
 * Kind: kernel behaviour (mutex rules checked: owner, recursion, might_sleep())
 */
#ifndef _SIM_LINUX_MUTEX_H
#define _SIM_LINUX_MUTEX_H

#include <linux/compiler.h>
#include <linux/lockdep_types.h>
#include <linux/lockdep.h>
#include <linux/kernel.h>

struct mutex {
	struct lockdep_map dep_map;
};

SIM_BEGIN_DECLS
void sim_lock_init(struct lockdep_map *map, const char *name, bool sleeping);
void sim_lock_acquire(struct lockdep_map *map, const char *file, int line);
int sim_lock_tryacquire(struct lockdep_map *map, const char *file, int line);
void sim_lock_release(struct lockdep_map *map, const char *file, int line);
bool sim_lock_is_locked(const struct lockdep_map *map);
SIM_END_DECLS

#define __MUTEX_INITIALIZER(lockname) { { #lockname, NULL, 0, 0, 0, 0, 1, 0, 0 } }
#define DEFINE_MUTEX(mutexname) struct mutex mutexname = __MUTEX_INITIALIZER(mutexname)
#define mutex_init(m) sim_lock_init(&(m)->dep_map, #m, true)
#define mutex_destroy(m) do { } while (0)
#define mutex_lock(m) do {                                          \
	sim_might_sleep(__FILE__, __LINE__);                        \
	sim_lock_acquire(&(m)->dep_map, __FILE__, __LINE__);        \
} while (0)
#define mutex_lock_nested(m, subclass) mutex_lock(m)
#define mutex_lock_interruptible(m) ({ mutex_lock(m); 0; })
#define mutex_lock_killable(m) ({ mutex_lock(m); 0; })
#define mutex_trylock(m) sim_lock_tryacquire(&(m)->dep_map, __FILE__, __LINE__)
#define mutex_unlock(m) sim_lock_release(&(m)->dep_map, __FILE__, __LINE__)
#define mutex_is_locked(m) sim_lock_is_locked(&(m)->dep_map)

#endif
