// SPDX-License-Identifier: GPL-2.0
// efqsim: task I/O contexts and io_cqs (the kernel's block/blk-ioc.c):
// one io_cq per (io_context, queue), created on demand for elevators
// with icq_size, with init_icq/exit_icq called under the queue and ioc
// locks, freed after an RCU grace period.
//
// Kind: kernel behaviour (6.1's block/blk-ioc.c; 6.12 the same)
// Exceptions: sim_task_share_io_context() stands for clone(CLONE_IO) (simulation)

#include "internal.h"

extern "C" {
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/sched.h>
#include <linux/ioprio.h>
#include <linux/iocontext.h>
#include <linux/rcupdate.h>
#include "elevator.h"
#include "blk.h"
}

namespace {

void icq_free_rcu(struct rcu_head *head)
{
	io_cq *icq = container_of(head, io_cq, __rcu_head);
	kmem_cache_free(icq->__rcu_icq_cache, icq);
}

void exit_icq(io_cq *icq)
{
	elevator_type *et = icq->q->elevator->type;

	if (icq->flags & ICQ_EXITED)
		return;
	if (et->ops.exit_icq)
		et->ops.exit_icq(icq);
	icq->flags |= ICQ_EXITED;
}

// Unlink and free @icq; ioc lock held (and the queue lock, for ops).
void destroy_icq(io_cq *icq)
{
	io_context *ioc = icq->ioc;
	elevator_type *et = icq->q->elevator->type;

	lockdep_assert_held(&ioc->lock);
	hlist_del_init(&icq->ioc_node);
	list_del_init(&icq->q_node);
	if (ioc->icq_hint == icq)
		ioc->icq_hint = nullptr;
	exit_icq(icq);
	icq->__rcu_icq_cache = et->icq_cache; // the queue may be gone later
	icq->flags |= ICQ_DESTROYED;
	call_rcu(&icq->__rcu_head, icq_free_rcu);
}

void ioc_release_fn(struct work_struct *work)
{
	io_context *ioc = container_of(work, io_context, release_work);

	spin_lock_irq(&ioc->lock);
	while (!hlist_empty(&ioc->icq_list)) {
		io_cq *icq = hlist_entry(ioc->icq_list.first, io_cq, ioc_node);
		request_queue *q = icq->q;

		// The kernel trylocks here (reverse lock order); no contention.
		spin_lock(&q->queue_lock);
		destroy_icq(icq);
		spin_unlock(&q->queue_lock);
	}
	spin_unlock_irq(&ioc->lock);
	kfree(ioc);
}

io_context *alloc_io_context(gfp_t gfp)
{
	auto *ioc = static_cast<io_context *>(kzalloc(sizeof(io_context), gfp));
	if (!ioc)
		return nullptr;
	atomic_long_set(&ioc->refcount, 1);
	atomic_set(&ioc->active_ref, 1);
	spin_lock_init(&ioc->lock);
	INIT_HLIST_HEAD(&ioc->icq_list);
	INIT_WORK(&ioc->release_work, ioc_release_fn);
	return ioc;
}

io_cq *create_icq(request_queue *q)
{
	io_context *ioc = current->io_context;
	elevator_type *et = q->elevator->type;

	auto *icq = static_cast<io_cq *>(
		kmem_cache_alloc_node(et->icq_cache, GFP_ATOMIC | __GFP_ZERO, q->node));
	if (!icq)
		return nullptr;
	icq->ioc = ioc;
	icq->q = q;
	INIT_LIST_HEAD(&icq->q_node);
	INIT_HLIST_NODE(&icq->ioc_node);

	spin_lock_irq(&q->queue_lock);
	spin_lock(&ioc->lock);
	hlist_add_head(&icq->ioc_node, &ioc->icq_list);
	list_add(&icq->q_node, &q->icq_list);
	if (et->ops.init_icq)
		et->ops.init_icq(icq);
	spin_unlock(&ioc->lock);
	spin_unlock_irq(&q->queue_lock);
	return icq;
}

} // namespace

