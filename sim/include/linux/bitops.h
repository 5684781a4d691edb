/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: bit operations on arrays of unsigned long.  The "atomic"
 * and the non-atomic (__) forms are the same on one thread.
 *
 * Kind: kernel behaviour (bit operations and find_*_bit() results)
 */
#ifndef _SIM_LINUX_BITOPS_H
#define _SIM_LINUX_BITOPS_H

#include <linux/types.h>
#include <linux/bits.h>
#include <linux/compiler.h>

#define BITS_TO_LONGS(nr) (((nr) + BITS_PER_LONG - 1) / BITS_PER_LONG)
#define DECLARE_BITMAP(name, bits) unsigned long name[BITS_TO_LONGS(bits)]

static inline void __set_bit(unsigned long nr, volatile unsigned long *addr)
{
	addr[BIT_WORD(nr)] = addr[BIT_WORD(nr)] | BIT_MASK(nr);
}

static inline void __clear_bit(unsigned long nr, volatile unsigned long *addr)
{
	addr[BIT_WORD(nr)] = addr[BIT_WORD(nr)] & ~BIT_MASK(nr);
}

static inline void __change_bit(unsigned long nr, volatile unsigned long *addr)
{
	addr[BIT_WORD(nr)] = addr[BIT_WORD(nr)] ^ BIT_MASK(nr);
}

static inline bool test_bit(unsigned long nr, const volatile unsigned long *addr)
{
	return (addr[BIT_WORD(nr)] >> (nr % BITS_PER_LONG)) & 1UL;
}

static inline bool __test_and_set_bit(unsigned long nr, volatile unsigned long *addr)
{
	bool old = test_bit(nr, addr);

	__set_bit(nr, addr);
	return old;
}

static inline bool __test_and_clear_bit(unsigned long nr, volatile unsigned long *addr)
{
	bool old = test_bit(nr, addr);

	__clear_bit(nr, addr);
	return old;
}

static inline bool __test_and_change_bit(unsigned long nr, volatile unsigned long *addr)
{
	bool old = test_bit(nr, addr);

	__change_bit(nr, addr);
	return old;
}

#define set_bit(nr, addr) __set_bit(nr, addr)
#define clear_bit(nr, addr) __clear_bit(nr, addr)
#define change_bit(nr, addr) __change_bit(nr, addr)
#define test_and_set_bit(nr, addr) __test_and_set_bit(nr, addr)
#define test_and_clear_bit(nr, addr) __test_and_clear_bit(nr, addr)
#define test_and_change_bit(nr, addr) __test_and_change_bit(nr, addr)
#define clear_bit_unlock(nr, addr) __clear_bit(nr, addr)
#define test_and_set_bit_lock(nr, addr) __test_and_set_bit(nr, addr)

/* Index of the least significant set bit; undefined for 0. */
static inline unsigned long __ffs(unsigned long word)
{
	return (unsigned long)__builtin_ctzl(word);
}

/* Index of the most significant set bit; undefined for 0. */
static inline unsigned long __fls(unsigned long word)
{
	return BITS_PER_LONG - 1 - (unsigned long)__builtin_clzl(word);
}

static inline unsigned long ffz(unsigned long word)
{
	return __ffs(~word);
}

/* 1-based, 0 for no bit set (a macro: libc declares an ffs() too). */
#define ffs(x) __builtin_ffs(x)

static inline int fls(unsigned int x)
{
	return x ? 32 - __builtin_clz(x) : 0;
}

static inline int fls64(u64 x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

static inline int fls_long(unsigned long l)
{
	return fls64(l);
}

static inline unsigned int hweight32(unsigned int w)
{
	return (unsigned int)__builtin_popcount(w);
}

static inline unsigned long hweight64(u64 w)
{
	return (unsigned long)__builtin_popcountll(w);
}

static inline unsigned long hweight_long(unsigned long w)
{
	return (unsigned long)__builtin_popcountl(w);
}

static inline unsigned long find_next_bit(const unsigned long *addr, unsigned long size,
					  unsigned long offset)
{
	for (; offset < size; offset++)
		if (test_bit(offset, addr))
			return offset;
	return size;
}

static inline unsigned long find_next_zero_bit(const unsigned long *addr, unsigned long size,
					       unsigned long offset)
{
	for (; offset < size; offset++)
		if (!test_bit(offset, addr))
			return offset;
	return size;
}

#define find_first_bit(addr, size) find_next_bit(addr, size, 0)
#define find_first_zero_bit(addr, size) find_next_zero_bit(addr, size, 0)

#define for_each_set_bit(bit, addr, size)                             \
	for ((bit) = find_next_bit((addr), (size), 0); (bit) < (size); \
	     (bit) = find_next_bit((addr), (size), (bit) + 1))
#define for_each_clear_bit(bit, addr, size)                                \
	for ((bit) = find_next_zero_bit((addr), (size), 0); (bit) < (size); \
	     (bit) = find_next_zero_bit((addr), (size), (bit) + 1))

#endif
