// SPDX-License-Identifier: GPL-2.0
// The merge of several event sources, and open_trace().
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <map>
#include <set>
#include <unordered_map>

#include <sys/stat.h>

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
	Merge(std::vector<std::unique_ptr<EventSource>> s, std::vector<std::string> warnings)
	    : src_(std::move(s)), warnings_(std::move(warnings))
	{
		heads_.resize(src_.size());
		heap_.reserve(src_.size());
	}

	bool next(Event *ev) override
	{
		for (;;) {
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
			std::pop_heap(heap_.begin(), heap_.end(), Later{});
			size_t best = heap_.back().src;
			heap_.pop_back();
			std::swap(*ev, heads_[best]);
			bool dup = duplicate(*ev);
			if (!advance(best))
				return false;
			if (dup)
				continue;
			count_++;
			return true;
		}
	}

	std::vector<std::string> warnings() const override
	{
		std::vector<std::string> w = warnings_;
		if (dups_) {
			char at[48];
			std::snprintf(at, sizeof(at), "%.9f s",
				      static_cast<double>(first_dup_) / 1e9);
			w.push_back(std::to_string(dups_) + " duplicate event" +
				    (dups_ == 1 ? "" : "s") +
				    " dropped (a record read twice: the same time, device, CPU, "
				    "sequence number, action and sectors; the first at " +
				    at +
				    "): a file given twice under two names, or a recording copied "
				    "into itself?");
		}
		return w;
	}

private:
	// The identity of an event: two events with the same fields below and
	// the same comm + '\n' + message are the same record read twice.
	static bool same_text(const Event &a, const Event &b)
	{
		if (a.comm.size() == b.comm.size())
			return a.comm == b.comm && a.message == b.message;
		const size_t n = a.comm.size() + 1 + a.message.size();
		if (n != b.comm.size() + 1 + b.message.size())
			return false;
		auto at = [](const Event &e, size_t i) {
			return i < e.comm.size()    ? e.comm[i]
			       : i == e.comm.size() ? '\n'
						    : e.message[i - e.comm.size() - 1];
		};
		for (size_t i = 0; i < n; i++)
			if (at(a, i) != at(b, i))
				return false;
		return true;
	}

	static bool same(const Event &a, const Event &b)
	{
		return a.seq == b.seq && a.dev == b.dev && a.cpu == b.cpu && a.pid == b.pid &&
		       a.action == b.action && a.rwbs == b.rwbs && a.sector == b.sector &&
		       a.sectors == b.sectors && a.error == b.error && same_text(a, b);
	}

	// True if @ev repeats an event already delivered.  Events come in
	// time order, so only those of the current time stamp are kept: in
	// @seen_'s first @nseen_ slots, whose strings keep their capacity
	// from one time stamp to the next, so that an event costs no
	// allocation.  Past kScan events at one time stamp a hash of each
	// narrows the search.
	bool duplicate(const Event &ev)
	{
		if (ev.time_ns != same_time_) {
			same_time_ = ev.time_ns;
			nseen_ = 0;
			by_hash_.clear();
		}
		if (nseen_ < kScan) {
			for (size_t i = 0; i < nseen_; i++)
				if (same(seen_[i], ev))
					return dropped(ev);
		} else {
			if (nseen_ == kScan)
				for (size_t i = 0; i < nseen_; i++)
					by_hash_.emplace(hash(seen_[i]), i);
			auto [lo, hi] = by_hash_.equal_range(hash(ev));
			for (auto it = lo; it != hi; ++it)
				if (same(seen_[it->second], ev))
					return dropped(ev);
			by_hash_.emplace(hash(ev), nseen_);
		}
		if (nseen_ < seen_.size())
			seen_[nseen_] = ev;
		else
			seen_.push_back(ev);
		nseen_++;
		return false;
	}

	// Of the fields same() compares but the strings (equal strings give
	// equal hashes, so that is enough).
	static uint64_t hash(const Event &e)
	{
		uint64_t h = 14695981039346656037ull;
		for (uint64_t v : {e.seq, uint64_t{e.dev}, uint64_t{e.cpu}, uint64_t{e.pid},
				   uint64_t(uint8_t(e.action)), uint64_t{e.rwbs}, e.sector,
				   uint64_t{e.sectors}, uint64_t(uint32_t(e.error))})
			h = (h ^ v) * 1099511628211ull;
		return h;
	}

	bool dropped(const Event &ev)
	{
		if (!dups_++)
			first_dup_ = ev.time_ns;
		return true;
	}

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
		heap_.push_back({heads_[i].time_ns, heads_[i].seq, i});
		std::push_heap(heap_.begin(), heap_.end(), Later{});
		return true;
	}

	// A source with a head event, by that event's order (kept in the heap
	// itself: no look-up of the head per comparison).
	struct Head {
		int64_t time_ns;
		uint64_t seq;
		size_t src;
	};
	// The heap's order (std::*_heap keep the greatest first): @x's head
	// comes after @y's.
	struct Later {
		bool operator()(const Head &x, const Head &y) const
		{
			if (x.time_ns != y.time_ns)
				return x.time_ns > y.time_ns;
			if (x.seq != y.seq)
				return x.seq > y.seq;
			return x.src > y.src;
		}
	};

	std::vector<std::unique_ptr<EventSource>> src_;
	std::vector<Event> heads_;
	std::vector<Head> heap_; // sources with a head event
	bool primed_ = false;
	std::vector<std::string> warnings_; // of resolving the files
	int64_t same_time_ = -1;
	static constexpr size_t kScan = 16;
	std::vector<Event> seen_; // the events delivered at same_time_: the first nseen_
	size_t nseen_ = 0;
	std::unordered_multimap<uint64_t, size_t> by_hash_; // past kScan of them
	uint64_t dups_ = 0;
	int64_t first_dup_ = 0;
};

