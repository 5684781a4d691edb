/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: whether an allocation may sleep, and NUMA_NO_NODE.
 *
 * Kind: kernel behaviour (gfpflags_allow_blocking())
 */
#ifndef _SIM_LINUX_GFP_H
#define _SIM_LINUX_GFP_H

#include <linux/gfp_types.h>

#define NUMA_NO_NODE (-1)

static inline bool gfpflags_allow_blocking(const gfp_t gfp_flags)
{
	return !!(gfp_flags & __GFP_DIRECT_RECLAIM);
}

#endif
