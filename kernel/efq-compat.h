/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efq-compat.h: what differs between the kernels efq builds for, force-
 * included into every efq source by kernel/Kbuild (-include), before the
 * source's own includes.
 *
 * block/ and include/ are written once, against thin wrappers named for
 * what they do (efq_insert_at_head(), efq_blkcg_activate(), ...); this
 * file picks the definitions for the kernel being built.  It is the only
 * place with a LINUX_VERSION_CODE check (no environment #if in block/ or
 * include/: scripts/check's one-source test).  Each branch lives in a header of its own, without
 * any #if, so that the patch series for a kernel tree (scripts/mkpatches)
 * can carry the one of its kernel, and efqsim's shims, which follow 6.1,
 * provide the same names with 6.1's meaning.
 *
 * Documentation/block/efq-kernel.rst ("6.1, 6.12 and 7.x: what differs") lists
 * every difference and why the wrappers do what they do.
 */
#ifndef _EFQ_COMPAT_H
#define _EFQ_COMPAT_H

#include <linux/version.h>

/*
 * Exactly these series (7.2's header serves 7.3 too): a kernel in between
 * (or after) has APIs of its own that no header describes, and would
 * build against the wrong wrappers or fail far from the cause.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(7, 2, 0) && \
	LINUX_VERSION_CODE < KERNEL_VERSION(7, 4, 0)
#include "efq-compat-7.2.h"
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0) && \
	LINUX_VERSION_CODE < KERNEL_VERSION(6, 13, 0)
#include "efq-compat-6.12.h"
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(6, 1, 0) && \
	LINUX_VERSION_CODE < KERNEL_VERSION(6, 2, 0)
#include "efq-compat-6.1.h"
#else
#error "efq builds for Linux 6.1.y, 6.12.y, 7.2.y and 7.3.y only"
#endif

#endif /* _EFQ_COMPAT_H */
