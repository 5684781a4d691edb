// SPDX-License-Identifier: GPL-2.0
// Randomized invariant test: thousands of random operations (request add,
// merge, requeue, select/dispatch, completion, expiry, clock advances with
// timers, queue prio/class changes, cgroup weight/class/rule changes,
// cgroup creation and removal, task exits, tunable changes) on random 1-3
// level hierarchies, with random answers from the scheduler hooks.  After
// EVERY operation:
//
//  - each entity is on at most one tree: active xor idle xor in service,
//    with on_st/on_idle_st agreeing, st/parent/class consistent;
//  - st->nr_active and sd->nr_active equal what a walk of the trees plus
//    the in-service entity counts; sd->nr_sync equals the sync non-idle
//    queues counted; active trees are ordered, leftmost caches are right;
//  - idle trees are ordered and hold nothing the clock has passed, and no
//    exiting entity;
//  - busy_queues equals the backlogged queues found on the trees and the
//    queues with the busy flag; nr_queued and rq_in_driver agree with the
//    requests the fake scheduler holds;
//  - the active queue's path is in service at every level;
//  - every service tree's min_vdisktime never goes back (wrap-safe);
//  - efq_has_work() is exactly "requests queued and not holding";
//  - whenever a queue is activated, every level of its path was the
//    leftmost of the highest non-empty class (checked inside the
//    active_queue_set hook).
//
// At teardown everything must be freed (SimTest checks the slab live
// count) with no WARN or lock error, under ASan/UBSan.

#include "efq_harness.h"

using namespace efqt;

namespace {

class RandomizedInvariants : public EfqTest, public ::testing::WithParamInterface<unsigned> {
protected:
	struct Cg {
		struct blkcg *cg = nullptr;
		Cg *parent = nullptr;
		int depth = 0;
		bool alive = true;
		bool blkg_held = false;
		struct efq_group *group = nullptr; // while alive and blkg held
	};

	std::mt19937_64 rng;
	std::vector<std::unique_ptr<Cg>> cgs;
	std::map<std::pair<struct efq_group *, int>, FakeQueue *> sync_queues;
	std::map<const struct efq_service_tree *, u64> last_min;
	std::string hook_error;
	int names = 0;

	unsigned R(unsigned n) { return (unsigned)(rng() % n); }
	bool P(unsigned percent) { return R(100) < percent; }

	void InstallHooks()
	{
		on_active_set = [this](FakeQueue *) {
			std::string e = CheckActivePath();
			if (!e.empty() && hook_error.empty())
				hook_error = "activation: " + e;
		};
		arm_fn = [this](FakeQueue *) {
			if (P(50))
				efq_arm_idle_timer(efqd(), (1 + R(8)) * kMs);
		};
		preempt_fn = [this](FakeQueue *) { return P(8); };
		may_expire_fn = [this](FakeQueue *, bool, bool) { return !P(20); };
		coop_fn = [this](FakeQueue *) -> struct efq_queue *
		{
			if (!P(10))
				return nullptr;
			std::vector<FakeQueue *> busy;
			for (auto &fq : queues_)
				if (!fq->freed && efq_queue_busy(fq->ioq))
					busy.push_back(fq.get());
			return busy.empty() ? nullptr : busy[R(busy.size())]->ioq;
		};
	}

	// ---- operations ----

	Cg *RandomLiveCg()
	{
		std::vector<Cg *> live;
		for (auto &c : cgs)
			if (c->alive)
				live.push_back(c.get());
		return live.empty() ? nullptr : live[R(live.size())];
	}

	struct efq_group *TargetGroup(Cg **which)
	{
		*which = nullptr;
		if (P(25))
			return Root();
		Cg *c = RandomLiveCg();
		if (!c)
			return Root();
		*which = c;
		struct efq_group *g = GroupOf(c->cg);
		c->blkg_held = true;
		if (efqd()->hierarchical) {
			c->group = g;
			Track(g);
		}
		return g;
	}

