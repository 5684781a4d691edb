/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim: sim side of the block-layer shims (C and C++).
 *
 * struct request_queue carries sim_* fields for the sim's block layer
 * model: sim_hctxs[] (queue_for_each_hw_ctx), sim_run_hw_queues (called by
 * blk_mq_run_hw_queues()), and the counters sim_run_count and
 * sim_restart_count.  Queues and disks are set up with sim_queue_init()
 * (<sim/blkcg.h>).
 *
 * Kind: simulation
 */
#ifndef _SIM_BLK_H
#define _SIM_BLK_H

#include <linux/types.h>

struct request_queue;
struct elevator_type;
struct elevator_queue;

SIM_BEGIN_DECLS
/* The registered elevator type called @name (or with that alias), or NULL. */
struct elevator_type *sim_elv_find(const char *name);
/* Number of registered elevator types. */
int sim_elv_count(void);

/* sysfs queue/iosched/<name>: show into @page (PAGE_SIZE) or store @buf,
 * under eq->sysfs_lock as the kernel does; -ENOENT if no such attribute. */
ssize_t sim_elv_attr_show(struct elevator_queue *eq, const char *name, char *page);
ssize_t sim_elv_attr_store(struct elevator_queue *eq, const char *name, const char *buf);
/*
 * Reads the scheduler's debugfs attribute @name (queue_debugfs_attrs) of
 * @q, whether a show function or a list file (seq_ops: every record, as one
 * read of the whole file gets them): a malloc()ed string (free() it), or
 * NULL with *err = -ENOENT or the show function's error.
 */
char *sim_elv_debugfs_read(struct request_queue *q, const char *name, int *err);

/*
 * blk_attempt_plug_merge() for one plugged request: merge @bio into @rq
 * (not yet in the scheduler: no allow_merge) at its back or front if 6.1
 * would; true if it did.
 */
struct request;
struct bio;
bool sim_plug_merge(struct request *rq, struct bio *bio);

/*
 * Block core invariants a scheduler broke (sim/shim/blk-mq.cc): how many
 * since the program started, and the last one's text.  Each is also a WARN.
 */
unsigned long sim_blk_violations(void);
const char *sim_blk_violation_last(void);
/* Report one such violation about @rq (the block model's own checks). */
void sim_blk_violation(const char *what, struct request *rq);

/* Receives every blk_add_trace_msg() (formatted, without "\n"). */
typedef void (*sim_blktrace_hook_t)(struct request_queue *q, const char *msg, void *arg);
void sim_blktrace_set_hook(sim_blktrace_hook_t hook, void *arg);
SIM_END_DECLS

#endif
