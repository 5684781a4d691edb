// SPDX-License-Identifier: GPL-2.0
// Disk-time accounting on NCQ hardware, and what fairness=1 changes.
//
// The facts this reproduces come from the V10 series and its 2009
// discussion, without measurements:
//  * Vivek Goyal's example of why per-request timestamps cannot measure a
//    group's disk time on a queueing disk: four requests sent at t0..t3
//    complete at t4..t7; their individual service times add up to 16t
//    although only 7t passed.  Time is only attributable when one group
//    dispatches at a time and its requests drain before the next group's.
//  * The rationale of V10's fairness=1: a queue that sends 31 requests to
//    an NCQ disk and then expires is never charged for them.  Buffered
//    writes fill the queue depth while a sequential reader runs at depth
//    1, so without draining the writes are under-charged; fairness=1 waits
//    for the previous queue's requests to complete before the next queue
//    dispatches, and charges the time really used.  It still cannot see
//    the disk's write cache.
// Asserted: (a) the four-request example is charged once, never more than
// the device was busy; (b) with fairness=1 the charges of both groups add
// up to <= 1.02x the elapsed time (no double counting), the reader's group
// gets 0.5 +/- 0.1 of the disk (equal weights; the 0.1 covers the write
// cache's destaging, which no scheduler sees), and no request of one group
// is sent while another group's are in the device; with fairness=0 the
// documented weakness shows (a signature: a change to the default must be
// noticed).
#include <deque>

#include "../sched/harness.h"
#include "scenario_util.h"

namespace {

using namespace efqscen;
using efqtest::kMs;

// A device with unlimited internal parallelism up to its depth: every
// request completes a fixed @latency after it was sent (the NCQ disk of Vivek's example).
class PipeDevice final : public efqsim::dev::Device {
public:
	explicit PipeDevice(int64_t latency) : latency_(latency) {}
	std::string name() const override { return "pipe"; }
	uint32_t queue_depth() const override { return 31; }
	bool rotational() const override { return true; }
	uint64_t capacity_sectors() const override { return 1ull << 31; }
	uint32_t in_flight() const override { return static_cast<uint32_t>(q_.size()); }
	void submit(const efqsim::dev::Request &rq, int64_t now) override
	{
		q_.push_back({rq.id, now + latency_});
		if (busy_.size() <= rq.tag)
			busy_.resize(rq.tag + 1);
		// busy = the union of the requests' time in the device
		int64_t from = std::max(now, busy_until_);
		busy_[rq.tag] += now + latency_ - from;
		total_ += now + latency_ - from;
		busy_until_ = now + latency_;
		sent.push_back(now);
	}
	int64_t next_event() const override
	{
		return q_.empty() ? efqsim::dev::kNever : q_.front().second;
	}
	void advance(int64_t now, std::vector<efqsim::dev::Completion> &out) override
	{
		while (!q_.empty() && q_.front().second <= now) {
			out.push_back({q_.front().first, q_.front().second});
			done.push_back(q_.front().second);
			q_.pop_front();
		}
	}
	const std::vector<int64_t> &busy_by_tag() const override { return busy_; }
	int64_t busy_total() const override { return total_; }