	void Track(struct efq_group *g)
	{
		for (int i = 0; i < EFQ_NR_CLASSES; i++) {
			const struct efq_service_tree *st = &g->sched_data.service_tree[i];
			if (!last_min.count(st))
				last_min[st] = st->min_vdisktime;
		}
	}

	void Untrack(struct efq_group *g)
	{
		for (int i = 0; i < EFQ_NR_CLASSES; i++)
			last_min.erase(&g->sched_data.service_tree[i]);
	}

	bool Single() { return opts_.features & EFQ_FEAT_SINGLE_QUEUE; }

	void OpAdd()
	{
		Cg *c;
		struct efq_group *g = TargetGroup(&c);
		FakeQueue *fq;
		if (Single()) {
			fq = SingleQueue(g);
		} else if (P(70)) {
			int slot = (int)R(3);
			auto key = std::make_pair(g, slot);
			auto it = sync_queues.find(key);
			if (it == sync_queues.end()) {
				unsigned cls =
					P(80) ? IOPRIO_CLASS_BE
					      : (P(50) ? IOPRIO_CLASS_RT : IOPRIO_CLASS_IDLE);
				fq = NewQueue(g, true, R(8), cls);
				sync_queues[key] = fq;
			} else {
				fq = it->second;
			}
		} else {
			unsigned cls = P(85) ? IOPRIO_CLASS_BE
					     : (P(50) ? IOPRIO_CLASS_RT : IOPRIO_CLASS_IDLE);
			fq = AsyncQueue(g, cls, R(8));
		}
		blk_opf_t flags;
		if (fq->sync) {
			switch (R(4)) {
			case 0:
				flags = REQ_OP_WRITE | REQ_SYNC;
				break;
			case 1:
				flags = REQ_OP_WRITE | REQ_SYNC | REQ_IDLE;
				break;
			default:
				flags = REQ_OP_READ;
			}
		} else {
			flags = REQ_OP_WRITE;
		}
		if (P(5))
			flags |= REQ_META;
		int n = P(30) ? 1 + (int)R(4) : 1;
		for (int i = 0; i < n; i++)
			Add(fq, flags, 8 * (1 + R(16)));
	}

	// A request merged into one of its own queue, or into another queue's
	// (the block core's insert merges cross queues), then possibly its
	// queue's last.
	void OpMerge()
	{
		std::vector<FakeQueue *> v;
		for (auto &fq : queues_)
			if (!fq->freed && !fq->queued.empty())
				v.push_back(fq.get());
		if (v.empty())
			return;
		FakeQueue *fq = v[R(v.size())];
		MergeAway(fq, fq->queued.size() < 2 || P(30));
	}

	void OpDispatch()
	{
		int n = 1 + (int)R(3);
		for (int i = 0; i < n; i++)
			if (!Dispatch(P(5)))
				break;
	}

	void OpComplete()
	{
		if (inflight_.empty())
			return;
		if (P(70))
			Advance(R(3000) * kUs);
		Complete(inflight_[R(inflight_.size())]);
	}

	void OpRequeue()
	{
		if (inflight_.empty())
			return;
		size_t i = R(inflight_.size());
		struct request *rq = inflight_[i];
		FakeQueue *fq = static_cast<FakeQueue *>(rq->elv.priv[0]);
		inflight_.erase(inflight_.begin() + (long)i);
		fq->inflight--;
		Lock();
		efq_request_requeued(efqd(), fq->ioq, rq);
		Unlock();
		fq->queued.push_front(rq);
		Lock();
		efq_request_add(efqd(), fq->ioq, rq); // keeps its queue reference
		Unlock();
	}

	void OpAdvance()
	{
		u64 ns = P(30) ? (50 + R(150)) * kMs : R(20000) * kUs;
		Advance(ns);
	}

	void OpExpire()
	{
		// the scheduler ends the slice (e.g. its own quantum or cic exit)
		Expire(P(50) ? EFQ_EXPIRE_SCHED : EFQ_EXPIRE_FORCED);
	}

