// SPDX-License-Identifier: GPL-2.0
// The efqsim program end to end: the example's shares, flat vs
// hierarchical, determinism, and every kind of bad input.
#include <unistd.h>
#include <array>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "run_efqsim.h"
#include <nlohmann/json.hpp>
#include <sys/wait.h>

namespace {

using efqtest::efqsim;
using efqtest::Result;

std::string example(const char *name)
{
	return std::string(EFQ_SOURCE_DIR) + "/examples/" + name;
}

struct Shares {
	double disk_time = 0, device_busy = 0, bw = 0;
};

// Ratios of the first job's cgroup to the second's.
Shares ratios(const std::string &json_text)
{
	auto j = nlohmann::json::parse(json_text);
	Shares s;
	double bw[2] = {j["jobs"][0]["read"]["bw"].get<double>(),
			j["jobs"][1]["read"]["bw"].get<double>()};
	s.bw = bw[0] / bw[1];
	double dt[2] = {0, 0}, busy[2] = {0, 0};
	for (auto &g : j["efq"]["groups"]) {
		int i = g["path"] == "/efq-demo/a" ? 0 : g["path"] == "/efq-demo/b" ? 1 : -1;
		if (i < 0)
			continue;
		dt[i] = g["disk_time_ms"].get<double>();
		busy[i] = g["device_busy_ms"].get<double>();
	}
	s.disk_time = dt[1] > 0 ? dt[0] / dt[1] : 0;
	s.device_busy = busy[1] > 0 ? busy[0] / busy[1] : 0;
	return s;
}

// The acceptance: weights 1000 and 500, identical sequential
// readers, noop hierarchical on the hdd for 30 s: disk time 2.0 +/- 0.15,
// device busy 2.0 +/- 0.2, bandwidth 1.7..2.4 -- three measures that agree.
TEST(Efqsim, TwoGroupsExampleGetsDiskTimeDeviceTimeAndBandwidthByWeight)
{
	Result r = efqsim("--output-format=json " + example("two-groups.fio"));
	ASSERT_EQ(r.status, 0) << r.out;
	Shares s = ratios(r.out);
	EXPECT_NEAR(s.disk_time, 2.0, 0.15);
	EXPECT_NEAR(s.device_busy, 2.0, 0.2);
	EXPECT_GE(s.bw, 1.7);
	EXPECT_LE(s.bw, 2.4);
}

TEST(Efqsim, FlatModeGivesIdenticalJobsEqualBandwidth)
{
	Result r = efqsim("--hier off --output-format=json " + example("two-groups.fio"));
	ASSERT_EQ(r.status, 0) << r.out;
	Shares s = ratios(r.out);
	EXPECT_NEAR(s.bw, 1.0, 0.15);
	EXPECT_NEAR(s.device_busy, 1.0, 0.15);
	auto j = nlohmann::json::parse(r.out);
	EXPECT_EQ(j["efq"]["hierarchical"], false);
}

TEST(Efqsim, SameInputsAndSeedGiveByteIdenticalOutput)
{
	std::string args = "--seed 7 --output-format=json " + example("two-groups.fio");
	Result a = efqsim(args), b = efqsim(args);
	ASSERT_EQ(a.status, 0) << a.out;
	EXPECT_EQ(a.out, b.out);
	Result ta = efqsim("--seed 7 " + example("two-groups.fio")),
	       tb = efqsim("--seed 7 " + example("two-groups.fio"));
	EXPECT_EQ(ta.out, tb.out);
}

TEST(Efqsim, TunablesAreAppliedAndReported)
{
	Result r = efqsim("--set group_idle=0 --set slice_sync=50 --output-format=json " +
			  example("two-groups.fio"));
	ASSERT_EQ(r.status, 0) << r.out;
	auto j = nlohmann::json::parse(r.out);
	EXPECT_EQ(j["efq"]["tunables"]["group_idle"], "0");
	EXPECT_EQ(j["efq"]["tunables"]["slice_sync"], "50");
}

TEST(Efqsim, NrRequestsIsAppliedAndReported)
{
	// blk-mq's default: 2 x min(queue depth, 128); the hdd model queues 31
	Result d = efqsim(example("two-groups.fio"));
	ASSERT_EQ(d.status, 0) << d.out;
	EXPECT_NE(d.out.find(", nr_requests=62, "), std::string::npos) << d.out;
	// Two groups with 32 IOs in flight each on a depth-2 device: with
	// blk-mq's default of 4 scheduler tags (2 x the depth) the requests
	// wait for a tag, where the weights cannot act; with 64 (what
	// tests/vm/40-fairness.sh sets) they wait in the scheduler.  Measured
	// on the device's busy time per group, not the engine's accounting:
	// with 4 tags a group in service also idles for requests that wait
	// for a tag, and the engine charges it that time.
	std::string path = ::testing::TempDir() + std::to_string(getpid()) + "-deep.fio";
	std::ofstream(path) << "[global]\nioengine=libaio\ndirect=1\nrw=randread\nbs=4k\n"
			       "iodepth=32\nruntime=1\ntime_based\nsize=512m\n"
			       "[a]\ncgroup=a\ncgroup_weight=1000\n"
			       "[b]\ncgroup=b\ncgroup_weight=500\noffset=1g\n";
	std::string dev = "--device null:latency_us=1000,queue_depth=2 ";
	Result four = efqsim(dev + "--output-format json " + path);
	Result many = efqsim(dev + "--nr-requests 64 --output-format json " + path);
	ASSERT_EQ(four.status, 0) << four.out;
	ASSERT_EQ(many.status, 0) << many.out;
	auto efq = [](const Result &r) { return nlohmann::json::parse(r.out)["efq"]; };
	EXPECT_EQ(efq(four)["nr_requests"], 4);
	EXPECT_EQ(efq(many)["nr_requests"], 64);
	auto ratio = [&](const Result &r) {
		double a = 0, b = 0;
		nlohmann::json e = efq(r);
		for (const auto &g : e["groups"]) {
			if (g["path"] == "/a")
				a = g["device_busy_ms"];
			if (g["path"] == "/b")
				b = g["device_busy_ms"];
		}
		return b > 0 ? a / b : 0;
	};
	EXPECT_NEAR(ratio(four), 1.0, 0.1);
	EXPECT_GT(ratio(many), 1.3);
}

TEST(Efqsim, OutputFileReceivesTheReport)
{
	std::string path = ::testing::TempDir() + std::to_string(getpid()) + "-efqsim_out.json";
	Result r =
		efqsim("--output-format json --output " + path + " " + example("two-groups.fio"));
	ASSERT_EQ(r.status, 0) << r.out;
	EXPECT_EQ(r.out, "");
	std::ifstream f(path);
	std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
	EXPECT_NO_THROW(nlohmann::json::parse(text));
}

struct BadInput {
	const char *args;
	const char *message;
};

class EfqsimBadInput : public ::testing::TestWithParam<BadInput> {};

TEST_P(EfqsimBadInput, FailsWithExitStatus1AndAClearMessage)
{
	std::string args = GetParam().args;
	auto pos = args.find("@EX");
	if (pos != std::string::npos)
		args.replace(pos, 3, example("two-groups.fio"));
	Result r = efqsim(args);
	EXPECT_EQ(r.status, 1) << r.out;
	EXPECT_NE(r.out.find(GetParam().message), std::string::npos) << r.out;
}

INSTANTIATE_TEST_SUITE_P(
	Cli, EfqsimBadInput,
	::testing::Values(
		BadInput{"", "efqsim: no job file given"},
		BadInput{"--bogus @EX", "efqsim: unknown option --bogus"},
		BadInput{"--scheduler nosuch @EX", "unknown scheduler 'nosuch'"},
		BadInput{"--hier maybe @EX", "--hier takes on or off, not 'maybe'"},
		BadInput{"--set group_idle @EX", "--set takes NAME=VALUE"},
		BadInput{"--set nosuch=1 @EX", "scheduler noop has no tunable 'nosuch'"},
		BadInput{"--set slice_sync=abc @EX", "tunable slice_sync=abc: Invalid argument"},
		BadInput{"--seed -1 @EX", "--seed takes a non-negative integer"},
		BadInput{"--nr-requests 3 @EX", "--nr-requests takes an integer from 4 to 2048"},
		BadInput{"--nr-requests 2049 @EX", "--nr-requests takes an integer from 4 to 2048"},
		BadInput{"--nr-requests 64k @EX", "not '64k'"},
		BadInput{"--output-format xml @EX", "--output-format takes normal or json"},
		BadInput{"--device floppy @EX", "floppy"},
		BadInput{"/nonexistent.fio", "/nonexistent.fio"},
		BadInput{"--device", "option --device needs a value"}));

TEST(Efqsim, JobFileErrorsNameFileAndLine)
{
	std::string path = ::testing::TempDir() + std::to_string(getpid()) + "-bad.fio";
	std::ofstream(path) << "[global]\nrw=read\n\n[job]\nbs=4q\n";
	Result r = efqsim(path);
	EXPECT_EQ(r.status, 1);
	EXPECT_NE(r.out.find(path + ":5:"), std::string::npos) << r.out;
}

// The defaults and ranges come from the scheduler's own sysfs stores.
TEST(Efqsim, ListTunablesPrintsNameDefaultUnitAndRange)
{
	Result c = efqsim("--list-tunables --scheduler cfq");
	ASSERT_EQ(c.status, 0) << c.out;
	EXPECT_NE(c.out.find("name                    default  unit      range"), std::string::npos)
		<< c.out;
	EXPECT_NE(c.out.find("quantum                       4  requests  1..4294967295"),
		  std::string::npos)
		<< c.out;
	// idle windows stop at 1 s (EFQ_IDLE_MAX_MS: a longer one stalled the
	// VM's random writer's device for as long as it lasted)
	EXPECT_NE(c.out.find("slice_idle                    8  ms        0..1000"),
		  std::string::npos)
		<< c.out;
	EXPECT_NE(c.out.find("group_idle                    8  ms        0..1000"),
		  std::string::npos)
		<< c.out;
	Result n = efqsim("--list-tunables --scheduler noop");
	ASSERT_EQ(n.status, 0) << n.out;
	for (const char *name : {"slice_sync", "group_idle", "fairness", "hierarchical"})
		EXPECT_NE(n.out.find(name), std::string::npos) << name;
	EXPECT_EQ(n.out.find("quantum"), std::string::npos);
	Result a = efqsim("--list-tunables --scheduler anticipatory");
	EXPECT_NE(a.out.find("antic_expire                  6  ms        0..1000"),
		  std::string::npos)
		<< a.out;
}

TEST(Efqsim, HelpAndVersionSucceed)
{
	Result h = efqsim("--help");
	EXPECT_EQ(h.status, 0);
	EXPECT_NE(h.out.find("usage: efqsim"), std::string::npos);
	Result v = efqsim("--version");
	EXPECT_EQ(v.status, 0);
	EXPECT_EQ(v.out.rfind("efqsim ", 0), 0u);
}

// Linux 6.1's own mq-deadline (when built: EFQ_LINUX_SCHEDULERS) runs a
// job file like any scheduler: flat (it knows no cgroups, so --hier on is
// refused), with its own tunables, under its name or its alias "deadline",
// which a job file's ioscheduler= may name too.
TEST(Efqsim, RunsLinuxMqDeadlineFlat)
{
	Result l = efqsim("--list-tunables --scheduler mq-deadline");
	if (l.status != 0)
		GTEST_SKIP() << "efqsim was built without mq-deadline: " << l.out;
	for (const char *row :
	     {"read_expire                 500  ms", "write_expire               5000  ms",
	      "writes_starved                2  batches",
	      "front_merges                  1  bool      0..1",
	      "async_depth                  62  requests  1..2147483647",
	      "fifo_batch                   16  requests  0..2147483647",
	      "prio_aging_expire         10000  ms"})
		EXPECT_NE(l.out.find(row), std::string::npos) << row << "\n" << l.out;

	std::string job = ::testing::TempDir() + std::to_string(getpid()) + "-mq-deadline.fio";
	std::ofstream(job) << "[global]\nioscheduler=deadline\ndirect=1\nbs=16k\n"
			      "runtime=2\ntime_based=1\nsize=256m\n\n"
			      "[r]\nrw=randread\ncgroup=a\ncgroup_weight=1000\n"
			      "ioengine=libaio\niodepth=8\n\n"
			      "[w]\nrw=write\ncgroup=b\ncgroup_weight=100\n"
			      "ioengine=libaio\niodepth=8\noffset=1g\n";
	for (const char *name : {"mq-deadline", "deadline"}) {
		Result r =
			efqsim(std::string("--output-format json --set fifo_batch=8 --scheduler ") +
			       name + " " + job);
		ASSERT_EQ(r.status, 0) << r.out;
		auto j = nlohmann::json::parse(r.out);
		EXPECT_EQ(j["efq"]["scheduler"], name);
		EXPECT_EQ(j["efq"]["hierarchical"], false);
		EXPECT_EQ(j["efq"]["tunables"]["fifo_batch"], "8");
		ASSERT_EQ(j["jobs"].size(), 2u);
		EXPECT_GT(j["jobs"][0]["read"]["io_bytes"].get<double>(), 0);
		EXPECT_GT(j["jobs"][1]["write"]["io_bytes"].get<double>(), 0);
	}
	Result h = efqsim("--scheduler mq-deadline --hier on " + job);
	EXPECT_EQ(h.status, 1);
	EXPECT_NE(h.out.find("--hier on: mq-deadline knows no cgroups"), std::string::npos)
		<< h.out;
	Result off = efqsim("--scheduler mq-deadline --hier off " + job);
	EXPECT_EQ(off.status, 0) << off.out;
	Result other = efqsim("--scheduler noop " + job);
	EXPECT_EQ(other.status, 1);
	EXPECT_NE(other.out.find("ioscheduler='deadline': the simulated device runs 'noop'"),
		  std::string::npos)
		<< other.out;
	Result unknown = efqsim("--scheduler bfq " + job);
	EXPECT_EQ(unknown.status, 1);
	EXPECT_NE(unknown.out.find("unknown scheduler 'bfq' (cfq, deadline-fq, as, noop, "
				   "mq-deadline)"),
		  std::string::npos)
		<< unknown.out;
}

} // namespace

