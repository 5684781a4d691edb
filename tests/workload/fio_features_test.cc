// SPDX-License-Identifier: GPL-2.0
// fio 3.33's features between the IO and the job: per-IO priorities
// (cmdprio*), flow control between jobs (flow, flow_id, flow_sleep),
// steady-state detection (ss, ss_dur, ss_ramp) and the latency target's
// queue-depth probe (latency_target, latency_window, latency_percentile,
// latency_run), each measured on what a fake device sees.  The job files
// are written for these tests.

#include <gtest/gtest.h>

#include "fake_host.h"
#include "job_helpers.h"
#include "workload/jobs.h"

#include <cmath>
#include <map>
#include <string>
#include <vector>

namespace efqsim::workload {
namespace {

using testing::FakeHost;

constexpr int64_t MS = 1'000'000, SEC = 1'000'000'000;
constexpr unsigned short kRt2 = (1 << 13) | 2; // IOPRIO_PRIO_VALUE(RT, 2)

ParseContext ctx()
{
	ParseContext c;
	c.capacity_bytes = uint64_t{1} << 30;
	c.seed = 5;
	return c;
}

std::vector<JobSpec> parse(const std::string &text, std::string *err = nullptr)
{
	return testing::parse_text(ctx(), text, err);
}

std::string error_of(const std::string &text)
{
	return testing::error_of_text(ctx(), text);
}

struct FeatureRun : testing::JobRun {
	explicit FeatureRun(const std::string &text, int64_t latency = 100'000,
			    unsigned int servers = 0)
	    : JobRun(parse(text), latency, servers, true)
	{
	}
};

// --- cmdprio ---------------------------------------------------------------------

TEST(FioFeatures, CmdprioParses)
{
	auto jobs = parse("[j]\nsize=1m\nioengine=libaio\ndirect=1\ncmdprio_percentage=20,30\n"
			  "cmdprio_class=2\ncmdprio=5\n");
	ASSERT_EQ(jobs.size(), 1u);
	ASSERT_EQ(jobs[0].cmdprio[0].size(), 1u);
	ASSERT_EQ(jobs[0].cmdprio[1].size(), 1u);
	EXPECT_EQ(jobs[0].cmdprio[0][0].pct, 20u);
	EXPECT_EQ(jobs[0].cmdprio[1][0].pct, 30u);
	EXPECT_EQ(jobs[0].cmdprio[1][0].ioprio_class, 2);
	EXPECT_EQ(jobs[0].cmdprio[1][0].ioprio, 5);
	// fio's defaults: class RT, level 0
	jobs = parse("[j]\nsize=1m\nioengine=io_uring\ncmdprio_percentage=10\n");
	ASSERT_EQ(jobs[0].cmdprio[0].size(), 1u);
	EXPECT_EQ(jobs[0].cmdprio[0][0].ioprio_class, 1);
	EXPECT_EQ(jobs[0].cmdprio[0][0].ioprio, 0);
	// the bssplit form, entries of a size together, each with its own
	// class and level or cmdprio_class/cmdprio's; zero entries dropped
	jobs = parse("[j]\nsize=1m\nioengine=libaio\nbssplit=64k/40:1m/60\ncmdprio_class=3\n"
		     "cmdprio_bssplit=64k/25/1/1:1m/0:64k/75/2/6,1m/50\n");
	ASSERT_EQ(jobs[0].cmdprio[0].size(), 2u);
	EXPECT_EQ(jobs[0].cmdprio[0][0].bs, 65536u);
	EXPECT_EQ(jobs[0].cmdprio[0][0].pct, 25u);
	EXPECT_EQ(jobs[0].cmdprio[0][0].ioprio_class, 1);
	EXPECT_EQ(jobs[0].cmdprio[0][1].ioprio_class, 2);
	EXPECT_EQ(jobs[0].cmdprio[0][1].ioprio, 6);
	ASSERT_EQ(jobs[0].cmdprio[1].size(), 1u);
	EXPECT_EQ(jobs[0].cmdprio[1][0].bs, 1048576u);
	EXPECT_EQ(jobs[0].cmdprio[1][0].ioprio_class, 3); // cmdprio_class's

	EXPECT_EQ(error_of("[j]\nsize=1m\ncmdprio_percentage=10\n"),
		  "t.fio:3: cmdprio_percentage: an option of the libaio and io_uring engines, "
		  "not of ioengine=psync");
	EXPECT_EQ(error_of("[j]\nsize=1m\nioengine=libaio\ncmdprio_percentage=10\n"
			   "cmdprio_bssplit=4k/10\n"),
		  "t.fio:5: cmdprio_percentage and cmdprio_bssplit are mutually exclusive");
	EXPECT_EQ(error_of("[j]\nsize=1m\nioengine=libaio\ncmdprio_bssplit=4k/60:4k/50/2/0\n"),
		  "t.fio:4: cmdprio_bssplit: '4k/60:4k/50/2/0': the percentages of 4096 bytes "
		  "add up to 110 (more than 100)");
	EXPECT_EQ(error_of("[j]\nsize=1m\nioengine=libaio\ncmdprio_class=0\n"),
		  "t.fio:4: cmdprio_class: '0' is out of range (1..3)");
}

// cmdprio_percentage=30 with the job itself in the idle class
// (prioclass=3): about 30% of the IOs carry RT level 2, the rest none of
// their own (the block layer gives them the task's).  The tolerance is
// five binomial standard deviations of 2048 draws, sqrt(2048 * .3 * .7)
// = 21 IOs, about 1%.
TEST(FioFeatures, CmdprioPercentageMarksThatShareOfTheIos)
{
	FeatureRun r("[j]\nrw=randread\nsize=8m\nbs=4k\nioengine=libaio\niodepth=4\ndirect=1\n"
		     "prioclass=3\ncmdprio_percentage=30\ncmdprio_class=1\ncmdprio=2\n");
	const auto &ios = r.ios[1];
	ASSERT_EQ(ios.size(), 2048u);
	size_t rt = 0, other = 0;
	for (const auto &rec : ios) {
		if (rec.io.ioprio == kRt2)
			rt++;
		else if (rec.io.ioprio == 0)
			other++;
	}
	EXPECT_EQ(rt + other, ios.size());
	EXPECT_NEAR(static_cast<double>(rt) / static_cast<double>(ios.size()), 0.30, 0.05);
	EXPECT_EQ(r.host.tasks[0].ioprio_class, 3);
}

// The bssplit form decides by the IO's size: every 4k read gets RT, no
// 64k read does.
TEST(FioFeatures, CmdprioBssplitDecidesBySize)
{
	FeatureRun r("[j]\nrw=randread\nsize=16m\nbssplit=4k/50:64k/50\nioengine=io_uring\n"
		     "iodepth=2\ndirect=1\ncmdprio_bssplit=4k/100:64k/0\n");
	size_t small = 0, big = 0;
	for (const auto &rec : r.ios[1]) {
		if (rec.io.bytes == 4096) {
			small++;
			EXPECT_EQ(rec.io.ioprio, 1 << 13);
		} else {
			big++;
			EXPECT_EQ(rec.io.ioprio, 0);
		}
	}
	EXPECT_GT(small, 100u);
	EXPECT_GT(big, 100u);
}

// Buffered IO: the page cache makes the bios, which the kernel does not
// give the aio request's priority.
TEST(FioFeatures, CmdprioDoesNotReachBufferedIo)
{
	FeatureRun r("[j]\nrw=read\nsize=1m\nioengine=libaio\ncmdprio_percentage=100\n");
	ASSERT_FALSE(r.host.records.empty());
	for (const auto &rec : r.host.records)
		EXPECT_EQ(rec.io.ioprio, 0);
}

// --- flow --------------------------------------------------------------------------

TEST(FioFeatures, FlowParses)
{
	auto jobs = parse("[j]\nsize=1m\nflow=8\nflow_id=-2\nflow_sleep=1000\n");
	EXPECT_EQ(jobs[0].flow, 8u);
	EXPECT_EQ(jobs[0].flow_id, -2);
	EXPECT_EQ(jobs[0].flow_sleep_ns, MS);
	EXPECT_EQ(error_of("[j]\nsize=1m\nflow=1001\n"),
		  "t.fio:3: flow: '1001' is out of range (0..1000)");
	// not an option of fio 3.33
	EXPECT_EQ(error_of("[j]\nsize=1m\nflow_watermark=2\n"),
		  "t.fio:3: unknown option 'flow_watermark'");
}

// Two jobs of one flow at weights 1 and 3, on a device that serves every
// IO at once in 100 us: alone each would issue as fast as its depth lets
// it; together the weights decide.  fio admits an IO only while the job's
// share of the group's counter (which starts at 1) is not above its share
// of the weights, so at every admission count_i <= w_i/W * C + 1; the
// counts add up to C - 1, so count_i >= w_i/W * C - 2 as well.  Hence
// |count_b - 3 count_a| <= (3/4 C + 1) - 3 (1/4 C - 2) = 7 IOs, whatever
// the run length -- with or without flow_sleep.
TEST(FioFeatures, FlowKeepsTheWeightRatio)
{
	const std::string jobs = "[global]\nrw=randread\nsize=64m\nbs=4k\nioengine=libaio\n"
				 "direct=1\niodepth=4\ntime_based\nruntime=1\n@SLEEP@\n"
				 "[a]\nflow=1\n[b]\nflow=3\n";
	for (const std::string sleep : {"", "flow_sleep=200"}) {
		std::string text = jobs;
		text.replace(text.find("@SLEEP@"), 7, sleep);
		FeatureRun r(text);
		const auto a = static_cast<long>(r.ios[1].size());
		const auto b = static_cast<long>(r.ios[2].size());
		EXPECT_GT(a, 1000) << sleep;
		EXPECT_LE(std::labs(b - 3 * a), 7) << sleep << ": a " << a << " b " << b;
	}
	// The control: without flow both issue the same.
	std::string text = jobs;
	text.replace(text.find("@SLEEP@"), 7, "");
	text.replace(text.find("flow=1"), 6, "flow=0");
	text.replace(text.find("flow=3"), 6, "flow=0");
	FeatureRun r(text);
	EXPECT_NEAR(static_cast<double>(r.ios[2].size()) / static_cast<double>(r.ios[1].size()),
		    1.0, 0.01);
}

// A job leaves its flow when it ends: its IOs and weight no longer hold
// the others back.  b (weight 1) would get a quarter of the IO while a
// runs; once a's 4 MiB are done b runs alone, at full speed.
TEST(FioFeatures, FlowReleasesWhenAJobEnds)
{
	FeatureRun r("[global]\nrw=randread\nbs=4k\nioengine=libaio\ndirect=1\niodepth=4\n"
		     "[a]\nsize=4m\nflow=3\n[b]\nsize=4m\nflow=1\n");
	ASSERT_EQ(r.ios[1].size(), 1024u);
	ASSERT_EQ(r.ios[2].size(), 1024u);
	const int64_t a_end = r.ios[1].back().done;
	size_t b_before = 0;
	for (const auto &rec : r.ios[2])
		b_before += rec.submitted < a_end;
	EXPECT_NEAR(static_cast<double>(b_before), 1024.0 / 3, 8);
}

// --- steady state ---------------------------------------------------------------

TEST(FioFeatures, SteadyStateParses)
{
	auto jobs = parse("[j]\nsize=1m\nss=iops:10%\nss_dur=30s\nss_ramp=10s\n");
	EXPECT_EQ(jobs[0].ss, JobSpec::SsMode::Iops);
	EXPECT_TRUE(jobs[0].ss_pct);
	EXPECT_EQ(jobs[0].ss_limit, 10);
	EXPECT_EQ(jobs[0].ss_dur_s, 30u);
	EXPECT_EQ(jobs[0].ss_ramp_ns, 10 * SEC);
	jobs = parse("[j]\nsize=1m\nsteadystate=bw_slope:2m\nsteadystate_duration=5\n");
	EXPECT_EQ(jobs[0].ss, JobSpec::SsMode::BwSlope);
	EXPECT_FALSE(jobs[0].ss_pct);
	EXPECT_EQ(jobs[0].ss_limit, 2.0 * 1024 * 1024);
	// ss without ss_dur is off, as in fio
	EXPECT_EQ(parse("[j]\nsize=1m\nss=iops:1%\n")[0].ss, JobSpec::SsMode::Off);
	EXPECT_EQ(error_of("[j]\nsize=1m\nss=lat:1%\n"),
		  "t.fio:3: ss: 'lat' is not a steady-state criterion (iops, iops_slope, bw, "
		  "bw_slope)");
	EXPECT_EQ(error_of("[j]\nsize=1m\nss=iops\n"),
		  "t.fio:3: ss: 'iops': the criterion needs a limit (e.g. iops:1%)");
}

// A device that serves every IO in exactly 100 us gives a steady 10000
// IOPS: with ss_ramp=2s the samples start 3 s into the job (fio begins a
// second after the ramp), one a second; the fifth, at 7 s, fills the 5 s
// window, whose deviation is 0: the job ends there, not at its 60 s.
TEST(FioFeatures, SteadyStateEndsAJobEarly)
{
	FeatureRun r("[j]\nrw=randread\nsize=64m\nioengine=libaio\ndirect=1\ntime_based\n"
		     "runtime=60\nss=iops:1%\nss_dur=5s\nss_ramp=2s\n");
	ASSERT_EQ(r.results.size(), 1u);
	const auto &res = r.results[0];
	EXPECT_TRUE(res.ss.attained);
	EXPECT_NEAR(static_cast<double>(res.read.runtime_ns), 7.0 * SEC, 0.001 * SEC);
	ASSERT_EQ(res.ss.iops.size(), 5u);
	for (uint64_t v : res.ss.iops)
		EXPECT_EQ(v, 10000u);
	EXPECT_EQ(res.ss.value, 0);
	// The control: a limit nothing meets runs the whole runtime.
	FeatureRun never("[j]\nrw=randread\nsize=64m\nioengine=libaio\ndirect=1\ntime_based\n"
			 "runtime=10\nss=iops_slope:0\nss_dur=3s\n");
	EXPECT_FALSE(never.results[0].ss.attained);
	EXPECT_NEAR(static_cast<double>(never.results[0].read.runtime_ns), 10.0 * SEC, 0.001 * SEC);
}

// With group_reporting the group is the unit: its members' IOPS are
// summed, and all of them end together.
TEST(FioFeatures, SteadyStateOfAGroup)
{
	FeatureRun r("[j]\nrw=randread\nsize=64m\nioengine=libaio\ndirect=1\ntime_based\n"
		     "runtime=30\nnumjobs=2\ngroup_reporting\nss=bw:1%\nss_dur=3s\n");
	ASSERT_EQ(r.results.size(), 2u);
	for (const auto &res : r.results) {
		EXPECT_TRUE(res.ss.attained);
		// samples at 1, 2 and 3 s: two jobs of 10000 4k IOs a second
		EXPECT_NEAR(static_cast<double>(res.read.runtime_ns), 3.0 * SEC, 0.001 * SEC);
		ASSERT_EQ(res.ss.bw.size(), 3u);
		// (an IO completing at the very tick may fall in the next second)
		EXPECT_NEAR(static_cast<double>(res.ss.bw[0]), 2.0 * 10000 * 4096, 2 * 4096);
	}
}

// --- latency target -------------------------------------------------------------

TEST(FioFeatures, LatencyTargetParses)
{
	auto jobs = parse("[j]\nsize=1m\nlatency_target=500000\nlatency_window=5000000\n"
			  "latency_percentile=99.9\nlatency_run=1\n");
	EXPECT_EQ(jobs[0].latency_target_ns, 500 * MS); // microseconds by default
	EXPECT_EQ(jobs[0].latency_window_ns, 5 * SEC);
	EXPECT_DOUBLE_EQ(jobs[0].latency_percentile, 99.9);
	EXPECT_TRUE(jobs[0].latency_run);
	EXPECT_EQ(error_of("[j]\nsize=1m\nlatency_percentile=101\n"),
		  "t.fio:3: latency_percentile: '101' is out of range (0..100)");
}

// One server taking 1 ms per IO: at depth q every IO waits for the q - 1
// ahead of it, so its latency is q ms.  With a 3.5 ms target fio's probe
// goes 1, 2, 4 (fails), 3, and settles at 3; it then runs one more window
// at 3 with fresh statistics and ends -- long before its 60 s.
TEST(FioFeatures, LatencyTargetFindsTheDepth)
{
	const std::string job = "[j]\nrw=randread\nsize=64m\nioengine=libaio\ndirect=1\n"
				"iodepth=16\ntime_based\nruntime=60\n";
	FeatureRun r(job + "latency_target=3500\nlatency_window=200ms\nlatency_percentile=99\n", MS,
		     1);
	const auto &res = r.results[0];
	EXPECT_EQ(res.latency_depth, 3u);
	EXPECT_EQ(res.error, 0);
	EXPECT_LT(res.read.runtime_ns, 2 * SEC);	    // ended by the probe
	EXPECT_NEAR(res.read.runtime_ns, 200 * MS, 5 * MS); // the final window
	EXPECT_LE(res.read.clat.max, 3500'000);		    // every IO of it met the target
	EXPECT_EQ(r.host.max_inflight[1], 4u);		    // 4 was tried, never more
	// The control: without a target the job keeps its 16 in flight.
	FeatureRun all(job + "runtime=1\n", MS, 1);
	EXPECT_EQ(all.host.max_inflight[1], 16u);
}

// latency_run keeps probing to the end of the runtime; at depth 1 an IO
// over the target (with latency_percentile=100) ends the job with fio's
// ETIMEDOUT.
TEST(FioFeatures, LatencyRunAndFailure)
{
	const std::string job = "[j]\nrw=randread\nsize=64m\nioengine=libaio\ndirect=1\n"
				"iodepth=16\ntime_based\nruntime=2\nlatency_window=100ms\n";
	FeatureRun keep(job + "latency_target=3500\nlatency_percentile=99\nlatency_run=1\n", MS, 1);
	EXPECT_NEAR(keep.results[0].read.runtime_ns, 2 * SEC, 5 * MS);
	EXPECT_LE(keep.results[0].latency_depth, 4u);
	FeatureRun fail(job + "latency_target=500\n", MS, 1);
	EXPECT_EQ(fail.results[0].error, 110);
	EXPECT_EQ(fail.results[0].read.ios, 1u);
}

} // namespace
} // namespace efqsim::workload
