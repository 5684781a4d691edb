/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: printk goes to stderr, prefixed with the simulated time.
 * A message is printed when its level is below sim_printk_level (default
 * 5: emergencies to warnings); pr_debug() is KERN_DEBUG and so silent by
 * default.  See <sim/kernel.h> for the controls.
 *
 * Kind: kernel behaviour (log levels; 6.1's lib/ratelimit.c for *_ratelimited; 6.12 the same)
 * Exceptions: output to stderr with the simulated time; printk_ratelimit() is always 1 (unused)
 */
#ifndef _SIM_LINUX_PRINTK_H
#define _SIM_LINUX_PRINTK_H

#include <stdarg.h>
#include <linux/compiler.h>

#define KERN_SOH "\001"
#define KERN_SOH_ASCII '\001'
#define KERN_EMERG KERN_SOH "0"
#define KERN_ALERT KERN_SOH "1"
#define KERN_CRIT KERN_SOH "2"
#define KERN_ERR KERN_SOH "3"
#define KERN_WARNING KERN_SOH "4"
#define KERN_NOTICE KERN_SOH "5"
#define KERN_INFO KERN_SOH "6"
#define KERN_DEBUG KERN_SOH "7"
#define KERN_DEFAULT ""
#define KERN_CONT KERN_SOH "c"

#define LOGLEVEL_EMERG 0
#define LOGLEVEL_ALERT 1
#define LOGLEVEL_CRIT 2
#define LOGLEVEL_ERR 3
#define LOGLEVEL_WARNING 4
#define LOGLEVEL_NOTICE 5
#define LOGLEVEL_INFO 6
#define LOGLEVEL_DEBUG 7

SIM_BEGIN_DECLS
int printk(const char *fmt, ...) __printf(1, 2) __cold;
int vprintk(const char *fmt, va_list args) __printf(1, 0);
SIM_END_DECLS

#ifndef pr_fmt
#define pr_fmt(fmt) fmt
#endif

#define no_printk(fmt, ...) ({ if (0) printk(fmt, ##__VA_ARGS__); 0; })

#define pr_emerg(fmt, ...) printk(KERN_EMERG pr_fmt(fmt), ##__VA_ARGS__)
#define pr_alert(fmt, ...) printk(KERN_ALERT pr_fmt(fmt), ##__VA_ARGS__)
#define pr_crit(fmt, ...) printk(KERN_CRIT pr_fmt(fmt), ##__VA_ARGS__)
#define pr_err(fmt, ...) printk(KERN_ERR pr_fmt(fmt), ##__VA_ARGS__)
#define pr_warn(fmt, ...) printk(KERN_WARNING pr_fmt(fmt), ##__VA_ARGS__)
#define pr_warning pr_warn
#define pr_notice(fmt, ...) printk(KERN_NOTICE pr_fmt(fmt), ##__VA_ARGS__)
#define pr_info(fmt, ...) printk(KERN_INFO pr_fmt(fmt), ##__VA_ARGS__)
#define pr_cont(fmt, ...) printk(KERN_CONT fmt, ##__VA_ARGS__)
#define pr_debug(fmt, ...) printk(KERN_DEBUG pr_fmt(fmt), ##__VA_ARGS__)
#define pr_devel(fmt, ...) no_printk(KERN_DEBUG pr_fmt(fmt), ##__VA_ARGS__)

#define printk_once(fmt, ...) ({                        \
	static bool __sim_printed;                      \
	bool __sim_first = !__sim_printed;              \
	if (__sim_first) {                              \
		__sim_printed = true;                   \
		printk(fmt, ##__VA_ARGS__);             \
	}                                               \
	__sim_first; })
#define pr_err_once(fmt, ...) printk_once(KERN_ERR pr_fmt(fmt), ##__VA_ARGS__)
#define pr_warn_once(fmt, ...) printk_once(KERN_WARNING pr_fmt(fmt), ##__VA_ARGS__)
#define pr_info_once(fmt, ...) printk_once(KERN_INFO pr_fmt(fmt), ##__VA_ARGS__)
/*
 * The *_ratelimited variants limit as the kernel's DEFAULT_RATELIMIT_STATE
 * does: per call site, at most 10 messages in 5 s (of jiffies), then a
 * "callbacks suppressed" line when the next interval prints again.  The
 * state starts afresh at every sim_warn_reset().
 */
struct sim_ratelimit {
	unsigned long generation;
	unsigned long begin;
	int printed;
	int missed;
};

SIM_BEGIN_DECLS
int sim_ratelimit(struct sim_ratelimit *rs, const char *func);
SIM_END_DECLS

#define __sim_printk_ratelimited(fmt, ...) ({                   \
	static struct sim_ratelimit __sim_rs;                   \
	if (sim_ratelimit(&__sim_rs, __func__))                 \
		printk(fmt, ##__VA_ARGS__);                     \
})
#define pr_err_ratelimited(fmt, ...) \
	__sim_printk_ratelimited(KERN_ERR pr_fmt(fmt), ##__VA_ARGS__)
#define pr_warn_ratelimited(fmt, ...) \
	__sim_printk_ratelimited(KERN_WARNING pr_fmt(fmt), ##__VA_ARGS__)
#define pr_info_ratelimited(fmt, ...) \
	__sim_printk_ratelimited(KERN_INFO pr_fmt(fmt), ##__VA_ARGS__)
#define pr_debug_ratelimited(fmt, ...) \
	__sim_printk_ratelimited(KERN_DEBUG pr_fmt(fmt), ##__VA_ARGS__)
#define printk_ratelimit() 1

#endif
