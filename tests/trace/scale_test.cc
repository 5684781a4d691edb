// SPDX-License-Identifier: GPL-2.0
// efqsim's cost per IO does not grow with the size of the work (issue 16,
// item 4).  Ratios only, never an absolute time: each case runs at two
// sizes, the larger 4 times the smaller, interleaved three times; the
// median CPU time per IO of the larger must stay under twice the smaller's.
// The process's CPU time, not the wall clock: the machine may be shared.
// A quadratic path makes the ratio about 4 (the wait list's copy did: 250 vs
// 1000 deep jobs were 0.5 s vs 8 s), a linear one about 1, so the bound
// leaves room for noise on both sides.  make bench measures the absolute
// figures (bench/scale_bench.cc).
#include <unistd.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "blk/model.h"
#include "dev/device.h"
#include "run/replay.h"
#include "trace/synth.h"
#include "workload/jobfile.h"
#include "workload/jobs.h"

namespace efqsim {
namespace {

double cpu_seconds()
{
	timespec ts{};
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

struct Cost {
	uint64_t ios = 0;
	double seconds = 0; // CPU time of the simulation (not of its setup)
};

// The medians of 3 interleaved runs of CPU time per IO at @small and at
// 4 x @small, as big / small.
double cost_ratio(const std::function<Cost(int)> &run, int small)
{
	std::vector<double> per_io[2];
	for (int round = 0; round < 3; round++) {
		for (int big = 0; big < 2; big++) {
			Cost c = run(big ? 4 * small : small);
			EXPECT_GT(c.ios, 0u);
			per_io[big].push_back(c.seconds /
					      static_cast<double>(std::max<uint64_t>(c.ios, 1)));
		}
	}
	for (auto &v : per_io)
		std::sort(v.begin(), v.end());
	std::printf("CPU time per IO (median of 3): %.3g us at %d, %.3g us at %d: ratio %.2f\n",
		    per_io[0][1] * 1e6, small, per_io[1][1] * 1e6, 4 * small,
		    per_io[1][1] / per_io[0][1]);
	return per_io[1][1] / per_io[0][1];
}

// Jobs x iodepth 32 on null for 20 ms simulated: the device's rate bounds
// the IOs, so the larger file has 4 times the submitters asleep for a tag
// (the case that was quadratic) for the same number of IOs.
Cost deep_jobs(int jobs)
{
	std::string text = "[global]\nioengine=libaio\niodepth=32\nrw=randread\nbs=4k\n"
			   "direct=1\nsize=16m\nruntime=20ms\ntime_based\n";
	for (int j = 0; j < jobs; j++)
		text += "[j" + std::to_string(j) + "]\n";
	std::string err;
	auto dev = dev::make_device("null", &err);
	workload::ParseContext ctx;
	ctx.capacity_bytes = dev->capacity_sectors() * 512;
	auto specs = workload::parse_jobs({{"deep.fio", text}}, ctx, &err);
	EXPECT_FALSE(specs.empty()) << err;
	blk::Model model(std::move(dev), blk::Config{});
	EXPECT_TRUE(model.init(&err)) << err;
	workload::JobEngine engine(model, specs);
	EXPECT_TRUE(engine.start());
	double t0 = cpu_seconds();
	while (!engine.finished())
		model.run_until(model.now() + 10'000'000);
	EXPECT_TRUE(model.drain(model.now() + 3'600'000'000'000));
	return {model.counters().completed, cpu_seconds() - t0};
}

TEST(Scale, DeepJobsCostTheSamePerIoAt4TimesTheJobs)
{
	double r = cost_ratio(deep_jobs, 250);
	EXPECT_LT(r, 2.0) << "1000 jobs cost " << r << " x per IO what 250 jobs cost";
}

// An open-loop replay of the Hadoop-shaped recording on hdd: it queues more
// than the disk serves, so the backlog (submitters asleep for a tag, IOs in
// the builder, events) grows with the trace's length.  The larger trace is
// 4 times as long: 4 times the IOs, and a backlog 4 times as deep.  The
// recordings are written once, before the runs.
TEST(Scale, ReplayCostsTheSamePerIoAt4TimesTheTrace)
{
	constexpr int kSmall = 8000;
	std::map<int, trace::SynthResult> files;
	for (int ios : {kSmall, 4 * kSmall}) {
		std::string err;
		const std::string prefix = ::testing::TempDir() + std::to_string(getpid()) +
					   "-scale-" + std::to_string(ios);
		ASSERT_TRUE(trace::write_synthetic_trace(prefix, trace::hadoop_shape(ios),
							 &files[ios], &err))
			<< err;
	}
	auto replay = [&](int ios) {
		run::Setup s;
		s.device = "hdd";
		run::ReplayOptions o;
		o.traces = files[ios].paths;
		run::ReplayResult r;
		std::string err;
		double t0 = cpu_seconds();
		EXPECT_EQ(run::replay(s, o, &r, &err), run::Status::ok) << err;
		return Cost{r.ios, cpu_seconds() - t0};
	};
	double r = cost_ratio(replay, kSmall);
	EXPECT_LT(r, 2.0) << 4 * kSmall << " IOs cost " << r << " x per IO what " << kSmall
			  << " IOs cost";
	for (auto &[ios, f] : files)
		for (const std::string &p : f.paths)
			std::remove(p.c_str());
}

} // namespace
} // namespace efqsim
