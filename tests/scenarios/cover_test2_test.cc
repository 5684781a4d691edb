// SPDX-License-Identifier: GPL-2.0
// The V10 cover letter's Test 2 in efqsim: one random reader (group2)
// against N = 1..16 sequential readers (group1), flat mode vs the IO
// controller.
//
// What was measured (the cover letter's "Test2: Random Reader Vs
// Sequential Reader", a 7200 rpm SATA disk, 30 s fio runs; the table is in
// Documentation/sim/cover-letter.rst, "Test 2"): under the IO
// controller the random reader's bandwidth is stable (318-330 KiB/s,
// min/max 0.96) and its max latency bounded (154-233 ms); flat (and
// vanilla) it falls to 10-60 KiB/s with a max latency growing to about
// 1.9 s at 16 readers.  The sequential readers' aggregate about halves
// (13 vs 26 MB/s): half the disk time is the reader's.
//
// Run as in 2009 (cfq, group_idle=1, equal weights) for 3 simulated
// seconds instead of 30: at 4 KiB per request the sequential readers make
// this the expensive table, and every figure asserted here settles within
// the first second (the reader's latency is bounded by one 100 ms slice of
// the other group).
#include <iostream>

#include <gtest/gtest.h>

#include "tables/tables.h"

namespace {

using namespace efqsim::tables;

TEST(CoverLetter, Test2RandomReaderVsSequentialReaders)
{
	Options o;
	o.runtime_s = 3;
	const std::vector<int> ns = {1, 2, 4, 8, 16};
	std::string err;
	std::vector<Row> flat = run_rows(Table::rr_vs_sr, Mode::flat, ns, o, &err);
	ASSERT_EQ(flat.size(), ns.size()) << err;
	std::vector<Row> ioc = run_rows(Table::rr_vs_sr, Mode::ioc, ns, o, &err);
	ASSERT_EQ(ioc.size(), ns.size()) << err;
	std::cout << format_comparison(Table::rr_vs_sr, o, flat, ioc);

	double lo = 1e18, hi = 0;
	for (size_t i = 0; i < ns.size(); i++) {
		SCOPED_TRACE("nr=" + std::to_string(ns[i]));
		const Side &r = ioc[i].side[1];
		lo = std::min(lo, r.agg_kib);
		hi = std::max(hi, r.agg_kib);
		// Bounded latency: the 2009 disk's worst was 233 ms, 1.5x N=1.
		EXPECT_LE(r.max_lat_ms, 1.6 * ioc[0].side[1].max_lat_ms);
		// The sequential group gets about half of what it gets flat
		// (2009: 13.7/23.3 = 0.59 at N=1, 0.47 at N=16).
		double sr = ratio(ioc[i].side[0].agg_kib, flat[i].side[0].agg_kib);
		EXPECT_GE(sr, 0.4);
		EXPECT_LE(sr, 0.9);
	}
	// Stable reader bandwidth (2009: min/max 0.96).
	EXPECT_GE(lo / hi, 0.9);
	// Flat: the reader's latency grows with N (2009: 247 ms -> 1868 ms,
	// 7.6x) and its bandwidth falls (36 -> 28 KiB/s, with 10 at N=4).
	EXPECT_GE(flat.back().side[1].max_lat_ms, 5 * flat.front().side[1].max_lat_ms);
	EXPECT_LE(flat.back().side[1].agg_kib, 0.3 * ioc.back().side[1].agg_kib);
}

} // namespace
