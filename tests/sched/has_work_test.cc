// SPDX-License-Identifier: GPL-2.0
// The dispatch contract, per scheduler: when has_work says yes, a dispatch
// gives a request.  blk-mq asks has_work before every dispatch_request
// call; a dispatch that then gives nothing makes 6.1's
// __blk_mq_do_dispatch_sched() schedule a run of every hardware queue
// BLK_MQ_BUDGET_DELAY (3 ms) later (a kblockd work item), besides the lock
// and the queue selection the empty call cost.  So the scheduler must tell
// has_work the truth after its own dispatches too: a dispatch can start a
// hold (a queue that must now wait for its requests in flight, a group
// waiting for its next request).
#include "harness.h"

#include <string>
#include <tuple>

namespace {

using namespace efqtest;

const auto *env = ::testing::AddGlobalTestEnvironment(new SchedEnv);

class HasWork : public SchedTest,
		public ::testing::WithParamInterface<std::tuple<const char *, int>> {};

// Readers in N cgroups (0: flat) on a fast device that takes 4 requests at
// a time, each reader keeping 2 requests in flight.  Before the engine
// decided again after each dispatch, noop and deadline-fq with 2 groups
// gave nothing once per request (9,998 times here).
TEST_P(HasWork, ADispatchAfterHasWorkGivesARequest)
{
	auto [sched, groups] = GetParam();
	Config cfg;
	cfg.scheduler = sched;
	cfg.hierarchical = groups > 0;
	// enough scheduler tags for every reader's requests: with fewer, the
	// readers would wait for tags, which is not what this checks
	cfg.nr_requests = 64;
	Make(cfg, 4, 20 * kUs);
	int64_t end = m_->now() + 200 * kMs;
	int n = groups > 0 ? groups : 2;
	for (int i = 0; i < n; i++) {
		std::string name = "r" + std::to_string(i);
		TaskId t = Task(groups > 0 ? Spec(name, name, 500) : Spec(name));
		Loop(t, 2, 4096, static_cast<uint64_t>(i) << 30, end, false, true);
	}
	m_->run_until(end);
	ASSERT_TRUE(m_->drain(end + 10'000 * kMs));
	EXPECT_GT(m_->counters().completed, 1000u);
	EXPECT_EQ(m_->counters().budget_reruns, 0u)
		<< sched << " with " << groups << " groups: dispatch gave nothing after has_work";
}

INSTANTIATE_TEST_SUITE_P(Schedulers, HasWork,
			 ::testing::Combine(::testing::Values("noop", "deadline-fq", "cfq", "as"),
					    ::testing::Values(0, 2, 8)),
			 [](const auto &info) {
				 std::string s = std::get<0>(info.param);
				 for (char &c : s)
					 if (c == '-')
						 c = '_';
				 return s + "_" + std::to_string(std::get<1>(info.param)) +
					"groups";
			 });

} // namespace
