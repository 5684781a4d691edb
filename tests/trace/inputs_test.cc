// SPDX-License-Identifier: GPL-2.0
// Traces as the blktrace tools leave them: a recording's base name for its
// NAME.blktrace.N files (as blkparse -i and btreplay take it), blkparse
// text with plugs, unplugs (U, UT) and '#' lines, warnings for missing CPU
// files, files given twice, duplicate events and IOs without completion,
// and bad time stamps as bad input with the file and where.
#include <unistd.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "../cli/run_efqsim.h"
#include "gen.h"
#include "trace/blkparse.h"
#include "trace/blktrace.h"
#include "trace/event.h"
#include "trace/ios.h"

namespace efqsim::trace {
namespace {

const std::string kDir = std::string(EFQ_SOURCE_DIR) + "/tests/data/trace/";

// A fresh folder of its own for each test.
std::string folder(const std::string &name)
{
	std::string d = ::testing::TempDir() + std::to_string(getpid()) + "-efq-inputs-" + name;
	std::filesystem::remove_all(d);
	std::filesystem::create_directories(d);
	return d + "/";
}

struct Read {
	std::vector<Event> events;
	std::vector<std::string> warnings;
	std::string err;
};

Read read_all(const std::vector<std::string> &paths)
{
	Read r;
	auto src = open_trace(paths, &r.err);
	if (!src)
		return r;
	Event e;
	while (src->next(&e))
		r.events.push_back(e);
	r.err = src->error();
	r.warnings = src->warnings();
	return r;
}

std::string file_bytes(const std::string &path)
{
	std::ifstream in(path, std::ios::binary);
	return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// @n reads queued on CPU 0 and completed on CPU @done_cpu (an interrupt
// on another CPU), each Q D C.
std::vector<std::vector<Event>> cross_cpu(int n, uint32_t done_cpu)
{
	std::vector<std::vector<Event>> cpus(done_cpu + 1);
	for (int i = 0; i < n; i++) {
		int64_t t = 1000 + i * int64_t{100'000};
		uint64_t s = static_cast<uint64_t>(i) * 8;
		cpus[0].push_back(testgen::ev(t, 0, 100, 'Q', kData | kSync, s, 8, "reader"));
		cpus[0].push_back(testgen::ev(t + 10, 0, 100, 'D', kData | kSync, s, 8, "reader"));
		cpus[done_cpu].push_back(
			testgen::ev(t + 50'000, done_cpu, 0, 'C', kData | kSync, s, 8, ""));
	}
	for (auto &c : cpus)
		for (size_t i = 0; i < c.size(); i++)
			c[i].seq = i + 1;
	return cpus;
}

TEST(TraceInputs, BlkparseTextWithPlugsUnplugsTimerUnplugsAndCommentLines)
{
	Read r = read_all({kDir + "plug.blkparse"});
	ASSERT_EQ(r.err, "");
	EXPECT_TRUE(r.warnings.empty());
	std::string actions;
	for (const Event &e : r.events)
		actions += e.action;
	EXPECT_EQ(actions, "QGPIUDQGPICTDC");
	const Event &ut = r.events[11];
	EXPECT_EQ(ut.action, 'T'); // UT: the unplug by the timer
	EXPECT_EQ(ut.comm, "kworker/1:0");
	EXPECT_EQ(ut.pid, 977u);
	EXPECT_EQ(ut.cpu, 1u);
	EXPECT_EQ(ut.time_ns, 3'151'600);
	EXPECT_EQ(r.events[4].action, 'U');
	EXPECT_EQ(r.events[4].comm, "dd");
	// Both IOs rebuilt with their completions.
	auto src = open_trace({kDir + "plug.blkparse"}, &r.err);
	ASSERT_TRUE(src);
	IoBuilder b(*src);
	IoRecord rec;
	std::vector<IoRecord> ios;
	while (b.next(&rec))
		ios.push_back(rec);
	ASSERT_EQ(ios.size(), 2u);
	EXPECT_EQ(ios[1].complete_ns, 3'610'000);
	EXPECT_EQ(ios[1].comm, "kworker/1:0");
	EXPECT_EQ(b.stats().incomplete, 0u);
}

TEST(TraceInputs, FormatEventPrintsUnplugsAsBlkparseDoes)
{
	Event ut = testgen::ev(4'000'000, 0, 310, 'T', 0, 0, 0, "kworker/0:1");
	Event u = testgen::ev(4'000'000, 0, 310, 'U', 0, 0, 0, "fio");
	EXPECT_EQ(format_event(ut),
		  "  8,0    0        0     0.004000000   310 UT   N [kworker/0:1] 1\n");
	EXPECT_EQ(format_event(u), "  8,0    0        0     0.004000000   310  U   N [fio] 1\n");
	Event back;
	std::string why, line = format_event(ut);
	ASSERT_TRUE(parse_line(line.data(), line.data() + line.size() - 1, &back, &why)) << why;
	EXPECT_EQ(back.action, 'T');
	EXPECT_EQ(back.comm, "kworker/0:1");
}

TEST(TraceInputs, ABaseNameReadsEveryCpuFileInOrder)
{
	std::vector<std::string> files, warnings;
	std::string err;
	ASSERT_TRUE(resolve_trace_files({kDir + "two"}, &files, &warnings, &err)) << err;
	EXPECT_EQ(files,
		  (std::vector<std::string>{kDir + "two.blktrace.0", kDir + "two.blktrace.1"}));
	EXPECT_TRUE(warnings.empty());
	// CPU files past 9 sort by number, not by name.
	std::string d = folder("many");
	auto cpus = testgen::two_processes(4);
	for (int n : {0, 1, 2, 10, 11})
		testgen::write_file(d + "rec.blktrace." + std::to_string(n),
				    testgen::binary(cpus[n == 1 ? 1 : 0]));
	ASSERT_TRUE(resolve_trace_files({d + "rec"}, &files, &warnings, &err));
	ASSERT_EQ(files.size(), 5u);
	EXPECT_EQ(files[3], d + "rec.blktrace.10");
	ASSERT_EQ(warnings.size(), 1u);
	EXPECT_EQ(warnings[0],
		  d +
			  "rec.blktrace.3, 4, 5, 6, 7, 8, 9 are missing (the recording "
			  "has " +
			  d +
			  "rec.blktrace.11): those CPUs' events are not replayed, and "
			  "IOs queued on one CPU and completed on a missing one have no "
			  "completion");
	// Neither a file nor a base name.
	EXPECT_FALSE(resolve_trace_files({d + "nothing"}, &files, &warnings, &err));
	EXPECT_EQ(err, d + "nothing: No such file or directory (nor any " + d +
			       "nothing.blktrace.N: a blktrace recording's base name)");
	std::filesystem::remove_all(d);

	// The same events as the files listed one by one.
	Read by_name = read_all({kDir + "two"});
	Read listed = read_all({kDir + "two.blktrace.0", kDir + "two.blktrace.1"});
	ASSERT_EQ(by_name.err, "");
	EXPECT_EQ(by_name.events.size(), listed.events.size());
	EXPECT_GT(by_name.events.size(), 600u);
}

TEST(TraceInputs, AMissingCpuFileAndAFileNotGivenAreWarnedAbout)
{
	std::string d = folder("gap");
	auto cpus = testgen::two_processes(8);
	testgen::write_file(d + "rec.blktrace.0", testgen::binary(cpus[0]));
	testgen::write_file(d + "rec.blktrace.2", testgen::binary(cpus[1]));
	Read r = read_all({d + "rec"});
	ASSERT_EQ(r.err, "");
	ASSERT_EQ(r.warnings.size(), 1u);
	EXPECT_EQ(r.warnings[0].rfind(d + "rec.blktrace.1 is missing (the recording has " + d +
					      "rec.blktrace.2)",
				      0),
		  0u)
		<< r.warnings[0];
	// Only .0 given: .1 is missing and .2 was left out.
	r = read_all({d + "rec.blktrace.0"});
	ASSERT_EQ(r.warnings.size(), 2u);
	EXPECT_EQ(r.warnings[0].rfind(d + "rec.blktrace.1 is missing", 0), 0u) << r.warnings[0];
	EXPECT_EQ(r.warnings[1],
		  d +
			  "rec.blktrace.2 exists but was not given: give every CPU's "
			  "file, or just " +
			  d + "rec");
	std::filesystem::remove_all(d);
}

TEST(TraceInputs, AFileGivenTwiceIsReadOnceAndDuplicateEventsAreDropped)
{
	Read once = read_all({kDir + "two.blktrace.0", kDir + "two.blktrace.1"});
	ASSERT_EQ(once.err, "");
	Read twice = read_all(
		{kDir + "two.blktrace.0", kDir + "two.blktrace.1", kDir + "two.blktrace.0"});
	ASSERT_EQ(twice.err, "");
	EXPECT_EQ(twice.events.size(), once.events.size());
	ASSERT_EQ(twice.warnings.size(), 1u);
	EXPECT_EQ(twice.warnings[0], kDir + "two.blktrace.0 is given twice: read once");

	// A copy under another name: every event of it is a duplicate, dropped.
	std::string d = folder("dup");
	testgen::write_file(d + "copy", file_bytes(kDir + "two.blktrace.1"));
	Read dup = read_all({kDir + "two.blktrace.0", kDir + "two.blktrace.1", d + "copy"});
	ASSERT_EQ(dup.err, "");
	EXPECT_EQ(dup.events.size(), once.events.size());
	ASSERT_EQ(dup.warnings.size(), 1u);
	size_t cpu1 = read_all({kDir + "two.blktrace.1"}).events.size();
	EXPECT_EQ(dup.warnings[0].rfind(std::to_string(cpu1) + " duplicate events dropped (a "
							       "record read twice",
					0),
		  0u)
		<< dup.warnings[0];
	// The same in text: a line repeated.
	std::string text = file_bytes(kDir + "plug.blkparse");
	size_t at = text.find("  8,16   0        4");
	std::string line = text.substr(at, text.find('\n', at) + 1 - at);
	testgen::write_file(d + "dup.blkparse", text.substr(0, at) + line + text.substr(at));
	Read t = read_all({d + "dup.blkparse"});
	ASSERT_EQ(t.err, "");
	EXPECT_EQ(t.events.size(), 14u);
	ASSERT_EQ(t.warnings.size(), 1u);
	EXPECT_EQ(t.warnings[0].rfind("1 duplicate event dropped", 0), 0u) << t.warnings[0];
	std::filesystem::remove_all(d);
}

// Many events at one time stamp (past the few the merge compares one by
// one): each repeat is found, and events that differ in one field are not
// repeats.
TEST(TraceInputs, DuplicatesAmongManyEventsOfOneTimeStampAreFound)
{
	std::vector<Event> cpu0;
	for (int i = 0; i < 100; i++) {
		cpu0.push_back(testgen::ev(5000, 0, 100, 'Q', kData, uint64_t(i) * 8, 8, "reader"));
		cpu0.back().seq = uint64_t(i) + 1;
	}
	std::string d = folder("dupmany");
	testgen::write_file(d + "a.blktrace.0", testgen::binary(cpu0));
	// The same records again, but for one sector and one pid.
	std::vector<Event> copy = cpu0;
	copy[40].sector += 1;
	copy[70].pid = 101;
	testgen::write_file(d + "b", testgen::binary(copy));
	Read r = read_all({d + "a.blktrace.0", d + "b"});
	ASSERT_EQ(r.err, "");
	// Each file starts with pid 100's process notify record, and b has
	// one for pid 101 too: 101 events of a, then of b's 102 only pid 101's
	// notify record and the two changed reads are new.
	EXPECT_EQ(r.events.size(), 104u);
	ASSERT_EQ(r.warnings.size(), 1u);
	EXPECT_EQ(r.warnings[0].rfind("99 duplicate events dropped", 0), 0u) << r.warnings[0];
	std::filesystem::remove_all(d);
}

TEST(TraceInputs, TimeGoingBackwardsWithinACpuFileIsBadInputWithItsOffset)
{
	std::string d = folder("back");
	auto cpus = testgen::two_processes(4);
	std::vector<Event> &c0 = cpus[0];
	for (Event &e : c0)
		e.time_ns += 1'000'000'000;
	// A little back (under 1 ms) is kept; 10 s back is corrupt.
	std::vector<Event> slight = c0;
	slight[5].time_ns = slight[4].time_ns - 900'000;
	testgen::write_file(d + "slight.blktrace.0", testgen::binary(slight));
	EXPECT_EQ(read_all({d + "slight.blktrace.0"}).err, "");

	std::vector<Event> back = c0;
	back[6].time_ns = back[5].time_ns + 10'000'000'000;
	testgen::write_file(d + "back.blktrace.0", testgen::binary(back));
	Read r = read_all({d + "back.blktrace.0"});
	// The record after the one 10 s ahead goes back 10 s: its offset.
	size_t off = testgen::binary(std::vector<Event>(back.begin(), back.begin() + 7)).size();
	EXPECT_EQ(r.err.rfind(d + "back.blktrace.0: byte offset " + std::to_string(off) +
				      ": time stamp ",
			      0),
		  0u)
		<< r.err;
	EXPECT_NE(r.err.find("before the previous record of CPU 0"), std::string::npos) << r.err;

	std::vector<Event> jump = c0;
	jump[3].time_ns += int64_t{40} * 24 * 3600 * 1'000'000'000;
	for (size_t i = 4; i < jump.size(); i++)
		jump[i].time_ns = jump[3].time_ns + static_cast<int64_t>(i);
	testgen::write_file(d + "jump.blktrace.0", testgen::binary(jump));
	r = read_all({d + "jump.blktrace.0"});
	EXPECT_NE(r.err.find(": time stamp "), std::string::npos) << r.err;
	EXPECT_NE(r.err.find("40.0 days after the previous record of CPU 0"), std::string::npos)
		<< r.err;
	std::filesystem::remove_all(d);
}

TEST(TraceInputs, TimeGoingBackwardsInBlkparseTextIsBadInputWithItsLine)
{
	std::string d = folder("textback");
	std::string text = file_bytes(kDir + "plug.blkparse");
	// CPU 1's first event (line 11) stamped 2 s late: its next one (line
	// 12) then goes back 2 s.  A step back of 0.2 us is kept.
	std::string bad = text, ok = text;
	size_t at = text.find("0.000150000");
	bad.replace(at, 11, "2.000150000");
	ok.replace(at, 11, "0.000150900");
	testgen::write_file(d + "ok.blkparse", ok);
	EXPECT_EQ(read_all({d + "ok.blkparse"}).err, "");
	testgen::write_file(d + "bad.blkparse", bad);
	Read r = read_all({d + "bad.blkparse"});
	EXPECT_EQ(r.err, d + "bad.blkparse:12: time 0.000150700 s is 1.999999 s before an earlier "
			     "event of CPU 1 (2.000150000 s): blkparse prints events in time "
			     "order (a corrupt or spliced file?)");
	std::filesystem::remove_all(d);
}

using efqtest::efqsim;

TEST(TraceInputsCli, ReplayTakesABaseNameAndWarnsOnStderr)
{
	efqtest::Result listed =
		efqsim("replay --device ssd " + kDir + "two.blktrace.0 " + kDir + "two.blktrace.1");
	efqtest::Result named = efqsim("replay --device ssd " + kDir + "two");
	ASSERT_EQ(named.status, 0) << named.out;
	EXPECT_EQ(named.out, listed.out);

	// Reads queued on CPU 0 and completed on CPU 2, without CPU 1's file,
	// and the recording given as CPU 0's file only.
	std::string d = folder("cli");
	auto cpus = cross_cpu(40, 2);
	testgen::write_file(d + "rec.blktrace.0", testgen::binary(cpus[0]));
	testgen::write_file(d + "rec.blktrace.2", testgen::binary(cpus[2]));
	efqtest::Result r =
		efqsim("replay --output /dev/null --device ssd " + d + "rec.blktrace.0");
	EXPECT_EQ(r.status, 0) << r.out;
	EXPECT_EQ(
		r.out,
		"efqsim: warning: " + d + "rec.blktrace.1 is missing (the recording has " + d +
			"rec.blktrace.0): those CPUs' events are not replayed, and IOs queued "
			"on one CPU and completed on a missing one have no completion\n"
			"efqsim: warning: " +
			d +
			"rec.blktrace.2 exists but was not given: give every CPU's file, or just " +
			d +
			"rec\n"
			"efqsim: warning: 40 of the trace's 40 IOs (100%) have no completion: a "
			"CPU file missing, or a recording without completion events? They are "
			"replayed, but their recorded latencies and, in closed loop, the think "
			"times around them mean little\n");
	// With every file (by base name): only the missing CPU 1 is warned of.
	r = efqsim("replay --output /dev/null --device ssd " + d + "rec");
	EXPECT_EQ(r.status, 0) << r.out;
	EXPECT_EQ(r.out.find("efqsim: warning: " + d + "rec.blktrace.1 is missing"), 0u) << r.out;
	EXPECT_EQ(r.out.find("no completion:"), std::string::npos) << r.out;
	// The JSON lists the warnings too.
	r = efqsim("replay --output-format json --device ssd " + d + "rec");
	EXPECT_NE(r.out.find("\"warnings\": [\"" + d + "rec.blktrace.1 is missing"),
		  std::string::npos)
		<< r.out;
	std::filesystem::remove_all(d);
}

TEST(TraceInputsCli, BadTimeStampsExitOneNamingTheFileAndOffset)
{
	std::string d = folder("clibad");
	auto cpus = testgen::two_processes(4);
	cpus[1][3].time_ns += 5'000'000'000; // the next record goes back 5 s
	testgen::write_file(d + "bad.blktrace.0", testgen::binary(cpus[0]));
	testgen::write_file(d + "bad.blktrace.1", testgen::binary(cpus[1]));
	efqtest::Result r = efqsim("replay " + d + "bad");
	EXPECT_EQ(r.status, 1) << r.out;
	EXPECT_EQ(r.out.rfind("efqsim: " + d + "bad.blktrace.1: byte offset ", 0), 0u) << r.out;
	EXPECT_NE(r.out.find("before the previous record of CPU 1"), std::string::npos) << r.out;
	r = efqsim("replay " + d + "nothing");
	EXPECT_EQ(r.status, 1);
	EXPECT_EQ(r.out, "efqsim: " + d + "nothing: No such file or directory (nor any " + d +
				 "nothing.blktrace.N: a blktrace recording's base name)\n");
	std::filesystem::remove_all(d);
}

// A file that is neither blktrace's (its magic) nor text: the binary
// reader's message, at byte offset 0, not the text reader's "not a
// blkparse event line".
TEST(TraceInputsCli, ABinaryFileWithoutBlktracesMagicIsBadMagicAtOffsetZero)
{
	std::string d = folder("magic");
	std::string zeroed = testgen::binary(testgen::two_processes(4)[0]);
	zeroed.replace(0, 4, std::string(4, '\0'));
	testgen::write_file(d + "zero.blktrace.0", zeroed);
	efqtest::Result r = efqsim("replay " + d + "zero.blktrace.0");
	EXPECT_EQ(r.status, 1) << r.out;
	EXPECT_EQ(r.out, "efqsim: " + d +
				 "zero.blktrace.0: byte offset 0: not a blktrace file (bad magic "
				 "0x00000000)\n");
	// An ELF header, and a later CPU file of a recording.
	std::string elf = "\x7f";
	elf += "ELF" + std::string(60, '\x01');
	testgen::write_file(d + "elf", elf);
	r = efqsim("replay " + d + "elf");
	EXPECT_EQ(r.status, 1) << r.out;
	EXPECT_EQ(r.out.rfind("efqsim: " + d +
				      "elf: byte offset 0: not a blktrace file (bad magic 0x",
			      0),
		  0u)
		<< r.out;
	auto cpus = testgen::two_processes(4);
	testgen::write_file(d + "rec.blktrace.0", testgen::binary(cpus[0]));
	testgen::write_file(d + "rec.blktrace.1", zeroed);
	r = efqsim("replay " + d + "rec");
	EXPECT_EQ(r.status, 1) << r.out;
	EXPECT_NE(r.out.find(d + "rec.blktrace.1: byte offset 0: not a blktrace file (bad magic "
				 "0x00000000)"),
		  std::string::npos)
		<< r.out;
	// Text is still read as blkparse's.
	testgen::write_file(d + "words", "hello world\n");
	r = efqsim("replay " + d + "words");
	EXPECT_EQ(r.status, 1) << r.out;
	EXPECT_NE(r.out.find(d + "words:1: "), std::string::npos) << r.out;
	std::filesystem::remove_all(d);
}

} // namespace
} // namespace efqsim::trace
