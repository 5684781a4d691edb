// SPDX-License-Identifier: GPL-2.0
// The merge of several event sources, and open_trace().
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "trace/blkparse.h"
#include "trace/blktrace.h"
#include "trace/event.h"

namespace efqsim::trace {

std::string rwbs_string(uint32_t rwbs)
{
	std::string s;
	if (rwbs & kFlush)
		s += 'F';
	if (rwbs & kDiscard)
		s += 'D';
	else if (rwbs & kWrite)
		s += 'W';
	else if (rwbs & kData)
		s += 'R';
	else
		s += 'N';
	if (rwbs & kFua)
		s += 'F';
	if (rwbs & kAhead)
		s += 'A';
	if (rwbs & kSync)
		s += 'S';
	if (rwbs & kMeta)
		s += 'M';
	return s;
}

namespace {

// k-way merge: the head event of every source; the earliest goes next (by
// time, then sequence number, then file order).  The heads are kept in a
// binary heap, so that each event costs log k comparisons: a recording
// over 40 CPU files is common.
class Merge final : public EventSource {
public:
	explicit Merge(std::vector<std::unique_ptr<EventSource>> s) : src_(std::move(s))
	{
		heads_.resize(src_.size());
		heap_.reserve(src_.size());
	}

	bool next(Event *ev) override
	{
		if (!err_.empty())
			return false;
		if (!primed_) {
			primed_ = true;
			for (size_t i = 0; i < src_.size(); i++)
				if (!advance(i))
					return false;
		}
		if (heap_.empty())
			return false;
		std::pop_heap(heap_.begin(), heap_.end(), later_);
		size_t best = heap_.back();
		heap_.pop_back();
		std::swap(*ev, heads_[best]);
		count_++;
		return advance(best);
	}

private:
	// Reads source @i's next event into its head and, if there is one,
	// puts the source back into the heap.
	bool advance(size_t i)
	{
		if (!src_[i]->next(&heads_[i])) {
			if (!src_[i]->error().empty()) {
				err_ = src_[i]->error();
				return false;
			}
			return true;
		}
		heap_.push_back(i);
		std::push_heap(heap_.begin(), heap_.end(), later_);
		return true;
	}

	// The heap's order (std::*_heap keep the greatest first): @a's head
	// comes after @b's.
	struct Later {
		const Merge *m;
		bool operator()(size_t a, size_t b) const
		{
			const Event &x = m->heads_[a], &y = m->heads_[b];
			if (x.time_ns != y.time_ns)
				return x.time_ns > y.time_ns;
			if (x.seq != y.seq)
				return x.seq > y.seq;
			return a > b;
		}
	};

	std::vector<std::unique_ptr<EventSource>> src_;
	std::vector<Event> heads_;
	std::vector<size_t> heap_; // sources with a head event
	Later later_{this};
	bool primed_ = false;
};

} // namespace

std::unique_ptr<EventSource> merge_sources(std::vector<std::unique_ptr<EventSource>> sources)
{
	if (sources.size() == 1)
		return std::move(sources[0]);
	return std::make_unique<Merge>(std::move(sources));
}

std::unique_ptr<EventSource> open_trace(const std::vector<std::string> &paths, std::string *err)
{
	if (paths.empty()) {
		*err = "no trace file given";
		return nullptr;
	}
	std::vector<std::unique_ptr<EventSource>> sources;
	int kinds = 0; // 1 binary, 2 text
	for (const std::string &path : paths) {
		FILE *f = std::fopen(path.c_str(), "rb");
		if (!f) {
			*err = path + ": " + std::strerror(errno);
			return nullptr;
		}
		unsigned char m[4] = {};
		size_t n = std::fread(m, 1, 4, f);
		std::fclose(f);
		uint32_t le = m[0] | m[1] << 8 | m[2] << 16 | static_cast<uint32_t>(m[3]) << 24;
		uint32_t be = m[3] | m[2] << 8 | m[1] << 16 | static_cast<uint32_t>(m[0]) << 24;
		bool binary =
			n == 4 && ((le & 0xffffff00) == kMagic || (be & 0xffffff00) == kMagic);
		if (n > 0 && n < 4 && m[0] < 0x09) // a cut-off binary record
			binary = true;
		kinds |= binary ? 1 : 2;
		if (kinds == 3) {
			*err = path +
			       ": mixes blktrace binary and blkparse text files in one trace";
			return nullptr;
		}
		auto s = binary ? open_blktrace(path, err) : open_blkparse(path, err);
		if (!s)
			return nullptr;
		sources.push_back(std::move(s));
	}
	return merge_sources(std::move(sources));
}

} // namespace efqsim::trace
