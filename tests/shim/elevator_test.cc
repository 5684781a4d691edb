// SPDX-License-Identifier: GPL-2.0
// The elevator registry, elevator_alloc(), sysfs attributes, debugfs files
// (shown and listed), io_cqs, the sector rbtree helpers, the blk-mq calls
// schedulers make, the tag map's shape and waiter count, and the zone write
// lock helpers.

#include <sim/gtest_guard.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

extern "C" {
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/blkdev.h>
#include <linux/blk-mq.h>
#include <linux/blktrace_api.h>
#include <linux/ioprio.h>
#include <linux/string.h>
#include <linux/module.h>
#include "elevator.h"
#include "blk.h"
#include "blk-mq-debugfs.h"
#include "blk-mq-sched.h"
#include <sim/blk.h>
#include <sim/blkcg.h>
}

namespace {

struct TestIcq {
	struct io_cq icq; // first, as the kernel requires
	int inits, exits;
};

std::vector<std::string> g_ev;
int g_tunable = 5;

void t_init_icq(struct io_cq *icq)
{
	EXPECT_TRUE(lockdep_is_held(&icq->q->queue_lock));
	EXPECT_TRUE(lockdep_is_held(&icq->ioc->lock));
	container_of(icq, TestIcq, icq)->inits++;
	g_ev.push_back("init_icq");
}

void t_exit_icq(struct io_cq *icq)
{
	container_of(icq, TestIcq, icq)->exits++;
	g_ev.push_back("exit_icq");
}

ssize_t t_show(struct elevator_queue *e, char *page)
{
	EXPECT_TRUE(mutex_is_locked(&e->sysfs_lock));
	return sysfs_emit(page, "%d\n", g_tunable);
}

ssize_t t_store(struct elevator_queue *, const char *page, size_t count)
{
	int v;
	int ret = kstrtoint(page, 10, &v);
	if (ret)
		return ret;
	g_tunable = v;
	return count;
}

struct elv_fs_entry g_attrs[] = {
	__ATTR(tunable, 0644, t_show, t_store),
	__ATTR_NULL,
};

// A debugfs list file, as mq-deadline's fifo lists are: requests on a
// list walked under a lock that start takes and stop drops, each printed
// by blk_mq_debugfs_rq_show().
struct list_head g_list;
spinlock_t g_list_lock;
struct request_queue *g_debugfs_q;
int g_skip_sector = -1; // a request at this sector is skipped (SEQ_SKIP)

void *l_start(struct seq_file *m, loff_t *pos)
{
	EXPECT_EQ(m->private_, g_debugfs_q) << "m->private is the queue";
	spin_lock(&g_list_lock);
	return seq_list_start(&g_list, *pos);
}

void *l_next(struct seq_file *, void *v, loff_t *pos)
{
	return seq_list_next(v, &g_list, pos);
}

void l_stop(struct seq_file *, void *)
{
	spin_unlock(&g_list_lock);
}

int l_show(struct seq_file *m, void *v)
{
	EXPECT_TRUE(lockdep_is_held(&g_list_lock));
	if ((int)blk_rq_pos(list_entry_rq(static_cast<struct list_head *>(v))) == g_skip_sector)
		return 1;
	return blk_mq_debugfs_rq_show(m, v);
}

const struct seq_operations g_list_ops = {l_start, l_stop, l_next, l_show};

int d_show(void *data, struct seq_file *m)
{
	seq_printf(m, "%s\n", data == g_debugfs_q ? "q" : "?");
	return 0;
}

const struct blk_mq_debugfs_attr g_debugfs[] = {
	{"list", 0400, nullptr, nullptr, &g_list_ops},
	{"shown", 0400, d_show, nullptr, nullptr},
	{},
};

struct elevator_type g_elv {};

// C++ has no partial designated initialisers without warnings: fill it in.
void setup_elv()
{
	g_elv.ops.init_icq = t_init_icq;
	g_elv.ops.exit_icq = t_exit_icq;
	g_elv.icq_size = sizeof(TestIcq);
	g_elv.icq_align = __alignof__(TestIcq);
	g_elv.elevator_attrs = g_attrs;
	g_elv.elevator_name = "test-elv";
	g_elv.elevator_alias = "test-alias";
	g_elv.elevator_owner = THIS_MODULE;
	g_elv.queue_debugfs_attrs = g_debugfs;
}

class ElevatorTest : public SimTest {
protected:
	struct request_queue q {};
	struct gendisk disk {};

