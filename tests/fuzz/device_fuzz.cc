// SPDX-License-Identifier: GPL-2.0
// Fuzzes device specs (sim/dev): an input that starts with a built-in
// model's name and ':' (or is one) is an inline spec ("hdd:rpm=5400,...");
// anything else is a parameter file (written to a temporary file).  A bad
// one must fail with a message ("device ..." or "FILE:LINE: ..."); a good
// one must serve a few dozen requests of every kind: each completes once,
// not before it was submitted, and the device never stalls.
#include <algorithm>
#include <cstdint>
#include <map>
#include <string>

#include "dev/device.h"
#include "fuzz.h"

namespace {

bool is_inline_spec(const std::string &in)
{
	for (const std::string &m : efqsim::dev::model_names())
		if (in.rfind(m, 0) == 0 && (in.size() == m.size() || in[m.size()] == ':'))
			return true;
	return false;
}

void drive(efqsim::dev::Device &dev, uint64_t seed)
{
	const uint64_t cap = dev.capacity_sectors();
	if (cap == 0 || dev.queue_depth() == 0 || dev.queue_depth() > efqsim::dev::kMaxTags)
		efqfuzz::fail(dev.name() + ": capacity " + std::to_string(cap) + ", queue depth " +
			      std::to_string(dev.queue_depth()));
	constexpr int kRequests = 24;
	std::map<uint64_t, int64_t> submitted; // id -> time
	std::vector<efqsim::dev::Completion> done;
	int64_t now = 0;
	uint64_t next_id = 1, x = seed | 1;
	auto rnd = [&x] {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		return x;
	};
	for (int steps = 0; steps < 100000; steps++) {
		while (next_id <= kRequests && dev.in_flight() < dev.queue_depth()) {
			efqsim::dev::Request rq;
			rq.id = next_id;
			rq.tag = static_cast<uint32_t>(rnd() % 4);
			uint64_t kind = rnd() % 8;
			if (kind == 0) {
				rq.flush = true;
				rq.write = true;
			} else {
				rq.sectors = static_cast<uint32_t>(
					std::min<uint64_t>(8u << (rnd() % 6), cap));
				rq.sector = rnd() % (cap - rq.sectors + 1);
				rq.write = kind >= 5;
				rq.fua = kind == 7;
				rq.discard = kind == 6;
				if (rq.discard)
					rq.ranges = {{rq.sector, rq.sectors}};
			}
			int64_t later = dev.defer_until(rq, now);
			if (later > now) {
				now = std::min(later, dev.next_event());
				break;
			}
			dev.submit(rq, now);
			submitted[rq.id] = now;
			next_id++;
		}
		if (submitted.empty() && next_id > kRequests)
			break;
		int64_t t = dev.next_event();
		if (t == efqsim::dev::kNever) {
			if (!submitted.empty())
				efqfuzz::fail(dev.name() + ": " + std::to_string(submitted.size()) +
					      " requests in flight and no next event");
			continue;
		}
		if (t < now)
			efqfuzz::fail(dev.name() + ": next event in the past");
		now = t;
		done.clear();
		dev.advance(now, done);
		for (const auto &c : done) {
			auto it = submitted.find(c.id);
			if (it == submitted.end())
				efqfuzz::fail(dev.name() + ": request " + std::to_string(c.id) +
					      " completed twice or never submitted");
			if (c.time < it->second || c.time > now)
				efqfuzz::fail(dev.name() + ": request " + std::to_string(c.id) +
					      " completed at " + std::to_string(c.time));
			submitted.erase(it);
		}
	}
	if (!submitted.empty() || next_id <= kRequests)
		efqfuzz::fail(dev.name() + ": " + std::to_string(submitted.size()) +
			      " requests never completed");
	if (dev.busy_total() < 0)
		efqfuzz::fail(dev.name() + ": negative busy time");
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	std::string in(reinterpret_cast<const char *>(data), size);
	std::string err;
	std::string spec, where;
	if (is_inline_spec(in)) {
		spec = in;
		where = "device ";
	} else {
		spec = efqfuzz::write_temp("device.params", in);
		where = spec;
	}
	std::unique_ptr<efqsim::dev::Device> dev = efqsim::dev::make_device(spec, &err);
	if (!dev) {
		efqfuzz::check_message(err, where);
		return 0;
	}
	if (!err.empty())
		efqfuzz::fail("a device and an error: " + err);
	// What the device prints makes the same device.
	std::unique_ptr<efqsim::dev::Device> again =
		efqsim::dev::make_device(efqfuzz::write_temp("again.params", dev->params()), &err);
	if (!again || again->params() != dev->params())
		efqfuzz::fail("its printed parameters do not make the same device: " + err + "\n" +
			      dev->params());
	drive(*dev, size);
	return 0;
}
