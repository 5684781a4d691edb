// SPDX-License-Identifier: GPL-2.0
// kmalloc and slab caches: live counts, failure injection, misuse WARNs.

#include <sim/gtest_guard.h>

#include <cstdint>

extern "C" {
#include <linux/slab.h>
#include <linux/kernel.h>
#include <linux/string.h>
}

namespace {

struct Obj {
	long a, b;
};

int g_ctor_calls;
void ctor(void *p)
{
	g_ctor_calls++;
	static_cast<Obj *>(p)->a = 77;
}

class SlabTest : public SimTest {};

TEST_F(SlabTest, LiveCountsFollowAllocAndFree)
{
	long base = sim_slab_live();
	void *a = kmalloc(10, GFP_KERNEL);
	char *z = static_cast<char *>(kzalloc(32, GFP_KERNEL));
	int *arr = static_cast<int *>(kcalloc(4, sizeof(int), GFP_NOWAIT));
	ASSERT_TRUE(a && z && arr);
	for (int i = 0; i < 32; i++)
		EXPECT_EQ(z[i], 0);
	EXPECT_EQ(arr[3], 0);
	EXPECT_EQ(sim_slab_live(), base + 3);
	kfree(a);
	kfree(z);
	kfree(arr);
	kfree(nullptr);
	EXPECT_EQ(sim_slab_live(), base);
	EXPECT_EQ(kmalloc_array(SIZE_MAX / 2, 4, GFP_KERNEL), nullptr); // overflow
	EXPECT_EQ(kmalloc(0, GFP_KERNEL), ZERO_SIZE_PTR);
	kfree(ZERO_SIZE_PTR);
}

TEST_F(SlabTest, Caches)
{
	struct kmem_cache *c = KMEM_CACHE(Obj, SLAB_HWCACHE_ALIGN);
	ASSERT_NE(c, nullptr);
	EXPECT_EQ(sim_slab_cache_live("Obj"), 0);
	Obj *o1 = static_cast<Obj *>(kmem_cache_zalloc(c, GFP_KERNEL));
	Obj *o2 = static_cast<Obj *>(kmem_cache_alloc_node(c, GFP_NOWAIT, 0));
	ASSERT_TRUE(o1 && o2);
	EXPECT_EQ(o1->a, 0);
	EXPECT_EQ(reinterpret_cast<uintptr_t>(o1) % 64, 0u);
	EXPECT_EQ(sim_slab_cache_live("Obj"), 2);
	kmem_cache_free(c, o1);
	kfree(o2); // allowed for slab objects, as in SLUB
	EXPECT_EQ(sim_slab_cache_live("Obj"), 0);
	kmem_cache_destroy(c);
	EXPECT_EQ(sim_slab_cache_live("Obj"), -1);

	g_ctor_calls = 0;
	c = kmem_cache_create("with_ctor", sizeof(Obj), 0, 0, ctor);
	Obj *o = static_cast<Obj *>(kmem_cache_alloc(c, GFP_KERNEL));
	EXPECT_EQ(o->a, 77);
	EXPECT_EQ(g_ctor_calls, 1);
	kmem_cache_free(c, o);
	kmem_cache_destroy(c);
	kmem_cache_destroy(nullptr);
}

TEST_F(SlabTest, DestroyingACacheWithObjectsWarns)
{
	struct kmem_cache *c = kmem_cache_create("busy", 24, 0, 0, nullptr);
	void *o = kmem_cache_alloc(c, GFP_KERNEL);
	kmem_cache_destroy(c);
	ExpectWarnings(1);
	kmem_cache_free(c, o); // the cache goes with its last object
	EXPECT_EQ(sim_slab_cache_live("busy"), -1);
}

TEST_F(SlabTest, DoubleAndWrongCacheFreesWarn)
{
	void *p = kmalloc(8, GFP_KERNEL);
	kfree(p);
	kfree(p);
	ExpectWarnings(1);

	struct kmem_cache *a = kmem_cache_create("a", 8, 0, 0, nullptr);
	struct kmem_cache *b = kmem_cache_create("b", 8, 0, 0, nullptr);
	void *o = kmem_cache_alloc(a, GFP_KERNEL);
	kmem_cache_free(b, o);
	ExpectWarnings(1);
	kmem_cache_free(a, o);
	kmem_cache_destroy(a);
	kmem_cache_destroy(b);
}

TEST_F(SlabTest, FailNext)
{
	sim_slab_fail_next(2);
	EXPECT_EQ(kmalloc(8, GFP_KERNEL | __GFP_NOWARN), nullptr);
	void *nofail = kmalloc(8, GFP_KERNEL | __GFP_NOFAIL); // never fails
	EXPECT_NE(nofail, nullptr);
	EXPECT_EQ(kzalloc(8, GFP_ATOMIC | __GFP_NOWARN), nullptr);
	void *ok = kmalloc(8, GFP_KERNEL);
	EXPECT_NE(ok, nullptr);
	EXPECT_EQ(sim_slab_failed(), 2u);
	kfree(nofail);
	kfree(ok);
}

TEST_F(SlabTest, FailNowait)
{
	sim_slab_fail_nowait(true);
	EXPECT_EQ(kmalloc(8, GFP_NOWAIT | __GFP_NOWARN), nullptr);
	EXPECT_EQ(kmalloc(8, GFP_ATOMIC | __GFP_NOWARN), nullptr);
	void *k = kmalloc(8, GFP_KERNEL);
	EXPECT_NE(k, nullptr);
	kfree(k);
	sim_slab_fail_nowait(false);
	void *n = kmalloc(8, GFP_NOWAIT);
	EXPECT_NE(n, nullptr);
	kfree(n);
	EXPECT_TRUE(gfpflags_allow_blocking(GFP_KERNEL));
	EXPECT_FALSE(gfpflags_allow_blocking(GFP_NOWAIT));
	EXPECT_FALSE(gfpflags_allow_blocking(GFP_ATOMIC));
}

TEST_F(SlabTest, StringsAndKrealloc)
{
	char *s = kstrndup("abcdef", 3, GFP_KERNEL);
	EXPECT_STREQ(s, "abc");
	char *t = static_cast<char *>(krealloc(s, 64, GFP_KERNEL | __GFP_ZERO));
	EXPECT_STREQ(t, "abc");
	EXPECT_EQ(t[63], 0);
	char *a = kasprintf(GFP_KERNEL, "%d-%s", 7, "x");
	EXPECT_STREQ(a, "7-x");
	kfree(t);
	kfree(a);
}

class SlabLeakTest : public SimTest {};

TEST_F(SlabLeakTest, FixtureSeesLeaks)
{
	void *p = kmalloc(8, GFP_KERNEL);
	EXPECT_EQ(sim_slab_live(), live_at_start_ + 1);
	AllowLeaks(); // the fixture would fail this test otherwise
	kfree(p);
}

} // namespace
