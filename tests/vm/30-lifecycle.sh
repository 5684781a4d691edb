# SPDX-License-Identifier: GPL-2.0
#
# Lifecycle without leaks or oops: scheduler switches under IO, two devices
# with different schedulers at once, rmdir of a cgroup with IO queued,
# removal of a device with IO queued, rmmod/insmod with cgroups around (not
# in built-in mode: see below).
# init checks dmesg after this file (WARNING/BUG/Oops fail it).

# A device slow enough that requests wait in the scheduler.
MID="irqmode=2 completion_nsec=200000 hw_queue_depth=4 memory_backed=0"
fiojob() { # NAME DEV SECONDS [extra fio options]
	_n=$1 _d=$2 _t=$3
	shift 3
	echo fio --name=$_n --filename=/dev/$_d --direct=1 --ioengine=libaio --rw=randrw --bs=4k \
		--iodepth=16 --runtime=$_t --time_based --minimal "$@"
}

# --- rmmod with cgroups around, then insmod again -------------------------------------
# (first: it needs every device off the efq schedulers, which a device stuck
# in a scheduler later on would prevent)
nb_create 2 $MID || fail "create nullb2"
nb_create 3 $MID || fail "create nullb3"
cg_make keep
echo 800 >$CG/keep/io.efq.weight
echo "$(devnum nullb2) 300" >$CG/keep/io.efq.weight
set_sched nullb2 deadline-fq
set_sched nullb3 noop
cg_make lcb
# shellcheck disable=SC2046
in_cg keep /tmp/keep.fio $(fiojob keep nullb2 1)
p2=$!
# shellcheck disable=SC2046
in_cg lcb /tmp/keep3.fio $(fiojob keep3 nullb3 1)
wait_pid $p2 15 || fail "fio in cgroup keep ends"
wait_pid $! 15 || fail "fio in cgroup lcb ends"
if [ $BUILTIN = 1 ]; then
	# Built in: nothing can be unloaded or loaded again.  The steps from the
	# first rmmod to the last check after insmod again (the files gone with
	# efq, rmdir/mkdir without it, the files back, every scheduler serving IO
	# again) are all about the unload and the load: skipped, not passed.
	log "rmmod and insmod again with cgroups around skipped: built in"
	set_sched nullb2 none
	set_sched nullb3 none
	for c in keep lcb; do cg_remove $c || fail "rmdir $c"; done
else
	check "rmmod deadline-fq-iosched fails while nullb2 uses it" sh -c "! rmmod deadline-fq-iosched 2>/dev/null"
	check "rmmod efq fails while the scheduler modules are loaded" sh -c "! rmmod efq 2>/dev/null"
	set_sched nullb2 none
	set_sched nullb3 none
	for m in cfq-iosched deadline-fq-iosched as-iosched noop-iosched efq; do
		check "rmmod $m with cgroups present" rmmod $m
	done
	check "io.efq.weight is gone after rmmod efq" test ! -e $CG/keep/io.efq.weight
	check "mkdir of a cgroup with efq unloaded" mkdir $CG/gone
	check "rmdir of a cgroup that had efq groups, after rmmod" cg_remove gone
	check "rmdir of a cgroup created with efq loaded, after rmmod" cg_remove lcb
	for m in $EFQ_MODULES; do
		check "insmod $m again" insmod /efq/$m.ko
	done
	check "io.efq.weight is back in an existing cgroup" test -f $CG/keep/io.efq.weight
	check "mkdir after insmod again" mkdir $CG/again
	check "io.efq.weight in a new cgroup after insmod again" test -f $CG/again/io.efq.weight
	for s in deadline-fq as noop; do
		check "$s selectable after insmod again" set_sched nullb2 $s
		# shellcheck disable=SC2046
		in_cg again /tmp/again.fio $(fiojob again nullb2 1)
		wait_pid $! 30 || fail "$s: fio after insmod again ends"
		check "$s: fio in a cgroup after insmod again" fio_ok /tmp/again.fio
	done
	set_sched nullb2 none
	check "cfq selectable after insmod again" set_sched nullb2 cfq
	set_sched nullb2 none
	for c in keep again; do cg_remove $c || fail "rmdir $c"; done
fi

