// SPDX-License-Identifier: GPL-2.0
// efqsim workloads: the fio job-file parser.  See jobfile.h and
// Documentation/sim/workloads.rst.

#include "workload/jobfile.h"

#include "common/text.h"
#include "workload/rng.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <sstream>

namespace efqsim::workload {

const char *rw_mode_name(RwMode m)
{
	switch (m) {
	case RwMode::Read:
		return "read";
	case RwMode::Write:
		return "write";
	case RwMode::RandRead:
		return "randread";
	case RwMode::RandWrite:
		return "randwrite";
	case RwMode::ReadWrite:
		return "rw";
	case RwMode::RandRW:
		return "randrw";
	}
	return "?";
}

const char *io_engine_name(IoEngine e)
{
	switch (e) {
	case IoEngine::Sync:
		return "sync";
	case IoEngine::Psync:
		return "psync";
	case IoEngine::Libaio:
		return "libaio";
	case IoEngine::IoUring:
		return "io_uring";
	case IoEngine::Posixaio:
		return "posixaio";
	}
	return "?";
}

unsigned int JobSpec::effective_depth() const
{
	if (ioengine == IoEngine::Sync || ioengine == IoEngine::Psync)
		return 1;
	if (ioengine == IoEngine::Libaio && !direct)
		return 1;
	return iodepth;
}

namespace {

constexpr uint64_t kKiB = 1024;
constexpr uint64_t kMiB = 1024 * kKiB;
constexpr int64_t kUs = 1000;
constexpr int64_t kMs = 1000 * kUs;
constexpr int64_t kSec = 1000 * kMs;
// Files get 1 MiB-aligned extents on the device.
constexpr uint64_t kFileAlign = kMiB;
// The largest block size: one Io carries a uint32_t byte count; stay well
// inside it.
constexpr uint64_t kMaxBs = 256 * kMiB;
// The longest cgroup name the simulated blkcg takes (sim_name[64] of the
// shim's struct blkcg, sim/include/blk-cgroup.h).
constexpr size_t kMaxCgroupName = 63;

std::string lower(std::string s)
{
	for (auto &c : s)
		c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
	return s;
}

std::string trim(const std::string &s)
{
	size_t b = 0, e = s.size();
	while (b < e && std::isspace(static_cast<unsigned char>(s[b])))
		b++;
	while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1])))
		e--;
	return s.substr(b, e - b);
}

bool all_digits(const std::string &s)
{
	return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
		return std::isdigit(static_cast<unsigned char>(c));
	});
}

// Decimal or 0x hex digits at the start of @s; sets @used to their length.
std::optional<uint64_t> leading_number(const std::string &s, size_t *used, bool allow_hex,
				       std::string *err)
{
	size_t i = 0;
	unsigned int base = 10;
	if (allow_hex && s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	}
	const size_t start = i;
	uint64_t v = 0;
	for (; i < s.size(); i++) {
		const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(s[i])));
		unsigned int d;
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else
			break;
		if (v > (std::numeric_limits<uint64_t>::max() - d) / base) {
			*err = "'" + s + "' is too large";
			return std::nullopt;
		}
		v = v * base + d;
	}
	if (i == start) {
		*err = "'" + s + "' is not a number";
		return std::nullopt;
	}
	*used = i;
	return v;
}

} // namespace

std::optional<uint64_t> parse_size(const std::string &s, unsigned int kb_base, std::string *err)
{
	if (s.empty()) {
		*err = "empty value";
		return std::nullopt;
	}
	if (s[0] == '-') {
		*err = "'" + s + "' is negative";
		return std::nullopt;
	}
	size_t used = 0;
	auto v = leading_number(s, &used, true, err);
	if (!v)
		return std::nullopt;
	const std::string unit = lower(s.substr(used));
	if (unit.find('.') == 0) {
		*err = "'" + s + "': fractions are not accepted, use a smaller unit";
		return std::nullopt;
	}
	uint64_t mult = 1;
	if (!unit.empty() && unit != "b") {
		static const std::string prefixes = "kmgtp";
		const size_t p = prefixes.find(unit[0]);
		std::string rest = unit.substr(1);
		if (p == std::string::npos ||
		    !(rest.empty() || rest == "b" || rest == "i" || rest == "ib")) {
			*err = "'" + s + "': bad size suffix '" + s.substr(used) +
			       "' (use k, m, g, t, p, optionally with b, i or ib)";
			return std::nullopt;
		}
		// fio 3.33: only a unit ending in "ib" takes the base opposite
		// to kb_base; "k", "kb" and "ki" follow kb_base.
		uint64_t base = kb_base;
		if (rest == "ib")
			base = kb_base == 1024 ? 1000 : 1024;
		for (size_t i = 0; i <= p; i++)
			mult *= base;
	}
	if (*v != 0 && mult > std::numeric_limits<uint64_t>::max() / *v) {
		*err = "'" + s + "' is too large";
		return std::nullopt;
	}
	return *v * mult;
}

std::optional<int64_t> parse_time(const std::string &s, int64_t default_unit_ns, std::string *err)
{
	if (s.empty()) {
		*err = "empty value";
		return std::nullopt;
	}
	if (s[0] == '-') {
		*err = "'" + s + "' is negative";
		return std::nullopt;
	}
	size_t used = 0;
	auto v = leading_number(s, &used, false, err);
	if (!v)
		return std::nullopt;
	const std::string unit = lower(s.substr(used));
	int64_t mult;
	if (unit.empty())
		mult = default_unit_ns;
	else if (unit == "d")
		mult = 86400 * kSec;
	else if (unit == "h")
		mult = 3600 * kSec;
	else if (unit == "m")
		mult = 60 * kSec;
	else if (unit == "s" || unit == "sec")
		mult = kSec;
	else if (unit == "ms" || unit == "msec")
		mult = kMs;
	else if (unit == "us" || unit == "usec")
		mult = kUs;
	else {
		*err = "'" + s + "': bad time suffix '" + s.substr(used) +
		       "' (use us, ms, s, m, h or d)";
		return std::nullopt;
	}
	if (*v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max() / mult)) {
		*err = "'" + s + "' is too large";
		return std::nullopt;
	}
	return static_cast<int64_t>(*v) * mult;
}

