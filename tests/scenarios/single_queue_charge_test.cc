// SPDX-License-Identifier: GPL-2.0
// Single-queue schedulers' charging.  The facts, from V10's patches (no
// measurements): noop, deadline and AS keep one queue per group; while
// only the root group exists that queue is never expired (no slice ends
// every 100 ms for nothing), and when a group appears the old queue is
// charged one slice, not the whole time it ran untimed -- the group's
// exported service still shows the real time.
// Observed through the engine's blktrace messages (expiries) and through
// the dispatch trace of a recording device (1 ms per request).  The
// tolerances are stated with the test.
#include <cstdlib>
#include <cstring>
#include <string>

#include <sim/blk.h>

#include "../sched/harness.h"
#include "scenario_util.h"

namespace {

using namespace efqtest;

constexpr uint64_t kGiB = 1ull << 30;
const auto *env = ::testing::AddGlobalTestEnvironment(new SchedEnv);

// Counts the engine's "expire reason=N" messages by reason.
std::map<int, int> *g_expiries;

void CountExpiries(struct request_queue *, const char *msg, void *)
{
	const char *p = std::strstr(msg, "expire reason=");
	if (p && g_expiries)
		(*g_expiries)[std::atoi(p + std::strlen("expire reason="))]++;
}

class SingleQueueCharge : public SchedTest, public ::testing::WithParamInterface<const char *> {
protected:
	std::map<int, int> expiries_;
	void SetUp() override
	{
		SchedTest::SetUp();
		g_expiries = &expiries_;
		sim_blktrace_set_hook(CountExpiries, nullptr);
	}
	void TearDown() override
	{
		sim_blktrace_set_hook(nullptr, nullptr);
		g_expiries = nullptr;
		SchedTest::TearDown();
	}
	// Expiries because the slice was used (at selection or at a
	// completion: EFQ_EXPIRE_SLICE_USED, EFQ_EXPIRE_COMPLETION).
	int Slices() const
	{
		int n = 0;
		for (auto &[reason, count] : expiries_)
			if (reason == 0 || reason == 2)
				n += count;
		return n;
	}
};

// Root only for 1 s: no slice expiry at all (timed, it would be 10).  The
// readers keep 4 random reads in flight, so that their queues stay
// backlogged (sequential ones would merge into one request and leave the
// root queue empty after every dispatch; the root group never idles).
// Then a task in g1 starts: the root group's queue, which had the disk for
// 1 s, is charged at most one slice, so it keeps taking turns with g1
// (charged the full second -- fairness=1 charges real time -- g1 would
// own the disk for the next second).  Its real service still shows: the
// root group's disk time covers the whole run.
TEST_P(SingleQueueCharge, RootOnlyRunsUntimedThenPaysOneSlice)
{
	Config cfg;
	cfg.scheduler = GetParam();
	cfg.tunables = {{"fairness", "1"}};
	Make(cfg, 1, kMs);
	const int64_t t0 = m_->now(), end = t0 + 2000 * kMs;
	TaskId root = Task(Spec("root-reader"));
	TaskId g1 = Task(Spec("g1-reader", "g1", 500));
	Loop(root, 4, 4096, 1 * kGiB, end, false, true);
	m_->run_until(t0 + 1000 * kMs);
	int untimed_slices = Slices();
	double busy_before = Groups()["/"].device_busy_ms;
	Loop(g1, 4, 4096, 2 * kGiB, end, false, true);
	m_->run_until(end);
	// The root reader's share of the dispatches in the next 500 ms.
	int root_n = 0, all = 0;
	for (auto &s : dev_->sent) {
		if (s.when - t0 < 1000 * kMs || s.when - t0 >= 1500 * kMs)
			continue;
		all++;
		root_n += s.rq.sector * 512 / kGiB == 1;
	}
	double share = all ? static_cast<double>(root_n) / all : 0;
	auto groups = Groups();
	printf("single queue %s: slice expiries in the root-only second %d; "
	       "root share of the next 500 ms %.2f; root disk time %.0f ms (device busy %.0f ms), "
	       "g1 %.0f ms\n",
	       GetParam(), untimed_slices, share, groups["/"].disk_time_ms, busy_before,
	       groups["/g1"].disk_time_ms);
	EXPECT_EQ(untimed_slices, 0);
	EXPECT_GE(share, 0.3);
	EXPECT_LE(share, 0.7);
	// (the engine records service at expiries: the turn in progress is
	// not in yet)
	EXPECT_GE(groups["/"].disk_time_ms, 0.9 * groups["/"].device_busy_ms);
}

INSTANTIATE_TEST_SUITE_P(Schedulers, SingleQueueCharge,
			 ::testing::Values("noop", "deadline-fq", "as"), [](const auto &info) {
				 std::string s = info.param;
				 for (char &c : s)
					 if (c == '-')
						 c = '_';
				 return s;
			 });

} // namespace
