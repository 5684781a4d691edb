// SPDX-License-Identifier: GPL-2.0
// Async overload limiting after sync activity, and liveness of async
// writeout.  The facts come from the low-latency CFQ work that grew out of
// the 2009 V10 discussion:
//  * Vivek Goyal's patch (merged by Jens Axboe) records when the last sync
//    request completed; for one sync slice (100 ms) after it, an async
//    queue may keep at most quantum requests in flight;
//  * Jens then ramped an async queue's depth up step by step after sync
//    activity, dropping it back to 1 whenever sync IO shows up again;
//  * and he insisted that such a delay must still let the async queue
//    dispatch at least once per turn, or a reader could starve writeout
//    completely (an easy denial of service by a local user).
// cfq with low_latency=1 on a recording device that serves one request at
// a time, 1 ms each (depth 31); every task works in its own GiB of the
// device.
#include "../sched/harness.h"
#include "scenario_util.h"

namespace {

using namespace efqtest;

constexpr uint64_t kGiB = 1ull << 30;
const auto *env = ::testing::AddGlobalTestEnvironment(new SchedEnv);

class AsyncRamp : public SchedTest {
protected:
	int64_t t0_ = 0;
	int64_t per_rq_ = kMs;	 // what the device takes per request
	int64_t per_sector_ = 0; // and per sector it moves

