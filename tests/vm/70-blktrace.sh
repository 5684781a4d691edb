# SPDX-License-Identifier: GPL-2.0
#
# blktrace while an efq scheduler runs: blkparse shows I (insert) and D
# (dispatch) events, and the trace holds efq's own messages ("efq ..."
# through blk_add_trace_msg; see below for why they are counted in the
# binary trace).

D=nullb8
nb_create 8 irqmode=2 completion_nsec=200000 hw_queue_depth=4 memory_backed=0 ||
	fail "create $D"
cg_make btc
cg_make btd
for s in deadline-fq cfq; do
	set_sched $D $s || fail "blktrace: select $s"
	rm -f /tmp/bt.blktrace.*
	blktrace -d /dev/$D -o bt -D /tmp >/tmp/blktrace.out 2>&1 &
	bt=$!
	sleep 1
	# two cgroups, so that the engine has groups to switch between
	in_cg btc /tmp/bt.fio fio --name=bt --filename=/dev/$D --direct=1 --ioengine=libaio \
		--rw=randread --bs=4k --iodepth=8 --runtime=1 --time_based --minimal
	p1=$!
	in_cg btd /tmp/bt2.fio fio --name=bt2 --filename=/dev/$D --direct=1 --ioengine=libaio \
		--rw=randread --bs=4k --iodepth=8 --runtime=1 --time_based --minimal --offset=2g
	wait_pid $p1 30 || fail "fio under $s ends"
	wait_pid $! 30 || fail "fio under $s ends (second cgroup)"
	sleep 0.3
	kill -INT $bt
	wait $bt
	blkparse -i bt -D /tmp -q >/tmp/bt.txt 2>/dev/null
	nI=$(awk '$6 == "I"' /tmp/bt.txt | wc -l)
	nD=$(awk '$6 == "D"' /tmp/bt.txt | wc -l)
	# The messages: 6.1 tags every note with a cgroup id (__BLK_TN_CGROUP
	# in the action), which Debian's blkparse 1.2.0 does not know and
	# skips, so count them in the binary trace.
	nm=$(cat /tmp/bt.blktrace.* | strings | grep -c '^efq')
	nbp=$(awk '$6 == "m" && / efq/' /tmp/bt.txt | wc -l)
	log "blktrace $s: efq messages: $nm in the trace, $nbp shown by blkparse $(blkparse -V 2>&1 | head -n 1)"
	cond "blktrace $s: I events in blkparse ($nI)" "$nI" -gt 0
	cond "blktrace $s: D events in blkparse ($nD)" "$nD" -gt 0
	cond "blktrace $s: efq messages in the trace ($nm)" "$nm" -gt 0
	log "blktrace $s: events by action: $(awk '{ n[$6]++ } END { for (a in n) printf "%s=%d ", a, n[a] }' /tmp/bt.txt)"
	log "blktrace $s: first efq message: $(awk '$6 == "m" && / efq/' /tmp/bt.txt | head -n 1)"
done
set_sched $D none
cg_remove btc
cg_remove btd
nb_remove 8
