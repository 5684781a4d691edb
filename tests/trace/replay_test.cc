// SPDX-License-Identifier: GPL-2.0
// Replaying traces: --map rules, open and closed loop, recorded vs
// predicted shares, and `efqsim replay` end to end.
#include <unistd.h>
#include <gtest/gtest.h>

#include "../cli/run_efqsim.h"

#include <array>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>
#include <sys/wait.h>

#include "gen.h"
#include "run/replay.h"

namespace efqsim::run {
namespace {

const std::string kData = std::string(EFQ_SOURCE_DIR) + "/tests/data/trace/";

TEST(ReplayMap, ParsesTheThreeKinds)
{
	MapRule m;
	std::string err;
	ASSERT_TRUE(parse_map("pid=1234=a:500", &m, &err)) << err;
	EXPECT_EQ(m.kind, MapRule::Kind::pid);
	EXPECT_EQ(m.key, "1234");
	EXPECT_EQ(m.group, "a");
	EXPECT_EQ(m.weight, 500u);
	ASSERT_TRUE(parse_map("comm=kworker/1:2=db/b", &m, &err)) << err;
	EXPECT_EQ(m.kind, MapRule::Kind::comm);
	EXPECT_EQ(m.key, "kworker/1:2");
	EXPECT_EQ(m.group, "db/b");
	EXPECT_EQ(m.weight, 0u);
	ASSERT_TRUE(parse_map("cgroup=0x1f=c:100", &m, &err)) << err;
	EXPECT_EQ(m.kind, MapRule::Kind::cgroup);
	for (const char *bad : {"pid=12", "uid=1=a", "pid=x=a", "pid=1=a:0", "pid=1=a:99999",
				"comm==a", "pid=1=/:100", "pid=1=../a"}) {
		EXPECT_FALSE(parse_map(bad, &m, &err)) << bad;
		EXPECT_NE(err.find("--map "), std::string::npos) << err;
	}
}

ReplayOptions fixture(ReplayMode mode, const std::vector<std::string> &files)
{
	ReplayOptions o;
	for (const auto &f : files)
		o.traces.push_back(kData + f);
	MapRule a, b;
	std::string err;
	EXPECT_TRUE(parse_map("comm=reader=a:1000", &a, &err));
	EXPECT_TRUE(parse_map("cgroup=22=b:500", &b, &err));
	o.maps = {a, b};
	o.mode = mode;
	return o;
}

void check_fixture(const ReplayResult &r)
{
	EXPECT_EQ(r.ios, 128u);
	EXPECT_EQ(r.merges, 8u);
	EXPECT_EQ(r.incomplete, 0u);
	ASSERT_EQ(r.run.jobs.size(), 2u);
	EXPECT_EQ(r.run.jobs[0].jobname, "reader[100]");
	EXPECT_EQ(r.run.jobs[0].cgroup, "/a");
	EXPECT_EQ(r.run.jobs[0].read.ios, 64u);
	EXPECT_EQ(r.run.jobs[0].read.io_bytes, 64u * 4096);
	EXPECT_EQ(r.run.jobs[1].jobname, "writer[200]");
	EXPECT_EQ(r.run.jobs[1].cgroup, "/b");
	EXPECT_EQ(r.run.jobs[1].write.ios, 64u);
	ASSERT_EQ(r.shares.size(), 2u);
	EXPECT_EQ(r.shares[0].group, "/a");
	EXPECT_EQ(r.shares[0].weight, 1000u);
	EXPECT_EQ(r.shares[1].group, "/b");
	EXPECT_EQ(r.shares[1].weight, 500u);
	EXPECT_NEAR(r.shares[0].recorded_pct, 100.0 / 3, 1e-9);
	EXPECT_NEAR(r.shares[1].recorded_pct, 200.0 / 3, 1e-9);
	double predicted = r.shares[0].predicted_pct + r.shares[1].predicted_pct;
	if (predicted > 0) { // 0: nothing completed within the recorded span
		EXPECT_NEAR(predicted, 100.0, 1e-9);
	}
	EXPECT_NEAR(r.shares[0].recorded_lat_ms, 0.05, 1e-9);
	EXPECT_GT(r.shares[0].predicted_lat_ms, 0);
}

TEST(Replay, OpenLoopBinaryFixtureOnSsd)
{
	run::Setup s;
	s.device = "ssd";
	s.scheduler = "cfq";
	ReplayResult r;
	std::string err;
	ASSERT_EQ(replay(s, fixture(ReplayMode::open, {"two.blktrace.0", "two.blktrace.1"}), &r,
			 &err),
		  Status::ok)
		<< err;
	check_fixture(r);
	// cfq serves the sync reads first: the writes complete after the
	// recorded span (the prediction: group b gets nothing while a reads).
	EXPECT_NEAR(r.shares[0].predicted_pct, 100, 1e-9);
}

TEST(Replay, OpenLoopOnAFastDeviceReproducesTheRecordedShares)
{
	run::Setup s;
	s.device = "null";
	s.scheduler = "noop";
	// Flat: hierarchical noop would idle for the reader's group
	// (group_idle) and hold the writes back.
	s.hierarchical = false;
	ReplayResult r;
	std::string err;
	ASSERT_EQ(replay(s, fixture(ReplayMode::open, {"two.blktrace.0", "two.blktrace.1"}), &r,
			 &err),
		  Status::ok)
		<< err;
	check_fixture(r);
	EXPECT_LT(r.simulated_span_ns, r.recorded_span_ns + 1'000'000);
	EXPECT_NEAR(r.shares[0].predicted_pct, r.shares[0].recorded_pct, 2);
}

TEST(Replay, ClosedLoopTextFixture)
{
	run::Setup s;
	s.device = "hdd";
	s.scheduler = "deadline-fq";
	ReplayOptions o = fixture(ReplayMode::closed, {"two.blkparse"});
	// The text has no cgroup ids: map the writer by pid.
	o.maps[1].kind = MapRule::Kind::pid;
	o.maps[1].key = "200";
	ReplayResult r;
	std::string err;
	ASSERT_EQ(replay(s, o, &r, &err), Status::ok) << err;
	check_fixture(r);
	// Closed loop on a disk slower than the recording: each reader IO
	// waits for the one before, so the replay takes longer.
	EXPECT_GT(r.simulated_span_ns, r.recorded_span_ns);
}

// Two processes queue the same random reads at the same rate, far more
// than a disk does: recorded 50/50, but cfq with weights 1000:250 serves
// group a more within the recorded span.
// Processes named a and b in groups /a (weight 1000) and /b (@weight_b).
ReplayOptions comm_groups(const std::string &path, ReplayMode mode, unsigned int weight_b)
{
	ReplayOptions o;
	o.traces = {path};
	o.mode = mode;
	MapRule a, b;
	std::string err;
	EXPECT_TRUE(parse_map("comm=a=a:1000", &a, &err)) << err;
	EXPECT_TRUE(parse_map("comm=b=b:" + std::to_string(weight_b), &b, &err)) << err;
	o.maps = {a, b};
	return o;
}

TEST(Replay, OpenLoopPredictsTheWeightedShareUnderContention)
{
	std::vector<trace::Event> evs;
	uint64_t x = 12345;
	for (int i = 0; i < 300; i++) {
		for (uint32_t pid : {1u, 2u}) {
			x = x * 6364136223846793005ull + 1442695040888963407ull;
			uint64_t sector = (x >> 20) % 100'000'000 & ~7ull;
			trace::Event e = trace::testgen::ev(i * 1'000'000, 0, pid, 'Q',
							    trace::kData | trace::kSync, sector, 8,
							    pid == 1 ? "a" : "b");
			e.seq = evs.size() + 1;
			evs.push_back(e);
		}
	}
	std::string path = ::testing::TempDir() + std::to_string(getpid()) + "-efq-contention.txt";
	trace::testgen::write_file(path, trace::testgen::text({evs}));
	ReplayOptions o = comm_groups(path, ReplayMode::open, 250);
	std::string err;
	run::Setup s;
	s.device = "hdd";
	s.scheduler = "cfq";
	ReplayResult r;
	ASSERT_EQ(replay(s, o, &r, &err), Status::ok) << err;
	ASSERT_EQ(r.shares.size(), 2u);
	EXPECT_EQ(r.incomplete, 600u);		// a trace without completions
	EXPECT_EQ(r.shares[0].recorded_pct, 0); // nothing completed in the trace
	EXPECT_GT(r.shares[0].predicted_pct, 60) << r.shares[1].predicted_pct;
	std::ostringstream out;
	print_shares(r, out);
	EXPECT_NE(out.str().find("/a"), std::string::npos) << out.str();
}

// Two depth-1 readers, 200 IOs each, recorded side by side at equal speed.
// Replayed in closed loop at 1000:500 the first group runs out of IOs while
// the second still has a third of its own: over the whole span each group
// completes all its bytes (the shares of the span drift back towards the
// recorded 50%), while every mapped group is busy the weights decide.
TEST(Replay, ContendedWindowIsWhileEveryMappedGroupIsBusy)
{
	std::vector<trace::Event> evs;
	for (int i = 0; i < 200; i++) {
		for (uint32_t pid : {1u, 2u}) {
			int64_t t = i * 1'000'000 + pid * 1000;
			uint64_t sector = (pid * 1'000'000 + i * 8);
			trace::Event q = trace::testgen::ev(t, 0, pid, 'Q', trace::kData, sector, 8,
							    pid == 1 ? "a" : "b");
			trace::Event c = trace::testgen::ev(t + 990'000, 0, pid, 'C', trace::kData,
							    sector, 8, pid == 1 ? "a" : "b");
			evs.push_back(q);
			evs.push_back(c);
		}
	}
	std::stable_sort(evs.begin(), evs.end(), [](const trace::Event &x, const trace::Event &y) {
		return x.time_ns < y.time_ns;
	});
	for (size_t i = 0; i < evs.size(); i++)
		evs[i].seq = i + 1;
	std::string path = ::testing::TempDir() + std::to_string(getpid()) + "-efq-window.txt";
	trace::testgen::write_file(path, trace::testgen::text({evs}));
	ReplayOptions o = comm_groups(path, ReplayMode::closed, 500);
	std::string err;
	run::Setup s;
	s.device = "null:latency_us=1000,queue_depth=1";
	s.scheduler = "noop";
	ReplayResult r;
	ASSERT_EQ(replay(s, o, &r, &err), Status::ok) << err;
	ASSERT_EQ(r.shares.size(), 2u);
	const ShareRow &ra = r.shares[0], &rb = r.shares[1];
	EXPECT_EQ(ra.group, "/a");
	// recorded: both busy from the first to the last millisecond, 50:50
	ASSERT_TRUE(r.contended_recorded.valid());
	EXPECT_LE(r.contended_recorded.to, r.recorded_span_ns);
	EXPECT_NEAR(ra.contended_recorded_pct, 50, 1);
	EXPECT_NEAR(ra.contended_recorded_pct + rb.contended_recorded_pct, 100, 1e-9);
	// simulated: the window ends when /a is done, /b goes on alone
	ASSERT_TRUE(r.contended_simulated.valid());
	EXPECT_LT(r.contended_simulated.to, r.simulated_span_ns * 0.9);
	EXPECT_NEAR(ra.contended_predicted_pct, 100.0 * 2 / 3, 3) << rb.contended_predicted_pct;
	EXPECT_NEAR(ra.contended_predicted_pct + rb.contended_predicted_pct, 100, 1e-9);
	std::ostringstream out;
	print_shares(r, out);
	EXPECT_NE(out.str().find("busy rec busy pred"), std::string::npos) << out.str();
	EXPECT_NE(out.str().find("while every mapped group was busy (recorded 0.000..0.200 s"),
		  std::string::npos)
		<< out.str();

	// Without --map there is no contended window: no columns, -1 in the rows.
	o.maps.clear();
	ASSERT_EQ(replay(s, o, &r, &err), Status::ok) << err;
	EXPECT_FALSE(r.contended_recorded.valid());
	EXPECT_FALSE(r.contended_simulated.valid());
	for (const ShareRow &row : r.shares)
		EXPECT_EQ(row.contended_predicted_pct, -1);
	std::ostringstream none;
	print_shares(r, none);
	EXPECT_EQ(none.str().find("busy rec"), std::string::npos) << none.str();
}

TEST(Replay, BadTraceIsBadInput)
{
	std::string path = ::testing::TempDir() + std::to_string(getpid()) + "-efq-bad.txt";
	trace::testgen::write_file(path, "  8,0 0 1 0.1 1 Q R 8 + 8 [a]\n  8,0 0 2 oops\n");
	ReplayOptions o;
	o.traces = {path};
	ReplayResult r;
	std::string err;
	EXPECT_EQ(replay(run::Setup{}, o, &r, &err), Status::bad_input);
	EXPECT_EQ(err, path + ":2: expected the time (SECONDS.NANOSECONDS)");
}

// Corrupt traces (a byte changed at many offsets, deterministically) replay
// or fail as bad input; never an internal error or a sanitizer report.
TEST(ReplayFuzz, MutatedTracesReplayOrAreBadInput)
{
	std::ifstream in(kData + "two.blktrace.1", std::ios::binary);
	std::string good((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
	std::string path =
		::testing::TempDir() + std::to_string(getpid()) + "-efq-replay-fuzz.blktrace.1";
	uint64_t x = 0x9e3779b97f4a7c15ull;
	int ok = 0, bad = 0;
	for (size_t off = 0; off < good.size(); off += 97) {
		for (ReplayMode mode : {ReplayMode::open, ReplayMode::closed}) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			std::string b = good;
			b[off] = static_cast<char>(x);
			trace::testgen::write_file(path, b);
			ReplayOptions o;
			o.traces = {path};
			o.mode = mode;
			run::Setup s;
			s.device = "null";
			ReplayResult r;
			std::string err;
			Status st = replay(s, o, &r, &err);
			EXPECT_NE(st, Status::internal) << off << ": " << err;
			(st == Status::ok ? ok : bad)++;
		}
	}
	EXPECT_GT(ok, 0);
	EXPECT_GT(bad, 0);
}

// A completion stamped long before its IO was queued (here 46 h, in the
// middle of a binary CPU file) is a corrupt trace: bad input, not a closed
// loop that waits 46 h for the next IO until the time limit.  The reader
// finds it (one CPU's records going back in time: the file and the byte
// offset), while IO of the trace's earlier part is in flight, which drains
// first (the sanitizer build checks that nothing is left).  A completion a
// little early (CPU clocks differing) is kept.
TEST(Replay, ACompletionLongBeforeItsQueueIsBadInput)
{
	constexpr int64_t k46h = int64_t{46} * 3600 * 1'000'000'000;
	std::string path = ::testing::TempDir() + std::to_string(getpid()) + "-early.blktrace.";
	for (int64_t early : {k46h, int64_t{500'000}}) {
		auto cpus = trace::testgen::two_processes(64);
		int cs = 0;
		for (auto &cpu : cpus)
			for (trace::Event &e : cpu) {
				e.time_ns += k46h;
				if (e.action == 'C' && e.cpu == 0 && ++cs == 40) {
					// its Q: the IO on the sector it completes
					for (const trace::Event &q : cpu)
						if (q.action == 'Q' && q.sector == e.sector)
							e.time_ns = q.time_ns -
								    early; // (shifted already)
				}
			}
		for (size_t c = 0; c < cpus.size(); c++)
			trace::testgen::write_file(path + std::to_string(c),
						   trace::testgen::binary(cpus[c]));
		for (ReplayMode mode : {ReplayMode::open, ReplayMode::closed}) {
			ReplayOptions o;
			o.traces = {path + "0", path + "1"};
			o.mode = mode;
			ReplayResult r;
			std::string err;
			Status st = replay(run::Setup{}, o, &r, &err);
			if (early == k46h) {
				EXPECT_EQ(st, Status::bad_input) << err;
				EXPECT_EQ(err.rfind(path + "0: byte offset ", 0), 0u) << err;
				EXPECT_NE(
					err.find("is 165600.000003 s before the previous record of "
						 "CPU 0"),
					std::string::npos)
					<< err;
			} else {
				EXPECT_EQ(st, Status::ok) << err;
			}
		}
	}
}

using efqtest::efqsim;
using Cli = efqtest::Result;

TEST(ReplayCli, PrintsTheJobsAndTheShareTable)
{
	Cli r = efqsim("replay --device ssd --scheduler cfq --map comm=reader=a:1000 "
		       "--map comm=writer=b:500 " +
		       kData + "two.blktrace.0 " + kData + "two.blktrace.1");
	ASSERT_EQ(r.status, 0) << r.out;
	EXPECT_NE(r.out.find("reader[100]"), std::string::npos) << r.out;
	EXPECT_NE(r.out.find("replay (open loop): "), std::string::npos) << r.out;
	EXPECT_NE(r.out.find("  /a                         1000         64"), std::string::npos)
		<< r.out;
}

TEST(ReplayCli, JsonHasTheReplayObject)
{
	Cli r = efqsim("replay --output-format json --mode closed --map pid=200=w " + kData +
		       "two.blkparse");
	ASSERT_EQ(r.status, 0) << r.out;
	// (No JSON library here: the sim/run headers bring the kernel shims'
	// macros; tests/cli parses efqsim's JSON properly.)
	EXPECT_NE(r.out.find("\"replay\": {\n    \"mode\": \"closed\""), std::string::npos)
		<< r.out;
	EXPECT_NE(r.out.find("\"ios\": 128,"), std::string::npos) << r.out;
	EXPECT_NE(r.out.find("{\"group\": \"/\", "), std::string::npos) << r.out;
	EXPECT_NE(r.out.find("{\"group\": \"/w\", "), std::string::npos) << r.out;
	EXPECT_EQ(r.out.back(), '\n');
	EXPECT_EQ(r.out[r.out.size() - 2], '}');
}

TEST(ReplayCli, BadInputExitsOneWithAClearMessage)
{
	Cli r = efqsim("replay");
	EXPECT_EQ(r.status, 1);
	EXPECT_NE(r.out.find("no trace file given"), std::string::npos) << r.out;
	r = efqsim("replay --map pid=1 " + kData + "two.blkparse");
	EXPECT_EQ(r.status, 1);
	EXPECT_NE(r.out.find("--map pid=1: "), std::string::npos) << r.out;
	r = efqsim("replay --mode half " + kData + "two.blkparse");
	EXPECT_EQ(r.status, 1);
	std::string cut = ::testing::TempDir() + std::to_string(getpid()) + "-efq-cut.blktrace.0";
	std::ifstream in(kData + "two.blktrace.0", std::ios::binary);
	std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
	trace::testgen::write_file(cut, bytes.substr(0, 1000));
	r = efqsim("replay " + cut);
	EXPECT_EQ(r.status, 1);
	EXPECT_NE(r.out.find(cut + ": byte offset "), std::string::npos) << r.out;
	r = efqsim("replay --help");
	EXPECT_EQ(r.status, 0);
	EXPECT_NE(r.out.find("--map pid=PID=GROUP[:WEIGHT]"), std::string::npos);
}

} // namespace
} // namespace efqsim::run
