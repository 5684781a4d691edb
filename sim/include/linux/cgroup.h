/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: the slice of cgroup core that blkcg policies touch: css,
 * cftype (6.1 members) and the kernfs file handle of a write.  cgroups
 * are made and removed by the sim (<sim/blkcg.h>).
 *
 * Kind: kernel behaviour (6.1's css reference rules and cftype; 6.12 the same for these)
 * Exceptions: cgroups are made by the sim and task_css() reads the sim's task cgroup (simulation)
 */
#ifndef _SIM_LINUX_CGROUP_H
#define _SIM_LINUX_CGROUP_H

#include <linux/types.h>
#include <linux/list.h>
#include <linux/percpu-refcount.h>
#include <linux/seq_file.h>
#include <linux/kernfs.h>
#include <linux/sched.h>

struct cgroup;
struct cgroup_subsys;
struct cftype;

enum cgroup_subsys_id {
	io_cgrp_id,
	CGROUP_SUBSYS_COUNT,
};

#define MAX_CFTYPE_NAME 64
#define CFTYPE_ONLY_ON_ROOT (1 << 0)
#define CFTYPE_NOT_ON_ROOT (1 << 1)
#define CFTYPE_NS_DELEGATABLE (1 << 2)
#define CFTYPE_NO_PREFIX (1 << 3)
#define CFTYPE_WORLD_WRITABLE (1 << 4)
#define CFTYPE_DEBUG (1 << 5)

struct cgroup_subsys_state {
	struct cgroup *cgroup;
	struct cgroup_subsys *ss;
	struct percpu_ref refcnt;
	struct list_head sibling;
	struct list_head children;
	int id;
	unsigned int flags;
	u64 serial_nr;
	struct cgroup_subsys_state *parent;
};

#define CSS_ONLINE (1 << 1)
#define CSS_DYING (1 << 4)

struct cftype {
	char name[MAX_CFTYPE_NAME];
#ifdef __cplusplus
	unsigned long private_;	/* "private" in C */
#else
	unsigned long private;
#endif
	size_t max_write_len;
	unsigned int flags;
	unsigned int file_offset;
	struct cgroup_subsys *ss;
	struct list_head node;
	u64 (*read_u64)(struct cgroup_subsys_state *css, struct cftype *cft);
	s64 (*read_s64)(struct cgroup_subsys_state *css, struct cftype *cft);
	int (*seq_show)(struct seq_file *sf, void *v);
	int (*write_u64)(struct cgroup_subsys_state *css, struct cftype *cft, u64 val);
	int (*write_s64)(struct cgroup_subsys_state *css, struct cftype *cft, s64 val);
	ssize_t (*write)(struct kernfs_open_file *of, char *buf, size_t nbytes, loff_t off);
};

SIM_BEGIN_DECLS
struct cgroup_subsys_state *of_css(struct kernfs_open_file *of);
int cgroup_path(struct cgroup *cgrp, char *buf, size_t buflen);
SIM_END_DECLS

static inline struct cftype *of_cft(struct kernfs_open_file *of)
{
	return of->cft;
}

SIM_BEGIN_DECLS
struct cftype *seq_cft(struct seq_file *seq);
struct cgroup_subsys_state *seq_css(struct seq_file *seq);
SIM_END_DECLS

static inline void css_get(struct cgroup_subsys_state *css)
{
	percpu_ref_get(&css->refcnt);
}

static inline void css_put(struct cgroup_subsys_state *css)
{
	percpu_ref_put(&css->refcnt);
}

static inline bool css_tryget(struct cgroup_subsys_state *css)
{
	return percpu_ref_tryget(&css->refcnt);
}

static inline bool css_tryget_online(struct cgroup_subsys_state *css)
{
	return (css->flags & CSS_ONLINE) && percpu_ref_tryget_live(&css->refcnt);
}

/* The task's css of the io controller (the root's when it has none). */
SIM_BEGIN_DECLS
struct cgroup_subsys_state *sim_task_io_css(struct task_struct *task);
SIM_END_DECLS

static inline struct cgroup_subsys_state *task_css(struct task_struct *task, int subsys_id __always_unused)
{
	return sim_task_io_css(task);
}

static inline struct cgroup_subsys_state *task_get_css(struct task_struct *task, int subsys_id __always_unused)
{
	return task_css(task, subsys_id);
}

#endif
