# SPDX-License-Identifier: GPL-2.0
# vmtest-budget: 300
#
# What a systemd user writes: two random readers started together with
# `systemd-run --wait -p IOWeight=800` and `-p IOWeight=200`, each a
# transient service of its own, on a device-bound null_blk, under none
# (the control: about 1:1) and each efq scheduler: io.efq.disk_time ratio
# 4 +/- 15%, IOPS ratio 3.2..5.0 (tests/vm-systemd/lib-systemd.sh).  systemd
# writes "default 800" and "default 200" to io.weight (and io.bfq.weight
# where it exists); efq-weightd copies io.weight into io.efq.io_weight.

# start_iow SIDE OFFSET OUT
start_iow() {
	_w=800
	[ $1 = lo ] && _w=200
	# shellcheck disable=SC2046
	systemd-run --wait --quiet --collect --unit=efq-iow-$1 -p IOAccounting=yes -p IOWeight=$_w \
		sh -c "$SD_WRAP" $GO \
		$(fio_job $1 $2) --output=$3 >/dev/null 2>&1 &
}

# what efq-weightd is to copy into io.efq.io_weight (the kernel scales it)
SD_EXPECT_HI="default 800" SD_EXPECT_LO="default 200"
if sd_device; then
	sd_suite iow start_iow service 4.00 "systemd-run -p IOWeight=800 vs 200"
	# what systemd wrote (read during the last run)
	sd_wrote "systemd wrote IOWeight=800 to io.weight" "$wh" "io.weight=[default 800]"
	sd_wrote "systemd wrote IOWeight=200 to io.weight" "$wl" "io.weight=[default 200]"
	nb_remove 5 || fail "remove $D"
else
	fail "iow: create the device-bound null_blk $D"
fi
