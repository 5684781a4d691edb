// SPDX-License-Identifier: GPL-2.0
// What fuzzing the job-file parser found (tests/fuzz/jobfile_fuzz.cc,
// run_fuzz.cc; Documentation/sim/efqsim.rst, "Fuzzing"), one test each, with
// the minimized input.

#include <gtest/gtest.h>

#include "workload/jobfile.h"

#include <string>

namespace efqsim::workload {
namespace {

using namespace std::string_literals;

std::string error_of(const std::string &text)
{
	ParseContext c;
	c.capacity_bytes = uint64_t{64} << 30;
	std::string err;
	EXPECT_TRUE(parse_jobs({JobSource{"f0", text}}, c, &err).empty()) << text;
	return err;
}

// The raw bytes of a line went into the message: an escape sequence
// reached the terminal, a NUL cut the message short.  A control byte now
// refuses the file before any line is quoted.
TEST(FuzzFound, ControlBytesInAJobFileAreEscapedInTheMessage)
{
	EXPECT_EQ(error_of("\n\n\n extent \x1b (files are laid out)\n"),
		  "f0:4: not a text job file: byte offset 11 is the control byte 0x1b (a job "
		  "file may hold no control bytes but tab, CR and LF)");
	EXPECT_EQ(error_of("[j]\nruntime\x00=1\n"s),
		  "f0:2: not a text job file: byte offset 11 is the control byte 0x00 (a job "
		  "file may hold no control bytes but tab, CR and LF)");
}

// A binary file as a job file put its whole first "line" (1.2 KB of
// fio's examples' raw bytes) into the message: a quoted line is cut.
TEST(FuzzFound, ALongLineIsCutInTheMessage)
{
	std::string line(2000, 'x');
	line[0] = '\xff';
	std::string err = error_of(line + "\n[j]\n");
	EXPECT_LT(err.size(), 200u) << err;
	EXPECT_EQ(err.rfind("f0:1: option '\\xffxxx", 0), 0u) << err;
	EXPECT_NE(err.find("...' outside a section"), std::string::npos) << err;
}

// A long value quoted (twice) in a message made it 2 KB long: the middle
// of a long message is cut, its location and reason stay.
TEST(FuzzFound, ALongValueIsCutInTheMiddleOfTheMessage)
{
	std::string err = error_of("[j]\nruntime=10" + std::string(1000, '\xff') + "s\n");
	EXPECT_LE(err.size(), 410u) << err;
	EXPECT_EQ(err.rfind("f0:2: runtime: '10\\xff\\xff", 0), 0u) << err;
	EXPECT_NE(err.find(" ... "), std::string::npos) << err;
	const std::string reason = "\\xffs' (use us, ms, s, m, h or d)";
	EXPECT_EQ(err.substr(err.size() - reason.size()), reason) << err;
}

// A cgroup name with a NUL or longer than the simulated blkcg takes was
// accepted, and the run then failed with "cannot create cgroup", without
// file:line (run_fuzz.cc).
TEST(FuzzFound, ACgroupNameTheSimulationCannotCreateIsRejectedWithItsLine)
{
	EXPECT_EQ(error_of("[j]\ncgroup=t15/a\x00h\n"s),
		  "f0:2: not a text job file: byte offset 16 is the control byte 0x00 (a job "
		  "file may hold no control bytes but tab, CR and LF)");
	EXPECT_EQ(error_of("[j]\ncgroup=t15/" + std::string(64, 'h') + "\n")
			  .rfind("f0:2: cgroup: 't15/hhh", 0),
		  0u);
	EXPECT_NE(error_of("[j]\ncgroup=t15/" + std::string(64, 'h') + "\n")
			  .find("' is longer than 63 bytes (efqsim's limit)"),
		  std::string::npos);
	ParseContext c;
	c.capacity_bytes = uint64_t{64} << 30;
	std::string err;
	auto jobs = parse_jobs({JobSource{"f0", "[j]\nsize=1m\ncgroup=t15/" + std::string(63, 'h') +
							"\n"}},
			       c, &err);
	ASSERT_EQ(jobs.size(), 1u) << err;
	EXPECT_EQ(jobs[0].cgroup, "t15/" + std::string(63, 'h'));
}

// A UTF-8 byte-order mark is invisible on a terminal: the message names it
// (fio refuses it too, as part of the first line).
TEST(FuzzFound, AByteOrderMarkIsShown)
{
	EXPECT_EQ(error_of("\xef\xbb\xbf[j]\nrw=read\n"),
		  "f0:1: the file starts with a UTF-8 byte-order mark (bytes EF BB BF), which "
		  "fio does not accept: save the job file without it");
	// valid UTF-8 text stays as it is; invalid bytes are escaped
	EXPECT_EQ(error_of("[j]\ngr\xc3\xb6\xc3\x9f"
			   "e=1\n"),
		  "f0:2: unknown option 'gr\xc3\xb6\xc3\x9f"
		  "e'");
	EXPECT_EQ(error_of("[j]\ngr\xc3=1\n"), "f0:2: unknown option 'gr\\xc3'");
}

} // namespace
} // namespace efqsim::workload
