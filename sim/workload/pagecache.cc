// SPDX-License-Identifier: GPL-2.0
// efqsim workloads: the page cache model.  See pagecache.h.

#include "workload/pagecache.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>

namespace efqsim::workload {

namespace {

uint64_t ceil_div(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

} // namespace

struct PageCache::FsyncOp {
	TaskId task = 0;
	FileId file = 0;
	int64_t cutoff = 0; // pages dirtied up to now must reach the disk
	Done done;
	size_t pending = 0;
};

PageCache::PageCache(Host &host, const PageCacheConfig &cfg) : host_(host), cfg_(cfg)
{
	TaskSpec t;
	t.comm = "kworker/flush";
	flusher_ = host_.create_task(t);

	const uint64_t ram = std::max<uint64_t>(cfg_.ram_bytes / kPageSize, 1);
	capacity_pages_ = ram;
	thresh_ = std::max<uint64_t>(ram * cfg_.dirty_ratio / 100, 1);
	bg_thresh_ = ram * cfg_.dirty_background_ratio / 100;
	if (bg_thresh_ >= thresh_) // as the kernel does
		bg_thresh_ = thresh_ / 2;
	freerun_ = (thresh_ + bg_thresh_) / 2;
	ra_pages_ = std::max<uint64_t>(cfg_.read_ahead_bytes / kPageSize, 1);
	max_io_pages_ = std::max<uint64_t>(cfg_.max_io_bytes / kPageSize, 1);
	wbs_.emplace_back(); // the root's
	wb_by_cgroup_[""] = 0;
}

PageCache::FileId PageCache::add_file(uint64_t start, uint64_t bytes)
{
	File f;
	f.first_page = start / kPageSize;
	f.end_page = std::max(ceil_div(start + bytes, kPageSize), f.first_page + 1);
	files_.push_back(std::move(f));
	return static_cast<FileId>(files_.size() - 1);
}

void PageCache::set_task_cgroup(TaskId task, const std::string &cgroup)
{
	task_cgroup_[task] = cgroup;
}

PageCache::Page &PageCache::page(uint64_t p, FileId f)
{
	auto [it, fresh] = pages_.try_emplace(p);
	if (fresh)
		it->second.file = f;
	return it->second;
}

void PageCache::lru_add(uint64_t p, Page &pg)
{
	if (pg.on_lru)
		return;
	lru_.push_front(p);
	pg.lru = lru_.begin();
	pg.on_lru = true;
}

void PageCache::lru_del(Page &pg)
{
	if (!pg.on_lru)
		return;
	lru_.erase(pg.lru);
	pg.on_lru = false;
}

void PageCache::evict()
{
	while (pages_.size() > capacity_pages_ && !lru_.empty()) {
		const uint64_t p = lru_.back();
		lru_.pop_back();
		pages_.erase(p);
		stats_.evicted_pages++;
	}
}

// --- reads -----------------------------------------------------------------

// The kernel's on-demand readahead sizes (mm/readahead.c): a first window of
// 4x or 2x the request (rounded up to a power of two), then 4x or 2x the
// previous window, never above read_ahead_kb.
uint64_t PageCache::init_window(uint64_t req) const
{
	const uint64_t r = std::bit_ceil(req);
	uint64_t s;
	if (r <= ra_pages_ / 32)
		s = 4 * r;
	else if (r <= ra_pages_ / 4)
		s = 2 * r;
	else
		s = ra_pages_;
	return std::min(s, ra_pages_);
}

uint64_t PageCache::next_window(uint64_t cur) const
{
	const uint64_t s = cur < ra_pages_ / 16 ? 4 * cur : 2 * cur;
	return std::min(s, ra_pages_);
}

void PageCache::submit_read(TaskId task, FileId f, uint64_t first, uint64_t count, bool ahead)
{
	const uint64_t id = next_io_++;
	ReadIo &r = reads_[id];
	r.first = first;
	r.count = count;
	for (uint64_t p = first; p < first + count; p++) {
		Page &pg = page(p, f);
		pg.flags = kReading;
		pg.read_io = id;
	}
	stats_.pages_read += count;
	if (ahead)
		stats_.readahead_pages += count;
	Io io;
	io.offset = first * kPageSize;
	io.bytes = static_cast<uint32_t>(count * kPageSize);
	io.write = false;
	io.sync = true;
	host_.submit(task, io, [this, id](int64_t) { read_done(id); });
}

// Reads the pages of [@from, @to) that are not cached, in runs of at most
// max_io_bytes.
void PageCache::read_missing(TaskId task, FileId f, uint64_t from, uint64_t to, bool ahead)
{
	uint64_t p = from;
	while (p < to) {
		if (pages_.count(p)) {
			p++;
			continue;
		}
		uint64_t n = 1;
		while (p + n < to && n < max_io_pages_ && !pages_.count(p + n))
			n++;
		submit_read(task, f, p, n, ahead);
		p += n;
	}
}

void PageCache::read_done(uint64_t id)
{
	auto node = reads_.extract(id);
	ReadIo &r = node.mapped();
	for (uint64_t p = r.first; p < r.first + r.count; p++) {
		auto it = pages_.find(p);
		if (it == pages_.end() || !(it->second.flags & kReading) ||
		    it->second.read_io != id)
			continue;
		Page &pg = it->second;
		pg.flags = static_cast<uint8_t>((pg.flags & ~kReading) | kUptodate);
		if (pg.flags == kUptodate)
			lru_add(p, pg);
	}
	for (auto &fn : r.waiters.fns)
		fn();
	evict();
}

void PageCache::read(TaskId task, FileId f, uint64_t offset, uint32_t bytes, Done done)
{
	stats_.read_calls++;
	const File &file = files_[f];
	const uint64_t p0 = offset / kPageSize;
	const uint64_t p1 = std::max(ceil_div(offset + bytes, kPageSize), p0 + 1);
	Readahead &ra = ra_[{task, f}];
	// Sequential: continues the previous read (or re-reads its last, partly
	// read page); a stream's first read is sequential at the file's start.
	const bool seq =
		ra.has_prev ? (p0 == ra.prev_end || p0 + 1 == ra.prev_end) : p0 == file.first_page;

	uint64_t present = 0, first_missing = p1;
	for (uint64_t p = p0; p < p1; p++) {
		if (pages_.count(p))
			present++;
		else if (first_missing == p1)
			first_missing = p;
	}
	stats_.hit_pages += present;
	stats_.miss_pages += (p1 - p0) - present;

	if (first_missing < p1) {
		if (seq) {
			// Synchronous readahead: a new window at the miss.
			const uint64_t m = first_missing;
			uint64_t size = ra.valid && m == ra.start + ra.size ? next_window(ra.size)
									    : init_window(p1 - p0);
			size = std::max(size, p1 - m);
			ra.valid = true;
			ra.start = m;
			ra.size = std::min(size, file.end_page - m);
			// The rest of the window beyond the request is read ahead;
			// reaching its first page reads the next window.
			ra.mark = ra.size > p1 - m ? p1 : ra.start + ra.size;
			read_missing(task, f, m, p1, false);
			if (ra.start + ra.size > p1)
				read_missing(task, f, p1, ra.start + ra.size, true);
		} else {
			read_missing(task, f, first_missing, p1, false);
		}
	}
	// Asynchronous readahead: the reader reached the marked page.
	if (seq && ra.valid && ra.mark >= p0 && ra.mark < p1 && ra.mark < ra.start + ra.size) {
		const uint64_t start = ra.start + ra.size;
		if (start < file.end_page) {
			ra.size = std::min(next_window(ra.size), file.end_page - start);
			ra.start = start;
			ra.mark = start;
			read_missing(task, f, start, start + ra.size, true);
		} else {
			ra.mark = ra.start + ra.size;
		}
	}
	ra.prev_end = p1;
	ra.has_prev = true;

	// Touch the cached pages; wait for the ones being read.
	std::vector<uint64_t> waits;
	for (uint64_t p = p0; p < p1; p++) {
		Page &pg = pages_.at(p);
		if (pg.on_lru) {
			lru_del(pg);
			lru_add(p, pg);
		}
		if ((pg.flags & kReading) &&
		    std::find(waits.begin(), waits.end(), pg.read_io) == waits.end())
			waits.push_back(pg.read_io);
	}
	const int64_t cost =
		cfg_.syscall_ns + cfg_.copy_ns_per_page * static_cast<int64_t>(p1 - p0);
	auto finish = [this, cost, done = std::move(done)]() {
		const int64_t when = host_.now() + cost;
		host_.at(when, [done, when]() { done(when); });
	};
	if (waits.empty()) {
		finish();
	} else {
		auto left = std::make_shared<size_t>(waits.size());
		auto fin = std::make_shared<decltype(finish)>(std::move(finish));
		for (const uint64_t id : waits)
			reads_.at(id).waiters.fns.push_back([left, fin]() {
				if (--*left == 0)
					(*fin)();
			});
	}
	evict();
}

// --- writes ----------------------------------------------------------------

uint32_t PageCache::wb_of(TaskId task)
{
	if (!cfg_.cgroup_writeback)
		return 0;
	auto t = task_cgroup_.find(task);
	const std::string cg = t == task_cgroup_.end() ? std::string() : t->second;
	auto [it, fresh] = wb_by_cgroup_.try_emplace(cg, static_cast<uint32_t>(wbs_.size()));
	if (fresh) {
		wbs_.emplace_back();
		wbs_.back().cgroup = cg;
		wbs_.back().stats.cgroup = cg;
	}
	return it->second;
}

void PageCache::mark_dirty(uint64_t p, Page &pg, TaskId task)
{
	if (pg.flags & kDirty)
		return; // the first dirtier keeps the page (its memcg charge)
	const uint32_t w = wb_of(task);
	const int64_t now = host_.now();
	lru_del(pg);
	pg.flags |= kDirty | kUptodate;
	pg.dirtier = task;
	pg.dirtied_at = now;
	pg.wb = w;
	nr_dirty_++;
	stats_.pages_dirtied++;
	Wb &wb = wbs_[w];
	wb.nr_dirty++;
	wb.stats.pages_dirtied++;
	WbFile &wf = wb.files[pg.file];
	wf.ndirty++;
	if (!(pg.flags & kWriteback))
		wf.dirty.insert(p);
	if (!wf.on_list) {
		wf.on_list = true;
		wf.dirtied_when = now;
		wf.turn_pages = 0;
		wb.dirty_files.push_back(pg.file);
	}
}

void PageCache::write(TaskId task, FileId f, uint64_t offset, uint32_t bytes, Done done)
{
	stats_.write_calls++;
	const uint64_t p0 = offset / kPageSize;
	const uint64_t p1 = std::max(ceil_div(offset + bytes, kPageSize), p0 + 1);
	for (uint64_t p = p0; p < p1; p++)
		mark_dirty(p, page(p, f), task);
	evict();
	arm_timer();
	const uint32_t w = wb_of(task);
	if (nr_dirty_ > bg_thresh_)
		kick_all();
	else if (over_background(wbs_[w]))
		kick(w);
	const int64_t now = host_.now();
	const int64_t ready =
		now + cfg_.syscall_ns + cfg_.copy_ns_per_page * static_cast<int64_t>(p1 - p0);
	if (over_limit(wbs_[w])) {
		stats_.throttled++;
		wbs_[w].stats.throttled++;
		throttled_.push_back(Throttled{task, w, now, ready, std::move(done)});
		kick(w);
		return;
	}
	host_.at(ready, [done = std::move(done), ready]() { done(ready); });
}

// --- dirty limits --------------------------------------------------------------

// Completions decay with a half-life, so the shares follow recent writeout.
void PageCache::decay(int64_t now)
{
	if (now <= decayed_at_)
		return;
	const double f =
		std::exp2(-static_cast<double>(now - decayed_at_) /
			  static_cast<double>(std::max<int64_t>(cfg_.writeout_halflife_ns, 1)));
	for (auto &wb : wbs_)
		wb.writeout *= f;
	writeout_total_ *= f;
	decayed_at_ = now;
}

// A wb's share of the dirty limits: its fraction of the recent writeout; an
// equal split among the wbs holding pages before anything was written.
double PageCache::share(const Wb &wb) const
{
	if (writeout_total_ > 0)
		return wb.writeout / writeout_total_;
	size_t active = 0;
	for (const auto &w : wbs_)
		active += w.nr_dirty + w.nr_writeback > 0;
	return 1.0 / static_cast<double>(std::max<size_t>(active, 1));
}

bool PageCache::over_background(const Wb &wb) const
{
	if (nr_dirty_ > bg_thresh_)
		return true;
	return cfg_.cgroup_writeback &&
	       static_cast<double>(wb.nr_dirty) > static_cast<double>(bg_thresh_) * share(wb);
}

bool PageCache::over_limit(const Wb &wb) const
{
	const uint64_t total = nr_dirty_ + nr_writeback_;
	if (total > thresh_)
		return true;
	if (!cfg_.cgroup_writeback || total <= freerun_)
		return false;
	return static_cast<double>(wb.nr_dirty + wb.nr_writeback) >
	       static_cast<double>(thresh_) * share(wb);
}

void PageCache::wake_throttled()
{
	const int64_t now = host_.now();
	for (auto it = throttled_.begin(); it != throttled_.end();) {
		if (over_limit(wbs_[it->wb])) {
			++it;
			continue;
		}
		const int64_t when = std::max(now, it->ready);
		stats_.throttled_ns += now - it->since;
		wbs_[it->wb].stats.throttled_ns += now - it->since;
		host_.at(when, [done = std::move(it->done), when]() { done(when); });
		it = throttled_.erase(it);
	}
}

// --- writeback ---------------------------------------------------------------

void PageCache::wb_file_clean(Wb &wb, FileId f, WbFile &wf)
{
	if (!wf.on_list)
		return;
	wb.dirty_files.remove(f);
	wf.on_list = false;
	wf.expired = false;
	wf.turn_pages = 0;
}

uint64_t PageCache::start_wb(uint32_t w, FileId f, uint64_t first, uint64_t count, TaskId dirtier,
			     bool flusher)
{
	const uint64_t id = next_io_++;
	WbIo &io = wbs_io_[id];
	io.file = f;
	io.wb = w;
	io.first = first;
	io.count = count;
	io.dirtier = dirtier;
	io.flusher = flusher;
	Wb &wb = wbs_[w];
	WbFile &wf = wb.files[f];
	for (uint64_t p = first; p < first + count; p++) {
		Page &pg = pages_.at(p);
		wf.dirty.erase(p);
		pg.flags = static_cast<uint8_t>((pg.flags & ~kDirty) | kWriteback);
		nr_dirty_--;
		nr_writeback_++;
		wb.nr_dirty--;
		wb.nr_writeback++;
		wf.ndirty--;
	}
	files_[f].wb_ios.insert(id);
	if (wf.ndirty == 0)
		wb_file_clean(wb, f, wf);
	return id;
}

// The next flusher chunk of @f in wb @w: consecutive dirty pages of one
// dirtier from the file's writeback cursor on (wrapping), at most
// max_io_bytes.
uint64_t PageCache::take_chunk(uint32_t w, FileId f)
{
	WbFile &wf = wbs_[w].files[f];
	auto it = wf.dirty.lower_bound(wf.cursor);
	if (it == wf.dirty.end())
		it = wf.dirty.begin();
	const uint64_t first = *it;
	const TaskId dirtier = pages_.at(first).dirtier;
	uint64_t count = 1;
	for (auto next = std::next(it); next != wf.dirty.end() && count < max_io_pages_;
	     ++next, ++count)
		if (*next != first + count || pages_.at(*next).dirtier != dirtier)
			break;
	wf.cursor = first + count;
	return start_wb(w, f, first, count, dirtier, true);
}

void PageCache::submit_wb(uint64_t id, TaskId submitter, bool sync)
{
	const WbIo &w = wbs_io_.at(id);
	Io io;
	io.offset = w.first * kPageSize;
	io.bytes = static_cast<uint32_t>(w.count * kPageSize);
	io.write = true;
	io.sync = sync; // WB_SYNC_ALL (fsync) writes are REQ_SYNC
	io.charge_to = w.dirtier;
	stats_.writeback_ios++;
	if (w.flusher)
		wbs_[w.wb].inflight++;
	host_.submit(submitter, io, [this, id](int64_t) { wb_done(id); });
}

void PageCache::wb_done(uint64_t id)
{
	auto node = wbs_io_.extract(id);
	WbIo &io = node.mapped();
	const int64_t now = host_.now();
	files_[io.file].wb_ios.erase(id);
	decay(now);
	Wb &wb = wbs_[io.wb];
	if (io.flusher)
		wb.inflight--;
	wb.writeout += static_cast<double>(io.count);
	writeout_total_ += static_cast<double>(io.count);
	std::vector<uint32_t> redirtied;
	for (uint64_t p = io.first; p < io.first + io.count; p++) {
		Page &pg = pages_.at(p);
		pg.flags = static_cast<uint8_t>(pg.flags & ~kWriteback);
		nr_writeback_--;
		wb.nr_writeback--;
		if (pg.flags & kDirty) { // dirtied again during writeback
			wbs_[pg.wb].files[pg.file].dirty.insert(p);
			if (pg.wb != io.wb)
				redirtied.push_back(pg.wb);
		} else if (pg.flags == kUptodate) {
			lru_add(p, pg);
		}
	}
	stats_.pages_written += io.count;
	wb.stats.pages_written += io.count;
	const uint32_t w = io.wb;
	for (auto &fn : io.waiters.fns)
		fn();
	wake_throttled();
	evict();
	check_sync_all();
	kick(w);
	for (const uint32_t r : redirtied)
		kick(r);
}

void PageCache::kick(uint32_t w)
{
	Wb &wb = wbs_[w];
	if (wb.flush_scheduled)
		return;
	wb.flush_scheduled = true;
	host_.at(host_.now(), [this, w]() {
		wbs_[w].flush_scheduled = false;
		flush(w);
	});
}

void PageCache::kick_all()
{
	for (uint32_t w = 0; w < wbs_.size(); w++)
		if (wbs_[w].nr_dirty && wbs_[w].inflight < cfg_.writeback_inflight)
			kick(w);
}

void PageCache::flush(uint32_t w)
{
	while (wbs_[w].inflight < cfg_.writeback_inflight && flush_one(w)) {
	}
}

bool PageCache::flush_one(uint32_t w)
{
	const uint64_t quantum =
		std::max<uint64_t>(cfg_.writeback_file_quantum_bytes / kPageSize, 1);
	Wb &wb = wbs_[w];
	// Expired files (periodic writeback) first, in full.
	for (const FileId f : wb.dirty_files) {
		WbFile &wf = wb.files[f];
		if (!wf.expired)
			continue;
		if (wf.dirty.empty()) {
			// What is left is under writeback and was dirtied again:
			// it starts a new expiry period.
			wf.expired = false;
			wf.dirtied_when = host_.now();
			continue;
		}
		submit_wb(take_chunk(w, f), flusher_, false);
		return true;
	}
	// Background writeback (and sync_all): oldest dirtied file first, a
	// quantum per file per turn.
	if (!over_background(wb) && sync_waiters_.empty())
		return false;
	for (const FileId f : wb.dirty_files) {
		WbFile &wf = wb.files[f];
		if (wf.dirty.empty())
			continue;
		const uint64_t id = take_chunk(w, f);
		wf.turn_pages += wbs_io_.at(id).count;
		if (wf.on_list && wf.turn_pages >= quantum) {
			wf.turn_pages = 0;
			wb.dirty_files.remove(f);
			wb.dirty_files.push_back(f);
		}
		submit_wb(id, flusher_, false);
		return true;
	}
	return false;
}

void PageCache::arm_timer()
{
	if (timer_armed_ || nr_dirty_ == 0)
		return;
	timer_armed_ = true;
	host_.at(host_.now() + cfg_.dirty_writeback_interval_ns, [this]() { on_timer(); });
}

void PageCache::on_timer()
{
	timer_armed_ = false;
	const int64_t now = host_.now();
	for (auto &wb : wbs_)
		for (const FileId f : wb.dirty_files) {
			WbFile &wf = wb.files[f];
			if (wf.dirtied_when + cfg_.dirty_expire_ns <= now)
				wf.expired = true;
		}
	kick_all();
	arm_timer();
}

void PageCache::check_sync_all()
{
	if (sync_waiters_.empty() || nr_dirty_ || nr_writeback_)
		return;
	const int64_t now = host_.now();
	for (auto &d : sync_waiters_)
		host_.at(now, [d = std::move(d), now]() { d(now); });
	sync_waiters_.clear();
}

void PageCache::sync_all(Done done)
{
	sync_waiters_.push_back(std::move(done));
	check_sync_all();
	kick_all();
}

std::vector<WbStats> PageCache::wb_stats() const
{
	std::vector<WbStats> out;
	for (const auto &wb : wbs_) {
		WbStats s = wb.stats;
		s.dirty_pages = wb.nr_dirty;
		s.writeback_pages = wb.nr_writeback;
		s.writeout_share = writeout_total_ > 0 ? wb.writeout / writeout_total_ : 0;
		out.push_back(std::move(s));
	}
	return out;
}

// --- fsync -------------------------------------------------------------------

void PageCache::fsync(TaskId task, FileId f, Done done)
{
	stats_.fsync_calls++;
	auto op = std::make_shared<FsyncOp>();
	op->task = task;
	op->file = f;
	op->cutoff = host_.now();
	op->done = std::move(done);
	fsync_round(op);
}

// One round: write the file's pages dirtied before the call that are not
// under writeback (in every wb), then wait for every writeback IO of the
// file in flight; pages that were under writeback and dirtied again before
// the call are written by the next round.
void PageCache::fsync_round(const std::shared_ptr<FsyncOp> &op)
{
	std::vector<uint64_t> ids;
	for (uint32_t w = 0; w < wbs_.size(); w++) {
		auto it = wbs_[w].files.find(op->file);
		if (it == wbs_[w].files.end())
			continue;
		std::vector<uint64_t> todo;
		for (const uint64_t p : it->second.dirty)
			if (pages_.at(p).dirtied_at <= op->cutoff)
				todo.push_back(p);
		for (size_t i = 0; i < todo.size();) {
			const uint64_t first = todo[i];
			const TaskId dirtier = pages_.at(first).dirtier;
			uint64_t n = 1;
			while (i + n < todo.size() && n < max_io_pages_ &&
			       todo[i + n] == first + n &&
			       pages_.at(todo[i + n]).dirtier == dirtier)
				n++;
			ids.push_back(start_wb(w, op->file, first, n, dirtier, false));
			i += n;
		}
	}
	const File &file = files_[op->file];
	const std::vector<uint64_t> waits(file.wb_ios.begin(), file.wb_ios.end());
	for (const uint64_t id : ids)
		submit_wb(id, op->task, true);
	if (waits.empty()) {
		const int64_t when = host_.now() + cfg_.syscall_ns;
		host_.at(when, [op, when]() { op->done(when); });
		return;
	}
	op->pending = waits.size();
	for (const uint64_t id : waits)
		wbs_io_.at(id).waiters.fns.push_back([this, op]() {
			if (--op->pending == 0)
				fsync_round(op);
		});
}

// --- invalidation --------------------------------------------------------------

void PageCache::invalidate(FileId f)
{
	for (auto it = pages_.begin(); it != pages_.end();) {
		if (it->second.file == f && it->second.flags == kUptodate) {
			lru_del(it->second);
			it = pages_.erase(it);
		} else {
			++it;
		}
	}
	for (auto it = ra_.begin(); it != ra_.end();) {
		if (it->first.second == f)
			it = ra_.erase(it);
		else
			++it;
	}
}

void PageCache::invalidate_range(uint64_t offset, uint64_t bytes)
{
	const uint64_t p1 = ceil_div(offset + bytes, kPageSize);
	for (uint64_t p = offset / kPageSize; p < p1; p++) {
		auto it = pages_.find(p);
		if (it != pages_.end() && it->second.flags == kUptodate) {
			lru_del(it->second);
			pages_.erase(it);
		}
	}
}

} // namespace efqsim::workload
