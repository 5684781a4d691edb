// SPDX-License-Identifier: GPL-2.0
// LatencyStats: exact min/max/mean, fio-like log-linear buckets, nearest-rank
// percentiles within a bucket's width, merging.

#include <gtest/gtest.h>

#include "report/results.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

namespace efqsim::report {
namespace {

// The exact nearest-rank percentile of @v (sorted).
int64_t exact(const std::vector<int64_t> &v, double p)
{
	const auto rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(v.size())));
	return v[std::clamp<size_t>(rank, 1, v.size()) - 1];
}

TEST(LatencyStats, EmptyIsAllZero)
{
	LatencyStats s;
	EXPECT_EQ(s.samples, 0u);
	EXPECT_EQ(s.percentile(50), 0);
	EXPECT_EQ(s.percentile(100), 0);
	EXPECT_EQ(s.mean(), 0.0);
}

TEST(LatencyStats, MinMaxMeanAreExact)
{
	LatencyStats s;
	for (const int64_t v : {1000003, 17, 999999999, 123456})
		s.add(v);
	EXPECT_EQ(s.samples, 4u);
	EXPECT_EQ(s.min, 17);
	EXPECT_EQ(s.max, 999999999);
	EXPECT_DOUBLE_EQ(s.mean(), (1000003.0 + 17 + 999999999 + 123456) / 4);
	const long double sq =
		1000003.0L * 1000003 + 17.0L * 17 + 999999999.0L * 999999999 + 123456.0L * 123456;
	EXPECT_EQ(s.sum_sq, sq);
}

TEST(LatencyStats, SmallValuesHaveABucketEach)
{
	LatencyStats s;
	for (int64_t v = 1; v <= 100; v++)
		s.add(v);
	EXPECT_EQ(s.percentile(1), 1);
	EXPECT_EQ(s.percentile(50), 50);
	EXPECT_EQ(s.percentile(99), 99);
	EXPECT_EQ(s.percentile(99.5), 100);
	EXPECT_EQ(s.percentile(100), 100);
	EXPECT_EQ(s.histogram.size(), 100u);
}

TEST(LatencyStats, BucketsAreLogLinearWith64PerPowerOfTwo)
{
	LatencyStats s;
	s.add(127);  // exact
	s.add(128);  // [128, 130)
	s.add(129);  // same bucket
	s.add(1000); // 2^9: width 8 -> [1000, 1008)
	s.add(1007);
	s.add(1008);
	ASSERT_EQ(s.histogram.size(), 4u);
	EXPECT_EQ(s.histogram.at(127), 1u);
	EXPECT_EQ(s.histogram.at(128), 2u);
	EXPECT_EQ(s.histogram.at(1000), 2u);
	EXPECT_EQ(s.histogram.at(1008), 1u);
	// Every power of two has 64 buckets.
	LatencyStats t;
	for (int64_t v = 1 << 20; v < 2 << 20; v += 7)
		t.add(v);
	EXPECT_EQ(t.histogram.size(), 64u);
}

TEST(LatencyStats, PercentilesWithinOneBucketOfExact)
{
	std::mt19937_64 rng(42);
	std::lognormal_distribution<double> dist(13.0, 1.5); // ~0.5 ms, wide
	std::vector<int64_t> v;
	LatencyStats s;
	for (int i = 0; i < 20000; i++) {
		const auto x = static_cast<int64_t>(dist(rng));
		v.push_back(x);
		s.add(x);
	}
	std::sort(v.begin(), v.end());
	for (const double p : {1.0, 5.0, 10.0, 50.0, 90.0, 95.0, 99.0, 99.9, 99.99}) {
		const int64_t want = exact(v, p);
		const int64_t got = s.percentile(p);
		EXPECT_LE(std::llabs(got - want), want / 64 + 1) << "p" << p;
	}
	EXPECT_EQ(s.percentile(100), v.back());
}

TEST(LatencyStats, ASingleSampleIsReportedExactly)
{
	LatencyStats s;
	s.add(123457);
	for (const double p : {1.0, 50.0, 99.0, 100.0})
		EXPECT_EQ(s.percentile(p), 123457);
}

TEST(LatencyStats, MergeEqualsAddingEverything)
{
	LatencyStats a, b, all;
	for (int64_t v = 0; v < 5000; v += 3) {
		(v % 2 ? a : b).add(v * 977);
		all.add(v * 977);
	}
	LatencyStats m = a;
	m.merge(b);
	EXPECT_EQ(m.samples, all.samples);
	EXPECT_EQ(m.min, all.min);
	EXPECT_EQ(m.max, all.max);
	EXPECT_EQ(m.histogram, all.histogram);
	EXPECT_DOUBLE_EQ(m.mean(), all.mean());
	EXPECT_EQ(m.sum_sq, all.sum_sq);
	LatencyStats empty;
	empty.merge(a);
	EXPECT_EQ(empty.min, a.min);
	EXPECT_EQ(empty.samples, a.samples);
	a.merge(LatencyStats{});
	EXPECT_EQ(a.samples, empty.samples);
}

TEST(LatencyStats, NegativeSamplesCountAsZeroAndHugeOnesFit)
{
	LatencyStats s;
	s.add(-5);
	s.add(int64_t{1} << 50);
	EXPECT_EQ(s.min, 0);
	EXPECT_EQ(s.max, int64_t{1} << 50);
	EXPECT_EQ(s.percentile(100), int64_t{1} << 50);
	EXPECT_EQ(s.percentile(50), 0);
}

} // namespace
} // namespace efqsim::report
