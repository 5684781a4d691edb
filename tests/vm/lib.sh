# SPDX-License-Identifier: GPL-2.0
#
# tests/vm/lib.sh: helpers for the guest side of `make vmtest` (busybox sh).
# Sourced by tests/vm/init and by each tests/vm/[0-9]*.sh, which run in a
# subshell of their own.
#
# Results: every check prints "CHECK PASS: <what>" or "CHECK FAIL: <what>"
# and appends a line to $RESULTS; init counts them at the end.

RESULTS=/tmp/results
CG=/sys/fs/cgroup
CFS=/sys/kernel/config/nullb
DBG=/sys/kernel/debug
EFQ_MODULES="efq cfq-iosched deadline-fq-iosched as-iosched noop-iosched"
# cfq last: a scheduler that stalls a device is then the last one tried on it
EFQ_SCHEDS="deadline-fq as noop cfq"
KMODS=/lib/modules/$(uname -r)
# Built-in mode (`make vmtest-patched`: vmtest.builtin=1 on the kernel command
# line): configfs, null_blk, bfq and efq are part of the kernel, there is no
# module to load or unload.
case " $(cat /proc/cmdline) " in
*" vmtest.builtin=1 "*) BUILTIN=1 ;;
*) BUILTIN=0 ;;
esac

log() { echo "vmtest: $*"; }

pass() {
	echo "CHECK PASS: $*"
	echo "PASS $*" >>$RESULTS
}

fail() {
	echo "CHECK FAIL: $*"
	echo "FAIL $*" >>$RESULTS
}

# check WHAT CMD...: PASS if CMD succeeds.
check() {
	_what=$1
	shift
	if "$@"; then pass "$_what"; else fail "$_what"; fi
}

# cond WHAT EXPR: PASS if `test EXPR` holds; the failure shows EXPR.
cond() {
	_what=$1
	shift
	if [ "$@" ]; then pass "$_what"; else fail "$_what (false: $*)"; fi
}

# wr FILE VALUE...: write VALUE (one write) to FILE; print "OK" or the
# shell's error text (e.g. "sh: write error: Invalid argument").
wr() {
	_f=$1
	shift
	# echo, not printf: busybox's echo names the errno on a failed write
	if _o=$( (echo "$*" >"$_f") 2>&1); then echo OK; else echo "${_o:-error}"; fi
}

# errno name -> strerror text as busybox prints it
errtext() {
	case $1 in
	EINVAL) echo "Invalid argument" ;;
	ENODEV) echo "No such device" ;;
	EBUSY) echo "busy" ;;
	ERANGE) echo "out of range" ;;
	EACCES) echo "Permission denied" ;;
	*) echo "$1" ;;
	esac
}

# expect_ok WHAT FILE VALUE: the write succeeds
expect_ok() {
	_r=$(wr "$2" "$3")
	if [ "$_r" = OK ]; then pass "$1"; else fail "$1 (write '$3' to $2: $_r)"; fi
}

# expect_err WHAT ERRNO FILE VALUE: the write fails with ERRNO
# (ERRNO "any": fails with any error)
expect_err() {
	_r=$(wr "$3" "$4")
	if [ "$_r" = OK ]; then
		fail "$1 (write '$4' to $3 succeeded, expected $2)"
	elif [ "$2" = any ] || echo "$_r" | grep -qi "$(errtext "$2")"; then
		pass "$1"
	else
		fail "$1 (write '$4' to $3: '$_r', expected $2)"
	fi
}

# expect_read WHAT FILE EXPECTED: the file's content (newlines as '|')
expect_read() {
	_v=$(tr '\n' '|' <"$2" 2>&1 | sed 's/|$//')
	if [ "$_v" = "$3" ]; then pass "$1"; else fail "$1 (read '$_v', expected '$3')"; fi
}

