// SPDX-License-Identifier: GPL-2.0
// The V10 cover letter's Test 1 in efqsim: one random reader (group2)
// against N = 1..32 random writers (group1), flat mode vs the IO controller.
//
// What was measured (the cover letter's "Test1: Random Reader Vs Random
// Writers", a 7200 rpm SATA disk, 30 s fio runs; the table is in
// Documentation/sim/cover-letter.rst, "Test 1"): with vanilla CFQ the
// writers overwhelm the reader (503 -> 22 KiB/s, max latency 159 -> 923
// ms); with the IO controller the reader group keeps 337-402 KiB/s and at
// most 319 ms for every N.
//
// Run as in 2009: cfq, group_idle=8, equal weights, fairness at its
// default 0, for 10 simulated seconds instead of 30 (the writers' 64 KiB
// random IOs settle within a few slices).  nr_group_requests is V10's quarter of
// the request pool (sim/tables/tables.cc says why).
#include <iostream>

#include <gtest/gtest.h>

#include "tables/tables.h"

namespace {

using namespace efqsim::tables;

TEST(CoverLetter, Test1RandomReaderVsRandomWriters)
{
	Options o;
	o.runtime_s = 10;
	const std::vector<int> ns = {1, 2, 4, 8, 16, 32};
	std::string err;
	std::vector<Row> flat = run_rows(Table::rr_vs_rw, Mode::flat, ns, o, &err);
	ASSERT_EQ(flat.size(), ns.size()) << err;
	std::vector<Row> ioc = run_rows(Table::rr_vs_rw, Mode::ioc, ns, o, &err);
	ASSERT_EQ(ioc.size(), ns.size()) << err;
	std::cout << format_comparison(Table::rr_vs_rw, o, flat, ioc);

	const Side &flat1 = flat.front().side[1], &flat32 = flat.back().side[1];
	const Side &ioc1 = ioc.front().side[1];
	// Flat (efqsim's stand-in for vanilla CFQ): the reader collapses.
	// 2009: 22/503 = 0.04; rr_vs_writers_test.cc's negative control asks
	// <= 0.2.
	EXPECT_LE(flat32.agg_kib, 0.2 * flat1.agg_kib);
	for (size_t i = 0; i < ns.size(); i++) {
		SCOPED_TRACE("nr=" + std::to_string(ns[i]));
		const Side &r = ioc[i].side[1];
		// The IO controller keeps the reader's bandwidth.  The 2009 disk kept
		// 0.84-1.17 of its N=1 value; with fairness=0 efqsim keeps
		// about 0.6 from N=8 on: the writer queues are charged from
		// their first completion, not for the drive time their queued
		// writes take, so the writers' group is under-charged (V10's
		// documented NCQ weakness; fairness=1 fixes it, see
		// rr_vs_writers_test.cc).  Asserted: at least half.
		EXPECT_GE(r.agg_kib, 0.5 * ioc1.agg_kib);
		// ... and its latency: the 2009 disk's worst was 319 ms, 1.8x N=1.
		EXPECT_LE(r.max_lat_ms, 2.0 * ioc1.max_lat_ms);
		// ... and beats flat mode from 2 writers on (2009: 2.7x-15x).
		// With two writers efqsim's flat reader keeps more than the
		// 2009 vanilla CFQ did (222-226 KiB/s against 150), and the
		// IOC's reader measured 1.50-1.52x of it (1.496x once the engine
		// ran the hardware queues only when a hold ends: flat's reader
		// gained 1%); from 4 writers on 2.2x and more.  Asserted: 1.4x
		// with two writers, 1.5x from four.
		if (ns[i] >= 2) {
			double beat = ns[i] == 2 ? 1.4 : 1.5;
			EXPECT_GE(r.agg_kib, beat * flat[i].side[1].agg_kib);
		}
		// Equal weights: the engine charges the two groups alike.
		double share = ratio(ioc[i].side[0].disk_time_ms,
				     ioc[i].side[0].disk_time_ms + ioc[i].side[1].disk_time_ms);
		EXPECT_NEAR(share, 0.5, 0.1);
	}
	EXPECT_GE(ioc.back().side[1].agg_kib, 10 * flat32.agg_kib);
}

} // namespace
