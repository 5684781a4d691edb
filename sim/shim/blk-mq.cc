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
//   sets RQF_STARTED (blk_mq_start_request() does not, in 6.1);
// - on a queue with max_discard_segments > 1, discards merge as lists of
//   ranges (blk_discard_mergable()): a bio or a request joins a discard
//   wherever it lies, and a request merged into a discard is freed without
//   elv_merge_requests(): the scheduler's requests_merged never hears of
//   it, so it stays on the scheduler's lists and on the hash unless the
//   scheduler never let the block core find it.
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
//   q->last_merge points at it (use after free at the next merge);
// - a request freed (or put on the insert-merge chain's free list) while
//   still on a scheduler's list or sort tree (rq->queuelist and rq->rb_node
//   are re-initialised at reuse too; the scheduler would then hand the
//   freed request to the driver).  The shim leaves such a request where
//   the scheduler has it, without its bios, not finished and with its tag;
//   the block model reports its dispatch and frees it then, which is when
//   the scheduler hears of it (finish_request).
// Tag handling is the sim's block model's (request_queue.sim_free_request);
// A request the driver has is one in MQ_RQ_IN_FLIGHT (the model sets it as
// blk_mq_start_request() does, and clears it at requeue and free).
//
// Kind: kernel behaviour (6.1's request merging and freeing; 6.12 the same for these)
// Exceptions: broken invariants are reported (WARN) and skipped; tags are the block model's
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

// blk_rq_get_max_sectors() (the model has no chunk_sectors): a discard's
// limit is max_discard_sectors, at most what fits the byte count of a bio.
unsigned int rq_max_sectors(struct request *rq)
{
	if (req_op(rq) == REQ_OP_DISCARD) {
		unsigned int lim = rq->q->limits.max_discard_sectors;
		return lim < (UINT_MAX >> SECTOR_SHIFT) ? lim : UINT_MAX >> SECTOR_SHIFT;
	}
	return max_sectors(rq->q);
}

