// SPDX-License-Identifier: GPL-2.0
#include "trace/blkparse.h"

#include <cerrno>
#include <cstdio>
#include <algorithm>
#include <cstring>
#include <unordered_map>
#include <vector>

namespace efqsim::trace {
namespace {

constexpr size_t kChunk = 1 << 20;
constexpr size_t kMaxLine = 1 << 16;

struct Cursor {
	const char *p, *end;
	void skip_space()
	{
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
	}
	bool at_end() const { return p >= end; }
	// An unsigned decimal; false if there is none or it overflows.
	bool number(uint64_t *v, int *digits = nullptr)
	{
		skip_space();
		const char *s = p;
		uint64_t n = 0;
		while (p < end && *p >= '0' && *p <= '9') {
			uint64_t d = static_cast<uint64_t>(*p - '0');
			if (n > (UINT64_MAX - d) / 10)
				return false;
			n = n * 10 + d;
			p++;
		}
		if (digits)
			*digits = static_cast<int>(p - s);
		*v = n;
		return p > s;
	}
	bool lit(char c)
	{
		skip_space();
		if (p < end && *p == c) {
			p++;
			return true;
		}
		return false;
	}
	// A word (to the next blank).
	void word(const char **b, const char **e)
	{
		skip_space();
		*b = p;
		while (p < end && *p != ' ' && *p != '\t')
			p++;
		*e = p;
	}
};

bool fail(std::string *why, const char *msg)
{
	*why = msg;
	return false;
}

bool parse_rwbs(const char *b, const char *e, uint32_t *out)
{
	uint32_t r = 0;
	bool seen_dir = false;
	for (const char *c = b; c < e; c++) {
		switch (*c) {
		case 'F':
			r |= seen_dir ? kFua : kFlush;
			break;
		case 'D':
			r |= kDiscard | kData;
			seen_dir = true;
			break;
		case 'W':
			r |= kWrite | kData;
			seen_dir = true;
			break;
		case 'R':
			r |= kData;
			seen_dir = true;
			break;
		case 'N':
			seen_dir = true;
			break;
		case 'A':
			r |= kAhead;
			break;
		case 'S':
			r |= kSync;
			break;
		case 'M':
			r |= kMeta;
			break;
		case 'E': // secure erase
			seen_dir = true;
			break;
		default:
			return false;
		}
	}
	*out = r;
	return b < e;
}

bool is_action(char c)
{
	return c && std::strchr("QGIDCMFPUTSRXBAm", c);
}

class TextFile final : public EventSource {
public:
	TextFile(std::string path, FILE *f) : path_(std::move(path)), f_(f), buf_(kChunk) {}
	~TextFile() override { std::fclose(f_); }

	bool next(Event *ev) override
	{
		const char *b, *e;
		while (err_.empty() && line(&b, &e)) {
			line_no_++;
			if (summary_)
				continue;
			const char *s = b;
			while (s < e && (*s == ' ' || *s == '\t' || *s == '\r'))
				s++;
			if (s == e || *s == '#')
				continue; // a blank line, a comment or a header
			if (*s < '0' || *s > '9') {
				if (!std::strncmp(s, "CPU", 3) || !std::strncmp(s, "Total", 5) ||
				    !std::strncmp(s, "Throughput", 10) ||
				    !std::strncmp(s, "Events", 6)) {
					summary_ = true;
					continue;
				}
				err_ = where() + "not a blkparse event line";
				return false;
			}
			std::string why;
			if (!parse_line(b, e, ev, &why)) {
				err_ = where() + why;
				return false;
			}
			if (!in_order(*ev))
				return false;
			count_++;
			return true;
		}
		return false;
	}

private:
	std::string where() const { return path_ + ":" + std::to_string(line_no_) + ": "; }

