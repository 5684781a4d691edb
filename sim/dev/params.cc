// SPDX-License-Identifier: GPL-2.0
// efqsim device parameters: reading parameter files and value syntax.

#include "params.h"

#include "common/text.h"
#include "device.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace efqsim::dev {

namespace {

std::string_view trim(std::string_view s)
{
	while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r'))
		s.remove_prefix(1);
	while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
		s.remove_suffix(1);
	return s;
}

bool valid_key(std::string_view k)
{
	if (k.empty())
		return false;
	for (char c : k)
		if (!(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9')))
			return false;
	return true;
}

} // namespace

std::string at(const std::string &where, const std::string &message)
{
	return printable(where.empty() ? message : where + ": " + message);
}

namespace {

// For a number std::from_chars() parsed whole but could not hold: true if
// its magnitude is above 1 (an overflow), false if below (an underflow).
// Every such number is either above the largest double or below the
// smallest, so the decimal exponent of its first nonzero digit decides.
bool overflows(std::string_view s)
{
	int64_t lead = 0;  // decimal exponent of the first nonzero digit
	int64_t frac = -1; // digits after the point so far, -1 before it
	bool nonzero = false;
	size_t i = !s.empty() && s.front() == '-' ? 1 : 0;
	for (; i < s.size() && s[i] != 'e' && s[i] != 'E'; i++) {
		if (s[i] == '.') {
			frac = 0;
			continue;
		}
		if (frac >= 0)
			frac++;
		if (nonzero) {
			lead += frac < 0;
		} else if (s[i] != '0') {
			nonzero = true;
			lead = frac < 0 ? 0 : -frac;
		}
	}
	int64_t exp = 0;
	bool negative = false;
	if (i < s.size()) {
		i++;
		if (i < s.size() && (s[i] == '-' || s[i] == '+'))
			negative = s[i++] == '-';
		for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; i++)
			exp = std::min<int64_t>(exp * 10 + (s[i] - '0'), int64_t(1) << 40);
	}
	return lead + (negative ? -exp : exp) >= 0;
}

} // namespace

Scan scan_real(std::string_view s, double *v)
{
	if (s.empty() || s.front() == '+')
		return Scan::not_a_number;
	double d = 0;
	auto r = std::from_chars(s.data(), s.data() + s.size(), d, std::chars_format::general);
	if (r.ptr != s.data() + s.size())
		return Scan::not_a_number;
	if (r.ec == std::errc::result_out_of_range) {
		if (overflows(s))
			return Scan::out_of_range;
		d = 0; // below the smallest double: its nearest is 0
	} else if (r.ec != std::errc() || !std::isfinite(d)) {
		return Scan::not_a_number; // inf, nan
	}
	*v = d + 0.0; // -0 is 0
	return Scan::ok;
}

Scan scan_integer(std::string_view s, uint64_t *v)
{
	const bool negative = !s.empty() && s.front() == '-';
	if (negative)
		s.remove_prefix(1);
	if (s.empty() ||
	    !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
		return Scan::not_a_number;
	if (negative && s.find_first_not_of('0') != std::string_view::npos)
		return Scan::out_of_range;
	if (negative) {
		*v = 0;
		return Scan::ok;
	}
	return parse_integer(s, v) ? Scan::ok : Scan::out_of_range;
}

bool parse_real(std::string_view s, double *v)
{
	return scan_real(s, v) == Scan::ok;
}

bool parse_integer(std::string_view s, uint64_t *v)
{
	if (s.empty())
		return false;
	for (char c : s)
		if (c < '0' || c > '9')
			return false;
	uint64_t x = 0;
	auto r = std::from_chars(s.data(), s.data() + s.size(), x);
	if (r.ec != std::errc() || r.ptr != s.data() + s.size())
		return false;
	*v = x;
	return true;
}

bool parse_bool(std::string_view s, bool *v)
{
	if (s == "1" || s == "true" || s == "yes" || s == "on") {
		*v = true;
		return true;
	}
	if (s == "0" || s == "false" || s == "no" || s == "off") {
		*v = false;
		return true;
	}
	return false;
}

std::string format_real(double v)
{
	char buf[64];
	auto r = std::to_chars(buf, buf + sizeof(buf), v);
	return std::string(buf, r.ptr);
}

std::string format_bound(double v)
{
	if (v == std::floor(v) && std::fabs(v) < 9007199254740992.0) // 2^53
		return std::to_string(static_cast<int64_t>(v));
	return format_real(v);
}

std::string locate(const ParamFile &f, const std::vector<std::string> &keys)
{
	int line = 0;
	for (const Setting &s : f.settings)
		for (const std::string &k : keys)
			if (s.key == k)
				line = std::max(line, s.line);
	if (f.path.empty())
		return "";
	return line ? f.path + ":" + std::to_string(line) : f.path;
}

namespace {

// "" if @text is text: no NUL and no control byte but tab, newline and
// carriage return (DEL is one).  Else why it is not, with the line of the
// first such byte in @line.
std::string not_text(std::string_view text, int *line)
{
	for (size_t i = 0; i < text.size(); i++) {
		const auto c = static_cast<unsigned char>(text[i]);
		if ((c >= 0x20 && c != 0x7f) || c == '\t' || c == '\n' || c == '\r')
			continue;
		static const char hex[] = "0123456789abcdef";
		*line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + i, '\n'));
		std::string byte = c ? std::string("a control byte 0x") + hex[c >> 4] + hex[c & 15]
				     : std::string("a NUL byte");
		return "not a text file: " + byte + " at byte offset " + std::to_string(i);
	}
	return "";
}

} // namespace

