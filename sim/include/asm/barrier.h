/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: memory barriers.  The sim runs on one thread, so the SMP
 * barriers only need to stop the compiler from reordering.
 *
 * Kind: stub (one thread: the barriers only stop compiler reordering)
 */
#ifndef _SIM_ASM_BARRIER_H
#define _SIM_ASM_BARRIER_H

#define mb() __sync_synchronize()
#define rmb() __sync_synchronize()
#define wmb() __sync_synchronize()
#define smp_mb() __asm__ __volatile__("" : : : "memory")
#define smp_rmb() __asm__ __volatile__("" : : : "memory")
#define smp_wmb() __asm__ __volatile__("" : : : "memory")
#define smp_mb__before_atomic() smp_mb()
#define smp_mb__after_atomic() smp_mb()
#define smp_store_mb(var, value) do { WRITE_ONCE(var, value); smp_mb(); } while (0)
#define smp_store_release(p, v) do { smp_mb(); WRITE_ONCE(*(p), v); } while (0)
#define smp_load_acquire(p) ({ __typeof__(*(p)) __sim_v = READ_ONCE(*(p)); smp_mb(); __sim_v; })

#endif