# --- null_blk devices through configfs --------------------------------------
# nb_create INDEX KEY=VALUE...: a powered-on null_blk device /dev/nullb<INDEX>
# (6.1 names a configfs-made device after its configfs directory, which is
# therefore nullb<INDEX>); returns non-zero on failure.
nb_create() {
	_i=$1 _n=nullb$1
	shift
	mkdir "$CFS/$_n" || return 1
	echo "$_i" >"$CFS/$_n/index" || return 1
	echo 4096 >"$CFS/$_n/size"
	echo 2 >"$CFS/$_n/queue_mode"
	echo 1 >"$CFS/$_n/submit_queues"
	for _kv in "$@"; do
		echo "${_kv#*=}" >"$CFS/$_n/${_kv%%=*}" || return 1
	done
	echo 1 >"$CFS/$_n/power" || return 1
	_t=0
	while [ ! -b /dev/nullb$_i ] && [ $_t -lt 50 ]; do
		sleep 0.1
		_t=$((_t + 1))
	done
	[ -b /dev/nullb$_i ]
}

# nb_remove INDEX
nb_remove() {
	[ -d "$CFS/nullb$1" ] || return 0
	# a device stuck in its scheduler would block the power-off for good
	[ -e /tmp/dead.nullb$1 ] && return 1
	echo 0 >"$CFS/nullb$1/power" 2>/dev/null
	rmdir "$CFS/nullb$1"
}

# slow device: the bottleneck under TCG even on a loaded host (4 ms
# timer completions, depth 2: at most 500 IOPS),
# rotational so that cfq idles as on a disk
nb_slow() { # INDEX
	nb_create "$1" irqmode=2 completion_nsec=${SLOW_NSEC:-4000000} \
		hw_queue_depth=${SLOW_DEPTH:-2} memory_backed=0 || return 1
	echo 1 >/sys/block/nullb$1/queue/rotational
}

devnum() { cat /sys/block/$1/dev; }

# disk_of KIND: the guest's name of the qemu disk scripts/vm/vmtest attached
# (KIND nvme, sata or virtio): nvme*n1, the sd* disk behind an ATA port,
# vd*.  Status 1 if the guest has none.
disk_of() {
	case $1 in
	nvme) _g='nvme*n1' ;;
	sata) _g='sd*' ;;
	virtio) _g='vd*' ;;
	*) return 1 ;;
	esac
	for _b in /sys/block/$_g; do
		[ -e "$_b" ] || continue
		if [ $1 = sata ]; then
			readlink -f $_b | grep -q '/ata[0-9]' || continue
		fi
		basename $_b
		return 0
	done
	return 1
}

# host_do ACTION DRIVE: ask the host to act on one of the qemu disks
# (ACTION device_del or device_add, DRIVE the -drive id scripts/vm/vmtest
# gave it: dnvme, dsata, dvirtio): a console line that scripts/vm/run-qemu
# carries out through QMP.  Nothing comes back: the caller waits for its
# disk to go or come (run-qemu logs a "vmtest-host-reply:" line).
host_do() { echo "vmtest-host: $1 $2"; }

# tasks_in_d: the tasks in D state ("PID:COMM ...") in each of 3 samples
# 1 s apart (a task that waits for IO a moment is not stuck)
tasks_in_d() {
	for _i in 1 2 3; do
		for _f in /proc/[0-9]*/stat; do
			sed -n 's/^\([0-9]*\) (\(.*\)) D .*/\1:\2/p' "$_f" 2>/dev/null
		done | sort -u >/tmp/tasks_in_d.$_i
		[ $_i = 3 ] || sleep 1
	done
	# (each sample has every task once: 3 counts mean all 3 samples)
	cat /tmp/tasks_in_d.1 /tmp/tasks_in_d.2 /tmp/tasks_in_d.3 | sort | uniq -c | sed -n 's/^ *3 //p' |
		tr '\n' ' '
}