	void MakeCfq(std::vector<std::pair<std::string, std::string>> tunables = {})
	{
		Config cfg;
		cfg.scheduler = "cfq";
		cfg.nr_requests = 1024;
		cfg.tunables = std::move(tunables);

		Make(cfg, 31, kMs);
		t0_ = m_->now();
	}
	static int Region(const RecordingDevice::Sent &s)
	{
		return static_cast<int>(s.rq.sector * 512 / kGiB);
	}
	// Completion time of every request, in dispatch order (the device
	// serves them one after another).
	std::vector<int64_t> Done() const
	{
		std::vector<int64_t> out;
		int64_t last = 0;
		for (auto &s : dev_->sent) {
			last = std::max(s.when, last) + per_rq_ +
			       (s.rq.discard ? 0 : per_sector_ * s.rq.sectors);
			out.push_back(last);
		}
		return out;
	}
	// The most requests of @region in the device at any of its
	// dispatches in [@from, @to) (relative times).
	unsigned MaxInFlight(int region, int64_t from, int64_t to) const
	{
		auto done = Done();
		unsigned best = 0;
		for (size_t i = 0; i < dev_->sent.size(); i++) {
			int64_t when = dev_->sent[i].when - t0_;
			if (Region(dev_->sent[i]) != region || when < from || when >= to)
				continue;
			unsigned n = 0;
			for (size_t j = 0; j <= i; j++)
				n += Region(dev_->sent[j]) == region &&
				     done[j] > dev_->sent[i].when;
			best = std::max(best, n);
		}
		return best;
	}
	int Count(int region, int64_t from, int64_t to) const
	{
		int n = 0;
		for (auto &s : dev_->sent)
			n += Region(s) == region && s.when - t0_ >= from && s.when - t0_ < to;
		return n;
	}
};

// A reader reads for 50 ms and stops; a writer keeps 64 async writes
// queued.  After the last sync completion the writer's depth ramps up one
// request per sync slice (slice_sync = 100 ms): 1 until 200 ms after it,
// then 2, 3, and the full 4 x quantum = 16 of a lone queue once 4 sync
// slices passed (cfq.rst "Dispatch rules").  A new sync completion drops
// it back to 1.  Vivek's bound, at most quantum (4) in flight during
// [t, t + slice_sync), holds a fortiori.
TEST_F(AsyncRamp, AsyncDepthRampsUpAfterSyncActivityAndResets)
{
	MakeCfq();
	TaskId r = Task(Spec("R")), w = Task(Spec("W"));
	Job *rj = Loop(r, 1, 65536, 1 * kGiB, t0_ + 50 * kMs);
	Loop(w, 64, 65536, 0, t0_ + 1500 * kMs, true, true, false);
	// a second burst of sync activity at 900 ms
	m_->at(t0_ + 900 * kMs, [&] { Submit(r, 2 * kGiB, 4096); });
	m_->run_until(t0_ + 1500 * kMs);
	ASSERT_GT(rj->ios, 0u);
	// the last sync completion of the first burst
	int64_t ts = 0;
	auto done = Done();
	for (size_t i = 0; i < dev_->sent.size(); i++)
		if (Region(dev_->sent[i]) == 1)
			ts = done[i] - t0_;
	unsigned d[5];
	for (int k = 0; k < 5; k++)
		d[k] = MaxInFlight(0, ts + k * 100 * kMs, ts + (k + 1) * 100 * kMs);
	unsigned late = MaxInFlight(0, ts + 500 * kMs, 900 * kMs);
	unsigned after = MaxInFlight(0, 902 * kMs, 1000 * kMs);
	printf("async ramp: last sync done %.1f ms; writer depth per 100 ms: "
	       "%u %u %u %u %u, then %u; after the 900 ms read %u\n",
	       ts / 1e6, d[0], d[1], d[2], d[3], d[4], late, after);
	EXPECT_LE(d[0], 4u); // Vivek's bound
	EXPECT_EQ(d[0], 1u);
	EXPECT_EQ(d[1], 1u);
	EXPECT_EQ(d[2], 2u);
	EXPECT_EQ(d[3], 3u);
	EXPECT_EQ(d[4], 16u);
	EXPECT_EQ(late, 16u);
	EXPECT_EQ(after, 1u);
}

// Liveness: a sync reader that never stops (same group) does not starve
// async writeout: the writer gets at least 10% of its solo throughput
// (a threshold derived from Jens' requirement, not measured in 2009;
// measured here 13.6%).  This failed with 0
// writes in 2 s before cfq_should_preempt() stopped a sync request from
// preempting an async queue that had not sent anything yet in its
// activation: cfq chooses the next queue at the reader's completion, the
// reader's next request arrives at once and preempted the writer every
// time, each preemption charging it a full async slice.
TEST_F(AsyncRamp, AsyncWriteoutLivesUnderANonStopReader)
{
	MakeCfq();
	TaskId r = Task(Spec("R")), w = Task(Spec("W"));
	const int64_t end = t0_ + 2000 * kMs;

	Loop(r, 1, 65536, 1 * kGiB, end);
	Job *wj = Loop(w, 64, 65536, 0, end, true, true, false);
	m_->run_until(end);
	// solo: the device serves 1 request per ms
	double share = wj->ios / 2000.0;
	printf("async ramp: writer under a non-stop reader: %lu writes in 2 s (%.1f%% of solo)\n",
	       static_cast<unsigned long>(wj->ios), share * 100);
	EXPECT_GE(share, 0.10);
}

// Liveness across groups: root{R, G{W}}.  R may preempt W across groups
// (V10 allows a reader to preempt a writer in a child group), but W must still get the disk.  This
// found an engine bug: efq_should_preempt()'s cross-group "sync beats async" rule fired before W
// had sent anything -- G is chosen at R's completion and R's next request preempted W at once,
// every time (0 writes in 2 s).  The rule now waits until the async queue has sent a request in its
// activation.
TEST_F(AsyncRamp, AsyncWriteoutInAChildGroupLivesUnderANonStopReader)
{
	MakeCfq();
	TaskId r = Task(Spec("R")), w = Task(Spec("W", "g", 500));
	const int64_t end = t0_ + 2000 * kMs;
	Loop(r, 1, 65536, 1 * kGiB, end);
	Job *wj = Loop(w, 64, 65536, 0, end, true, true, false);
	m_->run_until(end);
	double share = wj->ios / 2000.0;
	printf("async ramp: child-group writer under a non-stop reader: %lu writes in 2 s (%.1f%% "
	       "of solo)\n",
	       static_cast<unsigned long>(wj->ios), share * 100);
	EXPECT_GE(share, 0.10);
}

} // namespace

