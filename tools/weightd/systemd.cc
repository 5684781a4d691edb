// SPDX-License-Identifier: GPL-2.0
// efq-weightd: systemd's per-device weights (systemd.h).
#include "systemd.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <fstream>

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

namespace efq::weightd {

namespace {

bool ends_with(std::string_view s, std::string_view suffix)
{
	return s.size() > suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string unescape(std::string_view name)
{
	if (!name.empty() && name[0] == '_')
		name.remove_prefix(1);
	return std::string(name);
}

bool is_unit_name(std::string_view name)
{
	for (const char *suffix : {".service", ".scope", ".slice", ".socket", ".mount", ".swap"}) {
		if (ends_with(name, suffix))
			return true;
	}
	return false;
}

long long now_ms()
{
	timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

std::string read_small(const std::string &path)
{
	std::ifstream f(path);
	std::string s;
	std::getline(f, s);
	return s;
}

} // namespace

std::optional<std::string> system_unit_of(std::string_view rel)
{
	std::vector<std::string_view> parts;
	size_t pos = 0;
	while (pos <= rel.size()) {
		size_t slash = rel.find('/', pos);
		if (slash == std::string_view::npos)
			slash = rel.size();
		parts.push_back(rel.substr(pos, slash - pos));
		pos = slash + 1;
	}
	if (parts.empty() || parts.back().empty())
		return std::nullopt;
	for (size_t i = 0; i + 1 < parts.size(); i++) {
		if (!ends_with(unescape(parts[i]), ".slice"))
			return std::nullopt;
	}
	std::string unit = unescape(parts.back());
	if (!is_unit_name(unit) || unit[0] == '-')
		return std::nullopt;
	return unit;
}

std::vector<PathWeight> parse_systemctl_show(std::string_view out, std::vector<std::string> *errors)
{
	static constexpr std::string_view kName = "IODeviceWeight=";
	std::vector<PathWeight> r;
	for (std::string_view line : split(out, '\n')) {
		if (line.substr(0, kName.size()) == kName)
			line.remove_prefix(kName.size());
		else if (line.find('=') != std::string_view::npos &&
			 line.find('=') < line.find(' '))
			continue; // another property
		if (line.empty())
			continue;
		size_t sp = line.rfind(' ');
		std::optional<unsigned long> w;
		if (sp != std::string_view::npos && sp > 0)
			w = parse_number(line.substr(sp + 1), kWeightMax);
		if (!w || *w < kWeightMin || line[0] != '/') {
			if (errors)
				errors->push_back("IODeviceWeight '" + std::string(line) +
						  "': not 'PATH W' with W in 1..10000");
			continue;
		}
		r.push_back({std::string(line.substr(0, sp)), static_cast<int>(*w)});
	}
	return r;
}

std::optional<Dev> whole_disk_of(const std::string &path, const std::string &sysfs,
				 std::string *why)
{
	struct stat st;
	if (stat(path.c_str(), &st) != 0) {
		*why = path + ": " + strerror(errno);
		return std::nullopt;
	}
	dev_t d = S_ISBLK(st.st_mode) ? st.st_rdev : st.st_dev;
	if (major(d) == 0) {
		*why = path + ": not on a block device";
		return std::nullopt;
	}
	Dev dev{major(d), minor(d)};
	std::string node = sysfs + "/dev/block/" + dev_str(dev);
	if (access(node.c_str(), F_OK) != 0) {
		*why = path + ": " + dev_str(dev) + " is not a block device in " + sysfs;
		return std::nullopt;
	}
	if (access((node + "/partition").c_str(), F_OK) != 0)
		return dev;
	// A partition: its parent in sysfs is the disk.
	char *real = realpath(node.c_str(), nullptr);
	if (!real) {
		*why = node + ": " + strerror(errno);
		return std::nullopt;
	}
	std::string disk(real);
	free(real);
	disk = disk.substr(0, disk.rfind('/'));
	std::string text = read_small(disk + "/dev");
	auto whole = parse_dev(text);
	if (!whole) {
		*why = path + ": partition " + dev_str(dev) + " without a disk in " + disk;
		return std::nullopt;
	}
	return whole;
}

std::optional<std::string> run_capture(const std::vector<std::string> &argv, int timeout_ms,
				       std::string *why)
{
	std::vector<char *> args;
	for (const auto &a : argv)
		args.push_back(const_cast<char *>(a.c_str()));
	args.push_back(nullptr);
	int pipefd[2];
	if (pipe2(pipefd, O_CLOEXEC) != 0) {
		*why = std::string("pipe: ") + strerror(errno);
		return std::nullopt;
	}
	int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	pid_t pid = fork();
	if (pid < 0) {
		*why = std::string("fork: ") + strerror(errno);
		close(pipefd[0]);
		close(pipefd[1]);
		if (devnull >= 0)
			close(devnull);
		return std::nullopt;
	}
	if (pid == 0) {
		// The daemon blocks the signals its signalfd reads; exec
		// would pass the mask on.
		sigset_t none;
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, nullptr);
		dup2(pipefd[1], 1);
		if (devnull >= 0) {
			dup2(devnull, 0);
			dup2(devnull, 2);
		}
		execv(args[0], args.data());
		_exit(127);
	}
	close(pipefd[1]);
	if (devnull >= 0)
		close(devnull);
	std::string out;
	bool timed_out = false;
	long long deadline = now_ms() + timeout_ms;
	for (;;) {
		long long left = deadline - now_ms();
		if (left <= 0) {
			timed_out = true;
			break;
		}
		pollfd p{pipefd[0], POLLIN, 0};
		int n = poll(&p, 1, static_cast<int>(left));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			timed_out = n == 0;
			break;
		}
		char buf[4096];
		ssize_t got = read(pipefd[0], buf, sizeof(buf));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		out.append(buf, static_cast<size_t>(got));
		if (out.size() > (1u << 20)) {
			timed_out = true; // runaway output: treat as a hang
			break;
		}
	}
	close(pipefd[0]);
	if (timed_out)
		kill(pid, SIGKILL);
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
	}
	if (timed_out) {
		*why = argv[0] + ": no answer within " + std::to_string(timeout_ms) + " ms";
		return std::nullopt;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		*why = argv[0] + (WIFEXITED(status)
					  ? ": exit status " + std::to_string(WEXITSTATUS(status))
					  : std::string(": killed by a signal"));
		return std::nullopt;
	}
	return out;
}

std::optional<std::map<Dev, int>> Systemctl::device_weights(const std::string &unit,
							    const std::string &cgroup)
{
	std::string why;
	auto out = run_capture({systemctl_, "show", "--property=IODeviceWeight", unit}, timeout_ms_,
			       &why);
	if (!out) {
		log_.log(cgroup + ": systemctl show " + unit + " failed (" + why +
			 "): syncing io.weight's lines only");
		return std::nullopt;
	}
	std::vector<std::string> errors;
	auto entries = parse_systemctl_show(*out, &errors);
	for (const auto &e : errors)
		log_.log(cgroup + ": " + unit + ": " + e + ", skipped");
	std::map<Dev, int> devs;
	for (const auto &e : entries) {
		auto dev = whole_disk_of(e.path, sysfs_, &why);
		if (!dev) {
			log_.log(cgroup + ": " + unit + ": IODeviceWeight " + e.path + ": " + why +
				 ", skipped");
			continue;
		}
		// systemd writes its entries in order: the last one for a
		// disk is what it would leave.
		devs[*dev] = e.weight;
	}
	return devs;
}

} // namespace efq::weightd
