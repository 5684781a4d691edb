# SPDX-License-Identifier: GPL-2.0
#
# tests/vm-systemd/lib-systemd.sh: helpers of the systemd guest's tests
# (scripts/vm/vmtest-systemd), sourced after tests/vm/lib.sh (check, cond,
# nullb_*, rios, cg_value, set_sched, fio_*, ratio, within, table_*).
#
# The weighted pair: two identical random readers (fio, libaio, 4k, depth
# 8, time_based), "hi" and "lo", each started by the test file's START
# function in a systemd unit of its own (a transient service of
# systemd-run, or the scope runc makes for a container), on a device-bound
# null_blk.  Both wait for a go file before their first read, so that they
# start together, and for an end file after fio, so that their cgroups
# outlive the window however late it closes (under TCG reading the
# counters takes time of its own); IOPS (io.stat's rios) and disk time
# (io.efq.disk_time) are measured over the same window while both surely
# run, as tests/vm/40-fairness.sh does.  Before the go, where the kernel
# has io.efq.io_weight, each cgroup's must show what efq-weightd is to copy
# there (SD_EXPECT_HI, SD_EXPECT_LO: text it must contain) within 20 s;
# how long that took is logged.
#
# On cgroup v1 (the bookworm guest, tests/vm-systemd/v1/: systemd on the
# legacy hierarchy, blkio on a v1 mount of its own) the same pair runs on
# the blkio mount: CG is /sys/fs/cgroup/blkio, a unit's cgroup is its
# ControlGroup there, disk time is efq's blkio.disk_time, and IOPS come
# from blk-throttle's blkio.throttle.io_serviced (Read; outside efq), which
# 6.1 counts only for a group with a limit of its own: each reader's cgroup
# gets a read limit on the device that no reader comes near
# (tests/vm/05-blkio-v1.sh does the same), written before the go.  SD_V1
# is 1 there.
#
# Kernel command line: vmtest.nsec=NS the device's completion time (default
# 12 ms: on 6.12 under TCG a 4 ms one is not saturated, 40-fairness),
# vmtest.window=S the window (default 6 s), vmtest.scheds=S1,S2 the
# schedulers (default none deadline-fq as noop cfq; none is the control and
# must come first).

# Debian has no usleep (busybox does): tests/vm/lib.sh's waits use it
command -v usleep >/dev/null || usleep() { sleep "$(awk -v u="$1" 'BEGIN { printf "%.6f", u / 1000000 }')"; }

cmdline_val() { sed -n "s/.*vmtest\\.$1=\\([^ ]*\\).*/\\1/p" /proc/cmdline; }
SD_NSEC=$(cmdline_val nsec)
SD_NSEC=${SD_NSEC:-12000000}
SD_WIN=$(cmdline_val window)
SD_WIN=${SD_WIN:-6}
SD_RT=$((SD_WIN + 8))
SD_SCHEDS=$(cmdline_val scheds | tr ',' ' ')
SD_SCHEDS=${SD_SCHEDS:-none deadline-fq as noop cfq}
SD_DEPTH=2
D=nullb5
GO=/run/efq/go
# the reader's wrapper, sh -c "$SD_WRAP" DIR CMD...: CMD once DIR/go
# exists, then wait for DIR/end; CMD's status
SD_WRAP='while [ ! -e "$0/go" ]; do sleep 0.05; done; "$@"; rc=$?; while [ ! -e "$0/end" ]; do sleep 0.1; done; exit $rc'

