/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim: the cgroup hierarchy of the io controller and the per-queue
 * blkgs, driven by the sim (C and C++).  blkcg_root exists from the start.
 * See "blk-cgroup.h" for the order in which policy callbacks run.
 *
 * Kind: simulation
 */
#ifndef _SIM_BLKCG_H
#define _SIM_BLKCG_H

#include <linux/types.h>

struct blkcg;
struct blkcg_gq;
struct request_queue;
struct gendisk;

SIM_BEGIN_DECLS
/* mkdir: a child of @parent (NULL: the root) called @name; cpd_alloc_fn and
 * cpd_init_fn run for every registered policy.  NULL if @parent is not
 * online, @name exists, or an allocation fails. */
struct blkcg *sim_blkcg_create(struct blkcg *parent, const char *name);
/* rmdir: the cgroup must have no children (else WARN, nothing happens).
 * Every blkg of it on every queue is offlined now (pd_offline_fn); blkgs
 * and the blkcg are freed (pd_free_fn, cpd_free_fn) once their last
 * reference is dropped, at the next safe point (sim_quiesce()). */
void sim_blkcg_destroy(struct blkcg *blkcg);
/* The child of @parent (NULL: root) called @name, or NULL. */
struct blkcg *sim_blkcg_find(struct blkcg *parent, const char *name);

/* Set up @q and @disk together (disk->queue, q->disk, q->queue_lock, lists,
 * devname "MAJ:MIN", the disk's block_device for blkdev_get_by_dev()) and
 * create the root blkg.  0 or -ENOMEM. */
int sim_queue_init(struct request_queue *q, struct gendisk *disk);
/* Destroy every blkg of @q (pd_offline_fn now, pd_free_fn later) and
 * forget the disk.  Deactivate policies (exit_sched) before this. */
void sim_queue_exit(struct request_queue *q);

/* The driver's open of @disk, as blkdev_get_by_dev() runs it, fails with
 * @err (e.g. -ENOMEDIUM; 0: succeeds).  Reset when the disk goes. */
void sim_disk_set_open_error(struct gendisk *disk, int err);
/* Times blkdev_get_by_dev() ran the driver's open of @disk. */
unsigned long sim_disk_opens(struct gendisk *disk);

/* @fn runs in every blkg creation after pd_init_fn and before the blkg is
 * linked into its blkcg's list (and pd_online_fn): another CPU acting in
 * that window, e.g. a cgroup file write.  The queue lock and the RCU read
 * lock are held there by the creator: @fn must not take the queue lock or
 * sleep.  NULL removes it. */
void sim_blkcg_set_create_hook(void (*fn)(struct blkcg_gq *blkg, void *arg), void *arg);

/* The blkg of (@blkcg, @q), created with its missing ancestors if needed
 * (GFP_NOWAIT, as the bio path does; on failure the closest existing
 * ancestor), with a reference the caller drops with sim_blkg_put(). */
struct blkcg_gq *sim_blkg_get(struct blkcg *blkcg, struct request_queue *q);
void sim_blkg_put(struct blkcg_gq *blkg);

/* cgroup files: @file is the full name ("io.efq.weight", "io.stat",
 * "blkio.x" for legacy cftypes).  Read returns a malloc()ed string (free()
 * it) or NULL with *err set (-ENOENT: no such file); write returns the
 * byte count or -errno, like write(2) on cgroupfs. */
bool sim_cgroup_file_exists(struct blkcg *blkcg, const char *file);
char *sim_cgroup_read(struct blkcg *blkcg, const char *file, int *err);
ssize_t sim_cgroup_write(struct blkcg *blkcg, const char *file, const char *data);
SIM_END_DECLS

#endif