	// The event keeps its CPU's time order (kMaxBackwardsNs: blkparse
	// prints events sorted by time) and makes no absurd jump
	// (kMaxJumpNs); false with err_ otherwise.
	bool in_order(const Event &ev)
	{
		int64_t prev = 0;
		CpuTimeOrder::Verdict v = order_.check(ev, &prev);
		char b[200];
		if (v == CpuTimeOrder::Verdict::backwards) {
			std::snprintf(
				b, sizeof(b),
				"time %.9f s is %.6f s before an earlier event of CPU %u "
				"(%.9f s): blkparse prints events in time order (a corrupt or "
				"spliced file?)",
				static_cast<double>(ev.time_ns) / 1e9,
				static_cast<double>(prev - ev.time_ns) / 1e9, ev.cpu,
				static_cast<double>(prev) / 1e9);
			err_ = where() + b;
			return false;
		}
		if (v == CpuTimeOrder::Verdict::jump) {
			std::snprintf(
				b, sizeof(b),
				"time %.9f s is %.1f days after the previous event of CPU %u: a "
				"corrupt time stamp",
				static_cast<double>(ev.time_ns) / 1e9,
				static_cast<double>(ev.time_ns - prev) / 86400e9, ev.cpu);
			err_ = where() + b;
			return false;
		}
		return true;
	}

	// The next line without its newline; false at the end or on an error.
	bool line(const char **b, const char **e)
	{
		for (;;) {
			char *start = buf_.data() + pos_;
			char *nl = static_cast<char *>(std::memchr(start, '\n', len_ - pos_));
			if (nl) {
				*b = start;
				*e = nl;
				pos_ = static_cast<size_t>(nl - buf_.data()) + 1;
				return true;
			}
			if (eof_) {
				if (pos_ == len_)
					return false;
				*b = start; // last line without a newline
				*e = buf_.data() + len_;
				pos_ = len_;
				return true;
			}
			if (pos_ > 0) {
				std::memmove(buf_.data(), start, len_ - pos_);
				len_ -= pos_;
				pos_ = 0;
			}
			if (len_ >= kMaxLine) {
				err_ = path_ + ":" + std::to_string(line_no_ + 1) +
				       ": line longer than 64 KiB (not blkparse output?)";
				return false;
			}
			size_t got = std::fread(buf_.data() + len_, 1, buf_.size() - len_, f_);
			if (got == 0) {
				if (std::ferror(f_)) {
					err_ = path_ + ": read error: " + std::strerror(errno);
					return false;
				}
				eof_ = true;
			}
			len_ += got;
		}
	}