namespace {

struct Loc {
	std::string file;
	int line = 0;
	std::string str() const { return file + ":" + std::to_string(line); }
};

// A byte count or a percentage of the device.
struct SizeVal {
	uint64_t bytes = 0;
	unsigned int pct = 0; // 1..100, or 0 = bytes
	bool set = false;
};

using Options = std::vector<std::pair<std::string, std::string>>;

// fio keeps a section's options like a dictionary: first position, last value.
void remember(Options &o, const std::string &key, const std::string &value)
{
	for (auto &kv : o) {
		if (kv.first == key) {
			kv.second = value;
			return;
		}
	}
	o.emplace_back(key, value);
}

struct LogOpt {
	bool on = false;
	std::string prefix; // "" = the job's name
};

// One job section's options as parsed, before numjobs and the layout.
struct Draft {
	std::string name;
	Loc at; // the section header
	RwMode rw = RwMode::Read;
	unsigned int rwmixread = 50;
	uint32_t bs_read = 4096, bs_write = 4096;
	bool norandommap = false;
	bool randseed_set = false;
	uint64_t randseed = 0;
	SizeVal size, offset, offset_increment;
	uint64_t io_size = 0;
	std::string filename, directory;
	int64_t runtime = 0, ramp = 0, startdelay = 0, thinktime = 0;
	bool time_based = false;
	unsigned int numjobs = 1, iodepth = 1, thinktime_blocks = 1, fsync = 0;
	bool end_fsync = false;
	IoEngine ioengine = IoEngine::Psync;
	bool direct = false, invalidate = true;
	int prio = -1, prioclass = -1;
	std::string cgroup;
	unsigned int cgroup_weight = 0;
	bool group_reporting = false, new_group = false, stonewall = false;
	LogOpt bw_log, lat_log, iops_log;
	unsigned int log_avg_msec = 0;
	bool log_offset = false, per_job_logs = true;
	unsigned int kb_base = 1024;
	std::map<std::string, Loc> set_at; // option (canonical name) -> last line
	Options written;		   // this section's own, as written
};

struct Value {
	std::string text; // trimmed; empty when bare
	bool bare = false;
};

// An option handler: applies @v to @d; returns "" or an error message.
using Handler = std::string (*)(Draft &d, const Value &v, const ParseContext &ctx);

std::string need_value(const Value &v)
{
	return v.bare || v.text.empty() ? "needs a value" : "";
}

std::string get_bool(const Value &v, bool *out)
{
	if (v.bare) {
		*out = true;
		return "";
	}
	if (v.text == "1") {
		*out = true;
		return "";
	}
	if (v.text == "0") {
		*out = false;
		return "";
	}
	return "'" + v.text + "' is not a boolean (use 0 or 1)";
}

std::string get_uint(const Value &v, uint64_t lo, uint64_t hi, uint64_t *out)
{
	if (auto e = need_value(v); !e.empty())
		return e;
	std::string err;
	// Counts take plain numbers (and 0x hex); size suffixes make no sense.
	size_t used = 0;
	auto n = leading_number(v.text, &used, true, &err);
	if (!n || used != v.text.size())
		return "'" + v.text + "' is not a whole number";
	if (*n < lo || *n > hi)
		return "'" + v.text + "' is out of range (" + std::to_string(lo) + ".." +
		       std::to_string(hi) + ")";
	*out = *n;
	return "";
}

template <typename T> std::string get_uint_as(const Value &v, uint64_t lo, uint64_t hi, T *out)
{
	uint64_t n = 0;
	auto e = get_uint(v, lo, hi, &n);
	if (e.empty())
		*out = static_cast<T>(n);
	return e;
}

std::string get_size(const Value &v, unsigned int kb_base, uint64_t *out)
{
	if (auto e = need_value(v); !e.empty())
		return e;
	std::string err;
	auto n = parse_size(v.text, kb_base, &err);
	if (!n)
		return err;
	*out = *n;
	return "";
}

// A size or "N%" (1..100) of the device.
std::string get_size_or_pct(const Value &v, unsigned int kb_base, bool allow_zero_pct, SizeVal *out)
{
	if (auto e = need_value(v); !e.empty())
		return e;
	if (v.text.back() == '%') {
		const std::string num = trim(v.text.substr(0, v.text.size() - 1));
		if (!all_digits(num))
			return "'" + v.text + "' is not a percentage (use 1% .. 100%)";
		const unsigned long pct = num.size() > 3 ? 1000 : std::stoul(num);
		if (pct > 100 || (pct == 0 && !allow_zero_pct))
			return "'" + v.text + "' is out of range (" + (allow_zero_pct ? "0" : "1") +
			       "% .. 100%)";
		*out = SizeVal{0, static_cast<unsigned int>(pct), true};
		if (pct == 0)
			*out = SizeVal{0, 0, true};
		return "";
	}
	uint64_t n = 0;
	if (auto e = get_size(v, kb_base, &n); !e.empty())
		return e;
	*out = SizeVal{n, 0, true};
	return "";
}

std::string get_time(const Value &v, int64_t unit, int64_t *out)
{
	if (auto e = need_value(v); !e.empty())
		return e;
	if (v.text.find_first_of(":-") != std::string::npos && v.text[0] != '-')
		return "'" + v.text + "': ranges are not supported";
	std::string err;
	auto t = parse_time(v.text, unit, &err);
	if (!t)
		return err;
	*out = *t;
	return "";
}

std::string get_string(const Value &v, std::string *out)
{
	if (auto e = need_value(v); !e.empty())
		return e;
	*out = v.text;
	return "";
}

// --- the handlers ----------------------------------------------------------

std::string opt_name(Draft &d, const Value &v, const ParseContext &)
{
	return get_string(v, &d.name);
}

std::string opt_description(Draft &, const Value &v, const ParseContext &)
{
	return need_value(v); // a free-text note; fio only prints it
}

std::string opt_rw(Draft &d, const Value &v, const ParseContext &)
{
	if (auto e = need_value(v); !e.empty())
		return e;
	if (v.text.find(':') != std::string::npos)
		return "'" + v.text + "': offset modifiers (rw=<mode>:<nr>) are not supported";
	static const std::map<std::string, RwMode> modes = {
		{"read", RwMode::Read},		{"write", RwMode::Write},
		{"randread", RwMode::RandRead}, {"randwrite", RwMode::RandWrite},
		{"rw", RwMode::ReadWrite},	{"readwrite", RwMode::ReadWrite},
		{"randrw", RwMode::RandRW},
	};
	auto it = modes.find(v.text);
	if (it != modes.end()) {
		d.rw = it->second;
		return "";
	}
	if (v.text == "trim" || v.text == "randtrim" || v.text == "trimwrite" ||
	    v.text == "randtrimwrite")
		return "'" + v.text + "': trim workloads are not supported";
	return "'" + v.text +
	       "' is not an IO pattern (read, write, randread, randwrite, rw, readwrite, randrw)";
}

std::string opt_rwmixread(Draft &d, const Value &v, const ParseContext &)
{
	unsigned int pct = 0;
	auto e = get_uint_as(v, 0, 100, &pct);
	if (e.empty())
		d.rwmixread = pct;
	return e;
}

std::string opt_rwmixwrite(Draft &d, const Value &v, const ParseContext &)
{
	unsigned int pct = 0;
	auto e = get_uint_as(v, 0, 100, &pct);
	if (e.empty())
		d.rwmixread = 100 - pct; // the later of the two wins, as in fio
	return e;
}

std::string check_bs(uint64_t bs, const std::string &text)
{
	if (bs == 0)
		return "'" + text + "': a block size must be at least 512";
	if (bs % 512)
		return "'" + text + "': a block size must be a multiple of 512 (sectors)";
	if (bs > kMaxBs)
		return "'" + text + "': block sizes above 256 MiB are not supported";
	return "";
}

std::string opt_bs(Draft &d, const Value &v, const ParseContext &)
{
	if (auto e = need_value(v); !e.empty())
		return e;
	// read[,write[,trim]]: a value not followed by a comma also applies to
	// the later directions; an empty one keeps the default.
	std::vector<std::string> parts;
	std::stringstream ss(v.text);
	std::string p;
	while (std::getline(ss, p, ','))
		parts.push_back(trim(p));
	if (!v.text.empty() && v.text.back() == ',')
		parts.emplace_back();
	if (parts.size() > 3)
		return "'" + v.text + "': at most three block sizes (read,write,trim)";
	uint64_t vals[3] = {4096, 4096, 4096};
	for (size_t i = 0; i < parts.size(); i++) {
		if (parts[i].empty())
			continue;
		if (parts[i].find_first_of(":-") != std::string::npos)
			return "'" + v.text + "': block size ranges are not supported";
		uint64_t bs = 0;
		if (auto e = get_size(Value{parts[i], false}, d.kb_base, &bs); !e.empty())
			return e;
		if (auto e = check_bs(bs, parts[i]); !e.empty())
			return e;
		const bool last = i + 1 == parts.size();
		for (size_t j = i; j < (last ? 3 : i + 1); j++)
			vals[j] = bs;
	}
	// vals[2] (trim) is validated and unused: trim workloads are rejected.
	d.bs_read = static_cast<uint32_t>(vals[0]);
	d.bs_write = static_cast<uint32_t>(vals[1]);
	return "";
}

std::string opt_size(Draft &d, const Value &v, const ParseContext &)
{
	SizeVal s;
	auto e = get_size_or_pct(v, d.kb_base, false, &s);
	if (e.empty())
		d.size = s.bytes == 0 && s.pct == 0 ? SizeVal{} : s; // size=0: not set
	return e;
}

std::string opt_io_size(Draft &d, const Value &v, const ParseContext &)
{
	return get_size(v, d.kb_base, &d.io_size);
}

std::string opt_offset(Draft &d, const Value &v, const ParseContext &)
{
	auto e = get_size_or_pct(v, d.kb_base, true, &d.offset);
	if (e.empty() && !d.offset.pct && d.offset.bytes % 512)
		return "'" + v.text + "': offsets must be multiples of 512";
	return e;
}

std::string opt_offset_increment(Draft &d, const Value &v, const ParseContext &)
{
	auto e = get_size_or_pct(v, d.kb_base, true, &d.offset_increment);
	if (e.empty() && !d.offset_increment.pct && d.offset_increment.bytes % 512)
		return "'" + v.text + "': offsets must be multiples of 512";
	return e;
}

// fio escapes ':' in names with '\'; an unescaped ':' separates a list.
std::string unescape_path(const std::string &text, const char *what, std::string *out)
{
	std::string r;
	for (size_t i = 0; i < text.size(); i++) {
		if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] == ':') {
			r += ':';
			i++;
		} else if (text[i] == ':') {
			return std::string("'") + text + "': lists of " + what +
			       " (':'-separated) are not supported";
		} else {
			r += text[i];
		}
	}
	*out = r;
	return "";
}

