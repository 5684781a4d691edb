// SPDX-License-Identifier: GPL-2.0
// Jobs as fio users type them: on the command line (--name= starts a job,
// options before the first --name are global, --opt=value and --opt value),
// a job file on standard input ("-"), and --max-runtime / --max-size to try
// a long job file in seconds; every bad flag exits 1 with a clear message.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "run_efqsim.h"
#include <nlohmann/json.hpp>

namespace {

using efqtest::efqsim;
using efqtest::Result;

std::string write_tmp(const std::string &name, const std::string &text)
{
	std::string path = ::testing::TempDir() + std::to_string(getpid()) + "-cmdline-" + name;
	std::ofstream(path) << text;
	return path;
}

// Two direct sequential readers in cgroups of weights 1000 and 500, as a
// job file and as the same jobs on the command line.
const char *kTwoReadersFile = "[global]\n"
			      "direct=1\n"
			      "size=32m\n"
			      "runtime=2\n"
			      "time_based\n"
			      "[a]\n"
			      "rw=read\n"
			      "cgroup=a\n"
			      "cgroup_weight=1000\n"
			      "[b]\n"
			      "rw=read\n"
			      "cgroup=b\n"
			      "cgroup_weight=500\n";
const char *kTwoReadersArgs = "--direct=1 --size 32m --runtime=2 --time_based "
			      "--name=a --rw=read --cgroup a --cgroup_weight=1000 "
			      "--name b --rw=read --cgroup=b --cgroup_weight 500";

TEST(CommandLineJobs, RunAsTheSameJobFileWould)
{
	std::string file = write_tmp("two.fio", kTwoReadersFile);
	Result f = efqsim("--output-format json " + file);
	Result c = efqsim(std::string("--output-format json ") + kTwoReadersArgs);
	ASSERT_EQ(f.status, 0) << f.out;
	ASSERT_EQ(c.status, 0) << c.out;
	// The same jobs, options, groups and figures, byte for byte.
	EXPECT_EQ(c.out, f.out);
	auto j = nlohmann::json::parse(c.out);
	ASSERT_EQ(j["jobs"].size(), 2u);
	EXPECT_EQ(j["jobs"][0]["jobname"], "a");
	EXPECT_EQ(j["jobs"][1]["jobname"], "b");
	EXPECT_EQ(j["jobs"][1]["job options"]["cgroup_weight"], "500");
	// The options before the first --name are [global]'s.
	EXPECT_EQ(j["global options"]["size"], "32m");
	double bw[2] = {j["jobs"][0]["read"]["bw"].get<double>(),
			j["jobs"][1]["read"]["bw"].get<double>()};
	EXPECT_GT(bw[0] / bw[1], 1.6);
	EXPECT_LT(bw[0] / bw[1], 2.4);
	std::filesystem::remove(file);
}

TEST(CommandLineJobs, AFlagDoesNotTakeTheNextWordAndOtherOptionsDo)
{
	// --time_based is one of fio's flags: "--runtime" after it is an option
	// of its own; --rw takes "randread" as its value.
	Result r = efqsim("--output-format json --device ssd --name=x --time_based --runtime 1 "
			  "--rw randread --bs=8k --size=16m --ioengine libaio --iodepth 4 "
			  "--direct=1");
	ASSERT_EQ(r.status, 0) << r.out;
	auto j = nlohmann::json::parse(r.out);
	auto &opts = j["jobs"][0]["job options"];
	EXPECT_EQ(opts["rw"], "randread");
	EXPECT_EQ(opts["runtime"], "1");
	EXPECT_EQ(opts["iodepth"], "4");
	EXPECT_GT(j["jobs"][0]["read"]["io_bytes"].get<uint64_t>(), 0u);
	EXPECT_EQ(j["jobs"][0]["read"]["io_bytes"].get<uint64_t>() % 8192, 0u);
	EXPECT_NEAR(j["jobs"][0]["read"]["runtime"].get<double>(), 1000, 5);
}

TEST(CommandLineJobs, CompareTakesThemToo)
{
	Result r = efqsim("compare --output-format json --device ssd --direct=1 --size=4m "
			  "--name=a --cgroup=a --cgroup_weight=1000 --name=b --cgroup=b "
			  "--cgroup_weight=500");
	ASSERT_EQ(r.status, 0) << r.out;
	auto j = nlohmann::json::parse(r.out);
	EXPECT_EQ(j["jobfiles"], nlohmann::json::array({"<command line>"}));
	EXPECT_GE(j["runs"].size(), 8u);
}

TEST(StdinJobFile, DashReadsTheJobFileFromStandardInput)
{
	std::string file = write_tmp("stdin.fio", kTwoReadersFile);
	Result f = efqsim("--output-format json " + file);
	Result s = efqsim("--output-format json - < " + file);
	ASSERT_EQ(s.status, 0) << s.out;
	EXPECT_EQ(s.out, f.out);
	// Errors name it <stdin>, with the line.
	std::string bad = write_tmp("bad-stdin.fio", "[a]\nrw=read\nrwmixread=101\n");
	Result e = efqsim("- < " + bad);
	EXPECT_EQ(e.status, 1);
	EXPECT_EQ(e.out.rfind("efqsim: <stdin>:3: rwmixread:", 0), 0u) << e.out;
	Result twice = efqsim("- - < " + file);
	EXPECT_EQ(twice.status, 1);
	EXPECT_EQ(twice.out, "efqsim: '-' (the job file on standard input) is given twice\n");
	std::filesystem::remove(file);
	std::filesystem::remove(bad);
}

// A runtime=900 job file tried in a second: --max-runtime caps every job's
// runtime (and gives one to the size-bound), --max-size its bytes.
TEST(Caps, MaxRuntimeAndMaxSizeShortenALongJobFile)
{
	std::string file = write_tmp("long.fio", "[global]\n"
						 "direct=1\n"
						 "[timed]\n"
						 "rw=randread\n"
						 "size=1g\n"
						 "runtime=900\n"
						 "time_based\n"
						 "[sized]\n"
						 "rw=read\n"
						 "size=2g\n"
						 "[short]\n"
						 "rw=read\n"
						 "size=64k\n");
	Result r = efqsim("--output-format json --max-runtime 1500ms " + file);
	ASSERT_EQ(r.status, 0) << r.out;
	auto j = nlohmann::json::parse(r.out);
	EXPECT_LT(j["efq"]["duration_ms"].get<double>(), 1600);
	EXPECT_NEAR(j["jobs"][0]["read"]["runtime"].get<double>(), 1500, 20);
	EXPECT_NEAR(j["jobs"][1]["read"]["runtime"].get<double>(), 1500, 50);
	EXPECT_LT(j["jobs"][1]["read"]["io_bytes"].get<uint64_t>(), uint64_t{2} << 30);
	// A job shorter than the cap is left alone.
	EXPECT_EQ(j["jobs"][2]["read"]["io_bytes"].get<uint64_t>(), 65536u);

	Result s = efqsim("--output-format json --max-size 1m --max-runtime 5 " + file);
	ASSERT_EQ(s.status, 0) << s.out;
	auto k = nlohmann::json::parse(s.out);
	EXPECT_EQ(k["jobs"][1]["read"]["io_bytes"].get<uint64_t>(), 1048576u);
	EXPECT_EQ(k["jobs"][2]["read"]["io_bytes"].get<uint64_t>(), 65536u);
	// time_based runs for its (capped) runtime, whatever the size cap
	EXPECT_NEAR(k["jobs"][0]["read"]["runtime"].get<double>(), 5000, 20);

	Result c = efqsim("compare --output-format json --device ssd --max-runtime 200ms " + file);
	ASSERT_EQ(c.status, 0) << c.out;
	auto runs = nlohmann::json::parse(c.out)["runs"];
	for (auto &run : runs)
		EXPECT_LT(run["duration_ms"].get<double>(), 300) << run["scheduler"];
	std::filesystem::remove(file);
}

struct BadFlag {
	const char *args;
	const char *message; // the whole of stderr
};

class CommandLineBadInput : public ::testing::TestWithParam<BadFlag> {};

TEST_P(CommandLineBadInput, ExitsOneWithAClearMessage)
{
	Result r = efqsim(GetParam().args);
	EXPECT_EQ(r.status, 1) << r.out;
	EXPECT_EQ(r.out, std::string("efqsim: ") + GetParam().message + "\n");
}

INSTANTIATE_TEST_SUITE_P(
	Cli, CommandLineBadInput,
	::testing::Values(
		BadFlag{"--rw=randread --bs=4k",
			"--rw=randread: job options on the command line need --name=JOB to start "
			"a job (as in fio); a job file's options are changed in the file (or "
			"capped with --max-runtime and --max-size)"},
		BadFlag{"--name=a --rw=bogus", "--rw=bogus: rw: 'bogus' is not an IO pattern "
					       "(read, write, randread, randwrite, rw, "
					       "readwrite, randrw, trim, randtrim, trimwrite, "
					       "randtrimwrite)"},
		BadFlag{"--name=a --rwmixread 101",
			"--rwmixread 101: rwmixread: '101' is out of range (0..100)"},
		BadFlag{"--name=a --atomic=1",
			"--atomic=1: fio option 'atomic' is not supported by efqsim: atomic "
			"writes are not simulated"},
		BadFlag{"--name", "--name: --name needs a value (--name=JOB)"},
		BadFlag{"--name=a[1]", "--name=a[1]: a job name cannot hold '[' or ']'"},
		BadFlag{"--name=a --filename='x#y'",
			"--filename=x#y: a value on the command line cannot hold ';', '#' or a "
			"line break (they start a comment in a job file; put the job in a job "
			"file)"},
		BadFlag{"--name=a --rw=read x.fio",
			"jobs on the command line (--name=a) and job files (x.fio) at once: give "
			"the jobs one way or the other"},
		BadFlag{"--name=a --cgroup_weight=500",
			"--cgroup_weight=500: cgroup_weight needs cgroup= (the root cgroup has "
			"no weight)"},
		BadFlag{"--name=a --bogus=1", "unknown option --bogus=1 (see --help)"},
		BadFlag{"--max-runtime 0 x.fio",
			"--max-runtime takes a time above 0 (10, 10s, 500ms, 2m), not '0'"},
		BadFlag{"--max-runtime soon x.fio",
			"--max-runtime takes a time above 0 (10, 10s, 500ms, 2m), not 'soon': "
			"'soon' is not a number"},
		BadFlag{"--max-size -1 x.fio",
			"--max-size takes a size above 0 (64m, 1g), not '-1': '-1' is negative"},
		BadFlag{"--max-size=4q x.fio",
			"--max-size takes a size above 0 (64m, 1g), not '4q': '4q': bad size "
			"suffix 'q' (use k, m, g, t, p, optionally with b, i or ib)"},
		BadFlag{"replay --max-runtime 1 t",
			"replay does not take --max-runtime (see efqsim replay --help)"},
		BadFlag{"replay --rw=read t",
			"replay takes no job options (--rw): its workload is the trace (see "
			"efqsim replay --help)"}));

TEST(CommandLineJobs, HelpShowsThemAndTheCaps)
{
	Result r = efqsim("--help");
	ASSERT_EQ(r.status, 0);
	EXPECT_NE(r.out.find("--name=JOB --OPTION=VALUE"), std::string::npos);
	EXPECT_NE(r.out.find("--max-runtime TIME"), std::string::npos);
	EXPECT_NE(r.out.find("--max-size SIZE"), std::string::npos);
	EXPECT_NE(r.out.find("JOBFILE - reads the job file from standard input"),
		  std::string::npos);
}

} // namespace
