// SPDX-License-Identifier: GPL-2.0
// efqsim: declarations shared by the shim's implementation files only.
//
// Kind: simulation
#pragma once

#include <cstdarg>
#include <string>

extern "C" {
#include <linux/types.h>
#include <linux/lockdep_types.h>
}

struct request;

namespace sim {

// printf into a std::string.
std::string vformat(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
std::string format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

// Report a lock error (counted, and counted as a WARN).
void lock_error(const char *file, int line, const std::string &msg);
// Report a WARN from shim code.
void warn(const char *file, int line, const std::string &msg);

// True (after reporting a lock error naming @what) unless the caller runs in
// task context with no spinlock held, interrupts and bottom halves enabled
// and no RCU read lock: the only state in which the sim may run timers and
// deferred work.
bool require_top_level(const char *what);

// Run queued RCU callbacks and work items until none is left.
void run_deferred();

// WARN about (and disarm) armed timers inside [p, p + size): memory being
// freed, as the kernel's debugobjects do.
void check_timers_freed(const void *p, size_t size);

// WARN unless @rq, on a scheduler's sort tree, sits between its neighbours
// by start sector: what a front merge must restore (the scheduler's
// request_merged re-sorts the request).  Nothing for a request on no tree.
void check_rq_sorted(struct request *rq, const char *where);

void clock_reset();
void slab_reset();
void work_reset();
void rcu_reset();

} // namespace sim
