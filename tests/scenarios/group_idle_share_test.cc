// SPDX-License-Identifier: GPL-2.0
// group_idle and wait-busy: how a cgroup that is not continuously
// backlogged keeps its share.
//
// The facts this reproduces come from V10's documentation and patches (no
// measurements): a group gets its weighted share only while it stays
// backlogged or the scheduler idles on it when it empties (group_idle,
// 8 ms by default).  With group_idle=0 a group loses its turn each time it
// empties, but wait-busy (one more idle period for a queue or group that
// used up its slice and is empty) still protects a sequential reader.  A
// random reader is never continuously backlogged and needs group_idle.
// Switching groups without idling is faster, so isolation is traded
// against throughput.
// Tolerances, for equal weights (one reader in g1 against four in g2):
// the 1:1 split of disk time within +/- 0.1 with group_idle=8 and +/- 0.15
// with wait-busy alone, on the ratio g1:g2 -- +/- 0.025 and +/- 0.04 on
// g1's share; the random reader's loss without group_idle (share below
// 0.35) is a threshold derived from the documented weakness, not a
// measurement.
#include "scenario_util.h"

namespace {

using namespace efqscen;

constexpr int kRuntime = 5; // simulated seconds (see scenarios.rst)

struct ShareRun {
	double share_busy; // g1 / (g1 + g2), device busy time
	double share_own;  // the same from wall-clock ownership in the trace
	double total_bw;   // all readers, bytes/s
};

ShareRun RunShare(const std::string &group_idle, const std::string &g1rw, const std::string &g1bs,
		  const std::string &low_latency = "1")
{
	Trace tr;
	RunResult r =
		RunWith(MakeSetup("cfq", "hdd",
				  {{"group_idle", group_idle}, {"low_latency", low_latency}}),
			{Instantiate("group_idle_share.fio", {{"RUNTIME", std::to_string(kRuntime)},
							      {"G1RW", g1rw},
							      {"G1BS", g1bs}})},
			efqsim::workload::PageCacheConfig{}, &tr);
	double b1 = Group(r, "/g1").device_busy_ms, b2 = Group(r, "/g2").device_busy_ms;
	auto own = Ownership(tr, 0, r.duration_ns);
	ShareRun u{};
	u.share_busy = Ratio(b1, b1 + b2);
	u.share_own = Ratio(own[1], own[1] + own[2]);
	u.total_bw = Job(r, "g1-reader").read_bw() + Job(r, "g2-readers").read_bw();
	printf("group idle share: group_idle=%s g1=%s: g1 share busy %.3f own %.3f "
	       "(engine %.3f)  total %.1f MB/s\n",
	       group_idle.c_str(), g1rw.c_str(), u.share_busy, u.share_own,
	       Ratio(Group(r, "/g1").disk_time_ms,
		     Group(r, "/g1").disk_time_ms + Group(r, "/g2").disk_time_ms),
	       u.total_bw / 1e6);
	return u;
}

// A single sequential reader keeps half the disk against four: with
// group_idle=8 by group idling, with group_idle=0 by wait-busy.  Shares
// are of the device's busy time and of the trace's wall-clock ownership.
// The tolerances of 1.0 +/- 0.1 and +/- 0.15 on the ratio are +/- 0.025
// and +/- 0.04 on the share.
TEST(GroupIdleShare, SequentialReaderKeepsItsShareWithAndWithoutGroupIdle)
{
	ShareRun idle = RunShare("8", "read", "64k");
	ShareRun busy = RunShare("0", "read", "64k");
	EXPECT_NEAR(idle.share_busy, 0.5, 0.025);
	EXPECT_NEAR(idle.share_own, 0.5, 0.025);
	EXPECT_NEAR(busy.share_busy, 0.5, 0.04);
	EXPECT_NEAR(busy.share_own, 0.5, 0.04);
	// The documented trade-off: no group idling is not slower.
	EXPECT_GE(busy.total_bw, idle.total_bw);
}

// A random reader is never continuously backlogged.  With low_latency=0
// (2.6.31 CFQ: no idling for a seeky queue on an NCQ disk, as in V10) only
// group idling keeps its group's turn: with group_idle=8 the group gets
// its share, with group_idle=0 it does not -- the documented weak
// isolation, kept as a signature (share below 0.35; measured 0.05) -- and
// the disk moves more data.  With low_latency=1 cfq idles (2 ms) for the
// seeky queue itself, which hides the weakness; recorded too.
TEST(GroupIdleShare, RandomReaderNeedsGroupIdle)
{
	ShareRun idle = RunShare("8", "randread", "4k", "0");
	ShareRun busy = RunShare("0", "randread", "4k", "0");
	EXPECT_NEAR(idle.share_busy, 0.5, 0.05);
	EXPECT_NEAR(idle.share_own, 0.5, 0.05);
	EXPECT_LT(busy.share_busy, 0.35);
	EXPECT_LT(busy.share_own, 0.35);
	EXPECT_GE(busy.total_bw, idle.total_bw);

	ShareRun ll = RunShare("0", "randread", "4k", "1");
	EXPECT_NEAR(ll.share_busy, 0.5, 0.05);
	EXPECT_NEAR(ll.share_own, 0.5, 0.05);
}

} // namespace
