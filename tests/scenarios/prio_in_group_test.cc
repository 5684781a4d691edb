// SPDX-License-Identifier: GPL-2.0
// Priority is preserved inside a cgroup that competes with another one.
//
// The measurements this reproduces (both from the 2009 V10 discussion,
// where the series was compared with dm-ioband, a controller working above
// the IO scheduler):
//  * Vivek Goyal ran one prio0 and N = 1..16 prio4 direct readers in one
//    group against a buffered dd writer in another, weights 100/100.  With
//    vanilla CFQ the prio0 reader got 1.14-3.6x the bandwidth of the best
//    prio4 reader and the prio4 aggregate grew with N (12892 -> 24035 KiB/s);
//    under dm-ioband priorities were lost (at N=16 each prio4 reader got
//    28 KiB/s while the prio0 reader got about 5 MB/s).
//  * Ryo Tsuruta ran 16 BE7 sequential readers in one group against 16
//    BE7 readers plus one BE0 reader in another, weights 20:10: the groups
//    got 27513 and 13772 KiB/s (2.00:1), and inside the second group the
//    BE0 reader got 10248 KiB/s against 3524 for all 16 BE7 readers
//    together.  20:10 is outside the weight range 100..1000, so the test
//    uses 200:100.
// The expected CFQ behaviour: a prio0 queue gets a 180 ms slice and a
// prio4 queue 100 ms (slice = 100 ms x weight / 500, prio p weighing
// 500 + 100 x (4 - p)), so per process prio0 gets 1.8x a prio4 reader's
// disk time; the groups' weights split the disk between the groups.
#include "scenario_util.h"

