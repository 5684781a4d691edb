// SPDX-License-Identifier: GPL-2.0
// efqsim "multipath": paths in front of an IOPS-bound backend, and the
// request-based sequential-IO merge deadline.
//
// A request takes a slot on one path (the path with the fewest requests in
// flight, lowest index first, or the next path with room in round-robin
// order) until it completes.  The backend serves requests in submission
// order on `channels` servers; a request occupies one for request_us plus
// its bytes at bandwidth_mbps, and completes when that ends.
//
// The merge deadline, as request-based dm's dm_request_fn() applies it in
// the 2015 patch series that added rq_based_seq_io_merge_deadline: with a
// non-zero deadline,
// each submit() records where the request ended, its direction and when it
// started; defer_until() then asks a request to wait until the deadline
// after that start when all five conditions hold: (1) now <= last start +
// deadline, (2) something is in flight, (3) the request's first bio has one
// segment, (4) it starts where the last started request ended, (5) same
// direction.  With the deadline 0 nothing is recorded and nothing checked.

#include "multipath.h"

#include <algorithm>
#include <cerrno>
#include <cmath>

namespace efqsim::dev {

const std::vector<Param<MultipathParams>> &multipath_param_table()
{
	using P = MultipathParams;
	static const std::vector<Param<P>> table = {
		{"capacity_sectors", "sectors", "capacity (default: 1 TiB)", 2048, 1ull << 40,
		 &P::capacity_sectors},
		{"paths", "", "paths to the backend", 1, 64, &P::paths},
		{"path_queue_depth", "", "requests each path accepts at once", 1, 1024,
		 &P::path_queue_depth},
		{"round_robin", "bool", "path selector: 0 queue-length, 1 round-robin", 0, 1,
		 &P::round_robin},
		{"bio_based", "bool", "bio-based dm (the merge deadline does nothing)", 0, 1,
		 &P::bio_based},
		{"request_us", "us", "backend time per request (the IOPS bound)", 0, 1e6,
		 &P::request_us},
		{"bandwidth_mbps", "MB/s", "backend per-byte cost (0: none)", 0, 1e6,
		 &P::bandwidth_mbps},
		{"channels", "", "requests the backend serves at once", 1, 1024, &P::channels},
		{"rq_based_seq_io_merge_deadline", "us",
		 "request-based dm merge deadline (0: off; above 100000 clamped)", 0, 4294967295.0,
		 &P::rq_based_seq_io_merge_deadline},
	};
	return table;
}

std::string multipath_check(const MultipathParams &p, std::vector<std::string> *keys)
{
	if (uint64_t(p.paths) * p.path_queue_depth > kMaxTags) {
		*keys = {"paths", "path_queue_depth"};
		return "paths x path_queue_depth (" + std::to_string(p.paths * p.path_queue_depth) +
		       ") above " + std::to_string(kMaxTags);
	}
	if (p.request_us <= 0 && p.bandwidth_mbps <= 0) {
		*keys = {"request_us", "bandwidth_mbps"};
		return "request_us and bandwidth_mbps both 0: the backend would take no time";
	}
	return "";
}

Multipath::Multipath(const MultipathParams &p)
    : p_(p), ns_per_byte_(p.bandwidth_mbps > 0 ? 1e9 / (p.bandwidth_mbps * 1e6) : 0),
      request_ns_(std::llround(p.request_us * 1e3)), path_in_flight_(p.paths, 0),
      channel_free_(p.channels, 0), busy_(kMaxTags, 0)
{
	p_.rq_based_seq_io_merge_deadline =
		std::min<uint64_t>(p_.rq_based_seq_io_merge_deadline, kMergeDeadlineMaxUs);
	stats_.per_path.assign(p.paths, 0);
}

std::string Multipath::params() const
{
	return dump_params("multipath", multipath_param_table(), p_);
}

int Multipath::store_merge_deadline(std::string_view text)
{
	// kstrtouint(buf, 10, ...): one trailing newline, an optional '+'
	if (!text.empty() && text.back() == '\n')
		text.remove_suffix(1);
	if (!text.empty() && text.front() == '+')
		text.remove_prefix(1);
	uint64_t v;
	if (!parse_integer(text, &v)) {
		bool digits = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
			return c >= '0' && c <= '9';
		});
		return digits ? -ERANGE : -EINVAL;
	}
	if (v > 4294967295ull)
		return -ERANGE;
	if (p_.bio_based)
		return 0;
	p_.rq_based_seq_io_merge_deadline = std::min<uint64_t>(v, kMergeDeadlineMaxUs);
	if (!p_.rq_based_seq_io_merge_deadline)
		last_start_ = -1;
	return 0;
}

