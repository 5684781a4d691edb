// SPDX-License-Identifier: GPL-2.0
// Parameter files: the format, every error path (each with file:line), the
// defaults round trip, and the documentation of every parameter.

#include "dev/device.h"
#include "dev/hdd.h"
#include "dev/multipath.h"
#include "dev/null_device.h"
#include "dev/params.h"
#include "dev/ssd.h"
#include "dev/throttled.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace efqsim::dev {
namespace {

// A parameter file in a private temporary folder, removed at the end.
class ParamFileTest : public ::testing::Test {
public:
	void SetUp() override
	{
		char tmpl[] = "/tmp/efq_dev_params.XXXXXX";
		ASSERT_TRUE(mkdtemp(tmpl));
		dir_ = tmpl;
	}
	void TearDown() override { std::filesystem::remove_all(dir_); }

	std::string write(const std::string &text, const std::string &name = "dev.conf")
	{
		std::string path = dir_ + "/" + name;
		std::ofstream(path) << text;
		return path;
	}
	// make_device() on @text; the error message ("" if it worked).
	std::string error_of(const std::string &text, std::string *path_out = nullptr)
	{
		std::string path = write(text);
		if (path_out)
			*path_out = path;
		std::string err;
		auto d = make_device(path, &err);
		EXPECT_EQ(!d, !err.empty());
		return d ? "" : err;
	}

protected:
	void expect_error(const std::string &text, int line, const std::string &words)
	{
		std::string path;
		std::string err = error_of(text, &path);
		std::string where = path + ":" + std::to_string(line) + ": ";
		EXPECT_EQ(err.rfind(where, 0), 0u) << "got: " << err << "\nwant at: " << where;
		EXPECT_NE(err.find(words), std::string::npos) << "got: " << err;
	}

