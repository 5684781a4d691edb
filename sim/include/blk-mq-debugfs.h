/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: the debugfs attribute of 6.1's block/blk-mq-debugfs.h that
 * schedulers fill in (queue_debugfs_attrs).  The sim reads them with
 * sim_elv_debugfs_read() (<sim/blk.h>).
 */
#ifndef _SIM_BLK_MQ_DEBUGFS_H
#define _SIM_BLK_MQ_DEBUGFS_H

#include <linux/types.h>
#include <linux/seq_file.h>

struct seq_operations;

struct blk_mq_debugfs_attr {
	const char *name;
	umode_t mode;
	int (*show)(void *, struct seq_file *);
	ssize_t (*write)(void *, const char *, size_t, loff_t *);
	const struct seq_operations *seq_ops;
};

#endif
