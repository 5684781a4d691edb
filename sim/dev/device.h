// SPDX-License-Identifier: GPL-2.0
// efqsim device models: the contract between the simulated block layer
// (sim/blk) and a device (sim/dev).  Time is simulated nanoseconds.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace efqsim::dev {

inline constexpr int64_t kNever = std::numeric_limits<int64_t>::max();
// Request::tag is below this; busy_by_tag() of the models in sim/dev has
// exactly this many entries, so any valid tag can index it.
inline constexpr uint32_t kMaxTags = 4096;

// One range of 512-byte sectors of a discard.
struct Range {
	uint64_t sector = 0;
	uint32_t sectors = 0;
	bool operator==(const Range &) const = default;
};

// One request as the driver hands it to the device.
struct Request {
	uint64_t id = 0;      // unique, chosen by the block layer
	uint64_t sector = 0;  // first 512-byte sector
	uint32_t sectors = 0; // length in 512-byte sectors (0 for a flush)
	bool write = false;   // the write direction (a discard is in it, as in 6.1)
	bool fua = false;     // write through the cache
	bool flush = false;   // cache flush (sectors == 0)
	// A discard (REQ_OP_DISCARD): no data moves.  @ranges are the sectors
	// it discards: one range per bio of the request, in the request's
	// order, when the queue has max_discard_segments > 1 (6.1's NVMe and
	// virtio-blk drivers send such a list; the ranges need not be
	// contiguous), else the one range [sector, sector + sectors).  @sector
	// is the first range's start and @sectors the sum of all ranges.
	// @ranges is empty for every other request.
	bool discard = false;
	std::vector<Range> ranges;
	uint32_t tag = 0; // accounting key for busy time (the group), < 4096
	// Segments (pages) of the request's first bio: 1 for a bio that fits
	// one 4 KiB page, 0 for a discard (no pages).  Only models that look
	// at bios use it (multipath).
	uint32_t first_bio_segments = 1;
};

struct Completion {
	uint64_t id = 0;
	int64_t time = 0; // when it completed
};

// A device accepts up to queue_depth() requests, serves them in an order of
// its own (e.g. NCQ reordering) and completes them.  It is driven by the
// caller's event loop: next_event() says when something happens next,
// advance(now) makes it happen.  Deterministic: the same calls give the same
// results.
class Device {
public:
	virtual ~Device() = default;

	virtual std::string name() const = 0;	  // "hdd", "ssd", "null", or the file's model name
	virtual uint32_t queue_depth() const = 0; // requests accepted at once
	virtual bool rotational() const = 0;
	virtual uint64_t capacity_sectors() const = 0;
	virtual uint32_t in_flight() const = 0;

	// Accept @rq at time @now; requires in_flight() < queue_depth() and
	// rq.sector + rq.sectors <= capacity_sectors().
	// The models in sim/dev check every precondition (check_request() below,
	// plus: @now not before a time the device has already been advanced or
	// submitted to, and rq.id not already in flight) and throw
	// RejectedRequest, leaving the device unchanged, when one fails.
	// in_flight() counts a request from submit() until advance() returns
	// its completion.
	virtual void submit(const Request &rq, int64_t now) = 0;
	// Asked for every request just before submit(): may the device take
	// @rq at @now?  A device that wants it later (request-based
	// dm-multipath's sequential-IO merge deadline: let the request grow
	// first) returns the time to ask again, > @now; the block layer then
	// gives the request back to the scheduler (where bios can still merge
	// into the queue), stops dispatching, and re-runs the queue at that
	// time (like BLK_STS_RESOURCE and blk_mq_delay_run_hw_queue()).  0 (or
	// any time <= @now): submit it.  The default takes every request.
	virtual int64_t defer_until(const Request &rq, int64_t now)
	{
		(void)rq;
		(void)now;
		return 0;
	}
	// The time of the next internal event (a completion, or internal work
	// such as destaging the write cache), or kNever.
	virtual int64_t next_event() const = 0;
	// Run every internal event with time <= @now; append the completions,
	// in completion-time order (ties by id), to @out.
	virtual void advance(int64_t now, std::vector<Completion> &out) = 0;

	// Time the device spent serving requests of each tag (index = tag), as
	// the device measured it; the independent check of the engine's own
	// disk-time accounting.  Documented per model in
	// Documentation/sim/devices.rst.
	virtual const std::vector<int64_t> &busy_by_tag() const = 0;
	virtual int64_t busy_total() const = 0;

	// The device's parameters in the parameter-file format (a file holding
	// this text makes the same device); "" if the device has none.
	virtual std::string params() const { return {}; }
};

// What submit() throws for a request that breaks its preconditions; what()
// names the device, the request and the broken rule.
class RejectedRequest : public std::invalid_argument {
public:
	using std::invalid_argument::invalid_argument;
};

// The device-independent preconditions of Device::submit(): a free queue
// slot, sectors > 0 for a read, write or discard and 0 for a flush, the
// range inside the device (each range of a discard, the ranges adding up
// to @sectors and starting at @sector; no ranges on anything else), tag <
// kMaxTags.  false with the reason in @why (if not null).
bool check_request(const Device &dev, const Request &rq, std::string *why);

// Everything a model's submit() checks before accepting @rq at @now: the
// preconditions above, time not going back from the model's own @dev_now,
// and an id not already in flight.  Throws RejectedRequest naming the model.
void check_submit(const Device &dev, const Request &rq, int64_t now, int64_t dev_now,
		  bool id_in_flight);

// The built-in model names, the default first: {"hdd", "ssd", "null",
// "multipath", "qemu-nvme", "qemu-sata", "qemu-virtio"}.
const std::vector<std::string> &model_names();
// model_names() for a message: "hdd, ssd, ..., qemu-sata or qemu-virtio",
// or with @or_more "hdd, ssd, ..., qemu-virtio or @or_more".
std::string model_list(const std::string &or_more = "");

// The default parameters of built-in model @model in the parameter-file
// format, each with its unit and meaning as a comment: a starting point
// for a parameter file.  "" if @model is not a built-in model.
std::string default_params(const std::string &model);

// "hdd" (default), "ssd", "null", "multipath", "qemu-nvme", "qemu-sata",
// "qemu-virtio", a built-in model with some
// parameters changed ("MODEL:key=value,...", e.g.
// "multipath:rq_based_seq_io_merge_deadline=20"), or the path of a parameter
// file.  On error returns nullptr and sets @err to a message naming the
// problem (with file:line for a parameter file).
std::unique_ptr<Device> make_device(const std::string &spec, std::string *err);

} // namespace efqsim::dev
