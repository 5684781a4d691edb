// SPDX-License-Identifier: GPL-2.0
// efqsim: the simulated clock, jiffies, hrtimers and timer_lists.  One
// queue holds every armed timer, ordered by (firing time, arming sequence).

#include <cstdint>
#include <set>
#include <tuple>

#include "internal.h"

extern "C" {
#include <linux/kernel.h>
#include <linux/hrtimer.h>
#include <linux/timer.h>
#include <linux/preempt.h>
#include <linux/jiffies.h>
#include <sim/clock.h>
#include <sim/kernel.h>
}

namespace {

constexpr unsigned int HRTIMER_MAGIC = 0x48525452;    // "HRTR"
constexpr unsigned int TIMER_LIST_MAGIC = 0x544c5354; // "TLST"
enum : unsigned char { KIND_HRTIMER = 1, KIND_TIMER_LIST = 2 };

struct Key {
	s64 when;
	u64 seq;
	sim_timer_node *node;
	bool operator<(const Key &o) const { return std::tie(when, seq) < std::tie(o.when, o.seq); }
};

std::set<Key> g_queue;
u64 g_seq;
s64 g_now = SIM_CLOCK_START_NS;
const void *g_running; // the timer whose callback runs now, like the kernel's base->running
bool g_firing;

void update_jiffies()
{
	jiffies_64 = (u64)INITIAL_JIFFIES + (u64)(g_now / TICK_NSEC);
	jiffies = (unsigned long)jiffies_64;
}

void dequeue(sim_timer_node *n)
{
	if (!n->queued)
		return;
	g_queue.erase(Key{n->when, n->seq, n});
	n->queued = 0;
}

void enqueue(sim_timer_node *n, s64 when)
{
	dequeue(n);
	n->when = when;
	n->seq = ++g_seq;
	n->queued = 1;
	g_queue.insert(Key{when, n->seq, n});
}

// The clock time at which jiffies reaches @expires.
s64 jiffies_deadline(unsigned long expires)
{
	long delta = (long)(expires - jiffies);
	if (delta <= 0)
		return g_now;
	return g_now - g_now % TICK_NSEC + (s64)delta * TICK_NSEC;
}

void fire_first()
{
	Key k = *g_queue.begin();
	g_queue.erase(g_queue.begin());
	sim_timer_node *n = k.node;
	n->queued = 0;
	if (k.when > g_now) {
		g_now = k.when;
		update_jiffies();
	}
	g_firing = true;
	if (n->kind == KIND_HRTIMER) {
		hrtimer *t = container_of(n, hrtimer, node);
		bool hard = !t->is_soft;
		g_running = t;
		sim_irq_enter(hard);
		enum hrtimer_restart ret = t->function(t);
		sim_irq_exit();
		g_running = nullptr;
		// After HRTIMER_NORESTART the timer may be freed: do not touch it.
		if (ret == HRTIMER_RESTART && !t->node.queued) {
			if (t->_softexpires <= k.when)
				sim::warn(__FILE__, __LINE__,
					  "hrtimer callback returned HRTIMER_RESTART without "
					  "moving its expiry forward; not restarted");
			else
				enqueue(&t->node, t->_softexpires);
		}
	} else {
		timer_list *t = container_of(n, timer_list, node);
		g_running = t;
		sim_irq_enter(false);
		t->function(t);
		sim_irq_exit();
		g_running = nullptr;
	}
	g_firing = false;
}

bool may_run(const char *what)
{
	if (g_firing) {
		sim::lock_error("<sim>", 0, sim::format("%s called from a timer callback", what));
		return false;
	}
	return sim::require_top_level(what);
}

unsigned long advance_to(s64 target)
{
	unsigned long fired = 0;
	for (;;) {
		sim::run_deferred();
		if (g_queue.empty() || g_queue.begin()->when > target)
			break;
		fire_first();
		fired++;
	}
	if (target > g_now) {
		g_now = target;
		update_jiffies();
	}
	return fired;
}

void check_magic(const sim_timer_node *n, unsigned int magic, const char *what)
{
	if (n->magic != magic)
		sim::warn(__FILE__, __LINE__,
			  sim::format("%s on a timer that was never initialised", what));
}

} // namespace

namespace sim {

void check_timers_freed(const void *p, size_t size)
{
	auto lo = reinterpret_cast<uintptr_t>(p);
	for (auto it = g_queue.begin(); it != g_queue.end();) {
		auto n = reinterpret_cast<uintptr_t>(it->node);
		if (n >= lo && n < lo + size) {
			sim::warn(__FILE__, __LINE__,
				  sim::format("freeing memory that holds an armed %s",
					      it->node->kind == KIND_HRTIMER ? "hrtimer"
									     : "timer_list"));
			it->node->queued = 0;
			it = g_queue.erase(it);
		} else {
			++it;
		}
	}
}

void clock_reset()
{
	// Timers still armed are dropped without touching them: their memory
	// may already be gone at the end of a failed test.
	g_queue.clear();
	g_seq = 0;
	g_now = SIM_CLOCK_START_NS;
	g_running = nullptr;
	g_firing = false;
	update_jiffies();
}

} // namespace sim

