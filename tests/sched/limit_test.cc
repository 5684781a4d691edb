// SPDX-License-Identifier: GPL-2.0
// nr_group_requests through limit_depth (V10's per-group request
// descriptors, tests/scenarios/group_request_limit_test.cc): a group holding its
// quota of requests makes its own submitters wait, never another group's
// while tags remain.
#include "harness.h"

namespace {

using namespace efqtest;

const auto *env = ::testing::AddGlobalTestEnvironment(new SchedEnv);

class GroupRequests : public SchedTest, public ::testing::WithParamInterface<const char *> {};

TEST_P(GroupRequests, AGroupAtItsQuotaWaitsWhileAnotherGroupGetsATag)
{
	Config cfg;
	cfg.scheduler = GetParam();
	cfg.nr_requests = 64;
	cfg.tunables = {{"nr_group_requests", "8"}};
	Make(cfg, 1, 10 * kMs);
	TaskId a = Task(Spec("a", "a")), b = Task(Spec("b", "b"));
	for (int i = 0; i < 20; i++)
		Submit(a, static_cast<uint64_t>(i) << 24, 4096);
	uint64_t waits = m_->counters().tag_waits;
	// 8 counted requests, then a shallow depth of one tag, which sbitmap
	// applies to each word of the tag map: 64 tags are 4 words of 16, so
	// the first tag of each word (0, taken; 16, 32, 48) -- 3 more, and
	// the 12th and later requests wait
	EXPECT_EQ(waits, 9u) << "the 12th and later requests of group a wait";
	auto done = Submit(b, 1ull << 34, 4096);
	EXPECT_EQ(m_->counters().tag_waits, waits) << "group b is under its quota";
	ASSERT_TRUE(m_->drain(m_->now() + 10'000 * kMs));
	EXPECT_GT(*done, 0);
}

// Flat mode has one group, so nothing is capped there, even when an
// earlier hierarchical period left groups on the device's group list
// (review lead 12: the root group got a shallow depth of one tag).
TEST_P(GroupRequests, FlatModeAfterAHierarchicalPeriodCapsNobody)
{
	Config cfg;
	cfg.scheduler = GetParam();
	cfg.nr_requests = 64;
	cfg.tunables = {{"nr_group_requests", "8"}};
	Make(cfg, 1, 10 * kMs);
	TaskId a = Task(Spec("a", "a")), r = Task(Spec("r"));
	auto first = Submit(a, 0, 4096);
	ASSERT_TRUE(m_->drain(m_->now() + 1'000 * kMs));
	ASSERT_GE(*first, 0);
	m_->run_until(m_->now() + 1'000 * kMs); // idle waits end: no busy queue
	ASSERT_EQ(m_->set_tunable("hierarchical", "0"), 0);
	for (int i = 0; i < 20; i++)
		Submit(r, static_cast<uint64_t>(i) << 24, 4096);
	EXPECT_EQ(m_->counters().tag_waits, 0u) << "20 of 64 tags: nobody waits";
	ASSERT_TRUE(m_->drain(m_->now() + 10'000 * kMs));
}

INSTANTIATE_TEST_SUITE_P(AllSchedulers, GroupRequests,
			 ::testing::Values("noop", "deadline-fq", "as", "cfq"),
			 [](const auto &info) {
				 std::string s = info.param;
				 return s == "deadline-fq" ? std::string("deadline_fq") : s;
			 });

TEST(GroupRequestsTunable, HasTheSeriesDefaultAndAFloorOf4)
{
	efqsim::blk::ensure_modules();
	// {device depth, written, shown}
	struct Case {
		uint32_t depth;
		const char *value, *shown;
	} cases[] = {
		{31, "", "128"}, // V10's default, whatever the number of tags
		{1, "", "128"},
		{31, "1", "4"}, // clamped to the floor
		{31, "512", "512"},
	};
	for (const Case &c : cases) {
		Config cfg;
		if (*c.value)
			cfg.tunables = {{"nr_group_requests", c.value}};
		Model m(std::make_unique<RecordingDevice>(c.depth, kMs), cfg);
		std::string err;
		ASSERT_TRUE(m.init(&err)) << err;
		EXPECT_EQ(m.tunables()["nr_group_requests"], c.shown)
			<< "depth " << c.depth << " value '" << c.value << "'";
	}
}

TEST(GroupRequestsTunable, RejectsNonNumbers)
{
	efqsim::blk::ensure_modules();
	Config bad;
	bad.tunables = {{"nr_group_requests", "abc"}};
	Model m(std::make_unique<RecordingDevice>(1, kMs), bad);
	std::string err;
	EXPECT_FALSE(m.init(&err));
	EXPECT_EQ(err, "tunable nr_group_requests=abc: Invalid argument");
}

} // namespace
