// SPDX-License-Identifier: GPL-2.0
// The multipath model: paths and the backend, and the request-based
// sequential-IO merge deadline as a unit, with the rules of the 2015 dm
// series that added it (Documentation/sim/devices.rst): default 0, the
// value read back, clamping at 100000 us, EINVAL for garbage, accepted and
// ignored on a bio-based device, no bookkeeping at 0, a delay only when
// all five conditions hold.

#include "dev/multipath.h"
#include "harness.h"

#include <cerrno>
#include <gtest/gtest.h>

namespace efqsim::dev {
namespace {

using test::closed_loop;
using test::random_io;
using test::sequential;

Request write_at(uint64_t id, uint64_t sector, uint32_t sectors = 8)
{
	Request rq;
	rq.id = id;
	rq.sector = sector;
	rq.sectors = sectors;
	rq.write = true;
	return rq;
}

TEST(Multipath, Defaults)
{
	std::string err;
	auto d = make_device("multipath", &err);
	ASSERT_TRUE(d) << err;
	EXPECT_EQ(d->name(), "multipath");
	EXPECT_EQ(d->queue_depth(), 4u * 32u);
	EXPECT_FALSE(d->rotational());
	auto *m = dynamic_cast<Multipath *>(d.get());
	ASSERT_TRUE(m);
	// the default is 0 (the heuristic off)
	EXPECT_EQ(m->show_merge_deadline(), "0");
	EXPECT_NE(d->params().find("rq_based_seq_io_merge_deadline = 0"), std::string::npos);
}

TEST(Multipath, DeadlineReadBackClampAndErrors)
{
	Multipath m{MultipathParams{}};
	EXPECT_EQ(m.store_merge_deadline("20"), 0);
	EXPECT_EQ(m.show_merge_deadline(), "20");
	EXPECT_EQ(m.store_merge_deadline("20\n"), 0);
	EXPECT_EQ(m.show_merge_deadline(), "20");
	EXPECT_EQ(m.store_merge_deadline("200000"), 0);
	EXPECT_EQ(m.show_merge_deadline(), "100000");
	EXPECT_EQ(m.store_merge_deadline("100000"), 0);
	EXPECT_EQ(m.show_merge_deadline(), "100000");
	for (const char *bad : {"abc", "", "-1", "1.5", "20 us", "0x10", "\n"}) {
		EXPECT_EQ(m.store_merge_deadline(bad), -EINVAL) << bad;
		EXPECT_EQ(m.show_merge_deadline(), "100000") << bad;
	}
	EXPECT_EQ(m.store_merge_deadline("4294967296"), -ERANGE);
	EXPECT_EQ(m.store_merge_deadline("0"), 0);
	EXPECT_EQ(m.show_merge_deadline(), "0");
}

TEST(Multipath, DeadlineFromTheDeviceString)
{
	std::string err;
	auto d = make_device("multipath:rq_based_seq_io_merge_deadline=200000", &err);
	ASSERT_TRUE(d) << err;
	EXPECT_EQ(dynamic_cast<Multipath &>(*d).show_merge_deadline(), "100000");
	EXPECT_NE(d->params().find("rq_based_seq_io_merge_deadline = 100000"), std::string::npos);
	d = make_device("multipath:rq_based_seq_io_merge_deadline=abc", &err);
	EXPECT_FALSE(d);
	EXPECT_NE(err.find("rq_based_seq_io_merge_deadline: 'abc' is not a whole number"),
		  std::string::npos)
		<< err;
	d = make_device("multipath:paths=2,path_queue_depth=8,round_robin=1", &err);
	ASSERT_TRUE(d) << err;
	EXPECT_EQ(d->queue_depth(), 16u);
	for (const char *bad : {"multipath:paths", "multipath:paths=2,paths=3", "multipath:nope=1",
				"multipath:paths=0", "multipath:paths=64,path_queue_depth=1024"}) {
		EXPECT_FALSE(make_device(bad, &err)) << bad;
		EXPECT_EQ(err.find("device"), 0u) << err;
	}
	// every built-in model takes inline parameters
	d = make_device("ssd:queue_depth=8", &err);
	ASSERT_TRUE(d) << err;
	EXPECT_EQ(d->queue_depth(), 8u);
}

TEST(Multipath, BioBasedAcceptsWritesSilentlyAndReadsZero)
{
	MultipathParams p;
	p.bio_based = true;
	Multipath m(p);
	EXPECT_EQ(m.store_merge_deadline("20"), 0);
	EXPECT_EQ(m.show_merge_deadline(), "0");
	EXPECT_EQ(m.store_merge_deadline("abc"), -EINVAL);
	// and it never defers
	m.submit(write_at(1, 0), 0);
	EXPECT_EQ(m.defer_until(write_at(2, 8), 1000), 0);
	EXPECT_EQ(m.stats().checked, 0u);
	EXPECT_EQ(m.last_rq_start_time(), -1);
}

TEST(Multipath, ZeroDeadlineRecordsNothingAndNeverDefers)
{
	Multipath m{MultipathParams{}};
	int traced = 0;
	m.trace = [&](const Multipath::Decision &) { traced++; };
	for (uint64_t i = 0; i < 50; i++) {
		Request rq = write_at(i + 1, i * 8);
		EXPECT_EQ(m.defer_until(rq, int64_t(i) * 100), 0);
		m.submit(rq, int64_t(i) * 100);
	}
	EXPECT_EQ(m.stats().recorded, 0u);
	EXPECT_EQ(m.stats().checked, 0u);
	EXPECT_EQ(m.stats().deferred, 0u);
	EXPECT_EQ(m.last_rq_start_time(), -1);
	EXPECT_EQ(traced, 0);
}

// Every combination of the five conditions: deferred exactly when all hold,
// until the deadline after the last start.
TEST(Multipath, DefersOnlyWhenAllFiveConditionsHold)
{
	const int64_t deadline_ns = 20000;
	for (int mask = 0; mask < 32; mask++) {
		bool c1 = mask & 1, c2 = mask & 2, c3 = mask & 4, c4 = mask & 8, c5 = mask & 16;
		MultipathParams p;
		p.rq_based_seq_io_merge_deadline = 20;
		p.request_us = 5; // the first request completes at 5 us + its bytes
		Multipath m(p);
		std::vector<Multipath::Decision> seen;
		m.trace = [&](const Multipath::Decision &d) { seen.push_back(d); };
		const int64_t t0 = 1000;
		m.submit(write_at(1, 800), t0);
		std::vector<Completion> out;
		int64_t now = t0 + 1000;
		if (!c2) { // let it complete (before the deadline passes)
			m.advance(m.next_event(), out);
			now = std::max(now, out.back().time);
		}
		if (!c1)
			now = t0 + deadline_ns + 1;
		else if (c2)
			now = t0 + deadline_ns; // the last instant that still counts
		ASSERT_EQ(m.in_flight() > 0, c2) << mask;
		Request rq = write_at(2, c4 ? 808 : 816, c3 ? 8 : 16);
		rq.first_bio_segments = c3 ? 1 : 2;
		rq.write = c5;
		int64_t later = m.defer_until(rq, now);
		bool all = mask == 31;
		ASSERT_EQ(seen.size(), 1u);
		const auto &d = seen[0];
		EXPECT_EQ(d.before_deadline, c1) << mask;
		EXPECT_EQ(d.in_flight, c2) << mask;
		EXPECT_EQ(d.single_segment, c3) << mask;
		EXPECT_EQ(d.contiguous, c4) << mask;
		EXPECT_EQ(d.same_direction, c5) << mask;
		EXPECT_EQ(d.deferred, all) << mask;
		EXPECT_EQ(later, all ? t0 + deadline_ns + 1 : 0) << mask;
		EXPECT_EQ(m.stats().deferred, all ? 1u : 0u) << mask;
	}
}

TEST(Multipath, NoRecordMeansNoDeferral)
{
	MultipathParams p;
	p.rq_based_seq_io_merge_deadline = 20;
	Multipath m(p);
	// nothing started yet: condition 1 cannot hold
	EXPECT_EQ(m.defer_until(write_at(1, 0), 0), 0);
	m.submit(write_at(1, 0), 0);
	EXPECT_EQ(m.last_rq_start_time(), 0);
	EXPECT_EQ(m.stats().recorded, 1u);
	EXPECT_GT(m.defer_until(write_at(2, 8), 10), 10);
	// turning it off forgets the record
	EXPECT_EQ(m.store_merge_deadline("0"), 0);
	EXPECT_EQ(m.last_rq_start_time(), -1);
	EXPECT_EQ(m.defer_until(write_at(2, 8), 10), 0);
}

TEST(Multipath, BackendIsIopsBound)
{
	// one channel, 10 us per request plus 2000 MB/s: 4 KiB costs 12.048 us,
	// 64 KiB 42.768 us, so 16x the bytes take only 3.5x the time
	Multipath m{MultipathParams{}};
	auto small = closed_loop(m, 128, 2000, sequential(0, 8));
	Multipath m2{MultipathParams{}};
	auto big = closed_loop(m2, 128, 2000, sequential(0, 128));
	EXPECT_NEAR(small.iops(), 1e9 / 12048, 100);
	EXPECT_NEAR(big.iops(), 1e9 / 42768, 30);
	EXPECT_GT(big.mbps(), 4 * small.mbps());
	// saturated: busy time is the elapsed time
	EXPECT_NEAR(double(m.busy_total()), double(small.elapsed), small.elapsed * 0.01);
}

TEST(Multipath, PathSelection)
{
	for (bool rr : {false, true}) {
		MultipathParams p;
		p.round_robin = rr;
		p.paths = 4;
		p.path_queue_depth = 2;
		Multipath m(p);
		for (uint64_t i = 0; i < 8; i++)
			m.submit(write_at(i + 1, i * 8), 0);
		for (uint32_t path = 0; path < 4; path++) {
			EXPECT_EQ(m.path_in_flight(path), 2u) << rr;
			EXPECT_EQ(m.stats().per_path[path], 2u) << rr;
		}
		// full: the model rejects a ninth
		EXPECT_THROW(m.submit(write_at(9, 64), 0), RejectedRequest);
		std::vector<Completion> out;
		m.advance(kNever, out);
		EXPECT_EQ(out.size(), 8u);
		EXPECT_EQ(m.in_flight(), 0u);
	}
	// random IO spreads over the paths
	Multipath m{MultipathParams{}};
	closed_loop(m, 100, 4000, random_io(0, m.capacity_sectors(), 8, 3, true));
	for (uint32_t path = 0; path < 4; path++)
		EXPECT_GT(m.stats().per_path[path], 500u);
}

} // namespace
} // namespace efqsim::dev
