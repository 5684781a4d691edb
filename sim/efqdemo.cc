// SPDX-License-Identifier: GPL-2.0
// efqdemo: the V10 cover letter's tables re-run in efqsim (`make run`).
//
// By default Test 2 (one random reader in one group vs N sequential readers
// in another) and Test 3 (N sequential readers at weight 500 vs one at
// weight 1000) on the default hdd, each in flat mode and under the IO
// controller, N = 1, 2, 4, 8, 16, the cover letter's 30 s runtime.  Prints the
// tables side by side and, with --out, writes one gnuplot data file per
// table (scripts/run-demo plots them).  Runs are independent and
// deterministic, so they are spread over --parallel processes.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "tables/tables.h"

namespace {

using efqsim::tables::Mode;
using efqsim::tables::Row;
using efqsim::tables::Table;
namespace tables = efqsim::tables;

static_assert(std::is_trivially_copyable_v<Row>, "rows travel through pipes as bytes");

struct Args {
	std::vector<Table> tables = {Table::rr_vs_sr, Table::sr_weights};
	std::vector<int> ns = {1, 2, 4, 8, 16};
	std::vector<Mode> modes = {Mode::flat, Mode::ioc};
	tables::Options opt;
	int parallel = 0; // 0: the number of CPUs
	std::string out;  // directory for the data files; "" = none
	bool full = false;
	bool quiet = false;
};

void usage(std::ostream &o)
{
	o << "usage: efqdemo [options]\n"
	     "Re-runs the V10 cover letter's tables in efqsim, flat mode vs the IO controller.\n"
	     "  --tables LIST   comma-separated, default test2,test3; all:";
	for (const auto &t : tables::all_tables())
		o << " " << t.id;
	o << "\n"
	     "  --ns LIST       numbers of jobs, default 1,2,4,8,16\n"
	     "  --modes LIST    flat,ioc (default both)\n"
	     "  --runtime S     fio runtime of every run in seconds (default 30, the cover "
	     "letter's)\n"
	     "  --device D      hdd (default), ssd, null or a device parameter file\n"
	     "  --scheduler S   cfq (default), deadline-fq, as, noop\n"
	     "  --seed N        efqsim seed (default 0)\n"
	     "  --set NAME=VALUE  a scheduler tunable for every run (repeatable)\n"
	     "  --parallel N    runs at once, each in its own process (default: CPUs)\n"
	     "  --out DIR       write DIR/<table>.dat for gnuplot\n"
	     "  --full          also print the tables in the cover letter's full layout\n"
	     "  --quiet         no progress lines on stderr\n";
}

std::vector<std::string> split(const std::string &s)
{
	std::vector<std::string> v;
	std::stringstream ss(s);
	std::string item;
	while (std::getline(ss, item, ','))
		if (!item.empty())
			v.push_back(item);
	return v;
}

bool parse_int(const std::string &s, long lo, long hi, long *out)
{
	char *end = nullptr;
	errno = 0;
	long v = std::strtol(s.c_str(), &end, 10);
	if (s.empty() || *end || errno || v < lo || v > hi)
		return false;
	*out = v;
	return true;
}

// Returns 0 to go on, else the exit status (2 for bad usage).
int parse_args(int argc, char **argv, Args *a)
{
	for (int i = 1; i < argc; i++) {
		std::string k = argv[i];
		if (k == "-h" || k == "--help") {
			usage(std::cout);
			return -1;
		}
		if (k == "--full") {
			a->full = true;
			continue;
		}
		if (k == "--quiet") {
			a->quiet = true;
			continue;
		}
		if (i + 1 >= argc) {
			std::cerr << "efqdemo: " << k << ": missing value (or unknown option)\n";
			return 2;
		}
		std::string v = argv[++i];
		long n = 0;
		if (k == "--tables") {
			a->tables.clear();
			for (const std::string &id : split(v)) {
				Table t;
				if (!tables::find_table(id, &t)) {
					std::cerr << "efqdemo: --tables: unknown table '" << id
						  << "'\n";
					return 2;
				}
				a->tables.push_back(t);
			}
		} else if (k == "--ns") {
			a->ns.clear();
			for (const std::string &x : split(v)) {
				if (!parse_int(x, 1, 256, &n)) {
					std::cerr << "efqdemo: --ns: '" << x << "' is not 1..256\n";
					return 2;
				}
				a->ns.push_back(int(n));
			}
		} else if (k == "--modes") {
			a->modes.clear();
			for (const std::string &x : split(v)) {
				if (x != "flat" && x != "ioc") {
					std::cerr << "efqdemo: --modes: '" << x
						  << "' is not flat or ioc\n";
					return 2;
				}
				a->modes.push_back(x == "flat" ? Mode::flat : Mode::ioc);
			}
		} else if (k == "--runtime") {
			if (!parse_int(v, 1, 3600, &n)) {
				std::cerr << "efqdemo: --runtime: '" << v << "' is not 1..3600\n";
				return 2;
			}
			a->opt.runtime_s = int(n);
		} else if (k == "--device") {
			a->opt.device = v;
		} else if (k == "--scheduler") {
			a->opt.scheduler = v;
		} else if (k == "--seed") {
			if (!parse_int(v, 0, 1L << 31, &n)) {
				std::cerr << "efqdemo: --seed: '" << v << "' is not a number\n";
				return 2;
			}
			a->opt.seed = uint64_t(n);
		} else if (k == "--parallel") {
			if (!parse_int(v, 1, 64, &n)) {
				std::cerr << "efqdemo: --parallel: '" << v << "' is not 1..64\n";
				return 2;
			}
			a->parallel = int(n);
		} else if (k == "--set") {
			size_t eq = v.find('=');
			if (eq == std::string::npos || eq == 0) {
				std::cerr << "efqdemo: --set: '" << v << "' is not NAME=VALUE\n";
				return 2;
			}
			a->opt.tunables.emplace_back(v.substr(0, eq), v.substr(eq + 1));
		} else if (k == "--out") {
			a->out = v;
		} else {
			std::cerr << "efqdemo: unknown option " << k << "\n";
			usage(std::cerr);
			return 2;
		}
	}
	if (a->tables.empty() || a->ns.empty() || a->modes.empty()) {
		std::cerr << "efqdemo: nothing to run\n";
		return 2;
	}
	return 0;
}

struct Job {
	Table table;
	Mode mode;
	int n;
	Row row{};
	bool ok = false;
	std::string err;
};

// Runs @j in a child process; returns the child's pid and the pipe to read.
pid_t start(const Job &j, const tables::Options &opt, int *fd)
{
	int p[2];
	if (pipe(p) != 0)
		return -1;
	pid_t pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		close(p[0]);
		Row row{};
		std::string err;
		bool ok = tables::run_row(j.table, j.mode, j.n, opt, &row, &err);
		char status = ok ? 1 : 0;
		std::string payload(reinterpret_cast<const char *>(&row), sizeof(row));
		std::string msg = std::string(1, status) + (ok ? payload : err);
		size_t off = 0;
		while (off < msg.size()) {
			ssize_t w = write(p[1], msg.data() + off, msg.size() - off);
			if (w <= 0)
				_exit(3);
			off += size_t(w);
		}
		close(p[1]);
		_exit(0);
	}
	close(p[1]);
	*fd = p[0];
	return pid;
}

