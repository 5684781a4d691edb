// SPDX-License-Identifier: GPL-2.0
// The page cache: hits, readahead, dirty limits, the flusher and its cgroup
// attribution, fsync, eviction, and that no dirty page is ever lost.

#include <gtest/gtest.h>

#include "fake_host.h"
#include "workload/jobs.h"
#include "workload/pagecache.h"
#include "workload/rng.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace efqsim::workload {
namespace {

using testing::FakeHost;

constexpr uint64_t KiB = 1024, MiB = 1024 * KiB, GiB = 1024 * MiB;
constexpr int64_t US = 1000, MS = 1000 * US, SEC = 1000 * MS;
constexpr uint64_t PG = PageCache::kPageSize;

// Pages written to the device, page -> times.
std::map<uint64_t, int> pages_written(const FakeHost &h)
{
	std::map<uint64_t, int> w;
	for (const auto &r : h.records)
		if (r.io.write)
			for (uint64_t p = r.io.offset / PG; p < (r.io.offset + r.io.bytes) / PG;
			     p++)
				w[p]++;
	return w;
}

size_t reads_of(const FakeHost &h)
{
	return std::count_if(h.records.begin(), h.records.end(),
			     [](const FakeHost::Record &r) { return !r.io.write; });
}

struct Fixture {
	explicit Fixture(PageCacheConfig cfg = {}, int64_t latency = 100 * US, unsigned servers = 0)
	    : host(latency, servers, 4 * GiB)
	{
		a = host.create_task(TaskSpec{"a", "ga", 0, 0, 4});
		b = host.create_task(TaskSpec{"b", "gb", 0, 0, 4});
		cache = std::make_unique<PageCache>(host, cfg);
		file = cache->add_file(0, GiB);
	}
	// A call that must complete; returns its completion time.
	int64_t read(TaskId t, uint64_t off, uint32_t len)
	{
		int64_t when = -1;
		cache->read(t, file, off, len, [&](int64_t w) { when = w; });
		host.run_until([&]() { return when >= 0; });
		EXPECT_GE(when, 0);
		return when;
	}
	int64_t write(TaskId t, uint64_t off, uint32_t len)
	{
		int64_t when = -1;
		cache->write(t, file, off, len, [&](int64_t w) { when = w; });
		host.run_until([&]() { return when >= 0; });
		EXPECT_GE(when, 0);
		return when;
	}
	FakeHost host;
	TaskId a, b;
	std::unique_ptr<PageCache> cache;
	PageCache::FileId file;
};

TEST(PageCache, TheFlusherIsATaskOfItsOwn)
{
	Fixture f;
	EXPECT_EQ(f.cache->flusher(), 3u);
	EXPECT_EQ(f.host.tasks[2].comm, "kworker/flush");
	EXPECT_EQ(f.host.tasks[2].cgroup, "");
}

TEST(PageCache, DefaultThresholdsAreTenAndTwentyPercentOfRam)
{
	Fixture f;
	const uint64_t ram_pages = (uint64_t{4} << 30) / PG;
	EXPECT_EQ(f.cache->background_thresh_pages(), ram_pages / 10);
	EXPECT_EQ(f.cache->dirty_thresh_pages(), ram_pages / 5);
}

TEST(PageCache, ReadsHitAfterAWrite)
{
	Fixture f;
	const int64_t t0 = f.host.now();
	f.write(f.a, 0, 64 * KiB);
	EXPECT_EQ(f.host.records.size(), 0u); // below the background threshold
	const int64_t t1 = f.host.now();
	const int64_t done = f.read(f.b, 0, 64 * KiB);
	EXPECT_EQ(reads_of(f.host), 0u);
	EXPECT_EQ(f.cache->stats().hit_pages, 16u);
	// A hit costs the syscall and the copy, nothing else.
	EXPECT_EQ(done - t1, 1 * US + 16 * US);
	EXPECT_EQ(t1 - t0, 1 * US + 16 * US);
}

TEST(PageCache, ReadMissThenHit)
{
	Fixture f;
	const int64_t t = f.read(f.a, 100 * MiB, 4 * KiB); // random: no readahead
	ASSERT_EQ(f.host.records.size(), 1u);
	EXPECT_EQ(f.host.records[0].io.offset, 100 * MiB);
	EXPECT_EQ(f.host.records[0].io.bytes, 4 * KiB);
	EXPECT_TRUE(f.host.records[0].io.sync);
	EXPECT_EQ(f.host.records[0].task, f.a);
	EXPECT_EQ(t, 100 * US + 1 * US + 1 * US);
	f.read(f.b, 100 * MiB, 4 * KiB);
	EXPECT_EQ(f.host.records.size(), 1u);
}

TEST(PageCache, SequentialReadsAreReadAheadInGrowingWindows)
{
	Fixture f;
	for (uint64_t off = 0; off < 4 * MiB; off += 4 * KiB)
		f.read(f.a, off, 4 * KiB);
	const auto &s = f.cache->stats();
	EXPECT_EQ(s.read_calls, 1024u);
	EXPECT_EQ(s.miss_pages, 1u); // only the very first page was waited for unread
	EXPECT_GE(s.pages_read, 1024u);
	// Windows ramp up 4, 8, 16, 32 pages and stay at read_ahead_kb.
	std::vector<uint32_t> sizes;
	for (const auto &r : f.host.records)
		sizes.push_back(r.io.bytes);
	ASSERT_GE(sizes.size(), 5u);
	EXPECT_EQ(sizes[0], 4 * KiB);  // the page asked for
	EXPECT_EQ(sizes[1], 12 * KiB); // the rest of the first 4-page window
	EXPECT_EQ(sizes[2], 32 * KiB); // then 8, 16, 32 pages ahead
	EXPECT_EQ(sizes[3], 64 * KiB);
	EXPECT_EQ(sizes[4], 128 * KiB);
	EXPECT_EQ(sizes.back(), 128 * KiB);
	uint64_t next = 0;
	for (const auto &r : f.host.records) {
		EXPECT_EQ(r.io.offset, next); // in order, no page twice
		next += r.io.bytes;
	}
	// Readahead keeps the reader from waiting on most reads: far fewer
	// device round trips than reads.
	EXPECT_LT(f.host.records.size(), 40u);
}

TEST(PageCache, AStreamStartingInsideTheFileIsReadAheadFromItsSecondRead)
{
	Fixture f;
	for (uint64_t off = 0; off < MiB; off += 4 * KiB)
		f.read(f.a, 300 * MiB + off, 4 * KiB);
	const auto &s = f.cache->stats();
	EXPECT_EQ(s.miss_pages, 2u); // the first read, then the second opens a window
	EXPECT_GT(s.readahead_pages, 200u);
	EXPECT_LT(f.host.records.size(), 20u);
}

TEST(PageCache, ReadaheadStopsAtTheEndOfTheFile)
{
	Fixture f;
	const auto small = f.cache->add_file(GiB, 64 * KiB);
	int64_t when = -1;
	for (uint64_t off = 0; off < 64 * KiB; off += 4 * KiB) {
		when = -1;
		f.cache->read(f.a, small, GiB + off, 4 * KiB, [&](int64_t w) { when = w; });
		f.host.run_until([&]() { return when >= 0; });
	}
	f.host.run();
	uint64_t bytes = 0;
	for (const auto &r : f.host.records) {
		EXPECT_GE(r.io.offset, GiB);
		EXPECT_LE(r.io.offset + r.io.bytes, GiB + 64 * KiB);
		bytes += r.io.bytes;
	}
	EXPECT_EQ(bytes, 64 * KiB);
}

TEST(PageCache, WritesBelowTheBackgroundRatioWaitForExpiry)
{
	Fixture f;
	f.write(f.a, 0, MiB);
	f.host.run();
	// Nothing until the periodic writeback finds the file 30 s old.
	ASSERT_FALSE(f.host.records.empty());
	for (const auto &r : f.host.records) {
		EXPECT_GE(r.submitted, 30 * SEC);
		EXPECT_LE(r.submitted, 35 * SEC + MS);
	}
	EXPECT_EQ(f.cache->dirty_pages(), 0u);
	EXPECT_EQ(f.cache->writeback_pages(), 0u);
	EXPECT_TRUE(f.host.idle()); // no timer left once everything is clean
}

TEST(PageCache, WritebackIsLargeSequentialAsyncAndChargedToTheDirtier)
{
	PageCacheConfig cfg;
	cfg.ram_bytes = 64 * MiB; // background at 6.4 MiB
	Fixture f(cfg);
	for (uint64_t off = 0; off < 8 * MiB; off += 64 * KiB)
		f.write(f.a, off, 64 * KiB);
	for (uint64_t off = 16 * MiB; off < 24 * MiB; off += 64 * KiB)
		f.write(f.b, off, 64 * KiB);
	f.host.run();
	size_t writes = 0;
	for (const auto &r : f.host.records) {
		if (!r.io.write)
			continue;
		writes++;
		EXPECT_EQ(r.task, f.cache->flusher());
		EXPECT_FALSE(r.io.sync);
		EXPECT_EQ(r.io.bytes, 512 * KiB);
		EXPECT_EQ(r.io.charge_to, r.io.offset < 16 * MiB ? f.a : f.b);
	}
	EXPECT_EQ(writes, 32u);
}

TEST(PageCache, ChunksNeverMixDirtiers)
{
	Fixture f;
	for (uint64_t off = 0; off < MiB; off += 4 * KiB)
		f.write((off / (4 * KiB)) % 3 ? f.a : f.b, off, 4 * KiB);
	bool done = false;
	f.cache->sync_all([&](int64_t) { done = true; });
	f.host.run();
	EXPECT_TRUE(done);
	for (const auto &r : f.host.records)
		for (uint64_t p = r.io.offset / PG; p < (r.io.offset + r.io.bytes) / PG; p++)
			EXPECT_EQ(r.io.charge_to, p % 3 ? f.a : f.b);
}

TEST(PageCache, TheDirtyLimitThrottlesWriters)
{
	PageCacheConfig cfg;
	cfg.ram_bytes = 64 * MiB; // dirty limit 12.8 MiB
	cfg.writeback_inflight = 4;
	Fixture f(cfg, 1 * MS, 1); // a slow device: 512 KiB per ms
	uint64_t worst = 0;
	int64_t last = 0;
	for (uint64_t off = 0; off < 64 * MiB; off += 64 * KiB) {
		last = f.write(f.a, off, 64 * KiB);
		worst = std::max(worst, f.cache->dirty_pages() + f.cache->writeback_pages());
	}
	const auto &s = f.cache->stats();
	EXPECT_GT(s.throttled, 0u);
	EXPECT_GT(s.throttled_ns, 0);
	// Never more than the limit plus the write that crossed it.
	EXPECT_LE(worst, f.cache->dirty_thresh_pages() + 16);
	// The writer ends up at the device's pace: 64 MiB less what the cache
	// may hold, at 512 KiB per ms.
	const int64_t device_ms = (64 - 13) * 2;
	EXPECT_GE(last, (device_ms - 10) * MS);
	EXPECT_LE(last, (device_ms + 30) * MS);
}

TEST(PageCache, NothingIsLostEveryDirtyPageIsWrittenOnce)
{
	PageCacheConfig cfg;
	cfg.ram_bytes = 32 * MiB;
	Fixture f(cfg, 200 * US, 2);
	// Distinct pages in a random order from two tasks, some runs.
	Rng rng(3);
	std::vector<uint64_t> pages(8192);
	for (size_t i = 0; i < pages.size(); i++)
		pages[i] = 1000 + i;
	for (size_t i = pages.size() - 1; i > 0; i--)
		std::swap(pages[i], pages[rng.below(i + 1)]);
	std::set<uint64_t> dirtied;
	for (size_t i = 0; i < pages.size(); i++) {
		const uint32_t run = static_cast<uint32_t>(1 + rng.below(4));
		bool fresh = true;
		for (uint32_t k = 0; k < run; k++)
			fresh &= !dirtied.count(pages[i] + k);
		if (!fresh)
			continue;
		for (uint32_t k = 0; k < run; k++)
			dirtied.insert(pages[i] + k);
		f.write(i % 2 ? f.a : f.b, pages[i] * PG, run * static_cast<uint32_t>(PG));
	}
	f.host.run(); // background writeback, then expiry, to the end
	const auto w = pages_written(f.host);
	EXPECT_EQ(w.size(), dirtied.size());
	for (const uint64_t p : dirtied)
		EXPECT_EQ(w.count(p) ? w.at(p) : 0, 1) << p;
	EXPECT_EQ(f.cache->dirty_pages(), 0u);
	EXPECT_EQ(f.cache->writeback_pages(), 0u);
	EXPECT_EQ(f.cache->stats().pages_written, dirtied.size());
	EXPECT_EQ(f.host.bad_times, 0);
}

TEST(PageCache, APageDirtiedAgainDuringWritebackIsWrittenAgain)
{
	Fixture f({}, 10 * MS);
	f.write(f.a, 0, 4 * KiB);
	bool synced = false;
	f.cache->sync_all([&](int64_t) { synced = true; });
	f.host.run(1 * MS); // the writeback is in flight
	ASSERT_EQ(f.cache->writeback_pages(), 1u);
	f.write(f.b, 0, 4 * KiB);
	EXPECT_EQ(f.cache->dirty_pages(), 1u);
	f.host.run();
	EXPECT_TRUE(synced);
	const auto w = pages_written(f.host);
	EXPECT_EQ(w.at(0), 2);
	EXPECT_EQ(f.host.records[1].io.charge_to, f.b);
	EXPECT_EQ(f.cache->dirty_pages(), 0u);
}

TEST(PageCache, FsyncWritesTheFilesDirtyPagesAndWaitsForThem)
{
	Fixture f({}, 1 * MS);
	const auto other = f.cache->add_file(2 * GiB, MiB);
	f.write(f.a, 0, 256 * KiB);
	f.write(f.b, 256 * KiB, 4 * KiB);
	int64_t when = -1;
	f.cache->write(f.a, other, 2 * GiB, 4 * KiB, [&](int64_t w) { when = w; });
	f.host.run_until([&]() { return when >= 0; });
	const int64_t start = f.host.now();
	int64_t synced = -1;
	f.cache->fsync(f.a, f.file, [&](int64_t w) { synced = w; });
	f.host.run_until([&]() { return synced >= 0; });
	ASSERT_GE(synced, 0);
	std::set<uint64_t> written;
	for (const auto &r : f.host.records) {
		EXPECT_TRUE(r.io.write);
		EXPECT_TRUE(r.io.sync); // WB_SYNC_ALL
		EXPECT_EQ(r.task, f.a); // from the caller
		EXPECT_LE(r.done, synced);
		EXPECT_LT(r.io.offset, GiB); // not the other file
		for (uint64_t p = r.io.offset / PG; p < (r.io.offset + r.io.bytes) / PG; p++)
			written.insert(p);
	}
	EXPECT_EQ(written.size(), 65u);
	EXPECT_EQ(f.host.records.back().io.charge_to, f.b); // the page b dirtied
	EXPECT_EQ(synced, start + 1 * MS + 1 * US);
	EXPECT_EQ(f.cache->dirty_pages(), 1u); // the other file's page
}

TEST(PageCache, CleanPagesAreEvictedLeastRecentlyUsedFirst)
{
	PageCacheConfig cfg;
	cfg.ram_bytes = 1 * MiB; // 256 pages
	Fixture f(cfg);
	for (uint64_t off = 0; off < 2 * MiB; off += 4 * KiB)
		f.read(f.a, 100 * MiB + off * 7, 4 * KiB); // scattered: no readahead
	EXPECT_LE(f.cache->cached_pages(), 256u);
	EXPECT_EQ(f.cache->stats().evicted_pages, 256u);
	const size_t before = f.host.records.size();
	f.read(f.a, 100 * MiB + (2 * MiB - 4 * KiB) * 7, 4 * KiB); // recent: cached
	EXPECT_EQ(f.host.records.size(), before);
	f.read(f.a, 100 * MiB, 4 * KiB); // oldest: evicted, read again
	EXPECT_EQ(f.host.records.size(), before + 1);
}

TEST(PageCache, InvalidateDropsCleanPagesOnly)
{
	Fixture f;
	f.read(f.a, 100 * MiB, 4 * KiB);
	f.write(f.a, 200 * MiB, 4 * KiB);
	f.cache->invalidate(f.file);
	EXPECT_EQ(f.cache->cached_pages(), 1u);
	EXPECT_EQ(f.cache->dirty_pages(), 1u);
	f.read(f.a, 100 * MiB, 4 * KiB);
	EXPECT_EQ(reads_of(f.host), 2u);
}

// Two buffered writers, in cgroups served 2:1 by the device, writing as fast
// as the cache lets them for @secs; returns the bytes each wrote.
std::pair<uint64_t, uint64_t> two_writers(bool cgroup_writeback, int64_t secs)
{
	FakeHost h(2 * MS, 1, 64 * GiB);
	h.weights = {{"fast", 2.0}, {"slow", 1.0}};
	const TaskId a = h.create_task(TaskSpec{"a", "fast", 0, 0, 4});
	const TaskId b = h.create_task(TaskSpec{"b", "slow", 0, 0, 4});
	PageCacheConfig cfg;
	cfg.ram_bytes = 64 * MiB;
	cfg.cgroup_writeback = cgroup_writeback;
	PageCache cache(h, cfg);
	cache.set_task_cgroup(a, "fast");
	cache.set_task_cgroup(b, "slow");
	const auto file = cache.add_file(0, 64 * GiB);
	uint64_t bytes[2] = {0, 0};
	int64_t measure_from = 1 * SEC; // past the first fill of the cache
	std::function<void(int, uint64_t)> step = [&](int i, uint64_t off) {
		cache.write(i ? b : a, file, off, 64 * KiB, [&, i, off](int64_t when) {
			if (when >= measure_from)
				bytes[i] += 64 * KiB;
			step(i, off + 64 * KiB);
		});
	};
	step(0, 0);
	step(1, 32 * GiB);
	h.run(secs * SEC);
	EXPECT_EQ(h.bad_ios, 0);
	// Writeback was charged to each writer's own cgroup.
	for (const auto &r : h.records)
		EXPECT_EQ(r.io.charge_to, r.io.offset < 32 * GiB ? a : b);
	const auto wbs = cache.wb_stats();
	if (cgroup_writeback) {
		EXPECT_EQ(wbs.size(), 3u); // the root's, "fast", "slow"
		EXPECT_EQ(wbs[1].cgroup, "fast");
		EXPECT_NEAR(wbs[1].writeout_share, 2.0 / 3, 0.1);
	} else {
		EXPECT_EQ(wbs.size(), 1u);
	}
	return {bytes[0], bytes[1]};
}

TEST(PageCache, WithCgroupWritebackBufferedWritersFollowTheirWriteoutShare)
{
	const auto [fast, slow] = two_writers(true, 6);
	ASSERT_GT(slow, 0u);
	const double ratio = static_cast<double>(fast) / static_cast<double>(slow);
	EXPECT_GT(ratio, 1.7);
	EXPECT_LT(ratio, 2.4);
}

TEST(PageCache, WithOneWritebackDomainBufferedWritersAreThrottledAlike)
{
	// The series' 2.6.31 behaviour (seed A5, C6): the page cache evens out
	// the writers whatever the device does for their cgroups.
	const auto [fast, slow] = two_writers(false, 6);
	ASSERT_GT(slow, 0u);
	const double ratio = static_cast<double>(fast) / static_cast<double>(slow);
	EXPECT_GT(ratio, 0.8);
	EXPECT_LT(ratio, 1.25);
}

// --- through the job engine -------------------------------------------------------

std::vector<JobSpec> jobs_of(const std::string &text)
{
	ParseContext c;
	c.capacity_bytes = 4 * GiB;
	c.scheduler_names = {"noop"};
	std::string err;
	auto jobs = parse_jobs({JobSource{"t.fio", text}}, c, &err);
	EXPECT_EQ(err, "");
	return jobs;
}

TEST(PageCacheJobs, ABufferedReaderAfterAWriterHitsTheCache)
{
	FakeHost h(1 * MS, 0, 4 * GiB);
	JobEngine e(h, jobs_of("[global]\nfilename=data\nsize=4m\nbs=64k\n"
			       "[w]\nrw=write\n"
			       "[r]\nstonewall\nrw=read\n"));
	e.start();
	h.run();
	ASSERT_TRUE(e.finished());
	EXPECT_EQ(reads_of(h), 0u); // the writer's pages are still cached (dirty or clean)
	const auto res = e.results();
	EXPECT_EQ(res[1].read.io_bytes, 4 * MiB);
	EXPECT_EQ(res[0].write.io_bytes, 4 * MiB);
	// And every written page reached the device once, charged to the writer.
	const auto w = pages_written(h);
	EXPECT_EQ(w.size(), 1024u);
	for (const auto &r : h.records)
		EXPECT_EQ(r.io.charge_to, e.task_of(0));
	EXPECT_EQ(e.pagecache()->stats().hit_pages, 1024u);
}

TEST(PageCacheJobs, FsyncAndEndFsync)
{
	FakeHost h(1 * MS, 1, 4 * GiB);
	JobEngine e(h, jobs_of("[w]\nfilename=data\nsize=1m\nbs=64k\nrw=write\nfsync=4\n"
			       "end_fsync=1\n"));
	e.start();
	h.run_until([&]() { return e.finished(); });
	ASSERT_TRUE(e.finished());
	EXPECT_EQ(e.pagecache()->stats().fsync_calls, 4u + 1u);
	EXPECT_EQ(e.pagecache()->dirty_pages(), 0u);
	EXPECT_EQ(e.pagecache()->writeback_pages(), 0u);
	for (const auto &r : h.records) {
		EXPECT_EQ(r.task, e.task_of(0));
		EXPECT_TRUE(r.io.sync);
	}
	// The job's end waits for its data: 16 writes of 64 KiB through fsync.
	EXPECT_GE(e.end_time(), 16 * MS / 8);
}

TEST(PageCacheJobs, TheFlusherIsCreatedOnlyForBufferedJobs)
{
	FakeHost h;
	JobEngine e(h, jobs_of("[a]\nsize=64k\ndirect=1\n"));
	e.start();
	h.run();
	EXPECT_EQ(e.pagecache(), nullptr);
	EXPECT_EQ(h.tasks.size(), 1u);
}

} // namespace
} // namespace efqsim::workload
