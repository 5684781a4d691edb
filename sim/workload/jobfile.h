// SPDX-License-Identifier: GPL-2.0
// efqsim workloads: fio job files -> JobSpecs.
//
// The syntax and the option names and meanings are fio's (see
// Documentation/sim/workloads.rst for the list efqsim supports).  Anything
// efqsim does not support -- an unknown option, an option it does not model,
// a malformed or out-of-range value -- is an error "file:line: message";
// nothing is silently ignored.
//
// A JobSpec is one job clone, fully resolved: numjobs is expanded, [global]
// options are applied, and the job's file is laid out on the simulated
// device (distinct file names get disjoint regions, the same name the same
// region), so the job engine only needs byte offsets.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace efqsim::workload {

enum class RwMode {
	Read,
	Write,
	RandRead,
	RandWrite,
	ReadWrite,
	RandRW,
	Trim,	      // discards, sequential
	RandTrim,     // discards, random
	TrimWrite,    // each block discarded, then written
	RandTrimWrite // the same at random offsets
};
// fio's engines with a block-device meaning, as submitters: the sync family
// (one IO at a time) and the asynchronous ones (iodepth in flight).
enum class IoEngine {
	Sync,
	Psync,
	Libaio,
	IoUring,
	Posixaio,
	Vsync,
	Pvsync,
	Pvsync2,
	Mmap,
	Splice
};
// random_distribution=
enum class RandDist { Random, Zipf, Pareto, Normal, Zoned, ZonedAbs };
// file_service_type=
enum class FileService { RoundRobin, Sequential, Random };

// One file of a job, laid out on the device.
struct JobFile {
	std::string name;   // as named: "/dev/sdb", "dir/x.0.0"
	uint64_t start = 0; // the file's extent on the device, bytes
	uint64_t bytes = 0;
	uint64_t region_start = 0; // where the job does IO in it (device bytes)
	uint64_t region_bytes = 0;
};

// A block size choice: bssplit entries (size, percent), or a range.
struct BlockSizes {
	uint32_t min = 4096, max = 4096;		      // bs= sets both; bsrange= a range
	std::vector<std::pair<uint32_t, unsigned int>> split; // bssplit=, percent
	uint32_t align = 0;				      // blockalign=; 0 = min
	bool fixed() const { return split.empty() && min == max; }
};

const char *rw_mode_name(RwMode m);	// fio's spelling: "read", "randrw", ...
const char *io_engine_name(IoEngine e); // "sync", "libaio", ...

struct JobSpec {
	// --- identity and reporting -------------------------------------------
	std::string name;	// the section name, or name=
	int clone = 0;		// 0 .. numjobs-1
	int numjobs = 1;	// clones of this job section
	int job_number = 0;	// 0-based position among all clones of the run
	std::string where;	// "file:line" of the job's section header
	int groupid = 0;	// fio's reporting group (new_group, stonewall)
	bool stonewall = false; // waits for every earlier job to finish
	bool group_reporting = false;
	// The job section's own options as written (fio's JSON "job options"):
	// in order of first appearance, a later value replacing an earlier one,
	// bare flags left out as fio leaves them out.
	std::vector<std::pair<std::string, std::string>> options;

	// --- IO pattern ---------------------------------------------------------
	RwMode rw = RwMode::Read;
	unsigned int rwmixread = 50; // percent of IOs that read, mixed modes
	uint32_t bs_read = 4096;     // block sizes, bytes (multiples of 512): the
	uint32_t bs_write = 4096;    // smallest of bsd[] (bs=, bsrange=, bssplit=)
	BlockSizes bsd[3];	     // per direction: read, write, trim
	bool norandommap = false;    // random offsets with replacement
	// rw=<mode>:<n>: sequential jobs add n bytes (may be negative) after
	// each IO; random jobs take a new random offset every n IOs
	// (rw_sequencer: the IOs between are sequential, or identical).
	int64_t seq_skip = 0;
	unsigned int rand_every = 1;
	bool rand_identical = false;
	unsigned int percentage_random = 100; // random jobs: % of IOs at random
	RandDist dist = RandDist::Random;
	double dist_param = 0;	 // zipf theta, pareto h, normal sigma (%)
	double dist_center = -1; // normal/zipf/pareto: 0..1, -1 = none
	// zoned/zoned_abs: (percent of IOs, percent of the region or bytes)
	std::vector<std::pair<double, uint64_t>> zones;
	// zonemode=strided: zonesize bytes in a zone of zonerange bytes, then
	// zoneskip bytes on; 0 = off.
	uint64_t zone_size = 0, zone_range = 0, zone_skip = 0;
	uint64_t seed = 0; // the job's own PRNG seed (--seed, randseed)

