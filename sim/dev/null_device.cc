// SPDX-License-Identifier: GPL-2.0
// efqsim "null": completion = max(submission + latency, end of the request's
// turn on the link), the link (when capped) carrying requests one at a time
// in submission order; so requests complete in the order they came.  A
// discard moves no data: it takes the latency and nothing on the link
// (null_blk completes a discard as any other command).

#include "null_device.h"

#include <algorithm>
#include <cmath>

namespace efqsim::dev {

const std::vector<Param<NullParams>> &null_param_table()
{
	using P = NullParams;
	static const std::vector<Param<P>> table = {
		{"capacity_sectors", "sectors", "capacity (default: 1 TiB)", 2048, 1ull << 40,
		 &P::capacity_sectors},
		{"queue_depth", "", "requests accepted at once", 1, 4096, &P::queue_depth},
		{"latency_us", "us", "time from submission to completion", 0, 1e7, &P::latency_us},
		{"bandwidth_mbps", "MB/s", "bandwidth cap (0: none)", 0, 1e6, &P::bandwidth_mbps},
		{"rotational", "", "the queue says rotational (cfq idles)", 0, 1, &P::rotational},
	};
	return table;
}

std::string null_check(const NullParams &, std::vector<std::string> *)
{
	return "";
}

NullDevice::NullDevice(const NullParams &p)
    : p_(p), latency_ns_(std::llround(p.latency_us * 1e3)),
      ns_per_byte_(p.bandwidth_mbps > 0 ? 1e9 / (p.bandwidth_mbps * 1e6) : 0), busy_(kMaxTags, 0)
{
}

std::string NullDevice::params() const
{
	return dump_params("null", null_param_table(), p_);
}

void NullDevice::submit(const Request &rq, int64_t now)
{
	check_submit(*this, rq, now, now_, ids_.count(rq.id) > 0);
	now_ = now;
	int64_t end = now + latency_ns_;
	if (ns_per_byte_ > 0 && !rq.discard) {
		link_free_ = std::max(link_free_, now) +
			     std::llround(uint64_t(rq.sectors) * 512 * ns_per_byte_);
		end = std::max(end, link_free_);
	}
	ids_.insert(rq.id);
	in_flight_++;
	done_.push({rq.id, end});
	// Busy: the request's time in the device divided by the queue depth,
	// so a device kept full accrues busy time at wall-clock rate; credited
	// when advance() returns the completion.
	owed_[rq.id] = {rq.tag, (end - now) / p_.queue_depth};
}

int64_t NullDevice::next_event() const
{
	return done_.empty() ? kNever : done_.top().time;
}

void NullDevice::advance(int64_t now, std::vector<Completion> &out)
{
	if (now != kNever)
		now_ = std::max(now_, now);
	while (!done_.empty() && done_.top().time <= now) {
		out.push_back(done_.top());
		auto it = owed_.find(done_.top().id);
		busy_[it->second.first] += it->second.second;
		busy_total_ += it->second.second;
		owed_.erase(it);
		ids_.erase(done_.top().id);
		done_.pop();
		in_flight_--;
	}
}

} // namespace efqsim::dev
