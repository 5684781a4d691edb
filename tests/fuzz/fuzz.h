// SPDX-License-Identifier: GPL-2.0
// What the libFuzzer harnesses of efqsim's inputs share: splitting one input
// into several files, a private temporary folder for them, the bounds that
// make one simulated run take milliseconds, and the checks every harness
// makes of a failure's message.  Documentation/sim/efqsim.rst ("Fuzzing").
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "workload/jobfile.h"

namespace efqfuzz {

// Between the files of one input (several blktrace CPU files, job files, the
// command line and its files).  The dictionary has it, so the fuzzer can add
// and remove files.
inline constexpr std::string_view kFileSeparator = "\n--efqfuzz-file--\n";

// @data cut at every kFileSeparator: at least one part (maybe empty).
std::vector<std::string> split_files(const uint8_t *data, size_t size);

// The process's own temporary folder (made once, under $TMPDIR or /tmp;
// removed at exit), with a trailing '/'.
const std::string &temp_dir();
// Writes @bytes to temp_dir() + @name; aborts if it cannot.
std::string write_temp(const std::string &name, const std::string &bytes);
// Removes every file in temp_dir() (what the last input wrote).
void clear_temp_dir();

// Bounds a job run so that one input takes milliseconds: at most
// kMaxJobs clones (the rest dropped), each with at most kMaxIos IOs, 50 ms of
// runtime, 10 ms of start delay and ramp, 1 ms of think time; log names
// lose their folders (logs go to the current folder).  Setup::prepare_jobs.
inline constexpr size_t kMaxJobs = 8;
inline constexpr uint64_t kMaxIos = 32;
void bound_jobs(std::vector<efqsim::workload::JobSpec> &jobs);

// A bad input's message must say something, in at most a few lines of
// printable text (a quoted input is cut short and its bytes escaped), and
// a failure of an input named @where starts with it ("f0:3: ...",
// "t.blktrace.0: byte offset 96: ..."; @where empty: no such check).
// Aborts (a finding) with the message otherwise.
void check_message(const std::string &msg, const std::string &where);

// Aborts with @what (a finding: libFuzzer keeps the input).
[[noreturn]] void fail(const std::string &what);

} // namespace efqfuzz
