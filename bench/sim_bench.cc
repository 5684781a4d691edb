// SPDX-License-Identifier: GPL-2.0
// efqsim end to end: simulated requests per wall-clock second through the
// whole simulator (job engine, block layer model, noop on the efq engine,
// device model), and the wall time of the README's example.  Each case
// also reports its speed as a ratio to the first case, measured in the
// same process, since absolute figures depend on the machine.
#include <benchmark/benchmark.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "blk/model.h"
#include "dev/device.h"
#include "workload/jobfile.h"
#include "workload/jobs.h"

namespace {

double g_baseline_rps = 0; // requests/s of the first case

// Simulates @jobfile on @device for @seconds of simulated time; returns the
// number of requests the device completed.
uint64_t simulate(const std::string &device, const std::string &jobfile, int seconds,
		  benchmark::State &state)
{
	std::string err;
	auto dev = efqsim::dev::make_device(device, &err);
	if (!dev) {
		state.SkipWithError(err.c_str());
		return 0;
	}
	efqsim::workload::ParseContext ctx;
	ctx.capacity_bytes = dev->capacity_sectors() * 512;
	auto jobs = efqsim::workload::parse_jobs({{"bench.fio", jobfile}}, ctx, &err);
	if (jobs.empty()) {
		state.SkipWithError(err.c_str());
		return 0;
	}
	efqsim::blk::Model model(std::move(dev), efqsim::blk::Config{});
	if (!model.init(&err)) {
		state.SkipWithError(err.c_str());
		return 0;
	}
	efqsim::workload::JobEngine engine(model, jobs);
	if (!engine.start()) {
		state.SkipWithError("task creation failed");
		return 0;
	}
	int64_t end = model.now() + int64_t{seconds} * 1'000'000'000;
	while (!engine.finished() && model.now() < end)
		model.run_until(model.now() + 100'000'000);
	model.drain(model.now() + 3600ll * 1'000'000'000);
	return model.counters().completed;
}

void run(benchmark::State &state, const std::string &device, const std::string &jobfile,
	 int seconds, bool baseline)
{
	uint64_t requests = 0;
	double wall = 0;
	for (auto _ : state) {
		auto t0 = std::chrono::steady_clock::now();
		requests += simulate(device, jobfile, seconds, state);
		wall += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
				.count();
	}
	double rps = wall > 0 ? static_cast<double>(requests) / wall : 0;
	if (baseline)
		g_baseline_rps = rps;
	state.counters["sim_rq_per_s"] = rps;
	if (g_baseline_rps > 0)
		state.counters["vs_first"] = rps / g_baseline_rps;
}

const char *kSeqReader =
	"[r]\nrw=read\nbs=4k\ndirect=1\nioengine=psync\nruntime=10\ntime_based\nsize=1g\n";

std::string random_writers()
{
	std::string s = "[global]\nrw=randwrite\nbs=4k\ndirect=1\nioengine=psync\nruntime=10\ntime_"
			"based\nsize=64m\n";
	for (int g = 0; g < 8; g++)
		s += "[w" + std::to_string(g) + "]\ncgroup=g" + std::to_string(g) + "\nnumjobs=4\n";
	return s;
}

std::string thousand_groups()
{
	std::string s = "[global]\nrw=randread\nbs=4k\ndirect=1\nioengine=psync\nruntime=2\ntime_"
			"based\nsize=16m\n";
	for (int g = 0; g < 1000; g++)
		s += "[j" + std::to_string(g) + "]\ncgroup=g" + std::to_string(g) + "\n";
	return s;
}

void BM_SeqReaderOnNull(benchmark::State &state)
{
	run(state, "null", kSeqReader, 10, true);
}
BENCHMARK(BM_SeqReaderOnNull)->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_32RandomWritersIn8GroupsOnHdd(benchmark::State &state)
{
	run(state, "hdd", random_writers(), 10, false);
}
BENCHMARK(BM_32RandomWritersIn8GroupsOnHdd)->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_1000GroupsOnSsd(benchmark::State &state)
{
	run(state, "ssd", thousand_groups(), 2, false);
}
BENCHMARK(BM_1000GroupsOnSsd)->Unit(benchmark::kMillisecond)->Iterations(1);

// The README's example (examples/two-groups.fio): 30 s simulated on the hdd.
void BM_TwoGroupsExample(benchmark::State &state)
{
	const char *job = "[global]\nrw=read\nbs=64k\ndirect=1\nioengine=psync\nruntime=30\ntime_"
			  "based=1\nsize=4g\n"
			  "[reader-1000]\ncgroup=efq-demo/a\ncgroup_weight=1000\nfilename=a.dat\n"
			  "[reader-500]\ncgroup=efq-demo/b\ncgroup_weight=500\nfilename=b.dat\n";
	run(state, "hdd", job, 30, false);
}
BENCHMARK(BM_TwoGroupsExample)->Unit(benchmark::kMillisecond)->Iterations(1);

} // namespace
