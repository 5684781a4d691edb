// SPDX-License-Identifier: GPL-2.0
// A walk of the engine's trees, for the tests that check them between
// events (the engine's unit harness, the soak): one checker, so that both
// hold the engine to the same invariants.
#pragma once

#include <set>
#include <sstream>
#include <string>

#include <linux/elevator-fq.h>

namespace efqcheck {

// The engine's trees of an efq scheduler, walked: each entity on one tree
// at most, in its class's tree of its parent, trees ordered with the right
// cached leftmost, the counts (nr_active, nr_sync, busy_queues, nr_queued)
// what the walk finds, nothing stale in an idle tree, the queue in service
// in service at every level of its path.
class TreeWalk {
public:
	explicit TreeWalk(struct efq_data *efqd) : efqd_(efqd) {}

	std::string Check()
	{
		struct efq_group *root = efqd_->root_group;
		if (root->entity.on_st || root->entity.on_idle_st)
			Fail("the root group is on a tree", root);
		Group(root);
		if (busy_ != efqd_->busy_queues)
			err_ << "busy_queues " << efqd_->busy_queues << " but " << busy_
			     << " queues backlogged on the trees; ";
		if (queued_ != efqd_->nr_queued)
			err_ << "nr_queued " << efqd_->nr_queued
			     << " but the backlogged queues hold " << queued_ << "; ";
		// efq_limit_depth() reads nr_held alone as the groups' total: every
		// request a group holds is queued or in the driver, and an offline
		// group (off group_list) may still hold some
		if (efqd_->nr_held != efqd_->nr_queued + efqd_->rq_in_driver)
			err_ << "nr_held " << efqd_->nr_held << " but " << efqd_->nr_queued
			     << " queued and " << efqd_->rq_in_driver << " in the driver; ";
		uint64_t linked = root->nr_requests;
		struct efq_group *g;
		list_for_each_entry(g, &efqd_->group_list, efqd_node)
			linked += g->nr_requests;
		if (linked > efqd_->nr_held)
			err_ << "nr_held " << efqd_->nr_held << " but the linked groups hold "
			     << linked << "; ";
		if (struct efq_queue *aq = efqd_->active_queue) {
			if (!efq_queue_busy(aq))
				Fail("the active queue is not busy", aq);
			for (struct efq_entity *e = &aq->entity; e->parent; e = e->parent) {
				if (e->parent->my_sd->active_entity != e)
					Fail("a level of the active queue's path is not in service",
					     e);
				if (e->st->active_entity != e)
					Fail("st->active_entity is not the active queue's path", e);
			}
		} else if (root->sched_data.active_entity) {
			Fail("an entity in service without an active queue",
			     root->sched_data.active_entity);
		}
		return err_.str();
	}

private:
	static struct efq_queue *Queue(struct efq_entity *e)
	{
		return e->my_sd ? nullptr : container_of(e, struct efq_queue, entity);
	}
	static struct efq_group *GroupOf(struct efq_entity *e)
	{
		return e->my_sd ? container_of(e, struct efq_group, entity) : nullptr;
	}
	static bool CountsSync(struct efq_entity *e)
	{
		struct efq_queue *q = Queue(e);
		return q && efq_queue_sync(q) && e->ioprio_class != IOPRIO_CLASS_IDLE;
	}
	void Fail(const std::string &what, const void *p) { err_ << what << " (" << p << "); "; }

	void Entity(struct efq_entity *e, struct efq_group *g, struct efq_service_tree *st, int cls)
	{
		if (!seen_.insert(e).second)
			Fail("an entity on two trees, or twice on one", e);
		if (e->st != st)
			Fail("an entity's st is not the tree it is on", e);
		if (e->parent != &g->entity)
			Fail("an entity's parent is not the group whose tree holds it", e);
		if (e->ioprio_class != cls)
			Fail("an entity of class " + std::to_string(e->ioprio_class) +
				     " on the tree of class " + std::to_string(cls),
			     e);
	}

