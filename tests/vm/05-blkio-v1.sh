# SPDX-License-Identifier: GPL-2.0
# vmtest-budget: 300
#
# cgroup v1 (issue 32): efq's blkio.* files under CFQ's names on a v1 blkio
# mount.  First of the files: the io controller can move to a v1 hierarchy
# only while it has no cgroup on v2 (no +io anywhere, no child css left,
# dying ones included: mount fails with EBUSY), which holds before any other
# file has made a cgroup.  init's +io in the v2 root is taken back for the
# mount and given back after it; the file ends by checking that the io
# controller is on v2 again, with +io in the root, for the files after it.
#   1. the files: blkio.weight (10..1000, default 500), blkio.weight_device,
#      blkio.ioprio_class, blkio.policy in a child; the stat files in the root
#      too; round trips; blkio.bfq.weight alongside.
#   2. every bad write refused with its errno and an "efq:" kernel line.
#   3. the V10 walk-through: test1 and test2 at blkio.weight 1000 and 500, a
#      reader in each (echo $$ > tasks), on 40-fairness's device-bound
#      null_blk: under cfq the blkio.disk_time ratio 2 +/- 15% and the reads
#      ratio 1.6..2.5 (blkio.throttle.io_serviced: outside efq); none, first,
#      the control: reads ratio 0.8..1.25.
#   4. fio's own cgroup options: one fio, two jobs with cgroup=/cgroup_weight=
#      800 and 200 (fio makes the cgroups on the blkio mount, writes
#      blkio.weight, and joins through tasks); fio 3.33 takes the first
#      cgroup mount of /proc/mounts, and cgroup2 there (/sys/fs/cgroup) makes
#      it refuse cgroup_weight, so fio runs in a mount namespace without it
#      (unshare -m).  none: IOPS ratio 0.8..1.25 and the cgroups removed by
#      fio after it; cfq with cgroup_nodelete=1: IOPS ratio and disk time
#      ratio 3.4..4.6, the cgroups left with fio's weights in blkio.weight.
#      fio's IOPS (ramp_time 2 s, exitall: both jobs measured while both run).
# A run that misses a ratio is run once more and the second judged.  Should
# the file be stopped before its end, init gives the io controller back to
# v2 (lib.sh's io_back_to_v2).

V1=/tmp/blkio
blkio_col() { awk -v c=$1 '$1 == "blkio" { print $c }' /proc/cgroups; }
blkio_is() { [ "$(blkio_col $1)" = "$2" ]; } # COLUMN VALUE
# wait_for SECONDS CMD...: until CMD succeeds, at most SECONDS
wait_for() {
	_wt=$(($1 * 10))
	shift
	while ! "$@"; do
		[ $_wt -gt 0 ] || return 1
		usleep 100000
		_wt=$((_wt - 1))
	done
}
v1_mount() { mount -t cgroup -o blkio none $V1 2>/dev/null; }

cond "v1: the io controller starts on cgroup v2 (/proc/cgroups hierarchy $(blkio_col 2))" "$(blkio_col 2)" = 0
check "v1: -io in the v2 root's subtree_control" sh -c "echo -io >$CG/cgroup.subtree_control"
mkdir -p $V1
# a css of a removed cgroup lingers a moment (built-in mode: init's own)
if ! wait_for 20 v1_mount; then
	fail "v1: mount -t cgroup -o blkio none $V1 ($(mount -t cgroup -o blkio none $V1 2>&1))"
	MOUNTED=0
else
	pass "v1: mount -t cgroup -o blkio none $V1"
	MOUNTED=1
	cond "v1: the io controller is on a v1 hierarchy (/proc/cgroups hierarchy $(blkio_col 2))" "$(blkio_col 2)" != 0
fi

