/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: WARN*() print "WARNING: file:line func()" (and the message)
 * to stderr, count the warning and return the condition, like the kernel.
 * The *_ONCE variants print once per site between two sim_warn_reset()
 * calls but count every hit, so each test sees its own warnings.
 * BUG()/BUG_ON() print and abort().
 *
 * Kind: kernel behaviour (WARN*() return the condition, BUG() stops; 6.1 = 6.12)
 * Exceptions: every WARN is counted for the tests, and *_ONCE is once per test (sim_warn_reset())
 */
#ifndef _SIM_LINUX_BUG_H
#define _SIM_LINUX_BUG_H

#include <linux/compiler.h>
#include <linux/build_bug.h>

SIM_BEGIN_DECLS
void sim_warn(const char *file, int line, const char *func, unsigned long *once,
	      const char *fmt, ...) __printf(5, 6) __cold;
void sim_bug(const char *file, int line, const char *func) __noreturn __cold;
SIM_END_DECLS

#define __sim_warn_on(cond, once, ...) ({                                   \
	int __ret_warn_on = !!(cond);                                       \
	if (unlikely(__ret_warn_on))                                        \
		sim_warn(__FILE__, __LINE__, __func__, once, __VA_ARGS__);  \
	unlikely(__ret_warn_on); })

#define __sim_warn_once(cond, ...) ({                                       \
	static unsigned long __sim_warn_site;                               \
	__sim_warn_on(cond, &__sim_warn_site, __VA_ARGS__); })

#define WARN_ON(condition) __sim_warn_on(condition, NULL, "%s", "WARN_ON(" #condition ")")
#define WARN_ON_ONCE(condition) __sim_warn_once(condition, "%s", "WARN_ON_ONCE(" #condition ")")
#define WARN(condition, ...) __sim_warn_on(condition, NULL, __VA_ARGS__)
#define WARN_ONCE(condition, ...) __sim_warn_once(condition, __VA_ARGS__)
#define WARN_TAINT(condition, taint, ...) WARN(condition, __VA_ARGS__)

#define BUG() sim_bug(__FILE__, __LINE__, __func__)
#define BUG_ON(condition) do { if (unlikely(condition)) BUG(); } while (0)

#endif
