// SPDX-License-Identifier: GPL-2.0
// No stall: a scheduler that holds its requests back must itself make sure
// that something ends the hold (a timer, a completion, a re-run).  The
// model's blk_mq_run_hw_queues() asks has_work at once, as 6.1 does
// (blk_mq_hctx_has_pending()), so a re-run asked for before the
// scheduler's state settles is lost, as in the kernel.
#include <string>
#include <tuple>

#include "harness.h"

namespace {

using namespace efqtest;

const auto *env = ::testing::AddGlobalTestEnvironment(new SchedEnv);

class Progress : public SchedModeTest {};

// One direct read, then a burst of buffered (async) writes while it is in
// flight: cfq holds async queues while sync requests are in the driver,
// and its low_latency rule lets async depth grow only slowly after a sync
// completion.  The read's completion must start the writes (review lead 3:
// the engine's re-run came before cfq recomputed its hold, and none came
// after: `dd conv=fdatasync` after a read hung).
TEST_P(Progress, AsyncWritesBehindASyncReadAllComplete)
{
	TaskId r = Task(Spec("reader", "g"));
	TaskId w = Task(Spec("flusher", "g"));
	auto read = Submit(r, 1ull << 30, 4096);
	std::vector<std::shared_ptr<int64_t>> writes;
	for (int i = 0; i < 64; i++)
		writes.push_back(Submit(w, (uint64_t)i * 65536, 4096, true, /*sync=*/false));
	// no new event may be needed: the queue must drain by itself
	ASSERT_TRUE(m_->drain(m_->now() + 60'000 * kMs)) << "requests stuck\n" << State();
	EXPECT_GE(*read, 0);
	for (const auto &d : writes)
		EXPECT_GE(*d, 0) << "every write completes";
}

// The same with the read and the writes in different groups and a second
// round of reads arriving while the writes drain.
TEST_P(Progress, SyncAndAsyncInTwoGroupsAllComplete)
{
	TaskId r = Task(Spec("reader", "ra", 1000));
	TaskId w = Task(Spec("writer", "wa", 100));
	std::vector<std::shared_ptr<int64_t>> all;
	for (int round = 0; round < 4; round++) {
		all.push_back(Submit(r, (1ull << 30) + round * 4096, 4096));
		for (int i = 0; i < 32; i++)
			all.push_back(Submit(w, (uint64_t)(round * 32 + i) * 65536, 4096, true,
					     /*sync=*/false));
		m_->run_until(m_->now() + 3 * kMs);
	}
	ASSERT_TRUE(m_->drain(m_->now() + 60'000 * kMs)) << "requests stuck\n" << State();
	for (const auto &d : all)
		EXPECT_GE(*d, 0) << "every IO completes";
}

// The driver gives requests back (a retryable error, as SCSI requeues):
// back into the scheduler at the head, or with RQF_DONTPREP straight to
// hctx->dispatch, never to be seen by the scheduler again before their
// completion.  With fairness=1 the engine waits for the queue in service
// to drain before switching; a requeue must end that wait when it was the
// last request awaited (review lead 6).
class Requeue : public SchedTest,
		public ::testing::WithParamInterface<std::tuple<const char *, bool, bool>> {};

TEST_P(Requeue, RequeuedRequestsAllCompleteWithTheirData)
{
	auto [sched, hier, dontprep] = GetParam();
	Config cfg;
	cfg.scheduler = sched;
	cfg.hierarchical = hier;
	cfg.tunables = {{"fairness", "1"}};
	cfg.requeue_every = 3;
	cfg.requeue_dontprep = dontprep;
	Make(cfg, 2, 200 * kUs);
	TaskId a = Task(Spec("a", "ga", 1000));
	TaskId b = Task(Spec("b", "gb", 500));
	TaskId w = Task(Spec("w", "gb", 500));
	int64_t end = m_->now() + 300 * kMs;
	Job *ja = Loop(a, 4, 4096, 0, end);
	Job *jb = Loop(b, 1, 4096, 1ull << 30, end, false, /*random=*/true);
	Job *jw = Loop(w, 8, 16384, 2ull << 30, end, /*write=*/true, false, /*sync=*/false);
	m_->run_until(end);
	ASSERT_TRUE(m_->drain(end + 60'000 * kMs)) << "requests stuck\n" << State();
	EXPECT_GT(m_->counters().driver_requeues, 10u);
	// every job made progress (how much is each scheduler's policy)
	EXPECT_GT(ja->ios, 0u);
	EXPECT_GT(jb->ios, 0u);
	EXPECT_GT(jw->ios, 0u);
	uint64_t sent = 0;
	for (const auto &x : dev_->sent)
		sent += x.rq.sectors;
	// a requeued request is sent twice or more: at least every byte once
	EXPECT_GE(sent * 512, ja->done + jb->done + jw->done);
}

INSTANTIATE_TEST_SUITE_P(AllSchedulers, Requeue,
			 ::testing::Combine(::testing::Values("noop", "deadline-fq", "as", "cfq"),
					    ::testing::Bool(), ::testing::Bool()),
			 [](const auto &info) {
				 return SchedName(std::get<0>(info.param)) +
					(std::get<1>(info.param) ? "_hier" : "_flat") +
					(std::get<2>(info.param) ? "_dontprep" : "_sched");
			 });

INSTANTIATE_TEST_SUITE_P(AllSchedulers, Progress, AllSchedModes(), SchedModeTestName);

} // namespace
