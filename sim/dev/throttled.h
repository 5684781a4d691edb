// SPDX-License-Identifier: GPL-2.0
// efqsim "qemu-nvme", "qemu-sata", "qemu-virtio": a disk that qemu emulates
// on a fast host file and throttles (-drive throttling.iops-total,
// throttling.bps-total): the guest's commands wait in qemu's leaky buckets,
// in arrival order, and each then takes a small fixed time.  The three
// names are presets of one model, the disks `make vmtest` gives its guest
// (scripts/vm/vmtest, tests/vm/35-disks.sh).  Documentation/sim/devices.rst
// describes the model and every parameter.
#pragma once

#include "device.h"
#include "params.h"

#include <array>
#include <deque>
#include <map>
#include <queue>

namespace efqsim::dev {

// qemu's largest accepted throttling value (THROTTLE_VALUE_MAX, 10^15).
inline constexpr uint64_t kThrottleValueMax = 1000000000000000ull;

struct ThrottledParams {
	uint64_t capacity_sectors = 8388608; // 4 GiB, vmtest's disk files
	uint32_t hw_queues = 2;		     // hardware queues the guest sees
	uint32_t queue_depth = 1023;	     // commands per hardware queue
	bool rotational = false;	     // what the queue says
	uint64_t iops_total = 1000;	     // IOs/s (throttling.iops-total; 0: none)
	uint64_t bps_total = 41943040;	     // bytes/s (throttling.bps-total; 0: none)
	uint64_t iops_total_max = 0;	     // burst rate (0: a bucket of iops_total / 10)
	uint64_t bps_total_max = 0;	     // burst rate (0: a bucket of bps_total / 10)
	uint64_t iops_total_max_length = 1;  // s the burst rate may last
	uint64_t bps_total_max_length = 1;   // s the burst rate may last
	uint64_t iops_size = 0;		     // bytes counted as one IO (0: every request one)
	double latency_us = 60;		     // from leaving the throttle to completion
};

// The presets, by model name: "qemu-nvme", "qemu-sata", "qemu-virtio".
// false if @model is none of them.
bool throttled_preset(const std::string &model, ThrottledParams *p);
const std::vector<Param<ThrottledParams>> &throttled_param_table();
std::string throttled_check(const ThrottledParams &p, std::vector<std::string> *keys);

class Throttled final : public Device {
public:
	// A leaky bucket of qemu's throttling (one limit: IOs or bytes).
	struct Bucket {
		double avg = 0;		 // units per second; 0: no limit
		double max = 0;		 // burst rate; 0: none (the bucket is avg / 10)
		double burst_length = 1; // seconds
		double level = 0;
		double burst_level = 0;
		// Leak @ns of time; then the wait in ns before it lets a request
		// through (0: now).
		void leak(int64_t ns);
		int64_t wait() const;
		void add(double units);
	};

	// @model: the name the device reports ("qemu-nvme", ...).
	Throttled(const ThrottledParams &p, std::string model = "qemu-nvme");

	std::string name() const override { return model_; }
	uint32_t queue_depth() const override { return p_.hw_queues * p_.queue_depth; }
	bool rotational() const override { return p_.rotational; }
	uint64_t capacity_sectors() const override { return p_.capacity_sectors; }
	uint32_t in_flight() const override { return static_cast<uint32_t>(ids_.size()); }
	void submit(const Request &rq, int64_t now) override;
	int64_t next_event() const override;
	void advance(int64_t now, std::vector<Completion> &out) override;
	const std::vector<int64_t> &busy_by_tag() const override { return busy_; }
	int64_t busy_total() const override { return busy_total_; }
	std::string params() const override;

	const ThrottledParams &throttled_params() const { return p_; }
	// Requests waiting in the throttle, per direction (0 reads, 1 writes).
	size_t throttled(int dir) const { return queue_[dir].size(); }
	const Bucket &iops_bucket() const { return iops_; }
	const Bucket &bps_bucket() const { return bps_; }

private:
	struct InFlight {
		uint32_t tag;
		double vstart; // the time-sharing clock when it came
	};
	struct Waiting {
		uint64_t id;
		uint64_t bytes;
	};
	struct Later {
		bool operator()(const Completion &a, const Completion &b) const
		{
			return a.time != b.time ? a.time > b.time : a.id > b.id;
		}
	};

	void run_timers(int64_t now);
	void leak(int64_t now);
	int64_t wait() const;
	bool must_wait(int dir, int64_t now);
	double units(uint64_t bytes) const;
	void go(int dir, int64_t now);
	void schedule_next(int dir, int64_t now);
	void start(uint64_t id, int64_t now);
	void share_until(int64_t t);
	void settle(int64_t t);

	ThrottledParams p_;
	std::string model_;
	int64_t latency_ns_;

	int64_t now_ = 0;
	Bucket iops_, bps_;
	int64_t previous_leak_ = 0;
	std::array<std::deque<Waiting>, 2> queue_;
	std::array<int64_t, 2> timer_ = {kNever, kNever};
	std::map<uint64_t, InFlight> ids_;
	// completions ahead, and those settled but not yet handed out
	std::priority_queue<Completion, std::vector<Completion>, Later> done_, ready_;
	uint32_t active_ = 0; // requests not yet completed
	double vtime_ = 0;    // time-sharing clock: ns per request in the device
	int64_t vlast_ = 0;
	std::vector<int64_t> busy_;
	int64_t busy_total_ = 0;
};

} // namespace efqsim::dev
