# SPDX-License-Identifier: GPL-2.0
#
# scripts/fio/lib.sh: shared part of the fio regression scripts (POSIX sh:
# runs under bash, dash and busybox sh).  Sourced by scripts/fio/t*-*.
#
# Parameters (environment):
#   DEV        disk name as in /sys/block (sdb, nvme0n1, nullb0); required
#   MNT        a directory on a filesystem on DEV for the test files; empty:
#              use the raw device /dev/$DEV (needs RAW=1 for the tests that
#              write: their data on the device is destroyed)
#   SCHED      scheduler to select on DEV (cfq; deadline-fq, as, noop, or any
#              other, e.g. bfq or none for a baseline without efq weights)
#   MODE       hier (default: groups get their weights) or flat
#   CG         cgroup v2 mount (/sys/fs/cgroup)
#   NS         the series of N (numbers of jobs in the crowded group)
#   RUNTIME    seconds per run (30), SIZE per-job file or region size (2G)
#   W1 W2      io.efq.weight of group 1 and group 2 (each test's defaults)
#   GROUP_IDLE, FAIRNESS   written to queue/iosched/ when set
#   NR_REQUESTS written to queue/nr_requests after the scheduler is selected
#              (which resets it to 2 x the device's depth): a shallow device
#              leaves a scheduler too few requests to choose among
#   SMOKE=1    a quick run (RUNTIME=2, SIZE=64M, NS="1 2") to check that the
#              script works, e.g. on null_blk
#
# Output: one table per series: N, then per group the max, min and aggregate
# bandwidth (KiB/s) of its jobs, their max completion latency (ms), and the
# disk time (ms) efq charged the group (io.efq.disk_time delta), then the
# ratios group2/group1.  Compare ratios between runs and machines, never
# absolute numbers.

set -eu

die() {
	echo "$0: $*" >&2
	exit 1
}

: "${DEV:?DEV=<disk name, e.g. sdb> is required}"
MNT=${MNT:-}
SCHED=${SCHED:-cfq}
MODE=${MODE:-hier}
CG=${CG:-/sys/fs/cgroup}
RUNTIME=${RUNTIME:-30}
SIZE=${SIZE:-2G}
if [ "${SMOKE:-0}" = 1 ]; then
	RUNTIME=2
	SIZE=64M
	# shellcheck disable=SC2034 # read by the test scripts
	NS="1 2"
fi
SYSQ=/sys/block/$DEV/queue
G1=$CG/efq-fio-g1
G2=$CG/efq-fio-g2
TMP=$(mktemp -d /tmp/efq-fio.XXXXXX)

[ -d "$SYSQ" ] || die "/sys/block/$DEV does not exist (DEV is a whole disk name, e.g. sdb)"
[ "$(id -u)" = 0 ] || die "must run as root (writes sysfs and cgroup files)"
command -v fio >/dev/null || die "fio is not installed"
if ! grep -q cgroup2 /proc/mounts || [ ! -f "$CG/cgroup.subtree_control" ]; then
	die "$CG is not a cgroup v2 mount (set CG=)"
fi
if [ -n "$MNT" ]; then
	[ -d "$MNT" ] || die "MNT=$MNT is not a directory"
fi
MAJMIN=$(cat /sys/block/"$DEV"/dev)

cleanup() {
	for g in "$G1" "$G2"; do
		[ -d "$g" ] || continue
		# shellcheck disable=SC2013 # one pid a line
		for p in $(cat "$g/cgroup.procs" 2>/dev/null); do kill "$p" 2>/dev/null || true; done
		rmdir "$g" 2>/dev/null || true
	done
	rm -rf "$TMP"
}
trap cleanup EXIT INT TERM

# setup W1 W2: scheduler, mode, knobs, the two cgroups and their weights
setup() {
	grep -qw io "$CG/cgroup.subtree_control" || echo +io >"$CG/cgroup.subtree_control"
	echo "$SCHED" >"$SYSQ/scheduler" || die "cannot select $SCHED on $DEV"
	grep -q "\[$SCHED\]" "$SYSQ/scheduler" || die "$SCHED did not take on $DEV: $(cat "$SYSQ/scheduler")"
	if [ -f "$SYSQ/iosched/hierarchical" ]; then
		case $MODE in
		hier) echo 1 >"$SYSQ/iosched/hierarchical" ;;
		flat) echo 0 >"$SYSQ/iosched/hierarchical" ;;
		*) die "MODE is hier or flat" ;;
		esac
	fi
	if [ -n "${NR_REQUESTS:-}" ]; then
		echo "$NR_REQUESTS" >"$SYSQ/nr_requests" || die "cannot set nr_requests $NR_REQUESTS"
	fi
	[ -n "${GROUP_IDLE:-}" ] && echo "$GROUP_IDLE" >"$SYSQ/iosched/group_idle"
	[ -n "${FAIRNESS:-}" ] && echo "$FAIRNESS" >"$SYSQ/iosched/fairness"
	mkdir -p "$G1" "$G2"
	if [ -f "$G1/io.efq.weight" ]; then
		echo "$1" >"$G1/io.efq.weight"
		echo "$2" >"$G2/io.efq.weight"
	else
		echo "note: no io.efq.weight (efq.ko not loaded): running without efq weights" >&2
	fi
	if [ "$SCHED" = bfq ] && [ -f "$G1/io.bfq.weight" ]; then
		echo "$1" >"$G1/io.bfq.weight"
		echo "$2" >"$G2/io.bfq.weight"
	fi
}

# disk_time GROUP: the group's io.efq.disk_time for DEV (0 if none yet)
disk_time() {
	awk -v d="$MAJMIN" '$1 == d { v = $2 } END { print v + 0 }' "$1/io.efq.disk_time" 2>/dev/null || echo 0
}

