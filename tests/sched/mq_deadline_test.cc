// SPDX-License-Identifier: GPL-2.0
// Linux 6.1's own mq-deadline, compiled unmodified from linux-source-6.1
// (scripts/kernel-src extracts it; CMakeLists.txt builds it), on the block
// layer model.  Each test states the fact of mq-deadline's behaviour it
// relies on; a shim that does not behave as 6.1's block core does (merging,
// the tag map and its shallow depths, jiffies, sysfs, debugfs) makes one of
// them fail.  Skipped when efqsim was built without it
// (-DEFQ_LINUX_SCHEDULERS=OFF).
//
// The facts, for the default tunables (read_expire 500 ms, write_expire
// 5000 ms, writes_starved 2, fifo_batch 16, front_merges 1):
// - Requests of one I/O priority class wait in a FIFO and a sector-sorted
//   tree per direction.  A batch dispatches up to fifo_batch requests of one
//   direction in ascending sector order, each the sorted successor of the
//   last dispatched request of that direction (remembered across batches).
// - A new batch picks reads unless writes wait and reads were already
//   picked writes_starved times in a row while they waited.  It continues at
//   the remembered successor unless the oldest request of that direction is
//   past its deadline (FIFO time + read_expire or write_expire), or there is
//   no successor: then it starts at the oldest request.  Deadlines are only
//   looked at when a batch starts.
// - The first request goes out at once to an idle device; the others queue
//   behind it while the device (depth 1 here) serves it.
// - Real-time requests go before best-effort ones, best-effort before idle.
// - Front merges: a bio that ends where a queued request starts joins it
//   (mq-deadline's own sort-tree lookup, which front_merges=0 turns off;
//   the block core's one-hit cache q->last_merge front-merges regardless).
// - async_depth (default nr_requests) caps the scheduler tags that writes
//   and asynchronous requests may hold, through a shallow depth that 6.1's
//   sbitmap applies to each word of the tag map; synchronous reads are
//   never capped.
//
// Notation as in deadline_test.cc: all requests are 4 KiB at whole-MiB
// offsets (never adjacent, so never merged); "R30" is a read at 30 MiB, "W25"
// a write at 25 MiB.  The device serves one request at a time, so
// dev_->sent is the scheduler's dispatch order.
#include <climits>

#include "harness.h"

namespace {

using namespace efqtest;

const auto *env = ::testing::AddGlobalTestEnvironment(new SchedEnv);

constexpr uint64_t kMiB = 1ull << 20;
using Seq = std::vector<std::string>;
using Tunables = std::vector<std::pair<std::string, std::string>>;

class MqDeadline : public SchedTest {
protected:
	void SetUp() override
	{
		SchedTest::SetUp();
		if (!efqsim::blk::scheduler_exists("mq-deadline"))
			GTEST_SKIP() << "efqsim was built without Linux's mq-deadline "
					"(EFQ_LINUX_SCHEDULERS=OFF)";
	}

	// mq-deadline with room for every test's requests (128 tags).
	static Config Cfg(Tunables tunables = {})
	{
		Config cfg;
		cfg.scheduler = "mq-deadline";
		cfg.nr_requests = 128;
		cfg.tunables = std::move(tunables);
		return cfg;
	}

	// Queue each of @ios ("R30", "W25") as one 4 KiB request of task @t.
	void Queue(TaskId t, const Seq &ios, bool sync = true)
	{
		for (auto &io : ios)
			Submit(t, std::stoull(io.substr(1)) * kMiB, 4096, io[0] == 'W', sync);
	}

	// "R<from>" .. "R<to>" (or W).
	static Seq Range(char dir, int from, int to)
	{
		Seq s;
		for (int i = from; i <= to; i++)
			s.push_back(dir + std::to_string(i));
		return s;
	}

	static Seq Cat(std::initializer_list<Seq> parts)
	{
		Seq s;
		for (const Seq &p : parts)
			s.insert(s.end(), p.begin(), p.end());
		return s;
	}

	// What the device was sent, in the same notation.
	std::vector<std::string> Sent()
	{
		std::vector<std::string> out;
		for (auto &s : dev_->sent)
			out.push_back((s.rq.write ? "W" : "R") +
				      std::to_string(s.rq.sector * 512 / kMiB));
		return out;
	}

