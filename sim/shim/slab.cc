// SPDX-License-Identifier: GPL-2.0
// efqsim: kmalloc and slab caches over malloc, with live-object bookkeeping,
// failure injection and the might-sleep check.
//
// Kind: kernel behaviour (kmalloc and slab cache semantics, might-sleep for reclaiming GFP)
// Exceptions: bookkeeping, leak counts and failure injection are the sim's (simulation)

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "internal.h"

extern "C" {
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <sim/slab.h>
}

struct kmem_cache {
	std::string name;
	unsigned int size;
	unsigned int align;
	slab_flags_t flags;
	void (*ctor)(void *);
	long live;
	bool destroyed;
};

namespace {

struct Obj {
	size_t size;
	kmem_cache *cache;
	const char *file;
	int line;
};

std::unordered_map<const void *, Obj> &objects()
{
	static std::unordered_map<const void *, Obj> objs;
	return objs;
}

std::vector<kmem_cache *> &caches()
{
	static std::vector<kmem_cache *> c;
	return c;
}

unsigned long g_fail_next;
bool g_fail_nowait;
unsigned long g_failed;
unsigned long g_allocs;

bool inject_failure(gfp_t gfp)
{
	if (gfp & __GFP_NOFAIL)
		return false;
	if (g_fail_next) {
		g_fail_next--;
		return true;
	}
	return g_fail_nowait && !(gfp & __GFP_DIRECT_RECLAIM);
}

void *alloc(size_t size, size_t align, gfp_t gfp, kmem_cache *cache, const char *file, int line)
{
	if (gfp & __GFP_DIRECT_RECLAIM)
		sim_might_sleep(file, line);
	if (inject_failure(gfp)) {
		g_failed++;
		if (!(gfp & __GFP_NOWARN))
			printk(KERN_WARNING
			       "%s:%d: allocation failure (injected), size %zu, gfp %#x\n",
			       file, line, size, (unsigned int)gfp);
		return nullptr;
	}
	void *p = nullptr;
	size_t bytes = size ? size : 1;
	if (align > alignof(std::max_align_t)) {
		if (posix_memalign(&p, align, bytes))
			p = nullptr;
	} else {
		p = std::malloc(bytes);
	}
	if (!p)
		return nullptr;
	if (gfp & __GFP_ZERO)
		std::memset(p, 0, bytes);
	objects()[p] = Obj{size, cache, file, line};
	g_allocs++;
	if (cache) {
		cache->live++;
		if (cache->ctor)
			cache->ctor(p);
	}
	return p;
}

void forget_cache_if_done(kmem_cache *c)
{
	if (!c->destroyed || c->live)
		return;
	auto &cs = caches();
	for (auto it = cs.begin(); it != cs.end(); ++it) {
		if (*it == c) {
			cs.erase(it);
			break;
		}
	}
	delete c;
}

void release(const void *p, kmem_cache *expected, bool check_cache, const char *what)
{
	auto it = objects().find(p);
	if (it == objects().end()) {
		sim::warn("<slab>", 0,
			  sim::format("%s(%p): not an allocated object (double free?)", what, p));
		return;
	}
	kmem_cache *c = it->second.cache;
	if (check_cache && c != expected) {
		sim::warn("<slab>", 0,
			  sim::format("%s(%s, %p): object belongs to %s", what,
				      expected ? expected->name.c_str() : "NULL", p,
				      c ? c->name.c_str() : "kmalloc"));
		return;
	}
	sim::check_timers_freed(p, it->second.size);
	objects().erase(it);
	std::free(const_cast<void *>(p));
	if (c) {
		c->live--;
		forget_cache_if_done(c);
	}
}

} // namespace

namespace sim {

void slab_reset()
{
	g_fail_next = 0;
	g_fail_nowait = false;
	g_failed = 0;
	g_allocs = 0;
}

} // namespace sim

