// SPDX-License-Identifier: GPL-2.0
// efqsim shim: the block core's request merging and freeing, doing exactly
// what Linux 6.1 does around a scheduler (block/elevator.c, blk-merge.c,
// blk-mq-sched.c, blk-mq.c) and nothing more: the one-hit q->last_merge
// cache, the back-merge hash, the scheduler's front-merge hook,
// request-to-request merges after a bio merge and at insert.
//
// What 6.1 leaves to the scheduler is left to the scheduler here too:
// - a request merged away (@next of requests_merged) is NOT taken off the
//   elevator hash and q->last_merge is not cleared for it;
// - blk_mq_free_request() does not touch q->last_merge or the hash;
// - elv_merged_request() re-hashes the request after a back merge even if
//   the scheduler had never hashed it;
// - a request handed to the driver stays mergeable unless the scheduler
//   sets RQF_STARTED (blk_mq_start_request() does not, in 6.1).
// Where the kernel would then corrupt data, oops or BUG, the shim reports
// an invariant violation (counted as a WARN: the test fails) and goes on
// without the bad merge:
// - q->last_merge, or a hashed request, whose rq->bio is NULL (completed):
//   6.1 dereferences rq->bio in blk_cgroup_mergeable(): an oops;
// - a bio or a request merged into a request the driver already has: its
//   data never reaches the device, yet it completes (silent corruption);
// - a request freed while still on the elevator hash (6.1 re-initialises
//   the linked node when the tag is reused: hash bucket corruption, then
//   "kernel BUG at block/elevator.c" in elv_rqhash_find) or while
//   q->last_merge points at it (use after free at the next merge).
// Tag handling is the sim's block model's (request_queue.sim_free_request);
// A request the driver has is one in MQ_RQ_IN_FLIGHT (the model sets it as
// blk_mq_start_request() does, and clears it at requeue and free).
#include <string>

#include "internal.h"

extern "C" {
#include <linux/bio.h>
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/iocontext.h>

#include "blk-cgroup.h"
#include "blk-mq-sched.h"
#include "blk.h"
#include "elevator.h"
#include <sim/blk.h>
}

namespace {

unsigned long g_violations;
std::string g_violation_last;

void violation(const char *what, struct request *rq)
{
	g_violations++;
	g_violation_last = sim::format("block core invariant broken by the scheduler: %s "
				       "(request at sector %llu, %u sectors, flags 0x%x)",
				       what, (unsigned long long)rq->__sector, rq->__data_len >> 9,
				       (unsigned int)rq->rq_flags);
	sim::warn(__FILE__, __LINE__, g_violation_last);
}

unsigned int max_sectors(struct request_queue *q)
{
	return q->limits.max_sectors ? q->limits.max_sectors : 2560;
}

// The driver has it (dispatched, not completed or requeued): set by the model.
bool in_driver(const struct request *rq)
{
	return rq->state == MQ_RQ_IN_FLIGHT;
}

// 6.1's blk_cgroup_mergeable() reads rq->bio->bi_blkg: a completed request
// (rq->bio NULL) oopses there.  The shim reports it and refuses the merge.
bool cgroup_mergeable(struct request *rq, struct bio *bio)
{
	if (!rq->bio) {
		violation("merge attempted into a completed request (rq->bio is NULL: "
			  "NULL pointer dereference in blk_cgroup_mergeable)",
			  rq);
		return false;
	}
	return blk_cgroup_mergeable(rq, bio);
}

// blk_rq_merge_ok()
bool rq_merge_ok(struct request *rq, struct bio *bio)
{
	if (!rq_mergeable(rq) || !bio_mergeable(bio))
		return false;
	if (req_op(rq) != bio_op(bio))
		return false;
	if (bio_data_dir(bio) != rq_data_dir(rq))
		return false;
	if (!cgroup_mergeable(rq, bio))
		return false;
	if (rq->ioprio != bio->bi_ioprio)
		return false;
	return true;
}

// blk_try_merge() (no multi-range discards in the model)
enum elv_merge try_merge(struct request *rq, struct bio *bio)
{
	if (blk_rq_pos(rq) + blk_rq_sectors(rq) == bio->bi_iter.bi_sector)
		return ELEVATOR_BACK_MERGE;
	if (blk_rq_pos(rq) - bio_sectors(bio) == bio->bi_iter.bi_sector)
		return ELEVATOR_FRONT_MERGE;
	return ELEVATOR_NO_MERGE;
}

bool bio_fits(struct request *rq, struct bio *bio)
{
	return blk_rq_sectors(rq) + bio_sectors(bio) <= max_sectors(rq->q);
}

// The request a bio or a request is about to join must not be the driver's.
bool joinable(struct request *rq)
{
	if (in_driver(rq)) {
		violation("merge into a request the driver already has (its new data "
			  "would never reach the device)",
			  rq);
		return false;
	}
	return true;
}

void back_merge_bio(struct request *rq, struct bio *bio)
{
	bio->bi_next = nullptr;
	rq->biotail->bi_next = bio;
	rq->biotail = bio;
	rq->__data_len += bio->bi_iter.bi_size;
}

void front_merge_bio(struct request *rq, struct bio *bio)
{
	bio->bi_next = rq->bio;
	rq->bio = bio;
	rq->__sector = bio->bi_iter.bi_sector;
	rq->__data_len += bio->bi_iter.bi_size;
}

// elv_rqhash_reposition(): unconditional, as in 6.1
void rqhash_reposition(struct request_queue *q, struct request *rq)
{
	hlist_del_init(&rq->hash);
	rq->rq_flags &= ~RQF_HASHED;
	elv_rqhash_add(q, rq);
}

// elv_merge_requests()
void merge_requests(struct request_queue *q, struct request *rq, struct request *next)
{
	struct elevator_queue *e = q->elevator;
	if (e->type->ops.requests_merged)
		e->type->ops.requests_merged(q, rq, next);
	rqhash_reposition(q, rq);
	q->last_merge = rq;
}

// attempt_merge(): merge @next into @rq if they are contiguous and
// compatible; returns @next (empty, for the caller to free) or nullptr.
struct request *attempt_merge(struct request_queue *q, struct request *rq, struct request *next)
{
	if (!rq_mergeable(rq) || !rq_mergeable(next))
		return nullptr;
	if (req_op(rq) != req_op(next) || rq_data_dir(rq) != rq_data_dir(next))
		return nullptr;
	if (rq->ioprio != next->ioprio)
		return nullptr;
	if (blk_rq_pos(rq) + blk_rq_sectors(rq) != blk_rq_pos(next))
		return nullptr;
	// ll_merge_requests_fn()
	if (blk_rq_sectors(rq) + blk_rq_sectors(next) > max_sectors(q))
		return nullptr;
	if (!next->bio) {
		violation("request merge of a completed request (next->bio is NULL)", next);
		return nullptr;
	}
	if (!cgroup_mergeable(rq, next->bio))
		return nullptr;
	if (!joinable(rq) || !joinable(next))
		return nullptr;

