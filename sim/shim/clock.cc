// SPDX-License-Identifier: GPL-2.0
// efqsim: the simulated clock, jiffies, hrtimers and timer_lists, on the
// simulation's one event queue (sim/events.h), which lives here: an armed
// timer is an event of Tier::timer, ordered by (firing time, arming
// sequence) among the timers.
//
// Kind: simulation (the simulated clock and the event queue)
// Exceptions: hrtimer, timer_list and jiffies follow the kernel's semantics (kernel behaviour)

#include <cstdint>
#include <functional>
#include <iterator>

#include "internal.h"
#include "sim/events.h"

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

const void *g_running; // the timer whose callback runs now, like the kernel's base->running
bool g_firing;

void update_jiffies(s64 now)
{
	jiffies_64 = (u64)INITIAL_JIFFIES + (u64)(now / TICK_NSEC);
	jiffies = (unsigned long)jiffies_64;
}

s64 now_ns()
{
	return sim::events().now();
}

void fire(sim_timer_node *n);

void dequeue(sim_timer_node *n)
{
	if (!n->queued)
		return;
	sim::events().cancel(sim::EventId{n->when, n->seq, sim::Tier::timer});
	n->queued = 0;
}

void enqueue(sim_timer_node *n, s64 when)
{
	dequeue(n);
	sim::EventId id = sim::events().schedule(
		when, sim::Tier::timer, [n] { fire(n); }, nullptr, n);
	n->when = when;
	n->seq = id.seq;
	n->queued = 1;
}

// The clock time at which jiffies reaches @expires.
s64 jiffies_deadline(unsigned long expires)
{
	s64 now = now_ns();
	long delta = (long)(expires - jiffies);
	if (delta <= 0)
		return now;
	return now - now % TICK_NSEC + (s64)delta * TICK_NSEC;
}

// The timer's event: the queue has taken it off and moved the clock to its
// expiry (if that was ahead).
void fire(sim_timer_node *n)
{
	const s64 when = n->when;
	n->queued = 0;
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
			if (t->_softexpires <= when)
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

void check_magic(const sim_timer_node *n, unsigned int magic, const char *what)
{
	if (n->magic != magic)
		sim::warn(__FILE__, __LINE__,
			  sim::format("%s on a timer that was never initialised", what));
}

} // namespace

