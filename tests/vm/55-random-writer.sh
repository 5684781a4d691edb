# SPDX-License-Identifier: GPL-2.0
# vmtest-budget: 600
#
# The random writer: seeded random values written to every efq tunable
# (queue/iosched/*) and every io.efq.* cgroup file while fio runs buffered
# and direct IO in three cgroups on a memory-backed null_blk, the scheduler
# changes among the four efq schedulers, mq-deadline and none, cgroups come
# and go and weights change.
#
# The seed is vmtest.seed=N on the kernel command line (default 18, the
# issue's number) and is printed first; vmtest.rw_rounds=N runs N phases
# (default 6: each scheduler once) and vmtest.rw_ops=N gives each writer N
# writes a phase (default 40).  The same seed writes the same values to
# the same files in the same order (busybox awk's rand()); what runs
# alongside is timing.
#
# Each phase: three fio processes start (cgroups rw-a: direct random writes
# with crc32c verify, rw-b: buffered random writes with verify, rw-c: direct
# random reads), the scheduler is switched under them while a racer writes
# valid values to whatever queue/iosched/ holds, two short-lived cgroups
# with their own reader and weights are made, and three writers run at
# once.  Each writer owns its files: a third of the scheduler's tunables
# and the io.efq.* files of one fio cgroup, so that what it reads back
# depends on its own writes only.  awk makes each writer's plan: the value,
# whether it ends in a newline, and what must follow: accepted and read
# back as the file documents (numbers clamped to the range in
# /tunables/<sched>; io.efq.weight's "default N", "MAJ:MIN N" lines,
# io.efq.policy's "MAJ:MIN\tW\tC"), or refused with an errno, the file
# unchanged.  Refusals inside efq must leave a kernel message; refusals by
# kernfs before efq sees the write (E2BIG for writes longer than the
# file's limit; EINVAL from the cgroup core for the statistics files, which
# have no write handler) leave none.
#
# Checks: every write as the plan says (one CHECK per writer and phase);
# fio exits 0 in every phase (verify errors included) and the device
# completed IO; the short-lived cgroups are removed; the messages: after
# the phases, 5.5 s after the last refusal (printk's ratelimit interval is
# 5 s), one probe write per ratelimit state must each leave its message at
# once, which also prints the "callbacks suppressed" counts, and then per
# message kind the messages printed plus those suppressed must add up to
# the refusals counted; finally a full write and crc32c verify of each
# cgroup's region under an efq scheduler.  Oopses and warnings fail the
# file through init's dmesg_clean.

TAB=$(printf '\t')
NL='
'
SEED=$(sed -n 's/.*vmtest\.seed=\([0-9]*\).*/\1/p' /proc/cmdline)
SEED=${SEED:-18}
ROUNDS=$(sed -n 's/.*vmtest\.rw_rounds=\([0-9]*\).*/\1/p' /proc/cmdline)
ROUNDS=${ROUNDS:-6}
OPS=$(sed -n 's/.*vmtest\.rw_ops=\([0-9]*\).*/\1/p' /proc/cmdline)
OPS=${OPS:-40}
# a phase's fio runtime (s); the file stops starting phases after LIMIT s
PHASE_S=4
LIMIT=$((540 * SLOW))
log "random writer: seed $SEED, $ROUNDS phases, $OPS writes per writer and phase (replay: vmtest.seed=$SEED vmtest.rw_rounds=$ROUNDS vmtest.rw_ops=$OPS)"

D=nullb55
RW=/tmp/rw
mkdir -p $RW
T0=$(cut -d' ' -f1 /proc/uptime)
# 192 MiB in RAM; 50 us timer completions, depth 4: requests wait in the
# scheduler; rotational so that cfq and as idle
if ! nb_create 55 memory_backed=1 size=192 irqmode=2 completion_nsec=50000 hw_queue_depth=4; then
	fail "random writer: create null_blk $D"
	return 0 2>/dev/null || exit 0
fi
echo 1 >/sys/block/$D/queue/rotational
DEV=$(devnum $D)
IOS=/sys/block/$D/queue/iosched
for c in rw-a rw-b rw-c; do cg_make $c; done
# devices that are not whole disks here (1:3 is /dev/null, the rest absent):
# the candidates that a disk of an earlier test file holds (8:0 is the
# scsi_debug disk of 45-integrity's faults items) are left out
ABSENT=""
for d in 1:3 8:0 7:250 254:250 259:99999; do
	if [ -e /sys/dev/block/$d ]; then
		log "random writer: $d is a block device here, not written as an absent one"
		continue
	fi
	ABSENT="${ABSENT:+$ABSENT }$d"
done

