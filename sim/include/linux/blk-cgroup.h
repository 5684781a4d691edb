/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: the public blkcg header of 6.1.
 *
 * Kind: kernel behaviour (6.1's public blkcg calls, in sim/shim/blkcg.cc; 6.12 the same)
 */
#ifndef _SIM_LINUX_BLK_CGROUP_H
#define _SIM_LINUX_BLK_CGROUP_H

#include <linux/types.h>

struct bio;
struct cgroup_subsys_state;
struct gendisk;

SIM_BEGIN_DECLS
extern struct cgroup_subsys_state *const blkcg_root_css;
struct cgroup_subsys_state *bio_blkcg_css(struct bio *bio);
void blkcg_pin_online(struct cgroup_subsys_state *blkcg_css);
void blkcg_unpin_online(struct cgroup_subsys_state *blkcg_css);
SIM_END_DECLS

#endif
