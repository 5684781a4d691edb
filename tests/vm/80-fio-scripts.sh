# SPDX-License-Identifier: GPL-2.0
#
# Smoke test of scripts/fio/ (the real-machine regression scripts) on a
# device-bound null_blk, raw device, SMOKE=1 (2 s runs, N in 1 2): each runs
# to the end and prints its table with one row per N.  One efq scheduler per
# script (the time budget): t1 under deadline-fq, t2 under noop, t3 under as.  NR_REQUESTS=64:
# the depth-2 device would leave the schedulers 4 requests.

D=nullb20
nb_slow 20 || fail "create $D"
for ts in t1-weighted-seq-readers:deadline-fq t2-rand-reader-vs-seq-readers:noop t3-rand-reader-vs-rand-writers:as; do
	t=${ts%:*} s=${ts#*:}
	if DEV=$D SCHED=$s SMOKE=1 RAW=1 NR_REQUESTS=64 sh /fio-scripts/$t >/tmp/$t.out 2>&1; then
		rows=$(grep -cE '^ +[0-9]+ \|' /tmp/$t.out)
		cond "scripts/fio/$t (SCHED=$s SMOKE=1) prints a row per N (2)" "$rows" = 2
	else
		fail "scripts/fio/$t (SCHED=$s SMOKE=1) runs"
	fi
	table_begin "scripts/fio/$t, DEV=$D SCHED=$s SMOKE=1 (smoke run on null_blk, not a measurement)"
	tail -n 4 /tmp/$t.out
	table_end
done
set_sched $D none
nb_remove 20

# scripts/fio/run-jobfile: an efqsim-style job file (cgroup=, cgroup_weight=)
# on the real kernel
D=nullb21
nb_slow 21 || fail "create $D"
cat >/tmp/pair.fio <<'JOB'
[global]
rw=randread
bs=4k
direct=1
ioengine=libaio
iodepth=8
runtime=2
time_based=1
size=1g

[heavy]
cgroup=efq-job/heavy
cgroup_weight=1000

[light]
cgroup=efq-job/light
cgroup_weight=500
offset=2g
JOB
if DEV=$D SCHED=deadline-fq RAW=1 NR_REQUESTS=64 sh /fio-scripts/run-jobfile /tmp/pair.fio >/tmp/pair.out 2>&1; then
	lines=$(grep -cE '^(heavy|light) +efq-job/' /tmp/pair.out)
	cond "scripts/fio/run-jobfile runs an efqsim job file with cgroup= in cgroup v2 (2 job lines)" "$lines" = 2
else
	fail "scripts/fio/run-jobfile runs an efqsim job file with cgroup= in cgroup v2"
	tail -n 5 /tmp/pair.out
fi
check "scripts/fio/run-jobfile removes the cgroups it made" test ! -e $CG/efq-job
table_begin "scripts/fio/run-jobfile /tmp/pair.fio, DEV=$D SCHED=deadline-fq (smoke run)"
tail -n 3 /tmp/pair.out
table_end
set_sched $D none
nb_remove 21
