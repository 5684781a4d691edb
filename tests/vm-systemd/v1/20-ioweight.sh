# SPDX-License-Identifier: GPL-2.0
# vmtest-budget: 480
#
# What a systemd user writes on cgroup v1: two random readers started
# together with `systemd-run --wait -p IOWeight=...`, each a transient
# service of its own, on a device-bound null_blk, under none (the control:
# about 1:1) and each efq scheduler (tests/vm-systemd/lib-systemd.sh on the
# blkio mount: blkio.disk_time, and blkio.throttle.io_serviced's reads).
#
# On the legacy hierarchy systemd 252 has no io.weight to write: it turns
# IOWeight=W into blkio.weight (src/core/cgroup.c, cgroup_weight_io_to_blkio)
#     min(max(W * 500 / 100, 10), 1000)
# (io.weight's default 100 onto blkio's 500, clamped to blkio's 10..1000),
# and writes blkio.bfq.weight first where bfq is loaded (it is not here).
#   1. IOWeight=800 vs 200, as on cgroup v2 (20-ioweight.sh there): 4000 and
#      1000, both clamped to blkio.weight 1000 -- the two units get equal
#      weights, so efq serves them as equals: disk-time ratio 1 +/- 15%,
#      IOPS ratio 0.8..1.25 under every scheduler.  A unit file written for
#      cgroup v2 loses its 4:1 on a v1 host; efq does what the files say.
#   2. IOWeight=150 vs 50, inside the range the formula keeps: blkio.weight
#      750 and 250, disk-time ratio 3 +/- 15%, IOPS ratio 2.4..3.75 under
#      efq, about 1:1 under none.
# What systemd wrote is read from each cgroup during the last run.

# start_iow SIDE OFFSET OUT (IOW_HI, IOW_LO: the weights; IOW_TAG: the tag)
start_iow() {
	_w=$IOW_HI
	[ $1 = lo ] && _w=$IOW_LO
	# shellcheck disable=SC2046
	systemd-run --wait --quiet --collect --unit=efq-$IOW_TAG-$1 -p IOAccounting=yes -p IOWeight=$_w \
		sh -c "$SD_WRAP" $GO \
		$(fio_job $1 $2) --output=$3 >/dev/null 2>&1 &
}

if sd_device; then
	IOW_TAG=iow IOW_HI=800 IOW_LO=200
	sd_suite iow start_iow service 1.00 "systemd-run -p IOWeight=800 vs 200 (blkio.weight 1000 vs 1000: both clamped)"
	sd_wrote "systemd wrote IOWeight=800 to blkio.weight as 1000 (800 * 5, clamped)" "$wh" "blkio.weight=[1000]"
	sd_wrote "systemd wrote IOWeight=200 to blkio.weight as 1000 (200 * 5, clamped)" "$wl" "blkio.weight=[1000]"
	IOW_TAG=iowv1 IOW_HI=150 IOW_LO=50
	sd_suite iowv1 start_iow service 3.00 "systemd-run -p IOWeight=150 vs 50 (blkio.weight 750 vs 250)"
	sd_wrote "systemd wrote IOWeight=150 to blkio.weight as 750" "$wh" "blkio.weight=[750]"
	sd_wrote "systemd wrote IOWeight=50 to blkio.weight as 250" "$wl" "blkio.weight=[250]"
	nb_remove 5 || fail "remove $D"
else
	fail "iow: create the device-bound null_blk $D"
fi
