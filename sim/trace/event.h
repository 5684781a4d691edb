// SPDX-License-Identifier: GPL-2.0
// efqsim traces: the events of a blktrace recording, as the binary reader
// (blktrace.h: NAME.blktrace.N files) and the text reader (blkparse.h:
// blkparse's default output) both deliver them.  Documentation/sim/replay.rst.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace efqsim::trace {

// RWBS flags, as blkparse prints them ("FWFS": preflush, write, FUA, sync).
enum Rwbs : uint32_t {
	kWrite = 1u << 0,
	kDiscard = 1u << 1,
	kFlush = 1u << 2, // preflush (the leading F)
	kFua = 1u << 3,	  // the F after R/W/D/N
	kAhead = 1u << 4, // readahead
	kSync = 1u << 5,
	kMeta = 1u << 6,
	kData = 1u << 7, // R, W or D (not N: no data)
};

// One trace event.  @action is blkparse's letter: Q queue, G get request,
// I insert, D issue, C complete, M back merge, F front merge, P plug,
// U unplug, T unplug by timer, S sleep for a request, R requeue, X split,
// B bounce, A remap, m message (notify), and N for a binary trace's
// process notify record (pid -> comm; blkparse prints none).
struct Event {
	int64_t time_ns = 0; // since the start of the trace
	uint64_t seq = 0;    // the record's sequence number
	uint32_t dev = 0;    // (major << 20) | minor, as the kernel's dev_t
	uint32_t cpu = 0;
	uint32_t pid = 0;
	char action = 0;
	uint32_t rwbs = 0;    // Rwbs flags
	uint64_t sector = 0;  // 512-byte sectors
	uint32_t sectors = 0; // the IO's length in sectors
	int error = 0;
	bool has_cgroup = false;
	uint64_t cgroup = 0; // the cgroup id (binary traces with __BLK_TA_CGROUP)
	std::string comm;    // the process name where the trace has it, else ""
	std::string message; // action 'm': the text
};

inline uint32_t dev_major(uint32_t dev)
{
	return dev >> 20;
}
inline uint32_t dev_minor(uint32_t dev)
{
	return dev & 0xfffff;
}
inline uint32_t make_dev(uint32_t major, uint32_t minor)
{
	return (major << 20) | minor;
}

// RWBS as blkparse prints it ("WS", "FWFS", "N").
std::string rwbs_string(uint32_t rwbs);

// A stream of events in time order.  next() returns false at the end or on
// an error; error() is then "" (the end) or says where and why ("FILE: byte
// offset N: ..." for binary files, "FILE:LINE: ..." for text).
class EventSource {
public:
	virtual ~EventSource() = default;
	virtual bool next(Event *ev) = 0;
	const std::string &error() const { return err_; }
	// Events read so far.
	uint64_t count() const { return count_; }
	// What is odd about the trace but not wrong enough to stop (duplicate
	// events dropped, CPU files missing), for stderr; complete once next()
	// has returned false.
	virtual std::vector<std::string> warnings() const { return {}; }

protected:
	std::string err_;
	uint64_t count_ = 0;
};

// How far one CPU's events may go back in time within a file before the
// reader calls the trace corrupt: blktrace stamps each CPU's records from a
// monotonic clock, in the order it writes them, and blkparse prints them
// sorted by time, so a step back is a corrupt or spliced file.  A little
// slack for clocks adjusted while tracing.
constexpr int64_t kMaxBackwardsNs = 1'000'000; // 1 ms
// The largest forward jump between two consecutive events of one CPU in a
// file (beyond it a time stamp is corrupt: replaying it would mean waiting
// for a month).
constexpr int64_t kMaxJumpNs = int64_t{30} * 24 * 3600 * 1'000'000'000;

// Each CPU's latest time in a file, and the two rules above: a reader asks
// check() of every event and words the refusal in its own terms.
class CpuTimeOrder {
public:
	enum class Verdict { ok, backwards, jump };
	// @prev: the CPU's latest time before @ev (unchanged for its first).
	Verdict check(const Event &ev, int64_t *prev)
	{
		auto [it, first] = last_.emplace(ev.cpu, ev.time_ns);
		*prev = it->second;
		if (first)
			return Verdict::ok;
		if (ev.time_ns < *prev - kMaxBackwardsNs)
			return Verdict::backwards;
		if (ev.time_ns > *prev && ev.time_ns - *prev > kMaxJumpNs)
			return Verdict::jump;
		if (ev.time_ns > *prev)
			it->second = ev.time_ns;
		return Verdict::ok;
	}

private:
	std::unordered_map<uint32_t, int64_t> last_; // CPU -> its latest time
};

// The files a trace's command-line arguments name, as blkparse -i and
// btreplay take them: an existing file is itself; NAME that is no file
// stands for every NAME.blktrace.N (N = 0, 1, ...; in N's order) in NAME's
// folder.  The same file named twice is read once.  @warnings (may be
// null) gets a line for each file given twice and for each CPU file missing
// from a NAME.blktrace.N sequence (N below the highest given or found, not
// given).  False with *err when an argument is neither a file nor a base
// name.
bool resolve_trace_files(const std::vector<std::string> &args, std::vector<std::string> *files,
			 std::vector<std::string> *warnings, std::string *err);

// Opens @paths as one trace: binary blktrace files (recognised by their
// magic, in either byte order) or blkparse text, merged in time order
// (a k-way merge; each file must be in time order itself, as blktrace and
// blkparse write them).  @paths goes through resolve_trace_files() first,
// whose warnings the source's warnings() repeats.  Memory is bounded by the
// number of files.  Null and *err set when a file cannot be opened or mixes
// formats.
std::unique_ptr<EventSource> open_trace(const std::vector<std::string> &paths, std::string *err);

// The k-way merge itself (by time, then sequence number, then file order).
// An event identical to one already delivered (the same time, device, CPU,
// sequence number, pid, action, RWBS, sectors, error and text: the same
// record read twice) is dropped, and warnings() counts them.
std::unique_ptr<EventSource> merge_sources(std::vector<std::unique_ptr<EventSource>> sources,
					   std::vector<std::string> warnings = {});

} // namespace efqsim::trace
