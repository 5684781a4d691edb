// SPDX-License-Identifier: GPL-2.0
// --output-format=json: fio's key names and units, the efq object, and
// byte-for-byte determinism.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "report/json.h"

#include "fixtures.h"

namespace efqsim::report {
namespace {

using nlohmann::json;
using test::two_groups;
using ::testing::HasSubstr;
using ::testing::Not;

json parse(const RunResult &r)
{
	return json::parse(to_json(r)); // throws (fails the test) on invalid JSON
}

const char *const kPercentileKeys[] = {"1.000000",  "5.000000",	 "10.000000", "20.000000",
				       "30.000000", "40.000000", "50.000000", "60.000000",
				       "70.000000", "80.000000", "90.000000", "95.000000",
				       "99.000000", "99.500000", "99.900000", "99.950000",
				       "99.990000"};

TEST(ReportJson, TopLevelHasFiosKeysWithDeterministicTimestamps)
{
	json j = parse(two_groups());
	EXPECT_EQ(j["fio version"], "efqsim-0.1");
	EXPECT_EQ(j["timestamp"], 0);
	EXPECT_EQ(j["timestamp_ms"], 0);
	EXPECT_TRUE(j["time"].is_string());
	EXPECT_EQ(j["global options"],
		  json({{"ioengine", "psync"}, {"bs", "4k"}, {"runtime", "30"}}));
	ASSERT_TRUE(j["jobs"].is_array());
	ASSERT_EQ(j["jobs"].size(), 3u);
	EXPECT_TRUE(j["efq"].is_object());

	RunResult none = two_groups();
	none.global_options.clear();
	EXPECT_FALSE(parse(none).contains("global options"));
}

TEST(ReportJson, JobsCarryNameGroupErrorAndOptions)
{
	json j = parse(two_groups());
	const json &a = j["jobs"][0];
	EXPECT_EQ(a["jobname"], "a");
	EXPECT_EQ(a["groupid"], 0);
	EXPECT_EQ(a["error"], 0);
	EXPECT_EQ(a["job options"]["cgroup_weight"], "1000");
	EXPECT_EQ(j["jobs"][2]["jobname"], "w");
	EXPECT_EQ(j["jobs"][2]["groupid"], 1);
	for (const json &job : j["jobs"])
		for (const char *dir : {"read", "write", "trim"})
			EXPECT_TRUE(job.contains(dir)) << job["jobname"] << " " << dir;
}

// bw is KiB/s, bw_bytes B/s, runtime ms, iops per second, latencies ns.
TEST(ReportJson, BandwidthIopsAndRuntimeHaveFiosUnits)
{
	json j = parse(two_groups());
	for (const json &job : j["jobs"]) {
		for (const char *dir : {"read", "write"}) {
			const json &d = job[dir];
			uint64_t io = d["io_bytes"], ios = d["total_ios"];
			int64_t runtime = d["runtime"];
			EXPECT_EQ(d["io_kbytes"], io / 1024);
			if (!io) {
				EXPECT_EQ(d["bw"], 0);
				EXPECT_EQ(d["iops"], 0.0);
				EXPECT_EQ(runtime, 0);
				continue;
			}
			double seconds = runtime / 1000.0;
			EXPECT_EQ(d["bw"], static_cast<uint64_t>(io / 1024.0 / seconds))
				<< job["jobname"] << " " << dir;
			EXPECT_EQ(d["bw_bytes"], static_cast<uint64_t>(io / seconds));
			EXPECT_DOUBLE_EQ(d["iops"].get<double>(), ios / seconds);
		}
	}
	const json &a = j["jobs"][0]["read"];
	EXPECT_EQ(a["io_bytes"], 7500u * 4096);
	EXPECT_EQ(a["bw"], 1000);
	EXPECT_EQ(a["bw_bytes"], 1024000);
	EXPECT_EQ(a["runtime"], 30000);
	EXPECT_EQ(a["total_ios"], 7500);
	EXPECT_EQ(j["jobs"][2]["write"]["bw"], 6400);
}

TEST(ReportJson, RatesComeFromTheExactRuntime)
{
	RunResult r = two_groups();
	r.jobs[0].read.runtime_ns = 29'999'600'000; // rounds to 30000 ms
	json d = parse(r)["jobs"][0]["read"];
	EXPECT_EQ(d["runtime"], 30000);
	EXPECT_EQ(d["bw_bytes"], 1024013); // 30720000 B / 29.9996 s
	EXPECT_NEAR(d["bw"].get<double>(), 7500 * 4.0 / 30, 1);
}

TEST(ReportJson, LatenciesAreNsWithMeanStddevCountAndPercentiles)
{
	json j = parse(two_groups());
	const json &c = j["jobs"][0]["read"]["clat_ns"];
	EXPECT_EQ(c["min"], 2'500'000);
	EXPECT_EQ(c["max"], 6'460'000);
	EXPECT_DOUBLE_EQ(c["mean"].get<double>(), 4'480'000);
	EXPECT_TRUE(c["stddev"].is_number_float());
	EXPECT_EQ(c["N"], 7500);
	ASSERT_TRUE(c["percentile"].is_object());
	ASSERT_EQ(c["percentile"].size(), 17u);
	int64_t prev = 0;
	for (const char *key : kPercentileKeys) {
		ASSERT_TRUE(c["percentile"].contains(key)) << key;
		int64_t v = c["percentile"][key];
		EXPECT_GE(v, prev) << key;
		prev = v;
	}
	// fio's buckets are within 1/64 of the value.
	EXPECT_NEAR(c["percentile"]["50.000000"].get<double>(), 4'460'000, 4'460'000 / 64.0);
	EXPECT_NEAR(c["percentile"]["99.990000"].get<double>(), 6'460'000, 6'460'000 / 64.0);

	const json &l = j["jobs"][0]["read"]["lat_ns"];
	EXPECT_EQ(l["min"], 2'510'000);
	EXPECT_EQ(l["N"], 7500);
	EXPECT_FALSE(l.contains("percentile"));
	// slat is not modelled: fio's form for "none measured".
	EXPECT_EQ(j["jobs"][0]["read"]["slat_ns"]["N"], 0);

	// No IO in a direction: zeros and no percentiles, as fio.
	const json &none = j["jobs"][0]["write"]["clat_ns"];
	EXPECT_EQ(none["N"], 0);
	EXPECT_EQ(none["min"], 0);
	EXPECT_FALSE(none.contains("percentile"));
}

TEST(ReportJson, StddevIsTheSampleStddevInNs)
{
	json j = parse(two_groups());
	EXPECT_NEAR(j["jobs"][0]["read"]["clat_ns"]["stddev"].get<double>(), 1154719.79, 0.01);
	EXPECT_NEAR(j["jobs"][0]["read"]["lat_ns"]["stddev"].get<double>(), 1154719.79, 0.01);
	EXPECT_NEAR(j["jobs"][2]["write"]["clat_ns"]["stddev"].get<double>(), 288805.14, 0.01);
}

TEST(ReportJson, EfqObjectHasSchedulerTunablesAndGroups)
{
	json e = parse(two_groups())["efq"];
	EXPECT_EQ(e["device"], "hdd");
	EXPECT_EQ(e["scheduler"], "noop");
	EXPECT_EQ(e["hierarchical"], true);
	EXPECT_EQ(e["nr_requests"], 62);
	EXPECT_EQ(e["tunables"],
		  json({{"fairness", "1"}, {"quantum", "4"}, {"slice_sync", "100"}}));
	EXPECT_EQ(e["seed"], 42);
	EXPECT_EQ(e["duration_ms"], 30000.0);
	ASSERT_EQ(e["groups"].size(), 3u);
	const char *paths[] = {"/", "/a", "/b"};
	for (size_t i = 0; i < 3; i++) {
		const json &g = e["groups"][i];
		EXPECT_EQ(g["path"], paths[i]);
		for (const char *key : {"path", "weight", "class", "disk_time_ms", "disk_sectors",
					"queued", "dequeued", "device_busy_ms"})
			EXPECT_TRUE(g.contains(key)) << paths[i] << " " << key;
		EXPECT_EQ(g.size(), 8u);
	}
	const json &a = e["groups"][1];
	EXPECT_EQ(a["weight"], 1000);
	EXPECT_EQ(a["class"], 2);
	EXPECT_EQ(a["disk_time_ms"], 19990.0);
	EXPECT_EQ(a["disk_sectors"], 240000);
	EXPECT_EQ(a["queued"], 5);
	EXPECT_EQ(a["dequeued"], 4);
	EXPECT_EQ(a["device_busy_ms"], 19960.0);
	// The disk-time ratio the two_groups example is judged by.
	EXPECT_NEAR(a["disk_time_ms"].get<double>() / e["groups"][2]["disk_time_ms"].get<double>(),
		    2.0, 0.01);
}

TEST(ReportJson, GroupReportingMergesEachReportingGroup)
{
	RunResult r = two_groups();
	r.group_reporting = true;
	json j = parse(r);
	ASSERT_EQ(j["jobs"].size(), 2u);
	const json &g0 = j["jobs"][0];
	EXPECT_EQ(g0["jobname"], "a");
	EXPECT_EQ(g0["read"]["io_bytes"], (7500u + 3750u) * 4096);
	EXPECT_EQ(g0["read"]["total_ios"], 11250);
	EXPECT_EQ(g0["read"]["runtime"], 30000);
	EXPECT_EQ(g0["read"]["bw"], 1500);
	EXPECT_EQ(g0["read"]["clat_ns"]["N"], 11250);
	EXPECT_EQ(g0["read"]["clat_ns"]["min"], 2'500'000);
	EXPECT_EQ(g0["read"]["clat_ns"]["max"], 11'920'000);
	EXPECT_EQ(j["jobs"][1]["jobname"], "w");
}

TEST(ReportJson, KeysKeepFiosOrderAndFloatsHaveSixDecimals)
{
	std::string s = to_json(two_groups());
	auto before = [&](const char *x, const char *y) {
		size_t px = s.find(x), py = s.find(y);
		EXPECT_NE(px, std::string::npos) << x;
		EXPECT_LT(px, py) << x << " before " << y;
	};
	before("\"fio version\"", "\"timestamp\"");
	before("\"timestamp\"", "\"jobs\"");
	before("\"jobs\"", "\"efq\"");
	before("\"jobname\"", "\"groupid\"");
	before("\"groupid\"", "\"error\"");
	before("\"read\"", "\"write\"");
	before("\"io_bytes\"", "\"bw_bytes\"");
	before("\"bw_bytes\"", "\"clat_ns\"");
	// fio's layout: "key" : value, two spaces a level.
	EXPECT_THAT(s, HasSubstr("{\n  \"fio version\" : \"efqsim-0.1\",\n"));
	EXPECT_THAT(s, HasSubstr("\n      \"jobname\" : \"a\",\n"));
	EXPECT_EQ(s.back(), '\n');
	// Every float in fixed notation with six decimals, never an exponent.
	int floats = 0;
	for (size_t p = s.find(" : "); p != std::string::npos; p = s.find(" : ", p + 1)) {
		size_t start = p + 3, end = s.find_first_of(",\n", start);
		std::string v = s.substr(start, end - start);
		if (v.empty() || v[0] == '"' || v.find('.') == std::string::npos)
			continue;
		EXPECT_EQ(v.find_first_not_of("-0123456789."), std::string::npos) << v;
		EXPECT_EQ(v.size() - v.find('.') - 1, 6u) << v;
		floats++;
	}
	EXPECT_GT(floats, 20);
	EXPECT_THAT(s, HasSubstr("\"iops\" : 250.000000,"));
	EXPECT_THAT(s, HasSubstr("\"duration_ms\" : 30000.000000,"));
	EXPECT_THAT(s, Not(HasSubstr("e+")));
}

TEST(ReportJson, SameInputSameBytes)
{
	RunResult r = two_groups();
	std::string once = to_json(r);
	EXPECT_EQ(to_json(r), once);
	EXPECT_EQ(to_json(two_groups()), once);
	std::swap(r.groups[0], r.groups[1]); // groups are listed by path
	EXPECT_EQ(to_json(r), once);
}

TEST(ReportJson, StringsAreEscaped)
{
	RunResult r = two_groups();
	r.jobs[0].jobname = "quote\" back\\slash\ttab \x01 bad\xff";
	r.tunables["odd\"name"] = "x";
	json j = parse(r);
	EXPECT_EQ(j["jobs"][0]["jobname"].get<std::string>().substr(0, 21),
		  "quote\" back\\slash\ttab");
	EXPECT_EQ(j["efq"]["tunables"]["odd\"name"], "x");
}

TEST(ReportJson, EmptyRunIsValid)
{
	RunResult r;
	json j = parse(r);
	EXPECT_EQ(j["jobs"], json::array());
	EXPECT_EQ(j["efq"]["groups"], json::array());
	EXPECT_EQ(j["efq"]["tunables"], json::object());
}

} // namespace
} // namespace efqsim::report
