// SPDX-License-Identifier: GPL-2.0
// efqsim traces: how fast the readers parse (events per wall-clock second,
// blktrace binary and blkparse text, both through open_trace() and the
// IO builder's input) and how fast `efqsim replay` replays (trace IOs per
// wall-clock second, open loop, on the null device under flat noop, i.e.
// the block layer model and the efq engine included).  Each case also
// reports its rate as a ratio to the first case of its kind, measured in
// the same process, since absolute figures depend on the machine.
// Targets (Release, make bench): parse >= 2e6 events/s, replay >= 5e5 IOs/s.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "run/replay.h"
#include "trace/blkparse.h"
#include "trace/blktrace.h"
#include "trace/event.h"
#include "trace/ios.h"

namespace {

using namespace efqsim;

double g_parse_baseline = 0;

std::string temp_path(const std::string &name)
{
	return "/tmp/efq-trace-bench-" + std::to_string(getpid()) + "-" + name;
}

// @ios IOs of 4 processes on 4 CPUs, each Q G I D C, 20 us apart; 2 % of
// them back merges.  Written per CPU as blktrace files (@binary) or as one
// blkparse text file.  Returns the files and the number of events.
std::vector<std::string> make_trace(int ios, bool binary, uint64_t *events)
{
	std::vector<std::string> cpu(4);
	std::string text;
	*events = 0;
	auto put = [&](trace::Event &e) {
		(*events)++;
		if (binary)
			cpu[e.cpu] += trace::encode_event(e);
		else
			text += trace::format_event(e);
	};
	uint64_t seq = 1;
	for (int i = 0; i < ios; i++) {
		trace::Event e;
		e.dev = trace::make_dev(8, 0);
		e.cpu = static_cast<uint32_t>(i % 4);
		e.pid = 1000 + static_cast<uint32_t>(i % 4);
		e.comm = "proc" + std::to_string(i % 4);
		e.rwbs = (i % 4 == 3 ? trace::kWrite : trace::kSync) | trace::kData;
		e.sector = static_cast<uint64_t>(i) * 8 * 131 % 100'000'000;
		e.sectors = 8;
		int64_t t = static_cast<int64_t>(i) * 20'000;
		const char *acts = "QGIDC";
		for (int a = 0; a < 5; a++) {
			e.action = acts[a];
			e.time_ns = t + a * (a == 4 ? 4000 : 500);
			e.seq = seq++;
			if (a == 4) {
				e.pid = 0;
				e.comm.clear();
			}
			put(e);
		}
	}
	std::vector<std::string> paths;
	if (binary) {
		for (size_t c = 0; c < cpu.size(); c++) {
			paths.push_back(temp_path("bin.blktrace." + std::to_string(c)));
			std::ofstream(paths.back(), std::ios::binary) << cpu[c];
		}
	} else {
		paths.push_back(temp_path("text.blkparse"));
		std::ofstream(paths.back(), std::ios::binary) << text;
	}
	return paths;
}

void parse(benchmark::State &state, bool binary, bool baseline)
{
	uint64_t events = 0;
	auto paths = make_trace(static_cast<int>(state.range(0)), binary, &events);
	uint64_t read = 0;
	double wall = 0;
	for (auto _ : state) {
		auto t0 = std::chrono::steady_clock::now();
		std::string err;
		auto src = trace::open_trace(paths, &err);
		if (!src) {
			state.SkipWithError(err.c_str());
			break;
		}
		trace::Event ev;
		while (src->next(&ev))
			read++;
		if (!src->error().empty()) {
			state.SkipWithError(src->error().c_str());
			break;
		}
		wall += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
				.count();
	}
	for (auto &p : paths)
		std::remove(p.c_str());
	double rate = wall > 0 ? static_cast<double>(read) / wall : 0;
	if (baseline)
		g_parse_baseline = rate;
	state.counters["events_per_s"] = rate;
	if (g_parse_baseline > 0)
		state.counters["vs_first"] = rate / g_parse_baseline;
}

void BM_ParseBinary(benchmark::State &state)
{
	parse(state, true, true);
}
BENCHMARK(BM_ParseBinary)->Arg(400'000)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_ParseText(benchmark::State &state)
{
	parse(state, false, false);
}
BENCHMARK(BM_ParseText)->Arg(400'000)->Unit(benchmark::kMillisecond)->Iterations(3);

// Events through the IO builder as well (records out).
void BM_BuildIoRecords(benchmark::State &state)
{
	uint64_t events = 0;
	auto paths = make_trace(static_cast<int>(state.range(0)), true, &events);
	uint64_t n = 0;
	double wall = 0;
	for (auto _ : state) {
		auto t0 = std::chrono::steady_clock::now();
		std::string err;
		auto src = trace::open_trace(paths, &err);
		trace::IoBuilder b(*src);
		trace::IoRecord r;
		while (b.next(&r))
			n++;
		wall += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
				.count();
	}
	for (auto &p : paths)
		std::remove(p.c_str());
	double evs = wall > 0 ? static_cast<double>(events) * state.iterations() / wall : 0;
	state.counters["events_per_s"] = evs;
	state.counters["ios_per_s"] = wall > 0 ? static_cast<double>(n) / wall : 0;
	if (g_parse_baseline > 0)
		state.counters["vs_first"] = evs / g_parse_baseline;
}
BENCHMARK(BM_BuildIoRecords)->Arg(400'000)->Unit(benchmark::kMillisecond)->Iterations(3);

double g_replay_baseline = 0;

void replay(benchmark::State &state, run::ReplayMode mode, const char *device, bool baseline)
{
	uint64_t events = 0;
	auto paths = make_trace(static_cast<int>(state.range(0)), true, &events);
	uint64_t ios = 0;
	double wall = 0;
	for (auto _ : state) {
		run::Setup s;
		s.device = device;
		s.scheduler = "noop";
		s.hierarchical = false;
		run::ReplayOptions o;
		o.traces = paths;
		o.mode = mode;
		run::ReplayResult r;
		std::string err;
		auto t0 = std::chrono::steady_clock::now();
		if (run::replay(s, o, &r, &err) != run::Status::ok) {
			state.SkipWithError(err.c_str());
			break;
		}
		wall += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0)
				.count();
		ios += r.ios;
	}
	for (auto &p : paths)
		std::remove(p.c_str());
	double rate = wall > 0 ? static_cast<double>(ios) / wall : 0;
	if (baseline)
		g_replay_baseline = rate;
	state.counters["ios_per_s"] = rate;
	if (g_replay_baseline > 0)
		state.counters["vs_first"] = rate / g_replay_baseline;
}

void BM_ReplayOpenOnNull(benchmark::State &state)
{
	replay(state, run::ReplayMode::open, "null", true);
}
BENCHMARK(BM_ReplayOpenOnNull)->Arg(200'000)->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_ReplayClosedOnNull(benchmark::State &state)
{
	replay(state, run::ReplayMode::closed, "null", false);
}
BENCHMARK(BM_ReplayClosedOnNull)->Arg(200'000)->Unit(benchmark::kMillisecond)->Iterations(1);

void BM_ReplayOpenOnSsd(benchmark::State &state)
{
	replay(state, run::ReplayMode::open, "ssd", false);
}
BENCHMARK(BM_ReplayOpenOnSsd)->Arg(200'000)->Unit(benchmark::kMillisecond)->Iterations(1);

} // namespace
