// SPDX-License-Identifier: GPL-2.0
// efqsim's command line: run, compare and replay (cli.h).
#include "cli/cli.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "blk/model.h"
#include "common/text.h"
#include "run/compare.h"
#include "run/replay.h"
#include "run/run.h"
#include "dev/device.h"
#include "report/json.h"
#include "report/logs.h"
#include "report/text.h"

namespace {

using efqsim::cli::SetupHook;
using efqsim::run::kVersion;

const char *kUsage = R"(usage: efqsim [options] JOBFILE...
       efqsim [options] [--OPTION=VALUE...] --name=JOB --OPTION=VALUE...
                                             (jobs on the command line, as fio)
       efqsim compare [options] JOBFILE...  (every scheduler side by side;
                                              efqsim compare --help)
       efqsim replay [options] TRACE...     (a blktrace recording as the
                                              workload; efqsim replay --help)

Runs fio job files on a simulated disk through the efq schedulers (the
kernel's own code) and prints fio's report plus each cgroup's disk time.
Linux 6.1's own mq-deadline, unmodified, runs the same way, for comparison.
JOBFILE - reads the job file from standard input.

Jobs on the command line, as fio takes them: --name=JOB starts a job, the
job options after it (--rw=randread or --rw randread; fio's flags such as
--time_based alone) are its own, those before the first --name apply to
every job ([global]); e.g.
  efqsim --direct=1 --name=a --rw=randread --size=64m --cgroup=a
Job options are those of a job file (Documentation/sim/workloads.rst); not
with job files at once.

options:
  --device D              hdd (default), ssd, null, multipath, qemu-nvme, qemu-sata,
                          qemu-virtio, MODEL:key=value,...
                          (e.g. multipath:rq_based_seq_io_merge_deadline=20),
                          or a parameter file
  --scheduler S           cfq, deadline-fq, as (alias anticipatory), noop
                          (default), or Linux's mq-deadline (alias deadline)
  --hier on|off           hierarchical (cgroups get their weights; default)
                          or flat (every queue in the root group); efq's
                          schedulers only: mq-deadline knows no cgroups and
                          always runs flat
  --set NAME=VALUE        set a scheduler tunable (repeatable), e.g.
                          --set group_idle=0
  --seed N                seed of the jobs' random streams (default 0)
  --nr-requests N         the queue's nr_requests (scheduler tags, 4..2048;
                          default 2 x min(device queue depth, 128)), as
                          /sys/block/DEV/queue/nr_requests
  --output-format F       normal (default) or json
  --output FILE           write the report to FILE instead of stdout
  --max-runtime TIME      every job stops issuing IO after at most TIME
                          (after its ramp_time), whatever runtime= says, so
                          a runtime=900 job file runs in seconds: fio's time
                          forms (10, 10s, 500ms, 2m)
  --max-size SIZE         every job transfers at most SIZE bytes (as
                          io_size=; its region stays as size= sets it):
                          fio's size forms (64m, 1g)
  --print-device-params   print the device's parameters in the parameter-file
                          format and exit
  --list-tunables         print the scheduler's tunables (name, default,
                          unit, range) and exit
  --help                  this text
  --version               efqsim's version
)";

const char *kCompareUsage = R"(usage: efqsim compare [options] JOBFILE...
       efqsim compare [options] --name=JOB --OPTION=VALUE...

Runs the job files under every scheduler: efq's cfq, deadline-fq, as and
noop, each hierarchical and flat, and Linux's mq-deadline, flat (it knows no
cgroups): 9 runs.  Prints one table: per cgroup its share
of the device busy time, bandwidth, p99 and max completion latency, and each
run's total throughput.

options:
  --device D              as for efqsim (default hdd)
  --seed N                seed of the jobs' random streams (default 0)
  --nr-requests N         as for efqsim
  --set NAME=VALUE        a scheduler tunable (repeatable); applied to the
                          schedulers that have it, the others run without it
                          (the table notes which); one no scheduler has is
                          an error
  --max-runtime TIME, --max-size SIZE
                          as for efqsim; jobs on the command line and - for
                          standard input as for efqsim
  --output-format F       normal (default) or json
  --output FILE           write the table to FILE instead of stdout
  --help                  this text
)";