// "NAME.blktrace.N" -> NAME and N; false for other names.
bool cpu_file(const std::string &path, std::string *base, unsigned long *n)
{
	static const std::string kTag = ".blktrace.";
	size_t t = path.rfind(kTag);
	if (t == std::string::npos || t == 0)
		return false;
	std::string digits = path.substr(t + kTag.size());
	if (digits.empty() || digits.size() > 6 ||
	    !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
		return false;
	*base = path.substr(0, t);
	*n = std::stoul(digits);
	return true;
}

// The numbers N of the NAME.blktrace.N files in NAME's folder.
std::set<unsigned long> cpu_files_of(const std::string &base)
{
	std::set<unsigned long> found;
	std::filesystem::path b(base);
	std::filesystem::path dir = b.parent_path().empty() ? "." : b.parent_path();
	std::string prefix = b.filename().string() + ".blktrace.";
	std::error_code ec;
	std::filesystem::directory_iterator it(dir, ec), end;
	for (; !ec && it != end; it.increment(ec)) {
		std::string name = it->path().filename().string();
		std::string nb;
		unsigned long n;
		if (name.compare(0, prefix.size(), prefix) == 0 && cpu_file(name, &nb, &n) &&
		    nb + ".blktrace." == prefix && it->is_regular_file(ec))
			found.insert(n);
	}
	return found;
}

} // namespace

std::unique_ptr<EventSource> merge_sources(std::vector<std::unique_ptr<EventSource>> sources,
					   std::vector<std::string> warnings)
{
	return std::make_unique<Merge>(std::move(sources), std::move(warnings));
}

