// SPDX-License-Identifier: GPL-2.0
// efqsim workloads: the job engine.  See jobs.h.

#include "workload/jobs.h"

#include "workload/rng.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace efqsim::workload {

namespace {

constexpr int64_t kNever = std::numeric_limits<int64_t>::max();
constexpr int64_t kNsPerMs = 1'000'000;
constexpr int64_t kNsPerSec = 1'000'000'000;
// include/uapi/linux/ioprio.h: IOPRIO_PRIO_VALUE(class, level)
constexpr int kIoprioClassShift = 13;
constexpr int kEtimedout = 110; // fio's "max latency exceeded" error

// A uniform double in (0, 1].
double unit(Rng &rng)
{
	return (static_cast<double>(rng.next() >> 11) + 1.0) / 9007199254740992.0;
}

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
	uint64_t budget = 0;   // bytes issued after the ramp (size=)
	uint64_t ios = 0;      // IOs issued (number_ios)
	bool stop = false;     // issues no more IO
	bool low_wait = false; // iodepth_low: the queue drains first
	bool wait_for = false; // waits for the job named by wait_for
	// thinktime: a batch of thinktime_blocks IOs, then a stall
	unsigned int batch_issued = 0, batch_done = 0;
	bool thinking = false;
	// fsync
	unsigned int writes_since_fsync = 0;
	bool fsyncing = false, end_fsync_done = false;
	// offsets, per file
	struct File {
		PageCache::FileId cache = 0;
		int64_t seq_next[3] = {0, 0, 0};
		Permutation perm[3];
		uint64_t perm_pos[3] = {0, 0, 0};
		Permutation scatter;			// hot blocks of zipf/pareto/normal, spread
		uint64_t issued = 0;			// bytes this pass (file service)
		uint64_t zone_start = 0, zone_done = 0; // zonemode=strided
	};
	std::vector<File> files;
	size_t cur = 0;		  // the file in use
	unsigned int cur_ios = 0; // IOs on it since the last switch
	std::vector<size_t> open; // openfiles: the files in rotation
	size_t next_open = 0;
	Rng rng;
	// rw=randread:N: the run of IOs from one random offset
	unsigned int run_left = 0;
	uint64_t run_next = 0;
	// trimwrite: the write that follows a trim
	bool tw_pending = false;
	size_t tw_file = 0;
	uint64_t tw_offset = 0;
	uint32_t tw_bs = 0;
	// verify: the blocks written, read back in order
	struct Written {
		size_t file;
		uint64_t offset;
		uint32_t bs;
	};
	std::vector<Written> written;
	size_t verified = 0;
	bool verifying = false; // the read-back phase after the writes
	bool backlog = false;	// verify_backlog: reading the backlog back
	// rate: the next IO may not be issued before this
	int64_t rate_next = 0;
	bool rate_wait = false;
	int64_t cycle_start = 0;
	uint64_t cycle_bytes[3] = {0, 0, 0}, cycle_ios[3] = {0, 0, 0};
	// results
	report::JobResult result;
	// log_avg_msec windows
	int64_t window_start = 0;
	uint64_t win_bytes[2] = {0, 0}, win_ios[2] = {0, 0};
	long double win_lat[2] = {0, 0};
	// completed IOs and bytes, ramp included (fio's io_blocks, io_bytes)
	uint64_t done_ios = 0, done_bytes = 0;
	// cmdprio: its own stream, so that priorities leave the offsets alone
	Rng prio_rng;
	// flow: IOs counted in the job's flow group; held back (flow_wait:
	// until another job of the group issues; flow_sleeping: until its IO
	// completed and flow_sleep passed)
	bool in_flow = false;
	uint64_t flow_count = 0;
	bool flow_wait = false, flow_sleeping = false, flow_sleep_set = false;
	// latency_target: fio's probe of the queue depth
	unsigned int lat_qd = 0, lat_high = 0, lat_low = 0, lat_stable = 0;
	uint64_t lat_failed = 0, lat_ios = 0;
	int64_t lat_ts = 0;
	bool lat_end_run = false, lat_quiesce = false, lat_reset = false;
	// steady state: the samples of the last second
	int64_t ss_prev_time = 0;
	uint64_t ss_prev_ios = 0, ss_prev_bytes = 0;
	bool ss_ramp_over = false;
};

// One unit of steady-state detection: a job, or a reporting group with
// group_reporting (fio keeps the group's window in one of its jobs).
struct JobEngine::Steady {
	std::vector<size_t> jobs;
	std::vector<uint64_t> iops, bw; // the window, oldest first
	bool attained = false;
	double value = 0;
	bool ticking = false;
};

