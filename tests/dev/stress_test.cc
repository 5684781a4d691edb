// SPDX-License-Identifier: GPL-2.0
// Every model, under unusual parameters and a mixed workload (reads,
// writes, FUA, flushes, sizes up to 128 KiB, four tags): every request
// completes once, in time order, nothing hangs, the caches drain, and busy
// time stays within the time that passed.

#include "dev/hdd.h"
#include "dev/null_device.h"
#include "dev/ssd.h"
#include "harness.h"

#include <gtest/gtest.h>

#include <numeric>
#include <set>

namespace efqsim::dev {
namespace {

using test::closed_loop;
using test::mixed;

void check_invariants(Device &d, const std::string &what, bool busy = true)
{
	SCOPED_TRACE(what);
	uint32_t depth = std::min(d.queue_depth(), 16u);
	auto r = closed_loop(d, depth, 2000, mixed(d.capacity_sectors(), 31));
	ASSERT_EQ(r.completed, 2000u);
	std::set<uint64_t> seen;
	for (size_t i = 0; i < r.log.size(); i++) {
		EXPECT_TRUE(seen.insert(r.log[i].id).second);
		if (i) {
			const Completion &p = r.log[i - 1], &c = r.log[i];
			EXPECT_TRUE(p.time < c.time || (p.time == c.time && p.id < c.id));
		}
	}
	EXPECT_EQ(d.in_flight(), 0u);
	int64_t last = r.elapsed;
	std::vector<Completion> out;
	for (int64_t t; (t = d.next_event()) != kNever; last = t)
		d.advance(t, out);
	EXPECT_TRUE(out.empty());
	// Background work that is no event (ssd programming) ends within 1 s.
	d.advance(last + 1000000000, out);
	EXPECT_TRUE(out.empty());
	const auto &b = d.busy_by_tag();
	EXPECT_EQ(std::accumulate(b.begin(), b.end(), int64_t(0)), d.busy_total());
	EXPECT_EQ(d.busy_total() > 0, busy);
	// The ssd credits programs still running after the last event.
	EXPECT_LE(d.busy_total(), last + 100000000);
}

TEST(Stress, HddUnderUnusualParametersCompletesEverything)
{
	std::vector<std::pair<std::string, HddParams>> variants;
	auto add = [&](const std::string &name, auto change) {
		HddParams p;
		change(p);
		variants.push_back({name, p});
	};
	add("defaults", [](HddParams &) {});
	add("write_cache=0", [](HddParams &p) { p.write_cache = false; });
	add("readahead_kib=0", [](HddParams &p) { p.readahead_kib = 0; });
	add("cache_kib=64", [](HddParams &p) { p.cache_kib = 64; });
	add("read_segments=1, seq_prefetch_kib=0", [](HddParams &p) {
		p.read_segments = 1;
		p.seq_prefetch_kib = 0;
	});
	add("read_segments=64, seq_prefetch_kib above readahead_kib", [](HddParams &p) {
		p.read_segments = 64;
		p.readahead_kib = 64;
		p.seq_prefetch_kib = 4096;
	});
	add("destage_idle_ms=0", [](HddParams &p) { p.destage_idle_ms = 0; });
	add("destage_max_kib=4", [](HddParams &p) { p.destage_max_kib = 4; });
	add("queue_depth=1", [](HddParams &p) { p.queue_depth = 1; });
	add("ncq_max_wait_ms=1", [](HddParams &p) { p.ncq_max_wait_ms = 1; });
	add("slow link", [](HddParams &p) {
		p.interface_mbps = 20;
		p.command_overhead_us = 0;
	});
	add("tiny disk", [](HddParams &p) {
		p.capacity_sectors = 2048;
		p.zones = 1;
		p.heads = 1;
	});
	add("one zone, fast spin", [](HddParams &p) {
		p.zones = 1;
		p.rpm = 15000;
		p.rate_inner_mbps = p.rate_outer_mbps;
	});
	for (const auto &[name, p] : variants) {
		std::vector<std::string> keys;
		ASSERT_EQ(hdd_check(p, &keys), "") << name;
		Hdd d(p);
		check_invariants(d, name);
		EXPECT_EQ(d.dirty_sectors(), 0u) << name;
	}
}

TEST(Stress, SsdUnderUnusualParametersCompletesEverything)
{
	std::vector<std::pair<std::string, SsdParams>> variants;
	auto add = [&](const std::string &name, auto change) {
		SsdParams p;
		change(p);
		variants.push_back({name, p});
	};
	add("defaults", [](SsdParams &) {});
	add("one channel", [](SsdParams &p) { p.channels = 1; });
	add("buffer of one page", [](SsdParams &p) { p.write_buffer_kib = 4; });
	add("64 KiB pages", [](SsdParams &p) {
		p.page_kib = 64;
		p.write_buffer_kib = 64;
	});
	add("queue_depth=1", [](SsdParams &p) { p.queue_depth = 1; });
	for (const auto &[name, p] : variants) {
		std::vector<std::string> keys;
		ASSERT_EQ(ssd_check(p, &keys), "") << name;
		Ssd d(p);
		check_invariants(d, name);
		EXPECT_EQ(d.buffered_bytes(), 0u) << name;
	}
}

TEST(Stress, NullUnderUnusualParametersCompletesEverything)
{
	NullParams p;
	p.latency_us = 0;
	NullDevice zero(p);
	check_invariants(zero, "latency 0", false); // nothing takes time
	p.bandwidth_mbps = 1;
	p.queue_depth = 1;
	NullDevice slow(p);
	check_invariants(slow, "1 MB/s, depth 1");
}

} // namespace
} // namespace efqsim::dev