# where NAME BASE: fio options placing NAME's jobs: files in $MNT/NAME, or
# regions of the raw device starting at BASE (in units of SIZE)
where() {
	if [ -n "$MNT" ]; then
		mkdir -p "$MNT/$1"
		echo "--directory=$MNT/$1 --size=$SIZE"
	else
		echo "--filename=/dev/$DEV --size=$SIZE --offset_increment=$SIZE --offset=$(size_times "$2")"
	fi
}

# size_times K: K * SIZE in bytes (SIZE with a K/M/G/T suffix)
size_times() {
	echo "$SIZE" | awk -v k="$1" '{
		n = $0 + 0; u = toupper(substr($0, length($0)))
		m = (u == "K") ? 1024 : (u == "M") ? 1048576 : (u == "G") ? 1073741824 : (u == "T") ? 1099511627776 : 1
		printf "%.0f\n", k * n * m }'
}

# check_raw WRITES MAXJOBS: on a raw device, refuse to write without RAW=1
# and check that the regions fit
check_raw() {
	[ -n "$MNT" ] && return 0
	if [ "$1" = 1 ] && [ "${RAW:-0}" != 1 ]; then
		die "this test writes: on the raw device /dev/$DEV that destroys data. Set MNT= or RAW=1"
	fi
	need=$(size_times "$2")
	have=$(($(cat /sys/block/"$DEV"/size) * 512))
	[ "$have" -ge "$need" ] || die "/dev/$DEV has $have bytes, the jobs need $need (lower SIZE=)"
}

# run_pair N1 "FIO OPTIONS 1" N2 "FIO OPTIONS 2": both groups at once;
# fills $TMP/g1 and $TMP/g2 (terse fio lines) and DT1, DT2 (disk time, ms)
run_pair() {
	n1=$1 o1=$2 n2=$3 o2=$4
	if [ -n "$MNT" ]; then
		# lay the files out first, so that layout writes are not measured
		# shellcheck disable=SC2086
		fio --name=g1 $o1 --numjobs="$n1" --create_only=1 >/dev/null
		# shellcheck disable=SC2086
		fio --name=g2 $o2 --numjobs="$n2" --create_only=1 >/dev/null
		sync
		echo 3 >/proc/sys/vm/drop_caches
	fi
	rm -f "$TMP/go"
	a1=$(disk_time "$G1")
	a2=$(disk_time "$G2")
	# each waits in its cgroup for $TMP/go, then becomes fio
	# shellcheck disable=SC2016,SC2086
	sh -c 'echo $$ > "$0/cgroup.procs" && while [ ! -e "$1" ]; do sleep 0.01; done && shift && exec "$@"' \
		"$G1" "$TMP/go" fio --name=g1 $o1 --numjobs="$n1" --runtime="$RUNTIME" --time_based --minimal \
		>"$TMP/g1" 2>&1 &
	p1=$!
	# shellcheck disable=SC2016,SC2086
	sh -c 'echo $$ > "$0/cgroup.procs" && while [ ! -e "$1" ]; do sleep 0.01; done && shift && exec "$@"' \
		"$G2" "$TMP/go" fio --name=g2 $o2 --numjobs="$n2" --runtime="$RUNTIME" --time_based --minimal \
		>"$TMP/g2" 2>&1 &
	p2=$!
	sleep 0.5
	touch "$TMP/go"
	rc=0
	wait $p1 || rc=1
	wait $p2 || rc=1
	DT1=$(($(disk_time "$G1") - a1))
	DT2=$(($(disk_time "$G2") - a2))
	if [ $rc != 0 ] || ! grep -q '^3;' "$TMP/g1" || ! grep -q '^3;' "$TMP/g2"; then
		cat "$TMP/g1" "$TMP/g2" >&2
		die "fio failed"
	fi
}

# stats FILE: "max min agg maxlat_ms" over the jobs of one group (terse v3:
# read bw 7, clat max 15 usec; write = read + 41)
stats() {
	awk -F';' '$1 == 3 {
		bw = $7 + $48; lat = ($15 > $56 ? $15 : $56) / 1000
		if (n == 0 || bw > mx) mx = bw; if (n == 0 || bw < mn) mn = bw
		agg += bw; if (lat > ml) ml = lat; n++; if ($5 != 0) err = $5 }
		END { if (err) print "fio error " err > "/dev/stderr"
		      printf "%d %d %d %.1f\n", mx, mn, agg, ml }' "$1"
}

header() {
	echo
	echo "$1"
	echo "device $DEV ($MAJMIN), scheduler $SCHED, mode $MODE, runtime ${RUNTIME}s, size $SIZE," \
		"${MNT:+files in $MNT}${MNT:-raw device}"
	printf '%4s | %9s %9s %9s %8s %9s | %9s %9s %9s %8s %9s | %8s %8s\n' \
		nr "g1 max" "min" "agg" "lat ms" "time ms" "g2 max" "min" "agg" "lat ms" "time ms" "bw g2/g1" "time g2/g1"
}

row() { # N
	# shellcheck disable=SC2046 # four numbers each
	set -- "$1" $(stats "$TMP/g1") $(stats "$TMP/g2")
	printf '%4s | %9s %9s %9s %8s %9s | %9s %9s %9s %8s %9s | %8s %8s\n' \
		"$1" "$2" "$3" "$4" "$5" "$DT1" "$6" "$7" "$8" "$9" "$DT2" \
		"$(awk -v a="$8" -v b="$4" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')" \
		"$(awk -v a="$DT2" -v b="$DT1" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')"
}
