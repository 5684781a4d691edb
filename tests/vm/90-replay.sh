# SPDX-License-Identifier: GPL-2.0
#
# The capture half of the replay check: does `efqsim replay` predict what
# the kernel does?  On the device-bound null_blk of 40-fairness (4 ms timer
# completions, depth 2, rotational), under each of ${REPLAY_SCHEDS} (default
# deadline-fq and cfq) with nr_requests 64, cgroups rhi and rlo run the same
# closed-loop job (libaio randread 4k, iodepth 8, at different offsets):
#   1. at weights 500:500, recorded with blktrace (queue and complete
#      events; each record carries its cgroup id when the blk tracer's
#      blk_cgroup option is on, which this file turns on);
#   2. at weights 1000:500, measured: the reads each cgroup completed over a
#      window while both ran (io.stat rios), as 40-fairness does.
# The figures go to the console as REPLAY lines, the trace as a base64 tar.gz
# between "REPLAY TRACE" and "REPLAY END", one block per scheduler.  The host (scripts/vm/replay-check,
# run by scripts/vm/vmtest) replays the 500:500 trace in efqsim at 1000:500
# and checks the predicted shares against the measured ones.

D=nullb9
REC=${REPLAY_RECORD:-8}
WIN=${REPLAY_WINDOW:-6}
NR=64
nb_slow 9 || fail "replay: create the slow device $D"
DEV=$(devnum $D)
cg_make rhi
cg_make rlo

# Each record's cgroup id: blktrace adds it when the blk tracer's option
# blk_cgroup is set; the option outlives a switch of the tracer back to nop
# (which blktrace's own recording needs: with the blk tracer current, the
# events would go to ftrace's buffer instead).
T=/sys/kernel/tracing
[ -e $T/current_tracer ] || mount -t tracefs tracefs $T
check "replay: blk_cgroup option of the blk tracer on" \
	sh -c "echo blk > $T/current_tracer && echo 1 > $T/options/blk_cgroup && echo nop > $T/current_tracer"

job() { # NAME OFFSET SECONDS
	echo fio --name=$1 --filename=/dev/$D --direct=1 --ioengine=libaio --rw=randread --bs=4k \
		--iodepth=8 --offset=$2 --size=1g --runtime=$3 --time_based --minimal
}

# pair WEIGHT_HI WEIGHT_LO SECONDS SKIP WINDOW: run the job in both cgroups
# (started together), count each cgroup's reads from SKIP s after both have
# completed a read for WINDOW s into $NH and $NL; the pids of each cgroup into $PIDS_HI and
# $PIDS_LO (read while the jobs run)
pair() {
	expect_ok "replay $S: io.efq.weight $1 for rhi" $CG/rhi/io.efq.weight $1
	expect_ok "replay $S: io.efq.weight $2 for rlo" $CG/rlo/io.efq.weight $2
	rm -f /tmp/go
	# shellcheck disable=SC2046
	go_in_cg rhi /tmp/rhi.fio $(job rhi 0 $(($3 + 1)))
	_ph=$!
	# shellcheck disable=SC2046
	go_in_cg rlo /tmp/rlo.fio $(job rlo 2g $(($3 + 1)))
	_pl=$!
	sleep 0.3
	_h0=$(rios rhi $DEV) _l0=$(rios rlo $DEV)
	touch /tmp/go
	# SKIP counts from when both read: fio's job processes (whose pids the
	# trace records) exist only then
	both_read $DEV rhi "$_h0" rlo "$_l0" || fail "replay $S: both jobs read within 30 s"
	sleep $4
	_h0=$(rios rhi $DEV) _l0=$(rios rlo $DEV)
	PIDS_HI=$(cat $CG/rhi/cgroup.procs) PIDS_LO=$(cat $CG/rlo/cgroup.procs)
	sleep $5
	NH=$(($(rios rhi $DEV) - _h0)) NL=$(($(rios rlo $DEV) - _l0))
	wait_pid $_ph 20 || fail "replay $S: fio in rhi ends"
	wait_pid $_pl 20 || fail "replay $S: fio in rlo ends"
	if fio_ok /tmp/rhi.fio && fio_ok /tmp/rlo.fio; then
		pass "replay $S: fio ran in both groups at $1:$2"
	else
		fail "replay $S: fio ran in both groups at $1:$2"
		tail -n 3 /tmp/rhi.fio /tmp/rlo.fio
	fi
}

for S in ${REPLAY_SCHEDS:-deadline-fq cfq}; do
	if ! set_sched $D "$S"; then
		fail "replay: select $S on $D"
		continue
	fi
	echo $NR >/sys/block/$D/queue/nr_requests || fail "replay $S: nr_requests $NR"

	# 1. the recording at 500:500
	rm -rf /tmp/rp
	mkdir -p /tmp/rp
	blktrace -d /dev/$D -a queue -a complete -o rp -D /tmp/rp >/tmp/rp.out 2>&1 &
	bt=$!
	sleep 1
	pair 500 500 $REC 1 $((REC - 2))
	RH=$NH RL=$NL
	RPH=$PIDS_HI RPL=$PIDS_LO
	sleep 0.3
	kill -INT $bt
	wait_pid $bt 20 || fail "replay $S: blktrace ends"
	cond "replay $S: blktrace wrote the trace" -s /tmp/rp/rp.blktrace.0

	# 2. the measurement at 1000:500
	pair 1000 500 $((WIN + 3)) 2 $WIN
	cond "replay $S: both groups completed reads at 1000:500 ($NH, $NL)" $((NH > 0 && NL > 0)) = 1

	# 3. to the host
	tar -C /tmp/rp -cf /tmp/rp.tar . && gzip -9 -f /tmp/rp.tar
	echo "REPLAY BEGIN $S"
	echo "REPLAY SETUP scheduler=$S completion_nsec=${SLOW_NSEC:-4000000} hw_queue_depth=${SLOW_DEPTH:-2} rotational=$(cat /sys/block/$D/queue/rotational) nr_requests=$NR"
	for p in $RPH; do echo "REPLAY MAP $p rhi"; done
	for p in $RPL; do echo "REPLAY MAP $p rlo"; done
	echo "REPLAY CGROUP $(stat -c %i $CG/rhi) rhi"
	echo "REPLAY CGROUP $(stat -c %i $CG/rlo) rlo"
	echo "REPLAY RECORDED 500 500 $RH $RL"
	echo "REPLAY MEASURED 1000 500 $NH $NL $WIN"
	echo "REPLAY TRACE $(sha256sum </tmp/rp.tar.gz | cut -d' ' -f1) $(wc -c </tmp/rp.tar.gz)"
	base64 </tmp/rp.tar.gz
	echo "REPLAY END"
	log "replay $S: trace $(du -k /tmp/rp | cut -f1) KiB ($(wc -c </tmp/rp.tar.gz) bytes gzipped); reads rhi/rlo at 500:500 $RH/$RL, at 1000:500 $NH/$NL"
done

set_sched $D none
cg_remove rhi || fail "rmdir rhi"
cg_remove rlo || fail "rmdir rlo"
nb_remove 9
