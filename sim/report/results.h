// SPDX-License-Identifier: GPL-2.0
// efqsim results: what a run measured, filled by the workload (jobs) and the
// simulated block layer (groups, device), printed by sim/report.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace efqsim::report {

// Latency samples counted in log-linear buckets (sim/report/latency.cc):
// values below 128 ns have a bucket each; above, every power of two is cut
// into 64 equal buckets.  Read as a map from each bucket's lower bound (ns)
// to its count, in ascending order, listing only the buckets that have
// samples.  Stored as one array of 64 counts per power of two that has
// samples: add() is an index, not a search, whatever the range of values.
class Histogram {
public:
	using value_type = std::pair<int64_t, uint64_t>; // lower bound, count

	class const_iterator {
	public:
		using value_type = Histogram::value_type;
		using difference_type = std::ptrdiff_t;
		using iterator_category = std::forward_iterator_tag;
		using pointer = void;
		using reference = value_type;
		const_iterator() = default;
		value_type operator*() const;
		const_iterator &operator++();
		const_iterator operator++(int)
		{
			const_iterator old = *this;
			++*this;
			return old;
		}
		bool operator==(const const_iterator &o) const
		{
			return row_ == o.row_ && col_ == o.col_;
		}

	private:
		friend class Histogram;
		const_iterator(const Histogram *h, size_t row, size_t col)
		    : h_(h), row_(row), col_(col)
		{
		}
		void settle(); // forward to a bucket with samples, or the end
		const Histogram *h_ = nullptr;
		size_t row_ = 0, col_ = 0;
	};

	// Counts @count more samples in the bucket of @ns (ns >= 0).
	void add(int64_t ns, uint64_t count = 1);
	// Buckets with samples.
	size_t size() const { return buckets_; }
	bool empty() const { return buckets_ == 0; }
	// The count of the bucket whose lower bound is @lower; throws
	// std::out_of_range if it has no samples (as std::map::at).
	uint64_t at(int64_t lower) const;
	const_iterator begin() const;
	const_iterator end() const { return const_iterator(this, rows_.size(), 0); }
	bool operator==(const Histogram &o) const;

private:
	// rows_[0]: the values 0..127; rows_[r], r >= 1: [2^(r+6), 2^(r+7)) in
	// 64 buckets.  An unused row is empty.
	std::vector<std::vector<uint64_t>> rows_;
	size_t buckets_ = 0;
};

// Completion latencies of one direction of one job (or reporting group),
// in ns.  Every sample is kept as a histogram with fio's bucket scheme
// (sim/report computes percentiles from it); min/max/sum are exact.
struct LatencyStats {
	uint64_t samples = 0;
	int64_t min = 0;
	int64_t max = 0;
	long double sum = 0; // of all samples, for the mean
	// Of the squares of all samples, for the stddev (add() and merge()
	// keep it, like sum).
	long double sum_sq = 0;
	Histogram histogram; // bucket lower bound (ns) -> count
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
	LatencyStats lat; // submission to completion, including waits for tags
};

// fio log samples (write_bw_log/write_lat_log/write_iops_log formats).
struct LogSample {
	int64_t time_ms = 0;
	uint64_t value = 0;  // bw: KiB/s; lat, clat, slat: ns; iops: IOs/s
	int ddir = 0;	     // 0 read, 1 write
	uint32_t bs = 0;     // 0 for windowed (log_avg_msec) samples, as fio
	uint64_t offset = 0; // bytes; printed with log_offset=1 only
	int prio = 0;	     // fio's priority column: 1 for a high-priority IO
};

// Which fio logs a job asked for.  A prefix is write_*_log's argument (the
// job name when the option had none); "" means that log was not asked for.
struct LogSettings {
	std::string bw_prefix;	  // write_bw_log: <prefix>_bw.<N>.log
	std::string lat_prefix;	  // write_lat_log: <prefix>_{lat,clat,slat}.<N>.log
	std::string iops_prefix;  // write_iops_log: <prefix>_iops.<N>.log
	bool log_offset = false;  // log_offset=1: add the offset column
	bool per_job_logs = true; // per_job_logs=0: no ".<N>" in the names
};

struct JobResult {
	std::string jobname;
	int groupid = 0; // fio reporting group (new_group / stonewall)
	std::string cgroup;
	int error = 0;
	int pid = 0; // the simulated process's pid (fio's "pid=")
	// The job's options as written (after [global] defaults), in order:
	// JSON "job options".
	std::vector<std::pair<std::string, std::string>> options;
	DirStats read;
	DirStats write;
	LogSettings logs;
	// lat_log is the total latency (fio's _lat log), clat_log and slat_log
	// the completion and submission latencies.
	std::vector<LogSample> bw_log, lat_log, iops_log, clat_log, slat_log;
	// Steady-state detection (fio's ss=, ss_dur=): the criterion as
	// written, whether it was met (the job then ended early), the last
	// value compared with the limit and the window's per-second samples,
	// oldest first.  Empty criterion: the job had none.
	struct SteadyState {
		std::string criterion;
		unsigned int duration_s = 0;
		bool attained = false;
		bool slope = false, pct = false;
		double value = 0; // the slope or the largest deviation (% if pct)
		std::vector<uint64_t> iops, bw;
	} ss;
	// latency_target: the queue depth the job ran at when it ended
	// (fio's JSON "latency_depth"); 0 without a target.
	unsigned int latency_depth = 0;
	int64_t latency_target_ns = 0, latency_window_ns = 0;
	double latency_percentile = 0;
};

// One efq group (cgroup) on the simulated device.  disk_time_ms and
// disk_sectors are the engine's total_time/total_sectors: in hierarchical
// mode a group's figures include its descendants' (as io.efq.disk_time
// shows them) and the root group's cover the whole device.  device_busy_ms
// must be summed the same way, so that the two columns compare one to one.
struct GroupResult {
	std::string path; // "/" for the root cgroup
	unsigned int weight = 0;
	unsigned int ioprio_class = 0; // 1 RT, 2 BE, 3 IDLE (io.efq.ioprio_class)
	double disk_time_ms = 0;       // the engine's accounting (total_time)
	uint64_t disk_sectors = 0;     // the engine's accounting
	uint64_t queued = 0;	       // times the group became backlogged
	uint64_t dequeued = 0;
	double device_busy_ms = 0; // measured by the device model
};

struct RunResult {
	std::string efqsim_version;
	uint64_t seed = 0;
	std::string device;
	std::string scheduler;
	bool hierarchical = true;
	unsigned int nr_requests = 0;		     // the queue's scheduler tags
	std::map<std::string, std::string> tunables; // name -> value as shown
	int64_t duration_ns = 0;		     // simulated
	std::vector<JobResult> jobs;
	std::vector<GroupResult> groups;
	bool group_reporting = false;
	// The [global] section's options as written, in order: JSON "global
	// options" (left out when empty).
	std::vector<std::pair<std::string, std::string>> global_options;
	// Non-empty when the run stopped before its jobs ended (the
	// simulated-time limit): why.  The report covers the run up to then.
	std::string stopped;
};

} // namespace efqsim::report
