/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: non-canonical pointers written into unlinked list nodes.
 *
 * Kind: kernel behaviour (x86-64's list poison values: a use after list_del() faults)
 */
#ifndef _SIM_LINUX_POISON_H
#define _SIM_LINUX_POISON_H

#define POISON_POINTER_DELTA 0xdead000000000000UL
#define LIST_POISON1 ((void *)(0x100 + POISON_POINTER_DELTA))
#define LIST_POISON2 ((void *)(0x122 + POISON_POINTER_DELTA))

#endif
