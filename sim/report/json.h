// SPDX-License-Identifier: GPL-2.0
// efqsim reports: fio's --output-format=json, plus the "efq" object.
#pragma once

#include <string>

#include "report/results.h"

namespace efqsim::report {

// @r as fio's JSON output (its key names, order and units: bw in KiB/s,
// runtime in ms, latencies in ns), with a top-level "efq" object for the
// scheduler and the per-group disk time.  Floats have six decimals; the
// timestamps are 0; the same @r always gives the same bytes.  Ends in a
// newline.
std::string to_json(const RunResult &r);

} // namespace efqsim::report
