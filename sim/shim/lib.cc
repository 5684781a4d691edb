// SPDX-License-Identifier: GPL-2.0
// efqsim: string helpers and kstrto*() with the kernel's parsing rules.
//
// Kind: kernel behaviour (6.1's lib/kstrtox.c, lib/string.c and scnprintf(); 6.12 the same)

#include <cctype>
#include <cerrno>
#include <climits>
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "internal.h"

extern "C" {
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/kstrtox.h>
}

namespace {

int digit_value(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)std::tolower((unsigned char)c);
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 10;
	return 99;
}

// Resolve base 0 and skip a "0x" prefix for base 16.
const char *fix_radix(const char *s, unsigned int *base)
{
	if (*base == 0) {
		if (s[0] == '0') {
			if (std::tolower((unsigned char)s[1]) == 'x' &&
			    std::isxdigit((unsigned char)s[2]))
				*base = 16;
			else
				*base = 8;
		} else {
			*base = 10;
		}
	}
	if (*base == 16 && s[0] == '0' && std::tolower((unsigned char)s[1]) == 'x')
		s += 2;
	return s;
}

// Parse digits of @base at @s: the number of characters used (0: none),
// with *overflow set when the value does not fit in 64 bits.
size_t parse_digits(const char *s, unsigned int base, unsigned long long *res, bool *overflow)
{
	unsigned long long v = 0;
	size_t n = 0;
	*overflow = false;
	for (; s[n]; n++) {
		int d = digit_value(s[n]);
		if (d >= (int)base)
			break;
		if (__builtin_mul_overflow(v, base, &v) ||
		    __builtin_add_overflow(v, (unsigned)d, &v))
			*overflow = true;
	}
	*res = v;
	return n;
}

int parse_ull(const char *s, unsigned int base, unsigned long long *res)
{
	unsigned long long v;
	bool overflow;

	s = fix_radix(s, &base);
	size_t n = parse_digits(s, base, &v, &overflow);
	if (n == 0)
		return -EINVAL;
	if (overflow)
		return -ERANGE;
	s += n;
	if (*s == '\n')
		s++;
	if (*s)
		return -EINVAL;
	*res = v;
	return 0;
}

} // namespace

