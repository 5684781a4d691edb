// SPDX-License-Identifier: GPL-2.0
// efqsim: the elevator registry and the blk-mq calls schedulers make,
// blktrace messages, sysfs_emit and seq_file buffers.
//
// Kind: kernel behaviour (6.1's elevator registry, elv_rb_*, rqhash, sysfs_emit, seq_file)
// Exceptions: queue runs go to the model (simulation), so does blktrace; freezing only counts

#include <cstdarg>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "internal.h"

extern "C" {
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/blktrace_api.h>
#include <linux/iocontext.h>
#include <linux/seq_file.h>
#include <linux/sysfs.h>
#include "elevator.h"
#include "blk-mq-debugfs.h"
#include "blk-mq-sched.h"
#include <sim/blk.h>
#include <sim/kernel.h>
}

namespace {

std::vector<elevator_type *> g_elevators;
sim_blktrace_hook_t g_trace_hook;
void *g_trace_arg;

void elevator_release(struct kobject *kobj)
{
	elevator_queue *eq = container_of(kobj, elevator_queue, kobj);
	kfree(eq);
}

} // namespace

extern "C" {

/* ---- elevators ---- */

int elv_register(struct elevator_type *e)
{
	if (!e->elevator_name || std::strlen(e->elevator_name) >= ELV_NAME_MAX) {
		sim::warn(__FILE__, __LINE__, "elv_register(): missing or too long elevator name");
		return -EINVAL;
	}
	if (WARN_ON(e->icq_size && e->icq_size < sizeof(struct io_cq)))
		return -EINVAL;
	for (elevator_type *o : g_elevators) {
		if (o == e || !std::strcmp(o->elevator_name, e->elevator_name))
			return -EBUSY;
	}
	if (e->icq_size) {
		snprintf(e->icq_cache_name, sizeof(e->icq_cache_name), "%s_io_cq",
			 e->elevator_name);
		e->icq_cache =
			kmem_cache_create(e->icq_cache_name, e->icq_size, e->icq_align, 0, nullptr);
		if (!e->icq_cache)
			return -ENOMEM;
	}
	g_elevators.push_back(e);
	printk(KERN_INFO "io scheduler %s registered\n", e->elevator_name);
	return 0;
}

void elv_unregister(struct elevator_type *e)
{
	for (auto it = g_elevators.begin(); it != g_elevators.end(); ++it) {
		if (*it == e) {
			g_elevators.erase(it);
			if (e->icq_cache) {
				rcu_barrier();
				kmem_cache_destroy(e->icq_cache);
				e->icq_cache = nullptr;
			}
			return;
		}
	}
	WARN(1, "elv_unregister(%s): not registered\n", e->elevator_name);
}

struct elevator_type *sim_elv_find(const char *name)
{
	for (elevator_type *e : g_elevators)
		if (!std::strcmp(e->elevator_name, name) ||
		    (e->elevator_alias && !std::strcmp(e->elevator_alias, name)))
			return e;
	return nullptr;
}

int sim_elv_count(void)
{
	return (int)g_elevators.size();
}

struct elevator_queue *elevator_alloc(struct request_queue * /*q*/, struct elevator_type *e)
{
	auto *eq = static_cast<elevator_queue *>(kzalloc(sizeof(elevator_queue), GFP_KERNEL));
	if (!eq)
		return nullptr;
	eq->type = e;
	eq->kobj.name = "iosched";
	eq->kobj.refcount = 1;
	eq->kobj.sim_release = elevator_release;
	mutex_init(&eq->sysfs_lock);
	return eq;
}

static struct elv_fs_entry *find_attr(struct elevator_queue *eq, const char *name)
{
	for (elv_fs_entry *a = eq->type->elevator_attrs; a && a->attr.name; a++)
		if (!std::strcmp(a->attr.name, name))
			return a;
	return nullptr;
}

ssize_t sim_elv_attr_show(struct elevator_queue *eq, const char *name, char *page)
{
	elv_fs_entry *a = find_attr(eq, name);
	if (!a || !a->show)
		return -ENOENT;
	mutex_lock(&eq->sysfs_lock);
	ssize_t ret = a->show(eq, page);
	mutex_unlock(&eq->sysfs_lock);
	return ret;
}

ssize_t sim_elv_attr_store(struct elevator_queue *eq, const char *name, const char *buf)
{
	elv_fs_entry *a = find_attr(eq, name);
	if (!a || !a->store)
		return -ENOENT;
	mutex_lock(&eq->sysfs_lock);
	ssize_t ret = a->store(eq, buf, std::strlen(buf));
	mutex_unlock(&eq->sysfs_lock);
	return ret;
}

// A read of a debugfs file whose attribute has seq_ops: the iterator is
// walked from the first record to the last, as one read() of the whole
// file walks it, with m->private the queue (blk-mq's debugfs open sets it
// so).  A show that returns a positive number (SEQ_SKIP) prints nothing.
static int read_seq(struct request_queue *q, const struct seq_operations *ops, seq_file *sf)
{
	loff_t pos = 0;
	int ret = 0;

	sf->private_ = q;
	void *v = ops->start(sf, &pos);
	while (v && !IS_ERR(v)) {
		size_t before = sf->count;
		ret = ops->show(sf, v);
		if (ret < 0)
			break;
		if (ret > 0) {
			sf->count = before;
			if (sf->buf)
				sf->buf[before] = '\0';
			ret = 0;
		}
		v = ops->next(sf, v, &pos);
	}
	ops->stop(sf, v);
	if (!ret && IS_ERR(v))
		ret = static_cast<int>(PTR_ERR(v));
	return ret;
}

char *sim_elv_debugfs_read(struct request_queue *q, const char *name, int *err)
{
	// a read() of a debugfs file: task context, no spinlock held
	might_sleep();
	const blk_mq_debugfs_attr *a =
		q->elevator ? q->elevator->type->queue_debugfs_attrs : nullptr;
	for (; a && a->name; a++) {
		if (std::strcmp(a->name, name) || (!a->show && !a->seq_ops))
			continue;
		seq_file sf{};
		int ret = a->seq_ops ? read_seq(q, a->seq_ops, &sf) : a->show(q, &sf);
		if (ret) {
			std::free(sf.buf);
			*err = ret;
			return nullptr;
		}
		*err = 0;
		return sf.buf ? sf.buf : strdup("");
	}
	*err = -ENOENT;
	return nullptr;
}

/*
 * A sort tree is in order only if nobody moved a request's start sector
 * without re-sorting it (a front merge: elv_merged_request() leaves that to
 * the scheduler's request_merged).  Checked around each node added or
 * removed.
 */
static void check_sorted(struct request *rq, const char *where)
{
	struct rb_node *prev = rb_prev(&rq->rb_node), *next = rb_next(&rq->rb_node);
	bool bad;

	if (where[7] == 'd')
		// elv_rb_del(): the node leaving may be the one that moved (a
		// re-sort deletes and adds it); its neighbours must be in order
		bad = prev && next && blk_rq_pos(rb_entry_rq(prev)) > blk_rq_pos(rb_entry_rq(next));
	else
		bad = (prev && blk_rq_pos(rb_entry_rq(prev)) > blk_rq_pos(rq)) ||
		      (next && blk_rq_pos(rb_entry_rq(next)) < blk_rq_pos(rq));
	if (bad)
		sim::warn(__FILE__, __LINE__,
			  sim::format("%s(): sort tree out of order around sector %llu (a front "
				      "merge moved a request without re-sorting it)",
				      where, (unsigned long long)blk_rq_pos(rq)));
}

} // extern "C"

