/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: string helpers; the libc ones plus the kernel's extras.
 *
 * Kind: kernel behaviour (6.1's lib/string.c extras: strscpy(), strim(), sysfs_streq(), ...)
 */
#ifndef _SIM_LINUX_STRING_H
#define _SIM_LINUX_STRING_H

#include <string.h>
#include <linux/types.h>
#include <linux/compiler.h>

SIM_BEGIN_DECLS
ssize_t strscpy(char *dst, const char *src, size_t count);
char *strim(char *s);
char *skip_spaces(const char *str);
bool sysfs_streq(const char *s1, const char *s2);
int match_string(const char *const *array, size_t n, const char *string);
char *kstrdup(const char *s, gfp_t gfp);
char *kstrndup(const char *s, size_t max, gfp_t gfp);
void *kmemdup(const void *src, size_t len, gfp_t gfp);
SIM_END_DECLS

static inline char *strstrip(char *str)
{
	return strim(str);
}

#endif
