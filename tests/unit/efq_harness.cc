// SPDX-License-Identifier: GPL-2.0
// The fake scheduler and the fixture of the efq unit tests (efq_harness.h).

#include "efq_harness.h"

#include "../common/tree_walk.h"

namespace efqt {

void EnsureModules()
{
	static int ret = sim_modules_init();
	ASSERT_EQ(ret, 0) << "module_init failed";
}

const char *ReasonName(int reason)
{
	static const char *const names[] = {
		"SLICE_USED",	     "IDLE_CLASS", "COMPLETION",  "EMPTY",
		"COOPERATOR",	     "FORCED",	   "PREEMPTED",	  "IDLE_TIMEOUT",
		"WAIT_BUSY_TIMEOUT", "LAST_EMPTY", "MUST_EXPIRE", "SCHED",
	};
	static_assert(sizeof(names) / sizeof(names[0]) == EFQ_EXPIRE_NR);
	return reason >= 0 && reason < EFQ_EXPIRE_NR ? names[reason] : "?";
}

// ---------------------------------------------------------------------------
// The fake scheduler's hooks.
// ---------------------------------------------------------------------------

struct HarnessOps {
	static EfqTest *T(struct efq_data *efqd)
	{
		return static_cast<EfqTest *>(efqd->sched_data);
	}
	static FakeQueue *Q(void *sq) { return static_cast<FakeQueue *>(sq); }

	static void *alloc_sched_queue(struct efq_data *efqd, struct efq_queue *ioq, gfp_t /*gfp*/)
	{
		EfqTest *t = T(efqd);
		if (t->fail_alloc_sched_queue)
			return nullptr;
		auto fq = std::make_unique<FakeQueue>();
		fq->id = t->next_id_++;
		fq->t = t;
		fq->ioq = ioq;
		fq->sync = true;
		fq->single = true;
		t->queues_.push_back(std::move(fq));
		return t->queues_.back().get();
	}

	static void free_sched_queue(struct efq_data *efqd, void *sq)
	{
		FakeQueue *fq = Q(sq);
		EXPECT_FALSE(fq->freed) << "queue " << fq->id << " freed twice";
		EXPECT_TRUE(fq->queued.empty()) << "queue " << fq->id << " freed with requests";
		EXPECT_EQ(fq->inflight, 0u)
			<< "queue " << fq->id << " freed with requests in flight";
		fq->freed = true;
		fq->ioq = nullptr;
		T(efqd)->hooks.freed++;
	}

	static void active_queue_set(struct efq_data *efqd, void *sq, bool coop)
	{
		EfqTest *t = T(efqd);
		t->hooks.active_set++;
		t->hooks.last_active = Q(sq);
		t->hooks.last_coop = coop;
		t->hooks.activations.push_back(Q(sq));
		if (t->on_active_set)
			t->on_active_set(Q(sq));
	}

	static void active_queue_reset(struct efq_data *efqd, void * /*sq*/)
	{
		T(efqd)->hooks.active_reset++;
	}

	static void arm_slice_timer(struct efq_data *efqd, void *sq)
	{
		EfqTest *t = T(efqd);
		t->hooks.arm_slice_timer++;
		if (t->arm_fn) {
			t->arm_fn(Q(sq));
			return;
		}
		if (t->idle_ns)
			efq_arm_idle_timer(efqd, t->idle_ns);
	}

	static bool should_preempt(struct efq_data *efqd, void *new_sq, struct request * /*rq*/)
	{
		EfqTest *t = T(efqd);
		t->hooks.should_preempt++;
		if (t->preempt_fn)
			return t->preempt_fn(Q(new_sq));
		return t->preempt_answer;
	}

	static struct efq_queue *close_cooperator(struct efq_data *efqd, void *cur_sq)
	{
		EfqTest *t = T(efqd);
		t->hooks.close_cooperator++;
		if (t->coop_fn)
			return t->coop_fn(Q(cur_sq));
		return t->coop_answer ? t->coop_answer->ioq : nullptr;
	}