# Every message kind's ratelimit state starts flushed: a state keeps the
# count it suppressed until its next message after the 5 s interval, so
# refusals of an earlier test file (10-tunables writes 'abc' to every
# tunable) would be printed as "N callbacks suppressed" at this file's
# first refusal, without efq.ko's reload (30-lifecycle) in between, and
# counted as this file's.  5.5 s after the last refusal, one refused write
# per state prints any count left; the count starts after them.
set_sched $D cfq || fail "random writer: select cfq to flush the message states"
sleep 5.5
echo abc >$IOS/slice_idle 2>/dev/null
echo 5 >$CG/rw-a/io.efq.weight 2>/dev/null
echo abc >$CG/rw-a/io.efq.weight 2>/dev/null
echo abc >$CG/rw-a/io.efq.ioprio_class 2>/dev/null
echo 7 >$CG/rw-a/io.efq.ioprio_class 2>/dev/null
echo "1:3 500" >$CG/rw-a/io.efq.weight 2>/dev/null
echo abc >$CG/rw-a/io.efq.policy 2>/dev/null
set_sched $D none
K0=$(dmesg | wc -l)

# --- the plan maker ------------------------------------------------------------
# Input: targets, one a line: "tun PATH NAME LO HI SIGNED", "weight PATH",
# "class PATH", "policy PATH", "stat PATH".  Output: N plan lines
# MODE<TAB>EXPECT<TAB>GROUP<TAB>PATH<TAB>VALUE: MODE n (a newline ends the
# write) or p (none); in VALUE '|' is a newline and '%' a tab; EXPECT
# ok=tun:N, ok=wdef:N, ok=wrule:DEV N, ok=wnorule:DEV, ok=class:N,
# ok=pol:DEV W C, ok=polnone:DEV, ok=same (nothing written), busy:N
# (hierarchical: accepted as N, or EBUSY while requests are queued) or
# err=ERRNO; GROUP the message kind a refusal must leave (none: kernfs's).
cat >$RW/plan.awk <<'EOF'
function rnd(n) { return int(rand() * n) }
function pick(s,  a, n) { n = split(s, a, " "); return a[rnd(n) + 1] }
function rep(c, n,  s) { s = ""; while (n-- > 0) s = s c; return s }
function garb(n,  s, cs) {
	cs = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _.:,;!@#^&*()=?<>{}[]~/'\"+-"
	s = "q"
	while (n-- > 0) s = s substr(cs, rnd(length(cs)) + 1, 1)
	return s
}
function pad() { return pick("  % %% % %  ") }
function clamp(v, lo, hi) { v += 0; return v < lo + 0 ? lo : v > hi + 0 ? hi : v }
function emit(mode, ex, grp, path, val) {
	if (mode == "n" && rand() < 0.15 && val != "" && val !~ /^\|/ && length(val) < 4000)
		mode = "p"
	printf "%s\t%s\t%s\t%s\t%s\n", mode, ex, grp, path, val
}
function tun(path, name, lo, hi, sg,  r, v, h, ok) {
	r = rand()
	ok = name == "hierarchical" ? "busy:" : "ok=tun:"
	if (r < 0.30) {
		v = rand() < 0.2 ? pick(lo " " hi) : lo + rnd((hi - lo > 100000 ? 100000 : hi - lo) + 1)
		emit("n", ok sprintf("%.0f", v), "tun", path, sprintf("%.0f", v))
	} else if (r < 0.38) {
		v = hi + 1 + rnd(1000)
		emit("n", ok hi, "tun", path, sprintf("%.0f", v))
	} else if (r < 0.42) {
		emit("n", ok lo, "tun", path, "0")
	} else if (r < 0.49) {
		v = "-" (1 + rnd(1000000))
		if (rand() < 0.2) v = "-0"
		if (sg) emit("n", ok clamp(v == "-0" ? 0 : v, lo, hi), "tun", path, v)
		else emit("n", "err=EINVAL", "tun", path, v)
	} else if (r < 0.53) {
		v = lo + rnd(1000)
		emit("n", ok clamp(v, lo, hi), "tun", path, "+" v)
	} else if (r < 0.57) {
		v = lo + rnd(1000)
		emit("n", ok clamp(v, lo, hi), "tun", path, "000" v)
	} else if (r < 0.67) {
		# 64-bit edges: which parse (kstrtoull or, for deadline's own
		# tunables, kstrtoll) takes them
		h = rnd(7)
		if (h == 0) emit("n", sg ? "err=EINVAL" : ok hi, "tun", path, "18446744073709551615")
		else if (h == 1) emit("n", ok hi, "tun", path, "9223372036854775807")
		else if (h == 2) emit("n", sg ? "err=EINVAL" : ok hi, "tun", path, "9223372036854775808")
		else if (h == 3) emit("n", "err=EINVAL", "tun", path, "18446744073709551616")
		else if (h == 4) emit("n", sg ? ok lo : "err=EINVAL", "tun", path, "-9223372036854775808")
		else if (h == 5) emit("n", "err=EINVAL", "tun", path, "-9223372036854775809")
		else emit("n", "err=EINVAL", "tun", path, rep("7", 25 + rnd(40)))
	} else if (r < 0.79) {
		emit("n", "err=EINVAL", "tun", path, garb(rnd(24)))
	} else if (r < 0.83) {
		v = lo + rnd(100)
		emit("n", "err=EINVAL", "tun", path, rand() < 0.5 ? " " v : v " ")
	} else if (r < 0.86) {
		emit("n", "err=EINVAL", "tun", path, (lo + 1) "|" (lo + 2))
	} else if (r < 0.89) {
		emit("p", "ok=same", "none", path, "")
	} else if (r < 0.93) {
		emit("n", "err=EINVAL", "tun", path, "")
	} else {
		# longer than a page: sysfs passes the first 4096 bytes, refused
		h = rnd(3)
		emit("n", "err=EINVAL", "tun", path, h == 0 ? rep("9", 5000) : h == 1 ? "5" rep(" ", 5000) : garb(4100 + rnd(2000)))
	}
}
function wt() { return rand() < 0.15 ? pick("100 1000") : 100 + rnd(901) }
function badwt() { return rand() < 0.5 ? rnd(100) : 1001 + rnd(100000) }
# not 0 either: "MAJ:MIN 0" is malformed in io.efq.weight, a removal in io.efq.policy
function badwt1() { return rand() < 0.5 ? 1 + rnd(99) : 1001 + rnd(100000) }
function weight(path,  r, w, a) {
	r = rand()
	a = pick(absent)
	if (r < 0.18) { w = wt(); emit("n", "ok=wdef:" w, "none", path, pick(w " " w " 0" w)) }
	else if (r < 0.26) { w = wt(); emit("n", "ok=wdef:" w, "none", path, pad() "default" pad() w pad()) }
	else if (r < 0.33) { w = badwt(); emit("n", "err=EINVAL", "weight", path, pick(w " default%" w)) }
	else if (r < 0.37) emit("n", "err=EINVAL", "wfmt", path, pick("4294967296 -5 -500 99999999999999999999 0x1f4 default%-1 +500 default%+500"))
	else if (r < 0.47) { w = wt(); emit("n", "ok=wrule:" dev " " w, "none", path, dev " " w) }
	else if (r < 0.50) emit("n", "err=EINVAL", "weight", path, dev " " badwt1())
	else if (r < 0.52) emit("n", "err=EINVAL", "wfmt", path, dev " 0")
	else if (r < 0.57) emit("n", "ok=wnorule:" dev, "none", path, dev " default")
	else if (r < 0.62) emit("n", "err=ENODEV", "nodisk", path, a " " wt())
	else if (r < 0.64) emit("n", "ok=wnorule:" a, "none", path, a " default")
	else if (r < 0.68) emit("n", "err=EINVAL", "wfmt", path, pick("4096:0 1:1048576 x:y 1: :1 1:3:5") " " wt())
	else if (r < 0.77) emit("n", "err=EINVAL", "wfmt", path, garb(rnd(30)))
	else if (r < 0.80) emit("n", "err=EINVAL", "wfmt", path, "default " wt() " " wt())
	else if (r < 0.83) emit("n", "err=EINVAL", "wfmt", path, "")
	else if (r < 0.86) emit("p", "ok=same", "none", path, "")
	else if (r < 0.90) emit("n", "err=E2BIG", "none", path, rand() < 0.5 ? "default " wt() rep(" ", 5000) : garb(4200 + rnd(2000)))
	else if (r < 0.93) { w = wt(); emit("n", "ok=wdef:" w, "none", path, rep(" ", 1000 + rnd(2500)) w) }
	else { w = wt(); emit("n", "ok=wdef:" w, "none", path, "||default " w "||") }
}
function class(path,  r, c, h) {
	r = rand()
	c = 1 + rnd(3)
	if (r < 0.35) emit("n", "ok=class:" c, "none", path, c)
	else if (r < 0.45) emit("n", "ok=class:" c, "none", path, pick("0x" c " 0" c " +" c " 0X" c))
	else if (r < 0.53) emit("n", "err=EINVAL", "class", path, pick("0 4 5 7 99 1000000 18446744073709551615"))
	else if (r < 0.58) emit("n", "err=ERANGE", "class", path, pick("18446744073709551616 99999999999999999999999 0xfffffffffffffffff"))
	else if (r < 0.72) emit("n", "err=EINVAL", "class", path, pick("08 0x -1 -0 2.0 two") " " garb(rnd(10)))
	else if (r < 0.76) emit("n", "err=EINVAL", "class", path, pick("08 0x -1 -0 2.0 two"))
	else if (r < 0.82) { h = rnd(4); emit("n", "err=EINVAL", "class", path, h == 0 ? " " c : h == 1 ? c " " : h == 2 ? c "|" c : c "||") }
	else if (r < 0.86) emit("n", "err=EINVAL", "class", path, "")
	else if (r < 0.90) emit("p", "ok=same", "none", path, "")
	else if (r < 0.95) emit("n", "err=E2BIG", "none", path, c rep(" ", 5000))
	else emit("n", "err=EINVAL", "class", path, garb(rnd(40)))
}
function policy(path,  r, w, c, a) {
	r = rand()
	w = wt()
	c = 1 + rnd(3)
	a = pick(absent)
	if (r < 0.20) emit("n", "ok=pol:" dev " " w " " c, "none", path, dev " " w " " c)
	else if (r < 0.25) emit("n", "ok=pol:" dev " " w " " c, "none", path, pick("| %") dev pick("% |") w pick("| %%") c pick("|| %"))
	else if (r < 0.33) emit("n", "ok=polnone:" dev, "none", path, dev " 0 " c)
	else if (r < 0.37) emit("n", "err=EINVAL", "class", path, dev " " pick("0 " w) " " pick("0 4 9 100"))
	else if (r < 0.42) emit("n", "err=EINVAL", "weight", path, dev " " badwt1() " " c)
	else if (r < 0.48) emit("n", "err=ENODEV", "nodisk", path, a " " w " " c)
	else if (r < 0.51) emit("n", "ok=polnone:" a, "none", path, a " 0 " c)
	else if (r < 0.58) emit("n", "err=EINVAL", "policy", path, pick(dev "%" w " " dev " " dev "%" w "%" c "%1 " dev "%-" w "%" c " " dev "%" w "%-1 x:y%" w "%" c " 4096:0%" w "%" c))
	else if (r < 0.66) emit("n", "err=EINVAL", "policy", path, garb(rnd(40)))
	else if (r < 0.72) emit("n", "err=EINVAL", "policy", path, dev " " w " " c "|" a " " w " " c)
	else if (r < 0.75) emit("n", "err=EINVAL", "policy", path, dev " 99999999999 " c)
	else if (r < 0.79) emit("n", "err=EINVAL", "policy", path, "")
	else if (r < 0.83) emit("p", "ok=same", "none", path, "")
	else if (r < 0.90) emit("n", "err=E2BIG", "none", path, dev " " w " " c rep(" ", pick("300 5000")))
	else emit("n", "ok=pol:" dev " " w " " c, "none", path, dev " " w " " c rep(" ", 100 + rnd(100)))
}
{
	kind[NR] = $1; path[NR] = $2; nm[NR] = $3; lo[NR] = $4; hi[NR] = $5; sg[NR] = $6
	# how often each kind is picked: the statistics files seldom
	k = $1 == "stat" ? 1 : $1 == "tun" ? 4 : 6
	while (k-- > 0) slot[ns++] = NR
}
END {
	srand(seed)
	for (i = 0; i < n; i++) {
		t = slot[rnd(ns)]
		if (kind[t] == "tun") tun(path[t], nm[t], lo[t], hi[t], sg[t])
		else if (kind[t] == "weight") weight(path[t])
		else if (kind[t] == "class") class(path[t])
		else if (kind[t] == "policy") policy(path[t])
		# the cgroup core's EINVAL: no write handler (root opens the
		# 0444 file: cgroupfs checks no mode at open as sysfs does)
		else emit("n", "err=EINVAL", "none", path[t], rand() < 0.5 ? dev " 0" : garb(rnd(20)))
	}
}
EOF

