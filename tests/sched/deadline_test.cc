// SPDX-License-Identifier: GPL-2.0
// deadline-fq on the efq engine: the classic deadline rules inside a group
// (sector-sorted batches, FIFO deadlines, reads over writes until writes
// starve, front merges), groups by weight.
//
// The flat-mode sequences below are worked out by hand from the rules, on a
// device that serves one request at a time (so dev_->sent is exactly the
// scheduler's dispatch order).  All requests are 4 KiB at whole-MiB offsets
// (never adjacent, so never merged); "R30" is a read at 30 MiB, "W25" a
// write at 25 MiB.  The first request submitted to an idle device goes out
// at once, so each list starts with a plug, R1000: it is dispatched alone
// (leaving no batch to continue: nothing lies above it) and the rest are
// queued while the device serves it.
#include <climits>

#include "harness.h"

namespace {

using namespace efqtest;

const auto *env = ::testing::AddGlobalTestEnvironment(new SchedEnv);

constexpr uint64_t kMiB = 1ull << 20;

class Deadline : public SchedTest {
protected:
	// Flat mode, with room for every test's requests in the scheduler.
	static Config Flat(std::vector<std::pair<std::string, std::string>> tunables = {})
	{
		Config cfg;
		cfg.scheduler = "deadline-fq";
		cfg.hierarchical = false;
		cfg.nr_requests = 64;
		cfg.tunables = std::move(tunables);
		return cfg;
	}

