// SPDX-License-Identifier: GPL-2.0
// The block layer model: requests, merging, tags, dispatch, completion,
// and end-to-end fairness through the real noop on the efq engine.
#include <algorithm>
#include <deque>
#include <memory>
#include <vector>

#include <sim/gtest_guard.h>

#include "../sched/recording_device.h"
#include "blk/model.h"

namespace {

using efqsim::blk::Config;
using efqsim::blk::Model;
using efqsim::workload::Io;
using efqsim::workload::TaskSpec;
namespace dev = efqsim::dev;

TaskSpec Spec(const char *comm, const char *cgroup = "", unsigned int weight = 0)
{
	TaskSpec s;
	s.comm = comm;
	s.cgroup = cgroup;
	s.cgroup_weight = weight;
	return s;
}

constexpr int64_t kMs = 1'000'000;

using efqtest::RecordingDevice;

class ModelEnv : public ::testing::Environment {
public:
	void SetUp() override { efqsim::blk::ensure_modules(); }
};
const auto *env = ::testing::AddGlobalTestEnvironment(new ModelEnv);

class ModelTest : public SimTest {
protected:
	RecordingDevice *dev_ = nullptr;
	std::unique_ptr<Model> m_;

	void Make(Config cfg, uint32_t depth = 1, int64_t per_rq = kMs, int64_t per_sector = 0)
	{
		auto d = std::make_unique<RecordingDevice>(depth, per_rq, per_sector);
		dev_ = d.get();
		m_ = std::make_unique<Model>(std::move(d), cfg);
		std::string err;
		ASSERT_TRUE(m_->init(&err)) << err;
	}
	void TearDown() override
	{
		if (m_) {
			EXPECT_TRUE(m_->drain(m_->now() + 3600'000 * kMs));
			EXPECT_EQ(m_->check_invariants(), "");
		}
		m_.reset();
		SimTest::TearDown();
	}
	// A task that keeps @depth IOs of @bytes in flight, sequential from
	// @start or random over 1 GiB, until @until.
	struct Job {
		Model *m;
		efqsim::workload::TaskId t;
		uint32_t bytes;
		uint64_t next;
		uint64_t rng;
		int64_t until;
		bool write, random;
		uint64_t done = 0;

		void Issue()
		{
			if (m->now() >= until)
				return;
			Io io;
			if (random) {
				rng = rng * 6364136223846793005ull + 1442695040888963407ull;
				io.offset = ((rng >> 20) % (1ull << 18)) * 4096;
			} else {
				io.offset = next;
				next += bytes;
			}
			io.bytes = bytes;
			io.write = write;
			m->submit(t, io, [this](int64_t) {
				done += bytes;
				Issue();
			});
		}
	};
	std::vector<std::unique_ptr<Job>> jobs_;

	Job *Loop(efqsim::workload::TaskId t, int depth, uint32_t bytes, uint64_t start,
		  int64_t until, bool write = false, bool random = false)
	{
		jobs_.push_back(std::make_unique<Job>(
			Job{m_.get(), t, bytes, start, start + 12345, until, write, random}));
		Job *j = jobs_.back().get();
		for (int i = 0; i < depth; i++)
			m_->at(m_->now(), [j] { j->Issue(); });
		return j;
	}
};

TEST_F(ModelTest, EveryIoOfASyncReaderCompletesOnceAndInOrder)
{
	Make(Config{});
	auto t = m_->create_task(Spec("reader"));
	std::vector<int64_t> done;
	for (int i = 0; i < 10; i++) {
		Io io;
		io.offset = static_cast<uint64_t>(i) * 1'048'576;
		io.bytes = 4096;
		m_->submit(t, io, [&done](int64_t when) { done.push_back(when); });
	}
	ASSERT_TRUE(m_->drain(m_->now() + 1000 * kMs));
	ASSERT_EQ(done.size(), 10u);
	EXPECT_TRUE(std::is_sorted(done.begin(), done.end()));
	EXPECT_EQ(m_->counters().completed, 10u);
	EXPECT_EQ(m_->counters().dispatched, 10u);
	EXPECT_EQ(m_->counters().budget_reruns, 0u) << "the dispatch contract: has_work is exact";
}

TEST_F(ModelTest, ContiguousWritesQueuedBehindABusyDeviceAreBackMerged)
{
	Make(Config{}, 1, 10 * kMs);
	auto t = m_->create_task(Spec("writer"));
	int completed = 0;
	for (int i = 0; i < 9; i++) {
		Io io;
		io.offset = static_cast<uint64_t>(i) * 4096;
		io.bytes = 4096;
		io.write = true;
		io.sync = false;
		m_->submit(t, io, [&completed](int64_t) { completed++; });
	}
	ASSERT_TRUE(m_->drain(m_->now() + 1000 * kMs));
	EXPECT_EQ(completed, 9);
	// the first goes to the idle device; the other eight merge into one
	EXPECT_EQ(m_->counters().dispatched, 2u);
	EXPECT_EQ(m_->counters().bio_merges, 7u);
	ASSERT_EQ(dev_->sent.size(), 2u);
	EXPECT_EQ(dev_->sent[1].rq.sector, 8u);
	EXPECT_EQ(dev_->sent[1].rq.sectors, 64u);
}

TEST_F(ModelTest, SubmittersWithoutATagSleepAndAreWokenInOrder)
{
	Config cfg;
	cfg.nr_requests = 4;
	Make(cfg, 1, kMs);
	auto t = m_->create_task(Spec("burst"));
	std::vector<int> order;
	for (int i = 0; i < 12; i++) {
		Io io;
		io.offset = static_cast<uint64_t>(i) * 1'048'576; // never mergeable
		io.bytes = 4096;
		m_->submit(t, io, [&order, i](int64_t) { order.push_back(i); });
	}
	EXPECT_EQ(m_->counters().tag_waits, 8u);
	ASSERT_TRUE(m_->drain(m_->now() + 1000 * kMs));
	ASSERT_EQ(order.size(), 12u);
	EXPECT_TRUE(std::is_sorted(order.begin(), order.end())) << "FIFO queue, FIFO wake-ups";
}

// 6.1's blk_mq_get_tag(): a submitter that finds no tag runs the hardware
// queue, then counts itself in the tag map's ws_active and sleeps; woken
// with a tag, it is uncounted before its request is inserted.  The
// scheduler reads that count (and the tags taken, sbitmap_weight()); the
// model keeps both exactly, and check_invariants() compares them with its
// own sleepers and free tags.
TEST_F(ModelTest, SleepersForATagAreCountedAsSbitmapCountsThem)
{
	Config cfg;
	cfg.nr_requests = 4;
	Make(cfg, 1, kMs);
	auto t = m_->create_task(Spec("burst"));
	EXPECT_EQ(m_->tag_waiters(), 0u);
	EXPECT_EQ(m_->tags_in_use(), 0u);
	for (int i = 0; i < 6; i++) {
		Io io;
		io.offset = static_cast<uint64_t>(i) * 1'048'576;
		io.bytes = 4096;
		uint64_t runs = m_->counters().runs;
		m_->submit(t, io, [](int64_t) {});
		if (i >= 4) { // out of tags: the submitter ran the queue first
			EXPECT_EQ(m_->counters().runs, runs + 1) << i;
		}
	}
	EXPECT_EQ(m_->tags_in_use(), 4u);
	EXPECT_EQ(m_->tag_waiters(), 2u);
	EXPECT_EQ(m_->check_invariants(), "");
	// the first request completes at 1 ms: its tag goes to the first sleeper
	m_->run_until(m_->now() + kMs + kMs / 2);
	EXPECT_EQ(m_->counters().completed, 1u);
	EXPECT_EQ(m_->tags_in_use(), 4u);
	EXPECT_EQ(m_->tag_waiters(), 1u);
	EXPECT_EQ(m_->check_invariants(), "");
	ASSERT_TRUE(m_->drain(m_->now() + 1000 * kMs));
	EXPECT_EQ(m_->tag_waiters(), 0u);
	EXPECT_EQ(m_->tags_in_use(), 0u);
}

TEST_F(ModelTest, UnknownSchedulerIsAClearError)
{
	auto d = std::make_unique<RecordingDevice>(1, kMs);
	Config cfg;
	cfg.scheduler = "nosuch";
	Model m(std::move(d), cfg);
	std::string err;
	EXPECT_FALSE(m.init(&err));
	EXPECT_EQ(err, "unknown scheduler 'nosuch'");
}

TEST_F(ModelTest, ZeroDiscardSegmentsIsAClearError)
{
	Config cfg;
	cfg.max_discard_segments = 0;
	Model m(std::make_unique<RecordingDevice>(1, kMs), cfg);
	std::string err;
	EXPECT_FALSE(m.init(&err));
	EXPECT_EQ(err, "max_discard_segments must be at least 1");
}

// Discards reach the device as ranges without data: two far apart, merged
// in the plug into one request of two ranges on a queue that takes four,
// cost the device's time per request only; on a single-range queue they
// stay two requests.
TEST_F(ModelTest, DiscardsGoToTheDeviceAsRangesWithoutData)
{
	for (unsigned short segments : {1, 4}) {
		Config cfg;
		cfg.max_discard_segments = segments;
		Make(cfg, 1, kMs, 1000);
		auto t = m_->create_task(Spec("trim"));
		std::vector<int64_t> done;
		m_->plug(t);
		for (uint64_t offset : {0ull, 1ull << 30}) {
			Io io;
			io.offset = offset;
			io.bytes = 1 << 20;
			io.discard = true;
			io.sync = false;
			m_->submit(t, io, [&done](int64_t when) { done.push_back(when); });
		}
		int64_t start = m_->now();
		m_->unplug(t);
		ASSERT_TRUE(m_->drain(m_->now() + 1000 * kMs));
		ASSERT_EQ(done.size(), 2u);
		std::vector<dev::Range> a{{0, 2048}}, b{{1 << 21, 2048}};
		if (segments == 1) {
			ASSERT_EQ(dev_->sent.size(), 2u);
			EXPECT_EQ(dev_->sent[0].rq.ranges, a);
			EXPECT_EQ(dev_->sent[1].rq.ranges, b);
			EXPECT_EQ(done[1], start + 2 * kMs);
		} else {
			ASSERT_EQ(dev_->sent.size(), 1u);
			EXPECT_EQ(m_->counters().plug_merges, 1u);
			a.push_back(b.front());
			EXPECT_EQ(dev_->sent[0].rq.ranges, a);
			EXPECT_EQ(dev_->sent[0].rq.sectors, 4096u);
			EXPECT_EQ(done[1], start + kMs) << "no cost per sector";
		}
		for (const auto &x : dev_->sent) {
			EXPECT_TRUE(x.rq.discard);
			EXPECT_EQ(x.rq.first_bio_segments, 0u) << "no pages";
		}
		EXPECT_EQ(m_->check_invariants(), "");
		m_.reset();
	}
}

TEST_F(ModelTest, BadTunablesAreClearErrors)
{
	for (auto [name, value, msg] :
	     {std::tuple{"nosuch", "1", "scheduler noop has no tunable 'nosuch'"},
	      std::tuple{"slice_sync", "abc", "tunable slice_sync=abc: Invalid argument"}}) {
		auto d = std::make_unique<RecordingDevice>(1, kMs);
		Config cfg;
		cfg.tunables = {{name, value}};
		Model m(std::move(d), cfg);
		std::string err;
		EXPECT_FALSE(m.init(&err));
		EXPECT_EQ(err, msg);
	}
	ExpectWarnings(0);
}

TEST_F(ModelTest, TunablesAreShownAsTheSchedulerShowsThem)
{
	Config cfg;
	cfg.tunables = {{"slice_sync", "50"}, {"fairness", "7"}};
	Make(cfg);
	auto t = m_->tunables();
	EXPECT_EQ(t["slice_sync"], "50");
	EXPECT_EQ(t["fairness"], "1") << "out of range: clamped";
	EXPECT_EQ(t["hierarchical"], "1");
	EXPECT_EQ(t["group_idle"], "8");
}

// Two cgroups, weights 1000 and 500, each with a reader keeping 4 random
// reads in flight on a device that takes 4 at once (8 scheduler tags): the
// device time they get, measured by the device and accounted by the engine,
// is 2:1 within 10%.
TEST_F(ModelTest, HierarchicalNoopDividesDeviceTimeByWeight)
{
	Make(Config{}, 4, 2 * kMs);
	auto a = m_->create_task(Spec("a", "a", 1000));
	auto b = m_->create_task(Spec("b", "b", 500));
	ASSERT_NE(a, 0u) << m_->task_error();
	ASSERT_NE(b, 0u) << m_->task_error();
	int64_t end = m_->now() + 20'000 * kMs;
	Job *ja = Loop(a, 4, 4096, 0, end, false, true);
	Job *jb = Loop(b, 4, 4096, 1ull << 33, end, false, true);
	m_->run_until(end);
	ASSERT_TRUE(m_->drain(end + 10'000 * kMs));
	double ratio_bytes = static_cast<double>(ja->done) / static_cast<double>(jb->done);
	EXPECT_NEAR(ratio_bytes, 2.0, 0.2);
	auto groups = m_->group_results();
	double ta = 0, tb = 0, ba = 0, bb = 0;
	for (auto &g : groups) {
		if (g.path == "/a") {
			ta = g.disk_time_ms;
			ba = g.device_busy_ms;
			EXPECT_EQ(g.weight, 1000u);
		}
		if (g.path == "/b") {
			tb = g.disk_time_ms;
			bb = g.device_busy_ms;
		}
	}
	ASSERT_GT(tb, 0);
	ASSERT_GT(bb, 0);
	EXPECT_NEAR(ta / tb, 2.0, 0.2) << "engine disk time";
	EXPECT_NEAR(ba / bb, 2.0, 0.2) << "device busy time";
	EXPECT_EQ(m_->counters().budget_reruns, 0u) << "the engine idles with has_work false";
}

TEST_F(ModelTest, FlatNoopIgnoresCgroupWeights)
{
	Config cfg;
	cfg.hierarchical = false;
	Make(cfg, 4, 2 * kMs);
	auto a = m_->create_task(Spec("a", "a", 1000));
	auto b = m_->create_task(Spec("b", "b", 500));
	int64_t end = m_->now() + 10'000 * kMs;
	Job *ja = Loop(a, 4, 4096, 0, end, false, true);
	Job *jb = Loop(b, 4, 4096, 1ull << 33, end, false, true);
	m_->run_until(end);
	ASSERT_TRUE(m_->drain(end + 10'000 * kMs));
	EXPECT_NEAR(static_cast<double>(ja->done) / static_cast<double>(jb->done), 1.0, 0.1);
}

} // namespace
