// SPDX-License-Identifier: GPL-2.0
// fio-format bw/lat/iops logs: file names and line format of fio 3.33.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>

#include "report/logs.h"

#include "fixtures.h"

namespace efqsim::report {
namespace {

using test::two_groups;

RunResult with_logs()
{
	RunResult r = two_groups();
	JobResult &a = r.jobs[0];
	a.logs.bw_prefix = "a";
	a.logs.lat_prefix = "a";
	a.logs.iops_prefix = "a";
	a.bw_log = {{0, 1000, 0, 4096, 0, 0}, {500, 1024, 0, 4096, 0, 0}};
	a.lat_log = {{3, 2510000, 0, 4096, 503808, 0}};
	a.clat_log = {{3, 2500000, 0, 4096, 503808, 1}};
	a.iops_log = {{1000, 250, 0, 0, 0, 0}};
	JobResult &w = r.jobs[2];
	w.logs.bw_prefix = "out/w";
	w.logs.log_offset = true;
	w.bw_log = {{12, 6400, 1, 65536, 1048576, 0}};
	return r;
}

const LogFile *find(const std::vector<LogFile> &files, const std::string &path)
{
	for (const LogFile &f : files)
		if (f.path == path)
			return &f;
	return nullptr;
}

TEST(ReportLogs, FilesAreNamedAsFioNamesThem)
{
	auto files = log_files(with_logs());
	std::vector<std::string> names;
	for (const LogFile &f : files)
		names.push_back(f.path);
	// Job a is job 1, w is job 3; b asked for no log.  write_lat_log gives
	// fio's three latency logs (slat empty, as fio's for a sync engine).
	EXPECT_EQ(names,
		  (std::vector<std::string>{"a_bw.1.log", "a_lat.1.log", "a_clat.1.log",
					    "a_slat.1.log", "a_iops.1.log", "out/w_bw.3.log"}));
	EXPECT_EQ(find(files, "a_slat.1.log")->text, "");
}

TEST(ReportLogs, LinesAreTimeValueDirectionBlockSizePriority)
{
	auto files = log_files(with_logs());
	EXPECT_EQ(find(files, "a_bw.1.log")->text, "0, 1000, 0, 4096, 0\n500, 1024, 0, 4096, 0\n");
	EXPECT_EQ(find(files, "a_lat.1.log")->text, "3, 2510000, 0, 4096, 0\n");
	EXPECT_EQ(find(files, "a_clat.1.log")->text, "3, 2500000, 0, 4096, 1\n");
	// Windowed samples carry bs 0.
	EXPECT_EQ(find(files, "a_iops.1.log")->text, "1000, 250, 0, 0, 0\n");
	// log_offset=1 puts the offset before the priority.
	EXPECT_EQ(find(files, "out/w_bw.3.log")->text, "12, 6400, 1, 65536, 1048576, 0\n");
}

TEST(ReportLogs, EveryLineHasFiosColumnCountAndIntegerFields)
{
	for (const LogFile &f : log_files(with_logs())) {
		std::istringstream in(f.text);
		for (std::string l; std::getline(in, l);) {
			size_t commas = 0;
			for (char c : l)
				commas += c == ',';
			EXPECT_EQ(commas, f.path == "out/w_bw.3.log" ? 5u : 4u)
				<< f.path << ": " << l;
			std::istringstream fields(l);
			for (std::string field; std::getline(fields, field, ',');) {
				ASSERT_FALSE(field.empty());
				if (field[0] == ' ')
					field.erase(0, 1);
				EXPECT_EQ(field.find_first_not_of("0123456789"), std::string::npos)
					<< f.path << ": " << l;
			}
		}
	}
}

TEST(ReportLogs, WithoutPerJobLogsJobsOfOneNameShareTheFile)
{
	RunResult r = two_groups();
	for (JobResult &j : r.jobs) {
		j.logs.bw_prefix = "all";
		j.logs.per_job_logs = false;
		j.bw_log = {{j.pid, 1, 0, 4096, 0, 0}};
	}
	auto files = log_files(r);
	ASSERT_EQ(files.size(), 1u);
	EXPECT_EQ(files[0].path, "all_bw.log");
	EXPECT_EQ(files[0].text, "101, 1, 0, 4096, 0\n102, 1, 0, 4096, 0\n103, 1, 0, 4096, 0\n");
}

TEST(ReportLogs, NoLogsAskedNoFiles)
{
	RunResult r = two_groups();
	r.jobs[0].bw_log = {{0, 1, 0, 4096, 0, 0}}; // samples alone do not make a log
	EXPECT_TRUE(log_files(r).empty());
	std::string err;
	EXPECT_TRUE(write_logs(r, "/nonexistent-efqsim-dir", &err)) << err;
}

std::string slurp(const std::string &path)
{
	std::ifstream in(path, std::ios::binary);
	std::ostringstream s;
	s << in.rdbuf();
	return s.str();
}

TEST(ReportLogs, WriteLogsWritesEachFileUnderTheDirectory)
{
	char tmpl[] = "/tmp/efqsim-logs-XXXXXX";
	ASSERT_NE(mkdtemp(tmpl), nullptr);
	std::string dir = tmpl;
	RunResult r = with_logs();
	std::string err;
	// out/ does not exist: a clear error.
	EXPECT_FALSE(write_logs(r, dir, &err));
	EXPECT_NE(err.find("cannot write " + dir + "/out/w_bw.3.log"), std::string::npos) << err;

	r.jobs[2].logs.bw_prefix = "w";
	ASSERT_TRUE(write_logs(r, dir, &err)) << err;
	for (const LogFile &f : log_files(r)) {
		EXPECT_EQ(slurp(dir + "/" + f.path), f.text) << f.path;
		unlink((dir + "/" + f.path).c_str());
	}
	rmdir(dir.c_str());
	EXPECT_TRUE(write_logs(RunResult(), "", nullptr));
}

} // namespace
} // namespace efqsim::report
