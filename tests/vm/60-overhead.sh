# SPDX-License-Identifier: GPL-2.0
#
# The kernel benchmark (`make kbench`): the cost per request of each scheduler:
# what each scheduler adds to a request on a fast null_blk (memory_backed=0,
# irqmode=0: completions inline, hw_queue_depth 64), where the device costs
# almost nothing and the block layer's and the scheduler's own paths are
# what the IOPS measure.  Documentation/kernel/performance.rst explains the
# method and holds the results.
#
# Schedulers: none, mq-deadline, bfq, and efq's deadline-fq, as, noop, cfq
# (their default, hierarchical mode).  Cases, always in this order, fio
# randread 4k, O_DIRECT, io_uring (or libaio, below):
#   qd1      1 job, iodepth 1                      (nullb7, 1 hardware queue)
#   qd64     1 job, iodepth 64                     (nullb7)
#   hwq2-j4  4 jobs, iodepth 16 each               (nullb8, submit_queues=2)
#   cg8      8 jobs, iodepth 8 each, each in a cgroup of its own,
#            kbench/g1..g8                         (nullb7)
# Every case is one fio process, whose jobs start together; its IOPS are the
# sum of its jobs'.  qd1 to hwq2-j4 run in the cgroup kbench/solo, so every
# request goes through a cgroup two levels down.  cg8's jobs move
# themselves into their cgroups before their IO starts (fio's exec_prerun
# writes the job's pid, $PPID of its shell, to cgroup.procs; each cgroup's
# io.stat must show reads afterwards): eight fio processes would start
# seconds apart under TCG (13.5 s for the last of them on a loaded host),
# and their IOPS would not be over the same time.
#
# Rounds: each round runs every (case, scheduler) once; the scheduler order
# rotates by one place from one round to the next, so that no scheduler
# always runs first, or always after the same one.  KBENCH=RxS[:ENGINE]
# (tests/vm/init, from vmtest.kbench=... on the kernel command line): R
# rounds of S-second runs, with fio's ioengine ENGINE: io_uring (the
# default: of the two, the one that spends the least CPU time per request
# around the scheduler; none's qd1 IOPS were twice libaio's in the first
# runs) or libaio.  Without it, 1 round of 1 s: make vmtest only sees that
# it runs.
#
# Beware of the host's load.  At fio's default batch of one request per
# system call the kernel does not plug, and 6.1 hands an unplugged request
# for a scheduler to a kblockd worker (none issues it at once), which runs
# on either vCPU; under TCG, waking the other, idle vCPU waits for the
# host to schedule its thread.  On a host with a load average of 9 on 2
# cores that made qd1 under every scheduler 20 to 100 times slower than
# none, from one round to the next by up to 3 times: the wake-up, not
# the scheduler.  Run make kbench on an otherwise idle host; scripts/vm/vmtest
# prints the host's load average before and after.
#
# Report: per round and case, the ratio IOPS / IOPS(none in that round) and
# the cost per request 1e6/IOPS - 1e6/IOPS(none) in microseconds; per case
# and scheduler the median over the rounds, the ratio's min and max, and
# every round's raw IOPS.  These are microseconds of TCG guest time, not a
# real machine's: compare schedulers with one another, not with hardware.
# A benchmark, not a test: the only checks are that every fio ran without
# error (and that cg8's reads came from its eight cgroups); no number is
# judged.
#
# vmtest-budget: 300
# vmtest-kbench

KB=${KBENCH:-1x1}
ENGINE=io_uring
case $KB in *:*) ENGINE=${KB#*:} KB=${KB%%:*} ;; esac
ROUNDS=${KB%%x*} RT=${KB#*x}
case "$ROUNDS:$RT" in
[1-9]*:[1-9]*) case "$ROUNDS$RT" in *[!0-9]*) ROUNDS=0 ;; esac ;;
*) ROUNDS=0 ;;
esac
if [ $ROUNDS = 0 ]; then
	fail "kbench: KBENCH=$KBENCH is not ROUNDSxSECONDS[:ENGINE] (each at least 1); 1 round of 1 s instead"
	ROUNDS=1 RT=1
fi
case $ENGINE in
io_uring | libaio) ;;
*)
	fail "kbench: ioengine $ENGINE is neither io_uring nor libaio; io_uring instead"
	ENGINE=io_uring
	;;
esac
SCHEDS="none mq-deadline bfq $EFQ_SCHEDS"
CASES="qd1 qd64 hwq2-j4 cg8"
D1=nullb7 D2=nullb8
RAW=/tmp/kb.raw FAILS=/tmp/kb.fails
: >$RAW
: >$FAILS

