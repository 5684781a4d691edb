/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: I/O priorities.  The encoding of Debian's 6.1 (and 6.12)
 * uapi: bits 13-15 the class, bits 0-2 the level, bits 3-12 an I/O hint
 * (which says nothing about the level: a hinted best-effort level 0 is
 * still level 0).
 *
 * Kind: kernel behaviour (Debian 6.1's ioprio encoding with hints, the same in 6.12)
 * Exceptions: task_nice_ioclass() knows no SCHED_DEADLINE (the sim has no such task)
 */
#ifndef _SIM_LINUX_IOPRIO_H
#define _SIM_LINUX_IOPRIO_H

#include <linux/types.h>
#include <linux/sched.h>
#include <linux/iocontext.h>

#define IOPRIO_CLASS_SHIFT 13
#define IOPRIO_NR_CLASSES 8
#define IOPRIO_CLASS_MASK (IOPRIO_NR_CLASSES - 1)
#define IOPRIO_PRIO_MASK ((1UL << IOPRIO_CLASS_SHIFT) - 1)

#define IOPRIO_PRIO_CLASS(ioprio) (((ioprio) >> IOPRIO_CLASS_SHIFT) & IOPRIO_CLASS_MASK)
#define IOPRIO_PRIO_DATA(ioprio) ((ioprio) & IOPRIO_PRIO_MASK)
#define IOPRIO_LEVEL_NR_BITS 3
#define IOPRIO_PRIO_LEVEL(ioprio) ((ioprio) & ((1U << IOPRIO_LEVEL_NR_BITS) - 1))
#define IOPRIO_HINT_SHIFT IOPRIO_LEVEL_NR_BITS
#define IOPRIO_PRIO_HINT(ioprio) (((ioprio) >> IOPRIO_HINT_SHIFT) & ((1U << 10) - 1))
#define IOPRIO_PRIO_VALUE(class, data) \
	((((class) & IOPRIO_CLASS_MASK) << IOPRIO_CLASS_SHIFT) | ((data) & IOPRIO_PRIO_MASK))

enum {
	IOPRIO_CLASS_NONE = 0,
	IOPRIO_CLASS_RT = 1,
	IOPRIO_CLASS_BE = 2,
	IOPRIO_CLASS_IDLE = 3,
};

#define IOPRIO_NR_LEVELS (1 << IOPRIO_LEVEL_NR_BITS)
#define IOPRIO_BE_NR IOPRIO_NR_LEVELS

enum {
	IOPRIO_WHO_PROCESS = 1,
	IOPRIO_WHO_PGRP,
	IOPRIO_WHO_USER,
};

#define IOPRIO_NORM 4
#define IOPRIO_BE_NORM IOPRIO_NORM
#define IOPRIO_DEFAULT IOPRIO_PRIO_VALUE(IOPRIO_CLASS_NONE, 0)

static inline bool ioprio_valid(unsigned short ioprio)
{
	unsigned short ioclass = IOPRIO_PRIO_CLASS(ioprio);

	return ioclass > IOPRIO_CLASS_NONE && ioclass <= IOPRIO_CLASS_IDLE;
}

/* nice -20..19 maps onto levels 0..7 */
static inline int task_nice_ioprio(struct task_struct *task)
{
	return (task_nice(task) + 20) / 5;
}

static inline int task_nice_ioclass(struct task_struct *task)
{
	if (task->policy == SCHED_IDLE)
		return IOPRIO_CLASS_IDLE;
	if (task->policy == SCHED_FIFO || task->policy == SCHED_RR)
		return IOPRIO_CLASS_RT;
	return IOPRIO_CLASS_BE;
}

/* The task's io_context priority, or one derived from its nice level. */
static inline int __get_task_ioprio(struct task_struct *p)
{
	struct io_context *ioc = p->io_context;
	int prio = ioc ? ioc->ioprio : IOPRIO_DEFAULT;

	if (IOPRIO_PRIO_CLASS(prio) == IOPRIO_CLASS_NONE)
		prio = IOPRIO_PRIO_VALUE(task_nice_ioclass(p), task_nice_ioprio(p));
	return prio;
}

static inline int get_current_ioprio(void)
{
	return __get_task_ioprio(current);
}

#endif
