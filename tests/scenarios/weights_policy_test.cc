// SPDX-License-Identifier: GPL-2.0
// Weights, priorities and the per-device policy, as V10 defines them (its
// documentation and patches; no measurements): io.weight takes 100..1000
// and io.ioprio_class 1..3 (RT, BE, IDLE); an ioprio p inside a group
// weighs 500 + 100 * (4 - p) and its slice is 100 ms * weight / 500 (so
// BE0, BE4, BE7 get 180, 100 and 40 ms); a line "maj:min weight class" in
// io.policy overrides io.weight and the class on that device only, and
// weight 0 there deletes the rule.
//
// The settings go through the cgroup files (io.efq.weight,
// io.efq.ioprio_class, io.efq.policy) when the shim has them, else through
// the C functions those files call (efq_cgroup_write_weight(), ...), so
// the tests run before and after the cftypes land.
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include <sim/blkcg.h>

#include "../sched/harness.h"
#include "scenario_util.h"

extern "C" {
int efq_cgroup_set_ioprio_class(struct blkcg *blkcg, unsigned int ioclass);
int efq_cgroup_write_weight(struct blkcg *blkcg, char *buf);
int efq_cgroup_write_policy(struct blkcg *blkcg, char *buf);
}

namespace {

using namespace efqtest;

constexpr uint64_t kGiB = 1ull << 30;
const auto *env = ::testing::AddGlobalTestEnvironment(new SchedEnv);

// Writes @data to cgroup file @file of @cg: 0 or -errno.
int CgWrite(struct blkcg *cg, const std::string &file, const std::string &data)
{
	if (sim_cgroup_file_exists(cg, file.c_str())) {
		ssize_t n = sim_cgroup_write(cg, file.c_str(), data.c_str());
		return n < 0 ? static_cast<int>(n) : 0;
	}
	std::string buf = data;
	if (file == "io.efq.weight")
		return efq_cgroup_write_weight(cg, buf.data());
	if (file == "io.efq.policy")
		return efq_cgroup_write_policy(cg, buf.data());
	if (file == "io.efq.ioprio_class") {
		char *end;
		unsigned long v = std::strtoul(buf.c_str(), &end, 10);
		if (end == buf.c_str())
			return -EINVAL;
		return efq_cgroup_set_ioprio_class(cg, static_cast<unsigned int>(v));
	}
	ADD_FAILURE() << "no such file " << file;
	return -ENOENT;
}

class WeightsPolicy : public SchedTest {};

// io.weight takes 100..1000 only; io.ioprio_class 1..3 only.
TEST_F(WeightsPolicy, WeightAndClassRanges)
{
	Config cfg;
	cfg.scheduler = "cfq";
	Make(cfg);
	Task(Spec("t", "a"));
	struct blkcg *a = sim_blkcg_find(nullptr, "a");
	ASSERT_NE(a, nullptr);
	printf("weights: cgroup files present: %s\n",
	       sim_cgroup_file_exists(a, "io.efq.weight") ? "yes" : "no (C API used)");
	for (const char *bad : {"0", "99", "1001", "5000"})
		EXPECT_EQ(CgWrite(a, "io.efq.weight", bad), -EINVAL) << bad;
	for (const char *good : {"100", "500", "1000"})
		EXPECT_EQ(CgWrite(a, "io.efq.weight", good), 0) << good;
	for (const char *bad : {"0", "4"})
		EXPECT_EQ(CgWrite(a, "io.efq.ioprio_class", bad), -EINVAL) << bad;
	for (const char *good : {"1", "2", "3"})
		EXPECT_EQ(CgWrite(a, "io.efq.ioprio_class", good), 0) << good;
}

// Three sequential readers at BE levels 0, 4, 7 (weights 900, 500, 200)
// on the hdd model: in the dispatch trace their turns last 180, 100 and
// 40 ms (the median turn of each; the device's own timing) plus what a
// turn costs besides its slice: the slice starts at the first completion
// and the last request completes after it ends (measured +6 ms each).
TEST(PrioSlices, PrioMapsToWeightAndSlice)
{
	using namespace efqscen;
	Trace tr;
	RunResult r = RunWith(MakeSetup("cfq", "hdd"), {JobPath("prio_slices.fio")},
			      efqsim::workload::PageCacheConfig{}, &tr);
	std::map<uint64_t, std::vector<int64_t>> by_file;
	for (const Turn &t : Turns(tr, kGiB))
		by_file[t.extent].push_back(t.ns);
	const double want[3] = {180, 100, 40};
	for (uint64_t f = 0; f < 3; f++) {
		double ms = Median(by_file[f]) / 1e6;
		printf("prio slices: BE%d: %zu turns, median %.1f ms\n",
		       f == 0	? 0
		       : f == 1 ? 4
				: 7,
		       by_file[f].size(), ms);
		EXPECT_GE(by_file[f].size(), 4u);
		EXPECT_GE(ms, want[f]);
		EXPECT_LE(ms, want[f] + 10);
	}
	// identical readers: bandwidth follows the slices, 180 : 100 : 40
	double b0 = Job(r, "be0").read_bw(), b4 = Job(r, "be4").read_bw(),
	       b7 = Job(r, "be7").read_bw();
	printf("prio slices: bw ratios be0/be4 %.2f be4/be7 %.2f\n", b0 / b4, b4 / b7);
	EXPECT_NEAR(b0 / b4, 1.8, 0.2);
	EXPECT_NEAR(b4 / b7, 2.5, 0.3);
}

// The per-device policy: a rule "8:0 1000 2" on a overrides a's io.weight (200,
// written after the rule) on this disk (sda = 8:0): a reader in a gets
// twice the disk time of one in b (500).  Deleting the rule (weight 0)
// brings a's own weight back: then 200 : 500.  Shares are the device's
// busy time (1 ms per request, one at a time).
TEST_F(WeightsPolicy, DevicePolicyOverridesTheWeightUntilDeleted)
{
	Config cfg;
	cfg.scheduler = "cfq";
	Make(cfg, 1, kMs);
	TaskId ta = Task(Spec("a-reader", "a")), tb = Task(Spec("b-reader", "b"));
	struct blkcg *a = sim_blkcg_find(nullptr, "a");
	ASSERT_NE(a, nullptr);
	ASSERT_EQ(CgWrite(a, "io.efq.policy", "8:0 1000 2"), 0);
	ASSERT_EQ(CgWrite(a, "io.efq.weight", "200"), 0);
	if (sim_cgroup_file_exists(a, "io.efq.policy")) {
		int err = 0;
		char *text = sim_cgroup_read(a, "io.efq.policy", &err);
		ASSERT_NE(text, nullptr) << err;
		EXPECT_NE(std::strstr(text, "dev\tweight\tclass\n8:0\t1000\t2\n"), nullptr) << text;
		free(text);
	}
	const int64_t t0 = m_->now(), mid = t0 + 3000 * kMs, end = mid + 3000 * kMs;
	Loop(ta, 1, 65536, 1 * kGiB, end);
	Loop(tb, 1, 65536, 2 * kGiB, end);
	m_->run_until(mid);
	auto g1 = Groups();
	double with_rule = g1["/a"].device_busy_ms / g1["/b"].device_busy_ms;
	ASSERT_EQ(CgWrite(a, "io.efq.policy", "8:0 0 2"), 0);
	m_->run_until(end);
	auto g2 = Groups();
	double without = (g2["/a"].device_busy_ms - g1["/a"].device_busy_ms) /
			 (g2["/b"].device_busy_ms - g1["/b"].device_busy_ms);
	printf("device policy: a:b busy with the rule %.3f (weight %u), after deleting it %.3f "
	       "(weight %u)\n",
	       with_rule, g1["/a"].weight, without, g2["/a"].weight);
	EXPECT_EQ(g1["/a"].weight, 1000u);
	EXPECT_EQ(g2["/a"].weight, 200u);
	EXPECT_NEAR(with_rule, 2.0, 0.15);
	// the window starts with the turn in progress when the rule goes
	// away, under the old weight
	EXPECT_NEAR(without, 0.4, 0.08);
}

// What tools write reaches the engine with ratios kept: io.weight values
// (followed through io.efq.io_weight, as efq-weightd copies them) of 4:1
// at both ends of io.weight's range 1..10000 and in the middle; CFQ's
// cgroup v1 blkio.weight 1000:250 is the same 4:1.  The measure is the
// device's busy time per cgroup over 6 s (1 ms per request, one at a
// time): some 60 slices of 100 ms, so a ratio is as exact as the last
// slice allows.
class ToolWeights : public SchedTest {
protected:
	struct Write {
		const char *cgroup, *file, *value;
	};
	// Readers in a and b for 6 s after @writes: a's busy time over b's.
	double Run(std::initializer_list<Write> writes)
	{
		Config cfg;
		cfg.scheduler = "cfq";
		Make(cfg, 1, kMs);
		TaskId ta = Task(Spec("a-reader", "a")), tb = Task(Spec("b-reader", "b"));
		for (const Write &w : writes) {
			struct blkcg *cg = sim_blkcg_find(nullptr, w.cgroup);
			EXPECT_NE(cg, nullptr) << w.cgroup;
			if (!cg)
				return 0;
			EXPECT_EQ(CgWrite(cg, w.file, w.value), 0) << w.file << " " << w.value;
		}
		const int64_t end = m_->now() + 6000 * kMs;
		Loop(ta, 1, 65536, 1 * kGiB, end);
		Loop(tb, 1, 65536, 2 * kGiB, end);
		m_->run_until(end);
		auto g = Groups();
		return g["/a"].device_busy_ms / g["/b"].device_busy_ms;
	}
	double Ratio(const char *file, const char *wa, const char *wb)
	{
		double r = Run({{"a", file, wa}, {"b", file, wb}});
		auto g = Groups();
		printf("tool weights: %s %s : %s -> engine %u : %u, busy %.3f\n", file, wa, wb,
		       g["/a"].weight, g["/b"].weight, r);
		return r;
	}
};

TEST_F(ToolWeights, IoWeight800To200IsFourToOne)
{
	EXPECT_NEAR(Ratio("io.efq.io_weight", "default 800", "default 200"), 4.0, 0.3);
	EXPECT_EQ(Groups()["/a"].weight, 4000u);
}

TEST_F(ToolWeights, IoWeightAtTheBottomOfItsRangeKeepsTheRatio)
{
	EXPECT_NEAR(Ratio("io.efq.io_weight", "4", "1"), 4.0, 0.3);
	EXPECT_EQ(Groups()["/b"].weight, 5u);
}

TEST_F(ToolWeights, IoWeightAtTheTopOfItsRangeKeepsTheRatio)
{
	EXPECT_NEAR(Ratio("io.efq.io_weight", "10000", "2500"), 4.0, 0.3);
	EXPECT_EQ(Groups()["/a"].weight, 50000u);
}

// runc's --blkio-weight 750 and 250 as it writes them to io.weight
// (1 + (x - 10) * 9999 / 990): 7475 and 2425.
TEST_F(ToolWeights, RuncsConvertedWeightsKeepTheirRatio)
{
	EXPECT_NEAR(Ratio("io.efq.io_weight", "default 7475", "default 2425"), 7475.0 / 2425, 0.2);
}

TEST_F(ToolWeights, BlkioWeight1000To250IsFourToOne)
{
	EXPECT_NEAR(Ratio("blkio.weight", "1000", "250"), 4.0, 0.3);
	EXPECT_EQ(Groups()["/b"].weight, 250u);
}

// An explicit io.efq.weight wins over io.weight: b pinned at 500 stays
// there though its io.weight says 10000, against a's followed 400 (2000).
TEST_F(ToolWeights, AWrittenIoEfqWeightWinsOverIoWeight)
{
	double r = Run({{"b", "io.efq.weight", "500"},
			{"a", "io.efq.io_weight", "default 400"},
			{"b", "io.efq.io_weight", "default 10000"}});
	printf("tool weights: io.efq.weight 500 over io.weight 10000: a:b busy %.3f\n", r);
	EXPECT_EQ(Groups()["/b"].weight, 500u);
	EXPECT_NEAR(r, 4.0, 0.3);
}

} // namespace
