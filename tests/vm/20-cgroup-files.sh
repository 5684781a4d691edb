# SPDX-License-Identifier: GPL-2.0
#
# The efq cgroup v2 files, read and written with good and bad values, in a
# child cgroup (the settings files are not in the root; the stat files are),
# io.stat's efq keys, the debugfs files, and that mkdir of a cgroup still
# works with efq loaded (a colliding cftype name breaks it silently).

D=nullb1
nb_create 1 irqmode=0 memory_backed=0 || fail "create null_blk device $D"
DEV=$(devnum $D)
set_sched $D cfq || fail "select cfq on $D"

check "mkdir of a new cgroup works with efq loaded" mkdir $CG/cf
C=$CG/cf
for f in weight ioprio_class policy disk_time disk_sectors disk_queue disk_dequeue; do
	check "child cgroup has io.efq.$f" test -f $C/io.efq.$f
done
for f in disk_time disk_sectors; do
	check "root cgroup has io.efq.$f" test -f $CG/io.efq.$f
done
for f in weight ioprio_class policy; do
	check "root cgroup has no io.efq.$f" test ! -e $CG/io.efq.$f
done
check "bfq's io.bfq.weight coexists with io.efq.weight" test -f $C/io.bfq.weight -a -f $C/io.efq.weight

# --- io.efq.weight -----------------------------------------------------------
W=$C/io.efq.weight
expect_read "io.efq.weight: reads 'default io.weight' (nothing written: io.weight's, x5)" $W "default io.weight"
expect_ok "io.efq.weight: write 800" $W 800
expect_read "io.efq.weight: N sets the default" $W "default 800"
expect_ok "io.efq.weight: write 'default 600'" $W "default 600"
expect_read "io.efq.weight: 'default N' sets the default" $W "default 600"
expect_ok "io.efq.weight: write '$DEV 300'" $W "$DEV 300"
expect_read "io.efq.weight: a device rule is listed" $W "default 600|$DEV 300"
expect_ok "io.efq.weight: write '$DEV default'" $W "$DEV default"
expect_read "io.efq.weight: 'MAJ:MIN default' drops the rule" $W "default 600"
expect_ok "io.efq.weight: write 100 (min)" $W 100
expect_ok "io.efq.weight: write 1000 (max)" $W 1000
expect_read "io.efq.weight: 1000 reads back" $W "default 1000"
for v in 99 1001 0 "default 99" "default 1001" "$DEV 99" "$DEV 1001" abc "default abc" "$DEV abc" "$DEV" "x:y 500"; do
	expect_err "io.efq.weight: '$v' is EINVAL" EINVAL $W "$v"
done
expect_read "io.efq.weight: unchanged after bad writes" $W "default 1000"
for v in "+500" "default +500" "+$DEV 500" "io.weight" "$DEV io.weight"; do
	expect_err "io.efq.weight: '$v' is EINVAL" EINVAL $W "$v"
done
expect_ok "io.efq.weight: 'default io.weight' hands the default back" $W "default io.weight"
expect_read "io.efq.weight: reads 'default io.weight' again" $W "default io.weight"
for v in "1:3 500" "254:250 500" "$(echo $DEV | cut -d: -f1):999 500"; do
	expect_err "io.efq.weight: '$v' (not an existing whole disk) is ENODEV" ENODEV $W "$v"
done
wr $W 500 >/dev/null

# --- io.efq.ioprio_class -------------------------------------------------------
P=$C/io.efq.ioprio_class
expect_read "io.efq.ioprio_class: reads 2 (BE)" $P 2
for v in 1 3 2; do
	expect_ok "io.efq.ioprio_class: write $v" $P $v
	expect_read "io.efq.ioprio_class: $v reads back" $P $v
done
for v in 0 4 -1 abc ""; do
	expect_err "io.efq.ioprio_class: '$v' is EINVAL" EINVAL $P "$v"
done
expect_read "io.efq.ioprio_class: unchanged after bad writes" $P 2

