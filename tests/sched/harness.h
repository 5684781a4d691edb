// SPDX-License-Identifier: GPL-2.0
// Scheduler tests in the simulator: a fixture that runs one scheduler (the
// real block/*-iosched.c) on the block layer model with a recording device,
// tasks in cgroups, and closed-loop jobs.  Every test ends with a drain and
// the model's invariant check; any WARN, lock error or leak fails it.
#pragma once

#include <algorithm>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include <sim/gtest_guard.h>

#include "blk/model.h"
#include "recording_device.h"

namespace efqtest {

using efqsim::blk::Config;
using efqsim::blk::Model;
using efqsim::workload::Io;
using efqsim::workload::TaskId;
using efqsim::workload::TaskSpec;
namespace dev = efqsim::dev;

constexpr int64_t kMs = 1'000'000;
constexpr int64_t kUs = 1'000;

inline TaskSpec Spec(const std::string &comm, const std::string &cgroup = "",
		     unsigned int weight = 0, int ioprio_class = 0, int ioprio = 4)
{
	TaskSpec s;
	s.comm = comm;
	s.cgroup = cgroup;
	s.cgroup_weight = weight;
	s.ioprio_class = ioprio_class;
	s.ioprio = ioprio;
	return s;
}

// The checker of tests/common/tree_walk.h on @m's engine (trees.cc, apart
// because it needs the kernel headers).
std::string CheckTrees(Model &m);

class SchedEnv : public ::testing::Environment {
public:
	void SetUp() override { efqsim::blk::ensure_modules(); }
};

class SchedTest : public SimTest {
protected:
	RecordingDevice *dev_ = nullptr;
	std::unique_ptr<Model> m_;

	// A model running @cfg.scheduler on a RecordingDevice.
	void Make(const Config &cfg, uint32_t depth = 1, int64_t per_rq = kMs,
		  int64_t per_sector = 0)
	{
		auto d = std::make_unique<RecordingDevice>(depth, per_rq, per_sector);
		dev_ = d.get();
		m_ = std::make_unique<Model>(std::move(d), cfg);
		std::string err;
		ASSERT_TRUE(m_->init(&err)) << err;
	}
	// A model on one of the built-in devices ("hdd", "ssd", "null").
	// @sched in flat or hierarchical mode.
	static Config ModeConfig(const char *sched, bool hierarchical)
	{
		Config cfg;
		cfg.scheduler = sched;
		cfg.hierarchical = hierarchical;
		return cfg;
	}
	// The VM's memory-backed null_blk: hw_queue_depth=2, 200 us completions.
	void MakeNullBlkLike(const Config &cfg) { Make(cfg, 2, 200 * kUs); }