// A flow_id group: fio's counter starts at 1 and counts every IO of its
// jobs; a job may issue while its share of the counter is not above its
// share of the weights.
struct JobEngine::Flow {
	uint64_t counter = 1;
	uint64_t weight = 0;
	std::vector<size_t> jobs;
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
		job.prio_rng.reseed(mix_seed(s.seed, 0xc3d9));
		job.files.resize(s.files.size());
		const size_t nopen = s.openfiles ? std::min<size_t>(s.openfiles, s.files.size())
						 : s.files.size();
		for (size_t f = 0; f < nopen; f++)
			job.open.push_back(f);
		job.next_open = nopen % std::max<size_t>(s.files.size(), 1);
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
			for (size_t f = 0; f < s.files.size(); f++) {
				const JobFile &jf = s.files[f];
				auto it = files.find(jf.name);
				if (it == files.end())
					it = files.emplace(jf.name,
							   cache_->add_file(jf.start, jf.bytes))
						     .first;
				jobs_[i]->files[f].cache = it->second;
			}
			cache_->set_task_cgroup(jobs_[i]->task, s.cgroup);
		}
	}
	// Steady-state units: per job, or per reporting group.
	std::map<int, size_t> group_unit;
	for (size_t i = 0; i < specs_.size(); i++) {
		const JobSpec &s = specs_[i];
		if (s.ss == JobSpec::SsMode::Off)
			continue;
		size_t u;
		if (s.group_reporting && group_unit.count(s.groupid)) {
			u = group_unit[s.groupid];
		} else {
			u = steady_.size();
			steady_.push_back(std::make_unique<Steady>());
			if (s.group_reporting)
				group_unit[s.groupid] = u;
		}
		steady_[u]->jobs.push_back(i);
		ss_unit_[i] = u;
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

bool JobEngine::waits(size_t j) const
{
	const JobSpec &s = specs_[j];
	if (s.wait_for.empty())
		return false;
	for (size_t i = 0; i < j; i++)
		if (specs_[i].name == s.wait_for && jobs_[i]->state != Job::Done)
			return true;
	return false;
}

void JobEngine::begin(size_t j)
{
	if (stopped_)
		return;
	const JobSpec &s = specs_[j];
	Job &job = *jobs_[j];
	if (job.state == Job::Done)
		return;
	if (job.stop) { // ended by exitall before it started
		job.wait_for = false;
		job.state = Job::Running;
		job.start = job.stats_start = host_.now();
		finish(j);
		return;
	}
	if (waits(j)) {
		job.wait_for = true; // finish() of the job waited for begins it
		return;
	}
	job.wait_for = false;
	const int64_t now = host_.now();
	job.state = Job::Running;
	job.start = now;
	job.stats_start = now + s.ramp_ns;
	job.window_start = job.stats_start;
	if (s.runtime_ns) {
		job.deadline = job.stats_start + s.runtime_ns;
	}
	job.rate_next = now;
	job.cycle_start = job.stats_start;
	if (cache_ && s.invalidate)
		for (const auto &f : job.files)
			cache_->invalidate(f.cache);
	if (s.flow) {
		Flow &fl = flows_[s.flow_id];
		fl.weight += s.flow;
		fl.jobs.push_back(j);
		job.in_flow = true;
		job.flow_count = 0;
	}
	if (s.latency_target_ns) {
		// fio's lat_target_init(): from depth 1 up to iodepth
		job.lat_qd = 1;
		job.lat_high = job.depth;
		job.lat_low = 1;
		job.lat_ts = now;
		job.lat_ios = job.done_ios;
	}
	if (auto it = ss_unit_.find(j); it != ss_unit_.end()) {
		job.ss_prev_time = now;
		job.ss_ramp_over = s.ss_ramp_ns == 0;
		Steady &u = *steady_[it->second];
		if (!u.ticking) {
			// fio checks every second (its helper thread)
			u.ticking = true;
			const size_t unit = it->second;
			host_.at(now + kNsPerSec, [this, unit]() { ss_tick(unit); });
		}
	}
	pump(j);
}

// --- what the next IO is ---------------------------------------------------------

uint32_t JobEngine::pick_bs(Job &job, int d)
{
	const BlockSizes &b = job.spec->bsd[d];
	if (!b.split.empty()) {
		unsigned int r = static_cast<unsigned int>(job.rng.below(100));
		for (const auto &[bs, pct] : b.split) {
			if (r < pct)
				return bs;
			r -= pct;
		}
		return b.split.back().first;
	}
	if (b.min == b.max)
		return b.min;
	// bsrange: multiples of the minimum if it is a power of 2, else of 512
	const uint32_t step = (b.min & (b.min - 1)) == 0 ? b.min : 512;
	return b.min + static_cast<uint32_t>(job.rng.below((b.max - b.min) / step + 1)) * step;
}

size_t JobEngine::pick_file(Job &job)
{
	const JobSpec &s = *job.spec;
	const size_t n = s.files.size();
	if (n == 1)
		return 0;
	auto done = [&](size_t f) { return job.files[f].issued >= s.files[f].region_bytes; };
	// A file whose pass is done leaves the rotation; the next one opens.
	for (size_t k = 0; k < job.open.size(); k++) {
		if (!done(job.open[k]))
			continue;
		bool all = true;
		for (size_t f = 0; f < n; f++)
			all = all && done(f);
		if (all) { // a new pass over every file
			for (auto &f : job.files)
				f.issued = 0;
			break;
		}
		for (size_t tries = 0; tries < n; tries++) {
			const size_t cand = job.next_open;
			job.next_open = (job.next_open + 1) % n;
			if (!done(cand) &&
			    std::find(job.open.begin(), job.open.end(), cand) == job.open.end()) {
				job.open[k] = cand;
				break;
			}
		}
	}
	size_t pos = static_cast<size_t>(std::find(job.open.begin(), job.open.end(), job.cur) -
					 job.open.begin());
	switch (s.file_service) {
	case FileService::Sequential:
		if (pos == job.open.size() || done(job.cur))
			job.cur =
				job.open[pos == job.open.size() ? 0 : (pos + 1) % job.open.size()];
		break;
	case FileService::RoundRobin:
		if (pos == job.open.size()) {
			job.cur = job.open[0];
			job.cur_ios = 0;
		} else if (job.cur_ios >= s.file_service_nr) {
			job.cur = job.open[(pos + 1) % job.open.size()];
			job.cur_ios = 0;
		}
		break;
	case FileService::Random:
		if (pos == job.open.size() || job.cur_ios >= s.file_service_nr) {
			job.cur = job.open[job.rng.below(job.open.size())];
			job.cur_ios = 0;
		}
		break;
	}
	job.cur_ios++;
	return job.cur;
}

// A block index in [0, blocks) by random_distribution.
uint64_t JobEngine::pick_block(Job &job, size_t f, uint64_t blocks, int d)
{
	const JobSpec &s = *job.spec;
	Job::File &file = job.files[f];
	auto spread = [&](uint64_t idx) {
		if (s.dist_center >= 0) // a center: the hot spot is there, not spread
			return (idx + static_cast<uint64_t>(s.dist_center *
							    static_cast<double>(blocks))) %
			       blocks;
		if (file.scatter.size() != blocks)
			file.scatter.reset(blocks, mix_seed(s.seed, 0x5ca77e5));
		return file.scatter.at(idx);
	};
	const double n = static_cast<double>(blocks);
	switch (s.dist) {
	case RandDist::Random:
		break;
	case RandDist::Zipf: {
		// The continuous power law x^-theta over [1, blocks + 1).
		const double e = 1.0 - s.dist_param;
		const double x = std::pow(unit(job.rng) * (std::pow(n + 1, e) - 1) + 1, 1 / e);
		return spread(std::min<uint64_t>(static_cast<uint64_t>(x) - 1, blocks - 1));
	}
	case RandDist::Pareto: {
		const double p = std::log(s.dist_param) / std::log(1.0 - s.dist_param);
		const auto idx = static_cast<uint64_t>((n - 1) * std::pow(unit(job.rng), p));
		return spread(std::min<uint64_t>(idx, blocks - 1));
	}
	case RandDist::Normal: {
		// Box-Muller; sigma is a percentage of the range.
		const double z = std::sqrt(-2 * std::log(unit(job.rng))) *
				 std::cos(2 * M_PI * unit(job.rng));
		const double center = s.dist_center >= 0 ? s.dist_center : 0.5;
		double x = center * n + z * s.dist_param / 100 * n;
		x = std::fmod(std::fmod(x, n) + n, n);
		return std::min<uint64_t>(static_cast<uint64_t>(x), blocks - 1);
	}
	case RandDist::Zoned:
	case RandDist::ZonedAbs: {
		double r = unit(job.rng) * 100;
		uint64_t lo = 0;
		for (const auto &[pct, range] : s.zones) {
			const uint64_t len =
				s.dist == RandDist::Zoned
					? static_cast<uint64_t>(n * static_cast<double>(range) /
								100)
					: range / std::max<uint64_t>(s.bsd[d].align ? s.bsd[d].align
										    : s.bsd[d].min,
								     1);
			if (r < pct || &range == &s.zones.back().second) {
				const uint64_t first = std::min(lo, blocks - 1);
				const uint64_t span =
					std::max<uint64_t>(std::min(len, blocks - first), 1);
				return first + job.rng.below(span);
			}
			r -= pct;
			lo += len;
		}
		break;
	}
	}
	if (s.norandommap || !s.bsd[d].fixed() || s.bsd[d].align) {
		return job.rng.below(blocks);
	}
	// A fresh permutation for every pass over the region.
	if (file.perm[d].size() != blocks || file.perm_pos[d] >= blocks) {
		file.perm[d].reset(blocks, job.rng.next());
		file.perm_pos[d] = 0;
	}
	return file.perm[d].at(file.perm_pos[d]++);
}

uint64_t JobEngine::next_offset(Job &job, size_t f, int d, uint32_t bs)
{
	const JobSpec &s = *job.spec;
	const JobFile &jf = s.files[f];
	Job::File &file = job.files[f];
	// The window IO goes to: the region, or its current zone (strided).
	uint64_t base = 0, len = jf.region_bytes;
	if (s.zone_size) {
		if (file.zone_done >= s.zone_size) {
			file.zone_start += s.zone_range + s.zone_skip;
			file.zone_done = 0;
			for (auto &p : file.seq_next)
				p = 0;
		}
		if (file.zone_start + bs > jf.region_bytes)
			file.zone_start = 0; // past the end: the first zone again
		base = file.zone_start;
		len = std::min(s.zone_range, jf.region_bytes - base);
		file.zone_done += bs;
	}
	const bool random = s.random() && (s.percentage_random >= 100 ||
					   job.rng.below(100) < s.percentage_random);
	if (!random) {
		int64_t pos = file.seq_next[d];
		const auto ilen = static_cast<int64_t>(len);
		if (pos < 0 || pos + bs > ilen)
			pos = s.seq_skip < 0 ? (ilen - bs) / 512 * 512 : 0;
		int64_t next = pos + bs + s.seq_skip;
		if (s.seq_skip < 0 && next < 0)
			next = (ilen - bs) / 512 * 512; // backwards: wrap to the end
		file.seq_next[d] = next;
		return jf.region_start + base + static_cast<uint64_t>(pos);
	}
	if (job.run_left > 0 && job.run_next + bs <= len) {
		// rw=randread:N: the IOs after a random one
		job.run_left--;
		const uint64_t off = job.run_next;
		if (!s.rand_identical)
			job.run_next += bs;
		return jf.region_start + base + off;
	}
	const uint64_t align = s.bsd[d].align ? s.bsd[d].align : s.bsd[d].min;
	const uint64_t blocks = (len - bs) / align + 1; // >= 1 (the parser checks)
	const uint64_t off = pick_block(job, f, blocks, d) * align;
	job.run_left = s.rand_every - 1;
	job.run_next = s.rand_identical ? off : off + bs;
	return jf.region_start + base + off;
}

void JobEngine::pump(size_t j)
{
	const JobSpec &s = specs_[j];
	Job &job = *jobs_[j];
	if (job.state != Job::Running)
		return;
	const int64_t now = host_.now();
	while (!job.stop && !job.thinking && !job.fsyncing && !job.rate_wait &&
	       !job.flow_sleeping) {
		if (now >= job.deadline) {
			job.stop = true;
			break;
		}
		if (job.lat_quiesce) { // latency_target: drain first
			if (job.inflight)
				return;
			job.lat_quiesce = false;
			if (job.lat_reset) { // the final run at the depth found
				job.lat_reset = false;
				lat_reset_stats(j);
			} else {
				// fio drains before the new window: the drained
				// IOs' latencies do not count in it
				lat_new_cycle(job);
			}
		}
		const unsigned int depth =
			s.latency_target_ns ? std::min(job.depth, job.lat_qd) : job.depth;
		if (job.inflight >= depth) {
			if (s.iodepth_low && s.iodepth_low < job.depth)
				job.low_wait = true;
			return;
		}
		if (job.low_wait) {
			if (job.inflight > s.iodepth_low)
				return;
			job.low_wait = false;
		}
		if (s.thinktime_ns && job.batch_issued >= s.thinktime_blocks)
			return; // the batch completes, then the job thinks
		if (s.fsync_blocks && job.writes_since_fsync >= s.fsync_blocks) {
			if (job.inflight)
				return;
			job.fsyncing = true;
			job.writes_since_fsync = 0;
			cache_->fsync(job.task, job.files[job.cur].cache, [this, j](int64_t) {
				jobs_[j]->fsyncing = false;
				pump(j);
				maybe_finish(j);
			});
			return;
		}
		if (s.rate[0] || s.rate[1] || s.rate[2] || s.rate_iops[0] || s.rate_iops[1] ||
		    s.rate_iops[2]) {
			if (now < job.rate_next) {
				job.rate_wait = true;
				host_.at(std::min(job.rate_next, job.deadline), [this, j]() {
					jobs_[j]->rate_wait = false;
					pump(j);
				});
				return;
			}
		}
		if (job.in_flow && !flow_admit(j))
			return;
		// verify: the blocks written, read back
		if (s.verify && s.verify_backlog &&
		    job.written.size() - job.verified >= s.verify_backlog)
			job.backlog = true; // verify the backlog before writing on
		if (job.verifying || job.backlog) {
			if (job.verified < job.written.size()) {
				const Job::Written w = job.written[job.verified++];
				issue(j, 0, w.file, w.offset, w.bs, true);
				continue;
			}
			job.backlog = false;
			if (job.verifying) {
				job.stop = true;
				break;
			}
		}
		if (job.tw_pending) { // trimwrite: the write after the trim
			job.tw_pending = false;
			issue(j, 1, job.tw_file, job.tw_offset, job.tw_bs, false);
			continue;
		}
		int d;
		if (s.trims())
			d = 2;
		else if (s.mixed())
			d = job.rng.below(100) >= s.rwmixread ? 1 : 0;
		else
			d = s.writes() ? 1 : 0;
		const uint32_t bs = pick_bs(job, d);
		const bool over =
			(!s.time_based && now >= job.stats_start && job.budget + bs > s.io_bytes) ||
			(s.number_ios && job.ios >= s.number_ios);
		if (over) {
			if (s.verify && job.verified < job.written.size()) {
				// fio verifies once the writes are done
				if (job.inflight)
					return;
				job.verifying = true;
				continue;
			}
			job.stop = true;
			break;
		}
		const size_t f = pick_file(job);
		const uint64_t offset = next_offset(job, f, d, bs);
		job.files[f].issued += bs;
		if (s.rw == RwMode::TrimWrite || s.rw == RwMode::RandTrimWrite) {
			job.tw_pending = true;
			job.tw_file = f;
			job.tw_offset = offset;
			job.tw_bs = bs;
		}
		if (d == 1 && s.verify)
			job.written.push_back(Job::Written{f, offset, bs});
		if (d == 1 && s.verify_only)
			d = 0; // only the read-back of what would be written
		issue(j, d, f, offset, bs, false);
	}
	maybe_finish(j);
}

void JobEngine::issue(size_t j, int d, size_t f, uint64_t offset, uint32_t bs, bool verify)
{
	const JobSpec &s = specs_[j];
	Job &job = *jobs_[j];
	const int64_t now = host_.now();
	const bool write = d == 1;
	job.inflight++;
	job.batch_issued++;
	job.ios++;
	if (now >= job.stats_start && !verify)
		job.budget += bs; // size= counts the workload, not its read-back
	if (write)
		job.writes_since_fsync++;
	// rate, rate_iops: the next IO waits its share of a second
	if (s.rate[d] || s.rate_iops[d]) {
		int64_t gap = 0;
		if (s.rate[d])
			gap = static_cast<int64_t>(static_cast<long double>(bs) * kNsPerSec /
						   s.rate[d]);
		if (s.rate_iops[d])
			gap = std::max<int64_t>(gap,
						kNsPerSec / static_cast<int64_t>(s.rate_iops[d]));
		if (s.rate_poisson)
			gap = static_cast<int64_t>(-std::log(unit(job.rng)) *
						   static_cast<double>(gap));
		job.rate_next = std::max(job.rate_next, now) + gap;
	}
	// cmdprio reaches the bio only with direct IO: the kernel copies
	// the aio/io_uring request's priority (ki_ioprio) into the bios of
	// its direct-IO paths only (6.1 block/fops.c, fs/iomap/direct-io.c)
	const unsigned short ioprio = s.direct && d < 2 ? pick_prio(job, d, bs) : 0;
	const bool rt = ioprio ? (ioprio >> kIoprioClassShift) == 1 : s.ioprio_class == 1;
	auto done = [this, j, d, bs, offset, now, rt](int64_t when) {
		complete(j, d, bs, offset, now, when, rt);
	};
	if (d == 2) {
		// A discard goes to the device whether the job is buffered or not
		// (BLKDISCARD, or a punched hole the file system discards).
		Io io;
		io.offset = offset;
		io.bytes = bs;
		io.discard = true;
		io.sync = false;
		if (cache_)
			cache_->invalidate_range(offset, bs);
		host_.submit(job.task, io, std::move(done));
	} else if (s.direct) {
		Io io;
		io.offset = offset;
		io.bytes = bs;
		io.write = write;
		io.sync = true;	 // O_DIRECT reads and writes are REQ_SYNC
		io.idle = write; // and direct writes REQ_IDLE, as the kernel sets them
		io.ioprio = ioprio;
		if (write && cache_)
			cache_->invalidate_range(offset, bs);
		host_.submit(job.task, io, std::move(done));
	} else if (write) {
		cache_->write(job.task, job.files[f].cache, offset, bs, std::move(done));
	} else {
		cache_->read(job.task, job.files[f].cache, offset, bs, std::move(done));
	}
}

// rate_min, rate_iops_min: checked at the end of every rate_cycle.
void JobEngine::check_min_rate(size_t j)
{
	const JobSpec &s = specs_[j];
	Job &job = *jobs_[j];
	const int64_t now = host_.now();
	if (now < job.stats_start || now - job.cycle_start < s.rate_cycle_ns)
		return;
	const long double secs = static_cast<long double>(now - job.cycle_start) / kNsPerSec;
	for (int d = 0; d < 3; d++) {
		const bool slow =
			(s.rate_min[d] &&
			 static_cast<long double>(job.cycle_bytes[d]) < s.rate_min[d] * secs) ||
			(s.rate_iops_min[d] &&
			 static_cast<long double>(job.cycle_ios[d]) < s.rate_iops_min[d] * secs);
		const bool used = d == 0 ? s.reads() : d == 1 ? s.writes() : s.trims();
		if (slow && used && !job.stop) {
			// fio ends the job: "min rate ... not met"
			job.result.error = 1;
			job.stop = true;
		}
		job.cycle_bytes[d] = job.cycle_ios[d] = 0;
	}
	job.cycle_start = now;
}

unsigned short JobEngine::pick_prio(Job &job, int d, uint32_t bs)
{
	const auto &split = job.spec->cmdprio[d];
	if (split.empty())
		return 0;
	unsigned int total = 0;
	for (const auto &c : split)
		if (c.bs == 0 || c.bs == bs)
			total += c.pct;
	if (!total)
		return 0;
	auto r = static_cast<unsigned int>(job.prio_rng.below(100));
	if (r >= total)
		return 0;
	for (const auto &c : split) {
		if (c.bs != 0 && c.bs != bs)
			continue;
		if (r < c.pct)
			return static_cast<unsigned short>((c.ioprio_class << kIoprioClassShift) |
							   c.ioprio);
		r -= c.pct;
	}
	return 0;
}

// --- flow ----------------------------------------------------------------------

bool JobEngine::flow_admit(size_t j)
{
	const JobSpec &s = specs_[j];
	Job &job = *jobs_[j];
	Flow &fl = flows_[s.flow_id];
	if (static_cast<double>(job.flow_count) / static_cast<double>(fl.counter) >
	    static_cast<double>(s.flow) / static_cast<double>(fl.weight)) {
		// Held back: fio retries at once (flow_sleep=0), or waits for
		// its IO in flight and sleeps flow_sleep.
		if (s.flow_sleep_ns) {
			job.flow_sleeping = true;
			if (!job.inflight)
				flow_sleep(j);
		} else {
			job.flow_wait = true;
		}
		return false;
	}
	fl.counter++;
	job.flow_count++;
	flow_wake(fl, j);
	return true;
}

// Jobs of @fl held back without a sleep try again (after @except's IO).
void JobEngine::flow_wake(Flow &fl, size_t except)
{
	for (size_t k : fl.jobs) {
		if (k == except || !jobs_[k]->flow_wait)
			continue;
		jobs_[k]->flow_wait = false;
		host_.at(host_.now(), [this, k]() { pump(k); });
	}
}

void JobEngine::flow_sleep(size_t j)
{
	Job &job = *jobs_[j];
	job.flow_sleep_set = true;
	const int64_t now = host_.now();
	const int64_t wake = std::max(now, std::min(now + specs_[j].flow_sleep_ns, job.deadline));
	host_.at(wake, [this, j]() {
		Job &jb = *jobs_[j];
		jb.flow_sleeping = jb.flow_sleep_set = false;
		pump(j);
		maybe_finish(j);
	});
}

// --- latency target (fio's queue-depth probe) ---------------------------------

void JobEngine::lat_new_cycle(Job &job)
{
	job.lat_ts = host_.now();
	job.lat_ios = job.done_ios;
	job.lat_failed = 0;
}

// The window failed: halve towards the last good depth.  True at depth 1:
// nothing left to try.
bool JobEngine::lat_ramp_down(Job &job)
{
	if (job.lat_qd == 1)
		return true;
	job.lat_high = job.lat_qd;
	if (job.lat_qd == job.lat_low)
		job.lat_low--;
	job.lat_qd = (job.lat_qd + job.lat_low) / 2;
	job.lat_stable = 0;
	job.lat_quiesce = true; // the deeper queue's IO drains, then a new window
	return false;
}

void JobEngine::lat_success(Job &job)
{
	const JobSpec &s = *job.spec;
	const unsigned int qd = job.lat_qd;
	job.lat_low = qd;
	if (qd + 1 == job.lat_high && ++job.lat_stable >= 3) {
		// stable three windows in a row: room for one more
		job.lat_high++;
		job.lat_stable = 0;
	}
	if (job.lat_high != job.depth)
		job.lat_qd = (qd + job.lat_high) / 2; // bisect below the failure
	else
		job.lat_qd = qd * 2; // no failure yet: double
	job.lat_qd = std::min(job.lat_qd, job.depth);
	if (!s.latency_run && job.lat_qd == qd) {
		if (job.lat_end_run) {
			job.stop = true; // the final window passed: done
		} else {
			// The depth is found: a final run at it, statistics anew
			// (and a new window) once the queue drained.
			job.lat_end_run = true;
			job.lat_quiesce = true;
			job.lat_reset = true;
			return;
		}
	}
	lat_new_cycle(job);
}

void JobEngine::lat_check(Job &job)
{
	const JobSpec &s = *job.spec;
	if (host_.now() - job.lat_ts < s.latency_window_ns)
		return;
	const uint64_t ios = job.done_ios - job.lat_ios;
	// no IO in the window: 0/0, which fio's comparison fails
	const double ok =
		ios ? 100.0 * static_cast<double>(ios - job.lat_failed) / static_cast<double>(ios)
		    : -1.0;
	if (ok >= s.latency_percentile)
		lat_success(job);
	else
		lat_ramp_down(job);
}

void JobEngine::lat_reset_stats(size_t j)
{
	const JobSpec &s = specs_[j];
	Job &job = *jobs_[j];
	const int64_t now = host_.now();
	job.result.read = report::DirStats();
	job.result.write = report::DirStats();
	job.stats_start = now;
	job.window_start = now;
	job.cycle_start = now;
	job.budget = 0;
	if (s.runtime_ns)
		job.deadline = now + s.runtime_ns;
	lat_new_cycle(job);
}

// --- steady state -----------------------------------------------------------------

void JobEngine::ss_tick(size_t unit)
{
	Steady &u = *steady_[unit];
	const int64_t now = host_.now();
	if (stopped_ || u.attained) {
		u.ticking = false;
		return;
	}
	uint64_t iops = 0, bw = 0;
	bool sampled = false, live = false;
	for (size_t j : u.jobs) {
		Job &job = *jobs_[j];
		const JobSpec &s = specs_[j];
		if (job.state != Job::Done)
			live = true;
		if (job.state != Job::Running)
			continue;
		// Data collection begins a second after ss_ramp.
		if (!job.ss_ramp_over && now - job.stats_start >= s.ss_ramp_ns + kNsPerSec)
			job.ss_ramp_over = true;
		const int64_t dt = now - job.ss_prev_time;
		if (job.ss_ramp_over && dt > 0) {
			const auto per_s = [dt](uint64_t n) {
				return static_cast<uint64_t>(static_cast<long double>(n) *
							     kNsPerSec /
							     static_cast<long double>(dt));
			};
			bw += per_s(job.done_bytes - job.ss_prev_bytes);
			iops += per_s(job.done_ios - job.ss_prev_ios);
			sampled = true;
		}
		job.ss_prev_time = now;
		job.ss_prev_ios = job.done_ios;
		job.ss_prev_bytes = job.done_bytes;
	}
	if (sampled) {
		const JobSpec &s = specs_[u.jobs.front()];
		const bool by_iops =
			s.ss == JobSpec::SsMode::Iops || s.ss == JobSpec::SsMode::IopsSlope;
		const bool slope =
			s.ss == JobSpec::SsMode::IopsSlope || s.ss == JobSpec::SsMode::BwSlope;
		u.iops.push_back(iops);
		u.bw.push_back(bw);
		if (u.iops.size() > s.ss_dur_s) {
			u.iops.erase(u.iops.begin());
			u.bw.erase(u.bw.begin());
		}
		if (u.iops.size() == s.ss_dur_s) {
			const auto &y = by_iops ? u.iops : u.bw;
			const double n = static_cast<double>(y.size());
			double sum = 0, sxy = 0;
			for (size_t i = 0; i < y.size(); i++) {
				sum += static_cast<double>(y[i]);
				sxy += static_cast<double>(i) * static_cast<double>(y[i]);
			}
			const double mean = sum / n;
			double v;
			if (slope) {
				// least squares over x = 0 .. n-1, one sample a second
				const double sx = n * (n - 1) / 2,
					     sxx = (n - 1) * n * (2 * n - 1) / 6;
				v = (sxy - sx * sum / n) / (sxx - sx * sx / n);
			} else {
				v = 0;
				for (uint64_t x : y)
					v = std::max(v, std::fabs(static_cast<double>(x) - mean));
			}
			if (s.ss_pct)
				v = 100.0 * v / mean;
			u.value = v;
			if (std::fabs(v) < s.ss_limit) {
				u.attained = true;
				for (size_t k : u.jobs) {
					Job &o = *jobs_[k];
					if (o.state == Job::Done || o.stop)
						continue;
					o.stop = true;
					if (o.state == Job::Running)
						maybe_finish(k);
				}
			}
		}
	}
	if (u.attained || !live) {
		u.ticking = false;
		return;
	}
	host_.at(now + kNsPerSec, [this, unit]() { ss_tick(unit); });
}

void JobEngine::complete(size_t j, int d, uint32_t bs, uint64_t offset, int64_t submitted,
			 int64_t done, bool rt)
{
	const JobSpec &s = specs_[j];
	Job &job = *jobs_[j];
	const bool write = d != 0; // trims count in the write direction
	job.inflight--;
	job.batch_done++;
	job.done_ios++;
	job.done_bytes += bs;
	// Counted once the ramp is over: issued after it, or completed after it
	// (fio resets its statistics at the end of the ramp).
	if ((submitted >= job.stats_start || done > job.stats_start) && job.state == Job::Running) {
		report::DirStats &ds = write ? job.result.write : job.result.read;
		const int64_t clat = done - submitted;
		ds.io_bytes += bs;
		ds.ios++;
		ds.clat.add(clat);
		ds.lat.add(clat);
		log_io(job, write, bs, offset, clat, done, rt);
		job.cycle_bytes[d] += bs;
		job.cycle_ios[d]++;
		if (s.latency_target_ns && clat > s.latency_target_ns && !job.stop) {
			if (s.latency_percentile < 100) {
				job.lat_failed++;
			} else if (lat_ramp_down(job)) {
				// at depth 1 and still too slow: fio's "max latency
				// exceeded" (ETIMEDOUT) ends the job
				job.result.error = kEtimedout;
				job.stop = true;
			}
		}
	}
	if (s.latency_target_ns && job.state == Job::Running && !job.stop && !job.lat_quiesce &&
	    host_.now() >= job.stats_start)
		lat_check(job);
	if (job.flow_sleeping && !job.flow_sleep_set && !job.inflight)
		flow_sleep(j);
	if (s.rate_min[0] || s.rate_min[1] || s.rate_min[2] || s.rate_iops_min[0] ||
	    s.rate_iops_min[1] || s.rate_iops_min[2])
		check_min_rate(j);
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
		       int64_t done, bool rt)
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
	const int prio = rt; // fio's column: 1 for an IO of high (RT) priority
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
	    job.thinking || job.rate_wait || job.flow_sleeping || stopped_)
		return;
	if (s.end_fsync && s.writes() && !job.end_fsync_done && cache_) {
		job.fsyncing = true;
		fsync_files(j, 0);
		return;
	}
	finish(j);
}

