// SPDX-License-Identifier: GPL-2.0
#include "run/replay.h"

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <map>
#include <memory>
#include <queue>
#include <unordered_map>

#include "blk/model.h"
#include "dev/device.h"
#include "report/json.h"
#include "run/drive.h"
#include "trace/event.h"
#include "trace/ios.h"

namespace efqsim::run {
namespace {

constexpr int64_t kSec = 1'000'000'000;
// A longer trace has corrupt time stamps (and would overflow simulated time).
constexpr int64_t kMaxSpanNs = 30 * 24 * 3600 * kSec;
// How much earlier than its queue a completion may be stamped (the CPUs'
// clocks of a recording differ by microseconds).
constexpr int64_t kMaxSkewNs = kSec;

std::string normalize_group(std::string g)
{
	while (!g.empty() && g.front() == '/')
		g.erase(g.begin());
	while (!g.empty() && g.back() == '/')
		g.pop_back();
	return g;
}

std::string shown(const std::string &group)
{
	return "/" + group;
}

// Bytes completed over time, in buckets whose width doubles whenever there
// would be more than kMaxBuckets of them: memory stays bounded however long
// the trace, and a window's sum is off by at most one bucket at each end
// (1/32768 of the span).
class Timeline {
public:
	// @t: ns since the timeline's origin (negative counts as 0).
	void add(int64_t t, uint64_t bytes)
	{
		t = std::max<int64_t>(t, 0);
		while (static_cast<uint64_t>(t / width_) >= kMaxBuckets) {
			for (size_t i = 0; i < b_.size(); i += 2)
				b_[i / 2] = b_[i] + (i + 1 < b_.size() ? b_[i + 1] : 0);
			b_.resize((b_.size() + 1) / 2);
			width_ *= 2;
		}
		size_t i = static_cast<size_t>(t / width_);
		if (i >= b_.size())
			b_.resize(i + 1, 0);
		b_[i] += bytes;
	}
	// The bytes of the buckets whose middle lies in [from, to).
	uint64_t sum(int64_t from, int64_t to) const
	{
		uint64_t s = 0;
		for (size_t i = 0; i < b_.size(); i++) {
			int64_t mid = static_cast<int64_t>(i) * width_ + width_ / 2;
			if (mid >= from && mid < to)
				s += b_[i];
		}
		return s;
	}

private:
	static constexpr uint64_t kMaxBuckets = 1 << 15;
	int64_t width_ = 100'000; // 100 us to start with
	std::vector<uint64_t> b_;
};

// When a group had IO, in the trace (ns since its first queue) or in the
// simulation (ns since the replay's start): from its first IO's queue or
// submission to its last completion.
struct Activity {
	int64_t first = -1, last = -1;
	void saw(int64_t start, int64_t done)
	{
		if (first < 0 || start < first)
			first = start;
		last = std::max(last, done);
	}
};

// Narrows @w to the part of it during which @a was active.
void narrow_to(Window &w, const Activity &a)
{
	if (a.first < 0) {
		w = Window{0, 0}; // never active: no common window
		return;
	}
	if (w.from < 0 && w.to < 0) {
		w = Window{a.first, a.last};
		return;
	}
	w.from = std::max(w.from, a.first);
	w.to = std::min(w.to, a.last);
}

struct Group {
	std::string path; // "" for the root
	unsigned int weight = 0;
	bool mapped = false; // named by a --map rule
	uint64_t ios = 0, bytes = 0;
	uint64_t rec_bytes = 0, rec_done = 0;
	long double rec_lat = 0;
	uint64_t sim_bytes_in_span = 0, sim_done = 0;
	long double sim_lat = 0;
	Activity rec_act, sim_act;
	Timeline rec_tl, sim_tl;
};

struct Proc {
	uint32_t pid = 0;
	std::string comm;
	size_t group = 0;
	workload::TaskId task = 0;
	report::JobResult job;
	int64_t first[2] = {-1, -1}, last[2] = {0, 0};
	// Closed loop: this process's records not yet issued, in order, and
	// the times its IOs completed in the simulation, in order.
	std::deque<size_t> queue;
	std::vector<int64_t> sim_done;
	int64_t last_issue = -1; // simulated, of the previous record
	int64_t last_queue = 0;	 // recorded, of the previous record
};

// One IO as the replay keeps it.
struct Rec {
	int64_t queue_ns = 0, complete_ns = -1;
	uint64_t offset = 0;
	uint32_t bytes = 0;
	uint32_t rwbs = 0;
	size_t proc = 0;
	// Closed loop: the process had completed @need IOs in the trace when
	// this one was queued, the last of them at @need_at.
	uint64_t need = 0;
	int64_t need_at = -1;
};

class Replayer {
public:
	Replayer(blk::Model &model, const ReplayOptions &opt) : model_(model), opt_(opt)
	{
		groups_.push_back(Group{}); // the root
		for (const MapRule &m : opt.maps) {
			size_t g = group_of(normalize_group(m.group), m.weight);
			groups_[g].mapped = true;
			switch (m.kind) {
			case MapRule::Kind::pid:
				by_pid_.emplace(static_cast<uint32_t>(
							std::strtoul(m.key.c_str(), nullptr, 10)),
						g);
				break;
			case MapRule::Kind::comm:
				by_comm_.emplace(m.key, g);
				break;
			case MapRule::Kind::cgroup:
				by_cgroup_.emplace(std::strtoull(m.key.c_str(), nullptr, 0), g);
				break;
			}
		}
	}

