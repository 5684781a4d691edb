// SPDX-License-Identifier: GPL-2.0
// fio's per-IO priorities (cmdprio_*) on the real schedulers: the
// priority reaches the request, and each scheduler does with it what its
// code does.  The facts of Linux 6.1 these tests rest on:
//
//  - block/blk-core.c bio_set_ioprio(): a bio that has no class of its own
//    takes the submitting task's priority; the aio and io_uring paths give
//    the bio the request's (fs/aio.c: aio_reqprio with IOCB_FLAG_IOPRIO,
//    io_uring/rw.c: the sqe's ioprio, both into kiocb->ki_ioprio, which
//    block/fops.c's direct IO copies into bio->bi_ioprio), and the request
//    takes the bio's (rq->ioprio); requests of different priorities never
//    merge (block/blk-merge.c).
//  - mq-deadline keeps one queue per priority class of the request
//    (block/mq-deadline.c dd_rq_ioclass(): IOPRIO_PRIO_CLASS of
//    req_get_ioprio(rq)) and dispatches RT before BE before IDLE.
//  - bfq ignores a request's own priority: a queue's class and weight come
//    from the process's io_context (block/bfq-iosched.c
//    bfq_check_ioprio_change(): bic->icq.ioc->ioprio).  efqsim does not
//    run bfq.
//  - efq's cfq (block/cfq-iosched.c cfq_get_queue()) takes the request's
//    priority too (req_get_ioprio()), but keeps one sync queue per process:
//    a request of another priority re-classes the process's whole queue
//    (cfq_set_prio()).  So an RT share lifts the job, not single IOs.

#ifdef EFQ_WORKLOAD_RUN

#include <gtest/gtest.h>

#include "report/results.h"
#include "run/run.h"
#include "workload/jobfile.h"

#include <string>

namespace efqsim::workload {
namespace {

report::RunResult run_text(const std::string &scheduler, const std::string &text)
{
	run::Setup setup;
	setup.device = "hdd";
	setup.scheduler = scheduler;
	setup.seed = 1;
	report::RunResult r;
	std::string err;
	EXPECT_EQ(run::run_sources(setup, {JobSource{"t.fio", text}}, &r, &err), run::Status::ok)
		<< err;
	return r;
}

// Mean completion latency of a job's IOs with (prio 1) or without the RT
// class, from its latency log.
double mean_lat(const report::JobResult &j, int prio, size_t *n)
{
	long double sum = 0;
	*n = 0;
	for (const auto &s : j.clat_log) {
		if (s.prio != prio)
			continue;
		sum += s.value;
		(*n)++;
	}
	return *n ? static_cast<double>(sum / static_cast<long double>(*n)) : 0;
}

const char kRandReaders[] = "[j]\nfilename=/dev/sda\nrw=randread\nbs=4k\nioengine=libaio\n"
			    "direct=1\niodepth=32\ntime_based\nruntime=4\nwrite_lat_log\n"
			    "cmdprio_percentage=50\n";

// mq-deadline serves the RT half of one job's random reads ahead of the
// rest: their mean latency is a fraction of the others'.  Under noop,
// which orders requests without regard to their priority, the two halves
// wait alike: the control.
TEST(CmdprioSched, MqDeadlineServesRtRequestsFirst)
{
	if (run::scheduler_list().find("mq-deadline") == std::string::npos)
		GTEST_SKIP() << "mq-deadline is not built (EFQ_LINUX_SCHEDULERS=OFF)";
	auto r = run_text("mq-deadline", kRandReaders);
	ASSERT_EQ(r.jobs.size(), 1u);
	size_t n_rt = 0, n_be = 0;
	const double rt = mean_lat(r.jobs[0], 1, &n_rt), be = mean_lat(r.jobs[0], 0, &n_be);
	EXPECT_GT(n_rt, 100u);
	EXPECT_GT(n_be, 100u);
	EXPECT_LT(rt, 0.5 * be) << "rt " << rt << " be " << be;

	auto c = run_text("noop", kRandReaders);
	const double crt = mean_lat(c.jobs[0], 1, &n_rt), cbe = mean_lat(c.jobs[0], 0, &n_be);
	EXPECT_NEAR(crt / cbe, 1.0, 0.2) << "rt " << crt << " be " << cbe;
}

// Under efq's cfq, two random readers: b plain best effort, a with half
// its reads RT.  a's queue turns RT whenever an RT read arrives, and an RT
// queue is served before any best-effort one: a gets clearly more of the
// disk.  The control: the same two jobs without cmdprio share it evenly.
TEST(CmdprioSched, CfqLiftsTheJobWithRtRequests)
{
	const std::string jobs = "[global]\nfilename=/dev/sda\nrw=randread\nbs=4k\n"
				 "ioengine=libaio\ndirect=1\niodepth=8\ntime_based\nruntime=4\n"
				 "[a]\ncmdprio_percentage=@PCT@\n[b]\n";
	auto ios = [&](const std::string &pct) {
		std::string text = jobs;
		text.replace(text.find("@PCT@"), 5, pct);
		auto r = run_text("cfq", text);
		EXPECT_EQ(r.jobs.size(), 2u);
		return std::make_pair(static_cast<double>(r.jobs[0].read.ios),
				      static_cast<double>(r.jobs[1].read.ios));
	};
	const auto [a, b] = ios("50");
	EXPECT_GT(a, 2.0 * b) << "a " << a << " b " << b;
	const auto [ca, cb] = ios("0");
	EXPECT_NEAR(ca / cb, 1.0, 0.2) << "a " << ca << " b " << cb;
}

} // namespace
} // namespace efqsim::workload

#endif