const char *kReplayUsage = R"(usage: efqsim replay [options] TRACE...

Replays a blktrace recording on the simulated disk: every IO the trace
queued (Q) is submitted again by a simulated process (one per traced pid,
named comm[pid]), in the cgroup --map gives it.  TRACE is blktrace's binary
per-CPU files (NAME.blktrace.0 NAME.blktrace.1 ...; merged in time order),
or the recording's base name NAME for all of them (as blkparse -i NAME), or
blkparse's text output.  Missing CPU files, files given twice, duplicate
events and IOs without completion are warned about on stderr.  Prints the run's report (one job per process)
and, per cgroup, its recorded and predicted share of the bytes completed
within the recorded span and while every mapped group was busy.
Documentation/sim/replay.rst.

options:
  --map pid=PID=GROUP[:WEIGHT]     the IOs of a traced pid go to cgroup GROUP
  --map comm=NAME=GROUP[:WEIGHT]   ... of every process named NAME
  --map cgroup=ID=GROUP[:WEIGHT]   ... of a traced cgroup id (binary traces
                                   recorded with cgroup info)
                          (repeatable; pid rules win over comm rules over
                          cgroup rules; unmapped IO runs in the root group;
                          GROUP is a path such as a or db/a, WEIGHT 100..1000)
  --mode open|closed      open (default): each IO at its recorded queue time;
                          closed: each IO once its process has completed as
                          many IOs in the simulation as it had in the trace
                          when the IO was queued, plus the recorded think
                          time
  --device, --scheduler, --hier, --set, --seed, --nr-requests,
  --output-format, --output
                          as for a job run (efqsim --help)
  --help                  this text
)";

// A job option given on the command line (--rw=randread, --rw randread,
// --time_based).
struct JobArg {
	std::string key;
	std::string value;
	bool bare = false; // no value: a flag
	std::string text;  // as given, for messages
};

// The name jobs given on the command line have in the job-file parser's
// messages (rewritten to the argument by locate_job_arg()).
const char *kCommandLine = "<command line>";

// fio's options that take no value on the command line (FIO_OPT_STR_SET:
// getopt's optional_argument, so "--time_based 1" leaves the 1 alone);
// every other job option takes the next word as its value when it has no
// "=VALUE", as fio's getopt does.
bool fio_flag(const std::string &key)
{
	static const char *const kFlags[] =
		{"time_based", "group_reporting", "thread",  "stonewall",	"wait_for_previous",
		 "new_group",  "norandommap",	  "exitall", "exitall_on_error"};
	for (const char *f : kFlags)
		if (key == f)
			return true;
	return false;
}

bool is_job_option(const std::string &key)
{
	static const std::vector<std::string> names = efqsim::workload::option_names();
	return std::find(names.begin(), names.end(), key) != names.end();
}

struct Options {
	std::string device = "hdd";
	std::string scheduler = "noop";
	bool hier = true;
	bool hier_given = false; // --hier was on the command line
	std::vector<std::pair<std::string, std::string>> tunables;
	uint64_t seed = 0;
	unsigned int nr_requests = 0; // 0: blk-mq's default
	bool json = false;
	std::string output;
	bool print_params = false;
	bool list_tunables = false;
	std::vector<std::string> jobfiles;
	// jobs on the command line, fio style, in order
	std::vector<JobArg> job_args;
	int64_t max_runtime_ns = 0; // --max-runtime; 0: none
	uint64_t max_size = 0;	    // --max-size; 0: none
	// replay
	std::vector<efqsim::run::MapRule> maps;
	efqsim::run::ReplayMode mode = efqsim::run::ReplayMode::open;
};

enum class Command { run, compare, replay };

// Ends the command with its exit status: thrown by bad_input(),
// internal_error(), --help and --version, caught by cli::main().
struct Exit {
	int status;
};

[[noreturn]] void bad_input(const std::string &msg)
{
	std::cerr << "efqsim: " << efqsim::printable(msg) << "\n";
	throw Exit{1};
}

[[noreturn]] void internal_error(const std::string &msg)
{
	std::cerr << "efqsim: internal error: " << msg << "\n";
	throw Exit{2};
}

