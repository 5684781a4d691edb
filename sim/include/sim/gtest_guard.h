// SPDX-License-Identifier: GPL-2.0
// efqsim: GoogleTest fixture for code that runs on the shim kernel.
//
//   class MyTest : public SimTest {};
//   TEST_F(MyTest, Something) { ... }
//
// SetUp() resets the shim (clock at SIM_CLOCK_START_NS with no timers,
// counters, failure injection, current task pid 1) and notes the number of
// live slab objects.  TearDown() runs deferred work (RCU callbacks, work
// items) and then fails the test on any WARN, any lock error, or any slab
// object allocated during the test and still live -- unless the test said
// otherwise with ExpectWarnings()/ExpectLockErrors() (which check and
// consume an exact count) or AllowLeaks().
//
// Include this before any kernel header: the kernel's min/max/swap macros
// break C++ standard headers included after them.
//
// Kind: simulation (the test fixture's checks)
#pragma once

#include <gtest/gtest.h>

extern "C" {
#include <sim/kernel.h>
#include <sim/clock.h>
#include <sim/slab.h>
}

class SimTest : public ::testing::Test {
protected:
	void SetUp() override
	{
		sim_reset();
		live_at_start_ = sim_slab_live();
	}

	void TearDown() override
	{
		if (sim_lock_errors() == 0)
			sim_quiesce();
		EXPECT_EQ(sim_lock_errors(), 0u) << "last lock error: " << sim_lock_error_last();
		EXPECT_EQ(sim_warn_count(), 0u) << "last warning: " << sim_warn_last();
		if (check_leaks_) {
			long live = sim_slab_live();
			EXPECT_EQ(live, live_at_start_) << "slab objects leaked by this test";
			if (live != live_at_start_)
				sim_slab_dump_live();
		}
		sim_reset();
	}

	// Expect exactly @n WARNs (lock errors count too) so far, then forget them.
	void ExpectWarnings(unsigned long n)
	{
		EXPECT_EQ(sim_warn_count(), n) << "last warning: " << sim_warn_last();
		sim_warn_reset();
		sim_lock_errors_reset();
	}

	// Expect exactly @n lock errors and no other WARN so far, then forget them.
	void ExpectLockErrors(unsigned long n)
	{
		EXPECT_EQ(sim_lock_errors(), n) << "last lock error: " << sim_lock_error_last();
		EXPECT_EQ(sim_warn_count(), n) << "last warning: " << sim_warn_last();
		sim_warn_reset();
		sim_lock_errors_reset();
	}

	void AllowLeaks() { check_leaks_ = false; }

	long live_at_start_ = 0;
	bool check_leaks_ = true;
};