	void SetUp() override
	{
		SimTest::SetUp();
		g_ev.clear();
		disk.major = 8;
		setup_elv();
		ASSERT_EQ(elv_register(&g_elv), 0);
		ASSERT_EQ(sim_queue_init(&q, &disk), 0);
		q.elevator = elevator_alloc(&q, &g_elv);
		ASSERT_NE(q.elevator, nullptr);
	}

	void TearDown() override
	{
		ioc_clear_queue(&q);
		kobject_put(&q.elevator->kobj);
		sim_queue_exit(&q);
		sim_quiesce();
		elv_unregister(&g_elv);
		SimTest::TearDown();
	}
};

TEST_F(ElevatorTest, Registry)
{
	EXPECT_EQ(sim_elv_find("test-elv"), &g_elv);
	EXPECT_EQ(sim_elv_find("test-alias"), &g_elv);
	EXPECT_EQ(sim_elv_find("nope"), nullptr);
	EXPECT_EQ(elv_register(&g_elv), -EBUSY);
	EXPECT_STREQ(g_elv.icq_cache_name, "test-elv_io_cq");
	EXPECT_NE(g_elv.icq_cache, nullptr);
	EXPECT_EQ(q.elevator->type, &g_elv);
}

TEST_F(ElevatorTest, SysfsAttributes)
{
	char page[PAGE_SIZE];
	EXPECT_EQ(sim_elv_attr_show(q.elevator, "tunable", page), 2);
	EXPECT_STREQ(page, "5\n");
	EXPECT_EQ(sim_elv_attr_store(q.elevator, "tunable", "9\n"), 2);
	EXPECT_EQ(g_tunable, 9);
	EXPECT_EQ(sim_elv_attr_store(q.elevator, "tunable", "x"), -EINVAL);
	EXPECT_EQ(sim_elv_attr_show(q.elevator, "nope", page), -ENOENT);
}

TEST_F(ElevatorTest, IcqPerTaskAndQueue)
{
	sim_set_current(10, "a");
	struct io_cq *icq = ioc_find_get_icq(&q);
	ASSERT_NE(icq, nullptr);
	EXPECT_EQ(icq->q, &q);
	EXPECT_EQ(icq->ioc, current->io_context);
	EXPECT_EQ(container_of(icq, TestIcq, icq)->inits, 1);
	EXPECT_EQ(ioc_find_get_icq(&q), icq); // the same one, another reference
	spin_lock_irq(&q.queue_lock);
	EXPECT_EQ(ioc_lookup_icq(&q), icq);
	spin_unlock_irq(&q.queue_lock);
	put_io_context(icq->ioc);
	put_io_context(icq->ioc);

	sim_set_current(11, "b");
	struct io_cq *other = ioc_find_get_icq(&q);
	EXPECT_NE(other, icq);
	put_io_context(other->ioc);
	EXPECT_EQ(g_ev, (std::vector<std::string>{"init_icq", "init_icq"}));

	// The task exits: exit_icq now, the icq goes with the queue.
	exit_io_context(current);
	EXPECT_EQ(current->io_context, nullptr);
	EXPECT_EQ(g_ev.back(), "exit_icq");
	sim_set_current(10, "a");
	exit_io_context(current);
}

TEST_F(ElevatorTest, IoprioFromIoContextOrNice)
{
	EXPECT_EQ(get_current_ioprio(), IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, 4));
	sim_current_set_nice(-20);
	EXPECT_EQ(get_current_ioprio(), IOPRIO_PRIO_VALUE(IOPRIO_CLASS_BE, 0));
	sim_current_set_policy(SCHED_IDLE);
	EXPECT_EQ(IOPRIO_PRIO_CLASS(get_current_ioprio()), IOPRIO_CLASS_IDLE);
	ASSERT_EQ(set_task_ioprio(current, IOPRIO_PRIO_VALUE(IOPRIO_CLASS_RT, 2)), 0);
	EXPECT_EQ(get_current_ioprio(), IOPRIO_PRIO_VALUE(IOPRIO_CLASS_RT, 2));
	EXPECT_TRUE(ioprio_valid(get_current_ioprio()));
	exit_io_context(current);
}

