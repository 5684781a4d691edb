// SPDX-License-Identifier: GPL-2.0
// The null model: exact latency, submission order, the bandwidth cap.

#include "dev/null_device.h"
#include "harness.h"

#include <gtest/gtest.h>

namespace efqsim::dev {
namespace {

using test::closed_loop;
using test::random_io;
using test::sequential;

TEST(Null, LatencyIsExact)
{
	for (uint32_t depth : {1u, 64u}) {
		NullDevice d{NullParams{}};
		std::vector<int64_t> submitted;
		auto gen = random_io(0, d.capacity_sectors(), 8, 1);
		auto r = closed_loop(d, depth, 1000, [&](uint64_t i) {
			Request rq = gen(i);
			rq.sectors = 8 + i % 200; // sizes do not matter without a cap
			return rq;
		});
		EXPECT_EQ(r.max_latency, 100000);
		EXPECT_EQ(r.elapsed, int64_t((1000 + depth - 1) / depth) * 100000);
	}
	NullParams p;
	p.latency_us = 7.5;
	NullDevice d(p);
	auto r = closed_loop(d, 3, 30, sequential(0, 8));
	EXPECT_EQ(r.max_latency, 7500);
	EXPECT_EQ(r.elapsed, 10 * 7500);
}

TEST(Null, NeverReorders)
{
	NullParams p;
	p.bandwidth_mbps = 100;
	NullDevice d(p);
	std::vector<Completion> out;
	std::mt19937_64 rng(2);
	uint64_t id = 1;
	int64_t t = 0;
	for (int round = 0; round < 50; round++) {
		while (d.in_flight() < d.queue_depth()) {
			Request rq;
			rq.id = id++;
			rq.sector = rng() % 1000000;
			rq.sectors = 1 + rng() % 2048;
			rq.write = rng() % 2;
			rq.flush = rng() % 10 == 0;
			if (rq.flush)
				rq.sectors = rq.sector = 0;
			d.submit(rq, t);
		}
		t = d.next_event();
		d.advance(t, out);
	}
	d.advance(kNever, out);
	ASSERT_EQ(out.size(), id - 1);
	for (size_t i = 0; i < out.size(); i++)
		EXPECT_EQ(out[i].id, i + 1);
}

TEST(Null, BandwidthCapLimitsThroughput)
{
	NullParams p;
	p.bandwidth_mbps = 200;
	NullDevice d(p);
	auto r = closed_loop(d, 64, 10000, sequential(0, 256));
	EXPECT_NEAR(r.mbps(), 200, 1);
	// Without the cap: depth / latency.
	NullDevice u{NullParams{}};
	auto ru = closed_loop(u, 64, 64000, sequential(0, 256));
	EXPECT_NEAR(ru.iops(), 64 / 100e-6, 1);
}

} // namespace
} // namespace efqsim::dev
