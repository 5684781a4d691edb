// SPDX-License-Identifier: GPL-2.0
// efqsim reports: fio's normal (human readable) output, plus the efq section.
#pragma once

#include <ostream>

#include "report/results.h"

namespace efqsim::report {

// Print @r as fio prints its normal output: a block per job (per reporting
// group with group_reporting), the "Run status group" summaries, then the
// efq section (device, scheduler, tunables and the per-group table).  The
// same @r always prints the same bytes.
void print_text(const RunResult &r, std::ostream &out);

} // namespace efqsim::report
