// SPDX-License-Identifier: GPL-2.0
// The harnesses' shared parts (fuzz.h).
#include "fuzz.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>

namespace efqfuzz {

std::vector<std::string> split_files(const uint8_t *data, size_t size)
{
	std::string_view in(reinterpret_cast<const char *>(data), size);
	std::vector<std::string> parts;
	for (;;) {
		size_t at = in.find(kFileSeparator);
		if (at == std::string_view::npos) {
			parts.emplace_back(in);
			return parts;
		}
		parts.emplace_back(in.substr(0, at));
		in.remove_prefix(at + kFileSeparator.size());
	}
}

namespace {

struct TempDir {
	std::string path;
	TempDir()
	{
		const char *base = std::getenv("TMPDIR");
		std::string tmpl = std::string(base && *base ? base : "/tmp") + "/efqfuzz.XXXXXX";
		if (!mkdtemp(tmpl.data()))
			fail("cannot make a temporary folder from " + tmpl);
		path = tmpl + "/";
	}
	~TempDir()
	{
		std::error_code ec;
		std::filesystem::remove_all(path, ec);
	}
};

} // namespace

const std::string &temp_dir()
{
	static TempDir dir;
	return dir.path;
}

std::string write_temp(const std::string &name, const std::string &bytes)
{
	std::string path = temp_dir() + name;
	std::ofstream f(path, std::ios::binary | std::ios::trunc);
	f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
	f.close();
	if (!f)
		fail("cannot write " + path);
	return path;
}

void clear_temp_dir()
{
	std::error_code ec;
	for (const auto &e : std::filesystem::directory_iterator(temp_dir(), ec))
		std::filesystem::remove_all(e.path(), ec);
}

void bound_jobs(std::vector<efqsim::workload::JobSpec> &jobs)
{
	constexpr int64_t kMs = 1'000'000;
	if (jobs.size() > kMaxJobs)
		jobs.resize(kMaxJobs);
	auto base = [](const std::string &name) {
		std::string s = name;
		std::replace(s.begin(), s.end(), '/', '_');
		return s;
	};
	for (auto &j : jobs) {
		uint64_t bs = std::max(j.bs_read, j.bs_write);
		j.io_bytes = std::min(j.io_bytes, kMaxIos * bs);
		j.time_based = false;
		j.runtime_ns = j.runtime_ns ? std::min<int64_t>(j.runtime_ns, 50 * kMs) : 50 * kMs;
		j.startdelay_ns = std::min<int64_t>(j.startdelay_ns, 10 * kMs);
		j.ramp_ns = std::min<int64_t>(j.ramp_ns, 10 * kMs);
		j.thinktime_ns = std::min<int64_t>(j.thinktime_ns, kMs);
		j.bw_log = base(j.bw_log);
		j.lat_log = base(j.lat_log);
		j.iops_log = base(j.iops_log);
	}
}

void check_message(const std::string &msg, const std::string &where)
{
	if (msg.empty())
		fail("a bad input without a message");
	if (msg.size() > 1024)
		fail("a message of " + std::to_string(msg.size()) +
		     " bytes: " + msg.substr(0, 300));
	for (unsigned char c : msg)
		if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
			fail("a message with the raw byte " + std::to_string(c) + ": " + msg);
	if (!where.empty() && msg.rfind(where, 0) != 0)
		fail("a message that does not start with '" + where + "': " + msg);
}

void fail(const std::string &what)
{
	std::cerr << "efqfuzz: " << what << std::endl;
	std::abort();
}

} // namespace efqfuzz