// req_set_nomerge(): a merge into @rq failed on a limit; 6.1 never tries
// @rq again (REQ_NOMERGE) and drops it from q->last_merge.
void set_nomerge(struct request_queue *q, struct request *rq)
{
	rq->cmd_flags |= REQ_NOMERGE;
	if (q->last_merge == rq)
		q->last_merge = nullptr;
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

// blk_try_merge(): a multi-range discard takes a discard bio anywhere,
// everything else one that starts at its end or ends at its start.
enum elv_merge try_merge(struct request *rq, struct bio *bio)
{
	if (blk_discard_mergable(rq))
		return ELEVATOR_DISCARD_MERGE;
	if (blk_rq_pos(rq) + blk_rq_sectors(rq) == bio->bi_iter.bi_sector)
		return ELEVATOR_BACK_MERGE;
	if (blk_rq_pos(rq) - bio_sectors(bio) == bio->bi_iter.bi_sector)
		return ELEVATOR_FRONT_MERGE;
	return ELEVATOR_NO_MERGE;
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

// ll_back_merge_fn() and ll_front_merge_fn(): the size limit (reaching it
// marks @rq REQ_NOMERGE), then ll_new_hw_segment(): the cgroups again and
// the segments, of which a discard gains none (its nr_phys_segments stays;
// 6.1 counts a single-range discard as one segment whatever its bios).
// The segments of reads and writes are not modelled.
bool ll_bio_merge_ok(struct request *rq, struct bio *bio)
{
	if (blk_rq_sectors(rq) + bio_sectors(bio) > rq_max_sectors(rq) ||
	    !cgroup_mergeable(rq, bio)) {
		set_nomerge(rq->q, rq);
		return false;
	}
	return true;
}

// bio_attempt_back_merge() or bio_attempt_front_merge(), as @where says
bool attempt_bio_merge(struct request *rq, struct bio *bio, enum elv_merge where)
{
	if (!ll_bio_merge_ok(rq, bio) || !joinable(rq))
		return false;
	if (where == ELEVATOR_BACK_MERGE)
		back_merge_bio(rq, bio);
	else
		front_merge_bio(rq, bio);
	return true;
}

// bio_attempt_discard_merge(): @bio becomes one more range of @rq, at its
// tail, wherever it lies, while @rq has fewer ranges than
// max_discard_segments and stays within its size limit (else @rq is marked
// REQ_NOMERGE).  No scheduler is asked (no allow_merge, no request_merged).
bool attempt_discard_merge_bio(struct request_queue *q, struct request *rq, struct bio *bio)
{
	unsigned short segments = blk_rq_nr_discard_segments(rq);

	if (segments >= queue_max_discard_segments(q) ||
	    blk_rq_sectors(rq) + bio_sectors(bio) > rq_max_sectors(rq)) {
		set_nomerge(q, rq);
		return false;
	}
	if (!joinable(rq))
		return false;
	back_merge_bio(rq, bio);
	rq->nr_phys_segments = static_cast<unsigned short>(segments + 1);
	return true;
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

// attempt_merge(): merge @next into @rq if they are compatible and, unless
// @rq is a multi-range discard, contiguous; returns @next (empty, for the
// caller to free) or nullptr.
struct request *attempt_merge(struct request_queue *q, struct request *rq, struct request *next)
{
	if (!rq_mergeable(rq) || !rq_mergeable(next))
		return nullptr;
	if (req_op(rq) != req_op(next) || rq_data_dir(rq) != rq_data_dir(next))
		return nullptr;
	if (rq->ioprio != next->ioprio)
		return nullptr;

	// blk_try_req_merge()
	const bool ranges = blk_discard_mergable(rq);
	unsigned int segments; // @rq's nr_phys_segments after the merge
	if (ranges) {
		// req_attempt_discard_merge(): @next's ranges join @rq's, wherever
		// they lie, while @rq has fewer than max_discard_segments (6.1 then
		// adds all of @next's, possibly going past the limit, and checks
		// the size with @next's first bio only); cgroups are not compared
		if (!rq->bio || !next->bio) {
			violation("discard request merge with a completed request (rq->bio or "
				  "next->bio is NULL)",
				  rq->bio ? next : rq);
			return nullptr;
		}
		unsigned short have = blk_rq_nr_discard_segments(rq);
		if (have >= queue_max_discard_segments(q) ||
		    blk_rq_sectors(rq) + bio_sectors(next->bio) > rq_max_sectors(rq)) {
			set_nomerge(q, rq);
			return nullptr;
		}
		segments = have + (unsigned int)blk_rq_nr_discard_segments(next);
	} else {
		if (blk_rq_pos(rq) + blk_rq_sectors(rq) != blk_rq_pos(next))
			return nullptr;
		// ll_merge_requests_fn(): the size, the segments (counted for
		// discards only: on a single-range queue each discard request has
		// one, so two never merge), the cgroups
		if (blk_rq_sectors(rq) + blk_rq_sectors(next) > rq_max_sectors(rq))
			return nullptr;
		segments = (unsigned int)rq->nr_phys_segments + next->nr_phys_segments;
		if (req_op(rq) == REQ_OP_DISCARD && segments > queue_max_discard_segments(q))
			return nullptr;
		if (!next->bio) {
			violation("request merge of a completed request (next->bio is NULL)", next);
			return nullptr;
		}
		if (!cgroup_mergeable(rq, next->bio))
			return nullptr;
	}
	if (!joinable(rq) || !joinable(next))
		return nullptr;

	rq->nr_phys_segments = static_cast<unsigned short>(segments);
	if (next->start_time_ns < rq->start_time_ns)
		rq->start_time_ns = next->start_time_ns;
	rq->biotail->bi_next = next->bio;
	rq->biotail = next->biotail;
	rq->__data_len += blk_rq_bytes(next);
	// 6.1 calls elv_merge_requests() for every merge but a multi-range
	// discard one: then no requests_merged takes @next off the scheduler's
	// lists and the hash, and @rq is neither re-hashed nor q->last_merge.
	if (!ranges)
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

// A request leaves the scheduler's world (freed, or merged away into the
// caller's free list): what still points at it is reported, and the hash
// and q->last_merge repaired so that the run can go on to report more.
void unlink_freed(struct request_queue *q, struct request *rq)
{
	if (rq->rq_flags & RQF_HASHED) {
		violation("request freed while on the elevator hash", rq);
		elv_rqhash_del(q, rq);
	}
	if (q->last_merge == rq) {
		violation("request freed while q->last_merge points at it", rq);
		q->last_merge = nullptr;
	}
}

// Does the scheduler still have @rq, about to be freed, on a list or a sort
// tree?  6.1 re-initialises both nodes when the tag is reused (the
// scheduler's list and tree are then corrupt) and the scheduler would hand
// the freed request to the driver.  Reported; the shim then keeps the
// request as the scheduler sees it, without its bios and with its tag,
// until the block model meets it at dispatch and frees it (see the top).
bool still_queued(struct request *rq)
{
	bool on_list = !list_empty(&rq->queuelist), on_tree = !RB_EMPTY_NODE(&rq->rb_node);
	if (!on_list && !on_tree)
		return false;
	violation(on_list ? "request freed while still on a scheduler's list (merged away "
			    "without requests_merged?)"
			  : "request freed while still on a scheduler's sort tree (merged away "
			    "without requests_merged?)",
		  rq);
	unlink_freed(rq->q, rq);
	return true;
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
		return blk_discard_mergable(rq) ? ELEVATOR_DISCARD_MERGE : ELEVATOR_BACK_MERGE;
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
		if (!sched_allow_merge(q, rq, bio) ||
		    !attempt_bio_merge(rq, bio, ELEVATOR_BACK_MERGE))
			return false;
		*merged_request = nullptr;
		if (struct request *next = latter_request(q, rq))
			*merged_request = attempt_merge(q, rq, next);
		if (!*merged_request)
			note_merged(q, rq, ELEVATOR_BACK_MERGE);
		return true;
	case ELEVATOR_FRONT_MERGE:
		if (!sched_allow_merge(q, rq, bio) ||
		    !attempt_bio_merge(rq, bio, ELEVATOR_FRONT_MERGE))
			return false;
		*merged_request = nullptr;
		if (struct request *prev = former_request(q, rq))
			*merged_request = attempt_merge(q, prev, rq);
		if (!*merged_request)
			note_merged(q, rq, ELEVATOR_FRONT_MERGE);
		return true;
	case ELEVATOR_DISCARD_MERGE:
		// no allow_merge, no elv_merged_request(): q->last_merge and the
		// hash stay as they are
		return attempt_discard_merge_bio(q, rq, bio);
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

void sim_blk_violation(const char *what, struct request *rq)
{
	violation(what, rq);
}

// blk_attempt_bio_merge(q, rq, bio, nr_segs, false) of blk_attempt_plug_merge()
bool sim_plug_merge(struct request *rq, struct bio *bio)
{
	if (blk_queue_nomerges(rq->q) || !bio_mergeable(bio) || !rq_merge_ok(rq, bio))
		return false;
	switch (enum elv_merge where = try_merge(rq, bio)) {
	case ELEVATOR_BACK_MERGE:
	case ELEVATOR_FRONT_MERGE:
		return attempt_bio_merge(rq, bio, where);
	case ELEVATOR_DISCARD_MERGE:
		return attempt_discard_merge_bio(rq->q, rq, bio);
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
		// 6.1 puts every request merged away on @free through
		// rq->queuelist, even one the scheduler still has there (merged
		// without requests_merged), corrupting the scheduler's list; the
		// shim reports it and leaves that request where it is
		if (!still_queued(rq))
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

	// A request the scheduler still has on a list or tree stays as it is
	// (see the top): not finished, its tag kept.
	if (still_queued(rq))
		return;
	if ((rq->rq_flags & RQF_ELVPRIV) && e && e->type->ops.finish_request)
		e->type->ops.finish_request(rq);
	unlink_freed(q, rq);
	rq->state = MQ_RQ_IDLE;
	if (q->sim_free_request)
		q->sim_free_request(q, rq);
}

} // extern "C"
