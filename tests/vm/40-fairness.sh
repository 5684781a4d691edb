# SPDX-License-Identifier: GPL-2.0
#
# Fairness on a device that is the bottleneck (null_blk, timer completions of
# 4 ms, depth 2, rotational so cfq idles as on a disk): cgroups hi and lo with
# weights 1000 and 500 run the same random-read job at different offsets.
#   efq schedulers: io.efq.disk_time delta ratio 2.0 +/- 0.3, IOPS ratio 1.6..2.5
#   none (the control): IOPS ratio 0.8..1.25
#   bfq (io.bfq.weight 1000/500): printed for comparison
# The schedulers run in their default (hierarchical) mode, with nr_requests
# 64 (blk-mq's default for a depth-2 device is 4 scheduler tags, too few for
# a scheduler to choose among two groups' 16 requests).
#
# Both are measured over the same window while both jobs surely run (from
# 2 s after the start for ${FAIR_WINDOW:-4} s): IOPS from the rios of each
# cgroup's io.stat, disk time from io.efq.disk_time.  fio's own IOPS would
# include the seconds in which only one job runs: under TCG on a loaded host
# the two fio processes start up to a second apart.

D=nullb5
nb_slow 5 || fail "create the slow device $D"
DEV=$(devnum $D)
WIN=${FAIR_WINDOW:-4}
RT=$((WIN + 3))
cg_make hi
cg_make lo
# the settings live in the cgroups and outlive the scheduler switches below
expect_ok "fairness: io.efq.weight 1000 for hi" $CG/hi/io.efq.weight 1000
expect_ok "fairness: io.efq.weight 500 for lo" $CG/lo/io.efq.weight 500
expect_ok "fairness: io.bfq.weight 1000 for hi" $CG/hi/io.bfq.weight 1000
expect_ok "fairness: io.bfq.weight 500 for lo" $CG/lo/io.bfq.weight 500

job() { # NAME OFFSET
	echo fio --name=$1 --filename=/dev/$D --direct=1 --ioengine=libaio --rw=randread --bs=4k \
		--iodepth=8 --offset=$2 --size=1g --runtime=$RT --time_based --minimal
}

rows=""
for s in deadline-fq as noop none bfq cfq; do
	if ! set_sched $D $s; then
		fail "fairness: select $s on $D"
		continue
	fi
	# blk-mq gives a depth-2 device 4 scheduler tags: the 16 requests would
	# mostly wait for a tag, in arrival order, where no scheduler sees them
	[ $s = none ] || echo 64 >/sys/block/$D/queue/nr_requests ||
		fail "fairness $s: nr_requests 64"
	rm -f /tmp/go
	# shellcheck disable=SC2046
	go_in_cg hi /tmp/hi.fio $(job hi 0)
	ph=$!
	# shellcheck disable=SC2046
	go_in_cg lo /tmp/lo.fio $(job lo 2g)
	pl=$!
	sleep 0.3
	touch /tmp/go
	sleep 2
	h0=$(cg_value hi io.efq.disk_time $DEV) l0=$(cg_value lo io.efq.disk_time $DEV)
	rh0=$(rios hi $DEV) rl0=$(rios lo $DEV)
	sleep $WIN
	h1=$(cg_value hi io.efq.disk_time $DEV) l1=$(cg_value lo io.efq.disk_time $DEV)
	rh1=$(rios hi $DEV) rl1=$(rios lo $DEV)
	wait_pid $ph 20 || fail "fairness $s: fio in hi ends"
	wait_pid $pl 20 || fail "fairness $s: fio in lo ends"
	[ -f $DBG/block/$D/sched/service_trees ] &&
		log "fairness $s: service_trees: $(grep '^group' $DBG/block/$D/sched/service_trees | tr '\n' ';')"
	if fio_ok /tmp/hi.fio && fio_ok /tmp/lo.fio; then
		pass "fairness $s: fio ran in both groups"
	else
		fail "fairness $s: fio ran in both groups"
		tail -n 3 /tmp/hi.fio /tmp/lo.fio
	fi
	ih=$(((rh1 - rh0) / WIN))
	il=$(((rl1 - rl0) / WIN))
	r=$(ratio $((rh1 - rh0)) $((rl1 - rl0)))
	case $s in
	none)
		w="-"
		dr="-"
		if within "$r" 0.8 1.25; then pass "fairness none (control): IOPS ratio $r in 0.8..1.25"; else fail "fairness none (control): IOPS ratio $r in 0.8..1.25 (hi $ih, lo $il)"; fi
		;;
	bfq)
		w="1000/500 (io.bfq.weight)"
		dr="-"
		;;
	*)
		w="1000/500"
		dh=$((h1 - h0))
		dl=$((l1 - l0))
		dr=$(ratio $dh $dl)
		if within "$dr" 1.7 2.3; then pass "fairness $s: io.efq.disk_time ratio $dr in 1.7..2.3 ($dh/$dl ms)"; else fail "fairness $s: io.efq.disk_time ratio $dr in 1.7..2.3 ($dh/$dl ms)"; fi
		if within "$r" 1.6 2.5; then pass "fairness $s: IOPS ratio $r in 1.6..2.5 ($ih/$il)"; else fail "fairness $s: IOPS ratio $r in 1.6..2.5 ($ih/$il)"; fi
		;;
	esac
	rows="$rows$(printf '%-12s %-26s %8s %8s %6s %15s' "$s" "$w" "$ih" "$il" "$r" "$dr")
"
done
set_sched $D none

table_begin "fairness: weights hi/lo, same randread 4k job (libaio, iodepth 8) per group, device-bound null_blk; IOPS and disk time over the same ${WIN} s window"
printf '%-12s %-26s %8s %8s %6s %15s\n' scheduler weights "IOPS hi" "IOPS lo" ratio "disk_time ratio"
printf '%s' "$rows"
table_end

cg_remove hi || fail "rmdir hi"
cg_remove lo || fail "rmdir lo"
nb_remove 5