# --- one writer -------------------------------------------------------------------
# errno of the shell's last error text ("sh: write error: Invalid argument",
# "sh: can't create F: Permission denied")
errname() {
	case $1 in
	*"Invalid argument") echo EINVAL ;;
	*"No such device") echo ENODEV ;;
	*"Argument list too long") echo E2BIG ;;
	*"out of range") echo ERANGE ;;
	*"busy") echo EBUSY ;;
	*"Permission denied") echo EACCES ;;
	*"No such file or directory") echo ENOENT ;;
	*) echo "'$1'" ;;
	esac
}

# rd FILE: the file's lines joined by '|' into RD (builtins only: no fork)
rd() {
	RD=""
	while IFS= read -r _l || [ -n "$_l" ]; do RD="$RD$_l|"; done <"$1"
}

# has_line TEXT: RD (from rd) has the line TEXT
has_line() { case "|$RD" in *"|$1|"*) return 0 ;; esac; return 1; }
# has_prefix TEXT: RD has a line starting with TEXT
has_prefix() { case "|$RD" in *"|$1"*) return 0 ;; esac; return 1; }

# writer W PHASE PLAN: run the plan; counts by message kind to $RW/cnt.PHASE.W
writer() {
	_w=$1 _ph=$2
	_n=0 _acc=0 _ref=0 _bad=0
	n_tun=0 n_busy=0 n_weight=0 n_wfmt=0 n_class=0 n_nodisk=0 n_policy=0 n_none=0
	_ef=$RW/err.$_w
	while IFS="$TAB" read -r mode exp grp path val; do
		_n=$((_n + 1))
		val=${val//|/$NL}
		val=${val//%/$TAB}
		_ro=0
		case $path in */io.efq.disk_*) _ro=1 ;; esac
		[ $_ro = 1 ] || rd "$path"
		_before=$RD
		if [ "$mode" = p ]; then
			{ echo -n "$val" >"$path"; } 2>$_ef
		else
			{ echo "$val" >"$path"; } 2>$_ef
		fi
		_rc=$?
		_e=""
		[ $_rc = 0 ] || { read -r _e <$_ef; _e=$(errname "$_e"); }
		_why=""
		[ $_ro = 1 ] || rd "$path"
		case $exp in
		err=*)
			if [ $_rc = 0 ]; then
				_why="accepted, expected ${exp#err=}"
			elif [ "$_e" != "${exp#err=}" ]; then
				_why="refused with $_e, expected ${exp#err=}"
			elif [ $_ro = 0 ] && [ "$RD" != "$_before" ]; then
				_why="refused but the file changed from '$_before' to '$RD'"
			fi
			;;
		busy:*)
			if [ $_rc != 0 ] && [ "$_e" = EBUSY ]; then
				grp=busy
				[ "$RD" = "$_before" ] || _why="refused (EBUSY) but the file changed from '$_before' to '$RD'"
			elif [ $_rc != 0 ]; then
				_why="refused with $_e, expected success or EBUSY"
			elif [ "$RD" != "${exp#busy:}|" ]; then
				_why="accepted, reads '$RD', expected ${exp#busy:}"
			fi
			;;
		*)
			_x=${exp#ok=}
			if [ $_rc != 0 ]; then
				_why="refused with $_e, expected success"
			else
				case $_x in
				tun:* | class:*) [ "$RD" = "${_x#*:}|" ] || _why="reads '$RD', expected ${_x#*:}" ;;
				same) [ "$RD" = "$_before" ] || _why="changed from '$_before' to '$RD'" ;;
				wdef:*) has_prefix "default ${_x#wdef:}|" || _why="reads '$RD', expected the first line 'default ${_x#wdef:}'" ;;
				wrule:*) has_line "${_x#wrule:}" || _why="reads '$RD', no line '${_x#wrule:}'" ;;
				wnorule:*) has_prefix "${_x#wnorule:} " && _why="reads '$RD', still a line for ${_x#wnorule:}" ;;
				pol:*)
					set -- ${_x#pol:}
					has_line "$1$TAB$2$TAB$3" || _why="reads '$RD', no line '$1 $2 $3'"
					;;
				polnone:*) has_prefix "${_x#polnone:}$TAB" && _why="reads '$RD', still a rule for ${_x#polnone:}" ;;
				esac
			fi
			;;
		esac
		if [ $_rc = 0 ]; then
			_acc=$((_acc + 1))
		else
			_ref=$((_ref + 1))
			eval "n_$grp=\$((n_$grp + 1))"
		fi
		case $path in */slice_idle | */group_idle)
			# an idle of 49 days armed meanwhile would hold the device
			# for that long: back to the default at once
			[ $_rc = 0 ] && echo 8 >"$path" 2>/dev/null ;;
		esac
		if [ -n "$_why" ]; then
			_bad=$((_bad + 1))
			if [ $_bad -le 5 ]; then
				_sv=$(printf '%s' "$val" | head -c 60 | tr '\n\t' '|%')
				fail "random writer seed $SEED phase $_ph writer $_w write $_n: '$_sv'$([ ${#val} -gt 60 ] && echo "... (${#val} bytes)")$([ "$mode" = p ] && echo ' (no newline)') to ${path#/sys/}: $_why"
			fi
		fi
	done
	echo "$_n $_acc $_ref $_bad $n_tun $n_busy $n_weight $n_wfmt $n_class $n_nodisk $n_policy $n_none" >$RW/cnt.$_ph.$_w
}

# targets W SCHED: writer W's files ("" SCHED: no efq scheduler, cgroup files only)
targets() {
	_i=0
	if [ -n "$2" ] && [ -f /tunables/$2 ]; then
		awk 'NR > 1 { split($4, r, /\.\./); print $1, r[1], r[2] }' /tunables/$2 |
			while read -r name lo hi; do
				if [ $((_i % 3)) = $1 ]; then
					sg=0
					[ "$2" = deadline-fq ] && case $name in read_expire | write_expire | writes_starved | front_merges | fifo_batch) sg=1 ;; esac
					echo "tun $IOS/$name $name $lo $hi $sg"
				fi
				_i=$((_i + 1))
			done
	fi
	_c=$CG/$(echo "rw-a rw-b rw-c" | cut -d' ' -f$(($1 + 1)))
	echo "weight $_c/io.efq.weight"
	echo "class $_c/io.efq.ioprio_class"
	echo "policy $_c/io.efq.policy"
	for f in $_c/io.efq.disk_*; do echo "stat $f"; done
	[ $1 = 0 ] && echo "stat $CG/io.efq.disk_time"
}