namespace sim {
void check_rq_sorted(struct request *rq, const char *where)
{
	struct rb_node *prev, *next;

	if (RB_EMPTY_NODE(&rq->rb_node))
		return;
	prev = rb_prev(&rq->rb_node);
	next = rb_next(&rq->rb_node);
	if ((prev && blk_rq_pos(rb_entry_rq(prev)) > blk_rq_pos(rq)) ||
	    (next && blk_rq_pos(rb_entry_rq(next)) < blk_rq_pos(rq)))
		warn(__FILE__, __LINE__,
		     format("%s: request at sector %llu out of order on its sort tree (a front "
			    "merge moved it and the scheduler did not re-sort it)",
			    where, (unsigned long long)blk_rq_pos(rq)));
}
} // namespace sim

extern "C" {

/* Requests sorted by start sector; equal sectors keep insertion order. */
void elv_rb_add(struct rb_root *root, struct request *rq)
{
	struct rb_node **p = &root->rb_node, *parent = nullptr;

	while (*p) {
		parent = *p;
		if (blk_rq_pos(rq) < blk_rq_pos(rb_entry_rq(parent)))
			p = &parent->rb_left;
		else
			p = &parent->rb_right;
	}
	rb_link_node(&rq->rb_node, parent, p);
	rb_insert_color(&rq->rb_node, root);
	check_sorted(rq, "elv_rb_add");
}

void elv_rb_del(struct rb_root *root, struct request *rq)
{
	BUG_ON(RB_EMPTY_NODE(&rq->rb_node));
	check_sorted(rq, "elv_rb_del");
	rb_erase(&rq->rb_node, root);
	RB_CLEAR_NODE(&rq->rb_node);
}

struct request *elv_rb_find(struct rb_root *root, sector_t sector)
{
	struct rb_node *n = root->rb_node;

	while (n) {
		struct request *rq = rb_entry_rq(n);
		if (sector < blk_rq_pos(rq))
			n = n->rb_left;
		else if (sector > blk_rq_pos(rq))
			n = n->rb_right;
		else
			return rq;
	}
	return nullptr;
}

struct request *elv_rb_former_request(struct request_queue * /*q*/, struct request *rq)
{
	struct rb_node *rbprev = rb_prev(&rq->rb_node);
	return rbprev ? rb_entry_rq(rbprev) : nullptr;
}

struct request *elv_rb_latter_request(struct request_queue * /*q*/, struct request *rq)
{
	struct rb_node *rbnext = rb_next(&rq->rb_node);
	return rbnext ? rb_entry_rq(rbnext) : nullptr;
}

void elv_rqhash_del(struct request_queue * /*q*/, struct request *rq)
{
	if (rq->rq_flags & RQF_HASHED) {
		hlist_del_init(&rq->hash);
		rq->rq_flags &= ~RQF_HASHED;
	}
}

void elv_rqhash_add(struct request_queue *q, struct request *rq)
{
	struct elevator_queue *e = q->elevator;
	sector_t end = blk_rq_pos(rq) + blk_rq_sectors(rq);

	BUG_ON(rq->rq_flags & RQF_HASHED);
	hlist_add_head(&rq->hash, &e->hash[end % (1 << ELV_HASH_BITS)]);
	rq->rq_flags |= RQF_HASHED;
}

/* ---- blk-mq calls ---- */

void blk_mq_run_hw_queues(struct request_queue *q, bool async)
{
	q->sim_run_count++;
	if (q->sim_run_hw_queues)
		q->sim_run_hw_queues(q, async);
}

void blk_mq_run_hw_queue(struct blk_mq_hw_ctx *hctx, bool async)
{
	blk_mq_run_hw_queues(hctx->queue, async);
}

void blk_mq_delay_run_hw_queues(struct request_queue *q, unsigned long /*msecs*/)
{
	blk_mq_run_hw_queues(q, true);
}

void blk_mq_sched_mark_restart_hctx(struct blk_mq_hw_ctx *hctx)
{
	set_bit(BLK_MQ_S_SCHED_RESTART, &hctx->state);
	hctx->queue->sim_restart_count++;
}

void blk_mq_freeze_queue(struct request_queue *q)
{
	might_sleep();
	q->mq_freeze_depth++;
}

void blk_mq_unfreeze_queue(struct request_queue *q)
{
	if (WARN_ON(q->mq_freeze_depth <= 0))
		return;
	q->mq_freeze_depth--;
}

/* ---- blktrace ---- */

bool sim_blktrace_enabled(struct request_queue * /*q*/)
{
	return g_trace_hook || sim_printk_level > LOGLEVEL_DEBUG;
}

void sim_blktrace_msg(struct request_queue *q, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	std::string msg = sim::vformat(fmt, ap);
	va_end(ap);
	while (!msg.empty() && msg.back() == '\n')
		msg.pop_back();
	if (g_trace_hook)
		g_trace_hook(q, msg.c_str(), g_trace_arg);
	else
		printk(KERN_DEBUG "blktrace %s: %s\n", q && q->disk ? q->disk->disk_name : "?",
		       msg.c_str());
}

void sim_blktrace_set_hook(sim_blktrace_hook_t hook, void *arg)
{
	g_trace_hook = hook;
	g_trace_arg = arg;
}

/* ---- sysfs ---- */

int sysfs_emit(char *buf, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vscnprintf(buf, PAGE_SIZE, fmt, ap);
	va_end(ap);
	return n;
}

int sysfs_emit_at(char *buf, int at, const char *fmt, ...)
{
	if (WARN(at < 0 || at >= (int)PAGE_SIZE, "invalid sysfs_emit_at: %d\n", at))
		return 0;
	va_list ap;
	va_start(ap, fmt);
	int n = vscnprintf(buf + at, PAGE_SIZE - at, fmt, ap);
	va_end(ap);
	return n;
}

/* ---- seq_file ---- */

void seq_write(struct seq_file *m, const void *data, size_t len)
{
	if (m->count + len + 1 > m->size) {
		size_t size = m->size ? m->size : 256;
		while (m->count + len + 1 > size)
			size *= 2;
		m->buf = static_cast<char *>(std::realloc(m->buf, size));
		m->size = size;
	}
	std::memcpy(m->buf + m->count, data, len);
	m->count += len;
	m->buf[m->count] = '\0';
}

void seq_vprintf(struct seq_file *m, const char *fmt, va_list args)
{
	std::string s = sim::vformat(fmt, args);
	seq_write(m, s.data(), s.size());
}

void seq_printf(struct seq_file *m, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	seq_vprintf(m, fmt, ap);
	va_end(ap);
}

void seq_puts(struct seq_file *m, const char *s)
{
	seq_write(m, s, std::strlen(s));
}

void seq_putc(struct seq_file *m, char c)
{
	seq_write(m, &c, 1);
}

struct list_head *seq_list_start(struct list_head *head, loff_t pos)
{
	struct list_head *lh;

	list_for_each(lh, head) {
		if (!pos)
			return lh;
		pos--;
	}
	return nullptr;
}

struct list_head *seq_list_next(void *v, struct list_head *head, loff_t *ppos)
{
	struct list_head *lh = static_cast<struct list_head *>(v)->next;

	++*ppos;
	return lh == head ? nullptr : lh;
}

/* ---- blk-mq debugfs: one request per line ---- */

static const char *op_name(enum req_op op)
{
	switch (op) {
	case REQ_OP_READ:
		return "READ";
	case REQ_OP_WRITE:
		return "WRITE";
	case REQ_OP_FLUSH:
		return "FLUSH";
	case REQ_OP_DISCARD:
		return "DISCARD";
	case REQ_OP_SECURE_ERASE:
		return "SECURE_ERASE";
	case REQ_OP_ZONE_APPEND:
		return "ZONE_APPEND";
	case REQ_OP_WRITE_ZEROES:
		return "WRITE_ZEROES";
	case REQ_OP_DRV_IN:
		return "DRV_IN";
	case REQ_OP_DRV_OUT:
		return "DRV_OUT";
	default:
		return nullptr;
	}
}

struct flag_name {
	u32 flag;
	const char *name;
};

// The set bits of @flags by name, "|"-separated; a bit without a name by
// its number.
static void show_flags(struct seq_file *m, u32 flags, const flag_name *names, size_t n)
{
	bool first = true;

	for (unsigned int bit = 0; bit < 32; bit++) {
		u32 f = 1u << bit;
		if (!(flags & f))
			continue;
		if (!first)
			seq_putc(m, '|');
		first = false;
		const char *name = nullptr;
		for (size_t i = 0; i < n && !name; i++)
			if (names[i].flag == f)
				name = names[i].name;
		if (name)
			seq_puts(m, name);
		else
			seq_printf(m, "%u", bit);
	}
}

int __blk_mq_debugfs_rq_show(struct seq_file *m, struct request *rq)
{
	static const flag_name cmd_flags[] = {
		{(__force u32)REQ_FAILFAST_DEV, "FAILFAST_DEV"},
		{(__force u32)REQ_FAILFAST_TRANSPORT, "FAILFAST_TRANSPORT"},
		{(__force u32)REQ_FAILFAST_DRIVER, "FAILFAST_DRIVER"},
		{(__force u32)REQ_SYNC, "SYNC"},
		{(__force u32)REQ_META, "META"},
		{(__force u32)REQ_PRIO, "PRIO"},
		{(__force u32)REQ_NOMERGE, "NOMERGE"},
		{(__force u32)REQ_IDLE, "IDLE"},
		{(__force u32)REQ_INTEGRITY, "INTEGRITY"},
		{(__force u32)REQ_FUA, "FUA"},
		{(__force u32)REQ_PREFLUSH, "PREFLUSH"},
		{(__force u32)REQ_RAHEAD, "RAHEAD"},
		{(__force u32)REQ_BACKGROUND, "BACKGROUND"},
		{(__force u32)REQ_NOWAIT, "NOWAIT"},
		{(__force u32)REQ_CGROUP_PUNT, "CGROUP_PUNT"},
		{(__force u32)REQ_POLLED, "POLLED"},
		{(__force u32)REQ_ALLOC_CACHE, "ALLOC_CACHE"},
		{(__force u32)REQ_SWAP, "SWAP"},
		{(__force u32)REQ_DRV, "DRV"},
		{(__force u32)REQ_NOUNMAP, "NOUNMAP"},
	};
	static const flag_name rq_flags[] = {
		{(__force u32)RQF_STARTED, "STARTED"},
		{(__force u32)RQF_SOFTBARRIER, "SOFTBARRIER"},
		{(__force u32)RQF_FLUSH_SEQ, "FLUSH_SEQ"},
		{(__force u32)RQF_MIXED_MERGE, "MIXED_MERGE"},
		{(__force u32)RQF_MQ_INFLIGHT, "MQ_INFLIGHT"},
		{(__force u32)RQF_DONTPREP, "DONTPREP"},
		{(__force u32)RQF_FAILED, "FAILED"},
		{(__force u32)RQF_QUIET, "QUIET"},
		{(__force u32)RQF_ELVPRIV, "ELVPRIV"},
		{(__force u32)RQF_IO_STAT, "IO_STAT"},
		{(__force u32)RQF_PM, "PM"},
		{(__force u32)RQF_HASHED, "HASHED"},
		{(__force u32)RQF_STATS, "STATS"},
		{(__force u32)RQF_SPECIAL_PAYLOAD, "SPECIAL_PAYLOAD"},
		{(__force u32)RQF_ZONE_WRITE_LOCKED, "ZONE_WRITE_LOCKED"},
		{(__force u32)RQF_TIMED_OUT, "TIMED_OUT"},
		{(__force u32)RQF_ELV, "ELV"},
		{(__force u32)RQF_RESV, "RESV"},
	};
	static const char *const states[] = {"idle", "in_flight", "complete"};
	const enum req_op op = req_op(rq);

	seq_printf(m, "%p {.op=", static_cast<void *>(rq));
	if (const char *name = op_name(op))
		seq_puts(m, name);
	else
		seq_printf(m, "%u", (unsigned int)op);
	seq_puts(m, ", .cmd_flags=");
	show_flags(m, (__force u32)(rq->cmd_flags & ~REQ_OP_MASK), cmd_flags,
		   sizeof(cmd_flags) / sizeof(cmd_flags[0]));
	seq_puts(m, ", .rq_flags=");
	show_flags(m, (__force u32)rq->rq_flags, rq_flags, sizeof(rq_flags) / sizeof(rq_flags[0]));
	seq_printf(m, ", .state=%s", (unsigned int)rq->state < 3 ? states[rq->state] : "(invalid)");
	seq_printf(m, ", .tag=%d, .internal_tag=%d", rq->tag, rq->internal_tag);
	// the simulated driver's show_rq
	seq_printf(m, ", .sector=%llu, .sectors=%u", (unsigned long long)blk_rq_pos(rq),
		   blk_rq_sectors(rq));
	seq_puts(m, "}\n");
	return 0;
}

int blk_mq_debugfs_rq_show(struct seq_file *m, void *v)
{
	return __blk_mq_debugfs_rq_show(m, list_entry_rq(static_cast<struct list_head *>(v)));
}

} // extern "C"