	static bool may_expire(struct efq_data *efqd, void *sq, bool slice_expired, bool force)
	{
		EfqTest *t = T(efqd);
		t->hooks.may_expire++;
		t->hooks.last_may_expire_force = force;
		t->hooks.last_may_expire_slice_expired = slice_expired;
		if (t->may_expire_fn)
			return t->may_expire_fn(Q(sq), slice_expired, force);
		if (!t->may_expire_script.empty()) {
			bool ok = t->may_expire_script.front();
			t->may_expire_script.pop_front();
			return ok;
		}
		return true;
	}
};

// ---------------------------------------------------------------------------
// Fixture.
// ---------------------------------------------------------------------------

void EfqTest::SetUp()
{
	EnsureModules();
	SimTest::SetUp();
	InitDevice();
}

void EfqTest::Reinit(const Options &o)
{
	ExitDevice();
	opts_ = o;
	InitDevice();
}

// The elevator type the harness's elevator_queue names, as the kernel's
// elevator_alloc() sets it: an efq scheduler's, whose limit_depth is the
// engine's (efq_debugfs_state_show() checks it).
static struct elevator_type *HarnessType()
{
	static struct elevator_type type {
	};

	type.ops.limit_depth = efq_limit_depth;
	return &type;
}

void EfqTest::InitDevice()
{
	q_ = std::make_unique<struct request_queue>();
	disk_ = std::make_unique<struct gendisk>();
	eq_ = std::make_unique<struct elevator_queue>();
	eq_->type = HarnessType();
	disk_->major = 8;
	disk_->first_minor = 0;
	disk_->minors = 16;
	snprintf(disk_->disk_name, sizeof(disk_->disk_name), "sda");
	q_->node = -1;
	q_->nr_hw_queues = 0;
	ASSERT_EQ(sim_queue_init(q_.get(), disk_.get()), 0);

	ops_ = {};
	ops_.features = opts_.features;
	ops_.free_sched_queue = HarnessOps::free_sched_queue;
	if (opts_.alloc_sched_queue || (opts_.features & EFQ_FEAT_SINGLE_QUEUE))
		ops_.alloc_sched_queue = HarnessOps::alloc_sched_queue;
	ops_.active_queue_set = HarnessOps::active_queue_set;
	ops_.active_queue_reset = HarnessOps::active_queue_reset;
	ops_.arm_slice_timer = HarnessOps::arm_slice_timer;
	ops_.should_preempt = HarnessOps::should_preempt;
	ops_.close_cooperator = HarnessOps::close_cooperator;
	ops_.may_expire = HarnessOps::may_expire;

	struct efq_data *efqd = efq_data_init(q_.get(), eq_.get(), &ops_, this);
	ASSERT_FALSE(IS_ERR_OR_NULL(efqd)) << "efq_data_init failed";
	efqd_ = efqd;
	// what the elevator core does after init_sched
	q_->elevator = eq_.get();
	efqd_->fairness = opts_.fairness;
	efqd_->group_idle = opts_.group_idle;
	if (!opts_.hierarchical) {
		Lock();
		EXPECT_EQ(efq_set_hierarchical(efqd_, false), 0);
		Unlock();
	}
}

void EfqTest::ExitDevice()
{
	if (efqd_) {
		Drain();
		for (auto &fq : queues_)
			if (fq->owner && !fq->freed)
				Release(fq.get());
		// Blkgs of removed cgroups the harness still holds (as late
		// bios would) outlive the device: their groups keep the root
		// group and the efq_data alive until they are dropped below.
		sim_quiesce();
		efq_data_exit(efqd_);
		efqd_ = nullptr;
		q_->elevator = nullptr;
	}
	for (auto &[cg, blkg] : blkgs_)
		sim_blkg_put(blkg);
	blkgs_.clear();
	for (auto it = cgroups_.rbegin(); it != cgroups_.rend(); ++it)
		if (!destroyed_.count(*it))
			sim_blkcg_destroy(*it);
	cgroups_.clear();
	destroyed_.clear();
	if (q_)
		sim_queue_exit(q_.get());
	sim_quiesce();
	for (auto &fq : queues_) {
		EXPECT_TRUE(fq->freed) << "queue " << fq->id << " never freed";
	}
	queues_.clear();
	inflight_.clear();
	hooks = HookLog();
	q_.reset();
	disk_.reset();
	eq_.reset();
}

void EfqTest::TearDown()
{
	ExitDevice();
	SimTest::TearDown();
}

struct blkcg *EfqTest::Cgroup(const char *name, struct blkcg *parent, unsigned weight,
			      unsigned ioclass)
{
	struct blkcg *cg = sim_blkcg_create(parent, name);
	EXPECT_NE(cg, nullptr) << "mkdir " << name;
	if (!cg)
		return nullptr;
	cgroups_.push_back(cg);
	if (weight != EFQ_WEIGHT_DEFAULT) {
		EXPECT_EQ(efq_cgroup_set_weight(cg, weight), 0);
	}
	if (ioclass != IOPRIO_CLASS_BE) {
		EXPECT_EQ(efq_cgroup_set_ioprio_class(cg, ioclass), 0);
	}
	return cg;
}

struct blkcg_gq *EfqTest::Blkg(struct blkcg *cg)
{
	auto it = blkgs_.find(cg);
	if (it != blkgs_.end())
		return it->second;
	struct blkcg_gq *blkg = sim_blkg_get(cg, q_.get());
	EXPECT_NE(blkg, nullptr);
	blkgs_[cg] = blkg;
	return blkg;
}

void EfqTest::DropBlkg(struct blkcg *cg)
{
	auto it = blkgs_.find(cg);
	if (it == blkgs_.end())
		return;
	sim_blkg_put(it->second);
	blkgs_.erase(it);
}

struct efq_group *EfqTest::GroupOf(struct blkcg *cg)
{
	struct blkcg_gq *blkg = Blkg(cg);
	Lock();
	struct efq_group *g = efq_group_of_blkg(efqd_, blkg);
	Unlock();
	return g;
}

void EfqTest::DestroyCgroup(struct blkcg *cg)
{
	sim_blkcg_destroy(cg);
	destroyed_.insert(cg);
}

FakeQueue *EfqTest::NewQueue(struct efq_group *g, bool sync, unsigned prio, unsigned ioclass)
{
	auto fq = std::make_unique<FakeQueue>();
	fq->id = next_id_++;
	fq->t = this;
	fq->sync = sync;
	fq->owner = true;
	struct efq_queue *ioq = efq_queue_alloc(efqd_, GFP_KERNEL);
	EXPECT_NE(ioq, nullptr);
	if (!ioq)
		return nullptr;
	efq_queue_init(efqd_, ioq, fq->id, sync, fq.get());
	if (prio != IOPRIO_NORM) {
		EXPECT_EQ(efq_queue_set_ioprio(ioq, prio), 0);
	}
	if (ioclass != IOPRIO_CLASS_BE) {
		EXPECT_EQ(efq_queue_set_ioprio_class(ioq, ioclass), 0);
	}
	Lock();
	efq_queue_set_group(ioq, g);
	Unlock();
	fq->ioq = ioq;
	queues_.push_back(std::move(fq));
	return queues_.back().get();
}

FakeQueue *EfqTest::AsyncQueue(struct efq_group *g, unsigned ioclass, unsigned prio)
{
	Lock();
	struct efq_queue *ioq = efq_group_async_queue(g, ioclass, prio);
	Unlock();
	if (ioq)
		return Fq(ioq);
	FakeQueue *fq = NewQueue(g, false, prio, ioclass);
	Lock();
	efq_group_set_async_queue(g, ioclass, prio, fq->ioq);
	// the creator's reference goes: the group's slot owns the queue
	efq_put_queue(fq->ioq);
	Unlock();
	fq->owner = false;
	return fq;
}

FakeQueue *EfqTest::SingleQueue(struct efq_group *g)
{
	Lock();
	struct efq_queue *ioq = efq_group_single_queue(efqd_, g);
	Unlock();
	return Fq(ioq);
}

void EfqTest::Release(FakeQueue *fq)
{
	ASSERT_TRUE(fq->owner && !fq->freed);
	fq->owner = false;
	Lock();
	efq_queue_exit(efqd_, fq->ioq);
	efq_put_queue(fq->ioq);
	Unlock();
}

struct request *EfqTest::NewRequest(blk_opf_t flags, struct blkcg_gq *blkg)
{
	auto *rq = new struct request();
	rq->q = q_.get();
	rq->cmd_flags = flags;
	rq->__data_len = 8 * SECTOR_SIZE;
	rq->__sector = next_sector_;
	next_sector_ += 8;
	if (blkg) {
		auto *bio = new struct bio();
		bio->bi_opf = flags;
		bio->bi_blkg = blkg;
		bio->bi_iter.bi_size = rq->__data_len;
		rq->bio = bio;
		rq->biotail = bio;
	}
	return rq;
}

void EfqTest::FreeRequest(struct request *rq)
{
	delete rq->bio;
	delete rq;
}

struct request *EfqTest::Add(FakeQueue *fq, blk_opf_t flags, unsigned sectors,
			     struct blkcg_gq *blkg)
{
	EXPECT_FALSE(fq->freed);
	if (!flags)
		flags = fq->sync ? (blk_opf_t)REQ_OP_READ : (blk_opf_t)REQ_OP_WRITE;
	struct request *rq = NewRequest(flags, blkg);
	rq->__data_len = sectors * SECTOR_SIZE;
	rq->elv.priv[0] = fq;
	fq->queued.push_back(rq);
	Lock();
	efq_get_queue(fq->ioq); // the request's reference
	efq_request_add(efqd_, fq->ioq, rq);
	Unlock();
	return rq;
}

FakeQueue *EfqTest::Select(bool force)
{
	Lock();
	struct efq_queue *ioq = efq_select_queue(efqd_, force);
	Unlock();
	return Fq(ioq);
}

struct request *EfqTest::DispatchFrom(FakeQueue *fq)
{
	if (!fq || fq->queued.empty())
		return nullptr;
	struct request *rq = fq->queued.front();
	fq->queued.pop_front();
	Lock();
	efq_request_dispatched(efqd_, fq->ioq, rq);
	Unlock();
	fq->inflight++;
	inflight_.push_back(rq);
	return rq;
}

struct request *EfqTest::Dispatch(bool force)
{
	return DispatchFrom(Select(force));
}

// @rq leaves the driver: completed, or given back (@requeued).
void EfqTest::Release(struct request *rq, bool requeued)
{
	auto it = std::find(inflight_.begin(), inflight_.end(), rq);
	ASSERT_NE(it, inflight_.end()) << "request not in flight";
	inflight_.erase(it);
	FakeQueue *fq = static_cast<FakeQueue *>(rq->elv.priv[0]);
	fq->inflight--;
	struct efq_queue *ioq = fq->ioq;
	Lock();
	if (requeued)
		efq_request_requeued(efqd_, ioq, rq);
	else
		efq_request_completed(efqd_, ioq, rq);
	efq_put_queue(ioq); // finish_request: the request's reference
	Unlock();
	FreeRequest(rq);
}

void EfqTest::Complete(struct request *rq)
{
	Release(rq, false);
}

void EfqTest::RequeueBypassing(struct request *rq)
{
	Release(rq, true);
}

void EfqTest::MergeAway(FakeQueue *fq, bool into_other)
{
	ASSERT_GE(fq->queued.size(), into_other ? 1u : 2u);
	struct request *rq = fq->queued.back();
	fq->queued.pop_back();
	struct efq_queue *ioq = fq->ioq;
	Lock();
	efq_request_merged_away(efqd_, ioq, rq);
	efq_put_queue(ioq);
	Unlock();
	FreeRequest(rq);
}

void EfqTest::Expire(enum efq_expire_reason reason)
{
	Lock();
	efq_expire_active(efqd_, reason);
	Unlock();
}

void EfqTest::RunSlice(FakeQueue *fq, u64 used, bool allow_empty)
{
	if (!allow_empty) {
		ASSERT_GE(fq->queued.size(), 2u) << "RunSlice needs a backlog";
	}
	FakeQueue *sel = Select();
	ASSERT_EQ(sel, fq) << "expected queue " << fq->id << " to be selected, got "
			   << (sel ? sel->id : 0);
	struct request *rq = DispatchFrom(fq);
	ASSERT_NE(rq, nullptr);
	Complete(rq);
	Advance(used);
	ASSERT_EQ(efqd_->active_queue, fq->ioq) << "queue expired before the end of RunSlice";
	Expire(EFQ_EXPIRE_SCHED);
}

void EfqTest::Drain()
{
	for (int guard = 0; guard < 1000000; guard++) {
		CompleteAll();
		if (!efqd_->nr_queued)
			return;
		struct request *rq = Dispatch(true);
		if (!rq) {
			ADD_FAILURE() << "drain: forced dispatch returned nothing with "
				      << efqd_->nr_queued << " requests queued";
			return;
		}
	}
	ADD_FAILURE() << "drain did not finish";
}

std::vector<struct efq_entity *> EfqTest::TreeOrder(struct efq_service_tree *st)
{
	std::vector<struct efq_entity *> v;
	for (struct rb_node *n = rb_first(&st->active.rb_root); n; n = rb_next(n))
		v.push_back(rb_entry(n, struct efq_entity, rb_node));
	return v;
}

std::vector<struct efq_entity *> EfqTest::IdleOrder(struct efq_service_tree *st)
{
	std::vector<struct efq_entity *> v;
	for (struct rb_node *n = rb_first(&st->idle.rb_root); n; n = rb_next(n))
		v.push_back(rb_entry(n, struct efq_entity, rb_node));
	return v;
}

// ---------------------------------------------------------------------------
// Invariants.
// ---------------------------------------------------------------------------

std::string EfqTest::CheckInvariants()
{
	// the trees, their counts and the active path (tests/common/tree_walk.h)
	std::ostringstream err;
	err << efqcheck::TreeWalk(efqd_).Check();
	auto fail = [&err](const std::string &what, const void *p) {
		err << what << " (" << p << "); ";
	};

	// the harness's view of queues agrees with the engine's
	unsigned busy = 0, queued = 0;
	for (auto &fq : queues_) {
		if (fq->freed)
			continue;
		struct efq_queue *ioq = fq->ioq;
		if (efq_queue_busy(ioq))
			busy++;
		if (efq_queue_busy(ioq) != ioq->entity.on_st)
			fail("busy flag disagrees with on_st", ioq);
		if (ioq->nr_queued != fq->queued.size())
			err << "queue " << fq->id << " nr_queued=" << ioq->nr_queued
			    << " but the scheduler holds " << fq->queued.size() << "; ";
		unsigned sync = 0;
		for (struct request *rq : fq->queued)
			sync += rq_is_sync(rq);
		if (ioq->sync_pending != sync)
			err << "queue " << fq->id << " sync_pending=" << ioq->sync_pending
			    << " but the scheduler holds " << sync << " sync requests; ";
		if (ioq->dispatched != fq->inflight)
			err << "queue " << fq->id << " dispatched=" << ioq->dispatched << " but "
			    << fq->inflight << " in flight; ";
		if (ioq->entity.on_st && ioq->entity.on_idle_st)
			fail("queue both backlogged and cached", ioq);
		if (ioq->nr_queued && !efq_queue_busy(ioq))
			fail("queue with requests but not busy", ioq);
		queued += ioq->nr_queued;
	}
	if (busy != efqd_->busy_queues)
		err << "busy_queues=" << efqd_->busy_queues << " but " << busy
		    << " queues have the busy flag; ";
	if (queued != efqd_->nr_queued)
		err << "efqd->nr_queued=" << efqd_->nr_queued << " but queues hold " << queued
		    << "; ";
	if (inflight_.size() != efqd_->rq_in_driver)
		err << "rq_in_driver=" << efqd_->rq_in_driver << " but " << inflight_.size()
		    << " in flight; ";
	return err.str();
}

std::string EfqTest::CheckActivePath()
{
	std::ostringstream err;
	struct efq_queue *aq = efqd_->active_queue;

	if (!aq)
		return "no active queue";
	for (struct efq_entity *e = &aq->entity; e->parent; e = e->parent) {
		struct efq_sched_data *sd = e->parent->my_sd;
		int cls = e->ioprio_class;
		for (int c = 1; c < cls; c++)
			if (rb_first_cached(&sd->service_tree[c - 1].active))
				err << "entity " << e << " of class " << cls
				    << " chosen while class " << c << " has backlogged entities; ";
		struct efq_service_tree *st = &sd->service_tree[cls - 1];
		if (struct rb_node *n = rb_first_cached(&st->active)) {
			struct efq_entity *left = rb_entry(n, struct efq_entity, rb_node);
			if ((s64)(left->vdisktime - e->vdisktime) < 0)
				err << "entity " << e << " (vt " << e->vdisktime
				    << ") chosen ahead of a smaller vdisktime " << left->vdisktime
				    << "; ";
		}
	}
	return err.str();
}

} // namespace efqt
