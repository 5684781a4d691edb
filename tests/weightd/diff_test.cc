// SPDX-License-Identifier: GPL-2.0
// What to write to make io.efq.io_weight equal io.weight (+ systemd).
#include <gtest/gtest.h>

#include "weight.h"

namespace {

using namespace efq::weightd;
using Lines = std::vector<std::string>;

WeightFile wf(const char *text)
{
	auto r = parse_weights(text);
	EXPECT_TRUE(r.errors.empty()) << text;
	return r.file;
}

Lines plan(const char *io_weight, const char *efq,
	   std::optional<std::map<Dev, int>> systemd = std::map<Dev, int>{})
{
	return plan_writes(make_target(wf(io_weight), systemd), wf(efq));
}

TEST(WeightdDiff, EqualWritesNothing)
{
	EXPECT_EQ(plan("default 100\n", "default 100\n"), Lines{});
	EXPECT_EQ(plan("default 300\n8:0 50\n", "default 300\n8:0 50\n"), Lines{});
}

TEST(WeightdDiff, DefaultDiffers)
{
	EXPECT_EQ(plan("default 7475\n", "default 100\n"), Lines{"default 7475"});
}

TEST(WeightdDiff, DeviceAddedOrChanged)
{
	EXPECT_EQ(plan("default 100\n8:0 200\n8:16 300\n", "default 100\n8:16 299\n"),
		  (Lines{"8:0 200", "8:16 300"}));
}

TEST(WeightdDiff, DeviceRemoved)
{
	EXPECT_EQ(plan("default 100\n", "default 100\n8:0 200\n"), Lines{"8:0 default"});
}

TEST(WeightdDiff, AllAtOnceInOrder)
{
	EXPECT_EQ(plan("default 500\n8:0 20\n", "default 100\n8:32 7\n"),
		  (Lines{"default 500", "8:0 20", "8:32 default"}));
}

TEST(WeightdDiff, SystemdDeviceLines)
{
	std::map<Dev, int> sd{{Dev{8, 0}, 800}, {Dev{259, 0}, 40}};
	EXPECT_EQ(plan("default 100\n", "default 100\n", sd), (Lines{"8:0 800", "259:0 40"}));
	// Kept, not removed, once there.
	EXPECT_EQ(plan("default 100\n", "default 100\n8:0 800\n259:0 40\n", sd), Lines{});
	// Gone from the unit: removed.
	EXPECT_EQ(plan("default 100\n", "default 100\n8:0 800\n259:0 40\n", std::map<Dev, int>{}),
		  (Lines{"8:0 default", "259:0 default"}));
}

TEST(WeightdDiff, IoWeightWinsOverSystemd)
{
	std::map<Dev, int> sd{{Dev{8, 0}, 800}};
	EXPECT_EQ(plan("default 100\n8:0 30\n", "default 100\n", sd), Lines{"8:0 30"});
	EXPECT_EQ(plan("default 100\n8:0 30\n", "default 100\n8:0 800\n", sd), Lines{"8:0 30"});
}

// systemd could not be asked: lines io.weight lacks are left alone (they
// may be systemd's), io.weight's own are still written.
TEST(WeightdDiff, SystemdUnknownRemovesNothing)
{
	EXPECT_EQ(plan("default 200\n8:16 5\n", "default 100\n8:0 800\n", std::nullopt),
		  (Lines{"default 200", "8:16 5"}));
}

TEST(WeightdDiff, NoDefaultInIoWeightLeavesDefault)
{
	WeightFile io; // a malformed io.weight whose default line was skipped
	io.devs[Dev{8, 0}] = 10;
	EXPECT_EQ(plan_writes(make_target(io, std::map<Dev, int>{}), wf("default 300\n")),
		  Lines{"8:0 10"});
}

TEST(WeightdDiff, MissingDefaultInEfqIsWritten)
{
	WeightFile efq; // io.efq.io_weight unreadable as a default
	EXPECT_EQ(plan_writes(make_target(wf("default 100\n"), std::map<Dev, int>{}), efq),
		  Lines{"default 100"});
}

// io.bfq.weight stands in for io.weight only while io.weight says nothing
// but its default: what runc and crun write with bfq.ko loaded.
TEST(WeightdDiff, BfqWeightFollowedWhenIoWeightIsTheDefault)
{
	EXPECT_EQ(followed_weights(wf("default 100\n"), wf("default 750\n")).def, 750);
	EXPECT_EQ(followed_weights(WeightFile{}, wf("default 250\n")).def, 250);
	// bfq's device lines are not followed
	EXPECT_TRUE(
		followed_weights(wf("default 100\n"), wf("default 750\n8:0 20\n")).devs.empty());
}

TEST(WeightdDiff, IoWeightWinsOverBfqWeight)
{
	// systemd writes both, io.weight with the value it was given
	EXPECT_EQ(followed_weights(wf("default 800\n"), wf("default 163\n")).def, 800);
	WeightFile dev_line = followed_weights(wf("default 100\n8:0 50\n"), wf("default 750\n"));
	EXPECT_EQ(dev_line.def, 100);
	EXPECT_EQ(dev_line.devs.size(), 1u);
	// no bfq, or bfq at its default: io.weight as it is
	EXPECT_EQ(followed_weights(wf("default 100\n"), std::nullopt).def, 100);
	EXPECT_EQ(followed_weights(wf("default 100\n"), wf("default 100\n")).def, 100);
}

} // namespace
