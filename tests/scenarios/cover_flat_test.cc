// SPDX-License-Identifier: GPL-2.0
// The V10 cover letter's "Vanilla CFQ Vs IO Controller CFQ" tables in
// efqsim: N = 1..16 jobs of one kind, no cgroups, flat mode (the stand-in
// for vanilla CFQ) vs the IO controller (hierarchical, but with no groups
// every queue is in the root group).
//
// What was measured (the cover letter's four tables, sequential readers,
// sequential writers, random readers, random writers, 4 KiB direct IO on a
// 7200 rpm SATA disk; Documentation/sim/cover-letter.rst has them): its
// verdict was "nothing has changed significantly": aggregates within 13 %
// (random writers at N=8), latencies advisory (writer latencies differed up to 10x).
// In efqsim both columns run the same scheduler code; with no group the
// controller should change next to nothing: aggregates are asserted within
// 3 % (the cover letter allowed itself 13 %) and the per-job spread (min/max)
// within 10 %; latencies are printed, not asserted (advisory, as in the
// cover letter).  Measured: all four tables come out identical in flat mode and
// under the IO controller (the write tables used to differ by a few
// requests).  How the curves compare with the 2009
// vanilla curves is flat_mode_test.cc's part.
//
// Sequential tables: 2 simulated seconds instead of 30 (4 KiB requests at
// the media rate are the expensive case; at N=16 each job still gets its
// 100 ms slice, once: the per-job columns are coarse, the comparison of
// the two modes is not).  Random tables: 10 s (few requests).
#include <iostream>

#include <gtest/gtest.h>

#include "tables/tables.h"

namespace {

using namespace efqsim::tables;

void check_flat_table(Table t, int runtime_s)
{
	Options o;
	o.runtime_s = runtime_s;
	const std::vector<int> ns = {1, 2, 4, 8, 16};
	std::string err;
	std::vector<Row> flat = run_rows(t, Mode::flat, ns, o, &err);
	ASSERT_EQ(flat.size(), ns.size()) << err;
	std::vector<Row> ioc = run_rows(t, Mode::ioc, ns, o, &err);
	ASSERT_EQ(ioc.size(), ns.size()) << err;
	std::cout << format_comparison(t, o, flat, ioc);
	for (size_t i = 0; i < ns.size(); i++) {
		SCOPED_TRACE("nr=" + std::to_string(ns[i]));
		const Side &f = flat[i].side[0], &c = ioc[i].side[0];
		EXPECT_NEAR(ratio(c.agg_kib, f.agg_kib), 1.0, 0.03);
		EXPECT_NEAR(ratio(c.min_kib / c.max_kib, f.min_kib / f.max_kib), 1.0, 0.1);
		// Every job ran and moved data.
		EXPECT_EQ(f.jobs, ns[i]);
		EXPECT_GT(f.min_kib, 0);
	}
}

TEST(CoverLetterFlat, SequentialReaders)
{
	check_flat_table(Table::seq_read, 2);
}

TEST(CoverLetterFlat, SequentialWriters)
{
	check_flat_table(Table::seq_write, 2);
}

TEST(CoverLetterFlat, RandomReaders)
{
	check_flat_table(Table::rand_read, 10);
}

TEST(CoverLetterFlat, RandomWriters)
{
	check_flat_table(Table::rand_write, 10);
}

} // namespace