bool parse_param_text(std::string_view text, const std::string &path, ParamFile *out,
		      std::string *err)
{
	ParamFile f;
	f.path = path;
	int line = 0;
	while (!text.empty()) {
		size_t nl = text.find('\n');
		std::string_view raw = text.substr(0, nl);
		text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
		line++;
		std::string where = path + ":" + std::to_string(line);
		std::string_view l = raw.substr(0, raw.find('#'));
		l = trim(l);
		if (l.empty())
			continue;
		size_t eq = l.find('=');
		if (eq == std::string_view::npos) {
			*err = at(where, "expected 'key = value', got '" + excerpt(l) + "'");
			return false;
		}
		std::string_view key = trim(l.substr(0, eq));
		std::string_view value = trim(l.substr(eq + 1));
		if (!valid_key(key)) {
			*err = at(where, "bad parameter name '" + excerpt(key) + "'");
			return false;
		}
		if (value.empty()) {
			*err = at(where, "no value for '" + std::string(key) + "'");
			return false;
		}
		int first = key == "model" ? f.model_line : 0;
		for (const Setting &s : f.settings)
			if (s.key == key)
				first = s.line;
		if (first) {
			*err = at(where, "'" + std::string(key) + "' is set twice (first on line " +
						 std::to_string(first) + ")");
			return false;
		}
		if (key == "model") {
			if (!std::count(model_names().begin(), model_names().end(), value)) {
				*err = at(where, "model: unknown model '" + excerpt(value) + "' (" +
							 model_list() + ")");
				return false;
			}
			f.model = std::string(value);
			f.model_line = line;
			continue;
		}
		f.settings.push_back({std::string(key), std::string(value), line});
	}
	*out = std::move(f);
	return true;
}

bool read_param_file(const std::string &path, ParamFile *out, std::string *err)
{
	std::error_code ec;
	if (std::filesystem::is_directory(path, ec)) {
		*err = path + ": is a directory, not a parameter file";
		return false;
	}
	std::ifstream in(path, std::ios::binary);
	if (!in) {
		*err = path + ": cannot open: " + std::strerror(errno);
		return false;
	}
	std::ostringstream ss;
	ss << in.rdbuf();
	if (in.bad()) {
		*err = path + ": cannot read";
		return false;
	}
	const std::string text = ss.str();
	// a binary file's bytes are no parameter names: say what it is, once
	int line = 0;
	if (std::string why = not_text(text, &line); !why.empty()) {
		*err = at(path + ":" + std::to_string(line), why);
		return false;
	}
	return parse_param_text(text, path, out, err);
}

} // namespace efqsim::dev
