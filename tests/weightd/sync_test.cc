// SPDX-License-Identifier: GPL-2.0
// Syncing a fake cgroup tree: the lines written, cgroups without the
// files, cgroups that vanish, read-only files, malformed io.weight, and
// systemd's device weights.
#include <gtest/gtest.h>

#include "weightd_test.h"

namespace {

using namespace weightd_test;

// systemd's answers by unit; a unit not listed fails (nullopt).
class FakeSystemd : public DeviceWeightSource {
public:
	std::map<std::string, std::map<Dev, int>> units;
	std::vector<std::string> asked;
	std::optional<std::map<Dev, int>> device_weights(const std::string &unit,
							 const std::string &) override
	{
		asked.push_back(unit);
		auto it = units.find(unit);
		if (it == units.end())
			return std::nullopt;
		return it->second;
	}
};

struct WeightdSync : ::testing::Test {
	TempDir root;
	SimKernelWriter writer;
	Logger log;
	std::vector<std::string> logged;
	WeightdSync()
	{
		log.set_sink([this](const std::string &m) { logged.push_back(m); });
	}
	std::string efq(const std::string &rel) { return root / (rel + "/io.efq.io_weight"); }
};

TEST_F(WeightdSync, ScanCopiesEveryCgroup)
{
	make_cgroup(root / "a", "default 300\n", "default 100\n");
	make_cgroup(root / "a/b", "default 100\n8:0 50\n", "default 100\n");
	make_cgroup(root / "c", "default 7475\n", "default 100\n8:16 20\n");
	Syncer s(root.path(), writer, nullptr, log);
	ScanStats st = s.scan("", true);
	EXPECT_EQ(st.synced, 3);
	EXPECT_EQ(st.failed, 0);
	EXPECT_EQ(writer.lines_to(efq("a")), std::vector<std::string>{"default 300"});
	EXPECT_EQ(writer.lines_to(efq("a/b")), std::vector<std::string>{"8:0 50"});
	EXPECT_EQ(writer.lines_to(efq("c")),
		  (std::vector<std::string>{"default 7475", "8:16 default"}));
	EXPECT_EQ(get(efq("a/b")), "default 100\n8:0 50\n");
	EXPECT_EQ(get(efq("c")), "default 7475\n");
	// Stateless and idempotent: a second scan finds nothing to do.
	writer.writes.clear();
	st = s.scan("", true);
	EXPECT_EQ(st.synced, 3);
	EXPECT_TRUE(writer.writes.empty());
	EXPECT_TRUE(logged.empty()) << logged.front();
}

// With bfq.ko loaded runc writes io.bfq.weight only; the follower takes it
// while io.weight is at its default, and goes back to io.weight when bfq's
// file disappears (bfq unloaded).
TEST_F(WeightdSync, BfqWeightOfARuntimeIsFollowed)
{
	make_cgroup(root / "ctr", "default 100\n", "default 100\n");
	put(root / "ctr/io.bfq.weight", "default 750\n");
	Syncer s(root.path(), writer, nullptr, log);
	EXPECT_EQ(s.sync("ctr", true), SyncResult::synced);
	EXPECT_EQ(get(efq("ctr")), "default 750\n");
	fs::remove(root / "ctr/io.bfq.weight");
	EXPECT_EQ(s.sync("ctr", true), SyncResult::synced);
	EXPECT_EQ(get(efq("ctr")), "default 100\n");
	EXPECT_TRUE(logged.empty()) << logged.front();
}

TEST_F(WeightdSync, RootAndCgroupsWithoutTheFilesAreSkipped)
{
	// the root itself (never synced), io off (no files), efq not loaded
	// (io.weight only), a stray efq file
	put(root / "io.weight", "default 500\n");
	put(root / "io.efq.io_weight", "default 100\n");
	make_cgroup(root / "off", "", "");
	make_cgroup(root / "noefq", "default 300\n", "");
	make_cgroup(root / "noio", "", "default 100\n");
	make_cgroup(root / "off/on", "default 200\n", "default 100\n");
	Syncer s(root.path(), writer, nullptr, log);
	ScanStats st = s.scan("", true);
	EXPECT_EQ(st.synced, 1);
	EXPECT_EQ(st.absent, 3);
	EXPECT_EQ(st.failed, 0);
	ASSERT_EQ(writer.writes.size(), 1u);
	EXPECT_EQ(writer.writes[0],
		  (std::pair<std::string, std::string>{efq("off/on"), "default 200"}));
	EXPECT_EQ(get(root / "io.efq.io_weight"), "default 100\n");
	EXPECT_TRUE(logged.empty());
}

TEST_F(WeightdSync, VanishedMidScanIsQuiet)
{
	make_cgroup(root / "a", "default 300\n", "default 100\n");
	make_cgroup(root / "b", "default 400\n", "default 100\n");
	make_cgroup(root / "c", "default 500\n", "default 100\n");
	// b is removed just before its write: the write fails as on
	// cgroupfs (ENOENT on open)
	writer.before_write = [&](const std::string &path) {
		if (path == efq("b"))
			fs::remove_all(root / "b");
	};
	writer.fail_with[efq("b")] = ENOENT;
	Syncer s(root.path(), writer, nullptr, log);
	ScanStats st = s.scan("", true);
	EXPECT_EQ(st.synced, 2);
	EXPECT_EQ(st.vanished, 1);
	EXPECT_EQ(st.failed, 0);
	EXPECT_EQ(get(efq("a")), "default 300\n");
	EXPECT_EQ(get(efq("c")), "default 500\n");
	EXPECT_TRUE(logged.empty()) << logged.front();
	// ENODEV (kernfs' answer for a removed node) too
	make_cgroup(root / "b", "default 400\n", "default 100\n");
	writer.fail_with[efq("b")] = ENODEV;
	EXPECT_EQ(s.sync("b", true), SyncResult::vanished);
	EXPECT_TRUE(logged.empty());
	// A vanished directory before the read
	EXPECT_EQ(s.sync("nonexistent", true), SyncResult::vanished);
}

TEST_F(WeightdSync, EnodevOnALiveCgroupIsAFailure)
{
	// not a disk: the cgroup is still there
	make_cgroup(root / "a", "default 100\n8:0 30\n", "default 100\n");
	writer.fail_with[efq("a")] = ENODEV;
	Syncer s(root.path(), writer, nullptr, log);
	EXPECT_EQ(s.sync("a", true), SyncResult::failed);
	ASSERT_EQ(logged.size(), 1u);
	EXPECT_NE(logged[0].find("/a: writing '8:0 30'"), std::string::npos) << logged[0];
}

TEST_F(WeightdSync, ReadOnlyLoggedOncePerCgroup)
{
	make_cgroup(root / "ro", "default 300\n8:0 5\n", "default 100\n");
	make_cgroup(root / "rw", "default 300\n", "default 100\n");
	writer.fail_with[efq("ro")] = EROFS;
	Syncer s(root.path(), writer, nullptr, log);
	ScanStats st = s.scan("", true);
	EXPECT_EQ(st.failed, 1);
	EXPECT_EQ(st.failed_cgroups, std::vector<std::string>{"/ro"});
	EXPECT_EQ(get(efq("rw")), "default 300\n");
	ASSERT_EQ(logged.size(), 1u); // one line, not one per write
	EXPECT_NE(logged[0].find("/ro: cannot write io.efq.io_weight"), std::string::npos)
		<< logged[0];
	// Again (io.weight modified): still failing, not logged again.
	put(root / "ro/io.weight", "default 400\n");
	EXPECT_EQ(s.sync("ro", true), SyncResult::failed);
	EXPECT_EQ(logged.size(), 1u);
	// Writable again: synced; a later failure is news again.
	writer.fail_with.clear();
	EXPECT_EQ(s.sync("ro", true), SyncResult::synced);
	EXPECT_EQ(get(efq("ro")), "default 400\n");
	writer.fail_with[efq("ro")] = EACCES;
	put(root / "ro/io.weight", "default 500\n");
	EXPECT_EQ(s.sync("ro", true), SyncResult::failed);
	EXPECT_EQ(logged.size(), 2u);
}

TEST_F(WeightdSync, RealWriterWritesOneLine)
{
	make_cgroup(root / "a", "default 7475\n", "default 100\n");
	FileWriter real;
	Syncer s(root.path(), real, nullptr, log);
	EXPECT_EQ(s.sync("a", true), SyncResult::synced);
	EXPECT_EQ(get(efq("a")), "default 7475\n");
}

TEST_F(WeightdSync, MalformedIoWeightLoggedOncePerChange)
{
	make_cgroup(root / "a", "default 300\n8:0 junk\n8:16 40\n", "default 100\n");
	Syncer s(root.path(), writer, nullptr, log);
	EXPECT_EQ(s.sync("a", true), SyncResult::failed);
	// the good lines went through
	EXPECT_EQ(get(efq("a")), "default 300\n8:16 40\n");
	ASSERT_EQ(logged.size(), 1u);
	EXPECT_NE(logged[0].find("/a: io.weight: line 2 '8:0 junk'"), std::string::npos)
		<< logged[0];
	// same content: quiet
	EXPECT_EQ(s.sync("a", true), SyncResult::failed);
	EXPECT_EQ(logged.size(), 1u);
	// changed, still malformed: logged again
	put(root / "a/io.weight", "default 300\n8:0 0\n");
	s.sync("a", true);
	EXPECT_EQ(logged.size(), 2u);
	// fixed: synced
	put(root / "a/io.weight", "default 300\n8:0 9\n");
	EXPECT_EQ(s.sync("a", true), SyncResult::synced);
	EXPECT_EQ(get(efq("a")), "default 300\n8:0 9\n");
}

TEST_F(WeightdSync, SystemdDeviceWeights)
{
	make_cgroup(root / "system.slice", "default 100\n", "default 100\n");
	make_cgroup(root / "system.slice/db.service", "default 500\n8:16 70\n", "default 100\n");
	make_cgroup(root / "system.slice/db.service/sub", "default 100\n", "default 100\n");
	make_cgroup(root / "fast", "default 100\n", "default 100\n8:0 1\n");
	FakeSystemd sd;
	sd.units["system.slice"] = {};
	// 8:16 is also io.weight's: io.weight wins
	sd.units["db.service"] = {{Dev{8, 0}, 800}, {Dev{8, 16}, 900}};
	Syncer s(root.path(), writer, &sd, log);
	ScanStats st = s.scan("", true);
	EXPECT_EQ(st.failed, 0);
	EXPECT_EQ(sd.asked, (std::vector<std::string>{"system.slice", "db.service"}));
	EXPECT_EQ(get(efq("system.slice/db.service")), "default 500\n8:0 800\n8:16 70\n");
	// not a unit: io.weight alone, its extra line removed
	EXPECT_EQ(get(efq("fast")), "default 100\n");
	EXPECT_EQ(get(efq("system.slice/db.service/sub")), "default 100\n");

	// The unit's IODeviceWeight= dropped: the line goes.
	sd.units["db.service"] = {};
	writer.writes.clear();
	EXPECT_EQ(s.sync("system.slice/db.service", true), SyncResult::synced);
	EXPECT_EQ(writer.lines_to(efq("system.slice/db.service")),
		  std::vector<std::string>{"8:0 default"});
}

TEST_F(WeightdSync, SystemdFailureKeepsItsLines)
{
	make_cgroup(root / "system.slice/db.service", "default 500\n", "default 100\n8:0 800\n");
	FakeSystemd sd; // knows no unit: every question fails
	Syncer s(root.path(), writer, &sd, log);
	EXPECT_EQ(s.sync("system.slice/db.service", true), SyncResult::synced);
	EXPECT_EQ(get(efq("system.slice/db.service")), "default 500\n8:0 800\n");
	// Not asked: the same.
	sd.asked.clear();
	put(root / "system.slice/db.service/io.weight", "default 600\n");
	EXPECT_EQ(s.sync("system.slice/db.service", false), SyncResult::synced);
	EXPECT_TRUE(sd.asked.empty());
	EXPECT_EQ(get(efq("system.slice/db.service")), "default 600\n8:0 800\n");
}

TEST_F(WeightdSync, WalkTreeParentsFirstNoSymlinks)
{
	fs::create_directories(root / "a/b/c");
	fs::create_directories(root / "d");
	fs::create_directory_symlink(root / "a", root / "d/link");
	std::vector<std::string> seen;
	walk_tree(root.path(), "", [&](const std::string &r) { seen.push_back(r); });
	std::sort(seen.begin() + 1, seen.end());
	EXPECT_EQ(seen, (std::vector<std::string>{"", "a", "a/b", "a/b/c", "d"}));
	seen.clear();
	walk_tree(root.path(), "a/b", [&](const std::string &r) { seen.push_back(r); });
	EXPECT_EQ(seen, (std::vector<std::string>{"a/b", "a/b/c"}));
	seen.clear();
	walk_tree(root.path(), "gone", [&](const std::string &r) { seen.push_back(r); });
	EXPECT_TRUE(seen.empty());
}

TEST(WeightdUevent, ParseModuleUevent)
{
	auto ev = [](const std::string &s) {
		return parse_module_uevent(s.data(), s.size(), "efq");
	};
	using namespace std::string_literals;
	EXPECT_EQ(
		ev("add@/module/efq\0ACTION=add\0DEVPATH=/module/efq\0SUBSYSTEM=module\0SEQNUM=5\0"s),
		ModuleEvent::add);
	EXPECT_EQ(ev("remove@/module/efq\0ACTION=remove\0DEVPATH=/module/efq\0SUBSYSTEM=module\0"s),
		  ModuleEvent::remove);
	EXPECT_EQ(ev("add@/module/efqx\0ACTION=add\0DEVPATH=/module/efqx\0"s), ModuleEvent::none);
	EXPECT_EQ(ev("add@/module/cfq_iosched\0ACTION=add\0DEVPATH=/module/cfq_iosched\0"s),
		  ModuleEvent::none);
	EXPECT_EQ(
		ev("change@/devices/virtual/block/loop0\0ACTION=change\0DEVPATH=/devices/virtual/block/loop0\0"s),
		ModuleEvent::none);
	// udev's re-broadcasts
	EXPECT_EQ(ev("libudev\0ACTION=add\0DEVPATH=/module/efq\0"s), ModuleEvent::none);
	EXPECT_EQ(ev(""), ModuleEvent::none);
}

} // namespace