std::string Multipath::show_merge_deadline() const
{
	return p_.bio_based ? "0" : std::to_string(p_.rq_based_seq_io_merge_deadline);
}

int64_t Multipath::defer_until(const Request &rq, int64_t now)
{
	uint64_t deadline_us = p_.bio_based ? 0 : p_.rq_based_seq_io_merge_deadline;
	if (!deadline_us)
		return 0;
	stats_.checked++;
	int64_t deadline_ns = static_cast<int64_t>(deadline_us) * 1000;
	Decision d;
	d.now = now;
	d.sector = rq.sector;
	d.before_deadline = last_start_ >= 0 && now <= last_start_ + deadline_ns;
	d.in_flight = in_flight_ > 0;
	d.single_segment = rq.first_bio_segments == 1;
	d.contiguous = last_start_ >= 0 && rq.sector == last_end_;
	d.same_direction = last_start_ >= 0 && rq.write == last_write_;
	d.deferred = d.before_deadline && d.in_flight && d.single_segment && d.contiguous &&
		     d.same_direction;
	if (trace)
		trace(d);
	if (!d.deferred)
		return 0;
	stats_.deferred++;
	return last_start_ + deadline_ns + 1;
}

uint32_t Multipath::pick_path()
{
	if (p_.round_robin) {
		for (uint32_t i = 0; i < p_.paths; i++) {
			uint32_t c = (rr_next_ + i) % p_.paths;
			if (path_in_flight_[c] < p_.path_queue_depth) {
				rr_next_ = (c + 1) % p_.paths;
				return c;
			}
		}
		return 0; // unreachable: check_submit() saw a free slot
	}
	return static_cast<uint32_t>(
		std::min_element(path_in_flight_.begin(), path_in_flight_.end()) -
		path_in_flight_.begin());
}

void Multipath::submit(const Request &rq, int64_t now)
{
	check_submit(*this, rq, now, now_, ids_.count(rq.id) > 0);
	now_ = now;
	uint32_t path = pick_path();
	path_in_flight_[path]++;
	stats_.per_path[path]++;
	in_flight_++;

	// a discard moves no data: the backend's cost per request only
	int64_t cost = request_ns_;
	if (ns_per_byte_ > 0 && !rq.discard)
		cost += std::llround(uint64_t(rq.sectors) * 512 * ns_per_byte_);
	auto ch = std::min_element(channel_free_.begin(), channel_free_.end());
	int64_t start = std::max(*ch, now);
	*ch = start + cost;
	done_.push({rq.id, *ch});
	ids_[rq.id] = {path, rq.tag, cost};

	if (!p_.bio_based && p_.rq_based_seq_io_merge_deadline) {
		// dm_start_request(): only with the deadline set
		last_end_ = rq.sector + rq.sectors;
		last_write_ = rq.write;
		last_start_ = now;
		stats_.recorded++;
	}
}

int64_t Multipath::next_event() const
{
	return done_.empty() ? kNever : done_.top().time;
}

void Multipath::advance(int64_t now, std::vector<Completion> &out)
{
	if (now != kNever)
		now_ = std::max(now_, now);
	while (!done_.empty() && done_.top().time <= now) {
		out.push_back(done_.top());
		auto it = ids_.find(done_.top().id);
		// busy: backend time over the channels, so a saturated backend
		// accrues busy time at wall-clock rate
		int64_t b = it->second.cost / p_.channels;
		busy_[it->second.tag] += b;
		busy_total_ += b;
		path_in_flight_[it->second.path]--;
		ids_.erase(it);
		done_.pop();
		in_flight_--;
	}
}

} // namespace efqsim::dev
