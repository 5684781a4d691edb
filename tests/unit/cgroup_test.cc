// SPDX-License-Identifier: GPL-2.0
// Weight, class and per-device policy of cgroups (io.efq.weight,
// io.efq.ioprio_class, io.efq.policy), weight and class changes of queues
// and groups, queue references, and lock checking (the rules of
// Documentation/block/io-controller.rst, "Groups and cgroups" and
// "Locking and context").

#include <cstdlib>
#include <cstring>

#include "efq_harness.h"

using namespace efqt;

namespace {

class CgroupWeight : public EfqTest {};
class CgroupClass : public EfqTest {};
class CgroupPolicy : public EfqTest {};
class CgroupWeightFile : public EfqTest {};
class CgroupPolicyFile : public EfqTest {};
class WeightChange : public EfqTest {};
class QueueRefs : public EfqTest {};
class Locking : public EfqTest {};

// A second disk (no efq on it), for rules that must not leak across disks.
struct OtherDisk {
	std::unique_ptr<struct request_queue> q = std::make_unique<struct request_queue>();
	std::unique_ptr<struct gendisk> disk = std::make_unique<struct gendisk>();
	OtherDisk(int major, int minor)
	{
		disk->major = major;
		disk->first_minor = minor;
		disk->minors = 1;
		q->node = -1;
		EXPECT_EQ(sim_queue_init(q.get(), disk.get()), 0);
	}
	~OtherDisk() { sim_queue_exit(q.get()); }
};

int WriteWeight(struct blkcg *cg, const char *s)
{
	std::string buf(s);
	return efq_cgroup_write_weight(cg, buf.data());
}

int WritePolicy(struct blkcg *cg, const char *s)
{
	std::string buf(s);
	return efq_cgroup_write_policy(cg, buf.data());
}

// ---------------------------------------------------------------------------
// CgroupWeight / CgroupClass
// ---------------------------------------------------------------------------

TEST_F(CgroupWeight, OutsideRange100To1000IsEinval)
{
	struct blkcg *cg = Cgroup("a");
	struct efq_group *g = GroupOf(cg);
	EXPECT_EQ(efq_cgroup_set_weight(cg, 0), -EINVAL);
	EXPECT_EQ(efq_cgroup_set_weight(cg, 99), -EINVAL);
	EXPECT_EQ(efq_cgroup_set_weight(cg, 1001), -EINVAL);
	EXPECT_EQ(g->entity.new_weight, 500u);
	EXPECT_FALSE(g->entity.prio_changed);
	EXPECT_EQ(efq_cgroup_set_weight(cg, 100), 0);
	EXPECT_EQ(g->entity.new_weight, 100u);
	EXPECT_EQ(efq_cgroup_set_weight(cg, 1000), 0);
	EXPECT_EQ(g->entity.new_weight, 1000u);
}

TEST_F(CgroupClass, OutsideRange1To3IsEinval)
{
	struct blkcg *cg = Cgroup("a");
	struct efq_group *g = GroupOf(cg);
	EXPECT_EQ(efq_cgroup_set_ioprio_class(cg, 0), -EINVAL);
	EXPECT_EQ(efq_cgroup_set_ioprio_class(cg, 4), -EINVAL);
	EXPECT_EQ(g->entity.new_class, IOPRIO_CLASS_BE);
	for (unsigned c = 1; c <= 3; c++) {
		EXPECT_EQ(efq_cgroup_set_ioprio_class(cg, c), 0);
		EXPECT_EQ(g->entity.new_class, c);
	}
}

TEST_F(CgroupWeight, DefaultsAre500AndBestEffortAndNotInherited)
{
	struct blkcg *a = Cgroup("a", nullptr, 800, IOPRIO_CLASS_RT);
	struct blkcg *b = Cgroup("b", a);
	struct efq_group *gb = GroupOf(b);
	EXPECT_EQ(gb->entity.weight, 500u);
	EXPECT_EQ(gb->entity.ioprio_class, IOPRIO_CLASS_BE);
	struct efq_group *ga = GroupOf(a);
	EXPECT_EQ(ga->entity.weight, 800u);
	EXPECT_EQ(ga->entity.ioprio_class, IOPRIO_CLASS_RT);
}

TEST_F(CgroupWeight, NewWeightAppliesAtTheGroupsNextRequeueKeepingItsVdisktime)
{
	efqd()->fairness = 1;
	struct blkcg *cg = Cgroup("a");
	struct efq_group *g = GroupOf(cg);
	FakeQueue *q = NewQueue(g);
	AddN(q, 4);
	ASSERT_EQ(Select(), q);
	EXPECT_EQ(efq_cgroup_set_weight(cg, 800), 0);
	EXPECT_EQ(g->entity.weight, 500u); // in service: applied at put_prev
	EXPECT_EQ(g->entity.new_weight, 800u);
	Complete(DispatchFrom(q));
	Advance(10 * kMs);
	Expire(); // charged at the old weight, then the new one applies
	EXPECT_EQ(g->entity.weight, 800u);
	EXPECT_EQ(g->entity.vdisktime, Vt(10 * kMs, 500));
	RunSlice(q, 8 * kMs);
	EXPECT_EQ(g->entity.vdisktime, Vt(10 * kMs, 500) + Vt(8 * kMs, 800));
}

TEST_F(CgroupClass, ClassChangeMovesTheGroupToTheNewTreeAsANewcomer)
{
	efqd()->fairness = 1;
	struct blkcg *cg = Cgroup("a");
	struct efq_group *g = GroupOf(cg);
	FakeQueue *q = NewQueue(g);
	AddN(q, 4);
	RunSlice(q, 10 * kMs);
	ASSERT_EQ(g->entity.vdisktime, Vt(10 * kMs));
	EXPECT_EQ(efq_cgroup_set_ioprio_class(cg, IOPRIO_CLASS_RT), 0);
	EXPECT_EQ(g->entity.ioprio_class, IOPRIO_CLASS_BE);
	RunSlice(q, 10 * kMs);
	EXPECT_EQ(g->entity.ioprio_class, IOPRIO_CLASS_RT);
	EXPECT_EQ(g->entity.st, St(Root(), IOPRIO_CLASS_RT));
	EXPECT_EQ(g->entity.vdisktime, 0u); // the RT tree's clock
	EXPECT_FALSE(g->entity.has_history);
	EXPECT_EQ(St(Root(), IOPRIO_CLASS_BE)->nr_active, 0u);
	EXPECT_EQ(St(Root(), IOPRIO_CLASS_RT)->nr_active, 1u);
	EXPECT_EQ(Root()->sched_data.nr_active, 1u);
	EXPECT_EQ(CheckInvariants(), "");
}

// ---------------------------------------------------------------------------
// CgroupPolicy (per-device rules)
// ---------------------------------------------------------------------------

TEST_F(CgroupPolicy, PerDeviceRuleOverridesTheDefault)
{
	OtherDisk sdb(8, 16);
	struct blkcg *cg = Cgroup("a");
	struct efq_group *g = GroupOf(cg);
	EXPECT_EQ(efq_cgroup_set_dev_policy(cg, MKDEV(8, 16), 900, IOPRIO_CLASS_BE), 0);
	EXPECT_EQ(g->entity.new_weight, 500u); // another disk's rule
	EXPECT_EQ(efq_cgroup_set_dev_policy(cg, MKDEV(8, 0), 800, IOPRIO_CLASS_RT), 0);
	EXPECT_EQ(g->entity.new_weight, 800u);
	EXPECT_EQ(g->entity.new_class, IOPRIO_CLASS_RT);
	EXPECT_EQ(efq_cgroup_set_weight(cg, 300), 0);
	EXPECT_EQ(efq_cgroup_set_ioprio_class(cg, IOPRIO_CLASS_IDLE), 0);
	EXPECT_EQ(g->entity.new_weight, 800u);
	EXPECT_EQ(g->entity.new_class, IOPRIO_CLASS_RT);
}

TEST_F(CgroupPolicy, RemovingTheRuleRevertsToTheCgroupDefaults)
{
	struct blkcg *cg = Cgroup("a", nullptr, 300, IOPRIO_CLASS_IDLE);
	struct efq_group *g = GroupOf(cg);
	EXPECT_EQ(efq_cgroup_set_dev_policy(cg, MKDEV(8, 0), 800, IOPRIO_CLASS_RT), 0);
	EXPECT_EQ(g->entity.new_weight, 800u);
	EXPECT_EQ(efq_cgroup_set_dev_policy(cg, MKDEV(8, 0), 0, IOPRIO_CLASS_BE), 0);
	EXPECT_EQ(g->entity.new_weight, 300u);
	EXPECT_EQ(g->entity.new_class, IOPRIO_CLASS_IDLE);
}

TEST_F(CgroupPolicy, RuleAppliesToGroupsCreatedLater)
{
	struct blkcg *cg = Cgroup("a", nullptr, 300);
	EXPECT_EQ(efq_cgroup_set_dev_policy(cg, MKDEV(8, 0), 700, IOPRIO_CLASS_RT), 0);
	struct efq_group *g = GroupOf(cg);
	EXPECT_EQ(g->entity.weight, 700u);
	EXPECT_EQ(g->entity.ioprio_class, IOPRIO_CLASS_RT);
}

TEST_F(CgroupPolicy, RuleWeightOutOfRangeOrBadClassIsEinval)
{
	struct blkcg *cg = Cgroup("a");
	EXPECT_EQ(efq_cgroup_set_dev_policy(cg, MKDEV(8, 0), 99, IOPRIO_CLASS_BE), -EINVAL);
	EXPECT_EQ(efq_cgroup_set_dev_policy(cg, MKDEV(8, 0), 1001, IOPRIO_CLASS_BE), -EINVAL);
	EXPECT_EQ(efq_cgroup_set_dev_policy(cg, MKDEV(8, 0), 500, 0), -EINVAL);
	EXPECT_EQ(efq_cgroup_set_dev_policy(cg, MKDEV(8, 0), 0, 4), -EINVAL);
	EXPECT_EQ(efq_cgroup_set_dev_policy(cg, MKDEV(8, 0), 100, IOPRIO_CLASS_BE), 0);
}

// ---------------------------------------------------------------------------
// io.efq.weight
// ---------------------------------------------------------------------------

TEST_F(CgroupWeightFile, AcceptsNDefaultNMajMinNAndMajMinDefault)
{
	struct blkcg *cg = Cgroup("a");
	struct efq_group *g = GroupOf(cg);
	EXPECT_EQ(WriteWeight(cg, "300"), 0);
	EXPECT_EQ(g->entity.new_weight, 300u);
	EXPECT_EQ(WriteWeight(cg, "default 400\n"), 0);
	EXPECT_EQ(g->entity.new_weight, 400u);
	EXPECT_EQ(WriteWeight(cg, "8:0 700"), 0);
	EXPECT_EQ(g->entity.new_weight, 700u);
	EXPECT_EQ(WriteWeight(cg, "200"), 0); // the rule still wins
	EXPECT_EQ(g->entity.new_weight, 700u);
	EXPECT_EQ(WriteWeight(cg, "8:0 default"), 0);
	EXPECT_EQ(g->entity.new_weight, 200u);
	EXPECT_EQ(WriteWeight(cg, "  250\t\n"), 0);
	EXPECT_EQ(g->entity.new_weight, 250u);
}

TEST_F(CgroupWeightFile, DeviceLineKeepsTheRulesClass)
{
	struct blkcg *cg = Cgroup("a");
	struct efq_group *g = GroupOf(cg);
	EXPECT_EQ(WritePolicy(cg, "8:0 800 1"), 0);
	EXPECT_EQ(WriteWeight(cg, "8:0 600"), 0);
	EXPECT_EQ(g->entity.new_weight, 600u);
	EXPECT_EQ(g->entity.new_class, IOPRIO_CLASS_RT);
}

TEST_F(CgroupWeightFile, MalformedLinesAreEinval)
{
	struct blkcg *cg = Cgroup("a");
	struct efq_group *g = GroupOf(cg);
	const char *bad[] = {
		"",	      "\n",	   "abc",	   "8:0",	    "default",
		"8:0 0",      "8:0 abc",   "8 700",	   "8:0 700 1",	    "default 400 1",
		"-5",	      "8:x 700",   "x:0 700",	   "default abc",   "99",
		"1001",	      "8:0 99",	   "8:0 1001",	   "8:0 -1",	    "300abc",
		"default -1", "8:0:0 700", "defaults 300", "8:1048576 700", "4096:0 700",
	};
	for (const char *s : bad)
		EXPECT_EQ(WriteWeight(cg, s), -EINVAL) << "\"" << s << "\"";
	EXPECT_EQ(g->entity.new_weight, 500u);
	EXPECT_FALSE(g->entity.prio_changed);
}

TEST_F(CgroupWeightFile, UnknownDeviceIsEnodev)
{
	struct blkcg *cg = Cgroup("a");
	EXPECT_EQ(WriteWeight(cg, "9:0 700"), -ENODEV);
	// removing needs no disk (there is no rule to remove here)
	EXPECT_EQ(WriteWeight(cg, "9:0 default"), 0);
}

// A policy writer (echo "8:0 300 1" > io.efq.policy) runs at each sleep
// point of a weight write (echo "8:0 700" > io.efq.weight) in turn: the
// result is one of the two orders, never the weight writer writing back a
// class it read before the policy write.
TEST_F(CgroupWeightFile, DeviceLineRacingAPolicyWriteNeverLosesTheClass)
{
	struct blkcg *cg = Cgroup("a");
	struct Race {
		struct blkcg *cg;
		int at;
		int n;
		bool ran;
	};
	int at;
	for (at = 1; at < 100; at++) {
		ASSERT_EQ(WritePolicy(cg, "8:0 0 2"), 0); // no rule to start with
		Race r{cg, at, 0, false};
		sim_set_sleep_hook(
			[](void *arg) {
				auto *r = static_cast<Race *>(arg);
				if (++r->n != r->at)
					return;
				r->ran = true;
				EXPECT_EQ(WritePolicy(r->cg, "8:0 300 1"), 0);
			},
			&r);
		EXPECT_EQ(WriteWeight(cg, "8:0 700"), 0);
		sim_set_sleep_hook(nullptr, nullptr);
		if (!r.ran)
			break;
		int err = 0;
		char *rules = sim_cgroup_read(cg, "io.efq.policy", &err);
		ASSERT_NE(rules, nullptr);
		std::string got(rules);
		std::free(rules);
		EXPECT_TRUE(got == "dev\tweight\tclass\n8:0\t700\t1\n" ||
			    got == "dev\tweight\tclass\n8:0\t300\t1\n")
			<< "policy write at sleep point " << at << ": " << got;
	}
	EXPECT_GT(at, 1); // the weight write has a sleep point at least
}

// Each refusal says why in its own words: a weight out of range, or a line
// of the wrong shape ("MAJ:MIN 0" is a removal in io.efq.policy and
// malformed in io.efq.weight).  tests/vm/55-random-writer.sh counts the
// messages by these words.
TEST_F(CgroupWeightFile, EachRefusalNamesItsReason)
{
	struct blkcg *cg = Cgroup("a");
	static std::string last;
	sim_printk_set_hook(
		[](int level, const char *msg, void *) {
			if (level == LOGLEVEL_WARNING)
				last = msg;
		},
		nullptr);
	struct {
		const char *file, *line, *says;
	} cases[] = {
		{"io.efq.weight", "8:0 0", "io.efq.weight takes"},
		{"io.efq.weight", "+500", "io.efq.weight takes"},
		{"io.efq.weight", "0", "io.efq.weight: weight 0 out of range 100..1000"},
		{"io.efq.weight", "8:0 50", "io.efq.weight: weight 50 out of range"},
		{"io.efq.io_weight", "10001",
		 "io.efq.io_weight: weight 10001 out of range 1..10000"},
		{"io.efq.io_weight", "default x", "io.efq.io_weight takes"},
		{"io.efq.policy", "8:0 50 1", "io.efq.policy: weight 50 out of range 100..1000"},
		{"io.efq.policy", "8:0 x 1", "io.efq.policy must be"},
		{"blkio.weight", "9", "blkio.weight: weight 9 out of range 10..1000"},
		{"blkio.policy", "8:0 9 1", "blkio.policy: weight 9 out of range 10..1000"},
	};
	for (const auto &c : cases) {
		last.clear();
		Advance(6 * NSEC_PER_SEC); // past any ratelimit
		EXPECT_EQ(sim_cgroup_write(cg, c.file, c.line), -EINVAL) << c.file << " " << c.line;
		EXPECT_NE(last.find(c.says), std::string::npos)
			<< c.file << " '" << c.line << "': " << last;
	}
	sim_printk_set_hook(nullptr, nullptr);
}

// Malformed writes may come from delegated users: each fails with an errno
// and their warnings are ratelimited (10 per call site per 5 s, as the
// kernel's default ratelimit state).
TEST_F(CgroupWeightFile, BadWritesFailWithAnErrnoAndWarnRatelimited)
{
	struct blkcg *cg = Cgroup("a");
	int warnings = 0;
	sim_printk_set_hook(
		[](int level, const char *msg, void *arg) {
			if (level == LOGLEVEL_WARNING && !strncmp(msg, "efq: ", 5))
				++*static_cast<int *>(arg);
		},
		&warnings);
	for (int i = 0; i < 100; i++)
		EXPECT_EQ(WriteWeight(cg, "abc"), -EINVAL);
	EXPECT_EQ(warnings, 10);
	Advance(5 * NSEC_PER_SEC + 10 * kMs);
	EXPECT_EQ(WriteWeight(cg, "abc"), -EINVAL);
	EXPECT_EQ(warnings, 11);

	// every kind of bad write fails, and none floods the log
	struct {
		const char *file, *line;
		int err;
	} bad[] = {
		{"io.efq.weight", "abc", -EINVAL},	 {"io.efq.weight", "99", -EINVAL},
		{"io.efq.weight", "default 0", -EINVAL}, {"io.efq.weight", "8:0 0", -EINVAL},
		{"io.efq.weight", "9:0 700", -ENODEV},	 {"io.efq.weight", "8:1 700", -ENODEV},
		{"io.efq.policy", "8:0 300", -EINVAL},	 {"io.efq.policy", "8:0 300 4", -EINVAL},
		{"io.efq.policy", "8:0 50 1", -EINVAL},	 {"io.efq.policy", "9:0 300 1", -ENODEV},
		{"io.efq.ioprio_class", "0", -EINVAL},	 {"io.efq.ioprio_class", "4", -EINVAL},
	};
	Advance(6 * NSEC_PER_SEC);
	warnings = 0;
	for (int i = 0; i < 50; i++)
		for (const auto &b : bad)
			EXPECT_EQ(sim_cgroup_write(cg, b.file, b.line), b.err)
				<< b.file << " " << b.line;
	EXPECT_LE(warnings, 10 * (int)(sizeof(bad) / sizeof(bad[0])));
	EXPECT_GT(warnings, 0);
	sim_printk_set_hook(nullptr, nullptr);
	int err = 0;
	char *rules = sim_cgroup_read(cg, "io.efq.policy", &err);
	ASSERT_NE(rules, nullptr);
	EXPECT_STREQ(rules, ""); // nothing changed
	std::free(rules);
}

// ---------------------------------------------------------------------------
// io.efq.policy
// ---------------------------------------------------------------------------

TEST_F(CgroupPolicyFile, SetsWeightAndClassForOneDisk)
{
	struct blkcg *cg = Cgroup("a");
	struct efq_group *g = GroupOf(cg);
	EXPECT_EQ(WritePolicy(cg, "8:0 800 1"), 0);
	EXPECT_EQ(g->entity.new_weight, 800u);
	EXPECT_EQ(g->entity.new_class, IOPRIO_CLASS_RT);
	EXPECT_EQ(WritePolicy(cg, "8:0 900 3\n"), 0); // overwrite
	EXPECT_EQ(g->entity.new_weight, 900u);
	EXPECT_EQ(g->entity.new_class, IOPRIO_CLASS_IDLE);
	EXPECT_EQ(WritePolicy(cg, "8:0 0 2"), 0); // weight 0 removes
	EXPECT_EQ(g->entity.new_weight, 500u);
	EXPECT_EQ(g->entity.new_class, IOPRIO_CLASS_BE);
	EXPECT_EQ(WritePolicy(cg, "8:0 0 2"), 0); // removing nothing is fine
}

TEST_F(CgroupPolicyFile, MalformedLinesAreEinval)
{
	struct blkcg *cg = Cgroup("a");
	struct efq_group *g = GroupOf(cg);
	const char *bad[] = {
		"",
		"8:0",
		"8:0 800",
		"8:0 800 2 1",
		"8-0 800 2",
		"8:x 800 2",
		"x:0 800 2",
		"8:0 abc 2",
		"8:0 800 x",
		"8:0 50 2",
		"8:0 1001 2",
		"8:0 800 0",
		"8:0 800 4",
		"8:0 -800 2",
		"8:0 800 -1",
		"8 800 2",
		"8:1048576 800 2",
		"default 800 2",
		"8:0 800 2x",
		"8:0 0 4",
	};
	for (const char *s : bad)
		EXPECT_EQ(WritePolicy(cg, s), -EINVAL) << "\"" << s << "\"";
	EXPECT_EQ(g->entity.new_weight, 500u);
	EXPECT_FALSE(g->entity.prio_changed);
}

TEST_F(CgroupPolicyFile, UnknownDeviceIsEnodev)
{
	struct blkcg *cg = Cgroup("a");
	EXPECT_EQ(WritePolicy(cg, "9:0 800 2"), -ENODEV);
	EXPECT_EQ(WritePolicy(cg, "8:16 800 2"), -ENODEV);
	EXPECT_EQ(WritePolicy(cg, "9:0 50 2"), -EINVAL); // values first
}

TEST_F(CgroupPolicyFile, PartitionIsEnodev)
{
	// 8:1 is partition 1 of the device's disk (8:0, 16 minors): a
	// partition has no request queue, no blkg and no group of its own.
	struct blkcg *cg = Cgroup("a");
	EXPECT_EQ(WritePolicy(cg, "8:1 800 2"), -ENODEV);
	EXPECT_EQ(WriteWeight(cg, "8:1 800"), -ENODEV);
	OtherDisk whole(8, 1); // a whole disk of that number is fine
	EXPECT_EQ(WritePolicy(cg, "8:1 800 2"), 0);
}

// A cgroup write must not open the disk: blkdev_get_by_dev() runs the
// driver's open (spin-up, medium check; it fails without a medium) from a
// possibly delegated user's write.
TEST_F(CgroupPolicyFile, RulesNeverOpenTheDisk)
{
	struct blkcg *cg = Cgroup("a");
	struct efq_group *g = GroupOf(cg);
	sim_disk_set_open_error(disk_.get(), -ENOMEDIUM);
	EXPECT_EQ(WritePolicy(cg, "8:0 800 1"), 0);
	EXPECT_EQ(g->entity.new_weight, 800u);
	EXPECT_EQ(WriteWeight(cg, "8:0 700"), 0);
	EXPECT_EQ(g->entity.new_weight, 700u);
	EXPECT_EQ(WriteWeight(cg, "8:0 default"), 0);
	EXPECT_EQ(WritePolicy(cg, "8:0 0 1"), 0);
	EXPECT_EQ(sim_disk_opens(disk_.get()), 0u);
	sim_disk_set_open_error(disk_.get(), 0);
}

// The rules of a disk that went away can be removed (they would otherwise
// stay, and apply to the next disk with that number); adding one still
// needs the disk.
TEST_F(CgroupPolicyFile, RuleOfARemovedDiskCanBeRemoved)
{
	struct blkcg *cg = Cgroup("a");
	{
		OtherDisk sdb(8, 16), sdc(8, 32);
		EXPECT_EQ(WritePolicy(cg, "8:16 800 1"), 0);
		EXPECT_EQ(WriteWeight(cg, "8:32 300"), 0);
	} // both disks are removed
	sim_quiesce();
	int err = 0;
	char *rules = sim_cgroup_read(cg, "io.efq.policy", &err);
	ASSERT_NE(rules, nullptr);
	EXPECT_STREQ(rules, "dev\tweight\tclass\n8:32\t300\t2\n8:16\t800\t1\n");
	std::free(rules);
	EXPECT_EQ(WritePolicy(cg, "8:16 0 1"), 0);
	EXPECT_EQ(WriteWeight(cg, "8:32 default"), 0);
	rules = sim_cgroup_read(cg, "io.efq.policy", &err);
	ASSERT_NE(rules, nullptr);
	EXPECT_STREQ(rules, "");
	std::free(rules);
	EXPECT_EQ(WritePolicy(cg, "8:16 800 1"), -ENODEV);
	EXPECT_EQ(WriteWeight(cg, "8:32 300"), -ENODEV);
}

// ---------------------------------------------------------------------------
// WeightChange (queues)
// ---------------------------------------------------------------------------

// The lightest group (io.weight 1: efq 5) charged for days in one slice
// (absurd slice tunables allow it): its virtual time grows 100 times the
// default's, and one charge is capped near two days so that the key keeps
// its sign and the scaling its 64-bit quotient (x86's divq faults, and so
// does the shim's).
TEST_F(WeightChange, ADaysLongChargeOfTheLightestGroupIsCapped)
{
	efqd()->fairness = 1;
	efqd()->slice[1] = 20ULL * 24 * 3600 * 1000 * kMs; // 20 days
	struct blkcg *cg = Cgroup("a");
	std::string w = "1";
	ASSERT_EQ(efq_cgroup_write_io_weight(cg, w.data()), 0);
	struct efq_group *g = GroupOf(cg);
	FakeQueue *q = NewQueue(g);
	AddN(q, 4);
	RunSlice(q, 9ULL * 24 * 3600 * 1000 * kMs); // 9 days
	EXPECT_EQ(g->entity.weight, 5u);
	const u64 cap = ((1ULL << 62) >> EFQ_SERVICE_SHIFT) / 100;
	EXPECT_EQ(g->entity.vdisktime, Vt(cap, 5));
	EXPECT_GT((s64)g->entity.vdisktime, 0);
	EXPECT_EQ(CheckInvariants(), "");
}

TEST_F(WeightChange, WeightOnlyChangeKeepsTheVdisktime)
{
	efqd()->fairness = 1;
	FakeQueue *a = NewQueue(Root());
	AddN(a, 4);
	RunSlice(a, 10 * kMs);
	EXPECT_EQ(efq_queue_set_ioprio(a->ioq, 0), 0);
	RunSlice(a, 9 * kMs); // charged at 500, then weight 900 applies
	EXPECT_EQ(a->ioq->entity.weight, 900u);
	EXPECT_EQ(a->ioq->entity.vdisktime, Vt(10 * kMs) + Vt(9 * kMs));
	EXPECT_EQ(efq_queue_slice(efqd(), a->ioq), 180 * kMs);
	RunSlice(a, 9 * kMs);
	EXPECT_EQ(a->ioq->entity.vdisktime, Vt(10 * kMs) + Vt(9 * kMs) + 1280000000ULL);
}

TEST_F(WeightChange, ClassChangeMovesTheQueueToTheNewTreeAsANewcomer)
{
	efqd()->fairness = 1;
	FakeQueue *a = NewQueue(Root());
	AddN(a, 3);
	RunSlice(a, 10 * kMs);
	EXPECT_EQ(efq_queue_set_ioprio_class(a->ioq, IOPRIO_CLASS_RT), 0);
	RunSlice(a, 10 * kMs);
	EXPECT_EQ(a->ioq->entity.ioprio_class, IOPRIO_CLASS_RT);
	EXPECT_EQ(a->ioq->entity.st, St(Root(), IOPRIO_CLASS_RT));
	EXPECT_EQ(a->ioq->entity.vdisktime, 0u);
	EXPECT_EQ(St(Root(), IOPRIO_CLASS_BE)->nr_active, 0u);
	EXPECT_EQ(St(Root(), IOPRIO_CLASS_RT)->nr_active, 1u);
	EXPECT_EQ(CheckInvariants(), "");
}

TEST_F(WeightChange, ClassChangeOfAnIdleQueueAppliesWhenItIsEnqueued)
{
	FakeQueue *a = NewQueue(Root()), *b = NewQueue(Root());
	EXPECT_EQ(efq_queue_set_ioprio_class(a->ioq, IOPRIO_CLASS_IDLE), 0);
	Add(a);
	Add(b);
	EXPECT_EQ(a->ioq->entity.st, St(Root(), IOPRIO_CLASS_IDLE));
	EXPECT_EQ(Select(), b);
}

TEST_F(WeightChange, NrSyncFollowsAClassChangeToIdle)
{
	struct efq_group *g = GroupOf(Cgroup("a"));
	FakeQueue *q = NewQueue(g);
	AddN(q, 3);
	EXPECT_EQ(g->sched_data.nr_sync, 1u);
	EXPECT_EQ(efq_queue_set_ioprio_class(q->ioq, IOPRIO_CLASS_IDLE), 0);
	RunSlice(q, 1 * kMs);
	EXPECT_EQ(g->sched_data.nr_sync, 0u);
	EXPECT_EQ(CheckInvariants(), "");
}

// ---------------------------------------------------------------------------
// QueueRefs
// ---------------------------------------------------------------------------

TEST_F(QueueRefs, RequestsAndBusyStateEachHoldOne)
{
	FakeQueue *a = NewQueue(Root());
	EXPECT_EQ(refcount_read(&a->ioq->ref), 1u);
	Add(a);
	EXPECT_EQ(refcount_read(&a->ioq->ref), 3u); // owner, request, busy
	Add(a);
	EXPECT_EQ(refcount_read(&a->ioq->ref), 4u);
	ASSERT_EQ(Select(), a);
	Complete(DispatchFrom(a));
	Complete(DispatchFrom(a)); // last busy queue: expired, dequeued
	EXPECT_EQ(refcount_read(&a->ioq->ref), 1u);
	Release(a);
	EXPECT_TRUE(a->freed);
	EXPECT_EQ(hooks.freed, 1);
}

TEST_F(QueueRefs, AsyncSlotHoldsOneUntilTheGroupGoesOffline)
{
	struct blkcg *cg = Cgroup("a");
	struct efq_group *g = GroupOf(cg);
	FakeQueue *w = AsyncQueue(g, IOPRIO_CLASS_BE, 2);
	EXPECT_EQ(refcount_read(&w->ioq->ref), 1u);
	EXPECT_EQ(efq_group_async_queue(g, IOPRIO_CLASS_BE, 2), w->ioq);
	EXPECT_EQ(efq_group_async_queue(g, IOPRIO_CLASS_BE, 3), nullptr);
	EXPECT_EQ(efq_group_async_queue(g, IOPRIO_CLASS_RT, 2), nullptr);
	FakeQueue *wi = AsyncQueue(g, IOPRIO_CLASS_IDLE, 0);
	EXPECT_EQ(efq_group_async_queue(g, IOPRIO_CLASS_IDLE, 7), wi->ioq); // one idle slot
	DestroyCgroup(cg);
	EXPECT_TRUE(w->freed);
	EXPECT_TRUE(wi->freed);
}

TEST_F(QueueRefs, QueueHoldsItsGroupAndGroupsHoldTheirParent)
{
	struct blkcg *a = Cgroup("a");
	struct efq_group *ga = GroupOf(a);
	unsigned ra = refcount_read(&ga->ref);
	struct efq_group *gb = GroupOf(Cgroup("b", a));
	EXPECT_EQ(refcount_read(&ga->ref), ra + 1);
	unsigned rb = refcount_read(&gb->ref);
	FakeQueue *q = NewQueue(gb);
	EXPECT_EQ(refcount_read(&gb->ref), rb + 1);
	EXPECT_EQ(efq_queue_group(q->ioq), gb);
	Release(q);
	EXPECT_EQ(refcount_read(&gb->ref), rb);
}

TEST_F(QueueRefs, OomQueueIsAPermanentQueueOfTheRootGroup)
{
	Lock();
	struct efq_queue *oom = efq_oom_queue(efqd());
	Unlock();
	EXPECT_EQ(oom, &efqd()->oom_queue);
	EXPECT_EQ(efq_queue_group(oom), Root());
	EXPECT_EQ(refcount_read(&oom->ref), 2u);
	Lock();
	efq_put_queue(oom);
	Unlock();
	EXPECT_EQ(refcount_read(&oom->ref), 1u);
}

// ---------------------------------------------------------------------------
// Locking
// ---------------------------------------------------------------------------

TEST_F(Locking, EngineEntryPointWithoutTheLockIsDetected)
{
	EXPECT_EQ(efq_select_queue(efqd(), false), nullptr);
	ExpectLockErrors(1);
	EXPECT_EQ(efq_group_of_blkg(efqd(), nullptr), Root());
	ExpectLockErrors(1);
	efq_hold_dispatch(efqd());
	ExpectLockErrors(1);
	efqd()->hold = false;
	Lock();
	efq_hold_dispatch(efqd());
	Unlock();
	ExpectLockErrors(0);
	efqd()->hold = false;
}

TEST_F(Locking, RequestEventsWithoutTheLockAreDetected)
{
	FakeQueue *a = NewQueue(Root());
	struct request *rq = NewRequest(REQ_OP_READ, nullptr);
	rq->elv.priv[0] = a;
	efq_get_queue(a->ioq);
	efq_request_add(efqd(), a->ioq, rq); // no lock
	ExpectLockErrors(1);
	a->queued.push_back(rq);
	EXPECT_EQ(CheckInvariants(), "");
}

TEST_F(Locking, IdleTimerCallbackTakesTheLockItself)
{
	idle_ns = 2 * kMs;
	FakeQueue *a = NewQueue(Root()), *b = NewQueue(Root());
	Add(a);
	Add(b);
	ASSERT_EQ(Select(), a);
	Complete(DispatchFrom(a));
	Advance(2 * kMs); // fires in interrupt context, takes efqd->lock
	EXPECT_EQ(sim_lock_errors(), 0u);
	EXPECT_EQ(Expired(EFQ_EXPIRE_IDLE_TIMEOUT), 1u);
	EXPECT_FALSE(spin_is_locked(&efqd()->lock));
}

} // namespace
