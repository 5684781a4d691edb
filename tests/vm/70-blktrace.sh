# SPDX-License-Identifier: GPL-2.0
#
# blktrace while an efq scheduler runs: blkparse shows I (insert) and D
# (dispatch) events and efq's own messages ("efq ..." through
# blk_add_trace_msg, shown by blkparse as "m" lines).

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
	nm=$(awk '$6 == "m" && / efq/' /tmp/bt.txt | wc -l)
	cond "blktrace $s: I events in blkparse ($nI)" "$nI" -gt 0
	cond "blktrace $s: D events in blkparse ($nD)" "$nD" -gt 0
	cond "blktrace $s: efq messages in blkparse ($nm)" "$nm" -gt 0
	log "blktrace $s: events by action: $(awk '{ n[$6]++ } END { for (a in n) printf "%s=%d ", a, n[a] }' /tmp/bt.txt)"
	log "blktrace $s: first efq message: $(awk '$6 == "m" && / efq/' /tmp/bt.txt | head -n 1)"
done
set_sched $D none
cg_remove btc
cg_remove btd
nb_remove 8
