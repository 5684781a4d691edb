// SPDX-License-Identifier: GPL-2.0
#include "trace/blktrace.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <unordered_map>
#include <vector>

namespace efqsim::trace {
namespace {

constexpr size_t kChunk = 1 << 20;

uint16_t bswap(uint16_t v)
{
	return __builtin_bswap16(v);
}
uint32_t bswap(uint32_t v)
{
	return __builtin_bswap32(v);
}
uint64_t bswap(uint64_t v)
{
	return __builtin_bswap64(v);
}

template <typename T> T load(const unsigned char *p, bool swap)
{
	T v;
	std::memcpy(&v, p, sizeof(v));
	return swap ? bswap(v) : v;
}

template <typename T> void store(std::string *out, T v, bool swap)
{
	if (swap)
		v = bswap(v);
	char b[sizeof(T)];
	std::memcpy(b, &v, sizeof(v));
	out->append(b, sizeof(v));
}

// blkparse's letter for an action code; 0 for codes without one.
char letter(uint32_t code)
{
	static const char kLetters[] = {0,   'Q', 'M', 'F', 'G', 'S', 'R', 'D', 'C',
					'P', 'U', 'T', 'I', 'X', 'B', 'A', 0,	0};
	return code < sizeof(kLetters) ? kLetters[code] : 0;
}

uint32_t code_of(char action)
{
	for (uint32_t c = 1; c < 18; c++)
		if (letter(c) == action)
			return c;
	return 0;
}

class BinaryFile final : public EventSource {
public:
	BinaryFile(std::string path, FILE *f) : path_(std::move(path)), f_(f), buf_(kChunk) {}
	~BinaryFile() override { std::fclose(f_); }

	bool next(Event *ev) override
	{
		for (;;) {
			if (!err_.empty())
				return false;
			if (!fill(kRecordSize))
				return false;
			const unsigned char *p = buf_.data() + pos_;
			uint32_t magic = load<uint32_t>(p, false);
			if (!swap_known_) {
				if ((magic & 0xffffff00) == kMagic) {
					swap_ = false;
				} else if ((bswap(magic) & 0xffffff00) == kMagic) {
					swap_ = true;
				} else {
					return fail("not a blktrace file (bad magic 0x" +
						    hex(magic) + ")");
				}
				swap_known_ = true;
			}
			if (swap_)
				magic = bswap(magic);
			if ((magic & 0xffffff00) != kMagic)
				return fail("bad magic 0x" + hex(magic) +
					    " (corrupt or truncated trace)");
			if ((magic & 0xff) != kVersion)
				return fail("unsupported blktrace version " +
					    std::to_string(magic & 0xff) +
					    " (efqsim reads version 7)");
			uint16_t pdu_len = load<uint16_t>(p + 46, swap_);
			if (!fill(kRecordSize + pdu_len)) {
				if (err_.empty())
					return fail("record truncated (needs " +
						    std::to_string(kRecordSize + pdu_len) +
						    " bytes, the file ends first)");
				return false;
			}
			p = buf_.data() + pos_;
			const unsigned char *pdu = p + kRecordSize;
			uint64_t at = offset_;
			pos_ += kRecordSize + pdu_len;
			offset_ += kRecordSize + pdu_len;
			if (decode(p, pdu, pdu_len, at, ev)) {
				if (!in_order(*ev, at))
					return false;
				count_++;
				return true;
			}
		}
	}

private:
	static std::string hex(uint32_t v)
	{
		char b[16];
		std::snprintf(b, sizeof(b), "%08x", v);
		return b;
	}

	bool fail(const std::string &why, uint64_t at)
	{
		err_ = path_ + ": byte offset " + std::to_string(at) + ": " + why;
		return false;
	}
	bool fail(const std::string &why) { return fail(why, offset_); }

