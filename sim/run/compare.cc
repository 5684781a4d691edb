// SPDX-License-Identifier: GPL-2.0
#include "run/compare.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <sstream>

#include "blk/model.h"
#include "dev/device.h"

namespace efqsim::run {
namespace {

std::string norm_path(const std::string &cg)
{
	std::string p = cg.empty() ? "/" : cg;
	if (p[0] != '/')
		p = "/" + p;
	while (p.size() > 1 && p.back() == '/')
		p.pop_back();
	return p;
}

// The tunables scheduler @name has, asked of the scheduler itself, and
// whether it has groups (efq's engine: a hierarchical and a flat mode).
Status tunables_of(const std::string &name, std::map<std::string, std::string> *out, bool *groups,
		   std::string *err)
{
	std::unique_ptr<dev::Device> dev = dev::make_device("null", err);
	if (!dev)
		return Status::internal;
	blk::Config cfg;
	cfg.scheduler = name;
	blk::Model m(std::move(dev), cfg);
	if (!m.init(err))
		return Status::internal;
	*out = m.tunables();
	*groups = m.efq_engine();
	return Status::ok;
}

CompareRow summarize(const report::RunResult &r)
{
	CompareRow row;
	row.scheduler = r.scheduler;
	row.hierarchical = r.hierarchical;
	row.duration_ns = r.duration_ns;
	double secs = r.duration_ns > 0 ? r.duration_ns * 1e-9 : 0;
	std::vector<std::string> order;
	std::map<std::string, report::LatencyStats> clat;
	std::map<std::string, uint64_t> bytes, ios;
	uint64_t total = 0;
	for (const report::JobResult &j : r.jobs) {
		std::string p = norm_path(j.cgroup);
		if (!clat.count(p))
			order.push_back(p);
		report::LatencyStats &l = clat[p];
		for (const report::DirStats *d : {&j.read, &j.write}) {
			l.merge(d->clat);
			bytes[p] += d->io_bytes;
			ios[p] += d->ios;
			total += d->io_bytes;
		}
	}
	std::map<std::string, const report::GroupResult *> groups;
	for (const report::GroupResult &g : r.groups)
		groups[g.path] = &g;
	// A group's busy time includes its descendants'; take out those of
	// job cgroups below it (the nearest ones), so no time counts twice.
	auto below = [](const std::string &p, const std::string &q) {
		return q != p && (p == "/" || q.rfind(p + "/", 0) == 0);
	};
	std::map<std::string, double> own;
	double busy_sum = 0;
	for (const std::string &p : order) {
		if (!groups.count(p))
			continue;
		double b = groups[p]->device_busy_ms;
		for (const std::string &q : order) {
			if (!below(p, q) || !groups.count(q))
				continue;
			bool nearest = true;
			for (const std::string &m : order)
				nearest = nearest && !(below(p, m) && below(m, q));
			if (nearest)
				b -= groups[q]->device_busy_ms;
		}
		own[p] = std::max(0.0, b);
		busy_sum += own[p];
	}
	for (const std::string &p : order) {
		CompareGroup g;
		g.path = p;
		if (groups.count(p)) {
			g.weight = groups[p]->weight;
			if (busy_sum > 0)
				g.share_pct = 100.0 * own[p] / busy_sum;
		}
		g.bw_mbps = secs > 0 ? bytes[p] / secs / 1e6 : 0;
		g.ios = ios[p];
		if (clat[p].samples) {
			g.clat_p99_ms = clat[p].percentile(99) / 1e6;
			g.clat_max_ms = clat[p].max / 1e6;
		}
		row.groups.push_back(g);
	}
	row.total_mbps = secs > 0 ? total / secs / 1e6 : 0;
	return row;
}

std::string fixed(double v, int decimals)
{
	char buf[64];
	std::snprintf(buf, sizeof(buf), "%.*f", decimals, v);
	return buf;
}

} // namespace

const std::vector<std::string> &compare_schedulers()
{
	static const std::vector<std::string> names = [] {
		std::vector<std::string> v = {"cfq", "deadline-fq", "as", "noop"};
		if (blk::scheduler_exists("mq-deadline"))
			v.emplace_back("mq-deadline");
		return v;
	}();
	return names;
}

namespace {

// compare() for @names, each run by @run_one.
Status compare_runs(
	const Setup &base, const std::vector<std::string> &names,
	const std::function<Status(const Setup &, report::RunResult *, std::string *)> &run_one,
	Comparison *out, std::string *err, const std::function<void(const std::string &)> &starting)
{
	*out = Comparison{};
	out->jobfiles = names;
	out->device = base.device;
	out->seed = base.seed;

	// Which scheduler has which of the --set tunables.
	std::map<std::string, std::map<std::string, std::string>> have;
	std::map<std::string, bool> groups;
	for (const std::string &s : compare_schedulers())
		if (Status st = tunables_of(s, &have[s], &groups[s], err); st != Status::ok)
			return st;
	for (const auto &[name, value] : base.tunables) {
		if (name == "hierarchical") {
			*err = "--set hierarchical: compare runs every scheduler both flat and "
			       "hierarchical itself";
			return Status::bad_input;
		}
		bool any = false;
		for (const std::string &s : compare_schedulers())
			any = any || have[s].count(name);
		if (!any) {
			*err = "--set " + name + "=" + value + ": no scheduler has a tunable '" +
			       name +
			       "' (see efqsim "
			       "--scheduler S --list-tunables)";
			return Status::bad_input;
		}
	}

	std::vector<std::string> stopped; // runs that reached the time limit
	for (const std::string &s : compare_schedulers()) {
		// a scheduler without groups (mq-deadline) has one mode: flat
		for (bool hier : {true, false}) {
			if (hier && !groups[s])
				continue;
			Setup setup = base;
			setup.scheduler = s;
			setup.hierarchical = hier;
			setup.tunables.clear();
			std::vector<std::string> skipped;
			for (const auto &t : base.tunables) {
				if (have[s].count(t.first))
					setup.tunables.push_back(t);
				else if (std::find(skipped.begin(), skipped.end(), t.first) ==
					 skipped.end())
					skipped.push_back(t.first);
			}
			if (starting)
				starting(s + (hier ? " hierarchical" : " flat"));
			report::RunResult r;
			Status st = run_one(setup, &r, err);
			if (st == Status::time_limit) {
				// its row covers the first 24 h; the others still run
				stopped.push_back(s + (hier ? " hierarchical" : " flat"));
			} else if (st != Status::ok) {
				if (st == Status::internal)
					*err = s + (hier ? " hierarchical" : " flat") + ": " + *err;
				return st;
			}
			CompareRow row = summarize(r);
			row.applied = setup.tunables;
			row.skipped = skipped;
			if (out->device.empty() || out->rows.empty())
				out->device = r.device;
			out->rows.push_back(std::move(row));
		}
	}
	if (!stopped.empty()) {
		std::string runs;
		for (const std::string &r : stopped)
			runs += (runs.empty() ? "" : ", ") + r;
		*err = "the simulated-time limit (24 h) was reached before the jobs finished in " +
		       runs + ": their rows cover the first 24 h";
		return Status::time_limit;
	}
	return Status::ok;
}

} // namespace

Status compare(const Setup &base, const std::vector<std::string> &paths, Comparison *out,
	       std::string *err, const std::function<void(const std::string &)> &starting)
{
	return compare_runs(
		base, paths,
		[&](const Setup &setup, report::RunResult *r, std::string *e) {
			return run_jobfiles(setup, paths, r, e);
		},
		out, err, starting);
}

Status compare(const Setup &base, const std::vector<workload::JobSource> &sources, Comparison *out,
	       std::string *err, const std::function<void(const std::string &)> &starting)
{
	std::vector<std::string> names;
	for (const workload::JobSource &s : sources)
		names.push_back(s.name);
	return compare_runs(
		base, names,
		[&](const Setup &setup, report::RunResult *r, std::string *e) {
			return run_sources(setup, sources, r, e);
		},
		out, err, starting);
}

void print_comparison(const Comparison &c, std::ostream &out)
{
	std::string files;
	for (const std::string &f : c.jobfiles)
		files += (files.empty() ? "" : " ") + f;
	out << "efqsim compare: " << files << "\n";
	out << "device " << c.device << ", seed " << c.seed
	    << "; share = the cgroup's part of the device busy time of all job cgroups;\n"
	    << "bw and total in MB/s (10^6 bytes/s); p99 and max completion latency in ms\n\n";

	size_t w = 5;
	for (const CompareRow &r : c.rows)
		for (const CompareGroup &g : r.groups)
			w = std::max(w, g.path.size());
	char line[512];
	std::snprintf(line, sizeof(line), "%-11s %-4s  %-*s %6s %7s %9s %9s %9s %9s\n", "scheduler",
		      "mode", static_cast<int>(w), "group", "weight", "share%", "bw", "p99", "max",
		      "total");
	out << line;
	out << std::string(std::string(line).size() - 1, '-') << "\n";
	for (const CompareRow &r : c.rows) {
		for (size_t i = 0; i < r.groups.size(); i++) {
			const CompareGroup &g = r.groups[i];
			std::string total = i == 0 ? fixed(r.total_mbps, 1) : "";
			std::snprintf(line, sizeof(line),
				      "%-11s %-4s  %-*s %6u %7s %9s %9s %9s %9s\n",
				      i == 0 ? r.scheduler.c_str() : "",
				      i == 0 ? (r.hierarchical ? "hier" : "flat") : "",
				      static_cast<int>(w), g.path.c_str(), g.weight,
				      fixed(g.share_pct, 1).c_str(), fixed(g.bw_mbps, 1).c_str(),
				      fixed(g.clat_p99_ms, 2).c_str(),
				      fixed(g.clat_max_ms, 2).c_str(), total.c_str());
			std::string l = line;
			l.erase(l.find_last_not_of(" \n") + 1);
			out << l << "\n";
		}
	}
	bool noted = false;
	std::string last; // one note per scheduler, at its first run
	for (const CompareRow &r : c.rows) {
		bool first = r.scheduler != last;
		last = r.scheduler;
		if (r.skipped.empty() || !first)
			continue;
		if (!noted)
			out << "\n";
		noted = true;
		std::string names;
		for (const std::string &n : r.skipped)
			names += (names.empty() ? "" : ", ") + n;
		out << "note: " << r.scheduler << " has no " << names << "; run without it\n";
	}
}

std::string comparison_json(const Comparison &c)
{
	auto str = [](const std::string &v) {
		std::string o = "\"";
		for (unsigned char ch : v) {
			if (ch == '"' || ch == '\\') {
				o += '\\';
				o += static_cast<char>(ch);
			} else if (ch < 0x20) {
				char buf[8];
				std::snprintf(buf, sizeof(buf), "\\u%04x", ch);
				o += buf;
			} else {
				o += static_cast<char>(ch);
			}
		}
		return o + "\"";
	};
	auto num = [](double v) { return fixed(v, 6); };
	std::ostringstream o;
	o << "{\n  \"jobfiles\": [";
	for (size_t i = 0; i < c.jobfiles.size(); i++)
		o << (i ? ", " : "") << str(c.jobfiles[i]);
	o << "],\n  \"device\": " << str(c.device) << ",\n  \"seed\": " << c.seed
	  << ",\n  \"runs\": [";
	for (size_t r = 0; r < c.rows.size(); r++) {
		const CompareRow &row = c.rows[r];
		o << (r ? "," : "") << "\n    {\n      \"scheduler\": " << str(row.scheduler)
		  << ",\n      \"hierarchical\": " << (row.hierarchical ? "true" : "false")
		  << ",\n      \"tunables\": {";
		for (size_t i = 0; i < row.applied.size(); i++)
			o << (i ? ", " : "") << str(row.applied[i].first) << ": "
			  << str(row.applied[i].second);
		o << "},\n      \"skipped_tunables\": [";
		for (size_t i = 0; i < row.skipped.size(); i++)
			o << (i ? ", " : "") << str(row.skipped[i]);
		o << "],\n      \"duration_ms\": " << num(row.duration_ns / 1e6)
		  << ",\n      \"total_mbps\": " << num(row.total_mbps) << ",\n      \"groups\": [";
		for (size_t i = 0; i < row.groups.size(); i++) {
			const CompareGroup &g = row.groups[i];
			o << (i ? "," : "") << "\n        {\"path\": " << str(g.path)
			  << ", \"weight\": " << g.weight << ", \"share_pct\": " << num(g.share_pct)
			  << ", \"bw_mbps\": " << num(g.bw_mbps)
			  << ", \"clat_p99_ms\": " << num(g.clat_p99_ms)
			  << ", \"clat_max_ms\": " << num(g.clat_max_ms) << ", \"ios\": " << g.ios
			  << "}";
		}
		o << "\n      ]\n    }";
	}
	o << "\n  ]\n}\n";
	return o.str();
}

} // namespace efqsim::run