TEST_F(ElevatorTest, SectorRbtree)
{
	struct request rqs[5] = {};
	struct rb_root root = RB_ROOT;
	const sector_t pos[5] = {100, 8, 64, 8, 900};
	for (int i = 0; i < 5; i++) {
		rqs[i].__sector = pos[i];
		rqs[i].q = &q;
		elv_rb_add(&root, &rqs[i]);
	}
	EXPECT_EQ(elv_rb_find(&root, 64), &rqs[2]);
	EXPECT_EQ(elv_rb_find(&root, 65), nullptr);
	EXPECT_EQ(elv_rb_latter_request(&q, &rqs[2]), &rqs[0]);
	EXPECT_EQ(elv_rb_former_request(&q, &rqs[2]), &rqs[3]); // equal keys keep order
	elv_rb_del(&root, &rqs[2]);
	EXPECT_TRUE(RB_EMPTY_NODE(&rqs[2].rb_node));
	EXPECT_EQ(elv_rb_find(&root, 64), nullptr);
}

int g_runs;
void run_cb(struct request_queue *, bool async)
{
	g_runs += async ? 10 : 1;
}

void trace_cb(struct request_queue *, const char *msg, void *arg)
{
	static_cast<std::vector<std::string> *>(arg)->push_back(msg);
}

TEST_F(ElevatorTest, RunQueuesRestartAndTrace)
{
	g_runs = 0;
	blk_mq_run_hw_queues(&q, true);
	EXPECT_EQ(q.sim_run_count, 1u);
	q.sim_run_hw_queues = run_cb;
	blk_mq_run_hw_queues(&q, true);
	blk_mq_run_hw_queues(&q, false);
	EXPECT_EQ(g_runs, 11);

	struct blk_mq_hw_ctx hctx = {};
	hctx.queue = &q;
	blk_mq_sched_mark_restart_hctx(&hctx);
	EXPECT_TRUE(blk_mq_sched_needs_restart(&hctx));
	EXPECT_EQ(q.sim_restart_count, 1u);

	std::vector<std::string> msgs;
	sim_blktrace_set_hook(trace_cb, &msgs);
	blk_add_trace_msg(&q, "efq%d %s", 12, "dispatch");
	sim_blktrace_set_hook(nullptr, nullptr);
	blk_add_trace_msg(&q, "not seen");
	EXPECT_EQ(msgs, (std::vector<std::string>{"efq12 dispatch"}));
}

TEST_F(ElevatorTest, RequestHelpers)
{
	struct request rq = {};
	rq.cmd_flags = REQ_OP_WRITE | REQ_SYNC | REQ_META;
	rq.__sector = 2048;
	rq.__data_len = 8192;
	EXPECT_EQ(req_op(&rq), REQ_OP_WRITE);
	EXPECT_EQ(rq_data_dir(&rq), WRITE);
	EXPECT_TRUE(rq_is_sync(&rq));
	EXPECT_EQ(blk_rq_pos(&rq), 2048u);
	EXPECT_EQ(blk_rq_sectors(&rq), 16u);
	rq.cmd_flags = REQ_OP_WRITE;
	EXPECT_FALSE(rq_is_sync(&rq));
	rq.cmd_flags = REQ_OP_READ;
	EXPECT_TRUE(rq_is_sync(&rq));
	EXPECT_EQ(rq_data_dir(&rq), READ);
	EXPECT_EQ(disk_devt(&disk), MKDEV(8, 0));
	struct block_device *bdev = blkdev_get_by_dev(MKDEV(8, 0), FMODE_READ, nullptr);
	ASSERT_FALSE(IS_ERR(bdev));
	EXPECT_EQ(bdev->bd_disk, &disk);
	EXPECT_FALSE(bdev_is_partition(bdev));
	blkdev_put(bdev, FMODE_READ);
	EXPECT_TRUE(IS_ERR(blkdev_get_by_dev(MKDEV(8, 1), FMODE_READ, nullptr)));
}