// The engine's writeback depth for the single-queue schedulers' group
// queues (io-controller.rst, "Queueing devices"): db (weight 1000) reads
// 4 KiB every 20.5 ms (off the device's grid, so that a read does not come
// just as a write completes); wr (weight 100) keeps 64 async random 128 KiB
// writes queued; group_idle = 0 (the reader's think time is longer than
// the group's wait, which would only idle the device).  A read waits
// behind every write already in the device.  Only a read that waited more
// than 10 ms lowers the depth, to one write for the next sync slice
// (100 ms), then twice as many each slice.  The first 500 ms (and the
// first read) are not counted: the device starts full of writes, which the
// first delayed read takes time to drain.
class WritebackDepth : public AsyncRamp, public ::testing::WithParamInterface<const char *> {
protected:
	struct Outcome {
		int64_t max_lat;
		unsigned depth;
		int writes, reads;
		int64_t window;
	};
	// @per_rq a request and @per_sector a sector; the writer's writes
	// are @wbytes each; measured from the first read's completion or
	// @settle ms, whichever is later
	Outcome Run(int64_t per_rq, int64_t ms, int64_t per_sector = 0, uint32_t wbytes = 131072,
		    int64_t settle = 500)
	{
		Config cfg;
		cfg.scheduler = GetParam();
		cfg.nr_requests = 1024;
		cfg.tunables = {{"group_idle", "0"}};
		per_rq_ = per_rq;
		per_sector_ = per_sector;
		Make(cfg, 31, per_rq, per_sector);
		t0_ = m_->now();
		TaskId r = Task(Spec("R", "db", 1000)), w = Task(Spec("W", "wr", 100));
		const int64_t end = t0_ + ms * kMs;
		Loop(w, 64, wbytes, 0, end, true, true, false);
		Job *rj = Loop(r, 1, 4096, 8 * kGiB, end, false, true);
		rj->think = 20500 * kUs;
		while ((!rj->ios || m_->now() < t0_ + settle * kMs) && m_->now() < end)
			m_->run_until(m_->now() + kMs);
		int64_t from = m_->now() - t0_;
		rj->max_lat = 0;
		m_->run_until(end);
		Outcome o{rj->max_lat, MaxInFlight(0, from, ms * kMs), Count(0, from, ms * kMs),
			  Count(8, from, ms * kMs), ms * kMs - from};
		printf("writeback depth %s, %.1f ms a request: reads waited at most %.1f ms; "
		       "writeback depth %u; %d writes, %d reads in %.0f ms\n",
		       GetParam(), per_rq / 1e6, o.max_lat / 1e6, o.depth, o.writes, o.reads,
		       o.window / 1e6);
		return o;
	}
};

// 4 ms a request (a disk): reads come every 20.5 ms, and one that finds two
// writes ahead of it (12 ms with its own, past the 10 ms) lowers the depth
// again, so writeback has at most four in the device and a read waits at
// most 20 ms, where a device queue of writeback would cost the 124 ms the
// device's depth holds (31 writes and 124 ms without the rule).  The
// writer loses nothing on a device that serves one request at a time: its
// requests take at least 95% of the device time the reads leave.
TEST_P(WritebackDepth, AReadWaitsForAFewWritesNotADeviceQueueOfThem)
{
	Outcome o = Run(4 * kMs, 4000);
	EXPECT_LE(o.depth, 4u);
	EXPECT_LE(o.max_lat, 20 * kMs);
	EXPECT_GE(o.writes * 100, (o.window / (4 * kMs) - o.reads) * 95);
}

// 100 us a request (a fast device): 31 writes ahead of a read are 3.1 ms,
// no read waits 10 ms, and writeback keeps the device's whole depth.
TEST_P(WritebackDepth, OnAFastDeviceWritebackKeepsItsDepth)
{
	Outcome o = Run(100 * kUs, 1000);
	EXPECT_GE(o.depth, 30u);
	EXPECT_LE(o.max_lat, 10 * kMs);
}