	// Queue each of @ios ("R30", "W25") as one 4 KiB request of task @t.
	void Queue(TaskId t, const std::vector<std::string> &ios)
	{
		for (auto &io : ios)
			Submit(t, std::stoull(io.substr(1)) * kMiB, 4096, io[0] == 'W');
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

	using Seq = std::vector<std::string>;
};

// One sweep: the first request is the oldest; the batch then goes up in
// sector order to the highest request; the next batch starts again at the
// oldest remaining request.
TEST_F(Deadline, FlatBatchSweepsUpInSectorOrderFromTheOldestRequest)
{
	Make(Flat(), 1, kMs);
	Queue(Task(Spec("a")), {"R1000", "R50", "R10", "R90", "R30", "R70"});
	ASSERT_TRUE(m_->drain(m_->now() + 100 * kMs));
	EXPECT_EQ(Sent(), (Seq{"R1000", "R50", "R70", "R90", "R10", "R30"}));
}

// fifo_batch=2, writes_starved=1: after every read batch the waiting writes
// get one; each batch is at most two requests in ascending sector order.
// Each direction keeps its sweep across the other's batches (as mq-deadline
// does): the second read batch goes on at R50, after R40; a sweep that
// reached the top starts over at the direction's oldest request (W5, R10).
TEST_F(Deadline, FlatABatchDispatchesFifoBatchRequestsInSectorOrder)
{
	Make(Flat({{"fifo_batch", "2"}, {"writes_starved", "1"}}), 1, kMs);
	Queue(Task(Spec("a")),
	      {"R1000", "R30", "R10", "R20", "R40", "R50", "W25", "W5", "W15", "W35"});
	ASSERT_TRUE(m_->drain(m_->now() + 100 * kMs));
	EXPECT_EQ(Sent(),
		  (Seq{"R1000", "R30", "R40", "W25", "W35", "R50", "W5", "W15", "R10", "R20"}));
}

// Default writes_starved=2 with one-request batches: reads win two
// choices, then a write batch goes, and so on.
TEST_F(Deadline, FlatWritesAreServedAfterWritesStarvedReadBatches)
{
	Make(Flat({{"fifo_batch", "1"}}), 1, kMs);
	Queue(Task(Spec("a")), {"R1000", "R10", "R20", "R30", "R40", "R50", "W15", "W25"});
	ASSERT_TRUE(m_->drain(m_->now() + 100 * kMs));
	EXPECT_EQ(Sent(), (Seq{"R1000", "R10", "R20", "W15", "R30", "R40", "W25", "R50"}));
}

// With writes_starved=0 a waiting write wins every choice: all writes go
// first (one sweep), the reads after them.
TEST_F(Deadline, FlatWritesStarvedZeroServesWritesFirst)
{
	Make(Flat({{"writes_starved", "0"}}), 1, kMs);
	Queue(Task(Spec("a")), {"R1000", "R10", "R20", "W40", "W30"});
	ASSERT_TRUE(m_->drain(m_->now() + 100 * kMs));
	EXPECT_EQ(Sent(), (Seq{"R1000", "W40", "W30", "R10", "R20"}));
}

// Without expiry the oldest request R10 goes last: it lies below the
// sweep R50, R60, R70, R80.  With read_expire=4 ms and 1.5 ms per request
// the queued reads are dispatched at 1.5, 3, 4.5, 6 and 7.5 ms; at 4.5 ms
// R10 is late, so the new batch starts there instead of at the sorted
// successor R70, and the batch after it at the oldest remaining, R70.
TEST_F(Deadline, FlatAnExpiredReadIsDispatchedBeforeTheSortedBatchContinues)
{
	const Seq queued{"R1000", "R50", "R10", "R60", "R70", "R80"};
	Make(Flat({{"fifo_batch", "1"}}), 1, 1500 * kUs);
	Queue(Task(Spec("a")), queued);
	ASSERT_TRUE(m_->drain(m_->now() + 100 * kMs));
	EXPECT_EQ(Sent(), (Seq{"R1000", "R50", "R60", "R70", "R80", "R10"})) << "read_expire=500";
	EXPECT_EQ(m_->check_invariants(), "");
	m_.reset();

	Make(Flat({{"fifo_batch", "1"}, {"read_expire", "4"}}), 1, 1500 * kUs);
	Queue(Task(Spec("a")), queued);
	ASSERT_TRUE(m_->drain(m_->now() + 100 * kMs));
	EXPECT_EQ(Sent(), (Seq{"R1000", "R50", "R60", "R10", "R70", "R80"})) << "read_expire=4";
}

// An expired write is served at its turn, not before: reads still win
// until writes starved.  write_expire=0 makes every write late at once.
TEST_F(Deadline, FlatAnExpiredWriteWaitsForItsTurn)
{
	Make(Flat({{"fifo_batch", "1"}, {"write_expire", "0"}}), 1, kMs);
	Queue(Task(Spec("a")), {"R1000", "R10", "R20", "R30", "W5"});
	ASSERT_TRUE(m_->drain(m_->now() + 100 * kMs));
	EXPECT_EQ(Sent(), (Seq{"R1000", "R10", "R20", "W5", "R30"}));
}

// Requests with the same start sector (from different tasks, so never
// merged) all stay sorted and all leave, in arrival order.
TEST_F(Deadline, FlatAliasedRequestsAreAllDispatched)
{
	Make(Flat(), 1, kMs);
	TaskId a = Task(Spec("a")), b = Task(Spec("b")), c = Task(Spec("c"));
	Submit(a, 1000 * kMiB, 4096); // the plug
	auto d1 = Submit(a, 10 * kMiB, 4096);
	auto d2 = Submit(b, 10 * kMiB, 4096);
	auto d3 = Submit(c, 5 * kMiB, 4096);
	auto d4 = Submit(c, 10 * kMiB, 4096);
	ASSERT_TRUE(m_->drain(m_->now() + 100 * kMs));
	EXPECT_EQ(Sent(), (Seq{"R1000", "R10", "R10", "R10", "R5"}));
	EXPECT_TRUE(*d1 > 0 && *d2 > *d1 && *d4 > *d2 && *d3 > *d4);
}

// A bio that ends where a queued request starts is merged in front of it
// (found in the sort tree: the last-merge hint points elsewhere and the
// back-merge hash cannot see it); front_merges=0 turns that lookup off.
TEST_F(Deadline, FrontMergesMergeABioInFrontOfAQueuedRequest)
{
	Make(Flat(), 1, kMs);
	TaskId a = Task(Spec("a"));
	Submit(a, 1000 * kMiB, 4096); // the plug
	Submit(a, 100 * kMiB, 4096);  // the last-merge hint
	Submit(a, 8192, 4096);
	Submit(a, 4096, 4096); // ends at 8192
	ASSERT_TRUE(m_->drain(m_->now() + 100 * kMs));
	EXPECT_EQ(m_->counters().bio_merges, 1u);
	ASSERT_EQ(dev_->sent.size(), 3u);
	EXPECT_EQ(dev_->sent[2].rq.sector, 8u);
	EXPECT_EQ(dev_->sent[2].rq.sectors, 16u);
}

TEST_F(Deadline, FrontMergesZeroDisablesFrontMerges)
{
	Make(Flat({{"front_merges", "0"}}), 1, kMs);
	TaskId a = Task(Spec("a"));
	Submit(a, 1000 * kMiB, 4096);
	Submit(a, 100 * kMiB, 4096);
	Submit(a, 8192, 4096);
	Submit(a, 4096, 4096);
	ASSERT_TRUE(m_->drain(m_->now() + 100 * kMs));
	EXPECT_EQ(m_->counters().bio_merges, 0u);
	EXPECT_EQ(dev_->sent.size(), 4u);
}

// Back merges still happen with front_merges=0 (the block core's hash).
TEST_F(Deadline, FrontMergesZeroKeepsBackMerges)
{
	Make(Flat({{"front_merges", "0"}}), 1, kMs);
	TaskId a = Task(Spec("a"));
	Submit(a, 1000 * kMiB, 4096);
	Submit(a, 100 * kMiB, 4096);
	Submit(a, 4096, 4096);
	Submit(a, 8192, 4096); // starts where the second ends
	ASSERT_TRUE(m_->drain(m_->now() + 100 * kMs));
	EXPECT_EQ(m_->counters().bio_merges, 1u);
	ASSERT_EQ(dev_->sent.size(), 3u);
	EXPECT_EQ(dev_->sent[2].rq.sector, 8u);
	EXPECT_EQ(dev_->sent[2].rq.sectors, 16u);
}

// A bio that fills the gap between two queued requests joins all three:
// the later request is merged away (the engine forgets it) and the
// survivor takes the earlier FIFO deadline and FIFO place.  Here the
// request at 8 KiB is 1 ms older than the one at 0 and than R1 (1 MiB):
// after the merge the survivor is the oldest read and leads the next batch,
// although R1 was queued before the survivor's own request.
TEST_F(Deadline, RequestsMergedTakeTheEarlierDeadline)
{
	Make(Flat(), 1, 10 * kMs);
	TaskId a = Task(Spec("a"));
	Submit(a, 1000 * kMiB, 4096); // the plug, served until 10 ms
	Submit(a, 8192, 4096);	      // older
	m_->run_until(m_->now() + kMs);
	Submit(a, 1 * kMiB, 4096);
	Submit(a, 0, 4096);    // younger
	Submit(a, 4096, 4096); // fills the gap
	ASSERT_TRUE(m_->drain(m_->now() + 100 * kMs));
	EXPECT_EQ(m_->counters().bio_merges, 1u);
	EXPECT_EQ(m_->counters().rq_merges, 1u);
	ASSERT_EQ(dev_->sent.size(), 3u);
	EXPECT_EQ(dev_->sent[1].rq.sector, 0u);
	EXPECT_EQ(dev_->sent[1].rq.sectors, 24u);
	EXPECT_EQ(dev_->sent[2].rq.sector, 1 * kMiB / 512);
}

TEST_F(Deadline, TunablesHaveTheClassicDefaults)
{
	Make(Flat(), 1, kMs);
	auto t = m_->tunables();
	EXPECT_EQ(t["read_expire"], "500");
	EXPECT_EQ(t["write_expire"], "5000");
	EXPECT_EQ(t["writes_starved"], "2");
	EXPECT_EQ(t["front_merges"], "1");
	EXPECT_EQ(t["fifo_batch"], "16");
	EXPECT_EQ(t["hierarchical"], "0");
	for (const char *common : {"slice_sync", "group_idle", "fairness"})
		EXPECT_EQ(t.count(common), 1u) << common;
	EXPECT_EQ(t.count("slice_async"), 0u);
}

TEST_F(Deadline, TunablesThatAreNotNumbersAreInvalid)
{
	for (const char *name :
	     {"read_expire", "write_expire", "writes_starved", "front_merges", "fifo_batch"}) {
		for (const char *value : {"abc", "", "12ms", "1.5"}) {
			Config cfg = Flat({{name, value}});
			m_ = std::make_unique<Model>(std::make_unique<RecordingDevice>(1, kMs),
						     cfg);
			std::string err;
			EXPECT_FALSE(m_->init(&err)) << name << "=" << value;
			EXPECT_EQ(err, std::string("tunable ") + name + "=" + value +
					       ": Invalid argument");
		}
	}
}

TEST_F(Deadline, TunablesOutOfRangeAreClamped)
{
	Make(Flat({{"read_expire", "-5"},
		   {"write_expire", "99999999999"},
		   {"writes_starved", "-1"},
		   {"front_merges", "7"},
		   {"fifo_batch", "0"}}),
	     1, kMs);
	auto t = m_->tunables();
	EXPECT_EQ(t["read_expire"], "0");
	EXPECT_EQ(t["write_expire"], std::to_string(INT_MAX));
	EXPECT_EQ(t["writes_starved"], "0");
	EXPECT_EQ(t["front_merges"], "1");
	EXPECT_EQ(t["fifo_batch"], "1");
}

// In flat mode cgroups do not matter: the requests of two cgroups form one
// queue and one sweep, as in the classic scheduler.
TEST_F(Deadline, FlatRequestsOfAllCgroupsShareOneSweep)
{
	Make(Flat(), 1, kMs);
	TaskId a = Task(Spec("a", "a", 1000)), b = Task(Spec("b", "b", 100));
	Queue(a, {"R1000", "R30", "R10"});
	Queue(b, {"R20", "R40"});
	ASSERT_TRUE(m_->drain(m_->now() + 100 * kMs));
	EXPECT_EQ(Sent(), (Seq{"R1000", "R30", "R40", "R10", "R20"}));
}

// The rules hold inside each group: two groups' interleaved arrivals are
// each served as a sector-sorted sweep from their own oldest request.
TEST_F(Deadline, HierarchicalEachGroupSweepsItsOwnRequests)
{
	Config cfg = Flat();
	cfg.hierarchical = true;
	Make(cfg, 1, kMs);
	TaskId a = Task(Spec("a", "a", 500)), b = Task(Spec("b", "b", 500));
	Queue(a, {"R5000", "R30", "R10", "R20"}); // R5000: the plug
	Queue(b, {"R300", "R100", "R200"});
	ASSERT_TRUE(m_->drain(m_->now() + 1000 * kMs));
	Seq ga, gb;
	for (auto &s : Sent())
		if (s != "R5000")
			(std::stoull(s.substr(1)) >= 100 ? gb : ga).push_back(s);
	EXPECT_EQ(ga, (Seq{"R30", "R10", "R20"}));
	EXPECT_EQ(gb, (Seq{"R300", "R100", "R200"}));
}

TEST_F(Deadline, HierarchicalGroupsGetDiskTimeAndBandwidthByWeight)
{
	Config cfg;
	cfg.scheduler = "deadline-fq";
	Make(cfg, 4, 2 * kMs);
	TaskId a = Task(Spec("a", "a", 1000)), b = Task(Spec("b", "b", 500));
	int64_t end = m_->now() + 20'000 * kMs;
	Job *ja = Loop(a, 4, 4096, 0, end, false, true);
	Job *jb = Loop(b, 4, 4096, 8ull << 30, end, false, true);
	m_->run_until(end);
	ASSERT_TRUE(m_->drain(end + 10'000 * kMs));
	auto g = Groups();
	double time = g["/a"].disk_time_ms / g["/b"].disk_time_ms;
	double busy = g["/a"].device_busy_ms / g["/b"].device_busy_ms;
	double bw = static_cast<double>(ja->done) / static_cast<double>(jb->done);
	RecordProperty("disk_time_ratio", std::to_string(time));
	RecordProperty("device_busy_ratio", std::to_string(busy));
	RecordProperty("bandwidth_ratio", std::to_string(bw));
	EXPECT_NEAR(time, 2.0, 0.15);
	EXPECT_NEAR(busy, 2.0, 0.15);
	EXPECT_GE(bw, 1.7);
	EXPECT_LE(bw, 2.4);
}

} // namespace