# set_sched DEV SCHED: select SCHED and check it took.  A switch freezes the
# queue, which waits for every request the old scheduler holds: if that does
# not end within 20 s, the old scheduler lost requests.  Then the blk-mq
# state is dumped, the device is marked dead (/tmp/dead.DEV: later switches
# of it return 2 at once) and the hung-task panic is turned off, so that the
# tests of other devices go on; returns 2.
set_sched() {
	[ -e /tmp/dead.$1 ] && return 2
	_old=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/block/$1/queue/scheduler)
	(echo "$2" >/sys/block/$1/queue/scheduler) 2>/dev/null &
	_p=$! _t=0
	while kill -0 $_p 2>/dev/null && [ $_t -lt 100 ]; do
		sleep 0.1
		_t=$((_t + 1))
	done
	if kill -0 $_p 2>/dev/null; then
		fail "switch $1 from $_old to $2 finishes within 10 s (the queue freeze waits for requests $_old never completes)"
		touch /tmp/dead.$1
		echo 0 >/proc/sys/kernel/hung_task_panic
		blk_dump $1
		return 2
	fi
	wait $_p || return 1
	grep -q "\[$2\]" /sys/block/$1/queue/scheduler
}

# wait_pid PID SECONDS: wait for a background job at most SECONDS; 1 if it
# is still running (e.g. stuck on a dead device), else 0 with its exit
# status in WAIT_RC
wait_pid() {
	_t=0
	while kill -0 $1 2>/dev/null && [ $_t -lt $(($2 * 4)) ]; do
		sleep 0.25
		_t=$((_t + 1))
	done
	kill -0 $1 2>/dev/null && return 1
	wait $1 2>/dev/null
	WAIT_RC=$?
	return 0
}

