// SPDX-License-Identifier: GPL-2.0
// The random-scenario soak: making a case from a seed, running it on the
// block layer model, and the checks (soak.h).
#include "soak.h"

#include <sim/gtest_guard.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <sstream>

#include <sys/wait.h>
#include <unistd.h>

#include "blk/model.h"
#include "dev/device.h"
#include "workload/jobfile.h"
#include "workload/jobs.h"
#include "../common/tree_walk.h"

extern "C" {
#include <linux/blk-cgroup.h>
#include <linux/blk-mq.h>
#include <linux/cgroup.h>
#include <linux/elevator-fq.h>
#include <linux/ioprio.h>

#include "blk-cgroup.h"
#include "blk-mq.h"
#include "blk.h"
#include "elevator.h"
#include <sim/blk.h>
#include <sim/blkcg.h>
#include <sim/clock.h>
#include <sim/slab.h>
}
// the kernel's macros would shadow the C++ library's functions
#undef min
#undef max
#undef swap

namespace efqsoak {

namespace {

namespace dev = efqsim::dev;
namespace wl = efqsim::workload;
using efqsim::blk::Config;
using efqsim::blk::Model;

constexpr int64_t kUs = 1'000;
constexpr int64_t kMs = 1'000'000;
constexpr int64_t kSec = 1'000'000'000;
// After its end, a case's jobs must have ended within this much simulated
// time, and then everything outstanding must have drained within the same
// again: a request still there is a stall.  The slowest case (a 7200 rpm
// disk, 256 tags of 1 MiB random IO, idle windows) needs a few seconds.
constexpr int64_t kDrainBoundNs = 120 * kSec;
// A case that runs longer than this on the wall clock is reported (it
// would eat the shard's ctest time-out otherwise).
constexpr double kWallLimitSec = 60;

unsigned int g_lose_nth = 0, g_double_nth = 0;

// EFQ_SOAK_TRACE=1: the scheduler's blktrace messages (blk_add_trace_msg)
// are kept, the last kTraceLines of them; the first message after the
// first WARN freezes a copy, which a failure shows.
constexpr size_t kTraceLines = 60;
struct Trace {
	std::deque<std::string> ring;
	std::deque<std::string> at_warn;
	int64_t start = 0;
	bool frozen = false;
};

void TraceHook(struct request_queue *, const char *msg, void *arg)
{
	auto *t = static_cast<Trace *>(arg);
	if (t->frozen)
		return;
	char when[32];
	std::snprintf(when, sizeof(when), "%12.6f ms ", (double)(sim_clock_now() - t->start) / 1e6);
	t->ring.push_back(when + std::string(msg));
	if (t->ring.size() > kTraceLines)
		t->ring.pop_front();
	if (sim_warn_count()) {
		t->at_warn = t->ring;
		t->frozen = true;
	}
}
bool g_corrupt_tree = false;
double g_bound_scale = 1; // inject_service_bound_scale()

// ---- the case -------------------------------------------------------------

struct Rand {
	std::mt19937_64 g;
	explicit Rand(uint64_t seed) : g(seed * 0x9e3779b97f4a7c15ULL + 12345) {}
	// [0, n): modulo of the engine's own output (libstdc++'s
	// distributions are not the same everywhere; a seed must replay)
	uint64_t R(uint64_t n) { return n ? g() % n : 0; }
	int64_t Between(int64_t lo, int64_t hi) { return lo + (int64_t)R((uint64_t)(hi - lo + 1)); }
	bool P(unsigned int percent) { return R(100) < percent; }
	template <class T> const T &Pick(const std::vector<T> &v) { return v[R(v.size())]; }
};

struct TunableRange {
	const char *name;
	long long lo, hi; // the part of the valid range a case draws from
};

// Each scheduler's tunables (as block/*-iosched.c and mq-deadline.c list
// them; efqsim --list-tunables) with the range a case draws from.  The
// store's own range is wider: every value below is one the store keeps as
// given (times in ms unless said).  Time tunables are bounded at a second:
// an idle window of hours is valid and stalls everything behind it by
// design.
const std::vector<TunableRange> &EngineTunables()
{
	static const std::vector<TunableRange> t = {
		{"slice_sync", 1, 300},	       {"group_idle", 0, 30},  {"fairness", 0, 1},
		{"nr_group_requests", 4, 512}, {"hierarchical", 0, 1},
	};
	return t;
}

std::vector<TunableRange> SchedTunables(const std::string &sched)
{
	std::vector<TunableRange> t;
	if (sched == "cfq")
		t = {{"quantum", 1, 32},
		     {"fifo_expire_sync", 1, 1000},
		     {"fifo_expire_async", 1, 1000},
		     {"back_seek_max", 0, 1 << 20},
		     {"back_seek_penalty", 1, 10},
		     {"slice_async_rq", 1, 16},
		     {"slice_idle", 0, 30},
		     {"low_latency", 0, 1},
		     {"slice_async", 1, 200}};
	else if (sched == "deadline-fq")
		t = {{"read_expire", 1, 1000},
		     {"write_expire", 1, 5000},
		     {"writes_starved", 1, 16},
		     {"front_merges", 0, 1},
		     {"fifo_batch", 1, 64}};
	else if (sched == "as")
		t = {{"read_expire", 1, 1000},
		     {"write_expire", 1, 5000},
		     {"read_batch_expire", 1, 1000},
		     {"write_batch_expire", 1, 1000},
		     {"antic_expire", 0, 30}};
	else if (sched == "mq-deadline")
		return {{"read_expire", 1, 1000},	{"write_expire", 1, 5000},
			{"writes_starved", 1, 16},	{"front_merges", 0, 1},
			{"fifo_batch", 1, 64},		{"async_depth", 1, 256},
			{"prio_aging_expire", 1, 10000}};
	for (const auto &e : EngineTunables())
		t.push_back(e);
	return t;
}

std::string TunableValue(Rand &r, const TunableRange &t)
{
	long long v;
	unsigned int k = (unsigned int)r.R(10);
	if (k == 0)
		v = t.lo;
	else if (k == 1)
		v = t.hi;
	else
		v = t.lo + (long long)r.R((uint64_t)(t.hi - t.lo + 1));
	return std::to_string(v);
}

bool EfqScheduler(const std::string &s)
{
	return s == "cfq" || s == "deadline-fq" || s == "as" || s == "noop";
}

std::string Size(uint64_t bytes)
{
	if (bytes % (1 << 30) == 0)
		return std::to_string(bytes >> 30) + "g";
	if (bytes % (1 << 20) == 0)
		return std::to_string(bytes >> 20) + "m";
	if (bytes % 1024 == 0)
		return std::to_string(bytes >> 10) + "k";
	return std::to_string(bytes);
}

uint32_t BlockSize(Rand &r)
{
	static const std::vector<uint32_t> sizes = {512,   4096,   4096,   4096,    8192,  16384,
						    65536, 131072, 262144, 1 << 20, 12288, 4096};
	return r.Pick(sizes);
}

} // namespace

// An aliased-IO storm, in about one case of four, drawn from a stream of
// its own so that the rest of each seed's case stays as it was: a cgroup of
// 6-24 submitters of one process each, all reading (or, some of them,
// writing) 1-4 MiB windows of one area, shifted by whole IOs, sequentially
// in 16-64 KiB IOs at depth 2-16 without waiting (50-300 IOs each), mostly
// in plugged batches: requests for the same sectors are queued many times
// over and contiguous requests of different processes merge (the block
// core's request merges never ask the scheduler); fio jobs over the same
// area, direct and buffered; and a reader with think time in a cgroup of
// its own (the victim the service bound watches).
void AddStorm(Case &c, int64_t per_io_ns)
{
	Rand r(c.seed ^ 0x5707a11a5edULL);
	if (!r.P(25))
		return;
	c.storm = true;
	const uint64_t gib = uint64_t{1} << 30;
	const uint64_t area = 200 * gib, area_bytes = (1 + r.R(4)) << 20;
	const std::string storm = "storm", victim = "victim";
	c.cgroups.push_back({storm, r.P(50) ? 0 : 100 + (unsigned int)r.R(901), 0});
	c.cgroups.push_back({victim, r.P(50) ? 0 : 100 + (unsigned int)r.R(901), 0});
	const uint32_t bs = 16384u << r.R(3);
	const bool writes = r.P(30);
	for (unsigned int i = 0, n = 6 + (unsigned int)r.R(19); i < n; i++) {
		RawSpec s;
		s.cgroup = storm;
		s.depth = 2 + (unsigned int)r.R(15);
		s.bs = bs;
		s.read_pct = writes && r.P(30) ? 0 : 100;
		s.sync = true;
		// mostly plugged batches of the whole depth, as fio's libaio
		// submits them (io_submit() plugs): a batch is inserted at once,
		// and the block core's insert merges join other processes'
		// requests
		s.plug_batch = r.P(70) ? s.depth : 0;
		s.stop_ns = c.end_ns;
		s.max_ios = 50 + (unsigned int)r.R(250); // a few thousand IOs in all
		// windows of the same size shifted by whole IOs: the same sectors
		// read by many at once, and one's request ending where another's
		// starts
		s.region_start = area + r.R(area_bytes / bs) * bs;
		s.region_bytes = area_bytes;
		c.raws.push_back(s);
	}
	RawSpec v;
	v.cgroup = victim;
	v.random = true;
	v.think_ns = (int64_t)(1 + r.R(10)) * std::max<int64_t>(per_io_ns, kMs);
	v.stop_ns = c.end_ns;
	v.max_ios = 100000;
	v.region_start = area + 8 * gib;
	v.region_bytes = gib;
	c.raws.push_back(v);
	std::ostringstream f;
	for (unsigned int j = 0, n = (unsigned int)r.R(3); j < n; j++) {
		const bool direct = r.P(50);
		f << "[storm" << j << "]\n";
		f << "filename=/dev/sdb\n";
		f << "rw=" << (writes && r.P(50) ? "write" : "read") << "\n";
		f << "bs=" << bs << "\n";
		f << "direct=" << (direct ? 1 : 0) << "\n";
		f << "ioengine=libaio\niodepth=" << 1 + r.R(16) << "\n";
		f << "offset=" << Size(area) << "\n";
		f << "size=" << Size(area_bytes) << "\n";
		f << "io_size=" << Size(uint64_t{bs} * (16 + r.R(200))) << "\n";
		f << "runtime=" << std::max<int64_t>(c.end_ns / kUs, 1) << "us\n";
		if (r.P(30))
			f << "numjobs=" << 2 + r.R(3) << "\n";
		f << "cgroup=" << storm << "\n\n";
	}
	c.jobfile += f.str();
}

Case make_case(uint64_t seed)
{
	Rand r(seed);
	Case c;
	c.seed = seed;

	std::vector<std::string> scheds = {"cfq", "deadline-fq", "as", "noop"};
	if (efqsim::blk::scheduler_exists("mq-deadline"))
		scheds.push_back("mq-deadline");
	c.scheduler = r.Pick(scheds);
	const bool efq = EfqScheduler(c.scheduler);
	c.hierarchical = !r.P(20);

	// the device: its speed bounds how long the case runs
	int64_t per_io_ns; // a rough cost of a 4 KiB IO
	switch (r.R(8)) {
	case 0:
	case 1:
	case 2: {
		static const std::vector<int> lat = {0, 20, 100, 200, 1000, 4000};
		static const std::vector<int> depth = {1, 2, 4, 8, 32, 128};
		int l = r.Pick(lat), d = r.Pick(depth);
		c.device = "null:latency_us=" + std::to_string(l) +
			   ",queue_depth=" + std::to_string(d) +
			   ",rotational=" + std::to_string(r.R(2));
		if (r.P(25))
			c.device += ",bandwidth_mbps=" + std::to_string(50 + r.R(2000));
		per_io_ns = std::max<int64_t>(l * kUs / d, 5 * kUs);
		break;
	}
	case 3:
	case 4: {
		static const std::vector<int> depth = {1, 4, 32, 64};
		c.device = r.P(50) ? "ssd" : "ssd:queue_depth=" + std::to_string(r.Pick(depth));
		per_io_ns = 30 * kUs;
		break;
	}
	case 5:
	case 6: {
		static const std::vector<int> depth = {1, 4, 31};
		c.device = r.P(40) ? "hdd" : "hdd:queue_depth=" + std::to_string(r.Pick(depth));
		if (r.P(25))
			c.device += std::string(c.device == "hdd" ? ":" : ",") + "write_cache=0";
		per_io_ns = 8 * kMs;
		break;
	}
	default:
		c.device = "multipath:paths=" + std::to_string(1 + r.R(4)) +
			   ",rq_based_seq_io_merge_deadline=" + std::to_string(r.R(3) * 20);
		per_io_ns = 50 * kUs;
		break;
	}
	// a few thousand IOs per case: the run time follows the device
	c.end_ns = std::clamp<int64_t>(per_io_ns * (int64_t)(300 + r.R(1700)), 20 * kMs, 10 * kSec);

	static const std::vector<unsigned int> nr = {0, 0, 0, 4, 8, 16, 32, 64, 128, 256};
	c.nr_requests = r.Pick(nr);
	if (r.P(20)) {
		c.requeue_every = 2 + (unsigned int)r.R(20);
		c.requeue_dontprep = r.P(50);
	}
	if (r.P(30))
		c.max_discard_segments = (unsigned short)(2 + r.R(255));

	const std::vector<TunableRange> tun = SchedTunables(c.scheduler);
	for (unsigned int i = 0, n = (unsigned int)r.R(5); i < n; i++) {
		const TunableRange &t = r.Pick(tun);
		if (std::string(t.name) == "hierarchical")
			continue; // Config::hierarchical says it
		c.tunables.emplace_back(t.name, TunableValue(r, t));
	}

	// the cgroups: 1-3 levels
	unsigned int ncg = 1 + (unsigned int)r.R(6);
	for (unsigned int i = 0; i < ncg; i++) {
		CgroupSpec g;
		std::string parent;
		if (i && r.P(50)) {
			const CgroupSpec &p = c.cgroups[r.R(c.cgroups.size())];
			if (std::count(p.path.begin(), p.path.end(), '/') < 2)
				parent = p.path + "/";
		}
		g.path = parent + "g" + std::to_string(i);
		g.weight = r.P(70) ? 100 + (unsigned int)r.R(901) : 0;
		g.ioprio_class = r.P(80) ? 0 : 1 + (int)r.R(3);
		c.cgroups.push_back(g);
	}
	// leaves of our own submitters, removed mid-run
	unsigned int nrm = r.P(35) ? 1 + (unsigned int)r.R(2) : 0;
	for (unsigned int i = 0; i < nrm; i++) {
		CgroupSpec g;
		const CgroupSpec &p = c.cgroups[r.R(ncg)]; // a leaf: not under another
		std::string parent = std::count(p.path.begin(), p.path.end(), '/') < 2 && r.P(60)
					     ? p.path + "/"
					     : "";
		g.path = parent + "rm" + std::to_string(i);
		g.weight = 100 + (unsigned int)r.R(901);
		g.ioprio_class = r.P(85) ? 0 : 1 + (int)r.R(3);
		g.removable = true;
		c.cgroups.push_back(g);
	}
	std::vector<std::string> stay = {""}; // "" is the root
	std::vector<std::string> gone;
	for (const auto &g : c.cgroups)
		(g.removable ? gone : stay).push_back(g.path);

	// fio jobs (efqsim's job engine), never in a removable cgroup
	const uint64_t gib = uint64_t{1} << 30;
	std::ostringstream f;
	unsigned int njobs = (unsigned int)r.R(7);
	for (unsigned int j = 0; j < njobs; j++) {
		static const std::vector<std::string> rw = {"read",	 "write", "randread",
							    "randwrite", "rw",	  "randrw"};
		static const std::vector<std::string> eng = {"psync", "sync", "libaio", "io_uring"};
		const std::string &mode = r.Pick(rw);
		uint32_t bs = BlockSize(r);
		bool direct = !r.P(25);
		f << "[job" << j << "]\n";
		f << "filename=/dev/sdb\n";
		f << "rw=" << mode << "\n";
		if (mode == "rw" || mode == "randrw")
			f << "rwmixread=" << r.R(101) << "\n";
		f << "bs=" << bs << "\n";
		f << "direct=" << (direct ? 1 : 0) << "\n";
		const std::string &e = r.Pick(eng);
		f << "ioengine=" << e << "\n";
		if (e == "libaio" || e == "io_uring")
			f << "iodepth=" << 1 + r.R(32) << "\n";
		f << "offset=" << Size(j * 4 * gib) << "\n";
		f << "size=" << Size((1 + r.R(3)) * gib) << "\n";
		f << "io_size=" << Size(uint64_t{bs} * (8 + r.R(800))) << "\n";
		int64_t delay = r.P(30) ? (int64_t)r.R((uint64_t)c.end_ns / 2) : 0;
		if (delay)
			f << "startdelay=" << delay / kUs << "us\n";
		f << "runtime=" << std::max<int64_t>((c.end_ns - delay) / kUs, 1) << "us\n";
		if (r.P(30)) {
			f << "thinktime=" << r.R(5000) << "\n";
			f << "thinktime_blocks=" << 1 + r.R(4) << "\n";
		}
		if (!direct && mode.find("write") != std::string::npos) {
			if (r.P(50))
				f << "fsync=" << 1 + r.R(16) << "\n";
			if (r.P(50))
				f << "end_fsync=1\n";
		}
		if (r.P(20))
			f << "norandommap=1\n";
		if (r.P(25)) {
			f << "prioclass=" << 1 + r.R(3) << "\n";
			f << "prio=" << r.R(8) << "\n";
		}
		if (r.P(20))
			f << "numjobs=2\n";
		const std::string &cg = r.Pick(stay);
		if (!cg.empty())
			f << "cgroup=" << cg << "\n";
		f << "\n";
	}
	c.jobfile = f.str();

	// submitters of our own: at least one in each removable cgroup
	unsigned int nraw = (unsigned int)r.R(9) + (unsigned int)gone.size();
	if (!njobs && !nraw)
		nraw = 1;
	for (unsigned int i = 0; i < nraw; i++) {
		RawSpec s;
		s.cgroup =
			i < gone.size() ? gone[i] : r.Pick(r.P(20) && !gone.empty() ? gone : stay);
		if (r.P(25)) {
			s.prio_class = 1 + (int)r.R(3);
			s.prio = (int)r.R(8);
		}
		static const std::vector<unsigned int> depths = {1, 1, 2, 4, 8, 32};
		s.depth = r.Pick(depths);
		s.bs = BlockSize(r);
		s.random = r.P(50);
		s.read_pct = (unsigned int)r.Pick(std::vector<uint64_t>{0, 50, 100, 100, r.R(101)});
		s.discard_pct = r.P(30) ? (unsigned int)r.R(60) : 0;
		s.meta_pct = r.P(25) ? (unsigned int)r.R(50) : 0;
		s.sync = !r.P(30);
		s.idle = s.sync && r.P(30);
		s.plug_batch = r.P(30) ? 2 + (unsigned int)r.R(40) : 0;
		if (efq && r.P(10))
			s.flush_pct = 1 + (unsigned int)r.R(20);
		if (efq && r.P(10))
			s.unprep_pct = 1 + (unsigned int)r.R(20);
		s.think_ns = r.P(30) ? (int64_t)r.R(3000) * kUs : 0;
		s.start_ns = r.P(30) ? (int64_t)r.R((uint64_t)c.end_ns / 2) : 0;
		s.stop_ns = s.start_ns + (int64_t)r.R((uint64_t)(c.end_ns - s.start_ns)) + 1;
		s.max_ios = 8 + (unsigned int)r.R(1200);
		s.exit_at_stop = r.P(40);
		if (i && r.P(15))
			s.share_with = (int)r.R(i);
		if (i && r.P(15)) {
			int to = (int)r.R(i);
			bool removable = false;
			for (const auto &g : c.cgroups)
				if (g.path == c.raws[(size_t)to].cgroup && g.removable)
					removable = true;
			if (!removable)
				s.charge_to = to;
		}
		// mostly a region of its own; sometimes another's (aliased IO)
		size_t region = r.P(15) && i ? r.R(i) : i;
		s.region_start = (64 + 8 * region) * gib;
		s.region_bytes = r.P(20) ? 64 * 4096 : gib;
		c.raws.push_back(s);
	}

	// changes while it runs
	std::vector<std::string> named(stay.begin() + 1, stay.end());
	unsigned int nev = (unsigned int)r.R(21);
	std::vector<int64_t> when;
	for (unsigned int i = 0; i < nev; i++)
		when.push_back((int64_t)r.R((uint64_t)c.end_ns));
	std::sort(when.begin(), when.end());
	std::string cur = c.scheduler; // the scheduler at each event's time
	for (unsigned int i = 0; i < nev; i++) {
		EventSpec e;
		e.at_ns = when[i];
		switch (r.R(7)) {
		case 6: {
			// at most two switches, each to another scheduler
			int switches = 0;
			for (const auto &x : c.events)
				switches += x.kind == EventSpec::Switch;
			if (switches >= 2 || !r.P(50))
				continue;
			e.kind = EventSpec::Switch;
			e.target = r.Pick(scheds);
			if (e.target == cur)
				continue;
			e.value = r.P(80) ? "1" : "0";
			cur = e.target;
			break;
		}
		case 0:
		case 1:
			if (named.empty())
				continue;
			e.kind = EventSpec::Weight;
			e.target = r.Pick(named);
			e.value = std::to_string(100 + r.R(901));
			if (r.P(30))
				e.value = "default " + e.value;
			else if (r.P(30))
				e.value = "8:0 " + e.value;
			else if (r.P(10))
				e.value = "8:0 default";
			break;
		case 2:
			if (named.empty())
				continue;
			e.kind = EventSpec::Class;
			e.target = r.Pick(named);
			e.value = std::to_string(1 + r.R(3));
			break;
		case 3:
			if (named.empty())
				continue;
			e.kind = EventSpec::Policy;
			e.target = r.Pick(named);
			e.value = r.P(25) ? "8:0 0 " + std::to_string(1 + r.R(3))
					  : "8:0 " + std::to_string(100 + r.R(901)) + " " +
						    std::to_string(1 + r.R(3));
			break;
		case 4: {
			e.kind = EventSpec::Tunable;
			e.scheduler = cur;
			const TunableRange t = r.Pick(SchedTunables(cur));
			e.target = t.name;
			e.value = TunableValue(r, t);
			break;
		}
		default:
			e.kind = EventSpec::Read;
			e.target = r.Pick(stay);
			break;
		}
		c.events.push_back(e);
	}
	for (const auto &g : c.cgroups) {
		if (!g.removable)
			continue;
		EventSpec e;
		e.kind = EventSpec::Remove;
		e.target = g.path;
		e.at_ns = (int64_t)r.R((uint64_t)c.end_ns);
		c.events.push_back(e);
	}
	std::stable_sort(c.events.begin(), c.events.end(),
			 [](const EventSpec &a, const EventSpec &b) { return a.at_ns < b.at_ns; });
	AddStorm(c, per_io_ns);
	return c;
}

std::string Case::describe() const
{
	std::ostringstream o;
	o << "seed " << seed << ": scheduler " << scheduler
	  << (hierarchical ? " hierarchical" : " flat") << ", device " << device << ", nr_requests "
	  << nr_requests;
	if (requeue_every)
		o << ", driver requeues every " << requeue_every
		  << (requeue_dontprep ? " (RQF_DONTPREP)" : "");
	o << ", max_discard_segments " << max_discard_segments << ", ends at "
	  << (double)end_ns / kMs << " ms\n";
	o << "  tunables:";
	for (const auto &[k, v] : tunables)
		o << " " << k << "=" << v;
	o << "\n  cgroups:";
	for (const auto &g : cgroups)
		o << " /" << g.path << "(w" << g.weight << ",c" << g.ioprio_class
		  << (g.removable ? ",removed" : "") << ")";
	o << "\n";
	for (size_t i = 0; i < raws.size(); i++) {
		const RawSpec &s = raws[i];
		o << "  raw" << i << ": /" << s.cgroup << " prio " << s.prio_class << "/" << s.prio
		  << " depth " << s.depth << " bs " << s.bs << (s.random ? " random" : " seq")
		  << " read " << s.read_pct << "% discard " << s.discard_pct << "% meta "
		  << s.meta_pct << "%" << (s.sync ? " sync" : " async") << (s.idle ? " idle" : "");
		if (s.plug_batch)
			o << " plug " << s.plug_batch;
		if (s.flush_pct || s.unprep_pct)
			o << " flush-data " << s.flush_pct << "% unprepared " << s.unprep_pct
			  << "%";
		o << " think " << s.think_ns / kUs << "us, " << (double)s.start_ns / kMs << "-"
		  << (double)s.stop_ns / kMs << " ms, <= " << s.max_ios << " IOs"
		  << (s.exit_at_stop ? ", exits" : "");
		if (s.share_with >= 0)
			o << ", shares raw" << s.share_with << "'s io_context";
		if (s.charge_to >= 0)
			o << ", writes charged to raw" << s.charge_to;
		o << ", region " << (s.region_start >> 30) << "g+" << s.region_bytes << "\n";
	}
	if (storm) {
		o << "  an aliased-IO storm: the submitters of /storm, the jobs storm*, the "
		     "reader of /victim\n";
	}
	for (const auto &e : events) {
		static const char *kinds[] = {"io.efq.weight", "io.efq.ioprio_class",
					      "io.efq.policy", "tunable",
					      "rmdir",	       "read files",
					      "switch to"};
		o << "  at " << (double)e.at_ns / kMs << " ms: " << kinds[e.kind]
		  << (e.kind == EventSpec::Switch || e.kind == EventSpec::Tunable ? " " : " /")
		  << e.target;
		if (e.kind == EventSpec::Switch)
			o << (e.value == "1" ? " hierarchical" : " flat");
		else if (!e.value.empty())
			o << " <- '" << e.value << "'";
		if (e.kind == EventSpec::Tunable)
			o << " (of " << e.scheduler << ")";
		o << "\n";
	}
	if (!jobfile.empty())
		o << "  jobs:\n" << jobfile;
	return o.str();
}

// ---- running it -------------------------------------------------------------

namespace {

// Adds +@sign over each range to a difference map: bios add, the device's
// completed requests take away; at the end every sector was served as
// often as it was asked for when all entries are zero.
void Cover(std::map<uint64_t, int64_t> &d, uint64_t sector, uint64_t sectors, int64_t sign)
{
	if (!sectors)
		return;
	d[sector] += sign;
	d[sector + sectors] -= sign;
}

// The device under test, wrapped: every request sent once at a time, every
// completion of a request in flight, the sectors each completed request
// covered.
class CheckedDevice final : public dev::Device {
public:
	CheckedDevice(std::unique_ptr<dev::Device> in, unsigned int requeue_every)
	    : in_(std::move(in)), requeue_every_(requeue_every)
	{
	}
	std::string name() const override { return in_->name(); }
	uint32_t queue_depth() const override { return in_->queue_depth(); }
	bool rotational() const override { return in_->rotational(); }
	uint64_t capacity_sectors() const override { return in_->capacity_sectors(); }
	uint32_t in_flight() const override { return in_->in_flight(); }
	void submit(const dev::Request &rq, int64_t now) override
	{
		if (!in_flight_.emplace(rq.id, rq).second)
			Fail("request id " + std::to_string(rq.id) + " sent twice");
		sent_at_[rq.id] = now;
		sent_++;
		in_->submit(rq, now);
	}
	int64_t defer_until(const dev::Request &rq, int64_t now) override
	{
		return in_->defer_until(rq, now);
	}
	int64_t next_event() const override { return in_->next_event(); }
	void advance(int64_t now, std::vector<dev::Completion> &out) override
	{
		size_t first = out.size();
		in_->advance(now, out);
		for (size_t i = first; i < out.size(); i++) {
			auto it = in_flight_.find(out[i].id);
			if (it == in_flight_.end()) {
				Fail("completion of request id " + std::to_string(out[i].id) +
				     ", not in flight");
				continue;
			}
			const dev::Request &rq = it->second;
			completions_++;
			max_latency = std::max(max_latency, out[i].time - sent_at_[out[i].id]);
			sent_at_.erase(out[i].id);
			// the model gives every requeue_every-th completion back
			// to the scheduler (Config::requeue_every): sent again later
			bool requeued = requeue_every_ && completions_ % requeue_every_ == 0;
			if (!requeued) {
				if (rq.discard)
					for (const auto &rg : rq.ranges)
						Cover(cover, rg.sector, rg.sectors, -1);
				else
					Cover(cover, rq.sector, rq.sectors, -1);
			}
			if (g_double_nth && completions_ == g_double_nth) {
				// delivered again: checked as the loop reaches it
				g_double_nth = 0;
				out.push_back(out[i]);
			}
			in_flight_.erase(it);
		}
		if (g_lose_nth && completions_ >= g_lose_nth && out.size() > first) {
			g_lose_nth = 0;
			lost_++;
			out.pop_back(); // the driver never reports it
		}
	}
	// The longest time a request spent in the device so far.
	int64_t max_latency = 0;
	const std::vector<int64_t> &busy_by_tag() const override { return in_->busy_by_tag(); }
	int64_t busy_total() const override { return in_->busy_total(); }
	std::string params() const override { return in_->params(); }

