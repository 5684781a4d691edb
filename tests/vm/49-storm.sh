# SPDX-License-Identifier: GPL-2.0
# vmtest-budget: 330
#
# The aliased-read storm (issue 31 point 3) on the real kernel.  efqsim's
# storm found a cfq queue left busy with no request after the block core
# merged a request of one process into a request of another (a request
# merge never asks the scheduler and compares only the cgroup): the queue's
# next slice had nothing to dispatch (WARN_ON_ONCE(!rq) in
# cfq_dispatch_request), and the queue outlived the scheduler (a WARN in
# efq_data_exit, a leaked queue).  Here the same storm runs on Debian's
# kernel under every efq scheduler, hierarchical and flat, and under none,
# mq-deadline and bfq as controls.
#
# The storm: cgroup storm (weight 500) runs one fio of 4 sections x
# numjobs 25 = 100 processes, each an O_DIRECT sequential 64k reader
# (libaio, iodepth 16) looping over its section's MiB of the device's first
# 4 MiB (offsets 0, 1m, 2m, 3m, size 1m), so that 25 processes read the
# same sectors at once and their requests merge and alias.  Cgroup victim
# (weight 500) runs one 4k random reader (psync, thinktime 10 ms) on a
# region of its own (8-64 MiB).  io.efq.weight and io.bfq.weight are 500 in
# both.  Four checker loops in the storm's cgroup read their MiB again
# (O_DIRECT, 64k, every 0.3 s) among the storm's reads and compare it with
# what was written.
#
# The device: null_blk, memory-backed (the area holds random data written
# first), timer completions of 4 ms, depth 2, rotational (cfq and as idle),
# requests of up to 1 MiB (max_sectors 2048); nr_requests 256 (blk-mq
# gives a depth-2 device 4, which would keep the requests out of any
# scheduler's sight), none keeps its 2.  The request size matters: the bug
# needs a chain of merges (a read inserted behind another process's merges
# into it, and the grown request then swallows a third process's queued
# read).  With requests of at most 128 KiB (max_sectors 256: two 64k
# reads) there were 30-220 merges a run and the code before the fix passed
# (one boot, 6.1); at 1 MiB there are 1000-5000 a run under cfq, and the
# code before the fix printed cfq_dispatch_request's WARN in each of four
# boots on 6.1 (twice in the first cfq run, hierarchical, twice in the flat
# one; WARN_ON_ONCE: one a boot; one of the four without memory_backed).
# Under TCG the device completes 110-390 requests a second of the 500 its
# timer allows, with 128 KiB requests as with 1 MiB ones: the guest's CPU
# and its 100 fio processes, not the device, set the pace part of the
# time.  Without memory_backed the runs merge as much but read no data,
# which the checkers need.
#
# The scale: the original's 100 processes.  TCG runs them: the storm's fio
# takes 2-5 s to start them, a run takes 14-19 s, the file's twelve runs
# 170-230 s of guest time on the project's 2-core machine.  Fewer would
# save little (the start and fio's exit) and merge less.
#
# A run: the victim's fio starts first and waits in its prerun; the storm
# starts; once its reads show in io.stat, and 0.5 s later, the victim runs
# 5 s while the storm runs on (its runtime is 4 s longer).  Right after the
# victim ends, while the storm still runs, the scheduler is switched to none
# (from none to mq-deadline).  cfq, the only one with a queue per process
# and so the only one the bug reaches, runs three times: hierarchical,
# flat, and hierarchical again, the last run removing the device right
# after its storm ends instead of switching.  Request merges on the device
# are counted from the block_rq_merge trace event, up to the switch; under
# cfq there must be at least 200 (the premise: the bug's path is taken).
#
# Checks, per run: all 100 storm jobs, the checkers and the victim end
# without error and the victim completes reads; the checkers read back
# what was written; the switch completes within 10 s (set_sched); no
# kernel warning (dmesg_clean after each run).  The removal must complete
# within 20 s: a hang fails the check and marks the device dead (the
# power-off writer stays stuck, the VM goes on).  Fairness on fio's own
# figures, against the worst control of the same boot (the largest max
# latency, mq-deadline's in every boot; the lowest IOPS):
#   every efq run: the victim's max latency <= 6 x the worst control's
#     (flat mode has no groups: the victim is one queue of 101 and waits
#     for the others' turns; measured 0.29-2.94 x, cfq's the highest)
#   hierarchical: the victim's max latency <= the worst control's
#     (measured 0.05-0.13 x: it waits about one slice of the storm's
#     group, slice_sync 100 ms, at most) and its IOPS >= 2 x the worst
#     control's (measured 6-26 x)
# Measured in three boots, on 6.12.118 and 6.1.0-57 (the tables:
# Documentation/kernel/vmtest.rst): the victim's max latency under none
# 0.6-0.9 s, mq-deadline 1.0-1.1 s, bfq 0.02-0.09 s; efq hierarchical
# 0.06-0.13 s at 8-33 IOPS (bfq 49-63), flat 0.3-3.1 s at 0.5-3.3 IOPS.
# On the kernel command line (scripts/vm/vmtest --append), for trying
# other scales: vmtest.storm_jobs=N (numjobs per section), vmtest.storm_rt=S
# (the victim's seconds), vmtest.storm_nsec=NS (the completion time),
# vmtest.storm_only=S1,S2 (only those schedulers, and the removal run),
# vmtest.storm_ms=SECTORS (max_sectors), vmtest.storm_mem=0 (no
# memory_backed; the checkers then compare whatever the reads leave).

