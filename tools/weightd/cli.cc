// SPDX-License-Identifier: GPL-2.0
// efq-weightd: the command line and the program (cli.h).
#include "cli.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>

#include <sys/signalfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon.h"
#include "systemd.h"

namespace efq::weightd {

const char *const kUsage =
	"usage: efq-weightd [--root DIR] [--once] [--verbose] [--no-systemd]\n"
	"\n"
	"Copies each cgroup's io.weight into its io.efq.io_weight, then follows\n"
	"changes (inotify) until SIGTERM.\n"
	"\n"
	"  --root DIR     the cgroup v2 tree (default /sys/fs/cgroup)\n"
	"  --once         sync every cgroup once and exit: 0, or 1 if some cgroup\n"
	"                 could not be synced\n"
	"  --verbose, -v  log every line written\n"
	"  --no-systemd   do not ask systemctl for IODeviceWeight=\n"
	"  --help, -h     this text\n"
	"\n"
	"For tests: --systemctl PATH (ask PATH as systemctl, even if systemd is\n"
	"not PID 1), --systemctl-timeout MS (default 5000), --sysfs DIR (default\n"
	"/sys), --systemd-marker PATH (default /run/systemd/system), --no-uevents\n"
	"(do not listen for efq being loaded).\n";

std::variant<Config, UsageError> parse_args(const std::vector<std::string> &args)
{
	Config c;
	for (size_t i = 0; i < args.size(); i++) {
		std::string a = args[i];
		std::string value;
		bool has_value = false;
		if (a.compare(0, 2, "--") == 0) {
			auto eq = a.find('=');
			if (eq != std::string::npos) {
				value = a.substr(eq + 1);
				a = a.substr(0, eq);
				has_value = true;
			}
		}
		auto take = [&]() -> std::optional<std::string> {
			if (has_value)
				return value;
			if (i + 1 >= args.size())
				return std::nullopt;
			return args[++i];
		};
		auto flag = [&](bool &b) -> std::optional<UsageError> {
			if (has_value)
				return UsageError{a + " takes no value"};
			b = true;
			return std::nullopt;
		};
		std::optional<UsageError> err;
		if (a == "--once") {
			err = flag(c.once);
		} else if (a == "--verbose" || a == "-v") {
			err = flag(c.verbose);
		} else if (a == "--no-systemd") {
			err = flag(c.no_systemd);
		} else if (a == "--no-uevents") {
			err = flag(c.no_uevents);
		} else if (a == "--help" || a == "-h") {
			err = flag(c.help);
		} else if (a == "--root" || a == "--systemctl" || a == "--sysfs" ||
			   a == "--systemd-marker" || a == "--systemctl-timeout") {
			auto v = take();
			if (!v || v->empty())
				return UsageError{a + " needs a value"};
			if (a == "--root")
				c.root = *v;
			else if (a == "--systemctl")
				c.systemctl = *v;
			else if (a == "--sysfs")
				c.sysfs = *v;
			else if (a == "--systemd-marker")
				c.run_systemd = *v;
			else {
				auto ms = parse_number(*v, 3600 * 1000);
				if (!ms || *ms == 0)
					return UsageError{"--systemctl-timeout: '" + *v +
							  "' is not a number of milliseconds"};
				c.systemctl_timeout_ms = static_cast<int>(*ms);
			}
		} else {
			return UsageError{"unknown argument '" + args[i] + "'"};
		}
		if (err)
			return *err;
	}
	while (c.root.size() > 1 && c.root.back() == '/')
		c.root.pop_back();
	struct stat st;
	if (!c.help && (stat(c.root.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)))
		return UsageError{"--root " + c.root + ": not a directory"};
	return c;
}

int run(int argc, char **argv)
{
	std::vector<std::string> args(argv + 1, argv + argc);
	auto parsed = parse_args(args);
	if (auto *e = std::get_if<UsageError>(&parsed)) {
		std::fprintf(stderr, "efq-weightd: %s\n%s", e->message.c_str(), kUsage);
		return 2;
	}
	Config cfg = std::get<Config>(parsed);
	if (cfg.help) {
		std::fputs(kUsage, stdout);
		return 0;
	}
	Logger log(cfg.verbose);

	std::unique_ptr<Systemctl> systemctl;
	if (!cfg.no_systemd &&
	    (!cfg.systemctl.empty() || access(cfg.run_systemd.c_str(), F_OK) == 0))
		systemctl = std::make_unique<Systemctl>(cfg.systemctl.empty() ? "/usr/bin/systemctl"
									      : cfg.systemctl,
							cfg.sysfs, cfg.systemctl_timeout_ms, log);

	if (io_weight_is_efqs(cfg.root)) {
		log.log("io.weight under " + cfg.root +
			" is efq's own file (a kernel without iocost): nothing to copy");
		return 0;
	}

	FileWriter writer;
	Syncer syncer(cfg.root, writer, systemctl.get(), log);
	bool loaded = access((cfg.sysfs + "/module/efq").c_str(), F_OK) == 0;

	if (cfg.once) {
		ScanStats st = syncer.scan("", true);
		log.debug(std::to_string(st.synced) + " cgroups in sync, " +
			  std::to_string(st.absent) + " without the files, " +
			  std::to_string(st.vanished) + " vanished");
		if (st.failed) {
			std::string list;
			for (const auto &c : st.failed_cgroups)
				list += " " + c;
			log.log(std::to_string(st.failed) + " cgroups could not be synced:" + list);
			return 1;
		}
		if (!loaded && st.synced == 0)
			log.debug("efq is not loaded: nothing to sync");
		return 0;
	}

	// Signals through a signalfd, blocked first so none is lost.
	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigprocmask(SIG_BLOCK, &mask, nullptr);
	int sfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0) {
		log.log(std::string("signalfd: ") + std::strerror(errno));
		return 1;
	}
	std::string why;
	int ufd = cfg.no_uevents ? -1 : open_uevent_socket(&why);
	if (ufd < 0 && !cfg.no_uevents)
		log.log(why + ": not following efq's loading (send SIGHUP after loading it)");

	Watcher watcher(syncer, log);
	if (!watcher.open())
		return 1;
	// Watches first, then the scan: nothing changed in between is missed.
	watcher.rescan(std::string("started on ") + cfg.root +
		       (systemctl ? ", asking systemd" : "") +
		       (loaded ? "" : ", efq not loaded (waiting)"));
	int rc = run_loop(watcher, ufd, sfd, -1, "efq", log);
	if (ufd >= 0)
		close(ufd);
	close(sfd);
	return rc;
}

} // namespace efq::weightd
