/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim: controls of the slab shim (C and C++).
 *
 * Kind: simulation
 */
#ifndef _SIM_SLAB_H
#define _SIM_SLAB_H

#include <linux/types.h>

SIM_BEGIN_DECLS
/* Objects allocated and not yet freed: kmalloc family plus cache objects. */
long sim_slab_live(void);
/* Live objects of one cache, by name; -1 if there is no such cache. */
long sim_slab_cache_live(const char *name);
/* Successful allocations since the last sim_slab_reset(). */
unsigned long sim_slab_allocs(void);
/* The next @n allocations that are not __GFP_NOFAIL fail (return NULL). */
void sim_slab_fail_next(unsigned long n);
/* While on, every allocation without __GFP_DIRECT_RECLAIM (GFP_NOWAIT,
 * GFP_ATOMIC) that is not __GFP_NOFAIL fails. */
void sim_slab_fail_nowait(bool on);
/* Allocations failed by injection so far. */
unsigned long sim_slab_failed(void);
/* Print every live object (size, cache, caller) to stderr. */
void sim_slab_dump_live(void);
/* Clear failure injection and the counters (live objects stay live). */
void sim_slab_reset(void);
SIM_END_DECLS

#endif
