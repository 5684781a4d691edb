# SPDX-License-Identifier: GPL-2.0
# vmtest-budget: 360
# vmtest-disks-full
#
# Weights on the disks users have (issue 33): qemu's NVMe (2 hardware
# queues, not rotational), AHCI SATA (one queue, NCQ, rotational) and
# virtio-blk (2 queues) disks that scripts/vm/vmtest attaches, each
# throttled by qemu to vmtest.disk_iops IOs and vmtest.disk_bps bytes a
# second so that the disk, not the emulated CPU, is the bottleneck.  No
# per-device tuning: every tunable at its default.
#
# Two cgroups, hi at io.efq.weight 1000 and lo at 500 (io.bfq.weight the
# same), run the same job on their own half of the disk.  Measured outside
# the engine: the IOs each cgroup completed (io.stat) over a window that
# opens 1 s after both have done IO.  Judged: under each efq scheduler the
# ratio hi/lo is 2 +/- 15% (1.7..2.3), and the two together do at least
# 90% of the IOs they do under none, the control, on the same disk in the
# same boot (whose ratio must be about 1: 0.8..1.25).  A miss is run once
# more and the second run judged (the host is shared).
#
# Short form (make test): random 4k reads at depth 8 (libaio) on each disk
# under none, cfq and deadline-fq.  Full form (vmtest.disks_full=1, make
# vmtest-disks): sequential 64k reads (psync), random 4k reads at depth 1
# (psync) and depth 8, random 4k direct writes at depth 8, under none, the
# four efq schedulers, mq-deadline and bfq (these two printed, not judged);
# then the fsync'd commits of sq_run below, judged against mq-deadline.
# vmtest.disks=nvme,sata,... vmtest.disk_jobs=... vmtest.disk_scheds=...
# narrow either form.

DWIN=${DISK_WINDOW:-6}
DISKS_FULL=0
case " $(cat /proc/cmdline) " in *" vmtest.disks_full=1 "*) DISKS_FULL=1 ;; esac
if [ $DISKS_FULL = 1 ]; then
	DISK_JOBS="seq rand1 rand8 write sqlite"
	DISK_SCHEDS="none cfq deadline-fq as noop mq-deadline bfq"
else
	DISK_JOBS=rand8
	DISK_SCHEDS="none cfq deadline-fq"
fi
DISK_KINDS="nvme sata virtio"
for _k in disks disk_jobs disk_scheds; do
	_c=$(sed -n "s/.*vmtest\\.$_k=\\([^ ]*\\).*/\\1/p" /proc/cmdline | tr , ' ')
	[ -z "$_c" ] && continue
	case $_k in
	disks) DISK_KINDS=$_c ;;
	disk_jobs) DISK_JOBS=$_c ;;
	disk_scheds) DISK_SCHEDS=$_c ;;
	esac
done

# djob JOB NAME OFFSET RUNTIME: the fio command line of JOB on $D
djob() {
	_f="fio --name=$2 --filename=/dev/$D --direct=1 --offset=$3 --size=1g --runtime=$4 --time_based --minimal"
	case $1 in
	rand8) echo $_f --ioengine=libaio --rw=randread --bs=4k --iodepth=8 ;;
	rand1) echo $_f --ioengine=psync --rw=randread --bs=4k ;;
	seq) echo $_f --ioengine=psync --rw=read --bs=64k ;;
	write) echo $_f --ioengine=libaio --rw=randwrite --bs=4k --iodepth=8 ;;
	esac
}

# dios CG: reads and writes cgroup CG completed on $DEV (io.stat)
dios() {
	awk -v d="$DEV" '$1 == d { for (i = 2; i <= NF; i++) if ($i ~ /^[rw]ios=/) { sub(/^[rw]ios=/, "", $i); s += $i } }
		END { print s + 0 }' "$CG/$1/io.stat"
}

