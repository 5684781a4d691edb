// SPDX-License-Identifier: GPL-2.0
// Synthetic blktrace recordings; see synth.h.
#include "trace/synth.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <queue>

#include "trace/blktrace.h"
#include "trace/event.h"

namespace efqsim::trace {
namespace {

// splitmix64: a small deterministic stream, the same on every machine.
class Stream {
public:
	explicit Stream(uint64_t seed) : s_(seed) {}
	uint64_t next()
	{
		uint64_t z = (s_ += 0x9e3779b97f4a7c15ull);
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
		return z ^ (z >> 31);
	}
	uint64_t below(uint64_t n) { return next() % n; }

private:
	uint64_t s_;
};

// One record waiting for its time: written once every earlier one is.
struct Pending {
	int64_t time = 0;
	uint64_t ord = 0; // generation order: ties keep it
	uint64_t sector = 0;
	uint32_t sectors = 0;
	uint32_t pid = 0;
	uint32_t rwbs = 0;
	uint32_t cpu = 0;
	char action = 0;
	bool operator>(const Pending &o) const
	{
		return time != o.time ? time > o.time : ord > o.ord;
	}
};

struct Proc {
	uint32_t pid = 0;
	uint32_t cpu = 0;
	bool random = false, write = false, named = false;
	uint64_t next_sector = 0, first_sector = 0, end_sector = 0;
};

class Writer {
public:
	bool open(const std::string &prefix, unsigned int cpus, SynthResult *out, std::string *err)
	{
		for (unsigned int c = 0; c < cpus; c++) {
			std::string path = prefix + ".blktrace." + std::to_string(c);
			FILE *f = std::fopen(path.c_str(), "wb");
			if (!f) {
				*err = path + ": " + std::strerror(errno);
				return false;
			}
			files_.emplace_back(f, &std::fclose);
			bufs_.emplace_back();
			seq_.push_back(0);
			out->paths.push_back(path);
		}
		return true;
	}

	bool put(const Pending &p, const std::string &comm, std::string *err)
	{
		Event ev;
		ev.time_ns = p.time;
		ev.seq = ++seq_[p.cpu];
		ev.dev = make_dev(8, 0);
		ev.cpu = p.cpu;
		ev.pid = p.pid;
		ev.action = p.action;
		ev.rwbs = p.rwbs;
		ev.sector = p.sector;
		ev.sectors = p.sectors;
		if (p.action == 'N')
			ev.comm = comm;
		std::string &b = bufs_[p.cpu];
		b += encode_event(ev);
		events_++;
		if (b.size() >= (1u << 20))
			return flush(p.cpu, err);
		return true;
	}

	bool close(std::string *err)
	{
		for (size_t c = 0; c < files_.size(); c++) {
			if (!flush(c, err))
				return false;
			FILE *f = files_[c].release();
			if (std::fclose(f) != 0) {
				*err = "cannot write a synthetic trace file: " +
				       std::string(std::strerror(errno));
				return false;
			}
		}
		return true;
	}

	uint64_t events() const { return events_; }

private:
	bool flush(size_t c, std::string *err)
	{
		std::string &b = bufs_[c];
		if (!b.empty() && std::fwrite(b.data(), 1, b.size(), files_[c].get()) != b.size()) {
			*err = "cannot write a synthetic trace file: " +
			       std::string(std::strerror(errno));
			return false;
		}
		b.clear();
		return true;
	}

