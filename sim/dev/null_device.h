// SPDX-License-Identifier: GPL-2.0
// efqsim "null": a fixed latency per request and an optional bandwidth cap,
// completing requests in the order they were submitted (like null_blk).
#pragma once

#include "device.h"
#include "params.h"

#include <map>
#include <queue>
#include <set>

namespace efqsim::dev {

struct NullParams {
	uint64_t capacity_sectors = 2147483648; // 1 TiB
	uint32_t queue_depth = 64;
	double latency_us = 100;
	double bandwidth_mbps = 0; // 0: no cap
	bool rotational = false;   // as /sys/block/nullbN/queue/rotational
};

const std::vector<Param<NullParams>> &null_param_table();
std::string null_check(const NullParams &p, std::vector<std::string> *keys);

class NullDevice final : public Device {
public:
	explicit NullDevice(const NullParams &p);

	std::string name() const override { return "null"; }
	uint32_t queue_depth() const override { return p_.queue_depth; }
	bool rotational() const override { return p_.rotational; }
	uint64_t capacity_sectors() const override { return p_.capacity_sectors; }
	uint32_t in_flight() const override { return in_flight_; }
	void submit(const Request &rq, int64_t now) override;
	int64_t next_event() const override;
	void advance(int64_t now, std::vector<Completion> &out) override;
	const std::vector<int64_t> &busy_by_tag() const override { return busy_; }
	int64_t busy_total() const override { return busy_total_; }
	std::string params() const override;

private:
	struct Later {
		bool operator()(const Completion &a, const Completion &b) const
		{
			return a.time != b.time ? a.time > b.time : a.id > b.id;
		}
	};

	NullParams p_;
	int64_t latency_ns_;
	double ns_per_byte_; // 0: no cap

	int64_t now_ = 0;
	uint32_t in_flight_ = 0;
	int64_t link_free_ = 0;
	std::set<uint64_t> ids_;
	std::priority_queue<Completion, std::vector<Completion>, Later> done_;
	std::map<uint64_t, std::pair<uint32_t, int64_t>> owed_; // id -> (tag, busy ns)
	std::vector<int64_t> busy_;
	int64_t busy_total_ = 0;
};

} // namespace efqsim::dev