bool finish(pid_t pid, int fd, Job *j)
{
	std::string msg;
	char buf[4096];
	ssize_t r;
	while ((r = read(fd, buf, sizeof(buf))) > 0)
		msg.append(buf, size_t(r));
	close(fd);
	int st = 0;
	waitpid(pid, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0 || msg.empty()) {
		j->err = "the run's process failed";
		return false;
	}
	if (msg[0] != 1) {
		j->err = msg.substr(1);
		return false;
	}
	if (msg.size() != 1 + sizeof(Row)) {
		j->err = "short result from the run's process";
		return false;
	}
	std::memcpy(&j->row, msg.data() + 1, sizeof(Row));
	j->ok = true;
	return true;
}

bool run_all(std::vector<Job> &jobs, const Args &a)
{
	int par = a.parallel ? a.parallel : int(std::max(1u, std::thread::hardware_concurrency()));
	struct Running {
		pid_t pid;
		int fd;
		size_t job;
		std::chrono::steady_clock::time_point t0;
	};
	std::vector<Running> running;
	size_t next = 0, done = 0;
	bool ok = true;
	while (done < jobs.size()) {
		while (ok && next < jobs.size() && int(running.size()) < par) {
			int fd = -1;
			pid_t pid = start(jobs[next], a.opt, &fd);
			if (pid < 0) {
				jobs[next].err = "cannot start a process";
				ok = false;
				break;
			}
			running.push_back({pid, fd, next, std::chrono::steady_clock::now()});
			next++;
		}
		if (running.empty())
			break;
		// Collect the oldest; the runs are of similar length.
		Running r = running.front();
		running.erase(running.begin());
		Job &j = jobs[r.job];
		if (!finish(r.pid, r.fd, &j))
			ok = false;
		done++;
		if (!a.quiet) {
			double s = std::chrono::duration<double>(std::chrono::steady_clock::now() -
								 r.t0)
					   .count();
			std::fprintf(stderr, "[%zu/%zu] %s %s nr=%d: %.1f s%s\n", done, jobs.size(),
				     tables::info(j.table).id, tables::mode_name(j.mode), j.n, s,
				     j.ok ? "" : " FAILED");
		}
	}
	return ok && done == jobs.size();
}

