// SPDX-License-Identifier: GPL-2.0
// Shared helpers of the scenario tests (tests/scenarios/*_test.cc): run
// job files from tests/scenarios/jobs/ through efqsim::run, instantiate a
// job file template, and read the results (jobs summed over their clones,
// groups by cgroup path).  Generic on purpose: every scenario file uses
// these instead of its own copies.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include <gtest/gtest.h>

#include "blk/model.h"
#include "dev/device.h"
#include "report/results.h"
#include "run/run.h"
#include "workload/jobs.h"

namespace efqscen {

using efqsim::report::GroupResult;
using efqsim::report::JobResult;
using efqsim::report::RunResult;
using RunSetup = efqsim::run::Setup;

constexpr int64_t kSecNs = 1'000'000'000;
constexpr int64_t kMsNs = 1'000'000;

// The path of tests/scenarios/jobs/@name.
inline std::string JobPath(const std::string &name)
{
	return std::string(EFQ_SOURCE_DIR) + "/tests/scenarios/jobs/" + name;
}

// A copy of the job file @name with every "@KEY@" replaced by its value in
// @vars, written to the test's temporary directory; returns its path.  A
// placeholder left unreplaced fails the test (the parser would reject it
// anyway, with a less helpful message).
inline std::string Instantiate(const std::string &name,
			       const std::map<std::string, std::string> &vars)
{
	std::ifstream in(JobPath(name));
	EXPECT_TRUE(in.good()) << "cannot read " << JobPath(name);
	std::stringstream ss;
	ss << in.rdbuf();
	std::string text = ss.str();
	for (auto &[key, value] : vars) {
		const std::string pat = "@" + key + "@";
		for (size_t pos = text.find(pat); pos != std::string::npos;
		     pos = text.find(pat, pos + value.size()))
			text.replace(pos, pat.size(), value);
	}
	EXPECT_EQ(text.find('@'), std::string::npos) << name << ": placeholder left";
	static int serial = 0;
	const auto *info = ::testing::UnitTest::GetInstance()->current_test_info();
	// a parameterized test's name has a '/' in it ("Test/param")
	std::string test = info ? std::string(info->name()) : "x";
	std::replace(test.begin(), test.end(), '/', '_');
	std::string out = ::testing::TempDir() + "efqscen-" + std::to_string(getpid()) + "-" +
			  test + "-" + std::to_string(serial++) + "-" + name;
	std::ofstream(out) << text;
	return out;
}

// Runs @paths (full paths) on @setup; a failed run fails the test and
// returns an empty result.
inline RunResult RunJobs(const RunSetup &setup, const std::vector<std::string> &paths)
{
	RunResult r;
	std::string err;
	efqsim::run::Status st = efqsim::run::run_jobfiles(setup, paths, &r, &err);
	EXPECT_EQ(st, efqsim::run::Status::ok) << err;
	return r;
}

// A Setup for @scheduler on @device with @tunables ("name", "value").
inline RunSetup MakeSetup(const std::string &scheduler, const std::string &device,
			  std::vector<std::pair<std::string, std::string>> tunables = {},
			  uint64_t seed = 1)
{
	RunSetup s;
	// EFQ_SCENARIO_SEED overrides the seed by hand, to measure the spread
	// of a ratio before choosing its tolerance; the suite never sets it.
	if (const char *e = getenv("EFQ_SCENARIO_SEED"))
		seed = std::stoull(e);
	s.scheduler = scheduler;
	s.device = device;
	s.tunables = std::move(tunables);
	s.seed = seed;
	return s;
}

// One job name summed over its clones (numjobs).
struct JobSum {
	int clones = 0;
	uint64_t read_bytes = 0, write_bytes = 0;
	uint64_t read_ios = 0, write_ios = 0;
	int64_t runtime_ns = 0; // the longest clone's (read or write) runtime
	int64_t read_clat_max_ns = 0, write_clat_max_ns = 0;
	std::vector<uint64_t> clone_read_bytes, clone_write_bytes;

