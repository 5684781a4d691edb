// SPDX-License-Identifier: GPL-2.0
// efqsim workloads: the page cache, for buffered IO (fio's direct=0).
//
// A model of what a buffered read() or write() costs a task and which IO it
// causes, after Linux 6.1 with its defaults (Debian 12 does not change
// them) and cgroup v2 writeback:
//
//   reads   hit cached pages (no IO) or read the missing ones through, from
//           the reading task; sequential streams get on-demand readahead
//           (read_ahead_kb = 128: windows ramp up 4x/2x to 128 KiB, and
//           reaching a window's first page reads the next one
//           asynchronously).
//   writes  dirty pages and return.  Each dirty page belongs to the
//           writeback domain ("wb") of its dirtier's cgroup.  Above
//           dirty_background_ratio (10 % of RAM) writeback starts; a writer
//           blocks above dirty_ratio (20 %), or, above the midpoint of the
//           two ("freerun"), when its wb holds more dirty + writeback pages
//           than its share of dirty_ratio -- the share being its fraction of
//           the recent writeout (completions decayed with a 3 s half-life),
//           as balance_dirty_pages() divides the limit among wbs.  So a
//           cgroup that the scheduler serves more also dirties more.
//   flusher one task ("kworker/flush") writes each wb's dirty pages back
//           independently (per wb: up to writeback_inflight IOs in flight,
//           files oldest-dirtied first, 4 MiB per file per turn, ascending
//           offsets) as async writes of up to 512 KiB of consecutive pages
//           of one dirtier, each charged to the dirtier (Io::charge_to), as
//           cgroup v2 writeback does.  A wb writes while the cache is above
//           the background threshold or the wb is above its share of it;
//           files dirtied more than dirty_expire (30 s) ago are written in
//           full at the next periodic wakeup (every 5 s).
//   fsync   the calling task writes the file's pages that were dirty when
//           it called, as sync writes charged to their dirtiers, and waits
//           for them and for the file's writeback already in flight.
//
// With cgroup_writeback = false there is one wb for everybody (Linux before
// cgroup writeback, e.g. the 2.6.31 of the series): writers are throttled
// alike whatever their cgroup, so weights barely show for buffered writes.
//
// Pages are 4 KiB, keyed by device offset: files are disjoint extents of the
// device, so one cache serves them all.  Every page of RAM may cache; clean
// pages are evicted least recently used first.  What the model leaves out
// is listed in Documentation/sim/workloads.rst.
#pragma once

#include "workload/host.h"

#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

namespace efqsim::workload {

struct PageCacheConfig {
	uint64_t ram_bytes = uint64_t{4} << 30;		     // RAM the dirty ratios refer to
	unsigned int dirty_background_ratio = 10;	     // % of RAM: writeback starts
	unsigned int dirty_ratio = 20;			     // % of RAM: writers block
	int64_t dirty_expire_ns = 30'000'000'000;	     // dirty_expire_centisecs = 3000
	int64_t dirty_writeback_interval_ns = 5'000'000'000; // dirty_writeback_centisecs = 500
	uint32_t read_ahead_bytes = 128 << 10;		     // read_ahead_kb = 128
	uint32_t max_io_bytes = 512 << 10;		     // largest IO the cache submits
	unsigned int writeback_inflight = 64;		     // IOs in flight per wb at most
	uint64_t writeback_file_quantum_bytes = 4 << 20;     // per file per turn
	bool cgroup_writeback = true;			     // a wb per cgroup (else one)
	int64_t writeout_halflife_ns = 3'000'000'000;	     // of the writeout shares
	int64_t syscall_ns = 1000;			     // entering and leaving read()/write()
	int64_t copy_ns_per_page = 1000;		     // copying 4 KiB to/from the cache
};

struct PageCacheStats {
	uint64_t read_calls = 0, write_calls = 0, fsync_calls = 0;
	uint64_t hit_pages = 0;	      // pages a read() found cached or in flight
	uint64_t miss_pages = 0;      // pages a read() had to read itself
	uint64_t readahead_pages = 0; // pages read ahead of the reader
	uint64_t pages_read = 0;      // all pages read from the device
	uint64_t pages_dirtied = 0;   // clean -> dirty
	uint64_t pages_written = 0;   // written back (flusher and fsync)
	uint64_t writeback_ios = 0;
	uint64_t throttled = 0; // write() calls that blocked at a dirty limit
	int64_t throttled_ns = 0;
	uint64_t evicted_pages = 0;
};

// One writeback domain, as stats.
struct WbStats {
	std::string cgroup; // "" = the root (and everybody without cgroup_writeback)
	uint64_t dirty_pages = 0, writeback_pages = 0;
	uint64_t pages_dirtied = 0, pages_written = 0;
	uint64_t throttled = 0;
	int64_t throttled_ns = 0;
	double writeout_share = 0; // of the recent writeout, 0..1
};

class PageCache {
public:
	using FileId = uint32_t;
	using Done = std::function<void(int64_t when)>;
	static constexpr uint32_t kPageSize = 4096;

	// Creates the flusher task.
	PageCache(Host &host, const PageCacheConfig &cfg = {});
	PageCache(const PageCache &) = delete;
	PageCache &operator=(const PageCache &) = delete;

	// A file: a page-aligned extent of the device.
	FileId add_file(uint64_t start, uint64_t bytes);
	// The cgroup whose wb @task's dirty pages join ("" = the root, also
	// for tasks never named here).
	void set_task_cgroup(TaskId task, const std::string &cgroup);

