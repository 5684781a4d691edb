// SPDX-License-Identifier: GPL-2.0
// Discards, as 6.1's block core merges them around a scheduler
// (sim/shim/blk-mq.cc): on a queue with max_discard_segments 1 a discard
// merges as a write does, with contiguous bios only, and two discard
// requests never merge (each counts one segment); with more segments a bio
// or a request joins a discard as one more range wherever it lies, and a
// request merged that way is freed without the scheduler's requests_merged.
// The shim reports a request freed while the scheduler still has it (on the
// hash, a list or a sort tree), the block model one dispatched after that
// and a range list that does not match the request's segments; the checks
// below are the outside measure: every IO completes and every discarded
// sector reaches the device exactly once.
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "harness.h"

namespace {

using namespace efqtest;

const auto *env = ::testing::AddGlobalTestEnvironment(new SchedEnv);

// (scheduler, hierarchical, max_discard_segments)
using DiscardParam = std::tuple<const char *, bool, unsigned short>;

class Discards : public SchedTest, public ::testing::WithParamInterface<DiscardParam> {
protected:
	void SetUp() override
	{
		SchedTest::SetUp();
		Config cfg = ModeConfig(std::get<0>(GetParam()), std::get<1>(GetParam()));
		cfg.max_discard_segments = Segments();
		// tags enough for every request of a test to wait in the
		// scheduler (2 x the device's depth would make tasks sleep)
		cfg.nr_requests = 64;
		MakeNullBlkLike(cfg);
	}
	unsigned short Segments() const { return std::get<2>(GetParam()); }
	bool Deadline() const { return std::string(std::get<0>(GetParam())) == "deadline-fq"; }

	// What the tasks asked for.
	struct Ledger {
		std::map<uint64_t, int> discarded; // sector: times submitted
		uint64_t discard_bios = 0;
		uint64_t written = 0; // bytes
		std::vector<std::shared_ptr<int64_t>> done;
	};
	std::shared_ptr<int64_t> DiscardInto(Ledger *l, TaskId t, uint64_t offset, uint32_t bytes)
	{
		for (uint64_t s = offset >> 9; s < (offset + bytes) >> 9; s++)
			l->discarded[s]++;
		l->discard_bios++;
		l->done.push_back(Discard(t, offset, bytes));
		return l->done.back();
	}

	// Every sector the device was told to discard: times told.
	std::map<uint64_t, int> Discarded() const
	{
		std::map<uint64_t, int> out;
		for (const auto &x : dev_->sent)
			for (const dev::Range &r : x.rq.ranges)
				for (uint64_t s = r.sector; s < r.sector + r.sectors; s++)
					out[s]++;
		return out;
	}

	// The discard requests the device was sent, and their shapes.
	struct Shape {
		uint64_t requests = 0;
		size_t widest = 0;	// most ranges in one request
		uint64_t scattered = 0; // requests with ranges apart from each other
		uint32_t longest = 0;	// sectors of the longest range
	};
	Shape Shapes() const
	{
		Shape s;
		for (const auto &x : dev_->sent) {
			if (!x.rq.discard)
				continue;
			const auto &r = x.rq.ranges;
			s.requests++;
			s.widest = std::max(s.widest, r.size());
			for (size_t i = 0; i < r.size(); i++) {
				s.longest = std::max(s.longest, r[i].sectors);
				if (i && r[i - 1].sector + r[i - 1].sectors != r[i].sector) {
					s.scattered++;
					break;
				}
			}
		}
		return s;
	}

