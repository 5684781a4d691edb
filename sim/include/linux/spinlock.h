/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: spinlocks that check their use instead of spinning.
 *
 * A lock records its owner: the context that took it (the current task's
 * pid in task context, or the interrupt context a timer callback runs
 * in).  A lock error is reported (file:line, counted by sim_lock_errors()
 * and as a WARN) for: taking a lock the context already holds, taking a
 * lock another context holds (a deadlock in a single-threaded sim),
 * unlocking a lock that is not held, unlocking a lock another context
 * holds, and -- like lockdep -- a lock used both in an interrupt context
 * and with that interrupt enabled elsewhere.
 *
 * Kind: kernel behaviour (spinlock rules checked as lockdep checks them)
 */
#ifndef _SIM_LINUX_SPINLOCK_H
#define _SIM_LINUX_SPINLOCK_H

#include <linux/compiler.h>
#include <linux/types.h>
#include <linux/spinlock_types.h>
#include <linux/irqflags.h>
#include <linux/preempt.h>
#include <linux/lockdep.h>

SIM_BEGIN_DECLS
void sim_lock_init(struct lockdep_map *map, const char *name, bool sleeping);
void sim_lock_acquire(struct lockdep_map *map, const char *file, int line);
int sim_lock_tryacquire(struct lockdep_map *map, const char *file, int line);
void sim_lock_release(struct lockdep_map *map, const char *file, int line);
bool sim_lock_is_locked(const struct lockdep_map *map);
void sim_lock_assert_locked(const struct lockdep_map *map, const char *file, int line);
SIM_END_DECLS

#define spin_lock_init(lock) sim_lock_init(&(lock)->dep_map, #lock, false)
#define raw_spin_lock_init(lock) spin_lock_init(lock)

#define spin_lock(lock) sim_lock_acquire(&(lock)->dep_map, __FILE__, __LINE__)
#define spin_unlock(lock) sim_lock_release(&(lock)->dep_map, __FILE__, __LINE__)
#define spin_trylock(lock) sim_lock_tryacquire(&(lock)->dep_map, __FILE__, __LINE__)
#define spin_lock_nested(lock, subclass) spin_lock(lock)

#define spin_lock_irq(lock) do {                                   \
	sim_local_irq_disable(__FILE__, __LINE__);                 \
	sim_lock_acquire(&(lock)->dep_map, __FILE__, __LINE__);    \
} while (0)
#define spin_unlock_irq(lock) do {                                 \
	sim_lock_release(&(lock)->dep_map, __FILE__, __LINE__);    \
	sim_local_irq_enable(__FILE__, __LINE__);                  \
} while (0)
#define spin_lock_irqsave(lock, flags) do {                        \
	(flags) = sim_local_irq_save(__FILE__, __LINE__);          \
	sim_lock_acquire(&(lock)->dep_map, __FILE__, __LINE__);    \
} while (0)
#define spin_lock_irqsave_nested(lock, flags, subclass) spin_lock_irqsave(lock, flags)
#define spin_unlock_irqrestore(lock, flags) do {                   \
	sim_lock_release(&(lock)->dep_map, __FILE__, __LINE__);    \
	sim_local_irq_restore(flags, __FILE__, __LINE__);          \
} while (0)
#define spin_lock_bh(lock) do {                                    \
	sim_local_bh_disable(__FILE__, __LINE__);                  \
	sim_lock_acquire(&(lock)->dep_map, __FILE__, __LINE__);    \
} while (0)
#define spin_unlock_bh(lock) do {                                  \
	sim_lock_release(&(lock)->dep_map, __FILE__, __LINE__);    \
	sim_local_bh_enable(__FILE__, __LINE__);                   \
} while (0)
#define spin_trylock_irqsave(lock, flags) ({                       \
	(flags) = sim_local_irq_save(__FILE__, __LINE__);          \
	sim_lock_tryacquire(&(lock)->dep_map, __FILE__, __LINE__) ? 1 : \
	({ sim_local_irq_restore(flags, __FILE__, __LINE__); 0; }); })

#define spin_is_locked(lock) sim_lock_is_locked(&(lock)->dep_map)
#define assert_spin_locked(lock) sim_lock_assert_locked(&(lock)->dep_map, __FILE__, __LINE__)

#define raw_spin_lock(lock) spin_lock(lock)
#define raw_spin_unlock(lock) spin_unlock(lock)
#define raw_spin_lock_irq(lock) spin_lock_irq(lock)
#define raw_spin_unlock_irq(lock) spin_unlock_irq(lock)
#define raw_spin_lock_irqsave(lock, flags) spin_lock_irqsave(lock, flags)
#define raw_spin_unlock_irqrestore(lock, flags) spin_unlock_irqrestore(lock, flags)

#endif
