// SPDX-License-Identifier: GPL-2.0
// fio 3.33's options in efqsim: the one option table (every name fio knows
// is simulated, accepted or refused with a reason), value expansion, files,
// block sizes, offsets, distributions, verify, trims, rates and zones, each
// measured on what a fake device sees.

#include <gtest/gtest.h>

#include "fake_host.h"
#include "job_helpers.h"
#include "workload/jobs.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace efqsim::workload {
namespace {

using testing::FakeHost;

constexpr uint64_t KiB = 1024, MiB = 1024 * KiB, GiB = 1024 * MiB;
constexpr int64_t MS = 1'000'000;

const char *fake_env(const char *name)
{
	if (std::strcmp(name, "FIO_BS") == 0)
		return "16k";
	if (std::strcmp(name, "DEV") == 0)
		return "/dev/sdz";
	return nullptr;
}

ParseContext ctx(uint64_t capacity = GiB)
{
	ParseContext c;
	c.capacity_bytes = capacity;
	c.scheduler_names = {"noop"};
	c.seed = 3;
	c.mb_memory = 16;
	c.ncpus = 3;
	c.getenv = fake_env;
	return c;
}

std::vector<JobSpec> parse(const std::string &text, std::string *err = nullptr)
{
	return testing::parse_text(ctx(), text, err);
}

std::string error_of(const std::string &text)
{
	return testing::error_of_text(ctx(), text);
}

JobSpec one(const std::string &options)
{
	auto jobs = parse("[j]\nsize=1m\n" + options + "\n");
	EXPECT_EQ(jobs.size(), 1u) << options;
	return jobs.empty() ? JobSpec{} : jobs[0];
}

struct SimRun : testing::JobRun {
	explicit SimRun(const std::string &text, int64_t latency = 100'000,
			unsigned int servers = 1)
	    : JobRun(parse(text), latency, servers, false)
	{
	}
};

// --- the table -------------------------------------------------------------------

TEST(FioOptions, EveryNameInTheTableIsKnown)
{
	const auto names = option_names();
	EXPECT_GT(names.size(), 300u);
	int refused = 0;
	for (const auto &n : names) {
		const std::string e = error_of("[j]\nsize=1m\n" + n + "=1\n");
		EXPECT_EQ(e.find("unknown option"), std::string::npos) << n << ": " << e;
		if (e.find("is not supported by efqsim: ") != std::string::npos)
			refused++;
	}
	EXPECT_GT(refused, 40);
}

TEST(FioOptions, RefusedOptionsNameTheOptionAndWhy)
{
	EXPECT_EQ(error_of("[j]\nsize=1m\nnice=2\n"),
		  "t.fio:3: fio option 'nice' is not supported by efqsim: efqsim's tasks have no "
		  "CPU priority to derive an IO priority from (use prio=)");
	EXPECT_EQ(error_of("[j]\nsize=1m\nzonemode=zbd\n"),
		  "t.fio:3: zonemode: zonemode=zbd is not supported by efqsim: no efq scheduler "
		  "can be the elevator of a zoned device (Linux gives a zoned disk only an "
		  "elevator that declares ELEVATOR_F_ZBD_SEQ_WRITE, and efq's schedulers declare "
		  "none)");
	EXPECT_EQ(error_of("[j]\nsize=1m\nfrobnicate=1\n"), "t.fio:3: unknown option 'frobnicate'");
}

TEST(FioOptions, AcceptedOptionsCheckTheirValues)
{
	one("gtod_reduce=1\ndisable_lat=1\nbuffer_pattern=0xaa\nrefill_buffers\nthreads=1\n"
	    "cpus_allowed=0-3\nio_submit_mode=offload\nrandom_generator=lfsr\nrandrepeat=0");
	EXPECT_EQ(error_of("[j]\nsize=1m\ngtod_reduce=yes\n"),
		  "t.fio:3: gtod_reduce: 'yes' is not a boolean (use 0 or 1)");
	EXPECT_EQ(error_of("[j]\nsize=1m\niodepth_batch=lots\n"),
		  "t.fio:3: iodepth_batch: 'lots' is not a number");
}

TEST(FioOptions, EngineOptionsOfARefusedEngineReportTheEngine)
{
	// fio parses engine options after the engine: the engine is the error.
	EXPECT_EQ(error_of("[j]\nnfs_url=nfs://h/x\nioengine=nfs\n"),
		  "t.fio:3: ioengine: ioengine=nfs is not supported by efqsim: NFS client IO "
		  "over the network, no local block device");
	EXPECT_EQ(error_of("[j]\nsize=1m\nioengine=null\n"),
		  "t.fio:3: ioengine: ioengine=null is not supported by efqsim: the null engine "
		  "transfers no data to any device");
	EXPECT_EQ(error_of("[j]\nsize=1m\nioengine=warp\n"),
		  "t.fio:3: ioengine: 'warp' is not an engine of fio 3.33");
}

TEST(FioOptions, NameInGlobalLeavesTheSectionNames)
{
	auto jobs = parse("[global]\nname=g\nsize=1m\n[a]\n[b]\nname=bb\n");
	ASSERT_EQ(jobs.size(), 2u);
	EXPECT_EQ(jobs[0].name, "a");
	EXPECT_EQ(jobs[1].name, "bb");
}

TEST(FioOptions, EnginesAreSyncOrAsyncSubmitters)
{
	for (const char *e : {"sync", "psync", "vsync", "pvsync", "pvsync2", "mmap", "splice"})
		EXPECT_EQ(one(std::string("direct=1\niodepth=16\nioengine=") + e).effective_depth(),
			  1u)
			<< e;
	EXPECT_EQ(one("direct=1\niodepth=16\nioengine=io_uring").effective_depth(), 16u);
	EXPECT_EQ(one("iodepth=16\nioengine=posixaio").effective_depth(), 16u);
	EXPECT_FALSE(one("direct=1\nioengine=mmap").direct); // mmap is page-cache IO
	EXPECT_TRUE(one("direct=1\nioengine=pvsync2").direct);
}

TEST(FioOptions, EnginesDepthReachesTheDevice)
{
	SimRun r("[a]\ndirect=1\nioengine=io_uring\niodepth=8\nsize=1m\n"
		 "[b]\ndirect=1\nioengine=pvsync2\niodepth=8\nsize=1m\n",
		 100'000, 0);
	EXPECT_EQ(r.host.max_inflight[1], 8u);
	EXPECT_EQ(r.host.max_inflight[2], 1u);
}

// --- values: keywords, environment, expressions --------------------------------

TEST(FioOptions, KeywordsEnvironmentAndExpressions)
{
	EXPECT_EQ(one("bs=$pagesize").bs_read, 4096u);
	EXPECT_EQ(parse("[j]\nsize=1m\nnumjobs=$ncpus\n").size(), 3u);
	EXPECT_EQ(one("io_size=2*$mb_memory*1024").io_bytes, 32 * KiB);
	EXPECT_EQ(one("io_size=(4*1024)k").io_bytes, 4 * MiB);
	EXPECT_EQ(one("bs=${FIO_BS}").bs_read, 16 * KiB);
	EXPECT_EQ(parse("[j]\nfilename=${DEV}\n")[0].file, "/dev/sdz");
	EXPECT_EQ(error_of("[j]\nsize=1m\nbs=${NOPE}\n"),
		  "t.fio:3: bs: the environment variable NOPE is not set");
	EXPECT_EQ(error_of("[j]\nsize=1m\nio_size=(4/0)k\n"),
		  "t.fio:3: io_size: '(4/0)k': a division by zero");
}

// --- files ---------------------------------------------------------------------------

TEST(FioOptions, FilenameFormatTokensAndLists)
{
	auto jobs = parse("[w]\nnumjobs=2\nnrfiles=2\nsize=2m\n"
			  "filename_format=d/$jobname.f$filenum.j$jobnum\n");
	ASSERT_EQ(jobs.size(), 2u);
	ASSERT_EQ(jobs[1].files.size(), 2u);
	EXPECT_EQ(jobs[1].files[0].name, "d/w.f0.j1");
	EXPECT_EQ(jobs[1].files[1].name, "d/w.f1.j1");
	EXPECT_EQ(jobs[1].files[1].region_bytes, MiB); // size= split over the files
	// the default format: $jobname.$jobnum.$filenum
	EXPECT_EQ(parse("[x]\nnr_files=3\nsize=3m\n")[0].files[2].name, "x.0.2");
	auto l = parse("[j]\nsize=2m\nfilename=a:b\\:c\n")[0];
	ASSERT_EQ(l.files.size(), 2u);
	EXPECT_EQ(l.files[1].name, "b:c");
	EXPECT_NE(l.files[0].start, l.files[1].start);
}

TEST(FioOptions, FilesizeSizesEachFile)
{
	auto j = parse("[j]\nnrfiles=2\nfilesize=256k\n")[0];
	ASSERT_EQ(j.files.size(), 2u);
	EXPECT_EQ(j.files[0].bytes, 256 * KiB);
	EXPECT_EQ(j.files[1].region_bytes, 256 * KiB);
	EXPECT_EQ(j.io_bytes, 512 * KiB);
	auto r = parse("[j]\nnrfiles=8\nfilesize=64k-128k\n")[0];
	for (const auto &f : r.files) {
		EXPECT_GE(f.bytes, 64 * KiB);
		EXPECT_LE(f.bytes, 128 * KiB);
		EXPECT_EQ(f.bytes % 4096, 0u);
	}
}

// The files each IO went to, as indexes of the job's files.
std::vector<size_t> files_of(const SimRun &r, const JobSpec &j, TaskId task)
{
	std::vector<size_t> out;
	for (const auto &rec : r.ios.at(task))
		for (size_t f = 0; f < j.files.size(); f++)
			if (rec.io.offset >= j.files[f].start &&
			    rec.io.offset < j.files[f].start + j.files[f].bytes)
				out.push_back(f);
	return out;
}

TEST(FioOptions, FileServiceTypes)
{
	const std::string base = "[j]\ndirect=1\nnrfiles=2\nsize=32k\n";
	{
		SimRun r(base);
		const auto f = files_of(r, r.engine.jobs()[0], 1);
		EXPECT_EQ(f, (std::vector<size_t>{0, 1, 0, 1, 0, 1, 0, 1}));
	}
	{
		SimRun r(base + "file_service_type=roundrobin:2\n");
		const auto f = files_of(r, r.engine.jobs()[0], 1);
		EXPECT_EQ(f, (std::vector<size_t>{0, 0, 1, 1, 0, 0, 1, 1}));
	}
	{
		SimRun r(base + "file_service_type=sequential\n");
		const auto f = files_of(r, r.engine.jobs()[0], 1);
		EXPECT_EQ(f, (std::vector<size_t>{0, 0, 0, 0, 1, 1, 1, 1}));
	}
	{
		// one file open at a time: each is done before the next opens
		SimRun r(base + "openfiles=1\n");
		const auto f = files_of(r, r.engine.jobs()[0], 1);
		EXPECT_EQ(f, (std::vector<size_t>{0, 0, 0, 0, 1, 1, 1, 1}));
	}
	{
		SimRun r("[j]\ndirect=1\nnrfiles=4\nsize=4m\nfile_service_type=random\n");
		const auto f = files_of(r, r.engine.jobs()[0], 1);
		std::set<size_t> seen(f.begin(), f.end());
		EXPECT_EQ(seen.size(), 4u);
		EXPECT_FALSE(std::is_sorted(f.begin(), f.end()));
	}
}

// --- block sizes -------------------------------------------------------------------

TEST(FioOptions, BssplitParsesPerDirection)
{
	auto j = one("bssplit=4k/10:64k/90,8k/:16k/");
	ASSERT_EQ(j.bsd[0].split.size(), 2u);
	EXPECT_EQ(j.bsd[0].split[1], (std::pair<uint32_t, unsigned int>{64 * KiB, 90}));
	ASSERT_EQ(j.bsd[1].split.size(), 2u);
	EXPECT_EQ(j.bsd[1].split[0].second, 50u); // blanks share the rest
	EXPECT_EQ(j.bs_read, 4 * KiB);		  // the smallest
	EXPECT_EQ(error_of("[j]\nsize=1m\nbssplit=4k/10:8k/20\n"),
		  "t.fio:3: bssplit: '4k/10:8k/20': the percentages add up to 30, not 100");
}

TEST(FioOptions, BssplitSizesReachTheDevice)
{
	SimRun r("[j]\ndirect=1\nrw=randread\nsize=64m\nio_size=8m\nbssplit=4k/75:64k/25\n");
	std::map<uint32_t, int> n;
	for (const auto &rec : r.ios.at(1))
		n[rec.io.bytes]++;
	ASSERT_EQ(n.size(), 2u);
	const double ios = n[4096] + n[65536];
	EXPECT_NEAR(n[4096] / ios, 0.75, 0.05);
}

TEST(FioOptions, BsrangeAndBlockalign)
{
	SimRun r("[j]\ndirect=1\nrw=randread\nsize=16m\nio_size=2m\nbsrange=4k-32k\nblockalign="
		 "64k\n");
	std::set<uint32_t> sizes;
	for (const auto &rec : r.ios.at(1)) {
		EXPECT_GE(rec.io.bytes, 4 * KiB);
		EXPECT_LE(rec.io.bytes, 32 * KiB);
		EXPECT_EQ(rec.io.bytes % (4 * KiB), 0u);
		EXPECT_EQ(rec.io.offset % (64 * KiB), 0u);
		sizes.insert(rec.io.bytes);
	}
	EXPECT_GT(sizes.size(), 4u);
}

// --- offsets: rw modifiers, distributions, zones ------------------------------------

std::vector<uint64_t> offsets(const SimRun &r, TaskId t = 1)
{
	std::vector<uint64_t> o;
	for (const auto &rec : r.ios.at(t))
		o.push_back(rec.io.offset);
	return o;
}

TEST(FioOptions, RwModifiers)
{
	EXPECT_EQ(one("rw=read:8k").seq_skip, 8 * 1024);
	EXPECT_EQ(one("rw=randread:8").rand_every, 8u);
	{
		SimRun r("[j]\ndirect=1\nrw=read:8k\nsize=48k\n");
		EXPECT_EQ(offsets(r), (std::vector<uint64_t>{0, 12 * KiB, 24 * KiB, 36 * KiB}));
	}
	{
		SimRun r("[j]\ndirect=1\nrw=read:-8k\nsize=16k\nio_size=16k\n");
		EXPECT_EQ(offsets(r), (std::vector<uint64_t>{0, 12 * KiB, 8 * KiB, 4 * KiB}));
	}
	{
		SimRun r("[j]\ndirect=1\nrw=randread:4\nsize=64m\nio_size=64k\n");
		const auto o = offsets(r);
		ASSERT_EQ(o.size(), 16u);
		for (size_t i = 0; i < o.size(); i++) {
			if (i % 4) {
				EXPECT_EQ(o[i], o[i - 1] + 4 * KiB) << i;
			}
		}
		EXPECT_NE(o[4], o[3] + 4 * KiB);
	}
	{
		SimRun r("[j]\ndirect=1\nrw=randread:4\nrw_sequencer=identical\nsize=64m\nio_size="
			 "32k\n");
		const auto o = offsets(r);
		EXPECT_EQ(o[1], o[0]);
		EXPECT_EQ(o[3], o[0]);
		EXPECT_NE(o[4], o[0]);
	}
}

// The share of IOs in the hottest @frac of blocks.
double hot_share(const std::vector<uint64_t> &o, double frac)
{
	std::map<uint64_t, int> n;
	for (auto x : o)
		n[x]++;
	std::vector<int> c;
	for (const auto &[k, v] : n)
		c.push_back(v);
	std::sort(c.rbegin(), c.rend());
	const size_t blocks = 16384; // 64m of 4k blocks
	double top = 0;
	for (size_t i = 0; i < c.size() && i < static_cast<size_t>(blocks * frac); i++)
		top += c[i];
	return top / static_cast<double>(o.size());
}

TEST(FioOptions, RandomDistributions)
{
	const std::string base = "[j]\ndirect=1\nrw=randread\nsize=64m\nio_size=16m\n";
	{
		SimRun r(base + "random_distribution=zipf:1.2\n");
		EXPECT_GT(hot_share(offsets(r), 0.01), 0.5);
	}
	{
		SimRun r(base + "random_distribution=pareto:0.2\n");
		EXPECT_GT(hot_share(offsets(r), 0.1), 0.5);
	}
	{
		// every block once: the hottest 1% of blocks carry 164 of 4096 IOs
		SimRun r(base + "random_distribution=random\n");
		EXPECT_LT(hot_share(offsets(r), 0.01), 0.05);
	}
	{
		// sigma 5% of the range around the middle
		SimRun r(base + "random_distribution=normal:5:0.5\n");
		int near = 0;
		const auto o = offsets(r);
		for (auto x : o)
			near += x >= 24 * MiB && x < 40 * MiB; // 2.5 sigma either side
		EXPECT_GT(near, static_cast<int>(o.size() * 0.97));
	}
	{
		SimRun r(base + "random_distribution=zoned:90/10:10/\n");
		int low = 0;
		const auto o = offsets(r);
		for (auto x : o)
			low += x < 64 * MiB / 10 + 4096;
		EXPECT_NEAR(low / static_cast<double>(o.size()), 0.9, 0.03);
	}
	{
		SimRun r(base + "random_distribution=zoned_abs:80/1m:20/63m\n");
		int low = 0;
		const auto o = offsets(r);
		for (auto x : o)
			low += x < MiB;
		EXPECT_NEAR(low / static_cast<double>(o.size()), 0.8, 0.03);
	}
	EXPECT_EQ(error_of("[j]\nsize=1m\nrandom_distribution=zipf:1\n"),
		  "t.fio:3: random_distribution: 'zipf:1': zipf's theta must be above 0 and not 1");
	EXPECT_EQ(error_of("[j]\nsize=1m\nrandom_distribution=zoned:50/10:40/10\n"),
		  "t.fio:3: random_distribution: 'zoned:50/10:40/10': the access shares add up "
		  "to 90%, not 100%");
}

TEST(FioOptions, ZonemodeStrided)
{
	SimRun r("[j]\ndirect=1\nrw=read\nsize=1m\nio_size=128k\nbs=32k\nzonemode=strided\n"
		 "zonesize=64k\nzoneskip=192k\n");
	EXPECT_EQ(offsets(r), (std::vector<uint64_t>{0, 32 * KiB, 256 * KiB, 288 * KiB}));
	EXPECT_EQ(error_of("[j]\nsize=1m\nzonemode=strided\n"),
		  "t.fio:3: zonemode=strided needs zonesize=");
}

// --- how much --------------------------------------------------------------------------

TEST(FioOptions, LoopsNumberIosAndIoSize)
{
	{
		SimRun r("[j]\ndirect=1\nsize=64k\nloops=3\n");
		EXPECT_EQ(r.results[0].read.io_bytes, 192 * KiB);
		const auto o = offsets(r);
		EXPECT_EQ(o[16], 0u); // the second loop starts over
	}
	{
		SimRun r("[j]\ndirect=1\nsize=64k\nnumber_ios=5\n");
		EXPECT_EQ(r.results[0].read.ios, 5u);
	}
	{
		SimRun r("[j]\ndirect=1\nsize=64k\nio_size=8k\n");
		EXPECT_EQ(r.results[0].read.io_bytes, 8 * KiB);
	}
}

// --- verify, trims --------------------------------------------------------------------

TEST(FioOptions, VerifyReadsTheWrittenBlocksBack)
{
	{
		SimRun r("[j]\ndirect=1\nrw=randwrite\nsize=64k\nverify=crc32c\n");
		const auto &io = r.ios.at(1);
		ASSERT_EQ(io.size(), 32u);
		for (size_t i = 0; i < 16; i++) {
			EXPECT_TRUE(io[i].io.write);
			EXPECT_FALSE(io[16 + i].io.write);
			EXPECT_EQ(io[16 + i].io.offset, io[i].io.offset);
		}
		EXPECT_EQ(r.results[0].read.io_bytes, 64 * KiB);
	}
	{
		SimRun r("[j]\ndirect=1\nrw=write\nsize=32k\nverify=md5\nverify_backlog=4\n");
		std::string pattern;
		for (const auto &rec : r.ios.at(1))
			pattern += rec.io.write ? 'W' : 'R';
		EXPECT_EQ(pattern, "WWWWRRRRWWWWRRRR");
	}
	{
		SimRun r("[j]\ndirect=1\nrw=write\nsize=32k\nverify=md5\ndo_verify=0\n");
		EXPECT_EQ(r.results[0].read.ios, 0u);
	}
	{
		SimRun r("[j]\ndirect=1\nrw=write\nsize=32k\nverify=md5\nverify_only\n");
		EXPECT_EQ(r.results[0].read.ios, 8u);
		EXPECT_EQ(r.results[0].write.ios, 0u);
	}
}

TEST(FioOptions, TrimsAreDiscards)
{
	{
		SimRun r("[j]\nrw=trim\nsize=32k\nbs=8k\n");
		const auto &io = r.ios.at(1);
		ASSERT_EQ(io.size(), 4u);
		for (size_t i = 0; i < io.size(); i++) {
			EXPECT_TRUE(io[i].io.discard);
			EXPECT_EQ(io[i].io.offset, i * 8 * KiB);
			EXPECT_EQ(io[i].io.bytes, 8 * KiB);
		}
	}
	{
		SimRun r("[j]\nrw=randtrim\nsize=64k\n");
		const auto o = offsets(r);
		EXPECT_EQ(o.size(), 16u);
		EXPECT_FALSE(std::is_sorted(o.begin(), o.end()));
		EXPECT_EQ(std::set<uint64_t>(o.begin(), o.end()).size(), 16u);
	}
	{
		SimRun r("[j]\ndirect=1\nrw=randtrimwrite\nsize=64k\nio_size=32k\n");
		const auto &io = r.ios.at(1);
		ASSERT_EQ(io.size(), 8u);
		for (size_t i = 0; i < io.size(); i += 2) {
			EXPECT_TRUE(io[i].io.discard);
			EXPECT_TRUE(io[i + 1].io.write && !io[i + 1].io.discard);
			EXPECT_EQ(io[i + 1].io.offset, io[i].io.offset);
		}
	}
}

// --- rates ------------------------------------------------------------------------------

TEST(FioOptions, RatesPaceTheIo)
{
	EXPECT_EQ(one("rate=1m,2m").rate[1], 2 * MiB);
	EXPECT_EQ(one("rate=1m,").rate[1], 0u);
	{
		// 4k at 400 KiB/s: one IO every 10 ms
		SimRun r("[j]\ndirect=1\nsize=40k\nrate=400k\n");
		const auto &io = r.ios.at(1);
		ASSERT_EQ(io.size(), 10u);
		for (size_t i = 1; i < io.size(); i++)
			EXPECT_EQ(io[i].submitted - io[i - 1].submitted, 10 * MS) << i;
	}
	{
		SimRun r("[j]\ndirect=1\nsize=40k\nrate_iops=50\n");
		const auto &io = r.ios.at(1);
		EXPECT_EQ(io[9].submitted - io[0].submitted, 9 * 20 * MS);
	}
	{
		// 100 IOs a second at most, but at least 200 asked for: the job fails
		SimRun r("[j]\ndirect=1\nsize=1m\nrate_iops=100\nrate_iops_min=200\nratecycle="
			 "100\n");
		EXPECT_NE(r.results[0].error, 0);
		EXPECT_LT(r.results[0].read.ios, 256u);
	}
	{
		SimRun r("[j]\ndirect=1\nsize=1m\nrate_iops=100\nratemin=100k\n");
		EXPECT_EQ(r.results[0].error, 0);
	}
}

// --- jobs --------------------------------------------------------------------------------

TEST(FioOptions, WaitForAndExitall)
{
	{
		SimRun r("[a]\ndirect=1\nsize=64k\n[b]\ndirect=1\nsize=64k\nwait_for=a\n");
		EXPECT_GE(r.ios.at(2).front().submitted, r.ios.at(1).back().done);
	}
	{
		SimRun r("[long]\ndirect=1\nsize=64m\n[short]\ndirect=1\nsize=64k\nexitall\n");
		EXPECT_LT(r.results[0].read.ios, 100u);
	}
	EXPECT_EQ(error_of("[a]\nsize=1m\nwait_for=b\n[b]\nsize=1m\n"),
		  "t.fio:3: wait_for: no job named 'b' before this one");
}

} // namespace
} // namespace efqsim::workload
