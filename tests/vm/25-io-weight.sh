# SPDX-License-Identifier: GPL-2.0
#
# io.efq.io_weight (issue 32): what efq follows of io.weight, in io.weight's
# grammar and units (1..10000, default 100), applied as 5 x W.
#   1. the file: in a child with +io only, round trips, the 5x mapping seen
#      in io.efq.weight, an io.efq.weight written by the admin winning until
#      "default io.weight" hands the default back, every bad form refused
#      with its errno and an "efq:" kernel line, and io.weight left to
#      iocost (neither file changes the other).
#   2. fairness through it, measured outside the engine: the same random
#      reader in two cgroups at io.efq.io_weight 800 and 200 on a
#      device-bound null_blk (40-fairness's), none first as the control on
#      the same device: each efq scheduler's IOPS ratio (io.stat) and
#      io.efq.disk_time ratio 4 +/- 15%, none's IOPS ratio 0.8..1.25.  A
#      run that misses is run once more and the second one judged.
#   3. the cftypes' lifetimes: efq and bfq unloaded and loaded in every
#      order (efq then bfq, bfq then efq, efq unloaded with bfq loaded, bfq
#      unloaded with efq loaded, both reloaded); after each step mkdir of a
#      new cgroup works and shows exactly the loaded policies' files, and
#      the kernel log has no cgroup_addrm_files / "failed to add" / warning.
#      Ends as init left it: bfq loaded, then efq and its schedulers.

