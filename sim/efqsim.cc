// SPDX-License-Identifier: GPL-2.0
// efqsim: run fio job files on a simulated disk through the real efq
// schedulers (or Linux's own mq-deadline), and print what fio would print,
// plus what each cgroup got.  The command line is sim/cli/.
//
// Exit status: 0 success, 1 bad input (a clear message on stderr), 2 an
// internal error (an invariant of the simulation broke) or a run that
// reached the simulated-time limit (its report so far is printed first).
#include "cli/cli.h"

int main(int argc, char **argv)
{
	return efqsim::cli::main(argc, argv);
}
