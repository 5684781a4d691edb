// SPDX-License-Identifier: GPL-2.0
// The trace readers: blktrace binary files (both byte orders, several CPU
// files merged) and blkparse text give the same events; bad input is a
// clear error with its file and offset or line.
#include <unistd.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "gen.h"
#include "trace/blkparse.h"
#include "trace/blktrace.h"
#include "trace/event.h"

namespace efqsim::trace {
namespace {

std::string tmp(const std::string &name)
{
	return ::testing::TempDir() + std::to_string(getpid()) + "-efq-trace-" + name;
}

std::vector<Event> read_all(const std::vector<std::string> &paths, std::string *err)
{
	std::vector<Event> out;
	auto src = open_trace(paths, err);
	if (!src)
		return out;
	Event e;
	while (src->next(&e))
		out.push_back(e);
	*err = src->error();
	return out;
}

// The events of a trace, without process notify records, in merged order.
std::vector<Event> expected(const std::vector<std::vector<Event>> &cpus)
{
	std::vector<Event> all;
	for (const auto &c : cpus)
		all.insert(all.end(), c.begin(), c.end());
	std::stable_sort(all.begin(), all.end(), [](const Event &a, const Event &b) {
		return a.time_ns < b.time_ns || (a.time_ns == b.time_ns && a.seq < b.seq);
	});
	return all;
}

void expect_same(const Event &a, const Event &b, bool comm, bool cgroup, size_t i)
{
	SCOPED_TRACE("event " + std::to_string(i));
	EXPECT_EQ(a.time_ns, b.time_ns);
	EXPECT_EQ(a.action, b.action);
	EXPECT_EQ(a.pid, b.pid);
	EXPECT_EQ(a.cpu, b.cpu);
	EXPECT_EQ(a.dev, b.dev);
	EXPECT_EQ(a.seq, b.seq);
	EXPECT_EQ(rwbs_string(a.rwbs), rwbs_string(b.rwbs));
	EXPECT_EQ(a.sector, b.sector);
	EXPECT_EQ(a.sectors, b.sectors);
	EXPECT_EQ(a.message, b.message);
	if (comm) {
		EXPECT_EQ(a.comm, b.comm);
	}
	if (cgroup) {
		EXPECT_EQ(a.has_cgroup, b.has_cgroup);
		EXPECT_EQ(a.cgroup, b.cgroup);
	}
}

TEST(BinaryReader, TwoCpuFilesMergeInTimeOrderInBothByteOrders)
{
	auto cpus = testgen::two_processes(40);
	for (bool swap : {false, true}) {
		std::string base = tmp(swap ? "swapped" : "native");
		testgen::write_file(base + ".blktrace.0", testgen::binary(cpus[0], swap));
		testgen::write_file(base + ".blktrace.1", testgen::binary(cpus[1], swap));
		std::string err;
		auto got = read_all({base + ".blktrace.0", base + ".blktrace.1"}, &err);
		ASSERT_EQ(err, "");
		std::vector<Event> events;
		for (auto &e : got)
			if (e.action != 'N')
				events.push_back(e);
		auto want = expected(cpus);
		ASSERT_EQ(events.size(), want.size());
		for (size_t i = 0; i < want.size(); i++)
			expect_same(events[i], want[i], false, true, i);
		// Two process notify records: reader and writer.
		EXPECT_EQ(got.size() - events.size(), 2u);
	}
}

TEST(BinaryReader, EveryActionAndFlagRoundTrips)
{
	std::vector<Event> in;
	const char *actions = "QGIDCMFPUTSRXBAm";
	uint32_t flags[] = {kData,
			    kWrite | kData,
			    kDiscard | kData,
			    kFlush | kWrite | kData | kFua,
			    kAhead | kData,
			    kSync | kMeta | kData,
			    0};
	int64_t t = 0;
	for (const char *a = actions; *a; a++)
		for (uint32_t f : flags) {
			Event e = testgen::ev(t++, 3, 42, *a, *a == 'm' ? 0 : f, 1234, f ? 8 : 0,
					      "x");
			if (*a == 'm') {
				e.message = "hello";
				e.sectors = 0;
				e.sector = 0;
			}
			e.comm.clear();
			e.seq = static_cast<uint64_t>(t);
			e.error = *a == 'C' ? -5 : 0;
			in.push_back(e);
		}
	std::string path = tmp("actions.blktrace.0");
	std::string bytes;
	for (const Event &e : in)
		bytes += encode_event(e);
	testgen::write_file(path, bytes);
	std::string err;
	auto got = read_all({path}, &err);
	ASSERT_EQ(err, "");
	ASSERT_EQ(got.size(), in.size());
	for (size_t i = 0; i < in.size(); i++) {
		expect_same(got[i], in[i], false, true, i);
		EXPECT_EQ(got[i].error, in[i].error);
	}
}

TEST(BinaryReader, ReadsTheCommittedFixture)
{
	std::string dir = std::string(EFQ_SOURCE_DIR) + "/tests/data/trace/";
	std::string err;
	auto got = read_all({dir + "two.blktrace.0", dir + "two.blktrace.1"}, &err);
	ASSERT_EQ(err, "");
	auto want = expected(testgen::two_processes(64));
	std::vector<Event> events;
	for (auto &e : got)
		if (e.action != 'N')
			events.push_back(e);
	ASSERT_EQ(events.size(), want.size());
	for (size_t i = 0; i < want.size(); i++)
		expect_same(events[i], want[i], false, true, i);
}

TEST(TextReader, ReadsBlkparseOutputAndSkipsTheSummary)
{
	auto cpus = testgen::two_processes(40, false);
	std::string path = tmp("two.txt");
	testgen::write_file(path, testgen::text(cpus));
	std::string err;
	auto got = read_all({path}, &err);
	ASSERT_EQ(err, "");
	auto want = expected(cpus);
	ASSERT_EQ(got.size(), want.size());
	for (size_t i = 0; i < want.size(); i++)
		expect_same(got[i], want[i], true, true, i);
}

TEST(TextReader, ParsesBlkparseLinesAsWritten)
{
	std::string text = "  8,16   1        1     0.000000000  4711  Q  WS 2048 + 8 [fio]\n"
			   "  8,16   1        2     0.000001500  4711  G  WS 2048 + 8 [fio]\n"
			   "  8,16   1        3     0.000002  4711  P   N [fio]\n"
			   "  8,16   1        4     1.5  4711  D FWFS 2048 + 8 [fio]\n"
			   "  8,16   1        5     2.000000000     0  C  WS 2048 + 8 [-5]\n"
			   "  8,16   1        0     2.000000001     0  m   N efq hello world\n"
			   "  8,16   1        6     2.1  77  X  RA 100 / 140 [kworker/1:2]\n"
			   "\n"
			   "CPU1 (8,16):\n Reads Queued: 0, 0KiB\n garbage after the summary\n";
	std::string path = tmp("lines.txt");
	testgen::write_file(path, text);
	std::string err;
	auto got = read_all({path}, &err);
	ASSERT_EQ(err, "");
	ASSERT_EQ(got.size(), 7u);
	EXPECT_EQ(got[0].dev, make_dev(8, 16));
	EXPECT_EQ(got[0].cpu, 1u);
	EXPECT_EQ(got[0].pid, 4711u);
	EXPECT_EQ(got[0].action, 'Q');
	EXPECT_EQ(got[0].rwbs, kWrite | kData | kSync);
	EXPECT_EQ(got[0].sector, 2048u);
	EXPECT_EQ(got[0].sectors, 8u);
	EXPECT_EQ(got[0].comm, "fio");
	EXPECT_EQ(got[1].time_ns, 1500);
	EXPECT_EQ(got[2].time_ns, 2000);
	EXPECT_EQ(got[2].action, 'P');
	EXPECT_EQ(got[3].time_ns, 1'500'000'000);
	EXPECT_EQ(got[3].rwbs, kFlush | kWrite | kData | kFua | kSync);
	EXPECT_EQ(got[4].error, -5);
	EXPECT_EQ(got[4].comm, "");
	EXPECT_EQ(got[5].action, 'm');
	EXPECT_EQ(got[5].message, "efq hello world");
	EXPECT_EQ(got[6].sectors, 40u);
	EXPECT_EQ(got[6].rwbs, kData | kAhead);
	EXPECT_EQ(got[6].comm, "kworker/1:2");
}

TEST(TextReader, ReadsTheCommittedFixture)
{
	std::string err;
	auto got = read_all({std::string(EFQ_SOURCE_DIR) + "/tests/data/trace/two.blkparse"}, &err);
	ASSERT_EQ(err, "");
	auto want = expected(testgen::two_processes(64, false));
	ASSERT_EQ(got.size(), want.size());
	for (size_t i = 0; i < want.size(); i++)
		expect_same(got[i], want[i], true, true, i);
}

TEST(ReaderErrors, SayWhichFileAndWhere)
{
	std::string err;
	read_all({tmp("does-not-exist")}, &err);
	EXPECT_NE(err.find("does-not-exist: No such file"), std::string::npos) << err;

	auto cpus = testgen::two_processes(4);
	std::string good = testgen::binary(cpus[0]);
	std::string path = tmp("cut.blktrace.0");
	testgen::write_file(path, good.substr(0, good.size() - 10));
	read_all({path}, &err);
	EXPECT_NE(err.find(path + ": byte offset "), std::string::npos) << err;
	EXPECT_NE(err.find("truncated"), std::string::npos) << err;

	std::string bad = good;
	// The second record's magic (the first is 48 bytes and its payload).
	size_t second = 48 + (static_cast<unsigned char>(good[46]) |
			      static_cast<unsigned char>(good[47]) << 8);
	bad[second + 1] ^= 0x5a;
	testgen::write_file(path, bad);
	read_all({path}, &err);
	EXPECT_EQ(err, path + ": byte offset " + std::to_string(second) +
			       ": bad magic 0x65612e07 (corrupt or truncated trace)");

	std::string v6 = good;
	v6[0] = 0x06;
	testgen::write_file(path, v6);
	read_all({path}, &err);
	EXPECT_NE(err.find("byte offset 0: unsupported blktrace version 6"), std::string::npos)
		<< err;

	std::string tpath = tmp("bad.txt");
	testgen::write_file(tpath,
			    "  8,0 0 1 0.000000001 1 Q R 8 + 8 [a]\n  8,0 0 2 0.1 1 Z R 8 + 8 "
			    "[a]\n");
	read_all({tpath}, &err);
	EXPECT_EQ(err, tpath + ":2: expected the action (Q, G, I, D, C, M, F, P, U, UT, ...)");
	testgen::write_file(tpath, "hello\n");
	read_all({tpath}, &err);
	EXPECT_EQ(err, tpath + ":1: not a blkparse event line");

	read_all({path, tpath}, &err);
	EXPECT_NE(err.find("mixes blktrace binary and blkparse text"), std::string::npos) << err;
}

// Deterministic fuzzing: the fixture with a byte flipped at every offset
// (in turn, with a few values) and cut at every offset reads to the end or
// stops with a clear error; ASan/UBSan catch anything worse.
TEST(ReaderFuzz, MutatedAndTruncatedFilesGiveEventsOrAClearError)
{
	auto cpus = testgen::two_processes(6);
	std::string good = testgen::binary(cpus[0]);
	std::string text = testgen::text(cpus);
	std::string path = tmp("fuzz.blktrace.0");
	std::string tpath = tmp("fuzz.txt");
	uint64_t x = 88172645463325252ull; // xorshift
	auto rnd = [&x] {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		return x;
	};
	int errors = 0, clean = 0;
	auto check = [&](const std::string &p, const std::string &bytes) {
		testgen::write_file(p, bytes);
		std::string err;
		read_all({p}, &err);
		if (err.empty()) {
			clean++;
		} else {
			errors++;
			EXPECT_EQ(err.rfind(p, 0), 0u) << err; // names the file
		}
	};
	for (size_t off = 0; off < good.size(); off += 3) {
		std::string b = good;
		b[off] = static_cast<char>(rnd());
		check(path, b);
		check(path, good.substr(0, off));
	}
	for (size_t off = 0; off < text.size(); off += 11) {
		std::string t = text;
		t[off] = static_cast<char>(rnd() % 96 + 32);
		check(tpath, t);
		check(tpath, text.substr(0, off));
	}
	EXPECT_GT(errors, 0);
	EXPECT_GT(clean, 0);
}

// Regenerates tests/data/trace/ when EFQ_WRITE_TRACE_FIXTURES is set.
TEST(Fixtures, Regenerate)
{
	if (!std::getenv("EFQ_WRITE_TRACE_FIXTURES"))
		GTEST_SKIP() << "set EFQ_WRITE_TRACE_FIXTURES=1 to rewrite tests/data/trace";
	std::string dir = std::string(EFQ_SOURCE_DIR) + "/tests/data/trace/";
	auto cpus = testgen::two_processes(64);
	testgen::write_file(dir + "two.blktrace.0", testgen::binary(cpus[0]));
	testgen::write_file(dir + "two.blktrace.1", testgen::binary(cpus[1]));
	testgen::write_file(dir + "two.blkparse", testgen::text(testgen::two_processes(64, false)));
}

} // namespace
} // namespace efqsim::trace