# --- 1. the files ------------------------------------------------------------------
if [ $MOUNTED = 1 ] && item "v1: blkio.* files and round trips"; then
	nb_create 17 irqmode=0 memory_backed=0 || fail "create null_blk device nullb17"
	DEV=$(devnum nullb17)
	for f in disk_time disk_sectors disk_queue disk_dequeue weight weight_device; do
		check "v1: the root has blkio.$f" test -f $V1/blkio.$f
	done
	for f in ioprio_class policy; do
		check "v1: the root has no blkio.$f" test ! -e $V1/blkio.$f
	done
	expect_read "v1: the root's blkio.weight reads 500" $V1/blkio.weight 500
	check "v1: mkdir test1 test2" mkdir $V1/test1 $V1/test2
	for f in weight weight_device ioprio_class policy disk_time disk_sectors disk_queue disk_dequeue; do
		check "v1: test1 has blkio.$f" test -f $V1/test1/blkio.$f
	done
	check "v1: no io.efq.* file on the v1 mount" test "$(ls $V1/test1 | grep -c '^io\.')" = 0
	[ -f $KMODS/bfq.ko ] && check "v1: bfq's blkio.bfq.weight alongside blkio.weight" \
		test -f $V1/test1/blkio.bfq.weight -a -f $V1/test1/blkio.weight
	B=$V1/test1/blkio.weight
	expect_read "v1: blkio.weight reads 500" $B 500
	expect_ok "v1: echo 1000 > test1/blkio.weight" $B 1000
	expect_read "v1: test1's blkio.weight reads 1000" $B 1000
	expect_ok "v1: echo 500 > test2/blkio.weight" $V1/test2/blkio.weight 500
	expect_read "v1: test2's blkio.weight reads 500" $V1/test2/blkio.weight 500
	expect_ok "v1: blkio.weight 10 (min)" $B 10
	expect_read "v1: blkio.weight 10 reads back" $B 10
	expect_ok "v1: blkio.weight '  700  ' (blanks around)" $B "  700  "
	expect_read "v1: blkio.weight 700 reads back" $B 700
	D=$V1/test1/blkio.weight_device
	expect_read "v1: blkio.weight_device reads empty" $D ""
	expect_ok "v1: blkio.weight_device '$DEV 300'" $D "$DEV 300"
	expect_read "v1: blkio.weight_device lists it" $D "$DEV 300"
	expect_read "v1: blkio.weight unchanged by it" $B 700
	expect_read "v1: blkio.policy shows it with the cgroup's class" $V1/test1/blkio.policy \
		"$(printf 'dev\tweight\tclass|%s\t300\t2' $DEV)"
	expect_ok "v1: blkio.weight_device '$DEV 10' (min)" $D "$DEV 10"
	expect_ok "v1: blkio.weight_device '$DEV 1000' (max)" $D "$DEV 1000"
	expect_read "v1: blkio.weight_device replaced" $D "$DEV 1000"
	expect_ok "v1: blkio.weight_device '$DEV 0' removes" $D "$DEV 0"
	expect_read "v1: blkio.weight_device empty again" $D ""
	expect_ok "v1: blkio.weight_device '1:3 0' (no rule, no disk) is taken" $D "1:3 0"
	expect_read "v1: blkio.ioprio_class reads 2" $V1/test1/blkio.ioprio_class 2
	expect_ok "v1: blkio.ioprio_class 3" $V1/test1/blkio.ioprio_class 3
	expect_read "v1: blkio.ioprio_class 3 reads back" $V1/test1/blkio.ioprio_class 3
	expect_ok "v1: blkio.ioprio_class 2 again" $V1/test1/blkio.ioprio_class 2
	expect_ok "v1: blkio.policy '$DEV 20 1' (CFQ's range)" $V1/test1/blkio.policy "$DEV 20 1"
	expect_read "v1: blkio.weight_device shows the policy's rule" $D "$DEV 20"
	expect_ok "v1: blkio.policy '$DEV 0 1' removes" $V1/test1/blkio.policy "$DEV 0 1"
	expect_read "v1: blkio.weight_device empty after the removal" $D ""
	for c in test1 test2; do rmdir $V1/$c || fail "v1: rmdir $c"; done
	nb_remove 17
fi

