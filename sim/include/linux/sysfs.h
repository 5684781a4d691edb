/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: sysfs attribute descriptions (no files).
 *
 * Kind: kernel behaviour (sysfs_emit() and __ATTR())
 * Exceptions: no sysfs files: the sim calls show/store itself (sim_elv_attr_show())
 */
#ifndef _SIM_LINUX_SYSFS_H
#define _SIM_LINUX_SYSFS_H

#include <linux/types.h>
#include <linux/stringify.h>

#ifndef PAGE_SIZE
#define PAGE_SIZE 4096UL
#endif

struct attribute {
	const char *name;
	umode_t mode;
};

#define __ATTR(_name, _mode, _show, _store) {                           \
	.attr = { .name = __stringify(_name), .mode = (_mode) },       \
	.show = _show,                                                  \
	.store = _store,                                                \
}
#define __ATTR_NULL { .attr = { .name = NULL, .mode = 0 }, .show = NULL, .store = NULL }


SIM_BEGIN_DECLS
int sysfs_emit(char *buf, const char *fmt, ...) __printf(2, 3);
int sysfs_emit_at(char *buf, int at, const char *fmt, ...) __printf(3, 4);
SIM_END_DECLS

#endif