std::string opt_filename(Draft &d, const Value &v, const ParseContext &)
{
	if (auto e = need_value(v); !e.empty())
		return e;
	return unescape_path(v.text, "files", &d.filename);
}

std::string opt_directory(Draft &d, const Value &v, const ParseContext &)
{
	if (auto e = need_value(v); !e.empty())
		return e;
	return unescape_path(v.text, "directories", &d.directory);
}

std::string opt_runtime(Draft &d, const Value &v, const ParseContext &)
{
	return get_time(v, kSec, &d.runtime);
}

std::string opt_time_based(Draft &d, const Value &v, const ParseContext &)
{
	return get_bool(v, &d.time_based);
}

std::string opt_ramp_time(Draft &d, const Value &v, const ParseContext &)
{
	return get_time(v, kSec, &d.ramp);
}

std::string opt_startdelay(Draft &d, const Value &v, const ParseContext &)
{
	return get_time(v, kSec, &d.startdelay);
}

std::string opt_numjobs(Draft &d, const Value &v, const ParseContext &)
{
	return get_uint_as(v, 1, 4096, &d.numjobs);
}

std::string opt_iodepth(Draft &d, const Value &v, const ParseContext &)
{
	return get_uint_as(v, 1, 65536, &d.iodepth);
}

std::string opt_ioengine(Draft &d, const Value &v, const ParseContext &)
{
	if (auto e = need_value(v); !e.empty())
		return e;
	static const std::map<std::string, IoEngine> engines = {
		{"sync", IoEngine::Sync},	  {"psync", IoEngine::Psync},
		{"libaio", IoEngine::Libaio},	  {"io_uring", IoEngine::IoUring},
		{"posixaio", IoEngine::Posixaio},
	};
	auto it = engines.find(v.text);
	if (it == engines.end())
		return "ioengine '" + v.text +
		       "' is not supported (sync, psync, libaio, io_uring, posixaio)";
	d.ioengine = it->second;
	return "";
}

