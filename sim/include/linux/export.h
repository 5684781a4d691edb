/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: symbol exports are no-ops (everything links statically).
 *
 * Kind: stub (exports are no-ops: everything links statically)
 */
#ifndef _SIM_LINUX_EXPORT_H
#define _SIM_LINUX_EXPORT_H

extern int __sim_export_anchor;
#define EXPORT_SYMBOL(sym) extern int __sim_export_anchor
#define EXPORT_SYMBOL_GPL(sym) extern int __sim_export_anchor
#define EXPORT_SYMBOL_NS(sym, ns) extern int __sim_export_anchor
#define EXPORT_SYMBOL_NS_GPL(sym, ns) extern int __sim_export_anchor

#endif