// Progress on a terminal: "PREFIX: N s simulated" once a run has taken 5
// simulated seconds; *@shown says whether the line needs clearing.
std::function<void(int64_t)> progress_line(const std::string &prefix, bool *shown)
{
	if (!isatty(2))
		return nullptr;
	return [prefix, shown](int64_t s) {
		if (s >= 5) {
			std::cerr << "\r" << prefix << ": " << s << " s simulated" << std::flush;
			*shown = true;
		}
	};
}

// After a run: clear the progress line, then exit 1 on bad input or 2 on
// an internal error.  A run that reached the simulated-time limit goes on
// to print its report; end_run() then says so and exits 2.
void finish_run(efqsim::run::Status st, const std::string &err, bool shown)
{
	if (shown)
		std::cerr << "\r\033[K";
	if (st == efqsim::run::Status::bad_input)
		bad_input(err);
	if (st == efqsim::run::Status::internal)
		internal_error(err);
}

// The exit status of a run whose report was written: 0, or 2 (with the
// message) when it stopped at the simulated-time limit.
int end_run(efqsim::run::Status st, const std::string &err)
{
	if (st != efqsim::run::Status::time_limit)
		return 0;
	std::cerr << "efqsim: " << err << "\n";
	return 2;
}

// Parses argv; --help and --version exit here.  compare and replay: the
// arguments after the subcommand, which takes only some of the options.
Options parse_args(int argc, char **argv, Command cmd)
{
	Options o;
	bool compare = cmd == Command::compare;
	bool replay = cmd == Command::replay;
	std::vector<std::string> args(argv + 1 + (cmd != Command::run), argv + argc);
	auto value = [&](size_t &i, const std::string &opt) -> std::string {
		const std::string &a = args[i];
		if (a.size() > opt.size() && a[opt.size()] == '=')
			return a.substr(opt.size() + 1);
		if (i + 1 >= args.size())
			bad_input("option " + opt + " needs a value (see --help)");
		return args[++i];
	};
	auto is = [](const std::string &a, const char *opt) {
		size_t n = std::strlen(opt);
		return a.compare(0, n, opt) == 0 && (a.size() == n || a[n] == '=');
	};
	bool only_files = false;
	for (size_t i = 0; i < args.size(); i++) {
		const std::string &a = args[i];
		if (only_files || a.empty() || a[0] != '-' || a == "-") {
			o.jobfiles.push_back(a);
		} else if (a == "--") {
			only_files = true;
		} else if (a == "--help" || a == "-h") {
			std::cout << (compare ? kCompareUsage : replay ? kReplayUsage : kUsage);
			throw Exit{0};
		} else if (replay && (a == "--print-device-params" || a == "--list-tunables")) {
			bad_input("replay does not take " + a + " (see efqsim replay --help)");
		} else if (replay && is(a, "--map")) {
			std::string v = value(i, "--map");
			efqsim::run::MapRule m;
			std::string err;
			if (!efqsim::run::parse_map(v, &m, &err))
				bad_input(err);
			o.maps.push_back(m);
		} else if (replay && is(a, "--mode")) {
			std::string v = value(i, "--mode");
			if (v == "open")
				o.mode = efqsim::run::ReplayMode::open;
			else if (v == "closed")
				o.mode = efqsim::run::ReplayMode::closed;
			else
				bad_input("--mode takes open or closed, not '" + v + "'");
		} else if (compare && (is(a, "--scheduler") || is(a, "--hier") ||
				       a == "--print-device-params" || a == "--list-tunables")) {
			bad_input("compare does not take " + a.substr(0, a.find('=')) +
				  " (see efqsim compare --help)");
		} else if (a == "--version") {
			std::cout << "efqsim " << kVersion << "\n";
			throw Exit{0};
		} else if (is(a, "--device")) {
			o.device = value(i, "--device");
		} else if (is(a, "--scheduler")) {
			o.scheduler = value(i, "--scheduler");
		} else if (is(a, "--hier")) {
			std::string v = value(i, "--hier");
			o.hier_given = true;
			if (v == "on" || v == "1")
				o.hier = true;
			else if (v == "off" || v == "0")
				o.hier = false;
			else
				bad_input("--hier takes on or off, not '" + v + "'");
		} else if (is(a, "--set")) {
			std::string v = value(i, "--set");
			size_t eq = v.find('=');
			if (eq == std::string::npos || eq == 0)
				bad_input("--set takes NAME=VALUE, not '" + v + "'");
			o.tunables.emplace_back(v.substr(0, eq), v.substr(eq + 1));
		} else if (is(a, "--seed")) {
			std::string v = value(i, "--seed");
			char *end = nullptr;
			errno = 0;
			unsigned long long n = std::strtoull(v.c_str(), &end, 10);
			if (v.empty() || *end || errno || v[0] == '-')
				bad_input("--seed takes a non-negative integer, not '" + v + "'");
			o.seed = n;
		} else if (is(a, "--nr-requests")) {
			std::string v = value(i, "--nr-requests");
			char *end = nullptr;
			errno = 0;
			unsigned long n = std::strtoul(v.c_str(), &end, 10);
			if (v.empty() || *end || errno || v[0] == '-' || n < 4 || n > 2048)
				bad_input("--nr-requests takes an integer from 4 to 2048 (blk-mq's "
					  "range with a scheduler), not '" +
					  v + "'");
			o.nr_requests = static_cast<unsigned int>(n);
		} else if (is(a, "--output-format")) {
			std::string v = value(i, "--output-format");
			if (v == "json")
				o.json = true;
			else if (v == "normal")
				o.json = false;
			else
				bad_input("--output-format takes normal or json, not '" + v + "'");
		} else if (is(a, "--output")) {
			o.output = value(i, "--output");
		} else if (is(a, "--max-runtime") || is(a, "--max-size")) {
			std::string opt = a.substr(0, a.find('='));
			if (replay)
				bad_input("replay does not take " + opt +
					  " (see efqsim replay --help)");
			std::string v = value(i, opt);
			std::string err;
			if (opt == "--max-runtime") {
				auto t = efqsim::workload::parse_time(v, 1'000'000'000, &err);
				if (!t || *t <= 0)
					bad_input("--max-runtime takes a time above 0 (10, 10s, "
						  "500ms, 2m), not '" +
						  v + "'" + (err.empty() ? "" : ": " + err));
				o.max_runtime_ns = *t;
			} else {
				auto n = efqsim::workload::parse_size(v, 1024, &err);
				if (!n || *n == 0)
					bad_input(
						"--max-size takes a size above 0 (64m, 1g), not '" +
						v + "'" + (err.empty() ? "" : ": " + err));
				o.max_size = *n;
			}
		} else if (a == "--print-device-params") {
			o.print_params = true;
		} else if (a == "--list-tunables") {
			o.list_tunables = true;
		} else if (a.size() > 2 && a[0] == '-' && a[1] == '-' &&
			   is_job_option(a.substr(2, a.find('=') - 2))) {
			// a job option, fio style
			JobArg j;
			j.key = a.substr(2, a.find('=') - 2);
			if (replay)
				bad_input(
					"replay takes no job options (--" + j.key +
					"): its workload is the trace (see efqsim replay --help)");
			if (a.find('=') != std::string::npos) {
				j.value = a.substr(a.find('=') + 1);
				j.text = a;
			} else if (!fio_flag(j.key) && i + 1 < args.size() &&
				   !args[i + 1].empty() && args[i + 1][0] != '-') {
				j.value = args[++i];
				j.text = a + " " + j.value;
			} else {
				j.bare = true;
				j.text = a;
			}
			o.job_args.push_back(j);
		} else {
			bad_input("unknown option " + a +
				  (compare  ? " (see efqsim compare --help)"
				   : replay ? " (see efqsim replay --help)"
					    : " (see --help)"));
		}
	}
	if (replay && o.jobfiles.empty())
		bad_input("no trace file given (see efqsim replay --help)");
	if (!o.job_args.empty()) {
		bool named = std::any_of(o.job_args.begin(), o.job_args.end(),
					 [](const JobArg &j) { return j.key == "name"; });
		if (!named)
			bad_input(o.job_args[0].text +
				  ": job options on the command line need --name=JOB to start a "
				  "job (as in fio); a job file's options are changed in the file "
				  "(or capped with --max-runtime and --max-size)");
		if (!o.jobfiles.empty())
			bad_input("jobs on the command line (" + o.job_args[0].text +
				  ") and job files (" + o.jobfiles[0] +
				  ") at once: give the jobs one way or the other");
	}
	if (std::count(o.jobfiles.begin(), o.jobfiles.end(), "-") > 1)
		bad_input("'-' (the job file on standard input) is given twice");
	if (o.jobfiles.empty() && o.job_args.empty() && !o.print_params && !o.list_tunables)
		bad_input("no job file given (see --help)");
	return o;
}

// The jobs given on the command line as a job file: the options before the
// first --name in [global], each --name=JOB a section [JOB]; one line per
// argument, @lines[n - 1] being the argument of line n.
efqsim::workload::JobSource command_line_jobs(const std::vector<JobArg> &args,
					      std::vector<std::string> *lines)
{
	std::string text;
	lines->clear();
	auto line = [&](const std::string &l, const std::string &arg) {
		text += l + "\n";
		lines->push_back(arg);
	};
	if (!args.empty() && args[0].key != "name")
		line("[global]", args[0].text);
	for (const JobArg &j : args) {
		if (j.value.find_first_of(";#\n\r") != std::string::npos)
			bad_input(j.text +
				  ": a value on the command line cannot hold ';', '#' or a "
				  "line break (they start a comment in a job file; put the "
				  "job in a job file)");
		if (j.key == "name") {
			if (j.bare || j.value.empty())
				bad_input(j.text + ": --name needs a value (--name=JOB)");
			if (j.value.find_first_of("[]") != std::string::npos)
				bad_input(j.text + ": a job name cannot hold '[' or ']'");
			line("[" + j.value + "]", j.text);
			continue;
		}
		if (!j.bare && j.value.empty())
			bad_input(j.text + ": empty value");
		line(j.bare ? j.key : j.key + "=" + j.value, j.text);
	}
	return efqsim::workload::JobSource{kCommandLine, text};
}

// A job-file error about the command line's jobs names the arguments
// instead of "<command line>:N" ("--rw=bogus: why", "... (set at
// --cgroup_weight=500)").
std::string locate_job_arg(const std::string &err, const std::vector<std::string> &lines)
{
	std::string tag = std::string(kCommandLine) + ":";
	std::string out;
	size_t from = 0;
	for (size_t at; (at = err.find(tag, from)) != std::string::npos;) {
		size_t p = at + tag.size(), n = 0;
		while (p < err.size() && err[p] >= '0' && err[p] <= '9' && n < 1'000'000)
			n = n * 10 + static_cast<size_t>(err[p++] - '0');
		out += err.substr(from, at - from);
		if (n == 0 || n > lines.size())
			out += tag;
		else
			out += lines[n - 1];
		from = n == 0 || n > lines.size() ? at + tag.size() : p;
	}
	return out + err.substr(from);
}

// The jobs to run: the job files (read once, "-" from standard input), or
// the command line's jobs (@lines: for locate_job_arg()).
std::vector<efqsim::workload::JobSource> job_sources(const Options &o,
						     std::vector<std::string> *lines)
{
	std::vector<efqsim::workload::JobSource> sources;
	if (!o.job_args.empty()) {
		sources.push_back(command_line_jobs(o.job_args, lines));
		return sources;
	}
	for (const std::string &path : o.jobfiles) {
		efqsim::workload::JobSource src;
		std::string err;
		if (!efqsim::workload::read_jobfile(path, &src, &err))
			bad_input(err);
		sources.push_back(std::move(src));
	}
	return sources;
}

// --max-runtime and --max-size, applied to every run's jobs before they
// start (before any hook already there).
void apply_caps(const Options &o, efqsim::run::Setup &setup)
{
	if (!o.max_runtime_ns && !o.max_size)
		return;
	auto inner = setup.prepare_jobs;
	int64_t rt = o.max_runtime_ns;
	uint64_t size = o.max_size;
	setup.prepare_jobs = [inner, rt, size](std::vector<efqsim::workload::JobSpec> &jobs) {
		for (efqsim::workload::JobSpec &j : jobs) {
			if (rt && (j.runtime_ns == 0 || j.runtime_ns > rt))
				j.runtime_ns = rt;
			if (size && j.io_bytes > size)
				j.io_bytes = size;
		}
		if (inner)
			inner(jobs);
	};
}

// The unit of a tunable, as Documentation/block/*.rst gives it: the
// schedulers' stores take plain numbers, so the unit is the one thing that
// cannot be asked of them.
const char *tunable_unit(const std::string &name)
{
	static const std::map<std::string, const char *> units = {
		{"slice_sync", "ms"},		{"slice_async", "ms"},
		{"group_idle", "ms"},		{"slice_idle", "ms"},
		{"fifo_expire_sync", "ms"},	{"fifo_expire_async", "ms"},
		{"read_expire", "ms"},		{"write_expire", "ms"},
		{"read_batch_expire", "ms"},	{"write_batch_expire", "ms"},
		{"antic_expire", "ms"},		{"back_seek_max", "KiB"},
		{"back_seek_penalty", "x"},	{"quantum", "requests"},
		{"slice_async_rq", "requests"}, {"fifo_batch", "requests"},
		{"writes_starved", "batches"},	{"fairness", "bool"},
		{"hierarchical", "bool"},	{"low_latency", "bool"},
		{"front_merges", "bool"},	{"async_depth", "requests"},
		{"prio_aging_expire", "ms"},
	};
	auto it = units.find(name);
	return it == units.end() ? "-" : it->second;
}

// The scheduler exists; --hier on is asked only of one with groups.
void check_scheduler(const Options &o)
{
	if (!efqsim::blk::scheduler_exists(o.scheduler))
		bad_input("unknown scheduler '" + o.scheduler + "' (" +
			  efqsim::run::scheduler_list() + ")");
	if (o.hier_given && o.hier) {
		efqsim::blk::Config cfg;
		cfg.scheduler = o.scheduler;
		std::string err;
		efqsim::blk::Model m(efqsim::dev::make_device("null", &err), cfg);
		if (m.init(&err) && !m.efq_engine())
			bad_input("--hier on: " + o.scheduler +
				  " knows no cgroups (it is not one of efq's schedulers); it "
				  "runs flat");
	}
}

// Where the report goes: the --output file, or stdout.
std::ostream &output_stream(const Options &o, std::ofstream &file)
{
	if (o.output.empty())
		return std::cout;
	file.open(o.output);
	if (!file)
		bad_input(o.output + ": " + std::strerror(errno));
	return file;
}

// A run's setup from the options every subcommand shares.
efqsim::run::Setup setup_of(const Options &o)
{
	efqsim::run::Setup setup;
	setup.device = o.device;
	setup.scheduler = o.scheduler;
	setup.hierarchical = o.hier;
	setup.tunables = o.tunables;
	setup.seed = o.seed;
	setup.nr_requests = o.nr_requests;
	return setup;
}

int compare_main(const Options &o, const SetupHook &adjust)
{
	std::string err;
	if (!efqsim::dev::make_device(o.device, &err))
		bad_input(err);
	std::ofstream file;
	std::ostream *out = &output_stream(o, file);
	efqsim::run::Setup setup;
	setup.device = o.device;
	setup.tunables = o.tunables;
	setup.seed = o.seed;
	setup.nr_requests = o.nr_requests;
	bool tty = isatty(2);
	bool shown = false;
	std::string current;
	if (tty)
		setup.progress = [&](int64_t s) {
			std::cerr << "\r\033[Kefqsim compare: " << current << ", " << s
				  << " s simulated" << std::flush;
			shown = true;
		};
	if (adjust)
		adjust(setup);
	apply_caps(o, setup);
	std::vector<std::string> lines;
	std::vector<efqsim::workload::JobSource> sources = job_sources(o, &lines);
	efqsim::run::Comparison c;
	efqsim::run::Status st =
		efqsim::run::compare(setup, sources, &c, &err,
				     [&](const std::string &run) { current = run; });
	if (st == efqsim::run::Status::bad_input)
		err = locate_job_arg(err, lines);
	finish_run(st, err, shown);
	if (o.json)
		*out << efqsim::run::comparison_json(c);
	else
		efqsim::run::print_comparison(c, *out);
	out->flush();
	if (!*out)
		bad_input("cannot write the report");
	return end_run(st, err);
}

int replay_main(const Options &o, const SetupHook &adjust)
{
	std::string err;
	check_scheduler(o);
	if (!efqsim::dev::make_device(o.device, &err))
		bad_input(err);
	std::ofstream file;
	std::ostream *out = &output_stream(o, file);
	efqsim::run::Setup setup = setup_of(o);
	bool shown = false;
	setup.progress = progress_line("efqsim replay", &shown);
	if (adjust)
		adjust(setup);
	efqsim::run::ReplayOptions ro;
	ro.traces = o.jobfiles;
	ro.maps = o.maps;
	ro.mode = o.mode;
	efqsim::run::ReplayResult r;
	efqsim::run::Status st = efqsim::run::replay(setup, ro, &r, &err);
	finish_run(st, err, shown);
	for (const std::string &w : r.warnings)
		std::cerr << "efqsim: warning: " << efqsim::printable(w) << "\n";
	if (o.json) {
		*out << efqsim::run::replay_json(r);
	} else {
		efqsim::report::print_text(r.run, *out);
		efqsim::run::print_shares(r, *out);
	}
	out->flush();
	if (!*out)
		bad_input("cannot write the report");
	return end_run(st, err);
}

int run_main(int argc, char **argv, const SetupHook &adjust)
{
	Command cmd = Command::run;
	if (argc > 1 && std::strcmp(argv[1], "compare") == 0)
		cmd = Command::compare;
	else if (argc > 1 && std::strcmp(argv[1], "replay") == 0)
		cmd = Command::replay;
	Options o = parse_args(argc, argv, cmd);
	efqsim::blk::ensure_modules();
	if (cmd == Command::compare)
		return compare_main(o, adjust);
	if (cmd == Command::replay)
		return replay_main(o, adjust);
	check_scheduler(o);

	std::string err;
	std::unique_ptr<efqsim::dev::Device> dev = efqsim::dev::make_device(o.device, &err);
	if (!dev)
		bad_input(err);
	if (o.print_params) {
		std::cout << dev->params();
		return 0;
	}
	std::string device_name = dev->name();

	if (o.list_tunables) {
		efqsim::blk::Config lcfg;
		lcfg.scheduler = o.scheduler;
		efqsim::blk::Model m(std::move(dev), lcfg);
		if (!m.init(&err))
			bad_input(err);
		std::printf("%-20s %10s  %-9s %s\n", "name", "default", "unit", "range");
		for (const auto &t : m.probe_tunables())
			std::printf("%-20s %10s  %-9s %s..%s\n", t.name.c_str(), t.initial.c_str(),
				    tunable_unit(t.name), t.min.c_str(), t.max.c_str());
		return 0;
	}

	std::ofstream file;
	std::ostream *out = &output_stream(o, file);

	efqsim::run::Setup setup = setup_of(o);
	bool shown = false;
	setup.progress = progress_line("efqsim", &shown);
	if (adjust)
		adjust(setup);
	apply_caps(o, setup);
	std::vector<std::string> lines;
	std::vector<efqsim::workload::JobSource> sources = job_sources(o, &lines);
	efqsim::report::RunResult r;
	efqsim::run::Status st = efqsim::run::run_sources(setup, sources, &r, &err);
	if (st == efqsim::run::Status::bad_input)
		err = locate_job_arg(err, lines);
	finish_run(st, err, shown);

	if (o.json)
		*out << efqsim::report::to_json(r);
	else
		efqsim::report::print_text(r, *out);
	std::string log_err;
	if (!efqsim::report::write_logs(r, "", &log_err))
		bad_input(log_err);
	out->flush();
	if (!*out)
		bad_input("cannot write the report");
	return end_run(st, err);
}

} // namespace

namespace efqsim::cli {

int main(int argc, char **argv, const SetupHook &adjust)
{
	try {
		return run_main(argc, argv, adjust);
	} catch (const Exit &e) {
		return e.status;
	}
}

} // namespace efqsim::cli