extern "C" {

int kstrtoull(const char *s, unsigned int base, unsigned long long *res)
{
	if (s[0] == '+')
		s++;
	return parse_ull(s, base, res);
}

int kstrtoll(const char *s, unsigned int base, long long *res)
{
	unsigned long long v;
	int ret;

	if (s[0] == '-') {
		ret = parse_ull(s + 1, base, &v);
		if (ret)
			return ret;
		if (v > (unsigned long long)LLONG_MAX + 1)
			return -ERANGE;
		*res = (long long)(0ULL - v);
		return 0;
	}
	ret = kstrtoull(s, base, &v);
	if (ret)
		return ret;
	if (v > (unsigned long long)LLONG_MAX)
		return -ERANGE;
	*res = (long long)v;
	return 0;
}

int kstrtoul(const char *s, unsigned int base, unsigned long *res)
{
	unsigned long long v;
	int ret = kstrtoull(s, base, &v);
	if (!ret)
		*res = (unsigned long)v;
	return ret;
}

int kstrtol(const char *s, unsigned int base, long *res)
{
	long long v;
	int ret = kstrtoll(s, base, &v);
	if (!ret)
		*res = (long)v;
	return ret;
}

#define SIM_KSTRTO_UNSIGNED(name, type, maxv)                 \
	int name(const char *s, unsigned int base, type *res) \
	{                                                     \
		unsigned long long v;                         \
		int ret = kstrtoull(s, base, &v);             \
		if (ret)                                      \
			return ret;                           \
		if (v > (maxv))                               \
			return -ERANGE;                       \
		*res = (type)v;                               \
		return 0;                                     \
	}

#define SIM_KSTRTO_SIGNED(name, type, minv, maxv)             \
	int name(const char *s, unsigned int base, type *res) \
	{                                                     \
		long long v;                                  \
		int ret = kstrtoll(s, base, &v);              \
		if (ret)                                      \
			return ret;                           \
		if (v < (minv) || v > (maxv))                 \
			return -ERANGE;                       \
		*res = (type)v;                               \
		return 0;                                     \
	}

SIM_KSTRTO_UNSIGNED(kstrtouint, unsigned int, UINT_MAX)
SIM_KSTRTO_UNSIGNED(kstrtou16, u16, 0xffffULL)
SIM_KSTRTO_UNSIGNED(kstrtou8, u8, 0xffULL)
SIM_KSTRTO_SIGNED(kstrtoint, int, INT_MIN, INT_MAX)
SIM_KSTRTO_SIGNED(kstrtos16, s16, -32768LL, 32767LL)
SIM_KSTRTO_SIGNED(kstrtos8, s8, -128LL, 127LL)

int kstrtobool(const char *s, bool *res)
{
	if (!s)
		return -EINVAL;
	switch (s[0]) {
	case 'y':
	case 'Y':
	case 't':
	case 'T':
	case '1':
		*res = true;
		return 0;
	case 'n':
	case 'N':
	case 'f':
	case 'F':
	case '0':
		*res = false;
		return 0;
	case 'o':
	case 'O':
		switch (s[1]) {
		case 'n':
		case 'N':
			*res = true;
			return 0;
		case 'f':
		case 'F':
			*res = false;
			return 0;
		}
		break;
	}
	return -EINVAL;
}

int kstrtoull_from_user(const char *s, size_t count, unsigned int base, unsigned long long *res)
{
	char buf[24];
	count = count < sizeof(buf) - 1 ? count : sizeof(buf) - 1;
	std::memcpy(buf, s, count);
	buf[count] = '\0';
	return kstrtoull(buf, base, res);
}

unsigned long long simple_strtoull(const char *cp, char **endp, unsigned int base)
{
	unsigned long long v;
	bool overflow;
	const char *s = fix_radix(cp, &base);
	size_t n = parse_digits(s, base, &v, &overflow);
	if (endp)
		*endp = const_cast<char *>(n ? s + n : cp);
	return v;
}

unsigned long simple_strtoul(const char *cp, char **endp, unsigned int base)
{
	return (unsigned long)simple_strtoull(cp, endp, base);
}

long long simple_strtoll(const char *cp, char **endp, unsigned int base)
{
	if (*cp == '-')
		return -(long long)simple_strtoull(cp + 1, endp, base);
	return (long long)simple_strtoull(cp, endp, base);
}

long simple_strtol(const char *cp, char **endp, unsigned int base)
{
	return (long)simple_strtoll(cp, endp, base);
}

int vscnprintf(char *buf, size_t size, const char *fmt, va_list args)
{
	if (!size)
		return 0;
	int n = std::vsnprintf(buf, size, fmt, args);
	if (n < 0)
		return 0;
	return (size_t)n < size ? n : (int)(size - 1);
}

int scnprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vscnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

ssize_t strscpy(char *dst, const char *src, size_t count)
{
	if (!count)
		return -E2BIG;
	size_t len = strnlen(src, count);
	if (len == count) {
		std::memcpy(dst, src, count - 1);
		dst[count - 1] = '\0';
		return -E2BIG;
	}
	std::memcpy(dst, src, len + 1);
	return (ssize_t)len;
}

char *skip_spaces(const char *str)
{
	while (std::isspace((unsigned char)*str))
		str++;
	return const_cast<char *>(str);
}

char *strim(char *s)
{
	size_t size = std::strlen(s);
	if (!size)
		return s;
	char *end = s + size - 1;
	while (end >= s && std::isspace((unsigned char)*end))
		end--;
	end[1] = '\0';
	return skip_spaces(s);
}

bool sysfs_streq(const char *s1, const char *s2)
{
	while (*s1 && *s1 == *s2) {
		s1++;
		s2++;
	}
	if (*s1 == *s2)
		return true;
	if (!*s1 && *s2 == '\n' && !s2[1])
		return true;
	if (*s1 == '\n' && !s1[1] && !*s2)
		return true;
	return false;
}

int match_string(const char *const *array, size_t n, const char *string)
{
	for (size_t i = 0; i < n; i++) {
		if (!array[i])
			break;
		if (!std::strcmp(array[i], string))
			return (int)i;
	}
	return -EINVAL;
}

} // extern "C"
