/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: section annotations are meaningless in userspace.
 *
 * Kind: stub (section annotations)
 */
#ifndef _SIM_LINUX_INIT_H
#define _SIM_LINUX_INIT_H

#include <linux/compiler.h>

#define __init
#define __exit
#define __initdata
#define __exitdata
#define __initconst
#define __init_or_module
#define __exit_p(x) x

#endif
