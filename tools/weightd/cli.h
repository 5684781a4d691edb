// SPDX-License-Identifier: GPL-2.0
// efq-weightd: the command line and the program (main.cc is a call to run).
#pragma once

#include <string>
#include <variant>
#include <vector>

namespace efq::weightd {

struct Config {
	std::string root = "/sys/fs/cgroup";
	bool once = false;
	bool verbose = false;
	bool no_systemd = false;
	bool help = false;
	bool no_uevents = false; // --no-uevents: no netlink socket (tests)
	// Testing and unusual setups (documented in efq-weightd.rst):
	std::string systemctl; // --systemctl PATH: ask it even without /run/systemd/system
	int systemctl_timeout_ms = 5000;
	std::string sysfs = "/sys"; // --sysfs DIR: /sys/module/efq, /sys/dev/block
	std::string run_systemd = "/run/systemd/system"; // --systemd-marker PATH
};

struct UsageError {
	std::string message;
};

std::variant<Config, UsageError> parse_args(const std::vector<std::string> &args);

extern const char *const kUsage;

// The whole program: 0 (done, or stopped by SIGTERM/SIGINT), 1 (--once:
// some cgroup could not be synced; a fatal error), 2 (usage).
int run(int argc, char **argv);

} // namespace efq::weightd