# blk_dump DEV: blk-mq and scheduler state from debugfs
blk_dump() {
	# (not sched_tags/tags: they take the sysfs_lock the stuck switch holds)
	for _f in $DBG/block/$1/state $DBG/block/$1/hctx*/state $DBG/block/$1/hctx*/dispatch \
		$DBG/block/$1/hctx*/busy $DBG/block/$1/sched/*; do
		[ -f "$_f" ] || continue
		echo "--- $_f"
		head -c 3000 "$_f"
	done
	log "tasks in D state: $(ps -o pid,stat,comm | awk '$2 ~ /^D/ { printf "%s(%s) ", $3, $1 }')"
}

# finish: the summary line, the kernel log, power off (ends the VM from any
# test)
finish() {
	_np=$(grep -c '^PASS' $RESULTS)
	_nf=$(grep -c '^FAIL' $RESULTS)
	echo "vmtest: $_np passed, $_nf failed"
	echo "=== dmesg begin"
	dmesg
	echo "=== dmesg end"
	sync
	echo o >/proc/sysrq-trigger
	sleep 5
	poweroff -f
}

# --- cgroups ------------------------------------------------------------------
cg_make() { mkdir -p "$CG/$1"; }

# cg_remove NAME: rmdir, retrying while tasks are still leaving
cg_remove() {
	_t=0
	while [ -d "$CG/$1" ] && [ $_t -lt 50 ]; do
		rmdir "$CG/$1" 2>/dev/null && return 0
		sleep 0.1
		_t=$((_t + 1))
	done
	[ ! -d "$CG/$1" ]
}

# cg_value CGROUP FILE MAJ:MIN: the value of the device's line, 0 if none
cg_value() {
	awk -v d="$3" '$1 == d { print $2; f = 1 } END { if (!f) print 0 }' "$CG/$1/$2" 2>/dev/null ||
		echo 0
}

# wait_all TMO PID...: wait for each PID, at most TMO s each; a PID still
# running then is killed.  Fails if any had to be.
wait_all() {
	_wtmo=$1 _wok=0
	shift
	for _wp in "$@"; do
		if ! wait_pid $_wp $_wtmo; then
			_wok=1
			kill -9 $_wp 2>/dev/null
		fi
	done
	return $_wok
}

# in_cg CGROUP OUTFILE CMD...: run CMD inside CGROUP in the background
# (`$$` of a subshell is the parent's pid in busybox sh: a new sh writes its
# own pid, then execs the command).  The pid is in $!.
in_cg() {
	_c=$1 _o=$2
	shift 2
	sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$CG/$_c" "$@" >"$_o" 2>&1 &
}

# go_in_cg CGROUP OUTFILE CMD...: like in_cg, but CMD starts only once
# /tmp/go exists, so that several groups can start together
go_in_cg() {
	_c=$1 _o=$2
	shift 2
	sh -c 'echo $$ > "$0/cgroup.procs" && while [ ! -e /tmp/go ]; do usleep 5000; done && exec "$@"' \
		"$CG/$_c" "$@" >"$_o" 2>&1 &
}

# rios CGROUP MAJ:MIN: reads the device completed for CGROUP (io.stat)
rios() {
	awk -v d="$2" '$1 == d { for (i = 2; i <= NF; i++) if ($i ~ /^rios=/) { sub(/rios=/, "", $i); print $i; f = 1 } }
		END { if (!f) print 0 }' "$CG/$1/io.stat"
}

# both_read MAJ:MIN CG_A RIOS_A CG_B RIOS_B: wait (30 s at most) until both
# cgroups have completed a read on the device since their counts were
# RIOS_A and RIOS_B: fio forks its job process and starts its IO seconds
# after the go on the debug kernel under TCG.  Status 1 on timeout.
both_read() {
	_t=0
	while [ "$(rios "$2" "$1")" = "$3" ] || [ "$(rios "$4" "$1")" = "$5" ]; do
		[ $_t -lt 300 ] || return 1
		usleep 100000
		_t=$((_t + 1))
	done
}

# --- fio ------------------------------------------------------------------------
# Terse (--minimal) v3 fields: 5 error; read 7 bw KiB/s, 8 IOPS, 15 clat max
# (usec); write = read + 41.
fio_iops() { awk -F';' '$1 == 3 { s += $8 + $49 } END { printf "%.0f\n", s }' "$1"; }
fio_err() { awk -F';' '$1 == 3 && $5 != 0 { e = $5 } END { print e + 0 }' "$1"; }
fio_ok() { [ "$(grep -c '^3;' "$1")" -ge 1 ] && [ "$(fio_err "$1")" = 0 ]; }

# ratio A B: A/B with 2 decimals ("inf" if B is 0)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b + 0 == 0) print "inf"; else printf "%.2f\n", a / b }'; }

# within X LO HI: LO <= X <= HI (floats)
within() { awk -v x="$1" -v l="$2" -v h="$3" 'BEGIN { exit !(x != "inf" && x + 0 >= l + 0 && x + 0 <= h + 0) }'; }

# --- kernel log -----------------------------------------------------------------
KBAD='BUG:|WARNING:|Oops|soft lockup|general protection|blocked for more than|Call Trace'

# kfilter: stdin without the notices of injected faults (fault injection
# with verbose=1, 45-integrity's nomem and failreq: "FAULT_INJECTION:
# forcing a failure" and its attributes line; no stack dump)
kfilter() { grep -v -E 'FAULT_INJECTION: forcing a failure|^(\[ *[0-9.]+\] )?name [a-z_]+, interval [0-9]+, probability'; }

# dmesg_clean WHAT: no warning/oops since the last dmesg_mark
dmesg_mark() { dmesg | wc -l >/tmp/dmesg.mark; }
dmesg_clean() {
	_from=$(cat /tmp/dmesg.mark 2>/dev/null || echo 0)
	_bad=$(dmesg | tail -n +$((_from + 1)) | kfilter | grep -E "$KBAD" | head -n 3)
	if [ -z "$_bad" ]; then
		pass "no kernel warning or oops during $1"
	else
		fail "no kernel warning or oops during $1: $(echo "$_bad" | tr '\n' ' ')"
	fi
	dmesg_mark
}

# --- tables -----------------------------------------------------------------------
# table_begin NAME / table_end: the host re-prints what is in between
table_begin() { echo "TABLE BEGIN: $1"; }
table_end() { echo "TABLE END"; }

# --- items: the unit a crash is attributed to -------------------------------------
# item DESC...: start the next numbered item of this test file and print
# "=== item FILE:N DESC".  When a boot's kernel dies (an oops panics the
# guest), scripts/vm/vmtest finds the last such line, fails that item and
# boots again with vmtest.after=FILE:N, so that the items after it still run
# (tests/vm/init sets RESUME_ITEM); item returns 1 for the items an earlier
# boot has already run.  Items must therefore not depend on one another.
ITEM_N=${ITEM_BASE:-0}
item() {
	ITEM_N=$((ITEM_N + 1))
	[ "$ITEM_N" -le "${RESUME_ITEM:-0}" ] && return 1
	echo "=== item ${VMTEST_FILE:-?}:$ITEM_N $*"
	dmesg | wc -l >/tmp/dmesg.item
	return 0
}

# item_dmesg: the first kernel warning/oops line since the item began (empty
# if none)
item_dmesg() {
	_from=$(cat /tmp/dmesg.item 2>/dev/null || echo 0)
	dmesg | tail -n +$((_from + 1)) | kfilter | grep -E "$KBAD" | head -n 1
}

# --- watched commands: timeouts and stalls -----------------------------------------
# dev_ios DEV...: completed reads + writes + discards + flushes of the devices
# (/sys/block/DEV/stat fields 1, 5, 12, 16)
dev_ios() {
	_s=0
	for _d in "$@"; do
		# shellcheck disable=SC2046
		set -- $(cat /sys/block/$_d/stat 2>/dev/null) 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
		_s=$((_s + $1 + $5 + ${12} + ${16}))
	done
	echo $_s
}

# run_watched TMO "DEV..." OUT CMD...: run CMD in the background (output to
# OUT) and wait for it at most TMO s, watching the devices: when their
# completed-IO counter has not moved for ${STALL:-30} s while CMD still
# runs, that is a stall.  Returns 0 when CMD ended (its status in WAIT_RC),
# 1 on a stall, 2 on the timeout; on 1 and 2 the devices' state is dumped
# (blk_dump_all), CMD is killed (it may not die: a task in D state), each
# device is marked dead (/tmp/dead.DEV) and the hung-task panic is turned
# off, so that the other tests go on.  WATCH_WHAT says what timed out or
# stalled.
run_watched() {
	_tmo=$1 _devs=$2 _out=$3
	shift 3
	"$@" >"$_out" 2>&1 &
	_rp=$!
	_rw_wait "$_rp" "$_tmo" "$_devs"
}

# run_watched_pids TMO "DEV..." PID...: the same for processes already
# started (e.g. by in_cg); WAIT_RC is the status of the last one
run_watched_pids() {
	_tmo=$1 _devs=$2
	shift 2
	_rc=0
	for _p in "$@"; do
		_rw_wait "$_p" "$_tmo" "$_devs" || return $?
	done
	return 0
}

_rw_wait() { # PID TMO DEVS
	_rwp=$1 _tmo=$2 _devs=$3
	_st=$(date +%s)
	_last=$(dev_ios $_devs) _lastt=$_st
	WATCH_WHAT=""
	while kill -0 "$_rwp" 2>/dev/null; do
		sleep 1
		_now=$(date +%s)
		_c=$(dev_ios $_devs)
		if [ "$_c" != "$_last" ]; then
			_last=$_c _lastt=$_now
		elif [ $((_now - _lastt)) -ge "${STALL:-30}" ] && kill -0 "$_rwp" 2>/dev/null; then
			WATCH_WHAT="stall: the completed-IO count of $_devs stayed at $_c for $((_now - _lastt)) s"
			_rw_dead "$_rwp" "$_devs"
			return 1
		fi
		if [ $((_now - _st)) -ge "$_tmo" ] && kill -0 "$_rwp" 2>/dev/null; then
			WATCH_WHAT="timeout: still running after $_tmo s (completed-IO count $_c, moving)"
			_rw_dead "$_rwp" "$_devs"
			return 2
		fi
	done
	wait "$_rwp" 2>/dev/null
	WAIT_RC=$?
	return 0
}

_rw_dead() { # PID DEVS
	echo 0 >/proc/sys/kernel/hung_task_panic
	log "$WATCH_WHAT"
	for _d in $2; do
		touch /tmp/dead.$_d
		blk_dump_all $_d
	done
	# the command and its children (fio forks its jobs)
	for _c in $(ps -o pid,ppid | awk -v p="$1" '$2 == p { print $1 }') "$1"; do
		kill -9 "$_c" 2>/dev/null
	done
}

# blk_dump_all DEV: blk_dump plus the tags, the scheduler tags and the
# scheduler's tunables (reading the tags takes the queue's sysfs_lock, which
# a stuck scheduler switch holds: each read gives up after 3 s)
blk_dump_all() {
	blk_dump $1
	for _f in $DBG/block/$1/hctx*/tags $DBG/block/$1/hctx*/sched_tags $DBG/block/$1/hctx*/ctx*/*_rq_list; do
		[ -f "$_f" ] || continue
		echo "--- $_f"
		timeout 3 head -c 2000 "$_f"
	done
	echo "--- /sys/block/$1/queue/scheduler: $(cat /sys/block/$1/queue/scheduler 2>/dev/null)"
	echo "--- /sys/block/$1/inflight: $(cat /sys/block/$1/inflight 2>/dev/null)"
	for _f in /sys/block/$1/queue/iosched/*; do
		[ -f "$_f" ] && echo "--- ${_f#/sys/block/}: $(timeout 3 cat "$_f" 2>&1)"
	done
}

# --- refused writes and their kernel messages ---------------------------------------
# printk's ratelimit lets each call site print 10 messages per 5 s and drops
# the rest of that interval.  rl_pace KIND, before a write whose refusal must
# leave a message of call site KIND (a name of the caller's choosing, [a-z]),
# keeps every site at 9 messages per interval: the 10th asks rl_reset to wait
# until 5.5 s after the last "efq: " line of the log (every interval begun
# before it has then ended; without printk timestamps: 5.5 s).
RL_KINDS=""
rl_reset() {
	_l=$(dmesg | grep 'efq: ' | tail -n 1 | sed -n 's/^\[ *\([0-9.]*\)\].*/\1/p')
	_w=$(awk -v l="${_l:-x}" -v n="$(cut -d' ' -f1 /proc/uptime)" \
		'BEGIN { if (l == "x") print 5.5; else { w = l + 5.5 - n; print (w > 0 ? w : 0) } }')
	[ "$_w" = 0 ] || sleep "$_w"
	for _k in $RL_KINDS; do eval "RL_n_$_k=0"; done
}
rl_pace() { # KIND
	case " $RL_KINDS " in *" $1 "*) ;; *) RL_KINDS="$RL_KINDS $1" ;; esac
	eval "_c=\${RL_n_$1:-0}"
	[ "$_c" -lt 9 ] || rl_reset
	eval "RL_n_$1=\$((\${RL_n_$1:-0} + 1))"
}

