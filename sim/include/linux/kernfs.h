/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: an open cgroup file.
 *
 * Kind: stub (a handle: what of_css() returns is set by the sim)
 */
#ifndef _SIM_LINUX_KERNFS_H
#define _SIM_LINUX_KERNFS_H

#include <linux/types.h>

struct seq_file;
struct cftype;
struct cgroup_subsys_state;

struct kernfs_open_file {
	struct seq_file *seq_file;
	void *priv;
	/* sim: what of_css()/of_cft() return */
	struct cgroup_subsys_state *sim_css;
	struct cftype *cft;
};

#endif
