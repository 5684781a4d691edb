// SPDX-License-Identifier: GPL-2.0
// Aliased requests: many processes reading the same sector without waiting
// must not starve a victim reader -- in any scheduler, flat or
// hierarchical, in the victim's own group or another.  The case is Jeff
// Moyer's 2010 report ("cfq-iosched: don't allow aliased requests to
// starve others"): 100 threads, each queueing 1 MB of O_DIRECT reads of
// one 4 MB file without waiting, starved every other IO to the device,
// because deadline and cfq moved an aliased request straight to the
// dispatch list; serving one expired request per alias still left an `ls`
// taking over five minutes, serving all of them about 7 s.
#include <string>
#include <tuple>

#include "harness.h"

namespace {

using namespace efqtest;

const auto *env = ::testing::AddGlobalTestEnvironment(new SchedEnv);

class Alias : public SchedTest,
	      public ::testing::WithParamInterface<std::tuple<const char *, bool, bool>> {};

TEST_P(Alias, AStreamOfAliasedReadsDoesNotStarveAVictimReader)
{
	auto [sched, hier, same_group] = GetParam();
	Config cfg;
	cfg.scheduler = sched;
	cfg.hierarchical = hier;
	Make(cfg, 4, kMs);
	int64_t end = m_->now() + 5'000 * kMs;
	// 16 hammers, 4 overlapping reads each of the same 4 KiB at sector 0,
	// resubmitted as soon as they complete (the reproducer's shape)
	for (int i = 0; i < 16; i++) {
		TaskId t = Task(Spec("alias" + std::to_string(i), "hammer"));
		Loop(t, 4, 4096, 0, end)->same_offset = true;
	}
	TaskId v = Task(Spec("victim", same_group ? "hammer" : "victim"));
	Job *victim = Loop(v, 1, 4096, 1ull << 30, end);
	m_->run_until(end);
	ASSERT_TRUE(m_->drain(end + 60'000 * kMs));
	// progress, and a bound on every wait: deadline-fq serves the victim
	// when its read expires (500 ms), the others share the disk sooner
	EXPECT_GE(victim->ios, 5u) << "the victim must make progress";
	EXPECT_LT(victim->max_lat, 1'000 * kMs) << "no victim request waits 1 s";
}

INSTANTIATE_TEST_SUITE_P(AllSchedulers, Alias,
			 ::testing::Combine(::testing::Values("noop", "deadline-fq", "as", "cfq"),
					    ::testing::Bool(), ::testing::Bool()),
			 [](const auto &info) {
				 std::string s = std::get<0>(info.param);
				 for (char &c : s)
					 if (c == '-')
						 c = '_';
				 return s + (std::get<1>(info.param) ? "_hier" : "_flat") +
					(std::get<2>(info.param) ? "_samegroup" : "_othergroup");
			 });

} // namespace
