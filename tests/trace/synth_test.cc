// SPDX-License-Identifier: GPL-2.0
// The synthetic recordings of sim/trace/synth.h (what make bench's scale
// cases replay), and a replay that reaches the simulated-time limit.
#include <unistd.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <set>
#include <string>

#include "run/replay.h"
#include "trace/event.h"
#include "trace/ios.h"
#include "trace/synth.h"

namespace efqsim::trace {
namespace {

std::string prefix(const std::string &name)
{
	return ::testing::TempDir() + std::to_string(getpid()) + "-synth-" + name;
}

std::string slurp(const std::string &path)
{
	std::ifstream f(path, std::ios::binary);
	return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

void remove_all(const SynthResult &r)
{
	for (const std::string &p : r.paths)
		std::remove(p.c_str());
}

TEST(SynthTrace, WritesOneTimeOrderedFilePerCpuThatReplaysEveryIoWithItsCompletion)
{
	SynthSpec s = hadoop_shape(5000);
	SynthResult r;
	std::string err;
	ASSERT_TRUE(write_synthetic_trace(prefix("a"), s, &r, &err)) << err;
	ASSERT_EQ(r.paths.size(), 40u);
	EXPECT_EQ(r.paths[39], prefix("a") + ".blktrace.39");
	// Q G I D C per IO, one notify record per process
	EXPECT_EQ(r.events, 5 * s.ios + s.procs);
	// about 290 KB per IO, as the review's Hadoop recording
	EXPECT_GT(r.bytes / s.ios, 250'000u);
	EXPECT_LT(r.bytes / s.ios, 350'000u);

	uint64_t events = 0;
	for (const std::string &p : r.paths) {
		auto src = open_trace({p}, &err);
		ASSERT_TRUE(src) << err;
		Event ev;
		int64_t last = -1;
		uint64_t seq = 0;
		while (src->next(&ev)) {
			EXPECT_GE(ev.time_ns, last) << p;
			EXPECT_EQ(ev.seq, seq + 1) << p; // per-CPU sequence numbers
			last = ev.time_ns;
			seq = ev.seq;
			events++;
		}
		ASSERT_EQ(src->error(), "");
	}
	EXPECT_EQ(events, r.events);

	auto src = open_trace(r.paths, &err);
	ASSERT_TRUE(src) << err;
	IoBuilder b(*src);
	IoRecord rec;
	uint64_t ios = 0, bytes = 0;
	int64_t last_queue = -1;
	std::set<uint32_t> pids;
	while (b.next(&rec)) {
		EXPECT_GE(rec.complete_ns, rec.queue_ns + 500'000);
		EXPECT_LE(rec.complete_ns, rec.queue_ns + 20'000'000);
		EXPECT_GE(rec.queue_ns, last_queue);
		EXPECT_EQ(rec.comm, "synth" + std::to_string(rec.pid));
		last_queue = rec.queue_ns;
		pids.insert(rec.pid);
		ios++;
		bytes += rec.bytes;
	}
	EXPECT_EQ(b.error(), "");
	EXPECT_EQ(ios, s.ios);
	EXPECT_EQ(bytes, r.bytes);
	EXPECT_EQ(b.stats().incomplete, 0u);
	EXPECT_EQ(pids.size(), s.procs);
	// 137,309 IOs in 169 s
	EXPECT_NEAR(static_cast<double>(b.last_time()) / 1e9, 5000 * 169.0 / 137'309, 0.1);
	remove_all(r);
}

TEST(SynthTrace, TheSameSpecGivesTheSameBytes)
{
	SynthSpec s;
	s.ios = 2000;
	s.cpus = 3;
	s.procs = 7;
	s.span_ns = 2'000'000'000;
	s.all_events = false;
	SynthResult a, b;
	std::string err;
	ASSERT_TRUE(write_synthetic_trace(prefix("x"), s, &a, &err)) << err;
	ASSERT_TRUE(write_synthetic_trace(prefix("y"), s, &b, &err)) << err;
	ASSERT_EQ(a.paths.size(), 3u);
	EXPECT_EQ(a.events, 2 * s.ios + s.procs);
	for (size_t i = 0; i < a.paths.size(); i++)
		EXPECT_EQ(slurp(a.paths[i]), slurp(b.paths[i])) << i;
	s.seed = 2;
	SynthResult c;
	ASSERT_TRUE(write_synthetic_trace(prefix("z"), s, &c, &err)) << err;
	EXPECT_NE(slurp(a.paths[0]), slurp(c.paths[0]));
	remove_all(a);
	remove_all(b);
	remove_all(c);
	SynthSpec bad;
	bad.cpus = 0;
	EXPECT_FALSE(write_synthetic_trace(prefix("bad"), bad, &a, &err));
	EXPECT_FALSE(write_synthetic_trace("/nonexistent-dir/x", s, &a, &err));
	EXPECT_NE(err.find("/nonexistent-dir/x.blktrace.0"), std::string::npos) << err;
}

// A replay the simulated disk cannot finish within 24 h after the trace
// (one request at a time, 10 s each, 10,000 random IOs): Status::time_limit, the
// report up to then, and nothing left behind (the sanitizer build's
// LeakSanitizer and the shims' teardown checks would say so).
TEST(ReplayTimeLimit, StopsWithTheReportSoFarAndLeavesNothing)
{
	SynthSpec s;
	s.ios = 10'000;
	s.cpus = 2;
	s.procs = 4;
	s.span_ns = 10'000'000'000;
	s.random_every = 1; // no two IOs merge: 10,000 requests
	SynthResult files;
	std::string err;
	ASSERT_TRUE(write_synthetic_trace(prefix("limit"), s, &files, &err)) << err;
	for (run::ReplayMode mode : {run::ReplayMode::open, run::ReplayMode::closed}) {
		run::Setup setup;
		setup.device = "null:queue_depth=1,latency_us=10000000";
		setup.scheduler = "cfq";
		run::ReplayOptions o;
		o.traces = files.paths;
		o.mode = mode;
		o.maps = {{run::MapRule::Kind::comm, "synth1000", "a", 500}};
		run::ReplayResult r;
		ASSERT_EQ(run::replay(setup, o, &r, &err), run::Status::time_limit) << err;
		EXPECT_NE(err.find("simulated-time limit"), std::string::npos) << err;
		EXPECT_EQ(r.run.stopped, err);
		EXPECT_EQ(r.run.scheduler, "cfq");
		// 24 h after the trace, at 10 s per IO: about 8,640 IOs done
		const int64_t limit = r.recorded_span_ns + run::kMaxSimNs;
		EXPECT_LE(r.run.duration_ns, limit);
		EXPECT_GT(r.run.duration_ns, limit - 20'000'000'000);
		uint64_t done = 0;
		for (const auto &j : r.run.jobs)
			done += j.read.ios + j.write.ios;
		EXPECT_GT(done, 8'000u);
		EXPECT_LT(done, s.ios);
		EXPECT_EQ(r.ios, s.ios);
		ASSERT_EQ(r.shares.size(), 2u);
		EXPECT_EQ(r.shares[1].group, "/a");
	}
	remove_all(files);
}

} // namespace
} // namespace efqsim::trace
