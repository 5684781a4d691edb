// SPDX-License-Identifier: GPL-2.0
// The job engine on a fake fixed-latency device: depth, size, runtime, ramp,
// offsets, mixes, stonewalls, thinktime, determinism, logs.

#include <gtest/gtest.h>

#include "fake_host.h"
#include "workload/jobs.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace efqsim::workload {
namespace {

using testing::FakeHost;

constexpr uint64_t KiB = 1024, MiB = 1024 * KiB, GiB = 1024 * MiB;
constexpr int64_t US = 1000, MS = 1000 * US;

std::vector<JobSpec> jobs_of(const std::string &text, uint64_t capacity = GiB, uint64_t seed = 1)
{
	ParseContext c;
	c.capacity_bytes = capacity;
	c.scheduler_names = {"noop"};
	c.seed = seed;
	std::string err;
	auto jobs = parse_jobs({JobSource{"t.fio", text}}, c, &err);
	EXPECT_EQ(err, "");
	return jobs;
}

// Runs @text to the end on @host; returns the results.
struct SimRun {
	explicit SimRun(FakeHost &host, const std::string &text, uint64_t seed = 1)
	    : engine(host, jobs_of(text, host.capacity_bytes(), seed))
	{
		EXPECT_TRUE(engine.start());
		host.run();
		EXPECT_TRUE(engine.finished());
		results = engine.results();
	}
	JobEngine engine;
	std::vector<report::JobResult> results;
};

std::vector<FakeHost::Record> ios_of(const FakeHost &h, TaskId task)
{
	std::vector<FakeHost::Record> r;
	for (const auto &rec : h.records)
		if (rec.task == task)
			r.push_back(rec);
	return r;
}

TEST(Jobs, TasksCarryTheJobsNameCgroupWeightAndPriority)
{
	FakeHost h;
	SimRun run(h, "[reader]\nsize=64k\ndirect=1\ncgroup=grp1\ncgroup_weight=700\nprioclass=1\n"
		      "prio=2\n[other]\nsize=64k\ndirect=1\n");
	ASSERT_EQ(h.tasks.size(), 2u);
	EXPECT_EQ(h.tasks[0].comm, "reader");
	EXPECT_EQ(h.tasks[0].cgroup, "grp1");
	EXPECT_EQ(h.tasks[0].cgroup_weight, 700u);
	EXPECT_EQ(h.tasks[0].ioprio_class, 1);
	EXPECT_EQ(h.tasks[0].ioprio, 2);
	EXPECT_EQ(h.tasks[1].cgroup, "");
	EXPECT_EQ(h.tasks[1].ioprio_class, 0);
	EXPECT_EQ(run.engine.task_of(1), 2u);
	EXPECT_EQ(run.results[0].pid, 1);
	EXPECT_EQ(run.results[0].cgroup, "grp1");
	EXPECT_EQ(run.results[0].jobname, "reader");
	EXPECT_EQ(h.bad_ios, 0);
	EXPECT_EQ(h.bad_times, 0);
}

TEST(Jobs, SyncJobKeepsOneIoInFlight)
{
	FakeHost h(1 * MS);
	SimRun run(h, "[j]\nsize=1m\nbs=4k\ndirect=1\nioengine=psync\niodepth=16\n");
	EXPECT_EQ(h.max_inflight[1], 1u);
	EXPECT_EQ(h.records.size(), 256u);
	// Each IO is submitted when the previous one completes.
	for (size_t i = 1; i < h.records.size(); i++)
		EXPECT_EQ(h.records[i].submitted, h.records[i - 1].done);
	EXPECT_EQ(run.results[0].read.ios, 256u);
	EXPECT_EQ(run.results[0].read.io_bytes, MiB);
	EXPECT_EQ(run.results[0].read.clat.min, 1 * MS);
	EXPECT_EQ(run.results[0].read.clat.max, 1 * MS);
	EXPECT_EQ(run.results[0].read.runtime_ns, 256 * MS);
	EXPECT_EQ(run.results[0].write.ios, 0u);
}

TEST(Jobs, AsyncEnginesKeepIodepthInFlight)
{
	for (const char *engine : {"libaio", "io_uring", "posixaio"}) {
		FakeHost h(1 * MS);
		SimRun run(h, std::string("[j]\nsize=4m\nbs=4k\ndirect=1\niodepth=8\nioengine=") +
				      engine + "\n");
		EXPECT_EQ(h.max_inflight[1], 8u) << engine;
		ASSERT_EQ(h.records.size(), 1024u) << engine;
		// Eight at a time: 1024 IOs in 128 rounds of 1 ms.
		EXPECT_EQ(run.engine.end_time(), 128 * MS) << engine;
		// Every IO but the first eight replaces one that completed.
		for (size_t i = 8; i < h.records.size(); i++)
			EXPECT_EQ(h.records[i].submitted, h.records[i - 8].done) << engine;
	}
}

TEST(Jobs, LibaioWithoutDirectIsSynchronous)
{
	FakeHost h(1 * MS);
	// Random 4 KiB reads over 1 GiB: no readahead, so every device read is
	// one read() call of the job.
	SimRun run(h, "[j]\nsize=1g\nio_size=256k\nioengine=libaio\niodepth=8\ndirect=0\n"
		      "rw=randread\n");
	EXPECT_EQ(h.records.size(), 64u);
	EXPECT_EQ(h.max_inflight[1], 1u);
}

TEST(Jobs, SizeEndsTheJob)
{
	FakeHost h(100 * US);
	SimRun run(h, "[j]\nsize=100k\nbs=4k\ndirect=1\nrw=write\n"); // not a multiple of bs
	EXPECT_EQ(h.records.size(), 25u);			      // 100k / 4k, nothing partial
	EXPECT_EQ(run.results[0].write.io_bytes, 100 * KiB);
	EXPECT_EQ(run.engine.end_time(), 25 * 100 * US);
	// io_size transfers more than the region by wrapping.
	FakeHost h2(100 * US);
	SimRun run2(h2, "[j]\nsize=16k\nio_size=64k\nbs=4k\ndirect=1\n");
	EXPECT_EQ(h2.records.size(), 16u);
	EXPECT_EQ(run2.results[0].read.io_bytes, 64 * KiB);
}

TEST(Jobs, RuntimeStopsAJobAndTimeBasedKeepsItGoing)
{
	// Not time based: the region is done before runtime.
	FakeHost h1(1 * MS);
	SimRun r1(h1, "[j]\nsize=40k\nbs=4k\ndirect=1\nruntime=1s\n");
	EXPECT_EQ(h1.records.size(), 10u);
	// Runtime shorter than the region: runtime wins.
	FakeHost h2(1 * MS);
	SimRun r2(h2, "[j]\nsize=1g\nbs=4k\ndirect=1\nruntime=100ms\n");
	EXPECT_EQ(h2.records.size(), 100u);
	EXPECT_EQ(r2.engine.end_time(), 100 * MS);
	EXPECT_EQ(r2.results[0].read.runtime_ns, 100 * MS);
	// time_based: loops over a small region for the whole runtime.
	FakeHost h3(1 * MS);
	SimRun r3(h3, "[j]\nsize=40k\nbs=4k\ndirect=1\nruntime=100ms\ntime_based\n");
	EXPECT_EQ(h3.records.size(), 100u);
	// An IO in flight at the deadline completes and counts.
	FakeHost h4(3 * MS);
	SimRun r4(h4, "[j]\nsize=1m\nbs=4k\ndirect=1\nruntime=10ms\ntime_based\n");
	EXPECT_EQ(h4.records.size(), 4u); // at 0, 3, 6, 9 ms
	EXPECT_EQ(r4.engine.end_time(), 12 * MS);
	EXPECT_EQ(r4.results[0].read.ios, 4u);
}

TEST(Jobs, RampTimeIsExcludedFromStats)
{
	FakeHost h(1 * MS);
	SimRun run(h, "[j]\nsize=1g\nbs=4k\ndirect=1\nramp_time=50ms\nruntime=100ms\ntime_based\n");
	EXPECT_EQ(h.records.size(), 150u); // ramp plus runtime
	EXPECT_EQ(run.results[0].read.ios, 100u);
	EXPECT_EQ(run.results[0].read.runtime_ns, 100 * MS);
	// size= counts after the ramp, as fio resets its counters then.
	FakeHost h2(1 * MS);
	SimRun run2(h2, "[j]\nsize=40k\nbs=4k\ndirect=1\nramp_time=5ms\n");
	EXPECT_EQ(h2.records.size(), 15u);
	EXPECT_EQ(run2.results[0].read.ios, 10u);
}

TEST(Jobs, SequentialOffsetsStartAtTheRegionAndWrap)
{
	FakeHost h(1 * MS, 0, 100 * MiB);
	SimRun run(h, "[j]\nfilename=/dev/sdx\noffset=1m\nsize=16k\nbs=4k\ndirect=1\nruntime=10ms\n"
		      "time_based\n");
	ASSERT_EQ(h.records.size(), 10u);
	for (size_t i = 0; i < h.records.size(); i++)
		EXPECT_EQ(h.records[i].io.offset, MiB + (i % 4) * 4 * KiB) << i;
}

TEST(Jobs, MixedSequentialReadsAndWritesKeepTheirOwnPositions)
{
	FakeHost h(100 * US);
	SimRun run(h, "[j]\nfilename=/dev/sdx\nsize=1m\nrw=rw\nbs=4k\ndirect=1\n");
	uint64_t next[2] = {0, 0};
	for (const auto &r : h.records) {
		EXPECT_EQ(r.io.offset, next[r.io.write]);
		next[r.io.write] += 4 * KiB;
	}
	EXPECT_EQ(next[0] + next[1], MiB);
}

TEST(Jobs, RandomOffsetsAreAlignedInsideTheRegionEachBlockOncePerPass)
{
	FakeHost h(100 * US, 0, 100 * MiB);
	SimRun run(h, "[j]\nfilename=/dev/sdx\noffset=3m\nsize=1m\nbs=16k\nrw=randread\ndirect=1\n"
		      "io_size=2m\n");
	ASSERT_EQ(h.records.size(), 128u); // two passes over 64 blocks
	std::set<uint64_t> pass1, pass2;
	for (size_t i = 0; i < h.records.size(); i++) {
		const uint64_t off = h.records[i].io.offset;
		EXPECT_GE(off, 3 * MiB);
		EXPECT_LE(off + 16 * KiB, 4 * MiB);
		EXPECT_EQ((off - 3 * MiB) % (16 * KiB), 0u);
		(i < 64 ? pass1 : pass2).insert(off);
	}
	EXPECT_EQ(pass1.size(), 64u);
	EXPECT_EQ(pass2.size(), 64u);
	// Not sequential.
	size_t ascending = 0;
	for (size_t i = 1; i < 64; i++)
		ascending += h.records[i].io.offset == h.records[i - 1].io.offset + 16 * KiB;
	EXPECT_LT(ascending, 16u);
}

TEST(Jobs, NorandommapDrawsWithReplacement)
{
	FakeHost h(100 * US, 0, 100 * MiB);
	SimRun run(
		h,
		"[j]\nfilename=/dev/sdx\nsize=1m\nbs=16k\nrw=randwrite\ndirect=1\nnorandommap\n");
	ASSERT_EQ(h.records.size(), 64u);
	std::set<uint64_t> seen;
	for (const auto &r : h.records) {
		EXPECT_EQ(r.io.offset % (16 * KiB), 0u);
		EXPECT_LT(r.io.offset, MiB);
		seen.insert(r.io.offset);
	}
	EXPECT_LT(seen.size(), 64u); // 64 draws from 64 blocks repeat some
	EXPECT_GT(seen.size(), 20u);
}

TEST(Jobs, RwmixreadRatioWithinTolerance)
{
	for (const unsigned int mix : {0u, 30u, 70u, 100u}) {
		FakeHost h(10 * US, 0, 100 * MiB);
		SimRun run(
			h,
			"[j]\nfilename=/dev/sdx\nsize=40m\nbs=4k\nrw=randrw\ndirect=1\nrwmixread=" +
				std::to_string(mix) + "\n");
		const auto &r = run.results[0];
		ASSERT_EQ(r.read.ios + r.write.ios, 10240u);
		const double share = static_cast<double>(r.read.ios) / 10240;
		EXPECT_NEAR(share, mix / 100.0, 0.02) << mix;
	}
}

TEST(Jobs, DirectIoFlags)
{
	FakeHost h;
	SimRun run(h, "[r]\nsize=8k\ndirect=1\n[w]\nsize=8k\ndirect=1\nrw=write\n");
	for (const auto &r : h.records) {
		EXPECT_TRUE(r.io.sync);
		EXPECT_EQ(r.io.idle, r.io.write);
		EXPECT_FALSE(r.io.meta);
		EXPECT_EQ(r.io.charge_to, 0u);
		EXPECT_EQ(r.io.bytes, 4096u);
	}
}

TEST(Jobs, StonewallWaitsForEveryEarlierJob)
{
	FakeHost h(1 * MS);
	SimRun run(h, "[global]\ndirect=1\nbs=4k\n"
		      "[a]\nsize=40k\n"			     // 10 ms
		      "[b]\nsize=80k\n"			     // 20 ms
		      "[c]\nsize=40k\nstonewall\n"	     // starts at 20 ms
		      "[d]\nsize=40k\n"			     // starts with c
		      "[e]\nsize=40k\nnew_group\n"	     // also with c: new_group does not wait
		      "[f]\nsize=40k\nwait_for_previous\n"); // after c, d, e: 30 ms
	auto first = [&](TaskId t) { return ios_of(h, t).front().submitted; };
	auto last = [&](TaskId t) { return ios_of(h, t).back().done; };
	EXPECT_EQ(first(1), 0);
	EXPECT_EQ(first(2), 0);
	EXPECT_EQ(first(3), std::max(last(1), last(2)));
	EXPECT_EQ(first(3), 20 * MS);
	EXPECT_EQ(first(4), 20 * MS);
	EXPECT_EQ(first(5), 20 * MS);
	EXPECT_EQ(first(6), 30 * MS);
	const int groups[] = {0, 0, 1, 1, 2, 3};
	for (int i = 0; i < 6; i++)
		EXPECT_EQ(run.results[i].groupid, groups[i]) << i;
}

TEST(Jobs, NoEventOutlivesTheJobs)
{
	// A size-limited job with a long runtime, and one that thinks past its
	// deadline: both end without leaving a late event in the host.
	FakeHost h(1 * MS);
	JobEngine e(h, jobs_of("[a]\nsize=8k\ndirect=1\nruntime=1d\n"
			       "[b]\nsize=1m\ndirect=1\nruntime=10ms\nthinktime=1s\n"));
	ASSERT_TRUE(e.start());
	h.run();
	EXPECT_TRUE(e.finished());
	EXPECT_EQ(h.now(), 10 * MS);
	EXPECT_EQ(e.end_time(), 10 * MS);
	EXPECT_EQ(ios_of(h, 2).size(), 1u);
}

TEST(Jobs, StartdelayDelaysTheFirstIo)
{
	FakeHost h(1 * MS);
	SimRun run(h, "[a]\nsize=4k\ndirect=1\nstartdelay=15ms\n[b]\nsize=4k\ndirect=1\n");
	EXPECT_EQ(ios_of(h, 1).front().submitted, 15 * MS);
	EXPECT_EQ(ios_of(h, 2).front().submitted, 0);
}

TEST(Jobs, ThinktimeSpacesIos)
{
	FakeHost h(1 * MS);
	SimRun run(h, "[j]\nsize=40k\nbs=4k\ndirect=1\nthinktime=2ms\n");
	ASSERT_EQ(h.records.size(), 10u);
	for (size_t i = 1; i < h.records.size(); i++)
		EXPECT_EQ(h.records[i].submitted - h.records[i - 1].done, 2 * MS);
	// thinktime_blocks: a batch of 4 (capping an iodepth of 8), then a stall.
	FakeHost h2(1 * MS);
	SimRun run2(h2, "[j]\nsize=64k\nbs=4k\ndirect=1\nioengine=libaio\niodepth=8\n"
			"thinktime=5ms\nthinktime_blocks=4\n");
	EXPECT_EQ(h2.max_inflight[1], 4u);
	ASSERT_EQ(h2.records.size(), 16u);
	for (size_t i = 0; i < 16; i++)
		EXPECT_EQ(h2.records[i].submitted, static_cast<int64_t>(i / 4) * 6 * MS) << i;
}

TEST(Jobs, TheSameSeedGivesTheSameRunAnotherSeedAnother)
{
	auto offsets = [](uint64_t seed) {
		FakeHost h(100 * US, 0, 100 * MiB);
		SimRun run(h, "[a]\nfilename=/dev/x\nsize=10m\nrw=randrw\ndirect=1\nio_size=400k\n",
			   seed);
		std::vector<std::pair<uint64_t, bool>> v;
		for (const auto &r : h.records)
			v.emplace_back(r.io.offset, r.io.write);
		return v;
	};
	EXPECT_EQ(offsets(1), offsets(1));
	EXPECT_NE(offsets(1), offsets(2));
	EXPECT_EQ(offsets(1).size(), 100u);
}

TEST(Jobs, PerIoLogs)
{
	FakeHost h(2 * MS);
	SimRun run(h, "[j]\nsize=40k\nbs=4k\ndirect=1\nwrite_bw_log\nwrite_lat_log=lat\n"
		      "write_iops_log\nprioclass=1\nlog_offset=1\nper_job_logs=0\n");
	const auto &r = run.results[0];
	EXPECT_EQ(r.logs.bw_prefix, "j");
	EXPECT_EQ(r.logs.lat_prefix, "lat");
	EXPECT_EQ(r.logs.iops_prefix, "j");
	EXPECT_TRUE(r.logs.log_offset);
	EXPECT_FALSE(r.logs.per_job_logs);
	ASSERT_EQ(r.lat_log.size(), 10u);
	ASSERT_EQ(r.clat_log.size(), 10u);
	ASSERT_EQ(r.slat_log.size(), 10u);
	ASSERT_EQ(r.bw_log.size(), 10u);
	ASSERT_EQ(r.iops_log.size(), 10u);
	for (size_t i = 0; i < 10; i++) {
		EXPECT_EQ(r.lat_log[i].time_ms, static_cast<int64_t>(2 * (i + 1)));
		EXPECT_EQ(r.lat_log[i].value, static_cast<uint64_t>(2 * MS));
		EXPECT_EQ(r.slat_log[i].value, 0u);
		EXPECT_EQ(r.lat_log[i].bs, 4096u);
		EXPECT_EQ(r.lat_log[i].offset, i * 4096);
		EXPECT_EQ(r.lat_log[i].prio, 1);
		EXPECT_EQ(r.bw_log[i].value, 2000u); // 4 KiB per 2 ms
		EXPECT_EQ(r.iops_log[i].value, 1u);
	}
}

TEST(Jobs, WindowedLogs)
{
	FakeHost h(1 * MS);
	SimRun run(h, "[j]\nsize=1g\nbs=4k\ndirect=1\nruntime=1s\ntime_based\nwrite_bw_log\n"
		      "write_iops_log\nwrite_lat_log\nlog_avg_msec=100\n");
	const auto &r = run.results[0];
	ASSERT_EQ(r.bw_log.size(), 10u);
	ASSERT_EQ(r.lat_log.size(), 10u);
	for (size_t i = 0; i < 10; i++) {
		EXPECT_EQ(r.bw_log[i].time_ms, static_cast<int64_t>(100 * (i + 1)));
		EXPECT_EQ(r.bw_log[i].bs, 0u);
		EXPECT_NEAR(static_cast<double>(r.bw_log[i].value), 4000, 40); // 1000 IOPS x 4 KiB
		EXPECT_NEAR(static_cast<double>(r.iops_log[i].value), 1000, 10);
		EXPECT_EQ(r.lat_log[i].value, static_cast<uint64_t>(MS));
	}
	EXPECT_TRUE(r.write.io_bytes == 0);
}

TEST(Jobs, OnFinishedRunsOnceAtTheEnd)
{
	FakeHost h(1 * MS);
	int calls = 0;
	EngineOptions opt;
	opt.on_finished = [&]() { calls++; };
	JobEngine engine(h, jobs_of("[a]\nsize=8k\ndirect=1\n[b]\nsize=16k\ndirect=1\n"), opt);
	engine.start();
	h.run();
	EXPECT_EQ(calls, 1);
	EXPECT_EQ(engine.end_time(), 4 * MS);
	const auto res = engine.results();
	EXPECT_EQ(res[0].read.runtime_ns, 2 * MS);
	EXPECT_EQ(res[1].read.runtime_ns, 4 * MS);
}

TEST(Jobs, AHostThatRefusesATaskFailsTheStart)
{
	FakeHost h;
	h.refuse_tasks = true;
	JobEngine engine(h, jobs_of("[a]\nsize=8k\ndirect=1\n"));
	EXPECT_FALSE(engine.start());
	h.run();
	EXPECT_TRUE(h.records.empty());
	EXPECT_FALSE(engine.finished());
}

TEST(Jobs, OptionsAreReported)
{
	FakeHost h;
	SimRun run(h, "[j]\nsize=8k\ndirect=1\nbs=4k\n");
	using KV = std::vector<std::pair<std::string, std::string>>;
	EXPECT_EQ(run.results[0].options, (KV{{"size", "8k"}, {"direct", "1"}, {"bs", "4k"}}));
}

} // namespace
} // namespace efqsim::workload
