// SPDX-License-Identifier: GPL-2.0
// efqsim reports: fio's normal output.  The layout follows what fio 3.33
// prints (job header, per-direction IOPS/BW line, latency lines, clat
// percentiles, "Run status group" lines); what efqsim does not model (slat,
// CPU, IO depths, bw/iops samples, disk stats) is left out, and the efq
// section takes the place of fio's disk statistics.
#include "report/text.h"

#include <algorithm>
#include <locale>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "report/common.h"

namespace efqsim::report {

using namespace detail;

namespace {

std::string pad_left(const std::string &s, size_t width)
{
	return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

std::string pad_right(const std::string &s, size_t width)
{
	return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

struct Scale {
	const char *name;
	int64_t div;
};

// The unit of a latency line, chosen by its minimum: nsec up to 1 us, usec
// up to 1 ms, msec above.
Scale line_scale(int64_t min_ns)
{
	if (min_ns > 1000000)
		return {"msec", 1000000};
	if (min_ns > 1000)
		return {"usec", 1000};
	return {"nsec", 1};
}

// The unit of the percentile block, chosen by its smallest value: values
// stay at four or more digits, as in fio's output.
Scale percentile_scale(int64_t smallest_ns)
{
	if (smallest_ns > 2000000)
		return {"msec", 1000000};
	if (smallest_ns > 2000)
		return {"usec", 1000};
	return {"nsec", 1};
}

void print_lat_line(std::ostream &out, const char *label, const LatencyStats &s)
{
	if (!s.samples)
		return;
	Scale sc = line_scale(s.min);
	double div = static_cast<double>(sc.div);
	out << label << " (" << sc.name << "): min=" << s.min / sc.div << ", max=" << s.max / sc.div
	    << ", avg=" << pad_left(fixed(lat_mean(s) / div, 2), 5)
	    << ", stdev=" << pad_left(fixed(lat_stddev(s) / div, 2), 5) << "\n";
}

void print_percentiles(std::ostream &out, const LatencyStats &s)
{
	if (!s.samples)
		return;
	std::vector<int64_t> values;
	for (double p : kPercentiles)
		values.push_back(s.percentile(p));
	Scale sc = percentile_scale(*std::min_element(values.begin(), values.end()));
	size_t width = 5;
	for (int64_t &v : values) {
		v /= sc.div;
		width = std::max(width, std::to_string(v).size());
	}
	out << "    clat percentiles (" << sc.name << "):\n";
	const size_t per_line = 4;
	for (size_t i = 0; i < values.size(); i++) {
		if (i % per_line == 0)
			out << "     |";
		out << " " << pad_left(fixed(kPercentiles[i], 2), 5) << "th=["
		    << pad_left(std::to_string(values[i]), width) << "]";
		if (i + 1 < values.size())
			out << ",";
		if (i % per_line == per_line - 1 || i + 1 == values.size())
			out << "\n";
	}
}

std::string rate(uint64_t bytes_per_s, unsigned int base)
{
	return short_num(bytes_per_s, base, "B") + "/s";
}

void print_dir(std::ostream &out, const char *name, const DirStats &d, bool write)
{
	if (!d.ios && !d.io_bytes)
		return;
	uint64_t bw = bw_bytes(d);
	out << "  " << name << ": IOPS=" << short_num(static_cast<uint64_t>(iops(d)), 1000, "")
	    << ", BW=" << rate(bw, 1024) << " (" << rate(bw, 1000) << ")("
	    << short_num(d.io_bytes, 1024, "B") << "/" << runtime_ms(d) << "msec)";
	if (write)
		out << "; 0 zone resets";
	out << "\n";
	print_lat_line(out, "    clat", d.clat);
	print_lat_line(out, "     lat", d.lat);
	print_percentiles(out, d.clat);
}

void print_unit(std::ostream &out, const Unit &u)
{
	out << u.name << ": (groupid=" << u.groupid << ", jobs=" << u.jobs
	    << "): err=" << pad_left(std::to_string(u.error), 2) << ": pid=" << u.pid << "\n";
	print_dir(out, "read", u.read, false);
	print_dir(out, "write", u.write, true);
	const JobResult::SteadyState &ss = u.first->ss;
	if (!ss.criterion.empty()) {
		// the window's means, and the last value compared with the limit
		uint64_t bw = 0, io = 0;
		for (size_t i = 0; i < ss.bw.size(); i++) {
			bw += ss.bw[i];
			io += ss.iops[i];
		}
		const uint64_t n = std::max<uint64_t>(ss.bw.size(), 1);
		const bool by_iops = ss.criterion.rfind("iops", 0) == 0;
		out << "  steadystate  : attained=" << (ss.attained ? "yes" : "no")
		    << ", bw=" << rate(bw / n, 1024) << " (" << rate(bw / n, 1000)
		    << "), iops=" << short_num(io / n, 1000, "") << ", "
		    << (by_iops ? "iops" : "bw") << (ss.slope ? " slope" : " mean dev") << "="
		    << fixed(ss.value, 3) << (ss.pct ? "%" : "") << "\n";
	}
}

// One "READ:"/"WRITE:" line of a reporting group: the aggregate bandwidth
// (all bytes over the longest runtime), the slowest and fastest job, the
// bytes moved and the shortest and longest runtime.
void print_group_dir(std::ostream &out, const char *name,
		     const std::vector<const JobResult *> &jobs, bool write)
{
	uint64_t io = 0, bw_min = 0, bw_max = 0;
	int64_t run_max_ns = 0, run_min_ms = 0, run_max_ms = 0;
	bool any = false;
	for (const JobResult *jp : jobs) {
		const JobResult &j = *jp;
		const DirStats &d = write ? j.write : j.read;
		if (!d.ios && !d.io_bytes)
			continue;
		uint64_t bw = bw_bytes(d);
		int64_t ms = runtime_ms(d);
		io += d.io_bytes;
		run_max_ns = std::max(run_max_ns, d.runtime_ns);
		bw_min = any ? std::min(bw_min, bw) : bw;
		bw_max = any ? std::max(bw_max, bw) : bw;
		run_min_ms = any ? std::min(run_min_ms, ms) : ms;
		run_max_ms = any ? std::max(run_max_ms, ms) : ms;
		any = true;
	}
	if (!any)
		return;
	DirStats total;
	total.io_bytes = io;
	total.runtime_ns = run_max_ns;
	uint64_t agg = bw_bytes(total);
	out << pad_left(name, 7) << ": bw=" << rate(agg, 1024) << " (" << rate(agg, 1000) << "), "
	    << rate(bw_min, 1024) << "-" << rate(bw_max, 1024) << " (" << rate(bw_min, 1000) << "-"
	    << rate(bw_max, 1000) << "), io=" << short_num(io, 1024, "B") << " ("
	    << short_num(io, 1000, "B") << "), run=" << run_min_ms << "-" << run_max_ms << "msec\n";
}

void print_efq(std::ostream &out, const RunResult &r)
{
	out << "\nefq: device=" << r.device << ", scheduler=" << r.scheduler
	    << ", hierarchical=" << (r.hierarchical ? 1 : 0) << ", nr_requests=" << r.nr_requests
	    << ", seed=" << r.seed
	    << ", duration=" << fixed(static_cast<double>(r.duration_ns) / 1e6, 3) << "msec\n";
	if (!r.stopped.empty())
		out << "  stopped: " << r.stopped << "\n";
	out << "  tunables:";
	if (r.tunables.empty())
		out << " (none)";
	bool first = true;
	for (const auto &[name, value] : r.tunables) {
		out << (first ? " " : ", ") << name << "=" << value;
		first = false;
	}
	out << "\n";

	std::vector<std::vector<std::string>> table;
	table.push_back({"path", "weight", "class", "disk_time(ms)", "share(%)", "disk_sectors",
			 "device_busy(ms)", "share(%)", "queued", "dequeued"});
	for (const GroupRow &row : group_rows(r)) {
		const GroupResult &g = *row.g;
		table.push_back({g.path, std::to_string(g.weight), class_name(g.ioprio_class),
				 fixed(g.disk_time_ms, 3), fixed(row.time_share, 2),
				 std::to_string(g.disk_sectors), fixed(g.device_busy_ms, 3),
				 fixed(row.busy_share, 2), std::to_string(g.queued),
				 std::to_string(g.dequeued)});
	}
	std::vector<size_t> width(table[0].size(), 0);
	for (const auto &line : table)
		for (size_t c = 0; c < line.size(); c++)
			width[c] = std::max(width[c], line[c].size());
	for (const auto &line : table) {
		std::string s;
		for (size_t c = 0; c < line.size(); c++) {
			// path and class read left to right, numbers line up right
			bool left = c == 0 || c == 2;
			s += "  ";
			s += left ? pad_right(line[c], width[c]) : pad_left(line[c], width[c]);
		}
		s.erase(s.find_last_not_of(' ') + 1);
		out << s << "\n";
	}
	if (r.hierarchical && r.groups.size() > 1)
		out << "  (a group's figures include its descendants'; shares are of the whole "
		       "device)\n";
}

} // namespace

void print_text(const RunResult &r, std::ostream &out)
{
	std::ostringstream s;
	s.imbue(std::locale::classic()); // no digit grouping, whatever the global locale
	size_t n = r.jobs.size();
	s << "efqsim-" << r.efqsim_version << "\n";
	s << "Starting " << n << (n == 1 ? " process" : " processes") << "\n\n";
	for (const Unit &u : report_units(r))
		print_unit(s, u);
	// each reporting group's jobs, in job order
	std::map<int, std::vector<const JobResult *>> members;
	for (const JobResult &j : r.jobs)
		members[j.groupid].push_back(&j);
	for (int id : reporting_groups(r)) {
		s << "\nRun status group " << id << " (all jobs):\n";
		print_group_dir(s, "READ", members[id], false);
		print_group_dir(s, "WRITE", members[id], true);
	}
	print_efq(s, r);
	out << s.str();
}

} // namespace efqsim::report
