// SPDX-License-Identifier: GPL-2.0
// The cgroup v2 files of the efq policy, read and written as cgroupfs does
// (sim_cgroup_read/sim_cgroup_write run the cftypes' handlers): which files
// exist where, their formats, good and bad writes, and the statistics
// (io.efq.disk_time, io.efq.disk_sectors, the debug counters and efq's part
// of io.stat) against the engine's own figures.  Formats: V10's cgroup
// files under efq's io.efq.* names (Documentation/block/io-controller.rst,
// "Groups and cgroups"), io.efq.disk_time and io.efq.disk_sectors one
// "MAJ:MIN value" line per device; units: disk_time in ms.

#include <cstdlib>
#include <string>

#include "efq_harness.h"

using namespace efqt;

namespace {

class CgroupFiles : public EfqTest {
protected:
	// The file's content, or "<errno N>".
	std::string Read(struct blkcg *cg, const char *file)
	{
		int err = 0;
		char *s = sim_cgroup_read(cg, file, &err);
		if (!s)
			return "<errno " + std::to_string(err) + ">";
		std::string r(s);
		std::free(s);
		return r;
	}
	ssize_t Write(struct blkcg *cg, const char *file, const std::string &data)
	{
		return sim_cgroup_write(cg, file, data.c_str());
	}
	// 0 on success (the byte count checked), else the -errno.
	ssize_t W(struct blkcg *cg, const char *file, const std::string &data)
	{
		ssize_t r = Write(cg, file, data);
		if (r >= 0) {
			EXPECT_EQ(r, (ssize_t)data.size()) << data;
			return 0;
		}
		return r;
	}
	// One activation of @fq: a request of @sectors, served for @used ns.
	void Serve(FakeQueue *fq, u64 used, unsigned sectors)
	{
		Add(fq, 0, sectors);
		Add(fq, 0, sectors);
		struct request *rq = Dispatch();
		ASSERT_NE(rq, nullptr);
		Advance(used);
		Complete(rq);
		Expire();
	}
};

TEST_F(CgroupFiles, SettingsInChildrenStatisticsEverywhere)
{
	struct blkcg *a = Cgroup("a");
	const char *everywhere[] = {"io.efq.disk_time", "io.efq.disk_sectors", "io.efq.disk_queue",
				    "io.efq.disk_dequeue"};
	const char *children[] = {"io.efq.weight", "io.efq.ioprio_class", "io.efq.policy"};
	for (const char *f : everywhere) {
		EXPECT_TRUE(sim_cgroup_file_exists(a, f)) << f;
		EXPECT_TRUE(sim_cgroup_file_exists(&blkcg_root, f)) << f;
	}
	for (const char *f : children) {
		EXPECT_TRUE(sim_cgroup_file_exists(a, f)) << f;
		EXPECT_FALSE(sim_cgroup_file_exists(&blkcg_root, f)) << f;
	}
	// no file of another policy's name (io.weight is iocost's)
	EXPECT_FALSE(sim_cgroup_file_exists(a, "io.weight"));
}

TEST_F(CgroupFiles, WeightReadsDefaultThenOneLinePerDeviceRule)
{
	struct blkcg *a = Cgroup("a");
	EXPECT_EQ(Read(a, "io.efq.weight"), "default io.weight\n");
	EXPECT_EQ(GroupOf(a)->entity.new_weight, 500u);
	EXPECT_EQ(W(a, "io.efq.weight", "300\n"), 0);
	EXPECT_EQ(Read(a, "io.efq.weight"), "default 300\n");
	EXPECT_EQ(W(a, "io.efq.weight", "default 400"), 0);
	EXPECT_EQ(W(a, "io.efq.weight", "8:0 700"), 0);
	EXPECT_EQ(Read(a, "io.efq.weight"), "default 400\n8:0 700\n");
	EXPECT_EQ(GroupOf(a)->entity.new_weight, 700u);
	EXPECT_EQ(W(a, "io.efq.weight", "8:0 default"), 0);
	EXPECT_EQ(Read(a, "io.efq.weight"), "default 400\n");
	EXPECT_EQ(GroupOf(a)->entity.new_weight, 400u);
}

TEST_F(CgroupFiles, BadWeightWritesFailAndChangeNothing)
{
	struct blkcg *a = Cgroup("a");
	for (const char *s : {"99", "1001", "abc", "default", "8:0", "8:0 50", "-1", "300 400 500",
			      "+500", "default +500", "+8:0 500", "8:+0 500", "8:0 +500"})
		EXPECT_EQ(W(a, "io.efq.weight", s), -EINVAL) << s;
	EXPECT_EQ(W(a, "io.efq.weight", "9:0 300"), -ENODEV);
	EXPECT_EQ(W(a, "io.efq.weight", "8:1 300"), -ENODEV); // not the disk (8:0)
	EXPECT_EQ(Read(a, "io.efq.weight"), "default io.weight\n");
}

TEST_F(CgroupFiles, IoprioClassIsANumberOneToThree)
{
	struct blkcg *a = Cgroup("a");
	EXPECT_EQ(Read(a, "io.efq.ioprio_class"), "2\n");
	EXPECT_EQ(W(a, "io.efq.ioprio_class", "1"), 0);
	EXPECT_EQ(Read(a, "io.efq.ioprio_class"), "1\n");
	EXPECT_EQ(GroupOf(a)->entity.new_class, IOPRIO_CLASS_RT);
	EXPECT_EQ(W(a, "io.efq.ioprio_class", "3\n"), 0);
	for (const char *s : {"0", "4", "abc", "-1", "4294967298", "18446744073709551616"})
		EXPECT_LT(W(a, "io.efq.ioprio_class", s), 0) << s;
	EXPECT_EQ(W(a, "io.efq.ioprio_class", "4294967298"), -EINVAL); // not 2 after truncation
	EXPECT_EQ(Read(a, "io.efq.ioprio_class"), "3\n");
}

TEST_F(CgroupFiles, PolicyListsRulesUnderAHeaderAndWeightZeroDeletes)
{
	struct blkcg *a = Cgroup("a");
	EXPECT_EQ(Read(a, "io.efq.policy"), "");
	EXPECT_EQ(W(a, "io.efq.policy", "8:0 300 1\n"), 0);
	EXPECT_EQ(Read(a, "io.efq.policy"), "dev\tweight\tclass\n8:0\t300\t1\n");
	EXPECT_EQ(GroupOf(a)->entity.new_weight, 300u);
	EXPECT_EQ(GroupOf(a)->entity.new_class, IOPRIO_CLASS_RT);
	// io.efq.weight shows the rule's weight, and a default write does not
	// override it
	EXPECT_EQ(W(a, "io.efq.weight", "900"), 0);
	EXPECT_EQ(Read(a, "io.efq.weight"), "default 900\n8:0 300\n");
	EXPECT_EQ(GroupOf(a)->entity.new_weight, 300u);
	EXPECT_EQ(W(a, "io.efq.policy", "8:0 0 1"), 0);
	EXPECT_EQ(Read(a, "io.efq.policy"), "");
	EXPECT_EQ(GroupOf(a)->entity.new_weight, 900u);
}

TEST_F(CgroupFiles, BadPolicyWritesFail)
{
	struct blkcg *a = Cgroup("a");
	for (const char *s : {"8:0 300", "8:0 300 1 1", "8:0 1001 1", "8:0 300 4", "8:0 300 0",
			      "8 300 1", "x:0 300 1", ""})
		EXPECT_EQ(W(a, "io.efq.policy", s), -EINVAL) << s;
	EXPECT_EQ(W(a, "io.efq.policy", "9:0 300 1"), -ENODEV);
	EXPECT_EQ(W(a, "io.efq.policy", std::string(300, ' ') + "8:0 300 1"), -E2BIG);
	EXPECT_EQ(Read(a, "io.efq.policy"), "");
}

TEST_F(CgroupFiles, StatisticsShowTheEnginesFiguresPerDevice)
{
	struct blkcg *a = Cgroup("a");
	struct efq_group *g = GroupOf(a);
	FakeQueue *q = NewQueue(g);
	Serve(q, 7 * kMs, 16);
	Serve(q, 5 * kMs, 8);
	u64 ms = g->entity.total_time / 1000000;
	ASSERT_GT(ms, 0u);
	EXPECT_EQ(Read(a, "io.efq.disk_time"), "8:0 " + std::to_string(ms) + "\n");
	EXPECT_EQ(Read(a, "io.efq.disk_sectors"),
		  "8:0 " + std::to_string(g->entity.total_sectors) + "\n");
	// one request per activation, the oldest first: 16 + 16 sectors
	EXPECT_EQ(g->entity.total_sectors, 32u);
	EXPECT_EQ(Read(a, "io.efq.disk_queue"),
		  "8:0 " + std::to_string(g->entity.nr_enqueued) + "\n");
	EXPECT_EQ(Read(a, "io.efq.disk_dequeue"),
		  "8:0 " + std::to_string(g->entity.nr_dequeued) + "\n");
	// the root cgroup shows the device's root group: the whole device
	u64 root_ms = Root()->entity.total_time / 1000000;
	EXPECT_GE(root_ms, ms);
	EXPECT_EQ(Read(&blkcg_root, "io.efq.disk_time"), "8:0 " + std::to_string(root_ms) + "\n");
	// io.stat carries the same figures
	std::string stat = Read(a, "io.stat");
	EXPECT_NE(stat.find(" efq.disk_time=" + std::to_string(ms) +
			    " efq.disk_sectors=" + std::to_string(g->entity.total_sectors)),
		  std::string::npos)
		<< stat;
	EXPECT_EQ(Write(a, "io.efq.disk_time", "0"), -EINVAL);
}

TEST_F(CgroupFiles, StatisticsOfACgroupWithoutIoAreZero)
{
	struct blkcg *a = Cgroup("a");
	Blkg(a);
	EXPECT_EQ(Read(a, "io.efq.disk_time"), "8:0 0\n");
	EXPECT_EQ(Read(a, "io.efq.disk_sectors"), "8:0 0\n");
	struct blkcg *b = Cgroup("b"); // no blkg on this device: no line
	EXPECT_EQ(Read(b, "io.efq.disk_time"), "");
}

// --- what efq follows of io.weight, and who wins -------------------------

TEST_F(CgroupFiles, IoWeightFollowsIoWeightsGrammarTimesFive)
{
	struct blkcg *a = Cgroup("a");
	EXPECT_EQ(Read(a, "io.efq.io_weight"), "default 100\n");
	EXPECT_EQ(W(a, "io.efq.io_weight", "default 800\n"), 0);
	EXPECT_EQ(Read(a, "io.efq.io_weight"), "default 800\n");
	EXPECT_EQ(GroupOf(a)->entity.new_weight, 4000u);
	EXPECT_EQ(Read(a, "io.efq.weight"), "default io.weight\n");
	EXPECT_EQ(W(a, "io.efq.io_weight", "1"), 0);
	EXPECT_EQ(GroupOf(a)->entity.new_weight, 5u);
	EXPECT_EQ(W(a, "io.efq.io_weight", "10000"), 0);
	EXPECT_EQ(GroupOf(a)->entity.new_weight, 50000u);
	// a line per disk, as systemd's IODeviceWeight= writes it
	EXPECT_EQ(W(a, "io.efq.io_weight", "8:0 300"), 0);
	EXPECT_EQ(Read(a, "io.efq.io_weight"), "default 10000\n8:0 300\n");
	EXPECT_EQ(Read(a, "io.efq.weight"), "default io.weight\n"); // only what was written
	EXPECT_EQ(GroupOf(a)->entity.new_weight, 1500u);
	EXPECT_EQ(W(a, "io.efq.io_weight", "8:0 default"), 0);
	EXPECT_EQ(Read(a, "io.efq.io_weight"), "default 10000\n");
	EXPECT_EQ(GroupOf(a)->entity.new_weight, 50000u);
}

TEST_F(CgroupFiles, BadIoWeightWritesFailAndChangeNothing)
{
	struct blkcg *a = Cgroup("a");
	for (const char *s : {"0",
			      "10001",
			      "abc",
			      "",
			      "default",
			      "default 0",
			      "default 10001",
			      "default default",
			      "default io.weight",
			      "8:0",
			      "8:0 0",
			      "8:0 10001",
			      "8:0 abc",
			      "0:0 100 1",
			      "x:0 100",
			      "-1",
			      "100 200",
			      "+100",
			      "default +100",
			      "8:0 +100"})
		EXPECT_EQ(W(a, "io.efq.io_weight", s), -EINVAL) << s;
	EXPECT_EQ(W(a, "io.efq.io_weight", "9:0 300"), -ENODEV);
	EXPECT_EQ(W(a, "io.efq.io_weight", "0:0 300"), -ENODEV);
	EXPECT_EQ(Read(a, "io.efq.io_weight"), "default 100\n");
	EXPECT_EQ(GroupOf(a)->entity.new_weight, 500u);
}

// What the administrator writes to efq's files wins over io.weight, until
// "default io.weight" hands the default back.
TEST_F(CgroupFiles, AWrittenWeightWinsUntilHandedBackToIoWeight)
{
	struct blkcg *a = Cgroup("a");
	EXPECT_EQ(W(a, "io.efq.weight", "300"), 0);
	EXPECT_EQ(W(a, "io.efq.io_weight", "default 800"), 0);
	EXPECT_EQ(GroupOf(a)->entity.new_weight, 300u);
	EXPECT_EQ(Read(a, "io.efq.weight"), "default 300\n");
	// a followed disk line does not beat a written default either
	EXPECT_EQ(W(a, "io.efq.io_weight", "8:0 50"), 0);
	EXPECT_EQ(GroupOf(a)->entity.new_weight, 300u);
	EXPECT_EQ(Read(a, "io.efq.weight"), "default 300\n");
	// a written disk rule beats everything on its disk
	EXPECT_EQ(W(a, "io.efq.weight", "8:0 700"), 0);
	EXPECT_EQ(GroupOf(a)->entity.new_weight, 700u);
	EXPECT_EQ(W(a, "io.efq.weight", "8:0 default"), 0);
	EXPECT_EQ(GroupOf(a)->entity.new_weight, 300u);
	EXPECT_EQ(W(a, "io.efq.weight", "default io.weight"), 0);
	EXPECT_EQ(GroupOf(a)->entity.new_weight, 250u); // the disk's line, 50
	EXPECT_EQ(Read(a, "io.efq.weight"), "default io.weight\n");
	EXPECT_EQ(W(a, "io.efq.io_weight", "8:0 default"), 0);
	EXPECT_EQ(GroupOf(a)->entity.new_weight, 4000u);
	for (const char *s : {"io.weight", "default io", "8:0 io.weight"})
		EXPECT_EQ(W(a, "io.efq.weight", s), -EINVAL) << s;
}

// On a kernel with iocost (Debian's, and the shim's) efq never takes
// io.weight, and no name another policy has.
TEST_F(CgroupFiles, IoWeightItselfStaysIocosts)
{
	struct blkcg *a = Cgroup("a");
	EXPECT_TRUE(sim_cgroup_file_exists(a, "io.efq.io_weight"));
	EXPECT_FALSE(sim_cgroup_file_exists(&blkcg_root, "io.efq.io_weight"));
	EXPECT_FALSE(sim_cgroup_file_exists(a, "io.weight"));
	EXPECT_FALSE(sim_cgroup_file_exists(a, "io.bfq.weight"));
}

// --- cgroup v1: CFQ's names under blkio.* -----------------------------------

TEST_F(CgroupFiles, LegacyFilesHaveCfqsAndV10sNames)
{
	struct blkcg *a = Cgroup("a");
	for (const char *f : {"blkio.ioprio_class", "blkio.policy"}) {
		EXPECT_TRUE(sim_cgroup_file_exists(a, f)) << f;
		EXPECT_FALSE(sim_cgroup_file_exists(&blkcg_root, f)) << f;
	}
	// the weights are in the root too, as CFQ's were (docker looks for
	// blkio.weight in the mount's root), but it takes no weight
	for (const char *f : {"blkio.weight", "blkio.weight_device"}) {
		EXPECT_TRUE(sim_cgroup_file_exists(a, f)) << f;
		EXPECT_TRUE(sim_cgroup_file_exists(&blkcg_root, f)) << f;
	}
	EXPECT_EQ(Read(&blkcg_root, "blkio.weight"), "500\n");
	EXPECT_EQ(W(&blkcg_root, "blkio.weight", "800"), -EINVAL);
	EXPECT_EQ(W(&blkcg_root, "blkio.weight", "abc"), -EINVAL);
	// what it shows, written back (a restore), changes nothing
	EXPECT_EQ(W(&blkcg_root, "blkio.weight", "500\n"), 0);
	EXPECT_EQ(Read(&blkcg_root, "blkio.weight"), "500\n");
	EXPECT_EQ(W(&blkcg_root, "blkio.weight_device", "8:0 800"), -EINVAL);
	EXPECT_EQ(Read(&blkcg_root, "blkio.weight_device"), "");
	for (const char *f :
	     {"blkio.disk_time", "blkio.disk_sectors", "blkio.disk_queue", "blkio.disk_dequeue"}) {
		EXPECT_TRUE(sim_cgroup_file_exists(a, f)) << f;
		EXPECT_TRUE(sim_cgroup_file_exists(&blkcg_root, f)) << f;
	}
	EXPECT_FALSE(sim_cgroup_file_exists(a, "blkio.io_weight"));
}

TEST_F(CgroupFiles, BlkioWeightTakesCfqsRangeInEfqsUnits)
{
	struct blkcg *a = Cgroup("a");
	EXPECT_EQ(Read(a, "blkio.weight"), "500\n");
	EXPECT_EQ(W(a, "blkio.weight", "10\n"), 0);
	EXPECT_EQ(GroupOf(a)->entity.new_weight, 10u);
	EXPECT_EQ(Read(a, "blkio.weight"), "10\n");
	EXPECT_EQ(W(a, "blkio.weight", "1000"), 0);
	EXPECT_EQ(Read(a, "io.efq.weight"), "default 1000\n");
	for (const char *s : {"9", "1001", "", "abc", "default 500", "8:0 500", "-1", "0x100"})
		EXPECT_EQ(W(a, "blkio.weight", s), -EINVAL) << s;
	EXPECT_EQ(GroupOf(a)->entity.new_weight, 1000u);
}

TEST_F(CgroupFiles, BlkioWeightDeviceSetsARuleAndZeroRemovesIt)
{
	struct blkcg *a = Cgroup("a");
	EXPECT_EQ(Read(a, "blkio.weight_device"), "");
	EXPECT_EQ(W(a, "blkio.weight_device", "8:0 20"), 0);
	EXPECT_EQ(Read(a, "blkio.weight_device"), "8:0 20\n");
	EXPECT_EQ(GroupOf(a)->entity.new_weight, 20u);
	// the same table as io.efq.policy, the class the cgroup's
	EXPECT_EQ(Read(a, "blkio.policy"), "dev\tweight\tclass\n8:0\t20\t2\n");
	for (const char *s : {"8:0", "8:0 9", "8:0 1001", "8:0 default", "8:0 20 2", "20", ""})
		EXPECT_EQ(W(a, "blkio.weight_device", s), -EINVAL) << s;
	EXPECT_EQ(W(a, "blkio.weight_device", "9:0 300"), -ENODEV);
	EXPECT_EQ(W(a, "blkio.weight_device", "8:0 0"), 0);
	EXPECT_EQ(Read(a, "blkio.weight_device"), "");
	EXPECT_EQ(GroupOf(a)->entity.new_weight, 500u);
}

// What io.efq.weight shows can be written back to the same effect: a
// snapshot-and-restore of the cgroup's files changes nothing.
TEST_F(CgroupFiles, WhatIoEfqWeightShowsWritesBackUnchanged)
{
	struct blkcg *a = Cgroup("a");
	EXPECT_EQ(W(a, "io.efq.io_weight", "default 800"), 0);
	EXPECT_EQ(W(a, "io.efq.io_weight", "8:0 300"), 0);
	std::string shown = Read(a, "io.efq.weight");
	EXPECT_EQ(shown, "default io.weight\n");
	EXPECT_EQ(W(a, "io.efq.weight", shown), 0);
	// still following: a later io.weight change applies
	EXPECT_EQ(W(a, "io.efq.io_weight", "8:0 default"), 0);
	EXPECT_EQ(W(a, "io.efq.io_weight", "default 200"), 0);
	EXPECT_EQ(GroupOf(a)->entity.new_weight, 1000u);
	EXPECT_EQ(W(a, "io.efq.weight", "8:0 700"), 0);
	shown = Read(a, "io.efq.weight");
	EXPECT_EQ(shown, "default io.weight\n8:0 700\n");
	for (size_t pos = 0, nl; (nl = shown.find('\n', pos)) != std::string::npos; pos = nl + 1)
		EXPECT_EQ(W(a, "io.efq.weight", shown.substr(pos, nl - pos)), 0);
	EXPECT_EQ(Read(a, "io.efq.weight"), shown);
	EXPECT_EQ(GroupOf(a)->entity.new_weight, 700u);
}

// blkio.policy edits the table blkio.weight_device does, in its range: a
// rule of weight 50 can get another class.
TEST_F(CgroupFiles, BlkioPolicyTakesCfqsRange)
{
	struct blkcg *a = Cgroup("a");
	EXPECT_EQ(W(a, "blkio.weight_device", "8:0 50"), 0);
	EXPECT_EQ(W(a, "blkio.policy", "8:0 50 1"), 0);
	EXPECT_EQ(Read(a, "blkio.policy"), "dev\tweight\tclass\n8:0\t50\t1\n");
	EXPECT_EQ(GroupOf(a)->entity.new_class, IOPRIO_CLASS_RT);
	for (const char *s : {"8:0 9 1", "8:0 1001 1", "8:0 +50 1", "8:0 50 4"})
		EXPECT_EQ(W(a, "blkio.policy", s), -EINVAL) << s;
	// io.efq.policy keeps V10's range
	EXPECT_EQ(W(a, "io.efq.policy", "8:0 50 1"), -EINVAL);
	EXPECT_EQ(W(a, "blkio.policy", "8:0 0 1"), 0);
	EXPECT_EQ(Read(a, "blkio.weight_device"), "");
}

} // namespace
