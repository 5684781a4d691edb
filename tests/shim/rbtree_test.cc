// SPDX-License-Identifier: GPL-2.0
// The <linux/rbtree.h> shim against std::multiset, checking the red-black
// rules, parent links and the cached leftmost node after every operation.

#include <sim/gtest_guard.h>

#include <algorithm>
#include <random>
#include <set>
#include <vector>

extern "C" {
#include <linux/rbtree.h>
}

namespace {

struct Item {
	int key;
	int id;
	rb_node node;
};

bool item_less(rb_node *a, const rb_node *b)
{
	return rb_entry(a, Item, node)->key < rb_entry(b, Item, node)->key;
}

int item_cmp_key(const void *key, const rb_node *n)
{
	int k = *static_cast<const int *>(key);
	int nk = rb_entry(n, Item, node)->key;
	return k < nk ? -1 : k > nk;
}

// Checks the subtree at @n; returns its black height (NULL leaves count 1).
int check_subtree(const rb_node *n, const rb_node *parent, int *count)
{
	if (!n)
		return 1;
	(*count)++;
	EXPECT_EQ(rb_parent(n), parent);
	bool red = !(n->__rb_parent_color & 1);
	if (red) {
		EXPECT_TRUE(!n->rb_left || (n->rb_left->__rb_parent_color & 1)) << "red-red";
		EXPECT_TRUE(!n->rb_right || (n->rb_right->__rb_parent_color & 1)) << "red-red";
	}
	if (n->rb_left) {
		EXPECT_LE(rb_entry(n->rb_left, Item, node)->key, rb_entry(n, Item, node)->key);
	}
	if (n->rb_right) {
		EXPECT_GE(rb_entry(n->rb_right, Item, node)->key, rb_entry(n, Item, node)->key);
	}
	int lh = check_subtree(n->rb_left, n, count);
	int rh = check_subtree(n->rb_right, n, count);
	EXPECT_EQ(lh, rh) << "black height";
	return lh + (red ? 0 : 1);
}

void check_tree(const rb_root_cached *root, const std::multiset<int> &ref)
{
	const rb_node *top = root->rb_root.rb_node;
	if (top) {
		ASSERT_TRUE(top->__rb_parent_color & 1) << "root must be black";
	}
	int count = 0;
	check_subtree(top, nullptr, &count);
	ASSERT_EQ((size_t)count, ref.size());
	ASSERT_EQ(rb_first_cached(root), rb_first(&root->rb_root));

	// In-order walk forwards and backwards matches the reference.
	std::vector<int> fwd, back;
	for (rb_node *n = rb_first(&root->rb_root); n; n = rb_next(n))
		fwd.push_back(rb_entry(n, Item, node)->key);
	for (rb_node *n = rb_last(&root->rb_root); n; n = rb_prev(n))
		back.push_back(rb_entry(n, Item, node)->key);
	std::reverse(back.begin(), back.end());
	ASSERT_EQ(fwd, std::vector<int>(ref.begin(), ref.end()));
	ASSERT_EQ(back, fwd);
}

class RbtreeTest : public SimTest {};

TEST_F(RbtreeTest, EmptyTree)
{
	rb_root root = RB_ROOT;
	rb_root_cached croot = RB_ROOT_CACHED;
	EXPECT_TRUE(RB_EMPTY_ROOT(&root));
	EXPECT_EQ(rb_first(&root), nullptr);
	EXPECT_EQ(rb_last(&root), nullptr);
	EXPECT_EQ(rb_first_cached(&croot), nullptr);
	EXPECT_EQ(rb_first_postorder(&root), nullptr);

	Item it{};
	RB_CLEAR_NODE(&it.node);
	EXPECT_TRUE(RB_EMPTY_NODE(&it.node));
	EXPECT_EQ(rb_next(&it.node), nullptr);
	EXPECT_EQ(rb_prev(&it.node), nullptr);
}

TEST_F(RbtreeTest, RandomOpsAgainstMultiset)
{
	std::mt19937 rng(12345);
	std::vector<Item> pool(1500);
	std::vector<Item *> in_tree, free_items;
	for (size_t i = 0; i < pool.size(); i++) {
		pool[i].id = (int)i;
		RB_CLEAR_NODE(&pool[i].node);
		free_items.push_back(&pool[i]);
	}
	rb_root_cached root = RB_ROOT_CACHED;
	std::multiset<int> ref;

	for (int op = 0; op < 6000; op++) {
		bool insert = in_tree.empty() ||
			      (!free_items.empty() && rng() % 100 < (op < 3000 ? 65 : 40));
		if (insert) {
			size_t idx = rng() % free_items.size();
			Item *it = free_items[idx];
			free_items[idx] = free_items.back();
			free_items.pop_back();
			it->key = (int)(rng() % 500); // plenty of duplicates
			rb_node *lm = rb_add_cached(&it->node, &root, item_less);
			// The new node is leftmost iff its key is below every other key.
			bool expect_leftmost = ref.empty() || it->key < *ref.begin();
			EXPECT_EQ(lm != nullptr, expect_leftmost);
			ref.insert(it->key);
			in_tree.push_back(it);
		} else {
			size_t idx = rng() % in_tree.size();
			Item *it = in_tree[idx];
			in_tree[idx] = in_tree.back();
			in_tree.pop_back();
			rb_erase_cached(&it->node, &root);
			RB_CLEAR_NODE(&it->node);
			ref.erase(ref.find(it->key));
			free_items.push_back(it);
		}
		check_tree(&root, ref);
		if (HasFatalFailure() || HasFailure())
			FAIL() << "after operation " << op;
	}
}

TEST_F(RbtreeTest, ManualLinkAndFind)
{
	std::vector<Item> items(200);
	rb_root root = RB_ROOT;
	std::multiset<int> ref;
	for (size_t i = 0; i < items.size(); i++) {
		items[i].key = (int)((i * 37) % 101);
		// The kernel idiom: walk to the link, rb_link_node(), rb_insert_color().
		rb_node **link = &root.rb_node, *parent = nullptr;
		while (*link) {
			parent = *link;
			link = items[i].key < rb_entry(parent, Item, node)->key ? &parent->rb_left
										: &parent->rb_right;
		}
		rb_link_node(&items[i].node, parent, link);
		rb_insert_color(&items[i].node, &root);
		ref.insert(items[i].key);
	}
	rb_root_cached view = {root, rb_first(&root)};
	check_tree(&view, ref);

	int key = 50;
	rb_node *n = rb_find(&key, &root, item_cmp_key);
	ASSERT_NE(n, nullptr);
	EXPECT_EQ(rb_entry(n, Item, node)->key, 50);
	rb_node *first = rb_find_first(&key, &root, item_cmp_key);
	ASSERT_NE(first, nullptr);
	rb_node *prev = rb_prev(first);
	EXPECT_TRUE(!prev || rb_entry(prev, Item, node)->key < 50);
	key = 1000;
	EXPECT_EQ(rb_find(&key, &root, item_cmp_key), nullptr);
}

TEST_F(RbtreeTest, ReplaceNodeKeepsShape)
{
	std::vector<Item> items(64);
	rb_root_cached root = RB_ROOT_CACHED;
	std::multiset<int> ref;
	for (size_t i = 0; i < items.size(); i++) {
		items[i].key = (int)i * 2;
		rb_add_cached(&items[i].node, &root, item_less);
		ref.insert(items[i].key);
	}
	for (int victim : {0, 31, 63}) {
		Item repl{};
		repl.key = items[victim].key;
		rb_replace_node_cached(&items[victim].node, &repl.node, &root);
		check_tree(&root, ref);
		// Put the original back the same way.
		rb_replace_node_cached(&repl.node, &items[victim].node, &root);
		check_tree(&root, ref);
	}
}

TEST_F(RbtreeTest, PostorderVisitsChildrenFirstAndAllowsFreeing)
{
	rb_root root = RB_ROOT;
	const int n = 300;
	for (int i = 0; i < n; i++) {
		Item *it = new Item{};
		it->key = (i * 7919) % 1000;
		it->id = i;
		rb_add(&it->node, &root, item_less);
	}
	std::set<const rb_node *> seen;
	Item *pos, *next;
	int visited = 0;
	rbtree_postorder_for_each_entry_safe(pos, next, &root, node) {
		if (pos->node.rb_left) {
			EXPECT_TRUE(seen.count(pos->node.rb_left));
		}
		if (pos->node.rb_right) {
			EXPECT_TRUE(seen.count(pos->node.rb_right));
		}
		seen.insert(&pos->node);
		visited++;
	}
	EXPECT_EQ(visited, n);
	// The _safe walk tolerates freeing each entry as it goes.
	rbtree_postorder_for_each_entry_safe(pos, next, &root, node)
		delete pos;
}

TEST_F(RbtreeTest, FindAdd)
{
	std::vector<Item> items(10);
	rb_root root = RB_ROOT;
	auto cmp = [](rb_node *a, const rb_node *b) {
		int x = rb_entry(a, Item, node)->key, y = rb_entry(b, Item, node)->key;
		return x < y ? -1 : x > y;
	};
	for (int i = 0; i < 10; i++) {
		items[i].key = i % 5;
		rb_node *dup = rb_find_add(&items[i].node, &root, cmp);
		if (i < 5)
			EXPECT_EQ(dup, nullptr);
		else
			EXPECT_EQ(dup, &items[i - 5].node);
	}
}

} // namespace
