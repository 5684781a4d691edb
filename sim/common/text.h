// SPDX-License-Identifier: GPL-2.0
// The user's text in efqsim's messages: whatever bytes an input holds, a
// message shows them as visible text of a bounded length.  Every part's
// message boundary uses these (the job-file parser's and the parameter
// files' error locations, inline device specs, the command line's
// bad_input()).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace efqsim {

// The length of the valid UTF-8 character at @s[@i] (2 to 4), or 0 if the
// byte there does not start one.
inline size_t utf8_char_len(std::string_view s, size_t i)
{
	const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
	const unsigned char c = b(i);
	size_t n = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
	if (n == 0 || i + n > s.size())
		return 0;
	for (size_t k = 1; k < n; k++)
		if ((b(i + k) & 0xc0) != 0x80)
			return 0;
	// overlong forms, surrogates and code points past U+10FFFF
	if ((c == 0xe0 && b(i + 1) < 0xa0) || (c == 0xed && b(i + 1) >= 0xa0) ||
	    (c == 0xf0 && b(i + 1) < 0x90) || (c == 0xf4 && b(i + 1) >= 0x90))
		return 0;
	return n;
}

// @msg as visible text of a bounded length: control characters (newline
// and tab too), DEL and bytes that are not valid UTF-8 become \xNN; the
// invisible byte-order mark U+FEFF becomes \uFEFF; valid UTF-8 stays.  A
// text longer than @max bytes (a long value quoted in it) keeps its first
// three quarters and its last quarter (where the location and the reason
// are) around " ... ".
inline std::string printable(std::string_view msg, size_t max = 400)
{
	static const char hex[] = "0123456789abcdef";
	std::string out;
	out.reserve(msg.size());
	for (size_t i = 0; i < msg.size();) {
		const auto c = static_cast<unsigned char>(msg[i]);
		if (c >= 0x20 && c < 0x7f) {
			out += static_cast<char>(c);
			i++;
			continue;
		}
		if (size_t n = c >= 0x80 ? utf8_char_len(msg, i) : 0) {
			if (msg.substr(i, n) == "\xef\xbb\xbf")
				out += "\\uFEFF";
			else
				out += msg.substr(i, n);
			i += n;
			continue;
		}
		out += "\\x";
		out += hex[c >> 4];
		out += hex[c & 15];
		i++;
	}
	if (out.size() <= max)
		return out;
	// Cut between characters and outside an escape (at most 6 bytes).
	auto boundary = [&out](size_t p) {
		while (p > 0 && (static_cast<unsigned char>(out[p]) & 0xc0) == 0x80)
			p--;
		size_t esc = out.rfind('\\', p);
		if (esc != std::string::npos && p - esc < 6 && esc + 1 < out.size() &&
		    (out[esc + 1] == 'x' || out[esc + 1] == 'u'))
			p = esc;
		return p;
	};
	const size_t head = boundary(max * 3 / 4);
	const size_t tail = boundary(out.size() - max / 4);
	return out.substr(0, head) + " ... " + out.substr(tail);
}

// @s cut to at most @max bytes, at a character boundary, with "..." after
// it when it was longer: a whole line of input quoted in a message.
inline std::string excerpt(std::string_view s, size_t max = 60)
{
	if (s.size() <= max)
		return std::string(s);
	size_t end = max;
	while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xc0) == 0x80)
		end--;
	return std::string(s.substr(0, end)) + "...";
}

} // namespace efqsim
