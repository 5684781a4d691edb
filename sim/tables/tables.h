// SPDX-License-Identifier: GPL-2.0
// The V10 cover letter's tables, re-run in efqsim.
//
// Seven experiments, each a fio workload run for one number of jobs N and
// reported as one table row with the columns of the cover letter's table
// (the 2009 measurements on a 7200 rpm SATA disk that
// Documentation/sim/cover-letter.rst quotes next to efqsim's):
//
//   rr_vs_rw      cover letter Test 1: 1 random reader vs N random writers
//   rr_vs_sr      cover letter Test 2: 1 random reader vs N sequential readers
//   sr_weights    cover letter Test 3: N sequential readers (weight 500) vs
//                 1 sequential reader (weight 1000)
//   seq_read, seq_write, rand_read, rand_write
//                 "Vanilla CFQ vs IO Controller CFQ": N jobs, no groups
//
// Every experiment runs in two modes: flat (the `hierarchical` tunable 0:
// every queue in the root group -- efq's stand-in for the cover letter's
// vanilla CFQ, since there is one CFQ source only) and ioc (the IO
// controller: hierarchical, with the cover letter's cgroups and weights;
// for the four vanilla-vs-IOC tables no cgroups, as in 2009).  The job text
// is the cover letter's fio command lines, with the runtime as a parameter
// (Options::runtime_s) so that tests can scale it down; sizes stay the
// cover letter's 2 GiB, and the jobs are time_based so that they stay
// runtime-bound on efqsim's faster disk, as in 2009.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "report/results.h"
#include "run/run.h"

namespace efqsim::tables {

enum class Table {
	rr_vs_rw,
	rr_vs_sr,
	sr_weights,
	seq_read,
	seq_write,
	rand_read,
	rand_write,
};

enum class Mode {
	flat, // hierarchical=0: efq's stand-in for the cover letter's vanilla CFQ
	ioc,  // hierarchical=1: the IO controller
};

const char *mode_name(Mode m); // "flat", "ioc"

// What a table is, as the cover letter printed it.
struct TableInfo {
	Table table;
	const char *id;		  // "test1", ..., "seq-read": names the table in options and files
	const char *title;	  // "Test 1: random reader vs random writers"
	const char *source;	  // whose numbers: "the 2009 V10 cover letter's Test 1 ..."
	bool two_sides;		  // group1 and group2 columns (cover letter Tests 1-3)
	const char *side_name[2]; // column banners: "random writers", "random reader"
	std::vector<int> letter_ns; // the cover letter's N column
};

const std::vector<TableInfo> &all_tables();
const TableInfo &info(Table t);
// Looks a table up by id; false if there is none.
bool find_table(const std::string &id, Table *t);

struct Options {
	std::string device = "hdd";
	std::string scheduler = "cfq";
	int runtime_s = 30; // the cover letter's fio runtime; tests scale it down
	uint64_t seed = 0;  // efqsim --seed
	// false: leave the cgroup lines out of the two-group tables' jobs (the
	// cover letter's "IO controller CFQ; No groups" columns of Tests 1 and
	// 2).
	bool groups = true;
	// Tunables on top of the experiment's own (e.g. group_idle=1 of
	// Test 2), applied in both modes.
	std::vector<std::pair<std::string, std::string>> tunables;
};

// The fio job text of @t with @n jobs on the scaled side (@n writers in
// Test 1, sequential readers in Tests 2 and 3, all jobs in the four
// vanilla-vs-IOC tables).  The same
// text runs in both modes: flat mode ignores the cgroups.
std::string job_text(Table t, int n, const Options &o);
// The tunables the cover letter set for @t in @m (Test 1: group_idle=8, Test 2:
// group_idle=1), then the hierarchical switch.
std::vector<std::pair<std::string, std::string>> tunables(Table t, Mode m, const Options &o);

// One side of a row: the cover letter's Max-bdwidth, Min-bdwidth, Agg-bdwidth and
// Max-latency as fio's "Run status" lines give them (per-job bandwidth =
// bytes / that job's runtime; aggregate = all bytes / the longest runtime;
// latency = the largest completion latency), plus the outside measures of
// the side's cgroup.
struct Side {
	int jobs = 0;
	double max_kib = 0; // KiB/s
	double min_kib = 0;
	double agg_kib = 0;
	double max_lat_ms = 0;
	uint64_t bytes = 0;
	// The side's cgroup in ioc mode (0 in flat mode, where there is only
	// the root group): the engine's charged disk time and the device
	// model's busy time for it.
	double disk_time_ms = 0;
	double device_busy_ms = 0;
};

struct Row {
	Table table = Table::rr_vs_rw;
	Mode mode = Mode::flat;
	int nr = 0;
	Side side[2]; // side[1] only for two-sided tables
	double duration_s = 0;
};

// Runs @t with @n jobs in @m.  false with *err if the simulation failed.
bool run_row(Table t, Mode m, int n, const Options &o, Row *row, std::string *err);
// run_row() for every N of @ns, in order; the rows of those that ran.
std::vector<Row> run_rows(Table t, Mode m, const std::vector<int> &ns, const Options &o,
			  std::string *err);

// Any fio job text (named @name in messages) on @setup: what the tests
// that are not one of the tables run.
bool run_text(const std::string &name, const std::string &text, const run::Setup &setup,
	      report::RunResult *result, std::string *err);
// The Side of the jobs called @jobname in @r, and of cgroup @cgroup ("" for
// none, else a path like "/group1").
Side side_of(const report::RunResult &r, const std::string &jobname, const std::string &cgroup);

// Fixed-width text in the cover letter's layout.  format_header() gives the banner
// and the column names, format_row() one line, both without the trailing
// newline; format_table() a whole table (a title line, header, rows).
std::string format_header(Table t);
std::string format_row(const Row &r);
std::string format_table(const std::string &title, const std::vector<Row> &rows);
// flat and ioc tables one above the other, under a title naming the source,
// device, scheduler and runtime.
std::string format_comparison(Table t, const Options &o, const std::vector<Row> &flat,
			      const std::vector<Row> &ioc);
// The aggregate bandwidth and max latency of each side, flat and ioc in
// adjacent columns (rows matched by position): the demo's compact view.
std::string format_side_by_side(Table t, const std::vector<Row> &flat, const std::vector<Row> &ioc);

// Aggregate helpers for assertions.
double ratio(double a, double b); // a / b, 0 when b is 0

} // namespace efqsim::tables