	std::vector<std::unique_ptr<FILE, int (*)(FILE *)>> files_;
	std::vector<std::string> bufs_;
	std::vector<uint64_t> seq_;
	uint64_t events_ = 0;
};

} // namespace

SynthSpec hadoop_shape(uint64_t ios)
{
	SynthSpec s;
	s.ios = ios;
	s.cpus = 40;
	// 137,309 IOs in 169 s
	s.span_ns = static_cast<int64_t>(static_cast<double>(ios) * 169e9 / 137'309.0);
	return s;
}

bool write_synthetic_trace(const std::string &prefix, const SynthSpec &spec, SynthResult *out,
			   std::string *err)
{
	*out = SynthResult{};
	if (!spec.ios || !spec.cpus || !spec.procs || spec.span_ns <= 0 ||
	    spec.region_bytes < (uint64_t{64} << 20)) {
		*err = "bad synthetic trace spec";
		return false;
	}
	Stream rnd(spec.seed);
	const uint64_t region_sectors = spec.region_bytes >> 9;
	std::vector<Proc> procs(spec.procs);
	// Sequential processes each own a slice of the device.
	const uint64_t slice = region_sectors / spec.procs;
	for (unsigned int i = 0; i < spec.procs; i++) {
		Proc &p = procs[i];
		p.pid = 1000 + i;
		p.cpu = i % spec.cpus;
		p.random = spec.random_every && i % spec.random_every == spec.random_every - 1;
		p.write = spec.writer_every && i % spec.writer_every == spec.writer_every - 1;
		p.first_sector = p.next_sector = slice * i;
		p.end_sector = slice * (i + 1);
	}
	Writer w;
	if (!w.open(prefix, spec.cpus, out, err))
		return false;
	std::priority_queue<Pending, std::vector<Pending>, std::greater<>> heap;
	uint64_t ord = 0;
	auto comm_of = [](uint32_t pid) { return "synth" + std::to_string(pid); };
	auto drain_until = [&](int64_t t) {
		while (!heap.empty() && heap.top().time <= t) {
			Pending p = heap.top();
			heap.pop();
			if (!w.put(p, p.action == 'N' ? comm_of(p.pid) : std::string(), err))
				return false;
		}
		return true;
	};
	// Queue times: blocks of 32 IOs, each block arriving within the first
	// tenth of its share of the span (bursts, as real recordings have).
	const double dt = static_cast<double>(spec.span_ns) / static_cast<double>(spec.ios);
	static constexpr uint32_t kSeqKiB[] = {128, 256, 256, 256, 512, 512, 512, 512, 512, 512};
	static constexpr uint32_t kRandKiB[] = {4, 4, 4, 4, 4, 64, 64, 64, 256, 256};
	for (uint64_t i = 0; i < spec.ios; i++) {
		const uint64_t block = i / 32, k = i % 32;
		const double u = static_cast<double>(rnd.below(1000)) / 1000.0;
		const int64_t q = static_cast<int64_t>(
			(static_cast<double>(block * 32) + (static_cast<double>(k) + u) * 0.1) *
			dt);
		Proc &p = procs[rnd.below(spec.procs)];
		const uint32_t kib = p.random ? kRandKiB[rnd.below(10)] : kSeqKiB[rnd.below(10)];
		const uint32_t sectors = kib * 2;
		uint64_t sector;
		if (p.random) {
			sector = rnd.below(region_sectors - sectors) & ~uint64_t{7};
		} else {
			if (p.next_sector + sectors > p.end_sector)
				p.next_sector = p.first_sector;
			sector = p.next_sector;
			p.next_sector += sectors;
		}
		if (!drain_until(q))
			return false;
		Pending e;
		e.pid = p.pid;
		e.cpu = p.cpu;
		e.sector = sector;
		e.sectors = sectors;
		e.rwbs = kData | (p.write ? kWrite : kSync);
		if (!p.named) {
			p.named = true;
			Pending n = e;
			n.action = 'N';
			n.time = q;
			n.ord = ord++;
			n.rwbs = 0;
			n.sector = 0;
			n.sectors = 0;
			heap.push(n);
		}
		const char *acts = spec.all_events ? "QGID" : "Q";
		for (int a = 0; acts[a]; a++) {
			e.action = acts[a];
			e.time = q + a * 1'000;
			e.ord = ord++;
			heap.push(e);
		}
		// completed 0.5 to 20 ms later, on another CPU, by the interrupt
		e.action = 'C';
		e.time = q + 500'000 + static_cast<int64_t>(rnd.below(19'500)) * 1'000;
		e.ord = ord++;
		e.pid = 0;
		e.cpu = (p.cpu + 1 + static_cast<uint32_t>(i % 3)) % spec.cpus;
		heap.push(e);
		out->bytes += uint64_t{sectors} << 9;
	}
	if (!drain_until(INT64_MAX))
		return false;
	out->events = w.events();
	return w.close(err);
}

} // namespace efqsim::trace
