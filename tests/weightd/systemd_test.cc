// SPDX-License-Identifier: GPL-2.0
// systemd's device weights: which cgroups are system units, systemctl's
// output, paths to whole disks, running systemctl with a timeout.
#include <gtest/gtest.h>

#include <sys/sysmacros.h>

#include "systemd.h"
#include "weightd_test.h"

namespace {

using namespace weightd_test;

TEST(WeightdSystemd, SystemUnitOf)
{
	EXPECT_EQ(system_unit_of("system.slice/foo.service"), "foo.service");
	EXPECT_EQ(system_unit_of("system.slice"), "system.slice");
	EXPECT_EQ(system_unit_of("init.scope"), "init.scope");
	EXPECT_EQ(system_unit_of("system.slice/system-getty.slice/getty@tty1.service"),
		  "getty@tty1.service");
	EXPECT_EQ(system_unit_of("system.slice/var-lib.mount"), "var-lib.mount");
	EXPECT_EQ(system_unit_of("system.slice/dev-sda2.swap"), "dev-sda2.swap");
	EXPECT_EQ(system_unit_of("system.slice/sshd.socket"), "sshd.socket");
	EXPECT_EQ(system_unit_of("user.slice/user-1000.slice/session-3.scope"), "session-3.scope");
	EXPECT_EQ(system_unit_of("user.slice/user-1000.slice/user@1000.service"),
		  "user@1000.service");
	// systemd's escape of names that look like cgroupfs files
	EXPECT_EQ(system_unit_of("system.slice/_cpu.service"), "cpu.service");
	// a per-user manager's units
	EXPECT_FALSE(system_unit_of("user.slice/user-1000.slice/user@1000.service/app.slice"));
	EXPECT_FALSE(system_unit_of(
		"user.slice/user-1000.slice/user@1000.service/app.slice/foo.service"));
	// what a delegated unit made below itself
	EXPECT_FALSE(system_unit_of("system.slice/docker.service/payload"));
	EXPECT_FALSE(system_unit_of("system.slice/lxc.service/sub/inner.service"));
	// not unit names
	EXPECT_FALSE(system_unit_of("fast"));
	EXPECT_FALSE(system_unit_of("system.slice/foo.target"));
	EXPECT_FALSE(system_unit_of(".service"));
	EXPECT_FALSE(system_unit_of(""));
}

TEST(WeightdSystemd, ParseShow)
{
	std::vector<std::string> errors;
	auto r = parse_systemctl_show("IODeviceWeight=/dev/sda 200\n"
				      "IODeviceWeight=/dev/disk/by-id/a b 10000\n"
				      "/dev/vdb 5\n", // --value's form
				      &errors);
	EXPECT_TRUE(errors.empty());
	ASSERT_EQ(r.size(), 3u);
	EXPECT_EQ(r[0].path, "/dev/sda");
	EXPECT_EQ(r[0].weight, 200);
	EXPECT_EQ(r[1].path, "/dev/disk/by-id/a b");
	EXPECT_EQ(r[1].weight, 10000);
	EXPECT_EQ(r[2].path, "/dev/vdb");
	EXPECT_EQ(r[2].weight, 5);
}

TEST(WeightdSystemd, ParseShowEmptyAndBad)
{
	std::vector<std::string> errors;
	EXPECT_TRUE(parse_systemctl_show("", &errors).empty());
	EXPECT_TRUE(parse_systemctl_show("IODeviceWeight=\n", &errors).empty());
	EXPECT_TRUE(parse_systemctl_show("IOWeight=300\n", &errors).empty());
	EXPECT_TRUE(errors.empty());
	auto r = parse_systemctl_show("IODeviceWeight=/dev/sda\n"
				      "IODeviceWeight=/dev/sda 0\n"
				      "IODeviceWeight=/dev/sda 10001\n"
				      "IODeviceWeight=sda 100\n"
				      "IODeviceWeight=/dev/sdb 7\n",
				      &errors);
	EXPECT_EQ(errors.size(), 4u);
	ASSERT_EQ(r.size(), 1u);
	EXPECT_EQ(r[0].path, "/dev/sdb");
}

// A fake sysfs where the device of this test's temporary files is a
// partition (MAJ:MIN) of a disk 259:77, or a disk itself.
struct FakeSysfs {
	TempDir dir;
	std::string file; // a file on the device
	Dev dev;