# cgroup v1: the blkio mount, its files, and the reads counter
SD_V1=0 SD_CGFILE=io.stat SD_DTIME=io.efq.disk_time SD_IOSRC=io.stat
if [ "$(stat -f -c %T /sys/fs/cgroup 2>/dev/null)" != cgroup2fs ] &&
	[ "$(stat -f -c %T /sys/fs/cgroup/blkio 2>/dev/null)" = cgroupfs ]; then
	SD_V1=1 SD_CGFILE=blkio.weight SD_DTIME=blkio.disk_time SD_IOSRC=blkio.throttle.io_serviced
	CG=/sys/fs/cgroup/blkio
	# rios CGROUP MAJ:MIN (tests/vm/lib.sh's, read from io.stat there): the
	# reads blk-throttle counted for CGROUP (see sd_v1_count)
	rios() {
		awk -v d="$2" '$1 == d && $2 == "Read" { print $3; f = 1 } END { if (!f) print 0 }' \
			"$CG/$1/blkio.throttle.io_serviced" 2>/dev/null || echo 0
	}
fi

# sd_v1_count TAG SCHED CGROUP...: a read IOPS limit of 1000000 on $DEV in
# each CGROUP, so that blk-throttle counts their reads (cgroup v1)
sd_v1_count() {
	_vt=$1 _vs=$2
	shift 2
	for _vc in "$@"; do
		echo "$DEV 1000000" >"$CG/$_vc/blkio.throttle.read_iops_device" ||
			fail "$_vt $_vs: a 1000000 read IOPS limit on $D in $_vc (blk-throttle's counters)"
	done
}

# unit_cg UNIT: the unit's cgroup, relative to $CG (empty while it has none)
unit_cg() {
	_ucg=$(systemctl show -P ControlGroup "$1" 2>/dev/null)
	echo "${_ucg#/}"
}

# wait_unit_cg UNIT: wait (30 s at most) until UNIT has a cgroup with
# io.stat (v1: blkio.weight); prints it, status 1 on timeout
wait_unit_cg() {
	_t=0
	while :; do
		_wcg=$(unit_cg "$1")
		[ -n "$_wcg" ] && [ -f "$CG/$_wcg/$SD_CGFILE" ] && break
		[ $_t -lt 300 ] || return 1
		usleep 100000
		_t=$((_t + 1))
	done
	echo "$_wcg"
}

# weights CGROUP: what the weight files of the cgroup read (one line)
weights() {
	for _f in io.weight io.bfq.weight io.efq.weight io.efq.io_weight blkio.weight blkio.weight_device blkio.bfq.weight; do
		[ -f "$CG/$1/$_f" ] && printf '%s=[%s] ' "$_f" "$(tr '\n' ',' <"$CG/$1/$_f" | sed 's/,$//')"
	done
	echo
}

# wait_efq_weight TAG SCHED SIDE CGROUP EXPECT: io.efq.io_weight of CGROUP
# contains EXPECT within 20 s (no check where the file does not exist)
wait_efq_weight() {
	_f=$CG/$4/io.efq.io_weight
	[ -f "$_f" ] || return 0
	_t=0
	while ! tr '\n' ',' <"$_f" | grep -qF -- "$5"; do
		if [ $_t -ge 200 ]; then
			fail "$1 $2: efq-weightd set io.efq.io_weight of $3 to '$5' within 20 s (it reads '$(tr '\n' ',' <"$_f" | sed 's/,$//')'; io.weight '$(tr '\n' ',' <"$CG/$4/io.weight" | sed 's/,$//')')"
			return 1
		fi
		usleep 100000
		_t=$((_t + 1))
	done
	pass "$1 $2: efq-weightd set io.efq.io_weight of $3 to '$5' (after $((_t / 10)).$((_t % 10)) s)"
}

# fio_job SIDE OFFSET: the reader's command line (terse output on stdout)
fio_job() {
	echo fio --name=$1 --filename=/dev/$D --direct=1 --ioengine=libaio --rw=randread --bs=4k \
		--iodepth=8 --offset=$2 --size=1g --runtime=$SD_RT --time_based --minimal
}

