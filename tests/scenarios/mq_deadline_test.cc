// SPDX-License-Identifier: GPL-2.0
// Linux 6.1's own mq-deadline (unmodified, from linux-source-6.1) running
// fio job files through efqsim::run, as `efqsim --scheduler mq-deadline`
// does: jobs/mq_deadline_mixed.fio (readers of all three IO priority
// classes, queued direct writers, page-cache writeback, two cgroups) on the
// hdd and the ssd.  mq-deadline counts every request it is given and every
// one that completes per class, so its debugfs "queued" (inserted minus
// completed) reads 0 0 0 once everything is done; the block layer model
// counts dispatches and completions.  Every request completes exactly once.
// Skipped when efqsim was built without mq-deadline.
#include "scenario_util.h"

namespace {

using namespace efqscen;

TEST(MqDeadlineJobs, MixedJobFileRunsToCompletionWithEveryRequestCompletedOnce)
{
	if (!efqsim::blk::scheduler_exists("mq-deadline"))
		GTEST_SKIP() << "efqsim was built without Linux's mq-deadline "
				"(EFQ_LINUX_SCHEDULERS=OFF)";
	const std::string job = Instantiate("mq_deadline_mixed.fio", {{"RUNTIME", "3"}});
	for (const char *device : {"hdd", "ssd"}) {
		SCOPED_TRACE(device);
		RunSetup s = MakeSetup("mq-deadline", device);
		efqsim::blk::Counters c;
		std::string queued, owned, err;
		s.inspect = [&](const efqsim::blk::Model &m) {
			c = m.counters();
			queued = m.debugfs("queued", &err);
			owned = m.debugfs("owned_by_driver", &err);
		};
		RunResult r = RunJobs(s, {job});
		ASSERT_EQ(r.jobs.size(), 5u);
		EXPECT_FALSE(r.hierarchical) << "mq-deadline knows no groups";
		EXPECT_EQ(Tunable(r, "fifo_batch"), "16");
		for (const char *name : {"rt-rand", "be-seq", "idle-rand"})
			EXPECT_GT(Job(r, name).read_ios, 0u) << name;
		for (const char *name : {"direct-writer", "buffered-writer"})
			EXPECT_GT(Job(r, name).write_ios, 0u) << name;
		// run_jobs() fails the run if the model's invariants do not hold;
		// the same counts, stated here
		EXPECT_GT(c.completed, 0u);
		EXPECT_EQ(c.dispatched, c.completed)
			<< "no driver requeues: every dispatch completes once";
		EXPECT_EQ(c.requests, c.completed + c.rq_merges)
			<< "every request completed or was merged into another";
		EXPECT_EQ(queued, "0 0 0\n") << err;
		EXPECT_EQ(owned, "0 0 0\n") << err;
		EXPECT_GT(Group(r, "/mqd/a").device_busy_ms, 0.0);
		EXPECT_GT(Group(r, "/mqd/b").device_busy_ms, 0.0);
		EXPECT_EQ(Group(r, "/mqd/a").disk_time_ms, 0.0) << "no efq engine, no disk time";
	}
}

} // namespace
