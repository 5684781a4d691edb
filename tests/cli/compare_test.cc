// SPDX-License-Identifier: GPL-2.0
// `efqsim compare`: every efq scheduler flat and hierarchical, and Linux's
// mq-deadline flat, in one table (and as JSON), with sane figures for the
// two-groups example, and its bad input.
#include <unistd.h>
#include <array>
#include <cstdio>
#include <fstream>
#include <vector>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "run_efqsim.h"
#include <nlohmann/json.hpp>
#include <sys/wait.h>

namespace {

using efqtest::efqsim;
using efqtest::Result;

// examples/two-groups.fio with a shorter runtime (@seconds), so that eight
// runs stay quick in the sanitized build.
std::string two_groups(int seconds)
{
	std::ifstream in(std::string(EFQ_SOURCE_DIR) + "/examples/two-groups.fio");
	std::stringstream text;
	text << in.rdbuf();
	std::string s = text.str();
	size_t at = s.find("runtime=30");
	if (at != std::string::npos)
		s.replace(at, 10, "runtime=" + std::to_string(seconds));
	std::string path = ::testing::TempDir() + std::to_string(getpid()) +
			   "-compare-two-groups-" + std::to_string(seconds) + ".fio";
	std::ofstream(path) << s;
	return path;
}

const char *kSchedulers[] = {"cfq", "deadline-fq", "as", "noop"};

// Was efqsim built with Linux's mq-deadline (EFQ_LINUX_SCHEDULERS)?
bool have_mq_deadline()
{
	return efqsim("--scheduler mq-deadline --list-tunables").status == 0;
}

// examples/two-groups.fio as it is (weights 1000 and 500, 30 s): 2:1 when
// hierarchical, about 1:1 flat, whatever the scheduler.  efq's four
// schedulers run hierarchical then flat; mq-deadline, which knows no
// cgroups, runs once, flat, last.
TEST(Compare, JsonHasARunPerSchedulerAndModeWithWeightedSharesWhenHierarchical)
{
	Result r = efqsim("compare --output-format json " + std::string(EFQ_SOURCE_DIR) +
			  "/examples/two-groups.fio");
	ASSERT_EQ(r.status, 0) << r.out;
	auto j = nlohmann::json::parse(r.out);
	EXPECT_EQ(j["device"], "hdd");
	const size_t runs = have_mq_deadline() ? 9 : 8;
	ASSERT_EQ(j["runs"].size(), runs);
	for (size_t i = 0; i < runs; i++) {
		const auto &run = j["runs"][i];
		EXPECT_EQ(run["scheduler"], i < 8 ? kSchedulers[i / 2] : "mq-deadline");
		EXPECT_EQ(run["hierarchical"], i < 8 && i % 2 == 0);
		ASSERT_EQ(run["groups"].size(), 2u);
		const auto &a = run["groups"][0], &b = run["groups"][1];
		EXPECT_EQ(a["path"], "/efq-demo/a");
		EXPECT_EQ(b["path"], "/efq-demo/b");
		EXPECT_EQ(a["weight"], 1000);
		EXPECT_EQ(b["weight"], 500);
		double sa = a["share_pct"], sb = b["share_pct"];
		EXPECT_NEAR(sa + sb, 100.0, 0.01);
		std::string what =
			std::string(run["scheduler"]) + (run["hierarchical"] ? " hier" : " flat");
		if (run["hierarchical"])
			EXPECT_NEAR(sa / sb, 2.0, 0.25) << what;
		else
			EXPECT_NEAR(sa / sb, 1.0, 0.15) << what;
		double total = run["total_mbps"];
		EXPECT_NEAR(double(a["bw_mbps"]) + double(b["bw_mbps"]), total, total * 0.01);
		EXPECT_GT(total, 5.0) << what; // flat noop: 7.6 (seeks between the files)
		for (const auto *g : {&a, &b}) {
			EXPECT_GT((*g)["ios"], 0u);
			EXPECT_GT((*g)["clat_p99_ms"], 0.0);
			EXPECT_GE((*g)["clat_max_ms"], (*g)["clat_p99_ms"]);
		}
	}
}

TEST(Compare, TableHasOneLinePerRunAndGroupAndNotesSkippedTunables)
{
	// slice_idle is cfq's and as has antic_expire: the others run without
	Result r = efqsim("compare --set slice_idle=4 " + two_groups(2));
	ASSERT_EQ(r.status, 0) << r.out;
	EXPECT_NE(r.out.find("scheduler   mode  group       weight  share%        bw       p99"
			     "       max     total"),
		  std::string::npos)
		<< r.out;
	// a first line: scheduler mode group weight share bw p99 max total;
	// the next: group weight share bw p99 max
	int rows = 0, firsts = 0;
	std::istringstream lines(r.out);
	for (std::string l; std::getline(lines, l);) {
		std::istringstream words(l);
		std::vector<std::string> w;
		for (std::string x; words >> x;)
			w.push_back(x);
		if (w.size() != 9 && w.size() != 6)
			continue;
		size_t g = w.size() == 9 ? 2 : 0;
		if (w[g].rfind("/efq-demo/", 0) != 0)
			continue;
		rows++;
		if (w.size() == 9) {
			firsts++;
			EXPECT_TRUE(w[0] == "cfq" || w[0] == "deadline-fq" || w[0] == "as" ||
				    w[0] == "noop" || w[0] == "mq-deadline")
				<< l;
			if (w[0] == "mq-deadline") {
				EXPECT_EQ(w[1], "flat") << l;
			}
			EXPECT_TRUE(w[1] == "hier" || w[1] == "flat") << l;
			EXPECT_GT(std::stod(w[8]), 0.0) << l;
		}
		EXPECT_TRUE(w[g + 1] == "1000" || w[g + 1] == "500") << l;
		for (size_t i = g + 2; i < g + 6; i++)
			EXPECT_GE(std::stod(w[i]), 0.0) << l;
	}
	const bool mqd = have_mq_deadline();
	EXPECT_EQ(rows, mqd ? 18 : 16) << r.out;
	EXPECT_EQ(firsts, mqd ? 9 : 8) << r.out;
	EXPECT_NE(r.out.find("note: deadline-fq has no slice_idle; run without it"),
		  std::string::npos)
		<< r.out;
	EXPECT_NE(r.out.find("note: noop has no slice_idle"), std::string::npos) << r.out;
	EXPECT_EQ(r.out.find("note: cfq"), std::string::npos) << r.out;
	if (mqd) {
		EXPECT_NE(r.out.find("note: mq-deadline has no slice_idle"), std::string::npos)
			<< r.out;
	}
}

// A tunable of mq-deadline's own (async_depth) is applied to it alone; one
// it shares with deadline-fq (fifo_batch) to both.
TEST(Compare, MqDeadlineTakesItsOwnTunables)
{
	if (!have_mq_deadline())
		GTEST_SKIP() << "efqsim was built without mq-deadline";
	Result r = efqsim("compare --output-format json --set async_depth=8 --set fifo_batch=4 " +
			  two_groups(1));
	ASSERT_EQ(r.status, 0) << r.out;
	auto j = nlohmann::json::parse(r.out);
	ASSERT_EQ(j["runs"].size(), 9u);
	const auto &mqd = j["runs"][8];
	EXPECT_EQ(mqd["scheduler"], "mq-deadline");
	EXPECT_EQ(mqd["tunables"]["async_depth"], "8");
	EXPECT_EQ(mqd["tunables"]["fifo_batch"], "4");
	EXPECT_EQ(mqd["skipped_tunables"].size(), 0u);
	const auto &dfq = j["runs"][2];
	EXPECT_EQ(dfq["scheduler"], "deadline-fq");
	EXPECT_EQ(dfq["tunables"]["fifo_batch"], "4");
	EXPECT_EQ(dfq["skipped_tunables"], nlohmann::json::array({"async_depth"}));
}

struct BadInput {
	const char *args;
	const char *message;
};

class CompareBadInput : public ::testing::TestWithParam<BadInput> {};

TEST_P(CompareBadInput, FailsWithExitStatus1AndAClearMessage)
{
	std::string args = GetParam().args;
	auto pos = args.find("@EX");
	if (pos != std::string::npos)
		args.replace(pos, 3, two_groups(1));
	Result r = efqsim(args);
	EXPECT_EQ(r.status, 1) << r.out;
	EXPECT_NE(r.out.find(GetParam().message), std::string::npos) << r.out;
}

INSTANTIATE_TEST_SUITE_P(
	Cli, CompareBadInput,
	::testing::Values(
		BadInput{"compare", "efqsim: no job file given"},
		BadInput{"compare --bogus @EX",
			 "efqsim: unknown option --bogus (see efqsim compare --help)"},
		BadInput{"compare --scheduler cfq @EX", "compare does not take --scheduler"},
		BadInput{"compare --hier=off @EX", "compare does not take --hier"},
		BadInput{"compare --set nosuch=1 @EX", "no scheduler has a tunable 'nosuch'"},
		BadInput{"compare --set hierarchical=0 @EX", "--set hierarchical: compare runs"},
		BadInput{"compare --set slice_idle=abc @EX",
			 "tunable slice_idle=abc: Invalid argument"},
		BadInput{"compare --device floppy @EX", "floppy"},
		BadInput{"compare /nonexistent.fio", "/nonexistent.fio"}));

TEST(Compare, JobFileErrorsNameFileAndLine)
{
	std::string path = ::testing::TempDir() + std::to_string(getpid()) + "-compare-bad.fio";
	std::ofstream(path) << "[global]\nrw=read\n\n[job]\nbs=4q\n";
	Result r = efqsim("compare " + path);
	EXPECT_EQ(r.status, 1);
	EXPECT_NE(r.out.find(path + ":5:"), std::string::npos) << r.out;
}

TEST(Compare, HelpMentionsCompare)
{
	Result h = efqsim("--help");
	EXPECT_EQ(h.status, 0);
	EXPECT_NE(h.out.find("efqsim compare"), std::string::npos);
	Result c = efqsim("compare --help");
	EXPECT_EQ(c.status, 0);
	EXPECT_NE(c.out.find("usage: efqsim compare"), std::string::npos);
}

} // namespace
