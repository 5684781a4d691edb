# SPDX-License-Identifier: GPL-2.0
#
# Overhead: IOPS of each scheduler on a FAST null_blk (completions inline,
# depth 64, fio iodepth 64) as a ratio to none.  Under TCG the absolute
# numbers mean nothing; the table is printed, only "fio ran" is checked.

D=nullb7
nb_create 7 irqmode=0 hw_queue_depth=64 memory_backed=0 || fail "create the fast device $D"
cg_make ovh
RT=${OVH_RUNTIME:-3}
rows="" base=""
for s in none mq-deadline bfq deadline-fq as noop cfq; do
	if ! set_sched $D $s; then
		fail "overhead: select $s"
		continue
	fi
	in_cg ovh /tmp/ovh.fio fio --name=ovh --filename=/dev/$D --direct=1 --ioengine=libaio \
		--rw=randread --bs=4k --iodepth=64 --runtime=$RT --time_based --minimal
	wait_pid $! 60 || fail "fio under $s ends"
	check "overhead: fio under $s" fio_ok /tmp/ovh.fio
	iops=$(fio_iops /tmp/ovh.fio)
	[ $s = none ] && base=$iops
	rows="$rows$(printf '%-12s %10s %12s' $s "$iops" "$(ratio "$iops" "$base")")
"
done
set_sched $D none
table_begin "overhead: randread 4k, iodepth 64, ${RT} s, fast null_blk (TCG: compare ratios only)"
printf '%-12s %10s %12s\n' scheduler IOPS "ratio to none"
printf '%s' "$rows"
table_end
cg_remove ovh
nb_remove 7
