// SPDX-License-Identifier: GPL-2.0
// efqsim traces: per-IO records rebuilt from a trace's events.  An IO is one
// bio: born at its Q event, completed by the C event of the request it ended
// up in (its own, or the one a back merge M or front merge F folded it
// into).  Records come out in queue order, each once its request completed
// (or, if it never does, once the trace has moved @horizon past it, or at
// the end: then complete_ns is -1).  Memory is bounded by the IOs in flight
// within the horizon, whatever the trace's length.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

#include "trace/event.h"

namespace efqsim::trace {

struct IoRecord {
	uint64_t id = 0; // 0, 1, ... in queue order
	int64_t queue_ns = 0;
	int64_t complete_ns = -1; // -1: the trace has no completion for it
	uint32_t dev = 0;
	uint64_t sector = 0;
	uint32_t bytes = 0;
	uint32_t rwbs = 0; // Rwbs flags of the Q event
	uint32_t pid = 0;
	std::string comm; // from the event, else the pid's notify record, else ""
	bool has_cgroup = false;
	uint64_t cgroup = 0;
	int error = 0;
	bool merged = false; // folded into another request by M or F
};

struct BuildStats {
	uint64_t events = 0;
	uint64_t queued = 0;		   // Q events with data (records)
	uint64_t empty = 0;		   // Q events without data (flushes): no record
	uint64_t merges = 0;		   // M and F events that found their request
	uint64_t completions = 0;	   // C events that completed recorded IOs
	uint64_t unmatched = 0;		   // C events for IO queued before the trace began
	uint64_t incomplete = 0;	   // records given out without a completion
	std::vector<std::string> messages; // the first 100 'm' notes
};

class IoBuilder {
public:
	static constexpr int64_t kDefaultHorizon = 60'000'000'000; // 60 s of trace time

	explicit IoBuilder(EventSource &src, int64_t horizon_ns = kDefaultHorizon)
	    : src_(src), horizon_(horizon_ns)
	{
	}

	// The next record in queue order; false at the end or on an error
	// (error() says which).
	bool next(IoRecord *out);
	const std::string &error() const { return src_.error(); }
	const BuildStats &stats() const { return stats_; }
	// The last event's time (the trace's length once next() is false).
	int64_t last_time() const { return last_time_; }

private:
	struct Key {
		uint32_t dev;
		uint64_t sector;
		bool operator==(const Key &o) const { return dev == o.dev && sector == o.sector; }
	};
	struct KeyHash {
		size_t operator()(const Key &k) const
		{
			return std::hash<uint64_t>()(k.sector * 0x9e3779b97f4a7c15ull ^ k.dev);
		}
	};
	struct Request {
		uint64_t end = 0; // sector after the last
		std::vector<uint64_t> ids;
	};
	struct Pending {
		IoRecord rec;
		bool done = false;
	};

	void handle(Event &ev);
	void complete(const Event &ev);
	void merge(const Event &ev, bool back);
	Pending *pending(uint64_t id);
	void sweep();

	EventSource &src_;
	int64_t horizon_;
	Event ev_;
	bool end_ = false;
	int64_t last_time_ = 0;
	uint64_t next_id_ = 0;
	uint64_t base_ = 0; // id of fifo_.front()
	std::deque<Pending> fifo_;
	std::unordered_map<Key, Request, KeyHash> by_start_;
	std::unordered_map<Key, uint64_t, KeyHash> by_end_; // -> start sector
	std::unordered_map<uint32_t, std::string> comm_;
	BuildStats stats_;
};

} // namespace efqsim::trace
