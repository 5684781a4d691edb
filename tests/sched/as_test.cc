// SPDX-License-Identifier: GPL-2.0
// as (anticipatory) on the efq engine.  Flat-mode tests run on a depth-1
// RecordingDevice taking 1 ms per request, so dev_->sent is the dispatch
// order; the expected sequences are derived by hand from the rules in
// block/as-iosched.c (and Documentation/block/as.rst).
#include <cstdio>

#include "harness.h"

namespace {

using namespace efqtest;

const auto *env = ::testing::AddGlobalTestEnvironment(new SchedEnv);

class As : public SchedTest {
protected:
	static Config Flat(std::vector<std::pair<std::string, std::string>> tunables = {})
	{
		Config cfg;
		cfg.scheduler = "as";
		cfg.hierarchical = false;
		cfg.nr_requests = 128; // no tag waits: every IO is queued at once
		cfg.tunables = std::move(tunables);
		return cfg;
	}
	// Dispatch times of the requests at byte offsets @offs, in order sent.
	void ExpectOrder(const std::vector<uint64_t> &offs)
	{
		EXPECT_EQ(dev_->sent.size(), offs.size());
		for (size_t i = 0; i < offs.size() && i < dev_->sent.size(); i++)
			EXPECT_EQ(dev_->sent[i].rq.sector, offs[i] / 512) << "position " << i;
	}
	void Dump()
	{
		for (auto &s : dev_->sent)
			std::printf("  %llu MiB+%llu @%.3f ms %c\n",
				    static_cast<unsigned long long>(s.rq.sector * 512 >> 20),
				    static_cast<unsigned long long>(s.rq.sector * 512 % (1 << 20)),
				    static_cast<double>(s.when) / kMs, s.rq.write ? 'W' : 'R');
	}
	void ExpectNoReruns() { EXPECT_EQ(m_->counters().budget_reruns, 0u); }
};

constexpr uint64_t kMiB = 1 << 20;

// R1 (0..1 ms) makes the reader the anticipated process.  Writes arrive at
// 0.5 ms: AS waits for R1 (WAIT_REQ), then from its completion for up to
// antic_expire (6 ms).  The reader thinks 2 ms, so each next read arrives
// in time, breaks the anticipation and is served at once: R1..R5 at 0, 3,
// 6, 9, 12 ms.  After R5 (done at 13 ms) no read comes; the writes get the
// disk at 13 + 6 = 19 ms, in ascending order, 1 ms each.
TEST_F(As, AReaderThatReturnsWithinAnticExpireKeepsTheDisk)
{
	Make(Flat());
	TaskId r = Task(Spec("reader")), w = Task(Spec("writer"));
	const int64_t t0 = m_->now();
	Job *j = Loop(r, 1, 4096, 0, t0 + 13 * kMs);
	j->think = 2 * kMs;
	m_->at(t0 + 500 * kUs, [&] {
		for (int i = 0; i < 4; i++)
			Submit(w, (500 + 100 * i) * kMiB, 4096, true, false);
	});
	ASSERT_TRUE(m_->drain(m_->now() + 1000 * kMs));
	ExpectOrder({0, 4096, 8192, 12288, 16384, 500 * kMiB, 600 * kMiB, 700 * kMiB, 800 * kMiB});
	const int64_t when[] = {0, 3, 6, 9, 12, 19, 20, 21, 22};
	for (size_t i = 0; i < 9 && i < dev_->sent.size(); i++)
		EXPECT_EQ(dev_->sent[i].when, t0 + when[i] * kMs) << "position " << i;
	ExpectNoReruns();
}

// The reader thinks 10 ms: AS anticipates after R1 (done at 1 ms) until
// 1 + 6 = 7 ms, then the first write goes.  The next read arrives at 11 ms.
TEST_F(As, AReaderThatStaysAwayLongerThanAnticExpireLosesTheDiskAfterAnticExpire)
{
	Make(Flat());
	TaskId r = Task(Spec("reader")), w = Task(Spec("writer"));
	const int64_t t0 = m_->now();
	Job *j = Loop(r, 1, 4096, 0, t0 + 12 * kMs);
	j->think = 10 * kMs;
	m_->at(t0 + 500 * kUs, [&] {
		for (int i = 0; i < 2; i++)
			Submit(w, (500 + 100 * i) * kMiB, 4096, true, false);
	});
	ASSERT_TRUE(m_->drain(m_->now() + 1000 * kMs));
	ASSERT_EQ(dev_->sent.size(), 4u);
	EXPECT_EQ(dev_->sent[0].rq.sector, 0u);
	EXPECT_EQ(dev_->sent[1].rq.sector, 500 * kMiB / 512);
	EXPECT_EQ(dev_->sent[1].when, t0 + 7 * kMs);
	EXPECT_EQ(dev_->sent[2].when, t0 + 8 * kMs);
	EXPECT_EQ(dev_->sent[3].rq.sector, 4096u / 512);
	EXPECT_EQ(dev_->sent[3].when, t0 + 11 * kMs);
	ExpectNoReruns();
}

// As above, but the reader exits at 2 ms, while AS waits for its next read:
// its io_context goes (exit_icq), AS stops waiting at once and the writes
// go at 2 and 3 ms instead of at 7 and 8.
TEST_F(As, AnticipationEndsWhenTheAwaitedProcessExits)
{
	Make(Flat());
	TaskId r = Task(Spec("reader")), w = Task(Spec("writer"));
	const int64_t t0 = m_->now();
	Submit(r, 0, 4096, false, true);
	m_->at(t0 + 500 * kUs, [&] {
		for (int i = 0; i < 2; i++)
			Submit(w, (500 + 100 * i) * kMiB, 4096, true, false);
	});
	m_->at(t0 + 2 * kMs, [&] { m_->exit_task(r); });
	ASSERT_TRUE(m_->drain(m_->now() + 1000 * kMs));
	ASSERT_EQ(dev_->sent.size(), 3u);
	EXPECT_EQ(dev_->sent[0].rq.sector, 0u);
	EXPECT_EQ(dev_->sent[1].rq.sector, 500 * kMiB / 512);
	EXPECT_EQ(dev_->sent[1].when, t0 + 2 * kMs);
	EXPECT_EQ(dev_->sent[2].when, t0 + 3 * kMs);
	ExpectNoReruns();
}

// A process that exited is never waited for again, even for a read it left
// queued: R1 goes at 0, R2 waits; the reader exits at 0.5 ms, after the
// writes arrived.  R2 still goes at 1 ms (the read batch), and then the
// writes at 2 and 3 ms: no wait for a process that will send nothing.
// (Its io_cq goes once R2 is freed; AS must hold no pointer to it.)
TEST_F(As, AnExitedProcessIsNotWaitedForAfterItsLastRead)
{
	Make(Flat());
	TaskId r = Task(Spec("reader")), w = Task(Spec("writer"));
	const int64_t t0 = m_->now();
	Submit(r, 0, 4096, false, true);
	Submit(r, 4096, 4096, false, true);
	m_->at(t0 + 500 * kUs, [&] {
		for (int i = 0; i < 2; i++)
			Submit(w, (500 + 100 * i) * kMiB, 4096, true, false);
		m_->exit_task(r);
	});
	ASSERT_TRUE(m_->drain(m_->now() + 1000 * kMs));
	ExpectOrder({0, 4096, 500 * kMiB, 600 * kMiB});
	const int64_t when[] = {0, 1, 2, 3};
	for (size_t i = 0; i < 4 && i < dev_->sent.size(); i++)
		EXPECT_EQ(dev_->sent[i].when, t0 + when[i] * kMs) << "position " << i;
	ExpectNoReruns();
}

// The same in hierarchical mode, with the reader alone in its group: AS
// waits for it in its group's (now empty) queue while the writer's group
// has requests.  When the reader exits, the empty queue must be expired
// and the writer's group served at once (not only when something else
// happens: nothing else would).
TEST_F(As, AnExitDuringTheWaitExpiresTheEmptyGroupQueue)
{
	Config cfg;
	cfg.scheduler = "as";
	cfg.nr_requests = 128;
	Make(cfg, 1, 1 * kMs);
	TaskId r = Task(Spec("reader", "r", 500)), w = Task(Spec("writer", "w", 500));
	const int64_t t0 = m_->now();
	Submit(r, 0, 4096, false, true);
	m_->at(t0 + 500 * kUs, [&] {
		for (int i = 0; i < 2; i++)
			Submit(w, (500 + 100 * i) * kMiB, 4096, true, true);
	});
	m_->at(t0 + 2 * kMs, [&] { m_->exit_task(r); });
	ASSERT_TRUE(m_->drain(m_->now() + 1000 * kMs));
	ASSERT_EQ(dev_->sent.size(), 3u);
	EXPECT_EQ(dev_->sent[1].rq.sector, 500 * kMiB / 512);
	EXPECT_EQ(dev_->sent[1].when, t0 + 2 * kMs);
	ExpectNoReruns();
}

// Two tasks sharing one io_context (CLONE_IO) are one process to AS, as
// in 2.6.31: after a read of task A, AS waits for that process, and a read
// of task B, far from the head, is "what it waited for" and goes at once.
// Without the sharing B is another process: a far read does not break the
// wait, so it goes only when antic_expire ends it.
TEST_F(As, TasksSharingAnIoContextAreOneProcess)
{
	for (bool share : {true, false}) {
		SCOPED_TRACE(share ? "shared io_context" : "separate io_contexts");
		Make(Flat());
		TaskId a = Task(Spec("a")), b = Task(Spec("b"));
		if (share)
			m_->share_io_context(b, a);
		const int64_t t0 = m_->now();
		Submit(a, 0, 4096, false, true);
		m_->at(t0 + 2 * kMs, [&] { Submit(b, 900 * kMiB, 4096, false, true); });
		ASSERT_TRUE(m_->drain(m_->now() + 1000 * kMs));
		ASSERT_EQ(dev_->sent.size(), 2u);
		EXPECT_EQ(dev_->sent[1].rq.sector, 900 * kMiB / 512);
		// shared: at once (2 ms); separate: B is a new process, whose
		// read is far from the head: served when the wait for A ends
		// at 1 + 6 ms
		EXPECT_EQ(dev_->sent[1].when, t0 + (share ? 2 : 7) * kMs);
		ExpectNoReruns();
	}
}

// With antic_expire 0 there is no anticipation: the writes go right after
// R1 (at 1 and 2 ms), while the reader thinks; R2 comes at 3 ms.
TEST_F(As, AnticExpireZeroNeverWaitsForTheReader)
{
	Make(Flat({{"antic_expire", "0"}}));
	TaskId r = Task(Spec("reader")), w = Task(Spec("writer"));
	const int64_t t0 = m_->now();
	Job *j = Loop(r, 1, 4096, 0, t0 + 4 * kMs);
	j->think = 2 * kMs;
	m_->at(t0 + 500 * kUs, [&] {
		for (int i = 0; i < 2; i++)
			Submit(w, (500 + 100 * i) * kMiB, 4096, true, false);
	});
	ASSERT_TRUE(m_->drain(m_->now() + 1000 * kMs));
	ASSERT_EQ(dev_->sent.size(), 4u);
	EXPECT_EQ(dev_->sent[1].rq.sector, 500 * kMiB / 512);
	EXPECT_EQ(dev_->sent[1].when, t0 + 1 * kMs);
	EXPECT_EQ(dev_->sent[3].rq.sector, 4096u / 512);
	EXPECT_EQ(dev_->sent[3].when, t0 + 3 * kMs);
	ExpectNoReruns();
}

// 30 queued reads and 3 writes at t=0, read_batch_expire 10 ms.  A fresh
// queue starts a read batch (fifo head R1 at 0); its clock starts at R1's
// completion (1 ms), so it ends at 11 ms: R1..R12 at 0..11 ms.  At 12 ms
// the read batch has expired with writes waiting: a write batch W1..W3
// (12..14 ms).  Writes run out: back to reads, R13.. from 15 ms.
TEST_F(As, AReadBatchEndsAfterReadBatchExpireAndWritesGetTheirBatch)
{
	Make(Flat({{"read_batch_expire", "10"}}));
	TaskId r = Task(Spec("reader")), w = Task(Spec("writer"));
	const int64_t t0 = m_->now();
	std::vector<uint64_t> reads, writes;
	for (int i = 0; i < 30; i++) {
		reads.push_back((10 + 10 * i) * kMiB);
		Submit(r, reads.back(), 4096);
	}
	for (int i = 0; i < 3; i++) {
		writes.push_back((1000 + 10 * i) * kMiB);
		Submit(w, writes.back(), 4096, true, false);
	}
	ASSERT_TRUE(m_->drain(m_->now() + 1000 * kMs));
	std::vector<uint64_t> want(reads.begin(), reads.begin() + 12);
	want.insert(want.end(), writes.begin(), writes.end());
	want.insert(want.end(), reads.begin() + 12, reads.end());
	ExpectOrder(want);
	ASSERT_GE(dev_->sent.size(), 16u);
	EXPECT_EQ(dev_->sent[12].when, t0 + 12 * kMs);
	EXPECT_EQ(dev_->sent[15].when, t0 + 15 * kMs);
	ExpectNoReruns();
}

// Reads at 100 MiB, X at 50 MiB, then 200, 300, ..., 1000 MiB, all at t=0,
// with read_expire 5 ms.  The batch sweeps upwards from the fifo head
// (100 MiB): X is behind the head and waits.  At 6 ms the deadlines (5 ms)
// have passed and X, the oldest, is served next; then the sweep goes on
// above X (700 MiB).
TEST_F(As, AnExpiredFifoRequestIsServedNextInItsBatch)
{
	Make(Flat({{"read_expire", "5"}}));
	TaskId r = Task(Spec("reader"));
	Submit(r, 100 * kMiB, 4096);
	Submit(r, 50 * kMiB, 4096);
	for (int i = 2; i <= 10; i++)
		Submit(r, 100 * i * kMiB, 4096);
	ASSERT_TRUE(m_->drain(m_->now() + 1000 * kMs));
	ExpectOrder({100 * kMiB, 200 * kMiB, 300 * kMiB, 400 * kMiB, 500 * kMiB, 600 * kMiB,
		     50 * kMiB, 700 * kMiB, 800 * kMiB, 900 * kMiB, 1000 * kMiB});
	ExpectNoReruns();
}

// Within a batch the head sweeps upwards and wraps to the lowest request.
TEST_F(As, ABatchSweepsUpwardsFromTheHeadAndWraps)
{
	Make(Flat());
	TaskId r = Task(Spec("reader"));
	const uint64_t offs[] = {300, 100, 400, 200};
	for (uint64_t o : offs)
		Submit(r, o * kMiB, 4096);
	ASSERT_TRUE(m_->drain(m_->now() + 1000 * kMs));
	// fifo head first (300), then upwards (400), then wrap (100, 200)
	ExpectOrder({300 * kMiB, 400 * kMiB, 100 * kMiB, 200 * kMiB});
	ExpectNoReruns();
}

TEST_F(As, TunablesHaveTheClassicDefaultsInMilliseconds)
{
	Make(Flat());
	auto t = m_->tunables();
	EXPECT_EQ(t["read_expire"], "125");
	EXPECT_EQ(t["write_expire"], "250");
	EXPECT_EQ(t["read_batch_expire"], "500");
	EXPECT_EQ(t["write_batch_expire"], "125");
	EXPECT_EQ(t["antic_expire"], "6");
	EXPECT_EQ(t["hierarchical"], "0");
	EXPECT_TRUE(t.count("slice_sync"));
	EXPECT_TRUE(t.count("group_idle"));
	EXPECT_TRUE(t.count("fairness"));
}

TEST_F(As, ATunableThatIsNotANumberIsInvalid)
{
	Config cfg = Flat({{"antic_expire", "abc"}});
	auto d = std::make_unique<RecordingDevice>(1, kMs);
	Model m(std::move(d), cfg);
	std::string err;
	EXPECT_FALSE(m.init(&err));
	EXPECT_EQ(err, "tunable antic_expire=abc: Invalid argument");
}

TEST_F(As, OutOfRangeTunablesAreClamped)
{
	Make(Flat({{"antic_expire", "5000"},
		   {"read_expire", "0"},
		   {"write_expire", "99999999"},
		   {"read_batch_expire", "0"}}));
	auto t = m_->tunables();
	EXPECT_EQ(t["antic_expire"], "1000");
	EXPECT_EQ(t["read_expire"], "1");
	EXPECT_EQ(t["write_expire"], "60000");
	EXPECT_EQ(t["read_batch_expire"], "0");
}

TEST_F(As, HierarchicalGroupsGetDiskTimeAndBandwidthByWeight)
{
	Config cfg;
	cfg.scheduler = "as";
	Make(cfg, 4, 2 * kMs);
	TaskId a = Task(Spec("a", "a", 1000)), b = Task(Spec("b", "b", 500));
	int64_t end = m_->now() + 20'000 * kMs;
	Job *ja = Loop(a, 4, 4096, 0, end, false, true);
	Job *jb = Loop(b, 4, 4096, 8ull << 30, end, false, true);
	m_->run_until(end);
	ASSERT_TRUE(m_->drain(end + 10'000 * kMs));
	auto g = Groups();
	double dt = g["/a"].disk_time_ms / g["/b"].disk_time_ms;
	double busy = g["/a"].device_busy_ms / g["/b"].device_busy_ms;
	double bw = static_cast<double>(ja->done) / static_cast<double>(jb->done);
	EXPECT_NEAR(dt, 2.0, 0.15);
	EXPECT_NEAR(busy, 2.0, 0.15);
	EXPECT_GE(bw, 1.7);
	EXPECT_LE(bw, 2.4);
	RecordProperty("disk_time_ratio", std::to_string(dt));
	RecordProperty("busy_ratio", std::to_string(busy));
	RecordProperty("bandwidth_ratio", std::to_string(bw));
	std::printf("as hier: disk time %.3f busy %.3f bandwidth %.3f reruns %llu\n", dt, busy, bw,
		    static_cast<unsigned long long>(m_->counters().budget_reruns));
	ExpectNoReruns();
}

// A lone sequential reader in a child group: AS anticipates after each read
// (the reader comes back within antic_expire), so its queue is not expired
// and the group not dequeued after every request.  group_idle is off, so
// only anticipation holds the group; with antic_expire 0 the group goes
// empty at every completion.
TEST_F(As, ASequentialReaderInAChildGroupIsNotExpiredAfterEveryRequest)
{
	Config cfg;
	cfg.scheduler = "as";
	cfg.tunables = {{"group_idle", "0"}};
	Make(cfg, 1, kMs);
	TaskId a = Task(Spec("a", "a", 500));
	int64_t end = m_->now() + 2'000 * kMs;
	Job *ja = Loop(a, 1, 4096, 0, end);
	ja->think = 500 * kUs;
	m_->run_until(end);
	ASSERT_TRUE(m_->drain(end + 1'000 * kMs));
	auto g = Groups();
	EXPECT_GT(ja->ios, 1000u);
	EXPECT_LT(g["/a"].dequeued * 20, ja->ios)
		<< "dequeued " << g["/a"].dequeued << " ios " << ja->ios;
	std::printf("as seq reader: ios %llu dequeued %llu\n",
		    static_cast<unsigned long long>(ja->ios),
		    static_cast<unsigned long long>(g["/a"].dequeued));
	ExpectNoReruns();
}

// A write to antic_expire moves a wait under way to its new end: the
// reader's read is done at 1 ms and AS waits for its next one, until 7 ms
// with the default 6 ms.  At 2 ms antic_expire becomes 3 (the wait ends at
// 1 + 3 = 4 ms: the writes go at 4 and 5 ms) or 0 (it ends at once: 2 and
// 3 ms).  Before the fix the wait ran its old course, to 7 ms.
TEST_F(As, WritingAnticExpireMovesAWaitUnderWayToItsNewEnd)
{
	for (auto [value, first] : {std::pair{"3", 4}, std::pair{"0", 2}}) {
		SCOPED_TRACE(std::string("antic_expire=") + value);
		Make(Flat());
		TaskId r = Task(Spec("reader")), w = Task(Spec("writer"));
		const int64_t t0 = m_->now();
		Submit(r, 0, 4096, false, true);
		m_->at(t0 + 500 * kUs, [&] {
			for (int i = 0; i < 2; i++)
				Submit(w, (500 + 100 * i) * kMiB, 4096, true, false);
		});
		m_->at(t0 + 2 * kMs, [&, value = value] {
			EXPECT_EQ(m_->set_tunable("antic_expire", value), 0);
		});
		ASSERT_TRUE(m_->drain(m_->now() + 1000 * kMs));
		ASSERT_EQ(dev_->sent.size(), 3u);
		EXPECT_EQ(dev_->sent[1].rq.sector, 500 * kMiB / 512);
		EXPECT_EQ(dev_->sent[1].when, t0 + first * kMs);
		EXPECT_EQ(dev_->sent[2].when, t0 + (first + 1) * kMs);
		ExpectNoReruns();
	}
}

// The awaited process's next read may land in another group's queue: a
// REQ_META read is the root group's.  The reader (in /a) reads at 0, done
// at 1 ms; AS waits for its next read, with writes of /a queued.  That
// read comes at 2 ms as metadata, in the root group: waiting on would only
// idle the disk until 7 ms, so /a's writes go at 2 and 3 ms (and the
// metadata read after /a's group_idle, at 4 + 8 ms).
TEST_F(As, AnAwaitedReadArrivingInAnotherGroupEndsTheWait)
{
	Config cfg;
	cfg.scheduler = "as";
	cfg.nr_requests = 128; // no tag waits
	Make(cfg, 1, kMs);
	TaskId r = Task(Spec("reader", "a", 500)), w = Task(Spec("writer", "a", 500));
	const int64_t t0 = m_->now();
	Submit(r, 0, 4096, false, true);
	m_->at(t0 + 500 * kUs, [&] {
		for (int i = 0; i < 2; i++)
			Submit(w, (500 + 100 * i) * kMiB, 4096, true, false);
	});
	m_->at(t0 + 2 * kMs, [&] { Submit(r, 4096, 4096, false, true, true); });
	ASSERT_TRUE(m_->drain(m_->now() + 1000 * kMs));
	ASSERT_EQ(dev_->sent.size(), 4u);
	EXPECT_EQ(dev_->sent[0].when, t0);
	EXPECT_EQ(dev_->sent[1].when, t0 + 2 * kMs) << "the disk idled past the awaited read";
	EXPECT_EQ(dev_->sent[2].when, t0 + 3 * kMs);
	EXPECT_EQ(dev_->sent[3].when, t0 + 12 * kMs);
	EXPECT_EQ(dev_->sent[3].rq.sector, 4096u / 512);
	ExpectNoReruns();
}

} // namespace