# --- io.efq.policy ---------------------------------------------------------------
Q=$C/io.efq.policy
expect_read "io.efq.policy: reads empty" $Q ""
expect_ok "io.efq.policy: write '$DEV 700 1'" $Q "$DEV 700 1"
expect_read "io.efq.policy: header and rule" $Q "$(printf 'dev\tweight\tclass|%s\t700\t1' $DEV)"
expect_read "io.efq.policy: the rule shows in io.efq.weight" $W "default 500|$DEV 700"
# weights are 100..1000 here as in io.efq.weight (V10 took 1..99 in
# io.policy only, an inconsistency of its patches)
expect_ok "io.efq.policy: write '$DEV 100 3' (min weight, IDLE)" $Q "$DEV 100 3"
expect_read "io.efq.policy: rule replaced" $Q "$(printf 'dev\tweight\tclass|%s\t100\t3' $DEV)"
for v in "$DEV 99 2" "$DEV 1 2" "$DEV 1001 2" "$DEV -1 2" "$DEV 500 0" "$DEV 500 4" "$DEV 500" "$DEV 500 2 1" "$DEV" abc "$DEV abc 2" "$DEV 500 abc"; do
	expect_err "io.efq.policy: '$v' is EINVAL" EINVAL $Q "$v"
done
for v in "1:3 500 2" "254:250 500 2"; do
	expect_err "io.efq.policy: '$v' (unknown device) is ENODEV" ENODEV $Q "$v"
done
expect_ok "io.efq.policy: write '$DEV 0 2' (delete)" $Q "$DEV 0 2"
expect_read "io.efq.policy: empty after delete" $Q ""
expect_read "io.efq.weight: no rule after the policy delete" $W "default 500"

# --- stats after IO in the child and in the root --------------------------------
FIO="fio --name=st --filename=/dev/$D --direct=1 --ioengine=libaio --rw=randread --bs=4k --iodepth=4 --runtime=1 --time_based --minimal"
in_cg cf /tmp/cf.fio $FIO
wait_pid $! 60 || fail "fio in the child cgroup ends"
check "fio in a child cgroup under cfq" fio_ok /tmp/cf.fio
# shellcheck disable=SC2086
$FIO >/tmp/root.fio 2>&1
check "fio in the root cgroup under cfq" fio_ok /tmp/root.fio
for f in disk_time disk_sectors disk_queue disk_dequeue; do
	v=$(cg_value cf io.efq.$f $DEV)
	cond "io.efq.$f of the child has '$DEV N' with N > 0 (N=$v)" "$v" -gt 0
done
for f in disk_time disk_sectors; do
	v=$(cg_value . io.efq.$f $DEV)
	cond "io.efq.$f of the root has '$DEV N' with N > 0 (N=$v)" "$v" -gt 0
	expect_err "io.efq.$f: writes fail (child)" any $C/io.efq.$f "$DEV 0"
	expect_err "io.efq.$f: writes fail (root)" any $CG/io.efq.$f "$DEV 0"
done
st=$(grep "^$DEV " $C/io.stat)
check "io.stat of the child: '$DEV ... efq.disk_time=MS efq.disk_sectors=N'" \
	sh -c "echo '$st' | grep -Eq ' efq\.disk_time=[0-9]+ efq\.disk_sectors=[0-9]+'"
echo "$st" | grep -q ' efq.disk_time=' || log "io.stat line: $st"

# --- debugfs ------------------------------------------------------------------------
S=$DBG/block/$D/sched
for f in state service_trees; do
	check "debugfs $S/$f exists" test -f $S/$f
	check "debugfs $S/$f reads" sh -c "cat $S/$f >/dev/null"
done
[ -f $S/state ] && log "$S/state: $(tr '\n' ' ' <$S/state | cut -c1-200)"

set_sched $D none
cg_remove cf || fail "rmdir the child cgroup"
check "rmdir of the child cgroup after IO" test ! -d $C
nb_remove 1

