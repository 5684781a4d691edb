/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: the debugfs attribute of 6.1's block/blk-mq-debugfs.h that
 * schedulers fill in (queue_debugfs_attrs), and the request printer their
 * list files use.  The sim reads them with sim_elv_debugfs_read()
 * (<sim/blk.h>).
 *
 * Kind: kernel behaviour (6.1's request line of blk-mq-debugfs.c; 6.12 the same)
 * Exceptions: the files are read by the sim (sim_elv_debugfs_read()), not through debugfs
 */
#ifndef _SIM_BLK_MQ_DEBUGFS_H
#define _SIM_BLK_MQ_DEBUGFS_H

#include <linux/types.h>
#include <linux/seq_file.h>

struct request;

struct blk_mq_debugfs_attr {
	const char *name;
	umode_t mode;
	int (*show)(void *, struct seq_file *);
	ssize_t (*write)(void *, const char *, size_t, loff_t *);
	const struct seq_operations *seq_ops;
};

SIM_BEGIN_DECLS
/*
 * One request, one line, as 6.1 prints it: "%p {.op=READ, .cmd_flags=...,
 * .rq_flags=..., .state=..., .tag=N, .internal_tag=N" and then what the
 * driver adds (the sim's driver adds ", .sector=S, .sectors=N", as a
 * driver's show_rq would), "}".  blk_mq_debugfs_rq_show() takes the
 * request's queuelist, for a seq_operations.show over a request list.
 */
int __blk_mq_debugfs_rq_show(struct seq_file *m, struct request *rq);
int blk_mq_debugfs_rq_show(struct seq_file *m, void *v);
SIM_END_DECLS

#endif