# reset_cg NAME: the cgroup's efq settings back to the defaults
reset_cg() {
	echo 500 >$CG/$1/io.efq.weight
	echo 2 >$CG/$1/io.efq.ioprio_class
	echo "$DEV default" >$CG/$1/io.efq.weight
	for a in $ABSENT; do echo "$a default" >$CG/$1/io.efq.weight; done
}

# --- fio --------------------------------------------------------------------------
# rw-a: direct random writes 4k-16k, crc32c verified every 16 blocks, on
# 0-48M; rw-b: buffered random writes 4k-32k, verified every 32, on 48M-96M;
# rw-c: direct random reads on 96M-192M
FIO_A="--name=a --rw=randwrite --direct=1 --ioengine=libaio --iodepth=4 --bsrange=4k-16k --offset=0 --size=48m --verify=crc32c --verify_backlog=16"
FIO_B="--name=b --rw=randwrite --direct=0 --ioengine=psync --bsrange=4k-32k --offset=48m --size=48m --verify=crc32c --verify_backlog=32"
FIO_C="--name=c --rw=randread --direct=1 --ioengine=libaio --iodepth=8 --bs=4k --offset=96m --size=96m"
fio_start() { # PHASE: start the three, pids in FIO_PIDS
	FIO_PIDS=""
	for j in a b c; do
		eval "_o=\$FIO_$(echo $j | tr a-z A-Z)"
		# shellcheck disable=SC2086
		in_cg rw-$j $RW/fio.$1.$j fio --filename=/dev/$D --minimal --time_based --runtime=$PHASE_S $_o
		FIO_PIDS="$FIO_PIDS $!"
	done
}
fio_kb() { awk -F';' '$1 == 3 { s += $6 + $47 } END { printf "%.0f\n", s }' "$@"; }

