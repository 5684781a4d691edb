// SPDX-License-Identifier: GPL-2.0
// A Host for the workload tests: an event queue and a fixed-latency device
// with no block layer in between.  Every IO takes latency_ns of service;
// with servers = 0 all IOs are served at once (infinite parallelism), with
// servers = N at most N at a time, first come first served -- or, when
// weights are given, by weighted round robin among the cgroups the IOs are
// charged to (a crude stand-in for a proportional scheduler).  It records
// every IO and the in-flight high-water mark of every task.
#pragma once

#include "workload/host.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace efqsim::workload::testing {

class FakeHost : public Host {
public:
	struct Record {
		TaskId task = 0;
		Io io;
		int64_t submitted = 0, done = 0;
	};

	explicit FakeHost(int64_t latency_ns = 100'000, unsigned int servers = 0,
			  uint64_t capacity = uint64_t{1} << 30)
	    : latency_(latency_ns), servers_(servers), capacity_(capacity)
	{
	}

	int64_t now() const override { return now_; }

	void at(int64_t when, std::function<void()> fn) override
	{
		if (when < now_)
			bad_times++;
		events_.emplace(std::make_pair(when, seq_++), std::move(fn));
	}

	TaskId create_task(const TaskSpec &spec) override
	{
		if (refuse_tasks)
			return 0;
		tasks.push_back(spec);
		return static_cast<TaskId>(tasks.size());
	}

	void submit(TaskId task, const Io &io, std::function<void(int64_t)> done) override
	{
		if (io.offset + io.bytes > capacity_ || io.bytes == 0)
			bad_ios++;
		const size_t idx = records.size();
		records.push_back(Record{task, io, now_, 0});
		auto &n = inflight[task];
		n++;
		max_inflight[task] = std::max(max_inflight[task], n);
		const TaskId owner = io.charge_to ? io.charge_to : task;
		const std::string &cg =
			owner && owner <= tasks.size() ? tasks[owner - 1].cgroup : "";
		queues_[weights.empty() ? std::string() : cg].emplace_back(idx, std::move(done));
		dispatch();
	}

	uint64_t capacity_bytes() const override { return capacity_; }

	// Runs events up to @until (inclusive), or until none is left.
	void run(int64_t until = std::numeric_limits<int64_t>::max())
	{
		while (!events_.empty() && events_.begin()->first.first <= until) {
			auto node = events_.extract(events_.begin());
			now_ = node.key().first;
			node.mapped()();
		}
	}

	// Runs until @pred is true or nothing is left.
	template <typename Pred> void run_until(Pred pred)
	{
		while (!events_.empty() && !pred()) {
			auto node = events_.extract(events_.begin());
			now_ = node.key().first;
			node.mapped()();
		}
	}

	bool idle() const { return events_.empty(); }

	std::vector<TaskSpec> tasks;
	std::vector<Record> records;
	std::map<TaskId, unsigned int> inflight, max_inflight;
	int bad_times = 0, bad_ios = 0;
	bool refuse_tasks = false; // create_task() fails
	// cgroup -> weight: serve by weighted round robin (servers > 0 only)
	std::map<std::string, double> weights;

private:
	// The queue to serve next: the only one, or the backlogged cgroup with
	// the least weighted service.
	std::deque<std::pair<size_t, std::function<void(int64_t)>>> *next_queue()
	{
		std::deque<std::pair<size_t, std::function<void(int64_t)>>> *best = nullptr;
		double best_v = 0;
		for (auto &[cg, q] : queues_) {
			if (q.empty())
				continue;
			const double v = vtime_[cg];
			if (!best || v < best_v) {
				best = &q;
				best_v = v;
			}
		}
		if (best && !weights.empty()) {
			for (auto &[cg, q] : queues_) {
				if (&q != best)
					continue;
				auto w = weights.find(cg);
				vtime_[cg] += 1.0 / (w == weights.end() ? 1.0 : w->second);
				// A cgroup coming back from idle does not get credit.
				for (auto &[c2, q2] : queues_)
					if (q2.empty() && vtime_[c2] < vtime_[cg] - 1)
						vtime_[c2] = vtime_[cg] - 1;
			}
		}
		return best;
	}

	void dispatch()
	{
		while (servers_ == 0 || busy_ < servers_) {
			auto *queue = next_queue();
			if (!queue)
				break;
			auto [idx, done] = std::move(queue->front());
			queue->pop_front();
			busy_++;
			const int64_t when = now_ + latency_;
			at(when, [this, idx, done = std::move(done), when]() {
				busy_--;
				records[idx].done = when;
				inflight[records[idx].task]--;
				done(when);
				dispatch();
			});
		}
	}

	int64_t now_ = 0;
	uint64_t seq_ = 0;
	int64_t latency_;
	unsigned int servers_;
	unsigned int busy_ = 0;
	uint64_t capacity_;
	std::map<std::pair<int64_t, uint64_t>, std::function<void()>> events_;
	std::map<std::string, std::deque<std::pair<size_t, std::function<void(int64_t)>>>> queues_;
	std::map<std::string, double> vtime_;
};

} // namespace efqsim::workload::testing
