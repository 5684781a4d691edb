/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: a task's I/O context and the per-(context, queue) io_cq
 * that elevators extend (elevator_type.icq_size), with 6.1's fields.  The
 * sim's block layer model creates and looks up the io_cqs.
 *
 * Kind: kernel behaviour (6.1's io_context and io_cq, in sim/shim/ioc.cc; 6.12 the same)
 * Exceptions: sim_task_share_io_context() stands for clone(CLONE_IO) (simulation)
 */
#ifndef _SIM_LINUX_IOCONTEXT_H
#define _SIM_LINUX_IOCONTEXT_H

#include <linux/types.h>
#include <linux/spinlock_types.h>
#include <linux/workqueue.h>
#include <linux/atomic.h>

enum {
	ICQ_EXITED = 1 << 2,
	ICQ_DESTROYED = 1 << 3,
};

struct request_queue;
struct kmem_cache;

struct io_cq {
	struct request_queue *q;
	struct io_context *ioc;
	union {
		struct list_head q_node;
		struct kmem_cache *__rcu_icq_cache;
	};
	union {
		struct hlist_node ioc_node;
		struct rcu_head __rcu_head;
	};
	unsigned int flags;
};

struct io_context {
	atomic_long_t refcount;
	atomic_t active_ref;
	unsigned short ioprio;
	spinlock_t lock;
	struct io_cq *icq_hint;
	struct hlist_head icq_list;
	struct work_struct release_work;
};

struct task_struct;

SIM_BEGIN_DECLS
void put_io_context(struct io_context *ioc);
void exit_io_context(struct task_struct *task);
int set_task_ioprio(struct task_struct *task, int ioprio);
/*
 * @task shares @from's io_context from now on, as a task created with
 * clone(CLONE_IO) does (@from gets one first if it has none; @task's own,
 * if any, exits).  Returns -ENOMEM or 0.
 */
int sim_task_share_io_context(struct task_struct *task, struct task_struct *from);
SIM_END_DECLS

#endif