std::string opt_direct(Draft &d, const Value &v, const ParseContext &)
{
	return get_bool(v, &d.direct);
}

std::string opt_buffered(Draft &d, const Value &v, const ParseContext &)
{
	bool b = false;
	auto e = get_bool(v, &b);
	if (e.empty())
		d.direct = !b;
	return e;
}

std::string opt_invalidate(Draft &d, const Value &v, const ParseContext &)
{
	return get_bool(v, &d.invalidate);
}

std::string opt_thinktime(Draft &d, const Value &v, const ParseContext &)
{
	return get_time(v, kUs, &d.thinktime);
}

std::string opt_thinktime_blocks(Draft &d, const Value &v, const ParseContext &)
{
	return get_uint_as(v, 1, 1u << 20, &d.thinktime_blocks);
}

std::string opt_fsync(Draft &d, const Value &v, const ParseContext &)
{
	return get_uint_as(v, 0, 1u << 30, &d.fsync);
}

std::string opt_end_fsync(Draft &d, const Value &v, const ParseContext &)
{
	return get_bool(v, &d.end_fsync);
}

std::string opt_prio(Draft &d, const Value &v, const ParseContext &)
{
	return get_uint_as(v, 0, 7, &d.prio);
}

std::string opt_prioclass(Draft &d, const Value &v, const ParseContext &)
{
	return get_uint_as(v, 0, 3, &d.prioclass);
}

std::string opt_cgroup(Draft &d, const Value &v, const ParseContext &)
{
	if (auto e = need_value(v); !e.empty())
		return e;
	std::string path = v.text;
	while (!path.empty() && path.front() == '/')
		path.erase(path.begin());
	while (!path.empty() && path.back() == '/')
		path.pop_back();
	std::stringstream ss(path);
	std::string part;
	while (std::getline(ss, part, '/')) {
		if (part.empty() || part == "." || part == "..")
			return "'" + v.text +
			       "' is not a cgroup path (no empty, '.' or '..' parts)";
		for (const char c : part) {
			const auto u = static_cast<unsigned char>(c);
			if (std::isspace(u))
				return "'" + v.text + "': cgroup names cannot contain spaces";
			if (u < 0x20 || u == 0x7f)
				return "'" + v.text +
				       "': cgroup names cannot contain control characters";
		}
		if (part.size() > kMaxCgroupName)
			return "'" + v.text + "': cgroup name '" + part + "' is longer than " +
			       std::to_string(kMaxCgroupName) + " bytes (efqsim's limit)";
	}
	d.cgroup = path;
	return "";
}

std::string opt_cgroup_weight(Draft &d, const Value &v, const ParseContext &)
{
	return get_uint_as(v, 100, 1000, &d.cgroup_weight);
}

std::string opt_ioscheduler(Draft &, const Value &v, const ParseContext &ctx)
{
	if (auto e = need_value(v); !e.empty())
		return e;
	if (std::find(ctx.scheduler_names.begin(), ctx.scheduler_names.end(), v.text) !=
	    ctx.scheduler_names.end())
		return "";
	if (ctx.scheduler_names.empty())
		return "ioscheduler='" + v.text + "': no simulated scheduler is known here";
	return "ioscheduler='" + v.text + "': the simulated device runs '" +
	       ctx.scheduler_names.front() + "' (choose it with efqsim --scheduler)";
}

std::string opt_group_reporting(Draft &d, const Value &v, const ParseContext &)
{
	return get_bool(v, &d.group_reporting);
}

std::string opt_new_group(Draft &d, const Value &v, const ParseContext &)
{
	return get_bool(v, &d.new_group);
}

std::string opt_stonewall(Draft &d, const Value &v, const ParseContext &)
{
	return get_bool(v, &d.stonewall);
}

// Bare: the job's name is the prefix (resolved per job).
std::string get_log(const Value &v, LogOpt *out)
{
	*out = LogOpt{true, v.bare ? std::string() : v.text};
	return "";
}

std::string opt_write_bw_log(Draft &d, const Value &v, const ParseContext &)
{
	return get_log(v, &d.bw_log);
}

std::string opt_write_lat_log(Draft &d, const Value &v, const ParseContext &)
{
	return get_log(v, &d.lat_log);
}

std::string opt_write_iops_log(Draft &d, const Value &v, const ParseContext &)
{
	return get_log(v, &d.iops_log);
}

std::string opt_log_avg_msec(Draft &d, const Value &v, const ParseContext &)
{
	return get_uint_as(v, 0, 86400u * 1000, &d.log_avg_msec);
}

std::string opt_log_offset(Draft &d, const Value &v, const ParseContext &)
{
	return get_bool(v, &d.log_offset);
}

std::string opt_per_job_logs(Draft &d, const Value &v, const ParseContext &)
{
	return get_bool(v, &d.per_job_logs);
}

std::string opt_norandommap(Draft &d, const Value &v, const ParseContext &)
{
	return get_bool(v, &d.norandommap);
}

std::string opt_randrepeat(Draft &, const Value &v, const ParseContext &)
{
	bool b = true;
	auto e = get_bool(v, &b);
	if (e.empty() && !b)
		return "randrepeat=0 would make the run unrepeatable; efqsim is deterministic "
		       "(vary --seed or randseed= instead)";
	return e;
}