cd /tmp || return 0
D=nullb49
DN=49
karg() { sed -n "s/.*vmtest\.$1=\([^ ]*\).*/\1/p" /proc/cmdline; }
NJ=$(karg storm_jobs)
NJ=${NJ:-25}
RT=$(karg storm_rt)
RT=${RT:-5}
NSEC=$(karg storm_nsec)
NSEC=${NSEC:-4000000}
ONLY=$(karg storm_only)
# the bound of every efq run: K x the worst control's max latency
K_ALL=6
DEPTH=2
NRQ=256
SRT=$((RT + 4))
TR=/sys/kernel/tracing

MSEC=$(karg storm_ms)
MSEC=${MSEC:-2048}
MEM=$(karg storm_mem)
MEM=${MEM:-1}
ms=""
grep -qw max_sectors $CFS/features 2>/dev/null && ms=max_sectors=$MSEC
# shellcheck disable=SC2086
if ! nb_create $DN irqmode=2 completion_nsec=$NSEC hw_queue_depth=$DEPTH memory_backed=$MEM size=64 $ms; then
	fail "storm: create $D"
	nb_remove $DN
	return 0
fi
echo 1 >/sys/block/$D/queue/rotational
DEV=$(devnum $D)
log "storm: $D: memory_backed $MEM, max_sectors_kb $(cat /sys/block/$D/queue/max_sectors_kb), $((4 * NJ)) storm jobs, victim ${RT} s, completions ${NSEC} ns, depth $DEPTH"
cg_make storm
cg_make victim
for c in storm victim; do
	expect_ok "storm: io.efq.weight 500 for $c" $CG/$c/io.efq.weight 500
	[ -f $CG/$c/io.bfq.weight ] && expect_ok "storm: io.bfq.weight 500 for $c" $CG/$c/io.bfq.weight 500
done
[ -e $TR/trace ] || mount -t tracefs tracefs $TR 2>/dev/null
EV=$TR/events/block/block_rq_merge/enable
[ -w $EV ] || log "storm: no block_rq_merge event: request merges not counted"

# the storm's area: 4 MiB of random data, each MiB kept as the reference
check "storm: write the 4 MiB storm area" fio --name=fill --filename=/dev/$D --direct=1 --rw=write \
	--bs=64k --size=4m --minimal --output=/tmp/storm.fill
