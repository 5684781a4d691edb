// SPDX-License-Identifier: GPL-2.0
// efqsim results: latency statistics.
//
// Samples are kept in a log-linear histogram, the scheme fio uses for its
// completion-latency percentiles: values below 128 ns have a bucket each;
// above, every power of two [2^k, 2^(k+1)) is cut into 64 equal buckets, so
// a bucket is at most 1/64 (1.6 %) of its value wide.  The histogram is a map
// keyed by each bucket's lower bound (no upper limit, unlike fio's fixed
// array).  min, max, the sum (for the mean) and the sum of squares (for the
// standard deviation) are exact.
//
// percentile(p) is a nearest-rank percentile: the bucket holding the
// ceil(p/100 * samples)-th smallest sample, reported as the bucket's
// midpoint (as fio does) and clamped to [min, max], so a bucket holding a
// single value reports it exactly.

#include "report/results.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace efqsim::report {

namespace {

constexpr int kLinearBits = 6; // 64 buckets per power of two

int64_t bucket_lower(int64_t ns)
{
	const auto v = static_cast<uint64_t>(ns);
	if (v < (uint64_t{2} << kLinearBits))
		return ns;
	const int msb = 63 - std::countl_zero(v);
	const int shift = msb - kLinearBits;
	return static_cast<int64_t>((v >> shift) << shift);
}

int64_t bucket_width(int64_t lower)
{
	const auto v = static_cast<uint64_t>(lower);
	if (v < (uint64_t{2} << kLinearBits))
		return 1;
	const int msb = 63 - std::countl_zero(v);
	return int64_t{1} << (msb - kLinearBits);
}

} // namespace

void LatencyStats::add(int64_t ns)
{
	if (ns < 0)
		ns = 0; // a clock never runs backwards; be robust anyway
	if (samples == 0) {
		min = max = ns;
	} else {
		min = std::min(min, ns);
		max = std::max(max, ns);
	}
	samples++;
	sum += static_cast<long double>(ns);
	sum_sq += static_cast<long double>(ns) * static_cast<long double>(ns);
	histogram[bucket_lower(ns)]++;
}

void LatencyStats::merge(const LatencyStats &o)
{
	if (o.samples == 0)
		return;
	if (samples == 0) {
		min = o.min;
		max = o.max;
	} else {
		min = std::min(min, o.min);
		max = std::max(max, o.max);
	}
	samples += o.samples;
	sum += o.sum;
	sum_sq += o.sum_sq;
	for (const auto &[lower, count] : o.histogram)
		histogram[lower] += count;
}

int64_t LatencyStats::percentile(double p) const
{
	if (samples == 0)
		return 0;
	if (!(p > 0))
		return min;
	if (p >= 100)
		return max;
	auto rank = static_cast<uint64_t>(std::ceil(p / 100.0 * static_cast<double>(samples)));
	rank = std::clamp<uint64_t>(rank, 1, samples);
	uint64_t seen = 0;
	for (const auto &[lower, count] : histogram) {
		seen += count;
		if (seen >= rank) {
			const int64_t mid = lower + bucket_width(lower) / 2;
			return std::clamp(mid, min, max);
		}
	}
	return max;
}

double LatencyStats::mean() const
{
	return samples ? static_cast<double>(sum / static_cast<long double>(samples)) : 0.0;
}

} // namespace efqsim::report