# --- 1. the file ----------------------------------------------------------------
if item "io.efq.io_weight: files, round trips, the 5x mapping, precedence"; then
	nb_create 15 irqmode=0 memory_backed=0 || fail "create null_blk device nullb15"
	DEV=$(devnum nullb15)
	cg_make iw
	C=$CG/iw I=$CG/iw/io.efq.io_weight W=$CG/iw/io.efq.weight
	check "io.efq.io_weight in a child cgroup with +io" test -f $I
	check "no io.efq.io_weight in the root cgroup" test ! -e $CG/io.efq.io_weight
	mkdir $C/sub
	check "no io.efq.io_weight in a grandchild while its parent has no +io" test ! -e $C/sub/io.efq.io_weight
	check "+io in the child's subtree_control" sh -c "echo +io >$C/cgroup.subtree_control"
	check "io.efq.io_weight in the grandchild with +io" test -f $C/sub/io.efq.io_weight
	rmdir $C/sub
	echo -io >$C/cgroup.subtree_control

	# io.efq.weight shows what was written to it ("default io.weight":
	# nothing, the default follows io.efq.io_weight); the 5 x W the engine
	# applies shows in the groups' weights (part 2, debugfs)
	expect_read "io.efq.io_weight: reads 'default 100'" $I "default 100"
	expect_read "io.efq.weight: reads 'default io.weight' (nothing written)" $W "default io.weight"
	expect_ok "io.efq.io_weight: write 800" $I 800
	expect_read "io.efq.io_weight: W sets the default" $I "default 800"
	expect_ok "io.efq.io_weight: write 'default 250'" $I "default 250"
	expect_read "io.efq.io_weight: 'default W' sets the default" $I "default 250"
	expect_ok "io.efq.io_weight: write '$DEV 300'" $I "$DEV 300"
	expect_read "io.efq.io_weight: the device line is listed" $I "default 250|$DEV 300"
	expect_ok "io.efq.io_weight: write '$DEV 40'" $I "$DEV 40"
	expect_read "io.efq.io_weight: the device line replaced" $I "default 250|$DEV 40"
	expect_ok "io.efq.io_weight: write '$DEV default'" $I "$DEV default"
	expect_read "io.efq.io_weight: 'MAJ:MIN default' drops the line" $I "default 250"
	expect_ok "io.efq.io_weight: write 1 (min)" $I 1
	expect_read "io.efq.io_weight: 1 reads back" $I "default 1"
	expect_ok "io.efq.io_weight: write 'default 10000' (max)" $I "default 10000"
	expect_read "io.efq.io_weight: 10000 reads back" $I "default 10000"
	expect_ok "io.efq.io_weight: write '$DEV 1' (min)" $I "$DEV 1"
	expect_ok "io.efq.io_weight: write '$DEV 10000' (max)" $I "$DEV 10000"
	expect_read "io.efq.io_weight: the device at 10000" $I "default 10000|$DEV 10000"
	expect_read "io.efq.weight: still 'default io.weight' (shows what was written to it)" $W "default io.weight"
	expect_ok "io.efq.io_weight: write 'default 800'" $I "default 800"
	expect_ok "io.efq.io_weight: write '$DEV 300'" $I "$DEV 300"

	# precedence: what the admin writes to io.efq.weight wins, until
	# "default io.weight" hands the default back
	expect_ok "io.efq.weight: write 700 over io.efq.io_weight" $W 700
	expect_read "io.efq.weight: the written 700" $W "default 700"
	expect_read "io.efq.io_weight: unchanged by the io.efq.weight write" $I "default 800|$DEV 300"
	expect_ok "io.efq.io_weight: write 'default 900' under a written weight" $I "default 900"
	expect_read "io.efq.io_weight: reads 'default 900'" $I "default 900|$DEV 300"
	expect_read "io.efq.weight: still the written 700" $W "default 700"
	expect_ok "io.efq.weight: write '$DEV 200' (a rule of its own)" $W "$DEV 200"
	expect_read "io.efq.weight: default 700 and the rule" $W "default 700|$DEV 200"
	expect_ok "io.efq.weight: write 'default io.weight' (hand back)" $W "default io.weight"
	expect_read "io.efq.weight: the default handed back, the written rule kept" $W "default io.weight|$DEV 200"
	expect_read "io.efq.io_weight: unchanged by the hand-back" $I "default 900|$DEV 300"
	expect_ok "io.efq.weight: write '$DEV default'" $W "$DEV default"
	expect_read "io.efq.weight: nothing written left" $W "default io.weight"
	expect_ok "io.efq.weight: 'default io.weight' again (nothing written)" $W "default io.weight"
	expect_read "io.efq.weight: unchanged" $W "default io.weight"

	# io.weight: iocost's on Debian's kernels, and neither file changes the
	# other; a patched kernel (built-in mode) whose iocost tells efq of its
	# default (the series' notifier) has io.efq.io_weight follow it; one
	# without iocost has io.weight as efq's own io.efq.io_weight
	IOW=iocost
	if [ $BUILTIN = 1 ]; then
		if grep -q ' ioc_weight_notifier_register$' /proc/kallsyms; then
			IOW=notifier
		elif ! grep -q ' ioc_rqos_throttle$' /proc/kallsyms; then
			IOW=efq
		fi
	fi
	log "io.weight: $IOW's"
	check "io.weight present" test -f $C/io.weight
	case $IOW in
	efq)
		expect_read "io.weight: efq's (no iocost), the same as io.efq.io_weight" $C/io.weight "$(tr '\n' '|' <$I | sed 's/|$//')"
		expect_ok "io.weight: write 'default 300'" $C/io.weight "default 300"
		expect_read "io.efq.io_weight: io.weight's write" $I "default 300|$DEV 300"
		;;
	*)
		expect_read "io.weight: iocost's 'default 100' after the io.efq.io_weight writes" $C/io.weight "default 100"
		expect_ok "io.weight: iocost takes 'default 300'" $C/io.weight "default 300"
		expect_read "io.weight: reads 'default 300'" $C/io.weight "default 300"
		if [ $IOW = notifier ]; then
			expect_read "io.efq.io_weight: follows io.weight's default (iocost's notifier)" $I "default 300|$DEV 300"
		else
			expect_read "io.efq.io_weight: not changed by io.weight" $I "default 900|$DEV 300"
		fi
		expect_read "io.efq.weight: not changed by io.weight" $W "default io.weight"
		expect_ok "io.efq.io_weight: write 'default 50'" $I "default 50"
		expect_read "io.weight: not changed by io.efq.io_weight" $C/io.weight "default 300"
		;;
	esac
	cg_remove iw || fail "rmdir iw"
	nb_remove 15
fi

