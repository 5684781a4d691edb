// SPDX-License-Identifier: GPL-2.0
// efqsim reports: fio-compatible JSON.  The document is built as an
// insertion-ordered tree and printed by a small writer of our own, in fio's
// layout ("key" : value, two-space indent) with every float in fixed
// notation with six decimals, so the bytes depend on nothing but the input.
#include "report/json.h"

#include <string>

#include <nlohmann/json.hpp>

#include "report/common.h"

namespace efqsim::report {

using namespace detail;
using Json = nlohmann::ordered_json;

namespace {

Json lat_object(const LatencyStats &s, bool percentiles)
{
	Json o = Json::object();
	o["min"] = s.samples ? s.min : 0;
	o["max"] = s.samples ? s.max : 0;
	o["mean"] = lat_mean(s);
	o["stddev"] = lat_stddev(s);
	o["N"] = s.samples;
	if (percentiles && s.samples) {
		Json p = Json::object();
		for (double pct : kPercentiles)
			p[fixed(pct, 6)] = s.percentile(pct);
		o["percentile"] = std::move(p);
	}
	return o;
}

Json dir_object(const DirStats &d)
{
	uint64_t bwb = bw_bytes(d);
	Json o = Json::object();
	o["io_bytes"] = d.io_bytes;
	o["io_kbytes"] = d.io_bytes / 1024;
	o["bw_bytes"] = bwb;
	o["bw"] = bwb / 1024;
	o["iops"] = iops(d);
	o["runtime"] = runtime_ms(d);
	o["total_ios"] = d.ios;
	o["short_ios"] = 0;
	o["drop_ios"] = 0;
	o["slat_ns"] = lat_object(LatencyStats(), false); // not modelled
	o["clat_ns"] = lat_object(d.clat, true);
	o["lat_ns"] = lat_object(d.lat, false);
	return o;
}

Json options_object(const std::vector<std::pair<std::string, std::string>> &options)
{
	Json o = Json::object();
	for (const auto &[name, value] : options)
		o[name] = value;
	return o;
}

Json job_object(const Unit &u)
{
	Json o = Json::object();
	o["jobname"] = u.name;
	o["groupid"] = u.groupid;
	o["error"] = u.error;
	o["job options"] = options_object(u.first->options);
	o["read"] = dir_object(u.read);
	o["write"] = dir_object(u.write);
	o["trim"] = dir_object(DirStats());
	const JobResult &j = *u.first;
	if (!j.ss.criterion.empty()) {
		Json ss = Json::object();
		const size_t colon = j.ss.criterion.find(':');
		ss["ss"] = j.ss.criterion.substr(0, colon);
		ss["duration"] = j.ss.duration_s;
		ss["attained"] = j.ss.attained ? 1 : 0;
		ss["criterion"] =
			colon == std::string::npos ? "" : j.ss.criterion.substr(colon + 1);
		ss[j.ss.slope ? "slope" : "max_deviation"] = j.ss.value;
		Json data = Json::object();
		data["bw"] = j.ss.bw;
		data["iops"] = j.ss.iops;
		ss["data"] = std::move(data);
		o["steadystate"] = std::move(ss);
	}
	if (j.latency_target_ns) {
		o["latency_depth"] = j.latency_depth;
		o["latency_target"] = j.latency_target_ns / 1000; // usec, as fio
		o["latency_percentile"] = j.latency_percentile;
		o["latency_window"] = j.latency_window_ns / 1000;
	}
	return o;
}

Json efq_object(const RunResult &r)
{
	Json o = Json::object();
	o["device"] = r.device;
	o["scheduler"] = r.scheduler;
	o["hierarchical"] = r.hierarchical;
	o["nr_requests"] = r.nr_requests;
	Json t = Json::object();
	for (const auto &[name, value] : r.tunables)
		t[name] = value;
	o["tunables"] = std::move(t);
	o["seed"] = r.seed;
	o["duration_ms"] = static_cast<double>(r.duration_ns) / 1e6;
	if (!r.stopped.empty())
		o["stopped"] = r.stopped;
	Json groups = Json::array();
	for (const GroupRow &row : group_rows(r)) {
		const GroupResult &g = *row.g;
		Json j = Json::object();
		j["path"] = g.path;
		j["weight"] = g.weight;
		j["class"] = g.ioprio_class;
		j["disk_time_ms"] = g.disk_time_ms;
		j["disk_sectors"] = g.disk_sectors;
		j["queued"] = g.queued;
		j["dequeued"] = g.dequeued;
		j["device_busy_ms"] = g.device_busy_ms;
		groups.push_back(std::move(j));
	}
	o["groups"] = std::move(groups);
	return o;
}

void write(const Json &v, int indent, std::string &out)
{
	auto pad = [&](int n) { out.append(static_cast<size_t>(n), ' '); };
	auto text = [](const Json &s) {
		return s.dump(-1, ' ', false, Json::error_handler_t::replace);
	};
	switch (v.type()) {
	case Json::value_t::object:
	case Json::value_t::array: {
		bool obj = v.is_object();
		if (v.empty()) {
			out += obj ? "{}" : "[]";
			return;
		}
		out += obj ? "{\n" : "[\n";
		size_t i = 0;
		for (auto it = v.begin(); it != v.end(); ++it, ++i) {
			pad(indent + 2);
			if (obj)
				out += text(Json(it.key())) + " : ";
			write(it.value(), indent + 2, out);
			out += i + 1 < v.size() ? ",\n" : "\n";
		}
		pad(indent);
		out += obj ? "}" : "]";
		return;
	}
	case Json::value_t::number_float:
		out += fixed(v.get<double>(), 6);
		return;
	default: // strings, integers, booleans, null
		out += text(v);
		return;
	}
}

} // namespace

std::string to_json(const RunResult &r)
{
	Json doc = Json::object();
	doc["fio version"] = "efqsim-" + r.efqsim_version;
	doc["timestamp"] = 0;
	doc["timestamp_ms"] = 0;
	doc["time"] = "Thu Jan  1 00:00:00 1970";
	if (!r.global_options.empty())
		doc["global options"] = options_object(r.global_options);
	Json jobs = Json::array();
	for (const Unit &u : report_units(r))
		jobs.push_back(job_object(u));
	doc["jobs"] = std::move(jobs);
	doc["efq"] = efq_object(r);

	std::string out;
	write(doc, 0, out);
	out += "\n";
	return out;
}

} // namespace efqsim::report
