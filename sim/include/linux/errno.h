/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: errno values.  The user-visible ones come from the uapi
 * header (glibc's <errno.h> reaches <linux/errno.h> too); the kernel-only
 * ones are added here with the kernel's numbers.
 *
 * Kind: kernel behaviour (the kernel-only errno numbers)
 */
#ifndef _SIM_LINUX_ERRNO_H
#define _SIM_LINUX_ERRNO_H

#include_next <linux/errno.h>

#define ERESTARTSYS 512
#define ERESTARTNOINTR 513
#define ERESTARTNOHAND 514
#define ENOIOCTLCMD 515
#define ERESTART_RESTARTBLOCK 516
#define EPROBE_DEFER 517
#define EOPENSTALE 518
#define ENOPARAM 519
#define EBADHANDLE 521
#define ENOTSYNC 522
#define EBADCOOKIE 523
#define ENOTSUPP 524
#define ETOOSMALL 525
#define ESERVERFAULT 526
#define EBADTYPE 527
#define EJUKEBOX 528
#define EIOCBQUEUED 529
#define ERECALLCONFLICT 530

#endif
