// SPDX-License-Identifier: GPL-2.0
// efqsim results: latency statistics.
//
// Samples are kept in a log-linear histogram, the scheme fio uses for its
// completion-latency percentiles: values below 128 ns have a bucket each;
// above, every power of two [2^k, 2^(k+1)) is cut into 64 equal buckets, so
// a bucket is at most 1/64 (1.6 %) of its value wide.  The histogram reads
// as a map keyed by each bucket's lower bound; it keeps one array of counts
// per power of two that has samples (no upper limit, unlike fio's fixed
// array, and a constant cost per sample: a std::map's search missed the
// cache on every sample of a long, wide-latency replay).  min, max, the sum
// (for the mean) and the sum of squares (for the standard deviation) are
// exact.
//
// percentile(p) is a nearest-rank percentile: the bucket holding the
// ceil(p/100 * samples)-th smallest sample, reported as the bucket's
// midpoint (as fio does) and clamped to [min, max], so a bucket holding a
// single value reports it exactly.

#include "report/results.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>

namespace efqsim::report {

namespace {

constexpr int kLinearBits = 6; // 64 buckets per power of two

constexpr size_t kLinear = size_t{2} << kLinearBits; // 0..127: a bucket each
constexpr size_t kPerPower = size_t{1} << kLinearBits;

// The row and column of @ns's bucket in Histogram::rows_.
void bucket_of(int64_t ns, size_t *row, size_t *col)
{
	const auto v = static_cast<uint64_t>(ns);
	if (v < kLinear) {
		*row = 0;
		*col = v;
		return;
	}
	const int msb = 63 - std::countl_zero(v);
	const int shift = msb - kLinearBits;
	*row = static_cast<size_t>(shift);
	*col = static_cast<size_t>(v >> shift) - kPerPower;
}

int64_t lower_of(size_t row, size_t col)
{
	if (row == 0)
		return static_cast<int64_t>(col);
	return static_cast<int64_t>((col + kPerPower) << row);
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

void Histogram::add(int64_t ns, uint64_t count)
{
	size_t row, col;
	bucket_of(std::max<int64_t>(ns, 0), &row, &col);
	if (row >= rows_.size())
		rows_.resize(row + 1);
	std::vector<uint64_t> &r = rows_[row];
	if (r.empty())
		r.assign(row ? kPerPower : kLinear, 0);
	if (r[col] == 0 && count)
		buckets_++;
	r[col] += count;
}

uint64_t Histogram::at(int64_t lower) const
{
	size_t row, col;
	bucket_of(std::max<int64_t>(lower, 0), &row, &col);
	if (lower < 0 || lower_of(row, col) != lower || row >= rows_.size() || rows_[row].empty() ||
	    rows_[row][col] == 0)
		throw std::out_of_range("Histogram::at: no such bucket");
	return rows_[row][col];
}

Histogram::const_iterator Histogram::begin() const
{
	const_iterator it(this, 0, 0);
	it.settle();
	return it;
}

void Histogram::const_iterator::settle()
{
	while (row_ < h_->rows_.size()) {
		const std::vector<uint64_t> &r = h_->rows_[row_];
		while (col_ < r.size() && r[col_] == 0)
			col_++;
		if (col_ < r.size())
			return;
		row_++;
		col_ = 0;
	}
}

Histogram::value_type Histogram::const_iterator::operator*() const
{
	return {lower_of(row_, col_), h_->rows_[row_][col_]};
}

Histogram::const_iterator &Histogram::const_iterator::operator++()
{
	col_++;
	settle();
	return *this;
}

bool Histogram::operator==(const Histogram &o) const
{
	if (buckets_ != o.buckets_)
		return false;
	for (auto a = begin(), b = o.begin(); a != end(); ++a, ++b)
		if (*a != *b)
			return false;
	return true;
}

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
	histogram.add(ns);
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
		histogram.add(lower, count);
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
