# SPDX-License-Identifier: GPL-2.0
# vmtest-budget: 300
#
# The per-device form: `systemd-run --wait -p "IODeviceWeight=/dev/nullb5
# 800"` against 200, as 20-ioweight; the same expectations.  systemd
# writes "MAJ:MIN 800" to io.bfq.weight where it exists and to io.weight,
# where iocost refuses it (EOPNOTSUPP: iocost was never set up on the
# disk), so io.weight keeps "default 100": efq-weightd takes the rule from
# systemd instead (tools/weightd), which the wait for io.efq.io_weight's
# "MAJ:MIN 800" checks.

# start_iodw SIDE OFFSET OUT
start_iodw() {
	_w=800
	[ $1 = lo ] && _w=200
	# shellcheck disable=SC2046
	systemd-run --wait --quiet --collect --unit=efq-iodw-$1 -p IOAccounting=yes \
		-p "IODeviceWeight=/dev/$D $_w" \
		sh -c "$SD_WRAP" $GO \
		$(fio_job $1 $2) --output=$3 >/dev/null 2>&1 &
}

if sd_device; then
	# what efq-weightd is to copy into io.efq.io_weight
	SD_EXPECT_HI="$DEV 800" SD_EXPECT_LO="$DEV 200"
	sd_suite iodw start_iodw service 4.00 "systemd-run -p \"IODeviceWeight=/dev/$D 800\" vs 200"
	nb_remove 5 || fail "remove $D"
else
	fail "iodw: create the device-bound null_blk $D"
fi
