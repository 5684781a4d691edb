/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: modules.  module_init()/module_exit() register their
 * functions (at program start, through a constructor) in link order;
 * sim_modules_init() / sim_modules_exit() (<sim/kernel.h>) run them, like
 * loading and unloading every module.  THIS_MODULE is NULL, as for
 * built-in code, and module reference counting always succeeds.
 *
 * Kind: simulation (loading: sim_modules_init() runs every module_init() in link order)
 * Exceptions: MODULE_*() stubs; module refs succeed (as built-in code's); request_module() fails
 */
#ifndef _SIM_LINUX_MODULE_H
#define _SIM_LINUX_MODULE_H

#include <linux/compiler.h>
#include <linux/types.h>
#include <linux/init.h>
#include <linux/export.h>
#include <linux/moduleparam.h>
#include <linux/kernel.h>

struct module;
#define THIS_MODULE ((struct module *)0)
#define MODULE_NAME_LEN 56

typedef int (*initcall_t)(void);
typedef void (*exitcall_t)(void);

SIM_BEGIN_DECLS
void sim_module_register_init(initcall_t fn, const char *name, const char *file);
void sim_module_register_exit(exitcall_t fn, const char *name, const char *file);
int __request_module(bool wait, const char *fmt, ...) __printf(2, 3);
SIM_END_DECLS

#define module_init(initfn)                                                   \
	static void __attribute__((constructor)) __sim_modinit_##initfn(void)  \
	{                                                                     \
		sim_module_register_init(initfn, #initfn, __FILE__);          \
	}
#define module_exit(exitfn)                                                   \
	static void __attribute__((constructor)) __sim_modexit_##exitfn(void)  \
	{                                                                     \
		sim_module_register_exit(exitfn, #exitfn, __FILE__);          \
	}

extern int __sim_modinfo_anchor;
#define MODULE_LICENSE(s) extern int __sim_modinfo_anchor
#define MODULE_AUTHOR(s) extern int __sim_modinfo_anchor
#define MODULE_DESCRIPTION(s) extern int __sim_modinfo_anchor
#define MODULE_ALIAS(s) extern int __sim_modinfo_anchor
#define MODULE_VERSION(s) extern int __sim_modinfo_anchor
#define MODULE_SOFTDEP(s) extern int __sim_modinfo_anchor
#define MODULE_IMPORT_NS(ns) extern int __sim_modinfo_anchor

static inline bool try_module_get(struct module *module __always_unused)
{
	return true;
}

static inline void module_put(struct module *module __always_unused)
{
}

static inline void __module_get(struct module *module __always_unused)
{
}

#define request_module(...) __request_module(true, __VA_ARGS__)
#define request_module_nowait(...) __request_module(false, __VA_ARGS__)

#endif