extern "C" {

volatile unsigned long jiffies = (unsigned long)INITIAL_JIFFIES + SIM_CLOCK_START_NS / TICK_NSEC;
u64 jiffies_64 = (u64)INITIAL_JIFFIES + SIM_CLOCK_START_NS / TICK_NSEC;

s64 sim_clock_now(void)
{
	return g_now;
}

unsigned long sim_clock_advance(s64 ns)
{
	if (ns < 0) {
		sim::warn(__FILE__, __LINE__, "sim_clock_advance() with a negative step");
		return 0;
	}
	if (!may_run("sim_clock_advance()"))
		return 0;
	return advance_to(g_now + ns);
}

unsigned long sim_clock_set(s64 ns)
{
	if (ns < g_now) {
		sim::warn(__FILE__, __LINE__, "sim_clock_set() would move the clock backwards");
		return 0;
	}
	if (!may_run("sim_clock_set()"))
		return 0;
	return advance_to(ns);
}

bool sim_clock_next_expiry(s64 *ns)
{
	if (g_queue.empty())
		return false;
	*ns = g_queue.begin()->when;
	return true;
}

bool sim_clock_run_next(void)
{
	if (!may_run("sim_clock_run_next()"))
		return false;
	sim::run_deferred();
	if (g_queue.empty())
		return false;
	fire_first();
	sim::run_deferred();
	return true;
}

unsigned long sim_clock_pending(void)
{
	return g_queue.size();
}

void sim_clock_reset(void)
{
	sim::clock_reset();
}

/* ---- hrtimer ---- */

void hrtimer_init(struct hrtimer *timer, clockid_t /*which_clock*/, enum hrtimer_mode mode)
{
	if (timer->node.magic == HRTIMER_MAGIC && timer->node.queued) {
		sim::warn(__FILE__, __LINE__, "hrtimer_init() on an armed timer");
		dequeue(&timer->node);
	}
	*timer = hrtimer{};
	timer->node.magic = HRTIMER_MAGIC;
	timer->node.kind = KIND_HRTIMER;
	timer->is_soft = mode & HRTIMER_MODE_SOFT;
	timer->is_rel = mode & HRTIMER_MODE_REL;
}

void hrtimer_start_range_ns(struct hrtimer *timer, ktime_t tim, u64 range_ns,
			    const enum hrtimer_mode mode)
{
	check_magic(&timer->node, HRTIMER_MAGIC, "hrtimer_start()");
	if (mode & HRTIMER_MODE_REL) {
		if (__builtin_add_overflow(g_now, tim, &tim))
			tim = KTIME_MAX;
	}
	timer->_softexpires = tim;
	if (__builtin_add_overflow(tim, (s64)range_ns, &timer->_expires))
		timer->_expires = KTIME_MAX;
	enqueue(&timer->node, tim);
}

int hrtimer_try_to_cancel(struct hrtimer *timer)
{
	if (g_running == timer)
		return -1;
	if (!timer->node.queued)
		return 0;
	dequeue(&timer->node);
	return 1;
}

int hrtimer_cancel(struct hrtimer *timer)
{
	int ret = hrtimer_try_to_cancel(timer);
	if (ret < 0) {
		sim::warn(__FILE__, __LINE__,
			  "hrtimer_cancel() from the timer's own callback would deadlock");
		return 0;
	}
	return ret;
}

u64 hrtimer_forward(struct hrtimer *timer, ktime_t now, ktime_t interval)
{
	if (timer->node.queued) {
		sim::warn(__FILE__, __LINE__, "hrtimer_forward() on an armed timer");
		return 0;
	}
	s64 delta = now - timer->_expires;
	if (delta < 0)
		return 0;
	if (interval < 1)
		interval = 1;
	u64 orun = 1;
	if (delta >= interval) {
		orun = (u64)(delta / interval);
		timer->_expires += (s64)orun * interval;
		timer->_softexpires += (s64)orun * interval;
		if (timer->_expires > now)
			return orun;
		orun++;
	}
	timer->_expires += interval;
	timer->_softexpires += interval;
	return orun;
}

bool hrtimer_active(const struct hrtimer *timer)
{
	return timer->node.queued || g_running == timer;
}

bool hrtimer_callback_running(struct hrtimer *timer)
{
	return g_running == timer;
}

/* ---- timer_list ---- */

void timer_setup(struct timer_list *timer, void (*func)(struct timer_list *), unsigned int flags)
{
	if (timer->node.magic == TIMER_LIST_MAGIC && timer->node.queued) {
		sim::warn(__FILE__, __LINE__, "timer_setup() on an armed timer");
		dequeue(&timer->node);
	}
	*timer = timer_list{};
	timer->function = func;
	timer->flags = flags;
	timer->node.magic = TIMER_LIST_MAGIC;
	timer->node.kind = KIND_TIMER_LIST;
}

int mod_timer(struct timer_list *timer, unsigned long expires)
{
	check_magic(&timer->node, TIMER_LIST_MAGIC, "mod_timer()");
	int was = timer->node.queued;
	timer->expires = expires;
	enqueue(&timer->node, jiffies_deadline(expires));
	return was;
}

void add_timer(struct timer_list *timer)
{
	BUG_ON(timer_pending(timer));
	mod_timer(timer, timer->expires);
}

int timer_reduce(struct timer_list *timer, unsigned long expires)
{
	if (timer_pending(timer) && time_before_eq(timer->expires, expires))
		return 1;
	return mod_timer(timer, expires);
}

int del_timer(struct timer_list *timer)
{
	int was = timer->node.queued;
	dequeue(&timer->node);
	return was;
}

int del_timer_sync(struct timer_list *timer)
{
	if (g_running == timer)
		sim::warn(__FILE__, __LINE__,
			  "del_timer_sync() from the timer's own callback would deadlock");
	else if (in_hardirq() && !(timer->flags & TIMER_IRQSAFE))
		sim::warn(__FILE__, __LINE__, "del_timer_sync() in hardirq context");
	return del_timer(timer);
}

} // extern "C"