	if (next->start_time_ns < rq->start_time_ns)
		rq->start_time_ns = next->start_time_ns;
	rq->biotail->bi_next = next->bio;
	rq->biotail = next->biotail;
	rq->__data_len += blk_rq_bytes(next);
	merge_requests(q, rq, next);
	next->bio = nullptr;
	return next;
}

struct request *latter_request(struct request_queue *q, struct request *rq)
{
	struct elevator_queue *e = q->elevator;
	return e->type->ops.next_request ? e->type->ops.next_request(q, rq) : nullptr;
}

struct request *former_request(struct request_queue *q, struct request *rq)
{
	struct elevator_queue *e = q->elevator;
	return e->type->ops.former_request ? e->type->ops.former_request(q, rq) : nullptr;
}

// elv_merged_request()
void note_merged(struct request_queue *q, struct request *rq, enum elv_merge type)
{
	struct elevator_queue *e = q->elevator;
	if (e->type->ops.request_merged)
		e->type->ops.request_merged(q, rq, type);
	// a front merge moved the request's start: 6.1 leaves re-sorting it to
	// the scheduler (mq-deadline's dd_request_merged does), so check it here
	if (type == ELEVATOR_FRONT_MERGE)
		sim::check_rq_sorted(rq, "elv_merged_request() after a front merge");
	if (type == ELEVATOR_BACK_MERGE)
		rqhash_reposition(q, rq);
	q->last_merge = rq;
}

// blk_mq_sched_allow_merge()
bool sched_allow_merge(struct request_queue *q, struct request *rq, struct bio *bio)
{
	struct elevator_queue *e = q->elevator;
	if (e->type->ops.allow_merge)
		return e->type->ops.allow_merge(q, rq, bio);
	return true;
}

} // namespace