// A run that reaches the simulated-time limit (24 h): the report up to then
// (saying so in its efq section and in the JSON), the reason on stderr,
// exit status 2, and nothing left behind: efqsim is a sanitizer build here,
// so a leak would end it with LeakSanitizer's status and report, and a
// scheduler torn down with requests queued would WARN.  compare keeps the
// rows of runs that stopped and exits 2 as well.
TEST(Efqsim, TheSimulatedTimeLimitPrintsTheReportSoFarAndExits2)
{
	std::string job = ::testing::TempDir() + std::to_string(getpid()) + "-limit.fio";
	std::ofstream(job) << "[slow]\nrw=randread\nbs=4k\ndirect=1\nioengine=libaio\niodepth=16\n"
			      "size=100g\ncgroup=a\nwrite_lat_log=" +
				      ::testing::TempDir() + std::to_string(getpid()) + "-limit\n"
			   << "log_avg_msec=3600000\n";
	const std::string device = "--device null:latency_us=10000000,queue_depth=4 ";
	Result r = efqsim(device + "--scheduler cfq " + job);
	EXPECT_EQ(r.status, 2) << r.out;
	const std::string why = "the simulated-time limit (24 h) was reached before the jobs "
				"finished: the report covers the first 24 h";
	EXPECT_NE(r.out.find("efqsim: " + why + "\n"), std::string::npos) << r.out;
	EXPECT_NE(r.out.find("  stopped: " + why + "\n"), std::string::npos) << r.out;
	EXPECT_NE(r.out.find("slow: (groupid=0, jobs=1)"), std::string::npos) << r.out;
	// 4 IOs per 10 s for 24 h
	EXPECT_NE(r.out.find("(135MiB/86400000msec)"), std::string::npos) << r.out;
	EXPECT_NE(r.out.find("duration=86400000.000msec"), std::string::npos) << r.out;
	EXPECT_EQ(r.out.find("WARNING"), std::string::npos) << r.out;
	EXPECT_EQ(r.out.find("Sanitizer"), std::string::npos) << r.out;
	// the latency log up to the limit: one line per hour
	std::ifstream log(::testing::TempDir() + std::to_string(getpid()) + "-limit_lat.1.log");
	int lines = 0;
	for (std::string line; std::getline(log, line);)
		lines++;
	EXPECT_EQ(lines, 24);

	std::string out = ::testing::TempDir() + std::to_string(getpid()) + "-limit.json";
	r = efqsim(device + "--output-format json --output " + out + " " + job);
	EXPECT_EQ(r.status, 2) << r.out;
	EXPECT_EQ(r.out, "efqsim: " + why + "\n");
	std::ifstream f(out);
	auto j = nlohmann::json::parse(
		std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()));
	EXPECT_EQ(j["efq"]["stopped"], why);
	EXPECT_EQ(j["jobs"][0]["read"]["io_bytes"].get<uint64_t>(), 8640u * 4 * 4096);

	// (one request at a time: 9 runs of 24 h)
	r = efqsim("compare --device null:latency_us=10000000,queue_depth=1 " + job);
	EXPECT_EQ(r.status, 2) << r.out;
	EXPECT_NE(r.out.find("before the jobs finished in cfq hierarchical, cfq flat, "),
		  std::string::npos)
		<< r.out;
	EXPECT_EQ(r.out.find("Sanitizer"), std::string::npos) << r.out;
	EXPECT_NE(r.out.find("noop"), std::string::npos) << r.out;

	// a normal run says nothing of the kind
	r = efqsim("--output-format json " + example("two-groups.fio"));
	ASSERT_EQ(r.status, 0) << r.out;
	EXPECT_EQ(r.out.find("stopped"), std::string::npos);
}