// A disk of 40 MB/s (12.8 us a sector, 200 us a request) whose writeback
// comes in requests of 1 MiB (26 ms each; virtio-blk's are up to 1.25
// MiB): the depth is counted in data, 128 KiB units, not in requests, so
// that once the writes sent before the first delayed read have drained
// (30 of them, 0.8 s, and what the ramp sent meanwhile: measured from 3 s
// on), a read waits behind one such write and what the scheduler adds, not
// behind the ramp's 2 to 16 requests (deadline-fq and noop with a depth
// in requests: 4 reads done in 3 s, one waiting 772 ms).  The writer still
// has the device whenever the reads leave it.
TEST_P(WritebackDepth, TheDepthIsDataNotRequests)
{
	const int64_t per_rq = 200 * kUs, per_sector = 12800;
	Outcome o = Run(per_rq, 6000, per_sector, 1 << 20, 3000);
	const int64_t write = per_rq + per_sector * 2048, read = per_rq + per_sector * 8;
	EXPECT_LE(o.max_lat, 2 * write);
	EXPECT_LE(o.depth, 3u);
	EXPECT_GE(o.reads * (20500 * kUs + 2 * write), o.window);
	EXPECT_GE(o.writes * write * 100, (o.window - o.reads * read) * 90);
}

// The ramp climbs back once the reads stop, with writeback of mixed
// sizes too: a few reads in the first 150 ms (behind a device full of
// writes: delayed), then a group writing 1 MiB sequentially and 4 KiB at
// random on a 400 MB/s device.  Writeback may have sent one large write
// past the bound; what is left of it in the device after a small one
// completes must not hold the ramp at its first step (a review's
// counterexample to a rule that restarted it then: one 1 MiB write at a
// time for the whole 4 s).  From 2 s on it has the device's whole depth.
TEST_P(WritebackDepth, MixedSizesRampUpAfterTheReadsStop)
{
	Config cfg;
	cfg.scheduler = GetParam();
	cfg.nr_requests = 1024;
	cfg.tunables = {{"group_idle", "0"}};
	per_rq_ = 200 * kUs;
	per_sector_ = 1280;
	Make(cfg, 31, per_rq_, per_sector_);
	t0_ = m_->now();
	TaskId r = Task(Spec("R", "db", 1000));
	TaskId big = Task(Spec("W1", "wr", 100)), small = Task(Spec("W2", "wr", 100));
	const int64_t end = t0_ + 4000 * kMs;
	Loop(big, 32, 1 << 20, 0, end, true, false, false);
	Loop(small, 32, 4096, 0, end, true, true, false);
	Job *rj = Loop(r, 1, 4096, 8 * kGiB, t0_ + 150 * kMs, false, true);
	m_->run_until(end);
	ASSERT_GT(rj->ios, 0u);
	unsigned depth = MaxInFlight(0, 2000 * kMs, 4000 * kMs);
	printf("writeback depth %s, mixed sizes: %u requests in the device from 2 s\n", GetParam(),
	       depth);
	EXPECT_GE(depth, 30u);
}

// Discards carry no data ahead of a read: 600 of almost 4 GiB each in
// flight (2^32 sectors and more) are counted as none, so no count of the
// data in flight wraps (the engine warns on an underflow) and all end.
TEST_P(WritebackDepth, HugeDiscardsCountNoData)
{
	Config cfg;
	cfg.scheduler = GetParam();
	cfg.nr_requests = 1024;
	Make(cfg, 1024, 100 * kUs);
	TaskId t = Task(Spec("D"));
	auto done = std::make_shared<int>(0);
	for (int i = 0; i < 600; i++) {
		Io io;
		io.offset = static_cast<uint64_t>(i % 200) * 0xFFFFF000ull;
		io.bytes = 0xFFFFF000u;
		io.discard = true;
		io.sync = false;
		m_->submit(t, io, [done](int64_t) { ++*done; });
	}
	m_->run_until(m_->now() + 2000 * kMs);
	EXPECT_EQ(*done, 600);
	EXPECT_EQ(sim_warn_count(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Schedulers, WritebackDepth,
			 ::testing::Values("deadline-fq", "as", "noop"));
