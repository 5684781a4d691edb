/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: force-included into every engine translation unit
 * (-include sim/include/linux/kconfig.h), as the kernel force-includes its
 * kconfig.h and compiler_types.h.  Describes the configuration of the
 * simulated kernel: a 64-bit x86 Debian 12 (6.1) kernel with cgroups and
 * blkcg.  Of efq's own options, the debug ones are on
 * (CONFIG_DEBUG_GROUP_IOSCHED: the io.efq.disk_queue/disk_dequeue files),
 * as in the out-of-tree module build (kernel/Kbuild).
 *
 * Kind: simulation (the simulated kernel's configuration)
 * Exceptions: IS_ENABLED() and friends behave as the kernel's
 */
#ifndef _SIM_LINUX_KCONFIG_H
#define _SIM_LINUX_KCONFIG_H

#define CONFIG_64BIT 1
#define CONFIG_X86_64 1
#define CONFIG_SMP 1
#define CONFIG_HZ 250
#define CONFIG_CGROUPS 1
#define CONFIG_BLK_CGROUP 1
#define CONFIG_BLK_CGROUP_IOCOST 1
#define CONFIG_BLK_DEV_IO_TRACE 1
#define CONFIG_BLK_DEBUG_FS 1
#define CONFIG_NR_CPUS 1
#define CONFIG_GROUP_IOSCHED 1
#define CONFIG_DEBUG_GROUP_IOSCHED 1
/* Every scheduler starts hierarchical (block/Kconfig.iosched: *_HIER). */
#define CONFIG_IOSCHED_CFQ_HIER 1
#define CONFIG_IOSCHED_DEADLINE_FQ_HIER 1
#define CONFIG_IOSCHED_AS_HIER 1
#define CONFIG_IOSCHED_NOOP_HIER 1

/*
 * IS_ENABLED(CONFIG_FOO) is 1 when CONFIG_FOO or CONFIG_FOO_MODULE is
 * defined to 1, else 0.  Usable in #if and in C expressions.
 */
#define __sim_cfg_probe_1 __sim_cfg_hit,
#define __sim_cfg_second(a, b, ...) b
#define __sim_cfg_pick(...) __sim_cfg_second(__VA_ARGS__)
#define __sim_cfg_test(tok) __sim_cfg_pick(tok 1, 0, 0)
#define __sim_cfg_paste(val) __sim_cfg_test(__sim_cfg_probe_##val)
#define __sim_cfg_is_set(val) __sim_cfg_paste(val)

#define IS_BUILTIN(option) __sim_cfg_is_set(option)
#define IS_MODULE(option) __sim_cfg_is_set(option##_MODULE)
#define IS_ENABLED(option) (IS_BUILTIN(option) || IS_MODULE(option))
#define IS_REACHABLE(option) IS_ENABLED(option)

#include <linux/compiler_types.h>

#endif
