// SPDX-License-Identifier: GPL-2.0
// Weighted sequential readers: a cgroup of weight 1000 gets twice the disk
// time of a cgroup of weight 500, however many readers the lighter one has.
//
// The measurement this reproduces: the 2009 V10 cover letter's Test 3 (a
// 7200 rpm SATA disk; Documentation/sim/cover-letter.rst, "Test 3", has
// the table).  group1 (weight 500) ran N = 1..16 sequential 4 KiB direct
// readers, group2 (weight 1000) a single one; group2's bandwidth came out
// 1.96-2.31x group1's at every N, and its max latency rose only from
// 124 ms (N=1) to 172 ms (N=16).  The series' documentation adds a second
// case: two KVM guests, each dd-writing 1 GiB to its own partition of one
// host disk, their qemu processes in cgroups of weight 1000 and 500 on the
// host's hierarchical deadline scheduler, got 2.03x the disk time and
// 2.09x the sectors.
//
// Asserted for every N (H = the weight-1000 group, L = the weight-500 one):
//   charged disk time H/L = 2.0 +/- 0.2 with fairness=0, +/- 0.15 with
//   fairness=1 (the weights' ratio; fairness=1 charges real service, so it
//   is held closer); bandwidth H/L in [1.7, 2.4] (a margin around the
//   measured 1.96-2.31); H's max latency at N=16 <= 1.5x N=1 (measured
//   1.39x: H's latency must not depend on L's reader count); H+L
//   throughput >= 0.9x the same jobs without groups (weights must not cost
//   the disk its throughput); deadline-fq and noop with the two guests'
//   workload: time 2.0 +/- 0.15.
// The time ratio is checked on the engine's charge and, as an outside
// measure, on the device model's busy time per cgroup, at +/-0.2 for both
// fairness settings: the busy time includes the seek to each slice's file,
// which the engine charges nobody (a slice starts at its first completion,
// V10's rule) and which weighs more on L's 100 ms slices than on H's
// 200 ms ones (measured 1.83-1.90 at N=16).
//
// Scaled: N in {1, 4, 16} (the ends and the middle of the cover letter's
// 1..16), 6 simulated seconds instead of 30 (20 rounds of H's 200 ms and
// L's 100 ms slice); fairness=1 at N=16 only (12 s, see below): sequential
// readers at depth 1 never leave requests in flight at a switch, so
// fairness=1 changes nothing for them (measured: the same numbers to the
// byte at N=1, 4, 16).  The single-group baseline is the same jobs in flat
// mode.
#include <iostream>

#include <gtest/gtest.h>

#include "tables/tables.h"

namespace {

using namespace efqsim::tables;

constexpr int kRuntime = 6;

void check_cfq(const std::vector<int> &ns, const std::string &fairness, double tol,
	       int runtime_s = kRuntime)
{
	Options o;
	o.runtime_s = runtime_s;
	o.tunables = {{"fairness", fairness}};
	std::string err;
	std::vector<Row> ioc = run_rows(Table::sr_weights, Mode::ioc, ns, o, &err);
	ASSERT_EQ(ioc.size(), ns.size()) << err;
	std::vector<Row> flat = run_rows(Table::sr_weights, Mode::flat, {ns.back()}, o, &err);
	ASSERT_EQ(flat.size(), 1u) << err;
	std::cout << "weighted readers, cfq fairness=" << fairness << "\n"
		  << format_comparison(Table::sr_weights, o, flat, ioc);
	for (const Row &r : ioc) {
		SCOPED_TRACE("nr=" + std::to_string(r.nr) + " fairness=" + fairness);
		const Side &l = r.side[0], &h = r.side[1];
		double time = ratio(h.disk_time_ms, l.disk_time_ms);
		double busy = ratio(h.device_busy_ms, l.device_busy_ms);
		double bw = ratio(h.agg_kib, l.agg_kib);
		std::cout << "nr=" << r.nr << " time " << time << " busy " << busy << " bw " << bw
			  << "\n";
		EXPECT_NEAR(time, 2.0, tol);
		EXPECT_NEAR(busy, 2.0, 0.2);
		EXPECT_GE(bw, 1.7);
		EXPECT_LE(bw, 2.4);
	}
	if (ns.front() == 1) {
		EXPECT_LE(ioc.back().side[1].max_lat_ms, 1.5 * ioc.front().side[1].max_lat_ms);
	}
	const Row &f = flat.front(), &c = ioc.back();
	EXPECT_GE(c.side[0].agg_kib + c.side[1].agg_kib,
		  0.9 * (f.side[0].agg_kib + f.side[1].agg_kib));
}

TEST(WeightedReaders, CfqDiskTimeTwoToOne)
{
	check_cfq({1, 4, 16}, "0", 0.2);
}

// 12 simulated seconds: the first rounds, while each of L's 16 readers
// gets its first slice, weigh on the ratio (1.86 after 6 s, 1.92 after 12,
// 1.96 after 30, the cover letter's run), and +/-0.15 leaves little room
// for them.
TEST(WeightedReaders, CfqFairnessOneDiskTimeTwoToOne)
{
	check_cfq({16}, "1", 0.15, 12);
}

// The two KVM guests: one guest per cgroup writing its disk sequentially
// through the host (synchronous 4 KiB writes; the host sees raw IO),
// weights 1000 and 500; measured 2.03x the time and 2.09x the sectors.
void check_guests(const std::string &scheduler)
{
	std::string text = "; two guests writing through the host, weights 1000 and 500\n"
			   "[global]\nrw=write\nbs=4k\ndirect=1\nsize=2g\nruntime=" +
			   std::to_string(kRuntime) +
			   "\n\n[vm1]\ncgroup=vm1\ncgroup_weight=1000\n"
			   "\n[vm2]\ncgroup=vm2\ncgroup_weight=500\n";
	efqsim::run::Setup setup;
	setup.scheduler = scheduler;
	efqsim::report::RunResult res;
	std::string err;
	ASSERT_TRUE(run_text("guests.fio", text, setup, &res, &err)) << err;
	Side h = side_of(res, "vm1", "/vm1"), l = side_of(res, "vm2", "/vm2");
	double time = ratio(h.disk_time_ms, l.disk_time_ms);
	double busy = ratio(h.device_busy_ms, l.device_busy_ms);
	double sectors = ratio(double(h.bytes), double(l.bytes));
	std::cout << scheduler << ": time " << time << " busy " << busy << " bytes " << sectors
		  << " (measured on the guests: time 2.03, sectors 2.09)\n";
	EXPECT_NEAR(time, 2.0, 0.15);
	EXPECT_NEAR(busy, 2.0, 0.15);
	EXPECT_NEAR(sectors, 2.0, 0.2);
}

TEST(WeightedReaders, DeadlineGuestWritersTwoToOne)
{
	check_guests("deadline-fq");
}

TEST(WeightedReaders, NoopGuestWritersTwoToOne)
{
	check_guests("noop");
}

} // namespace
