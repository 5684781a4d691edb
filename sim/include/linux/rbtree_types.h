/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: red-black tree node and root types (kernel layout).
 *
 * Kind: kernel behaviour (rb_node layout: parent pointer and colour bit)
 */
#ifndef _SIM_LINUX_RBTREE_TYPES_H
#define _SIM_LINUX_RBTREE_TYPES_H

struct rb_node {
	unsigned long __rb_parent_color;	/* parent pointer | colour bit */
	struct rb_node *rb_right;
	struct rb_node *rb_left;
} __attribute__((aligned(sizeof(long))));

struct rb_root {
	struct rb_node *rb_node;
};

/* A root that also caches its leftmost (smallest) node. */
struct rb_root_cached {
	struct rb_root rb_root;
	struct rb_node *rb_leftmost;
};

#define RB_ROOT (struct rb_root) { NULL, }
#define RB_ROOT_CACHED (struct rb_root_cached) { { NULL, }, NULL }

#endif
