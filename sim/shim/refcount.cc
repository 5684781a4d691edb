// SPDX-License-Identifier: GPL-2.0
// efqsim: percpu_ref.  Killing a ref switches it to atomic mode after an
// RCU grace period, as in the kernel: the switch holds a reference of its
// own, so ->release runs from the RCU callback (softirq) or from the last
// put after it, never inside percpu_ref_kill().
//
// Kind: kernel behaviour (6.1's lib/percpu-refcount.c: kill, switch after a grace period)

#include "internal.h"

extern "C" {
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/rcupdate.h>
#include <linux/percpu-refcount.h>
}

struct percpu_ref_data {
	struct rcu_head rcu;
	struct percpu_ref *ref;
	bool switching;
};

namespace {

void switch_to_atomic_rcu(struct rcu_head *rcu)
{
	percpu_ref_data *data = container_of(rcu, percpu_ref_data, rcu);
	percpu_ref *ref = data->ref;

	data->switching = false;
	ref->atomic_mode = true;
	if (ref->confirm_switch) {
		percpu_ref_func_t *confirm = ref->confirm_switch;
		ref->confirm_switch = nullptr;
		confirm(ref);
	}
	WARN_ONCE(ref->count <= 0, "percpu ref (%p) <= 0 (%ld) after switching to atomic",
		  (void *)ref->release, ref->count);
	percpu_ref_put(ref); // the switch's own reference
}

} // namespace

extern "C" {

int percpu_ref_init(struct percpu_ref *ref, percpu_ref_func_t *release, unsigned int flags,
		    gfp_t gfp)
{
	auto *data = static_cast<percpu_ref_data *>(kzalloc(sizeof(percpu_ref_data), gfp));
	if (!data)
		return -ENOMEM;
	data->ref = ref;
	ref->data = data;
	ref->release = release;
	ref->confirm_switch = nullptr;
	ref->allow_reinit = flags & PERCPU_REF_ALLOW_REINIT;
	ref->dead = flags & PERCPU_REF_INIT_DEAD;
	ref->atomic_mode = (flags & (PERCPU_REF_INIT_ATOMIC | PERCPU_REF_INIT_DEAD)) != 0;
	ref->count = ref->dead ? 0 : 1;
	return 0;
}

void percpu_ref_exit(struct percpu_ref *ref)
{
	if (!ref->data)
		return;
	WARN_ONCE(ref->data->switching, "percpu_ref_exit() while switching to atomic mode");
	kfree(ref->data);
	ref->data = nullptr;
}

void percpu_ref_kill_and_confirm(struct percpu_ref *ref, percpu_ref_func_t *confirm_kill)
{
	if (WARN_ONCE(ref->dead, "%s called more than once on %p!", __func__, (void *)ref->release))
		return;
	ref->dead = true;
	ref->confirm_switch = confirm_kill;
	if (ref->data && !ref->atomic_mode) {
		ref->count++; // held by the switch until the grace period ends
		ref->data->switching = true;
		call_rcu(&ref->data->rcu, switch_to_atomic_rcu);
	} else if (confirm_kill) {
		ref->confirm_switch = nullptr;
		confirm_kill(ref);
	}
	percpu_ref_put(ref); // the initial reference
}

void percpu_ref_put_many(struct percpu_ref *ref, unsigned long nr)
{
	ref->count -= (long)nr;
	if (ref->count < 0)
		WARN_ONCE(ref->atomic_mode, "percpu ref (%p) <= 0 (%ld) after put",
			  (void *)ref->release, ref->count);
	else if (ref->count == 0 && ref->atomic_mode && ref->release)
		ref->release(ref);
}

bool percpu_ref_is_zero(struct percpu_ref *ref)
{
	return ref->atomic_mode && ref->count == 0;
}

void percpu_ref_resurrect(struct percpu_ref *ref)
{
	WARN_ON_ONCE(!ref->dead);
	WARN_ON_ONCE(!percpu_ref_is_zero(ref) && !ref->allow_reinit);
	ref->dead = false;
	ref->count++;
	ref->atomic_mode = false;
}

void percpu_ref_reinit(struct percpu_ref *ref)
{
	WARN_ON_ONCE(!percpu_ref_is_zero(ref));
	percpu_ref_resurrect(ref);
}

} // extern "C"