	// Buffered IO from @task on [@offset, @offset + @bytes) (device bytes,
	// inside the file).  @done runs when the call returns to the task.
	void read(TaskId task, FileId f, uint64_t offset, uint32_t bytes, Done done);
	void write(TaskId task, FileId f, uint64_t offset, uint32_t bytes, Done done);
	void fsync(TaskId task, FileId f, Done done);
	// Drop @f's clean, idle pages (fio's invalidate=1 at job start).
	void invalidate(FileId f);
	// Drop clean, idle pages in a device range (a direct write went there).
	void invalidate_range(uint64_t offset, uint64_t bytes);
	// Write back everything; @done runs when no page is dirty or under
	// writeback.
	void sync_all(Done done);

	TaskId flusher() const { return flusher_; }
	const PageCacheStats &stats() const { return stats_; }
	std::vector<WbStats> wb_stats() const; // in order of first use
	uint64_t cached_pages() const { return pages_.size(); }
	uint64_t dirty_pages() const { return nr_dirty_; }
	uint64_t writeback_pages() const { return nr_writeback_; }
	uint64_t background_thresh_pages() const { return bg_thresh_; }
	uint64_t dirty_thresh_pages() const { return thresh_; }

private:
	enum : uint8_t { kUptodate = 1, kDirty = 2, kWriteback = 4, kReading = 8 };
	struct Page {
		FileId file = 0;
		uint32_t wb = 0; // of the dirtier, while dirty
		uint8_t flags = 0;
		bool on_lru = false;
		TaskId dirtier = 0;
		int64_t dirtied_at = 0;
		uint64_t read_io = 0; // while kReading
		std::list<uint64_t>::iterator lru;
	};
	struct File {
		uint64_t first_page = 0, end_page = 0;
		std::set<uint64_t> wb_ios; // writeback IOs in flight
	};
	// A file's dirty pages in one wb (the kernel's inode on a wb's lists).
	struct WbFile {
		std::set<uint64_t> dirty; // dirty, not under writeback: writable now
		uint64_t ndirty = 0;	  // pages with kDirty
		int64_t dirtied_when = 0;
		bool on_list = false, expired = false;
		uint64_t cursor = 0, turn_pages = 0;
	};
	struct Wb {
		std::string cgroup;
		std::map<FileId, WbFile> files;
		std::list<FileId> dirty_files; // oldest dirtied first
		uint64_t nr_dirty = 0, nr_writeback = 0;
		unsigned int inflight = 0; // flusher IOs
		bool flush_scheduled = false;
		double writeout = 0; // decayed completed pages
		WbStats stats;
	};
	struct Waiters {
		std::vector<std::function<void()>> fns;
	};
	struct WbIo {
		FileId file = 0;
		uint32_t wb = 0;
		uint64_t first = 0, count = 0;
		TaskId dirtier = 0;
		bool flusher = false;
		Waiters waiters;
	};
	struct ReadIo {
		uint64_t first = 0, count = 0;
		Waiters waiters;
	};
	struct Readahead {
		bool valid = false;			// a window exists
		uint64_t start = 0, size = 0, mark = 0; // window [start, start+size)
		bool has_prev = false;
		uint64_t prev_end = 0; // page after the previous read
	};
	struct Throttled {
		TaskId task;
		uint32_t wb;
		int64_t since, ready;
		Done done;
	};
	struct FsyncOp;

	Page &page(uint64_t p, FileId f);
	void lru_add(uint64_t p, Page &pg);
	void lru_del(Page &pg);
	void evict();
	void submit_read(TaskId task, FileId f, uint64_t first, uint64_t count, bool ahead);
	void read_missing(TaskId task, FileId f, uint64_t from, uint64_t to, bool ahead);
	void read_done(uint64_t id);
	uint64_t init_window(uint64_t req) const;
	uint64_t next_window(uint64_t cur) const;
	uint32_t wb_of(TaskId task);
	void mark_dirty(uint64_t p, Page &pg, TaskId task);
	void wb_file_clean(Wb &wb, FileId f, WbFile &wf);
	uint64_t start_wb(uint32_t wb, FileId f, uint64_t first, uint64_t count, TaskId dirtier,
			  bool flusher);
	uint64_t take_chunk(uint32_t wb, FileId f);
	void submit_wb(uint64_t id, TaskId submitter, bool sync);
	void wb_done(uint64_t id);
	void decay(int64_t now);
	double share(const Wb &wb) const;
	bool over_background(const Wb &wb) const;
	bool over_limit(const Wb &wb) const;
	void kick(uint32_t wb);
	void kick_all();
	void flush(uint32_t wb);
	bool flush_one(uint32_t wb);
	void arm_timer();
	void on_timer();
	void wake_throttled();
	void check_sync_all();
	void fsync_round(const std::shared_ptr<FsyncOp> &op);

	Host &host_;
	PageCacheConfig cfg_;
	TaskId flusher_ = 0;
	uint64_t capacity_pages_, bg_thresh_, thresh_, freerun_;
	uint64_t ra_pages_, max_io_pages_;
	std::unordered_map<uint64_t, Page> pages_;
	std::list<uint64_t> lru_; // clean idle pages, most recent first
	std::vector<File> files_;
	std::vector<Wb> wbs_; // [0] is the root's
	std::map<std::string, uint32_t> wb_by_cgroup_;
	std::unordered_map<TaskId, std::string> task_cgroup_;
	std::map<std::pair<TaskId, FileId>, Readahead> ra_;
	std::unordered_map<uint64_t, ReadIo> reads_;
	std::unordered_map<uint64_t, WbIo> wbs_io_;
	uint64_t next_io_ = 1;
	uint64_t nr_dirty_ = 0, nr_writeback_ = 0;
	double writeout_total_ = 0;
	int64_t decayed_at_ = 0;
	bool timer_armed_ = false;
	std::list<Throttled> throttled_;
	std::vector<Done> sync_waiters_;
	PageCacheStats stats_;
};

} // namespace efqsim::workload