	std::string Debugfs(const char *name)
	{
		std::string err;
		std::string s = m_->debugfs(name, &err);
		EXPECT_EQ(err, "") << name;
		return s;
	}
};

TEST_F(MqDeadline, RegistersUnderItsNameAndAlias)
{
	EXPECT_EQ(efqsim::blk::scheduler_names("mq-deadline"), (Seq{"mq-deadline", "deadline"}));
	EXPECT_EQ(efqsim::blk::scheduler_names("deadline"), (Seq{"mq-deadline", "deadline"}));
	Make(Cfg(), 1, kMs);
	EXPECT_FALSE(m_->efq_engine());
	EXPECT_FALSE(m_->hierarchical()) << "mq-deadline knows no groups";
}

// Reads are sorted into batches of fifo_batch=16 in ascending sector order;
// with writes waiting, the third batch choice goes to the writes
// (writes_starved=2: reads may be picked twice while writes wait), and the
// read sweep then resumes where it stopped (R33).  1 ms per request: no
// deadline (500 ms, 5000 ms) is reached.
TEST_F(MqDeadline, BatchesOf16AndWritesAfterTwoReadBatches)
{
	Make(Cfg(), 1, kMs);
	TaskId t = Task(Spec("a"));
	Queue(t, Cat({{"R1000"}, Range('R', 1, 40), Range('W', 101, 120)}));
	ASSERT_TRUE(m_->drain(m_->now() + 1000 * kMs));
	EXPECT_EQ(Sent(), Cat({{"R1000"},
			       Range('R', 1, 32),
			       Range('W', 101, 116),
			       Range('R', 33, 40),
			       Range('W', 117, 120)}));
}

// A batch sweeps upwards from the oldest request; a request below the sweep
// waits: the batch ends when the sweep has passed the highest request, and
// the next one starts again at the oldest.
TEST_F(MqDeadline, TheFirstBatchStartsAtTheOldestRequestAndSweepsUp)
{
	Make(Cfg(), 1, kMs);
	Queue(Task(Spec("a")), {"R1000", "R50", "R10", "R90", "R30", "R70"});
	ASSERT_TRUE(m_->drain(m_->now() + 100 * kMs));
	EXPECT_EQ(Sent(), (Seq{"R1000", "R50", "R70", "R90", "R10", "R30"}));
}

// read_expire=500 ms, checked when a batch starts.  R100 and R101 are
// queued at 0 ms, R10 and R102..R120 at 50 ms (R10 first: it heads the
// FIFO once R101 is gone).  The batch R100..R115 (16 requests) ends after
// 17 requests' time.  At 31 ms a request it ends at 527 ms, before R10's
// deadline (50 + 500 ms, 548 ms in 4 ms jiffies): the sweep goes on and R10
// comes last.  At 33 ms it ends at 561 ms, past the deadline: the next
// batch starts at R10, then resumes the sweep above it.
TEST_F(MqDeadline, AReadPastItsDeadlineOf500MsStartsTheNextBatch)
{
	for (int64_t per_rq : {31 * kMs, 33 * kMs}) {
		Make(Cfg(), 1, per_rq);
		TaskId t = Task(Spec("a"));
		Queue(t, {"R1000", "R100", "R101"});
		m_->run_until(m_->now() + 50 * kMs);
		Queue(t, Cat({{"R10"}, Range('R', 102, 120)}));
		ASSERT_TRUE(m_->drain(m_->now() + 10'000 * kMs));
		if (per_rq == 31 * kMs)
			EXPECT_EQ(Sent(), Cat({{"R1000"}, Range('R', 100, 120), {"R10"}}))
				<< "the batch ends before R10's deadline";
		else
			EXPECT_EQ(Sent(), Cat({{"R1000"},
					       Range('R', 100, 115),
					       {"R10"},
					       Range('R', 116, 120)}))
				<< "the batch ends after R10's deadline";
		EXPECT_EQ(m_->check_invariants(), "");
		m_.reset();
	}
}

// The same for writes, with write_expire=5000 ms: W10, queued at 50 ms,
// is due at 5048 ms (in jiffies); the batch W100..W115 ends at 17 x 290 ms
// = 4930 ms (before) or 17 x 310 ms = 5270 ms (after).
TEST_F(MqDeadline, AWritePastItsDeadlineOf5000MsStartsTheNextBatch)
{
	for (int64_t per_rq : {290 * kMs, 310 * kMs}) {
		Make(Cfg(), 1, per_rq);
		TaskId t = Task(Spec("a"));
		Queue(t, {"W1000", "W100", "W101"});
		m_->run_until(m_->now() + 50 * kMs);
		Queue(t, Cat({{"W10"}, Range('W', 102, 120)}));
		ASSERT_TRUE(m_->drain(m_->now() + 100'000 * kMs));
		if (per_rq == 290 * kMs)
			EXPECT_EQ(Sent(), Cat({{"W1000"}, Range('W', 100, 120), {"W10"}}))
				<< "the batch ends before W10's deadline";
		else
			EXPECT_EQ(Sent(), Cat({{"W1000"},
					       Range('W', 100, 115),
					       {"W10"},
					       Range('W', 116, 120)}))
				<< "the batch ends after W10's deadline";
		EXPECT_EQ(m_->check_invariants(), "");
		m_.reset();
	}
}

// writes_starved=0: a waiting write wins every batch choice, so the writes
// go first (one sweep from the oldest), then the reads.
TEST_F(MqDeadline, WritesStarvedZeroServesWritesFirst)
{
	Make(Cfg({{"writes_starved", "0"}}), 1, kMs);
	Queue(Task(Spec("a")), {"R1000", "R10", "R20", "W40", "W30"});
	ASSERT_TRUE(m_->drain(m_->now() + 100 * kMs));
	EXPECT_EQ(Sent(), (Seq{"R1000", "W40", "W30", "R10", "R20"}));
}

// fifo_batch=2, writes_starved=1: two-request batches, and the writes get
// every other batch; each direction resumes its own sweep (R50 after R40),
// and a sweep that reached the top starts over at its oldest request.
TEST_F(MqDeadline, FifoBatchAndWritesStarvedAreHonoured)
{
	Make(Cfg({{"fifo_batch", "2"}, {"writes_starved", "1"}}), 1, kMs);
	Queue(Task(Spec("a")),
	      {"R1000", "R30", "R10", "R20", "R40", "R50", "W25", "W5", "W15", "W35"});
	ASSERT_TRUE(m_->drain(m_->now() + 100 * kMs));
	EXPECT_EQ(Sent(),
		  (Seq{"R1000", "R30", "R40", "W25", "W35", "R50", "W5", "W15", "R10", "R20"}));
}

// Real-time requests are dispatched before best-effort ones and
// best-effort before idle, whatever their sectors and arrival.
TEST_F(MqDeadline, RealTimeGoesBeforeBestEffortBeforeIdle)
{
	Make(Cfg(), 1, kMs);
	TaskId be = Task(Spec("be", "", 0, 2, 4)), rt = Task(Spec("rt", "", 0, 1, 4)),
	       idle = Task(Spec("idle", "", 0, 3, 0));
	Queue(be, {"R1000"});
	Queue(idle, {"R1"});
	Queue(be, {"R20", "R10"});
	Queue(rt, {"R90", "R80"});
	ASSERT_TRUE(m_->drain(m_->now() + 100 * kMs));
	EXPECT_EQ(Sent(), (Seq{"R1000", "R90", "R80", "R20", "R10", "R1"}));
}

// mq-deadline counts a class's requests as queued until they complete, the
// driver's included, and serves a lower class only when no higher one has
// any: while a real-time request is in flight, a best-effort one waits even
// on a device with room.  dispatch_request then returns nothing although
// has_work said yes, and blk-mq re-runs the queue 3 ms later
// (BLK_MQ_BUDGET_DELAY), again and again: the real-time request completes
// at 10 ms, a completion does not run the queue (the simulated driver, like
// null_blk, runs it only when it had turned requests away), so the
// best-effort one goes out at the fourth re-run, at 12 ms.
TEST_F(MqDeadline, ARealTimeRequestInFlightHoldsBestEffortBack)
{
	Make(Cfg(), 2, 10 * kMs);
	TaskId rt = Task(Spec("rt", "", 0, 1, 0)), be = Task(Spec("be"));
	const int64_t t0 = m_->now();
	Submit(rt, 10 * kMiB, 4096);
	Submit(be, 20 * kMiB, 4096);
	ASSERT_TRUE(m_->drain(m_->now() + 100 * kMs));
	ASSERT_EQ(Sent(), (Seq{"R10", "R20"}));
	EXPECT_EQ(dev_->sent[0].when - t0, 0);
	EXPECT_EQ(dev_->sent[1].when - t0, 12 * kMs);
	EXPECT_EQ(m_->counters().budget_reruns, 4u);
}

// A bio that ends where a queued request starts is merged into it by
// mq-deadline's sort-tree lookup, and the request is re-sorted at its new
// start.  q->last_merge is R500 (the first request inserted after the
// dispatch of R1000 emptied it), so only mq-deadline's lookup can find the
// request at 100 MiB + 4 KiB; front_merges=0 turns that lookup off.
TEST_F(MqDeadline, FrontMergesGoThroughTheSortTreeUnlessTurnedOff)
{
	for (const char *front : {"1", "0"}) {
		Make(Cfg({{"front_merges", front}}), 1, kMs);
		TaskId t = Task(Spec("a"));
		Queue(t, {"R1000", "R500"});
		Submit(t, 100 * kMiB + 4096, 4096);
		Submit(t, 100 * kMiB, 4096);
		ASSERT_TRUE(m_->drain(m_->now() + 100 * kMs));
		std::vector<std::pair<uint64_t, uint32_t>> sent;
		for (auto &s : dev_->sent)
			sent.emplace_back(s.rq.sector, s.rq.sectors);
		const uint64_t s100 = 100 * kMiB / 512;
		if (*front == '1') {
			EXPECT_EQ(m_->counters().bio_merges, 1u);
			EXPECT_EQ(sent,
				  (std::vector<std::pair<uint64_t, uint32_t>>{{1000 * kMiB / 512,
									       8},
									      {500 * kMiB / 512, 8},
									      {s100, 16}}));
		} else {
			EXPECT_EQ(m_->counters().bio_merges, 0u);
			EXPECT_EQ(sent,
				  (std::vector<std::pair<uint64_t, uint32_t>>{{1000 * kMiB / 512,
									       8},
									      {500 * kMiB / 512, 8},
									      {s100 + 8, 8},
									      {s100, 8}}));
		}
		EXPECT_EQ(m_->check_invariants(), "");
		m_.reset();
	}
}

// front_merges=0 leaves the block core's one-hit cache alone: the request
// it remembers (the first inserted after R1000's dispatch) still takes a
// bio that ends at its start.
TEST_F(MqDeadline, TheLastMergeCacheFrontMergesEvenWithFrontMergesOff)
{
	Make(Cfg({{"front_merges", "0"}}), 1, kMs);
	TaskId t = Task(Spec("a"));
	Queue(t, {"R1000"});
	Submit(t, 100 * kMiB + 4096, 4096);
	Submit(t, 100 * kMiB, 4096);
	ASSERT_TRUE(m_->drain(m_->now() + 100 * kMs));
	EXPECT_EQ(m_->counters().bio_merges, 1u);
	ASSERT_EQ(dev_->sent.size(), 2u);
	EXPECT_EQ(dev_->sent[1].rq.sector, 100 * kMiB / 512);
	EXPECT_EQ(dev_->sent[1].rq.sectors, 16u);
}

// A bio that starts where a queued request ends is back-merged (the block
// core's q->last_merge and hash); a bio that fills the gap between two
// queued requests joins the first, which then merges with its sorted
// successor (mq-deadline's next_request), freeing the second.
TEST_F(MqDeadline, BackMergesAndInsertMergesJoinAdjacentRequests)
{
	Make(Cfg(), 1, kMs);
	TaskId a = Task(Spec("a"));
	Queue(a, {"R1000"});
	Submit(a, 100 * kMiB, 4096);
	Submit(a, 100 * kMiB + 4096, 4096); // back merge into 100 MiB
	Submit(a, 200 * kMiB, 4096);	    // own request
	Submit(a, 200 * kMiB + 8192, 4096); // own request, a gap before it
	Submit(a, 200 * kMiB + 4096, 4096); // fills the gap: 200 MiB + 12 KiB
	ASSERT_TRUE(m_->drain(m_->now() + 100 * kMs));
	EXPECT_EQ(m_->counters().bio_merges, 2u);
	EXPECT_EQ(m_->counters().rq_merges, 1u);
	ASSERT_EQ(dev_->sent.size(), 3u);
	EXPECT_EQ(dev_->sent[1].rq.sectors, 16u);
	EXPECT_EQ(dev_->sent[2].rq.sector, 200 * kMiB / 512);
	EXPECT_EQ(dev_->sent[2].rq.sectors, 24u);
}

// async_depth: writes and asynchronous requests get a shallow depth of
// async_depth scaled to a word of the tag map.  128 tags are 4 words of 32
// (sbitmap's shift for 128 bits), so async_depth=8 allows ceil-ish
// 8 x 32 / 128 = 2 tags per word: 8 writes get tags, the other 12 of 20
// wait; a synchronous read still finds a tag at once.  The default
// (async_depth = nr_requests) caps nothing.
TEST_F(MqDeadline, AsyncDepthCapsWritesPerWordOfTheTagMapButNotReads)
{
	Make(Cfg({{"async_depth", "8"}}), 1, 100 * kMs);
	TaskId w = Task(Spec("w")), r = Task(Spec("r"));
	for (int i = 0; i < 20; i++)
		Submit(w, static_cast<uint64_t>(i + 1) * kMiB, 4096, true, false);
	EXPECT_EQ(m_->counters().tag_waits, 12u);
	Submit(r, 500 * kMiB, 4096);
	EXPECT_EQ(m_->counters().tag_waits, 12u) << "synchronous reads are not capped";
	ASSERT_TRUE(m_->drain(m_->now() + 100'000 * kMs));
	m_.reset();

	Make(Cfg(), 1, 100 * kMs);
	EXPECT_EQ(m_->tunables()["async_depth"], "128");
	TaskId w2 = Task(Spec("w"));
	for (int i = 0; i < 100; i++)
		Submit(w2, static_cast<uint64_t>(i + 1) * kMiB, 4096, true, false);
	EXPECT_EQ(m_->counters().tag_waits, 0u) << "async_depth = nr_requests caps nothing";
}

// The sysfs attributes read and write through efqsim's tunable path (the
// Config at init, set_tunable() later), with 6.1's clamping and jiffies
// rounding: expiry times are kept in 4 ms jiffies (HZ=250), so 250 ms reads
// back as 252.
TEST_F(MqDeadline, TunablesHaveTheirDefaultsAndClampAsTheKernelDoes)
{
	Make(Cfg(), 1, kMs);
	EXPECT_EQ(m_->tunables(),
		  (std::map<std::string, std::string>{{"async_depth", "128"},
						      {"fifo_batch", "16"},
						      {"front_merges", "1"},
						      {"prio_aging_expire", "10000"},
						      {"read_expire", "500"},
						      {"write_expire", "5000"},
						      {"writes_starved", "2"}}));
	EXPECT_EQ(m_->set_tunable("read_expire", "250"), 0);
	EXPECT_EQ(m_->tunables()["read_expire"], "252");
	EXPECT_EQ(m_->set_tunable("front_merges", "7"), 0);
	EXPECT_EQ(m_->tunables()["front_merges"], "1");
	EXPECT_EQ(m_->set_tunable("fifo_batch", "-3"), 0);
	EXPECT_EQ(m_->tunables()["fifo_batch"], "0");
	EXPECT_EQ(m_->set_tunable("async_depth", "0"), 0);
	EXPECT_EQ(m_->tunables()["async_depth"], "1");
	EXPECT_EQ(m_->set_tunable("writes_starved", "-5"), 0);
	EXPECT_EQ(m_->tunables()["writes_starved"], "-5");
	EXPECT_EQ(m_->set_tunable("write_expire", "x"), -EINVAL);
	EXPECT_EQ(m_->set_tunable("hierarchical", "1"), -ENOENT);
	m_.reset();

	Make(Cfg({{"fifo_batch", "4"}, {"write_expire", "1000"}}), 1, kMs);
	EXPECT_EQ(m_->tunables()["fifo_batch"], "4");
	EXPECT_EQ(m_->tunables()["write_expire"], "1000");
	m_.reset();

	Config bad = Cfg({{"slice_idle", "0"}});
	Model m(std::make_unique<RecordingDevice>(1, kMs), bad);
	std::string err;
	EXPECT_FALSE(m.init(&err));
	EXPECT_EQ(err, "scheduler mq-deadline has no tunable 'slice_idle'");
}

// Flat only: asking for the hierarchical mode changes nothing (there are no
// groups), and the flat mode needs no tunable.
TEST_F(MqDeadline, KnowsNoGroups)
{
	Config cfg = Cfg();
	cfg.hierarchical = false;
	Make(cfg, 1, kMs);
	EXPECT_FALSE(m_->hierarchical());
	TaskId a = Task(Spec("a", "ga", 1000)), b = Task(Spec("b", "gb", 100));
	Queue(a, {"R1000", "R10"});
	Queue(b, {"R20"});
	ASSERT_TRUE(m_->drain(m_->now() + 100 * kMs));
	EXPECT_EQ(Sent(), (Seq{"R1000", "R10", "R20"}));
	auto g = Groups();
	EXPECT_EQ(g["/ga"].disk_time_ms, 0.0) << "no engine, no disk time";
	EXPECT_GT(g["/ga"].device_busy_ms, 0.0) << "the device measures every cgroup";
	EXPECT_GT(g["/gb"].device_busy_ms, 0.0);
}

// The debugfs files: the FIFO of queued best-effort reads (6.1's request
// lines, with the sim driver's sector), the queued count per class, and the
// batch state.
TEST_F(MqDeadline, DebugfsShowsTheFifoListsAndCounters)
{
	Make(Cfg(), 1, kMs);
	TaskId t = Task(Spec("a"));
	Queue(t, {"R1000", "R30", "R10", "W20"});
	std::string fifo = Debugfs("read1_fifo_list");
	size_t at30 = fifo.find(".sector=" + std::to_string(30 * kMiB / 512) + ",");
	size_t at10 = fifo.find(".sector=" + std::to_string(10 * kMiB / 512) + ",");
	ASSERT_NE(at30, std::string::npos) << fifo;
	ASSERT_NE(at10, std::string::npos) << fifo;
	EXPECT_LT(at30, at10) << "in arrival order:\n" << fifo;
	EXPECT_NE(fifo.find("{.op=READ, .cmd_flags=, .rq_flags=ELVPRIV|HASHED|ELV, "
			    ".state=idle"),
		  std::string::npos)
		<< fifo;
	EXPECT_EQ(std::count(fifo.begin(), fifo.end(), '\n'), 2) << fifo;
	EXPECT_NE(Debugfs("write1_fifo_list").find(".op=WRITE, .cmd_flags=SYNC"),
		  std::string::npos);
	EXPECT_EQ(Debugfs("read0_fifo_list"), "");
	EXPECT_EQ(Debugfs("queued"), "0 4 0\n") << "inserted minus completed, R1000 included";
	EXPECT_EQ(Debugfs("owned_by_driver"), "0 1 0\n");
	EXPECT_EQ(Debugfs("batching"), "1\n");
	EXPECT_EQ(Debugfs("starved"), "0\n");
	EXPECT_EQ(Debugfs("dispatch1"), "");
	ASSERT_TRUE(m_->drain(m_->now() + 100 * kMs));
	EXPECT_EQ(Debugfs("queued"), "0 0 0\n");
	EXPECT_EQ(Debugfs("read1_fifo_list"), "");
}

// A request the driver gives back (a retryable error; here every second
// completion) goes to the head of mq-deadline's dispatch list and is the
// next one out; every request still completes exactly once.
TEST_F(MqDeadline, ARequeuedRequestIsDispatchedNext)
{
	Config cfg = Cfg();
	cfg.requeue_every = 2;
	Make(cfg, 1, kMs);
	Queue(Task(Spec("a")), {"R1000", "R10", "R20", "R30"});
	ASSERT_TRUE(m_->drain(m_->now() + 100 * kMs));
	EXPECT_EQ(Sent(), (Seq{"R1000", "R10", "R10", "R20", "R20", "R30", "R30"}));
	EXPECT_EQ(m_->counters().driver_requeues, 3u);
	EXPECT_EQ(m_->counters().completed, 4u);
}

// Closed-loop readers and writers of every class, merging and queueing on
// a deeper device: everything completes, each request once (TearDown
// checks the model's invariants), and the statistics balance.
TEST_F(MqDeadline, MixedClosedLoopsDrainAndBalance)
{
	Make(Cfg(), 4, 300 * kUs, 2);
	TaskId rt = Task(Spec("rt", "", 0, 1, 0)), be = Task(Spec("be", "g1", 500)),
	       idle = Task(Spec("idle", "", 0, 3, 0)), wr = Task(Spec("wr", "g2", 200));
	int64_t until = m_->now() + 500 * kMs;
	Job *a = Loop(rt, 2, 4096, 0, until, false, true);
	Job *b = Loop(be, 8, 65536, 1ull << 32, until);
	Job *c = Loop(idle, 1, 4096, 2ull << 32, until, false, true);
	Job *d = Loop(wr, 16, 8192, 3ull << 32, until, true, false, false);
	ASSERT_TRUE(m_->drain(m_->now() + 100'000 * kMs));
	for (Job *j : {a, b, c, d})
		EXPECT_GT(j->ios, 0u);
	EXPECT_EQ(Debugfs("queued"), "0 0 0\n");
	EXPECT_EQ(Debugfs("owned_by_driver"), "0 0 0\n");
	const auto &c_ = m_->counters();
	EXPECT_EQ(c_.dispatched, c_.completed);
	EXPECT_EQ(c_.requests, c_.completed + c_.rq_merges);
}

} // namespace
