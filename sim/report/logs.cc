// SPDX-License-Identifier: GPL-2.0
// efqsim reports: fio-format logs, one line per sample.
#include "report/logs.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>

namespace efqsim::report {

namespace {

std::string line(const LogSample &s, bool with_offset)
{
	std::string l = std::to_string(s.time_ms) + ", " + std::to_string(s.value) + ", " +
			std::to_string(s.ddir) + ", " + std::to_string(s.bs);
	if (with_offset)
		l += ", " + std::to_string(s.offset);
	l += ", " + std::to_string(s.prio) + "\n";
	return l;
}

} // namespace

std::vector<LogFile> log_files(const RunResult &r)
{
	std::vector<LogFile> files;
	std::map<std::string, size_t> index; // path -> position in files
	auto add = [&](const JobResult &j, size_t n, const std::string &prefix, const char *type,
		       const std::vector<LogSample> &samples) {
		if (prefix.empty())
			return;
		std::string path = prefix + "_" + type;
		if (j.logs.per_job_logs)
			path += "." + std::to_string(n);
		path += ".log";
		auto [it, fresh] = index.emplace(path, files.size());
		if (fresh)
			files.push_back({path, ""});
		std::string &text = files[it->second].text;
		for (const LogSample &s : samples)
			text += line(s, j.logs.log_offset);
	};
	for (size_t i = 0; i < r.jobs.size(); i++) {
		const JobResult &j = r.jobs[i];
		add(j, i + 1, j.logs.bw_prefix, "bw", j.bw_log);
		add(j, i + 1, j.logs.lat_prefix, "lat", j.lat_log);
		add(j, i + 1, j.logs.lat_prefix, "clat", j.clat_log);
		add(j, i + 1, j.logs.lat_prefix, "slat", j.slat_log);
		add(j, i + 1, j.logs.iops_prefix, "iops", j.iops_log);
	}
	return files;
}

bool write_logs(const RunResult &r, const std::string &dir, std::string *err)
{
	for (const LogFile &f : log_files(r)) {
		std::string path = f.path;
		if (!dir.empty() && path[0] != '/')
			path = dir + "/" + path;
		errno = 0;
		std::ofstream out(path, std::ios::binary | std::ios::trunc);
		if (out)
			out << f.text;
		if (out)
			out.close();
		if (!out) {
			if (err)
				*err = "cannot write " + path + ": " +
				       (errno ? std::strerror(errno) : "I/O error");
			return false;
		}
	}
	return true;
}

} // namespace efqsim::report
