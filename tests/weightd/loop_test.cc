// SPDX-License-Identifier: GPL-2.0
// The event loop in-process on a fake tree, with the writer that applies
// the kernel's per-line semantics: new cgroups, io.weight changes with
// device lines, cgroup.subtree_control, removals, renames.
#include <gtest/gtest.h>

#include <mutex>

#include <sys/eventfd.h>

#include "weightd_test.h"

namespace {

using namespace weightd_test;

struct WeightdLoop : ::testing::Test {
	TempDir root;
	SimKernelWriter writer;
	Logger log;
	std::mutex mu;
	std::vector<std::string> logged;
	std::unique_ptr<Syncer> syncer;
	std::unique_ptr<Watcher> watcher;
	int stop_fd = eventfd(0, EFD_CLOEXEC);
	std::thread loop;
	int rc = -1;

	void start()
	{
		log.set_sink([this](const std::string &m) {
			std::lock_guard<std::mutex> l(mu);
			logged.push_back(m);
		});
		syncer = std::make_unique<Syncer>(root.path(), writer, nullptr, log);
		watcher = std::make_unique<Watcher>(*syncer, log);
		ASSERT_TRUE(watcher->open());
		watcher->rescan("test");
		loop = std::thread(
			[this] { rc = run_loop(*watcher, -1, -1, stop_fd, "efq", log); });
	}
	void stop()
	{
		if (!loop.joinable())
			return;
		uint64_t one = 1;
		EXPECT_EQ(write(stop_fd, &one, sizeof(one)), 8);
		loop.join();
		EXPECT_EQ(rc, 0);
	}
	~WeightdLoop() override
	{
		stop();
		close(stop_fd);
	}
	std::string efq(const std::string &rel) { return root / (rel + "/io.efq.io_weight"); }
	bool holds(const std::string &rel, const std::string &text)
	{
		return get(efq(rel)) == text;
	}
	// A cgroup as the kernel makes it: the directory appears with its
	// files (renamed in from outside the tree).
	void mkcg(const std::string &rel, const std::string &io_weight)
	{
		std::string tmp = root.path() + ".new";
		fs::remove_all(tmp);
		make_cgroup(tmp, io_weight, "default 100\n");
		fs::rename(tmp, root / rel);
	}
};

TEST_F(WeightdLoop, FollowsNewCgroupsAndChanges)
{
	make_cgroup(root / "a", "default 300\n", "default 100\n");
	start();
	EXPECT_EQ(get(efq("a")), "default 300\n"); // the initial scan

	mkcg("a/b", "default 200\n8:0 50\n");
	EXPECT_TRUE(eventually([&] { return holds("a/b", "default 200\n8:0 50\n"); }))
		<< get(efq("a/b"));

	put(root / "a/b/io.weight", "default 200\n8:16 60\n");
	EXPECT_TRUE(eventually([&] { return holds("a/b", "default 200\n8:16 60\n"); }))
		<< get(efq("a/b"));

	// A subtree made below the new cgroup is watched too.
	mkcg("a/b/c", "default 10\n");
	EXPECT_TRUE(eventually([&] { return holds("a/b/c", "default 10\n"); }));
	put(root / "a/b/c/io.weight", "default 11\n");
	EXPECT_TRUE(eventually([&] { return holds("a/b/c", "default 11\n"); }));
	stop();
}

TEST_F(WeightdLoop, SubtreeControlSyncsChildren)
{
	fs::create_directories(root / "p/q/r");
	start();
	// io enabled in p: the children's files appear without an event
	// of their own (kernfs), then p's cgroup.subtree_control is written.
	put(root / "p/q/io.weight", "default 400\n");
	put(root / "p/q/io.efq.io_weight", "default 100\n");
	put(root / "p/q/r/io.weight", "default 401\n");
	put(root / "p/q/r/io.efq.io_weight", "default 100\n");
	put(root / "p/cgroup.subtree_control", "io\n");
	EXPECT_TRUE(eventually([&] { return holds("p/q", "default 400\n"); }));
	EXPECT_TRUE(eventually([&] { return holds("p/q/r", "default 401\n"); }));
	stop();
}

TEST_F(WeightdLoop, RemovedAndRenamedCgroups)
{
	make_cgroup(root / "x", "default 100\n", "default 100\n");
	make_cgroup(root / "x/y", "default 100\n", "default 100\n");
	start();
	size_t before = watcher->watches();
	EXPECT_EQ(before, 3u); // root, x, x/y
	fs::rename(root / "x", root / "z");
	put(root / "z/y/io.weight", "default 123\n");
	EXPECT_TRUE(eventually([&] { return holds("z/y", "default 123\n"); }));
	fs::remove_all(root / "z");
	mkcg("w", "default 77\n");
	EXPECT_TRUE(eventually([&] { return holds("w", "default 77\n"); }));
	stop();
	EXPECT_EQ(watcher->watches(), 2u); // root, w: z's watches dropped
	std::lock_guard<std::mutex> l(mu);
	for (const auto &m : logged)
		EXPECT_EQ(m.find("inotify"), std::string::npos) << m;
}

TEST_F(WeightdLoop, OwnWritesDoNotLoop)
{
	make_cgroup(root / "a", "default 300\n", "default 100\n");
	start();
	mkcg("b", "default 5\n");
	EXPECT_TRUE(eventually([&] { return holds("b", "default 5\n"); }));
	// Writes to io.efq.io_weight (the daemon's own, and this one) raise
	// IN_MODIFY too; only io.weight's changes are acted on, so this one
	// stays and nothing is written.
	put(root / "a/io.efq.io_weight", "default 999\n");
	std::this_thread::sleep_for(std::chrono::milliseconds(300));
	stop();
	EXPECT_EQ(writer.writes.size(), 2u); // a's default, b's default
	EXPECT_EQ(get(efq("a")), "default 999\n");
}

} // namespace
