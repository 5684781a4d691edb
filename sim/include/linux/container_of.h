/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: container_of (member type checked in C).
 *
 * Kind: kernel behaviour (container_of(), with the type check in C)
 */
#ifndef _SIM_LINUX_CONTAINER_OF_H
#define _SIM_LINUX_CONTAINER_OF_H

#include <stddef.h>
#include <linux/compiler_types.h>

#ifdef __cplusplus
#define container_of(ptr, type, member) \
	((type *)(void *)((char *)(ptr) - offsetof(type, member)))
#else
#define container_of(ptr, type, member) ({                                  \
	void *__sim_mptr = (void *)(ptr);                                   \
	_Static_assert(__same_type(*(ptr), ((type *)0)->member) ||          \
		       __same_type(*(ptr), void),                           \
		       "pointer type mismatch in container_of()");          \
	((type *)((char *)__sim_mptr - offsetof(type, member))); })
#endif

#define container_of_const(ptr, type, member) container_of(ptr, type, member)

#endif