# sd_device: the device-bound null_blk $D (timer completions of $SD_NSEC,
# depth 2, rotational); sets DEV (MAJ:MIN) and CAP (its IOPS)
sd_device() {
	SLOW_NSEC=$SD_NSEC SLOW_DEPTH=$SD_DEPTH nb_slow 5 || return 1
	DEV=$(devnum $D)
	CAP=$((SD_DEPTH * 1000000000 / SD_NSEC))
}

# sd_pair TAG SCHED START UNIT_SUFFIX: both readers under SCHED.  START SIDE
# OFFSET OUT starts reader SIDE (hi or lo) in the background (its pid in
# $!), in the unit efq-TAG-SIDE.UNIT_SUFFIX, waiting for $GO/go; its fio
# output goes to OUT.  The unit's cgroup is found by wait_unit_cg, or by
# the function named in SD_CGOF, given the same unit name (a container
# without a unit: runc's cgroupfs driver).  Sets ih il (IOPS over the
# window), r (their ratio), dh dl (disk time in ms over the window), fh fl
# (fio's own IOPS over its whole run), wh wl (the weight files).  Status 1
# if SCHED was not selected or a unit had no cgroup.
sd_pair() {
	_tag=$1 _s=$2 _start=$3 _sfx=$4
	ih=0 il=0 r=- dh=0 dl=0 fh=0 fl=0 wh=- wl=- SD_EARLY=""
	if ! set_sched $D $_s; then
		fail "$_tag $_s: select $_s on $D"
		return 1
	fi
	# blk-mq gives a depth-2 device 4 scheduler tags: too few for a
	# scheduler to choose among two readers' 16 requests (40-fairness)
	[ $_s = none ] || echo 64 >/sys/block/$D/queue/nr_requests ||
		fail "$_tag $_s: nr_requests 64"
	mkdir -p $GO
	rm -f $GO/go $GO/end /tmp/$_tag-hi.fio /tmp/$_tag-lo.fio
	$_start hi 0 /tmp/$_tag-hi.fio
	_ph=$!
	$_start lo 2g /tmp/$_tag-lo.fio
	_pl=$!
	if ! _ch=$(${SD_CGOF:-wait_unit_cg} efq-$_tag-hi.$_sfx) || ! _cl=$(${SD_CGOF:-wait_unit_cg} efq-$_tag-lo.$_sfx); then
		fail "$_tag $_s: the units efq-$_tag-hi.$_sfx and efq-$_tag-lo.$_sfx have cgroups with $SD_CGFILE within 30 s"
		touch $GO/go $GO/end
		wait_all $((SD_RT + 60)) $_ph $_pl
		return 1
	fi
	wait_efq_weight $_tag $_s hi "$_ch" "$SD_EXPECT_HI"
	wait_efq_weight $_tag $_s lo "$_cl" "$SD_EXPECT_LO"
	[ $SD_V1 = 0 ] || sd_v1_count $_tag $_s "$_ch" "$_cl"
	_bh=$(rios "$_ch" $DEV) _bl=$(rios "$_cl" $DEV)
	touch $GO/go
	both_read $DEV "$_ch" "$_bh" "$_cl" "$_bl" || fail "$_tag $_s: both readers read within 30 s"
	sleep 1
	_h0=$(cg_value "$_ch" $SD_DTIME $DEV) _l0=$(cg_value "$_cl" $SD_DTIME $DEV)
	_rh0=$(rios "$_ch" $DEV) _rl0=$(rios "$_cl" $DEV)
	sleep $SD_WIN
	_h1=$(cg_value "$_ch" $SD_DTIME $DEV) _l1=$(cg_value "$_cl" $SD_DTIME $DEV)
	_rh1=$(rios "$_ch" $DEV) _rl1=$(rios "$_cl" $DEV)
	wh=$(weights "$_ch") wl=$(weights "$_cl")
	# fio's run must have covered the window (its terse line comes when
	# it ends): a run where it did not is a miss (sd_misses)
	SD_EARLY=""
	grep -q "^3;" /tmp/$_tag-hi.fio 2>/dev/null && SD_EARLY="hi"
	grep -q "^3;" /tmp/$_tag-lo.fio 2>/dev/null && SD_EARLY="${SD_EARLY:+$SD_EARLY and }lo"
	[ -z "$SD_EARLY" ] || log "$_tag $_s: fio of $SD_EARLY ended before the window closed"
	touch $GO/end
	wait_all $((SD_RT + 60)) $_ph $_pl || fail "$_tag $_s: both readers end"
	log "$_tag $_s: hi $_ch: $wh"
	log "$_tag $_s: lo $_cl: $wl"
	if fio_ok /tmp/$_tag-hi.fio && fio_ok /tmp/$_tag-lo.fio; then
		pass "$_tag $_s: fio ran in both units"
	else
		fail "$_tag $_s: fio ran in both units"
		tail -n 5 /tmp/$_tag-hi.fio /tmp/$_tag-lo.fio
	fi
	ih=$(((_rh1 - _rh0) / SD_WIN))
	il=$(((_rl1 - _rl0) / SD_WIN))
	r=$(ratio $((_rh1 - _rh0)) $((_rl1 - _rl0)))
	dh=$((_h1 - _h0))
	dl=$((_l1 - _l0))
	fh=$(fio_iops /tmp/$_tag-hi.fio)
	fl=$(fio_iops /tmp/$_tag-lo.fio)
	return 0
}

