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
#include <cmath>
#include <functional>
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
	case RwMode::Trim:
		return "trim";
	case RwMode::RandTrim:
		return "randtrim";
	case RwMode::TrimWrite:
		return "trimwrite";
	case RwMode::RandTrimWrite:
		return "randtrimwrite";
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
	case IoEngine::Vsync:
		return "vsync";
	case IoEngine::Pvsync:
		return "pvsync";
	case IoEngine::Pvsync2:
		return "pvsync2";
	case IoEngine::Mmap:
		return "mmap";
	case IoEngine::Splice:
		return "splice";
	}
	return "?";
}

unsigned int JobSpec::effective_depth() const
{
	if (ioengine != IoEngine::Libaio && ioengine != IoEngine::IoUring &&
	    ioengine != IoEngine::Posixaio)
		return 1; // the sync family, mmap and splice: one IO at a time
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

// The trimmed, non-empty items of @s separated by @sep.
std::vector<std::string> split_items(const std::string &s, char sep)
{
	std::vector<std::string> items;
	std::stringstream ss(s);
	std::string item;
	while (std::getline(ss, item, sep)) {
		item = trim(item);
		if (!item.empty())
			items.push_back(std::move(item));
	}
	return items;
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
	int64_t seq_skip = 0;
	unsigned int rand_every = 1;
	bool rand_identical = false;
	unsigned int rwmixread = 50;
	BlockSizes bsd[3];
	bool norandommap = false;
	bool randseed_set = false;
	uint64_t randseed = 0;
	unsigned int percentage_random = 100;
	RandDist dist = RandDist::Random;
	double dist_param = 0, dist_center = -1;
	std::vector<std::pair<double, uint64_t>> zones;
	bool zones_abs = false;
	bool zonemode_strided = false;
	uint64_t zone_size = 0, zone_range = 0, zone_skip = 0;
	SizeVal size, offset, offset_increment;
	uint64_t offset_align = 0;
	uint64_t io_size = 0;
	unsigned int loops = 1;
	uint64_t number_ios = 0;
	std::vector<std::string> filenames; // filename=, ':'-separated
	std::string directory, filename_format;
	unsigned int nrfiles = 1, openfiles = 0;
	uint64_t filesize_lo = 0, filesize_hi = 0;
	FileService file_service = FileService::RoundRobin;
	unsigned int file_service_nr = 1;
	bool fill_device = false;
	int64_t runtime = 0, ramp = 0, startdelay = 0, thinktime = 0;
	bool time_based = false;
	unsigned int numjobs = 1, iodepth = 1, iodepth_low = 0, thinktime_blocks = 1, fsync = 0;
	bool end_fsync = false;
	IoEngine ioengine = IoEngine::Psync;
	bool direct = false, invalidate = true;
	bool verify = false, do_verify = true, verify_only = false;
	uint64_t verify_backlog = 0;
	uint64_t rate[3] = {0, 0, 0}, rate_iops[3] = {0, 0, 0};
	uint64_t rate_min[3] = {0, 0, 0}, rate_iops_min[3] = {0, 0, 0};
	unsigned int rate_cycle_ms = 1000;
	bool rate_poisson = false;
	bool exitall = false;
	int exit_what = 0;
	std::string wait_for;
	int prio = -1, prioclass = -1;
	// cmdprio_*: per direction (read, write); -1 = not set
	int cmdprio_pct[2] = {-1, -1}, cmdprio_class[2] = {-1, -1}, cmdprio_level[2] = {-1, -1};
	std::string cmdprio_bssplit;
	unsigned int flow = 0;
	int64_t flow_id = 0, flow_sleep = 0;
	JobSpec::SsMode ss = JobSpec::SsMode::IopsSlope; // fio's default iops_slope:0.01%
	bool ss_pct = true;
	double ss_limit = 0.01;
	std::string ss_text = "iops_slope:0.01%";
	int64_t ss_dur = 0, ss_ramp = 0;
	int64_t latency_target = 0, latency_window = 0;
	double latency_percentile = 100;
	bool latency_run = false;
	std::string cgroup;
	unsigned int cgroup_weight = 0;
	bool group_reporting = false, new_group = false, stonewall = false;
	LogOpt bw_log, lat_log, iops_log;
	unsigned int log_avg_msec = 0;
	bool log_offset = false, per_job_logs = true;
	unsigned int kb_base = 1024;
	std::map<std::string, Loc> set_at; // option (canonical name) -> last line
	Options written;		   // this section's own, as written
	// An option fio does not know, reported at the end of the section
	// unless the section's engine is refused first (fio parses an
	// engine's own options once the engine is loaded).
	std::string unknown;
	Loc unknown_at;
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
	// A negative or overflowing whole number is out of range, as a large one is.
	const bool negative = v.text[0] == '-';
	const std::string digits = negative ? v.text.substr(1) : v.text;
	const bool hex =
		digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X');
	const bool whole =
		hex ? std::all_of(digits.begin() + 2, digits.end(),
				  [](char c) {
					  return std::isxdigit(static_cast<unsigned char>(c));
				  })
		    : all_digits(digits);
	if (!whole)
		return "'" + v.text + "' is not a whole number";
	size_t used = 0;
	auto n = leading_number(digits, &used, true, &err);
	if (!n || (negative && *n != 0) || *n < lo || *n > hi)
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
	static const std::map<std::string, RwMode> modes = {
		{"read", RwMode::Read},
		{"write", RwMode::Write},
		{"randread", RwMode::RandRead},
		{"randwrite", RwMode::RandWrite},
		{"rw", RwMode::ReadWrite},
		{"readwrite", RwMode::ReadWrite},
		{"randrw", RwMode::RandRW},
		{"trim", RwMode::Trim},
		{"randtrim", RwMode::RandTrim},
		{"trimwrite", RwMode::TrimWrite},
		{"randtrimwrite", RwMode::RandTrimWrite},
	};
	const size_t colon = v.text.find(':');
	auto it = modes.find(trim(v.text.substr(0, colon)));
	if (it == modes.end())
		return "'" + v.text +
		       "' is not an IO pattern (read, write, randread, randwrite, rw, readwrite, "
		       "randrw, trim, randtrim, trimwrite, randtrimwrite)";
	d.rw = it->second;
	d.seq_skip = 0;
	d.rand_every = 1;
	if (colon == std::string::npos)
		return "";
	std::string mod = trim(v.text.substr(colon + 1));
	const bool random = d.rw == RwMode::RandRead || d.rw == RwMode::RandWrite ||
			    d.rw == RwMode::RandRW || d.rw == RwMode::RandTrim ||
			    d.rw == RwMode::RandTrimWrite;
	if (random) {
		// randread:8 -- a new random offset every 8 IOs
		uint64_t n = 0;
		if (auto e = get_uint(Value{mod, false}, 1, 1u << 20, &n); !e.empty())
			return "'" + v.text + "': " + e;
		d.rand_every = static_cast<unsigned int>(n);
		return "";
	}
	// read:8k (holes of 8k) or read:-8k (backwards)
	const bool neg = !mod.empty() && mod[0] == '-';
	if (neg)
		mod.erase(0, 1);
	std::string err;
	auto n = parse_size(mod, d.kb_base, &err);
	if (!n)
		return "'" + v.text + "': " + err;
	if (*n % 512 || *n > (uint64_t{1} << 50))
		return "'" + v.text + "': the offset step must be a multiple of 512";
	d.seq_skip = neg ? -static_cast<int64_t>(*n) : static_cast<int64_t>(*n);
	return "";
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

// A per-direction list "read[,write[,trim]]": a value not followed by a
// comma also applies to the later directions; an empty one keeps the
// default.  @fn parses one value for direction i.
std::string per_ddir(const std::string &text,
		     const std::function<std::string(size_t, const std::string &)> &fn)
{
	std::vector<std::string> parts;
	std::stringstream ss(text);
	std::string p;
	while (std::getline(ss, p, ','))
		parts.push_back(trim(p));
	if (!text.empty() && text.back() == ',')
		parts.emplace_back();
	if (parts.size() > 3)
		return "'" + text + "': at most three values (read,write,trim)";
	for (size_t i = 0; i < parts.size(); i++) {
		if (parts[i].empty())
			continue;
		const bool last = i + 1 == parts.size();
		for (size_t j = i; j < (last ? 3 : i + 1); j++)
			if (auto e = fn(j, parts[i]); !e.empty())
				return e;
	}
	return "";
}

std::string get_bs(const std::string &text, unsigned int kb_base, uint32_t *out)
{
	uint64_t bs = 0;
	if (auto e = get_size(Value{text, false}, kb_base, &bs); !e.empty())
		return e;
	if (auto e = check_bs(bs, text); !e.empty())
		return e;
	*out = static_cast<uint32_t>(bs);
	return "";
}

std::string opt_bs(Draft &d, const Value &v, const ParseContext &)
{
	if (auto e = need_value(v); !e.empty())
		return e;
	// A '-' leading a value is a negative size, reported as such below.
	for (const auto &part : split_items(v.text, ','))
		if (part.find(':') != std::string::npos || part.find('-', 1) != std::string::npos)
			return "'" + v.text +
			       "': block size ranges are not bs= values (use bsrange=)";
	BlockSizes b[3] = {d.bsd[0], d.bsd[1], d.bsd[2]};
	auto e = per_ddir(v.text, [&](size_t i, const std::string &t) {
		uint32_t bs = 0;
		auto e2 = get_bs(t, d.kb_base, &bs);
		b[i].min = b[i].max = bs;
		b[i].split.clear();
		return e2;
	});
	if (e.empty())
		std::copy(std::begin(b), std::end(b), std::begin(d.bsd));
	return e;
}

std::string opt_bsrange(Draft &d, const Value &v, const ParseContext &)
{
	if (auto e = need_value(v); !e.empty())
		return e;
	BlockSizes b[3] = {d.bsd[0], d.bsd[1], d.bsd[2]};
	auto e = per_ddir(v.text, [&](size_t i, const std::string &t) -> std::string {
		const size_t dash = t.find_first_of("-:");
		if (dash == std::string::npos)
			return "'" + t + "' is not a range (min-max)";
		uint32_t lo = 0, hi = 0;
		if (auto e2 = get_bs(trim(t.substr(0, dash)), d.kb_base, &lo); !e2.empty())
			return e2;
		if (auto e2 = get_bs(trim(t.substr(dash + 1)), d.kb_base, &hi); !e2.empty())
			return e2;
		if (lo > hi)
			return "'" + t + "': the minimum is above the maximum";
		b[i].min = lo;
		b[i].max = hi;
		b[i].split.clear();
		return "";
	});
	if (e.empty())
		std::copy(std::begin(b), std::end(b), std::begin(d.bsd));
	return e;
}

std::string opt_bssplit(Draft &d, const Value &v, const ParseContext &)
{
	if (auto e = need_value(v); !e.empty())
		return e;
	BlockSizes b[3] = {d.bsd[0], d.bsd[1], d.bsd[2]};
	auto e = per_ddir(v.text, [&](size_t i, const std::string &t) -> std::string {
		std::vector<std::pair<uint32_t, unsigned int>> split;
		std::vector<size_t> blank;
		unsigned int total = 0;
		for (const auto &item : split_items(t, ':')) {
			const size_t slash = item.find('/');
			uint32_t bs = 0;
			if (auto e2 = get_bs(trim(item.substr(0, slash)), d.kb_base, &bs);
			    !e2.empty())
				return e2;
			const std::string pct =
				slash == std::string::npos ? "" : trim(item.substr(slash + 1));
			if (pct.empty()) {
				blank.push_back(split.size());
				split.emplace_back(bs, 0);
				continue;
			}
			uint64_t n = 0;
			if (auto e2 = get_uint(Value{pct, false}, 0, 100, &n); !e2.empty())
				return "'" + item + "': " + e2;
			total += static_cast<unsigned int>(n);
			split.emplace_back(bs, static_cast<unsigned int>(n));
		}
		if (split.empty())
			return "'" + t + "' has no block sizes";
		if (total > 100)
			return "'" + t + "': the percentages add up to " + std::to_string(total) +
			       " (more than 100)";
		if (blank.empty() && total != 100)
			return "'" + t + "': the percentages add up to " + std::to_string(total) +
			       ", not 100";
		for (size_t k = 0; k < blank.size(); k++) // the rest, shared
			split[blank[k]].second =
				(100 - total) / static_cast<unsigned int>(blank.size()) +
				(k < (100 - total) % blank.size() ? 1 : 0);
		b[i].split = split;
		b[i].min = b[i].max = split[0].first;
		for (const auto &[bs, pct] : split) {
			b[i].min = std::min(b[i].min, bs);
			b[i].max = std::max(b[i].max, bs);
		}
		return "";
	});
	if (e.empty())
		std::copy(std::begin(b), std::end(b), std::begin(d.bsd));
	return e;
}

std::string opt_blockalign(Draft &d, const Value &v, const ParseContext &)
{
	if (auto e = need_value(v); !e.empty())
		return e;
	uint32_t a[3] = {d.bsd[0].align, d.bsd[1].align, d.bsd[2].align};
	auto e = per_ddir(v.text, [&](size_t i, const std::string &t) {
		return get_bs(t, d.kb_base, &a[i]);
	});
	if (e.empty())
		for (size_t i = 0; i < 3; i++)
			d.bsd[i].align = a[i];
	return e;
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
	// fio escapes ':' in names with '\'; an unescaped ':' separates names.
	std::vector<std::string> names;
	std::string cur;
	for (size_t i = 0; i < v.text.size(); i++) {
		if (v.text[i] == '\\' && i + 1 < v.text.size() && v.text[i + 1] == ':') {
			cur += ':';
			i++;
		} else if (v.text[i] == ':') {
			names.push_back(trim(cur));
			cur.clear();
		} else {
			cur += v.text[i];
		}
	}
	names.push_back(trim(cur));
	for (const auto &n : names)
		if (n.empty())
			return "'" + v.text + "': an empty file name";
	d.filenames = names;
	return "";
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

// fio 3.33's engines, and why efqsim runs or refuses each.
struct EngineDef {
	const char *name;
	bool simulated;
	IoEngine engine;
	const char *why; // refused: why
};

const EngineDef kEngines[] = {
	{"sync", true, IoEngine::Sync, ""},
	{"psync", true, IoEngine::Psync, ""},
	{"vsync", true, IoEngine::Vsync, ""},
	{"pvsync", true, IoEngine::Pvsync, ""},
	{"pvsync2", true, IoEngine::Pvsync2, ""},
	{"libaio", true, IoEngine::Libaio, ""},
	{"io_uring", true, IoEngine::IoUring, ""},
	{"posixaio", true, IoEngine::Posixaio, ""},
	{"mmap", true, IoEngine::Mmap, ""},
	{"splice", true, IoEngine::Splice, ""},
	{"null", false, IoEngine::Sync, "the null engine transfers no data to any device"},
	{"cpuio", false, IoEngine::Sync, "cpuio burns CPU and does no IO"},
	{"net", false, IoEngine::Sync, "network IO, no block device"},
	{"netsplice", false, IoEngine::Sync, "network IO, no block device"},
	{"rdma", false, IoEngine::Sync, "RDMA network IO, no block device"},
	{"http", false, IoEngine::Sync, "HTTP/S3/WebDAV network IO, no block device"},
	{"nfs", false, IoEngine::Sync, "NFS client IO over the network, no local block device"},
	{"gfapi", false, IoEngine::Sync, "GlusterFS network IO, no local block device"},
	{"gfapi_async", false, IoEngine::Sync, "GlusterFS network IO, no local block device"},
	{"rados", false, IoEngine::Sync, "Ceph RADOS network IO, no local block device"},
	{"rbd", false, IoEngine::Sync, "Ceph RBD network IO, no local block device"},
	{"nbd", false, IoEngine::Sync, "an NBD server over the network, no local block device"},
	{"libiscsi", false, IoEngine::Sync, "iSCSI in user space over the network"},
	{"libhdfs", false, IoEngine::Sync, "HDFS network IO, no local block device"},
	{"dfs", false, IoEngine::Sync, "DAOS network IO, no local block device"},
	{"librpma_apm_client", false, IoEngine::Sync, "RDMA persistent-memory network IO"},
	{"librpma_apm_server", false, IoEngine::Sync, "RDMA persistent-memory network IO"},
	{"librpma_gpspm_client", false, IoEngine::Sync, "RDMA persistent-memory network IO"},
	{"librpma_gpspm_server", false, IoEngine::Sync, "RDMA persistent-memory network IO"},
	{"sg", false, IoEngine::Sync, "SCSI generic passthrough bypasses the IO scheduler"},
	{"io_uring_cmd", false, IoEngine::Sync,
	 "NVMe passthrough commands bypass the IO scheduler"},
	{"libzbc", false, IoEngine::Sync, "zoned SCSI/ATA passthrough bypasses the IO scheduler"},
	{"xnvme", false, IoEngine::Sync, "xNVMe's user-space NVMe paths bypass the IO scheduler"},
	{"libcufile", false, IoEngine::Sync, "GPUDirect storage IO to GPU memory"},
	{"mtd", false, IoEngine::Sync, "MTD flash is a character device, not a block device"},
	{"dev-dax", false, IoEngine::Sync, "DAX memory loads and stores make no block IO"},
	{"libpmem", false, IoEngine::Sync, "persistent-memory loads and stores make no block IO"},
	{"pmemblk", false, IoEngine::Sync, "persistent-memory loads and stores make no block IO"},
	{"ime_psync", false, IoEngine::Sync, "DDN IME is a network burst buffer"},
	{"ime_psyncv", false, IoEngine::Sync, "DDN IME is a network burst buffer"},
	{"ime_aio", false, IoEngine::Sync, "DDN IME is a network burst buffer"},
	{"e4defrag", false, IoEngine::Sync, "ext4 defragmentation ioctls are file-system work"},
	{"falloc", false, IoEngine::Sync, "fallocate() allocates file-system space, no data IO"},
	{"ftruncate", false, IoEngine::Sync, "ftruncate() changes file sizes, no data IO"},
	{"filecreate", false, IoEngine::Sync, "file creation is file-system metadata work"},
	{"filestat", false, IoEngine::Sync, "stat() is file-system metadata work"},
	{"filedelete", false, IoEngine::Sync, "file deletion is file-system metadata work"},
	{"dircreate", false, IoEngine::Sync, "directory creation is file-system metadata work"},
	{"dirstat", false, IoEngine::Sync, "stat() is file-system metadata work"},
	{"dirdelete", false, IoEngine::Sync, "directory deletion is file-system metadata work"},
	{"exec", false, IoEngine::Sync, "exec runs a program; efqsim runs none"},
	{"windowsaio", false, IoEngine::Sync, "Windows only"},
	{"solarisaio", false, IoEngine::Sync, "Solaris only"},
};

std::string opt_ioengine(Draft &d, const Value &v, const ParseContext &)
{
	if (auto e = need_value(v); !e.empty())
		return e;
	for (const auto &e : kEngines) {
		if (v.text != e.name)
			continue;
		if (!e.simulated)
			return "ioengine=" + v.text + " is not supported by efqsim: " + e.why;
		d.ioengine = e.engine;
		return "";
	}
	if (v.text.rfind("external", 0) == 0)
		return "ioengine=" + v.text +
		       " is not supported by efqsim: external engines are fio plugins";
	return "'" + v.text + "' is not an engine of fio 3.33";
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

std::string get_double(const std::string &t, double *out);

// cmdprio_percentage, cmdprio_class, cmdprio: "read[,write]", one value for
// both directions; fio's ranges (fio --enghelp=libaio,cmdprio_class).
std::string get_cmdprio(const Value &v, uint64_t lo, uint64_t hi, int (&out)[2])
{
	if (auto e = need_value(v); !e.empty())
		return e;
	int r[3] = {out[0], out[1], -1};
	auto e = per_ddir(v.text, [&](size_t i, const std::string &t) {
		return get_uint_as(Value{t, false}, lo, hi, &r[i]);
	});
	if (e.empty()) {
		out[0] = r[0];
		out[1] = r[1];
	}
	return e;
}

std::string opt_cmdprio_percentage(Draft &d, const Value &v, const ParseContext &)
{
	return get_cmdprio(v, 0, 100, d.cmdprio_pct);
}

std::string opt_cmdprio_class(Draft &d, const Value &v, const ParseContext &)
{
	return get_cmdprio(v, 1, 3, d.cmdprio_class);
}

std::string opt_cmdprio(Draft &d, const Value &v, const ParseContext &)
{
	return get_cmdprio(v, 0, 7, d.cmdprio_level);
}

std::string opt_cmdprio_bssplit(Draft &d, const Value &v, const ParseContext &)
{
	if (auto e = need_value(v); !e.empty())
		return e;
	d.cmdprio_bssplit = v.text; // parsed with the job (it needs cmdprio_class)
	return "";
}

// cmdprio_bssplit for one direction: "bs/pct[/class/level]:..."; entries
// of one block size are kept together, in the order written.
std::string parse_cmdprio_split(const std::string &t, unsigned int kb_base, int dflt_class,
				int dflt_level, std::vector<JobSpec::CmdPrio> *out)
{
	std::vector<JobSpec::CmdPrio> all;
	for (const auto &item : split_items(t, ':')) {
		std::vector<std::string> f;
		std::stringstream is(item);
		std::string part;
		while (std::getline(is, part, '/'))
			f.push_back(trim(part));
		if (f.size() != 2 && f.size() != 4)
			return "'" + item + "' is not bs/percentage or bs/percentage/class/level";
		JobSpec::CmdPrio c;
		if (auto e = get_bs(f[0], kb_base, &c.bs); !e.empty())
			return e;
		if (auto e = get_uint_as(Value{f[1], false}, 0, 100, &c.pct); !e.empty())
			return "'" + item + "': " + e;
		c.ioprio_class = dflt_class;
		c.ioprio = dflt_level;
		if (f.size() == 4) {
			if (auto e = get_uint_as(Value{f[2], false}, 1, 3, &c.ioprio_class);
			    !e.empty())
				return "'" + item + "': class " + e;
			if (auto e = get_uint_as(Value{f[3], false}, 0, 7, &c.ioprio); !e.empty())
				return "'" + item + "': level " + e;
		}
		all.push_back(c);
	}
	std::stable_sort(all.begin(), all.end(),
			 [](const auto &a, const auto &b) { return a.bs < b.bs; });
	for (size_t i = 0; i < all.size();) {
		unsigned int total = 0;
		size_t k = i;
		for (; k < all.size() && all[k].bs == all[i].bs; k++)
			total += all[k].pct;
		if (total > 100)
			return "'" + t + "': the percentages of " + std::to_string(all[i].bs) +
			       " bytes add up to " + std::to_string(total) + " (more than 100)";
		i = k;
	}
	for (const auto &c : all)
		if (c.pct)
			out->push_back(c);
	return "";
}

std::string opt_flow(Draft &d, const Value &v, const ParseContext &)
{
	return get_uint_as(v, 0, 1000, &d.flow);
}

std::string opt_flow_id(Draft &d, const Value &v, const ParseContext &)
{
	if (auto e = need_value(v); !e.empty())
		return e;
	const bool neg = v.text[0] == '-';
	uint64_t n = 0;
	auto e = get_uint(Value{neg ? v.text.substr(1) : v.text, false}, 0, INT32_MAX, &n);
	if (e.empty())
		d.flow_id = neg ? -static_cast<int64_t>(n) : static_cast<int64_t>(n);
	return e;
}

std::string opt_flow_sleep(Draft &d, const Value &v, const ParseContext &)
{
	uint64_t us = 0;
	auto e = get_uint(v, 0, UINT32_MAX, &us);
	if (e.empty())
		d.flow_sleep = static_cast<int64_t>(us) * kUs;
	return e;
}

// ss=iops|iops_slope|bw|bw_slope:LIMIT[%]
std::string opt_steadystate(Draft &d, const Value &v, const ParseContext &)
{
	if (auto e = need_value(v); !e.empty())
		return e;
	const size_t colon = v.text.find(':');
	const std::string what = trim(v.text.substr(0, colon));
	JobSpec::SsMode m;
	if (what == "iops")
		m = JobSpec::SsMode::Iops;
	else if (what == "iops_slope")
		m = JobSpec::SsMode::IopsSlope;
	else if (what == "bw")
		m = JobSpec::SsMode::Bw;
	else if (what == "bw_slope")
		m = JobSpec::SsMode::BwSlope;
	else
		return "'" + what +
		       "' is not a steady-state criterion (iops, iops_slope, bw, bw_slope)";
	if (colon == std::string::npos || trim(v.text.substr(colon + 1)).empty())
		return "'" + v.text + "': the criterion needs a limit (e.g. " + what + ":1%)";
	std::string lim = trim(v.text.substr(colon + 1));
	double limit = 0;
	bool pct = false;
	if (lim.back() == '%') {
		pct = true;
		lim = trim(lim.substr(0, lim.size() - 1));
		if (auto e = get_double(lim, &limit); !e.empty())
			return e;
	} else if (m == JobSpec::SsMode::Iops || m == JobSpec::SsMode::IopsSlope) {
		if (auto e = get_double(lim, &limit); !e.empty())
			return e;
	} else {
		uint64_t bytes = 0; // a bandwidth: bytes/s, with fio's size units
		if (auto e = get_size(Value{lim, false}, d.kb_base, &bytes); !e.empty())
			return e;
		limit = static_cast<double>(bytes);
	}
	if (limit < 0)
		return "'" + v.text + "': the limit is negative";
	d.ss = m;
	d.ss_pct = pct;
	d.ss_limit = limit;
	d.ss_text = v.text;
	return "";
}

std::string opt_ss_dur(Draft &d, const Value &v, const ParseContext &)
{
	return get_time(v, kSec, &d.ss_dur);
}

std::string opt_ss_ramp(Draft &d, const Value &v, const ParseContext &)
{
	return get_time(v, kSec, &d.ss_ramp);
}

std::string opt_latency_target(Draft &d, const Value &v, const ParseContext &)
{
	return get_time(v, kUs, &d.latency_target);
}

std::string opt_latency_window(Draft &d, const Value &v, const ParseContext &)
{
	return get_time(v, kUs, &d.latency_window);
}

std::string opt_latency_percentile(Draft &d, const Value &v, const ParseContext &)
{
	if (auto e = need_value(v); !e.empty())
		return e;
	double p = 0;
	if (auto e = get_double(v.text, &p); !e.empty())
		return e;
	if (p < 0 || p > 100)
		return "'" + v.text + "' is out of range (0..100)";
	d.latency_percentile = p;
	return "";
}

std::string opt_latency_run(Draft &d, const Value &v, const ParseContext &)
{
	return get_bool(v, &d.latency_run);
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
	// efqsim is deterministic either way: the offsets follow --seed (or
	// randseed=), so randrepeat=0 changes nothing but which random stream.
	bool b = true;
	return get_bool(v, &b);
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

std::string opt_loops(Draft &d, const Value &v, const ParseContext &)
{
	return get_uint_as(v, 1, 1u << 30, &d.loops);
}

std::string opt_number_ios(Draft &d, const Value &v, const ParseContext &)
{
	return get_size(v, 1000, &d.number_ios);
}

std::string opt_nrfiles(Draft &d, const Value &v, const ParseContext &)
{
	return get_uint_as(v, 1, 1u << 20, &d.nrfiles);
}

std::string opt_openfiles(Draft &d, const Value &v, const ParseContext &)
{
	return get_uint_as(v, 1, 4096, &d.openfiles);
}

std::string opt_filesize(Draft &d, const Value &v, const ParseContext &)
{
	if (auto e = need_value(v); !e.empty())
		return e;
	const size_t dash = v.text.find_first_of("-:", 1);
	uint64_t lo = 0, hi = 0;
	if (auto e = get_size(Value{trim(v.text.substr(0, dash)), false}, d.kb_base, &lo);
	    !e.empty())
		return e;
	hi = lo;
	if (dash != std::string::npos) {
		if (auto e = get_size(Value{trim(v.text.substr(dash + 1)), false}, d.kb_base, &hi);
		    !e.empty())
			return e;
		if (lo > hi)
			return "'" + v.text + "': the minimum is above the maximum";
	}
	d.filesize_lo = lo;
	d.filesize_hi = hi;
	return "";
}

std::string opt_filename_format(Draft &d, const Value &v, const ParseContext &)
{
	return get_string(v, &d.filename_format);
}

std::string opt_file_service_type(Draft &d, const Value &v, const ParseContext &)
{
	if (auto e = need_value(v); !e.empty())
		return e;
	const size_t colon = v.text.find(':');
	const std::string kind = v.text.substr(0, colon);
	unsigned int nr = 1;
	if (colon != std::string::npos)
		if (auto e = get_uint_as(Value{trim(v.text.substr(colon + 1)), false}, 1, 1u << 20,
					 &nr);
		    !e.empty())
			return e;
	if (kind == "roundrobin")
		d.file_service = FileService::RoundRobin;
	else if (kind == "sequential")
		d.file_service = FileService::Sequential;
	else if (kind == "random")
		d.file_service = FileService::Random;
	else if (kind == "zipf" || kind == "pareto" || kind == "normal" || kind == "gauss")
		return "file_service_type=" + kind +
		       " is not supported by efqsim: skewed file choice is not simulated "
		       "(roundrobin, sequential and random are)";
	else
		return "'" + v.text + "' is not a file service type";
	d.file_service_nr = nr;
	return "";
}

std::string get_double(const std::string &t, double *out)
{
	char *end = nullptr;
	errno = 0;
	const double x = std::strtod(t.c_str(), &end);
	if (t.empty() || end != t.c_str() + t.size() || errno || !std::isfinite(x))
		return "'" + t + "' is not a number";
	*out = x;
	return "";
}

std::string opt_random_distribution(Draft &d, const Value &v, const ParseContext &)
{
	if (auto e = need_value(v); !e.empty())
		return e;
	// One distribution for every direction: efqsim takes the first.
	const std::string text = trim(v.text.substr(0, v.text.find(',')));
	const size_t colon = text.find(':');
	const std::string kind = text.substr(0, colon);
	const std::string rest = colon == std::string::npos ? "" : text.substr(colon + 1);
	d.zones.clear();
	d.dist_center = -1;
	if (kind == "random") {
		d.dist = RandDist::Random;
		return "";
	}
	if (kind == "zipf" || kind == "pareto" || kind == "normal") {
		if (rest.empty())
			return "'" + v.text + "': " + kind + " needs a parameter (" + kind + ":N)";
		const size_t c2 = rest.find(':');
		double x = 0;
		if (auto e = get_double(rest.substr(0, c2), &x); !e.empty())
			return e;
		if (c2 != std::string::npos) {
			double c = 0;
			if (auto e = get_double(rest.substr(c2 + 1), &c); !e.empty())
				return e;
			if (c < 0 || c > 1)
				return "'" + v.text + "': the center is 0..1";
			d.dist_center = c;
		}
		if (kind == "zipf" && (x <= 0 || x == 1.0))
			return "'" + v.text + "': zipf's theta must be above 0 and not 1";
		if (kind == "pareto" && (x <= 0 || x >= 1))
			return "'" + v.text + "': pareto's h must be between 0 and 1";
		if (kind == "normal" && (x <= 0 || x > 100))
			return "'" + v.text + "': normal's deviation is a percentage (0..100]";
		d.dist = kind == "zipf"	    ? RandDist::Zipf
			 : kind == "pareto" ? RandDist::Pareto
					    : RandDist::Normal;
		d.dist_param = x;
		return "";
	}
	if (kind == "zoned" || kind == "zoned_abs") {
		const bool abs = kind == "zoned_abs";
		double access = 0;
		uint64_t range = 0;
		for (const auto &item : split_items(rest, ':')) {
			const size_t slash = item.find('/');
			if (slash == std::string::npos)
				return "'" + item + "' is not a zone (access%/range)";
			double a = 0;
			if (auto e = get_double(trim(item.substr(0, slash)), &a); !e.empty())
				return e;
			const std::string r = trim(item.substr(slash + 1));
			uint64_t rv = 0;
			if (r.empty() && !abs) {
				rv = 100 > range ? 100 - range : 0; // the rest
			} else if (abs) {
				if (auto e = get_size(Value{r, false}, d.kb_base, &rv); !e.empty())
					return e;
			} else if (auto e = get_uint(Value{r, false}, 0, 100, &rv); !e.empty()) {
				return e;
			}
			if (a < 0 || a > 100)
				return "'" + item + "': the access share is a percentage";
			access += a;
			range += rv;
			d.zones.emplace_back(a, rv);
		}
		if (d.zones.empty())
			return "'" + v.text + "' has no zones";
		if (std::fabs(access - 100) > 1e-6)
			return "'" + v.text + "': the access shares add up to " +
			       std::to_string(static_cast<int>(access)) + "%, not 100%";
		if (!abs && range > 100)
			return "'" + v.text + "': the ranges add up to more than 100%";
		d.dist = abs ? RandDist::ZonedAbs : RandDist::Zoned;
		return "";
	}
	return "'" + v.text +
	       "' is not a distribution (random, zipf, pareto, normal, zoned, "
	       "zoned_abs)";
}

std::string opt_percentage_random(Draft &d, const Value &v, const ParseContext &)
{
	// One share for every direction: efqsim takes the first.
	return get_uint_as(Value{trim(v.text.substr(0, v.text.find(','))), v.bare}, 0, 100,
			   &d.percentage_random);
}

std::string opt_rw_sequencer(Draft &d, const Value &v, const ParseContext &)
{
	if (auto e = need_value(v); !e.empty())
		return e;
	if (v.text != "sequential" && v.text != "identical")
		return "'" + v.text + "' is not sequential or identical";
	d.rand_identical = v.text == "identical";
	return "";
}

std::string opt_zonemode(Draft &d, const Value &v, const ParseContext &)
{
	if (auto e = need_value(v); !e.empty())
		return e;
	if (v.text == "none" || v.text == "strided") {
		d.zonemode_strided = v.text == "strided";
		return "";
	}
	if (v.text == "zbd")
		return "zonemode=zbd is not supported by efqsim: no efq scheduler can be the "
		       "elevator of a zoned device (Linux gives a zoned disk only an elevator "
		       "that declares ELEVATOR_F_ZBD_SEQ_WRITE, and efq's schedulers declare none)";
	return "'" + v.text + "' is not a zone mode (none, strided, zbd)";
}

std::string opt_zonesize(Draft &d, const Value &v, const ParseContext &)
{
	return get_size(v, d.kb_base, &d.zone_size);
}

std::string opt_zonerange(Draft &d, const Value &v, const ParseContext &)
{
	return get_size(v, d.kb_base, &d.zone_range);
}

std::string opt_zoneskip(Draft &d, const Value &v, const ParseContext &)
{
	return get_size(v, d.kb_base, &d.zone_skip);
}

std::string opt_verify(Draft &d, const Value &v, const ParseContext &)
{
	static const char *const kinds[] = {"0",	"md5",		"crc64",
					    "crc32",	"crc32c-intel", "crc32c",
					    "crc16",	"crc7",		"sha1",
					    "sha256",	"sha512",	"sha3-224",
					    "sha3-256", "sha3-384",	"sha3-512",
					    "xxhash",	"meta",		"pattern",
					    "null"};
	if (auto e = need_value(v); !e.empty())
		return e;
	if (std::find_if(std::begin(kinds), std::end(kinds),
			 [&](const char *k) { return v.text == k; }) == std::end(kinds))
		return "'" + v.text + "' is not a verify method of fio";
	// Any method: the written blocks are read back; no data is checked.
	d.verify = v.text != "0";
	return "";
}

std::string opt_do_verify(Draft &d, const Value &v, const ParseContext &)
{
	return get_bool(v, &d.do_verify);
}

std::string opt_verify_only(Draft &d, const Value &v, const ParseContext &)
{
	return get_bool(v, &d.verify_only);
}

std::string opt_verify_backlog(Draft &d, const Value &v, const ParseContext &)
{
	return get_size(v, 1000, &d.verify_backlog);
}

std::string get_rates(const Value &v, unsigned int kb_base, uint64_t (&out)[3])
{
	if (auto e = need_value(v); !e.empty())
		return e;
	uint64_t r[3] = {out[0], out[1], out[2]};
	auto e = per_ddir(v.text, [&](size_t i, const std::string &t) {
		return get_size(Value{t, false}, kb_base, &r[i]);
	});
	if (e.empty())
		std::copy(std::begin(r), std::end(r), std::begin(out));
	return e;
}

std::string opt_rate(Draft &d, const Value &v, const ParseContext &)
{
	return get_rates(v, d.kb_base, d.rate);
}

std::string opt_rate_iops(Draft &d, const Value &v, const ParseContext &)
{
	return get_rates(v, 1000, d.rate_iops);
}

std::string opt_rate_min(Draft &d, const Value &v, const ParseContext &)
{
	return get_rates(v, d.kb_base, d.rate_min);
}

std::string opt_rate_iops_min(Draft &d, const Value &v, const ParseContext &)
{
	return get_rates(v, 1000, d.rate_iops_min);
}

std::string opt_rate_cycle(Draft &d, const Value &v, const ParseContext &)
{
	return get_uint_as(v, 1, 86400u * 1000, &d.rate_cycle_ms);
}

std::string opt_rate_process(Draft &d, const Value &v, const ParseContext &)
{
	if (auto e = need_value(v); !e.empty())
		return e;
	if (v.text != "linear" && v.text != "poisson")
		return "'" + v.text + "' is not linear or poisson";
	d.rate_poisson = v.text == "poisson";
	return "";
}

std::string opt_exitall(Draft &d, const Value &v, const ParseContext &)
{
	return get_bool(v, &d.exitall);
}

std::string opt_exit_what(Draft &d, const Value &v, const ParseContext &)
{
	if (auto e = need_value(v); !e.empty())
		return e;
	static const char *const what[] = {"group", "stonewall", "all"};
	for (int i = 0; i < 3; i++)
		if (v.text == what[i]) {
			d.exit_what = i;
			return "";
		}
	return "'" + v.text + "' is not group, stonewall or all";
}

std::string opt_wait_for(Draft &d, const Value &v, const ParseContext &)
{
	return get_string(v, &d.wait_for);
}

std::string opt_iodepth_low(Draft &d, const Value &v, const ParseContext &)
{
	return get_uint_as(v, 0, 65536, &d.iodepth_low);
}

std::string opt_fill_device(Draft &d, const Value &v, const ParseContext &)
{
	return get_bool(v, &d.fill_device);
}

std::string opt_offset_align(Draft &d, const Value &v, const ParseContext &)
{
	return get_size(v, d.kb_base, &d.offset_align);
}

std::string opt_fsync_on_close(Draft &d, const Value &v, const ParseContext &)
{
	bool b = false;
	auto e = get_bool(v, &b);
	if (e.empty() && b)
		d.end_fsync = true; // the close comes at the job's end
	return e;
}

// --- the option table ----------------------------------------------------------
//
// Every option fio 3.33 knows (its own, its engines' and its profiles'),
// with its alias, and what efqsim does with it:
//   Sim     -- simulated: the handler applies it;
//   Accept  -- its value is checked by type and it changes nothing a
//              scheduler sees (reporting, buffer contents, CPU placement...);
//   Refuse  -- "not supported by efqsim: <why>".
// A name fio does not know is an "unknown option".

enum class Kind { Sim, Accept, Refuse };
// Value types, for the options efqsim accepts without effect.
enum class Type { Bool, Flag, Int, Size, Time, Str, Float };

struct OptDef {
	const char *name;
	const char *alias; // "" = none
	Kind kind;
	Type type;
	Handler handler; // Sim
	const char *why; // Accept: why it changes nothing; Refuse: why not
};

constexpr auto S = Kind::Sim;
constexpr auto A = Kind::Accept;
constexpr auto R = Kind::Refuse;
constexpr auto tB = Type::Bool;
constexpr auto tF = Type::Flag;
constexpr auto tI = Type::Int;
constexpr auto tZ = Type::Size;
constexpr auto tT = Type::Time;
constexpr auto tS = Type::Str;
constexpr auto tL = Type::Float;

// Reasons shared by many rows.
const char kReport[] = "reporting only";
const char kBuf[] = "buffer contents: the simulated devices store no data";
const char kCpu[] = "CPU placement and timing: efqsim simulates no CPUs";
const char kFiles[] = "file handling outside the IO itself";
const char kNoErr[] = "simulated IO never fails";
const char kZbd[] = "applies to zonemode=zbd only, which efqsim refuses";
const char kPoll[] = "how the engine submits or reaps: the scheduler sees the same requests";
const char kProf[] =
	"an option of fio's tiobench/act profiles: without profile= it changes nothing";
const char kIolog[] = "fio iolog replay is not simulated (efqsim replay takes blktrace recordings)";
const char kVerifyData[] = "verification of data: efqsim reads the blocks back but checks nothing";
const char kNetEng[] = "an option of a network or non-block engine, which efqsim refuses";
const char kSgEng[] = "an option of a passthrough engine, which efqsim refuses";

const OptDef kOptions[] = {
	// identity and jobs
	{"name", "", S, tS, opt_name, ""},
	{"description", "", S, tS, opt_description, ""},
	{"wait_for", "", S, tS, opt_wait_for, ""},
	{"numjobs", "", S, tI, opt_numjobs, ""},
	{"thread", "", S, tF, opt_thread, ""},
	{"stonewall", "wait_for_previous", S, tF, opt_stonewall, ""},
	{"new_group", "", S, tF, opt_new_group, ""},
	{"group_reporting", "", S, tF, opt_group_reporting, ""},
	{"exitall", "", S, tF, opt_exitall, ""},
	{"exit_what", "", S, tS, opt_exit_what, ""},
	{"exitall_on_error", "", A, tF, nullptr, kNoErr},
	{"profile", "", R, tS, nullptr,
	 "fio's built-in job sets (tiobench, act): write the jobs out"},
	// files
	{"filename", "", S, tS, opt_filename, ""},
	{"directory", "", S, tS, opt_directory, ""},
	{"filename_format", "", S, tS, opt_filename_format, ""},
	{"nrfiles", "nr_files", S, tI, opt_nrfiles, ""},
	{"openfiles", "", S, tI, opt_openfiles, ""},
	{"file_service_type", "", S, tS, opt_file_service_type, ""},
	{"filesize", "", S, tS, opt_filesize, ""},
	{"fill_device", "fill_fs", S, tB, opt_fill_device, ""},
	{"unique_filename", "", A, tB, nullptr, "network clients' file names"},
	{"opendir", "", R, tS, nullptr,
	 "it adds the host's files from a folder; efqsim's files are named in the job"},
	{"lockfile", "", A, tS, nullptr,
	 "efqsim's jobs never do IO to the same blocks at once through one file lock"},
	{"file_append", "", R, tB, nullptr,
	 "efqsim's files have fixed extents; appending would grow them"},
	{"allow_file_create", "", A, tB, nullptr, kFiles},
	{"allow_mounted_write", "", A, tB, nullptr, kFiles},
	{"create_serialize", "", A, tB, nullptr, kFiles},
	{"create_fsync", "", A, tB, nullptr, kFiles},
	{"create_on_open", "", A, tB, nullptr, kFiles},
	{"create_only", "", R, tB, nullptr,
	 "the job would only create its files; efqsim lays files out without IO"},
	{"unlink", "", A, tB, nullptr, kFiles},
	{"unlink_each_loop", "", A, tB, nullptr, kFiles},
	{"fallocate", "", A, tS, nullptr, "space allocation writes no data"},
	{"fadvise_hint", "", A, tS, nullptr,
	 "a hint: the page cache reads ahead only sequential streams anyway"},
	{"pre_read", "", R, tB, nullptr,
	 "reading the files into the page cache first is not simulated"},
	{"overwrite", "", A, tB, nullptr,
	 "efqsim's files exist before the run, as fio leaves them once laid out"},
	// the IO pattern
	{"rw", "readwrite", S, tS, opt_rw, ""},
	{"rw_sequencer", "", S, tS, opt_rw_sequencer, ""},
	{"rwmixread", "", S, tI, opt_rwmixread, ""},
	{"rwmixwrite", "", S, tI, opt_rwmixwrite, ""},
	{"bs", "blocksize", S, tS, opt_bs, ""},
	{"bsrange", "blocksize_range", S, tS, opt_bsrange, ""},
	{"bssplit", "", S, tS, opt_bssplit, ""},
	{"ba", "blockalign", S, tS, opt_blockalign, ""},
	{"bs_unaligned", "blocksize_unaligned", A, tF, nullptr,
	 "block sizes stay multiples of 512 (sectors) in efqsim"},
	{"bs_is_seq_rand", "", R, tB, nullptr,
	 "block sizes by sequential/random IO are not simulated (bs= is by direction)"},
	{"randrepeat", "", S, tB, opt_randrepeat, ""},
	{"allrandrepeat", "", A, tB, nullptr,
	 "efqsim is deterministic: its random streams follow --seed"},
	{"randseed", "", S, tS, opt_randseed, ""},
	{"norandommap", "", S, tF, opt_norandommap, ""},
	{"random_distribution", "", S, tS, opt_random_distribution, ""},
	{"random_generator", "", A, tS, nullptr,
	 "which generator draws the offsets, not their distribution"},
	{"percentage_random", "", S, tS, opt_percentage_random, ""},
	{"softrandommap", "", A, tB, nullptr, "random map bookkeeping"},
	{"size", "", S, tS, opt_size, ""},
	{"io_size", "io_limit", S, tS, opt_io_size, ""},
	{"offset", "fileoffset", S, tS, opt_offset, ""},
	{"offset_increment", "", S, tS, opt_offset_increment, ""},
	{"offset_align", "", S, tZ, opt_offset_align, ""},
	{"number_ios", "", S, tS, opt_number_ios, ""},
	{"loops", "", S, tI, opt_loops, ""},
	{"zonemode", "", S, tS, opt_zonemode, ""},
	{"zonesize", "", S, tZ, opt_zonesize, ""},
	{"zonerange", "", S, tZ, opt_zonerange, ""},
	{"zoneskip", "", S, tZ, opt_zoneskip, ""},
	{"zonecapacity", "", A, tZ, nullptr, kZbd},
	{"read_beyond_wp", "", A, tB, nullptr, kZbd},
	{"max_open_zones", "", A, tI, nullptr, kZbd},
	{"job_max_open_zones", "", A, tI, nullptr, kZbd},
	{"ignore_zone_limits", "", A, tB, nullptr, kZbd},
	{"zone_reset_threshold", "", A, tL, nullptr, kZbd},
	{"zone_reset_frequency", "", A, tL, nullptr, kZbd},
	// time
	{"runtime", "timeout", S, tT, opt_runtime, ""},
	{"time_based", "", S, tF, opt_time_based, ""},
	{"ramp_time", "", S, tT, opt_ramp_time, ""},
	{"startdelay", "", S, tT, opt_startdelay, ""},
	{"thinktime", "", S, tT, opt_thinktime, ""},
	{"thinktime_blocks", "", S, tI, opt_thinktime_blocks, ""},
	{"thinktime_spin", "", A, tT, nullptr, "spinning is part of the think time"},
	{"thinktime_blocks_type", "", R, tS, nullptr,
	 "efqsim counts thinktime_blocks by completion (fio's default) only"},
	{"thinktime_iotime", "", R, tT, nullptr, "think time after IO time is not simulated"},
	{"rate", "", S, tS, opt_rate, ""},
	{"rate_iops", "", S, tS, opt_rate_iops, ""},
	{"rate_min", "ratemin", S, tS, opt_rate_min, ""},
	{"rate_iops_min", "", S, tS, opt_rate_iops_min, ""},
	{"rate_cycle", "ratecycle", S, tI, opt_rate_cycle, ""},
	{"rate_process", "", S, tS, opt_rate_process, ""},
	{"rate_ignore_thinktime", "", A, tB, nullptr, "efqsim paces rated IO from its issue times"},
	{"max_latency", "", R, tS, nullptr, "ending a job on a latency error is not simulated"},
	{"latency_target", "", S, tT, opt_latency_target, ""},
	{"latency_window", "", S, tT, opt_latency_window, ""},
	{"latency_percentile", "", S, tL, opt_latency_percentile, ""},
	{"latency_run", "", S, tB, opt_latency_run, ""},
	{"steadystate", "ss", S, tS, opt_steadystate, ""},
	{"steadystate_duration", "ss_dur", S, tT, opt_ss_dur, ""},
	{"steadystate_ramp_time", "ss_ramp", S, tT, opt_ss_ramp, ""},
	{"flow", "", S, tI, opt_flow, ""},
	{"flow_id", "", S, tI, opt_flow_id, ""},
	{"flow_sleep", "", S, tI, opt_flow_sleep, ""},
	// how
	{"ioengine", "", S, tS, opt_ioengine, ""},
	{"iodepth", "", S, tI, opt_iodepth, ""},
	{"iodepth_low", "", S, tI, opt_iodepth_low, ""},
	{"iodepth_batch", "iodepth_batch_submit", A, tI, nullptr,
	 "submission batches: every IO reaches the block layer at the same simulated instant "
	 "anyway"},
	{"iodepth_batch_complete_min", "iodepth_batch_complete", A, tI, nullptr, kPoll},
	{"iodepth_batch_complete_max", "", A, tI, nullptr, kPoll},
	{"io_submit_mode", "", A, tS, nullptr, "offload submits the same IO from a worker thread"},
	{"serialize_overlap", "", A, tB, nullptr,
	 "efqsim's offsets never overlap in flight by more than fio allows"},
	{"direct", "", S, tB, opt_direct, ""},
	{"buffered", "", S, tB, opt_buffered, ""},
	{"atomic", "", R, tB, nullptr, "atomic writes are not simulated"},
	{"invalidate", "", S, tB, opt_invalidate, ""},
	{"sync", "", R, tS, nullptr,
	 "O_SYNC/O_DSYNC writes flush the device's write cache, which efqsim does not model"},
	{"fsync", "", S, tI, opt_fsync, ""},
	{"fdatasync", "", S, tI, opt_fsync, ""},
	{"end_fsync", "", S, tB, opt_end_fsync, ""},
	{"fsync_on_close", "", S, tB, opt_fsync_on_close, ""},
	{"sync_file_range", "", R, tS, nullptr, "sync_file_range() is not simulated"},
	{"write_barrier", "", R, tI, nullptr, "barrier writes are gone from Linux"},
	{"write_hint", "", A, tS, nullptr,
	 "write lifetime hints: the 6.1 schedulers do not use them"},
	{"verify", "", S, tS, opt_verify, ""},
	{"do_verify", "", S, tB, opt_do_verify, ""},
	{"verify_only", "", S, tF, opt_verify_only, ""},
	{"verify_backlog", "", S, tS, opt_verify_backlog, ""},
	{"verify_backlog_batch", "", A, tI, nullptr, kVerifyData},
	{"verify_interval", "", A, tI, nullptr, kVerifyData},
	{"verify_offset", "", A, tI, nullptr, kVerifyData},
	{"verify_pattern", "", A, tS, nullptr, kVerifyData},
	{"verify_fatal", "", A, tB, nullptr, kVerifyData},
	{"verify_dump", "", A, tB, nullptr, kVerifyData},
	{"verify_async", "", A, tI, nullptr, kVerifyData},
	{"verify_async_cpus", "", A, tS, nullptr, kCpu},
	{"verify_state_save", "", A, tB, nullptr, kVerifyData},
	{"verify_state_load", "", A, tB, nullptr, kVerifyData},
	{"experimental_verify", "", A, tB, nullptr, kVerifyData},
	{"trim_percentage", "", R, tI, nullptr, "trimming verified blocks is not simulated"},
	{"trim_verify_zero", "", R, tB, nullptr, "trimming verified blocks is not simulated"},
	{"trim_backlog", "", R, tS, nullptr, "trimming verified blocks is not simulated"},
	{"trim_backlog_batch", "", R, tI, nullptr, "trimming verified blocks is not simulated"},
	{"ioscheduler", "", S, tS, opt_ioscheduler, ""},
	// the task
	{"prio", "", S, tI, opt_prio, ""},
	{"prioclass", "", S, tI, opt_prioclass, ""},
	{"nice", "", R, tI, nullptr,
	 "efqsim's tasks have no CPU priority to derive an IO priority from (use prio=)"},
	{"cgroup", "", S, tS, opt_cgroup, ""},
	{"cgroup_weight", "", S, tI, opt_cgroup_weight, ""},
	{"cgroup_nodelete", "", A, tB, nullptr, "cgroups outlive the simulated run anyway"},
	{"uid", "", A, tI, nullptr, "permissions"},
	{"gid", "", A, tI, nullptr, "permissions"},
	{"cpumask", "", A, tI, nullptr, kCpu},
	{"cpus_allowed", "", A, tS, nullptr, kCpu},
	{"cpus_allowed_policy", "", A, tS, nullptr, kCpu},
	{"numa_cpu_nodes", "", A, tS, nullptr, kCpu},
	{"numa_mem_policy", "", A, tS, nullptr, kCpu},
	{"gtod_reduce", "", A, tB, nullptr,
	 "fewer clock reads in fio: efqsim's clock is simulated"},
	{"gtod_cpu", "", A, tI, nullptr, kCpu},
	{"clocksource", "", A, tS, nullptr, "efqsim's clock is simulated"},
	{"mem", "iomem", A, tS, nullptr, kBuf},
	{"iomem_align", "mem_align", A, tI, nullptr, kBuf},
	{"hugepage-size", "", A, tZ, nullptr, kBuf},
	{"lockmem", "", A, tZ, nullptr, kBuf},
	{"exec_prerun", "", R, tS, nullptr, "it runs a program; efqsim runs none"},
	{"exec_postrun", "", R, tS, nullptr, "it runs a program; efqsim runs none"},
	// buffer contents
	{"zero_buffers", "", A, tF, nullptr, kBuf},
	{"refill_buffers", "", A, tF, nullptr, kBuf},
	{"scramble_buffers", "", A, tB, nullptr, kBuf},
	{"buffer_pattern", "", A, tS, nullptr, kBuf},
	{"buffer_compress_percentage", "", A, tI, nullptr, kBuf},
	{"buffer_compress_chunk", "", A, tI, nullptr, kBuf},
	{"dedupe_percentage", "", A, tI, nullptr, kBuf},
	{"dedupe_mode", "", A, tS, nullptr, kBuf},
	{"dedupe_working_set_percentage", "", A, tI, nullptr, kBuf},
	{"dedupe_global", "", A, tB, nullptr, kBuf},
	// errors
	{"continue_on_error", "", A, tS, nullptr, kNoErr},
	{"ignore_error", "", A, tS, nullptr, kNoErr},
	{"error_dump", "", A, tB, nullptr, kNoErr},
	// logs and reporting
	{"write_bw_log", "", S, tS, opt_write_bw_log, ""},
	{"write_lat_log", "", S, tS, opt_write_lat_log, ""},
	{"write_iops_log", "", S, tS, opt_write_iops_log, ""},
	{"log_avg_msec", "", S, tI, opt_log_avg_msec, ""},
	{"log_offset", "", S, tB, opt_log_offset, ""},
	{"per_job_logs", "", S, tB, opt_per_job_logs, ""},
	{"kb_base", "", S, tS, opt_kb_base, ""},
	{"write_hist_log", "", A, tS, nullptr, kReport},
	{"write_iolog", "", A, tS, nullptr, kReport},
	{"log_prio", "", A, tB, nullptr, kReport},
	{"log_max_value", "", A, tB, nullptr, kReport},
	{"log_hist_msec", "", A, tI, nullptr, kReport},
	{"log_hist_coarseness", "", A, tI, nullptr, kReport},
	{"log_entries", "", A, tI, nullptr, kReport},
	{"log_compression", "", A, tZ, nullptr, kReport},
	{"log_compression_cpus", "", A, tS, nullptr, kReport},
	{"log_store_compressed", "", A, tB, nullptr, kReport},
	{"log_unix_epoch", "", A, tB, nullptr, kReport},
	{"log_alternate_epoch", "", A, tB, nullptr, kReport},
	{"log_alternate_epoch_clock_id", "", A, tI, nullptr, kReport},
	{"bwavgtime", "", A, tI, nullptr, kReport},
	{"iopsavgtime", "", A, tI, nullptr, kReport},
	{"disk_util", "", A, tB, nullptr, kReport},
	{"stats", "", A, tB, nullptr, kReport},
	{"unified_rw_reporting", "", A, tS, nullptr, kReport},
	{"unit_base", "", A, tS, nullptr, kReport},
	{"significant_figures", "", A, tI, nullptr, kReport},
	{"percentile_list", "", A, tL, nullptr, kReport},
	{"clat_percentiles", "", A, tB, nullptr, kReport},
	{"lat_percentiles", "", A, tB, nullptr, kReport},
	{"slat_percentiles", "", A, tB, nullptr, kReport},
	{"block_error_percentiles", "", A, tB, nullptr, kReport},
	{"disable_lat", "", A, tB, nullptr, kReport},
	{"disable_clat", "", A, tB, nullptr, kReport},
	{"disable_slat", "", A, tB, nullptr, kReport},
	{"disable_bw_measurement", "disable_bw", A, tB, nullptr, kReport},
	// iolog replay
	{"read_iolog", "", R, tS, nullptr, kIolog},
	{"read_iolog_chunked", "", R, tB, nullptr, kIolog},
	{"replay_no_stall", "", R, tB, nullptr, kIolog},
	{"replay_redirect", "", R, tS, nullptr, kIolog},
	{"replay_scale", "", R, tI, nullptr, kIolog},
	{"replay_align", "", R, tI, nullptr, kIolog},
	{"replay_time_scale", "", R, tI, nullptr, kIolog},
	{"replay_skip", "", R, tS, nullptr, kIolog},
	{"merge_blktrace_file", "", R, tS, nullptr, kIolog},
	{"merge_blktrace_scalars", "", R, tL, nullptr, kIolog},
	{"merge_blktrace_iters", "", R, tL, nullptr, kIolog},
	// engines' own options: block engines
	{"hipri", "", A, tF, nullptr, "polled completion: the scheduler sees the same requests"},
	{"hipri_percentage", "", A, tI, nullptr,
	 "polled completion: the scheduler sees the same requests"},
	{"fixedbufs", "", A, tF, nullptr, kPoll},
	{"registerfiles", "", A, tF, nullptr, kPoll},
	{"sqthread_poll", "", A, tF, nullptr, kPoll},
	{"sqthread_poll_cpu", "", A, tI, nullptr, kCpu},
	{"nonvectored", "", A, tI, nullptr, kPoll},
	{"uncached", "", A, tI, nullptr, kPoll},
	{"nowait", "", A, tF, nullptr, kPoll},
	{"force_async", "", A, tI, nullptr, kPoll},
	{"userspace_reap", "", A, tF, nullptr, kPoll},
	{"thp", "", A, tI, nullptr, kBuf},
	{"cmdprio_percentage", "", S, tS, opt_cmdprio_percentage, ""},
	{"cmdprio_class", "", S, tS, opt_cmdprio_class, ""},
	{"cmdprio", "", S, tS, opt_cmdprio, ""},
	{"cmdprio_bssplit", "", S, tS, opt_cmdprio_bssplit, ""},
	{"cmd_type", "", R, tS, nullptr, kSgEng},
	{"sg_write_mode", "", R, tS, nullptr, kSgEng},
	{"readfua", "", R, tB, nullptr, kSgEng},
	{"writefua", "", R, tB, nullptr, kSgEng},
	{"stream_id", "", R, tI, nullptr, kSgEng},
	// engines' own options: engines efqsim refuses
	{"hostname", "", R, tS, nullptr, kNetEng},
	{"port", "", R, tI, nullptr, kNetEng},
	{"interface", "", R, tS, nullptr, kNetEng},
	{"ttl", "", R, tI, nullptr, kNetEng},
	{"nodelay", "", R, tB, nullptr, kNetEng},
	{"protocol", "proto", R, tS, nullptr, kNetEng},
	{"listen", "", R, tB, nullptr, kNetEng},
	{"pingpong", "", R, tB, nullptr, kNetEng},
	{"window_size", "", R, tI, nullptr, kNetEng},
	{"mss", "", R, tI, nullptr, kNetEng},
	{"verb", "", R, tS, nullptr, kNetEng},
	{"bindname", "", R, tS, nullptr, kNetEng},
	{"clustername", "", R, tS, nullptr, kNetEng},
	{"rbdname", "", R, tS, nullptr, kNetEng},
	{"pool", "", R, tS, nullptr, kNetEng},
	{"clientname", "", R, tS, nullptr, kNetEng},
	{"busy_poll", "", R, tB, nullptr, kNetEng},
	{"touch_objects", "", R, tB, nullptr, kNetEng},
	{"conf", "", R, tS, nullptr, kNetEng},
	{"volume", "", R, tS, nullptr, kNetEng},
	{"brick", "", R, tS, nullptr, kNetEng},
	{"single-instance", "", R, tB, nullptr, kNetEng},
	{"uri", "", R, tS, nullptr, kNetEng},
	{"cpuload", "", R, tI, nullptr, kNetEng},
	{"cpuchunks", "", R, tI, nullptr, kNetEng},
	{"cpumode", "", R, tS, nullptr, kNetEng},
	{"exit_on_io_done", "", R, tB, nullptr, kNetEng},
	{"donorname", "", R, tS, nullptr, kNetEng},
	{"inplace", "", R, tI, nullptr, kNetEng},
	{"program", "", R, tS, nullptr, kNetEng},
	{"arguments", "", R, tS, nullptr, kNetEng},
	{"grace_time", "", R, tI, nullptr, kNetEng},
	{"std_redirect", "", R, tB, nullptr, kNetEng},
	{"stat_type", "", R, tS, nullptr, kNetEng},
	{"skip_bad", "", R, tB, nullptr, kNetEng},
	// fio's profiles' options (tiobench, act)
	{"block", "", A, tZ, nullptr, kProf},
	{"numruns", "", A, tI, nullptr, kProf},
	{"dir", "", A, tS, nullptr, kProf},
	{"threads", "", A, tI, nullptr, kProf},
	{"device-names", "", A, tS, nullptr, kProf},
	{"load", "", A, tI, nullptr, kProf},
	{"test-duration", "", A, tT, nullptr, kProf},
	{"threads-per-queue", "", A, tI, nullptr, kProf},
	{"read-req-num-512-blocks", "", A, tI, nullptr, kProf},
	{"large-block-op-kbytes", "", A, tI, nullptr, kProf},
	{"prep", "", A, tB, nullptr, kProf},
};

const OptDef *find_option(const std::string &key)
{
	for (const auto &o : kOptions)
		if (key == o.name || (*o.alias && key == o.alias))
			return &o;
	return nullptr;
}

// Checks the value of an option accepted without effect, by its type.
std::string check_value(const OptDef &o, const Value &v, unsigned int kb_base)
{
	switch (o.type) {
	case Type::Flag:
		if (v.bare)
			return "";
		[[fallthrough]];
	case Type::Bool: {
		bool b = false;
		if (v.bare)
			return "needs a value";
		return get_bool(v, &b);
	}
	case Type::Int:
	case Type::Size: {
		uint64_t n = 0;
		return get_size(v, kb_base, &n);
	}
	case Type::Time: {
		int64_t t = 0;
		return get_time(v, kSec, &t);
	}
	case Type::Float:
	case Type::Str:
		return need_value(v);
	}
	return "";
}

// Why @text is not a text job file, or "": a leading UTF-8 byte-order mark
// (fio takes it as part of the first line and refuses that line), or a
// control byte other than tab, CR and LF (a binary file).  Sets @line to the
// line of the offending byte.
std::string not_text(const std::string &text, int *line)
{
	*line = 1;
	if (text.rfind("\xEF\xBB\xBF", 0) == 0)
		return "the file starts with a UTF-8 byte-order mark (bytes EF BB BF), which "
		       "fio does not accept: save the job file without it";
	for (size_t i = 0; i < text.size(); i++) {
		const auto c = static_cast<unsigned char>(text[i]);
		if (c == '\n')
			++*line;
		if ((c < 0x20 && c != '\t' && c != '\r' && c != '\n') || c == 0x7f) {
			static const char hex[] = "0123456789abcdef";
			return std::string("not a text job file: byte offset ") +
			       std::to_string(i) + " is the control byte 0x" + hex[c >> 4] +
			       hex[c & 15] +
			       " (a job file may hold no control bytes but tab, CR and LF)";
		}
	}
	return "";
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

		if (auto e = not_text(src.text, &lineno); !e.empty())
			return fail(Loc{src.name, lineno}, e);
		lineno = 0;

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

	bool apply_line(Draft &d, const std::string &line, const Loc &loc, bool)
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
		if (!v.bare) {
			std::string err;
			auto x = expand(v.text, &err);
			if (!x)
				return fail(loc, key + ": " + err);
			v.text = *x;
		}
		const OptDef *o = find_option(key);
		if (!o) {
			// Reported at the end of the section, unless its engine
			// is refused first (fio parses engine options last).
			if (d.unknown.empty()) {
				d.unknown = key;
				d.unknown_at = loc;
			}
			return true;
		}
		if (o->kind == Kind::Refuse)
			return fail(loc, "fio option '" + key +
						 "' is not supported by efqsim: " + o->why);
		const std::string e = o->kind == Kind::Sim ? o->handler(d, v, ctx_)
							   : check_value(*o, v, d.kb_base);
		if (!e.empty())
			return fail(loc, key + ": " + e);
		d.set_at[o->name] = loc;
		if (!v.bare)
			remember(d.written, key, v.text);
		return true;
	}

	// ${VAR} from the environment and fio's keywords ($pagesize,
	// $mb_memory, $ncpus); a value with a keyword and operators, or one in
	// parentheses, is evaluated as an integer expression.
	std::optional<std::string> expand(const std::string &text, std::string *err) const
	{
		std::string out;
		bool keyword = false;
		for (size_t i = 0; i < text.size();) {
			if (text.compare(i, 2, "${") == 0) {
				const size_t close = text.find('}', i);
				if (close == std::string::npos) {
					*err = "'" + text + "': '${' without '}'";
					return std::nullopt;
				}
				const std::string var = text.substr(i + 2, close - i - 2);
				const char *val = ctx_.getenv ? ctx_.getenv(var.c_str())
							      : std::getenv(var.c_str());
				if (!val) {
					*err = "the environment variable " + var + " is not set";
					return std::nullopt;
				}
				out += val;
				i = close + 1;
				continue;
			}
			static const char *const kw[] = {"$pagesize", "$mb_memory", "$ncpus"};
			bool hit = false;
			for (int k = 0; k < 3 && !hit; k++) {
				const size_t n = std::strlen(kw[k]);
				if (text.compare(i, n, kw[k]) == 0) {
					const uint64_t val = k == 0   ? ctx_.pagesize
							     : k == 1 ? ctx_.mb_memory
								      : ctx_.ncpus;
					out += std::to_string(val);
					i += n;
					hit = keyword = true;
				}
			}
			if (!hit)
				out += text[i++];
		}
		const bool arith =
			!out.empty() &&
			out.find_first_not_of("0123456789+-*/%^() ") == std::string::npos &&
			out.find_first_of("+*/%^(") != std::string::npos;
		if (keyword && arith)
			return evaluate(out, out, err);
		if (!out.empty() && out.front() == '(') {
			const size_t close = out.rfind(')');
			if (close == std::string::npos) {
				*err = "'" + out + "': '(' without ')'";
				return std::nullopt;
			}
			auto v = evaluate(out.substr(0, close + 1), out, err);
			if (!v)
				return std::nullopt;
			return *v + out.substr(close + 1);
		}
		return out;
	}

	static std::optional<std::string> evaluate(const std::string &expr,
						   const std::string &whole, std::string *err)
	{
		size_t pos = 0;
		bool ok = true;
		std::string why;
		std::function<int64_t()> sum, product, power, unary;
		auto skip = [&] {
			while (pos < expr.size() && expr[pos] == ' ')
				pos++;
		};
		auto bad = [&](const std::string &w) {
			if (ok)
				why = w;
			ok = false;
			return int64_t{0};
		};
		unary = [&]() -> int64_t {
			skip();
			if (pos < expr.size() && expr[pos] == '-') {
				pos++;
				return -unary();
			}
			if (pos < expr.size() && expr[pos] == '(') {
				pos++;
				const int64_t v = sum();
				skip();
				if (pos >= expr.size() || expr[pos] != ')')
					return bad("a '(' without ')'");
				pos++;
				return v;
			}
			int64_t v = 0;
			const size_t start = pos;
			while (pos < expr.size() &&
			       std::isdigit(static_cast<unsigned char>(expr[pos]))) {
				if (v > (std::numeric_limits<int64_t>::max() - 9) / 10)
					return bad("a number too large");
				v = v * 10 + (expr[pos++] - '0');
			}
			if (pos == start)
				return bad("a number expected");
			return v;
		};
		power = [&]() -> int64_t {
			const int64_t b = unary();
			skip();
			if (pos < expr.size() && expr[pos] == '^') {
				pos++;
				const int64_t e = power();
				if (e < 0 || e > 62)
					return bad("an exponent out of range");
				int64_t r = 1;
				for (int64_t i = 0; i < e; i++) {
					if (b != 0 &&
					    std::abs(r) > std::numeric_limits<int64_t>::max() /
								  std::abs(b))
						return bad("a result too large");
					r *= b;
				}
				return r;
			}
			return b;
		};
		product = [&]() -> int64_t {
			int64_t v = power();
			for (skip(); pos < expr.size() && std::strchr("*/%", expr[pos]); skip()) {
				const char op = expr[pos++];
				const int64_t r = power();
				if (op == '*') {
					if (r != 0 &&
					    std::abs(v) > std::numeric_limits<int64_t>::max() /
								  std::abs(r))
						return bad("a result too large");
					v *= r;
				} else if (r == 0) {
					return bad("a division by zero");
				} else {
					v = op == '/' ? v / r : v % r;
				}
			}
			return v;
		};
		sum = [&]() -> int64_t {
			int64_t v = product();
			for (skip(); pos < expr.size() && (expr[pos] == '+' || expr[pos] == '-');
			     skip()) {
				const char op = expr[pos++];
				const int64_t r = product();
				if ((op == '+' && r > 0 &&
				     v > std::numeric_limits<int64_t>::max() - r) ||
				    (op == '-' && r < 0 &&
				     v > std::numeric_limits<int64_t>::max() + r))
					return bad("a result too large");
				v = op == '+' ? v + r : v - r;
			}
			return v;
		};
		const int64_t v = sum();
		skip();
		if (ok && pos != expr.size())
			bad("'" + expr.substr(pos, 1) + "' unexpected");
		if (!ok) {
			*err = "'" + whole + "': " + why;
			return std::nullopt;
		}
		if (v < 0) {
			*err = "'" + whole + "' is negative";
			return std::nullopt;
		}
		return std::to_string(v);
	}

	// Where option @opt was set for @d, or the section header.
	const Loc &where(const Draft &d, const std::string &opt) const
	{
		auto it = d.set_at.find(opt);
		return it != d.set_at.end() ? it->second : d.at;
	}

	bool check_section(const Draft &d)
	{
		if (!d.unknown.empty())
			return fail(d.unknown_at, "unknown option '" + excerpt(d.unknown) + "'");
		if (d.zonemode_strided && d.zone_size == 0)
			return fail(where(d, "zonemode"), "zonemode=strided needs zonesize=");
		if (d.zone_range && d.zone_size > d.zone_range)
			return fail(where(d, "zonesize"), "zonesize is larger than zonerange");
		if (!d.wait_for.empty()) {
			bool found = false;
			for (size_t i = 0; i + 1 < sections_.size(); i++)
				found |= sections_[i].d.name == d.wait_for;
			if (!found)
				return fail(where(d, "wait_for"), "wait_for: no job named '" +
									  d.wait_for +
									  "' before this one");
		}
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
		if (d.directory.empty() && d.filenames.empty() && d.set_at.count("directory"))
			return fail(where(d, "directory"), "directory is empty");
		for (const char *o :
		     {"cmdprio_percentage", "cmdprio_class", "cmdprio", "cmdprio_bssplit"}) {
			if (!d.set_at.count(o) || d.ioengine == IoEngine::Libaio ||
			    d.ioengine == IoEngine::IoUring)
				continue;
			return fail(where(d, o), std::string(o) +
							 ": an option of the libaio and io_uring "
							 "engines, not of ioengine=" +
							 io_engine_name(d.ioengine));
		}
		if ((d.cmdprio_pct[0] > 0 || d.cmdprio_pct[1] > 0) && !d.cmdprio_bssplit.empty())
			return fail(
				where(d, "cmdprio_bssplit"),
				"cmdprio_percentage and cmdprio_bssplit are mutually exclusive");
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

// fio's file name tokens: $jobname, $jobnum (the clone), $filenum.
std::string format_name(const std::string &fmt, const std::string &job, int clone, int filenum)
{
	std::string r;
	for (size_t i = 0; i < fmt.size();) {
		auto tok = [&](const char *t) {
			const size_t n = std::strlen(t);
			if (fmt.compare(i, n, t) != 0)
				return false;
			i += n;
			return true;
		};
		if (tok("$jobname"))
			r += job;
		else if (tok("$jobnum"))
			r += std::to_string(clone);
		else if (tok("$filenum"))
			r += std::to_string(filenum);
		else
			r += fmt[i++];
	}
	return r;
}

bool Parser::resolve(std::vector<JobSpec> *out)
{
	const uint64_t cap = ctx_.capacity_bytes;
	struct CloneFile {
		std::string name;
		uint64_t offset = 0, size = 0; // size 0 = to the end of the file
	};
	struct Clone {
		const Section *s;
		int clone;
		std::vector<CloneFile> files;
		Loc size_at;
		uint64_t total = 0; // size= of the clone, bytes (0 = unset)
	};
	std::vector<Clone> clones;
	// Files in order of first use: name -> extent needed (bytes).
	struct FileUse {
		uint64_t need = 0;
		bool sized = false, fill = false;
		Loc first, grow_at;
	};
	std::vector<std::string> file_order;
	std::map<std::string, FileUse> files;

	for (const auto &s : sections_) {
		const Draft &d = s.d;
		uint32_t min_bs = std::numeric_limits<uint32_t>::max();
		for (const auto &b : d.bsd)
			min_bs = std::min(min_bs, b.min);
		for (unsigned int c = 0; c < d.numjobs; c++) {
			Clone cl{&s, static_cast<int>(c), {}, d.at, 0};
			std::vector<std::string> names;
			if (!d.filenames.empty()) {
				for (const auto &n : d.filenames)
					names.push_back(join_path(d.directory, n));
			} else {
				const std::string fmt = d.filename_format.empty()
								? "$jobname.$jobnum.$filenum"
								: d.filename_format;
				for (unsigned int i = 0; i < d.nrfiles; i++)
					names.push_back(
						join_path(d.directory,
							  format_name(fmt, d.name,
								      static_cast<int>(c),
								      static_cast<int>(i))));
			}
			auto bytes_of = [&](const SizeVal &v) -> uint64_t {
				if (!v.pct)
					return v.bytes;
				const uint64_t b = static_cast<uint64_t>(
					static_cast<unsigned __int128>(cap) * v.pct / 100);
				const uint64_t a = d.offset_align ? d.offset_align : min_bs;
				return b / a * a;
			};
			const uint64_t offset =
				bytes_of(d.offset) + c * bytes_of(d.offset_increment);
			cl.total = bytes_of(d.size);
			cl.size_at = where(d, d.size.set ? "size" : "filename");
			if (d.size.set && d.size.pct && cl.total < std::max<uint32_t>(min_bs, 1))
				return fail(where(d, "size"),
					    "size=" + std::to_string(d.size.pct) +
						    "% is smaller than one block");
			for (size_t i = 0; i < names.size(); i++) {
				CloneFile cf{names[i], offset, 0};
				uint64_t file_size = 0; // filesize=, this file's
				if (d.filesize_lo) {
					file_size = d.filesize_lo;
					if (d.filesize_hi > d.filesize_lo) {
						const uint64_t steps =
							(d.filesize_hi - d.filesize_lo) / min_bs +
							1;
						Rng r(mix_seed(ctx_.seed,
							       clones.size() * 4096 + i));
						file_size += r.below(steps) * min_bs;
					}
					cl.size_at = where(d, "filesize");
				}
				if (cl.total)
					cf.size = names.size() == 1 ? cl.total
								    : cl.total / names.size() /
									      min_bs * min_bs;
				if (file_size) {
					if (offset >= file_size)
						return fail(where(d, "offset"),
							    "offset " + std::to_string(offset) +
								    " is beyond filesize " +
								    std::to_string(file_size));
					cf.size = cf.size ? std::min(cf.size, file_size - offset)
							  : file_size - offset;
				}
				auto [it, fresh] = files.try_emplace(cf.name);
				FileUse &fu = it->second;
				if (fresh) {
					file_order.push_back(cf.name);
					fu.first = d.at;
				}
				if (cf.name.rfind("/dev/", 0) == 0) {
					fu.need = cap;
					fu.sized = true;
				} else if (cf.size || file_size) {
					const uint64_t end =
						std::max(cf.offset + cf.size, file_size);
					if (end > fu.need) {
						fu.need = end;
						fu.grow_at = cl.size_at;
					}
					fu.sized = true;
				} else if (d.fill_device) {
					fu.fill = true;
					fu.grow_at = where(d, "fill_device");
				}
				cl.files.push_back(cf);
			}
			clones.push_back(std::move(cl));
		}
	}

	// Lay the files out: /dev/ names are the whole device; every other
	// name gets its own extent, 1 MiB aligned, in order of first use; a
	// fill_device file without a size takes the rest of the device.
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
		const uint64_t start = align_up(next, kFileAlign);
		if (!fu.sized && fu.fill) {
			if (start >= cap)
				return fail(fu.grow_at, "file '" + name +
								"' would fill the device, but no "
								"space is left");
			extent[name] = {start, cap - start};
			next = cap;
			continue;
		}
		if (!fu.sized)
			return fail(fu.first, "file '" + name +
						      "' has no size: set size= (or use a /dev/ "
						      "filename for the whole device)");
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
		for (int k = 0; k < 3; k++)
			j.bsd[k] = d.bsd[k];
		j.bs_read = d.bsd[0].min;
		j.bs_write = d.bsd[1].min;
		j.norandommap = d.norandommap;
		j.seq_skip = d.seq_skip;
		j.rand_every = d.rand_every;
		j.rand_identical = d.rand_identical;
		j.percentage_random = d.percentage_random;
		j.dist = d.dist;
		j.dist_param = d.dist_param;
		j.dist_center = d.dist_center;
		j.seed = mix_seed(d.randseed_set ? d.randseed : ctx_.seed,
				  static_cast<uint64_t>(j.job_number));
		uint32_t need_bs = 0;
		for (int k = 0; k < 3; k++) {
			const bool used = k == 0 ? j.reads() : k == 1 ? j.writes() : j.trims();
			if (used)
				need_bs = std::max(need_bs, d.bsd[k].max);
		}
		uint64_t sum = 0;
		for (const auto &cf : cl.files) {
			JobFile f;
			f.name = cf.name;
			const auto [fstart, fbytes] = extent[cf.name];
			f.start = fstart;
			f.bytes = fbytes;
			if (cf.offset >= fbytes)
				return fail(where(d, "offset"),
					    "offset " + std::to_string(cf.offset) +
						    " is beyond the end of '" + cf.name + "' (" +
						    std::to_string(fbytes) + " bytes)");
			f.region_start = fstart + cf.offset;
			f.region_bytes = cf.size ? cf.size : fbytes - cf.offset;
			if (cf.offset + f.region_bytes > fbytes)
				return fail(cl.size_at,
					    "offset + size (" +
						    std::to_string(cf.offset + f.region_bytes) +
						    ") is beyond the end of '" + cf.name + "' (" +
						    std::to_string(fbytes) + " bytes)");
			if (f.region_bytes < need_bs)
				return fail(cl.size_at, "the job's region (" +
								std::to_string(f.region_bytes) +
								" bytes) is smaller than its block "
								"size (" +
								std::to_string(need_bs) + ")");
			sum += f.region_bytes;
			j.files.push_back(f);
		}
		j.file = j.files[0].name;
		j.file_start = j.files[0].start;
		j.file_bytes = j.files[0].bytes;
		j.region_start = j.files[0].region_start;
		j.region_bytes = j.files[0].region_bytes;
		j.file_service = d.file_service;
		j.file_service_nr = d.file_service_nr;
		j.openfiles = d.openfiles;
		if (d.io_size && d.io_size < need_bs)
			return fail(where(d, "io_size"),
				    "io_size (" + std::to_string(d.io_size) +
					    " bytes) is smaller than the job's block size (" +
					    std::to_string(need_bs) + ")");
		uint64_t once = d.io_size ? d.io_size : cl.total ? cl.total : sum;
		if (!d.io_size && d.seq_skip > 0 && !j.random()) {
			// rw=read:8k: a pass ends at the region's end, holes skipped
			once = 0;
			const uint64_t step = d.bsd[0].min + static_cast<uint64_t>(d.seq_skip);
			for (const auto &f : j.files)
				once += (f.region_bytes + step - 1) / step * d.bsd[0].min;
		}
		j.io_bytes = once > std::numeric_limits<uint64_t>::max() / d.loops
				     ? std::numeric_limits<uint64_t>::max()
				     : once * d.loops;
		j.number_ios = d.number_ios;
		if (d.zonemode_strided) {
			j.zone_size = d.zone_size;
			j.zone_range = d.zone_range ? d.zone_range : d.zone_size;
			j.zone_skip = d.zone_skip;
			if (j.zone_size < need_bs)
				return fail(where(d, "zonesize"),
					    "zonesize is smaller than the block size");
		}
		for (const auto &[pct, range] : d.zones) {
			// zoned: percent of the region; zoned_abs: bytes
			j.zones.emplace_back(pct, range);
		}
		if (d.dist == RandDist::ZonedAbs)
			for (const auto &z : d.zones)
				if (z.second % 512)
					return fail(where(d, "random_distribution"),
						    "zoned_abs sizes must be multiples of 512");
		j.runtime_ns = d.runtime;
		j.time_based = d.time_based;
		j.ramp_ns = d.ramp;
		j.startdelay_ns = d.startdelay;
		j.ioengine = d.ioengine;
		j.iodepth = d.iodepth;
		j.iodepth_low = d.iodepth_low;
		// mmap'ed IO always goes through the page cache.
		j.direct = d.direct && d.ioengine != IoEngine::Mmap;
		j.invalidate = d.invalidate;
		j.thinktime_ns = d.thinktime;
		j.thinktime_blocks = d.thinktime_blocks;
		j.fsync_blocks = d.fsync;
		j.end_fsync = d.end_fsync;
		j.verify = d.verify && d.do_verify && j.writes() && !d.verify_only;
		j.verify_backlog = d.verify_backlog;
		j.verify_only = d.verify_only && d.verify;
		for (int k = 0; k < 3; k++) {
			j.rate[k] = d.rate[k];
			j.rate_iops[k] = d.rate_iops[k];
			j.rate_min[k] = d.rate_min[k];
			j.rate_iops_min[k] = d.rate_iops_min[k];
		}
		j.rate_cycle_ns = static_cast<int64_t>(d.rate_cycle_ms) * kMs;
		j.rate_poisson = d.rate_poisson;
		j.exitall = d.exitall;
		j.exit_what = d.exit_what;
		j.wait_for = d.wait_for;
		j.cgroup = d.cgroup;
		j.cgroup_weight = d.cgroup_weight;
		if (d.prio >= 0 || d.prioclass >= 0) {
			// As fio: no class means best effort, no level means 0.
			j.ioprio_class = d.prioclass > 0 ? d.prioclass : 2;
			j.ioprio = d.prio >= 0 ? d.prio : 0;
		}
		// cmdprio: without cmdprio_class the class is RT, without
		// cmdprio the level is 0 (fio's cmdprio.c).
		for (int k = 0; k < 2; k++) {
			const int cls = d.cmdprio_class[k] > 0 ? d.cmdprio_class[k] : 1;
			const int lvl = d.cmdprio_level[k] >= 0 ? d.cmdprio_level[k] : 0;
			if (d.cmdprio_pct[k] > 0)
				j.cmdprio[k].push_back(JobSpec::CmdPrio{0,
									static_cast<unsigned int>(
										d.cmdprio_pct[k]),
									cls, lvl});
		}
		if (!d.cmdprio_bssplit.empty()) {
			std::string e =
				per_ddir(d.cmdprio_bssplit, [&](size_t k, const std::string &t) {
					if (k > 1) // trims carry no priority
						return std::string();
					j.cmdprio[k].clear();
					return parse_cmdprio_split(t, d.kb_base,
								   d.cmdprio_class[k] > 0
									   ? d.cmdprio_class[k]
									   : 1,
								   d.cmdprio_level[k] >= 0
									   ? d.cmdprio_level[k]
									   : 0,
								   &j.cmdprio[k]);
				});
			if (!e.empty())
				return fail(where(d, "cmdprio_bssplit"), "cmdprio_bssplit: " + e);
		}
		j.flow = d.flow;
		j.flow_id = d.flow_id;
		j.flow_sleep_ns = d.flow_sleep;
		// fio counts ss_dur in whole seconds; below one second it is off.
		if (d.ss_dur >= kSec) {
			j.ss = d.ss;
			j.ss_pct = d.ss_pct;
			j.ss_limit = d.ss_limit;
			j.ss_dur_s = static_cast<unsigned int>(
				std::min<int64_t>(d.ss_dur / kSec, 1'000'000));
			j.ss_ramp_ns = d.ss_ramp;
			j.ss_text = d.ss_text;
		}
		j.latency_target_ns = d.latency_target;
		j.latency_window_ns = d.latency_window;
		j.latency_percentile = d.latency_percentile;
		j.latency_run = d.latency_run;
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
	for (const auto &o : kOptions) {
		names.emplace_back(o.name);
		if (*o.alias)
			names.emplace_back(o.alias);
	}
	return names;
}

} // namespace efqsim::workload
