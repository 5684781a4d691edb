/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: blk_add_trace_msg() hands the formatted message to the
 * sim's trace hook (<sim/blk.h>), or prints it at KERN_DEBUG.  Nothing is
 * formatted when neither would see it.
 *
 * Kind: simulation (blk_add_trace_msg() goes to the sim's trace hook or printk)
 */
#ifndef _SIM_LINUX_BLKTRACE_API_H
#define _SIM_LINUX_BLKTRACE_API_H

#include <linux/types.h>
#include <linux/compiler.h>

struct request_queue;

SIM_BEGIN_DECLS
bool sim_blktrace_enabled(struct request_queue *q);
void sim_blktrace_msg(struct request_queue *q, const char *fmt, ...) __printf(2, 3);
SIM_END_DECLS

#define blk_add_trace_msg(q, fmt, ...) do {                     \
	struct request_queue *__sim_tq = (q);                   \
	if (sim_blktrace_enabled(__sim_tq))                     \
		sim_blktrace_msg(__sim_tq, fmt, ##__VA_ARGS__); \
} while (0)
#define blk_add_cgroup_trace_msg(q, css, fmt, ...) blk_add_trace_msg(q, fmt, ##__VA_ARGS__)

#endif