namespace {

using namespace efqscen;

// Simulated seconds of the mixed-priority run; the N sweep runs 4 + N s.
// With the runs doubled the ratios moved by at most 0.1 (per-process 2.03
// -> 1.94 at N = 4), inside the tolerances (Documentation/sim/
// scenarios.rst, "Priority preserved inside a group").
constexpr int kRuntime = 6;
// Tags of the cgroups (job order): g1 the readers, g2 the writer.
constexpr uint32_t kG1 = 1, kG2 = 2;

struct PrioRun {
	double prio0_bw, prio4_mean_bw, prio4_min_bw, prio4_agg_bw;
	double turn_ratio;   // prio0 : mean prio4 bytes per complete turn (trace)
	int prio0_turns;     // complete turns of the prio0 reader
	int prio4_turns;     // complete turns of the prio4 reader with the fewest
	double own_ratio;    // g1:g2 wall-clock ownership of the disk (trace)
	double busy_ratio;   // g1:g2 device busy time (device model)
	double engine_ratio; // g1:g2 disk time charged by the engine
};

// Bytes each reader moved per turn, from the device trace: a turn is a
// maximal run of consecutive dispatches into the reader's file (clone i's
// 1 GiB file is extent i: prio0 is extent 0, the prio4 readers 1..@n).  A
// reader's last turn is left out: the end of the run may cut it short.
std::vector<std::vector<uint64_t>> TurnBytes(const Trace &tr, int n)
{
	constexpr uint64_t kFile = 1ull << 30;
	std::vector<std::vector<uint64_t>> turns(n + 1);
	uint64_t last = UINT64_MAX;
	for (const Trace::Rec &rec : tr.recs) {
		uint64_t e = rec.sector * 512 / kFile;
		if (rec.write || e > uint64_t(n)) {
			last = UINT64_MAX;
			continue;
		}
		if (e != last)
			turns[e].push_back(0);
		turns[e].back() += uint64_t(rec.sectors) * 512;
		last = e;
	}
	for (auto &t : turns)
		if (!t.empty())
			t.pop_back();
	return turns;
}

double Mean(const std::vector<uint64_t> &v)
{
	double sum = 0;
	for (uint64_t x : v)
		sum += static_cast<double>(x);
	return v.empty() ? 0 : sum / static_cast<double>(v.size());
}

PrioRun RunPrio(int n)
{
	Trace tr;
	// Groups are read when the jobs end, before the page cache writes out
	// what is left (which would all be g2's).
	RunResult r =
		RunWith(MakeSetup("cfq", "hdd", {{"fairness", "1"}}),
			{Instantiate("prio_in_group.fio", {{"N", std::to_string(n)},
							   {"RUNTIME", std::to_string(4 + n)}})},
			efqsim::workload::PageCacheConfig{}, &tr);
	JobSum p0 = Job(r, "prio0"), p4 = Job(r, "prio4");
	PrioRun t{};
	t.prio0_bw = p0.read_bw();
	t.prio4_agg_bw = p4.read_bw();
	t.prio4_mean_bw = p4.read_bw() / n;
	uint64_t mn = UINT64_MAX;
	for (uint64_t b : p4.clone_read_bytes)
		mn = std::min(mn, b);
	t.prio4_min_bw = p4.runtime_ns ? static_cast<double>(mn) * 1e9 / p4.runtime_ns : 0;
	auto own = Ownership(tr, 0, r.duration_ns);
	t.own_ratio = Ratio(own[kG1], own[kG2]);
	t.busy_ratio = Ratio(Group(r, "/g1").device_busy_ms, Group(r, "/g2").device_busy_ms);
	t.engine_ratio = Ratio(Group(r, "/g1").disk_time_ms, Group(r, "/g2").disk_time_ms);
	auto turns = TurnBytes(tr, n);
	double prio4_per_turn = 0;
	t.prio4_turns = INT32_MAX;
	for (int i = 1; i <= n; i++) {
		prio4_per_turn += Mean(turns[i]) / n;
		t.prio4_turns = std::min(t.prio4_turns, static_cast<int>(turns[i].size()));
	}
	t.prio0_turns = static_cast<int>(turns[0].size());
	t.turn_ratio = Ratio(Mean(turns[0]), prio4_per_turn);
	return t;
}

// Per process, prio0 (slice 180 ms) gets 1.8x the disk time of a prio4
// reader (100 ms); the readers are identical, so the bytes they move show
// it (an outside measure): per turn, from the device trace, and over the
// run, as fio's bandwidth.  The prio4 aggregate grows with N and no prio4
// reader starves.  With fairness=1 the groups split the disk 1:1: by the
// engine's charge and by wall-clock ownership in the device trace.  The
// device model's busy time is only bounded: it leaves out the idling
// charged to the readers and counts the write cache's destaging of g2's
// writes during g1's turns (fairness=1 drains the queue, not the disk's
// write cache, as the series itself says).
//
// Tolerances: bytes per complete turn 1.8 +/- 0.15 (the slices' ratio;
// measured 1.83, 1.86, 1.79 for N = 1, 4, 16; 1.79 at every N with a single
// read segment).  Bandwidth over the whole run 1.55 to 2.35 (measured 2.03,
// 2.17, 1.86): the run holds only 5 (N = 16) to 9 (N = 1) rounds of turns,
// prio0 takes the first turn of every round, so where the run ends decides
// whether prio0 has one complete turn more than the prio4 readers (N = 4:
// 7 against 6) or a cut one; that moves the ratio by up to a factor
// (k + 1) / k for k complete rounds, 6/5 at N = 16, whatever the device
// does.  Before the hdd model's segmented read cache, each turn's first read
// was a miss and the turns ended elsewhere (the same runs gave 1.80, 2.03,
// 1.86); with it, a reader's first read of a turn hits the read-ahead its
// segment kept from its previous turn, the slice (which starts at the first
// completion) begins at once and the turns shift.  The upper bound is the
// per-turn bound times 6/5: (1.8 + 0.15) x 1.2 = 2.34; the lower one stays
// 1.8 - 0.25 (prio0 never has fewer turns than a prio4 reader).
// The prio4 aggregate never falls as N grows and no prio4 reader gets
// below 0.3x the prio4 mean (dm-ioband's failure was 28 KiB/s against
// several MB/s); g1 : g2 = 1.0 +/- 0.15 (equal weights).
TEST(PrioInGroup, Prio0GetsItsLongerSliceAndGroupsStayEven)
{
	double last_agg = 0;
	for (int n : {1, 4, 16}) {
		SCOPED_TRACE("N=" + std::to_string(n));
		PrioRun t = RunPrio(n);
		double per_proc = Ratio(t.prio0_bw, t.prio4_mean_bw);
		printf("prio in group N=%d prio0/prio4 %.3f (per turn %.3f, turns %d/%d)  "
		       "prio4 agg %.0f KiB/s  min/mean %.2f  g1:g2 own %.3f busy %.3f engine "
		       "%.3f\n",
		       n, per_proc, t.turn_ratio, t.prio0_turns, t.prio4_turns,
		       t.prio4_agg_bw / 1024, Ratio(t.prio4_min_bw, t.prio4_mean_bw), t.own_ratio,
		       t.busy_ratio, t.engine_ratio);
		EXPECT_NEAR(t.turn_ratio, 1.8, 0.15);
		EXPECT_GE(per_proc, 1.55);
		EXPECT_LE(per_proc, 2.35);
		EXPECT_GE(t.prio4_agg_bw, last_agg);
		last_agg = t.prio4_agg_bw;
		EXPECT_GE(t.prio4_min_bw, 0.3 * t.prio4_mean_bw);
		EXPECT_NEAR(t.engine_ratio, 1.0, 0.15);
		EXPECT_NEAR(t.own_ratio, 1.0, 0.15);
		EXPECT_GE(t.busy_ratio, 0.7);
		EXPECT_LE(t.busy_ratio, 1.15);
	}
}

// Ryo's mix: g1 (weight 200) with 16 BE7 readers against g2 (weight 100)
// with 16 BE7 readers and one BE0 reader: bandwidth 2:1 between the groups
// (measured 2.00; asserted +/- 0.2, +/- 0.3 on the device's busy time,
// which also counts the seek to each reader's file), and in g2 the BE0 reader (180 ms slices) gets
// far more than a BE7 reader (40 ms slices, and 16 of them share the group's turns).
TEST(PrioInGroup, WeightsSplitGroupsAndBe0LeadsInsideItsGroup)
{
	RunResult r = RunJobs(MakeSetup("cfq", "hdd"),
			      {Instantiate("weighted_groups_mixed_prio.fio",
					   {{"RUNTIME", std::to_string(kRuntime)}})});
	JobSum r1 = Job(r, "read1"), r2 = Job(r, "read2"), r3 = Job(r, "read3");
	double groups = Ratio(r1.read_bw(), r2.read_bw() + r3.read_bw());
	double be0 = Ratio(r3.read_bw(), r2.read_bw() / r2.clones);
	double busy = Ratio(Group(r, "/g1").device_busy_ms, Group(r, "/g2").device_busy_ms);
	printf("mixed prio g1/g2 bw %.3f busy %.3f engine %.3f  BE0/BE7 in g2 %.2f\n", groups, busy,
	       Ratio(Group(r, "/g1").disk_time_ms, Group(r, "/g2").disk_time_ms), be0);
	EXPECT_NEAR(groups, 2.0, 0.2);
	EXPECT_NEAR(busy, 2.0, 0.3);
	EXPECT_GE(be0, 2.0);
}

} // namespace