	// --- where ---------------------------------------------------------------
	std::string file;	 // the target as named: "/dev/sdb", "dir/x.0.0"
	uint64_t file_start = 0; // the file's extent on the device, bytes
	uint64_t file_bytes = 0;
	uint64_t region_start = 0; // where this clone does IO (device bytes):
	uint64_t region_bytes = 0; //   file start + offset, size bytes
	uint64_t io_bytes = 0;	   // bytes to transfer (size or io_size) x loops
	uint64_t number_ios = 0;   // stop after this many IOs; 0 = no limit
	// Every file of the job (file, file_start.. above are files[0]).
	std::vector<JobFile> files;
	FileService file_service = FileService::RoundRobin;
	unsigned int file_service_nr = 1; // IOs per file before switching
	unsigned int openfiles = 0;	  // files in rotation at once; 0 = all

	// --- time (ns) ---------------------------------------------------------------
	int64_t runtime_ns = 0; // 0 = no limit
	bool time_based = false;
	int64_t ramp_ns = 0;
	int64_t startdelay_ns = 0;

	// --- how ---------------------------------------------------------------------
	IoEngine ioengine = IoEngine::Psync;
	unsigned int iodepth = 1; // as given; see effective_depth()
	bool direct = false;
	bool invalidate = true;	  // drop the file's clean cached pages at start
	int64_t thinktime_ns = 0; // stall after every thinktime_blocks IOs
	unsigned int thinktime_blocks = 1;
	unsigned int fsync_blocks = 0; // fsync after every N writes (buffered)
	bool end_fsync = false;
	unsigned int iodepth_low = 0; // refill the queue only below this; 0 = iodepth
	// verify=: the written blocks are read back (in the order written)
	// after the writes, or every verify_backlog writes; verify_only: the
	// job's writes are only read back.
	bool verify = false;
	uint64_t verify_backlog = 0;
	bool verify_only = false;
	// rate=, rate_iops= (per direction: read, write, trim; 0 = none) and
	// the minimums rate_min=, rate_iops_min= checked every rate_cycle.
	uint64_t rate[3] = {0, 0, 0}, rate_iops[3] = {0, 0, 0};
	uint64_t rate_min[3] = {0, 0, 0}, rate_iops_min[3] = {0, 0, 0};
	int64_t rate_cycle_ns = 1'000'000'000;
	bool rate_poisson = false;
	// exitall: when this job ends, the others end (exit_what: 0 its
	// group, 1 its stonewall segment, 2 every job).
	bool exitall = false;
	int exit_what = 0;
	std::string wait_for; // starts once every clone of this earlier job ended

	// --- the task ----------------------------------------------------------------
	std::string cgroup;		// "" = root; "a/b" relative to the root
	unsigned int cgroup_weight = 0; // 0 = leave alone; else 100..1000
	int ioprio_class = 0;		// 0 = none (prio/prioclass not set)
	int ioprio = 4;
	// cmdprio_* (libaio and io_uring): per direction (read, write), the
	// share of IOs that carry a priority of their own.  An IO of @bs bytes
	// (0: any size) gets class/level with probability pct / 100; the
	// entries of one size add up to at most 100 and are drawn in order.
	struct CmdPrio {
		uint32_t bs = 0;
		unsigned int pct = 0;
		int ioprio_class = 1;
		int ioprio = 0;
	};
	std::vector<CmdPrio> cmdprio[2];

	// --- between jobs -------------------------------------------------------------
	// flow=: the job's weight in its flow_id group (0 = no flow control);
	// flow_sleep: after being held back, wait for the job's IO and sleep
	// this long (0: retry as soon as another job of the group issued).
	unsigned int flow = 0;
	int64_t flow_id = 0;
	int64_t flow_sleep_ns = 0;

	// --- steady state (ss=, ss_dur=, ss_ramp=) ---------------------------------
	enum class SsMode { Off, Iops, IopsSlope, Bw, BwSlope };
	SsMode ss = SsMode::Off; // Off also when ss_dur is 0 (fio: disabled)
	bool ss_pct = false;	 // the limit is a percentage of the mean
	double ss_limit = 0;	 // IO/s, bytes/s, or percent
	unsigned int ss_dur_s = 0;
	int64_t ss_ramp_ns = 0;
	std::string ss_text; // as written, for the report: "iops:10%"

	// --- latency target (latency_target= and companions) -----------------------
	int64_t latency_target_ns = 0; // 0 = off
	int64_t latency_window_ns = 0;
	double latency_percentile = 100;
	bool latency_run = false;

