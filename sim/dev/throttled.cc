// SPDX-License-Identifier: GPL-2.0
// efqsim's qemu disks: the guest's reads and writes pass qemu's throttle, a
// pair of leaky buckets (IOs and bytes) shared by both directions, and then
// take latency_us each, in parallel (the host file behind them is fast).
//
// The throttle, as qemu 7.2 applies -drive throttling.* (facts of its
// util/throttle.c and block/throttle-groups.c, in this model's terms):
// - a bucket holds a level that leaks at its rate (avg units a second) and
//   never goes below 0; a request lets it through while the level is at
//   most its size: avg / 10 without a burst setting (a tenth of a second's
//   worth), else max x max_length, and with max_length > 1 a second level,
//   leaking at max, must be at most max / 10;
// - when a request goes, it adds 1 (or bytes / iops_size) to the IO bucket
//   and its bytes to the byte bucket;
// - reads and writes queue separately, each in arrival order, each with a
//   timer of its own; a request waits when its direction's timer is armed,
//   when requests of its direction already wait, or when a bucket is over
//   its size; the last case arms the timer for when the level will be back
//   at the size (the excess over the rate, in whole nanoseconds rounded
//   down);
// - when the timer fires, the first waiting request goes without another
//   check; after a request goes, the next one of its direction goes at once
//   if the buckets allow it, else the timer is armed for it;
// - the buckets leak only when a wait is computed (an arrival with no timer
//   armed, or the next request after one went), not when a request is
//   counted in.
// Flushes and discards do not pass the throttle.

#include "throttled.h"

#include <algorithm>
#include <cmath>

