// SPDX-License-Identifier: GPL-2.0
// efqsim device parameters: reading parameter files and value syntax.

#include "params.h"

#include "common/text.h"

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

bool parse_real(std::string_view s, double *v)
{
	if (s.empty() || s.front() == '+')
		return false;
	double d = 0;
	auto r = std::from_chars(s.data(), s.data() + s.size(), d, std::chars_format::general);
	if (r.ec != std::errc() || r.ptr != s.data() + s.size() || !std::isfinite(d))
		return false;
	*v = d;
	return true;
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
			if (value != "hdd" && value != "ssd" && value != "null" &&
			    value != "multipath") {
				*err = at(where, "model: unknown model '" + excerpt(value) +
							 "' (hdd, ssd, null or multipath)");
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
	return parse_param_text(ss.str(), path, out, err);
}

} // namespace efqsim::dev