	void Fail(const std::string &what)
	{
		if (error.empty())
			error = what;
	}
	size_t in_flight_ids() const { return in_flight_.size() + lost_; }

	std::map<uint64_t, int64_t> cover;
	std::string error;
	uint64_t sent_ = 0, completions_ = 0;

private:
	std::unique_ptr<dev::Device> in_;
	unsigned int requeue_every_;
	std::map<uint64_t, dev::Request> in_flight_;
	std::map<uint64_t, int64_t> sent_at_;
	size_t lost_ = 0;
};

// What the workload submits, wrapped: every bio ends exactly once, never
// before it was submitted; what is outstanding, for a stall's report.
class CheckedHost final : public wl::Host {
public:
	CheckedHost(Model &m, CheckedDevice &d) : m_(m), d_(d) {}
	int64_t now() const override { return m_.now(); }
	void at(int64_t when, std::function<void()> fn) override { m_.at(when, std::move(fn)); }
	wl::TaskId create_task(const wl::TaskSpec &spec) override
	{
		wl::TaskId t = m_.create_task(spec);
		if (t)
			comm_[t] = spec.comm + (spec.cgroup.empty() ? "" : " in /" + spec.cgroup);
		return t;
	}
	void submit(wl::TaskId task, const wl::Io &io,
		    std::function<void(int64_t done)> done) override
	{
		if (frozen) {
			// blk_queue_enter() of a frozen queue: the submitter
			// waits until the switch is over
			deferred_.push_back({task, io, std::move(done)});
			return;
		}
		uint64_t id = ++bios_;
		Out &o = out_[id];
		o.task = task;
		o.io = io;
		o.submitted = m_.now();
		Cover(d_.cover, io.offset >> 9, io.bytes >> 9, +1);
		m_.submit(task, io, [this, id, done = std::move(done)](int64_t when) {
			auto it = out_.find(id);
			if (it == out_.end()) {
				Fail("bio " + std::to_string(id) + " ended twice");
				return;
			}
			if (when < it->second.submitted || when > m_.now())
				Fail("bio " + std::to_string(id) + " ended at " +
				     std::to_string(when) + ", submitted at " +
				     std::to_string(it->second.submitted) + ", now " +
				     std::to_string(m_.now()));
			max_lat = std::max(max_lat, when - it->second.submitted);
			out_.erase(it);
			done(when);
		});
	}
	uint64_t capacity_bytes() const override { return m_.capacity_bytes(); }
	void plug(wl::TaskId t) override { m_.plug(t); }
	void unplug(wl::TaskId t) override { m_.unplug(t); }

