// SPDX-License-Identifier: GPL-2.0
// The simulated clock: hrtimer and timer_list ordering, cancel, restart,
// the context callbacks run in, and the event-loop API.

#include <sim/gtest_guard.h>

#include <string>
#include <vector>

extern "C" {
#include <linux/hrtimer.h>
#include <linux/timer.h>
#include <linux/jiffies.h>
#include <linux/preempt.h>
#include <linux/irqflags.h>
#include <linux/sched.h>
#include <linux/slab.h>
}

namespace {

struct Probe {
	struct hrtimer timer;
	struct timer_list tl;
	std::string name;
	std::vector<std::string> *log;
	s64 fired_at = -1;
	bool hardirq = false, softirq = false, irqs_off = false, task = true;
	int restarts = 0;
	s64 period = 0;
};

void note(Probe *p)
{
	p->fired_at = ktime_get();
	p->hardirq = in_hardirq();
	p->softirq = in_serving_softirq();
	p->irqs_off = irqs_disabled();
	p->task = in_task();
	p->log->push_back(p->name);
}

enum hrtimer_restart probe_fn(struct hrtimer *t)
{
	Probe *p = container_of(t, Probe, timer);
	note(p);
	if (p->restarts > 0) {
		p->restarts--;
		hrtimer_forward_now(t, p->period);
		return HRTIMER_RESTART;
	}
	return HRTIMER_NORESTART;
}

void probe_tl_fn(struct timer_list *t)
{
	Probe *p = from_timer(p, t, tl);
	note(p);
}

class ClockTest : public SimTest {
protected:
	std::vector<std::string> log;
	Probe make(const char *name)
	{
		Probe p;
		p.name = name;
		p.log = &log;
		hrtimer_init(&p.timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
		p.timer.function = probe_fn;
		return p;
	}
};

TEST_F(ClockTest, StartsAtOneSecond)
{
	EXPECT_EQ(sim_clock_now(), SIM_CLOCK_START_NS);
	s64 ns;
	EXPECT_FALSE(sim_clock_next_expiry(&ns));
	EXPECT_FALSE(sim_clock_run_next());
	EXPECT_EQ(sim_clock_advance(1000), 0u);
	EXPECT_EQ(sim_clock_now(), SIM_CLOCK_START_NS + 1000);
}

TEST_F(ClockTest, FiresInExpiryOrderTiesInArmingOrder)
{
	Probe a = make("a"), b = make("b"), c = make("c"), d = make("d");
	hrtimer_start(&a.timer, 300, HRTIMER_MODE_REL);
	hrtimer_start(&b.timer, 100, HRTIMER_MODE_REL);
	hrtimer_start(&c.timer, 300, HRTIMER_MODE_REL);
	hrtimer_start(&d.timer, SIM_CLOCK_START_NS + 200, HRTIMER_MODE_ABS);
	EXPECT_EQ(sim_clock_pending(), 4u);
	s64 next;
	ASSERT_TRUE(sim_clock_next_expiry(&next));
	EXPECT_EQ(next, SIM_CLOCK_START_NS + 100);

	EXPECT_EQ(sim_clock_advance(250), 2u);
	EXPECT_EQ(log, (std::vector<std::string>{"b", "d"}));
	EXPECT_EQ(b.fired_at, SIM_CLOCK_START_NS + 100); // the clock is at the expiry
	EXPECT_EQ(d.fired_at, SIM_CLOCK_START_NS + 200);
	EXPECT_EQ(sim_clock_now(), SIM_CLOCK_START_NS + 250);

	EXPECT_EQ(sim_clock_advance(1000), 2u);
	EXPECT_EQ(log, (std::vector<std::string>{"b", "d", "a", "c"}));
	EXPECT_EQ(a.fired_at, c.fired_at);
	EXPECT_FALSE(hrtimer_active(&a.timer));
}

TEST_F(ClockTest, HrtimerCallbackRunsInHardirq)
{
	Probe a = make("a");
	hrtimer_start(&a.timer, ms_to_ktime(1), HRTIMER_MODE_REL);
	EXPECT_TRUE(in_task());
	sim_clock_advance(ms_to_ktime(2));
	EXPECT_TRUE(a.hardirq);
	EXPECT_TRUE(a.irqs_off);
	EXPECT_FALSE(a.task);
	EXPECT_TRUE(in_task()); // back in task context afterwards
	EXPECT_FALSE(irqs_disabled());
}

TEST_F(ClockTest, SoftHrtimerRunsInSoftirq)
{
	Probe a;
	a.name = "soft";
	a.log = &log;
	hrtimer_init(&a.timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_SOFT);
	a.timer.function = probe_fn;
	hrtimer_start(&a.timer, 10, HRTIMER_MODE_REL_SOFT);
	sim_clock_advance(10);
	EXPECT_TRUE(a.softirq);
	EXPECT_FALSE(a.hardirq);
	EXPECT_FALSE(a.irqs_off);
}

TEST_F(ClockTest, CancelAndRestart)
{
	Probe a = make("a"), b = make("b");
	hrtimer_start(&a.timer, 100, HRTIMER_MODE_REL);
	hrtimer_start(&b.timer, 100, HRTIMER_MODE_REL);
	EXPECT_TRUE(hrtimer_is_queued(&a.timer));
	EXPECT_EQ(hrtimer_get_remaining(&a.timer), 100);
	EXPECT_EQ(hrtimer_cancel(&a.timer), 1);
	EXPECT_EQ(hrtimer_cancel(&a.timer), 0);
	EXPECT_EQ(hrtimer_try_to_cancel(&a.timer), 0);
	// Restarting an armed timer moves it (and behind equal expiries).
	hrtimer_start(&b.timer, 50, HRTIMER_MODE_REL);
	sim_clock_advance(60);
	EXPECT_EQ(log, (std::vector<std::string>{"b"}));
	sim_clock_advance(100);
	EXPECT_EQ(log, (std::vector<std::string>{"b"}));
}

TEST_F(ClockTest, PeriodicRestartWithForward)
{
	Probe a = make("a");
	a.restarts = 3;
	a.period = 1000;
	hrtimer_start(&a.timer, 1000, HRTIMER_MODE_REL);
	EXPECT_EQ(sim_clock_advance(10000), 4u);
	EXPECT_EQ(log.size(), 4u);
	EXPECT_EQ(a.fired_at, SIM_CLOCK_START_NS + 4000);
}

TEST_F(ClockTest, ForwardCountsOverruns)
{
	Probe a = make("a");
	hrtimer_set_expires(&a.timer, ktime_get() - 2500);
	EXPECT_EQ(hrtimer_forward_now(&a.timer, 1000), 3u);
	EXPECT_EQ(hrtimer_get_expires(&a.timer), ktime_get() + 500);
	EXPECT_EQ(hrtimer_forward_now(&a.timer, 1000), 0u); // already in the future
}

enum hrtimer_restart cancel_self(struct hrtimer *t)
{
	EXPECT_TRUE(hrtimer_active(t));
	EXPECT_TRUE(hrtimer_callback_running(t));
	EXPECT_EQ(hrtimer_try_to_cancel(t), -1);
	hrtimer_cancel(t); // would deadlock in the kernel: a WARN here
	return HRTIMER_NORESTART;
}

TEST_F(ClockTest, CancelFromOwnCallbackWarns)
{
	struct hrtimer t;
	hrtimer_init(&t, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	t.function = cancel_self;
	hrtimer_start(&t, 1, HRTIMER_MODE_REL);
	sim_clock_advance(1);
	ExpectWarnings(1);
}

TEST_F(ClockTest, PastExpiryFiresAtNextStepAtCurrentTime)
{
	Probe a = make("a");
	sim_clock_advance(500);
	hrtimer_start(&a.timer, SIM_CLOCK_START_NS, HRTIMER_MODE_ABS);
	EXPECT_TRUE(sim_clock_run_next());
	EXPECT_EQ(a.fired_at, SIM_CLOCK_START_NS + 500);
}

TEST_F(ClockTest, RunNextMovesTheClock)
{
	Probe a = make("a"), b = make("b");
	hrtimer_start(&a.timer, 70, HRTIMER_MODE_REL);
	hrtimer_start(&b.timer, 30, HRTIMER_MODE_REL);
	EXPECT_TRUE(sim_clock_run_next());
	EXPECT_EQ(sim_clock_now(), SIM_CLOCK_START_NS + 30);
	EXPECT_TRUE(sim_clock_run_next());
	EXPECT_EQ(sim_clock_now(), SIM_CLOCK_START_NS + 70);
	EXPECT_FALSE(sim_clock_run_next());
	EXPECT_EQ(log, (std::vector<std::string>{"b", "a"}));
}

TEST_F(ClockTest, ClockNeverGoesBack)
{
	sim_clock_advance(100);
	sim_clock_set(SIM_CLOCK_START_NS);
	EXPECT_EQ(sim_clock_now(), SIM_CLOCK_START_NS + 100);
	ExpectWarnings(1);
}

TEST_F(ClockTest, TimerListFiresAtTickInSoftirq)
{
	Probe p;
	p.name = "tl";
	p.log = &log;
	timer_setup(&p.tl, probe_tl_fn, 0);
	EXPECT_FALSE(timer_pending(&p.tl));
	EXPECT_EQ(mod_timer(&p.tl, jiffies + 2), 0);
	EXPECT_TRUE(timer_pending(&p.tl));
	EXPECT_EQ(mod_timer(&p.tl, jiffies + 3), 1);
	sim_clock_advance(2 * TICK_NSEC);
	EXPECT_TRUE(log.empty());
	sim_clock_advance(TICK_NSEC);
	ASSERT_EQ(log.size(), 1u);
	EXPECT_EQ(p.fired_at, SIM_CLOCK_START_NS + 3 * TICK_NSEC);
	EXPECT_TRUE(p.softirq);
	EXPECT_FALSE(p.hardirq);
	EXPECT_FALSE(timer_pending(&p.tl));

	mod_timer(&p.tl, jiffies + 1);
	EXPECT_EQ(del_timer(&p.tl), 1);
	EXPECT_EQ(del_timer_sync(&p.tl), 0);
	sim_clock_advance(10 * TICK_NSEC);
	EXPECT_EQ(log.size(), 1u);
}

TEST_F(ClockTest, TimerListAndHrtimerShareOneQueue)
{
	Probe h = make("h");
	Probe t;
	t.name = "t";
	t.log = &log;
	timer_setup(&t.tl, probe_tl_fn, 0);
	mod_timer(&t.tl, jiffies + 1);				      // at +4 ms
	hrtimer_start(&h.timer, 3 * NSEC_PER_MSEC, HRTIMER_MODE_REL); // at +3 ms
	sim_clock_advance(10 * NSEC_PER_MSEC);
	EXPECT_EQ(log, (std::vector<std::string>{"h", "t"}));
}

struct Rearm {
	struct hrtimer timer;
	int fired = 0;
};

enum hrtimer_restart rearm_fn(struct hrtimer *t)
{
	Rearm *r = container_of(t, Rearm, timer);
	if (++r->fired < 3)
		hrtimer_start(t, 10, HRTIMER_MODE_REL); // re-arm from the callback
	return HRTIMER_NORESTART;
}

TEST_F(ClockTest, StartFromCallbackRearms)
{
	Rearm r;
	hrtimer_init(&r.timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	r.timer.function = rearm_fn;
	hrtimer_start(&r.timer, 10, HRTIMER_MODE_REL);
	sim_clock_advance(100);
	EXPECT_EQ(r.fired, 3);
}

struct Freer {
	struct hrtimer timer;
};

enum hrtimer_restart free_self(struct hrtimer *t)
{
	kfree(container_of(t, Freer, timer));
	return HRTIMER_NORESTART; // the clock must not touch the timer now
}

TEST_F(ClockTest, CallbackMayFreeItsTimer)
{
	Freer *f = static_cast<Freer *>(kzalloc(sizeof(*f), GFP_KERNEL));
	hrtimer_init(&f->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	f->timer.function = free_self;
	hrtimer_start(&f->timer, 5, HRTIMER_MODE_REL);
	sim_clock_advance(5);
	EXPECT_EQ(sim_slab_live(), live_at_start_);
}

TEST_F(ClockTest, FreeingAnArmedTimerWarnsAndDisarms)
{
	Freer *f = static_cast<Freer *>(kzalloc(sizeof(*f), GFP_KERNEL));
	hrtimer_init(&f->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	f->timer.function = free_self;
	hrtimer_start(&f->timer, 5, HRTIMER_MODE_REL);
	kfree(f);
	ExpectWarnings(1);
	EXPECT_EQ(sim_clock_pending(), 0u);
	sim_clock_advance(10); // nothing fires: no use after free
}

TEST_F(ClockTest, StartOfUninitialisedTimerWarns)
{
	struct hrtimer t = {};
	t.function = probe_fn;
	hrtimer_start(&t, 5, HRTIMER_MODE_REL);
	hrtimer_cancel(&t);
	ExpectWarnings(1);
}

} // namespace