std::vector<Row> rows_of(const std::vector<Job> &jobs, Table t, Mode m)
{
	std::vector<Row> v;
	for (const Job &j : jobs)
		if (j.table == t && j.mode == m && j.ok)
			v.push_back(j.row);
	return v;
}

// What the reader is looking at, from the measured rows.
std::string summary(Table t, const std::vector<Row> &flat, const std::vector<Row> &ioc)
{
	std::ostringstream s;
	char buf[512];
	if (t == Table::rr_vs_sr && !flat.empty() && !ioc.empty()) {
		const Row &f1 = flat.front(), &fn = flat.back();
		const Row &i1 = ioc.front(), &in = ioc.back();
		std::snprintf(
			buf, sizeof(buf),
			"Isolation: with the IO controller the random reader's group keeps its "
			"half of the disk time,\n"
			"so its bandwidth stays flat (%.0f -> %.0f KiB/s) and its max latency "
			"bounded (%.0f -> %.0f ms)\n"
			"from %d to %d sequential readers; without it (flat) it collapses: "
			"%.0f -> %.0f KiB/s, %.0f -> %.0f ms.\n",
			i1.side[1].agg_kib, in.side[1].agg_kib, i1.side[1].max_lat_ms,
			in.side[1].max_lat_ms, i1.nr, in.nr, f1.side[1].agg_kib, fn.side[1].agg_kib,
			f1.side[1].max_lat_ms, fn.side[1].max_lat_ms);
		s << buf;
	} else if (t == Table::sr_weights && !ioc.empty()) {
		double lo = 1e9, hi = 0;
		for (const Row &r : ioc) {
			double x = tables::ratio(r.side[1].agg_kib, r.side[0].agg_kib);
			lo = std::min(lo, x);
			hi = std::max(hi, x);
		}
		std::snprintf(
			buf, sizeof(buf),
			"Weights: with the IO controller the weight-1000 reader gets %.2f-%.2fx "
			"the bandwidth of the\n"
			"weight-500 group whatever its number of readers (2009: 1.96-2.31); "
			"flat mode ignores\n"
			"weights, so each reader gets the same and the single reader's share "
			"falls as 1/(N+1).\n",
			lo, hi);
		s << buf;
	}
	return s.str();
}