# sd_misses TAG SCHED EXPECT: what the last sd_pair of SCHED missed (empty:
# nothing).  none: the device saturated (80% of CAP) and an IOPS ratio in
# 0.8..1.25; an efq scheduler: the device busy (70% of none's CTL IOPS), a
# disk-time ratio within 15% of EXPECT and an IOPS ratio in 0.8..1.25
# times EXPECT.
sd_misses() {
	_m=""
	[ -z "$SD_EARLY" ] || _m="fio of $SD_EARLY ended before the window closed"
	if [ $2 = none ]; then
		[ $((100 * (ih + il))) -ge $((80 * CAP)) ] ||
			_m="the readers did $((ih + il)) IOPS, under 80% of the device's $CAP: the CPU, not the device, is the bottleneck"
		within "$r" 0.8 1.25 || _m="${_m:+$_m; }IOPS ratio $r ($ih/$il) out of 0.8..1.25"
	else
		[ $((100 * (ih + il))) -ge $((70 * CTL)) ] ||
			_m="the readers did $((ih + il)) IOPS, under 70% of none's $CTL"
		_lo=$(awk -v e="$3" 'BEGIN { printf "%.2f", e * 0.85 }') _hi=$(awk -v e="$3" 'BEGIN { printf "%.2f", e * 1.15 }')
		within "$(ratio $dh $dl)" $_lo $_hi ||
			_m="${_m:+$_m; }disk_time ratio $(ratio $dh $dl) ($dh/$dl ms) out of $_lo..$_hi"
		_lo=$(awk -v e="$3" 'BEGIN { printf "%.2f", e * 0.8 }') _hi=$(awk -v e="$3" 'BEGIN { printf "%.2f", e * 1.25 }')
		within "$r" $_lo $_hi || _m="${_m:+$_m; }IOPS ratio $r ($ih/$il) out of $_lo..$_hi"
	fi
	echo "$_m"
}

