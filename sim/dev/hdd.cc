// SPDX-License-Identifier: GPL-2.0
// efqsim "hdd": zoned geometry, seek curve, rotation, read-ahead, NCQ
// reordering with an aging bound, a segmented read cache with sequential
// prefetch, and a write-back cache that coalesces sequential streams.
//
// Two servers work in parallel: the media (actuator and head: positioning,
// reading, writing, destaging) and the host interface (commands that need
// only the cache: a write into the write cache, a read served from the read
// buffer, a flush, a discard).  Each serves one operation at a time.  A
// discard costs the command overhead on the interface and nothing per
// sector; it leaves the caches and the media alone.  Every duration is
// known when an operation starts, so the model computes completion times
// exactly and needs no randomness: the platter angle follows from the
// simulated time, a sector's angle from its LBA.

#include "hdd.h"

#include <algorithm>
#include <cmath>

namespace efqsim::dev {

namespace {

constexpr double kMB = 1e6;
constexpr double kSector = 512;
// The head is "on time" for a sector it passed by less than this (rounding
// of durations to whole nanoseconds).
constexpr int64_t kSlackNs = 100;
// Destage picks, by positioning time, among this many oldest dirty extents.
constexpr int kDestageWindow = 32;

// Rounds a non-negative duration to the nearest nanosecond.
int64_t round_ns(double ns)
{
	return int64_t(ns + 0.5);
}

int64_t ns_of_ms(double ms)
{
	return round_ns(ms * 1e6);
}

} // namespace

const std::vector<Param<HddParams>> &hdd_param_table()
{
	using P = HddParams;
	static const std::vector<Param<P>> table = {
		{"capacity_sectors", "sectors", "capacity (default: 500 GB)", 2048, 1ull << 40,
		 &P::capacity_sectors},
		{"queue_depth", "", "NCQ depth: commands the drive accepts at once", 1, 256,
		 &P::queue_depth},
		{"rpm", "rpm", "spindle speed", 3600, 15000, &P::rpm},
		{"heads", "", "recording surfaces", 1, 16, &P::heads},
		{"zones", "", "recording zones (equal numbers of cylinders)", 1, 64, &P::zones},
		{"rate_outer_mbps", "MB/s", "sustained media rate of the outermost zone (LBA 0)", 1,
		 2000, &P::rate_outer_mbps},
		{"rate_inner_mbps", "MB/s", "sustained media rate of the innermost zone", 1, 2000,
		 &P::rate_inner_mbps},
		{"seek_track_ms", "ms", "one-cylinder seek", 0.01, 20, &P::seek_track_ms},
		{"seek_avg_ms", "ms", "average seek (over uniformly random pairs of cylinders)",
		 0.01, 50, &P::seek_avg_ms},
		{"seek_full_ms", "ms", "full-stroke seek", 0.01, 100, &P::seek_full_ms},
		{"write_settle_ms", "ms", "extra settling before a write after a seek", 0, 10,
		 &P::write_settle_ms},
		{"command_overhead_us", "us", "controller time per command", 0, 10000,
		 &P::command_overhead_us},
		{"interface_mbps", "MB/s", "host link rate (SATA 3 Gb/s: 300)", 1, 100000,
		 &P::interface_mbps},
		{"ncq_max_wait_ms", "ms",
		 "NCQ aging: a command queued longer than this is served next, oldest first", 1,
		 1e6, &P::ncq_max_wait_ms},
		{"write_cache", "", "write-back cache enabled (1) or write-through (0)", 0, 1,
		 &P::write_cache},
		{"cache_kib", "KiB", "dirty data the write cache holds", 64, 1 << 20,
		 &P::cache_kib},
		{"readahead_kib", "KiB", "read-ahead window past the last sector read (0: none)", 0,
		 1 << 20, &P::readahead_kib},
		{"read_segments", "", "read cache segments, each one stream's read-ahead (LRU)", 1,
		 64, &P::read_segments},
		{"seq_prefetch_kib", "KiB",
		 "read-ahead a sequential read miss gets before the next command (at most "
		 "readahead_kib; 0: none)",
		 0, 1 << 20, &P::seq_prefetch_kib},
		{"destage_max_kib", "KiB", "largest single destage (write-back) operation", 4,
		 1 << 20, &P::destage_max_kib},
		{"destage_idle_ms", "ms", "media idle time before the cache destages", 0, 1e5,
		 &P::destage_idle_ms},
	};
	return table;
}

std::string hdd_check(const HddParams &p, std::vector<std::string> *keys)
{
	if (p.rate_inner_mbps > p.rate_outer_mbps) {
		*keys = {"rate_inner_mbps", "rate_outer_mbps"};
		return "rate_inner_mbps (" + format_real(p.rate_inner_mbps) +
		       ") is above rate_outer_mbps (" + format_real(p.rate_outer_mbps) + ")";
	}
	if (!(p.seek_track_ms < p.seek_avg_ms && p.seek_avg_ms < p.seek_full_ms)) {
		*keys = {"seek_track_ms", "seek_avg_ms", "seek_full_ms"};
		return "need seek_track_ms < seek_avg_ms < seek_full_ms (" +
		       format_real(p.seek_track_ms) + ", " + format_real(p.seek_avg_ms) + ", " +
		       format_real(p.seek_full_ms) + ")";
	}
	HddGeometry geo(p);
	SeekCurve curve;
	std::string why;
	if (!SeekCurve::fit(p.seek_track_ms, p.seek_avg_ms, p.seek_full_ms, geo.cylinders(), &curve,
			    &why)) {
		*keys = {"seek_track_ms",    "seek_avg_ms",	"seek_full_ms",
			 "capacity_sectors", "heads",		"zones",
			 "rate_outer_mbps",  "rate_inner_mbps", "rpm"};
		return why;
	}
	return "";
}

// --- geometry ---------------------------------------------------------------

HddGeometry::HddGeometry(const HddParams &p)
    : rev_ns_(60e9 / p.rpm), capacity_(p.capacity_sectors), heads_(p.heads)
{
	double rps = p.rpm / 60;
	std::vector<uint32_t> spt(p.zones);
	uint64_t per_cylinder_set = 0; // one cylinder of every zone
	for (uint32_t i = 0; i < p.zones; i++) {
		double f = p.zones == 1 ? 0 : double(i) / (p.zones - 1);
		double rate = p.rate_outer_mbps + (p.rate_inner_mbps - p.rate_outer_mbps) * f;
		spt[i] = std::max<uint32_t>(1, uint32_t(std::llround(rate * kMB / kSector / rps)));
		per_cylinder_set += uint64_t(spt[i]) * heads_;
	}
	uint64_t cyl_per_zone = (capacity_ + per_cylinder_set - 1) / per_cylinder_set;
	uint64_t lba = 0, cyl = 0;
	for (uint32_t i = 0; i < p.zones && lba < capacity_; i++) {
		Zone z;
		z.lba0 = lba;
		z.lba_end = std::min(capacity_, lba + cyl_per_zone * heads_ * spt[i]);
		z.cyl0 = cyl;
		z.spt = spt[i];
		z.ns_per_sector = rev_ns_ / spt[i];
		zones_.push_back(z);
		lba = z.lba_end;
		cyl += cyl_per_zone;
	}
	cylinders_ = cylinder(capacity_ - 1) + 1;
}

const HddGeometry::Zone &HddGeometry::zone_of(uint64_t lba) const
{
	auto it = std::upper_bound(zones_.begin(), zones_.end(), lba,
				   [](uint64_t x, const Zone &z) { return x < z.lba0; });
	return *(it - 1);
}

void HddGeometry::place(uint64_t lba, uint64_t *cyl, double *angle) const
{
	const Zone &z = zone_of(lba);
	uint64_t track = (lba - z.lba0) / z.spt;
	*cyl = z.cyl0 + track / heads_;
	*angle = double(lba - z.lba0 - track * z.spt) / z.spt;
}

uint64_t HddGeometry::cylinder(uint64_t lba) const
{
	const Zone &z = zone_of(lba);
	return z.cyl0 + (lba - z.lba0) / (uint64_t(z.spt) * heads_);
}

uint64_t HddGeometry::first_lba(uint64_t cyl) const
{
	auto it = std::upper_bound(zones_.begin(), zones_.end(), cyl,
				   [](uint64_t c, const Zone &z) { return c < z.cyl0; });
	const Zone &z = *(it - 1);
	return std::min(z.lba_end - 1, z.lba0 + (cyl - z.cyl0) * z.spt * heads_);
}

uint64_t HddGeometry::cylinder_sectors(uint64_t lba) const
{
	return uint64_t(zone_of(lba).spt) * heads_;
}

double HddGeometry::angle(uint64_t lba) const
{
	const Zone &z = zone_of(lba);
	return double((lba - z.lba0) % z.spt) / z.spt;
}

int64_t HddGeometry::xfer_ns(uint64_t a, uint64_t b) const
{
	double ns = 0;
	while (a < b) {
		const Zone &z = zone_of(a);
		uint64_t n = std::min(b, z.lba_end) - a;
		ns += n * z.ns_per_sector;
		a += n;
	}
	return round_ns(ns);
}

uint64_t HddGeometry::advance_lba(uint64_t a, int64_t ns) const
{
	// Half a nanosecond of slack: xfer_ns() rounds to the nearest ns, so
	// advance_lba(a, xfer_ns(a, b)) is b.
	double left = ns + 0.5;
	while (a < capacity_) {
		const Zone &z = zone_of(a);
		double zone_ns = (z.lba_end - a) * z.ns_per_sector;
		if (left < zone_ns)
			return a + uint64_t(left / z.ns_per_sector);
		left -= zone_ns;
		a = z.lba_end;
	}
	return capacity_;
}

double HddGeometry::rate_mbps(uint64_t lba) const
{
	return zone_of(lba).spt * kSector / (rev_ns_ * 1e-9) / kMB;
}

// --- seek curve ---------------------------------------------------------------

double SeekCurve::ms(double d) const
{
	if (d <= 0)
		return 0;
	if (d <= knee_)
		return a_ + b_ * std::sqrt(d);
	return c_ + e_ * d;
}

int64_t SeekCurve::ns(uint64_t distance) const
{
	return ns_of_ms(ms(double(distance)));
}

// Mean of ms(d) over uniformly random (start, end) cylinder pairs: distance
// d >= 1 has probability 2(N - d)/N^2.  Simpson's rule in u = sqrt(d) (the
// integrand is smooth in u), separately below and above the knee.
double SeekCurve::mean_ms() const
{
	double n = double(cylinders_);
	if (cylinders_ < 2)
		return 0;
	auto integral = [&](double lo, double hi) {
		if (hi <= lo)
			return 0.0;
		const int steps = 512;
		double ulo = std::sqrt(lo), uhi = std::sqrt(hi), h = (uhi - ulo) / steps;
		auto f = [&](double u) {
			double d = u * u;
			return ms(d) * 2 * (n - d) / (n * n) * 2 * u;
		};
		double s = f(ulo) + f(uhi);
		for (int i = 1; i < steps; i++)
			s += f(ulo + i * h) * (i % 2 ? 4 : 2);
		return s * h / 3;
	};
	double knee = std::clamp(knee_, 1.0, n - 1);
	return integral(1, knee) + integral(knee, n - 1);
}

bool SeekCurve::fit(double track_ms, double avg_ms, double full_ms, uint64_t cylinders,
		    SeekCurve *out, std::string *why)
{
	SeekCurve s;
	s.cylinders_ = cylinders;
	if (cylinders < 3) {
		// Too few cylinders for a curve: every seek is one track.
		s.a_ = s.c_ = track_ms;
		*out = s;
		return true;
	}
	double dmax = double(cylinders - 1);
	// For a knee k: a + b*sqrt(d) up to k, then c + e*d with the same value
	// and slope at k; the one-cylinder and full-stroke seeks fix a, b, c, e.
	auto make = [&](double k) {
		SeekCurve c = s;
		double rk = std::sqrt(k);
		c.knee_ = k;
		c.b_ = (full_ms - track_ms) / (rk / 2 + dmax / (2 * rk) - 1);
		c.a_ = track_ms - c.b_;
		c.e_ = c.b_ / (2 * rk);
		c.c_ = c.a_ + c.b_ * rk / 2;
		return c;
	};
	// The mean grows with the knee: from a straight line (knee 1) to a pure
	// square root (knee at full stroke).
	double lo = 0, hi = std::log(dmax);
	double mean_lo = make(1).mean_ms(), mean_hi = make(dmax).mean_ms();
	if (avg_ms < mean_lo || avg_ms > mean_hi) {
		*why = "seek_avg_ms " + format_real(avg_ms) +
		       " cannot be fitted: with seek_track_ms " + format_real(track_ms) +
		       " and seek_full_ms " + format_real(full_ms) + " it must be within [" +
		       format_real(std::ceil(mean_lo * 100) / 100) + ", " +
		       format_real(std::floor(mean_hi * 100) / 100) + "]";
		return false;
	}
	for (int i = 0; i < 100; i++) {
		double mid = (lo + hi) / 2;
		if (make(std::exp(mid)).mean_ms() < avg_ms)
			lo = mid;
		else
			hi = mid;
	}
	*out = make(std::exp((lo + hi) / 2));
	return true;
}

// --- the drive ----------------------------------------------------------------

Hdd::Hdd(const HddParams &p)
    : p_(p), geo_(p), overhead_ns_(round_ns(p.command_overhead_us * 1e3)),
      settle_ns_(ns_of_ms(p.write_settle_ms)), max_wait_ns_(ns_of_ms(p.ncq_max_wait_ms)),
      destage_idle_ns_(ns_of_ms(p.destage_idle_ms)),
      iface_ns_per_sector_(kSector * 1e9 / (p.interface_mbps * kMB)),
      cache_sectors_(uint64_t(p.cache_kib) * 2), window_sectors_(uint64_t(p.readahead_kib) * 2),
      destage_max_sectors_(uint64_t(p.destage_max_kib) * 2),
      prefetch_sectors_(std::min(uint64_t(p.seq_prefetch_kib), uint64_t(p.readahead_kib)) * 2),
      rev_ns_int_(round_ns(geo_.rev_ns()))
{
	segs_.resize(p.read_segments);
	std::string why;
	SeekCurve::fit(p.seek_track_ms, p.seek_avg_ms, p.seek_full_ms, geo_.cylinders(), &seek_,
		       &why);
	busy_.assign(kMaxTags, 0);
}

std::string Hdd::params() const
{
	return dump_params("hdd", hdd_param_table(), p_);
}

int64_t Hdd::iface_ns(uint64_t sectors) const
{
	return round_ns(sectors * iface_ns_per_sector_);
}

void Hdd::submit(const Request &rq, int64_t now)
{
	check_submit(*this, rq, now, now_, ids_.count(rq.id) > 0);
	run(now);
	ids_.insert(rq.id);
	in_flight_++;
	Cmd c{rq, now, 0};
	if (rq.flush) {
		// The flush covers what is in the cache now; later writes do not
		// merge into it, so the flush cannot be starved.
		c.flush_seq = next_key_ - 1;
		merge_floor_ = next_key_ - 1;
	}
	queue_.push_back(c);
	dispatch(now);
}

int64_t Hdd::next_event() const
{
	int64_t t = destage_at_;
	if (!done_.empty())
		t = std::min(t, done_.top().time);
	if (media_ != Media::Idle)
		t = std::min(t, media_end_);
	if (iface_busy_)
		t = std::min(t, iface_end_);
	return t;
}

void Hdd::advance(int64_t now, std::vector<Completion> &out)
{
	run(now);
	while (!done_.empty() && done_.top().time <= now) {
		out.push_back(done_.top());
		ids_.erase(done_.top().id);
		done_.pop();
		in_flight_--;
	}
}

void Hdd::run(int64_t until)
{
	for (;;) {
		int64_t t = destage_at_;
		if (media_ != Media::Idle)
			t = std::min(t, media_end_);
		if (iface_busy_)
			t = std::min(t, iface_end_);
		if (t == kNever || t > until)
			break;
		now_ = std::max(now_, t);
		if (media_ != Media::Idle && media_end_ == t)
			finish_media();
		if (iface_busy_ && iface_end_ == t)
			finish_interface();
		if (destage_at_ == t)
			destage_at_ = kNever;
		dispatch(t);
	}
	if (until != kNever)
		now_ = std::max(now_, until);
}

void Hdd::dispatch(int64_t t)
{
	if (prefetching_)
		serve_prefetched(t);
	if (!iface_busy_)
		start_interface(t);
	if (media_ == Media::Idle)
		start_media(t);
}

void Hdd::charge(uint32_t tag, int64_t ns)
{
	busy_[tag] += ns;
	busy_total_ += ns;
}

// Busy time: every instant at which the media or the interface works goes
// to one tag: the media operation's if the media is busy, else the
// interface operation's.  So busy_total() is the time the drive was doing
// anything, never more than the time that passed.  Each operation is
// credited when it ends.
void Hdd::begin_media(Media what, uint32_t tag, int64_t t, int64_t end)
{
	media_ = what;
	media_tag_ = tag;
	media_start_ = t;
	media_end_ = end;
	last_was_host_ = what == Media::Host;
	destage_at_ = kNever;
	if (iface_busy_ && iface_end_ > t)
		iface_overlap_ += std::min(iface_end_, end) - t;
}

void Hdd::finish_interface()
{
	iface_busy_ = false;
	charge(iface_tag_, iface_end_ - iface_start_ - iface_overlap_);
}

bool Hdd::cached(const Request &rq) const
{
	return p_.write_cache && rq.write && !rq.discard && !rq.fua && !rq.flush &&
	       rq.sectors <= cache_sectors_;
}

bool Hdd::flush_done(const Cmd &c) const
{
	return dirty_.empty() || dirty_.begin()->first > c.flush_seq;
}

int64_t Hdd::reach(uint64_t lba) const
{
	return lba <= traj_lba_ ? traj_t_ : traj_t_ + geo_.xfer_ns(traj_lba_, lba);
}

uint64_t Hdd::head_lba(int64_t t) const
{
	if (t <= traj_t_)
		return traj_lba_;
	return std::min(traj_limit_, geo_.advance_lba(traj_lba_, t - traj_t_));
}

bool Hdd::streaming(int64_t t) const
{
	return live_ >= 0 && reach(traj_limit_) > t;
}

// The segment holding all of @c's data at @t, or -1.  A miss is kept with
// the cache's version and the time the live segment's read-ahead reaches
// the end of @c's data (if it will): until either changes it is a miss
// again, without the search (every queued read is asked at every event).
int Hdd::find_hit(const Cmd &c, int64_t t) const
{
	if (c.miss_version == seg_version_ && t < c.miss_until)
		return -1;
	const Request &rq = c.rq;
	uint64_t b = rq.sector + rq.sectors;
	int64_t until = kNever;
	for (int i = 0; i < int(segs_.size()); i++) {
		const Segment &s = segs_[i];
		if (!s.valid || rq.sector < s.lo)
			continue;
		if (i != live_) {
			if (b <= s.hi)
				return i;
		} else if (b <= traj_limit_) {
			const int64_t at = reach(b);
			if (at <= t)
				return i;
			until = at;
		}
	}
	c.miss_version = seg_version_;
	c.miss_until = until;
	return -1;
}

bool Hdd::continues(const Request &rq, int64_t t) const
{
	return !rq.write && streaming(t) && rq.sector >= segs_[live_].lo &&
	       rq.sector <= traj_limit_;
}

// The segment a new stream gets: an empty one, else the least recently used.
int Hdd::victim() const
{
	int v = 0;
	for (int i = 0; i < int(segs_.size()); i++) {
		if (!segs_[i].valid)
			return i;
		if (segs_[i].used < segs_[v].used)
			v = i;
	}
	return v;
}

// The rotational wait from @t until angle @angle comes under the head.
int64_t Hdd::rot_wait(double angle, int64_t t) const
{
	double turns = double(t) / geo_.rev_ns();
	double w = angle - (turns - std::floor(turns));
	if (w < 0)
		w += 1;
	int64_t ns = round_ns(w * geo_.rev_ns());
	return ns >= rev_ns_int_ - kSlackNs ? 0 : ns;
}

uint64_t Hdd::head_cylinder(int64_t t) const
{
	return geo_.cylinder(std::min(head_lba(t), p_.capacity_sectors - 1));
}

int64_t Hdd::positioning(uint64_t from, uint64_t lba, bool write, int64_t t, int64_t overhead) const
{
	uint64_t to;
	double angle;
	geo_.place(lba, &to, &angle);
	return positioning(from, to, angle, write, t, overhead);
}

int64_t Hdd::positioning(uint64_t from, uint64_t to, double angle, bool write, int64_t t,
			 int64_t overhead) const
{
	uint64_t d = from > to ? from - to : to - from;
	int64_t s = seek_.ns(d);
	if (write && d)
		s += settle_ns_;
	return overhead + s + rot_wait(angle, t + overhead + s);
}

// The positioning time of queued command @c from cylinder @from at @t (its
// place on the disk is computed once: every queued command is costed at
// every media decision).
int64_t Hdd::cost(const Cmd &c, int64_t t, uint64_t from) const
{
	const Request &rq = c.rq;
	if (continues(rq, t))
		return std::max<int64_t>(0, reach(rq.sector) - t);
	if (!c.placed) {
		geo_.place(rq.sector, &c.cyl, &c.angle);
		c.placed = true;
	}
	return positioning(from, c.cyl, c.angle, rq.write, t, overhead_ns_);
}

void Hdd::stop_buffer(int64_t t)
{
	if (live_ >= 0) {
		segs_[live_].hi = head_lba(t);
		live_ = -1;
		seg_version_++;
	}
}

void Hdd::invalidate(uint64_t a, uint64_t b)
{
	for (int i = 0; i < int(segs_.size()); i++) {
		Segment &s = segs_[i];
		uint64_t hi = i == live_ ? traj_limit_ : s.hi;
		if (s.valid && a < hi && b > s.lo) {
			s.valid = false;
			if (i == live_)
				live_ = -1;
			seg_version_++;
		}
	}
}

// A read of segment @seg up to @b: the segment keeps the window behind it,
// and its read-ahead (if live) goes on a window beyond it.
void Hdd::consume(int seg, uint64_t b, int64_t t)
{
	Segment &s = segs_[seg];
	seg_version_++;
	if (b > window_sectors_)
		s.lo = std::max(s.lo, b - window_sectors_);
	s.used = ++use_clock_;
	if (seg == live_ && streaming(t))
		traj_limit_ =
			std::max(traj_limit_, std::min(p_.capacity_sectors, b + window_sectors_));
}

// While the media does a sequential miss's prefetch, reads inside it
// complete as the head passes their end (or after the link transfer),
// without waiting for the media or taking the interface.
void Hdd::serve_prefetched(int64_t t)
{
	if (live_ < 0 || media_ != Media::Host)
		return;
	for (size_t i = 0; i < queue_.size();) {
		const Request &rq = queue_[i].rq;
		uint64_t b = rq.sector + rq.sectors;
		if (rq.write || rq.flush || rq.discard || rq.sector < segs_[live_].lo ||
		    b > prefetch_end_) {
			i++;
			continue;
		}
		consume(live_, b, t);
		int64_t end = std::max(reach(b), t + overhead_ns_ + iface_ns(rq.sectors));
		done_.push({rq.id, std::max(end, t + 1)});
		queue_.erase(queue_.begin() + i);
	}
}

void Hdd::start_interface(int64_t t)
{
	bool write_seen = false;
	for (size_t i = 0; i < queue_.size(); i++) {
		const Request &rq = queue_[i].rq;
		int64_t dur;
		if (rq.discard) {
			dur = overhead_ns_;
		} else if (rq.flush) {
			if (!flush_done(queue_[i]))
				continue;
			dur = overhead_ns_;
		} else if (rq.write) {
			// Writes enter the cache in arrival order.
			if (!cached(rq) || write_seen)
				continue;
			write_seen = true;
			if (dirty_sectors_ + rq.sectors > cache_sectors_)
				continue;
			// Coalescing: a write continuing any dirty extent of its
			// tag (cached after the last flush) extends it.
			uint64_t b = rq.sector + rq.sectors;
			auto end = ends_.find(rq.sector);
			auto ext = end == ends_.end() ? dirty_.end() : dirty_.find(end->second);
			if (ext != dirty_.end() && ext->first > merge_floor_ &&
			    ext->second.tag == rq.tag &&
			    ext->second.lba + ext->second.sectors == rq.sector) {
				ext->second.sectors += rq.sectors;
				ends_.erase(end);
				ends_[b] = ext->first;
			} else {
				dirty_[next_key_] = {rq.sector, rq.sectors, rq.tag};
				ends_[b] = next_key_++;
			}
			dirty_sectors_ += rq.sectors;
			invalidate(rq.sector, rq.sector + rq.sectors);
			dur = overhead_ns_ + iface_ns(rq.sectors);
		} else {
			int seg = find_hit(queue_[i], t);
			if (seg < 0)
				continue;
			consume(seg, rq.sector + rq.sectors, t);
			dur = overhead_ns_ + iface_ns(rq.sectors);
		}
		dur = std::max<int64_t>(dur, 1);
		done_.push({rq.id, t + dur});
		iface_busy_ = true;
		iface_tag_ = rq.tag;
		iface_start_ = t;
		iface_end_ = t + dur;
		iface_overlap_ =
			media_ == Media::Idle
				? 0
				: std::max<int64_t>(0, std::min(iface_end_, media_end_) - t);
		queue_.erase(queue_.begin() + i);
		return;
	}
}

void Hdd::start_media(int64_t t)
{
	// Commands that need the media, in arrival order; and whether a command
	// waits for the cache to destage (a write that does not fit, a flush).
	std::vector<size_t> &cands = cands_;
	cands.clear();
	bool need = false;
	bool write_seen = false;
	for (size_t i = 0; i < queue_.size(); i++) {
		const Cmd &c = queue_[i];
		if (c.rq.discard)
			continue; // the interface serves it
		if (c.rq.flush) {
			need = need || !flush_done(c);
			continue;
		}
		if (cached(c.rq)) {
			if (!write_seen && dirty_sectors_ + c.rq.sectors > cache_sectors_)
				need = true;
			write_seen = true;
			continue;
		}
		if (!c.rq.write && hit(c, t))
			continue; // the interface serves it
		cands.push_back(i);
	}
	bool forced = need && !dirty_.empty();
	if (cands.empty()) {
		if (dirty_.empty())
			return;
		if (!forced && t < media_idle_since_ + destage_idle_ns_) {
			// Idle destage, once the media has rested a while.
			destage_at_ = media_idle_since_ + destage_idle_ns_;
			return;
		}
		destage(cheapest_extent(t), t);
		return;
	}
	// With the cache full (or a flush waiting), destages and commands take
	// turns, one operation each.
	if (forced && last_was_host_) {
		destage(cheapest_extent(t), t);
		return;
	}
	// Aging: a command that waited too long goes first, oldest first.
	if (t - queue_[cands[0]].arrival > max_wait_ns_) {
		serve_media(cands[0], t);
		return;
	}
	// Shortest positioning time first; ties to the oldest.
	int64_t best = kNever;
	size_t best_i = 0;
	uint64_t from = head_cylinder(t);
	for (size_t i : cands) {
		int64_t c = cost(queue_[i], t, from);
		if (c < best) {
			best = c;
			best_i = i;
		}
	}
	serve_media(best_i, t);
}

// The dirty extent to write back next: the shortest positioning time among
// the oldest few (ties to the oldest).
uint64_t Hdd::cheapest_extent(int64_t t) const
{
	int64_t best = kNever;
	uint64_t best_key = 0;
	uint64_t from = head_cylinder(t);
	int n = 0;
	for (const auto &[key, e] : dirty_) {
		if (n++ == kDestageWindow)
			break;
		int64_t c = positioning(from, e.lba, true, t, 0);
		if (c < best) {
			best = c;
			best_key = key;
		}
	}
	return best_key;
}

void Hdd::serve_media(size_t i, int64_t t)
{
	Request rq = queue_[i].rq;
	queue_.erase(queue_.begin() + i);
	uint64_t a = rq.sector, b = a + rq.sectors;
	int64_t link = t + overhead_ns_ + iface_ns(rq.sectors);
	int64_t end;
	int64_t media_end;
	if (continues(rq, t)) {
		// The read-ahead is reading this: wait for it to pass the end.
		consume(live_, b, t);
		end = media_end = std::max(reach(b), link);
	} else {
		int64_t data_end = t + positioning(head_cylinder(t), a, rq.write, t, overhead_ns_) +
				   geo_.xfer_ns(a, b);
		stop_buffer(t);
		seg_version_++;
		traj_lba_ = b;
		traj_t_ = data_end;
		end = media_end = std::max(data_end, link);
		if (rq.write) {
			invalidate(a, b);
			traj_limit_ = b;
		} else {
			// A read starting in a segment continues that segment's
			// stream; any other read takes a new segment.
			int seg = -1;
			for (int i = 0; i < int(segs_.size()) && seg < 0; i++)
				if (segs_[i].valid && segs_[i].lo <= a && a <= segs_[i].hi &&
				    segs_[i].lo < segs_[i].hi)
					seg = i;
			bool sequential = seg >= 0;
			if (seg < 0)
				seg = victim();
			segs_[seg] = {true, a, b, ++use_clock_};
			live_ = seg;
			// Read ahead from here on; a sequential stream gets its
			// prefetch before the media takes another command.
			traj_limit_ = std::min(p_.capacity_sectors, b + window_sectors_);
			if (sequential && prefetch_sectors_) {
				prefetch_end_ =
					std::min(p_.capacity_sectors, b + prefetch_sectors_);
				prefetching_ = prefetch_end_ > b;
				media_end = std::max(end, reach(prefetch_end_));
			}
		}
	}
	end = std::max(end, t + 1);
	done_.push({rq.id, end});
	begin_media(Media::Host, rq.tag, t, std::max(media_end, end));
}

void Hdd::destage(uint64_t key, int64_t t)
{
	const Extent &e = dirty_.at(key);
	uint64_t n = std::min(e.sectors, destage_max_sectors_);
	int64_t end = t + positioning(head_cylinder(t), e.lba, true, t, 0) +
		      geo_.xfer_ns(e.lba, e.lba + n);
	end = std::max(end, t + 1);
	stop_buffer(t);
	invalidate(e.lba, e.lba + n);
	seg_version_++;
	traj_lba_ = traj_limit_ = e.lba + n;
	traj_t_ = end;
	destage_key_ = key;
	destage_sectors_ = n;
	// The data's writer pays for writing it back.
	begin_media(Media::Destage, e.tag, t, end);
}

void Hdd::finish_media()
{
	charge(media_tag_, media_end_ - media_start_);
	if (media_ == Media::Destage) {
		auto it = dirty_.find(destage_key_);
		it->second.lba += destage_sectors_;
		it->second.sectors -= destage_sectors_;
		dirty_sectors_ -= destage_sectors_;
		if (!it->second.sectors) {
			auto end = ends_.find(it->second.lba);
			if (end != ends_.end() && end->second == it->first)
				ends_.erase(end);
			dirty_.erase(it);
		}
	} else {
		media_idle_since_ = media_end_;
	}
	media_ = Media::Idle;
	prefetching_ = false;
}

} // namespace efqsim::dev