	void Backlogged(struct efq_entity *e, unsigned int *sync)
	{
		if (CountsSync(e))
			(*sync)++;
		if (e->counted_sync != CountsSync(e))
			Fail("counted_sync disagrees with the entity", e);
		if (struct efq_queue *q = Queue(e)) {
			busy_++;
			queued_ += q->nr_queued;
			if (!efq_queue_busy(q))
				Fail("a queue on a tree but not busy", q);
			// only the queue in service may be busy with nothing queued
			// (it idles or expires at the next selection); any other
			// would be chosen for a slice with no request to give
			if (!q->nr_queued && q != efqd_->active_queue)
				Fail("a busy queue not in service with nothing queued", q);
		} else {
			struct efq_group *child = GroupOf(e);
			if (!child->sched_data.nr_active)
				Fail("a backlogged group without backlogged children", child);
			Group(child);
		}
	}

	void Group(struct efq_group *g)
	{
		struct efq_sched_data *sd = &g->sched_data;
		unsigned int total = 0, sync = 0;
		bool active_found = sd->active_entity == nullptr;
		for (int c = 0; c < EFQ_NR_CLASSES; c++) {
			struct efq_service_tree *st = &sd->service_tree[c];
			unsigned int n = 0;
			bool first = true;
			s64 prev = 0;
			if (rb_first_cached(&st->active) != rb_first(&st->active.rb_root))
				Fail("an active tree's cached leftmost is stale", st);
			for (struct rb_node *rn = rb_first(&st->active.rb_root); rn;
			     rn = rb_next(rn)) {
				struct efq_entity *e = rb_entry(rn, struct efq_entity, rb_node);
				Entity(e, g, st, c + 1);
				if (!e->on_st || e->on_idle_st)
					Fail("an entity on an active tree without on_st", e);
				if (e == st->active_entity)
					Fail("the entity in service is also in the active tree", e);
				s64 key = (s64)(e->vdisktime - st->min_vdisktime);
				if (!first && key < prev)
					Fail("an active tree out of order", e);
				first = false;
				prev = key;
				n++;
				Backlogged(e, &sync);
			}
			if (struct efq_entity *e = st->active_entity) {
				Entity(e, g, st, c + 1);
				if (!e->on_st || e->on_idle_st)
					Fail("the entity in service without on_st", e);
				if (!RB_EMPTY_NODE(&e->rb_node))
					Fail("the entity in service still linked in a tree", e);
				if (sd->active_entity != e)
					Fail("st->active_entity != sd->active_entity", e);
				active_found = true;
				n++;
				Backlogged(e, &sync);
			}
			if (st->nr_active != n)
				Fail("st->nr_active " + std::to_string(st->nr_active) +
					     " but counted " + std::to_string(n),
				     st);
			total += n;
			if (rb_first_cached(&st->idle) != rb_first(&st->idle.rb_root))
				Fail("an idle tree's cached leftmost is stale", st);
			first = true;
			u64 prev_vt = 0;
			for (struct rb_node *rn = rb_first(&st->idle.rb_root); rn;
			     rn = rb_next(rn)) {
				struct efq_entity *e = rb_entry(rn, struct efq_entity, rb_node);
				Entity(e, g, st, c + 1);
				if (e->on_st || !e->on_idle_st)
					Fail("an entity in an idle tree with on_st or without "
					     "on_idle_st",
					     e);
				if (!first && (s64)(e->vdisktime - prev_vt) < 0)
					Fail("an idle tree out of order", e);
				if ((s64)(st->min_vdisktime - e->vdisktime) > 0)
					Fail("a stale entry in an idle tree (the clock passed it)",
					     e);
				if (e->exiting)
					Fail("an exiting entity in an idle tree", e);
				first = false;
				prev_vt = e->vdisktime;
				if (struct efq_queue *q = Queue(e)) {
					if (efq_queue_busy(q))
						Fail("a busy queue in an idle tree", q);
				} else {
					struct efq_group *child = GroupOf(e);
					if (child->sched_data.nr_active)
						Fail("a group with backlogged children in an idle "
						     "tree",
						     child);
					Group(child);
				}
			}
		}
		if (!active_found)
			Fail("sd->active_entity is in service on no tree", sd);
		if (sd->nr_active != total)
			Fail("sd->nr_active " + std::to_string(sd->nr_active) + " but counted " +
				     std::to_string(total),
			     sd);
		if (sd->nr_sync != sync)
			Fail("sd->nr_sync " + std::to_string(sd->nr_sync) + " but counted " +
				     std::to_string(sync),
			     sd);
	}

	struct efq_data *efqd_;
	std::ostringstream err_;
	std::set<struct efq_entity *> seen_;
	unsigned int busy_ = 0, queued_ = 0;
};

} // namespace efqcheck
