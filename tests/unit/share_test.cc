// SPDX-License-Identifier: GPL-2.0
// Long-run proportional share: always-backlogged queues and groups with
// mixed weights, each activation using its full slice.  Every entity's
// disk time (total_time) over the device's total must match its expected
// share -- the product of the weight fractions down its path, queues in a
// group sharing by their ioprio weight -- within 1%.

#include "efq_harness.h"

using namespace efqt;

namespace {

class LongRunShare : public EfqTest {
protected:
	struct Item {
		std::string name;
		struct efq_entity *e;
		double expect;
	};

	// Serve @slices activations, each using exactly its slice.
	void Serve(int slices)
	{
		int activations = hooks.active_set;
		for (int i = 0; i < slices; i++) {
			FakeQueue *fq = Select();
			ASSERT_NE(fq, nullptr) << "slice " << i;
			ASSERT_EQ(hooks.active_set, activations + i + 1) << "slice " << i;
			struct request *rq = DispatchFrom(fq);
			ASSERT_NE(rq, nullptr);
			Add(fq);      // always backlogged
			Complete(rq); // the slice starts now
			Advance(efq_queue_slice(efqd(), fq->ioq));
		}
		Expire();
	}

	void Check(const std::vector<Item> &items, double tolerance)
	{
		double total = (double)Root()->entity.total_time;
		double worst = 0;
		std::ostringstream report;
		for (const Item &it : items) {
			double share = (double)it.e->total_time / total;
			double err = share / it.expect - 1.0;
			if (std::abs(err) > worst)
				worst = std::abs(err);
			char line[160];
			std::snprintf(line, sizeof(line),
				      "  %-4s expected %.5f measured %.5f error %+.4f%%\n",
				      it.name.c_str(), it.expect, share, 100.0 * err);
			report << line;
			EXPECT_LT(std::abs(err), tolerance) << it.name;
		}
		report << "  worst error " << 100.0 * worst << "%";
		RecordProperty("shares", report.str());
		std::printf("%s\n", report.str().c_str());
	}
};

TEST_F(LongRunShare, ThreeLevelMixedWeightsWithin1PercentOver100000Slices)
{
	//   root
	//   +- A (800)
	//   |  +- A1 (300): q1 (prio 0, w900), q2 (prio 4, w500)
	//   |  +- A2 (600): q3 (prio 2, w700)
	//   +- B (200)
	//   |  +- B1 (1000): q4 (prio 4, w500), q5 (prio 7, w200)
	//   |  +- q6 (prio 6, w300)
	//   +- r1 (prio 4, w500)
	struct blkcg *a = Cgroup("A", nullptr, 800);
	struct blkcg *a1 = Cgroup("A1", a, 300);
	struct blkcg *a2 = Cgroup("A2", a, 600);
	struct blkcg *b = Cgroup("B", nullptr, 200);
	struct blkcg *b1 = Cgroup("B1", b, 1000);
	struct efq_group *ga = GroupOf(a), *ga1 = GroupOf(a1), *ga2 = GroupOf(a2);
	struct efq_group *gb = GroupOf(b), *gb1 = GroupOf(b1);
	FakeQueue *q1 = NewQueue(ga1, true, 0), *q2 = NewQueue(ga1, true, 4);
	FakeQueue *q3 = NewQueue(ga2, true, 2);
	FakeQueue *q4 = NewQueue(gb1, true, 4), *q5 = NewQueue(gb1, true, 7);
	FakeQueue *q6 = NewQueue(gb, true, 6);
	FakeQueue *r1 = NewQueue(Root(), true, 4);
	for (FakeQueue *q : {q1, q2, q3, q4, q5, q6, r1})
		AddN(q, 2);

	Serve(100000);
	ASSERT_FALSE(HasFatalFailure());

	const double root_w = 800 + 200 + 500;
	const double A = 800 / root_w, B = 200 / root_w, R = 500 / root_w;
	const double A1 = A * 300 / 900, A2 = A * 600 / 900;
	const double B1 = B * 1000 / 1300;
	std::vector<Item> items = {
		{"A", &ga->entity, A},
		{"A1", &ga1->entity, A1},
		{"A2", &ga2->entity, A2},
		{"B", &gb->entity, B},
		{"B1", &gb1->entity, B1},
		{"q1", &q1->ioq->entity, A1 * 900 / 1400},
		{"q2", &q2->ioq->entity, A1 * 500 / 1400},
		{"q3", &q3->ioq->entity, A2},
		{"q4", &q4->ioq->entity, B1 * 500 / 700},
		{"q5", &q5->ioq->entity, B1 * 200 / 700},
		{"q6", &q6->ioq->entity, B * 300 / 1300},
		{"r1", &r1->ioq->entity, R},
	};
	Check(items, 0.01);
	EXPECT_EQ(Expired(EFQ_EXPIRE_SLICE_USED), 99999u);
}

TEST_F(LongRunShare, FlatModeFollowsIoprioWeightsWithin1Percent)
{
	Options o;
	o.hierarchical = false;
	Reinit(o);
	FakeQueue *p0 = NewQueue(Root(), true, 0), *p4 = NewQueue(Root(), true, 4);
	FakeQueue *p7 = NewQueue(Root(), true, 7);
	for (FakeQueue *q : {p0, p4, p7})
		AddN(q, 2);
	Serve(10000);
	ASSERT_FALSE(HasFatalFailure());
	const double w = 900 + 500 + 200;
	Check({{"p0", &p0->ioq->entity, 900 / w},
	       {"p4", &p4->ioq->entity, 500 / w},
	       {"p7", &p7->ioq->entity, 200 / w}},
	      0.01);
}

TEST_F(LongRunShare, WeightChangeMidRunMovesTheShare)
{
	struct blkcg *a = Cgroup("a", nullptr, 500);
	struct blkcg *b = Cgroup("b", nullptr, 500);
	struct efq_group *ga = GroupOf(a), *gb = GroupOf(b);
	FakeQueue *qa = NewQueue(ga), *qb = NewQueue(gb);
	AddN(qa, 2);
	AddN(qb, 2);
	Serve(2000);
	ASSERT_FALSE(HasFatalFailure());
	u64 ta = ga->entity.total_time, tb = gb->entity.total_time;
	EXPECT_NEAR((double)ta / (double)tb, 1.0, 0.01);
	EXPECT_EQ(efq_cgroup_set_weight(a, 1000), 0);
	Serve(30000);
	ASSERT_FALSE(HasFatalFailure());
	double ra = (double)(ga->entity.total_time - ta), rb = (double)(gb->entity.total_time - tb);
	EXPECT_NEAR(ra / rb, 2.0, 0.02);
}

} // namespace