extern "C" {

void *sim_kmalloc(size_t size, gfp_t flags, const char *file, int line)
{
	if (!size) {
		if (flags & __GFP_DIRECT_RECLAIM)
			sim_might_sleep(file, line);
		return ZERO_SIZE_PTR;
	}
	return alloc(size, 0, flags, nullptr, file, line);
}

void *__kmalloc(size_t size, gfp_t flags)
{
	return sim_kmalloc(size, flags, "<kmalloc>", 0);
}

void kfree(const void *objp)
{
	if (ZERO_OR_NULL_PTR(objp))
		return;
	release(objp, nullptr, false, "kfree");
}

size_t ksize(const void *objp)
{
	auto it = objects().find(objp);
	return it == objects().end() ? 0 : it->second.size;
}

void *krealloc(const void *objp, size_t new_size, gfp_t flags)
{
	if (!new_size) {
		kfree(objp);
		return ZERO_SIZE_PTR;
	}
	size_t old = ZERO_OR_NULL_PTR(objp) ? 0 : ksize(objp);
	void *p = sim_kmalloc(new_size, flags & ~__GFP_ZERO, "<krealloc>", 0);
	if (!p)
		return nullptr;
	if (old)
		std::memcpy(p, objp, old < new_size ? old : new_size);
	if ((flags & __GFP_ZERO) && new_size > old)
		std::memset((char *)p + old, 0, new_size - old);
	kfree(objp);
	return p;
}

struct kmem_cache *kmem_cache_create(const char *name, unsigned int size, unsigned int align,
				     slab_flags_t flags, void (*ctor)(void *))
{
	might_sleep();
	if (!name || !size) {
		if (flags & SLAB_PANIC)
			BUG();
		return nullptr;
	}
	if (flags & SLAB_HWCACHE_ALIGN && align < 64)
		align = 64;
	auto *c = new kmem_cache{name, size, align, flags, ctor, 0, false};
	caches().push_back(c);
	return c;
}

void kmem_cache_destroy(struct kmem_cache *s)
{
	if (!s)
		return;
	if (s->destroyed) {
		sim::warn("<slab>", 0,
			  sim::format("kmem_cache_destroy %s: destroyed twice", s->name.c_str()));
		return;
	}
	s->destroyed = true;
	if (s->live)
		WARN(1, "kmem_cache_destroy %s: Slab cache still has objects (%ld)\n",
		     s->name.c_str(), s->live);
	forget_cache_if_done(s);
}

void *sim_kmem_cache_alloc(struct kmem_cache *cachep, gfp_t flags, const char *file, int line)
{
	if (cachep->destroyed) {
		sim::warn(file, line,
			  sim::format("kmem_cache_alloc from destroyed cache %s",
				      cachep->name.c_str()));
		return nullptr;
	}
	return alloc(cachep->size, cachep->align, flags, cachep, file, line);
}

void *(kmem_cache_alloc)(struct kmem_cache *cachep, gfp_t flags)
{
	return sim_kmem_cache_alloc(cachep, flags, "<kmem_cache_alloc>", 0);
}

void kmem_cache_free(struct kmem_cache *cachep, void *objp)
{
	if (!objp)
		return;
	release(objp, cachep, true, "kmem_cache_free");
}

char *kstrdup(const char *s, gfp_t gfp)
{
	if (!s)
		return nullptr;
	size_t n = std::strlen(s) + 1;
	char *p = static_cast<char *>(sim_kmalloc(n, gfp, "<kstrdup>", 0));
	if (p)
		std::memcpy(p, s, n);
	return p;
}

char *kstrndup(const char *s, size_t max, gfp_t gfp)
{
	if (!s)
		return nullptr;
	size_t n = strnlen(s, max);
	char *p = static_cast<char *>(sim_kmalloc(n + 1, gfp, "<kstrndup>", 0));
	if (p) {
		std::memcpy(p, s, n);
		p[n] = '\0';
	}
	return p;
}

void *kmemdup(const void *src, size_t len, gfp_t gfp)
{
	void *p = sim_kmalloc(len, gfp, "<kmemdup>", 0);
	if (p && !ZERO_OR_NULL_PTR(p))
		std::memcpy(p, src, len);
	return p;
}

char *kasprintf(gfp_t gfp, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	std::string s = sim::vformat(fmt, ap);
	va_end(ap);
	return kstrdup(s.c_str(), gfp);
}

long sim_slab_live(void)
{
	return (long)objects().size();
}

long sim_slab_cache_live(const char *name)
{
	long n = -1;
	for (kmem_cache *c : caches())
		if (c->name == name)
			n = (n < 0 ? 0 : n) + c->live;
	return n;
}

unsigned long sim_slab_allocs(void)
{
	return g_allocs;
}

void sim_slab_fail_next(unsigned long n)
{
	g_fail_next = n;
}

void sim_slab_fail_nowait(bool on)
{
	g_fail_nowait = on;
}

unsigned long sim_slab_failed(void)
{
	return g_failed;
}

void sim_slab_dump_live(void)
{
	std::map<std::string, long> sites;
	for (const auto &kv : objects()) {
		const Obj &o = kv.second;
		sites[sim::format("%s:%d %s size %zu", o.file, o.line,
				  o.cache ? o.cache->name.c_str() : "kmalloc", o.size)]++;
	}
	for (const auto &kv : sites)
		std::fprintf(stderr, "  live: %ld x %s\n", kv.second, kv.first.c_str());
}

void sim_slab_reset(void)
{
	sim::slab_reset();
}

} // extern "C"
