// SPDX-License-Identifier: GPL-2.0
// Request accounting (add, merge, dispatch, requeue, completion, metadata,
// has_work, re-running the hardware queues) and interplays between rules
// (Documentation/block/io-controller.rst, "Charging", "Preemption" and "The
// contract").

#include "efq_harness.h"

using namespace efqt;

namespace {

class Requests : public EfqTest {};
class Interplay : public EfqTest {};

TEST_F(Requests, AddCountsPerQueueAndPerDevice)
{
	FakeQueue *a = NewQueue(Root()), *b = NewQueue(Root());
	AddN(a, 2);
	Add(b);
	EXPECT_EQ(a->ioq->nr_queued, 2u);
	EXPECT_EQ(b->ioq->nr_queued, 1u);
	EXPECT_EQ(efqd()->nr_queued, 3u);
	EXPECT_EQ(efqd()->busy_queues, 2u);
	EXPECT_TRUE(efq_has_work(efqd()));
}

TEST_F(Requests, DispatchMovesARequestToTheDriver)
{
	FakeQueue *a = NewQueue(Root());
	Add(a, 0, 24);
	Add(a);
	struct request *rq = Dispatch();
	ASSERT_NE(rq, nullptr);
	EXPECT_EQ(a->ioq->nr_queued, 1u);
	EXPECT_EQ(a->ioq->dispatched, 1u);
	EXPECT_EQ(efqd()->rq_in_driver, 1u);
	EXPECT_EQ(efqd()->nr_queued, 1u);
	EXPECT_EQ(a->ioq->nr_sectors, 24u);
}

TEST_F(Requests, RequeueGivesBackTheDispatchAccounting)
{
	FakeQueue *a = NewQueue(Root());
	Add(a, 0, 8);
	Add(a, 0, 16);
	ASSERT_EQ(Select(), a);
	struct request *rq = DispatchFrom(a);
	ASSERT_EQ(a->ioq->nr_sectors, 8u);
	// the driver gives it back; the scheduler inserts it again
	inflight_.erase(std::find(inflight_.begin(), inflight_.end(), rq));
	a->inflight--;
	Lock();
	efq_request_requeued(efqd(), a->ioq, rq);
	Unlock();
	EXPECT_EQ(a->ioq->dispatched, 0u);
	EXPECT_EQ(efqd()->rq_in_driver, 0u);
	EXPECT_EQ(a->ioq->nr_sectors, 0u);
	a->queued.push_front(rq);
	Lock();
	efq_request_add(efqd(), a->ioq, rq);
	Unlock();
	EXPECT_EQ(a->ioq->nr_queued, 2u);
	EXPECT_EQ(efqd()->nr_queued, 2u);
	EXPECT_EQ(CheckInvariants(), "");
}

TEST_F(Requests, MergedAwayRequestLeavesTheCounts)
{
	FakeQueue *a = NewQueue(Root());
	Add(a);
	Add(a, REQ_OP_READ | REQ_META);
	ASSERT_EQ(a->ioq->meta_pending, 1u);
	MergeAway(a); // the metadata request merged into the other one
	EXPECT_EQ(a->ioq->nr_queued, 1u);
	EXPECT_EQ(efqd()->nr_queued, 1u);
	EXPECT_EQ(a->ioq->meta_pending, 0u);
}

TEST_F(Requests, MetaPendingCountsQueuedMetadataRequestsOnly)
{
	FakeQueue *a = NewQueue(Root());
	Add(a, REQ_OP_READ | REQ_META);
	Add(a);
	Add(a, REQ_OP_WRITE | REQ_META);
	EXPECT_EQ(a->ioq->meta_pending, 2u);
	ASSERT_EQ(Select(), a);
	DispatchFrom(a);
	EXPECT_EQ(a->ioq->meta_pending, 1u);
	DispatchFrom(a);
	DispatchFrom(a);
	EXPECT_EQ(a->ioq->meta_pending, 0u);
}

TEST_F(Requests, HasWorkIsFalseWithNothingQueued)
{
	EXPECT_FALSE(efq_has_work(efqd()));
	FakeQueue *a = NewQueue(Root());
	Add(a);
	EXPECT_TRUE(efq_has_work(efqd()));
	struct request *rq = Dispatch();
	EXPECT_FALSE(efq_has_work(efqd())); // in flight is not "work"
	Complete(rq);
	EXPECT_FALSE(efq_has_work(efqd()));
	EXPECT_EQ(Select(), nullptr);
}

// blk-mq stops asking for requests when has_work turns false and never
// asks again on its own: a completion that ends a hold must run the
// hardware queues.  One that ends none must not: while has_work stays
// true blk-mq has a run coming anyway (it dispatches until has_work is
// false; a driver out of tags or budget schedules the next run), and a
// run per completion is a kblockd work item per request.
TEST_F(Requests, CompletionRerunsTheHardwareQueuesOnlyWhenItEndsAHold)
{
	efqd()->fairness = 1; // a switch waits for the old queue's requests
	FakeQueue *a = NewQueue(Root()), *b = NewQueue(Root());
	AddN(a, 4);
	Add(b);
	ASSERT_EQ(Select(), a);
	Complete(DispatchFrom(a));
	struct request *r2 = DispatchFrom(a), *r3 = DispatchFrom(a);
	Advance(100 * kMs);	      // a's slice is used up
	EXPECT_EQ(Select(), nullptr); // blk-mq asks: the drain holds
	ASSERT_TRUE(efqd()->hold);
	unsigned long runs = queue()->sim_run_count;
	Complete(r2); // r3 still in flight: the hold stays
	EXPECT_TRUE(efqd()->hold);
	EXPECT_EQ(queue()->sim_run_count, runs);
	Complete(r3); // drained: the hold ends, nothing else would ask
	EXPECT_FALSE(efqd()->hold);
	EXPECT_EQ(queue()->sim_run_count, runs + 1);
	struct request *rq = Dispatch(); // b
	ASSERT_NE(rq, nullptr);
	Add(b);
	ASSERT_FALSE(efqd()->hold);
	runs = queue()->sim_run_count;
	Complete(rq); // work queued, no hold before or after: no run
	EXPECT_FALSE(efqd()->hold);
	EXPECT_TRUE(efq_has_work(efqd()));
	EXPECT_EQ(queue()->sim_run_count, runs);
}

// A scheduler's own event (efq_schedule_dispatch) runs the hardware
// queues when it ends a hold, its own (efq_hold_dispatch) or the
// engine's, and not otherwise.
TEST_F(Requests, ScheduleDispatchRunsOnlyWhenItEndsAHold)
{
	unsigned long runs = queue()->sim_run_count;
	Lock();
	efq_schedule_dispatch(efqd());
	Unlock();
	EXPECT_EQ(queue()->sim_run_count, runs);
	FakeQueue *a = NewQueue(Root());
	Add(a);
	runs = queue()->sim_run_count;
	Lock();
	efq_schedule_dispatch(efqd()); // has_work was true all along
	Unlock();
	EXPECT_EQ(queue()->sim_run_count, runs);
	Lock();
	efq_hold_dispatch(efqd());
	efq_schedule_dispatch(efqd());
	Unlock();
	EXPECT_FALSE(efqd()->hold);
	EXPECT_EQ(queue()->sim_run_count, runs + 1);
}

TEST_F(Requests, HoldDispatchIsEndedByTheNextRequest)
{
	FakeQueue *a = NewQueue(Root());
	Add(a);
	Lock();
	efq_hold_dispatch(efqd());
	Unlock();
	EXPECT_FALSE(efq_has_work(efqd()));
	Add(a);
	EXPECT_TRUE(efq_has_work(efqd()));
}

// ---------------------------------------------------------------------------
// Interplay
// ---------------------------------------------------------------------------

TEST_F(Interplay, RtRequestPreemptsAGroupWaitingBusy)
{
	struct efq_group *g = GroupOf(Cgroup("a"));
	FakeQueue *q = NewQueue(g), *r = NewQueue(Root(), true, 4, IOPRIO_CLASS_RT);
	AddN(q, 2);
	ASSERT_EQ(Select(), q);
	Complete(DispatchFrom(q));
	struct request *rq = DispatchFrom(q);
	Advance(100 * kMs);
	Complete(rq);
	ASSERT_TRUE(efq_group_wait_busy(g));
	Add(r);
	EXPECT_EQ(efqd()->nr_preempted, 1u);
	EXPECT_FALSE(efq_group_wait_busy(g));
	EXPECT_EQ(sim_clock_pending(), 0u);
	EXPECT_EQ(Select(), r);
}

TEST_F(Interplay, CgroupRemovedWhileItsQueueIsInService)
{
	efqd()->fairness = 1;
	efqd()->group_idle = 0;
	struct blkcg *cg = Cgroup("a");
	struct efq_group *g = GroupOf(cg);
	FakeQueue *q = NewQueue(g), *r = NewQueue(Root());
	AddN(q, 2);
	AddN(r, 2);
	ASSERT_EQ(Select(), q);
	DestroyCgroup(cg);
	Complete(DispatchFrom(q));
	Advance(10 * kMs);
	Complete(Dispatch()); // still q: the dead group keeps its turn
	EXPECT_EQ(hooks.active_set, 1);
	EXPECT_EQ(Select(), r); // q empty: g leaves, ahead of min, not cached
	EXPECT_FALSE(g->entity.on_st);
	EXPECT_FALSE(g->entity.on_idle_st);
	Release(q);
	EXPECT_TRUE(q->freed);
}

TEST_F(Interplay, RequestOfAnotherQueueOfAWaitBusyGroupEndsTheWait)
{
	struct efq_group *g = GroupOf(Cgroup("a"));
	FakeQueue *q = NewQueue(g), *q2 = NewQueue(g), *r = NewQueue(Root());
	AddN(q, 2);
	Add(r);
	ASSERT_EQ(Select(), q);
	Complete(DispatchFrom(q));
	struct request *rq = DispatchFrom(q);
	Advance(100 * kMs);
	Complete(rq);
	ASSERT_TRUE(efq_group_wait_busy(g));
	Add(q2); // the group got busy again, through another queue
	EXPECT_FALSE(efq_group_wait_busy(g));
	EXPECT_TRUE(efq_group_wait_busy_done(g));
	EXPECT_EQ(efqd()->nr_preempted, 0u); // no preemption check on this path
	EXPECT_EQ(Select(), r);		     // q expired (slice used), g still backlogged
	EXPECT_TRUE(g->entity.on_st);
	EXPECT_EQ(Expired(EFQ_EXPIRE_SLICE_USED), 1u);
}

TEST_F(Interplay, QueueIdleFeatureGivesSingleQueuesAnIdleWindow)
{
	Options o;
	o.features = EFQ_FEAT_SINGLE_QUEUE | EFQ_FEAT_QUEUE_IDLE;
	o.group_idle = 0;
	Reinit(o);
	struct efq_group *g = GroupOf(Cgroup("a"));
	FakeQueue *gq = SingleQueue(g), *rq0 = SingleQueue(Root());
	EXPECT_TRUE(efq_queue_idle_window(gq->ioq));
	EXPECT_TRUE(efq_queue_idle_window(rq0->ioq));
	AddN(gq, 2);
	Add(rq0);
	ASSERT_EQ(Select(), gq);
	Complete(DispatchFrom(gq));
	struct request *rq = DispatchFrom(gq);
	Advance(100 * kMs);
	Complete(rq); // slice used, empty, idle window: queue wait-busy
	EXPECT_TRUE(efq_group_wait_busy(g));
}

TEST_F(Interplay, SingleQueueWithoutQueueIdleFeatureHasNoIdleWindow)
{
	Options o;
	o.features = EFQ_FEAT_SINGLE_QUEUE;
	Reinit(o);
	FakeQueue *rq0 = SingleQueue(Root());
	EXPECT_FALSE(efq_queue_idle_window(rq0->ioq));
}

TEST_F(Interplay, FlatModeMakesCgroupsShareTheRootTreeByQueueWeight)
{
	Options o;
	o.hierarchical = false;
	Reinit(o);
	struct efq_group *g1 = GroupOf(Cgroup("a", nullptr, 1000));
	struct efq_group *g2 = GroupOf(Cgroup("b", nullptr, 100));
	ASSERT_EQ(g1, Root());
	ASSERT_EQ(g2, Root());
	FakeQueue *a = NewQueue(g1), *b = NewQueue(g2);
	AddN(a, 3);
	AddN(b, 3);
	RunSlice(a, 100 * kMs);
	RunSlice(b, 100 * kMs);
	// group weights play no part: both queues paid one virtual slice
	EXPECT_EQ(a->ioq->entity.vdisktime, b->ioq->entity.vdisktime);
}

} // namespace

