// SPDX-License-Identifier: GPL-2.0
// Running the efqsim binary (EFQSIM_PATH, set by CMake) from a test: its
// exit status and everything it printed, stdout and stderr together.
#pragma once

#include <array>
#include <cstdio>
#include <string>

#include <sys/wait.h>

namespace efqtest {

struct Result {
	int status = -1; // the exit status; -1 if it did not exit normally
	std::string out; // stdout and stderr
};

inline Result efqsim(const std::string &args)
{
	Result r;
	std::string cmd = std::string(EFQSIM_PATH) + " " + args + " 2>&1";
	FILE *p = popen(cmd.c_str(), "r");
	if (!p)
		return r;
	std::array<char, 4096> buf;
	size_t n;
	while ((n = fread(buf.data(), 1, buf.size(), p)) > 0)
		r.out.append(buf.data(), n);
	int st = pclose(p);
	r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	return r;
}

} // namespace efqtest
