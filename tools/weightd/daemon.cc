// SPDX-License-Identifier: GPL-2.0
// efq-weightd: syncing cgroups and following the tree (daemon.h).
#include "daemon.h"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <sstream>

#include <dirent.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

namespace efq::weightd {

namespace {

std::string join(const std::string &a, const std::string &b)
{
	if (a.empty())
		return b;
	if (b.empty())
		return a;
	return a + "/" + b;
}

std::string abs_path(const std::string &root, const std::string &rel)
{
	return rel.empty() ? root : root + "/" + rel;
}

// Read a whole (small) file: 0 or an errno.
int read_file(const std::string &path, std::string *out)
{
	int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	out->clear();
	char buf[4096];
	int err = 0;
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = errno;
			break;
		}
		if (n == 0)
			break;
		out->append(buf, static_cast<size_t>(n));
		if (out->size() > (1u << 20)) {
			err = EFBIG;
			break;
		}
	}
	close(fd);
	return err;
}

bool gone(int err)
{
	return err == ENOENT || err == ENODEV || err == ENOTDIR;
}

bool under(const std::string &path, const std::string &top)
{
	if (top.empty() || path == top)
		return true;
	return path.size() > top.size() && path.compare(0, top.size(), top) == 0 &&
	       path[top.size()] == '/';
}

void walk_rec(const std::string &root, const std::string &rel,
	      const std::function<void(const std::string &)> &visit)
{
	std::string dir = abs_path(root, rel);
	DIR *d = opendir(dir.c_str());
	if (!d)
		return;
	std::vector<std::string> subdirs;
	while (dirent *e = readdir(d)) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		bool is_dir = e->d_type == DT_DIR;
		if (e->d_type == DT_UNKNOWN) {
			struct stat st;
			is_dir = lstat((dir + "/" + e->d_name).c_str(), &st) == 0 &&
				 S_ISDIR(st.st_mode);
		}
		if (is_dir)
			subdirs.push_back(e->d_name);
	}
	closedir(d);
	for (const auto &s : subdirs) {
		std::string child = join(rel, s);
		visit(child);
		walk_rec(root, child, visit);
	}
}

} // namespace

int FileWriter::write_line(const std::string &path, const std::string &line)
{
	// A fresh open per line: cgroup files parse one line per write(2).
	// O_TRUNC as a shell's `>` does: nothing on cgroupfs, and a regular
	// file (a test's fake tree) holds the last line written.
	int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return errno;
	std::string buf = line + "\n";
	ssize_t n = write(fd, buf.data(), buf.size());
	int err = n < 0 ? errno : (static_cast<size_t>(n) != buf.size() ? EIO : 0);
	if (close(fd) != 0 && !err && errno != EINTR)
		err = errno;
	return err;
}