	// Three tasks in two cgroups, 16 rounds 1 ms apart, each task in a GiB
	// of its own, each round: four 4 KiB writes in a row, four 4 KiB
	// discards in a row, three 8 KiB discards 256 KiB apart; under a plug
	// per task and round, or not.  The device (2 deep, 200 us a request)
	// is slower than the tasks: requests queue up in the scheduler.
	void MixedRounds(bool plugged, Ledger *l)
	{
		std::vector<TaskId> ts = {Task(Spec("w0", "ga")), Task(Spec("w1", "ga")),
					  Task(Spec("w2", "gb"))};
		for (uint64_t round = 0; round < 16; round++) {
			for (size_t i = 0; i < ts.size(); i++) {
				uint64_t base = uint64_t(i) << 30;
				if (plugged)
					m_->plug(ts[i]);
				for (uint64_t k = 0; k < 4; k++) {
					l->done.push_back(Submit(ts[i],
								 base + round * 65536 + k * 4096,
								 4096, true, /*sync=*/i == 0));
					l->written += 4096;
				}
				for (uint64_t k = 0; k < 4; k++)
					DiscardInto(l, ts[i],
						    base + (256ull << 20) + round * 65536 +
							    k * 4096,
						    4096);
				for (uint64_t k = 0; k < 3; k++)
					DiscardInto(l, ts[i],
						    base + (512ull << 20) + round * (1ull << 20) +
							    k * (256 << 10),
						    8192);
				if (plugged)
					m_->unplug(ts[i]);
			}
			m_->run_until(m_->now() + kMs);
		}
		ASSERT_TRUE(m_->drain(m_->now() + 60'000 * kMs)) << State();
	}

	void CheckMixed(bool plugged, const Ledger &l)
	{
		for (const auto &d : l.done)
			EXPECT_GE(*d, 0) << "every write and discard completes";
		EXPECT_EQ(SentSectors() * 512, l.written)
			<< "every byte written reaches the device once";
		EXPECT_EQ(Discarded(), l.discarded)
			<< "every discarded sector reaches the device once";
		EXPECT_GT(m_->counters().bio_merges + m_->counters().plug_merges, 0u)
			<< "the writes must merge to test anything";
		Shape s = Shapes();
		EXPECT_LE(s.widest, Segments())
			<< "a discard with more ranges than the queue takes";
		if (Segments() == 1) {
			// bios in a row merge, as writes do, into one range, in the
			// plug and in the scheduler (efq hashes such discards)
			EXPECT_EQ(s.widest, 1u);
			EXPECT_LT(s.requests, l.discard_bios) << "the discards must merge";
			EXPECT_GT(s.longest, 8u) << "a merged discard is one longer range";
		} else if (plugged) {
			// in the plug any discard bio joins the last one, as a range:
			// the four in a row fill a request (the fifth bio finds it
			// full), the three apart make one of three ranges
			EXPECT_LT(s.requests, l.discard_bios) << "the discards must merge";
			EXPECT_EQ(s.widest, Segments());
			EXPECT_GT(s.scattered, 0u) << "ranges apart from each other in one request";
		} else {
			// efq keeps multi-range discards off the elevator hash (and so
			// out of q->last_merge): unplugged, none of these merges (no
			// bio ends where a queued discard starts)
			EXPECT_EQ(s.requests, l.discard_bios);
		}
	}
};

std::string DiscardName(const ::testing::TestParamInfo<DiscardParam> &info)
{
	return SchedName(std::get<0>(info.param)) + (std::get<1>(info.param) ? "_hier" : "_flat") +
	       "_seg" + std::to_string(std::get<2>(info.param));
}

auto AllDiscardModes()
{
	return ::testing::Combine(::testing::Values("noop", "deadline-fq", "as", "cfq"),
				  ::testing::Bool(), ::testing::Values<unsigned short>(1, 4));
}

// Discards and writes of several tasks, each bio submitted on its own: they
// merge (or not) in the scheduler's bio_merge and at insert.
TEST_P(Discards, UnpluggedWithWritesReachTheDeviceOnce)
{
	Ledger l;
	MixedRounds(false, &l);
	CheckMixed(false, l);
}

// The same under plugs: a task's bios first merge with its last plugged
// request (6.1's blk_attempt_plug_merge()), then go in together at unplug.
TEST_P(Discards, PluggedWithWritesReachTheDeviceOnce)
{
	Ledger l;
	MixedRounds(true, &l);
	CheckMixed(true, l);
	EXPECT_GT(m_->counters().plug_merges, 0u);
}

// elv_attempt_insert_merge() goes on while merges succeed: a request
// inserted at the end of a hashed one is merged into it, and that one into
// the hashed request that ends where it starts.  On a multi-range queue
// 6.1's attempt_merge() merges discards without requests_merged, so the
// second merge would free a discard the scheduler still queues (and leave it
// on the hash).  efq_rq_hash_add() keeps such discards off the hash: this
// test fails (a request freed while on the elevator hash and on the
// scheduler's list, then dispatched) without that.  [8,16) is queued before
// [0,8), so that [0,8) does not find it at its own insert; the three are of
// three cgroups, so that no bio merges into another's request; the write
// queued first is deadline-fq's q->last_merge (it makes the first request
// it hashes the one-hit cache, which tries its merge before the hash).
TEST_P(Discards, TheInsertMergeChainFreesNoQueuedDiscard)
{
	TaskId a = Task(Spec("a", "ga"));
	TaskId b = Task(Spec("b", "gb"));
	TaskId c = Task(Spec("c", "gc"));
	Ledger l;
	// fill the device so that the next requests stay in the scheduler
	l.done.push_back(Submit(a, 1ull << 30, 4096, true));
	l.done.push_back(Submit(a, (1ull << 30) + (1 << 20), 4096, true));
	l.done.push_back(Submit(a, (1ull << 30) + (2 << 20), 4096, true));
	l.written = 3 * 4096;
	DiscardInto(&l, b, 8 * 512, 4096);
	DiscardInto(&l, a, 0, 4096);
	m_->plug(c);
	DiscardInto(&l, c, 16 * 512, 4096);
	m_->unplug(c);
	ASSERT_TRUE(m_->drain(m_->now() + 10'000 * kMs)) << State();
	for (const auto &d : l.done)
		EXPECT_GE(*d, 0) << "every write and discard completes";
	EXPECT_EQ(SentSectors() * 512, l.written);
	EXPECT_EQ(Discarded(), l.discarded) << "every discarded sector reaches the device once";
	// single-range discard requests never merge (one segment each), and
	// efq does not let the chain find multi-range ones
	EXPECT_EQ(Shapes().requests, 3u);
}

// A discard bio that ends where a queued discard of its own queue starts:
// the scheduler's front-merge lookup (deadline-fq has one) finds it.  On a
// single-range queue it merges in front, as a write would; on a multi-range
// queue 6.1 must take it as one more range (mq-deadline's
// dd_request_merge() answers ELEVATOR_DISCARD_MERGE for such a request).
// A front merge there adds a bio without a segment (6.1's NVMe and
// virtio-blk drivers fail the request: the model reports the mismatch), and
// attempt_front_merge() then merges the request into the discard before it
// without requests_merged (a request freed the scheduler still queues).
TEST_P(Discards, ADiscardEndingWhereAQueuedOneStartsJoinsItAsARange)
{
	TaskId t = Task(Spec("p", "g"));
	Ledger l;
	l.done.push_back(Submit(t, 1ull << 30, 4096, true));
	l.done.push_back(Submit(t, (1ull << 30) + (1 << 20), 4096, true));
	l.written = 2 * 4096;
	DiscardInto(&l, t, 0, 4096);	    // [0,8)
	DiscardInto(&l, t, 16 * 512, 4096); // [16,24)
	uint64_t before = m_->counters().bio_merges;
	DiscardInto(&l, t, 8 * 512, 4096); // [8,16): ends where [16,24) starts
	bool merged = m_->counters().bio_merges > before;
	ASSERT_TRUE(m_->drain(m_->now() + 10'000 * kMs)) << State();
	for (const auto &d : l.done)
		EXPECT_GE(*d, 0) << "every write and discard completes";
	EXPECT_EQ(SentSectors() * 512, l.written);
	EXPECT_EQ(Discarded(), l.discarded) << "every discarded sector reaches the device once";
	EXPECT_LE(Shapes().widest, Segments());
	if (Segments() == 1) {
		// the hash finds [0,8) for a back merge; [16,24) stays apart
		// (two discard requests never merge on this queue)
		EXPECT_TRUE(merged) << "the bio must merge to test anything";
		EXPECT_EQ(Shapes().requests, 2u);
	} else if (Deadline()) {
		EXPECT_TRUE(merged) << "deadline-fq's front-merge lookup must find [16,24)";
	}
}

INSTANTIATE_TEST_SUITE_P(AllSchedulers, Discards, AllDiscardModes(), DiscardName);

} // namespace
