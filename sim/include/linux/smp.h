/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: the simulated machine has a single CPU, number 0.
 *
 * Kind: simulation (the simulated machine has one CPU)
 */
#ifndef _SIM_LINUX_SMP_H
#define _SIM_LINUX_SMP_H

#include <linux/compiler.h>
#include <asm/barrier.h>

#define smp_processor_id() 0
#define raw_smp_processor_id() 0
#define get_cpu() ({ preempt_disable(); 0; })
#define put_cpu() preempt_enable()
#define nr_cpu_ids 1U
#define num_possible_cpus() 1U
#define num_online_cpus() 1U
#define for_each_possible_cpu(cpu) for ((cpu) = 0; (cpu) < 1; (cpu)++)
#define for_each_online_cpu(cpu) for_each_possible_cpu(cpu)

#include <linux/preempt.h>

#endif
