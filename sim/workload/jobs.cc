// SPDX-License-Identifier: GPL-2.0
// efqsim workloads: the job engine.  See jobs.h.

#include "workload/jobs.h"

#include "workload/rng.h"

#include <algorithm>
#include <limits>
#include <map>

namespace efqsim::workload {

namespace {

constexpr int64_t kNever = std::numeric_limits<int64_t>::max();
constexpr int64_t kNsPerMs = 1'000'000;

} // namespace

struct JobEngine::Job {
	const JobSpec *spec = nullptr;
	TaskId task = 0;
	int segment = 0;
	enum { Waiting, Delayed, Running, Done } state = Waiting;
	int64_t start = 0;	 // first IO may be issued
	int64_t stats_start = 0; // end of ramp_time
	int64_t deadline = kNever;
	int64_t end = 0;
	unsigned int depth = 1;
	unsigned int inflight = 0;
	uint64_t budget = 0; // bytes issued after the ramp (size=)
	bool stop = false;   // issues no more IO
	// thinktime: a batch of thinktime_blocks IOs, then a stall
	unsigned int batch_issued = 0, batch_done = 0;
	bool thinking = false;
	// fsync
	unsigned int writes_since_fsync = 0;
	bool fsyncing = false, end_fsync_done = false;
	PageCache::FileId file = 0;
	// offsets
	Rng rng;
	uint64_t seq_next[2] = {0, 0};
	Permutation perm[2];
	uint64_t perm_pos[2] = {0, 0};
	// results
	report::JobResult result;
	// log_avg_msec windows
	int64_t window_start = 0;
	uint64_t win_bytes[2] = {0, 0}, win_ios[2] = {0, 0};
	long double win_lat[2] = {0, 0};
};

JobEngine::JobEngine(Host &host, std::vector<JobSpec> jobs, EngineOptions opt)
    : host_(host), opt_(std::move(opt)), specs_(std::move(jobs))
{
	int segment = 0;
	for (size_t i = 0; i < specs_.size(); i++) {
		if (i > 0 && specs_[i].stonewall)
			segment++;
		auto job = std::make_unique<Job>();
		job->spec = &specs_[i];
		job->segment = segment;
		jobs_.push_back(std::move(job));
		if (segment_jobs_.size() <= static_cast<size_t>(segment))
			segment_jobs_.resize(static_cast<size_t>(segment) + 1);
		segment_jobs_[static_cast<size_t>(segment)].push_back(i);
	}
	segments_ = segment + 1;
}

JobEngine::~JobEngine() = default;

TaskId JobEngine::task_of(size_t job) const
{
	return jobs_.at(job)->task;
}

bool JobEngine::start()
{
	if (started_)
		return true;
	started_ = true;
	bool buffered = false;
	for (size_t i = 0; i < specs_.size(); i++) {
		const JobSpec &s = specs_[i];
		Job &job = *jobs_[i];
		TaskSpec t;
		t.comm = s.name;
		t.cgroup = s.cgroup;
		t.cgroup_weight = s.cgroup_weight;
		t.ioprio_class = s.ioprio_class;
		t.ioprio = s.ioprio;
		job.task = host_.create_task(t);
		if (!job.task)
			return false;
		job.depth = std::max(s.effective_depth(), 1u);
		job.rng.reseed(s.seed);
		job.result.jobname = s.name;
		job.result.groupid = s.groupid;
		job.result.cgroup = s.cgroup;
		job.result.pid = static_cast<int>(job.task);
		job.result.options = s.options;
		job.result.logs.bw_prefix = s.bw_log;
		job.result.logs.lat_prefix = s.lat_log;
		job.result.logs.iops_prefix = s.iops_log;
		job.result.logs.log_offset = s.log_offset;
		job.result.logs.per_job_logs = s.per_job_logs;
		buffered |= !s.direct;
	}
	if (buffered) {
		cache_ = std::make_unique<PageCache>(host_, opt_.pagecache);
		std::map<std::string, PageCache::FileId> files;
		for (size_t i = 0; i < specs_.size(); i++) {
			const JobSpec &s = specs_[i];
			auto it = files.find(s.file);
			if (it == files.end())
				it = files.emplace(s.file,
						   cache_->add_file(s.file_start, s.file_bytes))
					     .first;
			jobs_[i]->file = it->second;
			cache_->set_task_cgroup(jobs_[i]->task, s.cgroup);
		}
	}
	if (specs_.empty()) {
		end_time_ = host_.now();
		if (opt_.on_finished)
			opt_.on_finished();
		return true;
	}
	start_segment(0);
	return true;
}

void JobEngine::start_segment(int segment)
{
	segment_ = segment;
	const int64_t now = host_.now();
	const std::vector<size_t> &members = segment_jobs_[static_cast<size_t>(segment)];
	segment_left_ = members.size();
	for (size_t i : members) {
		Job &job = *jobs_[i];
		job.state = Job::Delayed;
		host_.at(now + specs_[i].startdelay_ns, [this, i]() { begin(i); });
	}
}

void JobEngine::stop_all()
{
	stopped_ = true;
	for (auto &job : jobs_)
		job->stop = true;
}

void JobEngine::begin(size_t j)
{
	if (stopped_)
		return;
	const JobSpec &s = specs_[j];
	Job &job = *jobs_[j];
	const int64_t now = host_.now();
	job.state = Job::Running;
	job.start = now;
	job.stats_start = now + s.ramp_ns;
	job.window_start = job.stats_start;
	if (s.runtime_ns) {
		job.deadline = job.stats_start + s.runtime_ns;
	}
	if (cache_ && s.invalidate)
		cache_->invalidate(job.file);
	pump(j);
}

uint64_t JobEngine::next_offset(Job &job, bool write, uint32_t bs)
{
	const JobSpec &s = *job.spec;
	const int d = write ? 1 : 0;
	if (!s.random()) {
		uint64_t pos = job.seq_next[d];
		if (pos + bs > s.region_bytes)
			pos = 0; // wrap to the region's start
		job.seq_next[d] = pos + bs;
		return s.region_start + pos;
	}
	const uint64_t blocks = s.region_bytes / bs; // >= 1 (the parser checks)
	uint64_t idx;
	if (s.norandommap) {
		idx = job.rng.below(blocks);
	} else {
		// A fresh permutation for every pass over the region.
		if (job.perm[d].size() != blocks || job.perm_pos[d] >= blocks) {
			job.perm[d].reset(blocks, job.rng.next());
			job.perm_pos[d] = 0;
		}
		idx = job.perm[d].at(job.perm_pos[d]++);
	}
	return s.region_start + idx * bs;
}

void JobEngine::pump(size_t j)
{
	const JobSpec &s = specs_[j];
	Job &job = *jobs_[j];
	if (job.state != Job::Running)
		return;
	const int64_t now = host_.now();
	while (!job.stop && !job.thinking && !job.fsyncing) {
		if (now >= job.deadline) {
			job.stop = true;
			break;
		}
		if (job.inflight >= job.depth)
			return;
		if (s.thinktime_ns && job.batch_issued >= s.thinktime_blocks)
			return; // the batch completes, then the job thinks
		if (s.fsync_blocks && job.writes_since_fsync >= s.fsync_blocks) {
			if (job.inflight)
				return;
			job.fsyncing = true;
			job.writes_since_fsync = 0;
			cache_->fsync(job.task, job.file, [this, j](int64_t) {
				jobs_[j]->fsyncing = false;
				pump(j);
				maybe_finish(j);
			});
			return;
		}
		bool write;
		if (s.mixed())
			write = job.rng.below(100) >= s.rwmixread;
		else
			write = s.writes();
		const uint32_t bs = write ? s.bs_write : s.bs_read;
		if (!s.time_based && now >= job.stats_start && job.budget + bs > s.io_bytes) {
			job.stop = true;
			break;
		}
		issue(j, write);
	}
	maybe_finish(j);
}

void JobEngine::issue(size_t j, bool write)
{
	const JobSpec &s = specs_[j];
	Job &job = *jobs_[j];
	const uint32_t bs = write ? s.bs_write : s.bs_read;
	const int64_t now = host_.now();
	const uint64_t offset = next_offset(job, write, bs);
	job.inflight++;
	job.batch_issued++;
	if (now >= job.stats_start)
		job.budget += bs;
	if (write)
		job.writes_since_fsync++;
	auto done = [this, j, write, bs, offset, now](int64_t when) {
		complete(j, write, bs, offset, now, when);
	};
	if (s.direct) {
		Io io;
		io.offset = offset;
		io.bytes = bs;
		io.write = write;
		io.sync = true;	 // O_DIRECT reads and writes are REQ_SYNC
		io.idle = write; // and direct writes REQ_IDLE, as the kernel sets them
		if (write && cache_)
			cache_->invalidate_range(offset, bs);
		host_.submit(job.task, io, std::move(done));
	} else if (write) {
		cache_->write(job.task, job.file, offset, bs, std::move(done));
	} else {
		cache_->read(job.task, job.file, offset, bs, std::move(done));
	}
}

void JobEngine::complete(size_t j, bool write, uint32_t bs, uint64_t offset, int64_t submitted,
			 int64_t done)
{
	const JobSpec &s = specs_[j];
	Job &job = *jobs_[j];
	job.inflight--;
	job.batch_done++;
	// Counted once the ramp is over: issued after it, or completed after it
	// (fio resets its statistics at the end of the ramp).
	if ((submitted >= job.stats_start || done > job.stats_start) && job.state == Job::Running) {
		report::DirStats &d = write ? job.result.write : job.result.read;
		const int64_t clat = done - submitted;
		d.io_bytes += bs;
		d.ios++;
		d.clat.add(clat);
		d.lat.add(clat);
		log_io(job, write, bs, offset, clat, done);
	}
	if (s.thinktime_ns && job.batch_done >= s.thinktime_blocks && job.inflight == 0) {
		job.batch_issued = job.batch_done = 0;
		if (!job.stop && job.state == Job::Running && host_.now() < job.deadline) {
			// No event is left behind: the stall ends at the deadline
			// if that comes first (the deadline is otherwise checked as
			// IO completes).
			job.thinking = true;
			const int64_t wake = std::min(host_.now() + s.thinktime_ns, job.deadline);
			host_.at(wake, [this, j]() {
				jobs_[j]->thinking = false;
				pump(j);
			});
			return;
		}
	}
	pump(j);
}

// --- logs ------------------------------------------------------------------

void JobEngine::flush_window(Job &job, int64_t window_end, int64_t len)
{
	const JobSpec &s = *job.spec;
	const int prio = s.ioprio_class == 1; // fio's column: 1 for RT IO
	auto sample = [prio](int64_t t, uint64_t v, int d, uint32_t bs, uint64_t off) {
		return report::LogSample{t, v, d, bs, off, prio};
	};
	const int64_t t = (window_end - job.stats_start) / kNsPerMs;
	for (int d = 0; d < 2; d++) {
		if (!(d ? s.writes() : s.reads()))
			continue;
		if (!s.bw_log.empty()) {
			// KiB/s over the window
			const long double kib = static_cast<long double>(job.win_bytes[d]) / 1024;
			const auto v =
				static_cast<uint64_t>(kib * 1e9L / static_cast<long double>(len));
			job.result.bw_log.push_back(sample(t, v, d, 0, 0));
		}
		if (!s.iops_log.empty()) {
			const auto v =
				static_cast<uint64_t>(static_cast<long double>(job.win_ios[d]) *
						      1e9L / static_cast<long double>(len));
			job.result.iops_log.push_back(sample(t, v, d, 0, 0));
		}
		if (!s.lat_log.empty() && job.win_ios[d]) {
			const auto v = static_cast<uint64_t>(
				job.win_lat[d] / static_cast<long double>(job.win_ios[d]));
			job.result.lat_log.push_back(report::LogSample{t, v, d, 0});
		}
		job.win_bytes[d] = job.win_ios[d] = 0;
		job.win_lat[d] = 0;
	}
}

// Emits every log_avg_msec window that ended at or before @now.
void JobEngine::roll_windows(Job &job, int64_t now)
{
	const int64_t w = static_cast<int64_t>(job.spec->log_avg_msec) * kNsPerMs;
	while (job.window_start + w <= now) {
		flush_window(job, job.window_start + w, w);
		job.window_start += w;
	}
}

void JobEngine::log_io(Job &job, bool write, uint32_t bs, uint64_t offset, int64_t clat,
		       int64_t done)
{
	const JobSpec &s = *job.spec;
	if (s.bw_log.empty() && s.lat_log.empty() && s.iops_log.empty())
		return;
	const int d = write ? 1 : 0;
	if (s.log_avg_msec) {
		roll_windows(job, done);
		job.win_bytes[d] += bs;
		job.win_ios[d]++;
		job.win_lat[d] += clat;
		return;
	}
	// One entry per IO; its bandwidth is its size over its latency; the
	// offset is from the start of the file, as fio logs it.
	const int prio = s.ioprio_class == 1;
	const int64_t t = (done - job.stats_start) / kNsPerMs;
	const uint64_t off = offset - s.file_start;
	if (!s.lat_log.empty()) {
		const auto v = static_cast<uint64_t>(clat);
		job.result.lat_log.push_back(report::LogSample{t, v, d, bs, off, prio});
		job.result.clat_log.push_back(report::LogSample{t, v, d, bs, off, prio});
		job.result.slat_log.push_back(report::LogSample{t, 0, d, bs, off, prio});
	}
	if (!s.iops_log.empty())
		job.result.iops_log.push_back(report::LogSample{t, 1, d, bs, off, prio});
	if (!s.bw_log.empty()) {
		const auto kibps =
			static_cast<uint64_t>(static_cast<long double>(bs) / 1024 * 1e9L /
					      static_cast<long double>(std::max<int64_t>(clat, 1)));
		job.result.bw_log.push_back(report::LogSample{t, kibps, d, bs, off, prio});
	}
}

// --- the end of a job ---------------------------------------------------------

void JobEngine::maybe_finish(size_t j)
{
	const JobSpec &s = specs_[j];
	Job &job = *jobs_[j];
	if (job.state != Job::Running || !job.stop || job.inflight || job.fsyncing ||
	    job.thinking || stopped_)
		return;
	if (s.end_fsync && s.writes() && !job.end_fsync_done && cache_) {
		job.fsyncing = true;
		cache_->fsync(job.task, job.file, [this, j](int64_t) {
			Job &jb = *jobs_[j];
			jb.fsyncing = false;
			jb.end_fsync_done = true;
			maybe_finish(j);
		});
		return;
	}
	finish(j);
}

void JobEngine::finish(size_t j)
{
	const JobSpec &s = specs_[j];
	Job &job = *jobs_[j];
	const int64_t now = host_.now();
	job.state = Job::Done;
	job.end = now;
	if (s.log_avg_msec && (!s.bw_log.empty() || !s.lat_log.empty() || !s.iops_log.empty()) &&
	    now > job.stats_start) {
		roll_windows(job, now);
		const int64_t rest = now - job.window_start;
		if (rest > 0 && (job.win_ios[0] || job.win_ios[1]))
			flush_window(job, now, rest);
	}
	done_++;
	end_time_ = now;
	if (finished()) {
		if (opt_.on_finished)
			opt_.on_finished();
		return;
	}
	// The next stonewall segment starts once every earlier job is done
	// (those of earlier segments are: this one started after them).
	if (job.segment == segment_)
		segment_left_--;
	if (segment_left_)
		return;
	if (segment_ + 1 < segments_)
		start_segment(segment_ + 1);
}

std::vector<report::JobResult> JobEngine::results() const
{
	std::vector<report::JobResult> out;
	const int64_t now = host_.now();
	for (const auto &job : jobs_) {
		report::JobResult r = job->result;
		if (job->state == Job::Running || job->state == Job::Done) {
			const int64_t end = job->state == Job::Done ? job->end : now;
			const int64_t run = std::max<int64_t>(end - job->stats_start, 0);
			if (r.read.ios)
				r.read.runtime_ns = run;
			if (r.write.ios)
				r.write.runtime_ns = run;
		}
		out.push_back(std::move(r));
	}
	return out;
}

} // namespace efqsim::workload