extern "C" {

bool elv_bio_merge_ok(struct request *rq, struct bio *bio)
{
	if (!rq_merge_ok(rq, bio))
		return false;
	const struct elevator_queue *e = rq->q->elevator;
	if (e->type->ops.allow_merge)
		return e->type->ops.allow_merge(rq->q, rq, bio);
	return true;
}

struct request *elv_rqhash_find(struct request_queue *q, sector_t offset)
{
	struct elevator_queue *e = q->elevator;
	struct hlist_node *n, *next;

	for (n = e->hash[offset % (1 << ELV_HASH_BITS)].first; n; n = next) {
		next = n->next;
		struct request *rq = container_of(n, struct request, hash);
		if (!(rq->rq_flags & RQF_HASHED)) {
			violation("a request on the elevator hash without RQF_HASHED "
				  "(kernel BUG at block/elevator.c in elv_rqhash_find)",
				  rq);
			hlist_del_init(&rq->hash);
			continue;
		}
		if (!rq_mergeable(rq)) {
			elv_rqhash_del(q, rq);
			continue;
		}
		if (blk_rq_pos(rq) + blk_rq_sectors(rq) == offset)
			return rq;
	}
	return nullptr;
}

enum elv_merge elv_merge(struct request_queue *q, struct request **req, struct bio *bio)
{
	struct elevator_queue *e = q->elevator;

	if (blk_queue_nomerges(q) || !bio_mergeable(bio))
		return ELEVATOR_NO_MERGE;
	if (q->last_merge && elv_bio_merge_ok(q->last_merge, bio)) {
		enum elv_merge type = try_merge(q->last_merge, bio);
		if (type != ELEVATOR_NO_MERGE) {
			*req = q->last_merge;
			return type;
		}
	}
	if (blk_queue_noxmerges(q))
		return ELEVATOR_NO_MERGE;
	struct request *rq = elv_rqhash_find(q, bio->bi_iter.bi_sector);
	if (rq && elv_bio_merge_ok(rq, bio)) {
		*req = rq;
		return ELEVATOR_BACK_MERGE;
	}
	if (e->type->ops.request_merge)
		return (enum elv_merge)e->type->ops.request_merge(q, req, bio);
	return ELEVATOR_NO_MERGE;
}

bool blk_mq_sched_try_merge(struct request_queue *q, struct bio *bio, unsigned int /*nr_segs*/,
			    struct request **merged_request)
{
	struct request *rq = nullptr;

	switch (elv_merge(q, &rq, bio)) {
	case ELEVATOR_BACK_MERGE:
		if (!sched_allow_merge(q, rq, bio) || !bio_fits(rq, bio) || !joinable(rq))
			return false;
		back_merge_bio(rq, bio);
		*merged_request = nullptr;
		if (struct request *next = latter_request(q, rq))
			*merged_request = attempt_merge(q, rq, next);
		if (!*merged_request)
			note_merged(q, rq, ELEVATOR_BACK_MERGE);
		return true;
	case ELEVATOR_FRONT_MERGE:
		if (!sched_allow_merge(q, rq, bio) || !bio_fits(rq, bio) || !joinable(rq))
			return false;
		front_merge_bio(rq, bio);
		*merged_request = nullptr;
		if (struct request *prev = former_request(q, rq))
			*merged_request = attempt_merge(q, prev, rq);
		if (!*merged_request)
			note_merged(q, rq, ELEVATOR_FRONT_MERGE);
		return true;
	default:
		return false;
	}
}

unsigned long sim_blk_violations(void)
{
	return g_violations;
}

const char *sim_blk_violation_last(void)
{
	return g_violation_last.c_str();
}

// blk_attempt_bio_merge(q, rq, bio, nr_segs, false) of blk_attempt_plug_merge()
bool sim_plug_merge(struct request *rq, struct bio *bio)
{
	if (blk_queue_nomerges(rq->q) || !bio_mergeable(bio) || !rq_merge_ok(rq, bio) ||
	    !bio_fits(rq, bio))
		return false;
	switch (try_merge(rq, bio)) {
	case ELEVATOR_BACK_MERGE:
		back_merge_bio(rq, bio);
		return true;
	case ELEVATOR_FRONT_MERGE:
		front_merge_bio(rq, bio);
		return true;
	default:
		return false;
	}
}

// elv_attempt_insert_merge(), which blk_mq_sched_try_insert_merge() calls
bool blk_mq_sched_try_insert_merge(struct request_queue *q, struct request *rq,
				   struct list_head *free)
{
	if (blk_queue_nomerges(q))
		return false;
	if (q->last_merge && attempt_merge(q, q->last_merge, rq)) {
		list_add(&rq->queuelist, free);
		return true;
	}
	if (blk_queue_noxmerges(q))
		return false;
	bool ret = false;
	for (;;) {
		struct request *prev = elv_rqhash_find(q, blk_rq_pos(rq));
		if (!prev || !attempt_merge(q, prev, rq))
			break;
		list_add(&rq->queuelist, free);
		ret = true;
		rq = prev;
	}
	return ret;
}

void blk_mq_free_request(struct request *rq)
{
	struct request_queue *q = rq->q;
	struct elevator_queue *e = q->elevator;

	if ((rq->rq_flags & RQF_ELVPRIV) && e && e->type->ops.finish_request)
		e->type->ops.finish_request(rq);
	// reported, then repaired so that the run can go on to report more
	if (rq->rq_flags & RQF_HASHED) {
		violation("request freed while on the elevator hash", rq);
		elv_rqhash_del(q, rq);
	}
	if (q->last_merge == rq) {
		violation("request freed while q->last_merge points at it", rq);
		q->last_merge = nullptr;
	}
	rq->state = MQ_RQ_IDLE;
	if (q->sim_free_request)
		q->sim_free_request(q, rq);
}

} // extern "C"