void walk_tree(const std::string &root, const std::string &rel,
	       const std::function<void(const std::string &)> &visit)
{
	struct stat st;
	if (stat(abs_path(root, rel).c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
		return;
	visit(rel);
	walk_rec(root, rel, visit);
}

bool Syncer::exists(const std::string &rel) const
{
	struct stat st;
	return stat(abs_path(root_, rel).c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

void Syncer::complain(const std::string &rel, const std::string &kind, const std::string &key,
		      const std::string &msg)
{
	auto &last = complained_[{rel, kind}];
	if (last == key && !log_.verbose())
		return;
	last = key;
	log_.log(name(rel) + ": " + msg);
}

void Syncer::settle(const std::string &rel, const std::string &kind)
{
	complained_.erase({rel, kind});
}

void Syncer::forget(const std::string &rel)
{
	for (auto it = complained_.begin(); it != complained_.end();) {
		if (under(it->first.first, rel))
			it = complained_.erase(it);
		else
			++it;
	}
}

SyncResult Syncer::sync(const std::string &rel, bool ask_systemd)
{
	if (rel.empty())
		return SyncResult::absent; // the root cgroup has neither file
	std::string dir = abs_path(root_, rel);
	std::string io_text, efq_text;
	for (auto [file, text] :
	     {std::pair{kIoWeight, &io_text}, std::pair{kEfqIoWeight, &efq_text}}) {
		int err = read_file(dir + "/" + file, text);
		if (err == 0)
			continue;
		if (!exists(rel))
			return SyncResult::vanished;
		if (gone(err))
			return SyncResult::absent; // io off here, or efq not loaded
		complain(rel, std::string("read ") + file, strerror(err),
			 std::string("cannot read ") + file + ": " + strerror(err));
		return SyncResult::failed;
	}
	bool failed = false;
	ParseResult io = parse_weights(io_text);
	if (!io.errors.empty()) {
		failed = true;
		std::string msg = "io.weight: ";
		for (size_t i = 0; i < io.errors.size(); i++)
			msg += (i ? "; " : "") + io.errors[i];
		complain(rel, "parse io.weight", io_text, msg + " (skipped)");
	} else {
		settle(rel, "parse io.weight");
	}
	ParseResult efq = parse_weights(efq_text);
	if (!efq.errors.empty()) {
		std::string msg = "io.efq.io_weight: ";
		for (size_t i = 0; i < efq.errors.size(); i++)
			msg += (i ? "; " : "") + efq.errors[i];
		complain(rel, "parse efq", efq_text, msg + " (rewriting)");
	}

	// bfq's file, when bfq.ko is loaded: what runc and crun write then
	std::optional<WeightFile> bfq;
	std::string bfq_text;
	if (read_file(dir + "/" + kBfqWeight, &bfq_text) == 0) {
		ParseResult b = parse_weights(bfq_text);
		if (b.errors.empty())
			bfq = b.file;
	}

	std::optional<std::map<Dev, int>> systemd_devs = std::map<Dev, int>{};
	if (systemd_) {
		auto unit = system_unit_of(rel);
		if (unit)
			systemd_devs = ask_systemd ? systemd_->device_weights(*unit, name(rel))
						   : std::nullopt;
	}
	Target want = make_target(followed_weights(io.file, bfq), systemd_devs);
	std::string path = dir + "/" + kEfqIoWeight;
	for (const auto &line : plan_writes(want, efq.file)) {
		int err = writer_.write_line(path, line);
		if (err == 0) {
			log_.debug(name(rel) + ": io.efq.io_weight <- " + line);
			continue;
		}
		if (gone(err) && !exists(rel))
			return SyncResult::vanished;
		if (gone(err) && access(path.c_str(), F_OK) != 0)
			return SyncResult::absent; // efq unloaded meanwhile
		failed = true;
		if (err == EROFS || err == EACCES || err == EPERM) {
			complain(rel, "write", "read-only",
				 std::string("cannot write io.efq.io_weight: ") + strerror(err) +
					 " (not retried until io.weight changes)");
			break;
		}
		complain(rel, "write " + line, strerror(err),
			 "writing '" + line + "' to io.efq.io_weight: " + strerror(err));
	}
	if (!failed)
		forget_writes(rel);
	return failed ? SyncResult::failed : SyncResult::synced;
}

void Syncer::forget_writes(const std::string &rel)
{
	for (auto it = complained_.lower_bound({rel, ""}); it != complained_.end();) {
		if (it->first.first != rel)
			break;
		if (it->first.second.compare(0, 5, "write") == 0)
			it = complained_.erase(it);
		else
			++it;
	}
}

ScanStats Syncer::scan(const std::string &rel, bool ask_systemd, bool include_self)
{
	ScanStats st;
	walk_tree(root_, rel, [&](const std::string &r) {
		if (r.empty() || (!include_self && r == rel))
			return;
		switch (sync(r, ask_systemd)) {
		case SyncResult::synced:
			st.synced++;
			break;
		case SyncResult::absent:
			st.absent++;
			break;
		case SyncResult::vanished:
			st.vanished++;
			break;
		case SyncResult::failed:
			st.failed++;
			st.failed_cgroups.push_back(name(r));
			break;
		}
	});
	return st;
}

ModuleEvent parse_module_uevent(const char *buf, size_t len, const std::string &module)
{
	// The kernel's messages: "ACTION@DEVPATH" then KEY=VALUE strings,
	// each NUL-terminated.  udev's re-broadcasts (another group) start
	// with "libudev".
	std::string_view action, devpath;
	bool first = true;
	for (std::string_view field : split(std::string_view(buf, len), '\0')) {
		if (first) {
			first = false;
			if (field.find('@') == std::string_view::npos)
				return ModuleEvent::none;
			continue;
		}
		if (field.substr(0, 7) == "ACTION=")
			action = field.substr(7);
		else if (field.substr(0, 8) == "DEVPATH=")
			devpath = field.substr(8);
	}
	if (devpath != "/module/" + module)
		return ModuleEvent::none;
	if (action == "add")
		return ModuleEvent::add;
	if (action == "remove")
		return ModuleEvent::remove;
	return ModuleEvent::none;
}

bool io_weight_is_efqs(const std::string &root)
{
	std::string controllers;
	if (read_file(root + "/cgroup.controllers", &controllers) != 0)
		return false;
	std::istringstream in(controllers);
	std::string c;
	bool io = false;
	while (in >> c)
		io = io || c == "io";
	return io && access((root + "/io.cost.qos").c_str(), F_OK) != 0;
}

int open_uevent_socket(std::string *why)
{
	int fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
			NETLINK_KOBJECT_UEVENT);
	if (fd < 0) {
		*why = std::string("socket(NETLINK_KOBJECT_UEVENT): ") + strerror(errno);
		return -1;
	}
	sockaddr_nl addr{};
	addr.nl_family = AF_NETLINK;
	addr.nl_groups = 1; // the kernel's own uevents
	if (bind(fd, reinterpret_cast<sockaddr *>(&addr), sizeof(addr)) != 0) {
		*why = std::string("bind(NETLINK_KOBJECT_UEVENT): ") + strerror(errno);
		close(fd);
		return -1;
	}
	return fd;
}

// ---------------------------------------------------------------------------
// Watcher
// ---------------------------------------------------------------------------

namespace {

constexpr uint32_t kDirMask = IN_CREATE | IN_MODIFY | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE |
			      IN_DELETE_SELF | IN_ONLYDIR | IN_DONT_FOLLOW | IN_EXCL_UNLINK;

} // namespace

Watcher::~Watcher()
{
	if (fd_ >= 0)
		close(fd_);
}

bool Watcher::open()
{
	fd_ = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (fd_ < 0) {
		log_.log(std::string("inotify_init1: ") + strerror(errno));
		return false;
	}
	return true;
}

void Watcher::add_watch(const std::string &rel)
{
	int wd = inotify_add_watch(fd_, abs_path(syncer_.root(), rel).c_str(), kDirMask);
	if (wd < 0) {
		if (errno == ENOSPC && !nospc_logged_) {
			nospc_logged_ = true;
			log_.log("inotify watch limit reached (fs.inotify.max_user_watches): "
				 "changes below " +
				 Syncer::name(rel) + " and others are not followed");
		} else if (!gone(errno) && errno != ENOSPC) {
			log_.log(Syncer::name(rel) + ": inotify_add_watch: " + strerror(errno));
		}
		return;
	}
	// The same directory under a new name (a move not yet seen): one
	// watch, one name.
	auto old = path_of_.find(wd);
	if (old != path_of_.end() && old->second != rel) {
		auto w = wd_of_.find(old->second);
		if (w != wd_of_.end() && w->second == wd)
			wd_of_.erase(w);
	}
	path_of_[wd] = rel;
	wd_of_[rel] = wd;
}

void Watcher::watch_tree(const std::string &rel)
{
	walk_tree(syncer_.root(), rel, [&](const std::string &r) { add_watch(r); });
}

void Watcher::drop_tree(const std::string &rel, bool rm_watch)
{
	for (auto it = wd_of_.lower_bound(rel); it != wd_of_.end();) {
		if (!under(it->first, rel)) {
			if (it->first.compare(0, rel.size(), rel) != 0)
				break; // past every path that starts with rel
			++it;
			continue;
		}
		int wd = it->second;
		if (rm_watch)
			inotify_rm_watch(fd_, wd);
		auto p = path_of_.find(wd);
		if (p != path_of_.end() && p->second == it->first)
			path_of_.erase(p);
		it = wd_of_.erase(it);
	}
	syncer_.forget(rel);
}

ScanStats Watcher::rescan(const std::string &why)
{
	if (fd_ >= 0)
		watch_tree("");
	ScanStats st = syncer_.scan("", true);
	std::string msg = why + ": " + std::to_string(st.synced) + " cgroups in sync";
	if (st.failed)
		msg += ", " + std::to_string(st.failed) + " failed";
	if (fd_ >= 0)
		msg += "; watching " + std::to_string(watches()) + " directories";
	log_.log(msg);
	return st;
}

void Watcher::handle_events()
{
	alignas(inotify_event) char buf[64 * 1024];
	bool overflow = false;
	std::set<std::string> new_dirs, child_scans, syncs;
	for (;;) {
		ssize_t n = read(fd_, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		for (char *p = buf; p < buf + n;) {
			auto *ev = reinterpret_cast<inotify_event *>(p);
			p += sizeof(inotify_event) + ev->len;
			if (ev->mask & IN_Q_OVERFLOW) {
				overflow = true;
				continue;
			}
			auto it = path_of_.find(ev->wd);
			if (it == path_of_.end())
				continue;
			std::string dir = it->second;
			if (ev->mask & IN_IGNORED) {
				// Removed (or its watch dropped): quietly.
				auto w = wd_of_.find(dir);
				if (w != wd_of_.end() && w->second == ev->wd)
					wd_of_.erase(w);
				path_of_.erase(it);
				syncer_.forget(dir);
				continue;
			}
			std::string name = ev->len ? std::string(ev->name) : std::string();
			if (name.empty())
				continue; // IN_DELETE_SELF: IN_IGNORED follows
			std::string child = join(dir, name);
			if (ev->mask & IN_ISDIR) {
				if (ev->mask & (IN_CREATE | IN_MOVED_TO))
					new_dirs.insert(child);
				else if (ev->mask & IN_MOVED_FROM)
					drop_tree(child, true);
				else if (ev->mask & IN_DELETE)
					drop_tree(child, false);
			} else if (ev->mask & IN_MODIFY) {
				if (name == kIoWeight || name == kBfqWeight)
					syncs.insert(dir);
				else if (name == "cgroup.subtree_control")
					child_scans.insert(dir);
			}
		}
	}
	if (overflow) {
		rescan("inotify queue overflowed");
		return;
	}
	std::vector<std::string> scanned;
	auto covered = [&](const std::string &d) {
		for (const auto &s : scanned) {
			if (under(d, s))
				return true;
		}
		return false;
	};
	for (const auto &d : new_dirs) {
		if (covered(d))
			continue;
		watch_tree(d);
		ScanStats st = syncer_.scan(d, true);
		log_.debug(Syncer::name(d) + ": new, " + std::to_string(st.synced) + " synced");
		scanned.push_back(d);
	}
	for (const auto &d : child_scans) {
		if (covered(d))
			continue;
		syncer_.scan(d, true, false);
	}
	for (const auto &d : syncs) {
		if (!covered(d))
			syncer_.sync(d, true);
	}
}

int run_loop(Watcher &watcher, int uevent_fd, int signal_fd, int stop_fd, const std::string &module,
	     Logger &log)
{
	for (;;) {
		pollfd fds[4] = {{watcher.fd(), POLLIN, 0},
				 {uevent_fd, POLLIN, 0},
				 {signal_fd, POLLIN, 0},
				 {stop_fd, POLLIN, 0}};
		// A negative fd is ignored by poll().
		int n = poll(fds, 4, -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			log.log(std::string("poll: ") + strerror(errno));
			return 1;
		}
		if (fds[3].revents)
			return 0;
		if (fds[2].revents & POLLIN) {
			signalfd_siginfo si;
			if (read(signal_fd, &si, sizeof(si)) == sizeof(si)) {
				if (si.ssi_signo == SIGHUP) {
					watcher.rescan("SIGHUP");
				} else {
					log.log(std::string("exiting on ") +
						strsignal(si.ssi_signo));
					return 0;
				}
			}
		}
		if (fds[1].revents & POLLIN) {
			bool rescan = false;
			for (;;) {
				char buf[8192];
				sockaddr_nl from{};
				iovec iov{buf, sizeof(buf)};
				msghdr mh{};
				mh.msg_name = &from;
				mh.msg_namelen = sizeof(from);
				mh.msg_iov = &iov;
				mh.msg_iovlen = 1;
				ssize_t got = recvmsg(uevent_fd, &mh, MSG_DONTWAIT);
				if (got < 0 && errno == EINTR)
					continue;
				if (got < 0 && errno == ENOBUFS) {
					// Uevents were lost: one of them may
					// have been efq's.
					rescan = true;
					continue;
				}
				if (got <= 0)
					break;
				if (from.nl_pid != 0)
					continue; // not from the kernel
				switch (parse_module_uevent(buf, static_cast<size_t>(got),
							    module)) {
				case ModuleEvent::add:
					rescan = true;
					break;
				case ModuleEvent::remove:
					log.log(module + " unloaded: waiting for it");
					break;
				case ModuleEvent::none:
					break;
				}
			}
			if (rescan)
				watcher.rescan(module + " loaded");
		}
		if (fds[0].revents & POLLIN)
			watcher.handle_events();
		if (fds[0].revents & (POLLERR | POLLNVAL)) {
			log.log("inotify: poll error");
			return 1;
		}
	}
}

} // namespace efq::weightd
