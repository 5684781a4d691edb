// SPDX-License-Identifier: GPL-2.0
// The schedulers' debugfs attributes (sched/state, sched/service_trees):
// while two cgroups compete they name the queue in service, its group and
// the backlogged entities; once drained, nothing is in service.
#include "harness.h"

namespace {

using namespace efqtest;

const auto *env = ::testing::AddGlobalTestEnvironment(new SchedEnv);

class Debugfs : public SchedTest, public ::testing::WithParamInterface<const char *> {};

TEST_P(Debugfs, StateAndServiceTreesFollowTheEngine)
{
	Config cfg;
	cfg.scheduler = GetParam();
	Make(cfg, 4, 2 * kMs);
	TaskId a = Task(Spec("a", "a", 1000)), b = Task(Spec("b", "b", 500));
	int64_t end = m_->now() + 2'000 * kMs;
	Loop(a, 4, 4096, 0, end, false, true);
	Loop(b, 4, 4096, 8ull << 30, end, false, true);
	m_->run_until(m_->now() + 1'000 * kMs);

	std::string err;
	std::string state = m_->debugfs("state", &err);
	ASSERT_TRUE(err.empty()) << err;
	EXPECT_NE(state.find("hierarchical=1"), std::string::npos) << state;
	EXPECT_NE(state.find("active_queue: pid="), std::string::npos) << state;
	EXPECT_TRUE(state.find("group=/a") != std::string::npos ||
		    state.find("group=/b") != std::string::npos)
		<< state;
	EXPECT_NE(state.find("expired: slice_used="), std::string::npos) << state;
	EXPECT_EQ(state.find("(null)"), std::string::npos) << state; // every reason named

	std::string trees = m_->debugfs("service_trees", &err);
	ASSERT_TRUE(err.empty()) << err;
	EXPECT_EQ(trees.rfind("group / weight=500", 0), 0u) << trees;
	EXPECT_NE(trees.find("group /a weight=1000"), std::string::npos) << trees;
	EXPECT_NE(trees.find("group /b weight=500"), std::string::npos) << trees;

	m_->run_until(end);
	ASSERT_TRUE(m_->drain(end + 10'000 * kMs));
	m_->run_until(m_->now() + 1'000 * kMs); // past any idling
	state = m_->debugfs("state", &err);
	EXPECT_NE(state.find("busy_queues=0 queued=0 in_driver=0"), std::string::npos) << state;
	EXPECT_NE(state.find("active_queue: none"), std::string::npos) << state;

	m_->debugfs("no_such_file", &err);
	EXPECT_FALSE(err.empty());
}

INSTANTIATE_TEST_SUITE_P(AllSchedulers, Debugfs,
			 ::testing::Values("noop", "deadline-fq", "as", "cfq"),
			 [](const auto &info) {
				 std::string n = info.param;
				 return n == "deadline-fq" ? std::string("deadline_fq") : n;
			 });

} // namespace
