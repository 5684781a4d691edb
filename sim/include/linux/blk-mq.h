/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: struct request and the hardware context as schedulers see
 * them (6.1 field names), and the blk-mq calls schedulers make.
 *
 * Kind: kernel behaviour (6.1's struct request, RQF_*, helpers; 6.12's RQF_USE_SCHED not followed)
 * Exceptions: runs and frees go to the block model (simulation); blk_rq_cur_bytes() differs
 */
#ifndef _SIM_LINUX_BLK_MQ_H
#define _SIM_LINUX_BLK_MQ_H

#include <linux/blkdev.h>
#include <linux/bug.h>
#include <linux/rbtree_types.h>
#include <linux/sbitmap.h>

struct blk_mq_ctx;
struct io_cq;

typedef __u32 __bitwise req_flags_t;
typedef __u32 __bitwise blk_mq_req_flags_t;

#define RQF_STARTED ((__force req_flags_t)(1 << 1))
#define RQF_SOFTBARRIER ((__force req_flags_t)(1 << 3))
#define RQF_FLUSH_SEQ ((__force req_flags_t)(1 << 4))
#define RQF_MIXED_MERGE ((__force req_flags_t)(1 << 5))
#define RQF_MQ_INFLIGHT ((__force req_flags_t)(1 << 6))
#define RQF_DONTPREP ((__force req_flags_t)(1 << 7))
#define RQF_FAILED ((__force req_flags_t)(1 << 10))
#define RQF_QUIET ((__force req_flags_t)(1 << 11))
#define RQF_ELVPRIV ((__force req_flags_t)(1 << 12))
#define RQF_IO_STAT ((__force req_flags_t)(1 << 13))
#define RQF_PM ((__force req_flags_t)(1 << 15))
#define RQF_HASHED ((__force req_flags_t)(1 << 16))
#define RQF_STATS ((__force req_flags_t)(1 << 17))
#define RQF_SPECIAL_PAYLOAD ((__force req_flags_t)(1 << 18))
#define RQF_ZONE_WRITE_LOCKED ((__force req_flags_t)(1 << 19))
#define RQF_TIMED_OUT ((__force req_flags_t)(1 << 21))
#define RQF_ELV ((__force req_flags_t)(1 << 22))
#define RQF_RESV ((__force req_flags_t)(1 << 23))
#define RQF_NOMERGE_FLAGS (RQF_STARTED | RQF_SOFTBARRIER | RQF_FLUSH_SEQ | RQF_SPECIAL_PAYLOAD)

enum mq_rq_state {
	MQ_RQ_IDLE = 0,
	MQ_RQ_IN_FLIGHT = 1,
	MQ_RQ_COMPLETE = 2,
};

struct request {
	struct request_queue *q;
	struct blk_mq_ctx *mq_ctx;
	struct blk_mq_hw_ctx *mq_hctx;

	blk_opf_t cmd_flags;
	req_flags_t rq_flags;

	int tag;
	int internal_tag;

	unsigned int timeout;

	unsigned int __data_len;
	sector_t __sector;

	struct bio *bio;
	struct bio *biotail;

	union {
		struct list_head queuelist;
		struct request *rq_next;
	};

	struct block_device *part;
	u64 alloc_time_ns;
	u64 start_time_ns;
	u64 io_start_time_ns;

	unsigned short stats_sectors;
	unsigned short nr_phys_segments;
	unsigned short write_hint;
	unsigned short ioprio;

	enum mq_rq_state state;
	atomic_t ref;
	unsigned long deadline;

	struct hlist_node hash;
	struct rb_node rb_node;

	union {
		struct {
			struct io_cq *icq;
			void *priv[2];
		} elv;
		struct {
			unsigned int seq;
			struct list_head list;
		} flush;
	};

	u64 fifo_time;

	void *end_io_data;
	/* sim: the model's per-request data */
	void *sim_priv;
};

struct blk_mq_tags {
	unsigned int nr_tags;
	unsigned int nr_reserved_tags;
	unsigned int active_queues;
	struct sbitmap_queue bitmap_tags;
	struct sbitmap_queue breserved_tags;
	struct request **rqs;
	struct request **static_rqs;
	spinlock_t lock;
};

struct blk_mq_hw_ctx {
	struct {
		spinlock_t lock;
		struct list_head dispatch;
		unsigned long state;
	};
	unsigned long flags;
	void *sched_data;
	struct request_queue *queue;
	void *driver_data;
	unsigned int dispatch_busy;
	unsigned short type;
	unsigned short nr_ctx;
	struct blk_mq_tags *tags;
	struct blk_mq_tags *sched_tags;
	unsigned long queued;
	unsigned long run;
	unsigned int numa_node;
	unsigned int queue_num;
	atomic_t nr_active;
	struct list_head hctx_list;
};

