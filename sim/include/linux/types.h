/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: kernel integer and handle types.  The uapi <linux/types.h>
 * (which glibc headers also reach) is pulled in first with #include_next;
 * types glibc already defines (dev_t, pid_t, ssize_t, loff_t) are reused so
 * that C++ translation units can include both worlds.
 *
 * Kind: kernel behaviour (the kernel's integer widths and list, hlist, rcu_head, atomic layouts)
 */
#ifndef _SIM_LINUX_TYPES_H
#define _SIM_LINUX_TYPES_H

#include <linux/kconfig.h>
#include_next <linux/types.h>
#include <linux/compiler_types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef signed char s8;
typedef unsigned char u8;
typedef signed short s16;
typedef unsigned short u16;
typedef signed int s32;
typedef unsigned int u32;
typedef signed long long s64;
typedef unsigned long long u64;

typedef unsigned int __bitwise gfp_t;
typedef unsigned int __bitwise fmode_t;
typedef u64 sector_t;
typedef u64 phys_addr_t;
typedef unsigned int __bitwise slab_flags_t;
typedef unsigned short umode_t;

struct list_head {
	struct list_head *next, *prev;
};

struct hlist_head {
	struct hlist_node *first;
};

struct hlist_node {
	struct hlist_node *next, **pprev;
};

struct callback_head {
	struct callback_head *next;
	void (*func)(struct callback_head *head);
};
#define rcu_head callback_head
typedef void (*rcu_callback_t)(struct rcu_head *head);

typedef struct {
	int counter;
} atomic_t;

typedef struct {
	s64 counter;
} atomic64_t;

typedef atomic64_t atomic_long_t;

#endif
