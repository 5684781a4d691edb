// SPDX-License-Identifier: GPL-2.0
// efqsim workloads: the job engine -- runs JobSpecs (fio jobs) as simulated
// tasks that submit IO through a Host.
//
// Each job clone is one task (comm = the job name, in its cgroup, with its
// ioprio; JobResult::pid is its TaskId).  Buffered jobs (direct=0) go through
// one PageCache, whose writeback domains follow the jobs' cgroups.  Jobs start as fio starts them:
// every job at once, except that a stonewall job (and every job after it) waits until all earlier
// jobs have finished; startdelay delays a job from that point.  A job then
//
//   - issues IO: sequential from its region's start (wrapping at its end;
//     reads and writes of rw=rw each keep their own position, as in fio),
//     or random: bs-aligned, uniform over the region, every block once per
//     pass (fio's random map) unless norandommap=1 (with replacement); the
//     random stream is seeded from --seed (or randseed) and the job's
//     number, so runs are repeatable;
//   - keeps effective_depth() IOs in flight (1 for sync/psync);
//   - mixes reads and writes per IO with probability rwmixread;
//   - after thinktime_blocks IOs have completed, stalls thinktime before
//     issuing again (so at most thinktime_blocks IOs are in flight);
//   - ends after io_bytes (size=) bytes unless time_based, and at runtime
//     (counted after ramp_time); IO in flight then completes first;
//   - with cmdprio_*, gives a share of its direct IOs a priority of their
//     own (Io::ioprio); with flow=, issues only while its share of its
//     flow group's IOs is not above its share of the weights; with ss=,
//     ends when its IOPS or bandwidth is steady (once a second, over
//     ss_dur); with latency_target=, probes its queue depth as fio does.
//
// Statistics exclude the ramp: an IO counts if it is issued at, or completes
// after, the end of ramp_time, and size= counts the bytes issued from then on
// (fio resets its counters when the ramp ends).  Latency: submission to the block layer
// is instantaneous in the simulation (fio's slat is 0), so clat = lat =
// completion time - submission time as the task sees it: for direct IO that
// includes any wait for a request tag; for buffered IO it is the read() or
// write() call (a page-cache hit costs only the copy).
#pragma once

#include "report/results.h"
#include "workload/host.h"
#include "workload/jobfile.h"
#include "workload/pagecache.h"

#include <functional>
#include <map>
#include <memory>
#include <vector>

namespace efqsim::workload {

struct EngineOptions {
	PageCacheConfig pagecache;	   // for buffered (direct=0) jobs
	std::function<void()> on_finished; // runs once, when the last job ends
};

class JobEngine {
public:
	JobEngine(Host &host, std::vector<JobSpec> jobs, EngineOptions opt = {});
	~JobEngine();
	JobEngine(const JobEngine &) = delete;
	JobEngine &operator=(const JobEngine &) = delete;

	// Creates one task per job (task ids in job order), then, if a job is
	// buffered, the page cache and its flusher task; starts the first jobs
	// at host.now().  Call once.  False if the host refused a task
	// (create_task() returned 0); nothing runs then.
	bool start();

	// Every job has ended.  The engine leaves no event of its own behind
	// then (the page cache may still be writing back).
	bool finished() const { return done_ == jobs_.size(); }
	int64_t end_time() const { return end_time_; } // when the last job ended
	const std::vector<JobSpec> &jobs() const { return specs_; }
	TaskId task_of(size_t job) const;
	PageCache *pagecache() { return cache_.get(); }

	// Per job, in job order.  A job still running is reported up to now.
	std::vector<report::JobResult> results() const;

	// Stops the workload where it is (the run's simulated-time limit):
	// from now on no job issues IO, starts, thinks again or finishes; the
	// IO in flight still completes (the page cache still writes back what
	// is dirty), so that the host can drain.  Take results() first:
	// completions after the stop still count.  finished() stays false.
	void stop_all();
	bool stopped() const { return stopped_; }

private:
	struct Job;
	struct Steady;
	struct Flow;

	void start_segment(int segment);
	bool waits(size_t j) const;
	void begin(size_t j);
	void pump(size_t j);
	uint32_t pick_bs(Job &job, int d);
	size_t pick_file(Job &job);
	uint64_t pick_block(Job &job, size_t f, uint64_t blocks, int d);
	uint64_t next_offset(Job &job, size_t f, int d, uint32_t bs);
	void issue(size_t j, int d, size_t f, uint64_t offset, uint32_t bs, bool verify);
	void check_min_rate(size_t j);
	void fsync_files(size_t j, size_t from);
	void complete(size_t j, int d, uint32_t bs, uint64_t offset, int64_t submitted,
		      int64_t done, bool rt);
	void log_io(Job &job, bool write, uint32_t bs, uint64_t offset, int64_t clat, int64_t done,
		    bool rt);
	unsigned short pick_prio(Job &job, int d, uint32_t bs);
	bool flow_admit(size_t j);
	void flow_wake(Flow &fl, size_t except);
	void flow_sleep(size_t j);
	void lat_new_cycle(Job &job);
	bool lat_ramp_down(Job &job);
	void lat_success(Job &job);
	void lat_check(Job &job);
	void lat_reset_stats(size_t j);
	void ss_tick(size_t unit);
	void roll_windows(Job &job, int64_t now);
	void flush_window(Job &job, int64_t window_end, int64_t len);
	void maybe_finish(size_t j);
	void finish(size_t j);

	Host &host_;
	EngineOptions opt_;
	std::vector<JobSpec> specs_;
	std::vector<std::unique_ptr<Job>> jobs_;
	std::unique_ptr<PageCache> cache_;
	std::vector<std::unique_ptr<Steady>> steady_; // steady-state units
	std::map<size_t, size_t> ss_unit_;	      // job -> its unit
	std::map<int64_t, Flow> flows_;		      // flow_id -> group
	int segments_ = 0, segment_ = 0;
	std::vector<std::vector<size_t>> segment_jobs_; // job indices per segment
	size_t segment_left_ = 0;			// jobs of segment_ not done
	size_t done_ = 0;
	int64_t end_time_ = 0;
	bool started_ = false;
	bool stopped_ = false; // stop_all()
};

} // namespace efqsim::workload
