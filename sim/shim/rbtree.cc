// SPDX-License-Identifier: GPL-2.0
// efqsim: red-black tree for the <linux/rbtree.h> shim.  Rules: every node
// is red or black, the root is black, a red node has no red child, and every
// path from a node to its leaves crosses the same number of black nodes.
// The colour lives in bit 0 of __rb_parent_color (0 red, 1 black).
//
// Kind: kernel behaviour (lib/rbtree.c's rules and in-order results; the code is the sim's)

extern "C" {
#include <linux/rbtree.h>
}

namespace {

inline rb_node *parent_of(const rb_node *n)
{
	return rb_parent(n);
}
inline bool is_black(const rb_node *n)
{
	return !n || (n->__rb_parent_color & 1);
}
inline bool is_red(const rb_node *n)
{
	return !is_black(n);
}
inline unsigned long colour_of(const rb_node *n)
{
	return n->__rb_parent_color & 1;
}

inline void set_parent(rb_node *n, rb_node *p)
{
	n->__rb_parent_color = (n->__rb_parent_color & 3UL) | reinterpret_cast<unsigned long>(p);
}

inline void set_colour(rb_node *n, unsigned long colour)
{
	n->__rb_parent_color = (n->__rb_parent_color & ~1UL) | colour;
}

inline void set_parent_colour(rb_node *n, rb_node *p, unsigned long colour)
{
	n->__rb_parent_color = reinterpret_cast<unsigned long>(p) | colour;
}

// Make whatever pointed to @old (its parent's child link or the root) point to @repl.
inline void relink_parent(rb_node *old, rb_node *repl, rb_node *parent, rb_root *root)
{
	if (!parent)
		root->rb_node = repl;
	else if (parent->rb_left == old)
		parent->rb_left = repl;
	else
		parent->rb_right = repl;
}

void rotate_left(rb_node *x, rb_root *root)
{
	rb_node *y = x->rb_right;
	rb_node *p = parent_of(x);

	x->rb_right = y->rb_left;
	if (y->rb_left)
		set_parent(y->rb_left, x);
	set_parent(y, p);
	relink_parent(x, y, p, root);
	y->rb_left = x;
	set_parent(x, y);
}

void rotate_right(rb_node *x, rb_root *root)
{
	rb_node *y = x->rb_left;
	rb_node *p = parent_of(x);

	x->rb_left = y->rb_right;
	if (y->rb_right)
		set_parent(y->rb_right, x);
	set_parent(y, p);
	relink_parent(x, y, p, root);
	y->rb_right = x;
	set_parent(x, y);
}

// Restore the rules after a black node was unlinked above @x (maybe NULL),
// whose parent is @parent: the subtree at @x is one black short.
void erase_fixup(rb_node *x, rb_node *parent, rb_root *root)
{
	while (x != root->rb_node && is_black(x)) {
		if (x == parent->rb_left) {
			rb_node *w = parent->rb_right;

			if (is_red(w)) {
				set_colour(w, RB_BLACK);
				set_colour(parent, RB_RED);
				rotate_left(parent, root);
				w = parent->rb_right;
			}
			if (is_black(w->rb_left) && is_black(w->rb_right)) {
				set_colour(w, RB_RED);
				x = parent;
				parent = parent_of(x);
				continue;
			}
			if (is_black(w->rb_right)) {
				set_colour(w->rb_left, RB_BLACK);
				set_colour(w, RB_RED);
				rotate_right(w, root);
				w = parent->rb_right;
			}
			set_colour(w, colour_of(parent));
			set_colour(parent, RB_BLACK);
			set_colour(w->rb_right, RB_BLACK);
			rotate_left(parent, root);
		} else {
			rb_node *w = parent->rb_left;

			if (is_red(w)) {
				set_colour(w, RB_BLACK);
				set_colour(parent, RB_RED);
				rotate_right(parent, root);
				w = parent->rb_left;
			}
			if (is_black(w->rb_left) && is_black(w->rb_right)) {
				set_colour(w, RB_RED);
				x = parent;
				parent = parent_of(x);
				continue;
			}
			if (is_black(w->rb_left)) {
				set_colour(w->rb_right, RB_BLACK);
				set_colour(w, RB_RED);
				rotate_left(w, root);
				w = parent->rb_left;
			}
			set_colour(w, colour_of(parent));
			set_colour(parent, RB_BLACK);
			set_colour(w->rb_left, RB_BLACK);
			rotate_right(parent, root);
		}
		x = root->rb_node;
		break;
	}
	if (x)
		set_colour(x, RB_BLACK);
}

rb_node *leftmost_below(rb_node *n)
{
	while (n->rb_left)
		n = n->rb_left;
	return n;
}

rb_node *leftmost_leaf_below(rb_node *n)
{
	for (;;) {
		if (n->rb_left)
			n = n->rb_left;
		else if (n->rb_right)
			n = n->rb_right;
		else
			return n;
	}
}

} // namespace