// A list file is read as one read() of it walks it: start, show and next
// per record, stop; a show that returns SEQ_SKIP (1) prints nothing.  Each
// request is one line in 6.1's format, plus the sim driver's sector.
TEST_F(ElevatorTest, DebugfsListFiles)
{
	struct request rqs[3] = {};
	INIT_LIST_HEAD(&g_list);
	spin_lock_init(&g_list_lock);
	g_debugfs_q = &q;
	const sector_t pos[3] = {2048, 8, 64};
	for (int i = 0; i < 3; i++) {
		rqs[i].q = &q;
		rqs[i].__sector = pos[i];
		rqs[i].__data_len = 4096;
		rqs[i].tag = -1;
		rqs[i].internal_tag = i;
		list_add_tail(&rqs[i].queuelist, &g_list);
	}
	rqs[0].cmd_flags = REQ_OP_WRITE | REQ_SYNC | REQ_FUA;
	rqs[0].rq_flags = RQF_STARTED | RQF_ELV;
	rqs[0].state = MQ_RQ_IN_FLIGHT;
	rqs[0].tag = 3;
	rqs[0].__data_len = 8192;

	int err = 1;
	char *s = sim_elv_debugfs_read(&q, "list", &err);
	ASSERT_NE(s, nullptr);
	EXPECT_EQ(err, 0);
	std::string text = s;
	std::free(s);
	std::vector<std::string> lines;
	for (size_t at = 0, nl; (nl = text.find('\n', at)) != std::string::npos; at = nl + 1)
		lines.push_back(text.substr(text.find(' ', at) + 1, nl - text.find(' ', at) - 1));
	EXPECT_EQ(lines,
		  (std::vector<std::string>{
			  "{.op=WRITE, .cmd_flags=SYNC|FUA, .rq_flags=STARTED|ELV, "
			  ".state=in_flight, .tag=3, .internal_tag=0, .sector=2048, .sectors=16}",
			  "{.op=READ, .cmd_flags=, .rq_flags=, .state=idle, .tag=-1, "
			  ".internal_tag=1, .sector=8, .sectors=8}",
			  "{.op=READ, .cmd_flags=, .rq_flags=, .state=idle, .tag=-1, "
			  ".internal_tag=2, .sector=64, .sectors=8}"}))
		<< text;
	EXPECT_EQ(text.rfind("0x", 0), 0u) << "each line starts with the request's address";

	g_skip_sector = 8;
	s = sim_elv_debugfs_read(&q, "list", &err);
	ASSERT_NE(s, nullptr);
	EXPECT_EQ(std::count(s, s + std::strlen(s), '\n'), 2);
	EXPECT_EQ(std::strstr(s, ".sector=8,"), nullptr);
	std::free(s);
	g_skip_sector = -1;

	INIT_LIST_HEAD(&g_list);
	s = sim_elv_debugfs_read(&q, "list", &err);
	ASSERT_NE(s, nullptr);
	EXPECT_STREQ(s, "") << "an empty list reads as nothing";
	std::free(s);

	s = sim_elv_debugfs_read(&q, "shown", &err);
	ASSERT_NE(s, nullptr);
	EXPECT_STREQ(s, "q\n");
	std::free(s);
	EXPECT_EQ(sim_elv_debugfs_read(&q, "nope", &err), nullptr);
	EXPECT_EQ(err, -ENOENT);

	struct list_head head, a, b;
	INIT_LIST_HEAD(&head);
	list_add_tail(&a, &head);
	list_add_tail(&b, &head);
	loff_t p = 0;
	EXPECT_EQ(seq_list_start(&head, 0), &a);
	EXPECT_EQ(seq_list_start(&head, 1), &b);
	EXPECT_EQ(seq_list_start(&head, 2), nullptr);
	EXPECT_EQ(seq_list_next(&a, &head, &p), &b);
	EXPECT_EQ(seq_list_next(&b, &head, &p), nullptr);
	EXPECT_EQ(p, 2);
}

