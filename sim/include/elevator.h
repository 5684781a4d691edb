/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim of block/elevator.h (6.1): the elevator type and ops table,
 * registration into the sim's registry (sim_elv_find() in <sim/blk.h>),
 * elevator_alloc(), and the sector-sorted rbtree helpers.
 *
 * Kind: kernel behaviour (6.1's block/elevator.[ch]; 6.12's insert_requests flags not followed)
 * Exceptions: elv_register() fills the sim's registry (sim_elv_find())
 */
#ifndef _SIM_ELEVATOR_H
#define _SIM_ELEVATOR_H

#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/kobject.h>
#include <linux/mutex.h>
#include <linux/rbtree.h>

struct io_cq;
struct elevator_type;
struct blk_mq_debugfs_attr;
struct blk_mq_alloc_data;
struct blk_mq_hw_ctx;

enum elv_merge {
	ELEVATOR_NO_MERGE = 0,
	ELEVATOR_FRONT_MERGE = 1,
	ELEVATOR_BACK_MERGE = 2,
	ELEVATOR_DISCARD_MERGE = 3,
};

struct elevator_mq_ops {
	int (*init_sched)(struct request_queue *, struct elevator_type *);
	void (*exit_sched)(struct elevator_queue *);
	int (*init_hctx)(struct blk_mq_hw_ctx *, unsigned int);
	void (*exit_hctx)(struct blk_mq_hw_ctx *, unsigned int);
	void (*depth_updated)(struct blk_mq_hw_ctx *);

	bool (*allow_merge)(struct request_queue *, struct request *, struct bio *);
	bool (*bio_merge)(struct request_queue *, struct bio *, unsigned int);
	int (*request_merge)(struct request_queue *q, struct request **, struct bio *);
	void (*request_merged)(struct request_queue *, struct request *, enum elv_merge);
	void (*requests_merged)(struct request_queue *, struct request *, struct request *);
	void (*limit_depth)(blk_opf_t, struct blk_mq_alloc_data *);
	void (*prepare_request)(struct request *);
	void (*finish_request)(struct request *);
	void (*insert_requests)(struct blk_mq_hw_ctx *, struct list_head *, bool);
	struct request *(*dispatch_request)(struct blk_mq_hw_ctx *);
	bool (*has_work)(struct blk_mq_hw_ctx *);
	void (*completed_request)(struct request *, u64);
	void (*requeue_request)(struct request *);
	struct request *(*former_request)(struct request_queue *, struct request *);
	struct request *(*next_request)(struct request_queue *, struct request *);
	void (*init_icq)(struct io_cq *);
	void (*exit_icq)(struct io_cq *);
};

#define ELV_NAME_MAX (16)

struct elv_fs_entry {
	struct attribute attr;
	ssize_t (*show)(struct elevator_queue *, char *);
	ssize_t (*store)(struct elevator_queue *, const char *, size_t);
};

struct elevator_type {
	struct kmem_cache *icq_cache;
	struct elevator_mq_ops ops;
	size_t icq_size;
	size_t icq_align;
	struct elv_fs_entry *elevator_attrs;
	const char *elevator_name;
	const char *elevator_alias;
	const unsigned int elevator_features;
	struct module *elevator_owner;
	char icq_cache_name[ELV_NAME_MAX + 6];
	struct list_head list;
#ifdef CONFIG_BLK_DEBUG_FS
	const struct blk_mq_debugfs_attr *queue_debugfs_attrs;
	const struct blk_mq_debugfs_attr *hctx_debugfs_attrs;
#endif
};

#define ELV_HASH_BITS 6

struct elevator_queue {
	struct elevator_type *type;
	void *elevator_data;
	struct kobject kobj;
	struct mutex sysfs_lock;
	unsigned int registered:1;
	struct hlist_head hash[1 << ELV_HASH_BITS];
};

SIM_BEGIN_DECLS
int elv_register(struct elevator_type *e);
void elv_unregister(struct elevator_type *e);
struct elevator_queue *elevator_alloc(struct request_queue *q, struct elevator_type *e);
bool elv_bio_merge_ok(struct request *rq, struct bio *bio);
void elv_rb_add(struct rb_root *root, struct request *rq);
void elv_rb_del(struct rb_root *root, struct request *rq);
struct request *elv_rb_find(struct rb_root *root, sector_t sector);
struct request *elv_rb_former_request(struct request_queue *q, struct request *rq);
struct request *elv_rb_latter_request(struct request_queue *q, struct request *rq);
void elv_rqhash_del(struct request_queue *q, struct request *rq);
void elv_rqhash_add(struct request_queue *q, struct request *rq);
/* merging, with 6.1's semantics (sim/shim/blk-mq.cc) */
struct request *elv_rqhash_find(struct request_queue *q, sector_t offset);
enum elv_merge elv_merge(struct request_queue *q, struct request **req, struct bio *bio);
SIM_END_DECLS

#define rb_entry_rq(node) rb_entry((node), struct request, rb_node)
#define rq_entry_fifo(ptr) list_entry((ptr), struct request, queuelist)
#define rq_fifo_clear(rq) list_del_init(&(rq)->queuelist)

#endif
