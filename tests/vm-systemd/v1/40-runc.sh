# SPDX-License-Identifier: GPL-2.0
# vmtest-budget: 480
#
# What a container user writes on a cgroup v1 host: two runc containers
# (bookworm's runc 1.1.5) running together, OCI
# linux.resources.blockIO.weight 750 and 250, each the same random reader
# as 20-ioweight.sh (lib-systemd.sh's bundle), with both of runc's cgroup
# drivers:
#   cgroupfs (runc's default): cgroupsPath /efq/ctrfs-SIDE, the cgroup
#       efq/ctrfs-SIDE that runc makes on each v1 mount itself;
#   systemd (--systemd-cgroup, as docker and podman run on a systemd
#       host): cgroupsPath efq.slice:efq:ctrsd-SIDE, the scope
#       efq-ctrsd-SIDE.scope in efq.slice, which runc asks systemd for over
#       D-Bus (with BlockIOWeight= set to the weight) and then joins.
# On v1 runc writes the weight unchanged to blkio.weight, efq's own file
# (blkio.bfq.weight only where blkio.weight is missing), checked from what
# each cgroup read during the last run.  Expected: blkio.disk_time ratio
# 3 +/- 15%, IOPS ratio (blkio.throttle.io_serviced) 2.4..3.75 under each
# efq scheduler, about 1:1 under none (the control).

# start_ctrfs, start_ctrsd SIDE OFFSET OUT
start_ctrfs() {
	runc run --bundle /run/efq/bundles/$1 efq-ctrfs-$1 >$3 2>&1 &
}
start_ctrsd() {
	runc --systemd-cgroup run --bundle /run/efq/bundles/$1 efq-ctrsd-$1 >$3 2>&1 &
}

# ctrfs_cg efq-ctrfs-SIDE.SUFFIX: the cgroupfs container's cgroup on the
# blkio mount, efq/ctrfs-SIDE, once it has blkio.weight (30 s at most)
ctrfs_cg() {
	_n=${1%.*}
	_n=efq/${_n#efq-}
	_t=0
	while [ ! -f "$CG/$_n/blkio.weight" ]; do
		[ $_t -lt 300 ] || return 1
		usleep 100000
		_t=$((_t + 1))
	done
	echo "$_n"
}

log "$(runc --version | head -n 2 | tr '\n' ' ')"
if sd_device; then
	bundle hi 750 0 /efq/ctrfs-hi
	bundle lo 250 2g /efq/ctrfs-lo
	SD_CGOF=ctrfs_cg
	sd_suite ctrfs start_ctrfs cgroupfs 3.00 "runc (cgroupfs driver) blockIO.weight 750 vs 250"
	SD_CGOF=""
	sd_wrote "runc (cgroupfs) wrote blockIO.weight 750 to blkio.weight" "$wh" "blkio.weight=[750]"
	sd_wrote "runc (cgroupfs) wrote blockIO.weight 250 to blkio.weight" "$wl" "blkio.weight=[250]"
	check "runc (cgroupfs) removed its containers' cgroups" test ! -d $CG/efq/ctrfs-hi -a ! -d $CG/efq/ctrfs-lo
	bundle hi 750 0 efq.slice:efq:ctrsd-hi
	bundle lo 250 2g efq.slice:efq:ctrsd-lo
	sd_suite ctrsd start_ctrsd scope 3.00 "runc (systemd driver) blockIO.weight 750 vs 250"
	sd_wrote "runc (systemd) wrote blockIO.weight 750 to blkio.weight" "$wh" "blkio.weight=[750]"
	sd_wrote "runc (systemd) wrote blockIO.weight 250 to blkio.weight" "$wl" "blkio.weight=[250]"
	nb_remove 5 || fail "remove $D"
	# the parent efq/ that runc's cgroupfs driver made on each v1 mount
	for m in $(awk '$3 == "cgroup" { print $2 }' /proc/mounts); do
		[ ! -d "$m/efq" ] || rmdir "$m/efq" || log "rmdir $m/efq failed"
	done
else
	fail "ctr: create the device-bound null_blk $D"
fi
