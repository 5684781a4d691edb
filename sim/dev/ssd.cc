// SPDX-License-Identifier: GPL-2.0
// efqsim "ssd".
//
// A request is cut into pages of page_kib; page p lives on channel
// p % channels (static striping, so sequential requests spread over every
// channel and random ones collide as often as chance has it).  Each channel
// serves one page at a time, in arrival order: read_us per page read,
// program_us per page programmed.  The host link (interface_mbps) carries
// every byte, one transfer at a time.  Reads complete when their last page
// is read and their data has crossed the link.  Writes complete once their
// data is in the write buffer; the buffer programs each page in the
// background and frees its space when the program ends.  A write that does
// not fit waits (with every later write and flush) until programs free
// enough space.  FUA writes complete when their pages are programmed; a
// flush completes when everything buffered before it is programmed.  A
// discard (TRIM) only updates the controller's mapping: it completes after
// the command overhead, uses neither the link nor a channel, and so accrues
// no busy time; it does not wait for the buffer.
// Every time is fixed when a request starts, so no randomness is needed.

#include "ssd.h"

#include <algorithm>
#include <cmath>

namespace efqsim::dev {

const std::vector<Param<SsdParams>> &ssd_param_table()
{
	using P = SsdParams;
	static const std::vector<Param<P>> table = {
		{"capacity_sectors", "sectors", "capacity (default: 256 GB)", 2048, 1ull << 40,
		 &P::capacity_sectors},
		{"queue_depth", "", "NCQ depth: commands the drive accepts at once", 1, 1024,
		 &P::queue_depth},
		{"channels", "", "parallel units (channels with their dies)", 1, 256, &P::channels},
		{"page_kib", "KiB", "page: the unit striped across channels", 1, 1024,
		 &P::page_kib},
		{"read_us", "us", "channel time to read one page", 0.1, 100000, &P::read_us},
		{"program_us", "us", "channel time to program one page", 0.1, 100000,
		 &P::program_us},
		{"command_overhead_us", "us", "controller latency per command", 0, 100000,
		 &P::command_overhead_us},
		{"interface_mbps", "MB/s", "host link rate (SATA 6 Gb/s: 550)", 1, 100000,
		 &P::interface_mbps},
		{"write_buffer_kib", "KiB", "write buffer: writes complete once in it", 4, 1 << 22,
		 &P::write_buffer_kib},
	};
	return table;
}

std::string ssd_check(const SsdParams &p, std::vector<std::string> *keys)
{
	if (p.write_buffer_kib < p.page_kib) {
		*keys = {"write_buffer_kib", "page_kib"};
		return "write_buffer_kib (" + std::to_string(p.write_buffer_kib) +
		       ") is smaller than a page (page_kib " + std::to_string(p.page_kib) + ")";
	}
	return "";
}

Ssd::Ssd(const SsdParams &p)
    : p_(p), overhead_ns_(std::llround(p.command_overhead_us * 1e3)),
      read_ns_(std::llround(p.read_us * 1e3)), program_ns_(std::llround(p.program_us * 1e3)),
      page_sectors_(uint64_t(p.page_kib) * 2), buffer_bytes_(uint64_t(p.write_buffer_kib) * 1024),
      link_ns_per_byte_(1e9 / (p.interface_mbps * 1e6)), channel_free_(p.channels, 0),
      channel_ns_(kMaxTags, 0), busy_(kMaxTags, 0)
{
}

std::string Ssd::params() const
{
	return dump_params("ssd", ssd_param_table(), p_);
}

void Ssd::submit(const Request &rq, int64_t now)
{
	check_submit(*this, rq, now, now_, ids_.count(rq.id) > 0);
	run(now);
	ids_.insert(rq.id);
	in_flight_++;
	if (rq.discard) {
		done_.push({rq.id, std::max(now + overhead_ns_, now + 1)});
		return;
	}
	if (!rq.write && !rq.flush) {
		read(rq, now);
		return;
	}
	waiting_.push_back(rq);
	pump(now);
}

int64_t Ssd::next_event() const
{
	int64_t t = done_.empty() ? kNever : done_.top().time;
	if (!waiting_.empty() && !frees_.empty())
		t = std::min(t, frees_.top().first);
	return t;
}

void Ssd::advance(int64_t now, std::vector<Completion> &out)
{
	run(now);
	while (!done_.empty() && done_.top().time <= now) {
		out.push_back(done_.top());
		auto it = owed_.find(done_.top().id);
		if (it != owed_.end()) {
			auto [tag, ns] = it->second;
			channel_ns_[tag] += ns;
			int64_t b = channel_ns_[tag] / p_.channels;
			busy_total_ += b - busy_[tag];
			busy_[tag] = b;
			owed_.erase(it);
		}
		ids_.erase(done_.top().id);
		done_.pop();
		in_flight_--;
	}
}

void Ssd::run(int64_t until)
{
	while (!frees_.empty() && frees_.top().first <= until) {
		int64_t t = frees_.top().first;
		now_ = std::max(now_, t);
		pump(t);
	}
	if (until != kNever)
		now_ = std::max(now_, until);
}

// Accept waiting writes and flushes, in order, while the buffer has room.
void Ssd::pump(int64_t t)
{
	while (!frees_.empty() && frees_.top().first <= t) {
		buffered_ -= frees_.top().second;
		frees_.pop();
	}
	while (!waiting_.empty()) {
		const Request &rq = waiting_.front();
		if (rq.flush) {
			int64_t end = std::max(t + overhead_ns_, last_program_);
			done_.push({rq.id, std::max(end, t + 1)});
		} else {
			uint64_t bytes = uint64_t(rq.sectors) * 512;
			if (buffered_ && buffered_ + bytes > buffer_bytes_)
				return;
			write(rq, t);
		}
		waiting_.pop_front();
	}
}

int64_t Ssd::link(uint64_t bytes, int64_t t)
{
	int64_t start = std::max(link_free_, t);
	link_free_ = start + std::llround(bytes * link_ns_per_byte_);
	return link_free_;
}

void Ssd::read(const Request &rq, int64_t t)
{
	int64_t start = t + overhead_ns_, end = start;
	uint64_t first = rq.sector / page_sectors_;
	uint64_t last = (rq.sector + rq.sectors - 1) / page_sectors_;
	for (uint64_t pg = first; pg <= last; pg++) {
		int64_t &ch = channel_free_[pg % p_.channels];
		ch = std::max(ch, start) + read_ns_;
		end = std::max(end, ch);
		charge(rq.id, rq.tag, read_ns_);
	}
	end = std::max(end, link(uint64_t(rq.sectors) * 512, start));
	done_.push({rq.id, std::max(end, t + 1)});
}

void Ssd::write(const Request &rq, int64_t t)
{
	uint64_t a = rq.sector, b = rq.sector + rq.sectors;
	int64_t in_buffer = link(uint64_t(rq.sectors) * 512, t + overhead_ns_);
	int64_t programmed = in_buffer;
	buffered_ += uint64_t(rq.sectors) * 512;
	for (uint64_t pg = a / page_sectors_; pg * page_sectors_ < b; pg++) {
		uint64_t lo = std::max(a, pg * page_sectors_);
		uint64_t hi = std::min(b, (pg + 1) * page_sectors_);
		int64_t &ch = channel_free_[pg % p_.channels];
		ch = std::max(ch, in_buffer) + program_ns_;
		frees_.push({ch, (hi - lo) * 512});
		programmed = std::max(programmed, ch);
		charge(rq.id, rq.tag, program_ns_);
	}
	last_program_ = std::max(last_program_, programmed);
	int64_t end = rq.fua ? programmed : in_buffer;
	done_.push({rq.id, std::max(end, t + 1)});
}

// Busy time: a request's channel time (its page reads, or its page
// programs) divided by the number of channels, so a device with every
// channel busy accrues busy time at wall-clock rate.  Credited when
// advance() returns the completion.
void Ssd::charge(uint64_t id, uint32_t tag, int64_t channel_ns)
{
	auto &o = owed_[id];
	o.first = tag;
	o.second += channel_ns;
}

} // namespace efqsim::dev
