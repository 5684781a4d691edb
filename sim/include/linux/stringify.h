/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: __stringify().
 *
 * Kind: stub (a preprocessor helper)
 */
#ifndef _SIM_LINUX_STRINGIFY_H
#define _SIM_LINUX_STRINGIFY_H
#define __stringify_1(x...) #x
#define __stringify(x...) __stringify_1(x)
#endif