	void Fail(const std::string &what)
	{
		if (error.empty())
			error = what;
	}
	size_t outstanding() const { return out_.size() + deferred_.size(); }
	// The queue is unfrozen: the waiting submitters go on, in order.  A
	// request only 6.12's block core makes (Io::flush_data, unprepared)
	// goes in as a plain one under a scheduler that is not efq's (6.1's
	// mq-deadline never gets those).
	void Thaw(bool efq)
	{
		frozen = false;
		std::vector<Deferred> d;
		d.swap(deferred_);
		for (auto &x : d) {
			if (!efq)
				x.io.flush_data = x.io.unprepared = false;
			submit(x.task, x.io, std::move(x.done));
		}
	}
	// The oldest bios still outstanding (a stall's report).
	std::string Oldest(size_t n) const
	{
		std::vector<std::pair<int64_t, uint64_t>> v;
		for (const auto &[id, o] : out_)
			v.emplace_back(o.submitted, id);
		std::sort(v.begin(), v.end());
		std::ostringstream s;
		for (size_t i = 0; i < v.size() && i < n; i++) {
			const Out &o = out_.at(v[i].second);
			auto c = comm_.find(o.task);
			s << "    bio " << v[i].second << " of task " << o.task << " ("
			  << (c == comm_.end() ? "?" : c->second) << "): "
			  << (o.io.discard ? "discard"
			      : o.io.write ? "write"
					   : "read")
			  << " " << o.io.bytes << " B at sector " << (o.io.offset >> 9)
			  << (o.io.sync ? " sync" : " async") << (o.io.meta ? " meta" : "")
			  << (o.io.flush_data ? " flush-data" : "")
			  << (o.io.unprepared ? " unprepared" : "") << ", submitted "
			  << (double)(m_.now() - o.submitted) / kMs << " ms ago\n";
		}
		return s.str();
	}