# sd_judge TAG SCHED EXPECT: the checks of sd_misses, one CHECK each
sd_judge() {
	_t=$1 _s=$2 _e=$3
	if [ $_s = none ]; then
		if [ $((100 * (ih + il))) -ge $((80 * CAP)) ]; then
			pass "$_t none: the device is the bottleneck ($((ih + il)) of $CAP IOPS)"
		else
			fail "$_t none: the device is the bottleneck ($((ih + il)) IOPS, under 80% of $CAP)"
		fi
		if within "$r" 0.8 1.25; then
			pass "$_t none (control): IOPS ratio $r in 0.8..1.25"
		else
			fail "$_t none (control): IOPS ratio $r in 0.8..1.25 ($ih/$il)"
		fi
		return
	fi
	if [ $((100 * (ih + il))) -ge $((70 * CTL)) ]; then
		pass "$_t $_s: the device stays busy ($((ih + il)) IOPS, none $CTL)"
	else
		fail "$_t $_s: the device stays busy ($((ih + il)) IOPS, under 70% of none's $CTL)"
	fi
	_dr=$(ratio $dh $dl)
	_lo=$(awk -v e="$_e" 'BEGIN { printf "%.2f", e * 0.85 }') _hi=$(awk -v e="$_e" 'BEGIN { printf "%.2f", e * 1.15 }')
	if within "$_dr" $_lo $_hi; then
		pass "$_t $_s: $SD_DTIME ratio $_dr in $_lo..$_hi ($dh/$dl ms)"
	else
		fail "$_t $_s: $SD_DTIME ratio $_dr in $_lo..$_hi ($dh/$dl ms)"
	fi
	_lo=$(awk -v e="$_e" 'BEGIN { printf "%.2f", e * 0.8 }') _hi=$(awk -v e="$_e" 'BEGIN { printf "%.2f", e * 1.25 }')
	if within "$r" $_lo $_hi; then
		pass "$_t $_s: IOPS ratio $r in $_lo..$_hi ($ih/$il)"
	else
		fail "$_t $_s: IOPS ratio $r in $_lo..$_hi ($ih/$il)"
	fi
}

# sd_suite TAG START UNIT_SUFFIX EXPECT WEIGHTS: sd_pair under each of
# $SD_SCHEDS, judged (one repeat of a run that misses, but not of an efq
# run whose disk-time ratio shows the weights were not applied at all:
# 0.8..1.25, served as equals, which a repeat would not change), and the
# table
sd_suite() {
	_tag=$1 _st=$2 _sx=$3 _ex=$4 _wt=$5
	CTL=0 _rows=""
	for _sc in $SD_SCHEDS; do
		sd_pair $_tag $_sc $_st $_sx || continue
		_miss=$(sd_misses $_tag $_sc $_ex)
		if [ -n "$_miss" ] && { [ $_sc = none ] || [ -n "$SD_EARLY" ] || ! within "$(ratio $dh $dl)" 0.8 1.25; }; then
			log "$_tag $_sc: $_miss: once more"
			sd_pair $_tag $_sc $_st $_sx || continue
		fi
		sd_judge $_tag $_sc $_ex
		[ $_sc = none ] && CTL=$((ih + il))
		_dr=-
		[ $_sc = none ] || _dr=$(ratio $dh $dl)
		_rows="$_rows$(printf '%-12s %8s %8s %6s %8s %8s %6s %10s' "$_sc" "$ih" "$il" "$r" "$fh" "$fl" "$(ratio "$fh" "$fl")" "$_dr")
"
	done
	set_sched $D none
	table_begin "$_tag: $_wt, the same randread 4k job (libaio, iodepth 8) per unit, device-bound null_blk (completions of $SD_NSEC ns, depth $SD_DEPTH: $CAP IOPS); IOPS ($SD_IOSRC) and disk time ($SD_DTIME) over the same $SD_WIN s window, fio's IOPS over its whole run ($SD_RT s); expected disk-time ratio $_ex under efq, 1 under none"
	printf '%-12s %8s %8s %6s %8s %8s %6s %10s\n' scheduler "IOPS hi" "IOPS lo" ratio "fio hi" "fio lo" ratio "disk_time"
	printf '%s' "$_rows"
	table_end
}

# sd_wrote LABEL READ WANT: passes if READ (a cgroup's files as read during
# the last run, "io.weight=[...] ...") holds WANT, the tool's write
sd_wrote() {
	case $2 in
	*"$3"*) pass "$1" ;;
	*) fail "$1 (read: $2)" ;;
	esac
}

