// SPDX-License-Identifier: GPL-2.0
// Drivers for the device-model tests: closed-loop workloads run through the
// Device interface the way the block layer runs them (next_event, advance,
// submit at completion time).
#pragma once

#include "dev/device.h"

#include <cstdint>
#include <algorithm>
#include <functional>
#include <memory>
#include <random>
#include <vector>

namespace efqsim::dev::test {

struct LoopResult {
	int64_t elapsed = 0; // ns, first submission to last completion
	uint64_t completed = 0;
	uint64_t bytes = 0;
	int64_t max_latency = 0;
	std::vector<Completion> log; // every completion, in the order returned
	double mbps() const { return bytes / (elapsed * 1e-9) / 1e6; }
	double iops() const { return completed / (elapsed * 1e-9); }
};

// Keeps @depth requests in flight until @n have completed; request i is
// gen(i) (its id is set to i + 1).  A new request is submitted at the
// completion time of the one it replaces.
inline LoopResult closed_loop(Device &dev, uint32_t depth, uint64_t n,
			      const std::function<Request(uint64_t)> &gen, int64_t start = 0)
{
	LoopResult r;
	std::vector<int64_t> submitted_at;
	std::vector<uint32_t> sizes;
	uint64_t next = 0;
	auto submit = [&](int64_t t) {
		Request rq = gen(next);
		rq.id = next + 1;
		submitted_at.push_back(t);
		sizes.push_back(rq.sectors);
		dev.submit(rq, t);
		next++;
	};
	for (uint32_t i = 0; i < depth && next < n; i++)
		submit(start);
	std::vector<Completion> out;
	int64_t t = start;
	while (r.completed < n) {
		t = dev.next_event();
		if (t == kNever)
			break;
		out.clear();
		dev.advance(t, out);
		for (const Completion &c : out) {
			r.log.push_back(c);
			r.completed++;
			r.bytes += uint64_t(sizes[c.id - 1]) * 512;
			r.max_latency = std::max(r.max_latency, c.time - submitted_at[c.id - 1]);
			if (next < n)
				submit(c.time);
		}
	}
	r.elapsed = t - start;
	return r;
}

// Sequential requests of @sectors from @first.
inline std::function<Request(uint64_t)> sequential(uint64_t first, uint32_t sectors,
						   bool write = false, uint32_t tag = 0)
{
	return [=](uint64_t i) {
		Request rq;
		rq.sector = first + i * sectors;
		rq.sectors = sectors;
		rq.write = write;
		rq.tag = tag;
		return rq;
	};
}

// Random aligned requests of @sectors in [lo, hi), from a seeded generator.
inline std::function<Request(uint64_t)> random_io(uint64_t lo, uint64_t hi, uint32_t sectors,
						  uint64_t seed, bool write = false,
						  uint32_t tag = 0)
{
	auto rng = std::make_shared<std::mt19937_64>(seed);
	return [=](uint64_t) {
		Request rq;
		uint64_t slots = (hi - lo) / sectors;
		rq.sector = lo + ((*rng)() % slots) * sectors;
		rq.sectors = sectors;
		rq.write = write;
		rq.tag = tag;
		return rq;
	};
}

// A mixed workload: reads and writes of 1..256 sectors, FUA writes, flushes,
// four tags, in a few hot regions (so caches, read-ahead and merging all
// take part).
inline std::function<Request(uint64_t)> mixed(uint64_t capacity, uint64_t seed)
{
	auto rng = std::make_shared<std::mt19937_64>(seed);
	auto last = std::make_shared<uint64_t>(0);
	return [=](uint64_t) {
		std::mt19937_64 &g = *rng;
		Request rq;
		rq.tag = g() % 4;
		int kind = g() % 20;
		if (kind == 0) {
			rq.flush = rq.write = true;
			return rq;
		}
		rq.sectors = 1 + g() % 256;
		rq.write = kind < 9;
		rq.fua = kind == 1;
		uint64_t region = (g() % 4) * (capacity / 4);
		if (g() % 2)
			rq.sector = *last; // sequential to the previous request
		else
			rq.sector = region + g() % (capacity / 8);
		rq.sector = std::min(rq.sector, capacity - rq.sectors);
		*last = rq.sector + rq.sectors;
		return rq;
	};
}

} // namespace efqsim::dev::test
