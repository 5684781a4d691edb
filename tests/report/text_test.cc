// SPDX-License-Identifier: GPL-2.0
// fio's normal output and the efq section.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "report/text.h"

#include "fixtures.h"

namespace efqsim::report {
namespace {

using test::two_groups;
using ::testing::HasSubstr;
using ::testing::Not;

std::string text(const RunResult &r)
{
	std::ostringstream s;
	print_text(r, s);
	return s.str();
}

std::vector<std::string> lines(const std::string &s)
{
	std::vector<std::string> v;
	std::istringstream in(s);
	for (std::string l; std::getline(in, l);)
		v.push_back(l);
	return v;
}

// The line that starts with @prefix, or "" (and a failure).
std::string line_starting(const std::string &s, const std::string &prefix)
{
	for (const std::string &l : lines(s))
		if (l.rfind(prefix, 0) == 0)
			return l;
	ADD_FAILURE() << "no line starts with \"" << prefix << "\" in:\n" << s;
	return "";
}

TEST(ReportText, JobBlocksHaveFiosHeaderIoAndLatencyLines)
{
	std::string t = text(two_groups());
	EXPECT_EQ(lines(t)[0], "efqsim-0.1");
	EXPECT_EQ(lines(t)[1], "Starting 3 processes");
	EXPECT_THAT(t, HasSubstr("\na: (groupid=0, jobs=1): err= 0: pid=101\n"
				 "  read: IOPS=250, BW=1000KiB/s (1024kB/s)(29.3MiB/30000msec)\n"
				 "    clat (msec): min=2, max=6, avg= 4.48, stdev="));
	EXPECT_THAT(line_starting(t, "     lat (msec): min=2,"),
		    HasSubstr("     lat (msec): min=2, max=6, avg= 4.49, stdev="));
	EXPECT_THAT(t, HasSubstr("\nb: (groupid=0, jobs=1): err= 0: pid=102\n"
				 "  read: IOPS=125, BW=500KiB/s (512kB/s)(14.6MiB/30000msec)\n"));
	// usec when the fastest IO took more than 1 us; writes say "zone resets".
	EXPECT_THAT(t, HasSubstr("\nw: (groupid=1, jobs=1): err= 0: pid=103\n"
				 "  write: IOPS=100, BW=6400KiB/s (6554kB/s)(62.5MiB/10000msec); "
				 "0 zone resets\n"
				 "    clat (usec): min=300, max=1290, avg=795.00, stdev="));
	EXPECT_THAT(line_starting(t, "     lat (usec)"),
		    HasSubstr("     lat (usec): min=310, max=1300, avg=805.00, stdev="));
	// Latency lines, then the percentiles.
	auto all = lines(t);
	for (size_t i = 0; i < all.size(); i++)
		if (all[i].rfind("    clat (", 0) == 0) {
			ASSERT_LT(i + 2, all.size());
			EXPECT_EQ(all[i + 1].rfind("     lat (", 0), 0u) << all[i + 1];
			EXPECT_EQ(all[i + 2].rfind("    clat percentiles (", 0), 0u) << all[i + 2];
		}
	// A direction without IO prints nothing.
	std::string a_block = t.substr(t.find("\na: "), t.find("\nb: ") - t.find("\na: "));
	EXPECT_THAT(a_block, Not(HasSubstr("write:")));
}

TEST(ReportText, StdevHasTwoDecimalsInTheLinesUnit)
{
	std::string t = text(two_groups());
	EXPECT_THAT(t, HasSubstr("    clat (msec): min=2, max=6, avg= 4.48, stdev= 1.15\n"
				 "     lat (msec): min=2, max=6, avg= 4.49, stdev= 1.15\n"));
	EXPECT_THAT(t, HasSubstr("    clat (usec): min=300, max=1290, avg=795.00, stdev=288.81\n"
				 "     lat (usec): min=310, max=1300, avg=805.00, stdev=288.81\n"));
}

TEST(ReportText, PercentileBlockListsFiosSeventeenPercentilesFourALine)
{
	std::string t = text(two_groups());
	auto all = lines(t);
	size_t at = 0;
	while (at < all.size() && all[at] != "    clat percentiles (msec):")
		at++;
	ASSERT_LT(at + 5, all.size());
	const char *labels[] = {" 1.00th=[", " 5.00th=[", "10.00th=[", "20.00th=[", "30.00th=[",
				"40.00th=[", "50.00th=[", "60.00th=[", "70.00th=[", "80.00th=[",
				"90.00th=[", "95.00th=[", "99.00th=[", "99.50th=[", "99.90th=[",
				"99.95th=[", "99.99th=["};
	std::string block;
	for (size_t i = 1; i <= 5; i++) {
		const std::string &l = all[at + i];
		EXPECT_EQ(l.rfind("     | ", 0), 0u) << l;
		EXPECT_EQ(l.back(), i < 5 ? ',' : ']') << l;
		block += l;
	}
	size_t pos = 0;
	std::vector<long> values;
	for (const char *label : labels) {
		size_t p = block.find(label, pos);
		ASSERT_NE(p, std::string::npos) << label;
		pos = p + std::string(label).size();
		values.push_back(std::strtol(block.c_str() + pos, nullptr, 10));
	}
	// clat of job a runs from 2.5 to 6.46 ms: msec values, in order.
	for (size_t i = 1; i < values.size(); i++)
		EXPECT_LE(values[i - 1], values[i]);
	EXPECT_GE(values.front(), 2);
	EXPECT_LE(values.back(), 7);
	// Four entries on each of the first four lines, the last alone.
	EXPECT_EQ(all[at + 5].find("99.99th"), 7u);
}

TEST(ReportText, RunStatusLinesAggregateEachReportingGroup)
{
	std::string t = text(two_groups());
	EXPECT_THAT(t,
		    HasSubstr("\nRun status group 0 (all jobs):\n"
			      "   READ: bw=1500KiB/s (1536kB/s), 500KiB/s-1000KiB/s "
			      "(512kB/s-1024kB/s), io=43.9MiB (46.1MB), run=30000-30000msec\n"
			      "\nRun status group 1 (all jobs):\n"
			      "  WRITE: bw=6400KiB/s (6554kB/s), 6400KiB/s-6400KiB/s "
			      "(6554kB/s-6554kB/s), io=62.5MiB (65.5MB), run=10000-10000msec\n"));
}

TEST(ReportText, GroupReportingPrintsOneBlockPerGroupNamedAfterItsFirstJob)
{
	RunResult r = two_groups();
	r.group_reporting = true;
	std::string t = text(r);
	EXPECT_THAT(t, HasSubstr("\na: (groupid=0, jobs=2): err= 0: pid=101\n"
				 "  read: IOPS=375, BW=1500KiB/s (1536kB/s)(43.9MiB/30000msec)\n"
				 "    clat (msec): min=2, max=11,"));
	EXPECT_THAT(t, Not(HasSubstr("\nb: (")));
	EXPECT_THAT(t, HasSubstr("\nw: (groupid=1, jobs=1)"));
	// The group summaries do not depend on group_reporting.
	EXPECT_EQ(t.substr(t.find("\nRun status")),
		  text(two_groups()).substr(text(two_groups()).find("\nRun status")));
}

TEST(ReportText, EfqSectionShowsDeviceSchedulerTunablesAndGroupTable)
{
	std::string t = text(two_groups());
	EXPECT_EQ(line_starting(t, "efq:"),
		  "efq: device=hdd, scheduler=noop, hierarchical=1, nr_requests=62, "
		  "seed=42, duration=30000.000msec");
	// Tunables by name.
	EXPECT_EQ(line_starting(t, "  tunables:"),
		  "  tunables: fairness=1, quantum=4, slice_sync=100");
	std::string head = line_starting(t, "  path");
	size_t prev = 0;
	for (const char *col :
	     {"path", "weight", "class", "disk_time(ms)", "share(%)", "disk_sectors",
	      "device_busy(ms)", "share(%)", "queued", "dequeued"}) {
		size_t p = head.find(col, prev);
		ASSERT_NE(p, std::string::npos) << col;
		prev = p + 1;
	}
}

struct Row {
	std::string path, cls;
	double weight, time, time_share, sectors, busy, busy_share, queued, dequeued;
};

std::vector<Row> table(const std::string &t)
{
	std::vector<Row> rows;
	bool in = false;
	for (const std::string &l : lines(t)) {
		if (l.rfind("  path", 0) == 0) {
			in = true;
			continue;
		}
		if (!in || l.rfind("  /", 0) != 0)
			continue;
		std::istringstream s(l);
		Row r;
		s >> r.path >> r.weight >> r.cls >> r.time >> r.time_share >> r.sectors >> r.busy >>
			r.busy_share >> r.queued >> r.dequeued;
		EXPECT_FALSE(s.fail()) << l;
		rows.push_back(r);
	}
	return rows;
}

TEST(ReportText, GroupTableSharesOfTheRootsChildrenSumTo100Percent)
{
	std::string t = text(two_groups());
	auto rows = table(t);
	ASSERT_EQ(rows.size(), 3u);
	EXPECT_EQ(rows[0].path, "/");
	EXPECT_EQ(rows[1].path, "/a");
	EXPECT_EQ(rows[2].path, "/b");
	EXPECT_EQ(rows[0].time_share, 100);
	EXPECT_EQ(rows[0].busy_share, 100);
	EXPECT_NEAR(rows[1].time_share + rows[2].time_share, 100, 0.011);
	EXPECT_NEAR(rows[1].busy_share + rows[2].busy_share, 100, 0.011);
	EXPECT_NEAR(rows[1].time_share, 66.66, 0.005);
	EXPECT_NEAR(rows[2].busy_share, 33.36, 0.005);
	EXPECT_EQ(rows[1].weight, 1000);
	EXPECT_EQ(rows[2].weight, 500);
	EXPECT_EQ(rows[1].cls, "be");
	EXPECT_EQ(rows[1].time, 19990);
	EXPECT_EQ(rows[1].sectors, 240000);
	EXPECT_EQ(rows[1].busy, 19960);
	EXPECT_EQ(rows[1].queued, 5);
	EXPECT_EQ(rows[1].dequeued, 4);
	EXPECT_THAT(t, HasSubstr("\n  /a      1000  be         19990.000     66.66        240000"));

	// Flat: everything in the root group, one row at 100%.
	RunResult flat = two_groups();
	flat.hierarchical = false;
	flat.groups = {{"/", 1000, 2, 29990.0, 300000, 10, 9, 29950.0}};
	rows = table(text(flat));
	ASSERT_EQ(rows.size(), 1u);
	EXPECT_EQ(rows[0].time_share, 100);
}

TEST(ReportText, SameInputSameBytes)
{
	RunResult r = two_groups();
	std::string once = text(r);
	EXPECT_EQ(text(r), once);
	EXPECT_EQ(text(two_groups()), once);
	// The group table's order comes from the paths, not the input order.
	std::swap(r.groups[0], r.groups[2]);
	EXPECT_EQ(text(r), once);
}

TEST(ReportText, EmptyRunStillPrintsTheEfqSection)
{
	RunResult r;
	r.efqsim_version = "0.1";
	r.device = "null";
	r.scheduler = "noop";
	std::string t = text(r);
	EXPECT_THAT(t, HasSubstr("Starting 0 processes\n"));
	EXPECT_THAT(t, HasSubstr("  tunables: (none)\n"));
	EXPECT_THAT(t, HasSubstr("  path  weight  class"));
}

} // namespace
} // namespace efqsim::report
