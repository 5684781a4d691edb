// SPDX-License-Identifier: GPL-2.0
// What fuzzing efqsim's command line found (tests/fuzz/cli_fuzz.cc;
// Documentation/sim/efqsim.rst, "Fuzzing"), one test each, with the
// minimized input; the program end to end.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "run_efqsim.h"

namespace {

using efqtest::efqsim;
using efqtest::Result;

// An argument's raw bytes went to stderr in the message.
TEST(FuzzFound, ControlBytesInAnArgumentAreEscapedInTheMessage)
{
	Result r = efqsim("--scheduler \"$(printf 'c\\033[2Jfq')\" x.fio");
	EXPECT_EQ(r.status, 1);
	EXPECT_EQ(r.out.rfind("efqsim: unknown scheduler 'c\\x1b[2Jfq' (cfq,", 0), 0u) << r.out;
	Result m = efqsim("replay --map \"$(printf 'pid=1\\t=a')\" x.trace");
	EXPECT_EQ(m.status, 1);
	EXPECT_NE(m.out.find("\\x09"), std::string::npos) << m.out;
	EXPECT_EQ(m.out.find('\t'), std::string::npos) << m.out;
}

// A folder as a job file said "no jobs defined"; a missing one gave no
// reason.
TEST(FuzzFound, AFolderOrAMissingJobFileSaysSo)
{
	std::string dir = ::testing::TempDir() + std::to_string(getpid()) + "-jobdir";
	std::filesystem::create_directories(dir);
	Result d = efqsim(dir);
	EXPECT_EQ(d.status, 1);
	EXPECT_EQ(d.out, "efqsim: " + dir + ": is a directory, not a job file\n");
	Result m = efqsim(dir + "/missing.fio");
	EXPECT_EQ(m.status, 1);
	EXPECT_EQ(m.out,
		  "efqsim: " + dir +
			  "/missing.fio: cannot read the job file: No such file or directory\n");
	std::filesystem::remove_all(dir);
}

} // namespace
