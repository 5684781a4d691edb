# SPDX-License-Identifier: GPL-2.0
# vmtest-budget: 360
#
# What a container user writes: two runc containers running together, OCI
# linux.resources.blockIO.weight 750 and 250, with runc's systemd cgroup
# driver (cgroupsPath "efq.slice:efq:ctr-SIDE": the scope efq-ctr-SIDE.scope
# in efq.slice), as docker and podman run them on a systemd host.  Each
# runs the same random reader as 20-ioweight: the guest's own fio, its /usr
# bind-mounted read-only into a rootfs of four symlinks (trixie has a merged
# /usr), the null_blk device passed in (linux.devices, allowed in
# linux.resources.devices).  On cgroup v2 runc writes the weight unchanged
# to io.bfq.weight where that file exists, else 1 + (w - 10) * 9999 / 990
# to io.weight (750 -> 7475, 250 -> 2425, a ratio of 3.08); bfq is not
# loaded here (efq-modules.service), so io.weight it is, and efq-weightd
# copies it into efq.  Expected: io.efq.disk_time ratio 3.08 +/- 15%, IOPS
# ratio 2.47..3.85 under efq, about 1:1 under none.

# start_ctr SIDE OFFSET OUT
start_ctr() {
	runc --systemd-cgroup run --bundle /run/efq/bundles/$1 efq-ctr-$1 >$3 2>&1 &
}

log "$(runc --version | head -n 1)"
# what efq-weightd is to copy into io.efq.io_weight
SD_EXPECT_HI="default 7475" SD_EXPECT_LO="default 2425"
if sd_device; then
	bundle hi 750 0 efq.slice:efq:ctr-hi
	bundle lo 250 2g efq.slice:efq:ctr-lo
	sd_suite ctr start_ctr scope 3.08 "runc blockIO.weight 750 vs 250 (io.weight 7475 vs 2425)"
	sd_wrote "runc wrote blockIO.weight 750 to io.weight as 7475" "$wh" "io.weight=[default 7475]"
	sd_wrote "runc wrote blockIO.weight 250 to io.weight as 2425" "$wl" "io.weight=[default 2425]"
	nb_remove 5 || fail "remove $D"
else
	fail "ctr: create the device-bound null_blk $D"
fi