bool resolve_trace_files(const std::vector<std::string> &args, std::vector<std::string> *files,
			 std::vector<std::string> *warnings, std::string *err)
{
	std::vector<std::string> out;
	std::vector<std::string> warn;
	std::map<std::pair<uint64_t, uint64_t>, std::string> ids; // (dev, inode) -> as named
	auto add = [&](const std::string &path) {
		struct stat st;
		if (::stat(path.c_str(), &st) == 0) {
			auto [it, fresh] =
				ids.emplace(std::make_pair(static_cast<uint64_t>(st.st_dev),
							   static_cast<uint64_t>(st.st_ino)),
					    path);
			if (!fresh) {
				warn.push_back(path + " is " +
					       (it->second == path
							? "given twice"
							: "the same file as " + it->second) +
					       ": read once");
				return;
			}
		}
		out.push_back(path);
	};
	for (const std::string &a : args) {
		std::error_code ec;
		if (std::filesystem::exists(a, ec) || a.empty()) {
			add(a);
			continue;
		}
		std::set<unsigned long> ns = cpu_files_of(a);
		if (ns.empty()) {
			*err = a + ": " + std::strerror(ENOENT) + " (nor any " + a +
			       ".blktrace.N: a blktrace recording's base name)";
			return false;
		}
		for (unsigned long n : ns)
			add(a + ".blktrace." + std::to_string(n));
	}
	// Gaps in each NAME.blktrace.N sequence: a CPU's file not read.
	std::map<std::string, std::set<unsigned long>> given;
	for (const std::string &f : out) {
		std::string base;
		unsigned long n;
		if (cpu_file(f, &base, &n))
			given[base].insert(n);
	}
	for (const auto &[base, ns] : given) {
		std::set<unsigned long> on_disk = cpu_files_of(base);
		unsigned long top = std::max(*ns.rbegin(), on_disk.empty() ? 0 : *on_disk.rbegin());
		std::vector<unsigned long> absent, unread;
		for (unsigned long n = 0; n <= top; n++)
			if (!ns.count(n))
				(on_disk.count(n) ? unread : absent).push_back(n);
		// "1", "1, 3", "1, 2, 3, 4, 5, 6, 7, 8 and 12 more"
		auto list = [](const std::vector<unsigned long> &v) {
			std::string l;
			for (size_t i = 0; i < v.size() && i < 8; i++)
				l += (i ? ", " : "") + std::to_string(v[i]);
			if (v.size() > 8)
				l += " and " + std::to_string(v.size() - 8) + " more";
			return l;
		};
		if (!absent.empty())
			warn.push_back(
				base + ".blktrace." + list(absent) +
				(absent.size() == 1 ? " is" : " are") +
				" missing (the recording has " + base + ".blktrace." +
				std::to_string(*ns.rbegin()) +
				"): those CPUs' events are not replayed, and IOs queued on one "
				"CPU and completed on a missing one have no completion");
		if (!unread.empty())
			warn.push_back(
				base + ".blktrace." + list(unread) +
				(unread.size() == 1 ? " exists but was" : " exist but were") +
				" not given: give every CPU's file, or just " + base);
	}
	*files = std::move(out);
	if (warnings)
		warnings->insert(warnings->end(), warn.begin(), warn.end());
	return true;
}

namespace {

bool looks_like_text(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const bool space = p[i] == '\t' || p[i] == '\n' || p[i] == '\v' || p[i] == '\f' ||
				   p[i] == '\r';
		if ((p[i] < 0x20 && !space) || p[i] == 0x7f)
			return false;
	}
	return true;
}

} // namespace

std::unique_ptr<EventSource> open_trace(const std::vector<std::string> &paths, std::string *err)
{
	if (paths.empty()) {
		*err = "no trace file given";
		return nullptr;
	}
	std::vector<std::string> files, warnings;
	if (!resolve_trace_files(paths, &files, &warnings, err))
		return nullptr;
	std::vector<std::unique_ptr<EventSource>> sources;
	int kinds = 0; // 1 binary, 2 text
	for (const std::string &path : files) {
		FILE *f = std::fopen(path.c_str(), "rb");
		if (!f) {
			*err = path + ": " + std::strerror(errno);
			return nullptr;
		}
		unsigned char m[4096] = {};
		size_t n = std::fread(m, 1, sizeof(m), f);
		std::fclose(f);
		uint32_t le = m[0] | m[1] << 8 | m[2] << 16 | static_cast<uint32_t>(m[3]) << 24;
		uint32_t be = m[3] | m[2] << 8 | m[1] << 16 | static_cast<uint32_t>(m[0]) << 24;
		bool binary =
			n >= 4 && ((le & 0xffffff00) == kMagic || (be & 0xffffff00) == kMagic);
		if (n > 0 && n < 4 && m[0] < 0x09) // a cut-off binary record
			binary = true;
		// Neither blktrace's magic nor text (blkparse prints no control
		// characters but white space): a binary file, whose reader says
		// what its first record's magic is, at byte offset 0, instead of
		// "not a blkparse event line".
		if (!binary && !looks_like_text(m, n))
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
	return merge_sources(std::move(sources), std::move(warnings));
}

} // namespace efqsim::trace
