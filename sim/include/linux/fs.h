/* SPDX-License-Identifier: GPL-2.0 */
/* efqsim shim: the file-mode bits the block layer takes. */
#ifndef _SIM_LINUX_FS_H
#define _SIM_LINUX_FS_H

#include <linux/types.h>

#define FMODE_READ ((__force fmode_t)0x1)
#define FMODE_WRITE ((__force fmode_t)0x2)
#define FMODE_EXCL ((__force fmode_t)0x80)

#endif
