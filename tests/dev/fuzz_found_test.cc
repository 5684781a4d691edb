// SPDX-License-Identifier: GPL-2.0
// What fuzzing device specs and parameter files found
// (tests/fuzz/device_fuzz.cc; Documentation/sim/efqsim.rst, "Fuzzing"), one
// test each, with the minimized input.

#include "dev/device.h"
#include "dev/params.h"

#include <gtest/gtest.h>

#include <string>

namespace efqsim::dev {
namespace {

using namespace std::string_literals;

std::string param_error(const std::string &text)
{
	ParamFile f;
	std::string err;
	EXPECT_FALSE(parse_param_text(text, "p", &f, &err)) << text;
	return err;
}

// A parameter file's raw bytes went into the message (a NUL cut it short
// on a terminal; an escape sequence reached it).
TEST(FuzzFound, ControlBytesInAParameterFileAreEscapedInTheMessage)
{
	EXPECT_EQ(param_error("multip\x00"
			      "ath:rq = 20\n"s),
		  "p:1: bad parameter name 'multip\\x00ath:rq'");
	EXPECT_EQ(param_error("\x1b[2J\n"), "p:1: expected 'key = value', got '\\x1b[2J'");
	EXPECT_EQ(param_error("model = h\x01\n"),
		  "p:1: model: unknown model 'h\\x01' (hdd, ssd, null, multipath, qemu-nvme, "
		  "qemu-sata or qemu-virtio)");
	std::string err = param_error(std::string(3000, 'k') + "\n");
	EXPECT_LT(err.size(), 200u) << err;
}

TEST(FuzzFound, ControlBytesInAnInlineDeviceSpecAreEscapedInTheMessage)
{
	std::string err;
	EXPECT_FALSE(make_device("hdd:rpm\x07", &err));
	EXPECT_EQ(err, "device 'hdd:rpm\\x07': 'rpm\\x07' is not key=value");
	EXPECT_FALSE(make_device("ssd:queue_" + std::string(1000, '\0') + "=1", &err));
	EXPECT_LE(err.size(), 420u) << err;
	EXPECT_EQ(err.rfind("device ssd: unknown parameter 'queue_\\x00\\x00", 0), 0u) << err;
	EXPECT_NE(err.find(" ... "), std::string::npos) << err;
	EXPECT_FALSE(make_device("null:latency_us\t=2", &err));
	EXPECT_EQ(err, "device null: unknown parameter 'latency_us\\x09' for model null");
}

} // namespace
} // namespace efqsim::dev
