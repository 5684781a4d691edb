/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim: controls of the shim kernel (C and C++).
 *
 * Contexts.  The sim is single-threaded.  Code runs in task context as the
 * task set with sim_set_current() (pid 1 "sim" at start), or in an
 * interrupt context pushed on top of it: hardirq while an hrtimer callback
 * or a sim_irq_enter(true) section runs, softirq for timer_list and
 * soft-hrtimer callbacks and RCU callbacks.  Work items run in task
 * context as the kworker task (pid SIM_KWORKER_PID).
 *
 * Lock errors.  See <linux/spinlock.h>: misuse of a spinlock, mutex, RCU
 * read lock or interrupt state is printed with file:line, counted by
 * sim_lock_errors() and also counted as a WARN.
 *
 * Kind: simulation
 */
#ifndef _SIM_KERNEL_H
#define _SIM_KERNEL_H

#include <linux/types.h>

struct cgroup_subsys_state;

#define SIM_CTX_HARDIRQ (-1)
#define SIM_CTX_SOFTIRQ (-2)
#define SIM_KWORKER_PID 2

SIM_BEGIN_DECLS

/* -- tasks and contexts -- */
void sim_set_current(pid_t pid, const char *comm);
/* Set fields of the current task (nice -20..19 sets static_prio). */
void sim_current_set_nice(int nice);
void sim_current_set_policy(unsigned int policy);
void sim_current_set_io_css(struct cgroup_subsys_state *css);
/* Enter/leave an interrupt context (hard: hardirq, else softirq). */
void sim_irq_enter(bool hard);
void sim_irq_exit(void);
/* The context id of the running code: a pid, SIM_CTX_HARDIRQ or SIM_CTX_SOFTIRQ. */
int sim_ctx_id(void);

/* -- printk -- */
/* Messages with a level below this are printed (default 5: up to KERN_WARNING). */
extern int sim_printk_level;
/* Receives every printk message (after level parsing, before filtering). */
typedef void (*sim_printk_hook_t)(int level, const char *msg, void *arg);
void sim_printk_set_hook(sim_printk_hook_t hook, void *arg);

/* -- other tasks at sleep points -- */
/* @fn runs at each might_sleep() point reached in task context with no
 * lock held, interrupts and preemption on, and outside RCU: the point where
 * the kernel may give the CPU to another task, or where another CPU's
 * task gets ahead.  It is not re-entered (sleep points inside @fn do not
 * call it) and may do anything a task may.  NULL removes it; sim_reset()
 * does too. */
typedef void (*sim_sleep_hook_t)(void *arg);
void sim_set_sleep_hook(sim_sleep_hook_t fn, void *arg);

/* -- WARN and lock errors -- */
unsigned long sim_warn_count(void);
/* "file:line: message" of the last WARN or lock error ("" if none). */
const char *sim_warn_last(void);
void sim_warn_reset(void);
unsigned long sim_lock_errors(void);
const char *sim_lock_error_last(void);
void sim_lock_errors_reset(void);

/* -- modules -- */
/* Run every module_init() in registration (link) order; stops at the
 * first failure and returns its error (the failed module is not loaded). */
int sim_modules_init(void);
/* Run module_exit() of every loaded module, in reverse order. */
void sim_modules_exit(void);
/* Number of module_init() functions registered. */
int sim_modules_count(void);

/* -- deferred work -- */
/* Run pending RCU callbacks and work items until none is left.  Must be
 * called from task context with no lock held. */
void sim_quiesce(void);

/* -- whole-shim reset for test fixtures -- */
/* Reset the clock (dropping all timers), counters, printk hook, slab
 * failure injection, the current task and the context stack.  Does not
 * free anything still allocated. */
void sim_reset(void);

SIM_END_DECLS

#endif