	std::string path_;
	FILE *f_;
	std::vector<char> buf_;
	size_t pos_ = 0, len_ = 0;
	uint64_t line_no_ = 0;
	bool eof_ = false;
	bool summary_ = false;
	CpuTimeOrder order_;
};

} // namespace

bool parse_line(const char *begin, const char *end, Event *ev, std::string *why)
{
	while (end > begin && (end[-1] == '\r' || end[-1] == ' '))
		end--;
	Cursor c{begin, end};
	uint64_t major, minor, cpu, seq, sec, frac, pid;
	if (!c.number(&major) || c.p >= end || *c.p != ',')
		return fail(why, "expected the device (MAJOR,MINOR)");
	c.p++;
	if (!c.number(&minor) || major > 0xfff || minor > 0xfffff)
		return fail(why, "expected the device (MAJOR,MINOR)");
	if (!c.number(&cpu) || cpu > UINT32_MAX)
		return fail(why, "expected the cpu");
	if (!c.number(&seq))
		return fail(why, "expected the sequence number");
	int digits = 0;
	if (!c.number(&sec) || sec > 1'000'000'000ull || c.p >= end || *c.p != '.')
		return fail(why, "expected the time (SECONDS.NANOSECONDS)");
	c.p++;
	const char *fb = c.p;
	if (fb < end && (*fb == ' ' || *fb == '\t'))
		return fail(why, "expected the time (SECONDS.NANOSECONDS)");
	if (!c.number(&frac, &digits) || digits > 9)
		return fail(why, "expected the time (SECONDS.NANOSECONDS)");
	for (int i = digits; i < 9; i++)
		frac *= 10;
	if (!c.number(&pid) || pid > UINT32_MAX)
		return fail(why, "expected the pid");
	const char *ab, *ae;
	c.word(&ab, &ae);
	// blkparse prints an unplug by the timer as UT (T in its -f format)
	bool timer = ae - ab == 2 && ab[0] == 'U' && ab[1] == 'T';
	if ((ae - ab != 1 || !is_action(*ab)) && !timer)
		return fail(why, "expected the action (Q, G, I, D, C, M, F, P, U, UT, ...)");
	const char *rb, *re;
	c.word(&rb, &re);
	uint32_t rwbs = 0;
	if (!parse_rwbs(rb, re, &rwbs))
		return fail(why, "expected RWBS (R, W, D, N with F, A, S, M)");
	ev->dev = make_dev(static_cast<uint32_t>(major), static_cast<uint32_t>(minor));
	ev->cpu = static_cast<uint32_t>(cpu);
	ev->seq = seq;
	ev->time_ns = static_cast<int64_t>(sec * 1'000'000'000ull + frac);
	ev->pid = static_cast<uint32_t>(pid);
	ev->action = timer ? 'T' : *ab;
	ev->rwbs = rwbs;
	ev->sector = 0;
	ev->sectors = 0;
	ev->error = 0;
	ev->has_cgroup = false;
	ev->cgroup = 0;
	ev->comm.clear();
	ev->message.clear();
	c.skip_space();
	if (ev->action == 'm') {
		ev->message.assign(c.p, end);
		return true;
	}
	if (c.p < end && *c.p >= '0' && *c.p <= '9') {
		uint64_t sector, n;
		if (!c.number(&sector))
			return fail(why, "bad sector");
		ev->sector = sector;
		if (c.lit('+')) {
			if (!c.number(&n) || n > (UINT32_MAX >> 9))
				return fail(why, "expected the number of sectors after '+'");
			ev->sectors = static_cast<uint32_t>(n);
		} else if (c.lit('/')) {
			if (!c.number(&n) || n < sector || n - sector > (UINT32_MAX >> 9))
				return fail(why, "expected the split sector after '/'");
			ev->sectors = static_cast<uint32_t>(n - sector);
		}
	}
	const char *lb = static_cast<const char *>(std::memchr(c.p, '[', end - c.p));
	if (lb) {
		const char *rb2 = static_cast<const char *>(std::memchr(lb, ']', end - lb));
		if (!rb2)
			return fail(why, "'[' without ']'");
		if (ev->action == 'C') {
			Cursor ec{lb + 1, rb2};
			bool neg = ec.lit('-');
			uint64_t err;
			if (!ec.number(&err) || err > 0xffff)
				return fail(why, "expected the error number in [ ]");
			ev->error = neg ? -static_cast<int>(err) : static_cast<int>(err);
		} else {
			ev->comm.assign(lb + 1, rb2);
		}
	}
	return true;
}

std::string format_event(const Event &ev)
{
	char head[128];
	const char action[3] = {ev.action == 'T' ? 'U' : ' ', ev.action, 0};
	std::snprintf(head, sizeof(head), "%3u,%-3u %2u %8llu %5lld.%09lld %5u %s %3s ",
		      dev_major(ev.dev), dev_minor(ev.dev), ev.cpu,
		      static_cast<unsigned long long>(ev.seq),
		      static_cast<long long>(ev.time_ns / 1'000'000'000),
		      static_cast<long long>(ev.time_ns % 1'000'000'000), ev.pid, action,
		      rwbs_string(ev.rwbs).c_str());
	std::string s = head;
	char tail[96];
	switch (ev.action) {
	case 'm':
		return s + ev.message + "\n";
	case 'P':
		return s + "[" + ev.comm + "]\n";
	case 'U':
	case 'T':
		// blkparse: the requests the unplug released after the comm
		return s + "[" + ev.comm + "] 1\n";
	case 'C':
		std::snprintf(tail, sizeof(tail), "%llu + %u [%d]\n",
			      static_cast<unsigned long long>(ev.sector), ev.sectors, ev.error);
		return s + tail;
	case 'X':
		std::snprintf(tail, sizeof(tail), "%llu / %llu ",
			      static_cast<unsigned long long>(ev.sector),
			      static_cast<unsigned long long>(ev.sector + ev.sectors));
		return s + tail + "[" + ev.comm + "]\n";
	default:
		std::snprintf(tail, sizeof(tail), "%llu + %u ",
			      static_cast<unsigned long long>(ev.sector), ev.sectors);
		return s + tail + "[" + ev.comm + "]\n";
	}
}

std::unique_ptr<EventSource> open_blkparse(const std::string &path, std::string *err)
{
	FILE *f = std::fopen(path.c_str(), "rb");
	if (!f) {
		*err = path + ": " + std::strerror(errno);
		return nullptr;
	}
	return std::make_unique<TextFile>(path, f);
}

} // namespace efqsim::trace