# drun SCHED JOB: both cgroups run JOB under SCHED; sets ia, ib (IOs a
# second), dr (their ratio), dt (the io.efq.disk_time ratio, "-" for
# other schedulers), dx (the expiries by reason, from debugfs); returns 1 if
# SCHED could not be selected or a fio failed
drun() {
	set_sched $D $1 || {
		fail "disks: select $1 on $D"
		return 1
	}
	rm -f /tmp/go
	# shellcheck disable=SC2046
	go_in_cg hi /tmp/hi.fio $(djob $2 hi 0 $((DWIN + 4)))
	_ph=$!
	# shellcheck disable=SC2046
	go_in_cg lo /tmp/lo.fio $(djob $2 lo 2g $((DWIN + 4)))
	_pl=$!
	sleep 0.3
	_h=$(dios hi) _l=$(dios lo)
	touch /tmp/go
	# the window opens 1 s after both have done IO (fio starts its job
	# process late under TCG)
	_t=0
	while [ "$(dios hi)" = "$_h" ] || [ "$(dios lo)" = "$_l" ]; do
		[ $_t -lt 300 ] || break
		usleep 100000
		_t=$((_t + 1))
	done
	sleep 1
	_h0=$(dios hi) _l0=$(dios lo)
	_dh0=$(cg_value hi io.efq.disk_time $DEV) _dl0=$(cg_value lo io.efq.disk_time $DEV)
	grep '^expired' $DBG/block/$D/sched/state >/tmp/exp0 2>/dev/null
	sleep $DWIN
	_h1=$(dios hi) _l1=$(dios lo)
	_dh1=$(cg_value hi io.efq.disk_time $DEV) _dl1=$(cg_value lo io.efq.disk_time $DEV)
	grep '^expired' $DBG/block/$D/sched/state >/tmp/exp1 2>/dev/null
	wait_all 30 $_ph $_pl || log "disks: $1 $2: a fio did not end within 30 s (killed)"
	ia=$(((_h1 - _h0) / DWIN)) ib=$(((_l1 - _l0) / DWIN))
	dr=$(ratio $((_h1 - _h0)) $((_l1 - _l0)))
	dt=-
	[ $_dl1 = 0 ] || dt=$(ratio $((_dh1 - _dh0)) $((_dl1 - _dl0)))
	dx=$(cat /tmp/exp0 /tmp/exp1 2>/dev/null | tr ' ' '\n' |
		awk -F= 'NF == 2 { if ($1 in a) { d = $2 - a[$1]; if (d) printf "%s=%d ", $1, d } else a[$1] = $2 }')
	if ! fio_ok /tmp/hi.fio || ! fio_ok /tmp/lo.fio; then
		fail "disks: $1 $2 on $D: fio ended with an error"
		tail -n 2 /tmp/hi.fio /tmp/lo.fio
		return 1
	fi
}

# dmeets SCHED: the last drun of SCHED met the rule above (why: what not)
dmeets() {
	why=""
	if [ $1 = none ]; then
		within "$dr" 0.8 1.25 || why="none's ratio $dr out of 0.8..1.25"
		[ -z "$why" ]
		return
	fi
	within "$dr" 1.7 2.3 || why="ratio $dr ($ia/$ib IO/s) out of 1.7..2.3"
	[ $((100 * (ia + ib))) -ge $((90 * ctl)) ] ||
		why="${why:+$why; }$((ia + ib)) IO/s, under 90% of none's $ctl"
	[ -z "$why" ]
}

# sq_run SCHED: fsync'd commits beside a buffered writer on an ext4 file
# system of $D: sqlite3 (rollback journal, synchronous=FULL, each insert its
# own transaction, so a commit is several fsyncs) in cgroup db (weight 1000)
# while dd writes files through the page cache in cgroup wr (weight 100),
# with cgroup writeback (+memory +io, as systemd sets it: the writer's dirty
# pages are written back as wr's IO).  Sets sq_n (commits done within
# SQ_TIME s, of SQ_N), sq_p50, sq_p99, sq_max (commit latency, ms; "inf"
# when fewer were done) and sq_wmb (what wr wrote meanwhile, MiB/s).
SQ_N=300 SQ_TIME=${SQ_TIME:-90}
sq_run() {
	set_sched $D $1 || {
		fail "disks: select $1 on $D"
		return 1
	}
	mkdir -p /mnt/sq
	/sbin/mkfs.ext4 -q -F -E nodiscard /dev/$D >/tmp/sq.mkfs 2>&1 || {
		fail "disks: sqlite $1: mkfs.ext4 on $D: $(head -n 1 /tmp/sq.mkfs)"
		return 1
	}
	mount -t ext4 /dev/$D /mnt/sq || {
		fail "disks: sqlite $1: mount $D"
		return 1
	}
	printf 'PRAGMA journal_mode=DELETE;\nCREATE TABLE t(k INTEGER PRIMARY KEY, v BLOB);\n' |
		sqlite3 /mnt/sq/db >/dev/null
	sync
	{
		echo '.timer on'
		echo 'PRAGMA synchronous=FULL;'
		_i=0
		while [ $_i -lt $SQ_N ]; do
			echo "INSERT INTO t(v) VALUES (randomblob(2000));"
			_i=$((_i + 1))
		done
	} >/tmp/sq.sql
	# the writer: 256 MiB files, one after the other, until killed
	in_cg wr /tmp/sq.dd sh -c 'i=0; while :; do dd if=/dev/zero of=/mnt/sq/w$((i % 4)) bs=1M count=256 2>/dev/null; i=$((i + 1)); done'
	_pw=$!
	sleep 3
	_w0=$(cg_wbytes wr) _t0=$(cut -d' ' -f1 /proc/uptime)
	in_cg db /tmp/sq.out sh -c "timeout $SQ_TIME sqlite3 /mnt/sq/db </tmp/sq.sql"
	wait_pid $! $((SQ_TIME + 20))
	_w1=$(cg_wbytes wr) _t1=$(cut -d' ' -f1 /proc/uptime)
	kill $_pw 2>/dev/null
	wait_all 20 $_pw
	killall dd 2>/dev/null
	sync
	umount /mnt/sq || fail "disks: sqlite $1: umount $D"
	# the first timing is the PRAGMA's; then one per insert
	awk '/^Run Time: real/ { n++; if (n > 1) print $4 * 1000 }' /tmp/sq.out | sort -n >/tmp/sq.lat
	sq_n=$(wc -l </tmp/sq.lat)
	sq_p50=$(awk -v n=$SQ_N 'NR == int(n * 0.5 + 0.5) { print; f = 1 } END { if (!f) print "inf" }' /tmp/sq.lat)
	sq_p99=$(awk -v n=$SQ_N 'NR == int(n * 0.99 + 0.5) { print; f = 1 } END { if (!f) print "inf" }' /tmp/sq.lat)
	sq_max=$(tail -n 1 /tmp/sq.lat)
	sq_wmb=$(awk -v a=$_w0 -v b=$_w1 -v t0=$_t0 -v t1=$_t1 'BEGIN { printf "%.1f\n", (b - a) / 1048576 / (t1 - t0) }')
}
# cg_wbytes CG: bytes written by cgroup CG on $DEV (io.stat)
cg_wbytes() {
	awk -v d="$DEV" '$1 == d { for (i = 2; i <= NF; i++) if ($i ~ /^wbytes=/) { sub(/^wbytes=/, "", $i); print $i; f = 1 } }
		END { if (!f) print 0 }' "$CG/$1/io.stat"
}

