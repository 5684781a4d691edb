// SPDX-License-Identifier: GPL-2.0
// The ssd model: read latency, parallelism across channels, the link cap,
// the write buffer, FUA and flush.

#include "dev/ssd.h"
#include "harness.h"

#include <gtest/gtest.h>

namespace efqsim::dev {
namespace {

using test::closed_loop;
using test::random_io;
using test::sequential;

int64_t lone(Device &d, Request rq, int64_t t)
{
	static uint64_t id = 1000000;
	rq.id = id++;
	d.submit(rq, t);
	std::vector<Completion> out;
	while (out.empty())
		d.advance(d.next_event(), out);
	return out[0].time - t;
}

TEST(Ssd, Read4kLatencyIsWithinDocumentedRange)
{
	Ssd d{SsdParams{}};
	Request rq;
	rq.sector = 123456;
	rq.sectors = 8;
	int64_t lat = lone(d, rq, 0);
	EXPECT_GE(lat, 50000);
	EXPECT_LE(lat, 100000);
	EXPECT_EQ(lat, 80000); // overhead 20 us + page read 60 us
}

// Striped 4 KiB reads (consecutive pages land on consecutive channels):
// throughput grows as the depth up to the channel count, then stops.
TEST(Ssd, DepthNThroughputIsNTimesDepth1UpToTheChannelCount)
{
	SsdParams p;
	double base = 0;
	for (uint32_t depth : {1u, 2u, 4u, 8u, 16u, 32u}) {
		Ssd d(p);
		auto r = closed_loop(d, depth, 20000, sequential(0, 8));
		if (depth == 1)
			base = r.iops();
		uint32_t n = std::min(depth, p.channels);
		EXPECT_GE(r.iops(), 0.9 * n * base) << depth;
		// Past the channel count only the overhead still overlaps.
		double cap = p.channels / (p.read_us * 1e-6);
		EXPECT_LE(r.iops(), 1.01 * std::min(depth * base, cap)) << depth;
	}
}

TEST(Ssd, RandomReadsScaleWithDepth)
{
	double prev = 0;
	for (uint32_t depth : {1u, 2u, 4u, 8u, 16u, 32u}) {
		Ssd d{SsdParams{}};
		auto r = closed_loop(d, depth, 40000, random_io(0, d.capacity_sectors(), 8, 1));
		EXPECT_GT(r.iops(), 1.1 * prev) << depth;
		prev = r.iops();
	}
	EXPECT_GT(prev, 100000); // depth 32: documented about 117000
}

TEST(Ssd, SequentialReadIsCappedByTheLink)
{
	SsdParams p;
	Ssd d(p);
	auto r = closed_loop(d, 4, 4000, sequential(0, 256));
	EXPECT_LE(r.mbps(), p.interface_mbps);
	EXPECT_GT(r.mbps(), 0.95 * p.interface_mbps);
}

TEST(Ssd, SequentialWriteIsCappedByProgramming)
{
	SsdParams p;
	Ssd d(p);
	auto r = closed_loop(d, 4, 8000, sequential(0, 256, true)); // 1 GiB
	double program_mbps = p.channels * p.page_kib * 1024 / (p.program_us * 1e-6) / 1e6;
	EXPECT_LE(r.mbps(), 1.01 * program_mbps);
	EXPECT_GT(r.mbps(), 0.95 * program_mbps);
}

TEST(Ssd, WritesCompleteOnceBuffered)
{
	Ssd d{SsdParams{}};
	Request w;
	w.sector = 800;
	w.sectors = 8;
	w.write = true;
	int64_t buffered = lone(d, w, 0);
	EXPECT_LT(buffered, 40000); // overhead + 4 KiB over the link
	EXPECT_GT(d.buffered_bytes(), 0u);
	w.fua = true;
	w.sector = 1600;
	int64_t fua = lone(d, w, 1000000);
	EXPECT_GE(fua, buffered + 80000); // waits for the program
}

TEST(Ssd, FlushWaitsForThePrograms)
{
	Ssd d{SsdParams{}};
	std::vector<Completion> out;
	for (uint64_t i = 0; i < 31; i++) {
		Request w;
		w.id = i + 1;
		w.sector = i * 64; // 32 KiB each, all on the same channels
		w.sectors = 64;
		w.write = true;
		d.submit(w, 0);
	}
	Request f;
	f.id = 100;
	f.flush = true;
	d.submit(f, 0);
	int64_t flushed = 0;
	while (!flushed) {
		out.clear();
		d.advance(d.next_event(), out);
		for (const Completion &c : out)
			if (c.id == 100)
				flushed = c.time;
	}
	// 248 pages over 8 channels, 80 us each.
	EXPECT_GE(flushed, 31 * 80000);
	out.clear();
	d.advance(flushed, out);
	EXPECT_EQ(d.buffered_bytes(), 0u);
}

TEST(Ssd, FullWriteBufferMakesWritesWait)
{
	SsdParams p;
	p.write_buffer_kib = 64;
	Ssd d(p);
	auto r = closed_loop(d, 32, 2000, random_io(0, d.capacity_sectors(), 8, 3, true));
	// Bounded by programming, not by the link.
	double program_iops = p.channels / (p.program_us * 1e-6);
	EXPECT_LE(r.iops(), 1.01 * program_iops);
	EXPECT_LE(d.buffered_bytes(), 64u * 1024);
}

} // namespace
} // namespace efqsim::dev