// blk-mq's tag maps: words of 64 tags, halved while the map would have
// fewer than 4 words (a map of fewer than 4 tags keeps 64).
TEST(TagMap, WordSizeAsSbitmapChoosesIt)
{
	const std::pair<unsigned int, int> cases[] = {
		{1, 6},	  {2, 6},   {4, 0},   {8, 1},	{62, 3},   {64, 4},
		{127, 4}, {128, 5}, {255, 5}, {256, 6}, {2048, 6},
	};
	for (auto [depth, shift] : cases)
		EXPECT_EQ(sbitmap_calculate_shift(depth), shift) << depth;
}

// The waiter count of a tag map as 6.1's sbitmap keeps it: a submitter is
// counted once from its first sbitmap_prepare_to_wait() (going back to
// sleep after a wake-up that found no tag does not count it again) until
// its sbitmap_finish_wait(); a finish without a prepare changes nothing.
TEST(TagMap, WaitersAreCountedOnceUntilTheirWaitFinishes)
{
	struct sbitmap_queue bt = {};
	struct sbq_wait a = {}, b = {};

	EXPECT_EQ(atomic_read(&bt.ws_active), 0);
	sbitmap_prepare_to_wait(&bt, nullptr, &a, 0);
	EXPECT_EQ(atomic_read(&bt.ws_active), 1);
	EXPECT_EQ(a.sbq, &bt);
	sbitmap_prepare_to_wait(&bt, nullptr, &a, 0); // woken, no tag: sleeps again
	EXPECT_EQ(atomic_read(&bt.ws_active), 1);
	sbitmap_prepare_to_wait(&bt, nullptr, &b, 0);
	EXPECT_EQ(atomic_read(&bt.ws_active), 2);
	sbitmap_finish_wait(&bt, nullptr, &a);
	EXPECT_EQ(atomic_read(&bt.ws_active), 1);
	EXPECT_EQ(a.sbq, nullptr);
	sbitmap_finish_wait(&bt, nullptr, &a); // blk_mq_get_tag()'s final finish
	EXPECT_EQ(atomic_read(&bt.ws_active), 1);
	sbitmap_finish_wait(&bt, nullptr, &b);
	EXPECT_EQ(atomic_read(&bt.ws_active), 0);

	bt.sb.sim_in_use = 3;
	EXPECT_EQ(sbitmap_weight(&bt.sb), 3u);
}

// No simulated disk is zoned: no request needs a zone write lock, every
// request may be dispatched, and unlocking only clears the flag.  A zoned
// queue is reported (the sim has no zone locks to honour).
TEST_F(ElevatorTest, NoZoneWriteLocks)
{
	struct request rq = {};
	rq.q = &q;
	rq.cmd_flags = REQ_OP_WRITE;
	EXPECT_FALSE(blk_queue_is_zoned(&q));
	EXPECT_FALSE(blk_req_needs_zone_write_lock(&rq));
	EXPECT_TRUE(blk_req_can_dispatch_to_zone(&rq));
	blk_req_zone_write_lock(&rq);
	EXPECT_FALSE(rq.rq_flags & RQF_ZONE_WRITE_LOCKED);
	rq.rq_flags = RQF_ZONE_WRITE_LOCKED | RQF_ELV;
	blk_req_zone_write_unlock(&rq);
	EXPECT_EQ(rq.rq_flags, RQF_ELV);
	EXPECT_EQ(req_get_ioprio(&rq), 0);

	q.limits.zoned = BLK_ZONED_HM;
	EXPECT_TRUE(blk_queue_is_zoned(&q));
	EXPECT_FALSE(blk_req_needs_zone_write_lock(&rq));
	ExpectWarnings(1);
	q.limits.zoned = BLK_ZONED_NONE;
}

} // namespace
