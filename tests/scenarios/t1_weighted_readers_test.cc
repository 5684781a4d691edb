// SPDX-License-Identifier: GPL-2.0
// T1: weighted sequential readers get disk time 2:1.
//
// Source: spec/seed-tests.md 5, rank 1 (T1), from A3 (seed 000 L405-424),
// A6 and A4 (seed 000 L426-436: two KVM guests on hierarchical deadline,
// time 2.03, sectors 2.09).  Criteria, for every N:
//   disk_time(H)/disk_time(L) = 2.0 +/- 0.2 (fairness=0), +/- 0.15
//   (fairness=1); bandwidth ratio in [1.7, 2.4] (seed 1.96-2.31); H's max
//   latency at N=16 <= 1.5x N=1 (seed 124 -> 172 ms); total throughput
//   >= 0.9x the single-group baseline; deadline/noop with A4's workload:
//   time ratio 2.0 +/- 0.15.
// The time ratio is checked on the engine's charge and, as an outside
// measure, on the device model's busy time per cgroup, at +/-0.2 for both
// fairness settings: the busy time includes the seek to each slice's file,
// which the engine charges nobody (a slice starts at its first completion,
// V10's rule) and which weighs more on L's 100 ms slices than on H's
// 200 ms ones (measured 1.83-1.90 at N=16).
//
// Scaled: N in {1, 4, 16} (the ends and the middle of the seed's 1..16),
// 6 simulated seconds instead of 30 (20 rounds of H's 200 ms and L's
// 100 ms slice); fairness=1 at N=16 only (12 s, see below): sequential
// readers at depth 1
// never leave requests in flight at a switch, so fairness=1 changes
// nothing for them (measured: the same numbers to the byte at N=1, 4, 16).
// The single-group baseline is the same jobs in flat mode.
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
	std::cout << "T1, cfq fairness=" << fairness << "\n"
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

TEST(T1WeightedReaders, CfqDiskTimeTwoToOne)
{
	check_cfq({1, 4, 16}, "0", 0.2);
}

// 12 simulated seconds: the first rounds, while each of L's 16 readers
// gets its first slice, weigh on the ratio (1.86 after 6 s, 1.92 after 12,
// 1.96 after the seed's 30), and +/-0.15 leaves little room for them.
TEST(T1WeightedReaders, CfqFairnessOneDiskTimeTwoToOne)
{
	check_cfq({16}, "1", 0.15, 12);
}

// A4: one guest per cgroup writing its disk sequentially through the host
// (synchronous 4 KiB writes; the host sees raw IO), weights 1000 and 500.
void check_a4(const std::string &scheduler)
{
	std::string text = "; T1 with A4's workload (seed 000 L426-436)\n"
			   "[global]\nrw=write\nbs=4k\ndirect=1\nsize=2g\nruntime=" +
			   std::to_string(kRuntime) +
			   "\n\n[vm1]\ncgroup=vm1\ncgroup_weight=1000\n"
			   "\n[vm2]\ncgroup=vm2\ncgroup_weight=500\n";
	efqsim::run::Setup setup;
	setup.scheduler = scheduler;
	efqsim::report::RunResult res;
	std::string err;
	ASSERT_TRUE(run_text("a4.fio", text, setup, &res, &err)) << err;
	Side h = side_of(res, "vm1", "/vm1"), l = side_of(res, "vm2", "/vm2");
	double time = ratio(h.disk_time_ms, l.disk_time_ms);
	double busy = ratio(h.device_busy_ms, l.device_busy_ms);
	double sectors = ratio(double(h.bytes), double(l.bytes));
	std::cout << scheduler << ": time " << time << " busy " << busy << " bytes " << sectors
		  << " (seed: time 2.03, sectors 2.09)\n";
	EXPECT_NEAR(time, 2.0, 0.15);
	EXPECT_NEAR(busy, 2.0, 0.15);
	EXPECT_NEAR(sectors, 2.0, 0.2);
}

TEST(T1WeightedReaders, DeadlineA4GuestsTwoToOne)
{
	check_a4("deadline-fq");
}

TEST(T1WeightedReaders, NoopA4GuestsTwoToOne)
{
	check_a4("noop");
}

} // namespace
