// SPDX-License-Identifier: GPL-2.0
// <linux/list.h> and hlist: order, splicing, the _safe walks and poisoning.

#include <sim/gtest_guard.h>

#include <vector>

extern "C" {
#include <linux/list.h>
#include <linux/rculist.h>
}

namespace {

struct Node {
	int v;
	struct list_head link;
	struct hlist_node hnode;
};

std::vector<int> values(struct list_head *head)
{
	std::vector<int> out;
	Node *n;
	list_for_each_entry(n, head, link)
		out.push_back(n->v);
	return out;
}

std::vector<int> values_reverse(struct list_head *head)
{
	std::vector<int> out;
	Node *n;
	list_for_each_entry_reverse(n, head, link)
		out.push_back(n->v);
	return out;
}

class ListTest : public SimTest {};

TEST_F(ListTest, AddAddTailAndWalks)
{
	LIST_HEAD(head);
	Node a{1, {}, {}}, b{2, {}, {}}, c{3, {}, {}};
	EXPECT_TRUE(list_empty(&head));
	list_add_tail(&b.link, &head);
	list_add(&a.link, &head);
	list_add_tail(&c.link, &head);
	EXPECT_EQ(values(&head), (std::vector<int>{1, 2, 3}));
	EXPECT_EQ(values_reverse(&head), (std::vector<int>{3, 2, 1}));
	EXPECT_EQ(list_first_entry(&head, Node, link), &a);
	EXPECT_EQ(list_last_entry(&head, Node, link), &c);
	EXPECT_EQ(list_next_entry(&a, link), &b);
	EXPECT_EQ(list_prev_entry(&c, link), &b);
	EXPECT_TRUE(list_is_first(&a.link, &head));
	EXPECT_TRUE(list_is_last(&c.link, &head));
	EXPECT_FALSE(list_is_singular(&head));
}

TEST_F(ListTest, DelPoisonsDelInitReinitialises)
{
	LIST_HEAD(head);
	Node a{1, {}, {}}, b{2, {}, {}};
	list_add_tail(&a.link, &head);
	list_add_tail(&b.link, &head);
	list_del(&a.link);
	EXPECT_EQ(a.link.next, (struct list_head *)LIST_POISON1);
	EXPECT_EQ(a.link.prev, (struct list_head *)LIST_POISON2);
	EXPECT_TRUE(list_is_singular(&head));
	list_del_init(&b.link);
	EXPECT_TRUE(list_empty(&b.link));
	EXPECT_TRUE(list_empty(&head));
}

TEST_F(ListTest, FirstEntryOrNull)
{
	LIST_HEAD(head);
	EXPECT_EQ(list_first_entry_or_null(&head, Node, link), nullptr);
	Node a{7, {}, {}};
	list_add(&a.link, &head);
	EXPECT_EQ(list_first_entry_or_null(&head, Node, link), &a);
}

TEST_F(ListTest, MoveAndSplice)
{
	LIST_HEAD(x);
	LIST_HEAD(y);
	Node n[6];
	for (int i = 0; i < 6; i++) {
		n[i].v = i;
		list_add_tail(&n[i].link, i < 3 ? &x : &y);
	}
	list_move_tail(&n[0].link, &x);
	EXPECT_EQ(values(&x), (std::vector<int>{1, 2, 0}));
	list_move(&n[5].link, &x);
	EXPECT_EQ(values(&x), (std::vector<int>{5, 1, 2, 0}));
	list_splice_init(&y, &x);
	EXPECT_TRUE(list_empty(&y));
	EXPECT_EQ(values(&x), (std::vector<int>{3, 4, 5, 1, 2, 0}));
	list_splice_tail_init(&x, &y);
	EXPECT_TRUE(list_empty(&x));
	EXPECT_EQ(values(&y), (std::vector<int>{3, 4, 5, 1, 2, 0}));
	list_rotate_left(&y);
	EXPECT_EQ(values(&y), (std::vector<int>{4, 5, 1, 2, 0, 3}));
	LIST_HEAD(cut);
	list_cut_position(&cut, &y, &n[1].link);
	EXPECT_EQ(values(&cut), (std::vector<int>{4, 5, 1}));
	EXPECT_EQ(values(&y), (std::vector<int>{2, 0, 3}));
}

TEST_F(ListTest, SafeWalkAllowsDeletion)
{
	LIST_HEAD(head);
	Node n[5];
	for (int i = 0; i < 5; i++) {
		n[i].v = i;
		list_add_tail(&n[i].link, &head);
	}
	Node *pos, *tmp;
	list_for_each_entry_safe(pos, tmp, &head, link) {
		if (pos->v % 2)
			list_del(&pos->link);
	}
	EXPECT_EQ(values(&head), (std::vector<int>{0, 2, 4}));
}

TEST_F(ListTest, Hlist)
{
	HLIST_HEAD(h);
	Node n[3];
	for (int i = 0; i < 3; i++) {
		n[i].v = i;
		INIT_HLIST_NODE(&n[i].hnode);
		EXPECT_TRUE(hlist_unhashed(&n[i].hnode));
		hlist_add_head(&n[i].hnode, &h);
	}
	std::vector<int> seen;
	Node *pos;
	hlist_for_each_entry(pos, &h, hnode)
		seen.push_back(pos->v);
	EXPECT_EQ(seen, (std::vector<int>{2, 1, 0}));

	hlist_del_init(&n[1].hnode);
	EXPECT_TRUE(hlist_unhashed(&n[1].hnode));
	hlist_del_init(&n[1].hnode); // a second time is harmless
	struct hlist_node *tmp;
	seen.clear();
	hlist_for_each_entry_safe(pos, tmp, &h, hnode) {
		seen.push_back(pos->v);
		hlist_del(&pos->hnode);
	}
	EXPECT_EQ(seen, (std::vector<int>{2, 0}));
	EXPECT_TRUE(hlist_empty(&h));
	EXPECT_EQ(n[0].hnode.next, (struct hlist_node *)LIST_POISON1);
}

TEST_F(ListTest, HlistDelInitRcuKeepsNext)
{
	HLIST_HEAD(h);
	Node a{1, {}, {}}, b{2, {}, {}};
	hlist_add_head(&a.hnode, &h);
	hlist_add_head(&b.hnode, &h);
	hlist_del_init_rcu(&b.hnode);
	EXPECT_TRUE(hlist_unhashed(&b.hnode));
	EXPECT_EQ(b.hnode.next, &a.hnode); // readers may still walk on
	EXPECT_EQ(h.first, &a.hnode);
}

} // namespace