# --- switching schedulers under running fio -------------------------------------
# First each efq scheduler alone, on a device of its own (none -> S -> none
# under IO), so that a scheduler which loses requests is named and leaves the
# other devices usable; then every scheduler after every other on nullb2.
cg_make lc
i=10
for s in noop deadline-fq as cfq; do
	nb_create $i $MID || fail "create nullb$i"
	# shellcheck disable=SC2046
	in_cg lc /tmp/sw$i.fio $(fiojob sw nullb$i 5)
	pid=$!
	sleep 1
	check "switch none -> $s under running fio" set_sched nullb$i $s
	sleep 1.5
	check "switch $s -> none under running fio" set_sched nullb$i none
	if wait_pid $pid 15; then
		check "$s: fio across the switches ends without an IO error" fio_ok /tmp/sw$i.fio
		nb_remove $i
	else
		fail "$s: fio across the switches ends within 15 s"
	fi
	i=$((i + 1))
done

nb_create 9 $MID || fail "create nullb9"
# shellcheck disable=SC2046
in_cg lc /tmp/sw.fio $(fiojob sw nullb9 9)
pid=$!
sleep 1
ok=0 n=0
for s in cfq deadline-fq as noop none mq-deadline bfq cfq noop bfq as none deadline-fq mq-deadline cfq; do
	n=$((n + 1))
	set_sched nullb9 $s
	case $? in
	0) ok=$((ok + 1)) ;;
	2) break ;;
	*) log "switch to $s under IO failed: $(cat /sys/block/nullb9/queue/scheduler)" ;;
	esac
	sleep 0.3
done
cond "$n scheduler switches under running fio took effect ($ok)" $ok = $n
if wait_pid $pid 20; then
	check "fio survived $n scheduler switches without an IO error" fio_ok /tmp/sw.fio
	nb_remove 9
else
	fail "fio across the switches ends within 20 s"
fi

# --- readers of the scheduler's files during switches ------------------------------
# debugfs sched/state and sched/service_trees (two readers), and the
# statistics files of the root cgroup (read through the device's scheduler)
# and of a child, read in loops while the scheduler changes 480 times under
# IO.  On 7.x the debugfs files outlive the scheduler's exit (they go once
# the switch is done) and the cgroup files print under rcu_read_lock()
# alone while the exit frees the groups: a reader that does not check that
# the scheduler is still efq's reads freed or another scheduler's memory
# (with the modules before the fix, on 7.2.12: a show spun on the next
# scheduler's data taken for efq's lock until the RCU stall panicked the
# kernel).
nb_create 8 $MID || fail "create nullb8"
# shellcheck disable=SC2046
in_cg lc /tmp/rd.fio $(fiojob rd nullb8 60)
pid=$!
rm -f /tmp/rd.stop /tmp/rd.dbg
# (the shell's own read: no fork per reading, so that the readings come
# fast enough to meet a switch between its steps)
for r in 1 2; do
	sh -c 'n=0; while [ ! -e /tmp/rd.stop ]; do read -r _ <$0/state; read -r _ <$0/service_trees; n=$((n + 1)); done 2>/dev/null; echo $n >>/tmp/rd.dbg' \
		$DBG/block/nullb8/sched &
	eval rp$r=\$!
done
sh -c 'n=0; while [ ! -e /tmp/rd.stop ]; do for f in io.efq.disk_time io.efq.disk_sectors lc/io.efq.disk_time lc/io.stat; do read -r _ <$0/$f; done; n=$((n + 1)); done 2>/dev/null; echo $n >/tmp/rd.cg' \
	$CG &
rp3=$!
ok=0 n=0 r=0
while [ $r -lt 60 ]; do
	for s in cfq none deadline-fq mq-deadline noop bfq as none; do
		n=$((n + 1))
		echo $s >/sys/block/nullb8/queue/scheduler 2>/dev/null && ok=$((ok + 1))
	done
	r=$((r + 1))
done
touch /tmp/rd.stop
for p in $rp1 $rp2 $rp3; do
	wait_pid $p 10 || fail "a reader of the scheduler's files ends"
done
cond "$n scheduler switches with the sched debugfs files and the cgroup statistics read in loops ($ok took effect; $(tr '\n' ' ' </tmp/rd.dbg 2>/dev/null)and $(cat /tmp/rd.cg 2>/dev/null) rounds of reads)" $ok = $n
kill $pid 2>/dev/null
if wait_pid $pid 20; then
	nb_remove 8
