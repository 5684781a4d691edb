// SPDX-License-Identifier: GPL-2.0
// A random reader is isolated from N sequential readers in another cgroup:
// its bandwidth and latency do not depend on N.
//
// The measurements this reproduces: the 2009 V10 cover letter's Test 2 (a
// 7200 rpm SATA disk, group_idle=1, equal weights; Documentation/sim/
// cover-letter.rst, "Test 2", has the table): under the IO controller one
// random 4 KiB reader kept 318-330 KiB/s (min/max 0.96) with a max latency
// of 154-233 ms against 1..16 sequential readers, while without groups its
// max latency grew from 247 ms to 1868 ms (7.6x).  The same test on a
// 5-disk striped array (the series' October 2009 comparison, 1..32
// sequential readers) gave the reader 214-225 KB/s at 126-504 ms under the
// controller and 6-23 KB/s without it.
//
// Asserted:
//   the reader's bw(N)/bw(1) >= 0.85 for all N (the disk measured 0.96;
//   0.85 leaves room for the simulated disk's different seek costs);
//   its max latency(N) <= 1.6x max latency(1) (the disk: 1.5x) and <= 250 ms
//   (about two of the other group's 100 ms slices plus a seek; the disk's
//   worst was 233 ms);
//   the two groups' disk time 1:1 +/- 0.15 (equal weights), as charged and,
//   as an outside measure, on the device model's busy time -- bandwidth is
//   no measure of time here, the two workloads do very different IO;
//   negative control without groups (flat mode): the reader's max latency
//   at N=16 >= 5x N=1 (the disk: 7.6x) and its bandwidth at N=16 <= 0.3x
//   the IO controller's.
//
// Scaled: N in {1, 4, 16, 32} with group_idle=1 (the cover letter's
// setting), the ends {1, 32} with group_idle=8 (the reader's next request
// comes at once, so the idle length does not matter: measured identical);
// 4 simulated seconds instead of 30 (the reader's figures settle within
// the first second).
#include <iostream>

#include <gtest/gtest.h>

#include "tables/tables.h"

namespace {

using namespace efqsim::tables;

void check_isolation(const std::string &group_idle, const std::vector<int> &ns)
{
	Options o;
	o.runtime_s = 4;
	o.tunables = {{"group_idle", group_idle}};
	std::string err;
	std::vector<Row> ioc = run_rows(Table::rr_vs_sr, Mode::ioc, ns, o, &err);
	ASSERT_EQ(ioc.size(), ns.size()) << err;
	std::cout << "random reader vs sequential readers, group_idle=" << group_idle << "\n"
		  << format_comparison(Table::rr_vs_sr, o, {}, ioc);
	const Side &rr1 = ioc.front().side[1];
	for (const Row &r : ioc) {
		SCOPED_TRACE("nr=" + std::to_string(r.nr) + " group_idle=" + group_idle);
		const Side &rr = r.side[1], &sr = r.side[0];
		EXPECT_GE(rr.agg_kib, 0.85 * rr1.agg_kib);
		EXPECT_LE(rr.max_lat_ms, 1.6 * rr1.max_lat_ms);
		EXPECT_LE(rr.max_lat_ms, 250.0);
		EXPECT_NEAR(ratio(sr.disk_time_ms, rr.disk_time_ms), 1.0, 0.15);
		EXPECT_NEAR(ratio(sr.device_busy_ms, rr.device_busy_ms), 1.0, 0.15);
	}
}

TEST(RandomReaderVsSeqReaders, GroupIdle1)
{
	check_isolation("1", {1, 4, 16, 32});
}

TEST(RandomReaderVsSeqReaders, GroupIdle8)
{
	check_isolation("8", {1, 32});
}

TEST(RandomReaderVsSeqReaders, FlatModeNegativeControl)
{
	Options o;
	o.runtime_s = 4;
	std::string err;
	std::vector<Row> flat = run_rows(Table::rr_vs_sr, Mode::flat, {1, 16}, o, &err);
	ASSERT_EQ(flat.size(), 2u) << err;
	std::vector<Row> ioc = run_rows(Table::rr_vs_sr, Mode::ioc, {16}, o, &err);
	ASSERT_EQ(ioc.size(), 1u) << err;
	std::cout << format_comparison(Table::rr_vs_sr, o, flat, ioc);
	EXPECT_GE(flat[1].side[1].max_lat_ms, 5 * flat[0].side[1].max_lat_ms);
	EXPECT_LE(flat[1].side[1].agg_kib, 0.3 * ioc[0].side[1].agg_kib);
}

} // namespace
