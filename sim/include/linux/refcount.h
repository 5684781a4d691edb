/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: refcount_t with the kernel's protections: incrementing from
 * zero, overflowing, underflowing and refcount_dec() reaching zero WARN and
 * saturate the counter (which then never reaches zero again).
 *
 * Kind: kernel behaviour (6.1's lib/refcount.c saturation and warnings; 6.12 the same)
 */
#ifndef _SIM_LINUX_REFCOUNT_H
#define _SIM_LINUX_REFCOUNT_H

#include <linux/types.h>
#include <linux/atomic.h>
#include <linux/limits.h>
#include <linux/bug.h>

typedef struct refcount_struct {
	atomic_t refs;
} refcount_t;

#define REFCOUNT_INIT(n) { .refs = ATOMIC_INIT(n), }
#define REFCOUNT_MAX INT_MAX
#define REFCOUNT_SATURATED (INT_MIN / 2)

static inline void refcount_set(refcount_t *r, int n)
{
	atomic_set(&r->refs, n);
}

static inline unsigned int refcount_read(const refcount_t *r)
{
	return (unsigned int)atomic_read(&r->refs);
}

static inline void __sim_refcount_saturate(refcount_t *r, const char *what)
{
	refcount_set(r, REFCOUNT_SATURATED);
	WARN_ONCE(1, "refcount_t: %s.\n", what);
}

static inline void refcount_add(int i, refcount_t *r)
{
	int old = atomic_fetch_add(i, &r->refs);

	if (unlikely(old == 0))
		__sim_refcount_saturate(r, "addition on 0; use-after-free");
	else if (unlikely(old < 0 || old + i < 0))
		__sim_refcount_saturate(r, "saturated; leaking memory");
}

static inline void refcount_inc(refcount_t *r)
{
	refcount_add(1, r);
}

static inline bool __must_check refcount_add_not_zero(int i, refcount_t *r)
{
	int old = atomic_read(&r->refs);

	if (old == 0)
		return false;
	if (unlikely(old < 0 || old + i < 0)) {
		__sim_refcount_saturate(r, "saturated; leaking memory");
		return true;
	}
	atomic_set(&r->refs, old + i);
	return true;
}

static inline bool __must_check refcount_inc_not_zero(refcount_t *r)
{
	return refcount_add_not_zero(1, r);
}

static inline bool __must_check refcount_sub_and_test(int i, refcount_t *r)
{
	int old = atomic_fetch_sub(i, &r->refs);

	if (old == i)
		return true;
	if (unlikely(old < 0 || old - i < 0))
		__sim_refcount_saturate(r, "underflow; use-after-free");
	return false;
}

static inline bool __must_check refcount_dec_and_test(refcount_t *r)
{
	return refcount_sub_and_test(1, r);
}

static inline void refcount_dec(refcount_t *r)
{
	if (unlikely(atomic_fetch_sub(1, &r->refs) <= 1))
		__sim_refcount_saturate(r, "decrement hit 0; leaking memory");
}

#endif
