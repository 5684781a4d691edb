/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: module parameters keep their compiled-in defaults; the
 * macros only reference the variable so it is not reported as unused.
 *
 * Kind: stub (parameters keep their compiled-in defaults)
 */
#ifndef _SIM_LINUX_MODULEPARAM_H
#define _SIM_LINUX_MODULEPARAM_H

#include <linux/compiler.h>

#define module_param_named(name, value, type, perm) \
	static const void *__sim_param_##name __maybe_unused = &(value)
#define module_param(name, type, perm) module_param_named(name, name, type, perm)
#define MODULE_PARM_DESC(parm, desc) extern int __sim_modinfo_anchor

#endif