namespace {

// The decaying means of cfq and as (think time, seek distance): each sample
// weighs 1/8 and the mean before it 7/8, counts scaled by 256, and the mean
// rounded as V10's anticipatory scheduler did, (total + 128) / samples.
// Written out here independently of efq_decay_add() for 40 samples of
// mixed sizes; the first sample of 0 gives a mean of 4 (128 / 32), which
// as compares against seek distances of a few sectors.
TEST(Decay, MatchesTheSchedulersFormerMeansSampleBySample)
{
	const u64 values[] = {0,    0,	      8,  1000, 3,	 250000, 7,  7,	   7,	 1 << 20,
			      16,   16,	      16, 16,	999999,	 0,	 1,  2,	   3,	 4,
			      5000, 5000,     0,  0,	1 << 30, 12,	 12, 4096, 4096, 4096,
			      77,   1u << 31, 5,  5,	5,	 5,	 0,  100,  100,	 100};
	struct efq_decay d = {};
	u64 samples = 0, total = 0;

	for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
		samples = (7 * samples + 256) / 8;
		total = (7 * total + 256 * values[i]) / 8;
		efq_decay_add(&d, values[i]);
		ASSERT_EQ(d.samples, samples) << "sample " << i;
		ASSERT_EQ(d.total, total) << "sample " << i;
		ASSERT_EQ(d.mean, (total + 128) / samples) << "sample " << i;
	}
	struct efq_decay first = {};
	efq_decay_add(&first, 0);
	EXPECT_EQ(first.samples, 32u);
	EXPECT_EQ(first.mean, 4u);
}

// A request holds one reference on its queue: queueing it a second time
// without clearing it first would leak the first, and is reported.
TEST_F(Requests, QueueingARequestTwiceWarns)
{
	FakeQueue *a = NewQueue(Root());
	struct request *rq = NewRequest(REQ_OP_READ, nullptr);
	unsigned ref = refcount_read(&a->ioq->ref);

	efq_rq_prepare(rq);
	Lock();
	efq_rq_set_queue(rq, a->ioq);
	EXPECT_EQ(sim_warn_count(), 0u);
	EXPECT_TRUE(efq_rq_queue(rq) == a->ioq);
	EXPECT_FALSE(efq_rq_was_dispatched(rq));
	efq_rq_set_queue(rq, a->ioq);
	EXPECT_EQ(sim_warn_count(), 1u);
	sim_warn_reset();
	// the leaked second reference, given back by hand
	efq_put_queue(a->ioq);
	efq_rq_clear_queue(rq);
	Unlock();
	EXPECT_EQ(refcount_read(&a->ioq->ref), ref);
	EXPECT_TRUE(efq_rq_queue(rq) == nullptr);
	FreeRequest(rq);
}

} // namespace
