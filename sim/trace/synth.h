// SPDX-License-Identifier: GPL-2.0
// efqsim traces: synthetic blktrace recordings, for the scale benchmarks and
// tests (a million IOs is 240 MB of binary files: generated where needed,
// never committed).
//
// The recording is what `blktrace -d DEV -o NAME` leaves: NAME.blktrace.0 ..
// NAME.blktrace.<cpus-1>, each in time order with its own sequence numbers.
// Processes each stream IO from one CPU (their Q G I D events and a process
// notify record before their first IO), completions come on the CPU the
// interrupt went to (another one), so every IO spans two files and the
// replay must merge all of them.  The workload: @procs processes, a share of
// them reading or writing sequentially (each from its own region), the rest
// random over the device; sizes from 4 KiB to 512 KiB; queue times spread
// evenly over @span_ns with a deterministic jitter; each completed a
// recorded latency later.  The same spec gives the same bytes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace efqsim::trace {

struct SynthSpec {
	uint64_t ios = 1'000'000;
	unsigned int cpus = 40;
	unsigned int procs = 200;
	int64_t span_ns = 1'200'000'000'000; // 20 minutes of recording
	// Of the processes: every Nth random (the others sequential), every
	// Mth a writer.
	unsigned int random_every = 4;
	unsigned int writer_every = 3;
	// Device addresses span this many bytes from sector 0.
	uint64_t region_bytes = uint64_t{256} << 30;
	// Q G I D C per IO when true; Q and C only when false.
	bool all_events = true;
	uint64_t seed = 1;
};

// The shape of the review's Hadoop recording (December 2026: 137,309 IOs
// over 40 CPU files, 169 s, 38,822 MiB, so about 290 KB per IO) with
// @ios IOs at the same rate.
SynthSpec hadoop_shape(uint64_t ios);

struct SynthResult {
	std::vector<std::string> paths; // NAME.blktrace.0 ... in CPU order
	uint64_t events = 0;		// records written, notify records included
	uint64_t bytes = 0;		// of IO queued
};

// Writes the recording as @prefix.blktrace.N; false with *err if a file
// cannot be written.
bool write_synthetic_trace(const std::string &prefix, const SynthSpec &spec, SynthResult *out,
			   std::string *err);

} // namespace efqsim::trace
