// SPDX-License-Identifier: GPL-2.0
// A random reader is isolated from N random writers in another cgroup.
//
// The measurements this reproduces: the 2009 V10 cover letter's Test 1 (a
// 7200 rpm SATA disk, group_idle=8, equal weights; Documentation/sim/
// cover-letter.rst, "Test 1", has the table): one random 4 KiB reader
// against N = 1..32 random 64 KiB writers (libaio, iodepth 4).  Under the
// IO controller the reader kept 337-402 KiB/s with a max latency of at
// most 319 ms at every N; with vanilla CFQ it fell from 503 to 22 KiB/s.
// On the 5-disk array of the series' October 2009 comparison the reader
// kept 160-266 KB/s under the controller.
//
// Asserted (equal weights, group_idle=8):
//   the reader's bandwidth within +/-20 % of its N=1 value (the disk's
//   spread: 337-402 KiB/s, -2 % to +17 % of its N=1 345);
//   its max latency <= 2x its N=1 value (the disk: 319 ms at worst, 1.8x);
//   the writers' share of the charged disk time 0.5 +/- 0.1 (equal
//   weights; bandwidth is no proxy for time here: the writers' bandwidth
//   rose under the controller, 18115 vs 5737 KiB/s at N=1, because they
//   got uninterrupted slices);
//   negative control without groups: the reader's bw(32) <= 0.2 x bw(1)
//   (vanilla CFQ: 22/503 = 0.04).
//
// Run with fairness=1, not the default 0 the cover letter used.  Why:
// efqsim's hdd keeps the writers' 64 KiB random writes queued in the drive
// (its write cache fills: the writers run at 10-20 MB/s, 2-3x the 2009
// disk), and with fairness=0 a writer queue is charged from its first
// completion to its expiry, about 2 ms, while its queued writes hold the
// drive for 10 ms and more: the writers' group is under-charged and the
// reader keeps only about 0.6 of its N=1 bandwidth from N=8 on (the
// cover-letter Test 1 scenario prints it).  fairness=1 (drain before
// switching, charge real time) is the series' answer to exactly this; with
// it every criterion holds.  nr_group_requests is V10's quarter of the
// request pool (sim/tables/tables.cc).
//
// The outside measure: the device model's busy time.  The writers' share
// of it is above their charged share (their cached writes destage while
// the reader's group holds the disk, which no scheduler can see): asserted
// <= 0.65 (measured 0.53-0.61).
//
// All of the cover letter's N (1..32), 10 simulated seconds instead of 30.
#include <iostream>

#include <gtest/gtest.h>

#include "tables/tables.h"

namespace {

using namespace efqsim::tables;

TEST(RandomReaderVsWriters, IsolatedWithFairness)
{
	Options o;
	o.runtime_s = 10;
	o.tunables = {{"fairness", "1"}};
	const std::vector<int> ns = {1, 2, 4, 8, 16, 32};
	std::string err;
	std::vector<Row> ioc = run_rows(Table::rr_vs_rw, Mode::ioc, ns, o, &err);
	ASSERT_EQ(ioc.size(), ns.size()) << err;
	std::vector<Row> flat = run_rows(Table::rr_vs_rw, Mode::flat, {1, 32}, o, &err);
	ASSERT_EQ(flat.size(), 2u) << err;
	std::cout << "random reader vs random writers, fairness=1\n"
		  << format_comparison(Table::rr_vs_rw, o, flat, ioc);
	const Side &rr1 = ioc.front().side[1];
	for (const Row &r : ioc) {
		SCOPED_TRACE("nr=" + std::to_string(r.nr));
		const Side &rr = r.side[1], &w = r.side[0];
		EXPECT_NEAR(ratio(rr.agg_kib, rr1.agg_kib), 1.0, 0.2);
		EXPECT_LE(rr.max_lat_ms, 2.0 * rr1.max_lat_ms);
		double share = ratio(w.disk_time_ms, w.disk_time_ms + rr.disk_time_ms);
		double busy = ratio(w.device_busy_ms, w.device_busy_ms + rr.device_busy_ms);
		std::cout << "nr=" << r.nr << " writers' share: charged " << share << ", busy "
			  << busy << "\n";
		EXPECT_NEAR(share, 0.5, 0.1);
		EXPECT_GE(busy, 0.4);
		EXPECT_LE(busy, 0.65);
	}
	EXPECT_LE(flat[1].side[1].agg_kib, 0.2 * flat[0].side[1].agg_kib);
}

} // namespace