namespace efqsim::dev {

namespace {

ThrottledParams sata_preset()
{
	ThrottledParams p;
	p.hw_queues = 1;
	p.queue_depth = 32;
	p.rotational = true;
	return p;
}

ThrottledParams virtio_preset()
{
	ThrottledParams p;
	p.hw_queues = 2;
	p.queue_depth = 256;
	p.rotational = true;
	return p;
}

} // namespace

bool throttled_preset(const std::string &model, ThrottledParams *p)
{
	if (model == "qemu-nvme")
		*p = ThrottledParams{};
	else if (model == "qemu-sata")
		*p = sata_preset();
	else if (model == "qemu-virtio")
		*p = virtio_preset();
	else
		return false;
	return true;
}

const std::vector<Param<ThrottledParams>> &throttled_param_table()
{
	using P = ThrottledParams;
	const double vmax = static_cast<double>(kThrottleValueMax);
	static const std::vector<Param<P>> table = {
		{"capacity_sectors", "sectors", "capacity (default: 4 GiB, vmtest's disk files)",
		 2048, 1ull << 40, &P::capacity_sectors},
		{"hw_queues", "", "hardware queues the guest sees", 1, 64, &P::hw_queues},
		{"queue_depth", "", "commands each hardware queue accepts at once", 1, 4096,
		 &P::queue_depth},
		{"rotational", "", "the queue says rotational (cfq idles)", 0, 1, &P::rotational},
		{"iops_total", "IO/s", "throttle: IOs a second, reads and writes (0: none)", 0,
		 vmax, &P::iops_total},
		{"bps_total", "B/s", "throttle: bytes a second, reads and writes (0: none)", 0,
		 vmax, &P::bps_total},
		{"iops_total_max", "IO/s", "burst rate of IOs (0: a bucket of iops_total / 10)", 0,
		 vmax, &P::iops_total_max},
		{"bps_total_max", "B/s", "burst rate of bytes (0: a bucket of bps_total / 10)", 0,
		 vmax, &P::bps_total_max},
		{"iops_total_max_length", "s", "how long the IO burst rate may last", 1, vmax,
		 &P::iops_total_max_length},
		{"bps_total_max_length", "s", "how long the byte burst rate may last", 1, vmax,
		 &P::bps_total_max_length},
		{"iops_size", "B", "bytes counted as one IO (0: every request is one)", 0, vmax,
		 &P::iops_size},
		{"latency_us", "us", "time from leaving the throttle to completion", 0, 1e7,
		 &P::latency_us},
	};
	return table;
}

std::string throttled_check(const ThrottledParams &p, std::vector<std::string> *keys)
{
	if (uint64_t(p.hw_queues) * p.queue_depth > kMaxTags) {
		*keys = {"hw_queues", "queue_depth"};
		return "hw_queues x queue_depth (" + std::to_string(p.hw_queues * p.queue_depth) +
		       ") above " + std::to_string(kMaxTags);
	}
	// qemu's own checks of a throttling configuration
	struct Limit {
		const char *avg_key, *max_key, *len_key;
		uint64_t avg, max, len;
	};
	for (const Limit &l : {Limit{"iops_total", "iops_total_max", "iops_total_max_length",
				     p.iops_total, p.iops_total_max, p.iops_total_max_length},
			       Limit{"bps_total", "bps_total_max", "bps_total_max_length",
				     p.bps_total, p.bps_total_max, p.bps_total_max_length}}) {
		if (l.max && !l.avg) {
			*keys = {l.avg_key, l.max_key};
			return std::string(l.max_key) + " needs " + l.avg_key;
		}
		if (l.max && l.max < l.avg) {
			*keys = {l.avg_key, l.max_key};
			return std::string(l.max_key) + " (" + std::to_string(l.max) + ") below " +
			       l.avg_key + " (" + std::to_string(l.avg) + ")";
		}
		if (l.len > 1 && !l.max) {
			*keys = {l.max_key, l.len_key};
			return std::string(l.len_key) + " above 1 needs " + l.max_key;
		}
		if (l.max && l.len > kThrottleValueMax / l.max) {
			*keys = {l.max_key, l.len_key};
			return std::string(l.max_key) + " x " + l.len_key + " above " +
			       std::to_string(kThrottleValueMax);
		}
	}
	if (p.iops_size && !p.iops_total) {
		*keys = {"iops_total", "iops_size"};
		return "iops_size needs iops_total";
	}
	return "";
}

// --- the buckets ---------------------------------------------------------

void Throttled::Bucket::leak(int64_t ns)
{
	level = std::max(level - avg * static_cast<double>(ns) / 1e9, 0.0);
	if (burst_length > 1)
		burst_level = std::max(burst_level - max * static_cast<double>(ns) / 1e9, 0.0);
}

int64_t Throttled::Bucket::wait() const
{
	if (avg <= 0)
		return 0;
	// the bucket's size: a tenth of a second at avg, or the whole burst
	double size = max > 0 ? max * burst_length : avg / 10;
	if (double extra = level - size; extra > 0)
		return static_cast<int64_t>(extra * 1e9 / avg);
	if (burst_length > 1) {
		if (double extra = burst_level - max / 10; extra > 0)
			return static_cast<int64_t>(extra * 1e9 / max);
	}
	return 0;
}

void Throttled::Bucket::add(double units)
{
	level += units;
	if (burst_length > 1)
		burst_level += units;
}

// --- the device ----------------------------------------------------------

Throttled::Throttled(const ThrottledParams &p, std::string model)
    : p_(p), model_(std::move(model)), latency_ns_(std::llround(p.latency_us * 1e3)),
      busy_(kMaxTags, 0)
{
	iops_.avg = static_cast<double>(p.iops_total);
	iops_.max = static_cast<double>(p.iops_total_max);
	iops_.burst_length = static_cast<double>(p.iops_total_max_length);
	bps_.avg = static_cast<double>(p.bps_total);
	bps_.max = static_cast<double>(p.bps_total_max);
	bps_.burst_length = static_cast<double>(p.bps_total_max_length);
}

std::string Throttled::params() const
{
	return dump_params(model_, throttled_param_table(), p_);
}

void Throttled::leak(int64_t now)
{
	int64_t delta = now - previous_leak_;
	previous_leak_ = now;
	if (delta <= 0)
		return;
	iops_.leak(delta);
	bps_.leak(delta);
}

int64_t Throttled::wait() const
{
	return std::max(iops_.wait(), bps_.wait());
}

// Must the next request of direction @dir wait?  Arms the direction's
// timer when a bucket is over its size and no timer is armed yet.
bool Throttled::must_wait(int dir, int64_t now)
{
	if (timer_[dir] != kNever)
		return true;
	leak(now);
	int64_t w = wait();
	if (!w)
		return false;
	timer_[dir] = now + w;
	return true;
}

// The request goes to the host file: it completes latency_us later.
void Throttled::start(uint64_t id, int64_t now)
{
	done_.push({id, now + latency_ns_});
}

// IO units of a request of @bytes: 1, or its bytes over iops_size.
double Throttled::units(uint64_t bytes) const
{
	if (p_.iops_size && bytes > p_.iops_size)
		return static_cast<double>(bytes) / static_cast<double>(p_.iops_size);
	return 1;
}

// The first waiting request of @dir goes now: counted in and started.
void Throttled::go(int dir, int64_t now)
{
	Waiting w = queue_[dir].front();
	queue_[dir].pop_front();
	iops_.add(units(w.bytes));
	bps_.add(static_cast<double>(w.bytes));
	start(w.id, now);
}

// After a request of @dir went: the next ones go at once while the buckets
// let them, else the timer is armed for the first of them.
void Throttled::schedule_next(int dir, int64_t now)
{
	while (!queue_[dir].empty() && !must_wait(dir, now))
		go(dir, now);
}

// Fires every timer due by @now, in time order (reads first on a tie).
void Throttled::run_timers(int64_t now)
{
	for (;;) {
		int dir = timer_[1] < timer_[0] ? 1 : 0;
		int64_t t = timer_[dir];
		if (t == kNever || t > now)
			return;
		timer_[dir] = kNever;
		// the first waiting request goes without another check
		if (!queue_[dir].empty())
			go(dir, t);
		schedule_next(dir, t);
	}
}

// The time-sharing clock: each request in the device (submitted, not yet
// completed) gets an equal part of every instant.
void Throttled::share_until(int64_t t)
{
	if (active_)
		vtime_ += static_cast<double>(t - vlast_) / active_;
	vlast_ = t;
}

// Completes, for the accounting, every request done by @t: credits its
// part of the time, and keeps it for advance() to hand out.
void Throttled::settle(int64_t t)
{
	while (!done_.empty() && done_.top().time <= t) {
		const Completion c = done_.top();
		done_.pop();
		share_until(c.time);
		InFlight &f = ids_.at(c.id);
		const int64_t b = std::llround(vtime_ - f.vstart);
		busy_[f.tag] += b;
		busy_total_ += b;
		active_--;
		ready_.push(c);
	}
	if (t != kNever)
		share_until(t);
}

void Throttled::submit(const Request &rq, int64_t now)
{
	check_submit(*this, rq, now, now_, ids_.count(rq.id) > 0);
	run_timers(now);
	settle(now);
	now_ = now;
	ids_[rq.id] = {rq.tag, vtime_};
	active_++;
	if (rq.flush || rq.discard) {
		start(rq.id, now); // the throttle never sees them
		return;
	}
	// it waits behind a timer, behind earlier requests of its direction
	// (then the timer is armed) or for the buckets (which arms it)
	const int dir = rq.write ? 1 : 0;
	const bool wait = must_wait(dir, now);
	queue_[dir].push_back({rq.id, uint64_t(rq.sectors) * 512});
	if (!wait) {
		go(dir, now);
		schedule_next(dir, now);
	}
}

int64_t Throttled::next_event() const
{
	int64_t t = std::min(timer_[0], timer_[1]);
	if (!done_.empty())
		t = std::min(t, done_.top().time);
	if (!ready_.empty())
		t = std::min(t, ready_.top().time);
	return t;
}

void Throttled::advance(int64_t now, std::vector<Completion> &out)
{
	run_timers(now);
	settle(now);
	if (now != kNever)
		now_ = std::max(now_, now);
	while (!ready_.empty() && ready_.top().time <= now) {
		out.push_back(ready_.top());
		ids_.erase(ready_.top().id);
		ready_.pop();
	}
}

} // namespace efqsim::dev