for k in 0 1 2 3; do
	dd if=/dev/$D of=/tmp/storm.ref$k iflag=direct bs=64k skip=$((16 * k)) count=16 2>/dev/null
done

# a checker (sh -c "$CHK" sh DEVICE K): reads MiB K of the area again and
# again (O_DIRECT, 64k, among the storm's readers, every 0.3 s) and
# compares it with the reference; prints its passes and mismatches
CHK='n=0 b=0
while [ ! -e /tmp/sdone ]; do
	dd if=$1 iflag=direct bs=64k skip=$(($2 * 16)) count=16 2>/dev/null | cmp -s - /tmp/storm.ref$2 || b=$((b + 1))
	n=$((n + 1))
	usleep 300000
done
echo $n $b'

storm_cmd() {
	echo fio --minimal --filename=/dev/$D --direct=1 --ioengine=libaio --rw=read --bs=64k \
		--iodepth=16 --numjobs=$NJ --time_based --runtime=$SRT \
		--name=s0 --offset=0 --size=1m --name=s1 --offset=1m --size=1m \
		--name=s2 --offset=2m --size=1m --name=s3 --offset=3m --size=1m
}

up() { cut -d' ' -f1 /proc/uptime; }
since() { awk -v a="$1" -v b="$(up)" 'BEGIN { printf "%.2f", b - a }'; }
# the device's completed reads and sectors read (stat fields 1 and 3)
devrd() { awk '{ print $1, $3 }' /sys/block/$D/stat; }

: >/tmp/storm.rows

