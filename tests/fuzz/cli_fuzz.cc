// SPDX-License-Identifier: GPL-2.0
// Fuzzes efqsim's command line in-process (sim/cli): run, compare, replay,
// --map and every other option.  The input's first part is the command
// line, one argument a line (after the program name); the other parts are
// files f0, f1, ... in the harness's temporary folder, which is the current
// folder (job files, device parameter files, traces; --output and the
// jobs' logs land there too).  An argument with a '/' ends the input
// unread: the command line reaches no file outside that folder.  Jobs are
// bounded (bound_jobs).  The exit status must be 0 or 1, and 1 must come
// with a clear message on stderr.
#include <unistd.h>

#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli.h"
#include "fuzz.h"

extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
	if (chdir(efqfuzz::temp_dir().c_str()) != 0)
		efqfuzz::fail("cannot enter " + efqfuzz::temp_dir());
	return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	std::vector<std::string> parts = efqfuzz::split_files(data, size);
	std::vector<std::string> args = {"efqsim"};
	std::istringstream lines(parts[0]);
	for (std::string a; std::getline(lines, a);) {
		if (a.find('/') != std::string::npos || a.find('\0') != std::string::npos)
			return -1; // not added to the corpus
		args.push_back(a);
	}
	if (args.size() > 64)
		return -1;
	for (size_t i = 1; i < parts.size(); i++)
		efqfuzz::write_temp("f" + std::to_string(i - 1), parts[i]);
	std::vector<char *> argv;
	for (std::string &a : args)
		argv.push_back(a.data());
	argv.push_back(nullptr);

	std::ostringstream out, err;
	std::streambuf *cout_buf = std::cout.rdbuf(out.rdbuf());
	std::streambuf *cerr_buf = std::cerr.rdbuf(err.rdbuf());
	int status = efqsim::cli::main(static_cast<int>(args.size()), argv.data(),
				       [](efqsim::run::Setup &s) {
					       s.prepare_jobs = efqfuzz::bound_jobs;
					       s.progress =
						       nullptr; // no progress line on a terminal
				       });
	std::cout.rdbuf(cout_buf);
	std::cerr.rdbuf(cerr_buf);
	efqfuzz::clear_temp_dir();

	std::string msg = err.str();
	if (status == 1) {
		if (msg.rfind("efqsim: ", 0) != 0 || msg.back() != '\n')
			efqfuzz::fail("exit 1 without an 'efqsim: ' message on stderr: " + msg);
		efqfuzz::check_message(msg.substr(8, msg.size() - 9), "");
	} else if (status != 0) {
		efqfuzz::fail("exit status " + std::to_string(status) + ": " + msg);
	}
	return 0;
}