# --- 2. bad writes -----------------------------------------------------------------
if [ $MOUNTED = 1 ] && item "v1: bad writes refused with their errno and a kernel line"; then
	nb_create 17 irqmode=0 memory_backed=0 || fail "create null_blk device nullb17"
	DEV=$(devnum nullb17)
	mkdir $V1/bad
	B=$V1/bad/blkio.weight D=$V1/bad/blkio.weight_device
	expect_ok "v1: blkio.weight 600" $B 600
	expect_ok "v1: blkio.weight_device '$DEV 60'" $D "$DEV 60"
	for v in 9 1001 0 4294967295; do
		expect_refused "v1: blkio.weight '$v' is EINVAL" EINVAL $B "$v" range \
			"blkio\.weight: weight $v out of range 10\.\.1000"
	done
	for v in abc -1 +500 "500 600" "" 4294967296 "default 500"; do
		expect_refused "v1: blkio.weight '$v' is EINVAL" EINVAL $B "$v" bw "blkio\.weight takes a number"
	done
	expect_refused "v1: the root's blkio.weight refuses a write (EINVAL)" EINVAL $V1/blkio.weight 800 root \
		"blkio\.weight: the root cgroup has no weight"
	expect_ok "v1: the root's blkio.weight takes what it shows (500), a restore" $V1/blkio.weight 500
	for v in 9 1001; do
		expect_refused "v1: blkio.weight_device '$DEV $v' is EINVAL" EINVAL $D "$DEV $v" range \
			"blkio\.weight_device: weight $v out of range 10\.\.1000"
	done
	for v in "$DEV" "$DEV abc" "abc 100" "$DEV -1" "$DEV +100" "$DEV 100 1" "$DEV default" "default 100" "x:y 100" ""; do
		expect_refused "v1: blkio.weight_device '$v' is EINVAL" EINVAL $D "$v" bwd \
			'blkio\.weight_device takes "MAJ:MIN N" \(N 0 removes\)'
	done
	for v in "1:3 100" "${DEV%%:*}:999 100"; do
		expect_refused "v1: blkio.weight_device '$v' (not a whole disk) is ENODEV" ENODEV $D "$v" nodisk \
			"${v%% *} is not a whole disk"
	done
	expect_refused "v1: the root's blkio.weight_device refuses a write (EINVAL)" EINVAL $V1/blkio.weight_device \
		"$DEV 100" root "blkio\.weight_device: the root cgroup has no weight"
	for v in 0 4; do
		expect_refused "v1: blkio.ioprio_class '$v' is EINVAL" EINVAL $V1/bad/blkio.ioprio_class "$v" class \
			"ioprio class $v is not 1 \(rt\), 2 \(be\) or 3 \(idle\)"
	done
	expect_refused "v1: blkio.policy '$DEV 9 2' is EINVAL" EINVAL $V1/bad/blkio.policy "$DEV 9 2" range \
		"blkio\.policy: weight 9 out of range 10\.\.1000"
	expect_refused "v1: blkio.policy '$DEV 100' is EINVAL" EINVAL $V1/bad/blkio.policy "$DEV 100" policy \
		'blkio\.policy must be "MAJ:MIN WEIGHT CLASS"'
	expect_read "v1: blkio.weight unchanged after the bad writes" $B 600
	expect_read "v1: blkio.weight_device unchanged after the bad writes" $D "$DEV 60"
	expect_read "v1: the root's blkio.weight still 500" $V1/blkio.weight 500
	rmdir $V1/bad || fail "v1: rmdir bad"
	nb_remove 17
fi