std::string opt_randseed(Draft &d, const Value &v, const ParseContext &)
{
	auto e = get_uint(v, 0, std::numeric_limits<uint64_t>::max(), &d.randseed);
	if (e.empty())
		d.randseed_set = true;
	return e;
}

std::string opt_kb_base(Draft &d, const Value &v, const ParseContext &)
{
	unsigned int b = 0;
	auto e = get_uint_as(v, 0, 1u << 20, &b);
	if (!e.empty())
		return e;
	if (b != 1000 && b != 1024)
		return "'" + v.text + "': kb_base is 1000 or 1024";
	d.kb_base = b;
	return "";
}

std::string opt_thread(Draft &, const Value &v, const ParseContext &)
{
	// Threads and processes are the same simulated task here.
	bool b = false;
	return get_bool(v, &b);
}

// Every option efqsim understands; the key of set_at is the first name.
const std::vector<std::pair<std::vector<std::string>, Handler>> &options()
{
	static const std::vector<std::pair<std::vector<std::string>, Handler>> opts = {
		{{"name"}, opt_name},
		{{"description"}, opt_description},
		{{"rw", "readwrite"}, opt_rw},
		{{"rwmixread"}, opt_rwmixread},
		{{"rwmixwrite"}, opt_rwmixwrite},
		{{"bs", "blocksize"}, opt_bs},
		{{"size"}, opt_size},
		{{"io_size", "io_limit"}, opt_io_size},
		{{"offset"}, opt_offset},
		{{"offset_increment"}, opt_offset_increment},
		{{"filename"}, opt_filename},
		{{"directory"}, opt_directory},
		{{"runtime", "timeout"}, opt_runtime},
		{{"time_based"}, opt_time_based},
		{{"ramp_time"}, opt_ramp_time},
		{{"startdelay"}, opt_startdelay},
		{{"numjobs"}, opt_numjobs},
		{{"iodepth"}, opt_iodepth},
		{{"ioengine"}, opt_ioengine},
		{{"direct"}, opt_direct},
		{{"buffered"}, opt_buffered},
		{{"invalidate"}, opt_invalidate},
		{{"thinktime"}, opt_thinktime},
		{{"thinktime_blocks"}, opt_thinktime_blocks},
		{{"fsync"}, opt_fsync},
		{{"end_fsync"}, opt_end_fsync},
		{{"prio"}, opt_prio},
		{{"prioclass"}, opt_prioclass},
		{{"cgroup"}, opt_cgroup},
		{{"cgroup_weight"}, opt_cgroup_weight},
		{{"ioscheduler"}, opt_ioscheduler},
		{{"group_reporting"}, opt_group_reporting},
		{{"new_group"}, opt_new_group},
		{{"stonewall", "wait_for_previous"}, opt_stonewall},
		{{"write_bw_log"}, opt_write_bw_log},
		{{"write_lat_log"}, opt_write_lat_log},
		{{"write_iops_log"}, opt_write_iops_log},
		{{"log_avg_msec"}, opt_log_avg_msec},
		{{"log_offset"}, opt_log_offset},
		{{"per_job_logs"}, opt_per_job_logs},
		{{"norandommap"}, opt_norandommap},
		{{"randrepeat"}, opt_randrepeat},
		{{"randseed"}, opt_randseed},
		{{"kb_base"}, opt_kb_base},
		{{"thread"}, opt_thread},
	};
	return opts;
}

// fio options efqsim knows of and does not model: a clearer message than
// "unknown option".
const char *const kUnsupported[] = {
	"loops",
	"nrfiles",
	"filesize",
	"file_service_type",
	"openfiles",
	"fadvise_hint",
	"fallocate",
	"fsync_on_close",
	"fdatasync",
	"sync",
	"rate",
	"rate_min",
	"rate_iops",
	"rate_iops_min",
	"rate_process",
	"ratecycle",
	"bssplit",
	"bsrange",
	"blocksize_range",
	"bs_unaligned",
	"blockalign",
	"ba",
	"bs_is_seq_rand",
	"random_distribution",
	"percentage_random",
	"random_generator",
	"allrandrepeat",
	"rw_sequencer",
	"zonemode",
	"zonesize",
	"zonerange",
	"zoneskip",
	"iodepth_batch",
	"iodepth_batch_submit",
	"iodepth_batch_complete",
	"iodepth_batch_complete_min",
	"iodepth_batch_complete_max",
	"iodepth_low",
	"io_submit_mode",
	"verify",
	"do_verify",
	"verify_pattern",
	"buffer_pattern",
	"refill_buffers",
	"scramble_buffers",
	"buffer_compress_percentage",
	"dedupe_percentage",
	"nice",
	"cpus_allowed",
	"cpumask",
	"numa_cpu_nodes",
	"numa_mem_policy",
	"exitall",
	"exitall_on_error",
	"exec_prerun",
	"exec_postrun",
	"pre_read",
	"unlink",
	"unlink_each_loop",
	"create_on_open",
	"create_only",
	"lockfile",
	"overwrite",
	"thinktime_spin",
	"thinktime_blocks_type",
	"thinktime_iotime",
	"cmdprio",
	"cmdprio_percentage",
	"cmdprio_class",
	"cmdprio_bssplit",
	"hipri",
	"fixedbufs",
	"registerfiles",
	"sqthread_poll",
	"userspace_reap",
	"per_job_logs",
	"log_offset",
	"log_max_value",
	"log_hist_msec",
	"write_hist_log",
	"log_compression",
	"disable_lat",
	"disable_clat",
	"disable_slat",
	"disable_bw_measurement",
	"gtod_reduce",
	"clocksource",
	"cgroup_nodelete",
	"uid",
	"gid",
	"flow",
	"flow_id",
	"steadystate",
	"ss",
	"ss_duration",
	"ss_ramp",
	"number_ios",
	"io_size_percent",
	"significant_figures",
	"percentile_list",
	"clat_percentiles",
	"lat_percentiles",
	"slat_percentiles",
	"continue_on_error",
	"ignore_error",
	"error_dump",
	"mem",
	"iomem",
	"iomem_align",
	"hugepage-size",
	"trim_percentage",
	"trim_verify_zero",
	"trim_backlog",
	"replay_redirect",
	"read_iolog",
	"write_iolog",
	"iolog",
	"replay_no_stall",
	"serialize_overlap",
	"atomic",
	"ioprio",
	"priohint",
	"stats",
	"unified_rw_reporting",
	"experimental_verify",
	"max_latency",
	"latency_target",
	"latency_window",
	"latency_percentile",
	"offset_align",
	"job_start_clock_id",
	"filename_format",
	"unique_filename",
	"opendir",
	"file_append",
	"pre_read",
	"sync_file_range",
	"write_barrier",
	"lat_log",
	"bwavgtime",
	"iopsavgtime",
	"size_percent",
};