	std::string dir_;
};

TEST_F(ParamFileTest, ReadsKeysValuesCommentsAndBlankLines)
{
	std::string path = write("# my disk\n"
				 "\n"
				 "model = hdd\r\n"
				 "  rpm=5400   # a laptop drive\n"
				 "\tseek_avg_ms = 12\n"
				 "seek_full_ms = 24\n"
				 "write_cache = off\n"
				 "queue_depth = 1\n");
	std::string err;
	auto d = make_device(path, &err);
	ASSERT_TRUE(d) << err;
	auto *h = dynamic_cast<Hdd *>(d.get());
	ASSERT_TRUE(h);
	EXPECT_EQ(h->hdd_params().rpm, 5400);
	EXPECT_EQ(h->hdd_params().seek_avg_ms, 12);
	EXPECT_FALSE(h->hdd_params().write_cache);
	EXPECT_EQ(d->queue_depth(), 1u);
	EXPECT_EQ(d->name(), "hdd");
	EXPECT_NE(d->params().find("\nrpm = 5400 "), std::string::npos);
}

TEST_F(ParamFileTest, ModelSelectsTheModelAndDefaultsToHdd)
{
	std::string err;
	auto s = make_device(write("model = ssd\nchannels = 4\nread_us = 25.5\n"), &err);
	ASSERT_TRUE(s) << err;
	EXPECT_EQ(s->name(), "ssd");
	EXPECT_EQ(dynamic_cast<Ssd &>(*s).ssd_params().channels, 4u);
	EXPECT_EQ(dynamic_cast<Ssd &>(*s).ssd_params().read_us, 25.5);
	auto n = make_device(write("model = null\nlatency_us = 0\nbandwidth_mbps = 1e3\n"), &err);
	ASSERT_TRUE(n) << err;
	EXPECT_EQ(n->name(), "null");
	auto h = make_device(write("# nothing but a comment\n"), &err);
	ASSERT_TRUE(h) << err;
	EXPECT_EQ(h->name(), "hdd");
}

TEST_F(ParamFileTest, DefaultsRoundTripThroughAFile)
{
	for (const std::string &m : model_names()) {
		std::string text = default_params(m);
		ASSERT_FALSE(text.empty());
		std::string err;
		auto from_file = make_device(write(text, m + ".conf"), &err);
		ASSERT_TRUE(from_file) << err;
		auto builtin = make_device(m, &err);
		ASSERT_TRUE(builtin) << err;
		EXPECT_EQ(from_file->params(), text);
		EXPECT_EQ(builtin->params(), text);
	}
	EXPECT_EQ(default_params("floppy"), "");
}

TEST_F(ParamFileTest, EveryParameterIsPrintedWithItsUnitAndMeaning)
{
	std::string text = default_params("hdd");
	for (const auto &p : hdd_param_table()) {
		std::string line = std::string("\n") + p.name + " = ";
		size_t at = text.find(line);
		ASSERT_NE(at, std::string::npos) << p.name;
		std::string rest = text.substr(at + 1, text.find('\n', at + 1) - at - 1);
		EXPECT_NE(rest.find(std::string("# ") + (*p.unit ? "[" : "")), std::string::npos)
			<< rest;
	}
}

TEST_F(ParamFileTest, LineWithoutEqualsIsAnError)
{
	expect_error("model = hdd\nrpm 7200\n", 2, "expected 'key = value'");
}

TEST_F(ParamFileTest, BadKeyIsAnError)
{
	expect_error("\n\nr-p-m = 7200\n", 3, "bad parameter name");
	expect_error(" = 7200\n", 1, "bad parameter name");
}

TEST_F(ParamFileTest, MissingValueIsAnError)
{
	expect_error("rpm =   # nothing\n", 1, "no value for 'rpm'");
}

TEST_F(ParamFileTest, DuplicateKeyIsAnError)
{
	expect_error("rpm = 7200\nheads = 2\nrpm = 5400\n", 3,
		     "'rpm' is set twice (first on line 1)");
	expect_error("model = hdd\nmodel = ssd\n", 2, "'model' is set twice");
}

TEST_F(ParamFileTest, UnknownModelIsAnError)
{
	expect_error("# x\nmodel = tape\n", 2, "unknown model 'tape'");
}

TEST_F(ParamFileTest, UnknownKeyIsAnError)
{
	expect_error("rpm = 7200\nchannels = 8\n", 2, "unknown parameter 'channels' for model hdd");
	expect_error("model = ssd\nrpm = 7200\n", 2, "unknown parameter 'rpm' for model ssd");
	// The model line may come last; keys are checked against it.
	expect_error("latency_us = 5\nrpm = 1\nmodel = null\n", 2,
		     "unknown parameter 'rpm' for model null");
}

TEST_F(ParamFileTest, BadValuesAreErrors)
{
	expect_error("rpm = fast\n", 1, "rpm: 'fast' is not a number");
	expect_error("rpm = 7200rpm\n", 1, "is not a number");
	expect_error("rpm = nan\n", 1, "is not a number");
	expect_error("rpm = inf\n", 1, "is not a number");
	expect_error("rpm = +7200\n", 1, "is not a number");
	expect_error("queue_depth = 1.5\n", 1, "queue_depth: '1.5' is not a whole number");
	expect_error("queue_depth = 1e3\n", 1, "queue_depth: '1e3' is not a whole number");
	expect_error("queue_depth = +5\n", 1, "queue_depth: '+5' is not a whole number");
	expect_error("queue_depth = -\n", 1, "queue_depth: '-' is not a whole number");
	expect_error("queue_depth = --3\n", 1, "queue_depth: '--3' is not a whole number");
	expect_error("write_cache = maybe\n", 1, "write_cache: 'maybe' is not a boolean");
}

TEST_F(ParamFileTest, OutOfRangeValuesAreErrors)
{
	expect_error("rpm = 100\n", 1, "rpm: '100' is out of range (3600..15000)");
	expect_error("\nqueue_depth = 0\n", 2, "queue_depth: '0' is out of range (1..256)");
	expect_error("model = ssd\nchannels = 1000\n", 2,
		     "channels: '1000' is out of range (1..256)");
	expect_error("model = null\nlatency_us = -1\n", 2,
		     "latency_us: '-1' is out of range (0..10000000)");
	expect_error("capacity_sectors = 100\n", 1,
		     "capacity_sectors: '100' is out of range (2048..1099511627776)");
	expect_error("seek_track_ms = 0.001\n", 1,
		     "seek_track_ms: '0.001' is out of range (0.01..20)");
}

// The range every whole-number parameter of @table names: (min..max).
template <class P> std::string range_of(const Param<P> &d)
{
	return "(" + std::to_string(static_cast<uint64_t>(d.min)) + ".." +
	       std::to_string(static_cast<uint64_t>(d.max)) + ")";
}

template <class P> bool is_integer(const Param<P> &d)
{
	return std::holds_alternative<uint32_t P::*>(d.field) ||
	       std::holds_alternative<uint64_t P::*>(d.field);
}

// @value for every whole-number parameter of @model, inline and in a file:
// out of range, with the parameter's own range.
template <class P>
void expect_every_integer_out_of_range(ParamFileTest *t, const std::string &model,
				       const std::vector<Param<P>> &table, const std::string &value)
{
	int n = 0;
	for (const Param<P> &d : table) {
		if (!is_integer(d))
			continue;
		n++;
		std::string why =
			std::string(d.name) + ": '" + value + "' is out of range " + range_of(d);
		std::string err;
		EXPECT_FALSE(make_device(model + ":" + d.name + "=" + value, &err));
		EXPECT_EQ(err, "device " + model + ": " + why);
		std::string path;
		err = t->error_of("model = " + model + "\n" + d.name + " = " + value + "\n", &path);
		EXPECT_EQ(err, path + ":2: " + why);
	}
	EXPECT_GT(n, 0) << model;
}

// @value for every real parameter of @model, inline and in a file: out of
// range, with a range.
template <class P>
void expect_every_real_out_of_range(ParamFileTest *t, const std::string &model,
				    const std::vector<Param<P>> &table, const std::string &value)
{
	int n = 0;
	for (const Param<P> &d : table) {
		if (!std::holds_alternative<double P::*>(d.field))
			continue;
		n++;
		std::string why = std::string(d.name) + ": '" + value + "' is out of range (";
		std::string err;
		EXPECT_FALSE(make_device(model + ":" + d.name + "=" + value, &err));
		EXPECT_EQ(err.rfind("device " + model + ": " + why, 0), 0u) << err;
		EXPECT_EQ(err.back(), ')') << err;
		EXPECT_NE(err.find(".."), std::string::npos) << err;
		std::string path;
		err = t->error_of("model = " + model + "\n" + d.name + " = " + value + "\n", &path);
		EXPECT_EQ(err.rfind(path + ":2: " + why, 0), 0u) << err;
	}
	EXPECT_GT(n, 0) << model;
}

TEST_F(ParamFileTest, NegativeWholeNumbersAreOutOfRangeWithTheParametersRange)
{
	std::string err;
	EXPECT_FALSE(make_device("hdd:queue_depth=-3", &err));
	EXPECT_EQ(err, "device hdd: queue_depth: '-3' is out of range (1..256)");
	for (const char *v : {"-3", "-1", "-18446744073709551616"}) {
		expect_every_integer_out_of_range(this, "hdd", hdd_param_table(), v);
		expect_every_integer_out_of_range(this, "ssd", ssd_param_table(), v);
		expect_every_integer_out_of_range(this, "null", null_param_table(), v);
		expect_every_integer_out_of_range(this, "multipath", multipath_param_table(), v);
		expect_every_integer_out_of_range(this, "qemu-sata", throttled_param_table(), v);
	}
	// -0 is 0: in range where 0 is
	auto d = make_device(write("readahead_kib = -0\n"), &err);
	ASSERT_TRUE(d) << err;
	EXPECT_NE(d->params().find("\nreadahead_kib = 0 "), std::string::npos);
	expect_error("queue_depth = -0\n", 1, "queue_depth: '-0' is out of range (1..256)");
}

TEST_F(ParamFileTest, WholeNumbersPast64BitsAreOutOfRangeWithTheParametersRange)
{
	std::string err;
	EXPECT_FALSE(make_device("hdd:queue_depth=99999999999999999999", &err));
	EXPECT_EQ(err, "device hdd: queue_depth: '99999999999999999999' is out of range (1..256)");
	for (const char *v :
	     {"99999999999999999999", "18446744073709551616", "18446744073709551615"}) {
		expect_every_integer_out_of_range(this, "hdd", hdd_param_table(), v);
		expect_every_integer_out_of_range(this, "ssd", ssd_param_table(), v);
		expect_every_integer_out_of_range(this, "null", null_param_table(), v);
		expect_every_integer_out_of_range(this, "multipath", multipath_param_table(), v);
		expect_every_integer_out_of_range(this, "qemu-sata", throttled_param_table(), v);
	}
}

TEST_F(ParamFileTest, RealOverflowIsOutOfRangeWithTheParametersRange)
{
	std::string err;
	EXPECT_FALSE(make_device("hdd:rpm=1e400", &err));
	EXPECT_EQ(err, "device hdd: rpm: '1e400' is out of range (3600..15000)");
	expect_error("rpm = -1e400\n", 1, "rpm: '-1e400' is out of range (3600..15000)");
	expect_error("rpm = 1e99999999999999999999\n", 1,
		     "rpm: '1e99999999999999999999' is out of range (3600..15000)");
	expect_error("model = null\nlatency_us = 123456789e300\n", 2,
		     "latency_us: '123456789e300' is out of range (0..10000000)");
	expect_error("destage_idle_ms = 1e309\n", 1,
		     "destage_idle_ms: '1e309' is out of range (0..100000)");
	for (const char *v : {"1e400", "-1e400", "1e309"}) {
		expect_every_real_out_of_range(this, "hdd", hdd_param_table(), v);
		expect_every_real_out_of_range(this, "ssd", ssd_param_table(), v);
		expect_every_real_out_of_range(this, "null", null_param_table(), v);
		expect_every_real_out_of_range(this, "multipath", multipath_param_table(), v);
		expect_every_real_out_of_range(this, "qemu-sata", throttled_param_table(), v);
	}
	// below the smallest double: rounds to 0, like any other rounding
	auto n = make_device(write("model = null\nlatency_us = 1e-400\n"), &err);
	ASSERT_TRUE(n) << err;
	EXPECT_NE(n->params().find("\nlatency_us = 0 "), std::string::npos);
	expect_error("rpm = 1e-400\n", 1, "rpm: '1e-400' is out of range (3600..15000)");
	// -0 is 0
	n = make_device(write("model = null\nlatency_us = -0\n"), &err);
	ASSERT_TRUE(n) << err;
	EXPECT_NE(n->params().find("\nlatency_us = 0 "), std::string::npos);
}

TEST_F(ParamFileTest, BinaryFileIsNotATextFile)
{
	using namespace std::string_literals;
	expect_error("\0\0\0\x01"s, 1, "not a text file: a NUL byte at byte offset 0");
	// an ELF header after a good line: the first control byte, its line
	std::string path;
	std::string err = error_of("rpm = 7200\n\x7f"
				   "ELF\x02\x01\x01\0\0\0"s,
				   &path);
	EXPECT_EQ(err, path + ":2: not a text file: a control byte 0x7f at byte offset 11");
	// UTF-16: a NUL after each letter
	err = error_of("r\0p\0m\0"s, &path);
	EXPECT_EQ(err, path + ":1: not a text file: a NUL byte at byte offset 1");
	// checked before any line: not "expected 'key = value'"
	err = error_of("rpm 7200\n# \x1b[1m\n"s, &path);
	EXPECT_EQ(err, path + ":2: not a text file: a control byte 0x1b at byte offset 11");
	// tabs, CR LF and UTF-8 are text
	std::string ok = "model = hdd\r\n\trpm = 5400\t# \xc3\xa9t\xc3\xa9\r\n";
	EXPECT_EQ(error_of(ok), "");
}

TEST_F(ParamFileTest, InconsistentParametersAreErrorsAtTheLastLineInvolved)
{
	expect_error("rate_inner_mbps = 120\n# x\n", 1,
		     "rate_inner_mbps (120) is above rate_outer_mbps");
	expect_error("rate_outer_mbps = 50\nrpm = 5400\n", 1, "is above rate_outer_mbps (50)");
	expect_error("seek_avg_ms = 20\n", 1, "need seek_track_ms < seek_avg_ms < seek_full_ms");
	expect_error("seek_full_ms = 30\nseek_avg_ms = 2\n", 2, "seek_avg_ms 2 cannot be fitted");
	expect_error("model = ssd\npage_kib = 64\nwrite_buffer_kib = 16\n", 3,
		     "write_buffer_kib (16) is smaller than a page");
}

TEST_F(ParamFileTest, UnreadableFilesAreErrors)
{
	std::string err;
	EXPECT_FALSE(make_device(dir_ + "/absent.conf", &err));
	EXPECT_EQ(err, dir_ + "/absent.conf: cannot open: No such file or directory");
	EXPECT_FALSE(make_device(dir_, &err));
	EXPECT_EQ(err, dir_ + ": is a directory, not a parameter file");
	EXPECT_FALSE(make_device("", &err));
	EXPECT_NE(err.find("no device given"), std::string::npos);
}

TEST(ParamValues, NumbersAndBooleansParseStrictly)
{
	double d;
	uint64_t u;
	bool b;
	EXPECT_TRUE(parse_real("8.5", &d));
	EXPECT_EQ(d, 8.5);
	EXPECT_TRUE(parse_real("1e3", &d));
	EXPECT_EQ(d, 1000);
	EXPECT_TRUE(parse_real("-2", &d));
	EXPECT_FALSE(parse_real("", &d));
	EXPECT_FALSE(parse_real("8.5 ms", &d));
	EXPECT_TRUE(parse_integer("18446744073709551615", &u));
	EXPECT_FALSE(parse_integer("18446744073709551616", &u));
	EXPECT_FALSE(parse_integer("0x10", &u));
	for (const char *t : {"1", "true", "yes", "on"}) {
		EXPECT_TRUE(parse_bool(t, &b));
		EXPECT_TRUE(b);
	}
	for (const char *f : {"0", "false", "no", "off"}) {
		EXPECT_TRUE(parse_bool(f, &b));
		EXPECT_FALSE(b);
	}
	EXPECT_FALSE(parse_bool("True", &b));
	// numbers too large for their kind are out of range, not malformed
	EXPECT_EQ(scan_integer("-3", &u), Scan::out_of_range);
	EXPECT_EQ(scan_integer("18446744073709551616", &u), Scan::out_of_range);
	EXPECT_EQ(scan_integer("-00", &u), Scan::ok);
	EXPECT_EQ(u, 0u);
	EXPECT_EQ(scan_integer("-x", &u), Scan::not_a_number);
	EXPECT_EQ(scan_integer("1.0", &u), Scan::not_a_number);
	EXPECT_EQ(scan_real("1e400", &d), Scan::out_of_range);
	EXPECT_EQ(scan_real("-0.01e311", &d), Scan::out_of_range);
	EXPECT_EQ(scan_real("0.001e311", &d), Scan::ok);
	EXPECT_EQ(d, 1e308);
	EXPECT_EQ(scan_real("12345e-330", &d), Scan::ok);
	EXPECT_EQ(d, 0);
	EXPECT_EQ(scan_real("-0.0001e-321", &d), Scan::ok);
	EXPECT_FALSE(std::signbit(d));
	EXPECT_EQ(scan_real("inf", &d), Scan::not_a_number);
	EXPECT_EQ(scan_real("1e", &d), Scan::not_a_number);
	for (double v : {0.1, 8.5, 1.0 / 3, 115.0, 1e-9, 976773168.0})
		EXPECT_EQ(std::stod(format_real(v)), v);
}

// Documentation/sim/devices.rst names every parameter of every model.
TEST(ParamDocs, EveryParameterIsDocumented)
{
	std::filesystem::path src(__FILE__);
	std::ifstream in(src.parent_path().parent_path().parent_path() / "Documentation" / "sim" /
			 "devices.rst");
	ASSERT_TRUE(in) << "Documentation/sim/devices.rst";
	std::stringstream ss;
	ss << in.rdbuf();
	std::string doc = ss.str();
	auto check = [&](const char *name) {
		EXPECT_NE(doc.find(std::string("``") + name + "``"), std::string::npos) << name;
	};
	for (const auto &p : hdd_param_table())
		check(p.name);
	for (const auto &p : ssd_param_table())
		check(p.name);
	for (const auto &p : null_param_table())
		check(p.name);
	for (const auto &p : multipath_param_table())
		check(p.name);
	for (const auto &p : throttled_param_table())
		check(p.name);
}

} // namespace
} // namespace efqsim::dev