	void OpQueuePrio()
	{
		std::vector<FakeQueue *> v;
		for (auto &fq : queues_)
			if (!fq->freed)
				v.push_back(fq.get());
		if (v.empty())
			return;
		FakeQueue *fq = v[R(v.size())];
		if (P(60))
			EXPECT_EQ(efq_queue_set_ioprio(fq->ioq, R(8)), 0);
		else
			EXPECT_EQ(efq_queue_set_ioprio_class(fq->ioq, 1 + R(3)), 0);
	}

	void OpCgroupSetting()
	{
		Cg *c = RandomLiveCg();
		if (!c)
			return;
		switch (R(4)) {
		case 0:
		case 1:
			EXPECT_EQ(efq_cgroup_set_weight(c->cg, 100 + R(901)), 0);
			break;
		case 2:
			EXPECT_EQ(efq_cgroup_set_ioprio_class(c->cg, P(70) ? 2 : 1 + R(3)), 0);
			break;
		default:
			EXPECT_EQ(efq_cgroup_set_dev_policy(c->cg, MKDEV(8, 0),
							    P(30) ? 0 : 100 + R(901), 1 + R(3)),
				  0);
		}
	}

	void OpCreate()
	{
		std::vector<Cg *> parents = {nullptr};
		int alive = 0;
		for (auto &c : cgs) {
			if (c->alive && c->depth < 3)
				parents.push_back(c.get());
			alive += c->alive;
		}
		if (alive >= 10)
			return;
		Cg *parent = parents[R(parents.size())];
		auto c = std::make_unique<Cg>();
		std::string name = "cg" + std::to_string(names++);
		c->cg = Cgroup(name.c_str(), parent ? parent->cg : nullptr, 100 + R(901),
			       P(80) ? (unsigned)IOPRIO_CLASS_BE : 1 + R(3));
		ASSERT_NE(c->cg, nullptr);
		c->parent = parent;
		c->depth = parent ? parent->depth + 1 : 1;
		cgs.push_back(std::move(c));
	}

	void OpDestroy()
	{
		std::vector<Cg *> leaves;
		for (auto &c : cgs) {
			if (!c->alive)
				continue;
			bool has_child = false;
			for (auto &d : cgs)
				if (d->alive && d->parent == c.get())
					has_child = true;
			if (!has_child)
				leaves.push_back(c.get());
		}
		if (leaves.empty())
			return;
		Cg *c = leaves[R(leaves.size())];
		// its tasks move away: their sync queues are released
		if (c->group) {
			for (auto it : SyncQueuesById(c->group)) {
				Release(it->second);
				sync_queues.erase(it);
			}
		}
		DestroyCgroup(c->cg);
		c->alive = false;
	}

	void OpDropBlkg()
	{
		// the last late-writeback bio of a removed cgroup completes
		std::vector<Cg *> v;
		for (auto &c : cgs)
			if (!c->alive && c->blkg_held)
				v.push_back(c.get());
		if (v.empty())
			return;
		Cg *c = v[R(v.size())];
		if (c->group)
			Untrack(c->group);
		c->group = nullptr;
		c->blkg_held = false;
		DropBlkg(c->cg);
		sim_quiesce();
	}

	// Sync queues in creation order (the map is ordered by address, which
	// would make the run depend on the allocator).
	std::vector<std::map<std::pair<struct efq_group *, int>, FakeQueue *>::iterator>
	SyncQueuesById(struct efq_group *only = nullptr)
	{
		std::vector<decltype(sync_queues)::iterator> v;
		for (auto it = sync_queues.begin(); it != sync_queues.end(); ++it)
			if (!only || it->first.first == only)
				v.push_back(it);
		std::sort(v.begin(), v.end(),
			  [](auto &a, auto &b) { return a->second->id < b->second->id; });
		return v;
	}

	void OpTaskExit()
	{
		auto v = SyncQueuesById();
		if (v.empty())
			return;
		auto it = v[R(v.size())];
		Release(it->second);
		sync_queues.erase(it);
	}

