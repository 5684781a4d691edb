// SPDX-License-Identifier: GPL-2.0
// efq-weightd: systemd's per-device weights (IODeviceWeight=).
//
// systemd writes a unit's IODeviceWeight= lines to io.weight, which iocost
// refuses on a disk where it is not set up: they never show in io.weight.
// The daemon asks systemctl for them instead, for cgroups that are system
// units (system.slice/foo.service, ...).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "log.h"
#include "weight.h"

namespace efq::weightd {

// The system unit a cgroup (path relative to the cgroup root, no leading
// slash) belongs to, or nullopt: the last component has a unit suffix
// (.service .scope .slice .socket .mount .swap) and every other component
// is a slice, as systemd lays out the system manager's units.  That leaves
// out per-user managers' units (below user@UID.service) and cgroups a
// delegated unit made itself.  systemd's `_` escape is undone.
std::optional<std::string> system_unit_of(std::string_view rel);

struct PathWeight {
	std::string path;
	int weight = 0;
};

// The IODeviceWeight= lines of `systemctl show --property=IODeviceWeight
// UNIT`: one line per entry, `IODeviceWeight=PATH W` (a bare value without
// the name, as --value prints it, is taken too); an empty value is no entry.
// Malformed lines go to errors.
std::vector<PathWeight> parse_systemctl_show(std::string_view out,
					     std::vector<std::string> *errors);

// The whole disk behind a path as systemd resolves IODeviceWeight= paths:
// a block device node gives its own number, any other file the device of
// its file system; a partition gives its disk (sysfs/dev/block/MAJ:MIN).
// nullopt, with the reason in *why, when there is none.
std::optional<Dev> whole_disk_of(const std::string &path, const std::string &sysfs,
				 std::string *why);

// Where the daemon gets systemd's device weights from (tests substitute).
class DeviceWeightSource {
public:
	virtual ~DeviceWeightSource() = default;
	// The unit's device weights by whole disk, or nullopt if systemd
	// could not be asked (logged).
	virtual std::optional<std::map<Dev, int>> device_weights(const std::string &unit,
								 const std::string &cgroup) = 0;
};

// Runs `SYSTEMCTL show --property=IODeviceWeight UNIT` with a timeout.
class Systemctl : public DeviceWeightSource {
public:
	Systemctl(std::string systemctl, std::string sysfs, int timeout_ms, Logger &log)
	    : systemctl_(std::move(systemctl)), sysfs_(std::move(sysfs)), timeout_ms_(timeout_ms),
	      log_(log)
	{
	}
	std::optional<std::map<Dev, int>> device_weights(const std::string &unit,
							 const std::string &cgroup) override;

private:
	std::string systemctl_;
	std::string sysfs_;
	int timeout_ms_;
	Logger &log_;
};

// Run argv[0] with argv, stdout captured, stdin and stderr /dev/null and
// no signal blocked.  nullopt (reason in *why) if it could not run, was
// killed after timeout_ms, or exited non-zero.
std::optional<std::string> run_capture(const std::vector<std::string> &argv, int timeout_ms,
				       std::string *why);

} // namespace efq::weightd
