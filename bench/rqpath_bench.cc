// SPDX-License-Identifier: GPL-2.0
// The whole request path per request, the CPU time a scheduler costs:
// bio -> merge attempt (the elevator's bio_merge) -> tag and limit_depth ->
// prepare -> insert -> queue run -> dispatch -> device -> completion ->
// finish and free, through the block layer model (sim/blk) and the real
// scheduler code, on a null device of zero latency and queue depth 64 (a
// request completes at the simulated time it was issued, so the scheduler's
// dispatch and completion paths run as they do in front of a fast device).
//
// Elevators are picked by name from the shim's registry (sim_elv_find()):
// the four efq schedulers, Linux's own mq-deadline when the build registers
// it, and "none".  The model has no elevator-less mode, so "none" is a
// floor of the bench's own: an elevator whose ops only move requests
// through one list (no lock, no merging, no per-request data).  Every
// scheduler's cost is its time minus the floor's, on the same workload.
//
// Workloads (each task keeps its IOs in flight, a closed loop as fio's
// libaio engine keeps iodepth):
//   flat           1 task in the root cgroup, random 4 KiB reads at depth
//                  64; the efq schedulers in flat mode
//   hier-1         the same task in one cgroup; efq hierarchical
//   hier-8         8 cgroups, one task each at depth 8 (64 in all)
//   hier-1000      1000 cgroups, one task each at depth 1; nr_requests
//                  1024, so that no task waits for a tag
//   hier-1000-sat  the same on a null device of latency 10 us: the device,
//                  not the scheduler, holds the requests back, so every
//                  elevator keeps a backlog of ~900 (with latency 0 a
//                  work-conserving elevator hands each request on at once
//                  and holds none, while efq's hierarchical mode serves one
//                  group at a time and holds the others')
//   flat-seqwr     1 task in the root, sequential 4 KiB buffered (async)
//                  writes at depth 32 on a null device of latency 10 us and
//                  queue depth 16: requests back up in the scheduler and
//                  bios merge into them (with latency 0 every request is
//                  dispatched before the next bio comes); the cost is per
//                  bio, and the floor, which does not merge, makes one
//                  request per bio
// Non-efq elevators (none, mq-deadline) run the same workloads; cgroups
// mean nothing to them but the model's blkg lookups.
//
// Method: interleaved rounds; each round runs every case once, in an order
// rotated from round to round (after a discarded run of each workload: the
// process's first runs pay for growing the heap).  A case builds its
// model, runs a warm-up (every task, group and queue gets made), then
// times the thread's CPU time over a fixed number of IOs until all of them
// completed.  The table gives the median over the rounds, the
// interquartile range and the min-max spread, the cost over the floor
// (median of the per-round differences) and that cost as a ratio to
// mq-deadline's and to efq-noop's; then the model's hardware queue runs
// per request, requests per bio, the mean number of requests held in the
// scheduler (sampled at each completion) and the simulated time per IO up
// to the last submission (a scheduler that idles shows here).  The
// numbers include the shims (the checking spinlock, the simulated clock,
// lockdep assertions) and the model's own bookkeeping, which the floor
// carries too.  Report only: no timed assertions.
//
// Environment (all optional):
//   EFQ_RQPATH_ROUNDS=N          rounds (default 9, at least 1)
//   EFQ_RQPATH_IOS=N             timed IOs per case (default 100000)
//   EFQ_RQPATH_ELEVATORS=a,b     elevators by registry name ("none": the
//                                floor); default none,mq-deadline,noop,
//                                deadline-fq,cfq,as
//   EFQ_RQPATH_WORKLOADS=a,b     workloads by name (default: all)
// For profiling one case: EFQ_RQPATH_ROUNDS=1 EFQ_RQPATH_ELEVATORS=cfq
// EFQ_RQPATH_WORKLOADS=flat efq_bench --benchmark_filter=RequestPath; the
// timed part runs in rqpath_timed_phase() (callgrind --toggle-collect
// collects costs there only, but counts calls everywhere: take call counts
// as the difference of two runs with different EFQ_RQPATH_IOS).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iterator>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "blk/model.h"
#include "dev/null_device.h"