// gnuplot data: nr, then per mode (flat, ioc) and side: agg KiB/s, max
// latency ms, max and min per-job KiB/s; then the charged disk time (ms)
// and the device busy time of each side (ioc).
bool write_data(const std::string &dir, Table t, const std::vector<Row> &flat,
		const std::vector<Row> &ioc, const tables::Options &opt)
{
	std::string path = dir + "/" + tables::info(t).id + ".dat";
	std::ofstream f(path);
	if (!f)
		return false;
	f << "# " << tables::info(t).title << " -- " << tables::info(t).source << "\n";
	f << "# efqsim device " << opt.device << ", scheduler " << opt.scheduler << ", runtime "
	  << opt.runtime_s << " s; bandwidth in KiB/s, latency in ms\n";
	f << "# nr";
	for (const char *m : {"flat", "ioc"})
		for (const char *s : {"g1", "g2"})
			for (const char *c : {"agg", "maxlat", "maxbw", "minbw"})
				f << " " << m << "_" << s << "_" << c;
	f << " ioc_g1_disk_time ioc_g2_disk_time ioc_g1_busy ioc_g2_busy\n";
	for (size_t i = 0; i < std::max(flat.size(), ioc.size()); i++) {
		const Row *rows[2] = {i < flat.size() ? &flat[i] : nullptr,
				      i < ioc.size() ? &ioc[i] : nullptr};
		f << (rows[0] ? rows[0]->nr : rows[1]->nr);
		for (const Row *r : rows)
			for (int s = 0; s < 2; s++) {
				if (!r) {
					f << " NaN NaN NaN NaN";
					continue;
				}
				const tables::Side &x = r->side[s];
				f << " " << x.agg_kib << " " << x.max_lat_ms << " " << x.max_kib
				  << " " << x.min_kib;
			}
		if (rows[1])
			f << " " << rows[1]->side[0].disk_time_ms << " "
			  << rows[1]->side[1].disk_time_ms << " " << rows[1]->side[0].device_busy_ms
			  << " " << rows[1]->side[1].device_busy_ms;
		else
			f << " NaN NaN NaN NaN";
		f << "\n";
	}
	return bool(f);
}

} // namespace

int main(int argc, char **argv)
{
	Args a;
	if (int rc = parse_args(argc, argv, &a); rc != 0)
		return rc < 0 ? 0 : rc;

	std::vector<Job> jobs;
	for (Table t : a.tables)
		for (int n : a.ns)
			for (Mode m : a.modes)
				jobs.push_back(Job{t, m, n, Row{}, false, ""});
	auto t0 = std::chrono::steady_clock::now();
	bool ok = run_all(jobs, a);
	for (const Job &j : jobs)
		if (!j.ok && !j.err.empty())
			std::cerr << "efqdemo: " << tables::info(j.table).id << " "
				  << tables::mode_name(j.mode) << " nr=" << j.n << ": " << j.err
				  << "\n";
	if (!ok)
		return 1;
	double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

	for (Table t : a.tables) {
		const tables::TableInfo &ti = tables::info(t);
		std::vector<Row> flat = rows_of(jobs, t, Mode::flat);
		std::vector<Row> ioc = rows_of(jobs, t, Mode::ioc);
		std::cout << "== " << ti.title << " ==\n"
			  << "   " << ti.source << "\n"
			  << "   efqsim: device " << a.opt.device << ", " << a.opt.scheduler
			  << ", runtime " << a.opt.runtime_s << " s, size 2g, seed " << a.opt.seed
			  << "\n\n";
		std::cout << tables::format_side_by_side(t, flat, ioc) << "\n";
		std::cout << summary(t, flat, ioc);
		if (a.full)
			std::cout << "\n" << tables::format_comparison(t, a.opt, flat, ioc);
		std::cout << "\n";
		if (!a.out.empty() && !write_data(a.out, t, flat, ioc, a.opt)) {
			std::cerr << "efqdemo: cannot write " << a.out << "/" << ti.id << ".dat\n";
			return 1;
		}
	}
	std::cout.flush();
	std::fprintf(stderr, "efqdemo: %zu runs in %.1f s\n", jobs.size(), wall);
	return 0;
}