# --- 3. the V10 walk-through: 1000 vs 500 ------------------------------------------------
# blk-throttle counts a v1 cgroup's bios (blkio.throttle.io_serviced) only
# where it has a limit: 6.1 counts the bios of a group with a limit of its
# own (on v1 every group is the root's child there: no limit is inherited),
# 6.12 every group's once the queue has any limit.  So each reader's cgroup
# gets a read limit on the device that no reader comes near.
v1_throttle_on() {
	for _c in $PA $PB; do
		echo "$PDEV 1000000" >$_c/blkio.throttle.read_iops_device ||
			fail "v1: a 1000000 read IOPS limit on $PD in $_c (blk-throttle's counters)"
	done
}
v1_judge() { # SCHED LO HI WHAT: judge pr (reads) and, but for none, the disk time
	_s=$1
	if [ $_s = none ]; then
		cond "v1 $4 none (control): fio ran in both" "$pok" = 1
		if within "$pr" 0.8 1.25; then pass "v1 $4 none (control): reads ratio $pr in 0.8..1.25 ($pa/$pb)"; else fail "v1 $4 none (control): reads ratio $pr in 0.8..1.25 ($pa/$pb)"; fi
		return
	fi
	cond "v1 $4 $_s: fio ran in both" "$pok" = 1
	_dr=$(ratio $pda $pdb)
	if within "$_dr" $2 $3; then pass "v1 $4 $_s: blkio.disk_time ratio $_dr in $2..$3 ($pda/$pdb ms)"; else fail "v1 $4 $_s: blkio.disk_time ratio $_dr in $2..$3 ($pda/$pdb ms)"; fi
}
if [ $MOUNTED = 1 ] && item "v1: V10's walk-through, blkio.weight 1000 and 500, none and cfq"; then
	mkdir $V1/test1 $V1/test2
	expect_ok "v1 walk-through: echo 1000 > test1/blkio.weight" $V1/test1/blkio.weight 1000
	expect_ok "v1 walk-through: echo 500 > test2/blkio.weight" $V1/test2/blkio.weight 500
	PA=$V1/test1 PB=$V1/test2 PWIN=${FAIR_WINDOW:-6} PENTER=tasks PAIR_SETUP=v1_throttle_on
	# shellcheck disable=SC2034 # read by pair_run
	if pair_bottleneck 18; then
		pass "v1 walk-through: the device is the bottleneck (none: $((pa + pb)) of $pcap IOPS, completions of $pns ns)"
		within "$pr" 0.8 1.25 || { log "v1 walk-through none: reads ratio $pr: once more" && pair_run none; }
		v1_judge none 0 0 walk-through
		rows="$(printf '%-12s %8s %8s %6s %15s' none "$pa" "$pb" "$pr" -)
"
		pair_run cfq
		if ! within "$(ratio $pda $pdb)" 1.7 2.3 || ! within "$pr" 1.6 2.5; then
			log "v1 walk-through cfq: disk_time ratio $(ratio $pda $pdb), reads ratio $pr: once more"
			pair_run cfq
		fi
		v1_judge cfq 1.7 2.3 walk-through
		if within "$pr" 1.6 2.5; then pass "v1 walk-through cfq: reads ratio $pr in 1.6..2.5 ($pa/$pb)"; else fail "v1 walk-through cfq: reads ratio $pr in 1.6..2.5 ($pa/$pb)"; fi
		gw=$(awk '$1 == "group" && $2 ~ /test[12]$/ { printf "%s %s ", $2, $3 }' /tmp/pair.trees)
		cond "v1 walk-through cfq: the engine's groups at 1000 and 500 (debugfs: ${gw:-none})" \
			"$(echo "$gw" | grep -c '/test1 weight=1000 ')$(echo "$gw" | grep -c '/test2 weight=500 ')" = 11
		rows="$rows$(printf '%-12s %8s %8s %6s %15s' cfq "$pa" "$pb" "$pr" "$(ratio $pda $pdb)")
"
		set_sched $PD none
		table_begin "v1 walk-through: blkio.weight test1/test2 1000/500, same randread 4k job (libaio, iodepth 8) per cgroup (joined through tasks), device-bound null_blk (completions of $pns ns, depth 2: $pcap IOPS); reads (blkio.throttle.io_serviced) and blkio.disk_time over the same $PWIN s window"
		printf '%-12s %8s %8s %6s %15s\n' scheduler "IOPS t1" "IOPS t2" ratio "disk_time ratio"
		printf '%s' "$rows"
		table_end
	else
		fail "v1 walk-through: the device is the bottleneck (none reached 80% of its IOPS on every device tried)"
	fi
	nb_remove 18
	for c in test1 test2; do rmdir $V1/$c || fail "v1: rmdir $c"; done
fi