	Status run(const Setup &setup, trace::IoBuilder &b, ReplayResult *out, std::string *err);

private:
	size_t group_of(const std::string &path, unsigned int weight)
	{
		for (size_t i = 0; i < groups_.size(); i++)
			if (groups_[i].path == path) {
				if (weight)
					groups_[i].weight = weight;
				return i;
			}
		Group g;
		g.path = path;
		g.weight = weight;
		groups_.push_back(g);
		return groups_.size() - 1;
	}

	// The process of @r (created with its task on first sight).
	bool proc_of(const trace::IoRecord &r, size_t *out, std::string *err)
	{
		auto it = procs_by_pid_.find(r.pid);
		if (it != procs_by_pid_.end()) {
			*out = it->second;
			return true;
		}
		Proc p;
		p.pid = r.pid;
		p.comm = r.comm.empty() ? "pid" + std::to_string(r.pid) : r.comm;
		size_t g = 0;
		if (auto m = by_pid_.find(r.pid); m != by_pid_.end())
			g = m->second;
		else if (auto c = by_comm_.find(r.comm); c != by_comm_.end())
			g = c->second;
		else if (auto cg = by_cgroup_.find(r.cgroup);
			 r.has_cgroup && cg != by_cgroup_.end())
			g = cg->second;
		p.group = g;
		workload::TaskSpec spec;
		spec.comm = p.comm;
		spec.cgroup = groups_[g].path;
		spec.cgroup_weight = groups_[g].weight;
		p.task = model_.create_task(spec);
		if (!p.task) {
			*err = model_.task_error().empty()
				       ? "cannot create the task for pid " + std::to_string(r.pid)
				       : model_.task_error();
			return false;
		}
		p.job.jobname = p.comm + "[" + std::to_string(r.pid) + "]";
		p.job.cgroup = groups_[g].path.empty() ? "" : shown(groups_[g].path);
		p.job.pid = static_cast<int>(p.task);
		p.job.options = {{"trace_pid", std::to_string(r.pid)}, {"comm", p.comm}};
		procs_.push_back(std::move(p));
		*out = procs_.size() - 1;
		procs_by_pid_.emplace(r.pid, *out);
		return true;
	}

	Rec make_rec(const trace::IoRecord &r, size_t proc)
	{
		Rec x;
		x.queue_ns = r.queue_ns;
		x.complete_ns = r.error ? -1 : r.complete_ns;
		x.bytes = r.bytes;
		x.rwbs = r.rwbs;
		x.proc = proc;
		uint64_t off = (r.sector * 512) % cap_;
		if (off + x.bytes > cap_)
			off = (cap_ - x.bytes) & ~uint64_t{511};
		x.offset = off;
		Group &g = groups_[procs_[proc].group];
		g.ios++;
		g.bytes += x.bytes;
		if (r.complete_ns >= 0) {
			g.rec_bytes += x.bytes;
			g.rec_done++;
			g.rec_lat += r.complete_ns - r.queue_ns;
			g.rec_act.saw(r.queue_ns - q0_, r.complete_ns - q0_);
			g.rec_tl.add(r.complete_ns - q0_, x.bytes);
		}
		return x;
	}

