// SPDX-License-Identifier: GPL-2.0
// efqsim "hdd": a 7200 rpm SATA disk with NCQ, the V10 series' test disk.
// Documentation/sim/devices.rst describes the model and every parameter.
#pragma once

#include "device.h"
#include "params.h"

#include <map>
#include <queue>
#include <set>

namespace efqsim::dev {

// Defaults: datasheet-typical values of a 2009 500 GB 7200 rpm desktop SATA
// drive (a typical drive, not one product); devices.rst gives the sources.
struct HddParams {
	uint64_t capacity_sectors = 976773168; // 500 GB (IDEMA LBA count)
	uint32_t queue_depth = 31;	       // NCQ
	double rpm = 7200;
	uint32_t heads = 2;	      // recording surfaces (one 500 GB platter)
	uint32_t zones = 16;	      // recording zones, equal in cylinders
	double rate_outer_mbps = 115; // sustained media rate, outermost zone
	double rate_inner_mbps = 58;  // innermost zone
	double seek_track_ms = 0.8;   // one-cylinder seek
	double seek_avg_ms = 8.5;     // mean over uniformly random pairs of cylinders
	double seek_full_ms = 18;     // full-stroke seek
	double write_settle_ms = 0.5; // extra settle before writing after a seek
	double command_overhead_us = 15;
	double interface_mbps = 300;  // SATA 3 Gb/s
	double ncq_max_wait_ms = 500; // aging bound of the NCQ reordering
	bool write_cache = true;
	uint32_t cache_kib = 16384;	  // write-back capacity of the cache
	uint32_t readahead_kib = 1024;	  // read-ahead window (and read segment)
	uint32_t read_segments = 16;	  // read cache segments, one stream each
	uint32_t seq_prefetch_kib = 1024; // read-ahead a sequential miss always gets
	uint32_t destage_max_kib = 1024;  // largest single destage write
	double destage_idle_ms = 1;	  // media idle time before destaging starts
};

const std::vector<Param<HddParams>> &hdd_param_table();
// Cross-parameter checks; "" if @p is consistent, else the message, with the
// keys involved in @keys.
std::string hdd_check(const HddParams &p, std::vector<std::string> *keys);

// Zoned recording: LBA -> zone, cylinder, angle; media transfer times.
class HddGeometry {
public:
	struct Zone {
		uint64_t lba0 = 0, lba_end = 0; // [lba0, lba_end)
		uint64_t cyl0 = 0;
		uint32_t spt = 0;	  // sectors per track
		double ns_per_sector = 0; // rev_ns / spt
	};
	explicit HddGeometry(const HddParams &p);

	double rev_ns() const { return rev_ns_; }
	uint64_t cylinders() const { return cylinders_; }
	const std::vector<Zone> &zones() const { return zones_; }
	const Zone &zone_of(uint64_t lba) const;
	uint64_t cylinder(uint64_t lba) const;
	// Cylinder and angle of @lba at once.
	void place(uint64_t lba, uint64_t *cyl, double *angle) const;
	// First LBA of cylinder @cyl (< cylinders()).
	uint64_t first_lba(uint64_t cyl) const;
	// Sectors per cylinder at @lba (tracks of all heads).
	uint64_t cylinder_sectors(uint64_t lba) const;
	// Angular position of the start of @lba, in revolutions, [0, 1).
	double angle(uint64_t lba) const;
	// Media time to transfer sectors [a, b), a <= b.
	int64_t xfer_ns(uint64_t a, uint64_t b) const;
	// How far a transfer starting at @a gets in @ns (whole sectors).
	uint64_t advance_lba(uint64_t a, int64_t ns) const;
	// Sustained media rate at @lba, MB/s.
	double rate_mbps(uint64_t lba) const;

private:
	double rev_ns_;
	uint64_t capacity_;
	uint32_t heads_;
	uint64_t cylinders_ = 0;
	std::vector<Zone> zones_;
};

// Seek time against distance in cylinders: a + b*sqrt(d) up to a knee, then
// linear (the shape of Ruemmler and Wilkes), fitted so that the one-cylinder,
// full-stroke and average seek equal the parameters.
class SeekCurve {
public:
	SeekCurve() = default;
	// false (with the reason) when no curve of that shape gives @avg_ms.
	static bool fit(double track_ms, double avg_ms, double full_ms, uint64_t cylinders,
			SeekCurve *out, std::string *why);
	int64_t ns(uint64_t distance) const;
	double knee() const { return knee_; }
	// Mean seek over uniformly random pairs of cylinders, ms (the check of
	// the fit).
	double mean_ms() const;

private:
	double ms(double d) const;
	double a_ = 0, b_ = 0, c_ = 0, e_ = 0, knee_ = 1;
	uint64_t cylinders_ = 1;
};

class Hdd final : public Device {
public:
	// @p must pass hdd_check().
	explicit Hdd(const HddParams &p);

	std::string name() const override { return "hdd"; }
	uint32_t queue_depth() const override { return p_.queue_depth; }
	bool rotational() const override { return true; }
	uint64_t capacity_sectors() const override { return p_.capacity_sectors; }
	uint32_t in_flight() const override { return in_flight_; }
	void submit(const Request &rq, int64_t now) override;
	int64_t next_event() const override;
	void advance(int64_t now, std::vector<Completion> &out) override;
	const std::vector<int64_t> &busy_by_tag() const override { return busy_; }
	int64_t busy_total() const override { return busy_total_; }
	std::string params() const override;

