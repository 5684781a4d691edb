// SPDX-License-Identifier: GPL-2.0
// efqsim's block layer model; see model.h for what it models.
#include "blk/model.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <sstream>

extern "C" {
#include <linux/bio.h>
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/elevator-fq.h>
#include <linux/iocontext.h>
#include <linux/ioprio.h>

#include "blk-cgroup.h"
#include "blk-mq.h"
#include "blk.h"
#include "elevator.h"
#include <sim/blk.h>
#include <sim/blkcg.h>
#include <sim/clock.h>
#include <sim/kernel.h>
}
// the kernel's macros would shadow the C++ library's functions
#undef min
#undef max
#undef swap

namespace efqsim::blk {

namespace {

constexpr int64_t kBudgetDelayNs = 3'000'000;	     // BLK_MQ_BUDGET_DELAY
constexpr unsigned int kDefaultRq = 128;	     // BLKDEV_DEFAULT_RQ
constexpr size_t kPlugMaxRequests = 32;		     // BLK_MAX_REQUEST_COUNT
constexpr unsigned int kPlugFlushBytes = 128 * 1024; // BLK_PLUG_FLUSH_SIZE

} // namespace

void ensure_modules()
{
	static bool done = false;
	if (!done) {
		sim_modules_init();
		done = true;
	}
}

bool scheduler_exists(const std::string &name)
{
	ensure_modules();
	return sim_elv_find(name.c_str()) != nullptr;
}

std::vector<std::string> scheduler_names(const std::string &name)
{
	ensure_modules();
	const struct elevator_type *e = sim_elv_find(name.c_str());
	if (!e)
		return {};
	std::vector<std::string> names = {e->elevator_name};
	if (e->elevator_alias)
		names.emplace_back(e->elevator_alias);
	return names;
}

struct Model::Task {
	workload::TaskId id = 0;
	pid_t pid = 0;
	std::string comm;
	Cgroup *cg = nullptr;
	unsigned short ioprio = 0;
	bool plugged = false;
	std::vector<struct request *> plug; // oldest first
};

struct Model::Cgroup {
	std::string path; // "/" for the root
	struct blkcg *blkcg = nullptr;
	uint32_t tag = 0;
	unsigned int weight = EFQ_WEIGHT_DEFAULT;
};

struct Model::Bio {
	struct bio bio {};
	bool flush_data = false; // workload::Io's
	bool unprepared = false;
	Task *task = nullptr;
	Cgroup *charged = nullptr;
	int64_t submitted = 0;
	std::function<void(int64_t)> done;
	// while it sleeps for a tag: counted in the tags' ws_active
	struct sbq_wait wait {};
};

struct Model::Rq {
	struct request rq {};
	uint64_t id = 0; // device id while in flight
	bool issued = false;
	bool in_use = false;
};

Model::Model(std::unique_ptr<dev::Device> dev, Config cfg)
    : dev_(std::move(dev)), cfg_(std::move(cfg))
{
}

Model::~Model()
{
	if (sched_up_) {
		struct elevator_queue *eq = q_->elevator;
		// The tasks exit: their io contexts (made for elevators with
		// icq_size) go, calling the elevator's exit_icq while it is up.
		for (auto &t : tasks_) {
			sim_set_current(t->pid, t->comm.c_str());
			exit_io_context(sim_get_current());
		}
		sim_set_current(1, "sim");
		ioc_clear_queue(q_.get());
		if (eq->type->ops.exit_hctx)
			eq->type->ops.exit_hctx(hctx_.get(), 0);
		eq->type->ops.exit_sched(eq);
		q_->elevator = nullptr;
		kobject_put(&eq->kobj);
	}
	sim::events().cancel(device_event_);
	if (queue_up_)
		sim_queue_exit(q_.get());
	// children before parents: the longest paths first
	std::vector<Cgroup *> cgs;
	for (auto &[path, cg] : cgroups_)
		if (cg->blkcg != &blkcg_root)
			cgs.push_back(cg.get());
	std::sort(cgs.begin(), cgs.end(),
		  [](Cgroup *a, Cgroup *b) { return a->path.size() > b->path.size(); });
	for (Cgroup *cg : cgs)
		sim_blkcg_destroy(cg->blkcg);
	sim_quiesce();
}

bool Model::init(std::string *err)
{
	ensure_modules();
	violations_at_start_ = sim_blk_violations();
	struct elevator_type *e = sim_elv_find(cfg_.scheduler.c_str());
	if (!e) {
		*err = "unknown scheduler '" + cfg_.scheduler + "'";
		return false;
	}
	// efq's schedulers run on its engine (they all set up their hardware
	// queue with it); any other (Linux's mq-deadline) has no groups
	efq_ = e->ops.init_hctx == efq_init_hctx;

	q_ = std::make_unique<struct request_queue>();
	disk_ = std::make_unique<struct gendisk>();
	hctx_ = std::make_unique<struct blk_mq_hw_ctx>();
	sched_tags_ = std::make_unique<struct blk_mq_tags>();
	disk_->major = 8;
	disk_->first_minor = 0;
	disk_->minors = 16;
	std::snprintf(disk_->disk_name, sizeof(disk_->disk_name), "sda");
	q_->queue_depth = dev_->queue_depth();
	q_->nr_hw_queues = 1;
	q_->node = -1;
	q_->limits.max_sectors = 2560; // max_sectors_kb 1280
	q_->limits.max_hw_sectors = 2560;
	q_->limits.logical_block_size = 512;
	if (!cfg_.max_discard_segments) {
		*err = "max_discard_segments must be at least 1";
		return false;
	}
	q_->limits.max_discard_segments = cfg_.max_discard_segments;
	q_->limits.max_discard_sectors = UINT_MAX >> 9; // null_blk's
	// as a driver says so (null_blk, sd for a non-rotational disk): cfq
	// does not idle on a queueing non-rotational device
	if (!dev_->rotational())
		set_bit(QUEUE_FLAG_NONROT, &q_->queue_flags);
	if (sim_queue_init(q_.get(), disk_.get())) {
		*err = "out of memory setting up the queue";
		return false;
	}
	queue_up_ = true;
	hctx_->queue = q_.get();
	INIT_LIST_HEAD(&hctx_->dispatch);
	hctxs_[0] = hctx_.get();
	q_->sim_hctxs = hctxs_;
	q_->sim_priv = this;
	q_->sim_run_hw_queues = run_hook;
	q_->sim_free_request = free_hook;

	unsigned int nr =
		cfg_.nr_requests ? cfg_.nr_requests : 2 * std::min(dev_->queue_depth(), kDefaultRq);
	q_->nr_requests = nr;
	sched_tags_->nr_tags = nr;
	// the tag map's shape as blk-mq makes it (sbitmap_queue_init_node()
	// with the default shift): words of 2^shift tags, a shift that gives
	// at least 4 words when there are enough tags; a scheduler's shallow
	// depth limits the tags it may take in each word (alloc_request())
	struct sbitmap &sb = sched_tags_->bitmap_tags.sb;
	sb.depth = nr;
	sb.shift = sbitmap_calculate_shift(nr);
	sb.map_nr = (nr + (1u << sb.shift) - 1) >> sb.shift;
	sched_tags_->bitmap_tags.min_shallow_depth = UINT_MAX; // as sbitmap_queue_init_node()
	hctx_->sched_tags = sched_tags_.get();
	rqs_.resize(nr);
	for (unsigned int i = 0; i < nr; i++) {
		rqs_[i] = std::make_unique<Rq>();
		free_tags_.push_back(i);
	}
	cgroup("/");

	int ret = e->ops.init_sched(q_.get(), e);
	if (ret) {
		*err = "scheduler " + cfg_.scheduler + ": init failed (" + std::to_string(ret) +
		       ")";
		return false;
	}
	sched_up_ = true;
	if (e->ops.init_hctx && (ret = e->ops.init_hctx(hctx_.get(), 0))) {
		*err = "scheduler " + cfg_.scheduler + ": init_hctx failed (" +
		       std::to_string(ret) + ")";
		return false;
	}
	ssize_t r = 0;
	if (efq_) {
		r = sim_elv_attr_store(q_->elevator, "hierarchical", cfg_.hierarchical ? "1" : "0");
		if (r < 0 && !cfg_.hierarchical) {
			*err = "scheduler " + cfg_.scheduler + " has no flat mode";
			return false;
		}
	}
	for (auto &[name, value] : cfg_.tunables) {
		r = sim_elv_attr_store(q_->elevator, name.c_str(), value.c_str());
		if (r == -ENOENT) {
			*err = "scheduler " + cfg_.scheduler + " has no tunable '" + name + "'";
			return false;
		}
		if (r < 0) {
			*err = "tunable " + name + "=" + value + ": " +
			       std::strerror(static_cast<int>(-r));
			return false;
		}
	}
	// a device may start with an event of its own pending
	sync_device();
	return true;
}

int64_t Model::now() const
{
	return sim_clock_now();
}

void Model::at(int64_t when, std::function<void()> fn)
{
	sim::events().schedule(std::max(when, now()), sim::Tier::model, std::move(fn), this);
}

void Model::sync_device()
{
	const int64_t t = dev_->next_event();
	if (t == device_event_at_)
		return;
	sim::events().cancel(device_event_);
	device_event_ = {};
	device_event_at_ = t;
	if (t != dev::kNever)
		device_event_ = sim::events().schedule(t, sim::Tier::device,
						       [this, t] { device_event(t); });
}

void Model::device_event(int64_t when)
{
	device_event_ = {};
	device_event_at_ = dev::kNever;
	std::vector<dev::Completion> done;
	dev_->advance(when, done);
	sync_device();
	for (auto &c : done)
		complete(c.id, c.time);
}

uint64_t Model::capacity_bytes() const
{
	return dev_->capacity_sectors() * 512;
}

Model::Cgroup *Model::cgroup(const std::string &path)
{
	std::string p = path.empty() ? "/" : path;
	if (p[0] != '/')
		p = "/" + p;
	while (p.size() > 1 && p.back() == '/')
		p.pop_back();
	auto it = cgroups_.find(p);
	if (it != cgroups_.end())
		return it->second.get();

	struct blkcg *blkcg = &blkcg_root;
	if (p != "/") {
		auto slash = p.rfind('/');
		Cgroup *parent = cgroup(p.substr(0, slash == 0 ? 1 : slash));
		if (!parent)
			return nullptr;
		std::string name = p.substr(slash + 1);
		blkcg = sim_blkcg_find(parent->blkcg == &blkcg_root ? nullptr : parent->blkcg,
				       name.c_str());
		if (!blkcg)
			blkcg = sim_blkcg_create(parent->blkcg == &blkcg_root ? nullptr
									      : parent->blkcg,
						 name.c_str());
		if (!blkcg)
			return nullptr;
	}
	auto cg = std::make_unique<Cgroup>();
	cg->path = p;
	cg->blkcg = blkcg;
	cg->tag = static_cast<uint32_t>(cgroup_by_tag_.size());
	cgroup_by_tag_.push_back(cg.get());
	Cgroup *raw = cg.get();
	cgroups_[p] = std::move(cg);
	return raw;
}

workload::TaskId Model::create_task(const workload::TaskSpec &spec)
{
	task_error_.clear();
	Cgroup *cg = cgroup(spec.cgroup);
	if (!cg) {
		task_error_ = "cannot create cgroup '" + spec.cgroup + "'";
		return 0;
	}
	if (spec.cgroup_weight) {
		if (cg->blkcg == &blkcg_root) {
			task_error_ = "the root cgroup has no weight";
			return 0;
		}
		int ret = efq_cgroup_set_weight(cg->blkcg, spec.cgroup_weight);
		if (ret) {
			task_error_ =
				"cgroup_weight=" + std::to_string(spec.cgroup_weight) + ": " +
				(ret == -EINVAL ? "out of range 100..1000" : std::strerror(-ret));
			return 0;
		}
		cg->weight = spec.cgroup_weight;
	}
	auto t = std::make_unique<Task>();
	t->id = static_cast<workload::TaskId>(tasks_.size() + 1);
	t->pid = static_cast<pid_t>(1000 + t->id);
	t->comm = spec.comm;
	t->cg = cg;
	if (spec.ioprio_class)
		t->ioprio = IOPRIO_PRIO_VALUE(spec.ioprio_class, spec.ioprio);
	tasks_.push_back(std::move(t));
	return tasks_.back()->id;
}

void Model::submit(workload::TaskId task, const workload::Io &io,
		   std::function<void(int64_t done)> done)
{
	Task *t = tasks_.at(task - 1).get();
	Task *owner = io.charge_to ? tasks_.at(io.charge_to - 1).get() : t;
	auto *b = new Bio;
	b->task = t;
	b->charged = owner->cg;
	b->submitted = now();
	b->done = std::move(done);
	blk_opf_t opf = io.discard ? REQ_OP_DISCARD : io.write ? REQ_OP_WRITE : REQ_OP_READ;
	if ((io.write || io.discard) && io.sync)
		opf |= REQ_SYNC;
	if (io.meta)
		opf |= REQ_META;
	if (io.idle)
		opf |= REQ_IDLE;
	if (io.flush_data)
		opf |= REQ_PREFLUSH;
	b->flush_data = io.flush_data;
	b->unprepared = io.unprepared;
	b->bio.bi_opf = opf;
	b->bio.bi_iter.bi_sector = io.offset >> 9;
	b->bio.bi_iter.bi_size = io.bytes;
	// 6.1's bio_set_ioprio(): a bio without a class of its own (no aio
	// or io_uring priority) takes the submitter's
	b->bio.bi_ioprio = IOPRIO_PRIO_CLASS(io.ioprio) ? io.ioprio : t->ioprio;
	b->bio.bi_private = b;
	b->bio.bi_blkg = sim_blkg_get(owner->cg->blkcg, q_.get());
	counters_.bios++;
	submit_bio(b);
}

void Model::exit_task(workload::TaskId task)
{
	set_current(tasks_.at(task - 1).get());
	exit_io_context(sim_get_current());
	sim_set_current(1, "sim");
}

void Model::share_io_context(workload::TaskId task, workload::TaskId with)
{
	set_current(tasks_.at(with - 1).get());
	struct task_struct *from = sim_get_current();
	set_current(tasks_.at(task - 1).get());
	if (sim_task_share_io_context(sim_get_current(), from))
		throw std::bad_alloc();
	sim_set_current(1, "sim");
}

void Model::set_current(const Task *t)
{
	sim_set_current(t->pid, t->comm.c_str());
	sim_current_set_io_css(&t->cg->blkcg->css);
}

void Model::submit_bio(Bio *b)
{
	struct elevator_queue *e = q_->elevator;
	set_current(b->task);
	// blk_attempt_plug_merge(): the task's most recent plugged request
	if (b->task->plugged && !b->task->plug.empty() &&
	    sim_plug_merge(b->task->plug.back(), &b->bio)) {
		counters_.plug_merges++;
		return;
	}
	if (e->type->ops.bio_merge && e->type->ops.bio_merge(q_.get(), &b->bio, 1)) {
		counters_.bio_merges++;
		return;
	}
	// Sleepers go first: a tag freed a moment ago is theirs (the kernel's
	// sbitmap lets a little stealing happen; FIFO is the model).  A sleeper
	// its shallow depth keeps waiting does not hold up others.
	if (!waiters_.empty()) {
		wake_waiters();
		set_current(b->task);
	}
	if (alloc_request(b))
		return;
	// blk_mq_get_tag(): out of tags, the submitter first runs the
	// hardware queue (has_work decides; nothing is freed by it here, the
	// device completes later) and tries again; then it is counted as a
	// waiter (sbitmap_prepare_to_wait(): ws_active), tries once more, and
	// sleeps.  No scheduler event follows the count: the next one is
	// whatever comes next (the plug's insert below, a completion, a
	// timer).
	if (in_run_)
		schedule_run();
	else
		run_queue();
	set_current(b->task);
	if (alloc_request(b))
		return;
	counters_.tag_waits++;
	sbitmap_prepare_to_wait(&sched_tags_->bitmap_tags, nullptr, &b->wait, 0);
	// the task sleeps: schedule() flushes its plug first
	// (sched_submit_work())
	flush_plug(b->task);
	waiters_.push_back(b);
}

void Model::plug(workload::TaskId task)
{
	tasks_.at(task - 1)->plugged = true;
}

void Model::unplug(workload::TaskId task)
{
	Task *t = tasks_.at(task - 1).get();
	flush_plug(t);
	t->plugged = false;
}

void Model::flush_plug(Task *t)
{
	if (t->plug.empty())
		return;
	// blk_mq_dispatch_plug_list(): one insert_requests() call with the
	// plugged requests in submission order, then a run of the queue
	LIST_HEAD(list);
	for (struct request *rq : t->plug)
		list_add_tail(&rq->queuelist, &list);
	t->plug.clear();
	set_current(t);
	q_->elevator->type->ops.insert_requests(hctx_.get(), &list, false);
	if (in_run_)
		schedule_run();
	else
		run_queue();
}

void Model::insert(struct request *rq, bool at_head)
{
	LIST_HEAD(list);
	list_add(&rq->queuelist, &list);
	q_->elevator->type->ops.insert_requests(hctx_.get(), &list, at_head);
	// blk-mq runs the hardware queue right after an insert, synchronously
	if (in_run_)
		schedule_run();
	else
		run_queue();
}

bool Model::alloc_request(Bio *b)
{
	struct elevator_queue *e = q_->elevator;
	struct blk_mq_alloc_data data {};
	data.q = q_.get();
	data.cmd_flags = b->bio.bi_opf;
	data.hctx = hctx_.get();
	data.rq_flags = RQF_ELV;
	if (e->type->ops.limit_depth && !op_is_flush(data.cmd_flags))
		e->type->ops.limit_depth(data.cmd_flags, &data);
	// the lowest free tag; with a shallow depth (sbitmap_get_shallow()),
	// the lowest free one among the first shallow_depth tags of each word
	auto it = free_tags_.begin();
	if (data.shallow_depth) {
		if (data.shallow_depth < sched_tags_->bitmap_tags.min_shallow_depth)
			shallow_below_min_++;
		const unsigned int shift = sched_tags_->bitmap_tags.sb.shift;
		while (it != free_tags_.end() && (*it & ((1u << shift) - 1)) >= data.shallow_depth)
			++it;
	}
	if (it == free_tags_.end())
		return false;
	unsigned int tag = *it;
	free_tags_.erase(it);
	sched_tags_->bitmap_tags.sb.sim_in_use++;

	Rq *r = rqs_[tag].get();
	r->rq = {};
	r->in_use = true;
	r->issued = false;
	r->id = 0;
	struct request *rq = &r->rq;
	rq->q = q_.get();
	rq->mq_hctx = hctx_.get();
	rq->tag = -1;
	rq->internal_tag = static_cast<int>(tag);
	rq->cmd_flags = b->bio.bi_opf;
	rq->rq_flags = RQF_ELV;
	rq->__sector = b->bio.bi_iter.bi_sector;
	rq->__data_len = b->bio.bi_iter.bi_size;
	rq->bio = rq->biotail = &b->bio;
	// blk_rq_bio_prep(): bio_split_discard() counts a discard bio as one
	// segment; the segments of reads and writes are not modelled
	rq->nr_phys_segments = op_is_discard(rq->cmd_flags) ? 1 : 0;
	rq->ioprio = b->bio.bi_ioprio;
	rq->start_time_ns = static_cast<u64>(now());
	rq->state = MQ_RQ_IDLE;
	INIT_LIST_HEAD(&rq->queuelist);
	INIT_HLIST_NODE(&rq->hash);
	RB_CLEAR_NODE(&rq->rb_node);
	rq->sim_priv = r;
	counters_.requests++;
	if (e->type->ops.prepare_request && !b->unprepared) {
		e->type->ops.prepare_request(rq);
		rq->rq_flags |= RQF_ELVPRIV;
	}
	if (b->flush_data) {
		// 6.12: blk_flush_complete_seq() moves the data part to the
		// requeue list; blk_mq_requeue_work() inserts it at the head
		rq->rq_flags |= RQF_FLUSH_SEQ;
		insert(rq, true);
		return true;
	}
	Task *t = b->task;
	if (!t->plugged) {
		insert(rq);
		return true;
	}
	// blk_add_rq_to_plug(): a full plug, or one whose last request is
	// large, is flushed before the new request joins it
	if (t->plug.size() >= kPlugMaxRequests ||
	    (!t->plug.empty() && blk_rq_bytes(t->plug.back()) >= kPlugFlushBytes))
		flush_plug(t);
	t->plug.push_back(rq);
	return true;
}

void Model::free_hook(struct request_queue *q, struct request *rq)
{
	static_cast<Model *>(q->sim_priv)->free_request(rq);
}

void Model::free_request(struct request *rq)
{
	Rq *r = static_cast<Rq *>(rq->sim_priv);
	if (!r->in_use)
		return;
	if (!r->issued)
		counters_.rq_merges++;
	r->in_use = false;
	unsigned int tag = static_cast<unsigned int>(rq->internal_tag);
	free_tags_.insert(std::lower_bound(free_tags_.begin(), free_tags_.end(), tag), tag);
	sched_tags_->bitmap_tags.sb.sim_in_use--;
	if (!waiters_.empty())
		at(now(), [this] { wake_waiters(); });
}

void Model::wake_waiters()
{
	// In order; one that cannot have a tag (a shallow depth) does not hold
	// up those behind it that can.  Each waiter is taken off the list while
	// it tries and put back in its place if it must sleep on: the cost is
	// that of the waiters tried, not of the list (alloc_request() never
	// adds or removes a waiter: the queue run it may do completes nothing,
	// the device completes later, and a request it frees only schedules a
	// wake-up).
	for (auto it = waiters_.begin(); it != waiters_.end();) {
		Bio *b = *it;
		set_current(b->task);
		auto next = waiters_.erase(it);
		// woken: it stops counting as a waiter before it tries
		// (sbitmap_finish_wait()), and counts again if it must sleep on
		sbitmap_finish_wait(&sched_tags_->bitmap_tags, nullptr, &b->wait);
		if (alloc_request(b)) {
			it = next;
		} else {
			sbitmap_prepare_to_wait(&sched_tags_->bitmap_tags, nullptr, &b->wait, 0);
			it = std::next(waiters_.insert(next, b));
		}
		if (free_tags_.empty())
			break;
	}
}

void Model::run_hook(struct request_queue *q, bool /*async*/)
{
	Model *m = static_cast<Model *>(q->sim_priv);
	if (m->requeueing_)
		return;
	// blk_mq_run_hw_queue() asks blk_mq_hctx_has_pending() at once, in
	// the caller's context, even for an asynchronous run: a scheduler
	// whose has_work is still false when it asks (its state settles after
	// the call) gets no run.
	struct elevator_queue *e = q->elevator;
	if (e->type->ops.has_work && !e->type->ops.has_work(m->hctx_.get()))
		return;
	m->schedule_run();
}

void Model::schedule_run()
{
	if (run_pending_)
		return;
	run_pending_ = true;
	at(now(), [this] {
		run_pending_ = false;
		run_queue();
	});
}

void Model::run_queue()
{
	struct elevator_queue *e = q_->elevator;
	counters_.runs++;
	in_run_ = true;
	// blk_mq_sched_dispatch_requests(): hctx->dispatch first; the
	// scheduler is asked only once that list is empty
	while (!hctx_dispatch_.empty() && dev_->in_flight() < dev_->queue_depth()) {
		struct request *rq = hctx_dispatch_.front();
		hctx_dispatch_.pop_front();
		issue(rq);
	}
	for (;;) {
		if (dev_->in_flight() >= dev_->queue_depth()) {
			restart_ = true;
			break;
		}
		if (!hctx_dispatch_.empty())
			break;
		if (e->type->ops.has_work && !e->type->ops.has_work(hctx_.get()))
			break;
		struct request *rq = e->type->ops.dispatch_request(hctx_.get());
		if (!rq) {
			counters_.budget_reruns++;
			at(now() + kBudgetDelayNs, [this] { schedule_run(); });
			break;
		}
		if (!rq->bio) {
			// merged away and freed behind the scheduler's back: the
			// shim kept it while the scheduler still had it; free it
			// now (finish_request), never reaching the device
			sim_blk_violation("the scheduler dispatched a request the block core had "
					  "freed (merged away without requests_merged)",
					  rq);
			blk_mq_free_request(rq);
			continue;
		}
		int64_t later = dev_->defer_until(to_device(rq), now());
		sync_device();
		if (later > now()) {
			// the device wants it later: back to the scheduler, no
			// more dispatching until then (nothing else is issued
			// ahead of it, as with a BLK_STS_RESOURCE)
			requeue(rq);
			delay_run(later);
			break;
		}
		issue(rq);
	}
	in_run_ = false;
}

dev::Request Model::to_device(struct request *rq) const
{
	Bio *b = static_cast<Bio *>(rq->bio->bi_private);
	dev::Request d;
	d.sector = blk_rq_pos(rq);
	d.sectors = blk_rq_sectors(rq);
	d.write = op_is_write(req_op(rq));
	d.fua = rq->cmd_flags & REQ_FUA;
	d.tag = b->charged->tag;
	if (req_op(rq) == REQ_OP_DISCARD) {
		d.discard = true;
		d.first_bio_segments = 0; // no pages
		if (queue_max_discard_segments(q_.get()) > 1) {
			for (struct bio *bio = rq->bio; bio; bio = bio->bi_next)
				d.ranges.push_back({bio->bi_iter.bi_sector, bio_sectors(bio)});
		} else {
			d.ranges.push_back({d.sector, d.sectors});
		}
		return d;
	}
	// a bio's pages (bi_vcnt), its buffer page aligned as direct IO's is
	d.first_bio_segments = std::max(1u, (rq->bio->bi_iter.bi_size + 4095) / 4096);
	return d;
}

void Model::check_discard(struct request *rq)
{
	// 6.1's NVMe and virtio-blk drivers build the range list with
	// blk_rq_nr_discard_segments() entries, one per bio: a request whose
	// bios do not match WARNs and fails (BLK_STS_IOERR), and more ranges
	// than max_discard_segments are more than the device takes
	unsigned int bios = 0;
	for (struct bio *bio = rq->bio; bio; bio = bio->bi_next)
		bios++;
	unsigned int max = queue_max_discard_segments(q_.get());
	std::string what;
	if (max > 1 && bios != blk_rq_nr_discard_segments(rq))
		what = "a discard of " + std::to_string(bios) + " bios with nr_phys_segments " +
		       std::to_string(rq->nr_phys_segments) +
		       " went to the driver (a bio merged without a segment: 6.1's NVMe and "
		       "virtio-blk drivers WARN and fail it)";
	else if (max > 1 && bios > max)
		what = "a discard of " + std::to_string(bios) +
		       " ranges went to a driver that takes " + std::to_string(max);
	if (!what.empty())
		sim_blk_violation(what.c_str(), rq);
}

void Model::requeue(struct request *rq)
{
	// blk_mq_requeue_request(): the scheduler forgets the dispatch
	// (.requeue_request), then the request goes back in at the head
	struct elevator_queue *e = q_->elevator;
	counters_.deferred++;
	// __blk_mq_requeue_request(): no longer the driver's
	rq->state = MQ_RQ_IDLE;
	// The scheduler asks for a run when the request is back (it has
	// work again): that run would meet the same answer at the same time,
	// forever.  The delayed run is the one that counts.
	requeueing_ = true;
	// blk_mq_sched_requeue_request(): only a request the scheduler
	// prepared
	if ((rq->rq_flags & RQF_ELVPRIV) && e->type->ops.requeue_request)
		e->type->ops.requeue_request(rq);
	LIST_HEAD(list);
	list_add(&rq->queuelist, &list);
	e->type->ops.insert_requests(hctx_.get(), &list, true);
	requeueing_ = false;
}

void Model::driver_requeue(struct request *rq)
{
	// blk_mq_requeue_request() from the driver's completion: the
	// scheduler forgets the dispatch now; blk_mq_requeue_work() puts the
	// request back later, from a work item, and runs the queues
	struct elevator_queue *e = q_->elevator;
	counters_.driver_requeues++;
	rq->state = MQ_RQ_IDLE;
	if (cfg_.requeue_dontprep)
		rq->rq_flags |= RQF_DONTPREP;
	sim_irq_enter(true);
	if ((rq->rq_flags & RQF_ELVPRIV) && e->type->ops.requeue_request)
		e->type->ops.requeue_request(rq);
	sim_irq_exit();
	at(now(), [this, rq] {
		struct elevator_queue *el = q_->elevator;
		if (rq->rq_flags & RQF_DONTPREP) {
			hctx_dispatch_.push_back(rq);
		} else {
			LIST_HEAD(list);
			list_add(&rq->queuelist, &list);
			el->type->ops.insert_requests(hctx_.get(), &list, true);
		}
		schedule_run();
	});
	if (restart_) {
		restart_ = false;
		schedule_run();
	}
}

void Model::delay_run(int64_t when)
{
	// blk_mq_delay_run_hw_queue(): one pending delayed run is enough if
	// it comes no later
	if (delayed_run_ >= now() && delayed_run_ <= when)
		return;
	delayed_run_ = when;
	at(when, [this, when] {
		if (delayed_run_ == when)
			delayed_run_ = -1;
		schedule_run();
	});
}

void Model::issue(struct request *rq)
{
	Rq *r = static_cast<Rq *>(rq->sim_priv);
	// blk_mq_start_request(): in flight; RQF_STARTED is the scheduler's
	// to set (6.1's block core does not)
	rq->state = MQ_RQ_IN_FLIGHT;
	rq->io_start_time_ns = static_cast<u64>(now());
	r->issued = true;
	r->id = next_id_++;
	if (req_op(rq) == REQ_OP_DISCARD)
		check_discard(rq);
	dev::Request d = to_device(rq);
	d.id = r->id;
	in_device_[r->id] = rq;
	counters_.dispatched++;
	counters_.dispatched_sectors += d.sectors;
	if (on_issue)
		on_issue(rq);
	dev_->submit(d, now());
	sync_device();
}

void Model::complete(uint64_t id, int64_t when)
{
	auto it = in_device_.find(id);
	if (it == in_device_.end())
		return;
	struct request *rq = it->second;
	in_device_.erase(it);
	if (cfg_.requeue_every && ++completions_seen_ % cfg_.requeue_every == 0) {
		driver_requeue(rq);
		return;
	}
	counters_.completed++;
	struct elevator_queue *e = q_->elevator;

	sim_irq_enter(true);
	if (e->type->ops.completed_request)
		e->type->ops.completed_request(rq, static_cast<u64>(when));
	for (struct bio *bio = rq->bio; bio;) {
		struct bio *next = bio->bi_next;
		Bio *b = static_cast<Bio *>(bio->bi_private);
		at(when, [b, when] {
			b->done(when);
			sim_blkg_put(b->bio.bi_blkg);
			delete b;
		});
		bio = next;
	}
	rq->bio = rq->biotail = nullptr;
	blk_mq_free_request(rq);
	sim_irq_exit();
	if (restart_) {
		restart_ = false;
		schedule_run();
	}
}

void Model::run_until(int64_t t)
{
	while (sim::events().run_next(t, "blk::Model::run_until()")) {
	}
	if (t > now())
		sim_clock_set(t);
}

uint64_t Model::outstanding() const
{
	return (rqs_.size() - free_tags_.size()) + waiters_.size();
}

void Model::cancel_waiters()
{
	for (Bio *b : waiters_) {
		sbitmap_finish_wait(&sched_tags_->bitmap_tags, nullptr, &b->wait);
		sim_blkg_put(b->bio.bi_blkg);
		delete b;
	}
	waiters_.clear();
}

bool Model::drain(int64_t limit)
{
	while ((outstanding() || pending_events() || dev_->next_event() != dev::kNever) &&
	       sim::events().run_next(limit, "blk::Model::drain()")) {
	}
	return outstanding() == 0 && pending_events() == 0;
}

std::vector<report::GroupResult> Model::group_results()
{
	std::vector<report::GroupResult> out;
	const auto &busy = dev_->busy_by_tag();
	for (auto &[path, cg] : cgroups_) {
		report::GroupResult g;
		g.path = path;
		g.weight = cg->weight;
		g.ioprio_class = IOPRIO_CLASS_BE;
		// the engine's accounting, for efq's schedulers only: the root
		// group, and in hierarchical mode the group that serves the
		// cgroup unless that is the root group
		struct efq_group_stats st {};
		bool have = false;
		if (!efq_) {
			// no engine: no disk time, only the device's measurement
		} else if (cg->blkcg == &blkcg_root) {
			have = efq_group_stats(q_.get(), nullptr, &st);
		} else if (cfg_.hierarchical) {
			struct blkcg_gq *blkg = sim_blkg_get(cg->blkcg, q_.get());
			have = efq_group_stats(q_.get(), blkg, &st);
			sim_blkg_put(blkg);
		}
		if (have) {
			g.weight = st.weight;
			g.ioprio_class = st.ioprio_class;
			g.disk_time_ms = static_cast<double>(st.disk_time) / 1e6;
			g.disk_sectors = st.disk_sectors;
			g.queued = st.nr_enqueued;
			g.dequeued = st.nr_dequeued;
		}
		// inclusive, like the engine's disk time: the cgroup and below
		int64_t b = 0;
		if (cg->blkcg == &blkcg_root) {
			b = dev_->busy_total();
		} else {
			// the cgroup, then its descendants: the paths that start
			// with "path/", next to each other in the map's order
			if (cg->tag < busy.size())
				b += busy[cg->tag];
			const std::string below = path + "/";
			for (auto it = cgroups_.lower_bound(below);
			     it != cgroups_.end() && it->first.compare(0, below.size(), below) == 0;
			     ++it)
				if (it->second->tag < busy.size())
					b += busy[it->second->tag];
		}
		g.device_busy_ms = static_cast<double>(b) / 1e6;
		out.push_back(g);
	}
	return out;
}

unsigned int Model::nr_requests() const
{
	return q_ ? q_->nr_requests : 0;
}

unsigned int Model::tag_waiters() const
{
	return sched_tags_
		       ? static_cast<unsigned int>(atomic_read(&sched_tags_->bitmap_tags.ws_active))
		       : 0;
}

unsigned int Model::tags_in_use() const
{
	return sched_tags_ ? sbitmap_weight(&sched_tags_->bitmap_tags.sb) : 0;
}

std::map<std::string, std::string> Model::tunables()
{
	std::map<std::string, std::string> out;
	struct elevator_queue *eq = q_->elevator;
	char page[4096];
	for (struct elv_fs_entry *a = eq->type->elevator_attrs; a && a->attr.name; a++) {
		ssize_t n = sim_elv_attr_show(eq, a->attr.name, page);
		if (n < 0)
			continue;
		std::string v(page, static_cast<size_t>(n));
		while (!v.empty() && (v.back() == '\n' || v.back() == ' '))
			v.pop_back();
		out[a->attr.name] = v;
	}
	return out;
}

std::vector<Model::TunableInfo> Model::probe_tunables()
{
	std::vector<TunableInfo> out;
	struct elevator_queue *eq = q_->elevator;
	char page[4096];
	auto show = [&](const char *name) {
		ssize_t n = sim_elv_attr_show(eq, name, page);
		std::string v(page, n > 0 ? static_cast<size_t>(n) : 0);
		while (!v.empty() && (v.back() == '\n' || v.back() == ' '))
			v.pop_back();
		return v;
	};
	// the probes write numbers that some stores refuse, with a warning
	// meant for an admin's mistake: not printed
	const int printk_level = sim_printk_level;
	sim_printk_level = 0;
	for (struct elv_fs_entry *a = eq->type->elevator_attrs; a && a->attr.name; a++) {
		TunableInfo t;
		t.name = a->attr.name;
		t.initial = show(a->attr.name);
		t.min = sim_elv_attr_store(eq, a->attr.name, "0") < 0 ? "?" : show(a->attr.name);
		// the largest number each store takes without an error
		t.max = "?";
		for (const char *big :
		     {"18446744073709551615", "9223372036854775807", "4294967295", "2147483647"})
			if (sim_elv_attr_store(eq, a->attr.name, big) >= 0) {
				t.max = show(a->attr.name);
				break;
			}
		sim_elv_attr_store(eq, a->attr.name, t.initial.c_str());
		out.push_back(t);
	}
	sim_printk_level = printk_level;
	return out;
}

std::string Model::debugfs(const std::string &name, std::string *err) const
{
	int e = 0;
	char *s = sim_elv_debugfs_read(q_.get(), name.c_str(), &e);
	if (!s) {
		*err = "debugfs " + name + ": error " + std::to_string(e);
		return "";
	}
	std::string r(s);
	std::free(s);
	return r;
}

int Model::set_tunable(const std::string &name, const std::string &value)
{
	ssize_t r = sim_elv_attr_store(q_->elevator, name.c_str(), value.c_str());
	return r < 0 ? static_cast<int>(r) : 0;
}

std::string Model::check_invariants() const
{
	std::ostringstream err;
	if (!hctx_dispatch_.empty() && outstanding() == 0)
		err << hctx_dispatch_.size() << " requests left on hctx->dispatch; ";
	if (counters_.completed > counters_.dispatched)
		err << "more completions (" << counters_.completed << ") than dispatches ("
		    << counters_.dispatched << "); ";
	if (outstanding() == 0 && pending_events() == 0) {
		if (counters_.dispatched != counters_.completed + counters_.driver_requeues)
			err << "dispatched " << counters_.dispatched << " but completed "
			    << counters_.completed << " and requeued by the driver "
			    << counters_.driver_requeues << "; ";
		if (counters_.requests != counters_.completed + counters_.rq_merges)
			err << "requests " << counters_.requests << " != completed "
			    << counters_.completed << " + merged away " << counters_.rq_merges
			    << "; ";
	}
	if (unsigned long v = sim_blk_violations() - violations_at_start_)
		err << v << " block core invariants broken by the scheduler (last: "
		    << sim_blk_violation_last() << "); ";
	if (shallow_below_min_)
		err << shallow_below_min_
		    << " tag allocations with a shallow depth below the scheduler's"
		       " min_shallow_depth (sbitmap_queue_min_shallow_depth() missing); ";
	if (!in_device_.empty() && dev_->in_flight() == 0)
		err << in_device_.size() << " requests lost by the device; ";
	if (sched_tags_) {
		const struct sbitmap_queue &bt = sched_tags_->bitmap_tags;
		if (static_cast<size_t>(atomic_read(&bt.ws_active)) != waiters_.size())
			err << "ws_active " << atomic_read(&bt.ws_active) << " but "
			    << waiters_.size() << " submitters sleep for a tag; ";
		if (bt.sb.sim_in_use != rqs_.size() - free_tags_.size())
			err << "sbitmap_weight " << bt.sb.sim_in_use << " but "
			    << rqs_.size() - free_tags_.size() << " tags taken; ";
	}
	return err.str();
}

} // namespace efqsim::blk
