// SPDX-License-Identifier: GPL-2.0
// efqsim reports: fio-format bandwidth, latency and IOPS logs.
#pragma once

#include <string>
#include <vector>

#include "report/results.h"

namespace efqsim::report {

// One log file: its name as fio names it and its whole content.
struct LogFile {
	std::string path;
	std::string text;
};

// The log files of @r, in job order: for each job that asked for them,
// <prefix>_bw.<N>.log, <prefix>_lat.<N>.log, <prefix>_clat.<N>.log,
// <prefix>_slat.<N>.log and <prefix>_iops.<N>.log, N being the job's
// 1-based index in @r.jobs (no ".<N>" with per_job_logs=0; jobs that then
// share a name share the file, in job order).  Each line is fio 3.33's
// "time, value, ddir, bs, prio", or "time, value, ddir, bs, offset, prio"
// with log_offset=1.
std::vector<LogFile> log_files(const RunResult &r);

// Write log_files(@r), relative paths under @dir ("" = the current
// directory).  On failure, false with a message in @err (if not NULL).
bool write_logs(const RunResult &r, const std::string &dir, std::string *err);

} // namespace efqsim::report
