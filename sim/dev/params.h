// SPDX-License-Identifier: GPL-2.0
// efqsim device parameters: the `key = value` parameter-file format shared by
// every model, and a table-driven way for a model to declare its parameters
// (name, unit, range, meaning) once for parsing, checking and printing.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace efqsim::dev {

// One `key = value` line of a parameter file.
struct Setting {
	std::string key;
	std::string value;
	int line = 0;
};

// A parameter file, read but not yet applied to a model.
struct ParamFile {
	std::string path;
	std::string model = "hdd";     // `model = ...`; hdd when the file has none
	int model_line = 0;	       // 0: not in the file
	std::vector<Setting> settings; // every other line, in file order
};

// Reads the parameter file @path.  The format: one `key = value` per line;
// `#` starts a comment (whole line or after the value); blank lines are
// ignored; a key appears at most once; the file is text (no NUL, no control
// byte but tab, newline and carriage return: a binary file is refused as
// "path:line: not a text file: ... at byte offset N", N counted from 0).
// false with "path:line: message" (or "path: message") in @err.
bool read_param_file(const std::string &path, ParamFile *out, std::string *err);
// The same, from @text, with @path used in messages; a control byte is
// not refused as such but escaped where a message quotes it.
bool parse_param_text(std::string_view text, const std::string &path, ParamFile *out,
		      std::string *err);

// One parameter of a model whose parameters are the struct P.
template <class P> struct Param {
	const char *name;
	const char *unit; // "ms", "us", "MB/s" (10^6 bytes/s), "KiB", "sectors", "rpm", "" ...
	const char *help; // what it means, one line
	double min;	  // inclusive range
	double max;
	std::variant<double P::*, uint32_t P::*, uint64_t P::*, bool P::*> field;
};

// Value syntax.  Numbers: decimal, optional fraction and exponent for real
// parameters, digits only for integer ones; finite.  Booleans: 0/1,
// true/false, yes/no, on/off.
bool parse_real(std::string_view s, double *v);
bool parse_integer(std::string_view s, uint64_t *v);
bool parse_bool(std::string_view s, bool *v);

// What a value holds, for a parameter's message: a number in @v, no number
// at all, or a number that is one but cannot be held (out of range).
enum class Scan { ok, not_a_number, out_of_range };
// A real: parse_real()'s syntax.  out_of_range: beyond the largest double
// (1e400, -1e400).  A magnitude below the smallest double rounds to 0, as
// any value rounds to the nearest double; -0 is 0.
Scan scan_real(std::string_view s, double *v);
// A whole number: digits, or '-' and digits.  out_of_range: negative (but
// -0, which is 0) or above 2^64 - 1.
Scan scan_integer(std::string_view s, uint64_t *v);

// Shortest text that parses back to exactly @v.
std::string format_real(double v);
// A range's bound: whole numbers in plain digits (100000, not 1e+05),
// others as format_real().
std::string format_bound(double v);

// "path:line" of the line that set the last of @keys in @f (the place to
// fix a cross-parameter problem), "path" if none of them is in the file,
// "" without a path (a built-in model).
std::string locate(const ParamFile &f, const std::vector<std::string> &keys);
// "where: message", or just "message" when @where is "".
std::string at(const std::string &where, const std::string &message);

template <class P> std::string param_value(const P &p, const Param<P> &d)
{
	if (auto f = std::get_if<double P::*>(&d.field))
		return format_real(p.**f);
	if (auto f = std::get_if<uint32_t P::*>(&d.field))
		return std::to_string(p.**f);
	if (auto f = std::get_if<uint64_t P::*>(&d.field))
		return std::to_string(p.**f);
	return p.*std::get<bool P::*>(d.field) ? "1" : "0";
}

// "min..max" of parameter @d.
template <class P> std::string param_range(const Param<P> &d)
{
	return format_bound(d.min) + ".." + format_bound(d.max);
}

// Sets parameter @d of @p from @text; false with the reason in @why:
// "name: 'text' is not a number" (not a whole number, not a boolean), or
// "name: 'text' is out of range (min..max)" for a number outside the
// parameter's range or beyond what a number of its kind holds.
template <class P> bool set_param(P &p, const Param<P> &d, std::string_view text, std::string *why)
{
	const std::string quoted = std::string(d.name) + ": '" + std::string(text) + "'";
	auto out_of_range = [&] {
		*why = quoted + " is out of range (" + param_range(d) + ")";
		return false;
	};
	if (auto f = std::get_if<bool P::*>(&d.field)) {
		bool b;
		if (!parse_bool(text, &b)) {
			*why = quoted + " is not a boolean (0/1, true/false, yes/no, on/off)";
			return false;
		}
		p.**f = b;
		return true;
	}
	if (auto f = std::get_if<double P::*>(&d.field)) {
		double v;
		Scan s = scan_real(text, &v);
		if (s == Scan::not_a_number) {
			*why = quoted + " is not a number";
			return false;
		}
		if (s == Scan::out_of_range || v < d.min || v > d.max)
			return out_of_range();
		p.**f = v;
		return true;
	}
	uint64_t v;
	Scan s = scan_integer(text, &v);
	if (s == Scan::not_a_number) {
		*why = quoted + " is not a whole number";
		return false;
	}
	// d.min and d.max are whole numbers below 2^53: exact as doubles
	if (s == Scan::out_of_range || static_cast<double>(v) < d.min ||
	    static_cast<double>(v) > d.max)
		return out_of_range();
	if (auto f = std::get_if<uint32_t P::*>(&d.field))
		p.**f = static_cast<uint32_t>(v);
	else
		p.*std::get<uint64_t P::*>(d.field) = v;
	return true;
}

// Applies every setting of @f to @p.  false with "path:line: message" in
// @err on an unknown key, a bad value or an out-of-range value.
template <class P>
bool apply_settings(const ParamFile &f, const std::vector<Param<P>> &table, P *p, std::string *err)
{
	for (const Setting &s : f.settings) {
		const Param<P> *d = nullptr;
		for (const Param<P> &c : table)
			if (s.key == c.name)
				d = &c;
		std::string where = f.path + ":" + std::to_string(s.line);
		if (!d) {
			*err = at(where, "unknown parameter '" + s.key + "' for model " + f.model);
			return false;
		}
		std::string why;
		if (!set_param(*p, *d, s.value, &why)) {
			*err = at(where, why);
			return false;
		}
	}
	return true;
}

// @p in the parameter-file format: a header, `model = @model`, then one
// `name = value  # [unit] help` line per parameter.
template <class P>
std::string dump_params(const std::string &model, const std::vector<Param<P>> &table, const P &p)
{
	std::vector<std::string> lines;
	size_t width = 0;
	for (const Param<P> &d : table) {
		lines.push_back(std::string(d.name) + " = " + param_value(p, d));
		width = std::max(width, lines.back().size());
	}
	std::string out = "# efqsim device parameters (`efqsim --device FILE` reads this format;\n"
			  "# units: MB = 10^6 bytes, KiB = 1024 bytes, sector = 512 bytes)\n"
			  "model = " +
			  model + "\n";
	for (size_t i = 0; i < table.size(); i++) {
		out += lines[i] + std::string(width - lines[i].size() + 2, ' ') + "# ";
		if (*table[i].unit)
			out += std::string("[") + table[i].unit + "] ";
		out += table[i].help;
		out += "\n";
	}
	return out;
}

} // namespace efqsim::dev