	std::string error;
	uint64_t bios_ = 0;
	int64_t max_lat = 0;
	bool frozen = false;

private:
	struct Deferred {
		wl::TaskId task;
		wl::Io io;
		std::function<void(int64_t)> done;
	};
	std::vector<Deferred> deferred_;
	struct Out {
		wl::TaskId task = 0;
		wl::Io io;
		int64_t submitted = 0;
	};
	Model &m_;
	CheckedDevice &d_;
	std::map<uint64_t, Out> out_;
	std::map<wl::TaskId, std::string> comm_;
};

// The case's queue: its root blkg is the newest on the root cgroup's list
// (blkg_create() adds at the head; a stalled case's model may be left
// behind it).
struct request_queue *TheQueue()
{
	struct blkcg_gq *blkg;
	hlist_for_each_entry(blkg, &blkcg_root.blkg_list, blkcg_node) {
		return blkg->q;
	}
	return nullptr;
}

struct blkcg *FindCgroup(const std::string &path)
{
	struct blkcg *cg = nullptr;
	size_t pos = 0;
	while (pos <= path.size()) {
		size_t slash = path.find('/', pos);
		std::string name = path.substr(pos, slash == std::string::npos ? std::string::npos
									       : slash - pos);
		cg = sim_blkcg_find(cg, name.c_str());
		if (!cg || slash == std::string::npos)
			return cg;
		pos = slash + 1;
	}
	return cg;
}

// One submitter of our own, running.
struct Raw {
	const RawSpec *s = nullptr;
	wl::TaskId task = 0;
	uint64_t rng = 0, next = 0;
	unsigned int issued = 0, inflight = 0;
	bool stopped = false, exited = false;
};

class Runner {
public:
	Runner(const Case &c, Model &m, CheckedHost &h, CheckedDevice &d)
	    : c_(c), m_(m), h_(h), d_(d)
	{
	}