# --- 4. fio's cgroup= and cgroup_weight= -------------------------------------------------
# fiocg SCHED NODELETE: one fio, jobs w800 and w200 in cgroups fio800 and
# fio200 that fio makes; sets fa, fb (fio's IOPS), fr, fda, fdb (disk time
# over a window while both run), fok
fiocg() {
	set_sched $PD $1 || {
		fail "v1 fio: select $1 on $PD"
		return 1
	}
	[ $1 = none ] || echo 64 >/sys/block/$PD/queue/nr_requests
	_rt=$((PWIN + 5))
	unshare -m sh -c 'umount /sys/fs/cgroup && exec "$@"' fio \
		fio --minimal --exitall --ramp_time=2 --runtime=$_rt --time_based --cgroup_nodelete=$2 \
		--filename=/dev/$PD --direct=1 --ioengine=libaio --rw=randread --bs=4k --iodepth=8 --size=1g \
		--name=w800 --offset=0 --cgroup=fio800 --cgroup_weight=800 \
		--name=w200 --offset=2g --cgroup=fio200 --cgroup_weight=200 >/tmp/fiocg.out 2>&1 &
	_fp=$!
	# the window: both cgroups made by fio, each with its job in it
	_t=0
	until [ -n "$(cat $V1/fio800/tasks 2>/dev/null)" ] && [ -n "$(cat $V1/fio200/tasks 2>/dev/null)" ]; do
		[ $_t -lt 300 ] || break
		usleep 100000
		_t=$((_t + 1))
	done
	sleep 1
	_da0=$(pair_dtime $V1/fio800) _db0=$(pair_dtime $V1/fio200)
	_ra0=$(pair_reads $V1/fio800) _rb0=$(pair_reads $V1/fio200)
	_w8=$(cat $V1/fio800/blkio.weight 2>/dev/null) _w2=$(cat $V1/fio200/blkio.weight 2>/dev/null)
	sleep $PWIN
	_da1=$(pair_dtime $V1/fio800) _db1=$(pair_dtime $V1/fio200)
	_ra1=$(pair_reads $V1/fio800) _rb1=$(pair_reads $V1/fio200)
	wait_all 60 $_fp || log "v1 fio $1: fio did not end within 60 s (killed)"
	fok=0
	[ "$(grep -c '^3;' /tmp/fiocg.out)" = 2 ] && [ "$(fio_err /tmp/fiocg.out)" = 0 ] && fok=1
	[ $fok = 1 ] || tail -n 5 /tmp/fiocg.out
	fa=$(awk -F';' '$1 == 3 && $3 == "w800" { print $8 }' /tmp/fiocg.out)
	fb=$(awk -F';' '$1 == 3 && $3 == "w200" { print $8 }' /tmp/fiocg.out)
	fr=$(ratio "${fa:-0}" "${fb:-0}")
	fda=$((_da1 - _da0)) fdb=$((_db1 - _db0))
	# printed beside fio's figure: the reads of the window (blk-throttle;
	# none where it does not count: fio's cgroups have no limit)
	fwr=$(ratio $((_ra1 - _ra0)) $((_rb1 - _rb0)))
	[ $((_ra1 - _ra0)) -gt 0 ] || fwr=-
	log "v1 fio $1: fio's IOPS $fa/$fb ($fr), the window's reads $((_ra1 - _ra0))/$((_rb1 - _rb0)) ($fwr), disk time $fda/$fdb ms"
	cond "v1 fio $1: fio wrote cgroup_weight to blkio.weight while it ran (800: '$_w8', 200: '$_w2')" \
		"$_w8/$_w2" = 800/200
}
if [ $MOUNTED = 1 ] && item "v1: fio's cgroup= and cgroup_weight= 800 and 200, none and cfq"; then
	PWIN=${FAIR_WINDOW:-6}
	if [ ! -b /dev/$PD ]; then
		SLOW_NSEC=${pns:-4000000} SLOW_DEPTH=2 nb_slow 18 || fail "create the slow device nullb18"
		PD=nullb18 PDEV=$(devnum nullb18)
	fi
	fiocg none 0
	within "$fr" 0.8 1.25 || { log "v1 fio none: IOPS ratio $fr: once more" && fiocg none 0; }
	cond "v1 fio none (control): fio ran both jobs" "$fok" = 1
	if within "$fr" 0.8 1.25; then pass "v1 fio none (control): IOPS ratio $fr in 0.8..1.25 ($fa/$fb)"; else fail "v1 fio none (control): IOPS ratio $fr in 0.8..1.25 ($fa/$fb)"; fi
	check "v1 fio none: fio removed the cgroups it made (cgroup_nodelete=0)" \
		wait_for 5 test ! -d $V1/fio800 -a ! -d $V1/fio200
	rows="$(printf '%-12s %8s %8s %6s %13s %15s' none "$fa" "$fb" "$fr" "$fwr" -)
