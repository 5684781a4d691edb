// SPDX-License-Identifier: GPL-2.0
// efq-weightd: syncing cgroups (Syncer) and following the tree (Watcher).
//
// Stateless: every sync reads io.weight and io.efq.io_weight and writes the
// difference; nothing about the weights is remembered between syncs.  The
// only state is which directories are watched and which complaints were
// already logged.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>

#include "log.h"
#include "systemd.h"
#include "weight.h"

namespace efq::weightd {

inline constexpr const char *kIoWeight = "io.weight";
inline constexpr const char *kEfqIoWeight = "io.efq.io_weight";
inline constexpr const char *kBfqWeight = "io.bfq.weight";

// Writes one line to a cgroup file: returns 0 or an errno.
class Writer {
public:
	virtual ~Writer() = default;
	virtual int write_line(const std::string &path, const std::string &line) = 0;
};

// The real one: a fresh open(O_WRONLY), one write(2) of the line and its
// newline, close.
class FileWriter : public Writer {
public:
	int write_line(const std::string &path, const std::string &line) override;
};

enum class SyncResult {
	synced,	  // equal now (possibly without writing anything)
	absent,	  // no io.weight or no io.efq.io_weight here: nothing to do
	vanished, // the cgroup went away during the sync
	failed,	  // could not be made equal (logged)
};

struct ScanStats {
	int synced = 0, absent = 0, vanished = 0, failed = 0;
	std::vector<std::string> failed_cgroups;
};

// Visit root/rel and every directory below it, parents first; rel is ""
// for root itself.  Directories that vanish are skipped quietly; symlinks
// are not followed.
void walk_tree(const std::string &root, const std::string &rel,
	       const std::function<void(const std::string &)> &visit);

class Syncer {
public:
	// systemd may be null (not PID 1, or --no-systemd).
	Syncer(std::string root, Writer &writer, DeviceWeightSource *systemd, Logger &log)
	    : root_(std::move(root)), writer_(writer), systemd_(systemd), log_(log)
	{
	}

	// Make rel's io.efq.io_weight equal its io.weight (and, if
	// ask_systemd and rel is a system unit, systemd's device weights).
	SyncResult sync(const std::string &rel, bool ask_systemd);
	// sync() rel and every cgroup below it (not the root cgroup itself).
	ScanStats scan(const std::string &rel, bool ask_systemd, bool include_self = true);
	// rel and everything below it is gone: drop its logged complaints.
	void forget(const std::string &rel);

	const std::string &root() const { return root_; }
	// "/" + rel: the cgroup's name in messages.
	static std::string name(const std::string &rel) { return "/" + rel; }

private:
	// Log msg for rel unless the same key was logged for rel last time.
	void complain(const std::string &rel, const std::string &kind, const std::string &key,
		      const std::string &msg);
	void settle(const std::string &rel, const std::string &kind);
	// A sync went through: the write complaints of rel are over.
	void forget_writes(const std::string &rel);
	bool exists(const std::string &rel) const;

	std::string root_;
	Writer &writer_;
	DeviceWeightSource *systemd_;
	Logger &log_;
	// (cgroup, kind) -> key of the complaint last logged.
	std::map<std::pair<std::string, std::string>, std::string> complained_;
};

// Module uevents: "add" or "remove" of /module/<name>.
enum class ModuleEvent { none, add, remove };
ModuleEvent parse_module_uevent(const char *buf, size_t len, const std::string &module);

// Follows the tree with inotify: a watch on every cgroup directory.
class Watcher {
public:
	Watcher(Syncer &syncer, Logger &log) : syncer_(syncer), log_(log) {}
	~Watcher();
	Watcher(const Watcher &) = delete;
	Watcher &operator=(const Watcher &) = delete;

	// inotify_init; false (logged) on failure.
	bool open();
	int fd() const { return fd_; }
	// Watch every directory, then sync every cgroup.
	ScanStats rescan(const std::string &why);
	// Read and act on the pending events (the fd is non-blocking).
	void handle_events();
	size_t watches() const { return path_of_.size(); }

private:
	// Watch rel and every directory below it.
	void watch_tree(const std::string &rel);
	void add_watch(const std::string &rel);
	// rel and below are gone or moved away: drop their watches.
	void drop_tree(const std::string &rel, bool rm_watch);

	Syncer &syncer_;
	Logger &log_;
	int fd_ = -1;
	bool nospc_logged_ = false;
	std::unordered_map<int, std::string> path_of_;
	std::map<std::string, int> wd_of_;
};

// The daemon's loop: poll() over inotify, the uevent socket (may be -1) and
// signal_fd (a signalfd of SIGHUP SIGTERM SIGINT, may be -1) and stop_fd
// (readable: return; may be -1; for tests).  SIGHUP and a module add
// uevent for `module` rescan.  Returns the exit status (0 on SIGTERM/SIGINT
// or stop_fd).
int run_loop(Watcher &watcher, int uevent_fd, int signal_fd, int stop_fd, const std::string &module,
	     Logger &log);

// A NETLINK_KOBJECT_UEVENT socket bound to the kernel's group, or -1 (why
// in *why).
// Whether io.weight under `root` is efq's own file, not iocost's: a kernel
// built without iocost, where efq registers io.weight itself (it is then
// io.efq.io_weight under another name, and there is nothing to copy).  The
// root of a cgroup v2 tree lists its controllers in cgroup.controllers;
// with io among them, iocost's io.cost.qos is in the root if iocost is
// built in.
bool io_weight_is_efqs(const std::string &root);

int open_uevent_socket(std::string *why);

} // namespace efq::weightd
