// SPDX-License-Identifier: GPL-2.0
// A device for tests of the block layer model and the schedulers: it serves
// one request at a time in the order it was sent, at a fixed cost, and
// records every request (RecordingDevice::sent).
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "dev/device.h"

namespace efqtest {

// Serves one request at a time, in the order the block layer sent them,
// each taking @per_rq plus @per_sector per sector (a seek-less disk; a
// discard moves no data and takes @per_rq only), and records what it was
// sent.  Busy time is accounted to the request's tag.
class RecordingDevice final : public efqsim::dev::Device {
public:
	RecordingDevice(uint32_t depth, int64_t per_rq, int64_t per_sector = 0)
	    : depth_(depth), per_rq_(per_rq), per_sector_(per_sector)
	{
	}
	std::string name() const override { return "recording"; }
	uint32_t queue_depth() const override { return depth_; }
	bool rotational() const override { return true; }
	uint64_t capacity_sectors() const override { return 1ull << 31; }
	uint32_t in_flight() const override { return static_cast<uint32_t>(q_.size()); }
	void submit(const efqsim::dev::Request &rq, int64_t now) override
	{
		int64_t start = q_.empty() ? now : std::max(now, q_.back().second);
		int64_t cost = per_rq_ + (rq.discard ? 0 : per_sector_ * rq.sectors);
		q_.push_back({rq, start + cost});
		if (busy_.size() <= rq.tag)
			busy_.resize(rq.tag + 1);
		busy_[rq.tag] += cost;
		total_ += cost;
		sent.push_back({rq, now});
	}
	int64_t next_event() const override
	{
		return q_.empty() ? efqsim::dev::kNever : q_.front().second;
	}
	void advance(int64_t now, std::vector<efqsim::dev::Completion> &out) override
	{
		while (!q_.empty() && q_.front().second <= now) {
			out.push_back({q_.front().first.id, q_.front().second});
			q_.pop_front();
		}
	}
	const std::vector<int64_t> &busy_by_tag() const override { return busy_; }
	int64_t busy_total() const override { return total_; }

	struct Sent {
		efqsim::dev::Request rq;
		int64_t when;
	};
	std::vector<Sent> sent; // every request, in dispatch order

private:
	uint32_t depth_;
	int64_t per_rq_, per_sector_;
	std::deque<std::pair<efqsim::dev::Request, int64_t>> q_;
	std::vector<int64_t> busy_;
	int64_t total_ = 0;
};

} // namespace efqtest
