// SPDX-License-Identifier: GPL-2.0
// The efq-weightd program end to end on a fake tree: the command line,
// --once and its exit status, the daemon following changes, SIGHUP,
// idling, SIGTERM; and `make install-weightd-files`.
#include <gtest/gtest.h>

#include <sys/sysmacros.h>

#include "weightd_test.h"

namespace {

using namespace weightd_test;

struct WeightdProgram : ::testing::Test {
	TempDir root;
	TempDir work; // logs, scripts, a fake sysfs
	std::string log = work / "log";
	std::string efq(const std::string &rel) { return root / (rel + "/io.efq.io_weight"); }
	bool holds(const std::string &rel, const std::string &text)
	{
		return get(efq(rel)) == text;
	}
	// The program with --root and an empty sysfs (efq not loaded), systemd
	// not asked unless args say so, deaf to the host's uevents (whose
	// overflow would rescan at any time).
	std::vector<std::string> args(std::vector<std::string> more)
	{
		fs::create_directories(work / "sys");
		std::vector<std::string> a{"--root",	  root.path(),	      "--sysfs",
					   work / "sys",  "--systemd-marker", work / "no-systemd",
					   "--no-uevents"};
		a.insert(a.end(), more.begin(), more.end());
		return a;
	}
	int run_once(std::vector<std::string> more, bool as_nobody = false)
	{
		Child c(args(std::move(more)), log, as_nobody);
		return c.wait();
	}
};

TEST_F(WeightdProgram, Help)
{
	Child c({"--help"}, log);
	EXPECT_EQ(c.wait(), 0);
	EXPECT_NE(c.output().find("usage: efq-weightd"), std::string::npos) << c.output();
}

TEST_F(WeightdProgram, UsageErrors)
{
	struct {
		std::vector<std::string> argv;
		const char *says;
	} cases[] = {
		{{"--bogus"}, "unknown argument '--bogus'"},
		{{"--root"}, "--root needs a value"},
		{{"--root", "/nonexistent/cgroup"}, "/nonexistent/cgroup: not a directory"},
		{{"--root", "/etc/hostname"}, "not a directory"},
		{{"--once=yes"}, "--once takes no value"},
		{{"--systemctl-timeout", "soon"}, "not a number"},
		{{"extra"}, "unknown argument 'extra'"},
	};
	for (const auto &k : cases) {
		Child c(k.argv, log);
		EXPECT_EQ(c.wait(), 2) << k.argv[0];
		EXPECT_NE(c.output().find(k.says), std::string::npos) << c.output();
		EXPECT_NE(c.output().find("usage:"), std::string::npos) << c.output();
	}
}

TEST_F(WeightdProgram, OnceSyncsAndExitsZero)
{
	make_cgroup(root / "a", "default 7475\n", "default 100\n");
	make_cgroup(root / "a/b", "default 50\n", "default 50\n");
	make_cgroup(root / "noio", "", "");
	make_cgroup(root / "noefq", "default 300\n", "");
	EXPECT_EQ(run_once({"--once"}), 0) << get(log);
	EXPECT_EQ(get(efq("a")), "default 7475\n");
	EXPECT_EQ(get(efq("a/b")), "default 50\n");
	EXPECT_FALSE(fs::exists(efq("noefq")));
	EXPECT_EQ(get(log), ""); // quiet when all is well
}

TEST_F(WeightdProgram, OnceVerboseSaysWhatItWrites)
{
	make_cgroup(root / "a", "default 300\n", "default 100\n");
	EXPECT_EQ(run_once({"--once", "--verbose"}), 0);
	EXPECT_NE(get(log).find("/a: io.efq.io_weight <- default 300"), std::string::npos)
		<< get(log);
}

// A kernel without iocost: efq owns io.weight itself (the same data as
// io.efq.io_weight); the root lists io but has no io.cost.qos.  Copying
// would only feed efq its own output: the program says so and exits 0.
TEST_F(WeightdProgram, NothingToCopyWhereIoWeightIsEfqsOwn)
{
	put(root / "cgroup.controllers", "cpuset cpu io memory pids\n");
	make_cgroup(root / "a", "default 300\n", "default 100\n");
	EXPECT_EQ(run_once({"--once"}), 0) << get(log);
	EXPECT_EQ(get(efq("a")), "default 100\n");
	EXPECT_NE(get(log).find("is efq's own file"), std::string::npos) << get(log);
	Child daemon(args({}), log);
	EXPECT_EQ(daemon.wait(), 0);
	// with iocost (io.cost.qos in the root) io.weight is copied
	put(root / "io.cost.qos", "");
	EXPECT_EQ(run_once({"--once"}), 0) << get(log);
	EXPECT_EQ(get(efq("a")), "default 300\n");
}

TEST_F(WeightdProgram, OnceEfqNotLoadedIsQuietSuccess)
{
	make_cgroup(root / "a", "default 300\n", "");
	make_cgroup(root / "b", "default 400\n", "");
	EXPECT_EQ(run_once({"--once"}), 0) << get(log);
	EXPECT_EQ(get(log), "");
}

TEST_F(WeightdProgram, OnceReadOnlyExitsOne)
{
	make_cgroup(root / "ro", "default 300\n", "default 100\n");
	make_cgroup(root / "rw", "default 400\n", "default 100\n");
	chmod(efq("ro").c_str(), 0444);
	chmod(efq("rw").c_str(), 0666);
	// as nobody, so that the mode counts even when the test runs as root
	EXPECT_EQ(run_once({"--once"}, true), 1) << get(log);
	EXPECT_EQ(get(efq("ro")), "default 100\n");
	EXPECT_EQ(get(efq("rw")), "default 400\n");
	EXPECT_NE(get(log).find("/ro: cannot write io.efq.io_weight"), std::string::npos)
		<< get(log);
	EXPECT_NE(get(log).find("1 cgroups could not be synced: /ro"), std::string::npos)
		<< get(log);
}

TEST_F(WeightdProgram, OnceMalformedExitsOne)
{
	make_cgroup(root / "bad", "default 300\n8:0 x\n", "default 100\n");
	EXPECT_EQ(run_once({"--once"}), 1);
	EXPECT_EQ(get(efq("bad")), "default 300\n"); // the good line still
	EXPECT_NE(get(log).find("/bad: io.weight: line 2 '8:0 x'"), std::string::npos) << get(log);
}

long cpu_ticks(pid_t pid)
{
	std::string stat = get("/proc/" + std::to_string(pid) + "/stat");
	auto paren = stat.rfind(')');
	if (paren == std::string::npos)
		return -1;
	std::istringstream in(stat.substr(paren + 2));
	std::string f;
	long utime = 0, stime = 0;
	// fields 3.. after the command; utime and stime are 14 and 15
	for (int i = 3; i <= 15 && in >> f; i++) {
		if (i == 14)
			utime = std::stol(f);
		if (i == 15)
			stime = std::stol(f);
	}
	return utime + stime;
}

TEST_F(WeightdProgram, DaemonFollowsChangesIdlesAndStops)
{
	make_cgroup(root / "a", "default 300\n", "default 100\n");
	Child d(args({}), log);
	ASSERT_TRUE(eventually([&] { return get(log).find("started on") != std::string::npos; }))
		<< get(log);
	EXPECT_EQ(get(efq("a")), "default 300\n");
	EXPECT_NE(get(log).find("efq not loaded"), std::string::npos) << get(log);

	// A new cgroup, made the way a test can: directory, then files
	fs::create_directories(root / "a/new");
	put(root / "a/new/io.efq.io_weight", "default 100\n");
	put(root / "a/new/io.weight", "default 7475\n");
	EXPECT_TRUE(eventually([&] { return holds("a/new", "default 7475\n"); }))
		<< get(efq("a/new")) << get(log);
	// and io.weight modified
	put(root / "a/new/io.weight", "default 250\n");
	EXPECT_TRUE(eventually([&] { return holds("a/new", "default 250\n"); }))
		<< get(efq("a/new"));
	put(root / "a/io.weight", "default 1000\n");
	EXPECT_TRUE(eventually([&] { return holds("a", "default 1000\n"); }));

	// Idle when nothing changes: no CPU over a second (loose bound)
	long t0 = cpu_ticks(d.pid());
	std::this_thread::sleep_for(std::chrono::seconds(1));
	long t1 = cpu_ticks(d.pid());
	ASSERT_GE(t0, 0);
	EXPECT_LT(t1 - t0, 5) << "ticks used while idle";

	kill(d.pid(), SIGTERM);
	EXPECT_EQ(d.wait(), 0) << d.output();
	EXPECT_NE(d.output().find("exiting on"), std::string::npos) << d.output();
}

TEST_F(WeightdProgram, SighupRescans)
{
	make_cgroup(root / "a", "default 300\n", "");
	Child d(args({}), log);
	ASSERT_TRUE(eventually([&] { return get(log).find("started on") != std::string::npos; }))
		<< get(log);
	// efq's file appears (as when the module loads: kernfs makes it
	// without an inotify event the daemon acts on); SIGHUP picks it up.
	put(efq("a"), "default 100\n");
	std::this_thread::sleep_for(std::chrono::milliseconds(200));
	EXPECT_EQ(get(efq("a")), "default 100\n"); // nothing acts on its creation
	kill(d.pid(), SIGHUP);
	EXPECT_TRUE(eventually([&] { return holds("a", "default 300\n"); })) << get(log);
	EXPECT_NE(get(log).find("SIGHUP"), std::string::npos) << get(log);
	kill(d.pid(), SIGINT);
	EXPECT_EQ(d.wait(), 0);
}

// systemd's IODeviceWeight= through a fake systemctl and a fake sysfs in
// which the temporary files' device is a partition of disk 259:77.
TEST_F(WeightdProgram, SystemdDeviceWeightThroughSystemctl)
{
	std::string file = work / "data";
	put(file, "x");
	struct stat st;
	ASSERT_EQ(stat(file.c_str(), &st), 0);
	if (major(st.st_dev) == 0)
		GTEST_SKIP() << "temporary files are not on a block device here";
	std::string me = std::to_string(major(st.st_dev)) + ":" + std::to_string(minor(st.st_dev));
	std::string disk = work / "sys/devices/fakedisk";
	fs::create_directories(disk + "/fakedisk1");
	put(disk + "/dev", "259:77\n");
	put(disk + "/fakedisk1/dev", me + "\n");
	put(disk + "/fakedisk1/partition", "1\n");
	fs::create_directories(work / "sys/dev/block");
	fs::create_symlink("../../devices/fakedisk/fakedisk1", work / ("sys/dev/block/" + me));
	std::string script = work / "systemctl";
	put(script, "#!/bin/sh\n"
		    "[ \"$3\" = db.service ] && echo 'IODeviceWeight=" +
			    file + " 800'\nexit 0\n");
	chmod(script.c_str(), 0755);

	make_cgroup(root / "system.slice", "default 100\n", "default 100\n");
	make_cgroup(root / "system.slice/db.service", "default 500\n", "default 100\n");
	make_cgroup(root / "other", "default 100\n", "default 100\n");
	EXPECT_EQ(run_once({"--once", "--systemctl", script, "--verbose"}), 0) << get(log);
	// two lines were written to db.service's file (O_TRUNC: the last
	// one stays in a regular file)
	EXPECT_NE(get(log).find("/system.slice/db.service: io.efq.io_weight <- default 500"),
		  std::string::npos)
		<< get(log);
	EXPECT_NE(get(log).find("/system.slice/db.service: io.efq.io_weight <- 259:77 800"),
		  std::string::npos)
		<< get(log);
	EXPECT_EQ(get(log).find("/other: io.efq.io_weight <-"), std::string::npos) << get(log);

	// --no-systemd: not asked
	put(efq("system.slice/db.service"), "default 500\n");
	EXPECT_EQ(run_once({"--once", "--systemctl", script, "--verbose", "--no-systemd"}), 0);
	EXPECT_EQ(get(log).find("259:77"), std::string::npos) << get(log);
}

TEST_F(WeightdProgram, SystemctlTimeoutFallsBackToIoWeight)
{
	std::string script = work / "systemctl";
	put(script, "#!/bin/sh\nexec sleep 60\n");
	chmod(script.c_str(), 0755);
	make_cgroup(root / "system.slice/db.service", "default 500\n", "default 100\n");
	EXPECT_EQ(run_once({"--once", "--systemctl", script, "--systemctl-timeout", "300"}), 0)
		<< get(log);
	EXPECT_EQ(get(efq("system.slice/db.service")), "default 500\n");
	EXPECT_NE(get(log).find("no answer within 300 ms"), std::string::npos) << get(log);
}

TEST_F(WeightdProgram, InstallIntoDestdir)
{
	std::string cmd = "make -s -C " + std::string(EFQ_SOURCE_DIR) +
			  " install-weightd-files DESTDIR=" + work.path() +
			  " WEIGHTD_BIN=" + EFQ_WEIGHTD_PATH + " >" + log + " 2>&1";
	ASSERT_EQ(std::system(cmd.c_str()), 0) << get(log);
	std::string bin = work / "usr/local/sbin/efq-weightd";
	std::string unit = work / "etc/systemd/system/efq-weightd.service";
	EXPECT_EQ(access(bin.c_str(), X_OK), 0);
	ASSERT_TRUE(fs::exists(unit));
	EXPECT_NE(get(unit).find("ExecStart=/usr/local/sbin/efq-weightd"), std::string::npos);
	EXPECT_EQ(std::system((bin + " --help >/dev/null").c_str()), 0);
}

} // namespace