# racer: valid numbers into whatever queue/iosched/ holds (it changes under
# it during a switch); errors are expected (files come and go) and not
# judged.  Not hierarchical: its EBUSY would be a refusal with a message.
racer() {
	_r=$1
	while [ -e $RW/racing ]; do
		for f in $IOS/*; do
			case $f in */hierarchical | *"/*") continue ;; esac
			_r=$(((_r * 1103515245 + 12345) % 2147483648))
			echo $((_r % 200 + 1)) >"$f" 2>/dev/null
		done
	done
}

# --- the phases -------------------------------------------------------------------
SCHEDS=$(awk -v s="$SEED" -v n="$ROUNDS" 'BEGIN {
	srand(s); split("deadline-fq as noop cfq mq-deadline none", a, " ")
	last = ""
	while (k < n) {
		for (i = 6; i > 1; i--) { j = int(rand() * i) + 1; t = a[i]; a[i] = a[j]; a[j] = t }
		for (i = 1; i <= 6 && k < n; i++) if (a[i] != last) { printf "%s ", a[i]; last = a[i]; k++ }
	}
}')
log "random writer: schedulers in turn: $SCHEDS"
ph=0
for S in $SCHEDS; do
	ph=$((ph + 1))
	el=$(awk -v a="$T0" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%d", b - a }')
	if [ "$el" -gt "$LIMIT" ]; then
		log "random writer: stopping after $((ph - 1)) of $ROUNDS phases: $el s of the file's budget spent"
		break
	fi
	item "phase-$ph-$S" || continue
	for c in rw-a rw-b rw-c; do reset_cg $c; done
	c0=$(dev_ios $D)
	fio_start $ph
	# the scheduler changes under IO: once the device has completed some
	_t=0
	while [ "$(dev_ios $D)" = "$c0" ] && [ $_t -lt 100 ]; do
		usleep 100000
		_t=$((_t + 1))
	done
	touch $RW/racing
	racer $((SEED + ph)) &
	rp=$!
	set_sched $D $S
	rc=$?
	rm -f $RW/racing
	wait_pid $rp 10 || kill -9 $rp
	cond "random writer phase $ph: switch $D to $S under IO" "$rc" = 0
	if [ $rc = 0 ] && [ $S != none ] && [ $S != mq-deadline ]; then
		# the tunables at their defaults: the racer wrote some
		awk 'NR > 1 { print $1, $2 }' /tunables/$S | while read -r name def; do
			case $name in nr_group_requests | hierarchical) continue ;; esac
			echo "$def" >$IOS/$name
		done
		TS=$S
	else
		TS=""
	fi
	# two short-lived cgroups with a reader each, weights changed under it
	for x in 1 2; do
		cg_make rw-t$x
		echo $(((SEED * 7 + ph * 13 + x * 101) % 901 + 100)) >$CG/rw-t$x/io.efq.weight
		in_cg rw-t$x $RW/t.$ph.$x fio --name=t --filename=/dev/$D --direct=1 --rw=randread --bs=4k \
			--offset=$((x * 64))m --size=32m --runtime=2 --time_based --minimal
		eval "tp$x=\$!"
	done
	WP=""
	for w in 0 1 2; do
		targets $w "$TS" >$RW/targets.$w
		awk -v seed=$((SEED * 1000 + ph * 10 + w)) -v n="$OPS" -v dev="$DEV" -v absent="$ABSENT" \
			-f $RW/plan.awk $RW/targets.$w >$RW/plan.$ph.$w
		(writer $w $ph <$RW/plan.$ph.$w) &
		WP="$WP $!"
	done
	for x in 1 2; do
		echo $(((SEED * 11 + ph * 17 + x * 37) % 901 + 100)) >$CG/rw-t$x/io.efq.weight
	done
	# shellcheck disable=SC2086
	wait_all 60 $WP || fail "random writer phase $ph: the writers end within 60 s"
	for c in rw-a rw-b rw-c; do reset_cg $c; done
	# shellcheck disable=SC2086
	if ! run_watched_pids $((PHASE_S + 60)) "$D" $FIO_PIDS; then
		fail "random writer phase $ph ($S): fio: $WATCH_WHAT"
		break
	fi
	c1=$(dev_ios $D)
	ok=0
	for j in a b c; do fio_ok $RW/fio.$ph.$j && ok=$((ok + 1)); done
	kb=$(fio_kb $RW/fio.$ph.a $RW/fio.$ph.b $RW/fio.$ph.c)
	cond "random writer phase $ph ($S): fio in rw-a, rw-b, rw-c exits 0, verify included ($ok of 3), moved $kb KiB, the device completed $((c1 - c0)) IOs" \
		"$ok" = 3 -a "$kb" -gt 0 -a "$c1" -gt "$c0"
	[ "$ok" = 3 ] || for j in a b c; do
		fio_ok $RW/fio.$ph.$j || log "fio $j: $(grep -v '^3;' $RW/fio.$ph.$j | head -n 5 | tr '\n' ' ')"
	done
	wait_all 30 $tp1 $tp2 || fail "random writer phase $ph: the short-lived readers end"
	for x in 1 2; do
		check "random writer phase $ph: rmdir rw-t$x after its IO" cg_remove rw-t$x
	done
	for w in 0 1 2; do
		if [ -f $RW/cnt.$ph.$w ]; then
			read -r n acc ref bad _ <$RW/cnt.$ph.$w
			cond "random writer phase $ph ($S) writer $w: $n writes as documented ($acc accepted, $ref refused)" "$bad" = 0 -a "$n" = "$OPS"
		else
			fail "random writer phase $ph writer $w: no counts (the writer died)"
		fi
	done
