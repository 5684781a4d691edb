/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: tasks.  `current` is the task the sim says is running
 * (sim_set_current() in <sim/kernel.h>); it stays the interrupted task
 * while a timer callback runs, as in the kernel.
 *
 * Kind: kernel behaviour (current stays the interrupted task; nice and priority mapping)
 * Exceptions: which task is current is the sim's choice (sim_set_current(), simulation)
 */
#ifndef _SIM_LINUX_SCHED_H
#define _SIM_LINUX_SCHED_H

#include <linux/types.h>
#include <linux/preempt.h>
#include <linux/irqflags.h>
#include <linux/kernel.h>

#define TASK_COMM_LEN 16

#define SCHED_NORMAL 0
#define SCHED_FIFO 1
#define SCHED_RR 2
#define SCHED_BATCH 3
#define SCHED_IDLE 5

#define MAX_NICE 19
#define MIN_NICE -20
#define NICE_WIDTH (MAX_NICE - MIN_NICE + 1)
#define MAX_RT_PRIO 100
#define DEFAULT_PRIO (MAX_RT_PRIO + NICE_WIDTH / 2)
#define NICE_TO_PRIO(nice) ((nice) + DEFAULT_PRIO)
#define PRIO_TO_NICE(prio) ((prio) - DEFAULT_PRIO)

#define PF_EXITING 0x00000004
#define PF_KTHREAD 0x00200000

struct io_context;
struct cgroup_subsys_state;

struct task_struct {
	pid_t pid;
	pid_t tgid;
	char comm[TASK_COMM_LEN];
	unsigned int flags;
	unsigned int policy;
	int prio;
	int static_prio;
	int normal_prio;
	struct io_context *io_context;
	/* sim: the task's io cgroup (NULL: the root cgroup) */
	struct cgroup_subsys_state *sim_io_css;
};

SIM_BEGIN_DECLS
struct task_struct *sim_get_current(void);
SIM_END_DECLS

#define current sim_get_current()
#define get_current() sim_get_current()

static inline pid_t task_pid_nr(struct task_struct *tsk)
{
	return tsk->pid;
}

static inline pid_t task_tgid_nr(struct task_struct *tsk)
{
	return tsk->tgid;
}

static inline int task_nice(const struct task_struct *p)
{
	return PRIO_TO_NICE(p->static_prio);
}

static inline int rt_prio(int prio)
{
	return prio < MAX_RT_PRIO;
}

static inline int rt_task(struct task_struct *p)
{
	return rt_prio(p->prio);
}

#endif