extern "C" {

void rb_insert_color(struct rb_node *node, struct rb_root *root)
{
	rb_node *z = node;

	while (is_red(parent_of(z))) {
		rb_node *p = parent_of(z);
		rb_node *g = parent_of(p); // exists: a red node is never the root

		if (p == g->rb_left) {
			rb_node *u = g->rb_right;

			if (is_red(u)) {
				set_colour(p, RB_BLACK);
				set_colour(u, RB_BLACK);
				set_colour(g, RB_RED);
				z = g;
				continue;
			}
			if (z == p->rb_right) {
				rotate_left(p, root);
				z = p;
				p = parent_of(z);
			}
			set_colour(p, RB_BLACK);
			set_colour(g, RB_RED);
			rotate_right(g, root);
		} else {
			rb_node *u = g->rb_left;

			if (is_red(u)) {
				set_colour(p, RB_BLACK);
				set_colour(u, RB_BLACK);
				set_colour(g, RB_RED);
				z = g;
				continue;
			}
			if (z == p->rb_left) {
				rotate_right(p, root);
				z = p;
				p = parent_of(z);
			}
			set_colour(p, RB_BLACK);
			set_colour(g, RB_RED);
			rotate_left(g, root);
		}
		break;
	}
	set_colour(root->rb_node, RB_BLACK);
}

void rb_erase(struct rb_node *node, struct rb_root *root)
{
	rb_node *child;
	rb_node *parent;
	unsigned long removed_colour;

	if (!node->rb_left || !node->rb_right) {
		child = node->rb_left ? node->rb_left : node->rb_right;
		parent = parent_of(node);
		removed_colour = colour_of(node);
		if (child)
			set_parent(child, parent);
		relink_parent(node, child, parent, root);
	} else {
		// Two children: the successor takes @node's place and colour;
		// the colour that disappears is the successor's own.
		rb_node *succ = leftmost_below(node->rb_right);

		child = succ->rb_right;
		removed_colour = colour_of(succ);
		if (parent_of(succ) == node) {
			parent = succ;
		} else {
			parent = parent_of(succ);
			if (child)
				set_parent(child, parent);
			parent->rb_left = child;
			succ->rb_right = node->rb_right;
			set_parent(node->rb_right, succ);
		}
		rb_node *np = parent_of(node);

		set_parent_colour(succ, np, colour_of(node));
		succ->rb_left = node->rb_left;
		set_parent(node->rb_left, succ);
		relink_parent(node, succ, np, root);
	}
	if (removed_colour == RB_BLACK)
		erase_fixup(child, parent, root);
}

struct rb_node *rb_first(const struct rb_root *root)
{
	return root->rb_node ? leftmost_below(root->rb_node) : nullptr;
}

struct rb_node *rb_last(const struct rb_root *root)
{
	rb_node *n = root->rb_node;

	if (!n)
		return nullptr;
	while (n->rb_right)
		n = n->rb_right;
	return n;
}

struct rb_node *rb_next(const struct rb_node *node)
{
	if (RB_EMPTY_NODE(node))
		return nullptr;
	if (node->rb_right)
		return leftmost_below(node->rb_right);
	rb_node *p;
	while ((p = parent_of(node)) && node == p->rb_right)
		node = p;
	return p;
}

struct rb_node *rb_prev(const struct rb_node *node)
{
	if (RB_EMPTY_NODE(node))
		return nullptr;
	if (node->rb_left) {
		rb_node *n = node->rb_left;

		while (n->rb_right)
			n = n->rb_right;
		return n;
	}
	rb_node *p;
	while ((p = parent_of(node)) && node == p->rb_left)
		node = p;
	return p;
}

struct rb_node *rb_first_postorder(const struct rb_root *root)
{
	return root->rb_node ? leftmost_leaf_below(root->rb_node) : nullptr;
}

struct rb_node *rb_next_postorder(const struct rb_node *node)
{
	if (!node)
		return nullptr;
	rb_node *p = parent_of(node);

	if (p && node == p->rb_left && p->rb_right)
		return leftmost_leaf_below(p->rb_right);
	return p;
}

void rb_replace_node(struct rb_node *victim, struct rb_node *replacement, struct rb_root *root)
{
	rb_node *p = parent_of(victim);

	*replacement = *victim;
	if (victim->rb_left)
		set_parent(victim->rb_left, replacement);
	if (victim->rb_right)
		set_parent(victim->rb_right, replacement);
	relink_parent(victim, replacement, p, root);
}

} // extern "C"
