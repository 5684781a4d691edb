/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: high-resolution timers on the simulated clock.  A timer
 * fires at its (soft) expiry time when the sim advances the clock
 * (<sim/clock.h>), in expiry order with ties in arming order; the callback
 * runs in hardirq context (softirq for HRTIMER_MODE_SOFT) with the clock
 * at the expiry time.  A timer armed in the past fires at the next clock
 * step, at the current time.
 *
 * Kind: kernel behaviour (6.1's hrtimer API on the simulated clock; 6.12 the same)
 * Exceptions: a timer fires exactly at its soft expiry (no slack, no timer interrupt latency)
 */
#ifndef _SIM_LINUX_HRTIMER_H
#define _SIM_LINUX_HRTIMER_H

#include <linux/types.h>
#include <linux/ktime.h>
#include <linux/sim_timer_types.h>

#ifndef CLOCK_REALTIME
#define CLOCK_REALTIME 0
#endif
#ifndef CLOCK_MONOTONIC
#define CLOCK_MONOTONIC 1
#endif
#ifndef CLOCK_BOOTTIME
#define CLOCK_BOOTTIME 7
#endif

enum hrtimer_mode {
	HRTIMER_MODE_ABS = 0x00,
	HRTIMER_MODE_REL = 0x01,
	HRTIMER_MODE_PINNED = 0x02,
	HRTIMER_MODE_SOFT = 0x04,
	HRTIMER_MODE_HARD = 0x08,
	HRTIMER_MODE_ABS_PINNED = HRTIMER_MODE_ABS | HRTIMER_MODE_PINNED,
	HRTIMER_MODE_REL_PINNED = HRTIMER_MODE_REL | HRTIMER_MODE_PINNED,
	HRTIMER_MODE_ABS_SOFT = HRTIMER_MODE_ABS | HRTIMER_MODE_SOFT,
	HRTIMER_MODE_REL_SOFT = HRTIMER_MODE_REL | HRTIMER_MODE_SOFT,
	HRTIMER_MODE_ABS_PINNED_SOFT = HRTIMER_MODE_ABS_PINNED | HRTIMER_MODE_SOFT,
	HRTIMER_MODE_REL_PINNED_SOFT = HRTIMER_MODE_REL_PINNED | HRTIMER_MODE_SOFT,
	HRTIMER_MODE_ABS_HARD = HRTIMER_MODE_ABS | HRTIMER_MODE_HARD,
	HRTIMER_MODE_REL_HARD = HRTIMER_MODE_REL | HRTIMER_MODE_HARD,
	HRTIMER_MODE_ABS_PINNED_HARD = HRTIMER_MODE_ABS_PINNED | HRTIMER_MODE_HARD,
	HRTIMER_MODE_REL_PINNED_HARD = HRTIMER_MODE_REL_PINNED | HRTIMER_MODE_HARD,
};

enum hrtimer_restart {
	HRTIMER_NORESTART,
	HRTIMER_RESTART,
};

struct hrtimer {
	struct sim_timer_node node;	/* queued at the soft expiry */
	ktime_t _expires;		/* hard expiry */
	ktime_t _softexpires;
	enum hrtimer_restart (*function)(struct hrtimer *);
	bool is_soft;
	bool is_rel;
};

SIM_BEGIN_DECLS
void hrtimer_init(struct hrtimer *timer, clockid_t which_clock, enum hrtimer_mode mode);
void hrtimer_start_range_ns(struct hrtimer *timer, ktime_t tim, u64 range_ns,
			    const enum hrtimer_mode mode);
int hrtimer_try_to_cancel(struct hrtimer *timer);
int hrtimer_cancel(struct hrtimer *timer);
u64 hrtimer_forward(struct hrtimer *timer, ktime_t now, ktime_t interval);
bool hrtimer_active(const struct hrtimer *timer);
bool hrtimer_callback_running(struct hrtimer *timer);
SIM_END_DECLS

static inline void hrtimer_start(struct hrtimer *timer, ktime_t tim, const enum hrtimer_mode mode)
{
	hrtimer_start_range_ns(timer, tim, 0, mode);
}

static inline void hrtimer_set_expires(struct hrtimer *timer, ktime_t time)
{
	timer->_expires = time;
	timer->_softexpires = time;
}

static inline void hrtimer_set_expires_range_ns(struct hrtimer *timer, ktime_t time, u64 delta)
{
	timer->_softexpires = time;
	timer->_expires = time + (s64)delta;
}

static inline void hrtimer_add_expires_ns(struct hrtimer *timer, u64 ns)
{
	timer->_expires += (s64)ns;
	timer->_softexpires += (s64)ns;
}

static inline ktime_t hrtimer_get_expires(const struct hrtimer *timer)
{
	return timer->_expires;
}

static inline ktime_t hrtimer_get_softexpires(const struct hrtimer *timer)
{
	return timer->_softexpires;
}

static inline s64 hrtimer_get_expires_ns(const struct hrtimer *timer)
{
	return timer->_expires;
}

static inline ktime_t hrtimer_expires_remaining(const struct hrtimer *timer)
{
	return timer->_expires - ktime_get();
}

static inline ktime_t hrtimer_get_remaining(const struct hrtimer *timer)
{
	return hrtimer_expires_remaining(timer);
}

static inline bool hrtimer_is_queued(struct hrtimer *timer)
{
	return timer->node.queued;
}

static inline void hrtimer_start_expires(struct hrtimer *timer, enum hrtimer_mode mode)
{
	hrtimer_start_range_ns(timer, timer->_softexpires,
			       (u64)(timer->_expires - timer->_softexpires), mode);
}

static inline void hrtimer_restart(struct hrtimer *timer)
{
	hrtimer_start_expires(timer, HRTIMER_MODE_ABS);
}

static inline u64 hrtimer_forward_now(struct hrtimer *timer, ktime_t interval)
{
	return hrtimer_forward(timer, ktime_get(), interval);
}

#endif