# --- 2. fairness through io.efq.io_weight ------------------------------------------
FAIR_SCHEDS="cfq deadline-fq as noop"
if item "io.efq.io_weight: 800 vs 200 under none and $FAIR_SCHEDS"; then
	cg_make iwh
	cg_make iwl
	expect_ok "fairness: io.efq.io_weight 'default 800' for iwh" $CG/iwh/io.efq.io_weight "default 800"
	expect_ok "fairness: io.efq.io_weight 'default 200' for iwl" $CG/iwl/io.efq.io_weight "default 200"
	expect_read "fairness: iwh's io.efq.weight 'default io.weight' (nothing written)" $CG/iwh/io.efq.weight "default io.weight"
	expect_read "fairness: iwl's io.efq.weight 'default io.weight' (nothing written)" $CG/iwl/io.efq.weight "default io.weight"
	PA=$CG/iwh PB=$CG/iwl PWIN=${FAIR_WINDOW:-6} PENTER=cgroup.procs
	# shellcheck disable=SC2034 # read by pair_run
	if pair_bottleneck 16; then
		pass "fairness io_weight: the device is the bottleneck (none: $((pa + pb)) of $pcap IOPS, completions of $pns ns)"
		if ! within "$pr" 0.8 1.25; then
			log "fairness io_weight none: IOPS ratio $pr ($pa/$pb) out of 0.8..1.25: once more"
			pair_run none
		fi
		cond "fairness io_weight none (control): IOPS ratio $pr in 0.8..1.25 ($pa/$pb)" "$pok" = 1 -a \
			"$(within "$pr" 0.8 1.25 && echo y)" = y
		ctl=$((pa + pb))
		rows="$(printf '%-12s %8s %8s %6s %15s' none "$pa" "$pb" "$pr" -)
"
		for s in $FAIR_SCHEDS; do
			pair_run $s || continue
			dr=$(ratio $pda $pdb)
			if ! within "$pr" 3.4 4.6 || ! within "$dr" 3.4 4.6 || [ $((100 * (pa + pb))) -lt $((70 * ctl)) ]; then
				log "fairness io_weight $s: IOPS ratio $pr ($pa/$pb), disk_time ratio $dr ($pda/$pdb ms), $((pa + pb)) IOPS (none $ctl): once more"
				pair_run $s || continue
				dr=$(ratio $pda $pdb)
			fi
			cond "fairness io_weight $s: fio ran in both groups" "$pok" = 1
			# the engine applies 5 x W: 4000 and 1000
			gw=$(awk '$1 == "group" && $2 ~ /iw[hl]$/ { printf "%s %s ", $2, $3 }' /tmp/pair.trees)
			cond "fairness io_weight $s: the engine's groups at 5 x W (debugfs: ${gw:-none})" \
				"$(echo "$gw" | grep -c '/iwh weight=4000 ')$(echo "$gw" | grep -c '/iwl weight=1000 ')" = 11
			cond "fairness io_weight $s: the device stays busy ($((pa + pb)) IOPS, none $ctl, 70% needed)" \
				$((100 * (pa + pb))) -ge $((70 * ctl))
			if within "$pr" 3.4 4.6; then pass "fairness io_weight $s: IOPS ratio $pr in 3.4..4.6 ($pa/$pb)"; else fail "fairness io_weight $s: IOPS ratio $pr in 3.4..4.6 ($pa/$pb)"; fi
			if within "$dr" 3.4 4.6; then pass "fairness io_weight $s: io.efq.disk_time ratio $dr in 3.4..4.6 ($pda/$pdb ms)"; else fail "fairness io_weight $s: io.efq.disk_time ratio $dr in 3.4..4.6 ($pda/$pdb ms)"; fi
			rows="$rows$(printf '%-12s %8s %8s %6s %15s' "$s" "$pa" "$pb" "$pr" "$dr")
