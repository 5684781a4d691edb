// SPDX-License-Identifier: GPL-2.0
// T3: a random reader is isolated from N random writers in another group.
//
// Source: spec/seed-tests.md 5, rank 3 (T3), from A1 (seed 000 L303-352)
// and C2.  Criteria (equal weights, group_idle=8):
//   RR bw within +/-20 % of its N=1 value (seed 337-402 KiB/s);
//   RR max latency <= 2x its N=1 value (seed <= 319 ms);
//   the writers' disk-time share 0.5 +/- 0.1, as charged;
//   flat negative control: RR bw(32) <= 0.2 x RR bw(1) (seed 503 -> 22).
//
// Run with fairness=1, not the default 0 the seed used.  Why: efqsim's hdd
// keeps the writers' 64 KiB random writes queued in the drive (its write
// cache fills: the writers run at 10-20 MB/s, 2-3x the seed's disk), and
// with fairness=0 a writer queue is charged from its first completion to
// its expiry, about 2 ms, while its queued writes hold the drive for 10 ms
// and more: the writers' group is under-charged and the reader keeps only
// about 0.6 of its N=1 bandwidth from N=8 on (the cover-letter Test 1
// scenario prints it).  fairness=1 (drain before switching, charge real
// time) is the series' answer to exactly this; with it every criterion
// holds.  nr_group_requests is V10's quarter of the request pool
// (sim/tables/tables.cc).
//
// The outside measure: the device model's busy time.  The writers' share
// of it is above their charged share (their cached writes destage while
// the reader's group holds the disk, which no scheduler can see): asserted
// <= 0.65 (measured 0.53-0.61).
//
// All of the seed's N (1..32), 10 simulated seconds instead of 30.
#include <iostream>

#include <gtest/gtest.h>

#include "tables/tables.h"

namespace {

using namespace efqsim::tables;

TEST(T3RandomReaderVsWriters, IsolatedWithFairness)
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
	std::cout << "T3, fairness=1\n" << format_comparison(Table::rr_vs_rw, o, flat, ioc);
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