	void submit(const Rec &x, bool closed);
	// Simulated time at the end of the recorded span.  Open loop: the
	// trace is still being read, but its last event read so far is
	// always past the simulated present (a record is read before its
	// queue time comes), so this is exact for every completion.
	int64_t span_end() const
	{
		if (opt_.mode == ReplayMode::closed)
			return span_end_;
		return start_ + recorded_span();
	}
	int64_t recorded_span() const
	{
		return std::clamp<int64_t>(builder_->last_time() - q0_, 0, kMaxSpanNs);
	}
	// False (and err_) if @r's time stamp is beyond any sane trace.
	bool sane(const trace::IoRecord &r)
	{
		if (r.queue_ns - q0_ > kMaxSpanNs || r.queue_ns < q0_ - kMaxSpanNs) {
			err_ = "the trace's time stamps jump by more than 30 days (at an IO "
			       "queued at " +
			       std::to_string(r.queue_ns) + " ns): a corrupt trace?";
			return false;
		}
		// A completion a little before its queue is the CPUs' clocks
		// disagreeing; one long before it is a corrupt time stamp (in
		// closed loop the next IO would wait that long).
		if (r.complete_ns >= 0 && r.complete_ns < r.queue_ns - kMaxSkewNs) {
			char b[160];
			std::snprintf(b, sizeof(b),
				      "the IO queued at %" PRId64 " ns (sector %" PRIu64
				      ") completes %.3f s before it was queued",
				      r.queue_ns, r.sector,
				      static_cast<double>(r.queue_ns - r.complete_ns) / 1e9);
			err_ = std::string(b) + ": the trace's time stamps are corrupt";
			return false;
		}
		return true;
	}
	void pump(size_t proc);
	// The result: the report (jobs, groups) and the shares, as of now.
	void collect(const trace::IoBuilder &b, ReplayResult *out);
	// Gives the replay up: nothing more is submitted or counted, the
	// submitters asleep for a tag are dropped and the requests drain, so
	// that nothing is left behind.  False (with *err extended) if they
	// do not drain or an invariant broke.
	bool abandon(Drive &drive, std::string *err);