done

# --- final data check -------------------------------------------------------------
FS=$(echo "$SCHEDS" | awk '{ for (i = 1; i <= NF; i++) if ($i !~ /none|mq-deadline/) { print $i; exit } }')
FS=${FS:-cfq}
item "final-verify-$FS" && {
	set_sched $D $FS || fail "random writer: select $FS for the final verify"
	for c in rw-a rw-b rw-c; do reset_cg $c; done
	echo 300 >$CG/rw-a/io.efq.weight
	echo 800 >$CG/rw-c/io.efq.weight
	FP=""
	for j in a b c; do
		case $j in a) o=0 ;; b) o=64 ;; *) o=128 ;; esac
		in_cg rw-$j $RW/final.$j fio --name=v$j --filename=/dev/$D --minimal --rw=write --direct=$([ $j = b ] && echo 0 || echo 1) \
			--bs=64k --offset=${o}m --size=32m --verify=crc32c --do_verify=1
		FP="$FP $!"
	done
	# shellcheck disable=SC2086
	if run_watched_pids 120 "$D" $FP; then
		for j in a b c; do
			check "random writer: rw-$j writes 32 MiB and reads it back, crc32c verified, under $FS" fio_ok $RW/final.$j
		done
	else
		fail "random writer: final verify: $WATCH_WHAT"
	fi
}