namespace sim {

EventClient::~EventClient()
{
	if (pending_)
		events().cancel_all(this);
}

EventQueue &events()
{
	static EventQueue q(SIM_CLOCK_START_NS);
	return q;
}

EventId EventQueue::schedule(int64_t when, Tier tier, std::function<void()> fn, EventClient *client,
			     const void *object)
{
	Key k{when, tier, ++seq_};
	events_.emplace(k, Event{std::move(fn), client, object});
	per_tier_[static_cast<int>(tier)]++;
	if (client)
		client->pending_++;
	return EventId{when, k.seq, tier};
}

EventQueue::Event EventQueue::take(std::map<Key, Event>::iterator it)
{
	Event e = std::move(it->second);
	per_tier_[static_cast<int>(it->first.tier)]--;
	if (e.client)
		e.client->pending_--;
	events_.erase(it);
	return e;
}

bool EventQueue::cancel(const EventId &id)
{
	if (!id.valid())
		return false;
	auto it = events_.find(Key{id.when, id.tier, id.seq});
	if (it == events_.end())
		return false;
	take(it);
	return true;
}

bool EventQueue::pending(const EventId &id) const
{
	return id.valid() && events_.count(Key{id.when, id.tier, id.seq});
}

int64_t EventQueue::first(Tier tier) const
{
	if (!count(tier))
		return kNever;
	for (const auto &[k, e] : events_)
		if (k.tier == tier)
			return k.when;
	return kNever;
}

int64_t EventQueue::next_time() const
{
	if (events_.empty())
		return kNever;
	const int64_t when = events_.begin()->first.when;
	return when > now_ ? when : now_;
}

void EventQueue::set_now(int64_t t)
{
	if (t > now_) {
		now_ = t;
		update_jiffies(t);
	}
}

bool EventQueue::run_next(int64_t limit, const char *what)
{
	if (events_.empty() || next_time() > limit || !may_run(what))
		return false;
	// The kernel's deferred work runs at the safe points: before the clock
	// moves and around a timer.  It may arm or cancel timers, and so
	// change what comes next.
	if (events_.begin()->first.tier == Tier::timer || next_time() > now_) {
		run_deferred();
		if (events_.empty())
			return false;
		if (next_time() > limit)
			return true;
	}
	auto it = events_.begin();
	const Tier tier = it->first.tier;
	set_now(it->first.when);
	Event e = take(it);
	e.fn();
	if (tier == Tier::timer)
		run_deferred();
	return true;
}

unsigned long EventQueue::run_until(int64_t t, const char *what)
{
	if (!may_run(what))
		return 0;
	unsigned long ran = 0;
	for (;;) {
		run_deferred();
		if (events_.empty() || events_.begin()->first.when > t)
			break;
		auto it = events_.begin();
		set_now(it->first.when);
		Event e = take(it);
		e.fn();
		ran++;
	}
	set_now(t);
	return ran;
}

void EventQueue::remove_within(const void *p, size_t size, Tier tier,
			       const std::function<void(const void *object)> &fn)
{
	auto lo = reinterpret_cast<uintptr_t>(p);
	for (auto it = events_.begin(); it != events_.end();) {
		auto o = reinterpret_cast<uintptr_t>(it->second.object);
		if (it->first.tier == tier && o >= lo && o < lo + size) {
			const void *object = it->second.object;
			auto next = std::next(it);
			take(it);
			fn(object);
			it = next;
		} else {
			++it;
		}
	}
}

void EventQueue::cancel_all(EventClient *client)
{
	for (auto it = events_.begin(); it != events_.end() && client->pending_;) {
		if (it->second.client == client)
			take(it++);
		else
			++it;
	}
}

void EventQueue::reset(int64_t now)
{
	// Nothing of the events is touched but their clients' counts: a
	// timer's memory may already be gone at the end of a failed test.
	for (auto &[k, e] : events_)
		if (e.client)
			e.client->pending_--;
	events_.clear();
	for (size_t &n : per_tier_)
		n = 0;
	now_ = now;
	update_jiffies(now);
}

void check_timers_freed(const void *p, size_t size)
{
	events().remove_within(p, size, Tier::timer, [](const void *object) {
		auto *n = static_cast<sim_timer_node *>(const_cast<void *>(object));
		sim::warn(__FILE__, __LINE__,
			  sim::format("freeing memory that holds an armed %s",
				      n->kind == KIND_HRTIMER ? "hrtimer" : "timer_list"));
		n->queued = 0;
	});
}

void clock_reset()
{
	// Timers still armed are dropped without touching them: their memory
	// may already be gone at the end of a failed test.
	events().reset(SIM_CLOCK_START_NS);
	g_running = nullptr;
	g_firing = false;
}

} // namespace sim

extern "C" {

volatile unsigned long jiffies = (unsigned long)INITIAL_JIFFIES + SIM_CLOCK_START_NS / TICK_NSEC;
u64 jiffies_64 = (u64)INITIAL_JIFFIES + SIM_CLOCK_START_NS / TICK_NSEC;

s64 sim_clock_now(void)
{
	return now_ns();
}

unsigned long sim_clock_advance(s64 ns)
{
	if (ns < 0) {
		sim::warn(__FILE__, __LINE__, "sim_clock_advance() with a negative step");
		return 0;
	}
	return sim::events().run_until(now_ns() + ns, "sim_clock_advance()");
}

unsigned long sim_clock_set(s64 ns)
{
	if (ns < now_ns()) {
		sim::warn(__FILE__, __LINE__, "sim_clock_set() would move the clock backwards");
		return 0;
	}
	return sim::events().run_until(ns, "sim_clock_set()");
}

bool sim_clock_next_expiry(s64 *ns)
{
	if (!sim::events().count(sim::Tier::timer))
		return false;
	*ns = sim::events().first(sim::Tier::timer);
	return true;
}

bool sim_clock_run_next(void)
{
	sim::EventQueue &q = sim::events();
	if (q.empty()) {
		// still a safe point
		if (may_run("sim_clock_run_next()"))
			sim::run_deferred();
		return false;
	}
	return q.run_next(sim::EventQueue::kNever, "sim_clock_run_next()");
}

unsigned long sim_clock_pending(void)
{
	return sim::events().count(sim::Tier::timer);
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
		if (__builtin_add_overflow(now_ns(), tim, &tim))
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