	explicit FakeSysfs(bool partition)
	{
		file = dir / "somefile";
		put(file, "x");
		struct stat st;
		stat(file.c_str(), &st);
		dev = Dev{major(st.st_dev), minor(st.st_dev)};
		std::string disk = dir / "devices/virtual/block/fakedisk";
		fs::create_directories(disk);
		put(disk + "/dev", "259:77\n");
		std::string node = disk;
		if (partition) {
			node = disk + "/fakedisk1";
			fs::create_directories(node);
			put(node + "/partition", "1\n");
		}
		put(node + "/dev", dev_str(dev) + "\n");
		fs::create_directories(dir / "dev/block");
		fs::create_symlink(fs::relative(node, dir / "dev/block"),
				   dir / ("dev/block/" + dev_str(dev)));
	}
};

TEST(WeightdSystemd, WholeDiskOfPartition)
{
	FakeSysfs sys(true);
	if (sys.dev.major == 0)
		GTEST_SKIP() << "temporary files are not on a block device here";
	std::string why;
	auto d = whole_disk_of(sys.file, sys.dir.path(), &why);
	ASSERT_TRUE(d) << why;
	EXPECT_EQ(*d, (Dev{259, 77}));
}

TEST(WeightdSystemd, WholeDiskOfDisk)
{
	FakeSysfs sys(false);
	if (sys.dev.major == 0)
		GTEST_SKIP() << "temporary files are not on a block device here";
	std::string why;
	auto d = whole_disk_of(sys.file, sys.dir.path(), &why);
	ASSERT_TRUE(d) << why;
	EXPECT_EQ(*d, sys.dev);
}

TEST(WeightdSystemd, WholeDiskOfNothing)
{
	TempDir empty_sysfs;
	std::string why;
	EXPECT_FALSE(whole_disk_of("/nonexistent/dev/sdz", empty_sysfs.path(), &why));
	EXPECT_NE(why.find("/nonexistent/dev/sdz"), std::string::npos) << why;
	why.clear();
	// /proc is not on a block device
	EXPECT_FALSE(whole_disk_of("/proc/self/stat", "/sys", &why));
	EXPECT_FALSE(why.empty());
}

TEST(WeightdSystemd, RunCapture)
{
	std::string why;
	auto out = run_capture({"/bin/sh", "-c", "echo hello; echo err >&2"}, 10000, &why);
	ASSERT_TRUE(out) << why;
	EXPECT_EQ(*out, "hello\n");
	EXPECT_FALSE(run_capture({"/bin/sh", "-c", "exit 3"}, 10000, &why));
	EXPECT_NE(why.find("exit status 3"), std::string::npos) << why;
	EXPECT_FALSE(run_capture({"/nonexistent/systemctl"}, 10000, &why));
}

TEST(WeightdSystemd, RunCaptureTimeout)
{
	std::string why;
	auto t0 = std::chrono::steady_clock::now();
	EXPECT_FALSE(run_capture({"/bin/sh", "-c", "exec sleep 60"}, 200, &why));
	EXPECT_NE(why.find("no answer"), std::string::npos) << why;
	// killed, not waited for
	EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(30));
}

// The source end to end with a fake systemctl: the arguments it gets, the
// path resolved to the disk, failures logged and reported as unknown.
TEST(WeightdSystemd, SystemctlSource)
{
	FakeSysfs sys(true);
	if (sys.dev.major == 0)
		GTEST_SKIP() << "temporary files are not on a block device here";
	std::string script = sys.dir / "systemctl";
	std::string args = sys.dir / "args";
	put(script, "#!/bin/sh\necho \"$@\" > " + args +
			    "\n"
			    "echo 'IODeviceWeight=" +
			    sys.file +
			    " 250'\n"
			    "echo 'IODeviceWeight=/nonexistent 9'\n");
	chmod(script.c_str(), 0755);
	Logger log;
	std::vector<std::string> logged;
	log.set_sink([&](const std::string &m) { logged.push_back(m); });
	Systemctl sc(script, sys.dir.path(), 10000, log);
	auto devs = sc.device_weights("foo.service", "/system.slice/foo.service");
	ASSERT_TRUE(devs);
	EXPECT_EQ(get(args), "show --property=IODeviceWeight foo.service\n");
	ASSERT_EQ(devs->size(), 1u);
	EXPECT_EQ(devs->at(Dev{259, 77}), 250);
	ASSERT_EQ(logged.size(), 1u);
	EXPECT_NE(logged[0].find("/nonexistent"), std::string::npos) << logged[0];

	put(script, "#!/bin/sh\nexit 1\n");
	logged.clear();
	EXPECT_FALSE(sc.device_weights("foo.service", "/system.slice/foo.service"));
	ASSERT_EQ(logged.size(), 1u);
	EXPECT_NE(logged[0].find("/system.slice/foo.service"), std::string::npos) << logged[0];
}

} // namespace