	void OpTunable()
	{
		switch (R(3)) {
		case 0:
			efqd()->fairness = R(2);
			break;
		case 1:
			efqd()->group_idle = P(70) ? EFQ_GROUP_IDLE_NS : R(2) * 3 * kMs;
			break;
		default:
			// only possible while nothing is queued; mostly hierarchical
			if (efqd()->hierarchical && !P(30))
				return;
			Lock();
			int ret = efq_set_hierarchical(efqd(), !efqd()->hierarchical);
			Unlock();
			EXPECT_TRUE(ret == 0 || ret == -EBUSY);
		}
	}

	// ---- checks ----

	std::string CheckMinMonotonic()
	{
		std::ostringstream err;
		for (auto &[st, last] : last_min) {
			if ((s64)(st->min_vdisktime - last) < 0)
				err << "min_vdisktime of tree " << st << " went back from " << last
				    << " to " << st->min_vdisktime << "; ";
			last = st->min_vdisktime;
		}
		return err.str();
	}

	std::string CheckAll()
	{
		std::string e = CheckInvariants();
		e += CheckMinMonotonic();
		e += hook_error;
		bool expect_work = efqd()->nr_queued && !efqd()->hold;
		if (efq_has_work(efqd()) != expect_work)
			e += "efq_has_work() disagrees with nr_queued/hold; ";
		return e;
	}

