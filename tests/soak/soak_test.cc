// SPDX-License-Identifier: GPL-2.0
// The random-scenario soak (soak.h) as tests: make unit runs kShards shards
// of kPerShard seeds (one ctest test each, so ctest -j spreads them), make
// soak runs SEEDS seeds from SOAK_FIRST through Soak.Seeds
// (EFQ_SOAK_FIRST, EFQ_SOAK_SEEDS).  A failing seed prints its case and
// the one line that replays it alone.
#include "soak.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>
#include <unistd.h>

#include "blk/model.h"

namespace {

using efqsoak::Case;

constexpr int kShards = 8;
constexpr unsigned int kPerShard = 64;

std::string Self()
{
	char buf[4096];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	return n > 0 ? std::string(buf, (size_t)n) : "efq_soak_tests";
}

std::string Replay(uint64_t seed)
{
	return "EFQ_SOAK_FIRST=" + std::to_string(seed) + " EFQ_SOAK_SEEDS=1 " + Self() +
	       " --gtest_filter=Soak.Seeds   (EFQ_SOAK_TRACE=1: with the scheduler's last "
	       "blktrace messages)";
}

void RunSeeds(uint64_t first, unsigned int n, unsigned int report)
{
	std::vector<efqsoak::Failure> failures;
	unsigned int ran = efqsoak::run_seeds(first, n, &failures, report);
	EXPECT_EQ(ran, n) << "stopped after 50 failures";
	for (const auto &f : failures)
		ADD_FAILURE() << "seed " << f.seed << " failed:\n"
			      << f.text << "replay: " << Replay(f.seed) << "\n";
}

class SoakShard : public ::testing::TestWithParam<int> {};

// Seeds 1 .. kShards * kPerShard.
TEST_P(SoakShard, RandomCasesKeepEveryInvariant)
{
	RunSeeds(1 + (uint64_t)GetParam() * kPerShard, kPerShard, 0);
}

INSTANTIATE_TEST_SUITE_P(Soak, SoakShard, ::testing::Range(0, kShards));

uint64_t EnvNumber(const char *name, uint64_t dflt)
{
	const char *v = std::getenv(name);
	return v && *v ? std::strtoull(v, nullptr, 10) : dflt;
}

// Seeds that failed once, each a bug fixed since (Documentation/kernel/
// reliability.rst, "The soak"): as stalled for good in ANTIC_WAIT_REQ after
// the awaited process's last read completed from a queue that was not the
// active one (4493, 12140, 12405: its metadata reads are the root group's),
// and waited for a read that a requeue had taken back (11146: a
// WARN_ON_ONCE in as_may_expire).
TEST(Soak, SeedsThatFailedOnce)
{
	for (uint64_t seed : {4493u, 11146u, 12140u, 12405u})
		RunSeeds(seed, 1, 0);
}

// make soak, and a failing seed's replay: EFQ_SOAK_SEEDS seeds from
// EFQ_SOAK_FIRST (default 1).  Skipped without EFQ_SOAK_SEEDS.
TEST(Soak, Seeds)
{
	uint64_t n = EnvNumber("EFQ_SOAK_SEEDS", 0);
	if (!n)
		GTEST_SKIP() << "EFQ_SOAK_SEEDS is not set (make soak sets it)";
	uint64_t first = EnvNumber("EFQ_SOAK_FIRST", 1);
	if (n == 1)
		std::fprintf(stderr, "%s", efqsoak::make_case(first).describe().c_str());
	RunSeeds(first, (unsigned int)n, n >= 100 ? 100 : 0);
}

// ---- the soak's own checkers must fire --------------------------------------

// A small case of our own: cfq on a 2-deep null device, one submitter of
// 60 IOs in one cgroup.
Case Small()
{
	Case c;
	c.seed = 7;
	c.scheduler = "cfq";
	c.device = "null:latency_us=100,queue_depth=2";
	c.cgroups = {{"a", 500, 0}};
	efqsoak::RawSpec r;
	r.cgroup = "a";
	r.depth = 4;
	r.random = true;
	r.stop_ns = 50'000'000;
	r.max_ios = 60;
	r.region_start = 1ull << 30;
	r.region_bytes = 1ull << 30;
	c.raws = {r};
	c.end_ns = 50'000'000;
	return c;
}

TEST(SoakCheckers, ASmallCasePasses)
{
	efqsoak::Result r = efqsoak::run_case(Small());
	EXPECT_EQ(r.failure, "");
	EXPECT_EQ(r.bios, 60u);
	EXPECT_GT(r.checkpoints, 10u) << "the engine's trees are walked while it runs";
}

TEST(SoakCheckers, ACompletionTheDriverNeverReportsIsAStall)
{
	efqsoak::inject_lost_completion(5);
	efqsoak::Result r = efqsoak::run_case(Small());
	EXPECT_TRUE(r.fatal);
	EXPECT_NE(r.failure.find("a stall"), std::string::npos) << r.failure;
	EXPECT_NE(r.failure.find("the oldest bios:\n    bio "), std::string::npos) << r.failure;
}

TEST(SoakCheckers, ACompletionReportedTwiceIsCaught)
{
	efqsoak::inject_double_completion(5);
	efqsoak::Result r = efqsoak::run_case(Small());
	EXPECT_NE(r.failure.find("not in flight"), std::string::npos) << r.failure;
}

TEST(SoakCheckers, AMiscountInTheEngineIsCaught)
{
	efqsoak::inject_tree_miscount();
	efqsoak::Result r = efqsoak::run_case(Small());
	EXPECT_NE(r.failure.find("the engine's trees at"), std::string::npos) << r.failure;
	EXPECT_NE(r.failure.find("busy_queues"), std::string::npos) << r.failure;
}

// The first storm case (soak.cc, AddStorm()) of the seeds from @from that
// the service bound applies to and that has queues waiting, run; 0 if none
// of 40 seeds.
uint64_t FirstCheckedStorm(uint64_t from, efqsoak::Result *out)
{
	for (uint64_t s = from; s < from + 40; s++) {
		Case c = efqsoak::make_case(s);
		if (!c.storm || c.scheduler == "mq-deadline")
			continue;
		*out = efqsoak::run_case(c);
		if (out->service_bound && out->waits_checked)
			return s;
	}
	return 0;
}

TEST(SoakCheckers, AStormCaseKeepsTheServiceBound)
{
	efqsoak::Result r;
	uint64_t seed = FirstCheckedStorm(1, &r);
	ASSERT_NE(seed, 0u) << "no storm case with its service checked";
	EXPECT_EQ(r.failure, "") << "seed " << seed;
	EXPECT_GT(r.worst_wait_ratio, 0.0) << "queues must have waited to test anything";
	EXPECT_LE(r.worst_wait_ratio, 1.0);
}

TEST(SoakCheckers, AWaitPastTheServiceBoundFailsTheCase)
{
	efqsoak::Result r;
	uint64_t seed = FirstCheckedStorm(1, &r);
	ASSERT_NE(seed, 0u);
	efqsoak::inject_service_bound_scale(1e-6);
	r = efqsoak::run_case(efqsoak::make_case(seed));
	efqsoak::inject_service_bound_scale(1);
	EXPECT_NE(r.failure.find("the service bound at"), std::string::npos) << r.failure;
}

TEST(SoakCheckers, ABadTunableFailsTheCase)
{
	Case c = Small();
	c.tunables = {{"quantum", "x"}};
	EXPECT_NE(efqsoak::run_case(c).failure.find("tunable quantum=x"), std::string::npos);
}

// A seed is its case: the same every time, and the cases vary over what
// the soak is meant to cover.
TEST(SoakCheckers, TheCasesCoverWhatTheSoakClaims)
{
	EXPECT_EQ(efqsoak::make_case(42).describe(), efqsoak::make_case(42).describe());
	EXPECT_NE(efqsoak::make_case(42).describe(), efqsoak::make_case(43).describe());
	std::map<std::string, int> sched, dev;
	int storms = 0;
	int hier = 0, removals = 0, requeues = 0, discards = 0, jobs = 0, deep = 0, tunables = 0,
	    events = 0, shared = 0, plugs = 0, segments = 0;
	const unsigned int n = kShards * kPerShard;
	for (uint64_t s = 1; s <= n; s++) {
		Case c = efqsoak::make_case(s);
		sched[c.scheduler]++;
		dev[c.device.substr(0, c.device.find(':'))]++;
		hier += c.hierarchical;
		storms += c.storm;
		requeues += c.requeue_every != 0;
		segments += c.max_discard_segments > 1;
		jobs += !c.jobfile.empty();
		tunables += !c.tunables.empty();
		for (const auto &g : c.cgroups)
			deep += std::count(g.path.begin(), g.path.end(), '/') == 2;
		for (const auto &e : c.events) {
			removals += e.kind == efqsoak::EventSpec::Remove;
			events += e.kind != efqsoak::EventSpec::Remove;
		}
		for (const auto &r : c.raws) {
			discards += r.discard_pct > 0;
			shared += r.share_with >= 0;
			plugs += r.plug_batch > 0;
		}
	}
	const unsigned int nsched = efqsim::blk::scheduler_exists("mq-deadline") ? 5 : 4;
	EXPECT_EQ(sched.size(), nsched);
	for (const auto &[s, k] : sched)
		EXPECT_GT(k, (int)n / (int)nsched / 2) << s;
	EXPECT_EQ(dev.size(), 4u); // null, ssd, hdd, multipath
	EXPECT_GT(hier, (int)n / 2);
	EXPECT_LT(hier, (int)n);
	for (int k : {storms, removals, requeues, discards, jobs, deep, tunables, events, shared,
		      plugs, segments})
		EXPECT_GT(k, (int)n / 20);
}

} // namespace
