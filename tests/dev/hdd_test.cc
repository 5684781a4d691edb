// SPDX-License-Identifier: GPL-2.0
// The hdd model: seek curve, zoned sequential rates, random IOPS with and
// without NCQ, aging, read-ahead, write cache, flush and FUA.  The ranges
// checked here are the ones Documentation/sim/devices.rst documents.

#include "dev/hdd.h"
#include "harness.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <set>

namespace efqsim::dev {
namespace {

using test::closed_loop;
using test::random_io;
using test::sequential;

std::unique_ptr<Hdd> default_hdd()
{
	return std::make_unique<Hdd>(HddParams{});
}

// Runs one request alone on an idle device at @t; returns its latency.
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

TEST(HddSeek, CurveMatchesTrackAverageAndFullStroke)
{
	auto d = default_hdd();
	const SeekCurve &s = d->seek_curve();
	uint64_t n = d->geometry().cylinders();
	EXPECT_EQ(s.ns(0), 0);
	EXPECT_NEAR(s.ns(1), 0.8e6, 1e3);
	EXPECT_NEAR(s.ns(n - 1), 18e6, 1e3);
	EXPECT_NEAR(s.mean_ms(), 8.5, 0.01);
	// The exact mean over every pair of cylinders agrees with the fit.
	double sum = 0;
	for (uint64_t dist = 1; dist < n; dist++)
		sum += s.ns(dist) * 2.0 * double(n - dist) / (double(n) * n);
	EXPECT_NEAR(sum / 1e6, 8.5, 0.05);
}

TEST(HddSeek, CostGrowsWithDistance)
{
	auto d = default_hdd();
	const SeekCurve &s = d->seek_curve();
	uint64_t n = d->geometry().cylinders();
	int64_t prev = 0;
	for (uint64_t dist = 1; dist < n; dist = dist * 3 / 2 + 1) {
		EXPECT_GT(s.ns(dist), prev) << dist;
		prev = s.ns(dist);
	}
}

// The same rule, measured through the device: reads alternating between
// cylinder 0 and cylinder D take longer on average as D grows.
TEST(HddSeek, MeasuredLatencyGrowsWithDistance)
{
	HddParams p;
	p.readahead_kib = 0; // every read goes to the media
	double prev = 0;
	for (uint64_t dist : {1ull, 1000ull, 30000ull, 300000ull}) {
		auto d = std::make_unique<Hdd>(p);
		const HddGeometry &g = d->geometry();
		std::mt19937_64 rng(dist);
		int64_t t = 0, total = 0;
		const int n = 1000;
		for (int i = 0; i < n; i++) {
			uint64_t base = g.first_lba(i % 2 ? dist : 0);
			Request rq;
			rq.sector = base + rng() % g.cylinder_sectors(base);
			rq.sectors = 8;
			// Far from the previous request's track: no read-ahead hit.
			int64_t lat = lone(*d, rq, t);
			total += lat;
			t += lat + 50000;
		}
		double mean = double(total) / n;
		EXPECT_GT(mean, prev + 100000) << "distance " << dist;
		prev = mean;
	}
}

TEST(HddSequential, ReadStreamsAtTheOuterZoneRate)
{
	for (uint32_t bs : {8u, 128u, 2048u}) {
		auto d = default_hdd();
		double zone = d->geometry().rate_mbps(0);
		uint64_t n = 64 * 2048 / bs; // 64 MiB
		auto r = closed_loop(*d, 1, n, sequential(0, bs));
		EXPECT_GT(r.mbps(), 0.97 * zone) << bs;
		EXPECT_LE(r.mbps(), zone * 1.001) << bs;
		EXPECT_GE(r.mbps(), 100) << bs; // documented range 100..120
		EXPECT_LE(r.mbps(), 120) << bs;
	}
}

TEST(HddSequential, ReadStreamsAtTheInnerZoneRate)
{
	for (uint32_t bs : {8u, 128u, 2048u}) {
		auto d = default_hdd();
		uint64_t n = 96 * 2048 / bs; // 96 MiB, after a full-stroke seek
		uint64_t first = d->capacity_sectors() - n * bs;
		double zone = d->geometry().rate_mbps(first);
		auto r = closed_loop(*d, 1, n, sequential(first, bs));
		EXPECT_GT(r.mbps(), 0.97 * zone) << bs;
		EXPECT_LE(r.mbps(), zone * 1.001) << bs;
		EXPECT_GE(r.mbps(), 55) << bs; // documented range 55..60
		EXPECT_LE(r.mbps(), 60) << bs;
	}
}

TEST(HddSequential, ZoneRateFallsFromOuterToInner)
{
	auto d = default_hdd();
	const auto &zones = d->geometry().zones();
	ASSERT_EQ(zones.size(), 16u);
	for (size_t i = 1; i < zones.size(); i++)
		EXPECT_LT(zones[i].spt, zones[i - 1].spt);
	EXPECT_NEAR(d->geometry().rate_mbps(0), 115, 0.1);
	EXPECT_NEAR(d->geometry().rate_mbps(d->capacity_sectors() - 1), 58, 0.1);
}

TEST(HddRandom, Read4kAtDepth1IsWithinDocumentedRange)
{
	auto d = default_hdd();
	auto r = closed_loop(*d, 1, 4000, random_io(0, d->capacity_sectors(), 8, 1));
	EXPECT_GE(r.iops(), 75);
	EXPECT_LE(r.iops(), 90);
}

TEST(HddRandom, Read4kAtDepth31WithNcqIsWithinDocumentedRange)
{
	auto d1 = default_hdd();
	auto r1 = closed_loop(*d1, 1, 4000, random_io(0, d1->capacity_sectors(), 8, 2));
	auto d = default_hdd();
	auto r = closed_loop(*d, 31, 10000, random_io(0, d->capacity_sectors(), 8, 2));
	EXPECT_GE(r.iops(), 150);
	EXPECT_LE(r.iops(), 200);
	EXPECT_GT(r.iops(), 1.8 * r1.iops()); // NCQ helps
}

TEST(HddRandom, RotationCostsHalfARevolutionOnAverage)
{
	// Random sectors on the head's own cylinder: no seek, only rotation.
	HddParams p;
	p.readahead_kib = 0; // every read goes to the media
	auto d = std::make_unique<Hdd>(p);
	const HddGeometry &g = d->geometry();
	std::mt19937_64 rng(3);
	uint64_t base = g.first_lba(1000);
	int64_t t = 0, total = 0;
	const int n = 2000;
	for (int i = 0; i < n; i++) {
		Request rq;
		rq.sector = base + rng() % (g.zone_of(base).spt - 8);
		rq.sectors = 8;
		int64_t lat = lone(*d, rq, t);
		total += lat;
		t += lat + 1234567; // unrelated to the revolution
	}
	double rot_ms = (double(total) / n - 15e3 - g.xfer_ns(base, base + 8)) / 1e6;
	EXPECT_NEAR(rot_ms, g.rev_ns() / 2e6, 0.25); // 4.17 ms at 7200 rpm
}

// A request far away from a stream of cheap nearby requests is served within
// the aging bound; without aging (a huge bound) it is starved.
TEST(HddNcq, AgingPreventsStarvationInsideTheQueue)
{
	for (double bound_ms : {500.0, 1e6}) {
		HddParams p;
		p.ncq_max_wait_ms = bound_ms;
		Hdd d(p);
		std::mt19937_64 rng(4);
		std::vector<Completion> out;
		uint64_t id = 1;
		auto near = [&](int64_t t) {
			Request rq;
			rq.id = id++;
			rq.sector = (rng() % 20000) * 8; // first 80 MB
			rq.sectors = 8;
			d.submit(rq, t);
		};
		for (int i = 0; i < 30; i++)
			near(0);
		Request far;
		far.id = 999999;
		far.sector = d.capacity_sectors() - 8;
		far.sectors = 8;
		d.submit(far, 0);
		int64_t far_done = kNever, t = 0;
		while (t < 3000000000LL && far_done == kNever) {
			t = d.next_event();
			out.clear();
			d.advance(t, out);
			for (const Completion &c : out) {
				if (c.id == far.id)
					far_done = c.time;
				else
					near(c.time);
			}
		}
		if (bound_ms < 1000) {
			EXPECT_GT(far_done, 500e6);
			EXPECT_LT(far_done, 550e6); // the bound plus one operation
		} else {
			EXPECT_EQ(far_done, kNever); // pure SPTF starves it
		}
	}
}

TEST(HddReadAhead, SequentialReadAfterThinkTimeIsServedFromTheBuffer)
{
	auto d = default_hdd();
	int64_t t = 0;
	Request rq;
	rq.sectors = 128;
	int64_t first = lone(*d, rq, t);
	t += first + 2000000; // 2 ms think time: the read-ahead runs on
	rq.sector = 128;
	int64_t second = lone(*d, rq, t);
	EXPECT_GT(first, 1000000);
	// Command overhead + 64 KiB over the 300 MB/s link.
	EXPECT_NEAR(second, 15000 + 65536 / 300e6 * 1e9, 2);
}

TEST(HddWriteCache, WritesCompleteFasterThanTheMedia)
{
	auto cached = default_hdd();
	HddParams p;
	p.write_cache = false;
	Hdd through(p);
	auto rc =
		closed_loop(*cached, 1, 500, random_io(0, cached->capacity_sectors(), 8, 5, true));
	auto rt =
		closed_loop(through, 1, 500, random_io(0, through.capacity_sectors(), 8, 5, true));
	// 500 writes fit in the 16 MiB cache: each takes overhead + transfer.
	EXPECT_LT(rc.max_latency, 100000);
	EXPECT_GT(rt.elapsed, 50 * rc.elapsed);
	EXPECT_GT(cached->dirty_sectors(), 0u);
	EXPECT_EQ(through.dirty_sectors(), 0u);
}

TEST(HddWriteCache, FullCacheWritesStreamAtTheMediaRate)
{
	auto d = default_hdd();
	uint64_t n = 512 * 256; // 512 MiB of 4 KiB writes
	auto r = closed_loop(*d, 1, n, sequential(0, 8, true));
	// The first 16 MiB go at link speed, the rest at the media rate.
	EXPECT_GT(r.mbps(), 0.99 * d->geometry().rate_mbps(0));
	EXPECT_LT(r.mbps(), 1.05 * d->geometry().rate_mbps(0));
	EXPECT_LE(d->busy_total(), r.elapsed);
}

TEST(HddWriteCache, DestagesWhenTheMediaIsIdle)
{
	auto d = default_hdd();
	auto r = closed_loop(*d, 4, 64, random_io(0, d->capacity_sectors(), 8, 6, true, 7));
	EXPECT_GT(d->dirty_sectors(), 0u); // destaging has only begun
	EXPECT_LE(d->dirty_sectors(), 64u * 8);
	std::vector<Completion> out;
	d->advance(r.elapsed + 2000000000LL, out);
	EXPECT_EQ(d->dirty_sectors(), 0u);
	EXPECT_EQ(d->next_event(), kNever);
	// The writer's tag pays for the destage.
	EXPECT_GT(d->busy_by_tag()[7], 64 * 4000000LL);
	EXPECT_EQ(d->busy_by_tag()[7], d->busy_total());
}

TEST(HddWriteCache, FlushWaitsForTheDestage)
{
	auto d = default_hdd();
	std::mt19937_64 rng(8);
	std::vector<Completion> out;
	for (uint64_t i = 1; i <= 20; i++) {
		Request w;
		w.id = i;
		w.sector = (rng() % 100000000) * 8;
		w.sectors = 8;
		w.write = true;
		d->submit(w, 0);
	}
	d->advance(800000, out);
	EXPECT_EQ(out.size(), 20u); // in the cache within 0.8 ms
	EXPECT_EQ(d->dirty_sectors(), 160u);
	Request f;
	f.id = 100;
	f.flush = true;
	d->submit(f, 800000);
	int64_t flushed = 0;
	while (!flushed) {
		out.clear();
		d->advance(d->next_event(), out);
		for (const Completion &c : out)
			if (c.id == 100) {
				flushed = c.time;
				EXPECT_EQ(d->dirty_sectors(), 0u);
			}
	}
	EXPECT_GT(flushed, 20 * 3000000LL); // 20 random writes on the media
	// A flush of an empty cache costs only the command overhead.
	Request g;
	g.id = 101;
	g.flush = true;
	EXPECT_EQ(lone(*d, g, flushed + 1000), 15000);
}

TEST(HddWriteCache, FuaBypassesTheCache)
{
	auto d = default_hdd();
	Request w;
	w.sector = 123456789;
	w.sectors = 8;
	w.write = true;
	w.fua = true;
	int64_t fua = lone(*d, w, 0);
	EXPECT_EQ(d->dirty_sectors(), 0u);
	EXPECT_GT(fua, 1000000); // seek and rotation
	w.fua = false;
	w.sector = 987654;
	int64_t cached = lone(*d, w, fua + 1000);
	EXPECT_EQ(d->dirty_sectors(), 8u);
	EXPECT_LT(cached, 50000);
}

TEST(HddWriteCache, ReadsGetTheirShareWhenTheCacheIsFull)
{
	// A sequential reader against a random writer that keeps the cache
	// full: destages and reads alternate, neither starves.
	auto d = default_hdd();
	std::mt19937_64 rng(9);
	std::vector<Completion> out;
	uint64_t id = 1, reads = 0, writes = 0, next_read = 0;
	std::set<uint64_t> write_ids;
	auto read = [&](int64_t t) {
		Request rq;
		rq.id = id++;
		rq.sector = next_read;
		rq.sectors = 128;
		next_read += 128;
		d->submit(rq, t);
	};
	auto write = [&](int64_t t) {
		Request rq;
		rq.id = id++;
		rq.sector = (rng() % 100000000) * 8;
		rq.sectors = 8;
		rq.write = true;
		rq.tag = 1;
		write_ids.insert(rq.id);
		d->submit(rq, t);
	};
	read(0);
	for (int i = 0; i < 4; i++)
		write(0);
	int64_t t = 0;
	while (t < 20000000000LL) {
		t = d->next_event();
		out.clear();
		d->advance(t, out);
		for (const Completion &c : out) {
			if (write_ids.count(c.id)) {
				writes++;
				write(c.time);
			} else {
				reads++;
				read(c.time);
			}
		}
	}
	EXPECT_GT(reads, 20 * 20u);	    // > 20 reads/s
	EXPECT_GT(writes, 4096u + 20 * 20); // the cache, then > 20 destages/s
	double share = double(d->busy_by_tag()[0]) / d->busy_total();
	EXPECT_GT(share, 0.3);
	EXPECT_LT(share, 0.7);
}

} // namespace
} // namespace efqsim::dev
