// SPDX-License-Identifier: GPL-2.0
// The aliased-read storm (jobs/aliased_storm.fio): 100 processes of one
// cgroup reading the same 4 MiB in 64 KiB O_DIRECT reads at iodepth 16,
// against a 4 KiB random reader with 10 ms think time in a cgroup of the
// same weight, on the simulated 7200 rpm disk.
//
// What it found: the block core merges requests of different processes
// (the insert-merge chain, and attempt_back_merge()/attempt_front_merge()
// after a bio merge, compare the cgroup but never ask the scheduler), so
// a cfq queue could lose its last request to another process's request and
// stay busy with nothing queued.  cfq then put it in service with no
// request to give (WARN_ON_ONCE(!rq) in cfq_dispatch_request(), every seed
// tried, flat and hierarchical), and a queue left so until the end was
// found by efq_data_exit() (its WARN, with busy_queues=1 and nothing queued
// or held: no request lost, but the queue's reference, and with it the
// scheduler's data, leaked; seed 7, hierarchical, 20 s).
//
// Asserted, for each efq scheduler flat and hierarchical, on three seeds:
// no WARN, no leak (the fixture), the run drains (run_jobfiles' own
// check), every job ends without error, the victim completes IO, and its
// worst completion latency against Linux's mq-deadline's on the same seed
// (the control: no groups, the same tags):
//   hierarchical: at most the control's (measured 0.48-0.90 of it);
//   flat, where the victim is one of 101 queues of one group: at most 1.5x
//   (measured 0.80-1.41x; cfq's round robin over 101 sync queues is the
//   1.41).
// The victim's latency is mostly the wait for a scheduler tag: the storm
// holds all 62 (2 x the disk's NCQ depth of 31) and the per-group cap
// (nr_group_requests, 128 by default) does not bind below that
// (io-controller.rst, "Common tunables"); with nr_group_requests=16 the
// victim's worst latency under cfq falls to about 0.1 s.  That run is
// asserted too (3 s, seed 1), as the way to isolate a reader from such a
// group.
#include <map>
#include <string>
#include <tuple>

#include <sim/gtest_guard.h>

#include "scenario_util.h"

namespace {

using namespace efqscen;

RunResult Storm(const std::string &sched, bool hier, uint64_t seed, int runtime_s = 10,
		std::vector<std::pair<std::string, std::string>> tunables = {})
{
	RunSetup s = MakeSetup(sched, "hdd", std::move(tunables), seed);
	s.hierarchical = hier;
	std::string path =
		Instantiate("aliased_storm.fio", {{"RUNTIME", std::to_string(runtime_s)}});
	return RunJobs(s, {path});
}

// The worst victim latency of mq-deadline on @seed, run once per seed and
// runtime in a process.
int64_t ControlMaxLat(uint64_t seed, int runtime_s = 10)
{
	static std::map<std::pair<uint64_t, int>, int64_t> cache;
	auto it = cache.find({seed, runtime_s});
	if (it != cache.end())
		return it->second;
	RunResult r = Storm("mq-deadline", false, seed, runtime_s);
	JobSum v = Job(r, "victim");
	EXPECT_GT(v.read_ios, 0u) << "the control's victim must complete IO";
	return cache[{seed, runtime_s}] = v.read_clat_max_ns;
}

void ExpectAllEndedWell(const RunResult &r)
{
	for (const JobResult &j : r.jobs)
		EXPECT_EQ(j.error, 0) << j.jobname << " ended with an error";
}

class AliasedStorm : public SimTest,
		     public ::testing::WithParamInterface<std::tuple<const char *, bool>> {};

TEST_P(AliasedStorm, NoWarningNoLeakAndTheVictimIsServedAsUnderTheControl)
{
	auto [sched, hier] = GetParam();
	for (uint64_t seed : {1, 2, 7}) {
		SCOPED_TRACE("seed " + std::to_string(seed));
		int64_t control = ControlMaxLat(seed);
		RunResult r = Storm(sched, hier, seed);
		ExpectAllEndedWell(r);
		JobSum storm = Job(r, "storm0");
		JobSum victim = Job(r, "victim");
		EXPECT_EQ(storm.clones, 25);
		EXPECT_GT(storm.read_ios, 0u);
		EXPECT_GE(victim.read_ios, 5u) << "the victim must make progress";
		double rel = Ratio(victim.read_clat_max_ns, control);
		EXPECT_GT(rel, 0.0);
		EXPECT_LE(rel, hier ? 1.0 : 1.5)
			<< "victim max latency " << victim.read_clat_max_ns / kMsNs
			<< " ms, mq-deadline's " << control / kMsNs << " ms";
	}
}

INSTANTIATE_TEST_SUITE_P(EfqSchedulers, AliasedStorm,
			 ::testing::Combine(::testing::Values("noop", "deadline-fq", "as", "cfq"),
					    ::testing::Bool()),
			 [](const auto &info) {
				 std::string s = std::get<0>(info.param);
				 for (char &c : s)
					 if (c == '-')
						 c = '_';
				 return s + (std::get<1>(info.param) ? "_hier" : "_flat");
			 });

// The per-group cap set below the tags isolates the victim from the storm:
// it finds a tag while the storm's group waits for one.  3 s: with 100
// submitters asleep for tags the model's wake-ups make this run about 15
// times as costly as the others.
class AliasedStormCapped : public SimTest {};

TEST_F(AliasedStormCapped, AGroupCapBelowTheTagsBoundsTheVictimsLatency)
{
	int64_t control = ControlMaxLat(1, 3);
	RunResult r = Storm("cfq", true, 1, 3, {{"nr_group_requests", "16"}});
	ExpectAllEndedWell(r);
	JobSum victim = Job(r, "victim");
	EXPECT_GE(victim.read_ios, 50u);
	EXPECT_LE(Ratio(victim.read_clat_max_ns, control), 0.3)
		<< "victim max latency " << victim.read_clat_max_ns / kMsNs << " ms, mq-deadline's "
		<< control / kMsNs << " ms";
}

} // namespace
