/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: block layer types -- operations and flags (6.1's values),
 * struct bio and struct block_device with the fields the sim uses.
 *
 * Kind: kernel behaviour (6.1's operations and flag values; 6.12 the same for these)
 */
#ifndef _SIM_LINUX_BLK_TYPES_H
#define _SIM_LINUX_BLK_TYPES_H

#include <linux/types.h>
#include <linux/compiler.h>

struct bio;
struct block_device;
struct gendisk;
struct request_queue;
struct blkcg_gq;

typedef u32 __bitwise blk_opf_t;
typedef u8 __bitwise blk_status_t;
typedef u16 blk_short_t;
typedef unsigned int blk_qc_t;

#define BLK_STS_OK 0
#define BLK_STS_IOERR ((__force blk_status_t)10)

#define SECTOR_SHIFT 9
#define SECTOR_SIZE (1 << SECTOR_SHIFT)

struct block_device {
	sector_t bd_start_sect;
	dev_t bd_dev;
	u8 bd_partno;
	struct gendisk *bd_disk;
	struct request_queue *bd_queue;
};

static inline bool bdev_is_partition(struct block_device *bdev)
{
	return bdev->bd_partno != 0;
}

#define REQ_OP_BITS 8
#define REQ_OP_MASK ((__force blk_opf_t)((1 << REQ_OP_BITS) - 1))
#define REQ_FLAG_BITS 24

enum req_op {
	REQ_OP_READ = 0,
	REQ_OP_WRITE = 1,
	REQ_OP_FLUSH = 2,
	REQ_OP_DISCARD = 3,
	REQ_OP_SECURE_ERASE = 5,
	REQ_OP_ZONE_APPEND = 7,
	REQ_OP_WRITE_ZEROES = 9,
	REQ_OP_DRV_IN = 34,
	REQ_OP_DRV_OUT = 35,
	REQ_OP_LAST = 36,
};

enum req_flag_bits {
	__REQ_FAILFAST_DEV = REQ_OP_BITS,
	__REQ_FAILFAST_TRANSPORT,
	__REQ_FAILFAST_DRIVER,
	__REQ_SYNC,
	__REQ_META,
	__REQ_PRIO,
	__REQ_NOMERGE,
	__REQ_IDLE,
	__REQ_INTEGRITY,
	__REQ_FUA,
	__REQ_PREFLUSH,
	__REQ_RAHEAD,
	__REQ_BACKGROUND,
	__REQ_NOWAIT,
	__REQ_CGROUP_PUNT,
	__REQ_POLLED,
	__REQ_ALLOC_CACHE,
	__REQ_SWAP,
	__REQ_DRV,
	__REQ_NOUNMAP,
	__REQ_NR_BITS,
};

#define REQ_FAILFAST_DEV ((__force blk_opf_t)(1ULL << __REQ_FAILFAST_DEV))
#define REQ_FAILFAST_TRANSPORT ((__force blk_opf_t)(1ULL << __REQ_FAILFAST_TRANSPORT))
#define REQ_FAILFAST_DRIVER ((__force blk_opf_t)(1ULL << __REQ_FAILFAST_DRIVER))
#define REQ_SYNC ((__force blk_opf_t)(1ULL << __REQ_SYNC))
#define REQ_META ((__force blk_opf_t)(1ULL << __REQ_META))
#define REQ_PRIO ((__force blk_opf_t)(1ULL << __REQ_PRIO))
#define REQ_NOMERGE ((__force blk_opf_t)(1ULL << __REQ_NOMERGE))
#define REQ_IDLE ((__force blk_opf_t)(1ULL << __REQ_IDLE))
#define REQ_INTEGRITY ((__force blk_opf_t)(1ULL << __REQ_INTEGRITY))
#define REQ_FUA ((__force blk_opf_t)(1ULL << __REQ_FUA))
#define REQ_PREFLUSH ((__force blk_opf_t)(1ULL << __REQ_PREFLUSH))
#define REQ_RAHEAD ((__force blk_opf_t)(1ULL << __REQ_RAHEAD))
#define REQ_BACKGROUND ((__force blk_opf_t)(1ULL << __REQ_BACKGROUND))
#define REQ_NOWAIT ((__force blk_opf_t)(1ULL << __REQ_NOWAIT))
#define REQ_CGROUP_PUNT ((__force blk_opf_t)(1ULL << __REQ_CGROUP_PUNT))
#define REQ_POLLED ((__force blk_opf_t)(1ULL << __REQ_POLLED))
#define REQ_ALLOC_CACHE ((__force blk_opf_t)(1ULL << __REQ_ALLOC_CACHE))
#define REQ_SWAP ((__force blk_opf_t)(1ULL << __REQ_SWAP))
#define REQ_DRV ((__force blk_opf_t)(1ULL << __REQ_DRV))
#define REQ_NOUNMAP ((__force blk_opf_t)(1ULL << __REQ_NOUNMAP))

#define REQ_FAILFAST_MASK (REQ_FAILFAST_DEV | REQ_FAILFAST_TRANSPORT | REQ_FAILFAST_DRIVER)
#define REQ_NOMERGE_FLAGS (REQ_NOMERGE | REQ_PREFLUSH | REQ_FUA)

#define READ 0
#define WRITE 1

/* Writes have odd op numbers; reads, flushes and discards are ordered by op. */
static inline bool op_is_write(blk_opf_t op)
{
	return !!(op & (__force blk_opf_t)1);
}

static inline bool op_is_flush(blk_opf_t op)
{
	return op & (REQ_FUA | REQ_PREFLUSH);
}

/* Reads and REQ_SYNC/FUA/PREFLUSH writes are synchronous. */
static inline bool op_is_sync(blk_opf_t op)
{
	return (op & REQ_OP_MASK) == REQ_OP_READ ||
	       (op & (REQ_SYNC | REQ_FUA | REQ_PREFLUSH));
}

static inline bool op_is_discard(blk_opf_t op)
{
	return (op & REQ_OP_MASK) == REQ_OP_DISCARD;
}

static inline bool op_is_zone_mgmt(enum req_op op __always_unused)
{
	return false;
}

static inline int op_stat_group(enum req_op op)
{
	if (op_is_discard(op))
		return 2;
	return op_is_write(op);
}

struct bvec_iter {
	sector_t bi_sector;
	unsigned int bi_size;
	unsigned int bi_idx;
	unsigned int bi_bvec_done;
};

typedef void (bio_end_io_t)(struct bio *);

struct bio {
	struct bio *bi_next;
	struct block_device *bi_bdev;
	blk_opf_t bi_opf;
	unsigned short bi_flags;
	unsigned short bi_ioprio;
	blk_status_t bi_status;
	struct bvec_iter bi_iter;
	bio_end_io_t *bi_end_io;
	void *bi_private;
	struct blkcg_gq *bi_blkg;
};

static inline enum req_op bio_op(const struct bio *bio)
{
	return (enum req_op)(bio->bi_opf & REQ_OP_MASK);
}

#endif