now() { cut -d' ' -f1 /proc/uptime; }
# fio writes each exec_prerun's output to JOB.prerun.txt in its directory
cd /tmp || fail "kbench: cd /tmp"
t_start=$(now)

nb_create 7 irqmode=0 hw_queue_depth=64 memory_backed=0 ||
	fail "kbench: create the fast device $D1"
nb_create 8 irqmode=0 hw_queue_depth=64 memory_backed=0 submit_queues=2 ||
	fail "kbench: create the fast device $D2 (2 hardware queues)"
cg_make kbench
echo +io >$CG/kbench/cgroup.subtree_control ||
	fail "kbench: +io in kbench/cgroup.subtree_control"
for kg in solo g1 g2 g3 g4 g5 g6 g7 g8; do
	cg_make kbench/$kg
done

# rotate N WORD...: the words, starting at the (N mod count)-th (from 0)
rotate() {
	_k=$(($1 % ($# - 1)))
	shift
	_head=""
	while [ $_k -gt 0 ]; do
		_head="$_head $1"
		shift
		_k=$((_k - 1))
	done
	echo "$*$_head"
}

# kb_fio DEV IODEPTH NUMJOBS JOB...: one fio in the background in
# kbench/solo, output in /tmp/kb.fio, its pid in $!; the options before the
# first --name of JOB... are every job's.  gtod_reduce and norandommap keep
# fio's own CPU time small, so that more of what the IOPS measure is the
# kernel's.
kb_fio() {
	_kd=$1 _kq=$2 _kj=$3
	shift 3
	in_cg kbench/solo /tmp/kb.fio fio --filename=/dev/$_kd --direct=1 --ioengine=$ENGINE \
		--rw=randread --bs=4k --norandommap --gtod_reduce=1 --iodepth=$_kq \
		--numjobs=$_kj --runtime=$RT --time_based --minimal "$@"
}

# kb_cg8_jobs: cg8's jobs g1..g8, one a line, each moving itself into
# kbench/gN before its IO starts (fio appends a redirection of the output to
# the command: the braces keep it off the echo)
kb_cg8_jobs() {
	for _ki in 1 2 3 4 5 6 7 8; do
		echo "--name=g$_ki"
		echo "--exec_prerun={ echo \$PPID >$CG/kbench/g$_ki/cgroup.procs; }"
	done
}

# kb_run CASE SCHED: one run; IOPS ("-": no value); 1 and WHY when a fio
# did not run cleanly (or the scheduler could not be selected)
kb_run() {
	IOPS=- WHY=""
	case $1 in
	hwq2-j4) kdev=$D2 ;;
	*) kdev=$D1 ;;
	esac
	if ! set_sched $kdev $2; then
		WHY="select $2 on $kdev"
		return 1
	fi
	case $1 in
	qd1) kb_fio $kdev 1 1 --name=kb ;;
	qd64) kb_fio $kdev 64 1 --name=kb ;;
	hwq2-j4) kb_fio $kdev 16 4 --name=kb ;;
	cg8)
		kmm=$(devnum $kdev) krios=""
		for ki in 1 2 3 4 5 6 7 8; do
			krios="$krios $(rios kbench/g$ki $kmm)"
		done
		# (the job options hold spaces: one per line)
		_ifs=$IFS
		IFS='
'
		# shellcheck disable=SC2046
		kb_fio $kdev 8 1 $(kb_cg8_jobs)
		IFS=$_ifs
		;;
	esac
	if ! run_watched_pids $(((RT + 60) * SLOW)) $kdev $!; then
		WHY="$WATCH_WHAT"
		return 1
	fi
	if [ "$WAIT_RC" != 0 ] || ! fio_ok /tmp/kb.fio; then
		WHY="fio status $WAIT_RC: $(grep -v '^3;' /tmp/kb.fio | tail -n 2 | cut -c1-120 | tr '\n' ' ')"
		return 1
	fi
	if [ $1 = cg8 ]; then
		# the reads came from the eight cgroups
		ki=0
		for kr0 in $krios; do
			ki=$((ki + 1))
			[ "$(rios kbench/g$ki $kmm)" -gt "$kr0" ] && continue
			WHY="${WHY:+$WHY, }no reads from kbench/g$ki"
		done
		[ -z "$WHY" ] || return 1
	fi
	IOPS=$(fio_iops /tmp/kb.fio)
}

