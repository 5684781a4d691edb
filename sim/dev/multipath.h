// SPDX-License-Identifier: GPL-2.0
// efqsim "multipath": a dm-multipath device, N paths with a queue depth each
// in front of one IOPS-bound backend (a fixed cost per request dominating the
// cost per byte), with request-based dm's sequential-IO merge deadline
// (rq_based_seq_io_merge_deadline).  Documentation/sim/devices.rst describes
// the model and every parameter.
#pragma once

#include "device.h"
#include "params.h"

#include <functional>
#include <map>
#include <queue>
#include <string_view>

namespace efqsim::dev {

// The tunable's limits, as the dm patch series that added it (2015)
// defines them: microseconds, writes above 100000 (100 ms) are clamped to
// 100000, 0 (the default) disables the heuristic and its bookkeeping.
inline constexpr uint32_t kMergeDeadlineMaxUs = 100000;

struct MultipathParams {
	uint64_t capacity_sectors = 2147483648; // 1 TiB
	uint32_t paths = 4;
	uint32_t path_queue_depth = 32; // requests each path accepts at once
	bool round_robin = false;	// path selector: false queue-length, true round-robin
	bool bio_based = false;		// dm's queue_mode bio: the deadline does nothing
	double request_us = 10;		// backend time per request (the IOPS bound)
	double bandwidth_mbps = 2000;	// backend per-byte cost
	uint32_t channels = 1;		// requests the backend serves at once
	uint64_t rq_based_seq_io_merge_deadline = 0; // us; clamped to 100000
};

const std::vector<Param<MultipathParams>> &multipath_param_table();
std::string multipath_check(const MultipathParams &p, std::vector<std::string> *keys);

class Multipath final : public Device {
public:
	// What defer_until() saw for one request: the five conditions under
	// which dm_request_fn() leaves a request on the queue (multipath.cc
	// lists them) and whether the request was deferred.
	struct Decision {
		int64_t now = 0;
		uint64_t sector = 0;
		bool before_deadline = false; // 1: now <= last start + deadline
		bool in_flight = false;	      // 2: something in flight
		bool single_segment = false;  // 3: the first bio has one segment
		bool contiguous = false;      // 4: starts where the last started one ended
		bool same_direction = false;  // 5: same direction as the last started one
		bool deferred = false;
	};
	struct Stats {
		uint64_t checked = 0;  // defer_until() calls that tested the conditions
		uint64_t deferred = 0; // requests told to wait
		uint64_t recorded = 0; // submissions that recorded last_rq_{pos,rw,start_time}
		std::vector<uint64_t> per_path; // requests submitted per path
	};

	explicit Multipath(const MultipathParams &p);

	std::string name() const override { return "multipath"; }
	uint32_t queue_depth() const override { return p_.paths * p_.path_queue_depth; }
	bool rotational() const override { return false; }
	uint64_t capacity_sectors() const override { return p_.capacity_sectors; }
	uint32_t in_flight() const override { return in_flight_; }
	void submit(const Request &rq, int64_t now) override;
	int64_t defer_until(const Request &rq, int64_t now) override;
	int64_t next_event() const override;
	void advance(int64_t now, std::vector<Completion> &out) override;
	const std::vector<int64_t> &busy_by_tag() const override { return busy_; }
	int64_t busy_total() const override { return busy_total_; }
	std::string params() const override;

	// The sysfs attribute dm/rq_based_seq_io_merge_deadline.  store():
	// decimal microseconds (kstrtouint: an optional '+', one trailing
	// newline); 0 on success, -EINVAL for anything else, -ERANGE above
	// 4294967295; values above 100000 are clamped.  On a bio-based device
	// a valid write succeeds and is ignored.  show(): the value, "0" on a
	// bio-based device.
	int store_merge_deadline(std::string_view text);
	std::string show_merge_deadline() const;

	const MultipathParams &multipath_params() const { return p_; }
	const Stats &stats() const { return stats_; }
	uint32_t path_in_flight(uint32_t path) const { return path_in_flight_.at(path); }
	// The recorded start time of the last request; -1 when none was
	// recorded (always, with the deadline 0).
	int64_t last_rq_start_time() const { return last_start_; }
	// Called with every decision defer_until() makes (may be empty).
	std::function<void(const Decision &)> trace;

private:
	struct InFlight {
		uint32_t path;
		uint32_t tag;
		int64_t cost; // backend time
	};
	struct Later {
		bool operator()(const Completion &a, const Completion &b) const
		{
			return a.time != b.time ? a.time > b.time : a.id > b.id;
		}
	};

	uint32_t pick_path();

	MultipathParams p_;
	double ns_per_byte_;
	int64_t request_ns_;

	int64_t now_ = 0;
	uint32_t in_flight_ = 0;
	std::vector<uint32_t> path_in_flight_;
	uint32_t rr_next_ = 0;
	std::map<uint64_t, InFlight> ids_;
	std::vector<int64_t> channel_free_; // when each channel is next free
	std::priority_queue<Completion, std::vector<Completion>, Later> done_;
	std::vector<int64_t> busy_;
	int64_t busy_total_ = 0;

	// dm's md->last_rq_{pos,rw,start_time}
	uint64_t last_end_ = 0;
	bool last_write_ = false;
	int64_t last_start_ = -1;
	Stats stats_;
};

} // namespace efqsim::dev