	// The record at @at keeps its CPU's time order (kMaxBackwardsNs) and
	// makes no absurd jump (kMaxJumpNs); false with err_ otherwise.
	bool in_order(const Event &ev, uint64_t at)
	{
		int64_t prev = 0;
		CpuTimeOrder::Verdict v = order_.check(ev, &prev);
		char b[200];
		if (v == CpuTimeOrder::Verdict::backwards) {
			std::snprintf(
				b, sizeof(b),
				"time stamp %lld ns is %.6f s before the previous record of CPU "
				"%u (%lld ns): blktrace writes each CPU's records in time order "
				"(a corrupt or spliced file?)",
				static_cast<long long>(ev.time_ns),
				static_cast<double>(prev - ev.time_ns) / 1e9, ev.cpu,
				static_cast<long long>(prev));
			return fail(b, at);
		}
		if (v == CpuTimeOrder::Verdict::jump) {
			std::snprintf(
				b, sizeof(b),
				"time stamp %lld ns is %.1f days after the previous record of "
				"CPU %u (%lld ns): a corrupt time stamp",
				static_cast<long long>(ev.time_ns),
				static_cast<double>(ev.time_ns - prev) / 86400e9, ev.cpu,
				static_cast<long long>(prev));
			return fail(b, at);
		}
		return true;
	}

	// Makes @n bytes available at pos_; false at a clean end of file
	// (nothing left) or when the file ends inside them (err_ set).
	bool fill(size_t n)
	{
		if (len_ - pos_ >= n)
			return true;
		if (pos_ > 0) {
			std::memmove(buf_.data(), buf_.data() + pos_, len_ - pos_);
			len_ -= pos_;
			pos_ = 0;
		}
		if (buf_.size() < n)
			buf_.resize(n);
		while (len_ < n && !eof_) {
			size_t got = std::fread(buf_.data() + len_, 1, buf_.size() - len_, f_);
			if (got == 0) {
				if (std::ferror(f_))
					return fail(std::string("read error: ") +
						    std::strerror(errno));
				eof_ = true;
			}
			len_ += got;
		}
		if (len_ >= n)
			return true;
		if (len_ == 0)
			return false; // clean end
		if (n == kRecordSize)
			fail("record truncated (" + std::to_string(len_) +
			     " bytes left, a record has 48)");
		return false;
	}

	// False for records that are not events (skipped).
	bool decode(const unsigned char *p, const unsigned char *pdu, uint16_t pdu_len, uint64_t at,
		    Event *ev)
	{
		(void)at;
		uint32_t action = load<uint32_t>(p + 28, swap_);
		uint32_t category = action >> 16;
		uint32_t code = action & 0xffff;
		ev->seq = load<uint32_t>(p + 4, swap_);
		uint64_t t = load<uint64_t>(p + 8, swap_);
		ev->time_ns =
			t > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(t);
		ev->sector = load<uint64_t>(p + 16, swap_);
		uint32_t bytes = load<uint32_t>(p + 24, swap_);
		ev->sectors = bytes >> 9;
		ev->pid = load<uint32_t>(p + 32, swap_);
		ev->dev = load<uint32_t>(p + 36, swap_);
		ev->cpu = load<uint32_t>(p + 40, swap_);
		ev->error = static_cast<int16_t>(load<uint16_t>(p + 44, swap_));
		ev->has_cgroup = false;
		ev->cgroup = 0;
		ev->comm.clear();
		ev->message.clear();
		size_t skip = 0;
		if (code & kTaCgroup) {
			code &= ~kTaCgroup;
			if (pdu_len >= 8) {
				ev->has_cgroup = true;
				ev->cgroup = load<uint64_t>(pdu, swap_);
				skip = 8;
			}
		}
		if (category & kTcNotify) {
			const char *text = reinterpret_cast<const char *>(pdu + skip);
			size_t n = strnlen(text, pdu_len - skip);
			if (code == kTnProcess) {
				ev->action = 'N';
				ev->comm.assign(text, n);
			} else if (code == kTnMessage) {
				ev->action = 'm';
				ev->message.assign(text, n);
				while (!ev->message.empty() && ev->message.back() == '\n')
					ev->message.pop_back();
			} else {
				return false; // timestamps
			}
			ev->rwbs = 0;
			ev->sector = 0;
			ev->sectors = 0;
			return true;
		}
		ev->action = letter(code);
		if (!ev->action)
			return false; // abort, driver data, unknown codes
		uint32_t r = 0;
		if (category & kTcFlush)
			r |= kFlush;
		if (category & kTcDiscard)
			r |= kDiscard | kData;
		else if (category & kTcWrite)
			r |= kWrite | kData;
		else if (bytes)
			r |= kData;
		if (category & kTcFua)
			r |= kFua;
		if (category & kTcAhead)
			r |= kAhead;
		if (category & kTcSync)
			r |= kSync;
		if (category & kTcMeta)
			r |= kMeta;
		ev->rwbs = r;
		return true;
	}

