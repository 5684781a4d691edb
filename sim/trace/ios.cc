// SPDX-License-Identifier: GPL-2.0
#include "trace/ios.h"

namespace efqsim::trace {

IoBuilder::Pending *IoBuilder::pending(uint64_t id)
{
	if (id < base_ || id - base_ >= fifo_.size())
		return nullptr; // already given out
	return &fifo_[id - base_];
}

bool IoBuilder::next(IoRecord *out)
{
	for (;;) {
		if (!fifo_.empty()) {
			Pending &f = fifo_.front();
			if (f.done || end_ || f.rec.queue_ns < last_time_ - horizon_) {
				if (!f.done)
					stats_.incomplete++;
				*out = std::move(f.rec);
				fifo_.pop_front();
				base_++;
				if ((base_ & 4095) == 0)
					sweep();
				return true;
			}
		}
		if (end_)
			return false;
		if (!src_.next(&ev_)) {
			if (!src_.error().empty())
				return false;
			end_ = true;
			continue;
		}
		handle(ev_);
	}
}

void IoBuilder::handle(Event &ev)
{
	stats_.events++;
	if (ev.time_ns > last_time_)
		last_time_ = ev.time_ns;
	switch (ev.action) {
	case 'N':
		comm_[ev.pid] = ev.comm;
		return;
	case 'm':
		if (stats_.messages.size() < 100)
			stats_.messages.push_back(ev.message);
		return;
	case 'Q': {
		if (!ev.comm.empty()) {
			auto it = comm_.find(ev.pid);
			if (it == comm_.end() || it->second != ev.comm)
				comm_[ev.pid] = ev.comm;
		}
		if (!ev.sectors || !(ev.rwbs & kData)) {
			stats_.empty++;
			return;
		}
		stats_.queued++;
		Pending p;
		IoRecord &r = p.rec;
		r.id = next_id_++;
		r.queue_ns = ev.time_ns;
		r.dev = ev.dev;
		r.sector = ev.sector;
		r.bytes = ev.sectors << 9;
		r.rwbs = ev.rwbs;
		r.pid = ev.pid;
		if (!ev.comm.empty()) {
			r.comm = ev.comm;
		} else if (auto it = comm_.find(ev.pid); it != comm_.end()) {
			r.comm = it->second;
		}
		r.has_cgroup = ev.has_cgroup;
		r.cgroup = ev.cgroup;
		fifo_.push_back(std::move(p));
		Key k{ev.dev, ev.sector};
		Request &rq = by_start_[k];
		if (rq.ids.empty()) {
			rq.end = ev.sector + ev.sectors;
			by_end_[Key{ev.dev, rq.end}] = ev.sector;
		}
		rq.ids.push_back(r.id);
		return;
	}
	case 'M':
	case 'F':
		merge(ev, ev.action == 'M');
		return;
	case 'C':
		complete(ev);
		return;
	default:
		return;
	}
}

// The bio at ev.sector (its own request since its Q) joins the request that
// ends where it starts (M) or starts where it ends (F).
void IoBuilder::merge(const Event &ev, bool back)
{
	Key own{ev.dev, ev.sector};
	auto it = by_start_.find(own);
	if (it == by_start_.end())
		return;
	Request bio = std::move(it->second);
	Key target_key;
	if (back) {
		auto e = by_end_.find(Key{ev.dev, ev.sector});
		if (e == by_end_.end() || e->second == ev.sector) {
			it->second = std::move(bio);
			return;
		}
		target_key = Key{ev.dev, e->second};
	} else {
		target_key = Key{ev.dev, bio.end};
	}
	auto t = by_start_.find(target_key);
	if (t == by_start_.end() || t == it) {
		it->second = std::move(bio);
		return;
	}
	by_start_.erase(it);
	if (auto e = by_end_.find(Key{ev.dev, bio.end});
	    e != by_end_.end() && e->second == ev.sector)
		by_end_.erase(e);
	for (uint64_t id : bio.ids)
		if (Pending *p = pending(id))
			p->rec.merged = true;
	stats_.merges++;
	if (back) {
		Request &tr = t->second;
		by_end_.erase(Key{ev.dev, tr.end});
		tr.end = bio.end;
		tr.ids.insert(tr.ids.end(), bio.ids.begin(), bio.ids.end());
		by_end_[Key{ev.dev, tr.end}] = target_key.sector;
	} else {
		Request tr = std::move(t->second);
		by_start_.erase(t);
		tr.ids.insert(tr.ids.end(), bio.ids.begin(), bio.ids.end());
		by_end_[Key{ev.dev, tr.end}] = ev.sector;
		by_start_[own] = std::move(tr);
	}
}

// Completes the request at ev.sector and those that follow it within the
// completed range (requests the block layer merged without an event).
void IoBuilder::complete(const Event &ev)
{
	uint64_t sector = ev.sector;
	uint64_t end = ev.sector + ev.sectors;
	bool any = false;
	for (int guard = 0; guard < 4096; guard++) {
		auto it = by_start_.find(Key{ev.dev, sector});
		if (it == by_start_.end())
			break;
		Request rq = std::move(it->second);
		by_start_.erase(it);
		if (auto e = by_end_.find(Key{ev.dev, rq.end});
		    e != by_end_.end() && e->second == sector)
			by_end_.erase(e);
		for (uint64_t id : rq.ids) {
			if (Pending *p = pending(id); p && !p->done) {
				p->done = true;
				p->rec.complete_ns = ev.time_ns;
				p->rec.error = ev.error;
				any = true;
			}
		}
		if (rq.end >= end || rq.end <= sector)
			break;
		sector = rq.end;
	}
	if (any)
		stats_.completions++;
	else
		stats_.unmatched++;
}

// Drops requests whose IOs have all been given out (incomplete ones past
// the horizon), so that the maps do not grow with the trace.
void IoBuilder::sweep()
{
	if (by_start_.size() < 2 * fifo_.size() + 1024)
		return;
	for (auto it = by_start_.begin(); it != by_start_.end();) {
		bool live = false;
		for (uint64_t id : it->second.ids)
			live |= id >= base_;
		if (live) {
			++it;
			continue;
		}
		if (auto e = by_end_.find(Key{it->first.dev, it->second.end});
		    e != by_end_.end() && e->second == it->first.sector)
			by_end_.erase(e);
		it = by_start_.erase(it);
	}
}

} // namespace efqsim::trace
