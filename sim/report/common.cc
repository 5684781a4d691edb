// SPDX-License-Identifier: GPL-2.0
// efqsim reports: number formatting, derived statistics, reporting units and
// the group table shared by the text and JSON writers.
#include "report/common.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <set>

namespace efqsim::report::detail {

std::string fixed(double v, int decimals)
{
	if (!std::isfinite(v) || v == 0)
		v = 0;
	char buf[512];
	auto res = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::fixed, decimals);
	if (res.ec != std::errc())
		return "0";
	std::string s(buf, res.ptr);
	// A negative number that rounds to zero prints as zero.
	if (s[0] == '-' && s.find_first_not_of("-0.") == std::string::npos)
		s.erase(0, 1);
	return s;
}

std::string short_num(uint64_t n, unsigned int base, const char *unit)
{
	static const char *const pow2[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
	static const char *const pow10[] = {"", "k", "M", "G", "T", "P", "E"};
	if (n < 10000)
		return std::to_string(n) + unit;

	long double v = n;
	int prefix = 0;
	while (v >= 9999.5L) {
		v /= base;
		prefix++;
	}
	// Up to four characters: 3542, 623, 15.6, 1.23.
	int int_digits = v >= 999.5L ? 4 : v >= 99.95L ? 3 : v >= 9.995L ? 2 : 1;
	int decimals = int_digits < 3 ? 3 - int_digits : 0;
	std::string s = fixed(static_cast<double>(v), decimals);
	return s + (base == 1024 ? pow2[prefix] : pow10[prefix]) + unit;
}

double lat_mean(const LatencyStats &s)
{
	return s.samples ? static_cast<double>(s.sum / s.samples) : 0;
}

double lat_stddev(const LatencyStats &s)
{
	// Constant latency (a null device) is exactly 0, whatever rounding
	// the sum of squares carries.
	if (s.samples < 2 || s.min == s.max)
		return 0;
	long double n = s.samples;
	long double var = (s.sum_sq - s.sum * s.sum / n) / (n - 1);
	return var > 0 ? static_cast<double>(std::sqrt(var)) : 0;
}

uint64_t bw_bytes(const DirStats &d)
{
	if (d.runtime_ns <= 0)
		return 0;
	unsigned __int128 b = d.io_bytes;
	return static_cast<uint64_t>(b * 1000000000u / static_cast<uint64_t>(d.runtime_ns));
}

double iops(const DirStats &d)
{
	if (d.runtime_ns <= 0)
		return 0;
	return static_cast<double>(static_cast<long double>(d.ios) * 1e9L / d.runtime_ns);
}

int64_t runtime_ms(const DirStats &d)
{
	if (d.runtime_ns <= 0)
		return 0;
	return std::max<int64_t>(1, (d.runtime_ns + 500000) / 1000000);
}

static void add_dir(DirStats &to, const DirStats &from)
{
	to.io_bytes += from.io_bytes;
	to.ios += from.ios;
	to.runtime_ns = std::max(to.runtime_ns, from.runtime_ns);
	to.clat.merge(from.clat);
	to.lat.merge(from.lat);
}

std::vector<Unit> report_units(const RunResult &r)
{
	std::vector<Unit> units;
	std::map<int, size_t> by_group;
	for (const JobResult &j : r.jobs) {
		if (r.group_reporting) {
			auto it = by_group.find(j.groupid);
			if (it != by_group.end()) {
				Unit &u = units[it->second];
				u.jobs++;
				if (!u.error)
					u.error = j.error;
				add_dir(u.read, j.read);
				add_dir(u.write, j.write);
				continue;
			}
			by_group.emplace(j.groupid, units.size());
		}
		Unit u;
		u.name = j.jobname;
		u.groupid = j.groupid;
		u.jobs = 1;
		u.error = j.error;
		u.pid = j.pid;
		u.first = &j;
		u.read = j.read;
		u.write = j.write;
		units.push_back(std::move(u));
	}
	return units;
}

std::vector<int> reporting_groups(const RunResult &r)
{
	std::vector<int> ids;
	std::set<int> seen;
	for (const JobResult &j : r.jobs)
		if (seen.insert(j.groupid).second)
			ids.push_back(j.groupid);
	return ids;
}

static std::vector<std::string> components(const std::string &path)
{
	std::vector<std::string> c;
	size_t i = 0;
	while (i < path.size()) {
		size_t j = path.find('/', i);
		if (j == std::string::npos)
			j = path.size();
		if (j > i)
			c.push_back(path.substr(i, j - i));
		i = j + 1;
	}
	return c;
}

std::vector<GroupRow> group_rows(const RunResult &r)
{
	struct Item {
		std::vector<std::string> path;
		const GroupResult *g;
	};
	std::vector<Item> items;
	for (const GroupResult &g : r.groups)
		items.push_back({components(g.path), &g});
	std::stable_sort(items.begin(), items.end(),
			 [](const Item &a, const Item &b) { return a.path < b.path; });

	// A top-level group: none of its ancestors is a group of the run.
	std::set<std::vector<std::string>> paths;
	for (const Item &it : items)
		paths.insert(it.path);
	long double time_total = 0, busy_total = 0;
	for (const Item &it : items) {
		bool top = true;
		std::vector<std::string> up = it.path;
		while (top && !up.empty()) {
			up.pop_back();
			top = !paths.count(up);
		}
		if (top) {
			time_total += it.g->disk_time_ms;
			busy_total += it.g->device_busy_ms;
		}
	}
	std::vector<GroupRow> rows;
	for (const Item &it : items) {
		GroupRow row;
		row.g = it.g;
		if (time_total > 0)
			row.time_share = static_cast<double>(it.g->disk_time_ms * 100 / time_total);
		if (busy_total > 0)
			row.busy_share =
				static_cast<double>(it.g->device_busy_ms * 100 / busy_total);
		rows.push_back(row);
	}
	return rows;
}

std::string class_name(unsigned int ioprio_class)
{
	switch (ioprio_class) {
	case 1:
		return "rt";
	case 2:
		return "be";
	case 3:
		return "idle";
	default:
		return std::to_string(ioprio_class);
	}
}

} // namespace efqsim::report::detail
