// SPDX-License-Identifier: GPL-2.0
// Per-IO records from events: queue to completion, merges folded into their
// request, completions without a queue event, IOs that never complete.
#include <gtest/gtest.h>

#include "gen.h"
#include "trace/event.h"
#include "trace/ios.h"

namespace efqsim::trace {
namespace {

class VectorSource final : public EventSource {
public:
	explicit VectorSource(std::vector<Event> e) : events_(std::move(e)) {}
	bool next(Event *ev) override
	{
		if (i_ >= events_.size())
			return false;
		*ev = events_[i_++];
		count_++;
		return true;
	}

private:
	std::vector<Event> events_;
	size_t i_ = 0;
};

std::vector<Event> merged(const std::vector<std::vector<Event>> &cpus)
{
	std::vector<Event> all;
	for (const auto &c : cpus)
		all.insert(all.end(), c.begin(), c.end());
	std::stable_sort(all.begin(), all.end(),
			 [](const Event &a, const Event &b) { return a.time_ns < b.time_ns; });
	return all;
}

std::vector<IoRecord> build(std::vector<Event> events, BuildStats *stats = nullptr,
			    int64_t horizon = IoBuilder::kDefaultHorizon)
{
	VectorSource src(std::move(events));
	IoBuilder b(src, horizon);
	std::vector<IoRecord> out;
	IoRecord r;
	while (b.next(&r))
		out.push_back(r);
	EXPECT_EQ(b.error(), "");
	if (stats)
		*stats = b.stats();
	return out;
}

TEST(IoBuilder, RebuildsEveryIoWithItsCompletionInQueueOrder)
{
	BuildStats st;
	auto ios = build(merged(testgen::two_processes(64)), &st);
	ASSERT_EQ(ios.size(), 128u);
	EXPECT_EQ(st.queued, 128u);
	EXPECT_EQ(st.merges, 8u);
	EXPECT_EQ(st.incomplete, 0u);
	EXPECT_EQ(st.unmatched, 0u);
	ASSERT_EQ(st.messages.size(), 1u);
	EXPECT_EQ(st.messages[0], "efq test trace");
	int64_t last = 0;
	uint64_t merged_ios = 0;
	for (size_t i = 0; i < ios.size(); i++) {
		const IoRecord &r = ios[i];
		EXPECT_EQ(r.id, i);
		EXPECT_GE(r.queue_ns, last);
		last = r.queue_ns;
		ASSERT_GT(r.complete_ns, r.queue_ns) << i;
		merged_ios += r.merged;
		if (r.pid == 100) {
			EXPECT_EQ(r.comm, "reader");
			EXPECT_EQ(r.cgroup, 11u);
			EXPECT_EQ(r.bytes, 4096u);
			EXPECT_EQ(r.complete_ns - r.queue_ns, 50'000);
			EXPECT_FALSE(r.rwbs & kWrite);
			EXPECT_TRUE(r.rwbs & kSync);
		} else {
			EXPECT_EQ(r.pid, 200u);
			EXPECT_EQ(r.comm, "writer");
			EXPECT_EQ(r.cgroup, 22u);
			EXPECT_EQ(r.bytes, 8192u);
			EXPECT_TRUE(r.rwbs & kWrite);
		}
	}
	EXPECT_EQ(merged_ios, 8u);
}

TEST(IoBuilder, CommComesFromProcessNotifyRecords)
{
	std::vector<Event> evs;
	Event n = testgen::ev(0, 0, 7, 'N', 0, 0, 0, "dd");
	evs.push_back(n);
	Event q = testgen::ev(5, 0, 7, 'Q', kData, 100, 8, "");
	evs.push_back(q);
	evs.push_back(testgen::ev(9, 0, 0, 'C', kData, 100, 8, ""));
	auto ios = build(evs);
	ASSERT_EQ(ios.size(), 1u);
	EXPECT_EQ(ios[0].comm, "dd");
	EXPECT_EQ(ios[0].complete_ns, 9);
}

TEST(IoBuilder, FrontMergeAndMergedRequestsCompleteTogether)
{
	std::vector<Event> evs = {
		testgen::ev(0, 0, 1, 'Q', kData, 108, 8, "a"),
		testgen::ev(1, 0, 1, 'Q', kData, 100, 8, "a"),
		testgen::ev(2, 0, 1, 'F', kData, 100, 8, "a"),
		testgen::ev(3, 0, 1, 'Q', kData, 116, 8, "a"), // no merge event
		testgen::ev(9, 0, 0, 'C', kData, 100, 24, ""), // covers all three
	};
	BuildStats st;
	auto ios = build(evs, &st);
	ASSERT_EQ(ios.size(), 3u);
	for (auto &r : ios)
		EXPECT_EQ(r.complete_ns, 9);
	EXPECT_EQ(st.merges, 1u);
	EXPECT_TRUE(ios[1].merged);
}

TEST(IoBuilder, UnmatchedCompletionsAndIncompleteIos)
{
	std::vector<Event> evs = {
		testgen::ev(0, 0, 0, 'C', kData, 5000, 8, ""), // queued before the trace
		testgen::ev(1, 0, 1, 'Q', kWrite | kData, 100, 8, "a"),
		testgen::ev(2, 0, 1, 'Q', kWrite, 0, 0, "a"), // a flush: no data
		testgen::ev(3, 0, 1, 'Q', kData, 300, 8, "a"),
		testgen::ev(4, 0, 0, 'C', kData, 300, 8, ""),
	};
	BuildStats st;
	auto ios = build(evs, &st);
	ASSERT_EQ(ios.size(), 2u);
	EXPECT_EQ(ios[0].complete_ns, -1);
	EXPECT_EQ(ios[1].complete_ns, 4);
	EXPECT_EQ(st.unmatched, 1u);
	EXPECT_EQ(st.empty, 1u);
	EXPECT_EQ(st.incomplete, 1u);
}

// An IO that never completes leaves after the horizon instead of holding
// every later record back.
TEST(IoBuilder, HorizonBoundsWhatIsHeldBack)
{
	std::vector<Event> evs = {testgen::ev(0, 0, 1, 'Q', kData, 8, 8, "a")};
	for (int i = 1; i <= 1000; i++) {
		uint64_t s = 1000 + static_cast<uint64_t>(i) * 8;
		evs.push_back(testgen::ev(i * 1000, 0, 1, 'Q', kData, s, 8, "a"));
		evs.push_back(testgen::ev(i * 1000 + 10, 0, 0, 'C', kData, s, 8, ""));
	}
	VectorSource src(evs);
	IoBuilder b(src, 50'000);
	IoRecord r;
	ASSERT_TRUE(b.next(&r));
	EXPECT_EQ(r.complete_ns, -1);
	// It came out once the trace was 50 us past it, not at the end.
	EXPECT_LT(src.count(), 120u);
	size_t n = 1;
	while (b.next(&r))
		n++;
	EXPECT_EQ(n, 1001u);
}

} // namespace
} // namespace efqsim::trace
