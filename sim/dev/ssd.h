// SPDX-License-Identifier: GPL-2.0
// efqsim "ssd": a flash drive with parallel units (channels with their dies),
// a write buffer and a host link.  Documentation/sim/devices.rst describes
// the model and every parameter.
#pragma once

#include "device.h"
#include "params.h"

#include <deque>
#include <map>
#include <queue>
#include <set>
#include <utility>

namespace efqsim::dev {

// Defaults: datasheet-typical values of a SATA 6 Gb/s MLC SSD (a typical
// drive, not one product); devices.rst gives the sources.
struct SsdParams {
	uint64_t capacity_sectors = 500118192; // 256 GB (IDEMA LBA count)
	uint32_t queue_depth = 32;	       // NCQ
	uint32_t channels = 8;		       // parallel units
	uint32_t page_kib = 4;		       // striping unit across channels
	double read_us = 60;		       // channel time to read a page
	double program_us = 80;		       // channel time to program a page
	double command_overhead_us = 20;       // controller latency per command
	double interface_mbps = 550;	       // SATA 6 Gb/s
	uint32_t write_buffer_kib = 4096;      // writes complete once buffered
};

const std::vector<Param<SsdParams>> &ssd_param_table();
std::string ssd_check(const SsdParams &p, std::vector<std::string> *keys);

class Ssd final : public Device {
public:
	explicit Ssd(const SsdParams &p);

	std::string name() const override { return "ssd"; }
	uint32_t queue_depth() const override { return p_.queue_depth; }
	bool rotational() const override { return false; }
	uint64_t capacity_sectors() const override { return p_.capacity_sectors; }
	uint32_t in_flight() const override { return in_flight_; }
	void submit(const Request &rq, int64_t now) override;
	int64_t next_event() const override;
	void advance(int64_t now, std::vector<Completion> &out) override;
	const std::vector<int64_t> &busy_by_tag() const override { return busy_; }
	int64_t busy_total() const override { return busy_total_; }
	std::string params() const override;

	const SsdParams &ssd_params() const { return p_; }
	uint64_t buffered_bytes() const { return buffered_; }

private:
	struct Later {
		bool operator()(const Completion &a, const Completion &b) const
		{
			return a.time != b.time ? a.time > b.time : a.id > b.id;
		}
	};
	using Free = std::pair<int64_t, uint64_t>; // (time, bytes) a program frees

	void run(int64_t until);
	void pump(int64_t t);
	void read(const Request &rq, int64_t t);
	void write(const Request &rq, int64_t t);
	int64_t link(uint64_t bytes, int64_t t);
	void charge(uint64_t id, uint32_t tag, int64_t channel_ns);

	SsdParams p_;
	int64_t overhead_ns_, read_ns_, program_ns_;
	uint64_t page_sectors_, buffer_bytes_;
	double link_ns_per_byte_;

	int64_t now_ = 0;
	uint32_t in_flight_ = 0;
	std::set<uint64_t> ids_;
	std::priority_queue<Completion, std::vector<Completion>, Later> done_;

	std::vector<int64_t> channel_free_;
	int64_t link_free_ = 0;
	std::deque<Request> waiting_; // writes and flushes, in arrival order
	uint64_t buffered_ = 0;	      // bytes accepted, not yet programmed
	std::priority_queue<Free, std::vector<Free>, std::greater<Free>> frees_;
	int64_t last_program_ = 0;

	std::map<uint64_t, std::pair<uint32_t, int64_t>> owed_; // id -> (tag, channel ns)
	std::vector<int64_t> channel_ns_; // per tag, before dividing by channels
	std::vector<int64_t> busy_;
	int64_t busy_total_ = 0;
};

} // namespace efqsim::dev