# expect_refused WHAT ERRNO FILE VALUE KIND MSG: the write fails with ERRNO
# and the kernel logs a line matching the ERE "efq: MSG" (KIND: rl_pace's)
expect_refused() {
	rl_pace "$5"
	_n0=$(dmesg | wc -l)
	expect_err "$1" "$2" "$3" "$4"
	_m=$(dmesg | tail -n +$((_n0 + 1)) | grep -E "efq: $6" | head -n 1)
	if [ -n "$_m" ]; then
		pass "$1: kernel says '$(echo "$_m" | sed 's/^\[[ 0-9.]*\] //')'"
	else
		fail "$1: a kernel line 'efq: $6' (new lines: $(dmesg | tail -n +$((_n0 + 1)) | tr '\n' ' ' | cut -c1-300))"
	fi
}

# --- two weighted groups on a device-bound device ------------------------------------
# pair_run SCHED: the same random-read job (libaio, iodepth 8, 4k) in two
# cgroup directories at once, v2 or v1 alike.  Globals in: PD (the device's
# name), PDEV (its MAJ:MIN), PA and PB (the cgroup directories), PWIN (the
# window, s), PENTER (the file a task joins by: cgroup.procs, or v1's tasks).
# Reads and efq's disk time are counted over the same PWIN s while both jobs
# surely run (from 1 s after both have completed a read): reads from io.stat
# (v2) or blkio.throttle.io_serviced (v1: counted at submission), both outside
# efq; disk time from io.efq.disk_time or blkio.disk_time.  Sets pa, pb (IOPS),
# pr (their ratio), pda, pdb (disk time, ms), pok (1: fio ran without error in
# both; /tmp/pair.trees: debugfs service_trees at the window's start);
# returns 1 if SCHED could not be selected.
pair_reads() { # DIR
	if [ -f "$1/io.stat" ]; then
		awk -v d="$PDEV" '$1 == d { for (i = 2; i <= NF; i++) if ($i ~ /^rios=/) { sub(/rios=/, "", $i); print $i; f = 1 } }
			END { if (!f) print 0 }' "$1/io.stat"
	else
		awk -v d="$PDEV" '$1 == d && $2 == "Read" { print $3; f = 1 } END { if (!f) print 0 }' \
			"$1/blkio.throttle.io_serviced" 2>/dev/null || echo 0
	fi
}
pair_dtime() { # DIR
	_f=$1/io.efq.disk_time
	[ -f "$_f" ] || _f=$1/blkio.disk_time
	awk -v d="$PDEV" '$1 == d { print $2; f = 1 } END { if (!f) print 0 }' "$_f" 2>/dev/null || echo 0
}
pair_job() { # NAME OFFSET RUNTIME
	echo fio --name=$1 --filename=/dev/$PD --direct=1 --ioengine=libaio --rw=randread --bs=4k \
		--iodepth=8 --offset=$2 --size=1g --runtime=$3 --time_based --minimal
}
pair_go() { # DIR OUT CMD...: CMD in DIR once /tmp/go exists
	_d=$1 _o=$2
	shift 2
	sh -c 'echo $$ > "$0" && while [ ! -e /tmp/go ]; do usleep 5000; done && exec "$@"' \
		"$_d/${PENTER:-cgroup.procs}" "$@" >"$_o" 2>&1 &
}
pair_run() {
	if ! set_sched $PD $1; then
		fail "select $1 on $PD"
		return 1
	fi
	# (a depth-2 device gets 4 scheduler tags: too few to choose among)
	[ $1 = none ] || echo 64 >/sys/block/$PD/queue/nr_requests
	rm -f /tmp/go
	# shellcheck disable=SC2046
	pair_go $PA /tmp/pa.fio $(pair_job pa 0 $((PWIN + 4)))
	_pa=$!
	# shellcheck disable=SC2046
	pair_go $PB /tmp/pb.fio $(pair_job pb 2g $((PWIN + 4)))
	_pb=$!
	sleep 0.3
	_a0=$(pair_reads $PA) _b0=$(pair_reads $PB)
	touch /tmp/go
	_t=0
	while [ "$(pair_reads $PA)" = "$_a0" ] || [ "$(pair_reads $PB)" = "$_b0" ]; do
		[ $_t -lt 300 ] || break
		usleep 100000
		_t=$((_t + 1))
	done
	sleep 1
	_a0=$(pair_reads $PA) _b0=$(pair_reads $PB) _da0=$(pair_dtime $PA) _db0=$(pair_dtime $PB)
	# the engine's groups while both are busy (their weights): /tmp/pair.trees
	cat $DBG/block/$PD/sched/service_trees >/tmp/pair.trees 2>/dev/null || : >/tmp/pair.trees
	sleep $PWIN
	_a1=$(pair_reads $PA) _b1=$(pair_reads $PB) _da1=$(pair_dtime $PA) _db1=$(pair_dtime $PB)
	wait_all 30 $_pa $_pb || log "pair $1: a fio did not end within 30 s (killed)"
	rm -f /tmp/go
	pok=0
	fio_ok /tmp/pa.fio && fio_ok /tmp/pb.fio && pok=1
	[ $pok = 1 ] || tail -n 3 /tmp/pa.fio /tmp/pb.fio
	pa=$(((_a1 - _a0) / PWIN)) pb=$(((_b1 - _b0) / PWIN))
	pr=$(ratio $((_a1 - _a0)) $((_b1 - _b0)))
	pda=$((_da1 - _da0)) pdb=$((_db1 - _db0))
	return 0
}

