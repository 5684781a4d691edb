// SPDX-License-Identifier: GPL-2.0
// The qemu disks (dev::Throttled): qemu's leaky buckets to the nanosecond
// (the burst, the rate, the byte limit, the burst rate, iops_size), arrival
// order, reads and writes queued apart, nothing lost, time-shared busy
// time, the presets and their parameter checks.

#include "dev/throttled.h"
#include "harness.h"

#include <gtest/gtest.h>

#include <map>
#include <numeric>
#include <random>
#include <set>

namespace efqsim::dev {
namespace {

using test::closed_loop;
using test::random_io;

constexpr int64_t kMs = 1000000;
constexpr int64_t kLat = 60000; // latency_us = 60

Throttled nvme(ThrottledParams p = {})
{
	return Throttled(p, "qemu-nvme");
}

Request io(uint64_t id, uint32_t sectors, bool write = false, uint32_t tag = 0)
{
	Request rq;
	rq.id = id;
	rq.sector = (id * 8) % 4000000;
	rq.sectors = sectors;
	rq.write = write;
	rq.tag = tag;
	return rq;
}

// Submits @n requests of @sectors at time 0 (ids 1..n); every completion,
// in the order handed out.
std::vector<Completion> all_at_once(Throttled &d, uint32_t n, uint32_t sectors)
{
	for (uint32_t i = 1; i <= n; i++)
		d.submit(io(i, sectors), 0);
	std::vector<Completion> out;
	d.advance(kNever, out);
	EXPECT_EQ(out.size(), n);
	EXPECT_EQ(d.in_flight(), 0u);
	return out;
}

// The default bucket holds a tenth of a second: 101 IOs go at once (while
// the level is at most 100), then one a millisecond, in arrival order.
TEST(Throttled, IopsBurstOfATenthThenTheRateInArrivalOrder)
{
	Throttled d = nvme();
	auto out = all_at_once(d, 2000, 8);
	for (uint32_t k = 0; k < out.size(); k++) {
		EXPECT_EQ(out[k].id, k + 1);
		int64_t released = k <= 100 ? 0 : int64_t(k - 100) * kMs;
		ASSERT_EQ(out[k].time, released + kLat) << k;
	}
}

// 64 KiB requests meet the byte limit first: 40 MiB/s is 640 a second and
// its bucket 4 MiB, so 65 go at once, then one every 1.5625 ms.
TEST(Throttled, BytesBurstThenTheByteRate)
{
	Throttled d = nvme();
	auto out = all_at_once(d, 300, 128);
	for (uint32_t k = 0; k < out.size(); k++) {
		int64_t released = k <= 64 ? 0 : int64_t(k - 64) * 1562500;
		ASSERT_EQ(out[k].time, released + kLat) << k;
	}
}

// Kept busy, the rate holds to the IO: in every second after the burst,
// 1000 IOs complete.
TEST(Throttled, TheRateHoldsUnderAClosedLoop)
{
	Throttled d = nvme();
	auto r = closed_loop(d, 32, 6000, random_io(0, d.capacity_sectors(), 8, 4));
	std::map<int64_t, int> per_s;
	for (const Completion &c : r.log)
		per_s[c.time / 1000000000]++;
	ASSERT_GE(per_s.size(), 5u);
	for (int64_t s = 1; s <= 4; s++)
		EXPECT_EQ(per_s[s], 1000) << s;
	// 101 in the burst, then one a millisecond (give or take the whole
	// nanoseconds a wait is rounded down to)
	EXPECT_NEAR(r.elapsed, (6000 - 101) * kMs + kLat, 10);
}

// qemu's burst settings: iops_total_max x iops_total_max_length is the
// bucket; with a length above 1 a second level, leaking at the burst rate,
// holds the burst to that rate (its bucket a tenth of it).
TEST(Throttled, BurstRateAndLength)
{
	ThrottledParams p;
	p.iops_total_max = 2000;
	Throttled a = nvme(p);
	// 512-byte requests, far from the byte limit
	auto out = all_at_once(a, 2040, 1);
	EXPECT_EQ(out[2000].time, kLat); // levels 0..2000 go
	EXPECT_EQ(out[2001].time, 1 * kMs + kLat);
	EXPECT_EQ(out[2039].time, 39 * kMs + kLat);

	p.iops_total_max = 1500;
	p.iops_total_max_length = 2;
	Throttled b = nvme(p);
	out = all_at_once(b, 200, 1);
	EXPECT_EQ(out[150].time, kLat); // the burst level's 150 + 1
	// (151 - 150) / 1500 s, in whole ns rounded down
	EXPECT_EQ(out[151].time, 666666 + kLat);
	EXPECT_EQ(out[152].time, 666666 + 666667 + kLat);
}

// iops_size: a request counts as its bytes over iops_size IOs.
TEST(Throttled, IopsSizeCountsLargeRequestsAsSeveralIOs)
{
	ThrottledParams p;
	p.iops_size = 4096;
	Throttled d = nvme(p);
	auto out = all_at_once(d, 9, 128); // 64 KiB: 16 IOs each
	for (int k = 0; k <= 6; k++)
		EXPECT_EQ(out[k].time, kLat) << k; // levels 0, 16, ..., 96
	EXPECT_EQ(out[7].time, 12 * kMs + kLat);   // 112 - 100 = 12 IOs
	EXPECT_EQ(out[8].time, 28 * kMs + kLat);   // then 16 IOs later
}

// Reads and writes wait in queues of their own, each with its timer, over
// the same buckets: a write behind a bucket full of reads arms its own
// timer and goes when the read does.
TEST(Throttled, ReadsAndWritesQueueApart)
{
	Throttled d = nvme();
	for (uint64_t i = 1; i <= 101; i++)
		d.submit(io(i, 8), 0);
	d.submit(io(200, 8), 0);       // a read: waits for the read timer
	d.submit(io(300, 8, true), 0); // a write: waits for its own
	EXPECT_EQ(d.throttled(0), 1u);
	EXPECT_EQ(d.throttled(1), 1u);
	EXPECT_EQ(d.next_event(), kLat);
	std::vector<Completion> out;
	d.advance(kNever, out);
	ASSERT_EQ(out.size(), 103u);
	EXPECT_EQ(out[101].id, 200u);
	EXPECT_EQ(out[101].time, kMs + kLat);
	EXPECT_EQ(out[102].id, 300u);
	EXPECT_EQ(out[102].time, kMs + kLat);
	EXPECT_EQ(d.iops_bucket().level, 103);
}

// Flushes and discards pass the throttle by: latency_us, even when reads
// and writes wait; they take nothing of the buckets.
TEST(Throttled, FlushesAndDiscardsAreNotThrottled)
{
	Throttled d = nvme();
	for (uint64_t i = 1; i <= 150; i++)
		d.submit(io(i, 8, true), 0);
	Request f;
	f.id = 1000;
	f.flush = f.write = true;
	d.submit(f, 0);
	Request t = io(1001, 2048, true);
	t.discard = true;
	t.ranges = {{t.sector, t.sectors}};
	d.submit(t, 0);
	std::vector<Completion> out;
	d.advance(kLat, out);
	std::set<uint64_t> ids;
	for (const Completion &c : out)
		ids.insert(c.id);
	EXPECT_EQ(out.size(), 103u);
	EXPECT_TRUE(ids.count(1000) && ids.count(1001));
	EXPECT_EQ(d.iops_bucket().level, 101);
	EXPECT_EQ(d.bps_bucket().level, 101 * 4096);
}

// An idle device leaks: after a second without IO the whole burst is back.
TEST(Throttled, AnIdleSecondRefillsTheBurst)
{
	Throttled d = nvme();
	auto out = all_at_once(d, 150, 8);
	int64_t t = out.back().time + 1000 * kMs;
	for (uint64_t i = 1; i <= 102; i++)
		d.submit(io(1000 + i, 8), t);
	out.clear();
	d.advance(kNever, out);
	ASSERT_EQ(out.size(), 102u);
	EXPECT_EQ(out[100].time, t + kLat);
	EXPECT_EQ(out[101].time, t + kMs + kLat);
}

// Random sizes, directions, flushes and discards at random times: every
// request completes once, no earlier than latency_us after it came, and the
// reads (and the writes) leave the throttle in the order they came.
TEST(Throttled, NothingIsLostAndEachDirectionKeepsItsOrder)
{
	Throttled d = nvme();
	std::mt19937_64 rng(7);
	std::map<uint64_t, int64_t> sent;
	std::map<uint64_t, int> dir_of; // 0 read, 1 write, 2 flush or discard
	std::vector<Completion> out;
	int64_t t = 0;
	for (uint64_t id = 1; id <= 5000; id++) {
		t += rng() % 2000000;
		d.advance(t, out);
		if (d.in_flight() == d.queue_depth())
			continue;
		Request rq = io(id, 1 + rng() % 256, rng() % 2, rng() % 4);
		int kind = rng() % 20;
		if (kind == 0) {
			rq.flush = rq.write = true;
			rq.sectors = rq.sector = 0;
		} else if (kind == 1) {
			rq.discard = rq.write = true;
			rq.ranges = {{rq.sector, rq.sectors}};
		}
		d.submit(rq, t);
		sent[id] = t;
		dir_of[id] = kind < 2 ? 2 : rq.write;
	}
	d.advance(kNever, out);
	EXPECT_EQ(d.in_flight(), 0u);
	ASSERT_EQ(out.size(), sent.size());
	std::set<uint64_t> seen;
	uint64_t last[2] = {0, 0};
	for (const Completion &c : out) {
		EXPECT_TRUE(seen.insert(c.id).second) << c.id;
		EXPECT_GE(c.time, sent.at(c.id) + kLat);
		if (int k = dir_of.at(c.id); k < 2) {
			EXPECT_GT(c.id, last[k]) << "out of order";
			last[k] = c.id;
		}
	}
	EXPECT_EQ(d.next_event(), kNever);
}

// Busy time: every instant with requests in the device, shared equally by
// them.  One at a time, a request is credited its whole stay; kept full,
// the device accrues the clock.
TEST(Throttled, BusyTimeIsTheDevicesTimeSharedByItsRequests)
{
	Throttled d = nvme();
	auto r = closed_loop(d, 1, 10, random_io(0, d.capacity_sectors(), 8, 1, false, 3));
	EXPECT_EQ(d.busy_by_tag()[3], 10 * kLat);
	EXPECT_EQ(d.busy_total(), r.elapsed);

	Throttled e = nvme();
	auto a = random_io(0, e.capacity_sectors(), 8, 2, false, 1);
	auto b = random_io(0, e.capacity_sectors(), 8, 3, false, 2);
	// tag 1 keeps 3 requests in the device for each 1 of tag 2
	r = closed_loop(e, 16, 4000, [&](uint64_t i) { return i % 4 ? a(i) : b(i); });
	const auto &busy = e.busy_by_tag();
	EXPECT_EQ(busy[1] + busy[2], e.busy_total());
	EXPECT_NEAR(e.busy_total(), r.elapsed, 4000); // rounding, 1 ns a request
	EXPECT_NEAR(static_cast<double>(busy[1]) / busy[2], 3.0, 0.05);
}

// An unthrottled device (both limits 0) is a null device with latency_us.
TEST(Throttled, WithoutLimitsOnlyTheLatencyRemains)
{
	ThrottledParams p;
	p.iops_total = p.bps_total = 0;
	Throttled d = nvme(p);
	auto out = all_at_once(d, 2000, 128);
	for (const Completion &c : out)
		ASSERT_EQ(c.time, kLat);
}

TEST(Throttled, PresetsAreTheVmtestDisks)
{
	std::string err;
	auto n = make_device("qemu-nvme", &err), s = make_device("qemu-sata", &err),
	     v = make_device("qemu-virtio", &err);
	ASSERT_TRUE(n && s && v) << err;
	EXPECT_EQ(n->name(), "qemu-nvme");
	EXPECT_FALSE(n->rotational());
	EXPECT_EQ(n->queue_depth(), 2046u);
	EXPECT_EQ(s->name(), "qemu-sata");
	EXPECT_TRUE(s->rotational());
	EXPECT_EQ(s->queue_depth(), 32u);
	EXPECT_EQ(v->name(), "qemu-virtio");
	EXPECT_TRUE(v->rotational());
	EXPECT_EQ(v->queue_depth(), 512u);
	for (const auto &d : {n.get(), s.get(), v.get()}) {
		EXPECT_EQ(d->capacity_sectors(), 8388608u);
		const auto &p = dynamic_cast<const Throttled &>(*d).throttled_params();
		EXPECT_EQ(p.iops_total, 1000u);
		EXPECT_EQ(p.bps_total, 41943040u);
		EXPECT_EQ(p.latency_us, 60);
	}
	auto x = make_device("qemu-sata:iops_total=2000,queue_depth=31", &err);
	ASSERT_TRUE(x) << err;
	EXPECT_EQ(x->queue_depth(), 31u);
	EXPECT_TRUE(x->rotational());
	EXPECT_NE(x->params().find("model = qemu-sata\n"), std::string::npos);
	EXPECT_NE(x->params().find("\niops_total = 2000 "), std::string::npos);
}

// qemu's own rules for a throttling configuration, and the queue's size.
TEST(Throttled, ContradictoryParametersAreErrors)
{
	auto error_of = [](const std::string &spec) {
		std::string err;
		EXPECT_FALSE(make_device(spec, &err)) << spec;
		return err;
	};
	EXPECT_EQ(error_of("qemu-nvme:iops_total=0,iops_total_max=10"),
		  "device qemu-nvme: iops_total_max needs iops_total");
	EXPECT_EQ(error_of("qemu-nvme:bps_total_max=1000"),
		  "device qemu-nvme: bps_total_max (1000) below bps_total (41943040)");
	EXPECT_EQ(error_of("qemu-sata:iops_total_max_length=5"),
		  "device qemu-sata: iops_total_max_length above 1 needs iops_total_max");
	EXPECT_EQ(error_of("qemu-sata:iops_total_max=1000000000,iops_total_max_length=10000000"),
		  "device qemu-sata: iops_total_max x iops_total_max_length above "
		  "1000000000000000");
	EXPECT_EQ(error_of("qemu-virtio:iops_total=0,iops_size=4096"),
		  "device qemu-virtio: iops_size needs iops_total");
	EXPECT_EQ(error_of("qemu-virtio:queue_depth=4096"),
		  "device qemu-virtio: hw_queues x queue_depth (8192) above 4096");
	EXPECT_EQ(error_of("qemu-nvme:iops_total=2e3"),
		  "device qemu-nvme: iops_total: '2e3' is not a whole number");
	EXPECT_EQ(error_of("qemu-nvme:hw_queues=0"),
		  "device qemu-nvme: hw_queues: '0' is out of range (1..64)");
}

} // namespace
} // namespace efqsim::dev