	void Run();
};

class RandomizedInvariantsSingleQueue : public RandomizedInvariants {
protected:
	void SetUp() override
	{
		opts_.features = EFQ_FEAT_SINGLE_QUEUE | EFQ_FEAT_QUEUE_IDLE;
		RandomizedInvariants::SetUp();
	}
};

TEST_P(RandomizedInvariants, HoldAfterEveryOperation)
{
	Run();
}

TEST_P(RandomizedInvariantsSingleQueue, HoldAfterEveryOperation)
{
	Run();
}

void RandomizedInvariants::Run()
{
	const unsigned seed = GetParam();
	const int steps = 10000;
	rng.seed(seed);
	InstallHooks();
	Track(Root());

	static const char *const op_names[] = {
		"add",		 "merge",	   "dispatch",
		"complete",	 "requeue",	   "advance",
		"expire",	 "queue-prio",	   "cgroup-setting",
		"cgroup-create", "cgroup-destroy", "drop-blkg",
		"task-exit",	 "tunable",
	};
	// weights of the operations above
	static const unsigned weights[] = {30, 2, 24, 20, 2, 10, 2, 3, 3, 1, 1, 1, 1, 1};
	static_assert(sizeof(weights) / sizeof(weights[0]) ==
		      sizeof(op_names) / sizeof(op_names[0]));
	unsigned total = 0;
	for (unsigned w : weights)
		total += w;

	std::map<std::string, int> counts;
	for (int step = 0; step < steps; step++) {
		unsigned x = R(total), op = 0;
		while (x >= weights[op])
			x -= weights[op++];
		counts[op_names[op]]++;
		switch (op) {
		case 0:
			OpAdd();
			break;
		case 1:
			OpMerge();
			break;
		case 2:
			OpDispatch();
			break;
		case 3:
			OpComplete();
			break;
		case 4:
			OpRequeue();
			break;
		case 5:
			OpAdvance();
			break;
		case 6:
			OpExpire();
			break;
		case 7:
			OpQueuePrio();
			break;
		case 8:
			OpCgroupSetting();
			break;
		case 9:
			OpCreate();
			break;
		case 10:
			OpDestroy();
			break;
		case 11:
			OpDropBlkg();
			break;
		case 12:
			OpTaskExit();
			break;
		default:
			OpTunable();
		}
		std::string e = CheckAll();
		ASSERT_EQ(e, "") << "seed " << seed << ", step " << step << " (" << op_names[op]
				 << ")";
		ASSERT_EQ(sim_warn_count(), 0u) << "seed " << seed << ", step " << step << " ("
						<< op_names[op] << "): " << sim_warn_last();
	}

	// the run must have exercised the engine
	unsigned long expired = TotalExpired();
	if (!getenv("EFQ_SOAK_SEEDS")) {
		EXPECT_GT(expired, 100u);
		if (!Single()) {
			EXPECT_GT(efqd()->nr_preempted, 0u);
		}
		EXPECT_GT(Expired(EFQ_EXPIRE_IDLE_TIMEOUT) + Expired(EFQ_EXPIRE_WAIT_BUSY_TIMEOUT),
			  0u);
	}
	std::ostringstream summary;
	summary << "seed " << seed << ": " << expired << " expiries (";
	for (int i = 0; i < EFQ_EXPIRE_NR; i++)
		summary << ReasonName(i) << "=" << efqd()->nr_expired[i] << " ";
	summary << "), " << efqd()->nr_preempted << " preemptions, " << hooks.active_set
		<< " activations, " << queues_.size() << " queues, " << cgs.size() << " cgroups";
	RecordProperty("summary", summary.str());
	std::printf("%s\n", summary.str().c_str());

	// drain, then everything must go (checked by the fixture's teardown)
	InstallHooks();
	may_expire_fn = nullptr;
	arm_fn = nullptr;
	preempt_fn = nullptr;
	coop_fn = nullptr;
	on_active_set = nullptr;
	Drain();
	std::string e = CheckAll();
	EXPECT_EQ(e, "") << "after drain";
}

// The checker itself: a corrupted count must be reported.
class InvariantChecker : public EfqTest {};

TEST_F(InvariantChecker, ReportsCorruptedCounts)
{
	struct efq_group *g = GroupOf(Cgroup("a"));
	FakeQueue *q = NewQueue(g), *r = NewQueue(Root());
	AddN(q, 2);
	Add(r);
	ASSERT_EQ(Select(), q);
	ASSERT_EQ(CheckInvariants(), "");
	unsigned *fields[] = {&St(g, IOPRIO_CLASS_BE)->nr_active,
			      &g->sched_data.nr_active,
			      &g->sched_data.nr_sync,
			      &Root()->sched_data.nr_active,
			      &efqd()->busy_queues,
			      &efqd()->nr_queued,
			      &efqd()->rq_in_driver};
	for (unsigned *f : fields) {
		(*f)++;
		EXPECT_NE(CheckInvariants(), "");
		(*f)--;
	}
	u64 vt = r->ioq->entity.vdisktime;
	r->ioq->entity.on_idle_st = true;
	EXPECT_NE(CheckInvariants(), "");
	r->ioq->entity.on_idle_st = false;
	// an activation that skipped a smaller vdisktime is reported
	r->ioq->entity.vdisktime = vt;
	q->ioq->entity.vdisktime = r->ioq->entity.vdisktime + 1;
	g->entity.vdisktime = r->ioq->entity.vdisktime + 1;
	EXPECT_NE(CheckActivePath(), "");
	g->entity.vdisktime = 0;
	q->ioq->entity.vdisktime = 0;
	EXPECT_EQ(CheckActivePath(), "");
	EXPECT_EQ(CheckInvariants(), "");
}

// Six fixed seeds; EFQ_SOAK_SEEDS=N runs seeds 1..N instead (a soak run,
// not part of the suite).
std::vector<unsigned> Seeds()
{
	unsigned n = 6;
	if (const char *env = getenv("EFQ_SOAK_SEEDS"))
		n = (unsigned)atoi(env);
	std::vector<unsigned> v;
	for (unsigned i = 1; i <= n; i++)
		v.push_back(i);
	return v;
}

INSTANTIATE_TEST_SUITE_P(Seeds, RandomizedInvariants, ::testing::ValuesIn(Seeds()));
INSTANTIATE_TEST_SUITE_P(Seeds, RandomizedInvariantsSingleQueue, ::testing::ValuesIn(Seeds()));

} // namespace
