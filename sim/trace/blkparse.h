// SPDX-License-Identifier: GPL-2.0
// efqsim traces: blkparse's default text output, one event a line:
//
//   "%D %2c %8s %5T.%9t %5p %2a %3d " then what the action prints:
//     8,0    0        1     0.000000000  1234  Q   R 12345 + 8 [fio]
//     8,0    0        5     0.000300000     0  C   R 12345 + 8 [0]
//     8,0    0        2     0.000001000  1234  P   N [fio]
//     8,0    0        3     0.000004000  1234  U   N [fio] 1
//     8,0    0        4     0.004000000   310 UT   N [kworker/0:1] 2
//     8,0    0        0     0.000002000     0  m   N a message
//
// (device, cpu, sequence, seconds.nanoseconds, pid, action, RWBS, then
// "sector + sectors [comm]", "[error]" for C, "[comm]" for P, "[comm]" and
// the requests released for U and UT (the timer's unplug, Event::action
// 'T'), "sector / sector [comm]" for X, the text for m).  Lines starting
// with '#' (comments, a header such as "#Maj,Mn CPU ...") and blank lines
// are skipped.  The summary blkparse prints at the end ("CPU0 (8,0):",
// "Total (8,0):", "Throughput ...") and everything after it is ignored.
// One CPU's events going back in time (kMaxBackwardsNs) or jumping a month
// ahead is an error "FILE:LINE: ...", as is any other malformed line.
#pragma once

#include <memory>
#include <string>

#include "trace/event.h"

namespace efqsim::trace {

// One text file, read in chunks.  A line that is neither an event nor part
// of the summary is an error ("FILE:LINE: ...").
std::unique_ptr<EventSource> open_blkparse(const std::string &path, std::string *err);

// @ev as blkparse prints it (one line with its newline), for tests and
// benchmarks.
std::string format_event(const Event &ev);

// Parses one line; false (and *why) if it is not an event line.  Exposed for
// tests.
bool parse_line(const char *begin, const char *end, Event *ev, std::string *why);

} // namespace efqsim::trace
