// SPDX-License-Identifier: GPL-2.0
// efqsim at scale (issue 16, item 4): run time must grow linearly with the
// work.
//
// - Replays of a synthetic recording over 40 CPU files (sim/trace/synth.h,
//   generated into /tmp and removed afterwards): a million IOs open loop on
//   null (target: >= 500,000 trace IOs per wall-clock second) and on hdd
//   (target: within 3x of null), and 137,309 IOs shaped as the review's
//   Hadoop recording on hdd (145 s of wall time before the fix).  On hdd the
//   recording queues more than the disk serves, so tens of thousands of
//   submitters sleep for a tag: the case that was quadratic.
// - 10 and 1,000 jobs x iodepth 32 (libaio, 4 KiB random reads, noop) on
//   null for 1 s simulated: the cost per IO of each, and the ratio
//   1000 jobs / 10 jobs (target: about 1).
// Rates are per second of CPU time (the process's: the machine is shared;
// a simulation is one thread) on this machine; the ratios are what to
// compare between machines.
#include <benchmark/benchmark.h>

#include <ctime>
#include <cstdio>
#include <string>
#include <unistd.h>
#include <vector>

#include "blk/model.h"
#include "dev/device.h"
#include "run/replay.h"
#include "trace/synth.h"
#include "workload/jobfile.h"
#include "workload/jobs.h"

namespace {

using namespace efqsim;

std::string prefix(const std::string &name)
{
	return "/tmp/efq-scale-bench-" + std::to_string(getpid()) + "-" + name;
}

// The process's CPU time: the machine is shared, and a simulation is one
// thread, so this is its wall time on an idle machine.
double cpu_seconds()
{
	timespec ts{};
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double g_null_rate = 0; // trace IOs/s of the 1M replay on null

void replay(benchmark::State &state, const trace::SynthSpec &spec, const char *device,
	    const char *name, bool is_null_baseline)
{
	trace::SynthResult files;
	std::string err;
	if (!trace::write_synthetic_trace(prefix(name), spec, &files, &err)) {
		state.SkipWithError(err.c_str());
		return;
	}
	uint64_t ios = 0;
	double wall = 0, simulated = 0;
	for (auto _ : state) {
		run::Setup s;
		s.device = device;
		s.scheduler = "noop";
		s.hierarchical = false;
		run::ReplayOptions o;
		o.traces = files.paths;
		run::ReplayResult r;
		double t0 = cpu_seconds();
		if (run::replay(s, o, &r, &err) != run::Status::ok) {
			state.SkipWithError(err.c_str());
			break;
		}
		wall += cpu_seconds() - t0;
		ios += r.ios;
		simulated = static_cast<double>(r.run.duration_ns) / 1e9;
	}
	for (const std::string &p : files.paths)
		std::remove(p.c_str());
	double rate = wall > 0 ? static_cast<double>(ios) / wall : 0;
	state.counters["ios_per_s"] = rate;
	state.counters["trace_ios"] = static_cast<double>(spec.ios);
	state.counters["sim_s"] = simulated;
	if (is_null_baseline)
		g_null_rate = rate;
	else if (g_null_rate > 0)
		state.counters["null_over_this"] = g_null_rate / rate;
}

void BM_Replay1MIos40CpusOpenOnNull(benchmark::State &state)
{
	replay(state, trace::hadoop_shape(1'000'000), "null", "1m-null", true);
}
BENCHMARK(BM_Replay1MIos40CpusOpenOnNull)->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_Replay1MIos40CpusOpenOnHdd(benchmark::State &state)
{
	replay(state, trace::hadoop_shape(1'000'000), "hdd", "1m-hdd", false);
}
BENCHMARK(BM_Replay1MIos40CpusOpenOnHdd)->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_ReplayHadoopShape137kOpenOnHdd(benchmark::State &state)
{
	replay(state, trace::hadoop_shape(137'309), "hdd", "137k-hdd", false);
}
BENCHMARK(BM_ReplayHadoopShape137kOpenOnHdd)->Unit(benchmark::kMillisecond)->Iterations(1);

// @jobs jobs x iodepth 32 on null for 1 s simulated; IOs completed and wall
// seconds.
bool deep_jobs(int jobs, uint64_t *ios, double *wall, std::string *err)
{
	std::string text = "[global]\nioengine=libaio\niodepth=32\nrw=randread\nbs=4k\n"
			   "direct=1\nsize=64m\nruntime=1\ntime_based\n";
	for (int j = 0; j < jobs; j++)
		text += "[j" + std::to_string(j) + "]\n";
	double t0 = cpu_seconds();
	auto dev = dev::make_device("null", err);
	if (!dev)
		return false;
	workload::ParseContext ctx;
	ctx.capacity_bytes = dev->capacity_sectors() * 512;
	auto specs = workload::parse_jobs({{"deep.fio", text}}, ctx, err);
	if (specs.empty())
		return false;
	blk::Model model(std::move(dev), blk::Config{});
	if (!model.init(err))
		return false;
	workload::JobEngine engine(model, specs);
	if (!engine.start()) {
		*err = "task creation failed";
		return false;
	}
	while (!engine.finished())
		model.run_until(model.now() + 100'000'000);
	model.drain(model.now() + 3600ll * 1'000'000'000);
	*ios = model.counters().completed;
	*wall = cpu_seconds() - t0;
	return true;
}

double g_ns_per_io_10 = 0;

void BM_DeepJobsOnNull(benchmark::State &state)
{
	const int jobs = static_cast<int>(state.range(0));
	uint64_t ios = 0;
	double wall = 0;
	for (auto _ : state) {
		uint64_t n = 0;
		double w = 0;
		std::string err;
		if (!deep_jobs(jobs, &n, &w, &err)) {
			state.SkipWithError(err.c_str());
			return;
		}
		ios += n;
		wall += w;
	}
	const double ns_per_io = ios ? wall * 1e9 / static_cast<double>(ios) : 0;
	state.counters["ios"] = static_cast<double>(ios) / static_cast<double>(state.iterations());
	state.counters["ios_per_s"] = wall > 0 ? static_cast<double>(ios) / wall : 0;
	state.counters["ns_per_io"] = ns_per_io;
	if (jobs == 10)
		g_ns_per_io_10 = ns_per_io;
	else if (g_ns_per_io_10 > 0)
		state.counters["per_io_vs_10_jobs"] = ns_per_io / g_ns_per_io_10;
}
BENCHMARK(BM_DeepJobsOnNull)->Arg(10)->Arg(1000)->Unit(benchmark::kMillisecond)->Iterations(1);

} // namespace
