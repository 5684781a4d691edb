// SPDX-License-Identifier: GPL-2.0
// kstrto*(), string helpers, math64, jiffies conversions, min/max,
// refcount_t and WARN/printk plumbing.

#include <sim/gtest_guard.h>

#include <string>
#include <vector>

extern "C" {
#include <linux/kernel.h>
#include <linux/kstrtox.h>
#include <linux/string.h>
#include <linux/math64.h>
#include <linux/jiffies.h>
#include <linux/ktime.h>
#include <linux/refcount.h>
#include <linux/bitops.h>
#include <linux/log2.h>
#include <linux/err.h>
#include <linux/kdev_t.h>
#include <linux/printk.h>
#include <linux/slab.h>
}

namespace {

class LibTest : public SimTest {};

TEST_F(LibTest, KstrtoulAcceptsOneTrailingNewline)
{
	unsigned long v = 0;
	EXPECT_EQ(kstrtoul("42", 10, &v), 0);
	EXPECT_EQ(v, 42u);
	EXPECT_EQ(kstrtoul("43\n", 10, &v), 0);
	EXPECT_EQ(v, 43u);
	EXPECT_EQ(kstrtoul("+44", 10, &v), 0);
	EXPECT_EQ(v, 44u);
	v = 7;
	for (const char *bad : {"", "\n", "42\n\n", "42 ", " 42", "4x", "-1", "0x", "abc", "+"}) {
		EXPECT_EQ(kstrtoul(bad, 10, &v), -EINVAL) << "'" << bad << "'";
		EXPECT_EQ(v, 7u) << "untouched on error";
	}
}

TEST_F(LibTest, KstrtoBases)
{
	unsigned long long v;
	EXPECT_EQ(kstrtoull("0x1f", 0, &v), 0);
	EXPECT_EQ(v, 31u);
	EXPECT_EQ(kstrtoull("017", 0, &v), 0);
	EXPECT_EQ(v, 15u);
	EXPECT_EQ(kstrtoull("0", 0, &v), 0);
	EXPECT_EQ(v, 0u);
	EXPECT_EQ(kstrtoull("ff", 16, &v), 0);
	EXPECT_EQ(v, 255u);
	EXPECT_EQ(kstrtoull("0XFF", 16, &v), 0);
	EXPECT_EQ(v, 255u);
	EXPECT_EQ(kstrtoull("08", 0, &v), -EINVAL);
	EXPECT_EQ(kstrtoull("0x", 0, &v), -EINVAL);
	EXPECT_EQ(kstrtoull("1010", 2, &v), 0);
	EXPECT_EQ(v, 10u);
}

TEST_F(LibTest, KstrtoRanges)
{
	unsigned long long ull;
	EXPECT_EQ(kstrtoull("18446744073709551615", 10, &ull), 0);
	EXPECT_EQ(ull, ~0ULL);
	EXPECT_EQ(kstrtoull("18446744073709551616", 10, &ull), -ERANGE);

	unsigned int u;
	EXPECT_EQ(kstrtouint("4294967295", 10, &u), 0);
	EXPECT_EQ(u, 4294967295u);
	EXPECT_EQ(kstrtouint("4294967296", 10, &u), -ERANGE);
	EXPECT_EQ(kstrtouint("-1", 10, &u), -EINVAL);

	int i;
	EXPECT_EQ(kstrtoint("-2147483648", 10, &i), 0);
	EXPECT_EQ(i, INT_MIN);
	EXPECT_EQ(kstrtoint("2147483647\n", 10, &i), 0);
	EXPECT_EQ(i, INT_MAX);
	EXPECT_EQ(kstrtoint("2147483648", 10, &i), -ERANGE);
	EXPECT_EQ(kstrtoint("-2147483649", 10, &i), -ERANGE);
	EXPECT_EQ(kstrtoint("--1", 10, &i), -EINVAL);

	long long ll;
	EXPECT_EQ(kstrtoll("-9223372036854775808", 10, &ll), 0);
	EXPECT_EQ(ll, LLONG_MIN);
	EXPECT_EQ(kstrtoll("9223372036854775808", 10, &ll), -ERANGE);

	u64 u64v;
	EXPECT_EQ(kstrtou64("123\n", 0, &u64v), 0);
	EXPECT_EQ(u64v, 123u);
	u8 b;
	EXPECT_EQ(kstrtou8("256", 10, &b), -ERANGE);
}

TEST_F(LibTest, Kstrtobool)
{
	bool b = false;
	for (const char *t : {"1", "y", "Y", "yes", "t", "on", "On", "1\n"}) {
		b = false;
		EXPECT_EQ(kstrtobool(t, &b), 0) << t;
		EXPECT_TRUE(b) << t;
	}
	for (const char *f : {"0", "n", "N", "no", "f", "off", "OFF"}) {
		b = true;
		EXPECT_EQ(kstrtobool(f, &b), 0) << f;
		EXPECT_FALSE(b) << f;
	}
	for (const char *bad : {"", "2", "o", "x", "oz"})
		EXPECT_EQ(kstrtobool(bad, &b), -EINVAL) << bad;
}

TEST_F(LibTest, Strings)
{
	char buf[8];
	EXPECT_EQ(strscpy(buf, "abc", sizeof(buf)), 3);
	EXPECT_STREQ(buf, "abc");
	EXPECT_EQ(strscpy(buf, "abcdefghij", sizeof(buf)), -E2BIG);
	EXPECT_STREQ(buf, "abcdefg");
	EXPECT_EQ(scnprintf(buf, sizeof(buf), "%s", "0123456789"), 7);
	EXPECT_EQ(scnprintf(buf, 0, "x"), 0);
	char s[] = "  padded \n";
	EXPECT_STREQ(strim(s), "padded");
	EXPECT_TRUE(sysfs_streq("cfq", "cfq\n"));
	EXPECT_TRUE(sysfs_streq("cfq\n", "cfq"));
	EXPECT_FALSE(sysfs_streq("cfq", "cf"));
	const char *const names[] = {"rt", "be", "idle"};
	EXPECT_EQ(match_string(names, 3, "be"), 1);
	EXPECT_EQ(match_string(names, 3, "none"), -EINVAL);
	char *d = kstrdup("dup", GFP_KERNEL);
	EXPECT_STREQ(d, "dup");
	kfree(d);
}

TEST_F(LibTest, Math64)
{
	u64 n = 1000000007ULL;
	u32 rem = do_div(n, 1000);
	EXPECT_EQ(n, 1000000u);
	EXPECT_EQ(rem, 7u);
	EXPECT_EQ(div_u64(10, 3), 3u);
	EXPECT_EQ(div_s64(-10, 3), -3);
	EXPECT_EQ(div64_u64(~0ULL, 1ULL << 32), 0xffffffffULL);
	EXPECT_EQ(mul_u64_u32_div(1ULL << 62, 8, 16), 1ULL << 61); // 128-bit intermediate
	u32 r;
	EXPECT_EQ(div_u64_rem(17, 5, &r), 3u);
	EXPECT_EQ(r, 2u);
	EXPECT_EQ(DIV_ROUND_UP(7, 2), 4);
	EXPECT_EQ(roundup_pow_of_two(5), 8u);
	EXPECT_EQ(ilog2(4096u), 12);
	EXPECT_EQ(fls(0), 0);
	EXPECT_EQ(fls(1), 1);
	EXPECT_EQ(__ffs(8UL), 3u);
}

TEST_F(LibTest, MinMaxClampSwap)
{
	int a = 3, b = 9;
	EXPECT_EQ(min(a, b), 3);
	EXPECT_EQ(max(a, b), 9);
	EXPECT_EQ(min_t(u64, 5, 2ULL), 2u);
	EXPECT_EQ(clamp(15, 0, 10), 10);
	EXPECT_EQ(clamp_t(int, -3, 0, 10), 0);
	EXPECT_EQ(clamp_val(a, 4, 8), 4);
	swap(a, b);
	EXPECT_EQ(a, 9);
	EXPECT_EQ(b, 3);
	EXPECT_EQ(ARRAY_SIZE("abc"), 4u);
}

TEST_F(LibTest, JiffiesFollowTheClock)
{
	EXPECT_EQ(HZ, 250);
	unsigned long j0 = jiffies;
	EXPECT_EQ(j0, INITIAL_JIFFIES + 250); // the clock starts at 1 s
	sim_clock_advance(3999999);
	EXPECT_EQ(jiffies, j0);
	sim_clock_advance(1);
	EXPECT_EQ(jiffies, j0 + 1);
	EXPECT_TRUE(time_after(jiffies, j0));
	EXPECT_TRUE(time_before(j0, jiffies));
	EXPECT_TRUE(time_after_eq(jiffies, j0 + 1));
	// Wrap-safe comparisons.
	EXPECT_TRUE(time_after(2UL, ULONG_MAX - 1));

	EXPECT_EQ(msecs_to_jiffies(0), 0u);
	EXPECT_EQ(msecs_to_jiffies(1), 1u); // rounds up
	EXPECT_EQ(msecs_to_jiffies(4), 1u);
	EXPECT_EQ(msecs_to_jiffies(5), 2u);
	EXPECT_EQ(msecs_to_jiffies(1000), 250u);
	EXPECT_EQ(jiffies_to_msecs(250), 1000u);
	EXPECT_EQ(nsecs_to_jiffies(7999999), 1u); // rounds down
	EXPECT_EQ(jiffies_to_nsecs(2), 8000000u);
	EXPECT_EQ(usecs_to_jiffies(4001), 2u);
}

TEST_F(LibTest, Ktime)
{
	EXPECT_EQ(ktime_get(), SIM_CLOCK_START_NS);
	EXPECT_EQ(ktime_get_ns(), (u64)SIM_CLOCK_START_NS);
	ktime_t t = ktime_add_ns(ktime_get(), 500);
	EXPECT_EQ(ktime_to_ns(ktime_sub(t, ktime_get())), 500);
	EXPECT_EQ(ktime_compare(t, ktime_get()), 1);
	EXPECT_TRUE(ktime_before(ktime_get(), t));
	EXPECT_EQ(ms_to_ktime(3), 3 * NSEC_PER_MSEC);
	EXPECT_EQ(ktime_to_us(us_to_ktime(7)), 7);
	EXPECT_EQ(ktime_set(1, 5), NSEC_PER_SEC + 5);
	sim_clock_set(5 * NSEC_PER_SEC);
	EXPECT_EQ(ktime_get(), 5 * NSEC_PER_SEC);
}

TEST_F(LibTest, ErrPtr)
{
	void *p = ERR_PTR(-ENOMEM);
	EXPECT_TRUE(IS_ERR(p));
	EXPECT_EQ(PTR_ERR(p), -ENOMEM);
	EXPECT_FALSE(IS_ERR(&p));
	EXPECT_TRUE(IS_ERR_OR_NULL(nullptr));
	EXPECT_EQ(PTR_ERR_OR_ZERO(&p), 0);
}

TEST_F(LibTest, DevT)
{
	dev_t d = MKDEV(8, 16);
	EXPECT_EQ(MAJOR(d), 8u);
	EXPECT_EQ(MINOR(d), 16u);
	EXPECT_EQ(MKDEV(259, 1048575) >> 20, 259u);
}

TEST_F(LibTest, WarnReturnsConditionAndCounts)
{
	int x = 5;
	EXPECT_FALSE(WARN_ON(x == 4));
	EXPECT_EQ(sim_warn_count(), 0u);
	EXPECT_TRUE(WARN_ON(x == 5));
	EXPECT_TRUE(WARN(x > 1, "x is %d\n", x));
	EXPECT_NE(std::string(sim_warn_last()).find("x is 5"), std::string::npos);
	for (int i = 0; i < 3; i++)
		EXPECT_TRUE(WARN_ON_ONCE(x));
	ExpectWarnings(5); // _ONCE prints once but counts every hit
}

TEST_F(LibTest, BugAborts)
{
	EXPECT_DEATH(BUG_ON(1 + 1 == 2), "kernel BUG at");
}

void capture(int level, const char *msg, void *arg)
{
	static_cast<std::vector<std::string> *>(arg)->push_back(std::to_string(level) + ":" + msg);
}

TEST_F(LibTest, PrintkLevelsAndHook)
{
	std::vector<std::string> got;
	sim_printk_set_hook(capture, &got);
	pr_err("e%d\n", 1);
	pr_info("i\n");
	pr_debug("d\n");
	printk("plain\n");
	EXPECT_EQ(got, (std::vector<std::string>{"3:e1\n", "6:i\n", "7:d\n", "4:plain\n"}));
	// Only levels below sim_printk_level reach stderr.
	testing::internal::CaptureStderr();
	pr_info("hidden\n");
	pr_err("shown\n");
	std::string err = testing::internal::GetCapturedStderr();
	EXPECT_EQ(err.find("hidden"), std::string::npos);
	EXPECT_NE(err.find("shown"), std::string::npos);
	EXPECT_NE(err.find("[    1.000000]"), std::string::npos);
}

TEST_F(LibTest, RefcountWarnsAndSaturates)
{
	refcount_t r;
	refcount_set(&r, 1);
	refcount_inc(&r);
	EXPECT_EQ(refcount_read(&r), 2u);
	EXPECT_FALSE(refcount_dec_and_test(&r));
	EXPECT_TRUE(refcount_dec_and_test(&r));
	EXPECT_FALSE(refcount_inc_not_zero(&r));
	EXPECT_EQ(sim_warn_count(), 0u);

	refcount_inc(&r); // addition on 0: use-after-free
	ExpectWarnings(1);
	EXPECT_EQ((int)refcount_read(&r), REFCOUNT_SATURATED);
	EXPECT_FALSE(refcount_dec_and_test(&r)); // saturated never reaches 0

	refcount_set(&r, 0);
	EXPECT_FALSE(refcount_dec_and_test(&r)); // underflow
	ExpectWarnings(2);

	refcount_set(&r, 1);
	refcount_dec(&r); // hits 0 without a test
	ExpectWarnings(1);
}

TEST_F(LibTest, Bitops)
{
	DECLARE_BITMAP(map, 130) = {};
	set_bit(3, map);
	__set_bit(129, map);
	EXPECT_TRUE(test_bit(3, map));
	EXPECT_TRUE(test_bit(129, map));
	EXPECT_FALSE(test_bit(4, map));
	EXPECT_TRUE(test_and_clear_bit(3, map));
	EXPECT_FALSE(test_and_clear_bit(3, map));
	EXPECT_EQ(find_first_bit(map, 130), 129u);
	unsigned long bit, n = 0;
	for_each_set_bit(bit, map, 130) n++;
	EXPECT_EQ(n, 1u);
}

} // namespace