else
	fail "fio across the switches with the readers ends within 20 s"
fi

# --- two devices at once with different schedulers -------------------------------
for pair in "as noop" "deadline-fq bfq" "noop cfq" "cfq deadline-fq"; do
	a=${pair% *} b=${pair#* }
	set_sched nullb2 $a && set_sched nullb3 $b || fail "select $a on nullb2 and $b on nullb3"
	cg_make lcb
	# shellcheck disable=SC2046
	in_cg lc /tmp/two2.fio $(fiojob two2 nullb2 1)
	p2=$!
	# shellcheck disable=SC2046
	in_cg lcb /tmp/two3.fio $(fiojob two3 nullb3 1)
	p3=$!
	wait_pid $p2 15 || fail "fio on nullb2 ($a) ends"
	wait_pid $p3 15 || fail "fio on nullb3 ($b) ends"
	check "two devices at once: $a on nullb2 and $b on nullb3 (fio ok on both)" \
		sh -c ". /tests/lib.sh; fio_ok /tmp/two2.fio && fio_ok /tmp/two3.fio"
done

# --- rmdir of a cgroup with IO queued ----------------------------------------------
for s in $EFQ_SCHEDS; do
	set_sched nullb2 $s || fail "select $s on nullb2"
	cg_make rq
	# moved out while its requests are queued, then rmdir
	# shellcheck disable=SC2046
	in_cg rq /tmp/rq.fio $(fiojob rq nullb2 3)
	pid=$!
	sleep 1
	for p in $(cat $CG/rq/cgroup.procs); do echo $p >$CG/cgroup.procs; done
	check "$s: rmdir of a cgroup whose fio was just moved out (IO queued)" cg_remove rq
	wait_pid $pid 15 || fail "$s: fio moved out of a removed cgroup ends"
	check "$s: fio moved out of a removed cgroup finishes without error" fio_ok /tmp/rq.fio
	# killed, then rmdir as soon as it is empty
	cg_make rq
	# shellcheck disable=SC2046
	in_cg rq /tmp/rq.fio $(fiojob rq nullb2 10)
	pid=$!
	sleep 1
	for p in $(cat $CG/rq/cgroup.procs); do kill -9 $p; done
	check "$s: rmdir of a cgroup whose fio was killed with IO queued" cg_remove rq
	wait_pid $pid 15 || fail "$s: killed fio ends"
done
# shellcheck disable=SC2046,SC2091 # run the command fiojob prints
$(fiojob after nullb2 1) >/tmp/after.fio 2>&1
check "device still serves IO after the cgroup removals" fio_ok /tmp/after.fio

# --- removing a device with IO queued -------------------------------------------------
i=4
for s in $EFQ_SCHEDS; do
	nb_create $i $MID || fail "create nullb$i"
	set_sched nullb$i $s || fail "select $s on nullb$i"
	cg_make rm$i
	# shellcheck disable=SC2046
	in_cg rm$i /tmp/rm.fio $(fiojob rm nullb$i 20)
	pid=$!
	sleep 1
	(echo 0 >$CFS/nullb$i/power) 2>/dev/null &
	if ! wait_pid $! 15; then
		fail "$s: power off nullb$i with IO queued finishes within 15 s"
		echo 0 >/proc/sys/kernel/hung_task_panic
		blk_dump nullb$i
		kill -9 $pid
		i=$((i + 1))
		continue
	fi
	cond "$s: power off nullb$i with IO queued" "$WAIT_RC" = 0
	t=0
	while kill -0 $pid 2>/dev/null && [ $t -lt 100 ]; do
		sleep 0.1
		t=$((t + 1))
	done
	if kill -0 $pid 2>/dev/null; then
		fail "$s: fio ends within 10 s after its device is removed"
		kill -9 $pid
	else
		pass "$s: fio ends within 10 s after its device is removed"
	fi
	check "$s: /dev/nullb$i is gone" test ! -e /sys/block/nullb$i
	check "$s: rmdir of the device's configfs item" rmdir $CFS/nullb$i
	check "$s: rmdir of the cgroup that used the removed device" cg_remove rm$i
	i=$((i + 1))
done

cg_remove lc || fail "rmdir lc"
cg_remove lcb || fail "rmdir lcb"
nb_remove 2
nb_remove 3