# bundle SIDE WEIGHT OFFSET CGROUPS_PATH: the OCI bundle
# /run/efq/bundles/SIDE of a container that runs the reader SIDE (fio_job)
# with linux.resources.blockIO.weight WEIGHT and linux.cgroupsPath
# CGROUPS_PATH ("SLICE:PREFIX:NAME" for runc's systemd cgroup driver, a path
# for its cgroupfs driver): the guest's own fio, its /usr bind-mounted
# read-only into a rootfs of four symlinks (Debian 12 and 13 have a merged
# /usr), the null_blk device $D passed in (linux.devices, allowed in
# linux.resources.devices), $GO bind-mounted on /go
bundle() {
	_b=/run/efq/bundles/$1
	rm -rf $_b
	mkdir -p $_b/rootfs/usr $_b/rootfs/proc $_b/rootfs/dev $_b/rootfs/sys $_b/rootfs/tmp $_b/rootfs/go
	for _l in bin sbin lib lib64; do
		ln -s usr/$_l $_b/rootfs/$_l
	done
	_maj=${DEV%%:*} _min=${DEV#*:}
	_args=$(fio_job $1 $3 | sed 's/[^ ]*/"&"/g; s/ /, /g')
	_wrap=$(printf '%s' "$SD_WRAP" | sed 's/"/\\"/g')
	cat >$_b/config.json <<JSON
{
	"ociVersion": "1.0.2",
	"process": {
		"terminal": false,
		"user": { "uid": 0, "gid": 0 },
		"args": [ "/bin/sh", "-c", "$_wrap", "/go", $_args ],
		"env": [ "PATH=/usr/sbin:/usr/bin" ],
		"cwd": "/",
		"noNewPrivileges": true
	},
	"root": { "path": "rootfs", "readonly": true },
	"hostname": "efq-ctr-$1",
	"mounts": [
		{ "destination": "/proc", "type": "proc", "source": "proc" },
		{ "destination": "/dev", "type": "tmpfs", "source": "tmpfs", "options": [ "nosuid", "strictatime", "mode=755", "size=65536k" ] },
		{ "destination": "/sys", "type": "sysfs", "source": "sysfs", "options": [ "nosuid", "noexec", "nodev", "ro" ] },
		{ "destination": "/tmp", "type": "tmpfs", "source": "tmpfs", "options": [ "nosuid", "nodev", "mode=1777" ] },
		{ "destination": "/usr", "type": "bind", "source": "/usr", "options": [ "rbind", "ro" ] },
		{ "destination": "/go", "type": "bind", "source": "$GO", "options": [ "rbind", "ro" ] }
	],
	"linux": {
		"cgroupsPath": "$4",
		"devices": [ { "path": "/dev/$D", "type": "b", "major": $_maj, "minor": $_min, "fileMode": 432, "uid": 0, "gid": 0 } ],
		"resources": {
			"devices": [
				{ "allow": false, "access": "rwm" },
				{ "allow": true, "type": "b", "major": $_maj, "minor": $_min, "access": "rw" }
			],
			"blockIO": { "weight": $2 }
		},
		"namespaces": [ { "type": "pid" }, { "type": "ipc" }, { "type": "uts" }, { "type": "mount" }, { "type": "network" } ]
	}
}
JSON
}

# sd_scheds_listed: a null_blk made through configfs lists the four efq
# schedulers (the modules are loaded and registered)
sd_scheds_listed() {
	if nb_create 99 irqmode=0 memory_backed=0; then
		log "nullb99: $(cat /sys/block/nullb99/queue/scheduler)"
		for _s in cfq deadline-fq as noop; do
			check "$_s listed in /sys/block/nullb99/queue/scheduler" grep -qw -- $_s /sys/block/nullb99/queue/scheduler
		done
		check "remove nullb99" nb_remove 99
	else
		fail "create null_blk device nullb99 through configfs"
	fi
}