# pair_bottleneck INDEX: make nullbINDEX the bottleneck for pair_run (as
# 40-fairness does): a slow device (nb_slow, depth 2) of 4, 12, then 32 ms
# completions (PAIR_NSEC overrides the list), the first on which the two
# jobs under none reach 80% of its IOPS, with that none run's figures (pa,
# pb, pr) kept for the control; sets PD, PDEV, pns, pcap.  PAIR_SETUP, if
# set, is run after each device is made.  Returns 1 if none was.
pair_bottleneck() {
	PD=nullb$1
	for pns in ${PAIR_NSEC:-4000000 12000000 32000000}; do
		SLOW_NSEC=$pns SLOW_DEPTH=2 nb_slow $1 || {
			fail "create the slow device $PD"
			return 1
		}
		PDEV=$(devnum $PD)
		[ -z "$PAIR_SETUP" ] || $PAIR_SETUP
		pcap=$((2 * 1000000000 / pns))
		pair_run none || return 1
		[ $((100 * (pa + pb))) -ge $((80 * pcap)) ] && return 0
		if [ $((pa + pb)) = 0 ]; then
			fail "pair: reads counted in $PA and $PB (none: 0; fio ok: $pok)"
			return 1
		fi
		log "with none the jobs reach $((pa + pb)) of the $pcap IOPS of a $pns ns device: the CPU, not the device, is the bottleneck"
		nb_remove $1
	done
	return 1
}

