/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: the annotations the kernel's compiler_types.h provides.
 * Sparse address-space and locking annotations expand to nothing here.
 *
 * Kind: stub (sparse and section annotations expand to nothing)
 */
#ifndef _SIM_LINUX_COMPILER_TYPES_H
#define _SIM_LINUX_COMPILER_TYPES_H

#include <linux/compiler_attributes.h>

#define __user
#define __kernel
#define __iomem
#define __percpu
#define __rcu
#define __force
#define __safe
#define __nocast
#define __private
#define ACCESS_PRIVATE(p, member) ((p)->member)
#ifndef __bitwise
#define __bitwise
#endif
#define __must_hold(x)
#define __acquires(x)
#define __releases(x)
#define __acquire(x) ((void)0)
#define __release(x) ((void)0)
#define __cond_lock(x, c) (c)

#define notrace
#define __randomize_layout
#define __no_randomize_layout
#define __latent_entropy
#define __read_mostly
#define __ro_after_init
#define ____cacheline_aligned __aligned(64)
#define ____cacheline_aligned_in_smp __aligned(64)
#define __cacheline_aligned __aligned(64)
#define __cacheline_aligned_in_smp __aligned(64)

/* C linkage for the shim's out-of-line functions (implemented in C++). */
#ifdef __cplusplus
#define SIM_BEGIN_DECLS extern "C" {
#define SIM_END_DECLS }
#else
#define SIM_BEGIN_DECLS
#define SIM_END_DECLS
#endif

#ifndef __cplusplus
#define __same_type(a, b) __builtin_types_compatible_p(__typeof__(a), __typeof__(b))
#endif

#endif