	// --- logs (fio's write_*_log) ----------------------------------------------
	std::string bw_log, lat_log, iops_log; // log name prefix; "" = off
	unsigned int log_avg_msec = 0;
	bool log_offset = false;  // logs carry each IO's offset
	bool per_job_logs = true; // log names carry the job's index

	bool random() const
	{
		return rw == RwMode::RandRead || rw == RwMode::RandWrite || rw == RwMode::RandRW ||
		       rw == RwMode::RandTrim || rw == RwMode::RandTrimWrite;
	}
	bool trims() const
	{
		return rw == RwMode::Trim || rw == RwMode::RandTrim || rw == RwMode::TrimWrite ||
		       rw == RwMode::RandTrimWrite;
	}
	// Reads: the read modes, and the read-back of verify.
	bool reads() const
	{
		return rw == RwMode::Read || rw == RwMode::RandRead || mixed() || verify ||
		       verify_only;
	}
	bool writes() const
	{
		return rw == RwMode::Write || rw == RwMode::RandWrite || mixed() ||
		       rw == RwMode::TrimWrite || rw == RwMode::RandTrimWrite;
	}
	bool mixed() const { return rw == RwMode::ReadWrite || rw == RwMode::RandRW; }
	// IOs the job keeps in flight: 1 for sync/psync, and for libaio without
	// direct=1 (Linux does buffered AIO synchronously); iodepth otherwise.
	unsigned int effective_depth() const;
};

struct ParseContext {
	uint64_t capacity_bytes = 0; // the simulated device
	// Names ioscheduler= accepts: the simulated scheduler and its aliases,
	// e.g. {"as", "anticipatory"}.  Empty: ioscheduler= is an error.
	std::vector<std::string> scheduler_names;
	uint64_t seed = 0; // --seed: each job's PRNG seed derives from it
	// fio's keywords: $pagesize, $mb_memory (the simulated RAM), $ncpus.
	uint64_t pagesize = 4096;
	uint64_t mb_memory = 4096;
	unsigned int ncpus = 4;
	// ${VAR}: looked up here; null = the process environment.
	const char *(*getenv)(const char *) = nullptr;
};

struct JobSource {
	std::string name; // shown in messages, e.g. the path
	std::string text;
};

// What the job files say beyond the jobs.
struct JobFileInfo {
	// fio's JSON "global options": the [global] options of the last job
	// file, as written, merged like a job's options.
	std::vector<std::pair<std::string, std::string>> global_options;
	bool group_reporting = false; // some job asked for it
};

// Parses fio job files, in order, into the run's job clones.  As fio does,
// each file has its own [global] defaults and the first job of every file
// after the first waits for the jobs before it (an implied stonewall).  On
// error returns an empty vector and sets @err to "file:line: message" (or
// "file: message" for a file that cannot be read).
// @info, when not null, receives what the files say beyond the jobs.
std::vector<JobSpec> parse_jobfiles(const std::vector<std::string> &paths, const ParseContext &ctx,
				    std::string *err, JobFileInfo *info = nullptr);
// Reads the job file @path into @out for parse_jobs(): "-" is standard
// input, named "<stdin>" in messages (read it once: a second "-" finds it
// empty).  False with *err ("PATH: why") if it cannot be read or is a
// folder.
bool read_jobfile(const std::string &path, JobSource *out, std::string *err);
std::vector<JobSpec> parse_jobs(const std::vector<JobSource> &sources, const ParseContext &ctx,
				std::string *err, JobFileInfo *info = nullptr);

// fio's value forms, exposed for tests and the CLI.  On error return nullopt
// and set @err to a message without a location.
//
// Sizes: decimal or 0x hex, then an optional unit: k m g t p (with kb_base
// 1024, powers of 1024), optionally followed by i and/or b; as fio 3.33
// parses them, a unit ending in "ib" (KiB) takes the other base (1000 with
// kb_base=1024), "b" alone is bytes.  Case-insensitive.
std::optional<uint64_t> parse_size(const std::string &s, unsigned int kb_base, std::string *err);
// Times: a decimal integer and an optional unit d h m s sec ms msec us usec
// (case-insensitive; m is minutes); without a unit, @default_unit_ns.
// Returns ns.
std::optional<int64_t> parse_time(const std::string &s, int64_t default_unit_ns, std::string *err);

// Every option name the parser knows: its own options with their aliases,
// then the fio options it knows of and rejects as not supported (the
// fuzzers' dictionary, tests/fuzz).
std::vector<std::string> option_names();

} // namespace efqsim::workload