bool known_unsupported(const std::string &key)
{
	return std::find(std::begin(kUnsupported), std::end(kUnsupported), key) !=
	       std::end(kUnsupported);
}

Handler find_option(const std::string &key, std::string *canonical)
{
	for (const auto &[names, fn] : options()) {
		if (std::find(names.begin(), names.end(), key) != names.end()) {
			*canonical = names.front();
			return fn;
		}
	}
	return nullptr;
}

// A job section after parsing: its draft and where it was declared.
struct Section {
	Draft d;
	int file_index = 0;
	bool first_in_file = false;
};

class Parser {
public:
	Parser(const ParseContext &ctx) : ctx_(ctx) {}

	bool parse_source(const JobSource &src, int file_index)
	{
		Draft global; // this file's [global] defaults, as fio keeps them
		enum { None, Global, Job } where = None;
		Draft *cur = nullptr;
		bool first_job = true;
		std::string line;
		std::stringstream in(src.text);
		int lineno = 0;

		auto finish_job = [&]() -> bool {
			if (where == Job && !check_section(sections_.back().d))
				return false;
			return true;
		};

		while (std::getline(in, line)) {
			lineno++;
			const Loc loc{src.name, lineno};
			const size_t c = line.find_first_of(";#");
			if (c != std::string::npos)
				line.erase(c);
			line = trim(line);
			if (line.empty())
				continue;
			if (line.front() == '[') {
				if (line.back() != ']' || line.size() < 3)
					return fail(loc, "malformed section header '" +
								 excerpt(line) +
								 "' (expected [name])");
				const std::string name = trim(line.substr(1, line.size() - 2));
				if (name.empty() || name.find_first_of("[]") != std::string::npos)
					return fail(loc, "malformed section header '" +
								 excerpt(line) + "'");
				if (!finish_job())
					return false;
				if (name == "global") {
					where = Global;
					cur = &global;
					continue;
				}
				where = Job;
				Section s;
				s.d = global;
				s.d.written.clear();
				s.d.name = name;
				s.d.at = loc;
				// Options inherited from [global] keep their lines.
				s.file_index = file_index;
				s.first_in_file = first_job;
				first_job = false;
				sections_.push_back(std::move(s));
				cur = &sections_.back().d;
				continue;
			}
			if (where == None)
				return fail(
					loc,
					"option '" + excerpt(line) +
						"' outside a section (start a job with [name] or "
						"defaults with [global])");
			if (!apply_line(*cur, line, loc, where == Global))
				return false;
		}
		if (!finish_job())
			return false;
		if (first_job)
			return fail(Loc{src.name, lineno}, "no jobs defined", true);
		global_options = global.written;
		return true;
	}

	bool resolve(std::vector<JobSpec> *out);

	std::string error;
	Options global_options; // of the last file

private:
	bool fail(const Loc &loc, const std::string &msg, bool no_line = false)
	{
		error = printable(no_line ? loc.file + ": " + msg : loc.str() + ": " + msg);
		return false;
	}

	bool apply_line(Draft &d, const std::string &line, const Loc &loc, bool global)
	{
		if (line.rfind("include", 0) == 0 &&
		    (line.size() == 7 || std::isspace(static_cast<unsigned char>(line[7]))))
			return fail(loc, "'include' directives are not supported");
		const size_t eq = line.find('=');
		const std::string key = trim(line.substr(0, eq));
		Value v;
		if (eq == std::string::npos) {
			v.bare = true;
		} else {
			v.text = trim(line.substr(eq + 1));
			if (v.text.empty())
				return fail(loc, "option '" + key + "' has an empty value");
		}
		if (key.empty())
			return fail(loc, "missing option name in '" + excerpt(line) + "'");
		if (v.text.find("${") != std::string::npos)
			return fail(loc,
				    key + ": environment variables (${...}) are not supported");
		if (v.text.find('$') != std::string::npos)
			return fail(loc, key + ": fio keywords ($pagesize, $mb_memory, $ncpus) are "
					       "not supported");
		if (!v.text.empty() && v.text.front() == '(')
			return fail(loc, key + ": arithmetic expressions are not supported");
		std::string canonical;
		Handler fn = find_option(key, &canonical);
		if (!fn) {
			if (known_unsupported(key))
				return fail(loc,
					    "fio option '" + key + "' is not supported by efqsim");
			return fail(loc, "unknown option '" + excerpt(key) + "'");
		}
		if (global && canonical == "name")
			return fail(loc,
				    "name= in [global] would rename every job; set it in a job "
				    "section");
		const std::string e = fn(d, v, ctx_);
		if (!e.empty())
			return fail(loc, key + ": " + e);
		d.set_at[canonical] = loc;
		if (!v.bare)
			remember(d.written, key, v.text);
		return true;
	}

	// Where option @opt was set for @d, or the section header.
	const Loc &where(const Draft &d, const std::string &opt) const
	{
		auto it = d.set_at.find(opt);
		return it != d.set_at.end() ? it->second : d.at;
	}