	// The model's figures, for tests and the documentation.
	const HddParams &hdd_params() const { return p_; }
	const HddGeometry &geometry() const { return geo_; }
	const SeekCurve &seek_curve() const { return seek_; }
	uint64_t dirty_sectors() const { return dirty_sectors_; }
	size_t dirty_extents() const { return dirty_.size(); }

private:
	struct Cmd {
		Request rq;
		int64_t arrival = 0;
		uint64_t flush_seq = 0; // flush: dirty extents up to this key must go
		// find_hit()'s last miss: it stays a miss while the read cache
		// is at version @miss_version and the time before @miss_until.
		mutable uint64_t miss_version = 0;
		mutable int64_t miss_until = 0;
		// Where rq.sector is (HddGeometry::place()), once asked.
		mutable bool placed = false;
		mutable uint64_t cyl = 0;
		mutable double angle = 0;
	};
	struct Extent {
		uint64_t lba = 0;
		uint64_t sectors = 0;
		uint32_t tag = 0;
	};
	struct Later {
		bool operator()(const Completion &a, const Completion &b) const
		{
			return a.time != b.time ? a.time > b.time : a.id > b.id;
		}
	};
	enum class Media { Idle, Host, Destage };

	void run(int64_t until);
	void dispatch(int64_t t);
	void start_interface(int64_t t);
	void start_media(int64_t t);
	void serve_media(size_t i, int64_t t);
	void destage(uint64_t key, int64_t t);
	uint64_t cheapest_extent(int64_t t) const;
	void begin_media(Media what, uint32_t tag, int64_t t, int64_t end);
	void finish_media();
	void finish_interface();
	void charge(uint32_t tag, int64_t ns);

	bool cached(const Request &rq) const;
	bool flush_done(const Cmd &c) const;
	bool hit(const Cmd &c, int64_t t) const { return find_hit(c, t) >= 0; }
	int find_hit(const Cmd &c, int64_t t) const;
	void serve_prefetched(int64_t t);
	int victim() const;
	bool streaming(int64_t t) const;
	bool continues(const Request &rq, int64_t t) const;
	int64_t reach(uint64_t lba) const;
	uint64_t head_lba(int64_t t) const;
	int64_t rot_wait(double angle, int64_t t) const;
	uint64_t head_cylinder(int64_t t) const;
	int64_t positioning(uint64_t from, uint64_t lba, bool write, int64_t t,
			    int64_t overhead) const;
	int64_t positioning(uint64_t from, uint64_t to, double angle, bool write, int64_t t,
			    int64_t overhead) const;
	int64_t cost(const Cmd &c, int64_t t, uint64_t from) const;
	void stop_buffer(int64_t t);
	void invalidate(uint64_t a, uint64_t b);
	void consume(int seg, uint64_t b, int64_t t);
	int64_t iface_ns(uint64_t sectors) const;

	HddParams p_;
	HddGeometry geo_;
	SeekCurve seek_;
	int64_t overhead_ns_, settle_ns_, max_wait_ns_, destage_idle_ns_;
	double iface_ns_per_sector_;
	uint64_t cache_sectors_, window_sectors_, destage_max_sectors_, prefetch_sectors_;
	int64_t rev_ns_int_ = 0; // one revolution, rounded

	int64_t now_ = 0;
	uint32_t in_flight_ = 0;
	std::vector<Cmd> queue_;    // accepted, not started; in arrival order
	std::vector<size_t> cands_; // start_media()'s scratch
	std::set<uint64_t> ids_;    // in flight
	std::priority_queue<Completion, std::vector<Completion>, Later> done_;

	// The media (actuator and head): one operation at a time.
	Media media_ = Media::Idle;
	int64_t media_start_ = 0, media_end_ = 0;
	uint32_t media_tag_ = 0;
	bool last_was_host_ = false; // the last media operation served a command
	uint64_t destage_key_ = 0, destage_sectors_ = 0;
	int64_t media_idle_since_ = 0; // end of the last host media operation
	int64_t destage_at_ = kNever;  // idle destage timer
	// Where the head is: it passes @traj_lba_ at @traj_t_ and follows the
	// track (reading ahead, for a read) until @traj_limit_.
	uint64_t traj_lba_ = 0, traj_limit_ = 0;
	int64_t traj_t_ = 0;
	// The read cache: segments of [lo, hi), each one stream's data; the
	// live one (@live_, -1 if none) is [lo, head position) as the
	// read-ahead goes on.  LRU by @used.
	struct Segment {
		bool valid = false;
		uint64_t lo = 0, hi = 0;
		uint64_t used = 0;
	};
	std::vector<Segment> segs_;
	int live_ = -1;
	// Counts the changes of what find_hit() reads (the segments, the live
	// one and the head's trajectory), so that a read's miss is not
	// searched for again until something changed.
	uint64_t seg_version_ = 1;
	uint64_t use_clock_ = 0;
	// The media operation is a sequential miss's prefetch: reads of the
	// live segment up to @prefetch_end_ complete as the head passes them.
	bool prefetching_ = false;
	uint64_t prefetch_end_ = 0;

	// The host interface: one cache-only command (a write into the cache,
	// a read from the buffer, a flush, a discard) at a time.
	bool iface_busy_ = false;
	int64_t iface_start_ = 0, iface_end_ = 0, iface_overlap_ = 0;
	uint32_t iface_tag_ = 0;

	// Write cache: dirty extents by key (the order they were cached).
	std::map<uint64_t, Extent> dirty_;
	std::map<uint64_t, uint64_t> ends_; // extent end LBA -> key (for coalescing)
	uint64_t dirty_sectors_ = 0;
	uint64_t next_key_ = 1;
	uint64_t merge_floor_ = 0; // no merging into keys <= this (a flush waits)

	std::vector<int64_t> busy_;
	int64_t busy_total_ = 0;
};

} // namespace efqsim::dev