enum {
	BLK_MQ_S_STOPPED,
	BLK_MQ_S_TAG_ACTIVE,
	BLK_MQ_S_SCHED_RESTART,
	BLK_MQ_S_INACTIVE,
	BLK_MQ_S_MAX
};

#define queue_for_each_hw_ctx(q, hctx, i)                                      \
	for ((i) = 0; (i) < (q)->nr_hw_queues && ((hctx) = (q)->sim_hctxs[i]); (i)++)

static inline enum req_op req_op(const struct request *req)
{
	return (enum req_op)(req->cmd_flags & REQ_OP_MASK);
}

static inline bool blk_rq_is_passthrough(struct request *rq)
{
	return req_op(rq) == REQ_OP_DRV_IN || req_op(rq) == REQ_OP_DRV_OUT;
}

#define rq_data_dir(rq) (op_is_write(req_op(rq)) ? WRITE : READ)

/* The ranges of a discard request: its nr_phys_segments, at least 1. */
static inline unsigned short blk_rq_nr_discard_segments(struct request *rq)
{
	return rq->nr_phys_segments > 1 ? rq->nr_phys_segments : 1;
}

static inline unsigned short req_get_ioprio(struct request *req)
{
	return req->ioprio;
}

static inline bool rq_is_sync(struct request *rq)
{
	return op_is_sync(rq->cmd_flags);
}

static inline sector_t blk_rq_pos(const struct request *rq)
{
	return rq->__sector;
}

static inline unsigned int blk_rq_bytes(const struct request *rq)
{
	return rq->__data_len;
}

static inline unsigned int blk_rq_sectors(const struct request *rq)
{
	return blk_rq_bytes(rq) >> SECTOR_SHIFT;
}

static inline unsigned int blk_rq_cur_bytes(const struct request *rq)
{
	return rq->bio ? rq->bio->bi_iter.bi_size : blk_rq_bytes(rq);
}

static inline unsigned int blk_rq_cur_sectors(const struct request *rq)
{
	return blk_rq_cur_bytes(rq) >> SECTOR_SHIFT;
}

static inline bool blk_mq_is_reserved_rq(struct request *rq)
{
	return rq->rq_flags & RQF_RESV;
}

/*
 * Zone write locking (6.1 with CONFIG_BLK_DEV_ZONED, as Debian builds it).
 * Only a disk with zone write locks (a zoned one) ever needs one; the sim
 * models no zoned disk, so no request needs a lock, no zone is ever
 * locked, and unlocking only clears a flag nobody set -- what 6.1 does on
 * every disk that is not zoned.  A zoned queue is reported: the sim
 * cannot honour its locks.
 */
static inline bool blk_req_needs_zone_write_lock(struct request *rq)
{
	if (blk_rq_is_passthrough(rq))
		return false;
	WARN(blk_queue_is_zoned(rq->q), "efqsim models no zoned device: no zone write locks");
	return false;
}

static inline void blk_req_zone_write_lock(struct request *rq)
{
	if (blk_req_needs_zone_write_lock(rq))
		BUG(); /* unreachable: no disk has zone write locks */
}

static inline void blk_req_zone_write_unlock(struct request *rq)
{
	rq->rq_flags &= ~RQF_ZONE_WRITE_LOCKED;
}

static inline bool blk_req_zone_is_write_locked(struct request *rq __always_unused)
{
	return false;
}

static inline bool blk_req_can_dispatch_to_zone(struct request *rq)
{
	return !blk_req_needs_zone_write_lock(rq) || !blk_req_zone_is_write_locked(rq);
}

#define list_entry_rq(ptr) list_entry((ptr), struct request, queuelist)

#define __rq_for_each_bio(_bio, rq) \
	if ((rq->bio))              \
		for (_bio = (rq)->bio; _bio; _bio = _bio->bi_next)

SIM_BEGIN_DECLS
/* Calls q->sim_run_hw_queues if set; counts the call in q->sim_run_count. */
void blk_mq_run_hw_queues(struct request_queue *q, bool async);
void blk_mq_run_hw_queue(struct blk_mq_hw_ctx *hctx, bool async);
void blk_mq_delay_run_hw_queues(struct request_queue *q, unsigned long msecs);
SIM_END_DECLS

SIM_BEGIN_DECLS
/* Ends the scheduler's part (finish_request) and gives the tag back through
 * the sim's block model (request_queue.sim_free_request). */
void blk_mq_free_request(struct request *rq);
SIM_END_DECLS

#endif