	std::string Run(Result *res);
	std::vector<struct blkcg *> removed; // with a css reference of ours

private:
	void Pump(Raw &r);
	void Issue(Raw &r);
	void Stop(Raw &r);
	void Event(const EventSpec &e);
	void Checkpoint();
	void CheckService(struct efq_data *efqd, int64_t slice_idle);
	void TrySwitch(const EventSpec *e);
	std::string Stall(const std::string &what);
	uint64_t Next(Raw &r)
	{
		r.rng = r.rng * 6364136223846793005ULL + 1442695040888963407ULL;
		return r.rng >> 11;
	}

	const Case &c_;
	Model &m_;
	CheckedHost &h_;
	CheckedDevice &d_;
	std::vector<Raw> raws_;
	std::string sched_; // the scheduler now
	int64_t start_ = 0;
	std::string error_;
	uint64_t checkpoints_ = 0;
	// the service bound (CheckService()): per queue (its address), when
	// the driver was last given one of its requests, since when it has
	// been seen backlogged without one, and the largest bound computed
	// for it over that wait
	std::map<const void *, int64_t> last_issue_, waiting_since_, bound_;
	int64_t rt_issue_ = 0; // when the driver was last given an RT path's request

public:
	double worst_wait_ratio = 0; // the longest wait / its bound, over the case
	uint64_t waits_checked = 0;
	uint64_t waits_within_case = 0; // of those, with a bound shorter than the case
};

// Is every entity on @q's path (the queue and its groups) best-effort?  The
// service bound holds for those: the RT class starves BE by design, and the
// idle class waits while any other is busy.
bool BestEffortPath(struct efq_queue *q)
{
	for (struct efq_entity *e = &q->entity; e->parent; e = e->parent)
		if (e->ioprio_class != IOPRIO_CLASS_BE)
			return false;
	return true;
}

// Calls @visit with each backlogged child of @sd: those on the active
// trees of its classes, and the one in service.
template <class F> void ForEachBacklogged(struct efq_sched_data *sd, F visit)
{
	for (int c = 0; c < EFQ_NR_CLASSES; c++) {
		struct efq_service_tree *st = &sd->service_tree[c];
		for (struct rb_node *rn = rb_first(&st->active.rb_root); rn; rn = rb_next(rn))
			visit(rb_entry(rn, struct efq_entity, rb_node));
		if (st->active_entity)
			visit(st->active_entity);
	}
}

// The backlogged queues under @g (the one in service included).
void CollectBacklogged(struct efq_group *g, std::vector<struct efq_queue *> &out)
{
	ForEachBacklogged(&g->sched_data, [&](struct efq_entity *e) {
		if (e->my_sd)
			CollectBacklogged(container_of(e, struct efq_group, entity), out);
		else
			out.push_back(container_of(e, struct efq_queue, entity));
	});
}

// The backlogged children of @sd: how many, and their weights' sum.
void Siblings(struct efq_sched_data *sd, unsigned int *n, uint64_t *weights)
{
	*n = 0;
	*weights = 0;
	ForEachBacklogged(sd, [&](struct efq_entity *e) {
		(*n)++;
		*weights += e->weight;
	});
}

void Runner::Issue(Raw &r)
{
	const RawSpec &s = *r.s;
	wl::Io io;
	unsigned int op = (unsigned int)(Next(r) % 100);
	io.discard = op < s.discard_pct;
	io.write = !io.discard && (Next(r) % 100) >= s.read_pct;
	uint32_t bs = s.bs;
	uint64_t blocks = std::max<uint64_t>(s.region_bytes / bs, 1);
	if (s.random) {
		io.offset = s.region_start + (Next(r) % blocks) * bs;
	} else {
		io.offset = s.region_start + (r.next % blocks) * bs;
		r.next++;
	}
	io.bytes = bs;
	io.sync = (io.write || io.discard) ? s.sync : true;
	io.idle = io.write && s.idle;
	io.meta = (Next(r) % 100) < s.meta_pct;
	if (io.write && s.charge_to >= 0)
		io.charge_to = raws_[(size_t)s.charge_to].task;
	// 6.12's two requests, for efq's schedulers only (Linux 6.1's
	// mq-deadline never gets them from 6.1's block core)
	const bool efq = EfqScheduler(sched_);
	if (io.write && !io.discard && (Next(r) % 100) < s.flush_pct && efq)
		io.flush_data = true;
	else if ((Next(r) % 100) < s.unprep_pct && efq)
		io.unprepared = true;
	r.issued++;
	r.inflight++;
	Raw *rp = &r;
	h_.submit(r.task, io, [this, rp](int64_t when) {
		rp->inflight--;
		if (rp->s->think_ns)
			m_.at(when + rp->s->think_ns, [this, rp] { Pump(*rp); });
		else
			Pump(*rp);
	});
}

void Runner::Pump(Raw &r)
{
	const RawSpec &s = *r.s;
	if (r.stopped)
		return;
	if (m_.now() >= start_ + s.stop_ns) {
		Stop(r);
		return;
	}
	unsigned int room = s.depth - std::min(s.depth, r.inflight);
	room = std::min(room, s.max_ios - std::min(s.max_ios, r.issued));
	if (!room)
		return;
	if (s.plug_batch) {
		h_.plug(r.task);
		for (unsigned int i = 0; i < std::min(room, s.plug_batch); i++)
			Issue(r);
		h_.unplug(r.task);
	} else {
		for (unsigned int i = 0; i < room; i++)
			Issue(r);
	}
}

void Runner::Stop(Raw &r)
{
	if (r.stopped)
		return;
	r.stopped = true;
	if (r.s->exit_at_stop && !r.exited) {
		r.exited = true;
		m_.exit_task(r.task);
	}
}

void Runner::Event(const EventSpec &e)
{
	auto write = [&](const char *file, const std::string &v) {
		struct blkcg *cg = FindCgroup(e.target);
		if (!cg) {
			error_ = "no cgroup /" + e.target + " for an event";
			return;
		}
		ssize_t n = sim_cgroup_write(cg, file, v.c_str());
		// every value a case writes is valid
		if (n != (ssize_t)v.size() && error_.empty())
			error_ = std::string(file) + " of /" + e.target + " <- '" + v +
				 "' failed: " + std::to_string(n);
	};
	switch (e.kind) {
	case EventSpec::Weight:
		write("io.efq.weight", e.value);
		break;
	case EventSpec::Class:
		write("io.efq.ioprio_class", e.value);
		break;
	case EventSpec::Policy:
		write("io.efq.policy", e.value);
		break;
	case EventSpec::Switch:
		h_.frozen = true;
		TrySwitch(&e);
		break;
	case EventSpec::Tunable: {
		if (e.scheduler != sched_)
			break; // a switch made at this time has not happened yet
		int ret = m_.set_tunable(e.target, e.value);
		// hierarchical: EBUSY while requests are queued, by design
		if (ret && !(ret == -EBUSY && e.target == "hierarchical") && error_.empty())
			error_ = "tunable " + e.target + "=" + e.value +
				 " failed: " + std::to_string(ret);
		break;
	}
	case EventSpec::Remove: {
		// rmdir: its tasks stop (and some exit) first, their IO still
		// queued or in flight; then the cgroup goes
		for (Raw &r : raws_)
			if (r.s->cgroup == e.target)
				Stop(r);
		struct blkcg *cg = FindCgroup(e.target);
		if (!cg) {
			error_ = "no cgroup /" + e.target + " to remove";
			break;
		}
		// the model destroys its cgroups when it goes, this one again
		// (a WARN we expect, see run_case()): keep it until then
		css_get(&cg->css);
		sim_blkcg_destroy(cg);
		removed.push_back(cg);
		break;
	}
	case EventSpec::Read: {
		struct blkcg *cg = e.target.empty() ? &blkcg_root : FindCgroup(e.target);
		if (!cg)
			break;
		for (const char *f : {"io.efq.weight", "io.efq.ioprio_class", "io.efq.policy",
				      "io.efq.disk_time", "io.efq.disk_sectors", "io.stat"}) {
			int err = 0;
			if (char *s = sim_cgroup_read(cg, f, &err))
				std::free(s);
		}
		std::string err;
		for (const char *f : {"state", "service_trees"})
			(void)m_.debugfs(f, &err);
		(void)m_.tunables();
		break;
	}
	}
}

// elevator_switch() of 6.1 on a frozen queue: once nothing is queued or in
// flight, the old elevator's io_cq go (exit_icq), then its exit_hctx and
// exit_sched; the new one's init_sched and init_hctx with the blkgs of
// every cgroup already there; then the waiting submitters go on.  The
// model keeps its scheduler tags (6.1 makes new ones, nr_requests back at
// its default).
void Runner::TrySwitch(const EventSpec *e)
{
	if (m_.outstanding() || d_.in_flight()) {
		m_.at(m_.now() + 50 * kUs, [this, e] { TrySwitch(e); });
		return;
	}
	struct request_queue *q = TheQueue();
	struct elevator_type *ne = sim_elv_find(e->target.c_str());
	if (!q || !ne) {
		error_ = "cannot switch to " + e->target;
		return;
	}
	struct elevator_queue *eq = q->elevator;
	struct blk_mq_hw_ctx *hctx = q->sim_hctxs[0];
	sim_set_current(1, "sim");
	ioc_clear_queue(q);
	if (eq->type->ops.exit_hctx)
		eq->type->ops.exit_hctx(hctx, 0);
	eq->type->ops.exit_sched(eq);
	q->elevator = nullptr;
	kobject_put(&eq->kobj);
	hctx->sched_tags->bitmap_tags.min_shallow_depth = UINT_MAX;
	int ret = ne->ops.init_sched(q, ne);
	if (!ret && ne->ops.init_hctx)
		ret = ne->ops.init_hctx(hctx, 0);
	if (ret) {
		error_ =
			"switching to " + e->target + ": init failed (" + std::to_string(ret) + ")";
		return;
	}
	sched_ = e->target;
	// the new scheduler's queues are new: no wait carries over
	last_issue_.clear();
	waiting_since_.clear();
	bound_.clear();
	if (EfqScheduler(sched_) && m_.set_tunable("hierarchical", e->value) && error_.empty())
		error_ = "hierarchical=" + e->value + " after the switch failed";
	h_.Thaw(EfqScheduler(sched_));
}

void Runner::Checkpoint()
{
	checkpoints_++;
	if (!error_.empty() || !EfqScheduler(sched_))
		return;
	struct request_queue *q = TheQueue();
	if (!q) {
		error_ = "cannot find the queue";
		return;
	}
	auto *efqd = static_cast<struct efq_data *>(q->elevator->elevator_data);
	// the scheduler's own idle window (cfq's slice_idle, as's
	// antic_expire), read before the lock: a sysfs show takes it
	int64_t slice_idle = 0;
	for (const auto &[name, value] : m_.tunables())
		if (name == "slice_idle" || name == "antic_expire")
			slice_idle = std::max<int64_t>(slice_idle, std::stoll(value) * kMs);
	spin_lock_irq(&efqd->lock);
	// the checker's own test: a count off by one must be seen
	const bool corrupt = g_corrupt_tree;
	efqd->busy_queues += corrupt;
	std::string e = efqcheck::TreeWalk(efqd).Check();
	efqd->busy_queues -= corrupt;
	g_corrupt_tree = false;
	if (e.empty())
		CheckService(efqd, slice_idle);
	spin_unlock_irq(&efqd->lock);
	if (!e.empty())
		error_ = "the engine's trees at " +
			 std::to_string((double)(m_.now() - start_) / kMs) + " ms: " + e;
}

// The service bound.  A backlogged queue that is not in service must be
// given the driver one of its requests within
//
//   B(q) = u + sum over the levels of q's path (the queue, then each group
//          below the root) of
//            (n - 1) * u + (S + D) * (W - w) / w
//
// where, at a level, n is the number of backlogged entities sharing the
// parent (the entity in service included), W their weights' sum and w the
// weight of q's entity there; S is the longest slice any queue can get
// (2 x the longer of slice_sync and slice_async: a queue's slice scales
// with its weight, at most 1000/500), u = S + I + D one turn of another
// entity: its slice, the idle wait it may get (I, the longest of
// group_idle, slice_idle and antic_expire) and the longest time a request
// has spent in the device so far in this case (D: a slice starts at its
// first completion, and the fairness tunable drains the old queue).  Each
// sibling gets at most one turn before q's vdisktime is the smallest,
// plus the service that catches up with q's vdisktime lead, which is at
// most one charge of q's: (S + D) / w in vdisktime, (S + D) * w_s / w of a
// sibling's time.  The bound is recomputed at every checkpoint and the
// largest over the wait kept (siblings come and go).  It holds for a queue
// whose path is best-effort (BestEffortPath()), over a wait during which no
// request of an RT path went to the driver: the RT class starves the others
// by design.
void Runner::CheckService(struct efq_data *efqd, int64_t slice_idle)
{
	const int64_t now = m_.now();
	const int64_t S = 2 * (int64_t)std::max(efqd->slice[0], efqd->slice[1]);
	const int64_t I = std::max<int64_t>((int64_t)efqd->group_idle, slice_idle);
	const int64_t D = std::max<int64_t>(d_.max_latency, kMs);
	const int64_t u = S + I + D;
	std::vector<struct efq_queue *> backlogged;
	CollectBacklogged(efqd->root_group, backlogged);
	std::map<const void *, int64_t> since, bound;
	for (struct efq_queue *q : backlogged) {
		if (q == efqd->active_queue || !q->nr_queued || !BestEffortPath(q))
			continue;
		int64_t b = u;
		for (struct efq_entity *e = &q->entity; e->parent; e = e->parent) {
			unsigned int n;
			uint64_t w;
			Siblings(e->parent->my_sd, &n, &w);
			const uint64_t own = std::max(e->weight, 1u);
			b += (int64_t)(n ? n - 1 : 0) * u +
			     (int64_t)((double)(S + D) * (double)(w - std::min(w, own)) / own);
		}
		auto it = waiting_since_.find(q);
		int64_t from = it == waiting_since_.end() ? now : it->second;
		if (auto li = last_issue_.find(q); li != last_issue_.end())
			from = std::max(from, li->second);
		from = std::max(from, rt_issue_); // RT service is not bounded
		auto bi = bound_.find(q);
		b = std::max(b, bi == bound_.end() || from == now ? 0 : bi->second);
		since[q] = from;
		bound[q] = b;
		waits_checked++;
		waits_within_case += b < c_.end_ns;
		const double ratio = (double)(now - from) / ((double)b * g_bound_scale);
		worst_wait_ratio = std::max(worst_wait_ratio, ratio);
		if (ratio > 1 && error_.empty()) {
			std::ostringstream o;
			o << "the service bound at " << (double)(now - start_) / kMs
			  << " ms: queue efq" << q->pid << (efq_queue_sync(q) ? 'S' : 'A') << " ("
			  << q->nr_queued << " queued) backlogged without a dispatch for "
			  << (double)(now - from) / kMs << " ms, bound " << (double)b / kMs
			  << " ms (S " << S / kMs << ", I " << I / kMs << ", D " << (double)D / kMs
			  << " ms)";
			error_ = o.str();
		}
	}
	waiting_since_ = std::move(since);
	bound_ = std::move(bound);
}

std::string Runner::Stall(const std::string &what)
{
	std::ostringstream s;
	std::string err;
	s << what << " at " << (double)(m_.now() - start_) / kMs << " ms: " << m_.outstanding()
	  << " requests outstanding in the block layer, " << h_.outstanding() << " bios, "
	  << d_.in_flight_ids() << " requests in the device; "
	  << "the oldest bios:\n"
	  << h_.Oldest(8);
	for (const char *f : {"state", "service_trees"}) {
		std::string t = m_.debugfs(f, &err);
		if (!t.empty())
			s << "  debugfs " << f << ":\n" << t << "\n";
	}
	return s.str();
}

std::string Runner::Run(Result *res)
{
	start_ = m_.now();
	sched_ = c_.scheduler;
	m_.on_issue = [this](struct request *rq) {
		auto *q = static_cast<struct efq_queue *>(rq->elv.priv[0]);
		if (!EfqScheduler(sched_) || !q)
			return;
		last_issue_[q] = m_.now();
		for (struct efq_entity *e = &q->entity; e->parent; e = e->parent)
			if (e->ioprio_class == IOPRIO_CLASS_RT)
				rt_issue_ = m_.now();
	};
	// every cgroup, made by a task that never submits, with its settings
	for (const auto &g : c_.cgroups) {
		wl::TaskSpec spec;
		spec.comm = "holder";
		spec.cgroup = g.path;
		if (!h_.create_task(spec))
			return "cannot create cgroup /" + g.path + ": " + m_.task_error();
		struct blkcg *cg = FindCgroup(g.path);
		if (!cg)
			return "no cgroup /" + g.path;
		if (g.weight) {
			std::string v = std::to_string(g.weight);
			if (sim_cgroup_write(cg, "io.efq.weight", v.c_str()) != (ssize_t)v.size())
				return "io.efq.weight of /" + g.path + " <- " + v + " failed";
		}
		if (g.ioprio_class) {
			std::string v = std::to_string(g.ioprio_class);
			if (sim_cgroup_write(cg, "io.efq.ioprio_class", v.c_str()) !=
			    (ssize_t)v.size())
				return "io.efq.ioprio_class of /" + g.path + " <- " + v + " failed";
		}
	}
	// our submitters
	raws_.resize(c_.raws.size());
	for (size_t i = 0; i < c_.raws.size(); i++) {
		Raw &r = raws_[i];
		r.s = &c_.raws[i];
		r.rng = c_.seed * 1000003 + i;
		wl::TaskSpec spec;
		spec.comm = "raw" + std::to_string(i);
		spec.cgroup = r.s->cgroup;
		spec.ioprio_class = r.s->prio_class;
		spec.ioprio = r.s->prio;
		r.task = h_.create_task(spec);
		if (!r.task)
			return "cannot create raw" + std::to_string(i) + ": " + m_.task_error();
		if (r.s->share_with >= 0)
			m_.share_io_context(r.task, raws_[(size_t)r.s->share_with].task);
		Raw *rp = &r;
		m_.at(start_ + r.s->start_ns, [this, rp] { Pump(*rp); });
		m_.at(start_ + r.s->stop_ns, [this, rp] { Stop(*rp); });
	}
	// the fio jobs
	std::unique_ptr<wl::JobEngine> engine;
	if (!c_.jobfile.empty()) {
		wl::ParseContext ctx;
		ctx.capacity_bytes = m_.capacity_bytes();
		ctx.scheduler_names = efqsim::blk::scheduler_names(c_.scheduler);
		ctx.seed = c_.seed;
		std::string err;
		std::vector<wl::JobSpec> jobs =
			wl::parse_jobs({{"soak.fio", c_.jobfile}}, ctx, &err);
		if (jobs.empty())
			return "the job file: " + err;
		engine = std::make_unique<wl::JobEngine>(h_, std::move(jobs));
		if (!engine->start())
			return "the jobs did not start: " + m_.task_error();
	}
	for (const auto &e : c_.events) {
		const EventSpec *ep = &e;
		m_.at(start_ + e.at_ns, [this, ep] { Event(*ep); });
	}
	const int64_t step = std::max<int64_t>(c_.end_ns / 64, 100 * kUs);
	for (int64_t t = step; t < c_.end_ns; t += step)
		m_.at(start_ + t, [this] { Checkpoint(); });

	auto wall0 = std::chrono::steady_clock::now();
	auto wall = [&] {
		return std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0)
			.count();
	};
	// the workload: every job must have ended by its end plus the bound
	const int64_t end = start_ + c_.end_ns;
	std::string failed;
	while (m_.now() < end || (engine && !engine->finished())) {
		if (m_.now() >= end + kDrainBoundNs) {
			failed = Stall("the jobs had not ended " +
				       std::to_string(kDrainBoundNs / kSec) + " s after their end");
			break;
		}
		m_.run_until(std::min(m_.now() + 10 * kMs, end + kDrainBoundNs));
		if (!error_.empty() || !h_.error.empty() || !d_.error.empty())
			break;
		if (wall() > kWallLimitSec) {
			failed = Stall("over " + std::to_string((int)kWallLimitSec) +
				       " s of wall time");
			break;
		}
	}
	// then everything stops and all of it drains (after a failure too:
	// the model can only go down empty)
	for (Raw &r : raws_)
		Stop(r);
	if (engine && !engine->finished())
		engine->stop_all();
	if (!m_.drain(m_.now() + kDrainBoundNs) || h_.outstanding()) {
		res->fatal = true;
		std::string stall =
			Stall("a stall: not drained " + std::to_string(kDrainBoundNs / kSec) +
			      " s after the workload stopped");
		return failed.empty() ? stall : failed + "\n" + stall;
	}
	if (!failed.empty())
		return failed;
	res->checkpoints = checkpoints_;
	res->service_bound = waits_checked > 0;
	res->waits_checked = waits_checked;
	res->waits_within_case = waits_within_case;
	res->worst_wait_ratio = worst_wait_ratio;
	res->sim_ns = m_.now() - start_;
	if (!error_.empty())
		return error_;
	if (!h_.error.empty())
		return h_.error;
	if (!d_.error.empty())
		return d_.error;
	Checkpoint();
	if (!error_.empty())
		return error_;
	return "";
}

} // namespace

