/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: overflow-checked arithmetic (compiler builtins).
 *
 * Kind: kernel behaviour (check_*_overflow())
 * Exceptions: struct_size()/array_size() do not saturate as the kernel's do (unused by block/)
 */
#ifndef _SIM_LINUX_OVERFLOW_H
#define _SIM_LINUX_OVERFLOW_H

#define check_add_overflow(a, b, d) __builtin_add_overflow(a, b, d)
#define check_sub_overflow(a, b, d) __builtin_sub_overflow(a, b, d)
#define check_mul_overflow(a, b, d) __builtin_mul_overflow(a, b, d)
#define struct_size(p, member, count) \
	(sizeof(*(p)) + sizeof(*(p)->member) * (size_t)(count))
#define array_size(a, b) ((size_t)(a) * (size_t)(b))

#endif
