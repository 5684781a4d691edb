// SPDX-License-Identifier: GPL-2.0
// efqsim: the simulation's one event queue and clock (C++ only).
//
// Everything that happens at a simulated time is an event on this queue,
// in the shape of ns-3's Simulator: Schedule(), Cancel(), Now(),
// ProcessOneEvent().  Its clients: the shim's kernel timers (hrtimers,
// timer_lists and so delayed work, sim/shim/clock.cc), and the block layer
// model (sim/blk), which puts its own events and its device's next event
// on it.  The C API of <sim/clock.h> is this queue seen from kernel code.
//
// Order: by time, then by tier, then by scheduling order.  A timer armed
// for a time already past fires as soon as possible, before anything due
// now.  The kernel's deferred work (RCU callbacks and work items, which
// only run at safe points) runs before the clock moves, and before and
// after each timer.
//
// Kind: simulation
#pragma once

#ifndef __cplusplus
#error "sim/events.h is C++"
#endif

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>

namespace sim {

// Among events due at the same time, what runs first: kernel timers, then
// the device's completions, then the block layer model's own events.
enum class Tier : unsigned char { timer = 0, device = 1, model = 2 };

// One scheduled event, to cancel it: its time, tier and sequence number.
// A default one is no event.
struct EventId {
	int64_t when = 0;
	uint64_t seq = 0; // 0: none
	Tier tier = Tier::model;
	bool valid() const { return seq != 0; }
};

class EventQueue;

// Something that schedules events: the queue counts those still pending,
// and cancels them when the client goes.
class EventClient {
public:
	EventClient() = default;
	EventClient(const EventClient &) = delete;
	EventClient &operator=(const EventClient &) = delete;
	// Its events still pending on the queue.
	size_t pending_events() const { return pending_; }

protected:
	~EventClient();

private:
	friend class EventQueue;
	size_t pending_ = 0;
};

class EventQueue {
public:
	explicit EventQueue(int64_t now) : now_(now) {}

	static constexpr int64_t kNever = std::numeric_limits<int64_t>::max();

	// The clock, in ns: the time of the event running now, or of the last
	// one, or the time the clock was set to.
	int64_t now() const { return now_; }
	// Run @fn at @when (in the past: as soon as possible, in its place by
	// time).  @client (may be null) counts it as its own; @object is what
	// the event belongs to, for remove_within().
	EventId schedule(int64_t when, Tier tier, std::function<void()> fn,
			 EventClient *client = nullptr, const void *object = nullptr);
	// Forget the event if it is still pending; true if it was.
	bool cancel(const EventId &id);
	bool pending(const EventId &id) const;
	bool empty() const { return events_.empty(); }
	size_t size() const { return events_.size(); }
	// Events of tier @tier pending.
	size_t count(Tier tier) const { return per_tier_[static_cast<int>(tier)]; }
	// The earliest time among the events of @tier, or kNever.
	int64_t first(Tier tier) const;
	// When the next event runs: its time, but never before now(); kNever
	// if the queue is empty.
	int64_t next_time() const;

	// Run the next event if it is due at or before @limit (the clock moves
	// to its time); false if there is none.  Deferred work runs first if
	// the clock moves or the event is a timer, and after a timer.
	// @what names the caller in the error reported when it runs in a
	// context that must not run events (a timer callback, a lock held).
	bool run_next(int64_t limit = kNever, const char *what = "EventQueue::run_next()");
	// Run every event due at or before @t, then set the clock to @t (not
	// back); returns the number run.
	unsigned long run_until(int64_t t, const char *what = "EventQueue::run_until()");

	// Pending events of @tier whose object lies in [p, p + size): each is
	// passed to @fn, then removed.  For memory being freed.
	void remove_within(const void *p, size_t size, Tier tier,
			   const std::function<void(const void *object)> &fn);
	// Drop every event (their clients no longer count them) and put the
	// clock at @now.
	void reset(int64_t now);
	// Cancel every pending event of @client.
	void cancel_all(EventClient *client);

private:
	struct Key {
		int64_t when;
		Tier tier;
		uint64_t seq;
		bool operator<(const Key &o) const
		{
			if (when != o.when)
				return when < o.when;
			if (tier != o.tier)
				return tier < o.tier;
			return seq < o.seq;
		}
	};
	struct Event {
		std::function<void()> fn;
		EventClient *client;
		const void *object;
	};
	void set_now(int64_t t);
	Event take(std::map<Key, Event>::iterator it);

	std::map<Key, Event> events_;
	size_t per_tier_[3] = {};
	uint64_t seq_ = 0; // never reset: an old EventId never names a new event
	int64_t now_;
};

// The simulation's queue; its clock is sim_clock_now().
EventQueue &events();

} // namespace sim