# storm_run SCHED MODE NEXT: one storm under SCHED (MODE hier, flat or - for
# the controls); NEXT: the scheduler to switch to right after the victim,
# or "remove": remove the device right after the storm
storm_run() {
	_s=$1 _m=$2 _n=$3 _w="storm $1 $2"
	if ! set_sched $D $_s; then
		fail "$_w: select $_s"
		return
	fi
	case $_m in
	flat) expect_ok "$_w: iosched/hierarchical 0" /sys/block/$D/queue/iosched/hierarchical 0 ;;
	hier) expect_ok "$_w: iosched/hierarchical 1" /sys/block/$D/queue/iosched/hierarchical 1 ;;
	esac
	[ $_s = none ] || expect_ok "$_w: nr_requests $NRQ" /sys/block/$D/queue/nr_requests $NRQ
	rm -f /tmp/go /tmp/vgo /tmp/vready /tmp/sdone /tmp/storm.s /tmp/storm.v /tmp/storm.c?
	if [ -w $EV ]; then
		echo >$TR/trace
		echo 1 >$EV
	fi
	# the victim first: it waits in its prerun until the storm reads
	in_cg victim /tmp/storm.v fio --minimal --name=victim --filename=/dev/$D --direct=1 \
		--ioengine=psync --rw=randread --bs=4k --offset=8m --size=56m --thinktime=10ms \
		--time_based --runtime=$RT \
		--exec_prerun="sh -c 'touch /tmp/vready; while [ ! -e /tmp/vgo ]; do usleep 50000; done'"
	_pv=$!
	_t=0
	while [ ! -e /tmp/vready ] && [ $_t -lt 300 ]; do
		usleep 100000
		_t=$((_t + 1))
	done
	_r0=$(rios storm $DEV) _t0=$(up)
	# shellcheck disable=SC2046
	go_in_cg storm /tmp/storm.s $(storm_cmd)
	_ps=$!
	touch /tmp/go
	_t=0
	while [ "$(rios storm $DEV)" = "$_r0" ] && [ $_t -lt 300 ]; do
		usleep 100000
		_t=$((_t + 1))
	done
	_tst=$(since $_t0)
	_pcs=""
	for k in 0 1 2 3; do
		in_cg storm /tmp/storm.c$k sh -c "$CHK" sh /dev/$D $k
		_pcs="$_pcs $!"
	done
	# all of fio's jobs start together: let them get going
	usleep 500000
	# shellcheck disable=SC2046
	set -- $(devrd)
	_d0=$1 _s0=$2 _t1=$(up)
	touch /tmp/vgo
	if ! run_watched_pids $((RT + 60)) $D $_pv; then
		fail "$_w: the victim ends ($WATCH_WHAT)"
		touch /tmp/sdone
		kill -9 $_ps $_pcs 2>/dev/null
		return
	fi
	_vwin=$(since $_t1)
	# shellcheck disable=SC2046
	set -- $(devrd)
	_d1=$1 _s1=$2
	_busy=no
	kill -0 $_ps 2>/dev/null && _busy=yes
	# merges counted up to here: after the switch the storm runs on under
	# the next scheduler
	[ -w $EV ] && echo 0 >$EV
	_sw=-
	if [ "$_n" != remove ]; then
		_t2=$(up)
		if set_sched $D $_n; then
			_sw=$(since $_t2)
			pass "$_w: switch to $_n right after the victim (storm running: $_busy) completes in $_sw s"
		else
			fail "$_w: switch to $_n right after the victim (storm running: $_busy)"
		fi
	fi
	if ! run_watched_pids $((SRT + 60)) $D $_ps; then
		fail "$_w: the storm ends ($WATCH_WHAT)"
		touch /tmp/sdone
		kill -9 $_pcs 2>/dev/null
		return
	fi
	_tend=$(up)
	touch /tmp/sdone
	# shellcheck disable=SC2086
	wait_all 30 $_pcs || fail "$_w: the checkers end"
	if [ "$_n" = remove ]; then
		# removal right after the storm, cfq's groups and queues still there;
		# a stuck power-off must not panic the guest
		_htp=$(cat /proc/sys/kernel/hung_task_panic)
		echo 0 >/proc/sys/kernel/hung_task_panic
		nb_remove $DN &
		_pr=$!
		if wait_pid $_pr 20; then
			_sw=rm:$(since $_tend)
			cond "$_w: remove $D right after the storm: done in ${_sw#rm:} s" "$WAIT_RC" = 0
		else
			fail "$_w: remove $D right after the storm: still running after 20 s"
			touch /tmp/dead.$D
			blk_dump $D
			_htp=0
		fi
		echo "$_htp" >/proc/sys/kernel/hung_task_panic
	fi
	_mg=-
	[ -w $EV ] && _mg=$(grep -c " ${DEV%:*},${DEV#*:} " $TR/trace)
	_cn=$(cat /tmp/storm.c? | awk '{ n += $1 } END { print n + 0 }')
	_cb=$(cat /tmp/storm.c? | awk '{ b += $2 } END { print b + 0 }')
	_sn=$(grep -c '^3;' /tmp/storm.s)
	_se=$(fio_err /tmp/storm.s)
	# the victim: IOPS from the KiB read and the runtime; latencies (ms)
	# from the completion latency: mean, 99th percentile, max
	# shellcheck disable=SC2046
	set -- $(awk -F';' '$1 == 3 { split($30, p, "=")
		printf "%.1f %.1f %.1f %.1f %d", $9 ? $6 / 4 * 1000 / $9 : 0, $16 / 1000, p[2] / 1000, $15 / 1000, $6 }' \
		/tmp/storm.v) 0 0 0 0 0
	_vi=$1 _vme=$2 _vp=$3 _vmx=$4 _vkb=$5
	_dr=$(((_d1 - _d0)))
	_mbs=$(awk -v s=$((_s1 - _s0)) -v t="$_vwin" 'BEGIN { printf "%.1f", s * 512 / 1048576 / t }')
	log "$_w: storm reads from $_tst s after the go, $_sn jobs, error $_se; over the victim's ${_vwin} s: $_dr requests, $_mbs MiB/s from the device; storm running at its end: $_busy; request merges: $_mg"
	grep -v '^3;' /tmp/storm.s /tmp/storm.v | grep -v 'prerun' | head -n 5
	cond "$_w: all $((4 * NJ)) storm jobs end without error" "$_sn/$_se" = "$((4 * NJ))/0"
	[ $_s = cfq ] && [ "$_mg" != - ] &&
		cond "$_w: requests merge ($_mg block_rq_merge events, at least 200)" "$_mg" -ge 200
	cond "$_w: the checkers read the area back unchanged ($_cn passes, $_cb mismatches)" \
		"$_cn" -gt 0 -a "$_cb" = 0
	cond "$_w: the victim ends without error and completes reads ($_vkb KiB)" \
		"$(fio_ok /tmp/storm.v && [ "$_vkb" -gt 0 ] && echo ok)" = ok
	dmesg_clean "$_w"
	echo "$_s $_m $_vi $_vme $_vp $_vmx $_mbs $_mg $_sw $_busy" >>/tmp/storm.rows
}