# --- io.weight drives efq (built-in mode: a patched kernel) ------------------------
# With iocost built (io.cost.qos in the root) io.weight is iocost's file and
# efq follows it through the notifier of the series' first patch; without
# iocost io.weight is efq's own file (io.efq.io_weight under cgroup v2's
# name).  Either way "W" or "default W" there becomes io.efq.io_weight's
# default, which efq applies as 5 x W (800: 4000) wherever no io.efq.weight
# was written (io.efq.weight then reads "default io.weight").  Debian's
# kernel with the modules has neither: there efq-weightd copies io.weight,
# and 25-io-weight.sh checks that the two files stay apart.
if [ $BUILTIN = 1 ]; then
	if [ -e $CG/io.cost.qos ]; then how="iocost's io.weight, notified"; else how="efq's own io.weight"; fi
	log "io.weight: $how"
	check "mkdir of a cgroup for io.weight" mkdir $CG/iow
	I=$CG/iow/io.weight
	E=$CG/iow/io.efq.weight
	F=$CG/iow/io.efq.io_weight
	check "io.weight present ($how)" test -f $I
	expect_read "io.weight: a new cgroup reads 'default 100' ($how)" $I "default 100"
	expect_read "io.efq.io_weight: a new cgroup follows 'default 100' ($how)" $F "default 100"
	expect_read "io.efq.weight: a new cgroup reads 'default io.weight' ($how)" $E "default io.weight"
	expect_ok "io.weight: write 'default 800' ($how)" $I "default 800"
	expect_read "io.weight: 'default 800' reads back ($how)" $I "default 800"
	expect_read "io.efq.io_weight: io.weight 'default 800' followed (efq applies 4000) ($how)" $F "default 800"
	expect_read "io.efq.weight: still 'default io.weight' ($how)" $E "default io.weight"
	expect_ok "io.weight: write 'default 100' ($how)" $I "default 100"
	expect_read "io.efq.io_weight: io.weight 'default 100' followed ($how)" $F "default 100"
	expect_ok "io.weight: write '800' ($how)" $I 800
	expect_read "io.efq.io_weight: io.weight '800' followed ($how)" $F "default 800"
	expect_ok "io.weight: write 10000 (max) ($how)" $I 10000
	expect_read "io.efq.io_weight: io.weight 10000 followed (efq applies 50000) ($how)" $F "default 10000"
	expect_ok "io.weight: write 1 (min) ($how)" $I 1
	expect_read "io.efq.io_weight: io.weight 1 followed (efq applies 5) ($how)" $F "default 1"
	for v in 0 10001 "default 0" abc; do
		expect_err "io.weight: '$v' is EINVAL ($how)" EINVAL $I "$v"
	done
	expect_read "io.efq.io_weight: unchanged after bad io.weight writes ($how)" $F "default 1"
	# a written io.efq.weight wins over io.weight until 'default io.weight'
	expect_ok "io.efq.weight: write 300 ($how)" $E 300
	expect_ok "io.weight: write 'default 800' over a written io.efq.weight ($how)" $I "default 800"
	expect_read "io.efq.weight: the written 300 still wins ($how)" $E "default 300"
	expect_read "io.efq.io_weight: io.weight is still followed ($how)" $F "default 800"
	expect_ok "io.efq.weight: write 'default io.weight' ($how)" $E "default io.weight"
	expect_read "io.efq.weight: the default follows io.weight again ($how)" $E "default io.weight"
	# a child cgroup's io.weight is its own
	check "mkdir of a child of that cgroup" sh -c "echo +io >$CG/iow/cgroup.subtree_control && mkdir $CG/iow/child"
	expect_read "io.efq.io_weight: the child starts at 'default 100' ($how)" $CG/iow/child/io.efq.io_weight "default 100"
	expect_ok "io.weight: write 'default 200' to the child ($how)" $CG/iow/child/io.weight "default 200"
	expect_read "io.efq.io_weight: the child follows its own 'default 200' ($how)" $CG/iow/child/io.efq.io_weight "default 200"
	expect_read "io.efq.io_weight: the parent unchanged ($how)" $F "default 800"
	check "rmdir of the child" cg_remove iow/child
	check "rmdir of the io.weight cgroup" cg_remove iow
fi