"
	fiocg cfq 1
	if ! within "$fr" 3.4 4.6 || ! within "$(ratio $fda $fdb)" 3.4 4.6; then
		log "v1 fio cfq: IOPS ratio $fr, disk_time ratio $(ratio $fda $fdb): once more"
		for c in fio800 fio200; do rmdir $V1/$c 2>/dev/null; done
		fiocg cfq 1
	fi
	cond "v1 fio cfq: fio ran both jobs" "$fok" = 1
	if within "$fr" 3.4 4.6; then pass "v1 fio cfq: IOPS ratio $fr in 3.4..4.6 ($fa/$fb)"; else fail "v1 fio cfq: IOPS ratio $fr in 3.4..4.6 ($fa/$fb)"; fi
	dr=$(ratio $fda $fdb)
	if within "$dr" 3.4 4.6; then pass "v1 fio cfq: blkio.disk_time ratio $dr in 3.4..4.6 ($fda/$fdb ms)"; else fail "v1 fio cfq: blkio.disk_time ratio $dr in 3.4..4.6 ($fda/$fdb ms)"; fi
	check "v1 fio cfq: the cgroups fio made are left (cgroup_nodelete=1)" test -d $V1/fio800 -a -d $V1/fio200
	expect_read "v1 fio cfq: fio800's blkio.weight 800 after fio" $V1/fio800/blkio.weight 800
	expect_read "v1 fio cfq: fio200's blkio.weight 200 after fio" $V1/fio200/blkio.weight 200
	check "v1 fio cfq: fio moved its jobs out (fio800's tasks empty)" test -z "$(cat $V1/fio800/tasks)"
	rows="$rows$(printf '%-12s %8s %8s %6s %13s %15s' cfq "$fa" "$fb" "$fr" "$fwr" "$dr")
"
	set_sched $PD none
	table_begin "v1 fio: fio's cgroup=fio800/fio200 cgroup_weight=800/200, two randread 4k jobs (libaio, iodepth 8) of one fio, device-bound null_blk (completions of ${pns:-4000000} ns, depth 2); fio's IOPS (ramp_time 2 s, exitall), reads (blkio.throttle.io_serviced) and blkio.disk_time over a $PWIN s window"
	printf '%-12s %8s %8s %6s %13s %15s\n' scheduler "IOPS 800" "IOPS 200" ratio "window reads" "disk_time ratio"
	printf '%s' "$rows"
	table_end
	for c in fio800 fio200; do rmdir $V1/$c 2>/dev/null; done
fi

# --- cleanup: the io controller back on cgroup v2 ------------------------------------------
nb_remove 18
if [ $MOUNTED = 1 ]; then
	for c in $(ls -d $V1/*/ 2>/dev/null); do rmdir $c 2>/dev/null || log "v1: rmdir $c failed"; done
	# the hierarchy goes back only if it has no cgroup left, dying ones
	# included, when it is unmounted
	check "v1: every cgroup of the v1 hierarchy freed (/proc/cgroups: 1 cgroup, the root)" \
		wait_for 20 blkio_is 3 1
	check "v1: umount $V1" umount $V1
	check "v1: the io controller back on cgroup v2 (/proc/cgroups hierarchy 0)" \
		wait_for 20 blkio_is 2 0
fi
rmdir $V1 2>/dev/null
check "v1: +io in the v2 root's subtree_control again" \
	wait_for 20 sh -c "echo +io >$CG/cgroup.subtree_control 2>/dev/null"
check "v1: io listed in the v2 root's subtree_control" grep -qw io $CG/cgroup.subtree_control
if mkdir $CG/v1after; then
	check "v1: a new v2 cgroup has io.efq.weight after the v1 mount" test -f $CG/v1after/io.efq.weight
	cg_remove v1after
else
	fail "v1: mkdir of a v2 cgroup after the v1 mount"
fi
