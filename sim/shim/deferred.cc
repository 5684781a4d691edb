// SPDX-License-Identifier: GPL-2.0
// efqsim: deferred execution -- call_rcu()/kfree_rcu() callbacks (run in
// softirq context) and work items (run in task context as the kworker).
// Both run only at safe points: sim_quiesce(), synchronize_rcu(),
// rcu_barrier(), flush_work()/flush_workqueue() and each clock step.
//
// Kind: kernel behaviour (call_rcu(), kfree_rcu(), synchronize_rcu(), work item semantics)
// Exceptions: when they run (the sim's safe points) is the sim's (simulation)

#include <deque>
#include <string>

#include "internal.h"

extern "C" {
#include <linux/kernel.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <linux/sched.h>
#include <sim/kernel.h>
}

namespace {

struct RcuItem {
	rcu_head *head;
	rcu_callback_t func;
	const void *kfree_ptr;
};

std::deque<RcuItem> g_rcu;
std::deque<work_struct *> g_work;
int g_depth;

void run_rcu_batch()
{
	std::deque<RcuItem> batch = std::move(g_rcu);
	g_rcu.clear();
	for (const RcuItem &it : batch) {
		sim_irq_enter(false);
		if (it.func)
			it.func(it.head);
		else
			kfree(it.kfree_ptr);
		sim_irq_exit();
	}
}

void run_work_batch()
{
	std::deque<work_struct *> batch = std::move(g_work);
	g_work.clear();
	task_struct *saved = current;
	std::string comm = saved->comm;
	for (work_struct *w : batch) {
		w->pending = false;
		list_del_init(&w->entry);
		sim_set_current(SIM_KWORKER_PID, "kworker/0:1");
		w->func(w);
		sim_set_current(saved->pid, comm.c_str());
	}
}

void delayed_work_timer_fn(struct timer_list *t)
{
	struct delayed_work *dwork = from_timer(dwork, t, timer);
	g_work.push_back(&dwork->work);
}

} // namespace

struct workqueue_struct {
	std::string name;
};

namespace sim {

void run_deferred()
{
	if (g_depth > 8) {
		warn("<sim>", 0, "deferred work nests too deep");
		return;
	}
	g_depth++;
	while (!g_rcu.empty() || !g_work.empty()) {
		run_rcu_batch();
		run_work_batch();
	}
	g_depth--;
}

void rcu_reset()
{
	g_rcu.clear();
	g_depth = 0;
}

void work_reset()
{
	g_work.clear();
}

} // namespace sim

extern "C" {

static struct workqueue_struct g_system_wq {
	{
		"events"
	}
};
static struct workqueue_struct g_system_unbound_wq {
	{
		"events_unbound"
	}
};
struct workqueue_struct *system_wq = &g_system_wq;
struct workqueue_struct *system_unbound_wq = &g_system_unbound_wq;

void call_rcu(struct rcu_head *head, rcu_callback_t func)
{
	g_rcu.push_back({head, func, nullptr});
}

void sim_kfree_rcu(const void *ptr)
{
	if (ptr)
		g_rcu.push_back({nullptr, nullptr, ptr});
}

void synchronize_rcu(void)
{
	might_sleep();
	if (sim::require_top_level("synchronize_rcu()"))
		sim::run_deferred();
}

void rcu_barrier(void)
{
	synchronize_rcu();
}

void sim_init_work(struct work_struct *work, work_func_t func)
{
	INIT_LIST_HEAD(&work->entry);
	work->func = func;
	work->pending = false;
}

void sim_init_delayed_work(struct delayed_work *dwork, work_func_t func)
{
	sim_init_work(&dwork->work, func);
	timer_setup(&dwork->timer, delayed_work_timer_fn, 0);
}

bool queue_work(struct workqueue_struct * /*wq*/, struct work_struct *work)
{
	if (work->pending)
		return false;
	work->pending = true;
	g_work.push_back(work);
	return true;
}

bool queue_delayed_work(struct workqueue_struct *wq, struct delayed_work *dwork,
			unsigned long delay)
{
	if (dwork->work.pending)
		return false;
	if (!delay)
		return queue_work(wq, &dwork->work);
	dwork->work.pending = true;
	mod_timer(&dwork->timer, jiffies + delay);
	return true;
}

static bool unqueue_work(struct work_struct *work)
{
	bool was = work->pending;
	for (auto it = g_work.begin(); it != g_work.end(); ++it) {
		if (*it == work) {
			g_work.erase(it);
			break;
		}
	}
	work->pending = false;
	return was;
}

bool cancel_work_sync(struct work_struct *work)
{
	return unqueue_work(work);
}

bool cancel_delayed_work(struct delayed_work *dwork)
{
	del_timer(&dwork->timer);
	return unqueue_work(&dwork->work);
}

bool cancel_delayed_work_sync(struct delayed_work *dwork)
{
	return cancel_delayed_work(dwork);
}

bool mod_delayed_work(struct workqueue_struct *wq, struct delayed_work *dwork, unsigned long delay)
{
	bool was = cancel_delayed_work(dwork);
	queue_delayed_work(wq, dwork, delay);
	return was;
}

bool flush_work(struct work_struct *work)
{
	bool was = work->pending;
	might_sleep();
	if (sim::require_top_level("flush_work()"))
		sim::run_deferred();
	return was;
}

void flush_workqueue(struct workqueue_struct * /*wq*/)
{
	might_sleep();
	if (sim::require_top_level("flush_workqueue()"))
		sim::run_deferred();
}

struct workqueue_struct *alloc_workqueue(const char *fmt, unsigned int /*flags*/,
					 int /*max_active*/, ...)
{
	return new workqueue_struct{fmt};
}

void destroy_workqueue(struct workqueue_struct *wq)
{
	flush_workqueue(wq);
	delete wq;
}

} // extern "C"
