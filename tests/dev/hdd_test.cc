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

// --- several sequential streams ------------------------------------------------

constexpr uint64_t kGB = 1000ull * 1000 * 1000 / 512; // sectors

struct StreamsResult {
	int64_t elapsed = 0;
	std::vector<uint64_t> bytes; // per stream
	double mbps() const
	{
		uint64_t sum = 0;
		for (uint64_t b : bytes)
			sum += b;
		return sum / (elapsed * 1e-9) / 1e6;
	}
};

// @n sequential streams of @sectors-sized requests, one request in flight
// each (fio's psync jobs under noop), stream i from i * 100 GB with tag i,
// for @ns of simulated time.
StreamsResult streams(Device &d, int n, uint32_t sectors, bool write, int64_t ns)
{
	StreamsResult r;
	r.bytes.assign(n, 0);
	std::vector<uint64_t> next(n);
	std::vector<int> owner;
	uint64_t id = 0;
	auto submit = [&](int s, int64_t t) {
		Request rq;
		rq.id = ++id;
		rq.sector = next[s];
		rq.sectors = sectors;
		rq.write = write;
		rq.tag = s;
		next[s] += sectors;
		owner.push_back(s);
		d.submit(rq, t);
	};
	for (int s = 0; s < n; s++) {
		next[s] = s * 100 * kGB;
		submit(s, 0);
	}
	std::vector<Completion> out;
	int64_t t = 0;
	while (t < ns) {
		t = d.next_event();
		out.clear();
		d.advance(t, out);
		for (const Completion &c : out) {
			int s = owner[c.id - 1];
			r.bytes[s] += uint64_t(sectors) * 512;
			submit(s, c.time);
		}
	}
	r.elapsed = t;
	return r;
}

// The mean of the zone rates where @n streams of streams() start: what
// their aggregate is compared with.
double mean_zone_rate(const Hdd &d, int n)
{
	double sum = 0;
	for (int s = 0; s < n; s++)
		sum += d.geometry().rate_mbps(s * 100 * kGB);
	return sum / n;
}

// Reads 128 KiB of each stream at @at after an idle pause, so that each
// stream's read-ahead fills its segment.
void prime(Hdd &d, const std::vector<uint64_t> &at, int64_t *t)
{
	for (uint64_t a : at) {
		Request rq;
		rq.sector = a;
		rq.sectors = 256;
		*t += lone(d, rq, *t) + 20000000; // 20 ms: the read-ahead fills 1 MiB
	}
}

// The latency of a read served from a segment: command overhead plus
// 128 KiB over the 300 MB/s link.
constexpr double kHit128k = 15000 + 131072 / 300e6 * 1e9;

TEST(HddReadCache, EachStreamHitsItsOwnSegment)
{
	for (uint32_t segments : {16u, 1u}) {
		SCOPED_TRACE(segments);
		HddParams p;
		p.read_segments = segments;
		Hdd d(p);
		std::vector<uint64_t> at = {0, 100 * kGB, 200 * kGB, 300 * kGB};
		int64_t t = 0;
		prime(d, at, &t);
		// Then the streams take turns, 128 KiB each, 4 rounds: with a
		// segment per stream every read is a hit; with one segment only
		// the stream read last is.
		std::vector<int> hits(at.size());
		for (int round = 1; round <= 4; round++) {
			for (size_t s = 0; s < at.size(); s++) {
				Request rq;
				rq.sector = at[s] + round * 256;
				rq.sectors = 256;
				int64_t lat = lone(d, rq, t);
				t += lat;
				if (std::abs(lat - kHit128k) <= 2)
					hits[s]++;
				else
					EXPECT_GT(lat, 1000000); // a miss: seek and rotation
			}
		}
		for (size_t s = 0; s < at.size(); s++)
			EXPECT_EQ(hits[s], segments > 1 ? 4 : 0) << "stream " << s;
	}
}

TEST(HddReadCache, LeastRecentlyUsedSegmentIsEvicted)
{
	HddParams p;
	p.read_segments = 4;
	Hdd d(p);
	int64_t t = 0;
	std::vector<uint64_t> at = {0, 100 * kGB, 200 * kGB, 300 * kGB};
	prime(d, at, &t);
	auto read = [&](uint64_t sector) {
		Request rq;
		rq.sector = sector;
		rq.sectors = 256;
		int64_t lat = lone(d, rq, t);
		t += lat;
		return lat;
	};
	// Stream 0 is read again (a hit, now the most recently used); a fifth
	// stream then takes the least recently used segment: stream 1's.
	EXPECT_NEAR(read(256), kHit128k, 2);
	prime(d, {400 * kGB}, &t);
	EXPECT_NEAR(read(400 * kGB + 256), kHit128k, 2);
	EXPECT_NEAR(read(512), kHit128k, 2);
	EXPECT_NEAR(read(300 * kGB + 256), kHit128k, 2);
	EXPECT_NEAR(read(200 * kGB + 256), kHit128k, 2);
	EXPECT_GT(read(100 * kGB + 256), 1000000); // evicted
}

