/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: bio helpers.
 *
 * Kind: kernel behaviour (6.1's bio helpers; 6.12 the same)
 */
#ifndef _SIM_LINUX_BIO_H
#define _SIM_LINUX_BIO_H

#include <linux/blk_types.h>

#define bio_sectors(bio) ((bio)->bi_iter.bi_size >> 9)
#define bio_end_sector(bio) ((bio)->bi_iter.bi_sector + bio_sectors((bio)))
#define bio_data_dir(bio) (op_is_write(bio_op(bio)) ? WRITE : READ)

static inline bool bio_has_data(struct bio *bio)
{
	return bio && bio->bi_iter.bi_size && bio_op(bio) != REQ_OP_DISCARD &&
	       bio_op(bio) != REQ_OP_SECURE_ERASE && bio_op(bio) != REQ_OP_WRITE_ZEROES;
}

static inline bool op_is_sync_bio(struct bio *bio)
{
	return op_is_sync(bio->bi_opf);
}

#endif