extern "C" {
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/list.h>
#include <linux/slab.h>

#include "elevator.h"
#include <sim/blk.h>
#include <sim/kernel.h>
}
#undef min
#undef max

namespace {

// ---------------------------------------------------------------------------
// The floor: an elevator that only queues requests in arrival order.
// ---------------------------------------------------------------------------
constexpr const char *kFloorName = "bench-none";

struct FloorData {
	struct list_head fifo;
};

int floor_init_sched(struct request_queue *q, struct elevator_type *e)
{
	struct elevator_queue *eq = elevator_alloc(q, e);
	if (!eq)
		return -ENOMEM;
	auto *fd = static_cast<FloorData *>(kzalloc(sizeof(FloorData), GFP_KERNEL));
	if (!fd) {
		kobject_put(&eq->kobj);
		return -ENOMEM;
	}
	INIT_LIST_HEAD(&fd->fifo);
	eq->elevator_data = fd;
	q->elevator = eq;
	return 0;
}

void floor_exit_sched(struct elevator_queue *eq)
{
	kfree(eq->elevator_data);
}

FloorData *floor_data(struct blk_mq_hw_ctx *hctx)
{
	return static_cast<FloorData *>(hctx->queue->elevator->elevator_data);
}

void floor_insert_requests(struct blk_mq_hw_ctx *hctx, struct list_head *list, bool at_head)
{
	FloorData *fd = floor_data(hctx);
	if (at_head)
		list_splice_init(list, &fd->fifo);
	else
		list_splice_tail_init(list, &fd->fifo);
}

struct request *floor_dispatch_request(struct blk_mq_hw_ctx *hctx)
{
	FloorData *fd = floor_data(hctx);
	if (list_empty(&fd->fifo))
		return nullptr;
	struct request *rq = list_first_entry(&fd->fifo, struct request, queuelist);
	list_del_init(&rq->queuelist);
	return rq;
}

bool floor_has_work(struct blk_mq_hw_ctx *hctx)
{
	return !list_empty(&floor_data(hctx)->fifo);
}

struct elevator_type g_floor {};

// The registry name of bench elevator @name: "none" is the floor.
std::string registry_name(const std::string &name)
{
	if (name != "none")
		return name;
	if (!sim_elv_find(kFloorName)) {
		g_floor.ops.init_sched = floor_init_sched;
		g_floor.ops.exit_sched = floor_exit_sched;
		g_floor.ops.insert_requests = floor_insert_requests;
		g_floor.ops.dispatch_request = floor_dispatch_request;
		g_floor.ops.has_work = floor_has_work;
		g_floor.elevator_name = kFloorName;
		if (elv_register(&g_floor))
			return "";
	}
	return kFloorName;
}

// ---------------------------------------------------------------------------
// Workloads and cases
// ---------------------------------------------------------------------------
struct Workload {
	const char *name;
	const char *what;
	int cgroups; // 0: every task in the root cgroup
	int tasks;
	unsigned int depth; // per task
	bool seqwrite;
	unsigned int nr_requests; // 0: the model's default, 2 * queue depth
	double latency_us;	  // the null device's
	unsigned int queue_depth; // the null device's
};

const std::vector<Workload> &workloads()
{
	static const std::vector<Workload> w = {
		{"flat", "1 task in the root cgroup, random 4k reads, depth 64 (efq: flat mode)", 0,
		 1, 64, false, 0, 0, 64},
		{"hier-1", "1 cgroup, 1 task, random 4k reads, depth 64 (efq: hierarchical)", 1, 1,
		 64, false, 0, 0, 64},
		{"hier-8", "8 cgroups, 1 task each, random 4k reads, depth 8 each (64 in all)", 8,
		 8, 8, false, 0, 0, 64},
		{"hier-1000",
		 "1000 cgroups, 1 task each, random 4k reads, depth 1 each; nr_requests 1024", 1000,
		 1000, 1, false, 1024, 0, 64},
		{"hier-1000-sat",
		 "the same on a null device of latency 10 us: the device is the bottleneck, every "
		 "elevator holds a backlog (~900 requests)",
		 1000, 1000, 1, false, 1024, 10, 64},
		{"flat-seqwr",
		 "1 task in the root cgroup, sequential 4k async writes, depth 32, on a null "
		 "device of latency 10 us and queue depth 16 (a backlog: bios merge); per bio",
		 0, 1, 32, true, 0, 10, 16},
	};
	return w;
}

bool is_efq(const std::string &name)
{
	return name == "noop" || name == "deadline-fq" || name == "cfq" || name == "as";
}

// What one timed run of a case measured.
struct Sample {
	double cpu_ns_per_io = 0;
	double requests_per_io = 0;
	double runs_per_request = 0;
	double reruns_per_request = 0; // dispatch gave nothing after has_work said yes
	double queued = 0;	       // requests in the scheduler, mean over completions
	double sim_ns_per_io = 0;      // simulated time per IO (idling shows here)
	std::string error;	       // non-empty: the case failed (and is reported so)
};

class Driver {
public:
	Driver(efqsim::blk::Model &m, const Workload &w) : m_(m), w_(w) {}

