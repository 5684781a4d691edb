// SPDX-License-Identifier: GPL-2.0
// A Host for the workload tests: an event queue and a fixed-latency device
// with no block layer in between.  Every IO takes latency_ns of service;
// with servers = 0 all IOs are served at once (infinite parallelism), with
// servers = N at most N at a time, first come first served.  It records
// every IO and the in-flight high-water mark of every task.
#pragma once

#include "workload/host.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <map>
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
		queue_.emplace_back(idx, std::move(done));
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

private:
	void dispatch()
	{
		while (!queue_.empty() && (servers_ == 0 || busy_ < servers_)) {
			auto [idx, done] = std::move(queue_.front());
			queue_.pop_front();
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
	std::deque<std::pair<size_t, std::function<void(int64_t)>>> queue_;
};

} // namespace efqsim::workload::testing
