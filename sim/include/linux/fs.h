/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: the file-mode bits the block layer takes.  As 6.1's fs.h
 * does, it brings in the I/O priorities (mq-deadline uses them without
 * including <linux/ioprio.h> itself).
 *
 * Kind: stub (file-mode bits nothing interprets, and 6.1's include of ioprio.h)
 */
#ifndef _SIM_LINUX_FS_H
#define _SIM_LINUX_FS_H

#include <linux/types.h>
#include <linux/ioprio.h>

#define FMODE_READ ((__force fmode_t)0x1)
#define FMODE_WRITE ((__force fmode_t)0x2)
#define FMODE_EXCL ((__force fmode_t)0x80)

#endif
