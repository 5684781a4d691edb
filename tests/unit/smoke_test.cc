// SPDX-License-Identifier: GPL-2.0
#include "efq_harness.h"

using namespace efqt;

class Smoke : public EfqTest {};

TEST_F(Smoke, OneRequestRoundTrip)
{
	FakeQueue *a = NewQueue(Root());
	Add(a);
	struct request *rq = Dispatch();
	ASSERT_NE(rq, nullptr);
	Advance(1 * kMs);
	Complete(rq);
	EXPECT_EQ(CheckInvariants(), "");
}