# io_back_to_v2: give the io controller back to cgroup v2 after a file that
# moved it to a v1 blkio hierarchy (05-blkio-v1) and did not finish: every
# v1 blkio mount's cgroups removed and the mount unmounted, then +io in the
# v2 root (init calls it when the root's subtree_control lacks io).
io_back_to_v2() {
	for _m in $(awk '$3 == "cgroup" && $4 ~ /(^|,)blkio(,|$)/ { print $2 }' /proc/mounts); do
		for _p in $(cat $(find "$_m" -mindepth 2 -name tasks) 2>/dev/null); do
			kill -9 "$_p" 2>/dev/null
		done
		sleep 1
		find "$_m" -mindepth 1 -depth -type d -exec rmdir {} \; 2>/dev/null
		_t=0
		while [ "$(awk '$1 == "blkio" { print $3 }' /proc/cgroups)" != 1 ] && [ $_t -lt 200 ]; do
			usleep 100000
			_t=$((_t + 1))
		done
		umount "$_m" || log "io_back_to_v2: umount $_m failed"
	done
	_t=0
	until echo +io >$CG/cgroup.subtree_control 2>/dev/null; do
		if [ $_t -ge 200 ]; then
			fail "the io controller back on cgroup v2 after a v1 mount (+io in the v2 root)"
			return 1
		fi
		usleep 100000
		_t=$((_t + 1))
	done
	log "io_back_to_v2: the io controller is on cgroup v2 again, +io in the root"
}
