// SPDX-License-Identifier: GPL-2.0
// T11: disk-time accounting on NCQ hardware with fairness=1.  Sources:
// seed 000 §2.G G10 (four requests dispatched t0..t3 complete t4..t7:
// per-request timestamps sum to 16t, only 7t elapsed) and G5 (fairness=1
// drains a queue before switching, so a writer's 31 in-flight requests
// are charged to it; without it, writes are under-charged); seed-tests §5
// T11 (a) and (b).
#include <deque>

#include "../sched/harness.h"
#include "scenario_util.h"

namespace {

using namespace efqscen;
using efqtest::kMs;

// A device with unlimited internal parallelism up to its depth: every
// request completes a fixed @latency after it was sent (G10's NCQ disk).
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

class T11NcqAccounting : public efqtest::SchedTest {};

// (a) G10's example on a device that completes every request 4t after it
// was sent.  One reader sends at t0..t3; they complete at t4..t7.  The
// charge is the engine's rule (spec-core §7.3/§7.5: the slice starts at
// the first completion, so served = t7 - t4 = 3t), never the 16t that
// summing per-request times would give, and never more than the 7t the
// device was busy.  The row's "7t +/- 1 tick" assumes the charge starts at
// the first dispatch; V10 (and efq, as documented) starts it at the first
// completion, so the expected value here is 3t (see the report and
// Documentation/sim/scenarios.rst, T11).
TEST_F(T11NcqAccounting, FourPipelinedRequestsAreChargedOnceNotPerRequest)
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
	printf("T11a charged %.3f ms, device busy %.3f ms (t = 1 ms)\n", charged, busy);
	EXPECT_NEAR(busy, 7.0, 1e-9);
	EXPECT_NEAR(charged, 3.0, 1.0); // +/- one 1 ms tick
	EXPECT_LE(charged, busy);
}

constexpr int kRuntime = 6;		  // simulated seconds (scenarios.rst, T11)
constexpr uint32_t kSync = 1, kAsync = 2; // cgroup tags, in job order

struct T11Run {
	double engine_share; // gsync's share of the charged disk time
	double own_share;    // gsync's share of wall-clock ownership (trace)
	double busy_share;   // gsync's share of the device's busy time
	double charged_over_elapsed;
	int overlaps; // dispatches sent while another group had requests in flight
	double reader_bw, writer_bw;
};

T11Run RunT11(const std::string &fairness)
{
	Trace tr;
	// low_latency=0: 2.6.31's CFQ, as in G5.  With low_latency=1 the
	// async ramp keeps the writer at depth 1-2 after every read, and
	// there is nothing in flight to drain.
	RunResult r =
		RunWith(MakeSetup("cfq", "hdd", {{"fairness", fairness}, {"low_latency", "0"}}),
			{Instantiate("t11_ncq_accounting.fio",
				     {{"RUNTIME", std::to_string(kRuntime)}})},
			efqsim::workload::PageCacheConfig{}, &tr);
	GroupResult s = Group(r, "/gsync"), a = Group(r, "/gasync");
	auto own = Ownership(tr, 0, r.duration_ns);
	T11Run t{};
	t.engine_share = Ratio(s.disk_time_ms, s.disk_time_ms + a.disk_time_ms);
	t.own_share = Ratio(own[kSync], own[kSync] + own[kAsync]);
	t.busy_share = Ratio(s.device_busy_ms, s.device_busy_ms + a.device_busy_ms);
	t.charged_over_elapsed = Ratio(s.disk_time_ms + a.disk_time_ms, r.duration_ns / 1e6);
	// G5's trace check: when a request of one group is sent, no request
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
	printf("T11b fairness=%s: sync share engine %.3f own %.3f busy %.3f  charged/elapsed %.3f "
	       "overlaps %d  reader %.1f MB/s writer %.1f MB/s\n",
	       fairness.c_str(), t.engine_share, t.own_share, t.busy_share, t.charged_over_elapsed,
	       t.overlaps, t.reader_bw / 1e6, t.writer_bw / 1e6);
	return t;
}

// (b) fairness=1: the groups' charges add up to no more than the time
// that passed, the sync group gets half the disk (charged, and as
// wall-clock ownership), and no group's request is sent while another
// group's are in the device.
TEST(T11NcqAccountingB, FairnessOneDrainsAndSplitsTheDiskEvenly)
{
	T11Run t = RunT11("1");
	EXPECT_LE(t.charged_over_elapsed, 1.02);
	EXPECT_NEAR(t.engine_share, 0.5, 0.1);
	EXPECT_NEAR(t.own_share, 0.5, 0.1);
	EXPECT_NEAR(t.busy_share, 0.5, 0.1);
	EXPECT_EQ(t.overlaps, 0);
}

// (b) fairness=0, signature of the documented weakness (derived from G5's
// rationale): the writer's requests overlap the reader's turns and are
// under-charged, so the sync group's share of the device's busy time falls
// below 0.45 (measured 0.29) and the reader loses bandwidth against the
// fairness=1 run (measured 0.50x).
TEST(T11NcqAccountingB, FairnessZeroUnderChargesTheWriter)
{
	T11Run t = RunT11("0");
	T11Run drained = RunT11("1");
	EXPECT_GT(t.overlaps, 0);
	EXPECT_LT(t.busy_share, 0.45);
	EXPECT_LT(t.reader_bw, 0.75 * drained.reader_bw);
}

} // namespace
