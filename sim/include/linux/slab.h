/* SPDX-License-Identifier: GPL-2.0 */
/*
 * efqsim shim: kmalloc and slab caches on top of malloc (so ASan sees
 * every object), with bookkeeping the tests use: live-object counts,
 * double/invalid free detection (WARN), kmem_cache_destroy() of a cache
 * that still has objects (WARN), failure injection, and the might-sleep
 * check for allocations that may reclaim (a lock error in atomic
 * context).  Controls: <sim/slab.h>.
 *
 * Kind: kernel behaviour (kmalloc family and slab caches: ZERO_SIZE_PTR, overflow NULL, GFP rules)
 * Exceptions: live-object bookkeeping and failure injection are the sim's (<sim/slab.h>)
 */
#ifndef _SIM_LINUX_SLAB_H
#define _SIM_LINUX_SLAB_H

#include <linux/types.h>
#include <linux/gfp.h>
#include <linux/compiler.h>
#include <linux/overflow.h>

#define SLAB_HWCACHE_ALIGN ((__force slab_flags_t)0x00002000U)
#define SLAB_PANIC ((__force slab_flags_t)0x00040000U)
#define SLAB_RECLAIM_ACCOUNT ((__force slab_flags_t)0x00020000U)
#define SLAB_ACCOUNT ((__force slab_flags_t)0x04000000U)
#define SLAB_TYPESAFE_BY_RCU ((__force slab_flags_t)0x00080000U)

#define ZERO_SIZE_PTR ((void *)16)
#define ZERO_OR_NULL_PTR(x) ((unsigned long)(x) <= (unsigned long)ZERO_SIZE_PTR)

struct kmem_cache;

SIM_BEGIN_DECLS
void *sim_kmalloc(size_t size, gfp_t flags, const char *file, int line) __malloc;
void *sim_kmem_cache_alloc(struct kmem_cache *cachep, gfp_t flags, const char *file,
			   int line) __malloc;
void *__kmalloc(size_t size, gfp_t flags) __malloc;
void kfree(const void *objp);
size_t ksize(const void *objp);
void *krealloc(const void *objp, size_t new_size, gfp_t flags);
struct kmem_cache *kmem_cache_create(const char *name, unsigned int size, unsigned int align,
				     slab_flags_t flags, void (*ctor)(void *));
void kmem_cache_destroy(struct kmem_cache *s);
void *kmem_cache_alloc(struct kmem_cache *cachep, gfp_t flags) __malloc;
void kmem_cache_free(struct kmem_cache *cachep, void *objp);
SIM_END_DECLS

/*
 * The allocation entry points are macros so that the bookkeeping knows the
 * allocation site (file:line) for leak reports and might-sleep errors.
 */
static inline void *__sim_kmalloc_array(size_t n, size_t size, gfp_t flags,
					const char *file, int line)
{
	size_t bytes;

	if (unlikely(check_mul_overflow(n, size, &bytes)))
		return NULL;
	return sim_kmalloc(bytes, flags, file, line);
}

#define kmalloc(size, flags) sim_kmalloc(size, flags, __FILE__, __LINE__)
#define kzalloc(size, flags) sim_kmalloc(size, (flags) | __GFP_ZERO, __FILE__, __LINE__)
#define kmalloc_node(size, flags, node) kmalloc(size, flags)
#define kzalloc_node(size, flags, node) kzalloc(size, flags)
#define kmalloc_array(n, size, flags) __sim_kmalloc_array(n, size, flags, __FILE__, __LINE__)
#define kcalloc(n, size, flags) \
	__sim_kmalloc_array(n, size, (flags) | __GFP_ZERO, __FILE__, __LINE__)
#define kcalloc_node(n, size, flags, node) kcalloc(n, size, flags)
#define kvmalloc(size, flags) kmalloc(size, flags)
#define kvzalloc(size, flags) kzalloc(size, flags)
#define kvcalloc(n, size, flags) kcalloc(n, size, flags)
#define kvfree(addr) kfree(addr)
#define kmem_cache_alloc(cachep, flags) sim_kmem_cache_alloc(cachep, flags, __FILE__, __LINE__)
#define kmem_cache_zalloc(cachep, flags) \
	sim_kmem_cache_alloc(cachep, (flags) | __GFP_ZERO, __FILE__, __LINE__)
#define kmem_cache_alloc_node(cachep, flags, node) kmem_cache_alloc(cachep, flags)

#define KMEM_CACHE(__struct, __flags)                                        \
	kmem_cache_create(#__struct, sizeof(struct __struct),                \
			  __alignof__(struct __struct), (__flags), NULL)

#endif
