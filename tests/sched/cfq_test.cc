// SPDX-License-Identifier: GPL-2.0
// cfq on the efq engine: per-process queues, request order, dispatch
// rules, idling, preemption, priorities, tunables and groups.
#include <cstdint>
#include <functional>

#include "harness.h"

namespace {

using namespace efqtest;

const auto *env = ::testing::AddGlobalTestEnvironment(new SchedEnv);

constexpr uint64_t kGiB = 1ull << 30;
constexpr uint64_t kMiB = 1ull << 20;

// What the recording device did with one request (it serves in order).
struct Served {
	uint64_t sector;
	int64_t sent, done;
	bool write;
	int region; // which GiB of the device: the tests give each task one
};

class Cfq : public SchedTest {
protected:
	int64_t per_rq_ = kMs;

	void MakeCfq(Config cfg, uint32_t depth = 1, int64_t per_rq = kMs)
	{
		cfg.scheduler = "cfq";
		per_rq_ = per_rq;
		Make(cfg, depth, per_rq);
	}

	// Enough scheduler tags to queue everything a test submits at once.
	static Config Deep()
	{
		Config cfg;
		cfg.nr_requests = 1024;
		return cfg;
	}

	std::vector<Served> Replay() const
	{
		std::vector<Served> out;
		int64_t last = 0;
		for (auto &s : dev_->sent) {
			int64_t start = std::max(s.when, last);
			last = start + per_rq_;
			out.push_back({s.rq.sector, s.when, last, s.rq.write,
				       static_cast<int>(s.rq.sector * 512 / kGiB)});
		}
		return out;
	}

	// The most requests of @region in flight at any of its dispatches
	// in [@from, @to).
	static unsigned int MaxInFlight(const std::vector<Served> &v, int region, int64_t from = 0,
					int64_t to = INT64_MAX)
	{
		unsigned int best = 0;
		for (size_t i = 0; i < v.size(); i++) {
			if (v[i].region != region || v[i].sent < from || v[i].sent >= to)
				continue;
			unsigned int n = 0;
			for (size_t j = 0; j <= i; j++)
				if (v[j].region == region && v[j].done > v[i].sent)
					n++;
			best = std::max(best, n);
		}
		return best;
	}

	// Longest run of consecutive dispatches from @region.
	static unsigned int LongestRun(const std::vector<Served> &v, int region)
	{
		unsigned int best = 0, run = 0;
		for (auto &s : v) {
			run = s.region == region ? run + 1 : 0;
			best = std::max(best, run);
		}
		return best;
	}

	// The most frequent length of a run of dispatches from @region.
	static unsigned int CommonRun(const std::vector<Served> &v, int region)
	{
		std::map<unsigned int, unsigned int> count;
		unsigned int run = 0;
		for (size_t i = 0; i <= v.size(); i++) {
			if (i < v.size() && v[i].region == region) {
				run++;
				continue;
			}
			if (run)
				count[run]++;
			run = 0;
		}
		unsigned int best = 0, n = 0;
		for (auto &[len, c] : count)
			if (c > n)
				best = len, n = c;
		return best;
	}

