// SPDX-License-Identifier: GPL-2.0
// The io.weight grammar: what parses, and every kind of malformed line.
#include <gtest/gtest.h>

#include "weight.h"

namespace {

using namespace efq::weightd;

TEST(WeightdParse, DefaultOnly)
{
	auto r = parse_weights("default 100\n");
	EXPECT_TRUE(r.errors.empty());
	ASSERT_TRUE(r.file.def);
	EXPECT_EQ(*r.file.def, 100);
	EXPECT_TRUE(r.file.devs.empty());
}

TEST(WeightdParse, DefaultAndDevices)
{
	auto r = parse_weights("default 7475\n8:0 200\n259:3 10000\n254:16 1\n");
	EXPECT_TRUE(r.errors.empty()) << r.errors.front();
	EXPECT_EQ(r.file.def, 7475);
	ASSERT_EQ(r.file.devs.size(), 3u);
	EXPECT_EQ(r.file.devs.at(Dev{8, 0}), 200);
	EXPECT_EQ(r.file.devs.at(Dev{259, 3}), 10000);
	EXPECT_EQ(r.file.devs.at(Dev{254, 16}), 1);
}

TEST(WeightdParse, NoFinalNewlineAndTabs)
{
	auto r = parse_weights("default\t300\n8:16  50");
	EXPECT_TRUE(r.errors.empty());
	EXPECT_EQ(r.file.def, 300);
	EXPECT_EQ(r.file.devs.at(Dev{8, 16}), 50);
}

// Each malformed line is reported and skipped; the good lines around it
// still count.
TEST(WeightdParse, MalformedLinesAreSkipped)
{
	const char *bad[] = {
		"",				// empty line
		"junk",				// one field
		"junk 100",			// neither default nor MAJ:MIN
		"default 0",			// W = 0
		"default 10001",		// W above the range
		"default -5",			// sign
		"default +5",			// sign
		"default 1e3",			// not decimal
		"default",			// no weight
		"8:0 0",			// device W = 0
		"8:0 10001",			// device W above
		"8 100",			// no colon
		"8: 100",			// no minor
		":0 100",			// no major
		"a:b 100",			// not numbers
		"8:0:1 100",			// two colons
		"4096:0 100",			// major past 12 bits
		"8:1048576 100",		// minor past 20 bits
		"default 100 x",		// trailing text
		"8:0 100 extra",		// trailing text
		"default 100abc",		// trailing garbage in the number
		"default 99999999999999999999", // overflow
	};
	for (const char *line : bad) {
		std::string text = std::string("default 200\n8:0 300\n") + line + "\n8:16 400\n";
		if (std::string(line).substr(0, 7) == "default")
			text = std::string("8:0 300\n") + line + "\ndefault 200\n8:16 400\n";
		auto r = parse_weights(text);
		ASSERT_EQ(r.errors.size(), 1u) << "'" << line << "' accepted";
		EXPECT_EQ(r.file.def, 200) << line;
		EXPECT_EQ(r.file.devs.at(Dev{8, 0}), 300) << line;
		EXPECT_EQ(r.file.devs.at(Dev{8, 16}), 400) << line;
		EXPECT_EQ(r.file.devs.size(), 2u) << line;
	}
}

TEST(WeightdParse, EmptyFile)
{
	auto r = parse_weights("");
	EXPECT_EQ(r.errors.size(), 1u);
	EXPECT_FALSE(r.file.def);
}

TEST(WeightdParse, DuplicatesAreErrors)
{
	auto r = parse_weights("default 100\ndefault 200\n8:0 1\n8:0 2\n");
	EXPECT_EQ(r.errors.size(), 2u);
	EXPECT_EQ(r.file.def, 100); // the first one stands
	EXPECT_EQ(r.file.devs.at(Dev{8, 0}), 1);
}

TEST(WeightdParse, ErrorNamesTheLine)
{
	auto r = parse_weights("default 100\n8:0 0\n");
	ASSERT_EQ(r.errors.size(), 1u);
	EXPECT_NE(r.errors[0].find("line 2"), std::string::npos) << r.errors[0];
	EXPECT_NE(r.errors[0].find("'8:0 0'"), std::string::npos) << r.errors[0];
}

TEST(WeightdParse, Numbers)
{
	EXPECT_EQ(parse_number("0", 10), 0u);
	EXPECT_EQ(parse_number("10", 10), 10u);
	EXPECT_FALSE(parse_number("11", 10));
	EXPECT_FALSE(parse_number("", 10));
	EXPECT_FALSE(parse_number(" 1", 10));
	EXPECT_EQ(parse_dev("4095:1048575"), (Dev{4095, 1048575}));
	EXPECT_FALSE(parse_dev("8:0 "));
	EXPECT_EQ(dev_str(Dev{259, 7}), "259:7");
}

} // namespace