	bool check_section(const Draft &d)
	{
		if (d.time_based && d.runtime == 0)
			return fail(where(d, "time_based"), "time_based needs runtime=");
		if (d.cgroup_weight && d.cgroup.empty())
			return fail(where(d, "cgroup_weight"),
				    "cgroup_weight needs cgroup= (the root cgroup has no weight)");
		if (d.direct && d.fsync)
			return fail(
				where(d, "fsync"),
				"fsync with direct=1 would flush the device's write cache, which "
				"efqsim does not model");
		if (d.direct && d.end_fsync)
			return fail(where(d, "end_fsync"),
				    "end_fsync with direct=1 would flush the device's write cache, "
				    "which efqsim does not model");
		if (d.directory.empty() && d.filename.empty() && d.set_at.count("directory"))
			return fail(where(d, "directory"), "directory is empty");
		return true;
	}

	const ParseContext &ctx_;
	std::vector<Section> sections_;
};

std::string join_path(const std::string &dir, const std::string &name)
{
	std::string p;
	if (dir.empty() || (!name.empty() && name.front() == '/'))
		p = name;
	else
		p = dir + "/" + name;
	std::string r;
	for (const char c : p)
		if (!(c == '/' && !r.empty() && r.back() == '/'))
			r += c;
	while (r.rfind("./", 0) == 0)
		r.erase(0, 2);
	return r;
}

uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) / a * a;
}

bool Parser::resolve(std::vector<JobSpec> *out)
{
	const uint64_t cap = ctx_.capacity_bytes;
	struct Clone {
		const Section *s;
		int clone;
		std::string file;
		uint64_t offset, size; // size 0 = to the end of the file
		Loc size_at;
	};
	std::vector<Clone> clones;
	// Files in order of first use: name -> extent needed (bytes).
	struct FileUse {
		uint64_t need = 0;
		bool sized = false;
		Loc first, grow_at;
	};
	std::vector<std::string> file_order;
	std::map<std::string, FileUse> files;

	for (const auto &s : sections_) {
		const Draft &d = s.d;
		const uint32_t min_bs = std::min(d.bs_read, d.bs_write);
		for (unsigned int c = 0; c < d.numjobs; c++) {
			Clone cl{&s, static_cast<int>(c), "", 0, 0, d.at};
			if (!d.filename.empty())
				cl.file = join_path(d.directory, d.filename);
			else
				cl.file = join_path(d.directory,
						    d.name + "." + std::to_string(c) + ".0");
			const bool is_dev = cl.file.rfind("/dev/", 0) == 0;
			auto bytes_of = [&](const SizeVal &v) -> uint64_t {
				if (!v.pct)
					return v.bytes;
				const uint64_t b = static_cast<uint64_t>(
					static_cast<unsigned __int128>(cap) * v.pct / 100);
				return b / min_bs * min_bs;
			};
			cl.offset = bytes_of(d.offset) + c * bytes_of(d.offset_increment);
			cl.size = bytes_of(d.size);
			cl.size_at = where(d, d.size.set ? "size" : "filename");
			if (d.size.set && d.size.pct && cl.size < std::max<uint64_t>(min_bs, 1))
				return fail(where(d, "size"),
					    "size=" + std::to_string(d.size.pct) +
						    "% is smaller than one block");
			auto [it, fresh] = files.try_emplace(cl.file);
			FileUse &fu = it->second;
			if (fresh) {
				file_order.push_back(cl.file);
				fu.first = d.at;
			}
			if (is_dev) {
				fu.need = cap;
				fu.sized = true;
			} else if (cl.size) {
				const uint64_t end = cl.offset + cl.size;
				if (end > fu.need) {
					fu.need = end;
					fu.grow_at = cl.size_at;
				}
				fu.sized = true;
			}
			clones.push_back(cl);
		}
	}

	// Lay the files out: /dev/ names are the whole device; every other
	// name gets its own extent, 1 MiB aligned, in order of first use.
	std::map<std::string, std::pair<uint64_t, uint64_t>> extent; // start, bytes
	std::string dev_name;
	uint64_t next = 0;
	for (const auto &name : file_order) {
		const FileUse &fu = files[name];
		if (name.rfind("/dev/", 0) == 0) {
			if (!dev_name.empty() && dev_name != name)
				return fail(fu.first,
					    "'" + name + "' and '" + dev_name +
						    "' are both devices; efqsim simulates one "
						    "device");
			dev_name = name;
			extent[name] = {0, cap};
			continue;
		}
		if (!fu.sized)
			return fail(fu.first, "file '" + name +
						      "' has no size: set size= (or use a /dev/ "
						      "filename for the whole device)");
		const uint64_t start = align_up(next, kFileAlign);
		if (start > cap || fu.need > cap - start)
			return fail(fu.grow_at,
				    "file '" + name + "' needs " + std::to_string(fu.need) +
					    " bytes at device offset " + std::to_string(start) +
					    " but the device has " + std::to_string(cap) +
					    " bytes");
		extent[name] = {start, fu.need};
		next = start + fu.need;
	}

	// The run's jobs, with groups as fio numbers them: a stonewall or
	// new_group job starts a new reporting group if the current one has
	// jobs; clones share their job's group and do not stonewall each other.
	int groupid = 0, in_group = 0, job_number = 0;
	for (const auto &cl : clones) {
		const Draft &d = cl.s->d;
		const bool wall = cl.clone == 0 &&
				  (d.stonewall || (cl.s->first_in_file && cl.s->file_index > 0));
		if (cl.clone == 0 && (wall || d.new_group) && in_group) {
			groupid++;
			in_group = 0;
		}
		in_group++;
		JobSpec j;
		j.name = d.name;
		j.clone = cl.clone;
		j.numjobs = static_cast<int>(d.numjobs);
		j.job_number = job_number++;
		j.where = d.at.str();
		j.groupid = groupid;
		j.stonewall = wall && j.job_number > 0;
		j.group_reporting = d.group_reporting;
		j.options = d.written;
		j.rw = d.rw;
		j.rwmixread = d.rwmixread;
		j.bs_read = d.bs_read;
		j.bs_write = d.bs_write;
		j.norandommap = d.norandommap;
		j.seed = mix_seed(d.randseed_set ? d.randseed : ctx_.seed,
				  static_cast<uint64_t>(j.job_number));
		j.file = cl.file;
		const auto [fstart, fbytes] = extent[cl.file];
		j.file_start = fstart;
		j.file_bytes = fbytes;
		if (cl.offset >= fbytes)
			return fail(where(d, "offset"), "offset " + std::to_string(cl.offset) +
								" is beyond the end of '" +
								cl.file + "' (" +
								std::to_string(fbytes) + " bytes)");
		j.region_start = fstart + cl.offset;
		j.region_bytes = cl.size ? cl.size : fbytes - cl.offset;
		if (cl.offset + j.region_bytes > fbytes)
			return fail(cl.size_at, "offset + size (" +
							std::to_string(cl.offset + j.region_bytes) +
							") is beyond the end of '" + cl.file +
							"' (" + std::to_string(fbytes) + " bytes)");
		const uint32_t need_bs =
			std::max(j.reads() ? d.bs_read : 0u, j.writes() ? d.bs_write : 0u);
		if (j.region_bytes < need_bs)
			return fail(cl.size_at, "the job's region (" +
							std::to_string(j.region_bytes) +
							" bytes) is smaller than its block size (" +
							std::to_string(need_bs) + ")");
		if (d.io_size && d.io_size < need_bs)
			return fail(where(d, "io_size"),
				    "io_size (" + std::to_string(d.io_size) +
					    " bytes) is smaller than the job's block size (" +
					    std::to_string(need_bs) + ")");
		j.io_bytes = d.io_size ? d.io_size : j.region_bytes;
		j.runtime_ns = d.runtime;
		j.time_based = d.time_based;
		j.ramp_ns = d.ramp;
		j.startdelay_ns = d.startdelay;
		j.ioengine = d.ioengine;
		j.iodepth = d.iodepth;
		j.direct = d.direct;
		j.invalidate = d.invalidate;
		j.thinktime_ns = d.thinktime;
		j.thinktime_blocks = d.thinktime_blocks;
		j.fsync_blocks = d.fsync;
		j.end_fsync = d.end_fsync;
		j.cgroup = d.cgroup;
		j.cgroup_weight = d.cgroup_weight;
		if (d.prio >= 0 || d.prioclass >= 0) {
			// As fio: no class means best effort, no level means 0.
			j.ioprio_class = d.prioclass > 0 ? d.prioclass : 2;
			j.ioprio = d.prio >= 0 ? d.prio : 0;
		}
		auto log_name = [&](const LogOpt &l) {
			return !l.on ? std::string() : l.prefix.empty() ? d.name : l.prefix;
		};
		j.bw_log = log_name(d.bw_log);
		j.lat_log = log_name(d.lat_log);
		j.iops_log = log_name(d.iops_log);
		j.log_avg_msec = d.log_avg_msec;
		j.log_offset = d.log_offset;
		j.per_job_logs = d.per_job_logs;
		out->push_back(std::move(j));
	}

	// One cgroup, one weight.
	std::map<std::string, std::pair<unsigned int, Loc>> weights;
	for (const auto &s : sections_) {
		if (!s.d.cgroup_weight)
			continue;
		auto [it, fresh] = weights.try_emplace(s.d.cgroup, s.d.cgroup_weight,
						       where(s.d, "cgroup_weight"));
		if (!fresh && it->second.first != s.d.cgroup_weight)
			return fail(where(s.d, "cgroup_weight"),
				    "cgroup '" + s.d.cgroup + "' already has weight " +
					    std::to_string(it->second.first) + " (set at " +
					    it->second.second.str() + ")");
	}
	return true;
}

} // namespace