// end_fsync: every file of the job, one after the other.
void JobEngine::fsync_files(size_t j, size_t from)
{
	Job &job = *jobs_[j];
	if (from >= job.files.size()) {
		job.fsyncing = false;
		job.end_fsync_done = true;
		maybe_finish(j);
		return;
	}
	cache_->fsync(job.task, job.files[from].cache,
		      [this, j, from](int64_t) { fsync_files(j, from + 1); });
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
	if (job.in_flow) { // fio's flow_exit_job(): its IOs and weight leave
		Flow &fl = flows_[s.flow_id];
		fl.counter -= job.flow_count;
		fl.weight -= s.flow;
		fl.jobs.erase(std::find(fl.jobs.begin(), fl.jobs.end(), j));
		job.in_flow = false;
		flow_wake(fl, j);
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
	if (!segment_left_ && segment_ + 1 < segments_)
		start_segment(segment_ + 1);
	// Jobs that wait_for this one may begin.
	for (size_t k = 0; k < jobs_.size(); k++)
		if (jobs_[k]->wait_for && !waits(k))
			begin(k);
	// exitall: the others end too (its group, its segment, or all).
	if (s.exitall) {
		for (size_t k = 0; k < jobs_.size(); k++) {
			Job &o = *jobs_[k];
			const bool mine = s.exit_what == 2   ? true
					  : s.exit_what == 1 ? o.segment == job.segment
							     : specs_[k].groupid == s.groupid;
			if (k == j || !mine || o.state == Job::Done || o.stop)
				continue;
			o.stop = true;
			if (o.state == Job::Running)
				maybe_finish(k);
			else if (o.wait_for)
				begin(k);
		}
	}
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
		if (auto it = ss_unit_.find(static_cast<size_t>(&job - &jobs_[0]));
		    it != ss_unit_.end()) {
			const JobSpec &s = *job->spec;
			const Steady &u = *steady_[it->second];
			r.ss.criterion = s.ss_text;
			r.ss.duration_s = s.ss_dur_s;
			r.ss.attained = u.attained;
			r.ss.slope = s.ss == JobSpec::SsMode::IopsSlope ||
				     s.ss == JobSpec::SsMode::BwSlope;
			r.ss.pct = s.ss_pct;
			r.ss.value = u.value;
			r.ss.iops = u.iops;
			r.ss.bw = u.bw;
		}
		if (job->spec->latency_target_ns) {
			r.latency_depth = job->lat_qd;
			r.latency_target_ns = job->spec->latency_target_ns;
			r.latency_window_ns = job->spec->latency_window_ns;
			r.latency_percentile = job->spec->latency_percentile;
		}
		out.push_back(std::move(r));
	}
	return out;
}

} // namespace efqsim::workload
