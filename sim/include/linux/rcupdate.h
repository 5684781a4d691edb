/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: RCU.  Read-side sections are tracked per context (an
 * unbalanced rcu_read_unlock() and sleeping inside a reader are lock
 * errors).  call_rcu() callbacks never run from inside call_rcu(): they
 * are queued and run, in order and in softirq context, at the sim's safe
 * points -- synchronize_rcu(), rcu_barrier(), sim_quiesce() and before
 * every timer the simulated clock fires -- when no reader can still hold
 * a reference.
 *
 * Kind: kernel behaviour (call_rcu() never runs inline; read sections checked)
 * Exceptions: grace periods end at the sim's safe points; rcu_dereference*() check no lock
 */
#ifndef _SIM_LINUX_RCUPDATE_H
#define _SIM_LINUX_RCUPDATE_H

#include <linux/compiler.h>
#include <linux/types.h>
#include <linux/preempt.h>
#include <linux/bug.h>

SIM_BEGIN_DECLS
void sim_rcu_read_lock(void);
void sim_rcu_read_unlock(const char *file, int line);
bool sim_rcu_read_lock_held(void);
void call_rcu(struct rcu_head *head, rcu_callback_t func);
void synchronize_rcu(void);
void rcu_barrier(void);
void sim_kfree_rcu(const void *ptr);
SIM_END_DECLS

#define rcu_read_lock() sim_rcu_read_lock()
#define rcu_read_unlock() sim_rcu_read_unlock(__FILE__, __LINE__)
#define rcu_read_lock_bh() do { local_bh_disable(); sim_rcu_read_lock(); } while (0)
#define rcu_read_unlock_bh() do { rcu_read_unlock(); local_bh_enable(); } while (0)
#define rcu_read_lock_held() sim_rcu_read_lock_held()
#define rcu_read_lock_any_held() (sim_rcu_read_lock_held() || preempt_count() != 0)
#define synchronize_rcu_expedited() synchronize_rcu()
#define rcu_barrier_tasks() rcu_barrier()

#define rcu_dereference(p) READ_ONCE(p)
#define rcu_dereference_raw(p) READ_ONCE(p)
#define rcu_dereference_check(p, c) READ_ONCE(p)
#define rcu_dereference_protected(p, c) (p)
#define rcu_dereference_bh(p) READ_ONCE(p)
#define rcu_access_pointer(p) READ_ONCE(p)
#define rcu_assign_pointer(p, v) do { smp_wmb(); WRITE_ONCE(p, v); } while (0)
#define RCU_INIT_POINTER(p, v) do { (p) = (v); } while (0)
#define RCU_INITIALIZER(v) (v)
#define rcu_replace_pointer(rcu_ptr, ptr, c) ({                    \
	__typeof__(ptr) __sim_old = (rcu_ptr);                     \
	rcu_assign_pointer(rcu_ptr, ptr);                          \
	__sim_old; })

/* kfree_rcu(ptr, rhf) and kfree_rcu(ptr): kfree() after a grace period. */
#define __sim_kfree_rcu_2(ptr, rhf) sim_kfree_rcu(ptr)
#define __sim_kfree_rcu_1(ptr) sim_kfree_rcu(ptr)
#define __sim_kfree_rcu_pick(_1, _2, name, ...) name
#define kfree_rcu(...) \
	__sim_kfree_rcu_pick(__VA_ARGS__, __sim_kfree_rcu_2, __sim_kfree_rcu_1, x)(__VA_ARGS__)

#include <linux/irqflags.h>
#include <asm/barrier.h>

#endif
