// SPDX-License-Identifier: GPL-2.0
// Device models: simulated requests per wall-clock second through the hdd
// model (random 4 KiB reads at NCQ depth 31, where every dispatch weighs
// the whole queue) and through null (the cheapest model: the floor of what
// a device costs the simulator).

#include "dev/device.h"

#include <benchmark/benchmark.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace {

using efqsim::dev::Completion;
using efqsim::dev::Device;
using efqsim::dev::kNever;
using efqsim::dev::Request;

// Keeps @depth random 4 KiB reads in flight; each benchmark iteration is
// one device event (advance to next_event() and resubmit what completed).
void run(benchmark::State &state, const std::string &model, uint32_t depth)
{
	std::string err;
	std::unique_ptr<Device> dev = efqsim::dev::make_device(model, &err);
	if (!dev) {
		state.SkipWithError(err.c_str());
		return;
	}
	uint64_t slots = dev->capacity_sectors() / 8, x = 88172645463325252ull, id = 0;
	auto submit = [&](int64_t t) {
		x ^= x << 13; // xorshift64: a fixed sequence, no seeding needed
		x ^= x >> 7;
		x ^= x << 17;
		Request rq;
		rq.id = ++id;
		rq.sector = (x % slots) * 8;
		rq.sectors = 8;
		dev->submit(rq, t);
	};
	for (uint32_t i = 0; i < depth; i++)
		submit(0);
	std::vector<Completion> out;
	uint64_t completed = 0;
	int64_t t = 0;
	for (auto _ : state) {
		t = dev->next_event();
		out.clear();
		dev->advance(t, out);
		for (const Completion &c : out)
			submit(c.time);
		completed += out.size();
	}
	state.counters["sim_requests/s"] =
		benchmark::Counter(double(completed), benchmark::Counter::kIsRate);
	state.counters["sim_seconds"] = double(t) * 1e-9;
}

void BM_DevHddRandom4kDepth31(benchmark::State &state)
{
	run(state, "hdd", 31);
}
BENCHMARK(BM_DevHddRandom4kDepth31);

void BM_DevNullRandom4kDepth64(benchmark::State &state)
{
	run(state, "null", 64);
}
BENCHMARK(BM_DevNullRandom4kDepth64);

} // namespace