"
		done
		set_sched $PD none
		table_begin "io_weight fairness: io.efq.io_weight 800/200 (efq 4000/1000), same randread 4k job (libaio, iodepth 8) per group, device-bound null_blk (completions of $pns ns, depth 2: $pcap IOPS); IOPS (io.stat) and disk time over the same $PWIN s window"
		printf '%-12s %8s %8s %6s %15s\n' scheduler "IOPS 800" "IOPS 200" ratio "disk_time ratio"
		printf '%s' "$rows"
		table_end
	else
		fail "fairness io_weight: the device is the bottleneck (none reached 80% of its IOPS on every device tried)"
	fi
	nb_remove 16
	cg_remove iwh || fail "rmdir iwh"
	cg_remove iwl || fail "rmdir iwl"
fi

# --- 1b. bad writes (after the runs: printk's ratelimit of earlier refusals is over) --
if item "io.efq.io_weight: bad writes refused with their errno and a kernel line"; then
	nb_create 15 irqmode=0 memory_backed=0 || fail "create null_blk device nullb15"
	DEV=$(devnum nullb15)
	cg_make iwb
	I=$CG/iwb/io.efq.io_weight W=$CG/iwb/io.efq.weight
	expect_ok "io.efq.io_weight: write 'default 700'" $I "default 700"
	expect_ok "io.efq.io_weight: write '$DEV 70'" $I "$DEV 70"
	FMT='io\.efq\.io_weight takes "W", "default W", "MAJ:MIN W" or "MAJ:MIN default"'
	for v in 0 10001 "default 0" "default 10001" "$DEV 0" "$DEV 10001" 4294967295; do
		n=${v##* }
		expect_refused "io.efq.io_weight: '$v' is EINVAL" EINVAL $I "$v" range \
			"io\.efq\.io_weight: weight $n out of range 1\.\.10000"
	done
	for v in abc -1 "default abc" "default default" "default io.weight" "$DEV abc" "$DEV" \
		"x:y 100" "$DEV 100 1" "254:250 default 1" "" 4294967296 +800 "default +800" "+$DEV 800"; do
		expect_refused "io.efq.io_weight: '$v' is EINVAL" EINVAL $I "$v" fmt "$FMT"
	done
	for v in "1:3 100" "${DEV%%:*}:999 100"; do
		expect_refused "io.efq.io_weight: '$v' (not a whole disk) is ENODEV" ENODEV $I "$v" nodisk \
			"${v%% *} is not a whole disk"
	done
	expect_read "io.efq.io_weight: unchanged after the bad writes" $I "default 700|$DEV 70"
	expect_ok "io.efq.io_weight: '1:3 default' (a line for no disk: nothing to drop) is taken" $I "1:3 default"
	expect_refused "io.efq.weight: 'default 4000' (V10's 100..1000) is EINVAL" EINVAL $W "default 4000" range \
		"io\.efq\.weight: weight 4000 out of range 100\.\.1000"
	expect_refused "io.efq.weight: 'default io_weight' is EINVAL" EINVAL $W "default io_weight" wfmt \
		'io\.efq\.weight takes "N", "default N", "default io\.weight"'
	expect_refused "io.efq.weight: 'io.weight' alone is EINVAL" EINVAL $W "io.weight" wfmt \
		'io\.efq\.weight takes'
	expect_read "io.efq.weight: unchanged after the bad writes" $W "default io.weight"
	cg_remove iwb || fail "rmdir iwb"
	nb_remove 15
fi

# --- 3. the cftypes' lifetimes: load and unload orders of efq and bfq ---------------
# what a new cgroup must show: E efq's files (1) or none (0), B io.bfq.weight
lt_mkdir() { # NAME E B WHAT
	if ! mkdir $CG/$1; then
		fail "lifetimes, $4: mkdir of a new cgroup"
		return
	fi
	pass "lifetimes, $4: mkdir of a new cgroup"
	_ne=$(ls $CG/$1 | grep -c '^io\.efq\.')
	_nb=$(ls $CG/$1 | grep -c '^io\.bfq\.weight$')
	if [ $2 = 1 ]; then
		_miss=""
		for _f in weight io_weight ioprio_class policy disk_time disk_sectors disk_queue disk_dequeue; do
			[ -f $CG/$1/io.efq.$_f ] || _miss="$_miss io.efq.$_f"
		done
		cond "lifetimes, $4: the new cgroup has efq's 8 files (missing:${_miss:- none}; $_ne io.efq.*)" \
			-z "$_miss" -a "$_ne" = 8
	else
		cond "lifetimes, $4: the new cgroup has no io.efq.* file ($_ne)" "$_ne" = 0
	fi
	cond "lifetimes, $4: io.bfq.weight $([ $3 = 1 ] || echo "not ")in the new cgroup" "$_nb" = "$3"
	check "lifetimes, $4: io.weight (iocost's) in the new cgroup" test -f $CG/$1/io.weight
	_bad=$(dmesg | tail -n +$(($(cat /tmp/dmesg.lt) + 1)) | kfilter |
		grep -E "cgroup_addrm_files|failed to add|$KBAD" | head -n 2)
	cond "lifetimes, $4: kernel log clean (no cgroup_addrm_files, 'failed to add', warning: ${_bad:-none})" -z "$_bad"
	dmesg | wc -l >/tmp/dmesg.lt
}
EFQ_RM="cfq-iosched deadline-fq-iosched as-iosched noop-iosched efq"
efq_unload() {
	for _m in $EFQ_RM; do rmmod $_m || return 1; done
}
efq_load() {
	for _m in $EFQ_MODULES; do insmod /efq/$_m.ko || return 1; done
}
if [ $BUILTIN = 1 ]; then
	log "lifetimes: skipped, built in (nothing to unload or load)"
elif [ ! -f $KMODS/bfq.ko ]; then
	log "lifetimes: skipped, bfq is not a module of this kernel"
elif item "cftype lifetimes: efq and bfq unloaded and loaded in every order"; then
	dmesg | wc -l >/tmp/dmesg.lt
	lt_mkdir lt0 1 1 "as init loaded them (bfq, efq)"
	check "lifetimes: rmmod efq (its schedulers first) with bfq loaded" efq_unload
	check "lifetimes: io.efq.* gone from an existing cgroup after rmmod efq" \
		test "$(ls $CG/lt0 | grep -c '^io\.efq\.')" = 0
	lt_mkdir lt1 0 1 "efq unloaded, bfq loaded"
	check "lifetimes: rmmod bfq (efq unloaded)" rmmod bfq
	lt_mkdir lt2 0 0 "neither loaded"
	check "lifetimes: insmod efq first" efq_load
	lt_mkdir lt3 1 0 "efq alone"
	check "lifetimes: insmod bfq after efq" insmod $KMODS/bfq.ko
	lt_mkdir lt4 1 1 "efq, then bfq"
	check "lifetimes: an existing cgroup (made with neither) has both now" \
		test -f $CG/lt2/io.efq.io_weight -a -f $CG/lt2/io.bfq.weight
	check "lifetimes: rmmod bfq with efq loaded" rmmod bfq
	lt_mkdir lt5 1 0 "bfq unloaded, efq loaded"
	check "lifetimes: rmmod efq again" efq_unload
	check "lifetimes: insmod bfq first (init's order)" insmod $KMODS/bfq.ko
	lt_mkdir lt6 0 1 "bfq alone"
	check "lifetimes: insmod efq after bfq (reload)" efq_load
	lt_mkdir lt7 1 1 "bfq, then efq (reloaded)"
	expect_ok "lifetimes: io.efq.io_weight takes a write after the reload" $CG/lt7/io.efq.io_weight "default 300"
	expect_read "lifetimes: io.efq.io_weight reads it back" $CG/lt7/io.efq.io_weight "default 300"
	for c in lt0 lt1 lt2 lt3 lt4 lt5 lt6 lt7; do
		cg_remove $c || fail "lifetimes: rmdir $c"
	done
fi
# whatever happened above: leave efq and bfq loaded for the files after this one
if [ $BUILTIN = 0 ]; then
	[ -f $KMODS/bfq.ko ] && ! grep -q '^bfq ' /proc/modules && insmod $KMODS/bfq.ko
	for m in $EFQ_MODULES; do
		grep -q "^$(echo $m | tr - _) " /proc/modules || insmod /efq/$m.ko || fail "insmod $m.ko at the end"
	done
fi