std::vector<JobSpec> parse_jobs(const std::vector<JobSource> &sources, const ParseContext &ctx,
				std::string *err, JobFileInfo *info)
{
	std::vector<JobSpec> jobs;
	if (sources.empty()) {
		*err = "no job files";
		return jobs;
	}
	if (ctx.capacity_bytes == 0) {
		*err = "internal: the device capacity is unknown";
		return jobs;
	}
	Parser p(ctx);
	for (size_t i = 0; i < sources.size(); i++) {
		if (!p.parse_source(sources[i], static_cast<int>(i))) {
			*err = p.error;
			return jobs;
		}
	}
	if (!p.resolve(&jobs)) {
		*err = p.error;
		jobs.clear();
		return jobs;
	}
	err->clear();
	if (info) {
		info->global_options = p.global_options;
		info->group_reporting = std::any_of(jobs.begin(), jobs.end(), [](const JobSpec &j) {
			return j.group_reporting;
		});
	}
	return jobs;
}

bool read_jobfile(const std::string &path, JobSource *out, std::string *err)
{
	std::stringstream ss;
	if (path == "-") {
		ss << std::cin.rdbuf();
		if (std::cin.bad()) {
			*err = "<stdin>: cannot read the job file";
			return false;
		}
		std::cin.clear();
		*out = JobSource{"<stdin>", ss.str()};
		return true;
	}
	std::error_code ec;
	if (std::filesystem::is_directory(path, ec)) {
		*err = printable(path + ": is a directory, not a job file");
		return false;
	}
	errno = 0;
	std::ifstream f(path, std::ios::binary);
	if (!f) {
		*err = printable(path + ": cannot read the job file" +
				 (errno ? std::string(": ") + std::strerror(errno) : ""));
		return false;
	}
	ss << f.rdbuf();
	*out = JobSource{path, ss.str()};
	return true;
}

std::vector<JobSpec> parse_jobfiles(const std::vector<std::string> &paths, const ParseContext &ctx,
				    std::string *err, JobFileInfo *info)
{
	std::vector<JobSource> sources;
	for (const auto &path : paths) {
		JobSource src;
		if (!read_jobfile(path, &src, err))
			return {};
		sources.push_back(std::move(src));
	}
	return parse_jobs(sources, ctx, err, info);
}

std::vector<std::string> option_names()
{
	std::vector<std::string> names;
	for (const auto &[aliases, handler] : options())
		names.insert(names.end(), aliases.begin(), aliases.end());
	names.insert(names.end(), std::begin(kUnsupported), std::end(kUnsupported));
	return names;
}

} // namespace efqsim::workload
