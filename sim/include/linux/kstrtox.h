/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: kstrto*() with the kernel's rules: optional leading '+'
 * ('-' for signed types), base 0 autodetects 0x/0 prefixes, one trailing
 * newline is accepted, anything else is -EINVAL, out of range is -ERANGE.
 *
 * Kind: kernel behaviour (6.1's lib/kstrtox.c rules, in sim/shim/lib.cc; 6.12 the same)
 */
#ifndef _SIM_LINUX_KSTRTOX_H
#define _SIM_LINUX_KSTRTOX_H

#include <linux/compiler.h>
#include <linux/types.h>

SIM_BEGIN_DECLS
int __must_check kstrtoull(const char *s, unsigned int base, unsigned long long *res);
int __must_check kstrtoll(const char *s, unsigned int base, long long *res);
int __must_check kstrtoul(const char *s, unsigned int base, unsigned long *res);
int __must_check kstrtol(const char *s, unsigned int base, long *res);
int __must_check kstrtouint(const char *s, unsigned int base, unsigned int *res);
int __must_check kstrtoint(const char *s, unsigned int base, int *res);
int __must_check kstrtou16(const char *s, unsigned int base, u16 *res);
int __must_check kstrtos16(const char *s, unsigned int base, s16 *res);
int __must_check kstrtou8(const char *s, unsigned int base, u8 *res);
int __must_check kstrtos8(const char *s, unsigned int base, s8 *res);
int __must_check kstrtobool(const char *s, bool *res);
int __must_check kstrtoull_from_user(const char *s, size_t count, unsigned int base,
				     unsigned long long *res);
unsigned long long simple_strtoull(const char *cp, char **endp, unsigned int base);
unsigned long simple_strtoul(const char *cp, char **endp, unsigned int base);
long simple_strtol(const char *cp, char **endp, unsigned int base);
long long simple_strtoll(const char *cp, char **endp, unsigned int base);
SIM_END_DECLS

static inline int __must_check kstrtou64(const char *s, unsigned int base, u64 *res)
{
	return kstrtoull(s, base, res);
}

static inline int __must_check kstrtos64(const char *s, unsigned int base, s64 *res)
{
	return kstrtoll(s, base, res);
}

static inline int __must_check kstrtou32(const char *s, unsigned int base, u32 *res)
{
	return kstrtouint(s, base, res);
}

static inline int __must_check kstrtos32(const char *s, unsigned int base, s32 *res)
{
	return kstrtoint(s, base, res);
}

#endif
