// SPDX-License-Identifier: GPL-2.0
// efq-weightd: the io.weight grammar and the diff (weight.h).
#include "weight.h"

#include <cctype>

namespace efq::weightd {

std::string dev_str(Dev d)
{
	return std::to_string(d.major) + ":" + std::to_string(d.minor);
}

std::optional<unsigned long> parse_number(std::string_view s, unsigned long max)
{
	if (s.empty() || s.size() > 12)
		return std::nullopt;
	unsigned long v = 0;
	for (char c : s) {
		if (c < '0' || c > '9')
			return std::nullopt;
		v = v * 10 + static_cast<unsigned long>(c - '0');
	}
	if (v > max)
		return std::nullopt;
	return v;
}

std::optional<Dev> parse_dev(std::string_view s)
{
	auto colon = s.find(':');
	if (colon == std::string_view::npos)
		return std::nullopt;
	auto maj = parse_number(s.substr(0, colon), (1ul << 12) - 1);
	auto min = parse_number(s.substr(colon + 1), (1ul << 20) - 1);
	if (!maj || !min)
		return std::nullopt;
	return Dev{static_cast<unsigned>(*maj), static_cast<unsigned>(*min)};
}

namespace {

bool blank(char c)
{
	return c == ' ' || c == '\t';
}

// Split a line into blank-separated fields.
std::vector<std::string_view> fields(std::string_view line)
{
	std::vector<std::string_view> out;
	size_t i = 0;
	while (i < line.size()) {
		while (i < line.size() && blank(line[i]))
			i++;
		size_t start = i;
		while (i < line.size() && !blank(line[i]))
			i++;
		if (i > start)
			out.push_back(line.substr(start, i - start));
	}
	return out;
}

std::string quoted(std::string_view line)
{
	std::string out = "'";
	for (char c : line) {
		if (std::isprint(static_cast<unsigned char>(c)))
			out += c;
		else
			out += '?';
	}
	return out + "'";
}

} // namespace

ParseResult parse_weights(std::string_view text)
{
	ParseResult r;
	if (text.empty()) {
		r.errors.push_back("empty (no default line)");
		return r;
	}
	size_t lineno = 0;
	for (std::string_view line : split(text, '\n')) {
		lineno++;
		auto bad = [&](const char *why) {
			r.errors.push_back("line " + std::to_string(lineno) + " " + quoted(line) +
					   ": " + why);
		};
		auto f = fields(line);
		if (f.empty()) {
			bad("empty line");
		} else if (f.size() != 2) {
			bad(f.size() == 1 ? "no weight" : "trailing text");
		} else {
			auto w = parse_number(f[1], kWeightMax);
			if (!w || *w < kWeightMin) {
				bad("weight not in 1..10000");
			} else if (f[0] == "default") {
				if (r.file.def)
					bad("second default line");
				else
					r.file.def = static_cast<int>(*w);
			} else if (auto d = parse_dev(f[0])) {
				if (!r.file.devs.emplace(*d, static_cast<int>(*w)).second)
					bad("second line for the device");
			} else {
				bad("neither 'default' nor MAJ:MIN");
			}
		}
	}
	return r;
}

std::vector<std::string_view> split(std::string_view s, char sep)
{
	std::vector<std::string_view> out;
	size_t pos = 0;
	do {
		size_t end = s.find(sep, pos);
		if (end == std::string_view::npos)
			end = s.size();
		out.push_back(s.substr(pos, end - pos));
		pos = end + 1;
	} while (pos < s.size());
	return out;
}

WeightFile followed_weights(const WeightFile &io_weight, const std::optional<WeightFile> &bfq)
{
	bool io_default =
		io_weight.def.value_or(kWeightDefault) == kWeightDefault && io_weight.devs.empty();
	if (!io_default || !bfq || !bfq->def || *bfq->def == kWeightDefault)
		return io_weight;
	WeightFile f;
	f.def = bfq->def;
	return f;
}

Target make_target(const WeightFile &io_weight, const std::optional<std::map<Dev, int>> &systemd)
{
	Target t;
	t.def = io_weight.def;
	if (systemd)
		t.devs = *systemd;
	else
		t.complete = false;
	// io.weight's own line for a device wins over systemd's.
	for (const auto &[dev, w] : io_weight.devs)
		t.devs[dev] = w;
	return t;
}

std::vector<std::string> plan_writes(const Target &want, const WeightFile &have)
{
	std::vector<std::string> out;
	if (want.def && have.def != want.def)
		out.push_back("default " + std::to_string(*want.def));
	for (const auto &[dev, w] : want.devs) {
		auto it = have.devs.find(dev);
		if (it == have.devs.end() || it->second != w)
			out.push_back(dev_str(dev) + " " + std::to_string(w));
	}
	if (want.complete) {
		for (const auto &[dev, w] : have.devs) {
			if (!want.devs.count(dev))
				out.push_back(dev_str(dev) + " default");
		}
	}
	return out;
}

} // namespace efq::weightd