	// Aggregate bandwidth, bytes per second of the longest runtime.
	double read_bw() const
	{
		return runtime_ns ? static_cast<double>(read_bytes) * 1e9 / runtime_ns : 0;
	}
	double write_bw() const
	{
		return runtime_ns ? static_cast<double>(write_bytes) * 1e9 / runtime_ns : 0;
	}
	double mean_clone_read_bytes() const
	{
		return clones ? static_cast<double>(read_bytes) / clones : 0;
	}
};

inline JobSum Job(const RunResult &r, const std::string &name)
{
	JobSum s;
	for (const JobResult &j : r.jobs) {
		if (j.jobname != name)
			continue;
		s.clones++;
		s.read_bytes += j.read.io_bytes;
		s.write_bytes += j.write.io_bytes;
		s.read_ios += j.read.ios;
		s.write_ios += j.write.ios;
		s.runtime_ns = std::max({s.runtime_ns, j.read.runtime_ns, j.write.runtime_ns});
		s.read_clat_max_ns = std::max(s.read_clat_max_ns, j.read.clat.max);
		s.write_clat_max_ns = std::max(s.write_clat_max_ns, j.write.clat.max);
		s.clone_read_bytes.push_back(j.read.io_bytes);
		s.clone_write_bytes.push_back(j.write.io_bytes);
	}
	EXPECT_GT(s.clones, 0) << "no job named " << name;
	return s;
}

// The group of cgroup @path ("/" for the root, "/g1", "/a/b").
inline GroupResult Group(const RunResult &r, const std::string &path)
{
	for (const GroupResult &g : r.groups)
		if (g.path == path)
			return g;
	ADD_FAILURE() << "no group " << path;
	return {};
}

// @a / @b, 0 when @b is 0 (the assertion on the ratio then fails loudly).
inline double Ratio(double a, double b)
{
	return b != 0 ? a / b : 0;
}

// The tunable @name of a run as the scheduler showed it.
inline std::string Tunable(const RunResult &r, const std::string &name)
{
	auto it = r.tunables.find(name);
	return it == r.tunables.end() ? std::string() : it->second;
}

// What a device was sent and when each request completed, in dispatch
// order.  @tag is the block layer's accounting key of the request's cgroup.
struct Trace {
	struct Rec {
		uint64_t id, sector;
		uint32_t sectors, tag;
		bool write;
		int64_t sent, done = -1;
	};
	std::vector<Rec> recs;
	// When the run started and its last job ended, on the same clock as
	// the records (the simulated clock keeps running across runs of one
	// test process, so a run does not start at 0).
	int64_t start = 0, end = 0;
};

// Wall-clock ownership of the device by tag, from a trace: a run of
// consecutive dispatches of one tag owns the device from its first
// dispatch to the first dispatch of the next run (so a group is charged
// the idling and draining done for it, as the engine means to), counted
// within [@from, @to) (times relative to the run's start).  Tags are the block layer's cgroup keys:
// 0 is the root, then one per cgroup in the order the jobs first name them (parents before
// children).
inline std::map<uint32_t, int64_t> Ownership(const Trace &t, int64_t from, int64_t to)
{
	std::map<uint32_t, int64_t> out;
	size_t i = 0;
	while (i < t.recs.size()) {
		size_t j = i;
		while (j < t.recs.size() && t.recs[j].tag == t.recs[i].tag)
			j++;
		int64_t a = std::max(t.recs[i].sent - t.start, from);
		int64_t b = std::min(j < t.recs.size() ? t.recs[j].sent - t.start : to, to);
		if (b > a)
			out[t.recs[i].tag] += b - a;
		i = j;
	}
	return out;
}

// The turns in a trace: maximal runs of consecutive dispatches into one
// extent of @extent_bytes (extent i = [i * @extent_bytes, (i + 1) *
// @extent_bytes) of the device; a job clone's file is its own extent when
// every file has that size).  Each turn lasts from its first dispatch to
// the next turn's first dispatch; the last, unfinished turn is left out.
struct Turn {
	uint64_t extent;
	int64_t ns;
};
inline std::vector<Turn> Turns(const Trace &t, uint64_t extent_bytes)
{
	std::vector<Turn> out;
	auto extent = [&](size_t k) { return t.recs[k].sector * 512 / extent_bytes; };
	size_t i = 0;
	while (i < t.recs.size()) {
		size_t j = i;
		while (j < t.recs.size() && extent(j) == extent(i))
			j++;
		if (j < t.recs.size())
			out.push_back({extent(i), t.recs[j].sent - t.recs[i].sent});
		i = j;
	}
	return out;
}

// The median of @v (0 if empty).
inline int64_t Median(std::vector<int64_t> v)
{
	if (v.empty())
		return 0;
	std::sort(v.begin(), v.end());
	return v[v.size() / 2];
}

// A device that forwards to another one and records a Trace.
class TraceDevice final : public efqsim::dev::Device {
public:
	TraceDevice(std::unique_ptr<efqsim::dev::Device> inner, Trace *trace)
	    : inner_(std::move(inner)), trace_(trace)
	{
	}
	std::string name() const override { return inner_->name(); }
	uint32_t queue_depth() const override { return inner_->queue_depth(); }
	bool rotational() const override { return inner_->rotational(); }
	uint64_t capacity_sectors() const override { return inner_->capacity_sectors(); }
	uint32_t in_flight() const override { return inner_->in_flight(); }
	void submit(const efqsim::dev::Request &rq, int64_t now) override
	{
		inner_->submit(rq, now);
		index_[rq.id] = trace_->recs.size();
		trace_->recs.push_back({rq.id, rq.sector, rq.sectors, rq.tag, rq.write, now});
	}
	int64_t next_event() const override { return inner_->next_event(); }
	void advance(int64_t now, std::vector<efqsim::dev::Completion> &out) override
	{
		size_t first = out.size();
		inner_->advance(now, out);
		for (size_t i = first; i < out.size(); i++) {
			auto it = index_.find(out[i].id);
			if (it != index_.end()) {
				trace_->recs[it->second].done = out[i].time;
				index_.erase(it);
			}
		}
	}
	const std::vector<int64_t> &busy_by_tag() const override { return inner_->busy_by_tag(); }
	int64_t busy_total() const override { return inner_->busy_total(); }

private:
	std::unique_ptr<efqsim::dev::Device> inner_;
	Trace *trace_;
	std::map<uint64_t, size_t> index_;
};

// run_jobs() with page-cache settings of the test's choosing and an
// optional Trace of the device.  The results (jobs and groups) are taken
// when the last job ends, before the page cache's leftover writeback is
// drained, so group figures cover exactly the jobs' run.
inline RunResult RunWith(const RunSetup &setup, const std::vector<std::string> &paths,
			 const efqsim::workload::PageCacheConfig &pagecache, Trace *trace = nullptr)
{
	namespace w = efqsim::workload;
	RunResult r;
	std::string err;
	efqsim::blk::ensure_modules();
	std::unique_ptr<efqsim::dev::Device> dev = efqsim::dev::make_device(setup.device, &err);
	EXPECT_TRUE(dev) << err;
	if (!dev)
		return r;
	w::ParseContext ctx;
	ctx.capacity_bytes = dev->capacity_sectors() * 512;
	ctx.scheduler_names = efqsim::run::scheduler_names(setup.scheduler);
	ctx.seed = setup.seed;
	w::JobFileInfo info;
	std::vector<w::JobSpec> jobs = w::parse_jobfiles(paths, ctx, &err, &info);
	EXPECT_FALSE(jobs.empty()) << err;
	if (jobs.empty())
		return r;
	if (trace)
		dev = std::make_unique<TraceDevice>(std::move(dev), trace);
	efqsim::blk::Config cfg;
	cfg.scheduler = setup.scheduler;
	cfg.hierarchical = setup.hierarchical;
	cfg.tunables = setup.tunables;
	efqsim::blk::Model model(std::move(dev), cfg);
	EXPECT_TRUE(model.init(&err)) << err;
	int64_t start = model.now();
	w::EngineOptions opt;
	opt.pagecache = pagecache;
	w::JobEngine engine(model, std::move(jobs), opt);
	EXPECT_TRUE(engine.start()) << model.task_error();
	while (!engine.finished() && model.now() - start < 3600 * kSecNs)
		model.run_until(model.now() + kSecNs / 10);
	EXPECT_TRUE(engine.finished());
	r.seed = setup.seed;
	r.scheduler = setup.scheduler;
	r.hierarchical = setup.hierarchical;
	r.tunables = model.tunables();
	r.duration_ns = engine.end_time() - start;
	if (trace) {
		trace->start = start;
		trace->end = engine.end_time();
	}
	r.jobs = engine.results();
	r.groups = model.group_results();
	if (engine.pagecache())
		engine.pagecache()->sync_all([](int64_t) {});
	EXPECT_TRUE(model.drain(model.now() + 3600 * kSecNs)) << "requests stuck";
	EXPECT_EQ(model.check_invariants(), "");
	return r;
}

} // namespace efqscen
