/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: red-black trees with the kernel's intrusive API.  As in the
 * kernel the caller walks the tree to find the insertion point, links the
 * node with rb_link_node() and rebalances with rb_insert_color().  The
 * implementation (sim/shim/rbtree.cc) is the simulator's own.
 *
 * Kind: kernel behaviour (the kernel's rbtree API and ordering; the balancing code is the sim's)
 */
#ifndef _SIM_LINUX_RBTREE_H
#define _SIM_LINUX_RBTREE_H

#include <linux/types.h>
#include <linux/compiler.h>
#include <linux/container_of.h>
#include <linux/rbtree_types.h>

#define RB_RED 0
#define RB_BLACK 1

#define rb_parent(r) ((struct rb_node *)((r)->__rb_parent_color & ~3UL))
#define rb_entry(ptr, type, member) container_of(ptr, type, member)
#define rb_entry_safe(ptr, type, member) ({                             \
	__typeof__(ptr) __sim_rbp = (ptr);                              \
	__sim_rbp ? rb_entry(__sim_rbp, type, member) : (type *)NULL; })

#define RB_EMPTY_ROOT(root) (READ_ONCE((root)->rb_node) == NULL)
/* A node that is not in any tree points to itself as parent. */
#define RB_EMPTY_NODE(node) ((node)->__rb_parent_color == (unsigned long)(node))
#define RB_CLEAR_NODE(node) ((node)->__rb_parent_color = (unsigned long)(node))

SIM_BEGIN_DECLS
void rb_insert_color(struct rb_node *node, struct rb_root *root);
void rb_erase(struct rb_node *node, struct rb_root *root);
struct rb_node *rb_next(const struct rb_node *node);
struct rb_node *rb_prev(const struct rb_node *node);
struct rb_node *rb_first(const struct rb_root *root);
struct rb_node *rb_last(const struct rb_root *root);
struct rb_node *rb_first_postorder(const struct rb_root *root);
struct rb_node *rb_next_postorder(const struct rb_node *node);
void rb_replace_node(struct rb_node *victim, struct rb_node *replacement,
		     struct rb_root *root);
SIM_END_DECLS

static inline void rb_link_node(struct rb_node *node, struct rb_node *parent,
				struct rb_node **rb_link)
{
	node->__rb_parent_color = (unsigned long)parent;	/* red */
	node->rb_left = NULL;
	node->rb_right = NULL;
	*rb_link = node;
}

#define rbtree_postorder_for_each_entry_safe(pos, n, root, field)                     \
	for (pos = rb_entry_safe(rb_first_postorder(root), __typeof__(*pos), field);   \
	     pos && ({ n = rb_entry_safe(rb_next_postorder(&pos->field),               \
					 __typeof__(*pos), field); 1; });              \
	     pos = n)

#define rb_first_cached(root) (root)->rb_leftmost

static inline void rb_insert_color_cached(struct rb_node *node,
					  struct rb_root_cached *root, bool leftmost)
{
	if (leftmost)
		root->rb_leftmost = node;
	rb_insert_color(node, &root->rb_root);
}

/* Returns the new leftmost node if @node was the leftmost, else NULL. */
static inline struct rb_node *rb_erase_cached(struct rb_node *node,
					      struct rb_root_cached *root)
{
	struct rb_node *leftmost = NULL;

	if (root->rb_leftmost == node) {
		leftmost = rb_next(node);
		root->rb_leftmost = leftmost;
	}
	rb_erase(node, &root->rb_root);
	return leftmost;
}

static inline void rb_replace_node_cached(struct rb_node *victim,
					  struct rb_node *replacement,
					  struct rb_root_cached *root)
{
	if (root->rb_leftmost == victim)
		root->rb_leftmost = replacement;
	rb_replace_node(victim, replacement, &root->rb_root);
}

/* Insert @node after all nodes it is not less than; returns @node if leftmost. */
static inline struct rb_node *rb_add_cached(struct rb_node *node,
					    struct rb_root_cached *tree,
					    bool (*less)(struct rb_node *, const struct rb_node *))
{
	struct rb_node **link = &tree->rb_root.rb_node;
	struct rb_node *parent = NULL;
	bool leftmost = true;

	while (*link) {
		parent = *link;
		if (less(node, parent)) {
			link = &parent->rb_left;
		} else {
			link = &parent->rb_right;
			leftmost = false;
		}
	}
	rb_link_node(node, parent, link);
	rb_insert_color_cached(node, tree, leftmost);
	return leftmost ? node : NULL;
}

static inline void rb_add(struct rb_node *node, struct rb_root *tree,
			  bool (*less)(struct rb_node *, const struct rb_node *))
{
	struct rb_node **link = &tree->rb_node;
	struct rb_node *parent = NULL;

	while (*link) {
		parent = *link;
		link = less(node, parent) ? &parent->rb_left : &parent->rb_right;
	}
	rb_link_node(node, parent, link);
	rb_insert_color(node, tree);
}

/* Insert @node unless an equal node exists; returns that node, else NULL. */
static inline struct rb_node *rb_find_add(struct rb_node *node, struct rb_root *tree,
					  int (*cmp)(struct rb_node *, const struct rb_node *))
{
	struct rb_node **link = &tree->rb_node;
	struct rb_node *parent = NULL;

	while (*link) {
		int c = cmp(node, *link);

		parent = *link;
		if (c < 0)
			link = &parent->rb_left;
		else if (c > 0)
			link = &parent->rb_right;
		else
			return parent;
	}
	rb_link_node(node, parent, link);
	rb_insert_color(node, tree);
	return NULL;
}

static inline struct rb_node *rb_find(const void *key, const struct rb_root *tree,
				      int (*cmp)(const void *key, const struct rb_node *))
{
	struct rb_node *node = tree->rb_node;

	while (node) {
		int c = cmp(key, node);

		if (c < 0)
			node = node->rb_left;
		else if (c > 0)
			node = node->rb_right;
		else
			return node;
	}
	return NULL;
}

/* The leftmost node equal to @key, or NULL. */
static inline struct rb_node *rb_find_first(const void *key, const struct rb_root *tree,
					    int (*cmp)(const void *key, const struct rb_node *))
{
	struct rb_node *node = tree->rb_node;
	struct rb_node *match = NULL;

	while (node) {
		int c = cmp(key, node);

		if (c <= 0) {
			if (!c)
				match = node;
			node = node->rb_left;
		} else {
			node = node->rb_right;
		}
	}
	return match;
}

#endif