	bool create_tasks(std::string *err)
	{
		for (int i = 0; i < w_.tasks; i++) {
			efqsim::workload::TaskSpec spec;
			spec.comm = "rq" + std::to_string(i);
			if (w_.cgroups)
				spec.cgroup = "rqb" + std::to_string(i % w_.cgroups);
			efqsim::workload::TaskId id = m_.create_task(spec);
			if (!id) {
				*err = m_.task_error();
				return false;
			}
			tasks_.push_back(id);
			next_offset_.push_back(static_cast<uint64_t>(i) << 30);
		}
		return true;
	}

	// Submit @ios IOs in all, every task keeping its depth, and run until
	// every one completed.
	bool run(uint64_t ios)
	{
		left_ = ios;
		queued_sum_ = 0;
		completions_ = 0;
		for (unsigned int d = 0; d < w_.depth; d++)
			for (size_t t = 0; t < tasks_.size(); t++)
				issue(t);
		return m_.drain(m_.now() + 3600ll * 1'000'000'000);
	}

	// the simulated time of the last submission (the tail that follows,
	// where tasks stop and groups idle out, is not steady state)
	int64_t last_submit() const { return last_submit_; }

	double mean_queued() const
	{
		return completions_ ? queued_sum_ / static_cast<double>(completions_) : 0;
	}

private:
	void issue(size_t t)
	{
		if (!left_)
			return;
		if (!--left_)
			last_submit_ = m_.now();
		efqsim::workload::Io io;
		io.bytes = 4096;
		if (w_.seqwrite) {
			io.write = true;
			io.sync = false;
			io.offset = next_offset_[t];
			next_offset_[t] += 4096;
		} else {
			rng_ ^= rng_ << 13; // xorshift64
			rng_ ^= rng_ >> 7;
			rng_ ^= rng_ << 17;
			io.offset = (rng_ % kSlots) * 4096;
		}
		m_.submit(tasks_[t], io, [this, t](int64_t) {
			// the requests held in the scheduler (tags taken, not in the
			// device) as this IO's task hears of its completion
			queued_sum_ +=
				static_cast<double>(m_.outstanding() - m_.device().in_flight());
			completions_++;
			issue(t);
		});
	}

	static constexpr uint64_t kSlots = (1ull << 40) / 4096; // the null device's 1 TiB
	efqsim::blk::Model &m_;
	const Workload &w_;
	std::vector<efqsim::workload::TaskId> tasks_;
	std::vector<uint64_t> next_offset_;
	uint64_t left_ = 0;
	uint64_t rng_ = 88172645463325252ull;
	double queued_sum_ = 0;
	uint64_t completions_ = 0;
	int64_t last_submit_ = 0;
};

// The thread's CPU time: time the machine's other work (a build) takes from
// the bench is not counted, its cache misses are.
double thread_cpu_ns()
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

// The timed part of a case, a function of its own so that a profiler can
// collect inside it only.
[[gnu::__noinline__]] bool rqpath_timed_phase(Driver &d, uint64_t ios, double *cpu)
{
	double c0 = thread_cpu_ns();
	bool drained = d.run(ios);
	*cpu = thread_cpu_ns() - c0;
	return drained;
}

Sample run_case(const std::string &elevator, const Workload &w, uint64_t ios)
{
	Sample s;
	efqsim::dev::NullParams p;
	p.latency_us = w.latency_us;
	p.queue_depth = w.queue_depth;
	efqsim::blk::Config cfg;
	cfg.scheduler = registry_name(elevator);
	// flat mode for the efq schedulers when every task is in the root; the
	// others have no such switch (the model ignores its absence then)
	cfg.hierarchical = !is_efq(elevator) || w.cgroups > 0;
	cfg.nr_requests = w.nr_requests;
	unsigned long warns0 = sim_warn_count();
	efqsim::blk::Model m(std::make_unique<efqsim::dev::NullDevice>(p), cfg);
	std::string err;
	if (cfg.scheduler.empty() || !m.init(&err)) {
		s.error = err.empty() ? "cannot register the floor elevator" : err;
		return s;
	}
	Driver d(m, w);
	if (!d.create_tasks(&err)) {
		s.error = err;
		return s;
	}
	// warm-up: every task's queue, icq and group exists, caches are warm
	uint64_t warm = std::max<uint64_t>(ios / 10, 4ull * static_cast<uint64_t>(w.tasks));
	if (!d.run(warm)) {
		s.error = "the warm-up did not drain";
		return s;
	}
	efqsim::blk::Counters c0 = m.counters();
	int64_t t0 = m.now();
	double cpu = 0;
	if (!rqpath_timed_phase(d, ios, &cpu)) {
		s.error = "the timed run did not drain";
		return s;
	}
	const efqsim::blk::Counters &c1 = m.counters();
	uint64_t bios = c1.bios - c0.bios;
	uint64_t requests = c1.completed - c0.completed;
	s.cpu_ns_per_io = cpu / static_cast<double>(bios);
	s.requests_per_io = static_cast<double>(requests) / static_cast<double>(bios);
	auto per_request = [requests](uint64_t n) {
		return requests ? static_cast<double>(n) / static_cast<double>(requests) : 0;
	};
	s.runs_per_request = per_request(c1.runs - c0.runs);
	s.reruns_per_request = per_request(c1.budget_reruns - c0.budget_reruns);
	s.queued = d.mean_queued();
	s.sim_ns_per_io = static_cast<double>(d.last_submit() - t0) / static_cast<double>(bios);
	if (std::string broken = m.check_invariants(); !broken.empty())
		s.error = broken;
	else if (sim_warn_count() != warns0)
		s.error = std::string("WARN: ") + sim_warn_last();
	return s;
}

// ---------------------------------------------------------------------------
// Statistics and the table
// ---------------------------------------------------------------------------
// The @q quantile of @v (0.5: the median), interpolating between samples.
double quantile(std::vector<double> v, double q)
{
	if (v.empty())
		return 0;
	std::sort(v.begin(), v.end());
	double pos = q * static_cast<double>(v.size() - 1);
	size_t i = static_cast<size_t>(pos);
	if (i + 1 >= v.size())
		return v.back();
	return v[i] + (pos - static_cast<double>(i)) * (v[i + 1] - v[i]);
}

double median(const std::vector<double> &v)
{
	return quantile(v, 0.5);
}

std::vector<std::string> split(const char *s)
{
	std::vector<std::string> out;
	std::stringstream ss(s);
	std::string item;
	while (std::getline(ss, item, ','))
		if (!item.empty())
			out.push_back(item);
	return out;
}

uint64_t env_number(const char *name, uint64_t dflt, uint64_t min)
{
	const char *v = std::getenv(name);
	if (!v || !*v)
		return dflt;
	char *end = nullptr;
	unsigned long long n = std::strtoull(v, &end, 10);
	if (*end || n < min) {
		std::fprintf(stderr, "%s=%s: not a number >= %llu, using %llu\n", name, v,
			     static_cast<unsigned long long>(min),
			     static_cast<unsigned long long>(dflt));
		return dflt;
	}
	return n;
}

std::string fmt(double v, int prec = 0)
{
	char b[64];
	std::snprintf(b, sizeof(b), "%.*f", prec, v);
	return b;
}

struct CaseResult {
	std::vector<Sample> rounds;
	std::string error;
};

// One line of the table: the elevator's name, then right-aligned columns.
void print_row(const std::string &name, const std::vector<std::string> &cols)
{
	static const int widths[] = {6, 11, 11, 6, 6, 6, 7, 6, 5, 6, 6};
	std::printf("  %-12s", name.c_str());
	for (size_t i = 0; i < cols.size() && i < std::size(widths); i++)
		std::printf(" %*s", widths[i], cols[i].c_str());
	std::printf("\n");
}

void print_table(const std::vector<std::string> &elevators, const std::vector<Workload> &wls,
		 std::map<std::pair<std::string, std::string>, CaseResult> &res, uint64_t rounds,
		 uint64_t ios, bool have_mqdl)
{
	std::printf("\nRequest path cost per IO: bio -> merge attempt -> insert -> dispatch -> "
		    "complete -> free,\n"
		    "block model + real scheduler on a null device (latency 0 and queue depth 64 "
		    "unless said otherwise).\n"
		    "ns/IO: thread CPU time per IO, median of %llu interleaved rounds, with the "
		    "interquartile range and min-max; %llu timed IOs per case.\n"
		    "cost = ns/IO - ns/IO(none), median of the per-round differences; x-mqdl, "
		    "x-noop: cost / that elevator's cost.\n"
		    "runs/rq: hardware queue runs per request (the model's count); rerun: "
		    "dispatches that gave nothing after has_work\n"
		    "said yes, each followed by a queue run 3 ms later (BLK_MQ_BUDGET_DELAY), per "
		    "request; rq/IO: requests per bio\n"
		    "(below 1: merges); queued: requests held in the scheduler, mean at "
		    "completions; sim-us: simulated us per IO\n"
		    "up to the last submission (idling).\n"
		    "none = the bench's floor elevator (one list, no lock, no merging): the model "
		    "has no elevator-less mode.\n",
		    static_cast<unsigned long long>(rounds), static_cast<unsigned long long>(ios));
	if (!have_mqdl)
		std::printf(
			"mq-deadline: NOT REGISTERED in this build (no elevator \"mq-deadline\" "
			"in the shim's registry): no mq-deadline rows, x-mqdl is n/a.\n");
	for (const Workload &w : wls) {
		std::printf("\n%s: %s\n", w.name, w.what);
		print_row("elevator", {"ns/IO", "IQR", "min-max", "cost", "x-mqdl", "x-noop",
				       "runs/rq", "rerun", "rq/IO", "queued", "sim-us"});
		// the per-round costs of @e over the floor, if both ran
		auto cost_of = [&](const std::string &e, std::vector<double> *per_round) {
			auto it = res.find({e, w.name});
			auto fl = res.find({"none", w.name});
			if (it == res.end() || fl == res.end() || !it->second.error.empty() ||
			    !fl->second.error.empty())
				return false;
			for (size_t r = 0; r < it->second.rounds.size(); r++)
				per_round->push_back(it->second.rounds[r].cpu_ns_per_io -
						     fl->second.rounds[r].cpu_ns_per_io);
			return true;
		};
		std::vector<double> mqdl_cost, noop_cost;
		bool mqdl_ok = cost_of("mq-deadline", &mqdl_cost);
		bool noop_ok = cost_of("noop", &noop_cost);
		for (const std::string &e : elevators) {
			CaseResult &cr = res[{e, w.name}];
			if (!cr.error.empty()) {
				std::printf("  %-12s FAILED: %s\n", e.c_str(), cr.error.c_str());
				continue;
			}
			auto med = [&cr](double Sample::*field, double scale = 1) {
				std::vector<double> v;
				for (const Sample &s : cr.rounds)
					v.push_back(s.*field * scale);
				return median(v);
			};
			std::vector<double> ns;
			for (const Sample &s : cr.rounds)
				ns.push_back(s.cpu_ns_per_io);
			auto [lo, hi] = std::minmax_element(ns.begin(), ns.end());
			std::vector<double> cost;
			std::string c = "-", xm = "-", xn = "-";
			if (e != "none" && cost_of(e, &cost)) {
				double mc = median(cost);
				c = fmt(mc);
				if (e != "mq-deadline")
					xm = mqdl_ok ? fmt(mc / median(mqdl_cost), 2) : "n/a";
				if (noop_ok && e != "noop")
					xn = fmt(mc / median(noop_cost), 2);
			}
			print_row(e, {fmt(median(ns)),
				      fmt(quantile(ns, 0.25)) + "-" + fmt(quantile(ns, 0.75)),
				      fmt(*lo) + "-" + fmt(*hi), c, xm, xn,
				      fmt(med(&Sample::runs_per_request), 2),
				      fmt(med(&Sample::reruns_per_request), 2),
				      fmt(med(&Sample::requests_per_io), 2),
				      fmt(med(&Sample::queued), 1),
				      fmt(med(&Sample::sim_ns_per_io, 1e-3), 2)});
		}
	}
	std::printf("\n");
	std::fflush(stdout);
}

void BM_RequestPath(benchmark::State &state)
{
	efqsim::blk::ensure_modules();
	uint64_t rounds = env_number("EFQ_RQPATH_ROUNDS", 9, 1);
	uint64_t ios = env_number("EFQ_RQPATH_IOS", 100000, 1000);
	const char *ev = std::getenv("EFQ_RQPATH_ELEVATORS");
	std::vector<std::string> asked =
		split(ev && *ev ? ev : "none,mq-deadline,noop,deadline-fq,cfq,as");
	std::vector<Workload> wls;
	const char *wv = std::getenv("EFQ_RQPATH_WORKLOADS");
	std::vector<std::string> wnames = split(wv && *wv ? wv : "");
	for (const Workload &w : workloads())
		if (wnames.empty() ||
		    std::find(wnames.begin(), wnames.end(), w.name) != wnames.end())
			wls.push_back(w);

	// Elevators not registered are left out, each said so in the table.
	std::vector<std::string> elevators;
	bool have_mqdl = false, asked_mqdl = false;
	for (const std::string &e : asked) {
		if (e == "mq-deadline")
			asked_mqdl = true;
		std::string reg = registry_name(e);
		if (!reg.empty() && efqsim::blk::scheduler_exists(reg)) {
			elevators.push_back(e);
			have_mqdl |= e == "mq-deadline";
		} else if (e != "mq-deadline") {
			std::printf("elevator %s: not registered, left out\n", e.c_str());
		}
	}
	if (elevators.empty() || wls.empty()) {
		state.SkipWithError("no elevator or no workload to run");
		return;
	}

	struct Case {
		std::string elevator;
		const Workload *w;
	};
	std::vector<Case> cases;
	for (const Workload &w : wls)
		for (const std::string &e : elevators)
			cases.push_back({e, &w});
	std::map<std::pair<std::string, std::string>, CaseResult> res;

	for (auto _ : state) {
		// discarded: the process's first runs grow the heap (page faults)
		for (const Workload &w : wls)
			run_case(elevators[0], w, ios / 4);
		for (uint64_t r = 0; r < rounds; r++) {
			size_t shift = (r * cases.size()) / rounds;
			for (size_t i = 0; i < cases.size(); i++) {
				const Case &c = cases[(i + shift) % cases.size()];
				CaseResult &cr = res[{c.elevator, c.w->name}];
				if (!cr.error.empty())
					continue;
				Sample s = run_case(c.elevator, *c.w, ios);
				if (!s.error.empty())
					cr.error = s.error;
				else
					cr.rounds.push_back(s);
			}
		}
	}
	print_table(elevators, wls, res, rounds, ios, have_mqdl || !asked_mqdl);
	state.counters["rounds"] = static_cast<double>(rounds);
	state.counters["cases"] = static_cast<double>(cases.size());
}
BENCHMARK(BM_RequestPath)->Iterations(1)->Unit(benchmark::kSecond);

} // namespace