	std::string path_;
	FILE *f_;
	std::vector<unsigned char> buf_;
	size_t pos_ = 0, len_ = 0;
	uint64_t offset_ = 0; // of buf_[pos_] in the file
	bool eof_ = false;
	bool swap_known_ = false, swap_ = false;
	CpuTimeOrder order_;
};

} // namespace

std::unique_ptr<EventSource> open_blktrace(const std::string &path, std::string *err)
{
	FILE *f = std::fopen(path.c_str(), "rb");
	if (!f) {
		*err = path + ": " + std::strerror(errno);
		return nullptr;
	}
	return std::make_unique<BinaryFile>(path, f);
}

std::string encode_record(const Record &r, bool swap)
{
	std::string out;
	out.reserve(kRecordSize + r.pdu.size());
	store<uint32_t>(&out, kMagic | kVersion, swap);
	store<uint32_t>(&out, r.sequence, swap);
	store<uint64_t>(&out, r.time_ns, swap);
	store<uint64_t>(&out, r.sector, swap);
	store<uint32_t>(&out, r.bytes, swap);
	store<uint32_t>(&out, r.action, swap);
	store<uint32_t>(&out, r.pid, swap);
	store<uint32_t>(&out, r.device, swap);
	store<uint32_t>(&out, r.cpu, swap);
	store<uint16_t>(&out, r.error, swap);
	store<uint16_t>(&out, static_cast<uint16_t>(r.pdu.size()), swap);
	out += r.pdu;
	return out;
}

std::string encode_event(const Event &ev, bool with_comm, bool swap)
{
	std::string out;
	Record r;
	r.sequence = static_cast<uint32_t>(ev.seq);
	r.time_ns = static_cast<uint64_t>(ev.time_ns);
	r.pid = ev.pid;
	r.device = ev.dev;
	r.cpu = ev.cpu;
	if (with_comm && !ev.comm.empty()) {
		Record n = r;
		n.action = (kTcNotify << 16) | kTnProcess;
		n.pdu = ev.comm;
		n.pdu.resize(16, '\0');
		out += encode_record(n, swap);
	}
	std::string cg;
	if (ev.has_cgroup)
		store<uint64_t>(&cg, ev.cgroup, swap);
	if (ev.action == 'm' || ev.action == 'N') {
		r.action = (kTcNotify << 16) | (ev.action == 'm' ? kTnMessage : kTnProcess) |
			   (ev.has_cgroup ? uint32_t{kTaCgroup} : 0u);
		r.pdu = cg + (ev.action == 'm' ? ev.message : ev.comm);
		r.pdu.push_back('\0');
		return out + encode_record(r, swap);
	}
	uint32_t cat = 0;
	if (ev.rwbs & kWrite)
		cat |= kTcWrite;
	else if (ev.rwbs & kData)
		cat |= kTcRead;
	if (ev.rwbs & kDiscard)
		cat |= kTcDiscard;
	if (ev.rwbs & kFlush)
		cat |= kTcFlush;
	if (ev.rwbs & kFua)
		cat |= kTcFua;
	if (ev.rwbs & kAhead)
		cat |= kTcAhead;
	if (ev.rwbs & kSync)
		cat |= kTcSync;
	if (ev.rwbs & kMeta)
		cat |= kTcMeta;
	switch (ev.action) {
	case 'Q':
	case 'M':
	case 'F':
	case 'G':
	case 'S':
	case 'B':
	case 'X':
	case 'A':
		cat |= kTcQueue;
		break;
	case 'D':
	case 'I':
		cat |= kTcIssue;
		break;
	case 'C':
		cat |= kTcComplete;
		break;
	case 'R':
		cat |= kTcRequeue;
		break;
	default:
		break;
	}
	r.action = (cat << 16) | code_of(ev.action) | (ev.has_cgroup ? uint32_t{kTaCgroup} : 0u);
	r.sector = ev.sector;
	r.bytes = ev.sectors << 9;
	r.error = static_cast<uint16_t>(ev.error);
	r.pdu = cg;
	return out + encode_record(r, swap);
}

} // namespace efqsim::trace