TEST(HddReadCache, OneStreamStillStreamsAtTheZoneRate)
{
	for (uint32_t sectors : {256u, 2048u}) {
		auto d = default_hdd();
		auto r = streams(*d, 1, sectors, false, 5000000000LL);
		EXPECT_GT(r.mbps(), 0.99 * d->geometry().rate_mbps(0));
		EXPECT_LT(r.mbps(), 1.01 * d->geometry().rate_mbps(0));
	}
}

// The documented range (devices.rst, "Several streams"): 2 and 4 interleaved
// sequential readers at depth 1 each, 128 KiB or 1 MiB requests, get 45-85 %
// of the mean single-stream rate of their zones together; every stream
// progresses.
TEST(HddReadCache, SeveralReadersKeepMostOfTheSingleStreamRate)
{
	for (int n : {2, 4}) {
		for (uint32_t sectors : {256u, 2048u}) {
			SCOPED_TRACE(std::to_string(n) + " readers, " +
				     std::to_string(sectors / 2) + " KiB");
			auto d = default_hdd();
			auto r = streams(*d, n, sectors, false, 10000000000LL);
			double share = r.mbps() / mean_zone_rate(*d, n);
			EXPECT_GT(share, 0.45);
			EXPECT_LT(share, 0.85);
			for (uint64_t b : r.bytes)
				EXPECT_GT(b / 10.0 / 1e6, 0.05 * r.mbps()); // > 5 % each
		}
	}
	// Without the segments and the sequential prefetch (the model before
	// them): every switch between streams loses the read-ahead.
	HddParams p;
	p.read_segments = 1;
	p.seq_prefetch_kib = 0;
	Hdd one(p);
	auto r = streams(one, 4, 256, false, 10000000000LL);
	EXPECT_LT(r.mbps() / mean_zone_rate(one, 4), 0.2);
}

TEST(HddWriteCache, InterleavedSequentialWritesCoalescePerStream)
{
	auto d = default_hdd();
	// 4 streams take turns, 4 writes of 256 KiB each, all into the cache.
	uint64_t id = 0;
	for (int i = 0; i < 4; i++) {
		for (int s = 0; s < 4; s++) {
			Request rq;
			rq.id = ++id;
			rq.sector = s * 100 * kGB + i * 512;
			rq.sectors = 512;
			rq.write = true;
			rq.tag = s;
			d->submit(rq, 0);
		}
	}
	std::vector<Completion> out;
	while (out.size() < 16)
		d->advance(d->next_event(), out);
	EXPECT_EQ(d->dirty_extents(), 4u); // one extent per stream
	int64_t last = 0;
	for (int64_t t; (t = d->next_event()) != kNever; last = t)
		d->advance(t, out);
	EXPECT_EQ(d->dirty_sectors(), 0u);
	// Four destages of 1 MiB after 1 ms of idle media: each at most a
	// full-stroke seek, the write settle and a revolution, plus the
	// transfer (at least 84 MB/s in these zones).
	EXPECT_LT(last, 1e6 + 4 * (18 + 0.5 + 8.4) * 1e6 + 4 * 1048576 / 84e6 * 1e9);

	// Contiguous writes of two tags stay two extents (each tag pays for
	// its own destage).
	auto e = default_hdd();
	Request w;
	w.id = 1;
	w.sectors = 8;
	w.write = true;
	w.tag = 1;
	e->submit(w, 0);
	w.id = 2;
	w.sector = 8;
	w.tag = 2;
	e->submit(w, 0);
	out.clear();
	while (out.size() < 2)
		e->advance(e->next_event(), out);
	EXPECT_EQ(e->dirty_extents(), 2u);
}

// The documented range: 2 and 4 interleaved sequential writers at depth 1
// each keep 80-100 % of the mean single-stream rate of their zones: the
// cache coalesces each stream and destages it in long sequential runs.
TEST(HddWriteCache, SeveralWritersKeepMostOfTheSingleStreamRate)
{
	for (int n : {2, 4}) {
		for (uint32_t sectors : {256u, 2048u}) {
			SCOPED_TRACE(std::to_string(n) + " writers, " +
				     std::to_string(sectors / 2) + " KiB");
			auto d = default_hdd();
			auto r = streams(*d, n, sectors, true, 10000000000LL);
			double share = r.mbps() / mean_zone_rate(*d, n);
			EXPECT_GT(share, 0.8);
			EXPECT_LT(share,
				  1.03); // the zone rates, plus the first 16 MiB at link speed
			EXPECT_LE(d->dirty_extents(), size_t(2 * n));
		}
	}
}

} // namespace
} // namespace efqsim::dev
