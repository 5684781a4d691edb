// SPDX-License-Identifier: GPL-2.0
// The number formatting and derived statistics every report shares.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "report/common.h"

#include "fixtures.h"

namespace efqsim::report {
namespace {

using namespace detail;

// fio's short form: up to four digits, then a unit prefix (figures from a
// real fio 3.33 run and from fio's documentation).
TEST(ReportFormat, ShortNumbersHaveAtMostFourDigitsAndAPrefix)
{
	EXPECT_EQ(short_num(0, 1024, "B"), "0B");
	EXPECT_EQ(short_num(88, 1000, ""), "88");
	EXPECT_EQ(short_num(9999, 1024, "B"), "9999B");
	EXPECT_EQ(short_num(907111, 1000, ""), "907k");
	EXPECT_EQ(short_num(4096000, 1000, ""), "4096k");
	EXPECT_EQ(short_num(637528, 1024, "B"), "623KiB");
	EXPECT_EQ(short_num(637528, 1000, "B"), "638kB");
	EXPECT_EQ(short_num(33423360, 1024, "B"), "31.9MiB");
	EXPECT_EQ(short_num(67108864, 1024, "B"), "64.0MiB");
	EXPECT_EQ(short_num(100597760, 1000, "B"), "101MB");
	EXPECT_EQ(short_num(3714000000ull, 1024, "B"), "3542MiB");
	EXPECT_EQ(short_num(16777216000ull, 1024, "B"), "15.6GiB");
	EXPECT_EQ(short_num(16777216000ull, 1000, "B"), "16.8GB");
	EXPECT_EQ(short_num(1288490189ull, 1024, "B"), "1229MiB");
	EXPECT_EQ(short_num(10240, 1024, "B"), "10.0KiB");
	EXPECT_EQ(short_num(12000, 1024, "B"), "11.7KiB");
}

TEST(ReportFormat, ShortNumbersRoundWithoutGrowingPastFourCharacters)
{
	// 9.996 Ki would round to "10.00": one decimal fewer instead.
	EXPECT_EQ(short_num(10236, 1024, "B"), "10.0KiB");
	// 99.96 k -> "100", not "100.0".
	EXPECT_EQ(short_num(99960, 1000, ""), "100k");
	// 9999.6 k is at the edge: the next prefix.
	EXPECT_EQ(short_num(9999600, 1000, ""), "10.0M");
	EXPECT_EQ(short_num(std::numeric_limits<uint64_t>::max(), 1024, "B"), "16.0EiB");
}

TEST(ReportFormat, FixedHasExactDecimalsAndNoNegativeZeroOrNan)
{
	EXPECT_EQ(fixed(1.5, 6), "1.500000");
	EXPECT_EQ(fixed(20.67002, 6), "20.670020");
	EXPECT_EQ(fixed(2.0 / 3.0, 2), "0.67");
	EXPECT_EQ(fixed(-0.0, 3), "0.000");
	EXPECT_EQ(fixed(-0.0000001, 6), "0.000000");
	EXPECT_EQ(fixed(-1.25, 1),
		  "-1.2"); // round half to even of the exact binary value
	EXPECT_EQ(fixed(std::nan(""), 6), "0.000000");
	EXPECT_EQ(fixed(std::numeric_limits<double>::infinity(), 2), "0.00");
	EXPECT_EQ(fixed(1e300, 0).size(), 301u);
}

TEST(ReportFormat, StddevIsTheSampleStddevFromSumOfSquares)
{
	LatencyStats s;
	EXPECT_EQ(lat_mean(s), 0);
	EXPECT_EQ(lat_stddev(s), 0);
	// 2, 4, 4, 4, 5, 5, 7, 9
	s.samples = 8;
	s.min = 2;
	s.max = 9;
	s.sum = 40;
	s.sum_sq = 4 + 3 * 16 + 2 * 25 + 49 + 81;
	EXPECT_DOUBLE_EQ(lat_mean(s), 5.0);
	EXPECT_NEAR(lat_stddev(s), std::sqrt(32.0 / 7.0), 1e-9);

	LatencyStats one;
	one.samples = 1;
	one.min = one.max = 5'000'000;
	one.sum = 5'000'000;
	one.sum_sq = 25e12L;
	EXPECT_EQ(lat_stddev(one), 0);

	// Constant latency (a null device) has no spread, whatever rounding
	// the sum of squares carries.
	LatencyStats flat;
	flat.samples = 100000;
	flat.min = flat.max = 7'000'000'123;
	flat.sum = 100000.0L * 7'000'000'123;
	flat.sum_sq = flat.sum * 7'000'000'123 * (1 + 1e-15L);
	EXPECT_EQ(lat_stddev(flat), 0);
}

TEST(ReportFormat, StddevOfAddedSamples)
{
	LatencyStats s;
	for (int64_t v : {2, 4, 4, 4, 5, 5, 7, 9})
		s.add(v);
	EXPECT_NEAR(lat_stddev(s), std::sqrt(32.0 / 7.0), 1e-9);
	LatencyStats m;
	m.merge(s);
	m.merge(s);
	EXPECT_NEAR(lat_stddev(m), std::sqrt(64.0 / 15.0), 1e-9);
}

TEST(ReportFormat, RatesUseTheExactRuntimeAndRuntimeRoundsToMs)
{
	DirStats d;
	EXPECT_EQ(bw_bytes(d), 0u);
	EXPECT_EQ(iops(d), 0);
	EXPECT_EQ(runtime_ms(d), 0);
	d.io_bytes = 4096 * 3;
	d.ios = 3;
	d.runtime_ns = 1'500'000; // 1.5 ms
	EXPECT_EQ(bw_bytes(d), 8'192'000u);
	EXPECT_DOUBLE_EQ(iops(d), 2000.0);
	EXPECT_EQ(runtime_ms(d), 2);
	d.runtime_ns = 100; // ran, if briefly: never 0 ms
	EXPECT_EQ(runtime_ms(d), 1);
	// No overflow in bytes x 10^9.
	d.io_bytes = 1ull << 60;
	d.runtime_ns = 1'000'000'000;
	EXPECT_EQ(bw_bytes(d), 1ull << 60);
}

TEST(ReportFormat, GroupRowsAreInTreeOrderAndSharesAreOfTheWholeDevice)
{
	RunResult r;
	r.groups = {{"/b", 500, 2, 10, 0, 0, 0, 20},
		    {"/a-x", 100, 2, 5, 0, 0, 0, 10},
		    {"/a/c", 100, 3, 15, 0, 0, 0, 30},
		    {"/", 1000, 2, 50, 0, 0, 0, 100},
		    {"/a", 1000, 1, 35, 0, 0, 0, 70}};
	auto rows = group_rows(r);
	ASSERT_EQ(rows.size(), 5u);
	const char *order[] = {"/", "/a", "/a/c", "/a-x", "/b"};
	for (size_t i = 0; i < rows.size(); i++)
		EXPECT_EQ(rows[i].g->path, order[i]);
	EXPECT_DOUBLE_EQ(rows[0].time_share, 100);
	EXPECT_DOUBLE_EQ(rows[1].time_share, 70);
	EXPECT_DOUBLE_EQ(rows[2].busy_share, 30);
	EXPECT_DOUBLE_EQ(rows[4].time_share, 20);

	// Without the root, the top-level groups make the whole.
	r.groups.erase(r.groups.begin() + 3);
	rows = group_rows(r);
	double top = 0;
	for (const auto &row : rows)
		if (row.g->path != "/a/c")
			top += row.time_share;
	EXPECT_NEAR(top, 100, 1e-9);

	EXPECT_EQ(class_name(1), "rt");
	EXPECT_EQ(class_name(2), "be");
	EXPECT_EQ(class_name(3), "idle");
	EXPECT_EQ(class_name(0), "0");
}

} // namespace
} // namespace efqsim::report