	std::vector<int64_t> sent, done;

private:
	int64_t latency_, busy_until_ = 0, total_ = 0;
	std::deque<std::pair<uint64_t, int64_t>> q_;
	std::vector<int64_t> busy_;
};

const auto *env = ::testing::AddGlobalTestEnvironment(new efqtest::SchedEnv);

class NcqAccounting : public efqtest::SchedTest {};

// (a) Vivek's example on a device that completes every request 4t after it
// was sent.  One reader sends at t0..t3; they complete at t4..t7.  The
// charge is the engine's rule (V10's: the slice starts at the first
// completion, Documentation/block/io-controller.rst, so served = t7 - t4 =
// 3t), never the 16t that summing per-request times would give, and never
// more than the 7t the device was busy.  A charge starting at the first
// dispatch would be 7t; V10 (and efq, as documented) starts it at the
// first completion, so the expected value here is 3t, +/- one 1 ms tick
// (Documentation/sim/scenarios.rst, "Disk-time accounting on NCQ").
TEST_F(NcqAccounting, FourPipelinedRequestsAreChargedOnceNotPerRequest)
{
	constexpr int64_t t = kMs;
	efqsim::blk::Config cfg;
	cfg.scheduler = "cfq";
	cfg.tunables = {{"fairness", "1"}, {"slice_idle", "0"}, {"group_idle", "0"}};
	auto d = std::make_unique<PipeDevice>(4 * t);
	PipeDevice *dev = d.get();
	m_ = std::make_unique<efqsim::blk::Model>(std::move(d), cfg);
	std::string err;
	ASSERT_TRUE(m_->init(&err)) << err;
	auto a = Task(efqtest::Spec("reader", "g1", 500));
	int64_t t0 = m_->now();
	for (int i = 0; i < 4; i++)
		m_->at(t0 + i * t, [this, a, i] { Submit(a, (1ull << 30) + i * 4096, 4096); });
	ASSERT_TRUE(m_->drain(t0 + 1000 * t));
	ASSERT_EQ(dev->sent.size(), 4u);
	for (int i = 0; i < 4; i++) {
		EXPECT_EQ(dev->sent[i] - t0, i * t) << "request " << i;
		EXPECT_EQ(dev->done[i] - t0, (4 + i) * t) << "request " << i;
	}
	double charged = Groups()["/g1"].disk_time_ms;
	double busy = Groups()["/g1"].device_busy_ms;
	printf("four pipelined requests: charged %.3f ms, device busy %.3f ms (t = 1 ms)\n",
	       charged, busy);
	EXPECT_NEAR(busy, 7.0, 1e-9);
	EXPECT_NEAR(charged, 3.0, 1.0); // +/- one 1 ms tick
	EXPECT_LE(charged, busy);
}

constexpr int kRuntime = 6;		  // simulated seconds (see scenarios.rst)
constexpr uint32_t kSync = 1, kAsync = 2; // cgroup tags, in job order

struct GroupsRun {
	double engine_share; // gsync's share of the charged disk time
	double own_share;    // gsync's share of wall-clock ownership (trace)
	double busy_share;   // gsync's share of the device's busy time
	double charged_over_elapsed;
	int overlaps; // dispatches sent while another group had requests in flight
	double reader_bw, writer_bw;
};

GroupsRun RunGroups(const std::string &fairness)
{
	Trace tr;
	// low_latency=0: 2.6.31's CFQ, which V10's fairness=1 was written for.  With low_latency=1
	// the async ramp keeps the writer at depth 1-2 after every read, and there is nothing in
	// flight to drain.
	RunResult r =
		RunWith(MakeSetup("cfq", "hdd", {{"fairness", fairness}, {"low_latency", "0"}}),
			{Instantiate("ncq_accounting.fio",
				     {{"RUNTIME", std::to_string(kRuntime)}})},
			efqsim::workload::PageCacheConfig{}, &tr);
	GroupResult s = Group(r, "/gsync"), a = Group(r, "/gasync");
	auto own = Ownership(tr, 0, r.duration_ns);
	GroupsRun t{};
	t.engine_share = Ratio(s.disk_time_ms, s.disk_time_ms + a.disk_time_ms);
	t.own_share = Ratio(own[kSync], own[kSync] + own[kAsync]);
	t.busy_share = Ratio(s.device_busy_ms, s.device_busy_ms + a.device_busy_ms);
	t.charged_over_elapsed = Ratio(s.disk_time_ms + a.disk_time_ms, r.duration_ns / 1e6);
	// The check that fairness=1 drains: when a request of one group is sent, no request
	// of another group is still in the device.
	for (size_t i = 0; i < tr.recs.size(); i++)
		for (size_t j = i; j-- > 0 && i - j < 64;)
			if (tr.recs[j].tag != tr.recs[i].tag &&
			    (tr.recs[j].done < 0 || tr.recs[j].done > tr.recs[i].sent)) {
				t.overlaps++;
				break;
			}
	t.reader_bw = Job(r, "reader").read_bw();
	t.writer_bw = Job(r, "writer").write_bw();
	printf("reader vs writer, fairness=%s: sync share engine %.3f own %.3f busy %.3f  "
	       "charged/elapsed %.3f overlaps %d  reader %.1f MB/s writer %.1f MB/s\n",
	       fairness.c_str(), t.engine_share, t.own_share, t.busy_share, t.charged_over_elapsed,
	       t.overlaps, t.reader_bw / 1e6, t.writer_bw / 1e6);
	return t;
}

// (b) fairness=1: the groups' charges add up to no more than the time
// that passed, the sync group gets half the disk (charged, and as
// wall-clock ownership), and no group's request is sent while another
// group's are in the device.
TEST(NcqAccountingGroups, FairnessOneDrainsAndSplitsTheDiskEvenly)
{
	GroupsRun t = RunGroups("1");
	EXPECT_LE(t.charged_over_elapsed, 1.02);
	EXPECT_NEAR(t.engine_share, 0.5, 0.1);
	EXPECT_NEAR(t.own_share, 0.5, 0.1);
	EXPECT_NEAR(t.busy_share, 0.5, 0.1);
	EXPECT_EQ(t.overlaps, 0);
}

// (b) fairness=0, signature of the documented weakness (derived from fairness=1's
// rationale, not measured in 2009): the writer's requests overlap the reader's turns and are
// under-charged, so the sync group's share of the device's busy time falls
// below 0.45 (measured 0.30) and the reader loses bandwidth against the
// fairness=1 run (measured 0.50x).
TEST(NcqAccountingGroups, FairnessZeroUnderChargesTheWriter)
{
	GroupsRun t = RunGroups("0");
	GroupsRun drained = RunGroups("1");
	EXPECT_GT(t.overlaps, 0);
	EXPECT_LT(t.busy_share, 0.45);
	EXPECT_LT(t.reader_bw, 0.75 * drained.reader_bw);
}

} // namespace
