// SPDX-License-Identifier: GPL-2.0
// The multipath device and its merge deadline (request-based dm's
// rq_based_seq_io_merge_deadline, Documentation/sim/devices.rst) as an
// efqsim user sets it: --device MODEL:key=value.
#include <array>
#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "run_efqsim.h"
#include <sys/wait.h>

namespace {

using efqtest::efqsim;
using efqtest::Result;

std::string param(const std::string &device)
{
	Result r = efqsim("--device " + device + " --print-device-params");
	EXPECT_EQ(r.status, 0) << r.out;
	auto at = r.out.find("rq_based_seq_io_merge_deadline = ");
	if (at == std::string::npos)
		return "missing";
	at += 33;
	return r.out.substr(at, r.out.find(' ', at) - at);
}

TEST(MultipathCli, DeadlineDefaultsReadBackAndClamp)
{
	EXPECT_EQ(param("multipath"), "0");
	EXPECT_EQ(param("multipath:rq_based_seq_io_merge_deadline=20"), "20");
	EXPECT_EQ(param("multipath:rq_based_seq_io_merge_deadline=200000"), "100000");
	Result r = efqsim("--device multipath --print-device-params");
	EXPECT_NE(r.out.find("model = multipath"), std::string::npos) << r.out;
	EXPECT_NE(r.out.find("paths = 4"), std::string::npos) << r.out;
	EXPECT_NE(r.out.find("path_queue_depth = 32"), std::string::npos) << r.out;
}

TEST(MultipathCli, GarbageIsBadInput)
{
	Result r = efqsim("--device multipath:rq_based_seq_io_merge_deadline=abc "
			  "--print-device-params");
	EXPECT_EQ(r.status, 1) << r.out;
	EXPECT_NE(r.out.find("efqsim: device multipath: rq_based_seq_io_merge_deadline: 'abc' is "
			     "not a whole number"),
		  std::string::npos)
		<< r.out;
	r = efqsim("--device multipath:nosuch=1 --print-device-params");
	EXPECT_EQ(r.status, 1) << r.out;
	EXPECT_NE(r.out.find("unknown parameter 'nosuch' for model multipath"), std::string::npos)
		<< r.out;
}

} // namespace
