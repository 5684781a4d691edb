# SPDX-License-Identifier: GPL-2.0
#
# The per-group request cap (nr_group_requests) holds on the real kernel.
# A group that holds nr_group_requests requests (queued or in flight) gets
# a shallow depth that leaves it about one scheduler tag per word of the tag
# map (efq_limit_depth(); 6.1's sbitmap applies the depth per word, 6.12's
# to the whole map, efq_shallow_one_per_word()), so its submitters wait for
# tags while other groups still find them.
#
# The device: null_blk with 25 ms timer completions and depth 64, so that
# the device never limits a group: a job's IOPS is the number of requests
# it has at the device / 25 ms (1280 IOPS for 32: little enough for the
# guest's CPU under TCG).  nr_requests 64 (4 words of 16 tags).
# Group a runs random reads at iodepth 32; group b reads at iodepth 1 (a
# cap only applies while there is another group).  Under each efq
# scheduler, hierarchical, a's IOPS with nr_group_requests 4 against its
# IOPS with nr_group_requests 64 (no cap for a 32-deep job; cfq's quantum
# raised to 64 so that its own per-queue limit does not hide the cap):
#   capped/uncapped <= 0.5: the cap holds (4 requests plus about one tag
#     per word: 4 to 8 of a's 32 reach the device, a ratio of 0.12-0.25)
#   capped/uncapped >= 0.08: the cap leaves the group its requests (a group
#     that got one tag in all would be at about 0.03-0.15 -- not told apart
#     from the cap itself: the 6.12 depth is checked in efqsim and by
#     reading 6.12's sbitmap, see efq-kernel.rst)
# Both runs' b jobs must complete IO.

D=nullb8
RT=${GREQ_RUNTIME:-4}
if ! nb_create 8 irqmode=2 completion_nsec=25000000 hw_queue_depth=64 memory_backed=0; then
	fail "group requests: create $D"
	nb_remove 8
	return 0
fi
cg_make greq-a
cg_make greq-b
: >/tmp/greq.rows

# greq_run SCHED CAP: a's IOPS in GREQ_IOPS
greq_run() {
	GREQ_IOPS=0
	_ios=/sys/block/$D/queue/iosched
	expect_ok "group requests: $1 nr_requests 64" /sys/block/$D/queue/nr_requests 64
	expect_ok "group requests: $1 nr_group_requests $2" $_ios/nr_group_requests $2
	# cfq's own limit on a queue's requests at the device (quantum, 4)
	# would hide the cap
	[ -f $_ios/quantum ] && expect_ok "group requests: $1 quantum 64" $_ios/quantum 64
	rm -f /tmp/go
	go_in_cg greq-a /tmp/greq.a fio --name=a --filename=/dev/$D --direct=1 --ioengine=libaio \
		--rw=randread --bs=4k --size=1g --iodepth=32 --time_based --runtime=$RT --minimal
	_pa=$!
	go_in_cg greq-b /tmp/greq.b fio --name=b --filename=/dev/$D --direct=1 --ioengine=libaio \
		--rw=randread --bs=4k --offset=1g --size=1g --iodepth=1 --time_based --runtime=$RT --minimal
	_pb=$!
	touch /tmp/go
	if ! wait_all $((RT + 40)) $_pa $_pb; then
		fail "group requests: $1 cap $2: both jobs end within $((RT + 40)) s"
		return
	fi
	cond "group requests: $1 cap $2: both jobs end without error, b completes IO" \
		"$(fio_ok /tmp/greq.a && fio_ok /tmp/greq.b && [ "$(fio_iops /tmp/greq.b)" -gt 0 ] && echo ok)" = ok
	GREQ_IOPS=$(fio_iops /tmp/greq.a)
}

for s in $EFQ_SCHEDS; do
	if ! set_sched $D $s; then
		fail "group requests: select $s"
		continue
	fi
	expect_read "group requests: $s is hierarchical" /sys/block/$D/queue/iosched/hierarchical 1
	greq_run $s 64
	free=$GREQ_IOPS
	greq_run $s 4
	capped=$GREQ_IOPS
	r=$(ratio "$capped" "$free")
	echo "$s $free $capped $r" >>/tmp/greq.rows
	check "group requests: $s: a 32-deep group capped at 4 requests gets 0.08-0.5 of its uncapped IOPS ($capped vs $free: $r)" \
		within "$r" 0.08 0.5
	set_sched $D none >/dev/null
done
table_begin "group requests: group a (iodepth 32) with nr_group_requests 64 and 4, next to group b (iodepth 1); 25 ms device, depth 64"
printf '%-12s %12s %12s %8s\n' scheduler "IOPS cap 64" "IOPS cap 4" ratio
while read -r s f c r; do
	printf '%-12s %12s %12s %8s\n' "$s" "$f" "$c" "$r"
done </tmp/greq.rows
table_end
cg_remove greq-a
cg_remove greq-b
nb_remove 8
