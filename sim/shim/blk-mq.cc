// SPDX-License-Identifier: GPL-2.0
// efqsim shim: the block core's request merging and freeing, with Linux
// 6.1's semantics (block/elevator.c, blk-merge.c, blk-mq-sched.c): the
// one-hit last_merge cache, the back-merge hash, the scheduler's front-merge
// hook, request-to-request merges at insert and after a bio merge.  Tag
// handling is the sim's block model's (request_queue.sim_free_request).
#include <linux/bio.h>
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/iocontext.h>

#include "blk-mq-sched.h"
#include "blk.h"
#include "elevator.h"

namespace {

unsigned int max_sectors(struct request_queue *q)
{
	return q->limits.max_sectors ? q->limits.max_sectors : 2560;
}

bool rq_same_kind(struct request *rq, struct bio *bio)
{
	return req_op(rq) == bio_op(bio) && rq_data_dir(rq) == bio_data_dir(bio);
}

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

void back_merge_bio(struct request *rq, struct bio *bio)
{
	bio->bi_next = nullptr;
	if (rq->biotail)
		rq->biotail->bi_next = bio;
	else
		rq->bio = bio;
	rq->biotail = bio;
	rq->__data_len += bio->bi_iter.bi_size;
}

void front_merge_bio(struct request *rq, struct bio *bio)
{
	bio->bi_next = rq->bio;
	rq->bio = bio;
	if (!rq->biotail)
		rq->biotail = bio;
	rq->__sector = bio->bi_iter.bi_sector;
	rq->__data_len += bio->bi_iter.bi_size;
}

void rqhash_reposition(struct request_queue *q, struct request *rq)
{
	elv_rqhash_del(q, rq);
	elv_rqhash_add(q, rq);
}

// Merge @next into @rq if they are contiguous and compatible; returns @next
// (now empty, for the caller to free) or nullptr.
struct request *attempt_merge(struct request_queue *q, struct request *rq, struct request *next)
{
	if (!rq_mergeable(rq) || !rq_mergeable(next))
		return nullptr;
	if (req_op(rq) != req_op(next) || rq_data_dir(rq) != rq_data_dir(next))
		return nullptr;
	if (blk_rq_pos(rq) + blk_rq_sectors(rq) != blk_rq_pos(next))
		return nullptr;
	if (rq->bio && next->bio && rq->bio->bi_blkg != next->bio->bi_blkg)
		return nullptr;
	if (blk_rq_sectors(rq) + blk_rq_sectors(next) > max_sectors(q))
		return nullptr;

	struct elevator_queue *e = q->elevator;
	if (e && e->type->ops.requests_merged)
		e->type->ops.requests_merged(q, rq, next);
	elv_rqhash_del(q, next);
	if (rq->rq_flags & RQF_HASHED) {
		// the end of @rq moves
		rq->__data_len += next->__data_len;
		rqhash_reposition(q, rq);
	} else {
		rq->__data_len += next->__data_len;
	}
	if (next->bio) {
		if (rq->biotail)
			rq->biotail->bi_next = next->bio;
		else
			rq->bio = next->bio;
		rq->biotail = next->biotail;
	}
	// the older request's deadline wins, as blk-mq keeps the earlier start
	if (next->start_time_ns < rq->start_time_ns)
		rq->start_time_ns = next->start_time_ns;
	next->bio = nullptr;
	next->biotail = nullptr;
	next->__data_len = 0;
	if (q->last_merge == next)
		q->last_merge = nullptr;
	return next;
}

struct request *latter_request(struct request_queue *q, struct request *rq)
{
	struct elevator_queue *e = q->elevator;
	return e && e->type->ops.next_request ? e->type->ops.next_request(q, rq) : nullptr;
}

struct request *former_request(struct request_queue *q, struct request *rq)
{
	struct elevator_queue *e = q->elevator;
	return e && e->type->ops.former_request ? e->type->ops.former_request(q, rq) : nullptr;
}

void note_merged(struct request_queue *q, struct request *rq, enum elv_merge type)
{
	struct elevator_queue *e = q->elevator;
	if (e && e->type->ops.request_merged)
		e->type->ops.request_merged(q, rq, type);
	if (type == ELEVATOR_BACK_MERGE && (rq->rq_flags & RQF_HASHED))
		rqhash_reposition(q, rq);
	q->last_merge = rq;
}

bool sched_allow_merge(struct request_queue *q, struct request *rq, struct bio *bio)
{
	struct elevator_queue *e = q->elevator;
	if ((rq->rq_flags & RQF_ELV) && e && e->type->ops.allow_merge)
		return e->type->ops.allow_merge(q, rq, bio);
	return true;
}

} // namespace

extern "C" {

struct request *elv_rqhash_find(struct request_queue *q, sector_t offset)
{
	struct elevator_queue *e = q->elevator;
	struct hlist_node *n, *next;

	for (n = e->hash[offset % (1 << ELV_HASH_BITS)].first; n; n = next) {
		next = n->next;
		struct request *rq = container_of(n, struct request, hash);
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

	if (!bio_mergeable(bio))
		return ELEVATOR_NO_MERGE;
	if (q->last_merge && rq_same_kind(q->last_merge, bio) &&
	    elv_bio_merge_ok(q->last_merge, bio)) {
		enum elv_merge type = try_merge(q->last_merge, bio);
		if (type != ELEVATOR_NO_MERGE) {
			*req = q->last_merge;
			return type;
		}
	}
	struct request *rq = elv_rqhash_find(q, bio->bi_iter.bi_sector);
	if (rq && rq_same_kind(rq, bio) && elv_bio_merge_ok(rq, bio)) {
		*req = rq;
		return ELEVATOR_BACK_MERGE;
	}
	if (e && e->type->ops.request_merge)
		return (enum elv_merge)e->type->ops.request_merge(q, req, bio);
	return ELEVATOR_NO_MERGE;
}

bool blk_mq_sched_try_merge(struct request_queue *q, struct bio *bio, unsigned int /*nr_segs*/,
			    struct request **merged_request)
{
	struct request *rq = nullptr;

	switch (elv_merge(q, &rq, bio)) {
	case ELEVATOR_BACK_MERGE:
		if (!sched_allow_merge(q, rq, bio) || !bio_fits(rq, bio))
			return false;
		back_merge_bio(rq, bio);
		*merged_request = nullptr;
		if (struct request *next = latter_request(q, rq))
			*merged_request = attempt_merge(q, rq, next);
		if (!*merged_request)
			note_merged(q, rq, ELEVATOR_BACK_MERGE);
		return true;
	case ELEVATOR_FRONT_MERGE:
		if (!sched_allow_merge(q, rq, bio) || !bio_fits(rq, bio))
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

bool blk_mq_sched_try_insert_merge(struct request_queue *q, struct request *rq,
				   struct list_head *free)
{
	bool ret = false;

	if (q->last_merge && attempt_merge(q, q->last_merge, rq)) {
		list_add(&rq->queuelist, free);
		return true;
	}
	for (;;) {
		struct request *prev = elv_rqhash_find(q, blk_rq_pos(rq));
		if (!prev || prev == rq || !attempt_merge(q, prev, rq))
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
	rq->rq_flags &= ~RQF_ELVPRIV;
	if (q->last_merge == rq)
		q->last_merge = nullptr;
	if (q->sim_free_request)
		q->sim_free_request(q, rq);
}

} // extern "C"