for r in none:-:mq-deadline mq-deadline:-:none bfq:-:none \
	deadline-fq:hier:none as:hier:none noop:hier:none cfq:hier:none \
	deadline-fq:flat:none as:flat:none noop:flat:none cfq:flat:none cfq:hier:remove; do
	s=${r%%:*} m=${r#*:}
	m=${m%%:*}
	n=${r##*:}
	if [ -n "$ONLY" ] && ! echo ",$ONLY," | grep -q ",$s,"; then
		[ $n = remove ] || continue
	fi
	item "storm $s $m" || continue
	if grep -qw -- $s /sys/block/$D/queue/scheduler; then
		storm_run $s $m $n
	else
		log "storm: $s not available: not run"
	fi
done
[ -d $CFS/nullb$DN ] && nb_remove $DN

# the bounds, against the worst control of this boot
ctl=$(awk '$2 == "-" { if ($6 > mx) mx = $6; if (!n++ || $3 < lo) lo = $3 } END { if (n) print mx, lo }' /tmp/storm.rows)
if [ -z "$ctl" ]; then
	log "storm: no control ran in this boot: the bounds are not judged"
else
	set -- $ctl
	cmx=$1 cio=$2
	while read -r s m i me p mx rest; do
		[ "$m" = - ] && continue
		lim=$(awk -v c=$cmx -v k=$K_ALL 'BEGIN { printf "%.1f", c * k }')
		check "storm $s $m: the victim's max latency $mx ms is at most $K_ALL x the worst control's $cmx ms" \
			within "$mx" 0 "$lim"
		[ "$m" = hier ] || continue
		check "storm $s $m: the victim's max latency $mx ms is at most the worst control's $cmx ms" \
			within "$mx" 0 "$cmx"
		lim=$(awk -v c=$cio 'BEGIN { printf "%.1f", 2 * c }')
		check "storm $s $m: the victim's IOPS $i are at least 2 x the worst control's $cio" \
			within "$i" "$lim" 1000000
	done </tmp/storm.rows
fi

table_begin "storm: the victim (psync 4k randread, thinktime 10 ms, weight 500) next to $((4 * NJ)) aliased 64k readers (libaio, iodepth 16, weight 500) on a null_blk of ${NSEC} ns completions, depth $DEPTH; fio's figures; MiB/s from the device over the victim's run; merges: block_rq_merge events; switch: s to switch to none (mq-deadline) right after the victim, rm: to remove the device right after the storm"
printf '%-12s %-5s %7s %8s %8s %8s %7s %7s %8s\n' scheduler mode "v IOPS" "mean ms" "p99 ms" "max ms" "MiB/s" merges switch
while read -r s m i me p mx mb mg sw _; do
	printf '%-12s %-5s %7s %8s %8s %8s %7s %7s %8s\n' "$s" "$m" "$i" "$me" "$p" "$mx" "$mb" "$mg" "$sw"
done </tmp/storm.rows
table_end

[ -w $EV ] && echo 0 >$EV
cg_remove storm
cg_remove victim
