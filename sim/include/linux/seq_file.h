/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: a seq_file is a growable text buffer here; the sim reads
 * what a show function printed (see <sim/blkcg.h>), or what an iterator's
 * start/show/next/stop wrote, walked as a read of the file walks it
 * (sim_elv_debugfs_read() in <sim/blk.h>).
 *
 * Kind: kernel behaviour (seq_printf() and seq_list_*() output; 6.1 = 6.12)
 * Exceptions: one growable buffer the sim reads, no page-sized retries
 */
#ifndef _SIM_LINUX_SEQ_FILE_H
#define _SIM_LINUX_SEQ_FILE_H

#include <stdarg.h>
#include <linux/types.h>
#include <linux/compiler.h>

struct seq_file {
	char *buf;	/* malloc'ed, NUL-terminated */
	size_t size;
	size_t count;
	loff_t index;
	/* cgroup files: the struct kernfs_open_file ("private" is C++'s) */
#ifdef __cplusplus
	void *private_;
#else
	void *private;
#endif
};

struct list_head;

/* An iterator over records: a read calls start, then show and next on
 * each record until next returns NULL, then stop. */
struct seq_operations {
	void *(*start)(struct seq_file *m, loff_t *pos);
	void (*stop)(struct seq_file *m, void *v);
	void *(*next)(struct seq_file *m, void *v, loff_t *pos);
	int (*show)(struct seq_file *m, void *v);
};

SIM_BEGIN_DECLS
/* The @pos'th entry of the list at @head, or NULL past its end. */
struct list_head *seq_list_start(struct list_head *head, loff_t pos);
/* The entry after @v (counting *@ppos up), or NULL at the end of @head. */
struct list_head *seq_list_next(void *v, struct list_head *head, loff_t *ppos);
void seq_printf(struct seq_file *m, const char *fmt, ...) __printf(2, 3);
void seq_vprintf(struct seq_file *m, const char *fmt, va_list args) __printf(2, 0);
void seq_puts(struct seq_file *m, const char *s);
void seq_putc(struct seq_file *m, char c);
void seq_write(struct seq_file *m, const void *data, size_t len);
SIM_END_DECLS

#define SEQ_START_TOKEN ((void *)1)

#endif
