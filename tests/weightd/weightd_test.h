// SPDX-License-Identifier: GPL-2.0
// efq-weightd's tests: a fake cgroup tree in a temporary directory, a
// writer that applies the kernel's one-line-per-write semantics to it, and
// the program run as a child.
#pragma once

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "daemon.h"
#include "weight.h"

namespace weightd_test {

namespace fs = std::filesystem;
using namespace efq::weightd;

// A temporary directory, removed with everything in it.
class TempDir {
public:
	TempDir()
	{
		char tmpl[] = "/tmp/efq-weightd-test.XXXXXX";
		char *p = mkdtemp(tmpl);
		if (p)
			path_ = p;
		chmod(path_.c_str(), 0755); // readable when a test drops to nobody
	}
	~TempDir()
	{
		std::error_code ec;
		fs::remove_all(path_, ec);
	}
	const std::string &path() const { return path_; }
	std::string operator/(const std::string &rel) const { return path_ + "/" + rel; }

private:
	std::string path_;
};

inline void put(const std::string &path, const std::string &text)
{
	std::ofstream f(path, std::ios::trunc);
	f << text;
}

inline std::string get(const std::string &path)
{
	std::ifstream f(path);
	std::stringstream ss;
	ss << f.rdbuf();
	return ss.str();
}

// A cgroup of the fake tree: the directory and, unless empty, the files.
inline void make_cgroup(const std::string &dir, const std::string &io_weight,
			const std::string &efq_io_weight)
{
	fs::create_directories(dir);
	if (!io_weight.empty())
		put(dir + "/io.weight", io_weight);
	if (!efq_io_weight.empty())
		put(dir + "/io.efq.io_weight", efq_io_weight);
}

// Applies each line as the kernel's io.efq.io_weight would (one line per
// write) to a regular file, and records it.  fail_with: a path substring
// whose writes fail with that errno instead; before_write: called first
// (a test removes the cgroup there).
class SimKernelWriter : public Writer {
public:
	std::vector<std::pair<std::string, std::string>> writes;
	std::map<std::string, int> fail_with;
	std::function<void(const std::string &)> before_write;

	int write_line(const std::string &path, const std::string &line) override
	{
		if (before_write)
			before_write(path);
		for (const auto &[sub, err] : fail_with) {
			if (path.find(sub) != std::string::npos)
				return err;
		}
		if (access(path.c_str(), W_OK) != 0)
			return errno;
		writes.emplace_back(path, line);
		ParseResult cur = parse_weights(get(path));
		WeightFile f = cur.file;
		std::istringstream in(line);
		std::string a, b, extra;
		in >> a >> b >> extra;
		if (!extra.empty() || a.empty())
			return EINVAL;
		if (b.empty()) { // "W"
			b = a;
			a = "default";
		}
		if (a == "default") {
			auto w = parse_number(b, kWeightMax);
			if (!w || *w < 1)
				return EINVAL;
			f.def = static_cast<int>(*w);
		} else {
			auto d = parse_dev(a);
			if (!d)
				return EINVAL;
			if (b == "default") {
				f.devs.erase(*d);
			} else {
				auto w = parse_number(b, kWeightMax);
				if (!w || *w < 1)
					return EINVAL;
				f.devs[*d] = static_cast<int>(*w);
			}
		}
		std::string out =
			"default " + std::to_string(f.def.value_or(kWeightDefault)) + "\n";
		for (const auto &[d, w] : f.devs)
			out += dev_str(d) + " " + std::to_string(w) + "\n";
		put(path, out);
		return 0;
	}

	std::vector<std::string> lines_to(const std::string &path) const
	{
		std::vector<std::string> r;
		for (const auto &[p, l] : writes) {
			if (p == path)
				r.push_back(l);
		}
		return r;
	}
};

// Poll cond every 20 ms for up to `seconds` (generous: sanitizers, a
// loaded 2-core machine).  Not a speed test: only whether it happens.
inline bool eventually(const std::function<bool()> &cond, double seconds = 30)
{
	auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
	while (std::chrono::steady_clock::now() < end) {
		if (cond())
			return true;
		std::this_thread::sleep_for(std::chrono::milliseconds(20));
	}
	return cond();
}

// The program as a child: stdout and stderr into a file.
class Child {
public:
	// as_nobody: drop to uid/gid 65534 first (when root), so that file
	// permissions apply.
	Child(const std::vector<std::string> &args, const std::string &log, bool as_nobody = false)
	    : log_(log)
	{
		std::vector<std::string> argv{EFQ_WEIGHTD_PATH};
		argv.insert(argv.end(), args.begin(), args.end());
		std::vector<char *> cargv;
		for (auto &a : argv)
			cargv.push_back(a.data());
		cargv.push_back(nullptr);
		pid_ = fork();
		if (pid_ == 0) {
			int fd = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0666);
			if (fd >= 0) {
				dup2(fd, 1);
				dup2(fd, 2);
			}
			if (as_nobody && geteuid() == 0) {
				if (setgroups(0, nullptr) != 0 || setgid(65534) != 0 ||
				    setuid(65534) != 0)
					_exit(126);
			}
			execv(cargv[0], cargv.data());
			_exit(127);
		}
	}
	~Child()
	{
		if (pid_ > 0 && status_ < 0) {
			kill(pid_, SIGKILL);
			waitpid(pid_, nullptr, 0);
		}
	}
	pid_t pid() const { return pid_; }
	std::string output() const { return get(log_); }
	// The exit status, or -1 if it did not exit (normally) within seconds.
	int wait(double seconds = 60)
	{
		auto end =
			std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
		while (status_ < 0) {
			int st;
			pid_t r = waitpid(pid_, &st, WNOHANG);
			if (r == pid_) {
				status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 1000 + WTERMSIG(st);
				break;
			}
			if (std::chrono::steady_clock::now() > end)
				return -1;
			std::this_thread::sleep_for(std::chrono::milliseconds(10));
		}
		return status_;
	}

private:
	std::string log_;
	pid_t pid_ = -1;
	int status_ = -1;
};

} // namespace weightd_test
