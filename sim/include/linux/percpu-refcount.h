/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: percpu_ref as one counter with the kernel's life cycle.
 * In "percpu" mode (the default) reaching zero is not noticed, as the
 * kernel cannot see it either; percpu_ref_kill() drops the initial
 * reference and switches to atomic mode after an RCU grace period (the
 * switch holds a reference until then: sim/shim/refcount.cc), where the
 * put that reaches zero calls ->release.  percpu_ref_init() allocates
 * (with the given gfp, so failure injection applies) and percpu_ref_exit()
 * frees that allocation, so a missing exit shows up as a leaked slab
 * object.
 *
 * Kind: kernel behaviour (6.1's lib/percpu-refcount.c life cycle; 6.12 the same)
 * Exceptions: resurrect/reinit warn less than 6.1's (unused by block/)
 */
#ifndef _SIM_LINUX_PERCPU_REFCOUNT_H
#define _SIM_LINUX_PERCPU_REFCOUNT_H

#include <linux/types.h>
#include <linux/gfp.h>
#include <linux/bug.h>

struct percpu_ref;
typedef void (percpu_ref_func_t)(struct percpu_ref *);

enum {
	PERCPU_REF_INIT_ATOMIC = 1 << 0,
	PERCPU_REF_INIT_DEAD = 1 << 1,
	PERCPU_REF_ALLOW_REINIT = 1 << 2,
};

struct percpu_ref_data;

struct percpu_ref {
	long count;
	bool atomic_mode;
	bool dead;
	bool allow_reinit;
	percpu_ref_func_t *release;
	percpu_ref_func_t *confirm_switch;
	struct percpu_ref_data *data;	/* the allocation; NULL after exit */
};

SIM_BEGIN_DECLS
int __must_check percpu_ref_init(struct percpu_ref *ref, percpu_ref_func_t *release,
				 unsigned int flags, gfp_t gfp);
void percpu_ref_exit(struct percpu_ref *ref);
void percpu_ref_kill_and_confirm(struct percpu_ref *ref, percpu_ref_func_t *confirm_kill);
void percpu_ref_put_many(struct percpu_ref *ref, unsigned long nr);
void percpu_ref_reinit(struct percpu_ref *ref);
void percpu_ref_resurrect(struct percpu_ref *ref);
bool percpu_ref_is_zero(struct percpu_ref *ref);
SIM_END_DECLS

static inline void percpu_ref_kill(struct percpu_ref *ref)
{
	percpu_ref_kill_and_confirm(ref, NULL);
}

static inline void percpu_ref_get_many(struct percpu_ref *ref, unsigned long nr)
{
	ref->count += (long)nr;
}

static inline void percpu_ref_get(struct percpu_ref *ref)
{
	percpu_ref_get_many(ref, 1);
}

static inline bool percpu_ref_tryget_many(struct percpu_ref *ref, unsigned long nr)
{
	if (ref->atomic_mode && ref->count <= 0)
		return false;
	ref->count += (long)nr;
	return true;
}

static inline bool percpu_ref_tryget(struct percpu_ref *ref)
{
	return percpu_ref_tryget_many(ref, 1);
}

static inline bool percpu_ref_tryget_live(struct percpu_ref *ref)
{
	if (ref->dead)
		return false;
	return percpu_ref_tryget(ref);
}

static inline void percpu_ref_put(struct percpu_ref *ref)
{
	percpu_ref_put_many(ref, 1);
}

static inline bool percpu_ref_is_dying(struct percpu_ref *ref)
{
	return ref->dead;
}

static inline void percpu_ref_switch_to_atomic_sync(struct percpu_ref *ref)
{
	ref->atomic_mode = true;
}

static inline void percpu_ref_switch_to_percpu(struct percpu_ref *ref)
{
	if (!ref->dead)
		ref->atomic_mode = false;
}

#endif