log "kbench: $ROUNDS round(s) of $RT s, fio $ENGINE; cases $CASES; schedulers $SCHEDS"
r=1
while [ $r -le $ROUNDS ]; do
	order=$(rotate $((r - 1)) $SCHEDS)
	for c in $CASES; do
		for s in $order; do
			if ! kb_run $c $s; then
				echo "$c $s $r $WHY" >>$FAILS
				log "kbench round $r/$ROUNDS $c $s: $WHY"
			fi
			echo "$c $s $r $IOPS" >>$RAW
			log "kbench round $r/$ROUNDS $c $s: $IOPS IOPS"
		done
	done
	r=$((r + 1))
done

# the checks: every fio of every round ran without error
for c in $CASES; do
	for s in $SCHEDS; do
		kf=$(awk -v c=$c -v s=$s '$1 == c && $2 == s { r = $3; sub(/^[^ ]+ [^ ]+ [^ ]+ /, ""); printf "%sround %s: %s", n++ ? "; " : "", r, $0 }' $FAILS)
		if [ -z "$kf" ]; then
			pass "kbench $c $s: every fio ran without error ($ROUNDS round(s))"
		else
			fail "kbench $c $s: every fio ran without error ($kf)"
		fi
	done
done

table_begin "kbench raw: IOPS of each round, ${RT} s runs, fio $ENGINE (-: no value)"
awk -v cases="$CASES" -v scheds="$SCHEDS" -v rounds=$ROUNDS '
	{ v[$1, $2, $3] = $4 }
	END {
		printf "%-8s %-12s", "case", "scheduler"
		for (r = 1; r <= rounds; r++)
			printf " %8s", "r" r
		printf "\n"
		nc = split(cases, C, " ")
		ns = split(scheds, S, " ")
		for (i = 1; i <= nc; i++)
			for (j = 1; j <= ns; j++) {
				printf "%-8s %-12s", C[i], S[j]
				for (r = 1; r <= rounds; r++) {
					x = v[C[i], S[j], r]
					printf " %8s", x == "" ? "-" : x
				}
				printf "\n"
			}
	}' $RAW
table_end

table_begin "kbench: $ROUNDS round(s) of ${RT} s, fio $ENGINE, fast null_blk; ratio = IOPS / IOPS(none) of the same round, cost = 1/IOPS - 1/IOPS(none) in us of TCG guest time (not a real machine's); medians over rounds"
awk -v cases="$CASES" -v scheds="$SCHEDS" -v rounds=$ROUNDS '
	# med(a, n): the median of a[1..n], which it sorts
	function med(a, n,    i, j, t) {
		for (i = 2; i <= n; i++) {
			t = a[i]
			for (j = i - 1; j >= 1 && a[j] > t; j--)
				a[j + 1] = a[j]
			a[j + 1] = t
		}
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	function num(x) { return x != "" && x != "-" && x + 0 > 0 }
	{ v[$1, $2, $3] = $4 }
	END {
		printf "%-8s %-12s %8s %8s %6s %6s %6s %9s %7s\n", "case", "scheduler", "IOPS", "us/req",
			"ratio", "min", "max", "cost us", "rounds"
		nc = split(cases, C, " ")
		ns = split(scheds, S, " ")
		for (i = 1; i <= nc; i++)
			for (j = 1; j <= ns; j++) {
				n = m = 0
				split("", I)
				split("", U)
				split("", R)
				split("", K)
				for (r = 1; r <= rounds; r++) {
					a = v[C[i], S[j], r]
					b = v[C[i], "none", r]
					if (!num(a))
						continue
					I[++m] = a
					U[m] = 1e6 / a
					if (!num(b))
						continue
					R[++n] = a / b
					K[n] = 1e6 / a - 1e6 / b
				}
				printf "%-8s %-12s", C[i], S[j]
				if (m)
					printf " %8.0f %8.1f", med(I, m), med(U, m)
				else
					printf " %8s %8s", "-", "-"
				if (n) {
					rm = med(R, n)
					printf " %6.2f %6.2f %6.2f %9.1f %7d\n", rm, R[1], R[n], med(K, n), n
				} else
					printf " %6s %6s %6s %9s %7d\n", "-", "-", "-", "-", 0
			}
	}' $RAW
table_end
log "kbench: took $(awk -v a="$t_start" -v b="$(now)" 'BEGIN { printf "%.0f", b - a }') s"

set_sched $D1 none
set_sched $D2 none
for kg in solo g1 g2 g3 g4 g5 g6 g7 g8; do
	cg_remove kbench/$kg || fail "kbench: remove the cgroup kbench/$kg"
done
cg_remove kbench || fail "kbench: remove the cgroup kbench"
nb_remove 7
nb_remove 8
