/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: work items run in task context (as a kworker task) at the
 * sim's safe points -- the same points where RCU callbacks run (see
 * <linux/rcupdate.h>) -- in queueing order; flush_work() and
 * flush_workqueue() run pending work at once.  Delayed work is a timer.
 *
 * Kind: kernel behaviour (queue, cancel and flush semantics of work items; 6.1 = 6.12)
 * Exceptions: work runs at the sim's safe points, as one kworker (simulation)
 */
#ifndef _SIM_LINUX_WORKQUEUE_H
#define _SIM_LINUX_WORKQUEUE_H

#include <linux/types.h>
#include <linux/list.h>
#include <linux/timer.h>

struct work_struct;
typedef void (*work_func_t)(struct work_struct *work);

struct work_struct {
	struct list_head entry;
	work_func_t func;
	bool pending;
};

struct delayed_work {
	struct work_struct work;
	struct timer_list timer;
};

struct workqueue_struct;

#define WQ_UNBOUND (1 << 1)
#define WQ_FREEZABLE (1 << 2)
#define WQ_MEM_RECLAIM (1 << 3)
#define WQ_HIGHPRI (1 << 4)

SIM_BEGIN_DECLS
extern struct workqueue_struct *system_wq;
extern struct workqueue_struct *system_unbound_wq;
void sim_init_work(struct work_struct *work, work_func_t func);
void sim_init_delayed_work(struct delayed_work *dwork, work_func_t func);
bool queue_work(struct workqueue_struct *wq, struct work_struct *work);
bool queue_delayed_work(struct workqueue_struct *wq, struct delayed_work *dwork,
			unsigned long delay);
bool mod_delayed_work(struct workqueue_struct *wq, struct delayed_work *dwork,
		      unsigned long delay);
bool cancel_work_sync(struct work_struct *work);
bool cancel_delayed_work(struct delayed_work *dwork);
bool cancel_delayed_work_sync(struct delayed_work *dwork);
bool flush_work(struct work_struct *work);
void flush_workqueue(struct workqueue_struct *wq);
struct workqueue_struct *alloc_workqueue(const char *fmt, unsigned int flags, int max_active, ...);
void destroy_workqueue(struct workqueue_struct *wq);
SIM_END_DECLS

#define INIT_WORK(work, fn) sim_init_work(work, fn)
#define INIT_DELAYED_WORK(dwork, fn) sim_init_delayed_work(dwork, fn)
#define work_pending(work) ((work)->pending)
#define delayed_work_pending(dwork) ((dwork)->work.pending || timer_pending(&(dwork)->timer))
#define to_delayed_work(w) container_of(w, struct delayed_work, work)

static inline bool schedule_work(struct work_struct *work)
{
	return queue_work(system_wq, work);
}

static inline bool schedule_delayed_work(struct delayed_work *dwork, unsigned long delay)
{
	return queue_delayed_work(system_wq, dwork, delay);
}

static inline void flush_scheduled_work(void)
{
	flush_workqueue(system_wq);
}

#endif
