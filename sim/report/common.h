// SPDX-License-Identifier: GPL-2.0
// efqsim reports: what the text, JSON and log writers share.  Internal to
// sim/report (the public entry points are text.h, json.h and logs.h).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "report/results.h"

namespace efqsim::report::detail {

// The completion latency percentiles fio prints by default.
inline constexpr std::array<double, 17> kPercentiles = {1,  5,	10, 20, 30,   40,   50,	   60,	 70,
							80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99};

// @v with exactly @decimals digits after the point, independent of the
// locale; NaN and infinities print as 0, -0 as 0.
std::string fixed(double v, int decimals);

// fio's short number form: at most four digits and a unit prefix, e.g.
// 907k, 3542MiB, 15.6GiB, 101MB.  @base is 1024 (KiB, MiB, ...) or 1000
// (k, M, ...); @unit follows the prefix ("B" for bytes, "" for counts).
// Numbers below 10000 print as they are.
std::string short_num(uint64_t n, unsigned int base, const char *unit);

// Latency statistics derived the same way by every writer.
double lat_mean(const LatencyStats &s);
double lat_stddev(const LatencyStats &s); // sample stddev (n - 1), 0 below 2 samples

// A direction's rates over its simulated runtime.
uint64_t bw_bytes(const DirStats &d); // bytes/s, rounded down
double iops(const DirStats &d);
int64_t runtime_ms(const DirStats &d); // rounded; at least 1 when it ran at all

// What one report block covers: one job, or with group_reporting all jobs
// of one reporting group (named after its first job, as fio does).
struct Unit {
	std::string name;
	int groupid = 0;
	int jobs = 0;
	int error = 0;
	int pid = 0;
	const JobResult *first = nullptr;
	DirStats read, write;
};
std::vector<Unit> report_units(const RunResult &r);

// The reporting group ids in order of first appearance.
std::vector<int> reporting_groups(const RunResult &r);

// The groups in tree order (by path component), with each one's share of
// the device's disk time and device-busy time in percent.  The whole is
// the sum over the top-level groups (those with no ancestor in the list):
// the root group when it is listed, whose figures include everybody's.
struct GroupRow {
	const GroupResult *g = nullptr;
	double time_share = 0;
	double busy_share = 0;
};
std::vector<GroupRow> group_rows(const RunResult &r);

// "rt", "be", "idle", or the number for anything else.
std::string class_name(unsigned int ioprio_class);

} // namespace efqsim::report::detail
