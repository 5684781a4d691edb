/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: compile-time assertions.
 *
 * Kind: stub (compile-time assertions, checked by the compiler)
 */
#ifndef _SIM_LINUX_BUILD_BUG_H
#define _SIM_LINUX_BUILD_BUG_H

#ifdef __cplusplus
#define __sim_static_assert(c, msg) static_assert(c, msg)
#else
#define __sim_static_assert(c, msg) _Static_assert(c, msg)
#endif

#define BUILD_BUG_ON_MSG(cond, msg) \
	do { __sim_static_assert(!(cond), msg); } while (0)
#define BUILD_BUG_ON(cond) BUILD_BUG_ON_MSG(cond, "BUILD_BUG_ON failed: " #cond)
#define BUILD_BUG() BUILD_BUG_ON(1)
#define BUILD_BUG_ON_ZERO(e) ((int)(sizeof(struct { int : (-!!(e)); })))
#ifndef __cplusplus
#undef static_assert
#define static_assert(expr, ...) _Static_assert(expr, "" __VA_ARGS__)
#endif

#endif