void inject_lost_completion(unsigned int n)
{
	g_lose_nth = n;
}

void inject_double_completion(unsigned int n)
{
	g_double_nth = n;
}

void inject_service_bound_scale(double scale)
{
	g_bound_scale = scale;
}

void inject_tree_miscount()
{
	g_corrupt_tree = true;
}

Result run_case(const Case &c)
{
	Result res;
	efqsim::blk::ensure_modules();
	sim_reset();
	const long live0 = sim_slab_live();
	std::string err;
	auto in = dev::make_device(c.device, &err);
	if (!in) {
		res.failure = "device " + c.device + ": " + err;
		return res;
	}
	auto checked = std::make_unique<CheckedDevice>(std::move(in), c.requeue_every);
	CheckedDevice &d = *checked;
	Config cfg;
	cfg.scheduler = c.scheduler;
	cfg.hierarchical = c.hierarchical;
	cfg.tunables = c.tunables;
	cfg.nr_requests = c.nr_requests;
	cfg.requeue_every = c.requeue_every;
	cfg.requeue_dontprep = c.requeue_dontprep;
	cfg.max_discard_segments = c.max_discard_segments;
	auto m = std::make_unique<Model>(std::move(checked), cfg);
	if (!m->init(&err)) {
		res.failure = "init: " + err;
		return res;
	}
	CheckedHost h(*m, d);
	Runner run(c, *m, h, d);
	Trace trace;
	trace.start = m->now();
	const bool tracing = std::getenv("EFQ_SOAK_TRACE");
	if (tracing)
		sim_blktrace_set_hook(TraceHook, &trace);
	std::ostringstream fail;
	fail << run.Run(&res);
	res.bios = h.bios_;
	res.requests = m->counters().requests;
	res.dispatched = m->counters().dispatched;
	auto show_trace = [&] {
		if (!tracing)
			return;
		sim_blktrace_set_hook(nullptr, nullptr);
		if (fail.str().empty())
			return;
		fail << "\n  the scheduler's last messages"
		     << (trace.frozen ? " up to the first after the first WARN" : "") << ":\n";
		for (const auto &l : trace.frozen ? trace.at_warn : trace.ring)
			fail << "    " << l << "\n";
	};
	if (res.fatal) {
		show_trace();
		// a stall: the model cannot go down with requests queued; keep
		// it (and the shim's state) as it is, reachable
		static auto *stalled = new std::vector<std::unique_ptr<Model>>;
		stalled->push_back(std::move(m));
		res.failure = fail.str();
		return res;
	}
	if (fail.str().empty()) {
		if (std::string e = m->check_invariants(); !e.empty())
			fail << "model invariants: " << e;
		else if (h.outstanding() || d.in_flight_ids())
			fail << h.outstanding() << " bios and " << d.in_flight_ids()
			     << " device requests outstanding after the drain";
		else
			for (const auto &[sector, n] : d.cover)
				if (n) {
					fail << "the sectors from " << sector
					     << " were asked for and served a different number of "
						"times (difference "
					     << n << ")";
					break;
				}
	}
	if (fail.str().empty() && (sim_warn_count() || sim_lock_errors()))
		fail << sim_warn_count() << " WARNs, " << sim_lock_errors()
		     << " lock errors; last: " << sim_warn_last();

	show_trace();
	const unsigned long warns = sim_warn_count();
	m.reset(); // the elevator exits, the queue and the cgroups go
	// the model destroys the cgroups removed mid-run a second time: one
	// "already gone" WARN each, ours
	unsigned long expected = warns + run.removed.size();
	if (fail.str().empty() && sim_warn_count() != expected)
		fail << "going down: " << sim_warn_count() - warns << " WARNs, "
		     << run.removed.size() << " expected; last: " << sim_warn_last();
	sim_warn_reset();
	for (struct blkcg *cg : run.removed)
		css_put(&cg->css);
	if (sim_lock_errors() == 0)
		sim_quiesce();
	if (fail.str().empty() && (sim_warn_count() || sim_lock_errors()))
		fail << "after the teardown: " << sim_warn_count()
		     << " WARNs; last: " << sim_warn_last();
	long live = sim_slab_live();
	if (fail.str().empty() && live != live0) {
		fail << live - live0 << " slab objects leaked";
		sim_slab_dump_live();
	}
	sim_reset();
	res.failure = fail.str();
	return res;
}