	blk::Model &model_;
	const ReplayOptions &opt_;
	uint64_t cap_ = 0;
	int64_t start_ = 0, q0_ = 0;
	int64_t span_end_ = 0; // simulated time at the end of the recorded span
	std::vector<Group> groups_;
	std::vector<Proc> procs_;
	std::unordered_map<uint32_t, size_t> procs_by_pid_;
	std::unordered_map<uint32_t, size_t> by_pid_;
	std::unordered_map<std::string, size_t> by_comm_;
	std::unordered_map<uint64_t, size_t> by_cgroup_;
	uint64_t submitted_ = 0, completed_ = 0;
	int64_t first_submit_ = -1, last_done_ = 0;
	// Open loop: the record to submit next.
	trace::IoRecord next_;
	bool more_ = false;
	// Closed loop: every record.
	std::vector<Rec> recs_;
	std::string err_;
	// The time limit was reached: nothing more is submitted, and
	// completions are no longer counted (the report is taken).
	bool stopped_ = false;
	trace::IoBuilder *builder_ = nullptr;
	void feed();
};

void Replayer::submit(const Rec &x, bool closed)
{
	Proc &p = procs_[x.proc];
	workload::Io io;
	io.offset = x.offset;
	io.bytes = x.bytes;
	io.write = x.rwbs & (trace::kWrite | trace::kDiscard);
	io.sync = !io.write || (x.rwbs & (trace::kSync | trace::kFua));
	io.meta = x.rwbs & trace::kMeta;
	int64_t now = model_.now();
	if (first_submit_ < 0)
		first_submit_ = now;
	submitted_++;
	int d = io.write ? 1 : 0;
	if (p.first[d] < 0)
		p.first[d] = now;
	size_t proc = x.proc;
	uint32_t bytes = x.bytes;
	model_.submit(p.task, io, [this, proc, d, now, bytes, closed](int64_t done) {
		completed_++;
		if (stopped_)
			return; // after the time limit: drained, not counted
		last_done_ = std::max(last_done_, done);
		Proc &q = procs_[proc];
		report::DirStats &ds = d ? q.job.write : q.job.read;
		ds.ios++;
		ds.io_bytes += bytes;
		ds.clat.add(done - now);
		ds.lat.add(done - now);
		q.last[d] = std::max(q.last[d], done);
		ds.runtime_ns = q.last[d] - q.first[d];
		Group &g = groups_[q.group];
		g.sim_done++;
		g.sim_lat += done - now;
		g.sim_act.saw(now - start_, done - start_);
		g.sim_tl.add(done - start_, bytes);
		if (done <= span_end())
			g.sim_bytes_in_span += bytes;
		if (closed) {
			q.sim_done.push_back(done);
			pump(proc);
		}
	});
}

// Open loop: submit next_ now, read the one after it and schedule it at its
// recorded queue time.  One record is held at a time.
void Replayer::feed()
{
	if (stopped_)
		return;
	size_t proc;
	if (!sane(next_) || !proc_of(next_, &proc, &err_)) {
		more_ = false;
		return;
	}
	Rec x = make_rec(next_, proc);
	submit(x, false);
	if (!builder_->next(&next_)) {
		more_ = false;
		return;
	}
	int64_t when = std::max(model_.now(),
				start_ + std::clamp<int64_t>(next_.queue_ns - q0_, 0, kMaxSpanNs));
	model_.at(when, [this] { feed(); });
}

// Closed loop: issue this process's next records whose dependencies are
// met: the process has completed in the simulation as many IOs as it had
// in the trace when the record was queued, and its previous record has
// been issued.  A count, not a particular IO: a process with several IOs in
// flight (libaio, io_uring) refills whichever slot frees first, and the
// simulated scheduler may complete them in another order than the
// recorded one.
void Replayer::pump(size_t proc)
{
	if (stopped_)
		return;
	Proc &p = procs_[proc];
	while (!p.queue.empty()) {
		size_t i = p.queue.front();
		Rec &x = recs_[i];
		int64_t t;
		if (x.need) {
			if (p.sim_done.size() < x.need)
				return; // pumped again at the next completion
			t = p.sim_done[x.need - 1] + (x.queue_ns - x.need_at);
		} else if (p.last_issue >= 0) {
			t = p.last_issue + (x.queue_ns - p.last_queue);
		} else {
			t = start_ + (x.queue_ns - q0_);
		}
		t = std::max({t, p.last_issue, model_.now()});
		p.last_issue = t;
		p.last_queue = x.queue_ns;
		p.queue.pop_front();
		model_.at(t, [this, i] {
			if (!stopped_)
				submit(recs_[i], true);
		});
	}
}

Status Replayer::run(const Setup &setup, trace::IoBuilder &b, ReplayResult *out, std::string *err)
{
	builder_ = &b;
	cap_ = model_.capacity_bytes();
	start_ = model_.now();
	bool closed = opt_.mode == ReplayMode::closed;
	bool any = b.next(&next_);
	if (!any) {
		*err = b.error().empty() ? "the trace has no IO (no Q event with data)" : b.error();
		return Status::bad_input;
	}
	q0_ = next_.queue_ns;
	if (!closed) {
		more_ = true;
		model_.at(start_, [this] { feed(); });
	} else {
		// Every record in memory, each with what it waits for: the
		// number of the process's IOs completed (in the trace) before
		// it was queued, and when the last of them completed.
		using MinHeap = std::priority_queue<int64_t, std::vector<int64_t>, std::greater<>>;
		std::vector<MinHeap> heaps;
		std::vector<uint64_t> done;
		std::vector<int64_t> last;
		do {
			size_t proc;
			if (!sane(next_)) {
				*err = err_;
				return Status::bad_input;
			}
			if (!proc_of(next_, &proc, err))
				return Status::bad_input;
			if (heaps.size() < procs_.size()) {
				heaps.resize(procs_.size());
				done.resize(procs_.size(), 0);
				last.resize(procs_.size(), -1);
			}
			Rec x = make_rec(next_, proc);
			MinHeap &h = heaps[proc];
			while (!h.empty() && h.top() <= x.queue_ns) {
				done[proc]++;
				last[proc] = h.top();
				h.pop();
			}
			x.need = done[proc];
			x.need_at = last[proc];
			size_t i = recs_.size();
			if (x.complete_ns >= 0)
				h.push(x.complete_ns);
			recs_.push_back(x);
			procs_[proc].queue.push_back(i);
		} while (b.next(&next_));
		if (!b.error().empty()) {
			*err = b.error();
			return Status::bad_input;
		}
		span_end_ = start_ + recorded_span();
		for (size_t p = 0; p < procs_.size(); p++)
			pump(p);
	}

	Drive drive(model_, start_, setup.progress);
	const bool finished = drive.run(
		[&] {
			bool done = closed ? completed_ == recs_.size()
					   : !more_ && completed_ == submitted_;
			return done || !err_.empty();
		},
		[this] { return start_ + recorded_span() + kMaxSimNs; });
	if (!finished) {
		// The report so far; then no more IO, and what is outstanding
		// drains, so that nothing is left behind.
		if (!b.error().empty()) {
			*err = b.error();
			return abandon(drive, err) ? Status::bad_input : Status::internal;
		}
		collect(b, out);
		out->run.stopped = "the simulated-time limit (24 h after the end of the "
				   "trace) was reached before the replay finished: the "
				   "report covers the replay up to then";
		*err = out->run.stopped;
		return abandon(drive, err) ? Status::time_limit : Status::internal;
	}
	if (!err_.empty() || !b.error().empty()) {
		// bad input found while IO of the trace's earlier part is still
		// in flight
		*err = !err_.empty() ? err_ : b.error();
		return abandon(drive, err) ? Status::bad_input : Status::internal;
	}
	if (!drive.drain()) {
		*err = "requests still outstanding after the replay (" +
		       std::to_string(model_.outstanding()) + ")";
		return Status::internal;
	}
	if (std::string broken = model_.check_invariants(); !broken.empty()) {
		*err = broken;
		return Status::internal;
	}
	collect(b, out);
	return Status::ok;
}

bool Replayer::abandon(Drive &drive, std::string *err)
{
	stopped_ = true;
	if (!drive.abandon()) {
		*err += "; and the outstanding IO did not drain within 24 h of simulated time (" +
			std::to_string(model_.outstanding()) + " requests)";
		return false;
	}
	if (std::string broken = model_.check_invariants(); !broken.empty()) {
		*err += "; and then: " + broken;
		return false;
	}
	return true;
}

void Replayer::collect(const trace::IoBuilder &b, ReplayResult *out)
{
	ReplayResult &r = *out;
	r.mode = opt_.mode;
	r.recorded_span_ns = recorded_span();
	r.simulated_span_ns = last_done_ - std::max<int64_t>(first_submit_, start_);
	const trace::BuildStats &st = b.stats();
	r.events = st.events;
	r.ios = st.queued;
	r.merges = st.merges;
	r.incomplete = st.incomplete;
	r.unmatched = st.unmatched;
	for (const Proc &p : procs_)
		r.run.jobs.push_back(p.job);
	r.run.duration_ns = last_done_ - start_;
	r.run.groups = model_.group_results();

	uint64_t rec_total = 0, sim_total = 0;
	for (const Group &g : groups_) {
		rec_total += g.rec_bytes;
		sim_total += g.sim_bytes_in_span;
	}
	// The contended window: while every mapped group with IO was busy.
	Window rw, sw;
	bool any_mapped = false;
	for (const Group &g : groups_) {
		if (!g.mapped || !g.ios)
			continue;
		any_mapped = true;
		narrow_to(rw, g.rec_act);
		narrow_to(sw, g.sim_act);
	}
	if (any_mapped) {
		r.contended_recorded = rw;
		r.contended_simulated = sw;
	}
	uint64_t rec_cont = 0, sim_cont = 0;
	for (const Group &g : groups_) {
		if (!g.mapped || !g.ios)
			continue;
		if (r.contended_recorded.valid())
			rec_cont += g.rec_tl.sum(rw.from, rw.to);
		if (r.contended_simulated.valid())
			sim_cont += g.sim_tl.sum(sw.from, sw.to);
	}
	for (const Group &g : groups_) {
		if (!g.ios)
			continue;
		ShareRow row;
		row.group = shown(g.path);
		row.weight = g.weight;
		for (const report::GroupResult &gr : r.run.groups)
			if (gr.path == row.group && !row.weight)
				row.weight = gr.weight;
		row.ios = g.ios;
		row.bytes = g.bytes;
		row.recorded_pct = rec_total ? 100.0 * static_cast<double>(g.rec_bytes) /
						       static_cast<double>(rec_total)
					     : 0;
		row.predicted_pct = sim_total ? 100.0 * static_cast<double>(g.sim_bytes_in_span) /
							static_cast<double>(sim_total)
					      : 0;
		if (g.mapped && rec_cont)
			row.contended_recorded_pct =
				100.0 * static_cast<double>(g.rec_tl.sum(rw.from, rw.to)) /
				static_cast<double>(rec_cont);
		if (g.mapped && sim_cont)
			row.contended_predicted_pct =
				100.0 * static_cast<double>(g.sim_tl.sum(sw.from, sw.to)) /
				static_cast<double>(sim_cont);
		row.recorded_lat_ms =
			g.rec_done ? static_cast<double>(g.rec_lat / g.rec_done) / 1e6 : 0;
		row.predicted_lat_ms =
			g.sim_done ? static_cast<double>(g.sim_lat / g.sim_done) / 1e6 : 0;
		r.shares.push_back(row);
	}
}

} // namespace

bool parse_map(const std::string &arg, MapRule *out, std::string *err)
{
	auto bad = [&](const std::string &why) {
		*err = "--map " + arg + ": " + why +
		       " (use pid=PID=GROUP[:WEIGHT], comm=NAME=GROUP[:WEIGHT] or "
		       "cgroup=ID=GROUP[:WEIGHT])";
		return false;
	};
	size_t eq1 = arg.find('=');
	if (eq1 == std::string::npos)
		return bad("no '='");
	std::string kind = arg.substr(0, eq1);
	size_t eq2 = arg.rfind('=');
	if (eq2 == eq1)
		return bad("expected KIND=KEY=GROUP");
	MapRule m;
	if (kind == "pid")
		m.kind = MapRule::Kind::pid;
	else if (kind == "comm")
		m.kind = MapRule::Kind::comm;
	else if (kind == "cgroup")
		m.kind = MapRule::Kind::cgroup;
	else
		return bad("unknown kind '" + kind + "'");
	m.key = arg.substr(eq1 + 1, eq2 - eq1 - 1);
	std::string rest = arg.substr(eq2 + 1);
	size_t colon = rest.rfind(':');
	m.group = rest.substr(0, colon);
	if (colon != std::string::npos) {
		std::string w = rest.substr(colon + 1);
		char *end = nullptr;
		errno = 0;
		unsigned long v = std::strtoul(w.c_str(), &end, 10);
		if (w.empty() || *end || errno || v < 1 || v > 10000 || w[0] == '-')
			return bad("the weight must be an integer from 1 to 10000, not '" + w +
				   "'");
		m.weight = static_cast<unsigned int>(v);
	}
	if (m.key.empty())
		return bad("empty " + kind);
	if (m.kind != MapRule::Kind::comm) {
		char *end = nullptr;
		errno = 0;
		std::strtoull(m.key.c_str(), &end, 0);
		if (*end || errno || m.key[0] == '-')
			return bad("'" + m.key + "' is not a number");
	}
	if (m.group.find("..") != std::string::npos || m.group.find('=') != std::string::npos)
		return bad("bad group '" + m.group + "'");
	if (normalize_group(m.group).empty() && m.weight)
		return bad("the root group's weight cannot be set");
	*out = m;
	return true;
}

Status replay(const Setup &setup, const ReplayOptions &opt, ReplayResult *out, std::string *err)
{
	blk::ensure_modules();
	if (!blk::scheduler_exists(setup.scheduler)) {
		*err = "unknown scheduler '" + setup.scheduler + "' (" + scheduler_list() + ")";
		return Status::bad_input;
	}
	// One weight per group.
	std::map<std::string, unsigned int> weights;
	for (const MapRule &m : opt.maps) {
		if (!m.weight)
			continue;
		auto [it, fresh] = weights.emplace(normalize_group(m.group), m.weight);
		if (!fresh && it->second != m.weight) {
			*err = "--map gives group '" + m.group + "' two weights (" +
			       std::to_string(it->second) + " and " + std::to_string(m.weight) +
			       ")";
			return Status::bad_input;
		}
	}
	std::unique_ptr<trace::EventSource> src = trace::open_trace(opt.traces, err);
	if (!src)
		return Status::bad_input;
	std::string device_name;
	std::unique_ptr<blk::Model> m = make_model(setup, &device_name, err);
	if (!m)
		return Status::bad_input;
	blk::Model &model = *m;
	trace::IoBuilder builder(*src);
	Replayer rp(model, opt);
	*out = ReplayResult{};
	Status s = rp.run(setup, builder, out, err);
	if (s != Status::ok && s != Status::time_limit)
		return s;
	out->warnings = src->warnings();
	if (out->incomplete >= kIncompleteWarnMin &&
	    static_cast<double>(out->incomplete) >
		    kIncompleteWarnFraction * static_cast<double>(out->ios)) {
		char b[400];
		std::snprintf(b, sizeof(b),
			      "%" PRIu64 " of the trace's %" PRIu64
			      " IOs (%.0f%%) have no completion: a CPU file missing, or a "
			      "recording without completion events? They are replayed, but their "
			      "recorded latencies and, in closed loop, the think times around "
			      "them mean little",
			      out->incomplete, out->ios,
			      100.0 * static_cast<double>(out->incomplete) /
				      static_cast<double>(out->ios));
		out->warnings.push_back(b);
	}
	if (setup.inspect && s == Status::ok)
		setup.inspect(model);
	report::RunResult &r = out->run;
	r.efqsim_version = kVersion;
	r.seed = setup.seed;
	r.device = device_name;
	r.scheduler = setup.scheduler;
	r.hierarchical = model.hierarchical();
	r.nr_requests = model.nr_requests();
	r.tunables = model.tunables();
	return s;
}

void print_shares(const ReplayResult &r, std::ostream &out)
{
	char line[256];
	std::snprintf(line, sizeof(line),
		      "\nreplay (%s loop): %" PRIu64 " events, %" PRIu64 " IOs (%" PRIu64
		      " merged, %" PRIu64 " without completion, %" PRIu64
		      " completions of earlier IO), recorded %.3f s, simulated %.3f s\n",
		      r.mode == ReplayMode::open ? "open" : "closed", r.events, r.ios, r.merges,
		      r.incomplete, r.unmatched, static_cast<double>(r.recorded_span_ns) / 1e9,
		      static_cast<double>(r.simulated_span_ns) / 1e9);
	out << line;
	bool cont = r.contended_recorded.valid() || r.contended_simulated.valid();
	out << "Per-group share of the bytes completed: within the recorded span";
	if (cont) {
		auto secs = [](const Window &w) {
			char b[64];
			if (w.valid())
				std::snprintf(b, sizeof(b), "%.3f..%.3f s",
					      static_cast<double>(w.from) / 1e9,
					      static_cast<double>(w.to) / 1e9);
			else
				std::snprintf(b, sizeof(b), "none");
			return std::string(b);
		};
		out << ", and while every mapped group was busy (recorded "
		    << secs(r.contended_recorded) << ", simulated " << secs(r.contended_simulated)
		    << ")";
	}
	out << ":\n";
	std::snprintf(line, sizeof(line), "  %-24s %6s %10s %10s %9s %9s", "group", "weight", "IOs",
		      "MiB", "recorded", "predicted");
	out << line;
	if (cont) {
		std::snprintf(line, sizeof(line), " %9s %9s", "busy rec", "busy pred");
		out << line;
	}
	std::snprintf(line, sizeof(line), " %11s %11s\n", "rec lat ms", "sim lat ms");
	out << line;
	auto pct = [](double v) {
		char b[32];
		if (v < 0)
			std::snprintf(b, sizeof(b), "%9s", "-");
		else
			std::snprintf(b, sizeof(b), "%8.2f%%", v);
		return std::string(b);
	};
	for (const ShareRow &s : r.shares) {
		std::snprintf(line, sizeof(line), "  %-24s %6u %10" PRIu64 " %10.2f %s %s",
			      s.group.c_str(), s.weight, s.ios,
			      static_cast<double>(s.bytes) / (1 << 20), pct(s.recorded_pct).c_str(),
			      pct(s.predicted_pct).c_str());
		out << line;
		if (cont)
			out << " " << pct(s.contended_recorded_pct) << " "
			    << pct(s.contended_predicted_pct);
		std::snprintf(line, sizeof(line), " %11.3f %11.3f\n", s.recorded_lat_ms,
			      s.predicted_lat_ms);
		out << line;
	}
}

namespace {

std::string quoted(const std::string &v)
{
	std::string o = "\"";
	for (char c : v) {
		if (c == '"' || c == '\\') {
			o += '\\';
			o += c;
		} else if (static_cast<unsigned char>(c) < 0x20) {
			char b[8];
			std::snprintf(b, sizeof(b), "\\u%04x", c);
			o += b;
		} else {
			o += c;
		}
	}
	return o + "\"";
}

} // namespace

// report::to_json()'s object with a "replay" member added (sim/run builds
// its JSON by hand, as compare does: the kernel shims' macros are visible
// here).
std::string replay_json(const ReplayResult &r)
{
	std::string j = report::to_json(r.run);
	size_t close = j.rfind('}');
	if (close == std::string::npos)
		return j;
	char b[512];
	std::snprintf(b, sizeof(b),
		      ",\n  \"replay\": {\n    \"mode\": \"%s\",\n    \"events\": %" PRIu64
		      ",\n    \"ios\": %" PRIu64 ",\n    \"merged\": %" PRIu64
		      ",\n    \"incomplete\": %" PRIu64 ",\n    \"unmatched_completions\": %" PRIu64
		      ",\n    \"recorded_span_ns\": %" PRId64
		      ",\n    \"simulated_span_ns\": %" PRId64,
		      r.mode == ReplayMode::open ? "open" : "closed", r.events, r.ios, r.merges,
		      r.incomplete, r.unmatched, r.recorded_span_ns, r.simulated_span_ns);
	std::string rp = b;
	auto window = [](const Window &w) {
		if (!w.valid())
			return std::string("null");
		return "[" + std::to_string(w.from) + ", " + std::to_string(w.to) + "]";
	};
	auto pct = [](double v) {
		if (v < 0)
			return std::string("null");
		char n[32];
		std::snprintf(n, sizeof(n), "%.6g", v);
		return std::string(n);
	};
	rp += ",\n    \"contended_recorded_ns\": " + window(r.contended_recorded) +
	      ",\n    \"contended_simulated_ns\": " + window(r.contended_simulated) +
	      ",\n    \"groups\": [";
	for (size_t i = 0; i < r.shares.size(); i++) {
		const ShareRow &s = r.shares[i];
		std::snprintf(b, sizeof(b),
			      "%s\n      {\"group\": %s, \"weight\": %u, \"ios\": %" PRIu64
			      ", \"bytes\": %" PRIu64
			      ", \"recorded_pct\": %.6g, \"predicted_pct\": "
			      "%.6g, \"contended_recorded_pct\": %s, \"contended_predicted_pct\": "
			      "%s, \"recorded_lat_ms\": %.6g, \"predicted_lat_ms\": %.6g}",
			      i ? "," : "", quoted(s.group).c_str(), s.weight, s.ios, s.bytes,
			      s.recorded_pct, s.predicted_pct,
			      pct(s.contended_recorded_pct).c_str(),
			      pct(s.contended_predicted_pct).c_str(), s.recorded_lat_ms,
			      s.predicted_lat_ms);
		rp += b;
	}
	rp += "\n    ],\n    \"warnings\": [";
	for (size_t i = 0; i < r.warnings.size(); i++)
		rp += (i ? ", " : "") + quoted(r.warnings[i]);
	rp += "]\n  }\n";
	size_t last = j.find_last_not_of(" \n", close - 1);
	return j.substr(0, last + 1) + rp + j.substr(close);
}

} // namespace efqsim::run
