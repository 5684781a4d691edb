// SPDX-License-Identifier: GPL-2.0
// efqsim results: what a run measured, filled by the workload (jobs) and the
// simulated block layer (groups, device), printed by sim/report.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace efqsim::report {

// Completion latencies of one direction of one job (or reporting group),
// in ns.  Every sample is kept as a histogram with fio's bucket scheme
// (sim/report computes percentiles from it); min/max/sum are exact.
struct LatencyStats {
	uint64_t samples = 0;
	int64_t min = 0;
	int64_t max = 0;
	long double sum = 0; // of all samples, for the mean
	std::map<int64_t, uint64_t> histogram; // bucket lower bound (ns) -> count
	void add(int64_t ns);
	void merge(const LatencyStats &o);
	int64_t percentile(double p) const; // p in (0, 100]
	double mean() const;
};

struct DirStats {
	uint64_t io_bytes = 0;
	uint64_t ios = 0;
	int64_t runtime_ns = 0; // time this direction was active (fio's "run")
	LatencyStats clat;
	LatencyStats lat;   // submission to completion, including waits for tags
};

// fio log samples (write_bw_log/write_lat_log/write_iops_log formats).
struct LogSample {
	int64_t time_ms = 0;
	uint64_t value = 0;
	int ddir = 0; // 0 read, 1 write
	uint32_t bs = 0;
};

struct JobResult {
	std::string jobname;
	int groupid = 0; // fio reporting group (new_group / stonewall)
	std::string cgroup;
	int error = 0;
	DirStats read;
	DirStats write;
	std::vector<LogSample> bw_log, lat_log, iops_log;
};

// One efq group (cgroup) on the simulated device.
struct GroupResult {
	std::string path; // "/" for the root cgroup
	unsigned int weight = 0;
	unsigned int ioprio_class = 0;
	double disk_time_ms = 0;   // the engine's accounting (total_time)
	uint64_t disk_sectors = 0; // the engine's accounting
	uint64_t queued = 0;       // times the group became backlogged
	uint64_t dequeued = 0;
	double device_busy_ms = 0; // measured by the device model
};

struct RunResult {
	std::string efqsim_version;
	uint64_t seed = 0;
	std::string device;
	std::string scheduler;
	bool hierarchical = true;
	std::map<std::string, std::string> tunables; // name -> value as shown
	int64_t duration_ns = 0;                     // simulated
	std::vector<JobResult> jobs;
	std::vector<GroupResult> groups;
	bool group_reporting = false;
};

} // namespace efqsim::report
