/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: request queues and disks, with the 6.1 fields schedulers
 * and blkcg use, plus a few sim_* fields the sim's block layer model
 * fills in (see <sim/blk.h>).
 *
 * Kind: kernel behaviour (6.1's request_queue, gendisk, flags; 6.12's BLK_FEAT_* not followed)
 * Exceptions: the sim_* fields are the block model's (simulation); freezing only counts (stub)
 */
#ifndef _SIM_LINUX_BLKDEV_H
#define _SIM_LINUX_BLKDEV_H

#include <linux/types.h>
#include <linux/blk_types.h>
#include <linux/bio.h>
#include <linux/bitops.h>
#include <linux/fs.h>
#include <linux/kdev_t.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/rcupdate.h>
#include <linux/percpu-refcount.h>
#include <linux/sched.h>
#include <linux/sbitmap.h>
#include <linux/timer.h>
#include <linux/workqueue.h>
#include <linux/gfp.h>
#include <linux/err.h>
#include <linux/kobject.h>

struct blkcg_gq;
struct elevator_queue;
struct blk_mq_hw_ctx;
struct blk_mq_tags;
struct blk_mq_tag_set;
struct request;

#define BLKCG_MAX_POLS 6
#define BLKDEV_DEFAULT_RQ 128
#define BLKDEV_MAX_RQ 128
#define DISK_NAME_LEN 32

/*
 * Zoned block devices: the sim models none (every queue is
 * BLK_ZONED_NONE), so no request ever needs a zone write lock.
 */
enum blk_zoned_model {
	BLK_ZONED_NONE = 0,
	BLK_ZONED_HA,
	BLK_ZONED_HM,
};

struct queue_limits {
	enum blk_zoned_model zoned;
	unsigned int max_hw_sectors;
	unsigned int max_sectors;
	unsigned int logical_block_size;
	unsigned short max_segments;
	unsigned short max_discard_segments;
	unsigned int max_discard_sectors;
};

typedef void (sim_run_hw_queues_fn)(struct request_queue *q, bool async);

struct request_queue {
	struct request *last_merge;
	struct elevator_queue *elevator;
	unsigned int queue_depth;
	unsigned int nr_hw_queues;
	void *queuedata;
	unsigned long queue_flags;
	int id;
	spinlock_t queue_lock;
	struct gendisk *disk;
	unsigned long nr_requests;
	struct list_head icq_list;
	DECLARE_BITMAP(blkcg_pols, BLKCG_MAX_POLS);
	struct blkcg_gq *root_blkg;
	struct list_head blkg_list;
	struct queue_limits limits;
	unsigned int required_elevator_features;
	int node;
	struct mutex sysfs_lock;
	struct blk_mq_tag_set *tag_set;
	int mq_freeze_depth;

	/* sim: the hardware contexts (the kernel keeps an xarray) */
	struct blk_mq_hw_ctx **sim_hctxs;
	/* sim: blk_mq_run_hw_queues() calls this if set */
	sim_run_hw_queues_fn *sim_run_hw_queues;
	void *sim_priv;
	/* the sim's block model: give a request's tag back (blk_mq_free_request) */
	void (*sim_free_request)(struct request_queue *q, struct request *rq);
	/* sim: every blk_mq_run_hw_queues() and blk_mq_sched_mark_restart_hctx() call */
	unsigned long sim_run_count;
	unsigned long sim_restart_count;
	bool sim_wbt_disabled;
	bool sim_dying;
};

struct gendisk {
	int major;
	int first_minor;
	int minors;
	char disk_name[DISK_NAME_LEN];
	struct request_queue *queue;
	unsigned long state;
	struct block_device *part0;
	/* sim: "MAJ:MIN", what blkg_dev_name() returns */
	char sim_devname[16];
};

static inline dev_t disk_devt(struct gendisk *disk)
{
	return MKDEV(disk->major, disk->first_minor);
}

#define QUEUE_FLAG_STOPPED 0
#define QUEUE_FLAG_DYING 1
#define QUEUE_FLAG_NOMERGES 3
#define QUEUE_FLAG_SAME_COMP 4
#define QUEUE_FLAG_NONROT 6
#define QUEUE_FLAG_VIRT QUEUE_FLAG_NONROT
#define QUEUE_FLAG_IO_STAT 7
#define QUEUE_FLAG_NOXMERGES 9
#define QUEUE_FLAG_ADD_RANDOM 10
#define QUEUE_FLAG_INIT_DONE 14
#define QUEUE_FLAG_WC 17
#define QUEUE_FLAG_FUA 18
#define QUEUE_FLAG_STATS 20
#define QUEUE_FLAG_REGISTERED 22
#define QUEUE_FLAG_QUIESCED 24
#define QUEUE_FLAG_SQ_SCHED 30

static inline void blk_queue_flag_set(unsigned int flag, struct request_queue *q)
{
	set_bit(flag, &q->queue_flags);
}

static inline void blk_queue_flag_clear(unsigned int flag, struct request_queue *q)
{
	clear_bit(flag, &q->queue_flags);
}

static inline bool blk_queue_flag_test_and_set(unsigned int flag, struct request_queue *q)
{
	return test_and_set_bit(flag, &q->queue_flags);
}

#define blk_queue_dying(q) test_bit(QUEUE_FLAG_DYING, &(q)->queue_flags)
#define blk_queue_nonrot(q) test_bit(QUEUE_FLAG_NONROT, &(q)->queue_flags)
static inline unsigned short queue_max_discard_segments(const struct request_queue *q)
{
	return q->limits.max_discard_segments;
}

#define blk_queue_nomerges(q) test_bit(QUEUE_FLAG_NOMERGES, &(q)->queue_flags)
#define blk_queue_noxmerges(q) test_bit(QUEUE_FLAG_NOXMERGES, &(q)->queue_flags)
#define blk_queue_sq_sched(q) test_bit(QUEUE_FLAG_SQ_SCHED, &(q)->queue_flags)
#define blk_queue_registered(q) test_bit(QUEUE_FLAG_REGISTERED, &(q)->queue_flags)

static inline bool queue_is_mq(struct request_queue *q __always_unused)
{
	return true;
}

static inline struct request_queue *bdev_get_queue(struct block_device *bdev)
{
	return bdev->bd_queue;
}

static inline unsigned int queue_max_hw_sectors(const struct request_queue *q)
{
	return q->limits.max_hw_sectors;
}

static inline enum blk_zoned_model blk_queue_zoned_model(struct request_queue *q)
{
	return q->limits.zoned;
}

/* Host-aware and host-managed devices are zoned; the sim has neither. */
static inline bool blk_queue_is_zoned(struct request_queue *q)
{
	return blk_queue_zoned_model(q) == BLK_ZONED_HA ||
	       blk_queue_zoned_model(q) == BLK_ZONED_HM;
}

#define ELEVATOR_F_ZBD_SEQ_WRITE (1U << 0)

SIM_BEGIN_DECLS
/* The disk registered with sim_queue_init() under @dev (partition 0 only). */
struct block_device *blkdev_get_by_dev(dev_t dev, fmode_t mode, void *holder);
void blkdev_put(struct block_device *bdev, fmode_t mode);
void blk_mq_freeze_queue(struct request_queue *q);
void blk_mq_unfreeze_queue(struct request_queue *q);
SIM_END_DECLS

#include <linux/blk-mq.h>

#endif
