// SPDX-License-Identifier: GPL-2.0
// The V10 cover letter's Test 3 in efqsim: N = 1..16 sequential readers in
// group1 (weight 500) against one sequential reader in group2 (weight
// 1000).
//
// What was measured (the cover letter's "Test3: Sequential Reader Vs
// Sequential Reader", a 7200 rpm SATA disk, 30 s fio runs; the table is in
// Documentation/sim/cover-letter.rst, "Test 3"): group2 gets
// double group1's bandwidth whatever N (g2/g1 = 1.96-2.31); group2's max
// latency stays at 124-172 ms while group1's grows with N (230 ms -> 5 s).
// The cover letter has no flat table for this test; efqsim prints one to show what
// the weights change: flat, every reader gets the same.
//
// cfq with its defaults (group_idle 8, fairness 0: the cover letter
// states neither), 5 simulated seconds instead of 30: at N=16 a round of
// group1's readers takes 16 x (100 + 200) ms, so 5 s is the shortest run
// in which every reader gets its slice (at 3 s one gets 1 KiB/s).
// The device's busy time, the outside measure, is asserted in [1.7, 2.3]
// rather than weighted_readers_test.cc's +/-0.2: in a run this short the seek to each reader's
// file weighs more, and it costs device time the engine charges nobody (a
// slice starts at its first completion, V10's rule); measured 1.75-1.9.
#include <iostream>

#include <gtest/gtest.h>

#include "tables/tables.h"

namespace {

using namespace efqsim::tables;

TEST(CoverLetter, Test3SequentialReadersWithWeights)
{
	Options o;
	o.runtime_s = 5;
	const std::vector<int> ns = {1, 2, 4, 8, 16};
	std::string err;
	std::vector<Row> flat = run_rows(Table::sr_weights, Mode::flat, ns, o, &err);
	ASSERT_EQ(flat.size(), ns.size()) << err;
	std::vector<Row> ioc = run_rows(Table::sr_weights, Mode::ioc, ns, o, &err);
	ASSERT_EQ(ioc.size(), ns.size()) << err;
	std::cout << format_comparison(Table::sr_weights, o, flat, ioc);

	for (size_t i = 0; i < ns.size(); i++) {
		SCOPED_TRACE("nr=" + std::to_string(ns[i]));
		const Row &r = ioc[i];
		// Bandwidth 2:1 (2009: 1.96-2.31; weighted_readers_test.cc asks the
		// same [1.7, 2.4]).
		double bw = ratio(r.side[1].agg_kib, r.side[0].agg_kib);
		EXPECT_GE(bw, 1.7);
		EXPECT_LE(bw, 2.4);
		// The same on the device's own clock, not only the engine's.
		double busy = ratio(r.side[1].device_busy_ms, r.side[0].device_busy_ms);
		EXPECT_GE(busy, 1.7);
		EXPECT_LE(busy, 2.3);
		// group2's latency does not grow with N (2009: 124 -> 172 ms).
		EXPECT_LE(r.side[1].max_lat_ms, 1.5 * ioc[0].side[1].max_lat_ms);
		// Flat ignores weights: the single reader gets what one of
		// group1's readers gets (its share falls as 1/(N+1)), within
		// the spread of group1's readers (a short run gives some
		// readers one slice more than others).
		const Row &f = flat[i];
		EXPECT_GE(f.side[1].agg_kib, 0.8 * f.side[0].min_kib);
		EXPECT_LE(f.side[1].agg_kib, 1.2 * f.side[0].max_kib);
	}
	// group1's latency grows with N (2009: 230 ms -> 4986 ms).
	EXPECT_GE(ioc.back().side[0].max_lat_ms, 5 * ioc.front().side[0].max_lat_ms);
}

} // namespace