namespace {

void PrintStats(uint64_t s, const Case &c, const Result &r)
{
	if (std::getenv("EFQ_SOAK_STATS"))
		std::fprintf(stderr,
			     "efq_soak: seed %llu %s %s: %llu bios, %llu requests, %llu "
			     "dispatched, %llu checkpoints, %.1f ms simulated%s; service bound: "
			     "%s, %llu waits (%llu with a bound shorter than the case), worst %.2f "
			     "of the bound\n",
			     (unsigned long long)s, c.scheduler.c_str(), c.device.c_str(),
			     (unsigned long long)r.bios, (unsigned long long)r.requests,
			     (unsigned long long)r.dispatched, (unsigned long long)r.checkpoints,
			     (double)r.sim_ns / kMs, c.storm ? ", a storm" : "",
			     r.service_bound ? "on" : "off", (unsigned long long)r.waits_checked,
			     (unsigned long long)r.waits_within_case, r.worst_wait_ratio);
}

// @c in a child process: a stall leaves the shim's state unusable (the
// model cannot go down with requests queued), a sanitizer report ends the
// process; either way the next case starts afresh.
Result RunForked(uint64_t s, const Case &c)
{
	Result r;
	int fds[2];
	std::fflush(nullptr);
	if (pipe(fds)) {
		r.failure = "pipe failed";
		return r;
	}
	pid_t pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		r.failure = "fork failed";
		return r;
	}
	if (pid == 0) {
		close(fds[0]);
		Result cr = run_case(c);
		PrintStats(s, c, cr);
		std::string out = (cr.fatal ? "F" : "-") + cr.failure;
		for (size_t off = 0; off < out.size();) {
			ssize_t n = write(fds[1], out.data() + off, out.size() - off);
			if (n <= 0)
				break;
			off += (size_t)n;
		}
		std::fflush(nullptr);
		_exit(0); // no atexit work: LeakSanitizer would see a stalled model
	}
	close(fds[1]);
	std::string in;
	char buf[4096];
	for (ssize_t n; (n = read(fds[0], buf, sizeof(buf))) > 0;)
		in.append(buf, (size_t)n);
	close(fds[0]);
	int status = 0;
	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || in.empty()) {
		r.failure =
			"the case's process ended with " +
			(WIFSIGNALED(status) ? "signal " + std::to_string(WTERMSIG(status))
					     : "status " + std::to_string(WEXITSTATUS(status))) +
			" (a sanitizer report or a crash: its output is above)";
		return r;
	}
	r.fatal = in[0] == 'F';
	r.failure = in.substr(1);
	return r;
}

} // namespace

unsigned int run_seeds(uint64_t first, unsigned int n, std::vector<Failure> *failures,
		       unsigned int report)
{
	unsigned int done = 0;
	for (uint64_t s = first; s < first + n; s++) {
		Case c = make_case(s);
		// one case alone (a replay) runs here, for a debugger
		Result r;
		if (n == 1) {
			r = run_case(c);
			PrintStats(s, c, r);
		} else {
			r = RunForked(s, c);
		}
		done++;
		if (!r.failure.empty()) {
			failures->push_back({s, r.failure + "\n" + c.describe()});
			std::fprintf(stderr, "efq_soak: seed %llu failed: %s\n",
				     (unsigned long long)s,
				     r.failure.substr(0, r.failure.find('\n')).c_str());
			if ((r.fatal && n == 1) || failures->size() >= 50)
				return done;
		}
		if (report && done % report == 0)
			std::fprintf(
				stderr,
				"efq_soak: %u of %u cases run (seeds %llu..%llu), %zu failed\n",
				done, n, (unsigned long long)first, (unsigned long long)s,
				failures->size());
	}
	return done;
}

} // namespace efqsoak