	void MakeOn(const Config &cfg, const std::string &device)
	{
		std::string err;
		auto d = dev::make_device(device, &err);
		ASSERT_TRUE(d) << err;
		m_ = std::make_unique<Model>(std::move(d), cfg);
		ASSERT_TRUE(m_->init(&err)) << err;
	}
	void TearDown() override
	{
		if (m_) {
			EXPECT_TRUE(m_->drain(m_->now() + 3600'000 * kMs)) << "requests stuck\n"
									   << State();
			EXPECT_EQ(m_->check_invariants(), "");
		}
		m_.reset();
		SimTest::TearDown();
	}

	// The scheduler's debugfs state and service trees, for a stall's report.
	std::string State()
	{
		std::string err, out;
		for (const char *f : {"state", "service_trees"})
			out += std::string(f) + ":\n" + m_->debugfs(f, &err) + "\n";
		return out + "outstanding " + std::to_string(m_->outstanding());
	}

	// The engine's trees and counts checked now (tests/common/tree_walk.h):
	// "" if they hold, or with Linux's mq-deadline, which has no engine.
	std::string Trees() { return CheckTrees(*m_); }

	TaskId Task(const TaskSpec &spec)
	{
		TaskId t = m_->create_task(spec);
		EXPECT_NE(t, 0u) << m_->task_error();
		return t;
	}

	// Sectors of data (reads and writes) the device was sent.
	uint64_t SentSectors() const
	{
		uint64_t s = 0;
		for (const auto &x : dev_->sent)
			if (!x.rq.discard)
				s += x.rq.sectors;
		return s;
	}
	// Sectors the device was told to discard.
	uint64_t SentDiscardSectors() const
	{
		uint64_t s = 0;
		for (const auto &x : dev_->sent)
			if (x.rq.discard)
				s += x.rq.sectors;
		return s;
	}

	// One IO now; returns a slot that records its completion time.
	std::shared_ptr<int64_t> Submit(TaskId t, uint64_t offset, uint32_t bytes,
					bool write = false, bool sync = true, bool meta = false)
	{
		Io io;
		io.offset = offset;
		io.bytes = bytes;
		io.write = write;
		io.sync = sync;
		io.meta = meta;
		return Send(t, io);
	}

	// One discard of [@offset, @offset + @bytes) now, without REQ_SYNC (as
	// BLKDISCARD and fstrim send it); returns its completion slot.
	std::shared_ptr<int64_t> Discard(TaskId t, uint64_t offset, uint32_t bytes)
	{
		Io io;
		io.offset = offset;
		io.bytes = bytes;
		io.discard = true;
		io.sync = false;
		return Send(t, io);
	}

	// @io submitted now; the slot records its completion time (-1 before).
	std::shared_ptr<int64_t> Send(TaskId t, const Io &io)
	{
		auto done = std::make_shared<int64_t>(-1);
		m_->submit(t, io, [done](int64_t when) { *done = when; });
		return done;
	}

	// A closed-loop job: keeps @depth IOs of @bytes in flight until @until,
	// sequential from @start or random over [@start, @start + 1 GiB).
	struct Job {
		Model *m;
		TaskId t;
		uint32_t bytes;
		uint64_t start, next, rng;
		int64_t until;
		bool write, random, sync;
		int64_t think = 0;	  // ns between a completion and the next IO
		bool same_offset = false; // every IO at @start (aliased requests)
		uint64_t done = 0;	  // bytes completed
		uint64_t ios = 0;
		int64_t max_lat = 0;

		void Issue()
		{
			if (m->now() >= until)
				return;
			Io io;
			if (same_offset) {
				io.offset = start;
			} else if (random) {
				rng = rng * 6364136223846793005ull + 1442695040888963407ull;
				io.offset = start + ((rng >> 20) % (1ull << 18)) * 4096;
			} else {
				io.offset = next;
				next += bytes;
			}
			io.bytes = bytes;
			io.write = write;
			io.sync = sync;
			int64_t submitted = m->now();
			m->submit(t, io, [this, submitted](int64_t when) {
				done += bytes;
				ios++;
				max_lat = std::max(max_lat, when - submitted);
				if (think)
					m->at(when + think, [this] { Issue(); });
				else
					Issue();
			});
		}
	};
	std::vector<std::unique_ptr<Job>> jobs_;

	Job *Loop(TaskId t, int depth, uint32_t bytes, uint64_t start, int64_t until,
		  bool write = false, bool random = false, bool sync = true)
	{
		jobs_.push_back(
			std::make_unique<Job>(Job{m_.get(), t, bytes, start, start, start + 12345,
						  until, write, random, sync}));
		Job *j = jobs_.back().get();
		for (int i = 0; i < depth; i++)
			m_->at(m_->now(), [j] { j->Issue(); });
		return j;
	}

	// The group results by cgroup path.
	std::map<std::string, efqsim::report::GroupResult> Groups()
	{
		std::map<std::string, efqsim::report::GroupResult> out;
		for (auto &g : m_->group_results())
			out[g.path] = g;
		return out;
	}
};

// A test name part for a scheduler: "deadline-fq" -> "deadline_fq".
inline std::string SchedName(const char *sched)
{
	std::string s = sched;
	std::replace(s.begin(), s.end(), '-', '_');
	return s;
}

// The four efq schedulers, flat and hierarchical, on a device like the VM's
// memory-backed null_blk with hw_queue_depth=2 and 200 us completions:
// requests queue up in the scheduler, merge and interleave.
class SchedModeTest : public SchedTest,
		      public ::testing::WithParamInterface<std::tuple<const char *, bool>> {
protected:
	void SetUp() override
	{
		SchedTest::SetUp();
		MakeNullBlkLike(ModeConfig(std::get<0>(GetParam()), std::get<1>(GetParam())));
	}
};

inline auto AllSchedModes()
{
	return ::testing::Combine(::testing::Values("noop", "deadline-fq", "as", "cfq"),
				  ::testing::Bool());
}

inline std::string
SchedModeTestName(const ::testing::TestParamInfo<std::tuple<const char *, bool>> &info)
{
	return SchedName(std::get<0>(info.param)) + (std::get<1>(info.param) ? "_hier" : "_flat");
}

} // namespace efqtest
