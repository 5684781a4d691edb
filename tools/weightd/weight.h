// SPDX-License-Identifier: GPL-2.0
// efq-weightd: the io.weight grammar and what to write to make
// io.efq.io_weight equal to it.
//
// io.weight (iocost's) and io.efq.io_weight (efq's copy) read the same way:
// a `default W` line, then one `MAJ:MIN W` line per device with a weight of
// its own, W in 1..10000.  io.efq.io_weight takes one line per write(2):
// `default W`, `MAJ:MIN W`, or `MAJ:MIN default` (drop the device's line).
#pragma once

#include <compare>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace efq::weightd {

constexpr int kWeightMin = 1;
constexpr int kWeightMax = 10000;
constexpr int kWeightDefault = 100;

// A device number as the cgroup files print it (MAJ:MIN).
struct Dev {
	unsigned major = 0;
	unsigned minor = 0;
	auto operator<=>(const Dev &) const = default;
};

std::string dev_str(Dev d);

// A weight file as read: the default line and the device lines.
struct WeightFile {
	std::optional<int> def;
	std::map<Dev, int> devs;
};

struct ParseResult {
	WeightFile file;
	// One message per malformed line (the line is skipped), or one for
	// an empty file.
	std::vector<std::string> errors;
};

// Parse a weight file's content.  Lines are `default W` or `MAJ:MIN W`
// (fields separated by blanks); a final newline is optional.  Anything else
// (an empty line, junk, W outside 1..10000, a bad MAJ:MIN, trailing text, a
// second line for the same device) is an error and the line is skipped.
ParseResult parse_weights(std::string_view text);

// The pieces of s between separators sep; a separator at the very end
// starts no piece ("a\n" is one line), so there is at least one ("" gives
// one empty piece).
std::vector<std::string_view> split(std::string_view s, char sep);

// A decimal number without sign, at most max; nullopt otherwise.
std::optional<unsigned long> parse_number(std::string_view s, unsigned long max);
// `MAJ:MIN` with MAJ < 4096 and MIN < 2^20 (the kernel's dev_t); nullopt
// otherwise.
std::optional<Dev> parse_dev(std::string_view s);

// The io.weight to follow: io.weight itself, unless it says nothing but
// the default 100 while io.bfq.weight (bfq's file, present while bfq.ko is
// loaded) has another default.  runc and crun write only io.bfq.weight
// when it exists (the weight unchanged, 10..1000, on bfq's scale whose
// default is io.weight's, 100); systemd writes both, io.weight with the
// value it was given, which then wins.  bfq's device lines are not
// followed (bfq takes them only for disks it runs).
WeightFile followed_weights(const WeightFile &io_weight, const std::optional<WeightFile> &bfq);

// What io.efq.io_weight must hold.
struct Target {
	std::optional<int> def;
	std::map<Dev, int> devs;
	// Whether devs is everything the file may hold: then a device line of
	// the file that is not in devs is removed.  False when some source of
	// device lines (systemd) could not be asked.
	bool complete = true;
};

// The target for a cgroup: io.weight's default and device lines, plus
// systemd's device weights (IODeviceWeight=) for devices io.weight has no
// line for.  `systemd` is nullopt when systemd was not asked or could not
// answer: then lines io.weight does not have are left alone.
Target make_target(const WeightFile &io_weight, const std::optional<std::map<Dev, int>> &systemd);

// The lines to write to io.efq.io_weight, one write(2) each, to turn
// `have` into `want`: `default W` if the default differs, `MAJ:MIN W` for
// each device line that is missing or differs, then `MAJ:MIN default` for
// each device line `have` has and `want` does not (if want.complete).
std::vector<std::string> plan_writes(const Target &want, const WeightFile &have);

} // namespace efq::weightd
