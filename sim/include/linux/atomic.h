/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: atomics.  The sim is single-threaded, so these are plain
 * operations on the counter with the kernel's return conventions.
 *
 * Kind: kernel behaviour (the kernel's atomic_t return conventions, on one thread)
 */
#ifndef _SIM_LINUX_ATOMIC_H
#define _SIM_LINUX_ATOMIC_H

#include <linux/types.h>
#include <linux/compiler.h>
#include <asm/barrier.h>

/* xchg(): store @v in *@p, return the old value (a full barrier in the kernel) */
#define xchg(p, v) __atomic_exchange_n((p), (v), __ATOMIC_SEQ_CST)

#define ATOMIC_INIT(i) { (i) }
#define ATOMIC64_INIT(i) { (i) }
#define ATOMIC_LONG_INIT(i) ATOMIC64_INIT(i)

#define __SIM_ATOMIC_OPS(pfx, atype, ctype)                                         \
static inline ctype pfx##_read(const atype *v) { return READ_ONCE(v->counter); }   \
static inline void pfx##_set(atype *v, ctype i) { WRITE_ONCE(v->counter, i); }     \
static inline void pfx##_add(ctype i, atype *v) { v->counter += i; }               \
static inline void pfx##_sub(ctype i, atype *v) { v->counter -= i; }               \
static inline void pfx##_inc(atype *v) { v->counter++; }                           \
static inline void pfx##_dec(atype *v) { v->counter--; }                           \
static inline ctype pfx##_add_return(ctype i, atype *v) { return v->counter += i; } \
static inline ctype pfx##_sub_return(ctype i, atype *v) { return v->counter -= i; } \
static inline ctype pfx##_inc_return(atype *v) { return ++v->counter; }            \
static inline ctype pfx##_dec_return(atype *v) { return --v->counter; }            \
static inline ctype pfx##_fetch_add(ctype i, atype *v)                             \
{ ctype old = v->counter; v->counter += i; return old; }                            \
static inline ctype pfx##_fetch_sub(ctype i, atype *v)                             \
{ ctype old = v->counter; v->counter -= i; return old; }                            \
static inline bool pfx##_dec_and_test(atype *v) { return --v->counter == 0; }      \
static inline bool pfx##_inc_and_test(atype *v) { return ++v->counter == 0; }      \
static inline bool pfx##_sub_and_test(ctype i, atype *v) { return (v->counter -= i) == 0; } \
static inline ctype pfx##_xchg(atype *v, ctype i) { ctype old = v->counter; v->counter = i; return old; } \
static inline ctype pfx##_cmpxchg(atype *v, ctype old, ctype repl)                 \
{ ctype cur = v->counter; if (cur == old) v->counter = repl; return cur; }          \
static inline bool pfx##_try_cmpxchg(atype *v, ctype *old, ctype repl)             \
{ if (v->counter == *old) { v->counter = repl; return true; }                        \
  *old = v->counter; return false; }                                                \
static inline bool pfx##_add_unless(atype *v, ctype a, ctype u)                    \
{ if (v->counter == u) return false; v->counter += a; return true; }                \
static inline bool pfx##_inc_not_zero(atype *v) { return pfx##_add_unless(v, 1, 0); }

__SIM_ATOMIC_OPS(atomic, atomic_t, int)
__SIM_ATOMIC_OPS(atomic64, atomic64_t, s64)

static inline long atomic_long_read(const atomic_long_t *v) { return (long)atomic64_read(v); }
static inline void atomic_long_set(atomic_long_t *v, long i) { atomic64_set(v, i); }
static inline void atomic_long_add(long i, atomic_long_t *v) { atomic64_add(i, v); }
static inline void atomic_long_sub(long i, atomic_long_t *v) { atomic64_sub(i, v); }
static inline void atomic_long_inc(atomic_long_t *v) { atomic64_inc(v); }
static inline void atomic_long_dec(atomic_long_t *v) { atomic64_dec(v); }
static inline long atomic_long_add_return(long i, atomic_long_t *v) { return (long)atomic64_add_return(i, v); }
static inline long atomic_long_sub_return(long i, atomic_long_t *v) { return (long)atomic64_sub_return(i, v); }
static inline long atomic_long_inc_return(atomic_long_t *v) { return (long)atomic64_inc_return(v); }
static inline long atomic_long_dec_return(atomic_long_t *v) { return (long)atomic64_dec_return(v); }
static inline bool atomic_long_dec_and_test(atomic_long_t *v) { return atomic64_dec_and_test(v); }
static inline bool atomic_long_inc_not_zero(atomic_long_t *v) { return atomic64_inc_not_zero(v); }

#endif
