// SPDX-License-Identifier: GPL-2.0
// Requests that are not the policy's to schedule, per scheduler.  Linux
// 6.12's block core hands a scheduler two kinds that 6.1's never does:
// the data part of a pre-flushed write (RQF_FLUSH_SEQ, inserted at the
// head from the flush machinery's requeue work) and a request it never
// prepared (a plug-cached passthrough request reused for a bio).  While a
// flush sequence's data part waits in a scheduler, blk_kick_flush() holds
// back every other flush of the device, for up to 5 s; mq-deadline and bfq
// dispatch both kinds next, from a list of their own.  efqsim models the
// 6.12 path for these two only (workload::Io's flush_data, unprepared).
#include "harness.h"

#include <string>

namespace {

using namespace efqtest;

const auto *env = ::testing::AddGlobalTestEnvironment(new SchedEnv);

class Bypass : public SchedTest, public ::testing::WithParamInterface<const char *> {
protected:
	// Group /a reads without pause at depth 1 on a disk that takes one
	// request at a time, 1 ms each: /a holds the disk for its whole slice
	// (100 ms), so that any request of another group that the policy
	// schedules waits for the slice to end.
	int64_t StartReader()
	{
		Config cfg;
		cfg.scheduler = GetParam();
		cfg.hierarchical = true;
		Make(cfg, 1, kMs);
		TaskId a = Task(Spec("a", "a", 500));
		const int64_t end = m_->now() + 400 * kMs;
		Loop(a, 1, 4096, 0, end);
		return end;
	}

	// Group b's one 4 KiB IO @io (offset and size set here) at 30.5 ms,
	// while /a holds the disk; the run to @end drained.  Its completion
	// time and t0 in @done and @t0.
	void SubmitFromB(int64_t end, Io io, std::shared_ptr<int64_t> *done, int64_t *t0)
	{
		TaskId b = Task(Spec("b", "b", 500));
		*t0 = m_->now() + 30 * kMs + kMs / 2;
		io.offset = 8ull << 30;
		io.bytes = 4096;
		m_->at(*t0, [this, b, io, done] { *done = Send(b, io); });
		m_->run_until(end);
		ASSERT_TRUE(m_->drain(end + 5000 * kMs));
		ASSERT_TRUE(*done);
	}

	std::string State()
	{
		std::string err;
		std::string s = m_->debugfs("state", &err);
		EXPECT_TRUE(err.empty()) << err;
		return s;
	}
};

// 6.12: a pre-flushed write's data part goes to the device next, whatever
// its group: here it would wait out /a's slice (about 100 ms) if the policy
// held it.
TEST_P(Bypass, AFlushSequenceWriteIsDispatchedNext)
{
	const int64_t end = StartReader();
	std::shared_ptr<int64_t> done;
	int64_t t0 = 0;
	Io io;
	io.write = true;
	io.flush_data = true;
	ASSERT_NO_FATAL_FAILURE(SubmitFromB(end, io, &done, &t0));
	// the read in flight, then this write: 2 ms, less a little
	EXPECT_LE(*done - t0, 3 * kMs) << GetParam() << " held the flush sequence's data part";
	EXPECT_NE(State().find("queued=0 in_driver=0"), std::string::npos) << State();
}

// 6.12: a request the scheduler never prepared gets no finish_request; it
// is dispatched without being counted, or the engine would wait for its
// completion forever (its queue's requests in flight never reach 0).
TEST_P(Bypass, AnUnpreparedRequestIsDispatchedAndNeverCounted)
{
	const int64_t end = StartReader();
	std::shared_ptr<int64_t> done;
	int64_t t0 = 0;
	Io io;
	io.unprepared = true;
	ASSERT_NO_FATAL_FAILURE(SubmitFromB(end, io, &done, &t0));
	EXPECT_GE(*done, t0);
	EXPECT_LE(*done - t0, 3 * kMs) << GetParam();
	// nothing of it is left in the engine's counts
	EXPECT_NE(State().find("queued=0 in_driver=0"), std::string::npos) << State();
}

INSTANTIATE_TEST_SUITE_P(AllSchedulers, Bypass,
			 ::testing::Values("noop", "deadline-fq", "cfq", "as"),
			 [](const auto &info) {
				 std::string s = info.param;
				 for (char &c : s)
					 if (c == '-')
						 c = '_';
				 return s;
			 });

} // namespace
