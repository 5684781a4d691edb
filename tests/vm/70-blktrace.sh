# SPDX-License-Identifier: GPL-2.0
#
# blktrace while an efq scheduler runs: blkparse shows I (insert) and D
# (dispatch) events and efq's own messages ("efq ..." through
# blk_add_trace_msg, shown by blkparse as "m" lines).

D=nullb8
nb_create 8 irqmode=2 completion_nsec=200000 hw_queue_depth=4 memory_backed=0 ||
	fail "create $D"
cg_make btc
for s in deadline-fq cfq; do
	set_sched $D $s || fail "blktrace: select $s"
	rm -f /tmp/bt.blktrace.*
	blktrace -d /dev/$D -o bt -D /tmp >/tmp/blktrace.out 2>&1 &
	bt=$!
	sleep 1
	in_cg btc /tmp/bt.fio fio --name=bt --filename=/dev/$D --direct=1 --ioengine=libaio \
		--rw=randread --bs=4k --iodepth=8 --runtime=1 --time_based --minimal
	wait_pid $! 60 || fail "fio under $s ends"
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
	log "blktrace $s: first efq message: $(awk '$6 == "m" && / efq/' /tmp/bt.txt | head -n 1)"
done
set_sched $D none
cg_remove btc
nb_remove 8