	static unsigned int Switches(const std::vector<Served> &v)
	{
		unsigned int n = 0;
		for (size_t i = 1; i < v.size(); i++)
			n += v[i].region != v[i - 1].region;
		return n;
	}
};

// --- registration and tunables ---------------------------------------------

TEST_F(Cfq, RegistersAsCfq)
{
	EXPECT_TRUE(efqsim::blk::scheduler_exists("cfq"));
}

TEST_F(Cfq, TunablesShowTheirDefaults)
{
	MakeCfq(Config{});
	auto t = m_->tunables();
	const std::map<std::string, std::string> want = {
		{"quantum", "4"},
		{"fifo_expire_sync", "125"},
		{"fifo_expire_async", "250"},
		{"back_seek_max", "16384"},
		{"back_seek_penalty", "2"},
		{"slice_async_rq", "2"},
		{"slice_idle", "8"},
		{"low_latency", "1"},
		{"slice_sync", "100"},
		{"slice_async", "40"},
		{"group_idle", "8"},
		{"fairness", "0"},
		{"hierarchical", "1"},
	};
	for (auto &[k, v] : want) {
		ASSERT_TRUE(t.count(k)) << k;
		EXPECT_EQ(t[k], v) << k;
	}
}

TEST_F(Cfq, ANonNumberTunableIsInvalid)
{
	for (const char *name : {"quantum", "fifo_expire_sync", "back_seek_max", "slice_idle",
				 "low_latency", "slice_async_rq"}) {
		Config cfg;
		cfg.scheduler = "cfq";
		cfg.tunables = {{name, "abc"}};
		auto m = std::make_unique<Model>(std::make_unique<RecordingDevice>(1, kMs), cfg);
		std::string err;
		EXPECT_FALSE(m->init(&err)) << name;
		EXPECT_EQ(err, std::string("tunable ") + name + "=abc: Invalid argument");
	}
}

TEST_F(Cfq, OutOfRangeTunablesAreClamped)
{
	Config cfg;
	cfg.tunables = {{"quantum", "0"},	    {"fifo_expire_sync", "0"},
			{"fifo_expire_async", "0"}, {"back_seek_penalty", "0"},
			{"slice_async_rq", "0"},    {"low_latency", "7"},
			{"slice_idle", "0"},	    {"back_seek_max", "99999999999"}};
	MakeCfq(cfg);
	auto t = m_->tunables();
	EXPECT_EQ(t["quantum"], "1");
	EXPECT_EQ(t["fifo_expire_sync"], "1");
	EXPECT_EQ(t["fifo_expire_async"], "1");
	EXPECT_EQ(t["back_seek_penalty"], "1");
	EXPECT_EQ(t["slice_async_rq"], "1");
	EXPECT_EQ(t["low_latency"], "1");
	EXPECT_EQ(t["slice_idle"], "0");
	EXPECT_EQ(t["back_seek_max"], "4294967295");
}

// --- request order inside a queue ------------------------------------------

TEST_F(Cfq, RequestsOfAQueueLeaveInSectorOrderFromTheHead)
{
	MakeCfq(Deep());
	TaskId a = Task(Spec("a"));
	Submit(a, 0, 4096); // keeps the device busy while the rest queue
	for (uint64_t mb : {40, 10, 30, 20})
		Submit(a, mb * kMiB, 4096);
	ASSERT_TRUE(m_->drain(m_->now() + 1000 * kMs));
	ASSERT_EQ(dev_->sent.size(), 5u);
	const uint64_t want[] = {0, 10, 20, 30, 40};
	for (int i = 0; i < 5; i++)
		EXPECT_EQ(dev_->sent[i].rq.sector, want[i] * kMiB / 512) << i;
}

TEST_F(Cfq, AShortBackwardSeekCostsBackSeekPenaltyTimesItsDistance)
{
	MakeCfq(Deep());
	TaskId a = Task(Spec("a"));
	Submit(a, 100 * kMiB, 4096); // head ends just after 100 MiB
	Submit(a, 99 * kMiB, 4096);  // 1 MiB back: costs 2 MiB
	Submit(a, 102 * kMiB, 4096); // ~2 MiB ahead: nearer
	ASSERT_TRUE(m_->drain(m_->now() + 1000 * kMs));
	ASSERT_EQ(dev_->sent.size(), 3u);
	EXPECT_EQ(dev_->sent[1].rq.sector, 102 * kMiB / 512);
	EXPECT_EQ(dev_->sent[2].rq.sector, 99 * kMiB / 512);
}

TEST_F(Cfq, ABackwardSeekWithinBackSeekMaxBeatsALongForwardSeek)
{
	MakeCfq(Deep());
	TaskId a = Task(Spec("a"));
	Submit(a, 100 * kMiB, 4096);
	Submit(a, 99 * kMiB, 4096);  // costs 2 MiB
	Submit(a, 110 * kMiB, 4096); // 10 MiB ahead
	Submit(a, 50 * kMiB, 4096);  // beyond back_seek_max: wraps, last
	ASSERT_TRUE(m_->drain(m_->now() + 1000 * kMs));
	ASSERT_EQ(dev_->sent.size(), 4u);
	EXPECT_EQ(dev_->sent[1].rq.sector, 99 * kMiB / 512);
	EXPECT_EQ(dev_->sent[2].rq.sector, 110 * kMiB / 512);
	EXPECT_EQ(dev_->sent[3].rq.sector, 50 * kMiB / 512);
}

TEST_F(Cfq, AnExpiredFifoRequestIsServedNext)
{
	MakeCfq(Deep());
	TaskId a = Task(Spec("a"));
	// 300 requests ahead of the head, one far behind it: in sector order
	// the one behind would go last, at ~300 ms; its 125 ms deadline
	// brings it forward at the first FIFO check after it expired.
	int64_t t0 = m_->now();
	Submit(a, 100 * kMiB, 4096); // dispatched at once
	auto behind = Submit(a, 0, 4096);
	for (int i = 1; i < 300; i++)
		Submit(a, 100 * kMiB + i * 8192ull, 4096);
	ASSERT_TRUE(m_->drain(m_->now() + 2000 * kMs));
	EXPECT_GT(*behind - t0, 125 * kMs);
	EXPECT_LT(*behind - t0, 250 * kMs);
}

// --- dispatch rules --------------------------------------------------------

TEST_F(Cfq, QuantumCapsInFlightRequestsOfTheActiveQueueWhileOthersAreBusy)
{
	MakeCfq(Config{}, 32);
	TaskId a = Task(Spec("a")), b = Task(Spec("b"));
	int64_t start = m_->now(), end = start + 2000 * kMs;
	Loop(a, 16, 4096, 1 * kGiB, end, false, true);
	Loop(b, 16, 4096, 2 * kGiB, end, false, true);
	m_->run_until(end);
	ASSERT_TRUE(m_->drain(end + 2000 * kMs));
	// alone at the start (a) and at the end, a queue may send more
	auto v = Replay();
	EXPECT_LE(MaxInFlight(v, 1, start + 50 * kMs, end - 50 * kMs), 4u);
	EXPECT_LE(MaxInFlight(v, 2, start + 50 * kMs, end - 50 * kMs), 4u);
	EXPECT_EQ(MaxInFlight(v, 2, start, end - 50 * kMs), 4u);
	EXPECT_EQ(m_->counters().budget_reruns, 0u);
}

TEST_F(Cfq, ALoneQueueMayGoToFourTimesTheQuantum)
{
	MakeCfq(Config{}, 32);
	TaskId a = Task(Spec("a"));
	int64_t end = m_->now() + 500 * kMs;
	Loop(a, 32, 4096, 1 * kGiB, end, false, true);
	m_->run_until(end);
	ASSERT_TRUE(m_->drain(end + 2000 * kMs));
	EXPECT_EQ(MaxInFlight(Replay(), 1), 16u);
}

TEST_F(Cfq, AsyncQueuesWaitWhileSyncIoIsInFlight)
{
	MakeCfq(Config{}, 32);
	TaskId r = Task(Spec("reader")), w = Task(Spec("writer"));
	int64_t end = m_->now() + 2000 * kMs;
	Loop(r, 4, 4096, 1 * kGiB, end);
	Job *jw = Loop(w, 16, 4096, 2 * kGiB, end, true, false, false);
	m_->run_until(end);
	ASSERT_TRUE(m_->drain(end + 5000 * kMs));
	EXPECT_GT(jw->ios, 0u);
	auto v = Replay();
	for (size_t i = 0; i < v.size(); i++) {
		if (!v[i].write)
			continue;
		for (size_t j = 0; j < i; j++)
			ASSERT_FALSE(!v[j].write && v[j].done > v[i].sent)
				<< "async write sent at " << v[i].sent
				<< " while a read was in flight";
	}
	EXPECT_EQ(m_->counters().budget_reruns, 0u);
}

TEST_F(Cfq, TheIdleClassHasOneRequestInFlight)
{
	MakeCfq(Config{}, 32);
	TaskId a = Task(Spec("idle", "", 0, 3, 0));
	int64_t end = m_->now() + 300 * kMs;
	Job *j = Loop(a, 8, 4096, 1 * kGiB, end, false, true);
	m_->run_until(end);
	ASSERT_TRUE(m_->drain(end + 2000 * kMs));
	EXPECT_GT(j->ios, 10u);
	EXPECT_EQ(MaxInFlight(Replay(), 1), 1u);
}

TEST_F(Cfq, AnAsyncQueueMakesWayAfterSliceAsyncRqDerivedRequestsWhenOthersAreBusy)
{
	// slice_async_rq 2: prio 4 may send 16 per turn, prio 0 32
	MakeCfq(Deep());
	TaskId a = Task(Spec("a", "", 0, 2, 4)), b = Task(Spec("b", "", 0, 2, 0));
	int64_t end = m_->now() + 2000 * kMs;
	Loop(a, 64, 4096, 1 * kGiB, end, true, true, false);
	Loop(b, 64, 4096, 2 * kGiB, end, true, true, false);
	m_->run_until(end);
	ASSERT_TRUE(m_->drain(end + 5000 * kMs));
	auto v = Replay();
	EXPECT_EQ(CommonRun(v, 1), 16u);
	EXPECT_EQ(CommonRun(v, 2), 32u);
}

// --- idling ----------------------------------------------------------------

TEST_F(Cfq, AProcessWithAShortThinkTimeKeepsTheDiskDuringSliceIdle)
{
	MakeCfq(Config{});
	TaskId a = Task(Spec("thinker")), b = Task(Spec("streamer"));
	int64_t end = m_->now() + 3000 * kMs;
	Job *ja = Loop(a, 1, 4096, 1 * kGiB, end);
	ja->think = 2 * kMs;
	Job *jb = Loop(b, 1, 4096, 2 * kGiB, end);
	m_->run_until(end);
	ASSERT_TRUE(m_->drain(end + 2000 * kMs));
	// a 100 ms slice of 3 ms per IO against 100 IOs of b per slice
	double r = static_cast<double>(ja->ios) / static_cast<double>(jb->ios);
	EXPECT_GT(r, 0.25);
	EXPECT_LT(r, 0.45);
	EXPECT_LT(Switches(Replay()), 100u);
}

TEST_F(Cfq, SliceIdleZeroDisablesIdling)
{
	Config cfg;
	cfg.tunables = {{"slice_idle", "0"}, {"group_idle", "0"}};
	MakeCfq(cfg);
	TaskId a = Task(Spec("thinker")), b = Task(Spec("streamer"));
	int64_t end = m_->now() + 3000 * kMs;
	Job *ja = Loop(a, 1, 4096, 1 * kGiB, end);
	ja->think = 2 * kMs;
	Loop(b, 1, 4096, 2 * kGiB, end);
	m_->run_until(end);
	ASSERT_TRUE(m_->drain(end + 2000 * kMs));
	// no idling: the disk changes hands at nearly every request
	auto v = Replay();
	EXPECT_GT(Switches(v), v.size() / 3);
}

TEST_F(Cfq, AProcessThinkingLongerThanSliceIdleLosesItsIdleWindow)
{
	MakeCfq(Config{});
	TaskId a = Task(Spec("slow")), b = Task(Spec("streamer"));
	int64_t end = m_->now() + 3000 * kMs;
	Job *ja = Loop(a, 1, 4096, 1 * kGiB, end);
	ja->think = 20 * kMs;
	Job *jb = Loop(b, 1, 4096, 2 * kGiB, end);
	m_->run_until(end);
	ASSERT_TRUE(m_->drain(end + 2000 * kMs));
	// without idling the streamer loses at most a request's time per IO
	// of the slow process, not an 8 ms idle period each time
	uint64_t lost = 3000 - jb->ios;
	EXPECT_LT(lost, ja->ios * 3 + 50);
}

TEST_F(Cfq, ASeekyProcessIsIdledForAtMost2Ms)
{
	MakeCfq(Config{});
	TaskId a = Task(Spec("seeky")), b = Task(Spec("streamer"));
	int64_t end = m_->now() + 3000 * kMs;
	Job *ja = Loop(a, 1, 4096, 1 * kGiB, end, false, true);
	ja->think = 4 * kMs; // keeps its idle window (<= slice_idle) ...
	Job *jb = Loop(b, 1, 4096, 2 * kGiB, end);
	m_->run_until(end);
	ASSERT_TRUE(m_->drain(end + 2000 * kMs));
	// ... but the 2 ms wait ends before its next request: one IO a turn
	double r = static_cast<double>(ja->ios) / static_cast<double>(jb->ios);
	EXPECT_LT(r, 0.05);
}

TEST_F(Cfq, ASequentialProcessIsIdledForTheFullSliceIdle)
{
	MakeCfq(Config{});
	TaskId a = Task(Spec("sequential")), b = Task(Spec("streamer"));
	int64_t end = m_->now() + 3000 * kMs;
	Job *ja = Loop(a, 1, 4096, 1 * kGiB, end);
	ja->think = 4 * kMs;
	Job *jb = Loop(b, 1, 4096, 2 * kGiB, end);
	m_->run_until(end);
	ASSERT_TRUE(m_->drain(end + 2000 * kMs));
	// 5 ms an IO through its 100 ms slice: ~20 against ~100 of b
	double r = static_cast<double>(ja->ios) / static_cast<double>(jb->ios);
	EXPECT_GT(r, 0.12);
}

TEST_F(Cfq, AnEmptyQueueHandsTheDiskToACloseCooperatorInsteadOfIdling)
{
	MakeCfq(Config{});
	TaskId a = Task(Spec("even")), b = Task(Spec("odd"));
	int64_t end = m_->now() + 2000 * kMs;
	// a reads blocks 0, 2, 4, ... and b 1, 3, 5, ...: each is sequential
	// with a 4 KiB gap that the other fills
	std::function<void(TaskId, uint64_t)> issue;
	uint64_t ios = 0;
	issue = [&](TaskId t, uint64_t off) {
		if (m_->now() >= end)
			return;
		Io io;
		io.offset = off;
		io.bytes = 4096;
		m_->submit(t, io, [&, t, off](int64_t when) {
			ios++;
			m_->at(when + kMs, [&, t, off] { issue(t, off + 8192); });
		});
	};
	m_->at(m_->now(), [&] { issue(a, 1 * kGiB); });
	m_->at(m_->now(), [&] { issue(b, 1 * kGiB + 4096); });
	m_->run_until(end);
	ASSERT_TRUE(m_->drain(end + 2000 * kMs));
	// idling for its own next request, a process gets one IO each 2 ms;
	// handing over, the disk never waits: about one IO per ms
	EXPECT_GT(ios, 1500u);
	EXPECT_EQ(m_->counters().budget_reruns, 0u);
}

TEST_F(Cfq, NoIdlingOnANonRotationalDeviceWithQueueing)
{
	Config cfg;
	cfg.scheduler = "cfq";
	MakeOn(cfg, "ssd");
	TaskId a = Task(Spec("thinker")), b = Task(Spec("streamer"));
	int64_t end = m_->now() + 500 * kMs;
	Job *ja = Loop(a, 1, 4096, 1 * kGiB, end);
	ja->think = 2 * kMs;
	Job *jb = Loop(b, 16, 4096, 2 * kGiB, end, false, true);
	m_->run_until(end);
	ASSERT_TRUE(m_->drain(end + 2000 * kMs));
	// had the thinker's queue idled, the streamer would wait 2 ms (its
	// think time) at each of the thinker's requests and see ~0 IOPS
	EXPECT_GT(jb->ios, 20 * ja->ios);
}

TEST_F(Cfq, FlatCfqStillExpiresAndIdlesErrataD1)
{
	Config cfg;
	cfg.hierarchical = false;
	MakeCfq(cfg);
	TaskId a = Task(Spec("a")), b = Task(Spec("b"));
	int64_t end = m_->now() + 3000 * kMs;
	Job *ja = Loop(a, 1, 4096, 1 * kGiB, end);
	Job *jb = Loop(b, 1, 4096, 2 * kGiB, end);
	m_->run_until(end);
	ASSERT_TRUE(m_->drain(end + 2000 * kMs));
	// time-sliced: both get the disk in turns of ~100 ms (not one request
	// each, which would mean no idling, nor one forever: no expiry)
	auto v = Replay();
	unsigned int sw = Switches(v);
	EXPECT_GT(sw, 20u);
	EXPECT_LT(sw, 80u);
	double r = static_cast<double>(ja->ios) / static_cast<double>(jb->ios);
	EXPECT_NEAR(r, 1.0, 0.1);
}

// --- preemption --------------------------------------------------------------

TEST_F(Cfq, ANewSyncRequestPreemptsAnAsyncQueueInTheSameGroup)
{
	MakeCfq(Config{});
	TaskId w = Task(Spec("writer")), r = Task(Spec("reader"));
	int64_t end = m_->now() + 500 * kMs;
	Loop(w, 8, 4096, 2 * kGiB, end, true, false, false);
	std::shared_ptr<int64_t> done;
	int64_t t0 = m_->now() + 50 * kMs + kMs / 2;
	m_->at(t0, [&] { done = Submit(r, 1 * kGiB, 4096); });
	m_->run_until(end);
	ASSERT_TRUE(m_->drain(end + 5000 * kMs));
	ASSERT_TRUE(done);
	// the write in flight finishes, then the read: no 40 ms async slice
	EXPECT_LE(*done - t0, 3 * kMs);
}

TEST_F(Cfq, AnIdleClassQueueDoesNotPreemptAndIsPreempted)
{
	MakeCfq(Config{});
	TaskId i = Task(Spec("idle", "", 0, 3, 0)), a = Task(Spec("be"));
	int64_t end = m_->now() + 500 * kMs;
	Loop(i, 4, 4096, 1 * kGiB, end);
	std::shared_ptr<int64_t> done;
	int64_t t0 = m_->now() + 50 * kMs + kMs / 2;
	m_->at(t0, [&] { done = Submit(a, 2 * kGiB, 4096); });
	m_->run_until(end);
	ASSERT_TRUE(m_->drain(end + 5000 * kMs));
	ASSERT_TRUE(done);
	EXPECT_LE(*done - t0, 3 * kMs);
}

TEST_F(Cfq, AMetadataRequestPreemptsAQueueWithNoMetadataPending)
{
	MakeCfq(Config{});
	TaskId a = Task(Spec("reader")), b = Task(Spec("meta"));
	int64_t end = m_->now() + 500 * kMs;
	Loop(a, 1, 4096, 1 * kGiB, end);
	std::shared_ptr<int64_t> plain, meta;
	int64_t t0 = m_->now() + 20 * kMs + kMs / 2;
	int64_t t1 = m_->now() + 250 * kMs + kMs / 2;
	m_->at(t0, [&] { plain = Submit(b, 2 * kGiB, 4096); });
	m_->at(t1, [&] { meta = Submit(b, 3 * kGiB, 4096, false, true, true); });
	m_->run_until(end);
	ASSERT_TRUE(m_->drain(end + 5000 * kMs));
	ASSERT_TRUE(plain && meta);
	EXPECT_GE(*plain - t0, 50 * kMs); // waits for the reader's slice
	EXPECT_LE(*meta - t1, 3 * kMs);
}

TEST_F(Cfq, ARequestCloseToTheHeadPreemptsAnIdlingQueue)
{
	MakeCfq(Config{});
	TaskId a = Task(Spec("thinker")), b = Task(Spec("neighbour"));
	int64_t start = m_->now(), end = start + 500 * kMs;
	Job *ja = Loop(a, 1, 4096, 1 * kGiB, end);
	ja->think = 2 * kMs;
	// a: submit at start + 3k ms, done 1 ms later, then thinks 2 ms; a
	// sequential reader's mean seek is 0: only its next sector is close
	std::shared_ptr<int64_t> done;
	int64_t t0 = start + 60 * kMs + kMs + kMs / 2;
	m_->at(t0, [&] { done = Submit(b, ja->next, 4096); });
	m_->run_until(end);
	ASSERT_TRUE(m_->drain(end + 5000 * kMs));
	ASSERT_TRUE(done);
	EXPECT_LE(*done - t0, 2 * kMs);
}

TEST_F(Cfq, AsyncDepthRampsUpOverSliceSyncAfterSyncActivity)
{
	MakeCfq(Config{}, 32);
	TaskId r = Task(Spec("reader")), w = Task(Spec("writer"));
	int64_t start = m_->now(), end = start + 1500 * kMs;
	Loop(r, 1, 4096, 1 * kGiB, start + 300 * kMs);
	Loop(w, 32, 4096, 2 * kGiB, end, true, true, false);
	m_->run_until(end);
	ASSERT_TRUE(m_->drain(end + 5000 * kMs));
	auto v = Replay();
	int64_t last_sync = 0;
	for (auto &s : v)
		if (!s.write)
			last_sync = std::max(last_sync, s.done);
	ASSERT_GT(last_sync, 0);
	// depth = sync slices (100 ms) since the last sync completion, >= 1
	EXPECT_EQ(MaxInFlight(v, 2, last_sync + kMs, last_sync + 100 * kMs), 1u);
	EXPECT_LE(MaxInFlight(v, 2, last_sync + 210 * kMs, last_sync + 300 * kMs), 2u);
	EXPECT_GT(MaxInFlight(v, 2, last_sync + 500 * kMs, end - 50 * kMs), 4u);
	EXPECT_EQ(m_->counters().budget_reruns, 0u);
}

TEST_F(Cfq, WithoutLowLatencyAsyncDepthIsNotRamped)
{
	Config cfg;
	cfg.tunables = {{"low_latency", "0"}};
	MakeCfq(cfg, 32);
	TaskId r = Task(Spec("reader")), w = Task(Spec("writer"));
	int64_t start = m_->now(), end = start + 1000 * kMs;
	Loop(r, 1, 4096, 1 * kGiB, start + 300 * kMs);
	Loop(w, 32, 4096, 2 * kGiB, end, true, true, false);
	m_->run_until(end);
	ASSERT_TRUE(m_->drain(end + 5000 * kMs));
	auto v = Replay();
	int64_t last_sync = 0;
	for (auto &s : v)
		if (!s.write)
			last_sync = std::max(last_sync, s.done);
	EXPECT_GT(MaxInFlight(v, 2, last_sync + kMs, last_sync + 100 * kMs), 4u);
}

TEST_F(Cfq, ASyncRequestInAnotherGroupGoesToANewQueueThere)
{
	MakeCfq(Config{});
	TaskId a = Task(Spec("a")), x = Task(Spec("x", "g", 500));
	// a reads in its own group, then IO charged to g, then its own again
	for (int i = 0; i < 30; i++) {
		Io io;
		io.offset = 1 * kGiB + static_cast<uint64_t>(i) * 8192;
		io.bytes = 4096;
		io.charge_to = (i / 10 == 1) ? x : 0;
		m_->at(m_->now() + i * 2 * kMs,
		       [this, a, io] { m_->submit(a, io, [](int64_t) {}); });
	}
	ASSERT_TRUE(m_->drain(m_->now() + 5000 * kMs));
	auto g = Groups();
	EXPECT_EQ(g["/g"].disk_sectors, 10u * 8);
	EXPECT_GT(g["/g"].disk_time_ms, 0.0);
}

// --- priorities --------------------------------------------------------------

TEST_F(Cfq, Prio0Gets180MsSlicesAndPrio7_40MsDiskTime4_5To1InFlatMode)
{
	Config cfg;
	cfg.hierarchical = false;
	MakeCfq(cfg);
	TaskId a = Task(Spec("p0", "", 0, 2, 0)), b = Task(Spec("p7", "", 0, 2, 7));
	int64_t end = m_->now() + 6000 * kMs;
	Job *ja = Loop(a, 1, 4096, 1 * kGiB, end);
	Job *jb = Loop(b, 1, 4096, 2 * kGiB, end);
	m_->run_until(end);
	ASSERT_TRUE(m_->drain(end + 2000 * kMs));
	double r = static_cast<double>(ja->ios) / static_cast<double>(jb->ios);
	RecordProperty("time_ratio", std::to_string(r));
	EXPECT_NEAR(r, 4.5, 0.4);
	auto v = Replay();
	EXPECT_NEAR(LongestRun(v, 1), 180, 5);
	EXPECT_NEAR(LongestRun(v, 2), 40, 3);
}

// The ioprio's data bits above the level are an I/O hint (Linux's uapi
// ioprio.h: bits 3-12; ioprio_set(), aio and io_uring accept them).  A
// hinted level 0 is level 0: 180 ms slices, not the 40 ms of level 7 that
// the whole data field (8 and up, clamped) would give.
TEST_F(Cfq, AnIoHintDoesNotChangeTheLevel)
{
	Config cfg;
	cfg.hierarchical = false;
	MakeCfq(cfg);
	const int hinted0 = 0 | (1 << 3); // level 0 (bits 0-2), hint 1
	TaskId a = Task(Spec("p0hint", "", 0, 2, hinted0)), b = Task(Spec("p7", "", 0, 2, 7));
	int64_t end = m_->now() + 2000 * kMs;
	Loop(a, 1, 4096, 1 * kGiB, end);
	Loop(b, 1, 4096, 2 * kGiB, end);
	m_->run_until(end);
	ASSERT_TRUE(m_->drain(end + 2000 * kMs));
	auto v = Replay();
	EXPECT_NEAR(LongestRun(v, 1), 180, 5);
	EXPECT_NEAR(LongestRun(v, 2), 40, 3);
}

TEST_F(Cfq, TheRealTimeClassPreemptsBestEffort)
{
	MakeCfq(Config{});
	TaskId b = Task(Spec("be")), r = Task(Spec("rt", "", 0, 1, 4));
	int64_t end = m_->now() + 500 * kMs;
	Loop(b, 1, 4096, 1 * kGiB, end);
	std::shared_ptr<int64_t> done;
	int64_t t0 = m_->now() + 50 * kMs + kMs / 2;
	m_->at(t0, [&] { done = Submit(r, 2 * kGiB, 4096); });
	m_->run_until(end);
	ASSERT_TRUE(m_->drain(end + 5000 * kMs));
	ASSERT_TRUE(done);
	EXPECT_LE(*done - t0, 3 * kMs);
}

// --- groups --------------------------------------------------------------------

TEST_F(Cfq, HierarchicalGroupsGetDiskTimeAndBandwidthByWeight)
{
	MakeCfq(Config{}, 4, 2 * kMs);
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
	RecordProperty("disk_time_ratio", std::to_string(dt));
	RecordProperty("busy_ratio", std::to_string(busy));
	RecordProperty("bw_ratio", std::to_string(bw));
	EXPECT_NEAR(dt, 2.0, 0.15);
	EXPECT_NEAR(busy, 2.0, 0.15);
	EXPECT_GE(bw, 1.7);
	EXPECT_LE(bw, 2.4);
	EXPECT_EQ(m_->counters().budget_reruns, 0u);
}

TEST_F(Cfq, AMixedWorkloadNeedsNoBudgetReruns)
{
	MakeCfq(Config{}, 8);
	TaskId a = Task(Spec("a", "a", 800)), b = Task(Spec("b", "b", 300)), c = Task(Spec("c")),
	       d = Task(Spec("d", "", 0, 3, 0));
	int64_t end = m_->now() + 3000 * kMs;
	Loop(a, 4, 4096, 1 * kGiB, end, false, true);
	Loop(a, 8, 4096, 2 * kGiB, end, true, false, false);
	Loop(b, 2, 4096, 3 * kGiB, end);
	Job *jc = Loop(c, 1, 4096, 4 * kGiB, end);
	jc->think = 3 * kMs;
	Loop(c, 8, 4096, 5 * kGiB, end, true, false, false);
	Loop(d, 2, 4096, 6 * kGiB, end, false, true);
	m_->run_until(end);
	ASSERT_TRUE(m_->drain(end + 20'000 * kMs));
	EXPECT_EQ(m_->counters().budget_reruns, 0u);
}

} // namespace

// --- lifetime of a process's queues ----------------------------------------

namespace {

// A process exits with a read in the driver, which the driver then gives
// back (blk_mq_requeue_request(): back into cfq at the head).  cfq must not
// attach a new sync queue to the exited process's io_cq: exit_icq does not
// run again, so the queue (and its group and device) would never be freed
// (review lead 5).  The leak check at the end of every test catches that.
TEST_F(Cfq, ARequeuedRequestOfAnExitedProcessGetsNoNewQueue)
{
	Config cfg;
	cfg.requeue_every = 2;
	MakeCfq(cfg, 2, kMs);
	TaskId r = Task(Spec("reader", "g"));
	auto a = Submit(r, 0, 4096);
	auto b = Submit(r, 1 << 20, 4096);
	m_->exit_task(r);
	ASSERT_TRUE(m_->drain(m_->now() + 1'000 * kMs));
	EXPECT_GE(*a, 0);
	EXPECT_GE(*b, 0);
	EXPECT_EQ(m_->counters().driver_requeues, 1u);
}

// A process alternating data reads (its cgroup) and metadata reads (REQ_META:
// issued as root, so served in the root group) keeps one queue in each
// group instead of replacing one with the other at every switch (review
// lead 8): both reads stay idled for, each in its own group.
TEST_F(Cfq, AlternatingDataAndMetadataKeepsAQueueInEachGroup)
{
	MakeCfq(Config{}, 1, kMs);
	TaskId p = Task(Spec("tar", "g"));
	int64_t t0 = m_->now();
	uint64_t allocs_before = sim_slab_allocs();
	for (int i = 0; i < 40; i++) {
		m_->at(t0 + i * 3 * kMs, [this, p, i] {
			Submit(p, (uint64_t)i * 4096, 4096, false, true, /*meta=*/i % 2);
		});
	}
	m_->run_until(t0 + 200 * kMs);
	ASSERT_TRUE(m_->drain(m_->now() + 1'000 * kMs));
	// one sync queue per group, each allocated once: a handful of
	// allocations, not one (or more) per switch
	EXPECT_LT(sim_slab_allocs() - allocs_before, 20u);
}

// A process that reads data (in its cgroup) and metadata (REQ_META: issued
// as root, served in the root group) in turn, each read waiting for the one
// before, as `cat` of small cold files on ext4 does.  When a read completes
// its queue idles for the process's next request, which then goes to the
// process's other queue, in the other group: the idle must end there, or
// every switch costs slice_idle (8 ms here, on a device that serves a read
// in 1 ms).  Outside measure: the time the reads take against the device's
// busy time.
TEST_F(Cfq, AReaderAlternatingDataAndMetadataIsNotIdledAgainstItself)
{
	struct Reader {
		Model *m;
		TaskId t;
		int n, i = 0;
		int64_t end = -1;
		void Issue()
		{
			if (i == n) {
				end = m->now();
				return;
			}
			Io io;
			io.offset = (uint64_t)i * 4096;
			io.bytes = 4096;
			io.meta = i % 2;
			i++;
			m->submit(t, io, [this](int64_t) { Issue(); });
		}
	};
	MakeCfq(Config{}, 1, kMs);
	TaskId p = Task(Spec("cat", "g"));
	Reader r{m_.get(), p, 60};
	int64_t t0 = m_->now();
	r.Issue();
	m_->run_until(t0 + 2'000 * kMs);
	ASSERT_GE(r.end, 0) << "the reads did not finish";
	int64_t took = r.end - t0, busy = r.n * kMs;
	EXPECT_LT(took, 2 * busy) << "took " << took / kMs << " ms for " << r.n
				  << " reads of 1 ms each: idled against itself at the switches";
}

// The same process with four requests in the driver (depth 4, 1 ms each,
// served in order) when its metadata read comes, 0.1 ms later, to its
// queue in the root group; @v names the variant.  Returns when the last of
// the four completed and when the metadata read was sent.
struct MetaTiming {
	int64_t last_data, meta_sent;
};

class CfqMeta : public Cfq {
protected:
	MetaTiming MetaAfterDataInDriver(const char *fairness, bool write, const char *slice_sync,
					 int64_t per_rq = kMs, int64_t meta_after = kMs / 10)
	{
		Config cfg;
		cfg.tunables = {{"fairness", fairness}, {"slice_sync", slice_sync}};
		MakeCfq(cfg, 4, per_rq);
		TaskId p = Task(Spec("fsync", "g"));
		int64_t t0 = m_->now();
		std::vector<std::shared_ptr<int64_t>> data;
		for (int i = 0; i < 4; i++)
			data.push_back(Submit(p, (uint64_t)i * 4096, 4096, write));
		m_->run_until(t0 + meta_after);
		const uint64_t meta_at = 1ull << 30;
		Submit(p, meta_at, 4096, false, true, /*meta=*/true);
		m_->run_until(t0 + 100 * per_rq);
		EXPECT_TRUE(m_->drain(m_->now() + 1'000 * kMs));
		EXPECT_EQ(m_->check_invariants(), "");
		MetaTiming r{0, -1};
		for (auto &d : data) {
			EXPECT_GE(*d, 0);
			r.last_data = std::max(r.last_data, *d);
		}
		for (auto &x : dev_->sent)
			if (x.rq.sector == meta_at >> 9)
				r.meta_sent = x.when;
		EXPECT_GE(r.meta_sent, 0);
		return r;
	}
};

// Reads (which may idle), sync writes without REQ_IDLE (fsync writeback:
// the engine never asks cfq to idle after them, only its group may), and a
// slice that ends while the data is in the driver (wait-busy would hold).
// With fairness=1 the engine waits for a queue's requests in the driver
// before it switches, so the metadata read must not cut in before they
// complete; and then neither the data queue nor its group may wait (8 ms
// slice_idle or group_idle) for a next data request: the process's next
// request is already queued in its other group.
TEST_F(CfqMeta, AMetadataReadWaitsForTheDataInTheDriverAndNoLonger)
{
	for (bool write : {false, true})
		for (const char *slice : {"100", "2"}) {
			SCOPED_TRACE(std::string(write ? "sync writes" : "reads") +
				     ", slice_sync " + slice);
			MetaTiming t = MetaAfterDataInDriver("1", write, slice);
			EXPECT_GE(t.meta_sent, t.last_data) << "the metadata read cut in before "
							       "the data in the driver completed";
			EXPECT_LT(t.meta_sent, t.last_data + 2 * kMs)
				<< "the data queue or its group idled for a request that went to "
				   "its other queue";
		}
}

// On a device slower than the 8 ms waits (third review): the slice ends
// during the drain and wait-busy's timer fires with requests still in the
// driver (10 ms a request), or the first completion armed slice_idle before
// the metadata read came (20 ms a request, the read at 21 ms).  A wait that
// ends does not cut the fairness drain either.
TEST_F(CfqMeta, AWaitEndingDuringTheDrainDoesNotCutIt)
{
	for (bool write : {false, true}) {
		SCOPED_TRACE(write ? "sync writes, wait-busy" : "reads, wait-busy");
		MetaTiming t = MetaAfterDataInDriver("1", write, "2", 10 * kMs);
		EXPECT_GE(t.meta_sent, t.last_data);
		EXPECT_LT(t.meta_sent, t.last_data + 2 * kMs);
	}
	SCOPED_TRACE("reads, slice_idle armed before the metadata read");
	MetaTiming t = MetaAfterDataInDriver("1", false, "100", 20 * kMs, 21 * kMs);
	EXPECT_GE(t.meta_sent, t.last_data);
	EXPECT_LT(t.meta_sent, t.last_data + 2 * kMs);
}

// Without fairness nothing waits for requests in the driver: the metadata
// read is sent as soon as it comes, before the data completes.
TEST_F(CfqMeta, WithoutFairnessAMetadataReadDoesNotWaitForTheDataInTheDriver)
{
	for (bool write : {false, true}) {
		SCOPED_TRACE(write ? "sync writes" : "reads");
		MetaTiming t = MetaAfterDataInDriver("0", write, "100");
		EXPECT_LT(t.meta_sent, t.last_data);
	}
}

// Two tasks sharing an io_context (CLONE_IO) in two cgroups: to cfq the
// process changed groups, and its queue in g, in service with four reads in
// the driver, is detached.  With fairness=1 another group's reader waits for
// those four to complete before it is served, as for any switch.
TEST_F(Cfq, AGroupChangeWithRequestsInTheDriverDrainsThemBeforeTheSwitch)
{
	Config cfg;
	cfg.tunables = {{"fairness", "1"}};
	MakeCfq(cfg, 4, kMs);
	TaskId p = Task(Spec("p", "g"));
	TaskId p2 = Task(Spec("p2", "g2"));
	TaskId q = Task(Spec("q", "h"));
	m_->share_io_context(p2, p);
	int64_t t0 = m_->now();
	std::vector<std::shared_ptr<int64_t>> data;
	for (int i = 0; i < 4; i++)
		data.push_back(Submit(p, (uint64_t)i * 4096, 4096));
	m_->run_until(t0 + kMs / 10);
	auto other_group = Submit(q, 2ull << 30, 4096);
	m_->run_until(t0 + kMs / 5);
	auto moved = Submit(p2, 3ull << 30, 4096);
	m_->run_until(t0 + 100 * kMs);
	ASSERT_TRUE(m_->drain(m_->now() + 1'000 * kMs));
	EXPECT_EQ(m_->check_invariants(), "");
	int64_t last = 0;
	for (auto &d : data)
		last = std::max(last, *d);
	for (auto &x : dev_->sent) {
		if (x.rq.sector == (2ull << 30) >> 9) {
			EXPECT_GE(x.when, last)
				<< "group h was served before g's reads in the driver completed";
		}
	}
	EXPECT_GE(*other_group, 0);
	EXPECT_GE(*moved, 0);
}

} // namespace