# --- the messages -----------------------------------------------------------------
# One probe write per ratelimit state, 5.5 s after the last refusal: each
# must leave its message at once (and prints its state's suppressed count)
item "messages" && {
	set_sched $D $FS || fail "random writer: select $FS for the message probes"
	sleep 5.5
	W=$CG/rw-a/io.efq.weight P=$CG/rw-a/io.efq.policy C=$CG/rw-a/io.efq.ioprio_class
	TN=$(awk -v s=$SEED 'NR > 1 && $1 != "hierarchical" { n[++k] = $1 } END { srand(s); print n[int(rand() * k) + 1] }' /tunables/$FS)
	pn=0
	probe() { # GROUP FILE VALUE PATTERN
		pn=$((pn + 1))
		_k=$(dmesg | wc -l)
		if (echo "$3" >"$2") 2>/dev/null; then
			fail "random writer: probe '$3' to ${2#/sys/} is refused"
			return
		fi
		eval "p_$1=\$((p_$1 + 1))"
		_m=$(dmesg | tail -n +$((_k + 1)) | grep -E "$4" | head -n 1)
		cond "random writer: refused '$3' to ${2#/sys/} leaves a message /$4/ (${_m:-none})" -n "$_m"
	}
	p_tun=0 p_weight=0 p_wfmt=0 p_class=0 p_nodisk=0 p_policy=0
	# a tab in the text: shown as '?'
	probe tun $IOS/$TN "q$SEED${TAB}x" "efq: $D: $FS: $TN: \"q$SEED\\?x\" is not a number"
	probe tun $IOS/$TN "$(awk 'BEGIN { while (n++ < 30) printf "9" }')" "efq: $D: $FS: $TN: \"9{30}\" is too large a number"
	probe weight $W 5 "efq: io\.efq\.weight: weight 5 out of range 100\.\.1000"
	probe wfmt $W "q$SEED" "efq: io\.efq\.weight takes"
	probe class $C "q$SEED" "efq: ioprio_class: not a number"
	probe class $C 7 "efq: ioprio class 7 is not 1"
	probe class $P "$DEV 500 9" "efq: ioprio class 9 is not 1"
	probe nodisk $W "1:3 500" "efq: 1:3 is not a whole disk"
	probe policy $P "q$SEED" "efq: io\.efq\.policy must be"

	# per kind: refusals counted == messages printed + suppressed
	dmesg | tail -n +$((K0 + 1)) >$RW/kmsg
	for g in tun weight wfmt class nodisk policy busy; do
		case $g in
		tun) re='efq: [^ ]+: [^ ]+: [^ ]+: ".*"(\.\.\.)? is (not a number|too large a number)' fn=efq_warn_bad_tunable ;;
		busy) re='efq: [^ ]+: [^ ]+: hierarchical: not changed while requests are queued' fn=efq_tunable_store ;;
		weight) re='efq: [^ ]+: weight [0-9]+ out of range' fn=efq_weight_in ;;
		wfmt) re='efq: io\.efq\.weight takes' fn=efq_cgroup_write_weight ;;
		class) re='efq: ioprio(_class:| class [0-9]+ is not)' fn='efq_valid_class|efq_class_write' ;;
		nodisk) re='efq: [0-9]+:[0-9]+ is not a whole disk' fn=efq_update_rule ;;
		policy) re='efq: [^ ]+ must be "MAJ:MIN' fn=efq_write_policy ;;
		esac
		col=$(echo "tun busy weight wfmt class nodisk policy" | awk -v g=$g '{ for (i = 1; i <= NF; i++) if ($i == g) print i + 4 }')
		exp=$(cat $RW/cnt.* 2>/dev/null | awk -v c=$col '{ s += $c } END { print s + 0 }')
		eval "exp=\$((exp + \${p_$g:-0}))"
		printed=$(grep -cE "$re" $RW/kmsg)
		supp=$(grep -E "($fn): [0-9]+ callbacks suppressed" $RW/kmsg | awk '{ for (i = 1; i <= NF; i++) if ($i == "callbacks") s += $(i - 1) } END { print s + 0 }')
		got=$((printed + supp))
		if [ $g = busy ]; then
			# its state is not flushed (no write is sure to find requests
			# queued): the first refusal prints, none prints unasked
			cond "random writer: EBUSY refusals of hierarchical ($exp) leave messages ($printed printed, $supp suppressed)" \
				"$got" -le "$exp" -a \( "$exp" = 0 -o "$printed" -gt 0 \)
		else
			# a count is lost when two writers meet on the ratelimit's lock
			# (___ratelimit's trylock): 1% + 1 tolerated
			cond "random writer: refusals of kind $g ($exp) = messages printed ($printed) + suppressed ($supp)" \
				"$got" -le "$exp" -a "$got" -ge $((exp - exp / 100 - 1))
		fi
	done
	grep -E 'efq: ' $RW/kmsg | sed 's/^\[[ 0-9.]*\] //; s/".*"/"..."/' | sort | uniq -c | sort -rn | head -n 16 |
		while read -r l; do log "kmsg: $l"; done
}

set_sched $D none
for c in rw-a rw-b rw-c rw-t1 rw-t2; do [ -d $CG/$c ] && { cg_remove $c || fail "random writer: rmdir $c"; }; done
nb_remove 55 || fail "random writer: remove $D"
log "random writer: seed $SEED took $(awk -v a="$T0" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.0f", b - a }') s"
