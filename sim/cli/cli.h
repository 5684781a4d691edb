// SPDX-License-Identifier: GPL-2.0
// efqsim's command line: `efqsim [options] JOBFILE...`, `efqsim compare` and
// `efqsim replay` (Documentation/sim/efqsim.rst).  A library, so that the
// program (sim/efqsim.cc) and the fuzzers (tests/fuzz/) run the same code.
#pragma once

#include <functional>

#include "run/run.h"

namespace efqsim::cli {

// Called with every run's Setup just before it runs (the fuzzers bound the
// jobs through Setup::prepare_jobs); may be empty.
using SetupHook = std::function<void(run::Setup &)>;

// Runs efqsim with @argv (argv[0] is the program): the report on stdout or
// --output, messages on stderr.  Returns the exit status: 0 success, 1 bad
// input (a clear message on stderr), 2 an internal error (an invariant of
// the simulation broke).  Never exits the process.
int main(int argc, char **argv, const SetupHook &adjust = nullptr);

} // namespace efqsim::cli
