// SPDX-License-Identifier: GPL-2.0
// The fio job-file parser: value forms, every option, [global] inheritance,
// numjobs, reporting groups, the device layout and every error path.

#include <unistd.h>
#include <gtest/gtest.h>

#include "job_helpers.h"
#include "workload/jobfile.h"

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace efqsim::workload {
namespace {

constexpr uint64_t KiB = 1024, MiB = 1024 * KiB, GiB = 1024 * MiB;
constexpr int64_t US = 1000, MS = 1000 * US, SEC = 1000 * MS;

ParseContext ctx(uint64_t capacity = 100 * GiB)
{
	ParseContext c;
	c.capacity_bytes = capacity;
	c.scheduler_names = {"as", "anticipatory"};
	c.seed = 7;
	return c;
}

std::vector<JobSpec> parse(const std::string &text, std::string *err = nullptr,
			   const ParseContext &c = ctx())
{
	return testing::parse_text(c, text, err);
}

JobSpec one(const std::string &options)
{
	auto jobs = parse("[j]\nsize=1m\n" + options + "\n");
	EXPECT_EQ(jobs.size(), 1u) << options;
	return jobs.empty() ? JobSpec{} : jobs[0];
}

// --- value forms -------------------------------------------------------------

TEST(JobfileValues, SizeSuffixesFollowFioKbBase1024)
{
	const std::vector<std::pair<std::string, uint64_t>> cases = {
		{"4096", 4096},	    {"4096b", 4096},
		{"4096B", 4096},    {"4k", 4 * KiB},
		{"4K", 4 * KiB},    {"4kb", 4 * KiB},
		{"4KB", 4 * KiB},   {"4ki", 4 * KiB},
		{"4KiB", 4000},	    {"4kib", 4000},
		{"1m", MiB},	    {"1M", MiB},
		{"1MiB", 1000000},  {"1g", GiB},
		{"2t", 2048 * GiB}, {"1p", 1024 * 1024 * GiB},
		{"0x1000", 4096},   {"0X10k", 16 * KiB},
		{"0", 0},
	};
	for (const auto &[text, want] : cases) {
		std::string err;
		auto v = parse_size(text, 1024, &err);
		ASSERT_TRUE(v) << text << ": " << err;
		EXPECT_EQ(*v, want) << text;
	}
}

TEST(JobfileValues, SizeSuffixesWithKbBase1000)
{
	std::string err;
	EXPECT_EQ(*parse_size("4k", 1000, &err), 4000u);
	EXPECT_EQ(*parse_size("4kb", 1000, &err), 4000u);
	EXPECT_EQ(*parse_size("4KiB", 1000, &err), 4096u);
	EXPECT_EQ(*parse_size("1mib", 1000, &err), MiB);
	EXPECT_EQ(*parse_size("1g", 1000, &err), 1000000000u);
}

TEST(JobfileValues, MalformedSizesAreErrors)
{
	for (const std::string text : {"", "k", "4x", "4kk", "4 k", "1.5k", "-1", "4kbi",
				       "99999999999999999999", "16385p", "0x", "4z"}) {
		std::string err;
		EXPECT_FALSE(parse_size(text, 1024, &err)) << text;
		EXPECT_FALSE(err.empty()) << text;
	}
}

TEST(JobfileValues, TimeSuffixesAndDefaultUnit)
{
	const std::vector<std::pair<std::string, int64_t>> cases = {
		{"10", 10 * SEC},  {"10s", 10 * SEC},	{"10sec", 10 * SEC},
		{"10S", 10 * SEC}, {"250ms", 250 * MS}, {"250msec", 250 * MS},
		{"7us", 7 * US},   {"7usec", 7 * US},	{"2m", 120 * SEC},
		{"2M", 120 * SEC}, {"1h", 3600 * SEC},	{"1d", 86400 * SEC},
		{"0", 0},
	};
	for (const auto &[text, want] : cases) {
		std::string err;
		auto v = parse_time(text, SEC, &err);
		ASSERT_TRUE(v) << text << ": " << err;
		EXPECT_EQ(*v, want) << text;
	}
	std::string err;
	EXPECT_EQ(*parse_time("100", US, &err), 100 * US); // thinktime's default unit
}

TEST(JobfileValues, MalformedTimesAreErrors)
{
	for (const std::string text :
	     {"", "s", "1x", "1.5", "-1", "1 s", "0x10", "1ns", "1mss", "999999999999999999d"}) {
		std::string err;
		EXPECT_FALSE(parse_time(text, SEC, &err)) << text;
		EXPECT_FALSE(err.empty()) << text;
	}
}

// --- syntax --------------------------------------------------------------------

TEST(JobfileSyntax, CommentsBlankLinesWhitespaceAndCrlf)
{
	const std::string text = "; a comment\n"
				 "# another\n"
				 "\n"
				 "[global]   ; trailing comment\r\n"
				 "   bs   =   8k   \r\n"
				 "size=1m # trailing\n"
				 "\t\n"
				 "[ my job ]\n"
				 "rw=randread;x\n"
				 "direct\n";
	auto jobs = parse(text);
	ASSERT_EQ(jobs.size(), 1u);
	EXPECT_EQ(jobs[0].name, "my job");
	EXPECT_EQ(jobs[0].bs_read, 8 * KiB);
	EXPECT_EQ(jobs[0].region_bytes, MiB);
	EXPECT_EQ(jobs[0].rw, RwMode::RandRead);
	EXPECT_TRUE(jobs[0].direct);
	EXPECT_EQ(jobs[0].where, "t.fio:8");
}

TEST(JobfileSyntax, BareBooleansAndZeroOne)
{
	EXPECT_TRUE(one("direct").direct);
	EXPECT_TRUE(one("direct=1").direct);
	EXPECT_FALSE(one("direct=0").direct);
	EXPECT_TRUE(one("buffered=0").direct);
	EXPECT_FALSE(one("direct\nbuffered").direct);
	EXPECT_TRUE(one("time_based\nruntime=1").time_based);
	EXPECT_FALSE(one("time_based=0").time_based);
}

TEST(JobfileSyntax, LaterValueOfAnOptionWins)
{
	EXPECT_EQ(one("bs=8k\nbs=16k").bs_read, 16 * KiB);
	EXPECT_EQ(one("rw=read\nreadwrite=randwrite").rw, RwMode::RandWrite);
}

// --- every option ----------------------------------------------------------------

TEST(JobfileOptions, NameOverridesTheSectionName)
{
	EXPECT_EQ(one("").name, "j");
	EXPECT_EQ(one("name=reader").name, "reader");
	EXPECT_EQ(one("description=what it does").name, "j");
}

TEST(JobfileOptions, RwModes)
{
	EXPECT_EQ(one("").rw, RwMode::Read); // fio's default
	EXPECT_EQ(one("rw=read").rw, RwMode::Read);
	EXPECT_EQ(one("rw=write").rw, RwMode::Write);
	EXPECT_EQ(one("rw=randread").rw, RwMode::RandRead);
	EXPECT_EQ(one("rw=randwrite").rw, RwMode::RandWrite);
	EXPECT_EQ(one("rw=rw").rw, RwMode::ReadWrite);
	EXPECT_EQ(one("rw=readwrite").rw, RwMode::ReadWrite);
	EXPECT_EQ(one("rw=randrw").rw, RwMode::RandRW);
	EXPECT_EQ(one("readwrite=randrw").rw, RwMode::RandRW);
	EXPECT_TRUE(one("rw=randrw").random());
	EXPECT_FALSE(one("rw=rw").random());
	EXPECT_TRUE(one("rw=rw").mixed());
}

TEST(JobfileOptions, RwmixreadAndRwmixwriteLaterWins)
{
	EXPECT_EQ(one("rw=randrw").rwmixread, 50u);
	EXPECT_EQ(one("rw=randrw\nrwmixread=70").rwmixread, 70u);
	EXPECT_EQ(one("rw=randrw\nrwmixwrite=30").rwmixread, 70u);
	EXPECT_EQ(one("rw=randrw\nrwmixread=80\nrwmixwrite=30").rwmixread, 70u);
	EXPECT_EQ(one("rw=randrw\nrwmixwrite=30\nrwmixread=80").rwmixread, 80u);
	EXPECT_EQ(one("rw=randrw\nrwmixread=0").rwmixread, 0u);
	EXPECT_EQ(one("rw=randrw\nrwmixread=100").rwmixread, 100u);
}

TEST(JobfileOptions, BlockSizesReadWriteForms)
{
	auto bs = [](const std::string &v) {
		JobSpec j = one(v);
		return std::make_pair(j.bs_read, j.bs_write);
	};
	EXPECT_EQ(bs(""), std::make_pair(4096u, 4096u));
	EXPECT_EQ(bs("bs=64k"), std::make_pair(65536u, 65536u));
	EXPECT_EQ(bs("blocksize=8k"), std::make_pair(8192u, 8192u));
	EXPECT_EQ(bs("bs=4k,64k"), std::make_pair(4096u, 65536u));
	EXPECT_EQ(bs("bs=8k,32k,"), std::make_pair(8192u, 32768u));
	EXPECT_EQ(bs("bs=,8k"), std::make_pair(4096u, 8192u));
	EXPECT_EQ(bs("bs=,8k,"), std::make_pair(4096u, 8192u));
	EXPECT_EQ(bs("bs=8k,,"), std::make_pair(8192u, 4096u));
	EXPECT_EQ(bs("bs=512"), std::make_pair(512u, 512u));
	EXPECT_EQ(bs("bs=16k,16k,4k"), std::make_pair(16384u, 16384u));
}

TEST(JobfileOptions, SizeIoSizeOffsetAndPercentages)
{
	JobSpec j = one("size=64m");
	EXPECT_EQ(j.region_bytes, 64 * MiB);
	EXPECT_EQ(j.io_bytes, 64 * MiB);
	j = one("size=64m\nio_size=1g");
	EXPECT_EQ(j.region_bytes, 64 * MiB);
	EXPECT_EQ(j.io_bytes, GiB);
	EXPECT_EQ(one("size=64m\nio_limit=8m").io_bytes, 8 * MiB);

	// Percentages are of the simulated device.
	auto jobs = parse("[j]\nfilename=/dev/sdb\nsize=10%\noffset=50%\n");
	ASSERT_EQ(jobs.size(), 1u);
	EXPECT_EQ(jobs[0].region_bytes, 10 * GiB);
	EXPECT_EQ(jobs[0].region_start, 50 * GiB);
	EXPECT_EQ(jobs[0].file_start, 0u);
	EXPECT_EQ(jobs[0].file_bytes, 100 * GiB);

	// A percentage offset is aligned down to the smallest block size.
	jobs = parse("[j]\nfilename=/dev/sdb\nbs=1m\nsize=1m\noffset=33%\n", nullptr,
		     ctx(1000 * MiB + 4096));
	ASSERT_EQ(jobs.size(), 1u);
	EXPECT_EQ(jobs[0].region_start % MiB, 0u);

	// A /dev/ target without size: the device from offset to its end.
	jobs = parse("[j]\nfilename=/dev/sdb\noffset=1g\n");
	ASSERT_EQ(jobs.size(), 1u);
	EXPECT_EQ(jobs[0].region_start, GiB);
	EXPECT_EQ(jobs[0].region_bytes, 99 * GiB);

	// A regular file: offset and size make its extent.
	jobs = parse("[j]\nfilename=data\nsize=1m\noffset=3m\n");
	ASSERT_EQ(jobs.size(), 1u);
	EXPECT_EQ(jobs[0].file_bytes, 4 * MiB);
	EXPECT_EQ(jobs[0].region_start, jobs[0].file_start + 3 * MiB);
}

TEST(JobfileOptions, OffsetIncrementSpreadsClones)
{
	auto jobs = parse("[j]\nfilename=/dev/sdb\nsize=1g\nnumjobs=3\noffset=1g\n"
			  "offset_increment=10g\n");
	ASSERT_EQ(jobs.size(), 3u);
	for (int i = 0; i < 3; i++)
		EXPECT_EQ(jobs[i].region_start, GiB + i * 10 * GiB);
}

TEST(JobfileOptions, TimesAndTheirDefaultUnits)
{
	JobSpec j = one("runtime=30\ntime_based\nramp_time=2\nstartdelay=500ms\nthinktime=250");
	EXPECT_EQ(j.runtime_ns, 30 * SEC);
	EXPECT_TRUE(j.time_based);
	EXPECT_EQ(j.ramp_ns, 2 * SEC);
	EXPECT_EQ(j.startdelay_ns, 500 * MS);
	EXPECT_EQ(j.thinktime_ns, 250 * US); // thinktime is in microseconds
	EXPECT_EQ(one("thinktime=2ms\nthinktime_blocks=4").thinktime_ns, 2 * MS);
	EXPECT_EQ(one("thinktime=2ms\nthinktime_blocks=4").thinktime_blocks, 4u);
	EXPECT_EQ(one("runtime=1m").runtime_ns, 60 * SEC);
	EXPECT_EQ(one("timeout=10s").runtime_ns, 10 * SEC);
}

TEST(JobfileOptions, EnginesAndDepth)
{
	JobSpec j = one("");
	EXPECT_EQ(j.ioengine, IoEngine::Psync); // fio's default
	EXPECT_EQ(j.effective_depth(), 1u);
	j = one("ioengine=sync\niodepth=32");
	EXPECT_EQ(j.iodepth, 32u);
	EXPECT_EQ(j.effective_depth(), 1u);
	EXPECT_EQ(one("ioengine=psync\niodepth=8").effective_depth(), 1u);
	EXPECT_EQ(one("ioengine=libaio\niodepth=8\ndirect=1").effective_depth(), 8u);
	EXPECT_EQ(one("ioengine=libaio\niodepth=8\ndirect=0").effective_depth(), 1u);
	EXPECT_EQ(one("ioengine=io_uring\niodepth=16").effective_depth(), 16u);
	EXPECT_EQ(one("ioengine=posixaio\niodepth=4").effective_depth(), 4u);
}

TEST(JobfileOptions, PriorityAsFioSetsIt)
{
	JobSpec j = one("");
	EXPECT_EQ(j.ioprio_class, 0); // not set: from nice
	j = one("prio=3");
	EXPECT_EQ(j.ioprio_class, 2); // no class means best effort
	EXPECT_EQ(j.ioprio, 3);
	j = one("prioclass=1");
	EXPECT_EQ(j.ioprio_class, 1);
	EXPECT_EQ(j.ioprio, 0); // no level means 0
	j = one("prioclass=3\nprio=7");
	EXPECT_EQ(j.ioprio_class, 3);
	EXPECT_EQ(j.ioprio, 7);
	EXPECT_EQ(one("prioclass=0\nprio=1").ioprio_class, 2);
}

TEST(JobfileOptions, CgroupAndWeight)
{
	JobSpec j = one("cgroup=grp1\ncgroup_weight=1000");
	EXPECT_EQ(j.cgroup, "grp1");
	EXPECT_EQ(j.cgroup_weight, 1000u);
	EXPECT_EQ(one("cgroup=/a/b/").cgroup, "a/b");
	EXPECT_EQ(one("cgroup=a/b\ncgroup_weight=100").cgroup_weight, 100u);
	EXPECT_EQ(one("").cgroup, "");
}

TEST(JobfileOptions, IoschedulerMustNameTheSimulatedScheduler)
{
	EXPECT_EQ(one("ioscheduler=as").name, "j");
	EXPECT_EQ(one("ioscheduler=anticipatory").name, "j");
	std::string err;
	parse("[j]\nsize=1m\nioscheduler=cfq\n", &err);
	EXPECT_EQ(err, "t.fio:3: ioscheduler: ioscheduler='cfq': the simulated device runs 'as' "
		       "(choose it with efqsim --scheduler)");
}

TEST(JobfileOptions, FsyncInvalidateRandomAndLogs)
{
	JobSpec j = one("rw=write\nfsync=32\nend_fsync=1\ninvalidate=0");
	EXPECT_EQ(j.fsync_blocks, 32u);
	EXPECT_TRUE(j.end_fsync);
	EXPECT_FALSE(j.invalidate);
	EXPECT_TRUE(one("").invalidate);
	EXPECT_TRUE(one("norandommap").norandommap);
	EXPECT_EQ(one("randrepeat=1").name, "j");
	EXPECT_NE(one("randseed=5").seed, one("randseed=6").seed);
	EXPECT_EQ(one("randseed=5").seed, one("randseed=5").seed);
	EXPECT_EQ(one("thread").name, "j");
	EXPECT_EQ(one("kb_base=1000\nbs=4KiB").bs_read, 4096u);
	EXPECT_EQ(one("kb_base=1000\nsize=2m").region_bytes, 2000000u);

	j = one("write_bw_log\nwrite_lat_log=lat\nwrite_iops_log=io\nlog_avg_msec=500");
	EXPECT_EQ(j.bw_log, "j");
	EXPECT_EQ(j.lat_log, "lat");
	EXPECT_EQ(j.iops_log, "io");
	EXPECT_EQ(j.log_avg_msec, 500u);
	EXPECT_FALSE(j.log_offset);
	EXPECT_TRUE(j.per_job_logs);
	EXPECT_EQ(one("").bw_log, "");
	j = one("write_bw_log=x\nlog_offset=1\nper_job_logs=0");
	EXPECT_TRUE(j.log_offset);
	EXPECT_FALSE(j.per_job_logs);
}

TEST(JobfileOptions, OptionsAsWrittenForTheReport)
{
	// As fio's JSON shows them: the section's own options, first position
	// and last value, bare flags left out; [global] separately, merged over
	// the last file's [global] sections.
	std::string err;
	JobFileInfo info;
	auto jobs = parse_jobs({JobSource{"a.fio", "[global]\nsize=1m\n[a]\n"},
				JobSource{"b.fio", "[global]\nsize=2m\nbs=8k\n[b]\nbs = 16k\n"
						   "direct\nreadwrite=randread\nbs=32k\n"
						   "[global]\nsize=4m\ngroup_reporting\n[c]\n"}},
			       ctx(), &err, &info);
	ASSERT_EQ(err, "");
	ASSERT_EQ(jobs.size(), 3u);
	EXPECT_TRUE(jobs[0].options.empty());
	using KV = std::vector<std::pair<std::string, std::string>>;
	EXPECT_EQ(jobs[1].options, (KV{{"bs", "32k"}, {"readwrite", "randread"}}));
	EXPECT_EQ(info.global_options, (KV{{"size", "4m"}, {"bs", "8k"}}));
	EXPECT_TRUE(info.group_reporting);
	EXPECT_EQ(jobs[2].region_bytes, 4 * MiB);
	EXPECT_EQ(jobs[1].region_bytes, 2 * MiB);
}

TEST(JobfileOptions, ReportingOptions)
{
	auto jobs = parse("[global]\nsize=1m\ngroup_reporting\n[a]\n[b]\nwait_for_previous\n");
	ASSERT_EQ(jobs.size(), 2u);
	EXPECT_TRUE(jobs[0].group_reporting);
	EXPECT_TRUE(jobs[1].stonewall);
	EXPECT_EQ(jobs[1].groupid, 1);
}

// --- [global], numjobs, groups ------------------------------------------------------

TEST(JobfileGlobal, InheritedOverriddenAndChangedByALaterGlobal)
{
	auto jobs = parse("[global]\nbs=8k\nsize=1m\nrw=randread\n"
			  "[a]\n"
			  "[b]\nbs=16k\n"
			  "[global]\nrw=write\n"
			  "[c]\n");
	ASSERT_EQ(jobs.size(), 3u);
	EXPECT_EQ(jobs[0].bs_read, 8 * KiB);
	EXPECT_EQ(jobs[0].rw, RwMode::RandRead);
	EXPECT_EQ(jobs[1].bs_read, 16 * KiB);
	EXPECT_EQ(jobs[1].rw, RwMode::RandRead);
	EXPECT_EQ(jobs[2].bs_read, 8 * KiB); // the first [global] still applies
	EXPECT_EQ(jobs[2].rw, RwMode::Write);
}

TEST(JobfileGlobal, EachFileHasItsOwnGlobalAndStartsWithAStonewall)
{
	std::string err;
	auto jobs = parse_jobs({JobSource{"a.fio", "[global]\nbs=8k\nsize=1m\n[a1]\n[a2]\n"},
				JobSource{"b.fio", "[b1]\nsize=1m\n[b2]\nsize=1m\n"}},
			       ctx(), &err);
	ASSERT_EQ(err, "");
	ASSERT_EQ(jobs.size(), 4u);
	EXPECT_EQ(jobs[2].bs_read, 4 * KiB);
	EXPECT_FALSE(jobs[1].stonewall);
	EXPECT_TRUE(jobs[2].stonewall);
	EXPECT_FALSE(jobs[3].stonewall);
	EXPECT_EQ(jobs[1].groupid, 0);
	EXPECT_EQ(jobs[2].groupid, 1);
	EXPECT_EQ(jobs[3].groupid, 1);
	EXPECT_EQ(jobs[2].where, "b.fio:1");
}

TEST(JobfileGlobal, NumjobsClonesAreNumberedWithTheJobsName)
{
	auto jobs = parse("[global]\nsize=1m\n[w]\nnumjobs=3\n[r]\n");
	ASSERT_EQ(jobs.size(), 4u);
	for (int i = 0; i < 3; i++) {
		EXPECT_EQ(jobs[i].name, "w");
		EXPECT_EQ(jobs[i].clone, i);
		EXPECT_EQ(jobs[i].numjobs, 3);
		EXPECT_EQ(jobs[i].job_number, i);
	}
	EXPECT_EQ(jobs[3].name, "r");
	EXPECT_EQ(jobs[3].clone, 0);
	EXPECT_EQ(jobs[3].job_number, 3);
	// Generated file names ("w.0.0", "w.1.0", ...): one file per clone.
	EXPECT_EQ(jobs[0].file, "w.0.0");
	EXPECT_EQ(jobs[1].file, "w.1.0");
	EXPECT_NE(jobs[0].region_start, jobs[1].region_start);
	// Every clone has its own random stream.
	EXPECT_NE(jobs[0].seed, jobs[1].seed);
}

TEST(JobfileGlobal, ReportingGroupsNumberedAsFioDoes)
{
	// Checked against fio 3.33: a=0, b=1 (new_group), c=1, d=2 (stonewall),
	// e (2 clones) = 2, f = 2.
	auto jobs = parse("[global]\nsize=1m\n[a]\n[b]\nnew_group\n[c]\n[d]\nstonewall\n"
			  "[e]\nnumjobs=2\n[f]\n");
	ASSERT_EQ(jobs.size(), 7u);
	const int want[] = {0, 1, 1, 2, 2, 2, 2};
	for (size_t i = 0; i < jobs.size(); i++)
		EXPECT_EQ(jobs[i].groupid, want[i]) << jobs[i].name;
	EXPECT_TRUE(jobs[3].stonewall);
	// A stonewall job's clones run together: only the first waits.
	jobs = parse("[a]\nsize=1m\n[b]\nsize=1m\nstonewall\nnumjobs=2\n");
	ASSERT_EQ(jobs.size(), 3u);
	EXPECT_TRUE(jobs[1].stonewall);
	EXPECT_FALSE(jobs[2].stonewall);
	EXPECT_EQ(jobs[2].groupid, 1);
	// new_group and stonewall on the first job do not open an empty group.
	jobs = parse("[a]\nsize=1m\nstonewall\nnew_group\n[b]\nsize=1m\n");
	EXPECT_EQ(jobs[0].groupid, 0);
	EXPECT_FALSE(jobs[0].stonewall);
}

// --- layout ---------------------------------------------------------------------------

TEST(JobfileLayout, DifferentNamesAreDisjointTheSameNameIsShared)
{
	auto jobs = parse("[global]\nsize=10m\n"
			  "[a]\nfilename=one\n"
			  "[b]\nfilename=two\n"
			  "[c]\nfilename=one\n"
			  "[d]\ndirectory=/mnt\nfilename=one\n"
			  "[e]\ndirectory=/mnt\n");
	ASSERT_EQ(jobs.size(), 5u);
	EXPECT_EQ(jobs[0].file, "one");
	EXPECT_EQ(jobs[2].region_start, jobs[0].region_start);
	EXPECT_EQ(jobs[3].file, "/mnt/one");
	EXPECT_EQ(jobs[4].file, "/mnt/e.0.0");
	std::vector<std::pair<uint64_t, uint64_t>> ext;
	for (int i : {0, 1, 3, 4})
		ext.emplace_back(jobs[i].file_start, jobs[i].file_start + jobs[i].file_bytes);
	for (size_t i = 0; i < ext.size(); i++) {
		EXPECT_EQ(ext[i].first % MiB, 0u);
		EXPECT_LE(ext[i].second, 100 * GiB);
		for (size_t k = i + 1; k < ext.size(); k++)
			EXPECT_TRUE(ext[i].second <= ext[k].first || ext[k].second <= ext[i].first);
	}
}

TEST(JobfileLayout, ASharedFileIsAsLargeAsItsLargestUse)
{
	auto jobs = parse("[a]\nfilename=f\nsize=1m\n[b]\nfilename=f\nsize=8m\n[c]\nfilename=f\n"
			  "[d]\nfilename=g\nsize=1m\n");
	ASSERT_EQ(jobs.size(), 4u);
	EXPECT_EQ(jobs[0].file_bytes, 8 * MiB);
	EXPECT_EQ(jobs[0].region_bytes, MiB);
	EXPECT_EQ(jobs[2].region_bytes, 8 * MiB); // no size: the whole file
	EXPECT_GE(jobs[3].file_start, jobs[0].file_start + 8 * MiB);
}

TEST(JobfileLayout, EscapedColonsAreOneName)
{
	auto jobs = parse("[a]\nfilename=x\\:y\nsize=1m\n");
	ASSERT_EQ(jobs.size(), 1u);
	EXPECT_EQ(jobs[0].file, "x:y");
}

TEST(JobfileLayout, SeedsDependOnTheRunSeed)
{
	ParseContext c1 = ctx(), c2 = ctx();
	c2.seed = 8;
	std::string err;
	auto a = parse_jobs({JobSource{"t", "[a]\nsize=1m\n"}}, c1, &err);
	auto b = parse_jobs({JobSource{"t", "[a]\nsize=1m\n"}}, c2, &err);
	ASSERT_EQ(a.size(), 1u);
	ASSERT_EQ(b.size(), 1u);
	EXPECT_NE(a[0].seed, b[0].seed);
}

TEST(JobfileLayout, ReadsFilesFromDisk)
{
	const std::string path =
		::testing::TempDir() + std::to_string(getpid()) + "-efqsim-jobfile-test.fio";
	{
		std::ofstream f(path);
		f << "[disk]\nsize=2m\n";
	}
	std::string err;
	auto jobs = parse_jobfiles({path}, ctx(), &err);
	std::remove(path.c_str());
	ASSERT_EQ(err, "");
	ASSERT_EQ(jobs.size(), 1u);
	EXPECT_EQ(jobs[0].where, path + ":1");
	jobs = parse_jobfiles({"/nonexistent/x.fio"}, ctx(), &err);
	EXPECT_TRUE(jobs.empty());
	EXPECT_EQ(err, "/nonexistent/x.fio: cannot read the job file: No such file or directory");
}

// --- errors: every one names file:line ---------------------------------------------------

struct ErrorCase {
	const char *rule;
	const char *text;
	const char *want; // the whole message
};

TEST(JobfileErrors, EveryErrorNamesFileAndLine)
{
	const ErrorCase cases[] = {
		{"option outside a section", "size=1m\n[a]\n",
		 "t.fio:1: option 'size=1m' outside a section (start a job with [name] or defaults "
		 "with [global])"},
		{"missing section: no jobs", "[global]\nsize=1m\n", "t.fio: no jobs defined"},
		{"empty file", "; nothing\n", "t.fio: no jobs defined"},
		{"malformed section header", "[a\nsize=1m\n",
		 "t.fio:1: malformed section header '[a' (expected [name])"},
		{"empty section name", "[ ]\n", "t.fio:1: malformed section header '[ ]'"},
		{"unknown option", "[a]\nsize=1m\nfrobnicate=1\n",
		 "t.fio:3: unknown option 'frobnicate'"},
		{"option names are case-sensitive", "[a]\nSIZE=1m\n",
		 "t.fio:2: unknown option 'SIZE'"},
		{"unsupported fio option", "[a]\nsize=1m\natomic=1\n",
		 "t.fio:3: fio option 'atomic' is not supported by efqsim: atomic writes are not "
		 "simulated"},
		{"unsupported fio option: alias", "[a]\nsize=1m\n\nproto=tcp\n",
		 "t.fio:4: fio option 'proto' is not supported by efqsim: an option of a network "
		 "or "
		 "non-block engine, which efqsim refuses"},
		{"bad number", "[a]\nsize=1m\niodepth=lots\n",
		 "t.fio:3: iodepth: 'lots' is not a whole number"},
		{"bad size suffix", "[a]\nsize=4x\n",
		 "t.fio:2: size: '4x': bad size suffix 'x' (use k, m, g, t, p, optionally with b, "
		 "i "
		 "or ib)"},
		{"bad time suffix", "[a]\nsize=1m\nruntime=10y\n",
		 "t.fio:3: runtime: '10y': bad time suffix 'y' (use us, ms, s, m, h or d)"},
		{"unsupported ioengine", "[a]\nsize=1m\nioengine=net\n",
		 "t.fio:3: ioengine: ioengine=net is not supported by efqsim: network IO, no block "
		 "device"},
		{"rwmixread > 100", "[a]\nsize=1m\nrwmixread=101\n",
		 "t.fio:3: rwmixread: '101' is out of range (0..100)"},
		{"rwmixwrite > 100", "[a]\nsize=1m\nrwmixwrite=200\n",
		 "t.fio:3: rwmixwrite: '200' is out of range (0..100)"},
		{"bad rw", "[a]\nsize=1m\nrw=sideways\n",
		 "t.fio:3: rw: 'sideways' is not an IO pattern (read, write, randread, randwrite, "
		 "rw, readwrite, randrw, trim, randtrim, trimwrite, randtrimwrite)"},
		{"rw offset modifier", "[a]\nsize=1m\nrw=randread:0\n",
		 "t.fio:3: rw: 'randread:0': '0' is out of range (1..1048576)"},
		{"rw offset step", "[a]\nsize=1m\nrw=read:100\n",
		 "t.fio:3: rw: 'read:100': the offset step must be a multiple of 512"},
		{"bool out of range", "[a]\nsize=1m\ndirect=2\n",
		 "t.fio:3: direct: '2' is not a boolean (use 0 or 1)"},
		{"bool words", "[a]\nsize=1m\ndirect=true\n",
		 "t.fio:3: direct: 'true' is not a boolean (use 0 or 1)"},
		{"iodepth 0", "[a]\nsize=1m\niodepth=0\n",
		 "t.fio:3: iodepth: '0' is out of range (1..65536)"},
		{"numjobs 0", "[a]\nsize=1m\nnumjobs=0\n",
		 "t.fio:3: numjobs: '0' is out of range (1..4096)"},
		{"prio 8", "[a]\nsize=1m\nprio=8\n", "t.fio:3: prio: '8' is out of range (0..7)"},
		{"prioclass 4", "[a]\nsize=1m\nprioclass=4\n",
		 "t.fio:3: prioclass: '4' is out of range (0..3)"},
		{"cgroup_weight 50", "[a]\nsize=1m\ncgroup=g\ncgroup_weight=50\n",
		 "t.fio:4: cgroup_weight: '50' is out of range (100..1000)"},
		{"cgroup_weight 2000", "[a]\nsize=1m\ncgroup=g\ncgroup_weight=2000\n",
		 "t.fio:4: cgroup_weight: '2000' is out of range (100..1000)"},
		{"cgroup_weight without cgroup", "[a]\nsize=1m\ncgroup_weight=500\n",
		 "t.fio:3: cgroup_weight needs cgroup= (the root cgroup has no weight)"},
		{"one cgroup, two weights",
		 "[a]\nsize=1m\ncgroup=g\ncgroup_weight=500\n[b]\nsize=1m\n"
		 "cgroup=g\ncgroup_weight=600\n",
		 "t.fio:8: cgroup 'g' already has weight 500 (set at t.fio:4)"},
		{"bad cgroup path", "[a]\nsize=1m\ncgroup=a/../b\n",
		 "t.fio:3: cgroup: 'a/../b' is not a cgroup path (no empty, '.' or '..' parts)"},
		{"bs not sector-aligned", "[a]\nsize=1m\nbs=1000\n",
		 "t.fio:3: bs: '1000': a block size must be a multiple of 512 (sectors)"},
		{"bs 0", "[a]\nsize=1m\nbs=0\n",
		 "t.fio:3: bs: '0': a block size must be at least 512"},
		{"bs range", "[a]\nsize=1m\nbs=4k-16k\n",
		 "t.fio:3: bs: '4k-16k': block size ranges are not bs= values (use bsrange=)"},
		{"bs too many", "[a]\nsize=1m\nbs=4k,4k,4k,4k\n",
		 "t.fio:3: bs: '4k,4k,4k,4k': at most three values (read,write,trim)"},
		{"bs bigger than the region", "[a]\nsize=4k\nbs=8k\n",
		 "t.fio:2: the job's region (4096 bytes) is smaller than its block size (8192)"},
		{"io_size smaller than a block", "[a]\nsize=1m\nio_size=1k\n",
		 "t.fio:3: io_size (1024 bytes) is smaller than the job's block size (4096)"},
		{"size percentage over 100", "[a]\nfilename=/dev/x\nsize=101%\n",
		 "t.fio:3: size: '101%' is out of range (1% .. 100%)"},
		{"size percentage 0", "[a]\nfilename=/dev/x\nsize=0%\n",
		 "t.fio:3: size: '0%' is out of range (1% .. 100%)"},
		{"size percentage malformed", "[a]\nfilename=/dev/x\nsize=x%\n",
		 "t.fio:3: size: 'x%' is not a percentage (use 1% .. 100%)"},
		{"offset not aligned", "[a]\nsize=1m\noffset=100\n",
		 "t.fio:3: offset: '100': offsets must be multiples of 512"},
		{"offset beyond the device", "[a]\nfilename=/dev/x\noffset=200g\n",
		 "t.fio:3: offset 214748364800 is beyond the end of '/dev/x' (107374182400 bytes)"},
		{"offset+size beyond the device", "[a]\nfilename=/dev/x\noffset=90g\nsize=20g\n",
		 "t.fio:4: offset + size (118111600640) is beyond the end of '/dev/x' "
		 "(107374182400 "
		 "bytes)"},
		{"files exceed the device", "[a]\nsize=60g\n[b]\nsize=60g\n",
		 "t.fio:4: file 'b.0.0' needs 64424509440 bytes at device offset 64424509440 but "
		 "the "
		 "device has 107374182400 bytes"},
		{"a file without size", "[a]\nfilename=data\n",
		 "t.fio:1: file 'data' has no size: set size= (or use a /dev/ filename for the "
		 "whole "
		 "device)"},
		{"two devices", "[a]\nfilename=/dev/sda\n[b]\nfilename=/dev/sdb\n",
		 "t.fio:3: '/dev/sdb' and '/dev/sda' are both devices; efqsim simulates one "
		 "device"},
		{"filename list", "[a]\nsize=1m\nfilename=a::b\n",
		 "t.fio:3: filename: 'a::b': an empty file name"},
		{"directory list", "[a]\nsize=1m\ndirectory=/a:/b\n",
		 "t.fio:3: directory: '/a:/b': lists of directories (':'-separated) are not "
		 "supported"},
		{"time_based without runtime", "[a]\nsize=1m\ntime_based\n",
		 "t.fio:3: time_based needs runtime="},
		{"time range", "[a]\nsize=1m\nstartdelay=1-5\n",
		 "t.fio:3: startdelay: '1-5': ranges are not supported"},
		{"negative time", "[a]\nsize=1m\nruntime=-5\n",
		 "t.fio:3: runtime: '-5' is negative"},
		{"missing value", "[a]\nsize\n", "t.fio:2: size: needs a value"},
		{"empty value", "[a]\nsize=\n", "t.fio:2: option 'size' has an empty value"},
		{"missing option name", "[a]\n=5\n", "t.fio:2: missing option name in '=5'"},
		{"name in global", "[global]\nname=x\n[a]\nsize=1m\nwait_for=x\n",
		 "t.fio:5: wait_for: no job named 'x' before this one"},
		{"include", "[a]\ninclude other.fio\n",
		 "t.fio:2: 'include' directives are not supported"},
		{"environment variables", "[a]\nsize=${EFQSIM_TEST_UNSET_VARIABLE}\n",
		 "t.fio:2: size: the environment variable EFQSIM_TEST_UNSET_VARIABLE is not set"},
		{"keywords", "[a]\nsize=8*$mb_memory-\n",
		 "t.fio:2: size: '8*4096-': a number expected"},
		{"arithmetic", "[a]\nsize=(1+1m\n", "t.fio:2: size: '(1+1m': '(' without ')'"},
		{"fsync with direct", "[a]\nsize=1m\ndirect=1\nrw=write\nfsync=4\n",
		 "t.fio:5: fsync with direct=1 would flush the device's write cache, which efqsim "
		 "does not model"},
		{"end_fsync with direct", "[a]\nsize=1m\ndirect=1\nend_fsync\n",
		 "t.fio:4: end_fsync with direct=1 would flush the device's write cache, which "
		 "efqsim does not model"},
		{"randrepeat=2", "[a]\nsize=1m\nrandrepeat=2\n",
		 "t.fio:3: randrepeat: '2' is not a boolean (use 0 or 1)"},
		{"kb_base", "[a]\nkb_base=1023\n",
		 "t.fio:2: kb_base: '1023': kb_base is 1000 or 1024"},
		{"error in a [global] is reported at its line", "[global]\nbs=3\n[a]\nsize=1m\n",
		 "t.fio:2: bs: '3': a block size must be a multiple of 512 (sectors)"},
		{"an inherited option is reported where it was set",
		 "[global]\ncgroup_weight=500\n[a]\nsize=1m\n",
		 "t.fio:2: cgroup_weight needs cgroup= (the root cgroup has no weight)"},
		{"a binary file is not a job file",
		 "\x7f"
		 "ELF\x02\x01\x01",
		 "t.fio:1: not a text job file: byte offset 0 is the control byte 0x7f (a job "
		 "file may hold no control bytes but tab, CR and LF)"},
		{"a control byte is named by its offset and line", "[a]\r\nsize=1m\t\nbs=4k\x1b\n",
		 "t.fio:3: not a text job file: byte offset 19 is the control byte 0x1b (a job "
		 "file may hold no control bytes but tab, CR and LF)"},
		{"a UTF-8 byte-order mark is refused, as fio does", "\xef\xbb\xbf[a]\nsize=1m\n",
		 "t.fio:1: the file starts with a UTF-8 byte-order mark (bytes EF BB BF), which "
		 "fio does not accept: save the job file without it"},
		{"iodepth -1", "[a]\nsize=1m\niodepth=-1\n",
		 "t.fio:3: iodepth: '-1' is out of range (1..65536)"},
		{"numjobs -1", "[a]\nsize=1m\nnumjobs=-1\n",
		 "t.fio:3: numjobs: '-1' is out of range (1..4096)"},
		{"prio -1", "[a]\nsize=1m\nprio=-1\n",
		 "t.fio:3: prio: '-1' is out of range (0..7)"},
		{"rwmixread -1", "[a]\nsize=1m\nrwmixread=-1\n",
		 "t.fio:3: rwmixread: '-1' is out of range (0..100)"},
		{"cgroup_weight -1", "[a]\nsize=1m\ncgroup=g\ncgroup_weight=-1\n",
		 "t.fio:4: cgroup_weight: '-1' is out of range (100..1000)"},
		{"iodepth overflows 64 bits", "[a]\nsize=1m\niodepth=99999999999999999999\n",
		 "t.fio:3: iodepth: '99999999999999999999' is out of range (1..65536)"},
		{"iodepth above 32 bits", "[a]\nsize=1m\niodepth=4294967297\n",
		 "t.fio:3: iodepth: '4294967297' is out of range (1..65536)"},
		{"negative bs", "[a]\nsize=1m\nbs=-4k\n", "t.fio:3: bs: '-4k' is negative"},
		{"negative size", "[a]\nsize=-1\n", "t.fio:2: size: '-1' is negative"},
	};
	for (const auto &c : cases) {
		std::string err;
		auto jobs = parse(c.text, &err);
		EXPECT_TRUE(jobs.empty()) << c.rule;
		EXPECT_EQ(err, c.want) << c.rule;
	}
}

TEST(JobfileErrors, IoschedulerWithoutAKnownScheduler)
{
	ParseContext c = ctx();
	c.scheduler_names.clear();
	std::string err;
	parse("[a]\nsize=1m\nioscheduler=noop\n", &err, c);
	EXPECT_EQ(err, "t.fio:3: ioscheduler: ioscheduler='noop': no simulated scheduler is known "
		       "here");
}

TEST(JobfileErrors, ErrorsInALaterFileNameThatFile)
{
	std::string err;
	auto jobs = parse_jobs({JobSource{"a.fio", "[a]\nsize=1m\n"},
				JobSource{"b.fio", "[b]\nsize=1m\n\nbogus=1\n"}},
			       ctx(), &err);
	EXPECT_TRUE(jobs.empty());
	EXPECT_EQ(err, "b.fio:4: unknown option 'bogus'");
}

TEST(JobfileErrors, ANulByteIsNamedByItsOffsetAndLine)
{
	using namespace std::string_literals;
	std::string err;
	auto jobs = parse("[a]\nsize=1m\nru\0ntime=1\n"s, &err);
	EXPECT_TRUE(jobs.empty());
	EXPECT_EQ(err, "t.fio:3: not a text job file: byte offset 14 is the control byte 0x00 (a "
		       "job file may hold no control bytes but tab, CR and LF)");
}

} // namespace
} // namespace efqsim::workload
