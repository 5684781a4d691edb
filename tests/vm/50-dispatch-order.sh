# SPDX-License-Identifier: GPL-2.0
#
# Flat deadline-fq dispatches in mq-deadline's order.  Depth-1 null_blk; the
# same fio job (mixed random reads and writes, fixed seed) under both; blktrace
# records the D (dispatch) events; the sequences of (sector, R/W) must be equal.
#
# Why exact equality can be asked for: fio submits its 16 IOs in one
# io_submit() and reaps all 16 before the next batch
# (iodepth_batch_submit=16, iodepth_batch_complete_min=16).  io_submit plugs,
# so each batch reaches the scheduler in one insert, before the first
# dispatch of the batch; from then on the order depends only on the batch
# and on the scheduler's state (sort position, batch counters, direction,
# starvation count), not on timing.  The FIFO deadlines (500 ms / 5 s) are
# far longer than a batch takes.  nr_requests is raised to 64 (blk-mq gives a
# depth-1 device 2 scheduler tags, which would leave nothing to sort).
# The fraction of identical positions is printed as well.

D=nullb6
nb_create 6 irqmode=2 completion_nsec=100000 hw_queue_depth=1 memory_backed=0 ||
	fail "create the depth-1 device $D"
IOS=/sys/block/$D/queue/iosched
N=${ORDER_IOS:-768}

# mq-deadline twice: the method must give mq-deadline's own order back
# exactly, or a difference from deadline-fq would prove nothing.
for run in mq-deadline mq-deadline.2 deadline-fq; do
	s=${run%.2}
	if ! set_sched $D $s; then
		fail "dispatch order: select $s"
		continue
	fi
	if [ $s = deadline-fq ]; then
		expect_ok "dispatch order: deadline-fq hierarchical=0 (flat) while idle" $IOS/hierarchical 0
		expect_read "dispatch order: deadline-fq is flat" $IOS/hierarchical 0
	fi
	expect_ok "dispatch order: $s nr_requests 64" /sys/block/$D/queue/nr_requests 64
	rm -f /tmp/ord.blktrace.*
	blktrace -d /dev/$D -o ord -D /tmp >/tmp/blktrace.out 2>&1 &
	bt=$!
	sleep 1
	fio --name=ord --filename=/dev/$D --direct=1 --ioengine=libaio --rw=randrw --rwmixread=60 \
		--bs=4k --size=2g --iodepth=16 --iodepth_batch_submit=16 --iodepth_batch_complete_min=16 \
		--randrepeat=1 --randseed=4242 --number_ios=$N --minimal >/tmp/ord.fio 2>&1
	check "dispatch order: fio under $s" fio_ok /tmp/ord.fio
	sleep 0.5
	kill -INT $bt
	wait $bt
	blkparse -i ord -D /tmp -q -f '%a %d %S\n' 2>/dev/null |
		awk '$1 == "D" { print $3, substr($2, 1, 1) }' >/tmp/ord.$run
	n=$(wc -l </tmp/ord.$run)
	cond "dispatch order: $run: $n D events from blktrace (>= $N)" "$n" -ge "$N"
	set_sched $D none
done
if cmp -s /tmp/ord.mq-deadline /tmp/ord.mq-deadline.2; then
	pass "dispatch order: the method reproduces mq-deadline's order exactly (two runs)"
else
	fail "dispatch order: the method reproduces mq-deadline's order exactly (two runs)"
fi
[ -f $IOS/hierarchical ] && echo 1 >$IOS/hierarchical
set_sched $D none

if [ -s /tmp/ord.mq-deadline ] && [ -s /tmp/ord.deadline-fq ]; then
	same=$(paste -d' ' /tmp/ord.mq-deadline /tmp/ord.deadline-fq |
		awk '{ n++; if ($1 == $3 && $2 == $4) s++ } END { printf "%d/%d (%.1f%%)", s, n, n ? 100 * s / n : 0 }')
	log "dispatch order: identical positions $same"
	if cmp -s /tmp/ord.mq-deadline /tmp/ord.deadline-fq; then
		pass "dispatch order: flat deadline-fq = mq-deadline on a depth-1 device ($(wc -l </tmp/ord.mq-deadline) dispatches, identical positions $same)"
	else
		fail "dispatch order: flat deadline-fq = mq-deadline on a depth-1 device (identical positions $same)"
		paste -d' ' /tmp/ord.mq-deadline /tmp/ord.deadline-fq |
			awk '!($1 == $3 && $2 == $4) && !f { f = NR }
			     f && NR < f + 12 { print "dispatch order: #" NR ": mq-deadline " $1 " " $2 ", deadline-fq " $3 " " $4 }'
	fi
	# Not a tautology: the sequence must not be plain submission (FIFO)
	# order, which both would match if neither sorted.
	sorted=$(awk 'NR > 1 && $1 > p { up++ } { p = $1 } END { print up + 0 }' /tmp/ord.mq-deadline)
	log "dispatch order: $sorted of $(wc -l </tmp/ord.mq-deadline) dispatches move up in sector"
fi
nb_remove 6
