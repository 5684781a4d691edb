// SPDX-License-Identifier: GPL-2.0
// Rules every device model keeps: determinism, completion order, busy-time
// accounting, and rejection of requests that break submit()'s
// preconditions.

#include "dev/device.h"
#include "dev/hdd.h"
#include "harness.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

namespace efqsim::dev {
namespace {

using test::closed_loop;
using test::mixed;
using test::random_io;

std::unique_ptr<Device> make(const std::string &model)
{
	std::string err;
	auto d = make_device(model, &err);
	EXPECT_TRUE(d) << err;
	return d;
}

class AnyDevice : public ::testing::TestWithParam<std::string> {};

INSTANTIATE_TEST_SUITE_P(Models, AnyDevice, ::testing::Values("hdd", "ssd", "null"));
INSTANTIATE_TEST_SUITE_P(Qemu, AnyDevice,
			 ::testing::Values("qemu-nvme", "qemu-sata", "qemu-virtio"),
			 [](const auto &info) {
				 std::string n = info.param;
				 return n.substr(n.find('-') + 1);
			 });

TEST_P(AnyDevice, SameInputsGiveTheSameCompletionSequence)
{
	auto a = make(GetParam()), b = make(GetParam());
	auto ra = closed_loop(*a, 16, 3000, mixed(a->capacity_sectors(), 11));
	auto rb = closed_loop(*b, 16, 3000, mixed(b->capacity_sectors(), 11));
	ASSERT_EQ(ra.log.size(), rb.log.size());
	for (size_t i = 0; i < ra.log.size(); i++) {
		EXPECT_EQ(ra.log[i].id, rb.log[i].id);
		EXPECT_EQ(ra.log[i].time, rb.log[i].time);
	}
	EXPECT_EQ(a->busy_by_tag(), b->busy_by_tag());
	EXPECT_EQ(a->busy_total(), b->busy_total());
}

// advance() hands each completion out once, in (time, id) order, never one
// from the future; how often the caller polls does not change the times.
TEST_P(AnyDevice, AdvanceReturnsCompletionsInTimeOrderAndOnce)
{
	auto fine = make(GetParam()), coarse = make(GetParam());
	uint32_t depth = fine->queue_depth();
	auto gen_f = mixed(fine->capacity_sectors(), 12);
	auto gen_c = mixed(coarse->capacity_sectors(), 12);
	for (uint64_t i = 1; i <= depth; i++) {
		Request rf = gen_f(i), rc = gen_c(i);
		rf.id = rc.id = i * 7919 % 100003; // ids in no particular order
		fine->submit(rf, 0);
		coarse->submit(rc, 0);
	}
	std::vector<Completion> all_fine, out;
	int64_t t = 0;
	while (fine->next_event() != kNever) {
		int64_t next = fine->next_event();
		EXPECT_GE(next, t);
		t = next;
		out.clear();
		fine->advance(t, out);
		for (const Completion &c : out)
			EXPECT_LE(c.time, t);
		all_fine.insert(all_fine.end(), out.begin(), out.end());
	}
	EXPECT_EQ(fine->in_flight(), 0u);
	std::vector<Completion> all_coarse;
	for (int64_t now = 0; coarse->in_flight(); now += 3000000) {
		out.clear();
		coarse->advance(now, out);
		for (const Completion &c : out)
			EXPECT_LE(c.time, now);
		all_coarse.insert(all_coarse.end(), out.begin(), out.end());
	}
	ASSERT_EQ(all_fine.size(), depth);
	ASSERT_EQ(all_coarse.size(), depth);
	std::set<uint64_t> seen;
	for (size_t i = 0; i < all_fine.size(); i++) {
		EXPECT_TRUE(seen.insert(all_fine[i].id).second) << "twice: " << all_fine[i].id;
		if (i) {
			const Completion &p = all_fine[i - 1], &c = all_fine[i];
			EXPECT_TRUE(p.time < c.time || (p.time == c.time && p.id < c.id));
		}
		EXPECT_EQ(all_fine[i].id, all_coarse[i].id);
		EXPECT_EQ(all_fine[i].time, all_coarse[i].time);
	}
	out.clear();
	fine->advance(kNever, out);
	EXPECT_TRUE(out.empty());
}

TEST_P(AnyDevice, BusyByTagSumsToBusyTotal)
{
	auto d = make(GetParam());
	auto r = closed_loop(*d, 8, 3000, mixed(d->capacity_sectors(), 13));
	const auto &busy = d->busy_by_tag();
	EXPECT_EQ(busy.size(), kMaxTags);
	EXPECT_EQ(std::accumulate(busy.begin(), busy.end(), int64_t(0)), d->busy_total());
	EXPECT_GT(d->busy_total(), 0);
	// Never busier than the time that passed, counting the write-back
	// (or programming, about 10 ms at most for the ssd) after the last
	// completion.
	std::vector<Completion> out;
	int64_t last = r.elapsed;
	for (int64_t t; (t = d->next_event()) != kNever; last = t)
		d->advance(t, out);
	EXPECT_LE(d->busy_total(), last + 20000000);
	EXPECT_EQ(std::accumulate(busy.begin(), busy.end(), int64_t(0)), d->busy_total());
}

TEST_P(AnyDevice, BusySplitsEqualWorkloadsEqually)
{
	for (bool write : {false, true}) {
		auto d = make(GetParam());
		auto a = random_io(0, d->capacity_sectors(), 16, 21, write, 1);
		auto b = random_io(0, d->capacity_sectors(), 16, 22, write, 2);
		closed_loop(*d, 8, 6000, [&](uint64_t i) { return i % 2 ? a(i) : b(i); });
		std::vector<Completion> out;
		d->advance(kNever, out); // let the cache drain
		double x = d->busy_by_tag()[1], y = d->busy_by_tag()[2];
		EXPECT_GT(x, 0);
		EXPECT_NEAR(x / y, 1.0, 0.1) << (write ? "write" : "read");
		EXPECT_EQ(x + y, d->busy_total());
	}
}

TEST_P(AnyDevice, IdleDeviceAccruesNoBusyTime)
{
	auto d = make(GetParam());
	std::vector<Completion> out;
	EXPECT_EQ(d->next_event(), kNever);
	d->advance(1000000000000LL, out);
	EXPECT_TRUE(out.empty());
	EXPECT_EQ(d->busy_total(), 0);
	// After work, idling adds nothing.
	closed_loop(*d, 4, 200, random_io(0, d->capacity_sectors(), 8, 3), 1000000000000LL);
	d->advance(kNever, out);
	int64_t busy = d->busy_total();
	EXPECT_EQ(d->next_event(), kNever);
	d->advance(2000000000000LL, out);
	EXPECT_EQ(d->busy_total(), busy);
}

TEST_P(AnyDevice, SubmitBeyondQueueDepthOrCapacityIsRejected)
{
	auto d = make(GetParam());
	uint64_t cap = d->capacity_sectors();
	auto expect_rejected = [&](Request rq, int64_t t, const std::string &why) {
		uint32_t before = d->in_flight();
		try {
			d->submit(rq, t);
			ADD_FAILURE() << "accepted: " << why;
		} catch (const RejectedRequest &e) {
			EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
		}
		EXPECT_EQ(d->in_flight(), before);
	};
	Request rq;
	rq.sectors = 8;
	rq.sector = cap - 8; // the last 4 KiB: fine
	rq.id = 1;
	d->submit(rq, 1000);
	rq.id = 2;
	rq.sector = cap - 7;
	expect_rejected(rq, 1000, "past the capacity");
	rq.sector = ~0ull - 2; // overflow
	expect_rejected(rq, 1000, "past the capacity");
	rq.sector = 0;
	rq.sectors = 0;
	expect_rejected(rq, 1000, "0 sectors");
	rq.sectors = 8;
	rq.flush = true;
	expect_rejected(rq, 1000, "flush carries no sectors");
	rq.flush = false;
	rq.tag = kMaxTags;
	expect_rejected(rq, 1000, "tag");
	rq.tag = 0;
	rq.id = 1;
	expect_rejected(rq, 1000, "already in flight");
	rq.id = 2;
	expect_rejected(rq, 999, "before the device time");
	std::string why;
	EXPECT_TRUE(check_request(*d, rq, &why));
	for (uint64_t id = 2; d->in_flight() < d->queue_depth(); id++) {
		rq.id = id;
		d->submit(rq, 1000);
	}
	rq.id = 99999;
	EXPECT_FALSE(check_request(*d, rq, &why));
	EXPECT_NE(why.find("queue full"), std::string::npos);
	expect_rejected(rq, 1000, "queue full");
	// Still works: drain and submit again.
	std::vector<Completion> out;
	d->advance(kNever, out);
	EXPECT_EQ(out.size(), d->queue_depth());
	d->submit(rq, out.back().time);
	EXPECT_EQ(d->in_flight(), 1u);
}

// A discard of @ranges (each {sector, sectors}) as the block layer sends it.
Request discard(std::vector<Range> ranges, uint64_t id = 1)
{
	Request rq;
	rq.id = id;
	rq.write = true;
	rq.discard = true;
	rq.first_bio_segments = 0;
	rq.sector = ranges.front().sector;
	for (const Range &r : ranges)
		rq.sectors += r.sectors;
	rq.ranges = std::move(ranges);
	return rq;
}

// The time @rq takes alone on a fresh @model.
int64_t alone(const std::string &model, const Request &rq)
{
	auto d = make(model);
	d->submit(rq, 1000);
	std::vector<Completion> out;
	d->advance(kNever, out);
	EXPECT_EQ(out.size(), 1u);
	return out.empty() ? -1 : out.front().time - 1000;
}

class EveryModel : public ::testing::TestWithParam<std::string> {};

INSTANTIATE_TEST_SUITE_P(Models, EveryModel, ::testing::ValuesIn(model_names()),
			 [](const auto &info) {
				 std::string n = info.param; // qemu-nvme: qemu_nvme
				 std::replace(n.begin(), n.end(), '-', '_');
				 return n;
			 });

// A discard moves no data: a fixed cost per request, whatever it covers,
// and no more than a 4 KiB write.
TEST_P(EveryModel, ADiscardCostsTheSameWhateverItCovers)
{
	int64_t small = alone(GetParam(), discard({{0, 8}}));
	EXPECT_GT(small, 0);
	EXPECT_EQ(alone(GetParam(), discard({{1 << 20, 1 << 21}})), small) << "1 GiB";
	// (the qemu disks hold 4 GiB: 1 << 23 sectors)
	EXPECT_EQ(alone(GetParam(), discard({{64, 8}, {1 << 22, 2048}, {8, 8}, {4096, 16}})), small)
		<< "four ranges";
	Request w;
	w.id = 1;
	w.sectors = 8;
	w.write = true;
	EXPECT_LE(small, alone(GetParam(), w));
}

// Each range of a discard must lie inside the device; together they are the
// request's sectors, from its sector on.
TEST_P(EveryModel, ADiscardWithBadRangesIsRejected)
{
	auto d = make(GetParam());
	uint64_t cap = d->capacity_sectors();
	auto rejected = [&](const Request &rq, const std::string &why) {
		std::string w;
		EXPECT_FALSE(check_request(*d, rq, &w)) << why;
		EXPECT_NE(w.find(why), std::string::npos) << w;
		EXPECT_THROW(d->submit(rq, 0), RejectedRequest) << why;
	};
	// a range list may lie anywhere on the device, the last one at its end
	std::string why;
	EXPECT_TRUE(check_request(*d, discard({{cap - 8, 8}, {0, 8}}), &why)) << why;
	rejected(discard({{0, 8}, {cap - 7, 8}}), "past the capacity");
	rejected(discard({{0, 8}, {8, 0}}), "range of 0 sectors");
	Request r = discard({{0, 8}, {64, 8}});
	r.sectors = 24;
	rejected(r, "discard ranges of 16 sectors in a request of 24");
	r = discard({{0, 8}});
	r.sector = 8;
	rejected(r, "first range starts at 0");
	r.ranges.clear();
	rejected(r, "without ranges");
	r = discard({{0, 8}});
	r.discard = false;
	rejected(r, "ranges on a request that is not a discard");
	EXPECT_EQ(d->in_flight(), 0u);
}

TEST(Devices, BuiltInModelsHaveTheirNamesAndShapes)
{
	auto h = make("hdd"), s = make("ssd"), n = make("null");
	EXPECT_EQ(h->name(), "hdd");
	EXPECT_TRUE(h->rotational());
	EXPECT_EQ(h->queue_depth(), 31u);
	EXPECT_EQ(h->capacity_sectors(), 976773168u);
	EXPECT_EQ(s->name(), "ssd");
	EXPECT_FALSE(s->rotational());
	EXPECT_EQ(s->queue_depth(), 32u);
	EXPECT_EQ(n->name(), "null");
	EXPECT_FALSE(n->rotational());
	EXPECT_EQ(n->queue_depth(), 64u);
	EXPECT_EQ(model_names().front(), "hdd");
}

TEST(Devices, HddDestageTimeGoesToTheWriter)
{
	auto d = make("hdd");
	closed_loop(*d, 4, 100, random_io(0, d->capacity_sectors(), 8, 5, true, 9));
	std::vector<Completion> out;
	d->advance(kNever, out);
	// 100 writes of 4 KiB: about 30 us each into the cache, then each
	// destage pays a seek and rotation.
	EXPECT_GT(d->busy_by_tag()[9], 100 * 2000000LL);
	EXPECT_EQ(d->busy_by_tag()[9], d->busy_total());
}

} // namespace
} // namespace efqsim::dev