# --- the cgroups ------------------------------------------------------------------
check "disks: +memory in the root's subtree_control (cgroup writeback)" \
	sh -c "echo +memory >$CG/cgroup.subtree_control"
for c in hi:1000:1000 lo:500:500 db:1000:1000 wr:100:100; do
	n=${c%%:*} w=${c#*:}
	cg_make $n
	echo ${w%%:*} >$CG/$n/io.efq.weight || fail "disks: io.efq.weight ${w%%:*} for $n"
	echo ${w#*:} >$CG/$n/io.bfq.weight 2>/dev/null
done

log "disks: qemu throttles each disk to $(sed -n 's/.*vmtest\.disk_iops=\([0-9]*\).*/\1/p' /proc/cmdline) IO/s and $(sed -n 's/.*vmtest\.disk_bps=\([0-9]*\).*/\1/p' /proc/cmdline) B/s"
for k in $DISK_KINDS; do
	D=$(disk_of $k) || {
		fail "disks: the guest has the $k disk (scripts/vm/vmtest attaches it)"
		continue
	}
	DEV=$(devnum $D)
	log "disks: $k is $D ($DEV): $(ls -d /sys/block/$D/mq/* | wc -l) hardware queues, rotational $(cat /sys/block/$D/queue/rotational), nr_requests $(cat /sys/block/$D/queue/nr_requests)"
	table_begin "disks: $k ($D), hi at weight 1000 and lo at 500: IO/s"
	echo "job sched hi lo ratio disk_time_ratio expiries"
	for j in $DISK_JOBS; do
		if [ $j = sqlite ]; then
			table_end
			table_begin "disks: $k ($D), fsync'd commits (db, weight 1000) beside a buffered writer (wr, 100)"
			echo "sched commits p50_ms p99_ms max_ms writer_MiB/s"
			sq_ref="" sq_none=""
			for s in none mq-deadline $DISK_SCHEDS; do
				case " $sq_done " in *" $s "*) continue ;; esac
				sq_done="$sq_done $s"
				sq_run $s || continue
				echo "$s $sq_n $sq_p50 $sq_p99 $sq_max $sq_wmb"
				case $s in
				none) sq_none=$sq_wmb ;;
				mq-deadline) sq_ref=$sq_p99 ;;
				bfq) ;;
				*)
					# commit p99 within 2x mq-deadline's (any p99 is, when
					# mq-deadline did not do its commits in time), the
					# writer at 80% of its throughput under none at least
					cond "disks: $k sqlite $s: commit p99 $sq_p99 ms within 2x mq-deadline's $sq_ref ms" \
						"$(awk -v a="$sq_p99" -v b="$sq_ref" 'BEGIN { print (a != "inf" && (b == "inf" || a <= 2 * b)) ? 1 : 0 }')" = 1
					cond "disks: $k sqlite $s: the writer keeps $sq_wmb MiB/s, 80% of none's $sq_none at least" \
						"$(awk -v a="$sq_wmb" -v b="$sq_none" 'BEGIN { print (a >= 0.8 * b) ? 1 : 0 }')" = 1
					;;
				esac
			done
			sq_done=""
			continue
		fi
		ctl=0
		for s in $DISK_SCHEDS; do
			drun $s $j || continue
			echo "$j $s $ia $ib $dr $dt $dx"
			[ $s = none ] && ctl=$((ia + ib))
			case $s in mq-deadline | bfq) continue ;; esac
			if ! dmeets $s; then
				log "disks: $k $j $s: $why; once more"
				drun $s $j || continue
				echo "$j $s $ia $ib $dr $dt $dx (second run)"
				[ $s = none ] && ctl=$((ia + ib))
			fi
			if dmeets $s; then
				pass "disks: $k $j $s: ratio $dr, $((ia + ib)) IO/s"
			else
				fail "disks: $k $j $s: $why"
			fi
		done
	done
	table_end
done
for c in hi lo db wr; do
	cg_remove $c
done
echo -memory >$CG/cgroup.subtree_control 2>/dev/null