extern "C" {

struct io_cq *ioc_lookup_icq(struct request_queue *q)
{
	io_context *ioc = current->io_context;
	io_cq *icq;

	lockdep_assert_held(&q->queue_lock);
	if (!ioc)
		return nullptr;
	icq = ioc->icq_hint;
	if (icq && icq->q == q)
		return icq;
	hlist_for_each_entry(icq, &ioc->icq_list, ioc_node) {
		if (icq->q == q) {
			ioc->icq_hint = icq;
			return icq;
		}
	}
	return nullptr;
}

struct io_cq *ioc_find_get_icq(struct request_queue *q)
{
	io_context *ioc = current->io_context;
	io_cq *icq = nullptr;

	if (WARN_ON_ONCE(!q->elevator || !q->elevator->type->icq_cache))
		return nullptr;
	if (!ioc) {
		ioc = alloc_io_context(GFP_ATOMIC);
		if (!ioc)
			return nullptr;
		current->io_context = ioc;
		atomic_long_inc(&ioc->refcount);
	} else {
		atomic_long_inc(&ioc->refcount);
		spin_lock_irq(&q->queue_lock);
		icq = ioc_lookup_icq(q);
		spin_unlock_irq(&q->queue_lock);
	}
	if (!icq) {
		icq = create_icq(q);
		if (!icq) {
			put_io_context(ioc);
			return nullptr;
		}
	}
	return icq;
}

void ioc_clear_queue(struct request_queue *q)
{
	LIST_HEAD(icq_list);

	spin_lock_irq(&q->queue_lock);
	list_splice_init(&q->icq_list, &icq_list);
	spin_unlock_irq(&q->queue_lock);

	rcu_read_lock();
	while (!list_empty(&icq_list)) {
		io_cq *icq = list_entry(icq_list.next, io_cq, q_node);

		spin_lock_irq(&icq->ioc->lock);
		if (!(icq->flags & ICQ_DESTROYED))
			destroy_icq(icq);
		spin_unlock_irq(&icq->ioc->lock);
	}
	rcu_read_unlock();
}

void put_io_context(struct io_context *ioc)
{
	BUG_ON(atomic_long_read(&ioc->refcount) <= 0);
	if (!atomic_long_dec_and_test(&ioc->refcount))
		return;
	if (hlist_empty(&ioc->icq_list))
		kfree(ioc);
	else
		schedule_work(&ioc->release_work);
}

void exit_io_context(struct task_struct *task)
{
	io_context *ioc = task->io_context;

	if (!ioc)
		return;
	task->io_context = nullptr;
	if (atomic_dec_and_test(&ioc->active_ref)) {
		io_cq *icq;

		spin_lock_irq(&ioc->lock);
		hlist_for_each_entry(icq, &ioc->icq_list, ioc_node)
			exit_icq(icq);
		spin_unlock_irq(&ioc->lock);
		put_io_context(ioc);
	}
}

int sim_task_share_io_context(struct task_struct *task, struct task_struct *from)
{
	if (task == from)
		return 0;
	if (!from->io_context) {
		from->io_context = alloc_io_context(GFP_KERNEL);
		if (!from->io_context)
			return -ENOMEM;
	}
	exit_io_context(task);
	// the kernel's ioc_task_link(): one more task using it (the last
	// one to exit drops the reference the tasks hold together)
	atomic_inc(&from->io_context->active_ref);
	task->io_context = from->io_context;
	return 0;
}

int set_task_ioprio(struct task_struct *task, int ioprio)
{
	if (!task->io_context) {
		task->io_context = alloc_io_context(GFP_KERNEL);
		if (!task->io_context)
			return -ENOMEM;
	}
	task->io_context->ioprio = (unsigned short)ioprio;
	return 0;
}

} // extern "C"
