// SPDX-License-Identifier: GPL-2.0
// The lock checker: each misuse is a lock error (counted, and a WARN);
// correct use in task and interrupt context is silent.

#include <sim/gtest_guard.h>

#include <string>

extern "C" {
#include <linux/spinlock.h>
#include <linux/mutex.h>
#include <linux/lockdep.h>
#include <linux/hrtimer.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/kernel.h>
}

namespace {

class LockTest : public SimTest {};

TEST_F(LockTest, CorrectUseIsSilent)
{
	DEFINE_SPINLOCK(a);
	spinlock_t b;
	spin_lock_init(&b);
	unsigned long flags;

	spin_lock(&a);
	lockdep_assert_held(&a);
	assert_spin_locked(&a);
	EXPECT_TRUE(spin_is_locked(&a));
	spin_unlock(&a);
	lockdep_assert_not_held(&a);

	spin_lock_irq(&a);
	EXPECT_TRUE(irqs_disabled());
	lockdep_assert_irqs_disabled();
	spin_lock_irqsave(&b, flags);
	spin_unlock_irqrestore(&b, flags);
	EXPECT_TRUE(irqs_disabled()); // restored to "disabled"
	spin_unlock_irq(&a);
	EXPECT_FALSE(irqs_disabled());

	EXPECT_TRUE(spin_trylock(&a));
	EXPECT_FALSE(spin_trylock(&a)); // held: fails, no error
	spin_unlock(&a);
	EXPECT_EQ(sim_lock_errors(), 0u);
}

TEST_F(LockTest, DoubleLockByHolder)
{
	DEFINE_SPINLOCK(a);
	spin_lock(&a);
	spin_lock(&a);
	EXPECT_NE(std::string(sim_lock_error_last()).find("recursive"), std::string::npos);
	ExpectLockErrors(1);
	spin_unlock(&a);
}

TEST_F(LockTest, UnlockOfUnheldLock)
{
	DEFINE_SPINLOCK(a);
	spin_unlock(&a);
	EXPECT_NE(std::string(sim_lock_error_last()).find("not held"), std::string::npos);
	ExpectLockErrors(1);
}

TEST_F(LockTest, UnlockByNonOwner)
{
	DEFINE_SPINLOCK(a);
	spin_lock(&a);
	sim_set_current(42, "other"); // switching tasks while atomic is itself an error
	spin_unlock(&a);
	EXPECT_NE(std::string(sim_lock_error_last()).find("held by task 1"), std::string::npos);
	ExpectLockErrors(2);
}

TEST_F(LockTest, AssertHeldOnUnheldLock)
{
	DEFINE_SPINLOCK(a);
	lockdep_assert_held(&a);
	EXPECT_NE(std::string(sim_lock_error_last()).find("lockdep_assert_held(&a)"),
		  std::string::npos);
	EXPECT_NE(std::string(sim_lock_error_last()).find("lock_test.cc:"), std::string::npos);
	ExpectLockErrors(1);
}

TEST_F(LockTest, AssertHeldWhenAnotherContextHolds)
{
	DEFINE_SPINLOCK(a);
	sim_set_current(7, "holder");
	spin_lock(&a);
	spin_unlock(&a);
	spin_lock(&a);
	sim_irq_enter(true);
	lockdep_assert_held(&a); // held, but not by the interrupt
	sim_irq_exit();
	spin_unlock(&a);
	ExpectLockErrors(1);
}

TEST_F(LockTest, AssertIrqsDisabled)
{
	lockdep_assert_irqs_disabled();
	ExpectLockErrors(1);
	unsigned long flags;
	local_irq_save(flags);
	lockdep_assert_irqs_disabled();
	local_irq_restore(flags);
	EXPECT_EQ(sim_lock_errors(), 0u);
}

struct Shared {
	spinlock_t lock;
	struct hrtimer timer;
};

enum hrtimer_restart take_lock(struct hrtimer *t)
{
	Shared *s = container_of(t, Shared, timer);
	unsigned long flags;
	spin_lock_irqsave(&s->lock, flags);
	spin_unlock_irqrestore(&s->lock, flags);
	return HRTIMER_NORESTART;
}

TEST_F(LockTest, LockTakenInIrqAndWithIrqsOnIsInconsistent)
{
	Shared s;
	spin_lock_init(&s.lock);
	hrtimer_init(&s.timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	s.timer.function = take_lock;

	// Task context with interrupts off, then the timer: fine.
	spin_lock_irq(&s.lock);
	spin_unlock_irq(&s.lock);
	hrtimer_start(&s.timer, 10, HRTIMER_MODE_REL);
	sim_clock_advance(10);
	EXPECT_EQ(sim_lock_errors(), 0u);

	// Now with interrupts on: the timer could deadlock against it.
	spin_lock(&s.lock);
	spin_unlock(&s.lock);
	EXPECT_NE(std::string(sim_lock_error_last()).find("inconsistent"), std::string::npos);
	ExpectLockErrors(1);
}

TEST_F(LockTest, SleepingInAtomicContext)
{
	DEFINE_SPINLOCK(a);
	spin_lock(&a);
	void *p = kmalloc(16, GFP_KERNEL); // may sleep: an error under a spinlock
	void *q = kmalloc(16, GFP_NOWAIT); // fine
	spin_unlock(&a);
	ExpectLockErrors(1);
	kfree(p);
	kfree(q);

	rcu_read_lock();
	might_sleep();
	rcu_read_unlock();
	ExpectLockErrors(1);

	sim_irq_enter(false);
	might_sleep();
	sim_irq_exit();
	ExpectLockErrors(1);
}

TEST_F(LockTest, InterruptReturningWithLockHeld)
{
	DEFINE_SPINLOCK(a);
	sim_irq_enter(true);
	spin_lock(&a);
	sim_irq_exit();
	ExpectLockErrors(1);
}

TEST_F(LockTest, EnablingIrqsInHardirq)
{
	DEFINE_SPINLOCK(a);
	sim_irq_enter(true);
	spin_lock_irq(&a);
	spin_unlock_irq(&a); // enables interrupts inside the handler
	sim_irq_exit();
	ExpectLockErrors(1);
}

TEST_F(LockTest, UnbalancedRcuUnlock)
{
	rcu_read_unlock();
	ExpectLockErrors(1);
	rcu_read_lock();
	EXPECT_TRUE(rcu_read_lock_held());
	rcu_read_unlock();
	EXPECT_FALSE(rcu_read_lock_held());
}

TEST_F(LockTest, ClockRefusesToRunWithLockHeld)
{
	DEFINE_SPINLOCK(a);
	spin_lock(&a);
	EXPECT_EQ(sim_clock_advance(10), 0u);
	EXPECT_EQ(sim_clock_now(), SIM_CLOCK_START_NS);
	spin_unlock(&a);
	ExpectLockErrors(1);
}

TEST_F(LockTest, Mutex)
{
	DEFINE_MUTEX(m);
	mutex_lock(&m);
	lockdep_assert_held(&m);
	EXPECT_TRUE(mutex_is_locked(&m));
	EXPECT_FALSE(mutex_trylock(&m));
	mutex_unlock(&m);
	EXPECT_EQ(sim_lock_errors(), 0u);

	DEFINE_SPINLOCK(s);
	spin_lock(&s);
	mutex_lock(&m); // sleeping lock under a spinlock
	mutex_unlock(&m);
	spin_unlock(&s);
	ExpectLockErrors(1);
}

} // namespace
