/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: RCU list variants.  With one thread and deferred RCU
 * callbacks they are the plain operations, except that the _rcu deletions
 * leave ->next intact for readers, as in the kernel.
 *
 * Kind: kernel behaviour (the _rcu list variants; deletions keep ->next for readers)
 */
#ifndef _SIM_LINUX_RCULIST_H
#define _SIM_LINUX_RCULIST_H

#include <linux/list.h>
#include <linux/rcupdate.h>

#define list_add_rcu(entry, head) list_add(entry, head)
#define list_add_tail_rcu(entry, head) list_add_tail(entry, head)
#define list_replace_rcu(old, entry) list_replace(old, entry)

static inline void list_del_rcu(struct list_head *entry)
{
	__list_del_entry(entry);
	entry->prev = (struct list_head *)LIST_POISON2;
}

static inline void hlist_del_rcu(struct hlist_node *n)
{
	__hlist_del(n);
	n->pprev = (struct hlist_node **)LIST_POISON2;
}

static inline void hlist_del_init_rcu(struct hlist_node *n)
{
	if (!hlist_unhashed(n)) {
		__hlist_del(n);
		n->pprev = NULL;
	}
}

#define hlist_add_head_rcu(n, h) hlist_add_head(n, h)
#define hlist_add_behind_rcu(n, prev) hlist_add_behind(n, prev)
#define hlist_add_before_rcu(n, next) hlist_add_before(n, next)

#define list_entry_rcu(ptr, type, member) container_of(READ_ONCE(ptr), type, member)
#define list_first_or_null_rcu(ptr, type, member) list_first_entry_or_null(ptr, type, member)
#define list_for_each_entry_rcu(pos, head, member, ...) list_for_each_entry(pos, head, member)
#define list_for_each_entry_continue_rcu(pos, head, member) \
	list_for_each_entry_continue(pos, head, member)
#define hlist_for_each_entry_rcu(pos, head, member, ...) hlist_for_each_entry(pos, head, member)

#endif
