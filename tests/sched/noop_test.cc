// SPDX-License-Identifier: GPL-2.0
// noop on the efq engine: FIFO within a group, groups by weight.
#include "harness.h"

namespace {

using namespace efqtest;

const auto *env = ::testing::AddGlobalTestEnvironment(new SchedEnv);

class Noop : public SchedTest {};

TEST_F(Noop, FlatNoopDispatchesInArrivalOrder)
{
	Config cfg;
	cfg.hierarchical = false;
	Make(cfg, 1, kMs);
	TaskId a = Task(Spec("a")), b = Task(Spec("b"));
	// arrival order: a@0, b@100M, a@50M, b@10M (never adjacent: no merges)
	const uint64_t offs[] = {0, 100 << 20, 50 << 20, 10 << 20};
	for (int i = 0; i < 4; i++)
		Submit(i % 2 ? b : a, offs[i], 4096);
	ASSERT_TRUE(m_->drain(m_->now() + 100 * kMs));
	ASSERT_EQ(dev_->sent.size(), 4u);
	for (int i = 0; i < 4; i++)
		EXPECT_EQ(dev_->sent[i].rq.sector, offs[i] / 512) << "position " << i;
}

TEST_F(Noop, HierarchicalGroupsGetDiskTimeAndBandwidthByWeight)
{
	Make(Config{}, 4, 2 * kMs);
	TaskId a = Task(Spec("a", "a", 1000)), b = Task(Spec("b", "b", 500));
	int64_t end = m_->now() + 20'000 * kMs;
	Job *ja = Loop(a, 4, 4096, 0, end, false, true);
	Job *jb = Loop(b, 4, 4096, 8ull << 30, end, false, true);
	m_->run_until(end);
	ASSERT_TRUE(m_->drain(end + 10'000 * kMs));
	auto g = Groups();
	EXPECT_NEAR(g["/a"].disk_time_ms / g["/b"].disk_time_ms, 2.0, 0.15);
	EXPECT_NEAR(g["/a"].device_busy_ms / g["/b"].device_busy_ms, 2.0, 0.15);
	double bw = static_cast<double>(ja->done) / static_cast<double>(jb->done);
	EXPECT_GE(bw, 1.7);
	EXPECT_LE(bw, 2.4);
}

} // namespace
