# SPDX-License-Identifier: GPL-2.0
#
# Integrity: what is written reads back identical, under every scheduler,
# with none, mq-deadline and bfq as the controls on the same kind of device
# in the same run.  Each workload x scheduler x mode is one item (lib.sh's
# `item`) on a fresh memory-backed null_blk of its own:
#   seqwrite  fio sequential write + verify (crc32c, verify_fatal), direct
#   randmix   fio random write, mixed sizes (bssplit 4k..1m) + verify, direct
#   buffered  fio buffered write with fsync/fdatasync, page cache dropped,
#             then a verify-only pass read from the device
#   trim      two halves written; the first discarded (randtrim) under the
#             scheduler must read back as zeros (null_blk frees discarded
#             sectors of a memory-backed device and reads absent sectors as
#             zeros), the second must still verify
#   fs        ext4: a tree of files of mixed sizes, sync, caches dropped,
#             umount/mount, sha256 of every file compared; find/du from two
#             cgroups at once (metadata reads); e2fsck -n clean
#   cgwb      cgroup writeback: two cgroups (+memory +io) each dirty files on
#             ext4, sync; io.stat shows each cgroup's writeback; checksums
#             after remount
#   mq        submit_queues=4, two fio jobs pinned to CPU 0 and CPU 1
#   switch    a verifying fio while the scheduler is switched, the weight
#             changed and the fio's cgroup removed, mid-IO
#   faults    scsi_debug (Debian's kernel) with injected timeouts and
#             host-busy requeues the SCSI midlayer retries, fio verify on it
#             (skipped, with the reason, where the kernel lacks scsi_debug)
#   nomem     failslab (the debug kernel of make vmtest-debug): 20% of the
#             non-sleeping slab allocations of the fio task fail (task
#             filter, GFP_NOWAIT only: efq's queue and group allocations on
#             the submission path, bfq's for the control), fio verify;
#             the kernel log must show an efq function in at least one
#             failed allocation's stack (efq's fallback paths taken)
#   failreq   fail_make_request on the device (the debug kernel): 10% of
#             the bios fail at submission while a random write with
#             continue_on_error runs (its errors are the injected EIOs), then
#             injection off and a whole write + verify
# The efq schedulers run flat (iosched/hierarchical 0) and hierarchical.
#
# Pass: fio ends with status 0 and error 0 and has verified exactly the
# bytes written (or the checksums match), no stall (the device's completed
# IO count stands still for ${STALL:-30} s while the workload runs: the
# device's blk-mq and scheduler state is dumped, the device left for dead),
# no timeout, no kernel warning during the item.  An oops panics the guest
# (oops=panic): scripts/vm/vmtest fails that item with the oops line and
# boots again to run the items after it.
#
# Default (vmtest.integrity=fast): 8 MiB per workload, one representative
# of each workload class per scheduler (seqwrite flat and hierarchical, the
# others hierarchical), with the three controls for seqwrite and
# mq-deadline for the others.  vmtest.integrity=full (make vmtest-integrity):
# all three controls and both modes everywhere, and the variants (block
# sizes 4k to 1m, iodepth 1 to 64, fsync and fdatasync, trimwrite);
# seqwrite is the job of the oops report at its size, 64 MiB, every other
# workload 16 MiB (about 40 s an item under TCG at 64 MiB, 200 items: the
# whole matrix at 64 MiB would take over two hours).
#
# vmtest-budget: 600
# vmtest-budget-full: 5400

FULL=0
IONLY=""
SKIPCFG=$(sed -n 's/.*vmtest\.skipcfg=\([^ ]*\).*/\1/p' /proc/cmdline)
case ${INTEGRITY:-fast} in *:*) IONLY=${INTEGRITY#*:} INTEGRITY=${INTEGRITY%%:*} ;; esac
[ "$INTEGRITY" = full ] && FULL=1
# SZ: MiB per item (seqwrite's in the full matrix: SZ_SEQ)
if [ $FULL = 1 ]; then SZ=16 SZ_SEQ=64; else SZ=8 SZ_SEQ=8; fi
SZ_ALL=$SZ
# the device of the oops report: 200 us timer completions, depth 2
VDEV="irqmode=2 completion_nsec=200000 hw_queue_depth=2 memory_backed=1"
CONTROLS="none mq-deadline bfq"
VOPT="--verify=crc32c --verify_fatal=1"
MNT=/mnt/integrity
mkdir -p $MNT
log "integrity: mode ${INTEGRITY:-fast}, ${SZ} MiB per workload (seqwrite ${SZ_SEQ} MiB), memory-backed null_blk ($VDEV)"

# run a command inside a cgroup (a script: `$$` of a subshell is the
# parent's in busybox sh)
cat >/tmp/cgexec <<'EOF'
#!/bin/sh
echo $$ >"/sys/fs/cgroup/$1/cgroup.procs" || exit 125
shift
exec "$@"
EOF
chmod +x /tmp/cgexec
# random data for the file trees (one read of urandom, reused at offsets)
head -c 1048576 /dev/urandom >/tmp/rand1m
# cgroup writeback needs the memory controller next to io
echo +memory >$CG/cgroup.subtree_control 2>/dev/null ||
	log "integrity: +memory in $CG/cgroup.subtree_control failed (cgwb will say so)"
cg_make ig

: >/tmp/integrity.rows

# --- per item: device, scheduler, accounting ---------------------------------------
# idev EXTRA...: a fresh device nullb(100 + item) for this item: D, DN
idev() {
	DN=$((100 + ITEM_N % 900)) D=nullb$((100 + ITEM_N % 900))
	# shellcheck disable=SC2086
	nb_create $DN $VDEV size=$((SZ * 2 + 64)) "$@"
}

# isched SCHED MODE: select SCHED on $D; MODE flat or hier for the efq
# schedulers (written while the device is idle), - for the controls
isched() {
	set_sched $D $1 || return 1
	case $2 in
	flat) echo 0 >/sys/block/$D/queue/iosched/hierarchical || return 1 ;;
	hier) echo 1 >/sys/block/$D/queue/iosched/hierarchical || return 1 ;;
	esac
	return 0
}

# start ITEM-DESC: begin the accounting of one item
start() {
	W=$1 S=$2 M=$3
	VB=0 VE=0 VS=0 BAD="" NOTE=""
	T0=$(date +%s)
}

# bad TEXT: the item fails, TEXT says why
bad() { BAD="${BAD:+$BAD; }$*"; }

# watched TMO DEVS OUT CMD...: run_watched, the stall or timeout recorded
watched() {
	run_watched "$@"
	_w=$?
	case $_w in
	0) return 0 ;;
	1)
		VS=$((VS + 1))
		bad "$WATCH_WHAT"
		;;
	*) bad "$WATCH_WHAT" ;;
	esac
	return $_w
}

# fio_phase WHAT EXPECT_KIB fio-args...: fio (terse) on $D in cgroup ig;
# adds the read KiB (what verify read back) to VB; EXPECT_KIB: the bytes it
# must have verified (- for a phase that verifies nothing)
fio_phase() {
	_what=$1 _exp=$2
	shift 2
	_o=/tmp/ifio.$ITEM_N
	watched ${FIO_TMO:-180} "$D" $_o /tmp/cgexec ig fio --minimal "$@" || {
		tail -n 3 $_o
		return 1
	}
	_rc=$WAIT_RC
	_e=$(fio_err $_o)
	_kib=$(awk -F';' '$1 == 3 { s += $6 } END { print s + 0 }' $_o)
	[ "$_exp" = - ] || VB=$((VB + _kib * 1024))
	if [ "$_rc" != 0 ] || [ "$_e" != 0 ]; then
		VE=$((VE + 1))
		bad "$_what: fio status $_rc, error $_e: $(grep -v '^3;' $_o | grep -E 'verify|err|fio:' | head -n 2 | tr '\n' ' ')"
		return 1
	fi
	if [ "$_exp" != - ] && [ "$_kib" != "$_exp" ]; then
		bad "$_what: verified $_kib KiB, expected $_exp KiB"
		return 1
	fi
	return 0
}

# flush_caches DEV: written back, the device's page cache dropped, so that
# the next read comes from the device
flush_caches() {
	sync
	blockdev --flushbufs /dev/$1 2>/dev/null
	echo 3 >/proc/sys/vm/drop_caches
}

# finish_item: judge, print the CHECK line and the table row, remove the
# device (unless it is dead); nothing for an item skip_item skipped
finish_item() {
	if [ "$FAULT_SKIP" = 1 ]; then
		FAULT_SKIP=0
		[ -n "$D" ] && nb_remove $DN
		D="" DN=""
		return
	fi
	_k=$(item_dmesg)
	[ -n "$_k" ] && bad "kernel: $_k"
	if [ -z "$BAD" ]; then
		_r=ok
		pass "integrity $W $S $M: $VB bytes verified, $VE errors, $VS stalls${NOTE:+ ($NOTE)}"
	else
		_r=FAIL
		fail "integrity $W $S $M: $VB bytes verified, $VE errors, $VS stalls: $BAD"
	fi
	_d="[$(($(date +%s) - T0)) s] ${BAD:-$NOTE}"
	echo "ROW integrity: $ITEM_N|$W|$S|$M|$VB|$VE|$VS|$_r|$(echo "$_d" | cut -c1-100)"
	echo "$ITEM_N|$W|$S|$M|$VB|$VE|$VS|$_r|$(echo "$_d" | cut -c1-100)" >>/tmp/integrity.rows
	grep -q " $MNT " /proc/mounts && umount $MNT 2>/dev/null
	[ -n "$D" ] && nb_remove $DN
	D="" DN=""
}

# skip_item WHY: the kernel lacks what the item needs: logged, not counted
skip_item() {
	log "integrity $W $S $M: skipped: $*"
	echo "ROW integrity: $ITEM_N|$W|$S|$M|-|-|-|skip|$*"
	echo "$ITEM_N|$W|$S|$M|-|-|-|skip|$*" >>/tmp/integrity.rows
}

# setup_item WORKLOAD SCHED MODE [nb_create options]: start + device +
# scheduler; 1 if that failed (then the item is judged already)
setup_item() {
	start "$1" "$2" "$3"
	_s=$2 _m=$3
	shift 3
	if ! idev "$@"; then
		bad "create the null_blk device"
		D=""
		finish_item
		return 1
	fi
	if ! isched $_s $_m; then
		bad "select $_s ($_m) on $D: $(cat /sys/block/$D/queue/scheduler)"
		finish_item
		return 1
	fi
	return 0
}

# configs MODES: "SCHED MODE" lines: the controls, then each efq
# scheduler in each of MODES (cfq last)
configs() {
	for _c in $CTRL; do echo "$_c -"; done
	for _s in $EFQ_SCHEDS; do
		for _m in "$@"; do echo "$_s $_m"; done
	done
}
if [ $FULL = 1 ]; then MODES_ALL="flat hier" MODES_ONE="flat hier"; else MODES_ALL="flat hier" MODES_ONE="hier"; fi

# --- workloads ------------------------------------------------------------------------
KIB=$((SZ * 1024))

# seqwrite BS IODEPTH: sequential write, then read back and verified
w_seqwrite() {
	fio_phase "write+verify bs $1 iodepth $2" $KIB --name=seq --filename=/dev/$D --rw=write \
		--bs=$1 --iodepth=$2 --ioengine=libaio --direct=1 --size=${SZ}M $VOPT --do_verify=1
}

# randmix BSSPLIT IODEPTH: random write of mixed sizes, verified
w_randmix() {
	fio_phase "randwrite+verify bssplit $1 iodepth $2" $KIB --name=rnd --filename=/dev/$D \
		--rw=randwrite --bssplit=$1 --iodepth=$2 --ioengine=libaio --direct=1 --size=${SZ}M \
		$VOPT --do_verify=1
}

# buffered RW BSOPT SYNCOPT: buffered write with fsync/fdatasync, caches
# dropped, then verify-only from the device (direct)
w_buffered() {
	_j="--name=buf --filename=/dev/$D --rw=$1 $2 --size=${SZ}M $VOPT"
	# shellcheck disable=SC2086
	fio_phase "buffered $1 bs $2 $3" - $_j --ioengine=psync --direct=0 $3 --do_verify=0 || return
	flush_caches $D
	# shellcheck disable=SC2086
	fio_phase "verify-only after buffered $1 (caches dropped)" $KIB $_j --ioengine=libaio \
		--iodepth=8 --direct=1 --verify_only=1
}

# trim HOW: halves a and b written; a discarded (HOW: randtrim or trim)
# must read zeros, b must verify
w_trim() {
	_h=$((SZ / 2))
	_a="--name=ta --filename=/dev/$D --rw=write --bs=64k --offset=0 --size=${_h}M $VOPT"
	_b="--name=tb --filename=/dev/$D --rw=randwrite --bssplit=4k/50:64k/50 --offset=${_h}M --size=${_h}M $VOPT"
	# shellcheck disable=SC2086
	fio_phase "write half a" - $_a --ioengine=libaio --iodepth=8 --direct=1 --do_verify=0 || return
	# shellcheck disable=SC2086
	fio_phase "write half b" - $_b --ioengine=libaio --iodepth=8 --direct=1 --do_verify=0 || return
	_d0=$(awk '{ print $12 }' /sys/block/$D/stat)
	fio_phase "$1 half a" - --name=tr --filename=/dev/$D --rw=$1 --bssplit=4k/30:64k/40:1m/30 \
		--offset=0 --size=${_h}M --ioengine=libaio --iodepth=8 --direct=1 || return
	_d1=$(awk '{ print $12 }' /sys/block/$D/stat)
	NOTE="$((_d1 - _d0)) discards"
	[ $((_d1 - _d0)) -gt 0 ] || bad "no discard reached the device (stat discards $_d0 -> $_d1)"
	flush_caches $D
	_z=$(dd if=/dev/zero bs=1M count=$_h 2>/dev/null | md5sum | cut -d' ' -f1)
	_g=$(dd if=/dev/$D bs=1M count=$_h iflag=direct 2>/dev/null | md5sum | cut -d' ' -f1)
	if [ "$_z" = "$_g" ]; then
		VB=$((VB + _h * 1048576))
	else
		VE=$((VE + 1))
		bad "the discarded half does not read back as zeros ($(dd if=/dev/$D bs=1M count=$_h 2>/dev/null | tr -d '\000' | wc -c) non-zero bytes)"
	fi
	# shellcheck disable=SC2086
	fio_phase "verify-only half b" $((_h * 1024)) $_b --ioengine=libaio --iodepth=8 --direct=1 --verify_only=1
}

# trimwrite: each block discarded, then written, then verified
w_trimwrite() {
	fio_phase "trimwrite+verify" $KIB --name=tw --filename=/dev/$D --rw=trimwrite --bs=64k \
		--iodepth=8 --ioengine=libaio --direct=1 --size=${SZ}M $VOPT --do_verify=1
}

# mq: two jobs, one pinned to each CPU, on a device with 4 hardware queues
w_mq() {
	_h=$((SZ / 2))
	fio_phase "2 jobs pinned to CPU 0 and 1, 4 hardware queues" $KIB $VOPT --do_verify=1 \
		--filename=/dev/$D --ioengine=libaio --direct=1 \
		--name=cpu0 --cpus_allowed=0 --rw=write --bs=4k --iodepth=32 --offset=0 --size=${_h}M \
		--name=cpu1 --cpus_allowed=1 --rw=randwrite --bssplit=4k/50:64k/30:256k/20 --iodepth=16 \
		--offset=${_h}M --size=${_h}M
	# CPU 0 and CPU 1 map to different hardware queues (so the two pinned
	# jobs submitted to two queues); the first queue listing a CPU is its
	# default one (null_blk's poll queue, the last, lists every CPU)
	_q0="" _q1=""
	for _q in $(ls -d /sys/block/$D/mq/* | sort -t/ -k6 -n); do
		_l=" $(tr ',' ' ' <$_q/cpu_list) "
		case $_l in *" 0 "*) [ -n "$_q0" ] || _q0=${_q##*/} ;; esac
		case $_l in *" 1 "*) [ -n "$_q1" ] || _q1=${_q##*/} ;; esac
	done
	NOTE="$(ls -d /sys/block/$D/mq/* | wc -l) hardware queues; CPU 0 -> queue $_q0, CPU 1 -> queue $_q1"
	[ -n "$_q0" ] && [ -n "$_q1" ] && [ "$_q0" != "$_q1" ] ||
		bad "CPU 0 and CPU 1 are not on two hardware queues (queue '$_q0', '$_q1')"
}

# mkfs_mount: ext4 on $D at $MNT
mkfs_mount() {
	if ! /sbin/mkfs.ext4 -q -F -E nodiscard /dev/$D >/tmp/mkfs.$ITEM_N 2>&1; then
		bad "mkfs.ext4: $(head -n 2 /tmp/mkfs.$ITEM_N | tr '\n' ' ')"
		return 1
	fi
	if ! mount -t ext4 /dev/$D $MNT 2>/tmp/mount.$ITEM_N; then
		bad "mount: $(cat /tmp/mount.$ITEM_N)"
		return 1
	fi
}

# remount_check SUMS: caches dropped, umount, mount, the sums compared
remount_check() {
	sync
	echo 3 >/proc/sys/vm/drop_caches
	if ! umount $MNT; then
		bad "umount $MNT"
		return 1
	fi
	echo 3 >/proc/sys/vm/drop_caches
	mount -t ext4 /dev/$D $MNT || {
		bad "mount again"
		return 1
	}
	watched 120 "$D" /tmp/sum2.$ITEM_N sh -c "cd $MNT && find . -type f | sort | xargs sha256sum" || return 1
	if cmp -s "$1" /tmp/sum2.$ITEM_N && [ -s "$1" ]; then
		VB=$((VB + $(cd $MNT && find . -type f | xargs cat | wc -c)))
	else
		VE=$((VE + 1))
		bad "checksums differ after remount: $(diff "$1" /tmp/sum2.$ITEM_N | grep '^[-+][0-9a-f]' | head -n 2 | tr '\n' ' ')"
		return 1
	fi
}

# the tree writer (run inside a cgroup): DIR SEED NDIRS NFILES
cat >/tmp/mktree <<'EOF'
#!/bin/sh
# sizes cycle through 0 B .. 1 MiB; contents are pieces of /tmp/rand1m
dir=$1 seed=$2 nd=$3 nf=$4
set -- 0 1 100 4096 5000 65536 131072 300000 12288 1048576 512 70000
n=0
for d in $(seq 1 $nd); do
	mkdir -p $dir/d$d/sub || exit 1
	for f in $(seq 1 $nf); do
		n=$((n + 1))
		i=$(((n + seed) % 12 + 1))
		eval sz=\${$i}
		p=$dir/d$d/f$f
		[ $((f % 3)) = 0 ] && p=$dir/d$d/sub/f$f
		dd if=/tmp/rand1m of=$p bs=1 count=0 2>/dev/null || exit 1
		if [ $sz -gt 0 ]; then
			# a different offset per file, wrapped within the 1 MiB
			off=$(((n * 4099 + seed) % (1048576 - sz + 1)))
			tail -c +$((off + 1)) /tmp/rand1m | head -c $sz >$p || exit 1
		fi
	done
done
EOF
chmod +x /tmp/mktree

# fs: a tree, checksums, remount, checksums; find/du from two cgroups
w_fs() {
	mkfs_mount || return
	if [ $FULL = 1 ]; then _nd=8 _nf=30; else _nd=4 _nf=24; fi
	watched 240 "$D" /tmp/tree.$ITEM_N /tmp/cgexec ig /tmp/mktree $MNT/tree 7 $_nd $_nf || return
	[ "$WAIT_RC" = 0 ] || {
		bad "writing the tree: status $WAIT_RC: $(head -n 2 /tmp/tree.$ITEM_N)"
		return
	}
	_files=$(find $MNT/tree -type f | wc -l)
	_du=$(du -s $MNT/tree | cut -f1)
	watched 120 "$D" /tmp/sum1.$ITEM_N sh -c "cd $MNT && find . -type f | sort | xargs sha256sum" || return
	remount_check /tmp/sum1.$ITEM_N || return
	# metadata IO from two cgroups at once, caches cold
	echo 3 >/proc/sys/vm/drop_caches
	cg_make iga
	cg_make igb
	/tmp/cgexec iga sh -c "find $MNT/tree -type f | wc -l; du -s $MNT/tree | cut -f1" >/tmp/fa.$ITEM_N 2>&1 &
	_pa=$!
	/tmp/cgexec igb sh -c "find $MNT/tree -type f | wc -l; du -s $MNT/tree | cut -f1" >/tmp/fb.$ITEM_N 2>&1 &
	_pb=$!
	run_watched_pids 120 "$D" $_pa $_pb || {
		[ $? = 1 ] && VS=$((VS + 1))
		bad "find/du from two cgroups: $WATCH_WHAT"
		return
	}
	_want="$_files $_du"
	for _g in a b; do
		_got=$(tr '\n' ' ' </tmp/f$_g.$ITEM_N | sed 's/ $//')
		[ "$_got" = "$_want" ] || bad "find/du in cgroup ig$_g: '$_got', expected '$_want'"
	done
	cg_remove iga
	cg_remove igb
	NOTE="$_files files, ${_du} KiB"
	umount $MNT || bad "umount before fsck"
	if ! /sbin/e2fsck -n -f /dev/$D >/tmp/fsck.$ITEM_N 2>&1; then
		bad "e2fsck -n -f: $(grep -v '^e2fsck\|^Pass' /tmp/fsck.$ITEM_N | head -n 2 | tr '\n' ' ')"
	fi
}

# cgwb: two cgroups (+memory +io) dirty files; writeback attributed
w_cgwb() {
	if ! grep -qw memory $CG/cgroup.subtree_control; then
		bad "the memory controller is not enabled in $CG (cgroup writeback needs it)"
		return
	fi
	mkfs_mount || return
	_dev=$(devnum $D)
	# (no controllers in their own subtree_control: a cgroup that has them
	# can hold no process)
	for _g in cwa cwb; do
		cg_make $_g
		grep -qw memory $CG/$_g/cgroup.controllers || bad "no memory controller in cgroup $_g"
	done
	[ $FULL = 1 ] && _mb=16 || _mb=4
	mkdir -p $MNT/cwa $MNT/cwb
	# buffered writes, then sync, from inside each cgroup
	for _g in cwa cwb; do
		/tmp/cgexec $_g sh -c "i=0; while [ \$i -lt $_mb ]; do i=\$((i + 1)); \
			dd if=/tmp/rand1m of=$MNT/$_g/f\$i bs=64k 2>/dev/null || exit 1; \
			dd if=/tmp/rand1m of=$MNT/$_g/f\$i bs=4k seek=256 count=\$i 2>/dev/null || exit 1; done; sync" \
			>/tmp/$_g.$ITEM_N 2>&1 &
		eval _p$_g=\$!
	done
	for _g in cwa cwb; do
		run_watched_pids 180 "$D" "$(eval echo \$_p$_g)" || {
			[ $? = 1 ] && VS=$((VS + 1))
			bad "writer in $_g: $WATCH_WHAT"
			return
		}
		[ "$WAIT_RC" = 0 ] || bad "writer in $_g: status $WAIT_RC: $(head -n 2 /tmp/$_g.$ITEM_N | tr '\n' ' ')"
		_nf=$(ls $MNT/$_g | wc -l)
		[ "$_nf" = $_mb ] || bad "cgroup $_g wrote $_nf files, expected $_mb"
	done
	_wa=$(awk -v d=$_dev '$1 == d { for (i = 2; i <= NF; i++) if ($i ~ /^wbytes=/) { sub(/wbytes=/, "", $i); print $i } }' $CG/cwa/io.stat)
	_wb=$(awk -v d=$_dev '$1 == d { for (i = 2; i <= NF; i++) if ($i ~ /^wbytes=/) { sub(/wbytes=/, "", $i); print $i } }' $CG/cwb/io.stat)
	NOTE="writeback cwa ${_wa:-0} B, cwb ${_wb:-0} B"
	# each cgroup dirtied _mb MiB and more: most of it must be its own writeback
	for _x in "cwa ${_wa:-0}" "cwb ${_wb:-0}"; do
		set -- $_x
		[ "$2" -ge $((_mb * 1048576 / 2)) ] || bad "cgroup $1: io.stat wbytes $2 for $_dev, expected at least $((_mb / 2)) MiB (cgroup writeback)"
	done
	(cd $MNT && find . -type f | sort | xargs sha256sum) >/tmp/sum1.$ITEM_N
	remount_check /tmp/sum1.$ITEM_N
	cg_remove cwa
	cg_remove cwb
}

# switch: a verifying fio while the scheduler is switched, the weights
# changed and its cgroup removed mid-IO; then a verify-only pass
w_switch() {
	cg_make isa
	cg_make isb
	_j="--name=sw --filename=/dev/$D --rw=randwrite --bssplit=4k/40:64k/40:512k/20 --size=${SZ}M $VOPT"
	# shellcheck disable=SC2086
	/tmp/cgexec isa fio --minimal $_j --ioengine=libaio --iodepth=16 --direct=1 --do_verify=1 \
		>/tmp/sw.$ITEM_N 2>&1 &
	sw_pid=$!
	sleep 1
	if [ "$S" = none ]; then sw_seq="mq-deadline bfq none mq-deadline none"; else sw_seq="none $S mq-deadline $S bfq $S"; fi
	sw_n=0 sw_ok=0 sw_cg=isa
	for sw_t in $sw_seq; do
		sw_n=$((sw_n + 1))
		set_sched $D $sw_t && sw_ok=$((sw_ok + 1))
		[ -e /tmp/dead.$D ] && break
		echo $((100 + sw_n * 150)) >$CG/$sw_cg/io.efq.weight 2>/dev/null
		echo $((100 + sw_n * 150)) >$CG/$sw_cg/io.bfq.weight 2>/dev/null
		if [ $sw_n = 3 ]; then
			# the cgroup is removed while its requests are queued: fio
			# moved to isb first
			for sw_q in $(cat $CG/isa/cgroup.procs); do echo $sw_q >$CG/isb/cgroup.procs; done
			cg_remove isa || bad "rmdir of the fio's cgroup mid-IO"
			sw_cg=isb
		fi
		sleep 0.5
	done
	[ $sw_ok = $sw_n ] || bad "$sw_ok of $sw_n scheduler switches mid-IO took effect"
	NOTE="switches $(echo $sw_seq | tr ' ' '>'), weights changed, cgroup removed, mid-IO"
	if [ -e /tmp/dead.$D ]; then
		bad "a switch did not finish (device dead)"
		return
	fi
	run_watched_pids 180 "$D" $sw_pid || {
		[ $? = 1 ] && VS=$((VS + 1))
		bad "fio across the switches: $WATCH_WHAT"
		return
	}
	sw_e=$(fio_err /tmp/sw.$ITEM_N)
	sw_kib=$(awk -F';' '$1 == 3 { s += $6 } END { print s + 0 }' /tmp/sw.$ITEM_N)
	VB=$((sw_kib * 1024))
	if [ "$WAIT_RC" != 0 ] || [ "$sw_e" != 0 ]; then
		VE=$((VE + 1))
		bad "fio across the switches: status $WAIT_RC, error $sw_e: $(grep -v '^3;' /tmp/sw.$ITEM_N | head -n 2 | tr '\n' ' ')"
	elif [ "$sw_kib" != $KIB ]; then
		bad "fio across the switches verified $sw_kib KiB, expected $KIB"
	fi
	cg_remove isa
	flush_caches $D
	# shellcheck disable=SC2086
	fio_phase "verify-only after the switches" $KIB $_j --ioengine=libaio --iodepth=8 --direct=1 --verify_only=1
	cg_remove isb
}

# faults, Debian's kernel: a scsi_debug disk (loaded once a boot: SDD) with
# injected host-busy returns and transport errors (every 25th command: the
# midlayer requeues and retries them), then timeouts (every 400th command
# ignored; the disk's timeout 2 s: the error handler aborts and the command
# is requeued through the scheduler), fio verify in each phase; then
# injection off and a verify-only pass.  On the patched kernel (no SCSI): a
# null_blk whose requests null_blk.requeue=... (a module parameter, global:
# scripts/vm/vmtest boots a separate fault boot with it) requeues.
SDD=""
sd_setup() {
	[ -n "$SDD" ] && return 0
	if [ ! -f $KMODS/extra/scsi_debug.ko ]; then
		SD_WHY="no scsi_debug module in this kernel"
		return 1
	fi
	insmod $KMODS/extra/scsi_debug.ko dev_size_mb=$((SZ + 4)) ndelay=200000 max_queue=16 \
		opts=0 every_nth=0 2>/tmp/sd.err || {
		SD_WHY="insmod scsi_debug: $(cat /tmp/sd.err)"
		return 1
	}
	_t=0
	while [ $_t -lt 100 ]; do
		SDD=$(ls /sys/bus/pseudo/drivers/scsi_debug/adapter0/host*/target*/*:*/block/ 2>/dev/null | head -n 1)
		[ -n "$SDD" ] && [ -b /dev/$SDD ] && break
		SDD=""
		sleep 0.1
		_t=$((_t + 1))
	done
	[ -n "$SDD" ] || SD_WHY="scsi_debug made no disk within 10 s"
	[ -n "$SDD" ]
}
SDP=/sys/bus/pseudo/drivers/scsi_debug

w_faults() {
	if [ $BUILTIN = 1 ]; then
		if [ ! -f /sys/module/null_blk/parameters/requeue ]; then
			skip_item "this kernel's null_blk has no fault injection (CONFIG_BLK_DEV_NULL_BLK_FAULT_INJECTION), and no SCSI for scsi_debug"
			FAULT_SKIP=1
			return
		fi
		_rq=$(cat /sys/module/null_blk/parameters/requeue 2>/dev/null)
		if [ -z "$_rq" ]; then
			skip_item "no requeue injection in this boot (null_blk.requeue is set in scripts/vm/vmtest's fault boot); scsi_debug: the patched kernel has no SCSI"
			FAULT_SKIP=1
			return
		fi
		NOTE="null_blk.requeue=$_rq"
		w_randmix 4k/40:64k/40:1m/20 16 && w_seqwrite 4k 32
		return
	fi
	nb_remove $DN
	D=""
	if ! sd_setup; then
		skip_item "$SD_WHY"
		FAULT_SKIP=1
		return
	fi
	D=$SDD
	# the disk keeps its data from item to item (and fio's verify data do
	# not depend on the seed): zeros first, which never verify
	set_sched $D none
	dd if=/dev/zero of=/dev/$D bs=1M count=$SZ oflag=direct 2>/dev/null || bad "zeroing $D"
	if ! isched $S $M; then
		bad "select $S ($M) on $D"
		D=""
		return
	fi
	echo 2 >/sys/block/$D/device/timeout
	_j="--filename=/dev/$D --rw=randwrite --bssplit=4k/40:64k/40:256k/20 --size=${SZ}M $VOPT"
	_j2="--name=f2 --filename=/dev/$D --rw=write --bs=4k --size=${SZ}M $VOPT"
	# (one kind at a time: scsi_debug's host-busy return comes before, and
	# so hides, the other injections)
	echo 25 >$SDP/every_nth
	echo $((0x8000)) >$SDP/opts
	# shellcheck disable=SC2086
	fio_phase "host busy every 25th command" $KIB --name=f1 $_j \
		--ioengine=libaio --iodepth=16 --direct=1 --do_verify=1
	_e0=$(($(cat /sys/block/$D/device/ioerr_cnt)))
	echo 50 >$SDP/every_nth
	echo $((0x10)) >$SDP/opts
	# shellcheck disable=SC2086
	fio_phase "a transport error every 50th command" $KIB $_j2 --iodepth=16 --ioengine=libaio --direct=1 --do_verify=1
	_e1=$(($(cat /sys/block/$D/device/ioerr_cnt)))
	_t0=$(($(cat /sys/block/$D/device/iotmo_cnt)))
	echo 0 >$SDP/opts
	# a few timeouts whatever the size (each costs the 2 s timeout): the
	# phase sends about 13 commands per MiB (writes, then the verify reads)
	_nth=$((SZ * 13 / 3))
	echo $_nth >$SDP/every_nth
	echo 4 >$SDP/opts
	# shellcheck disable=SC2086
	fio_phase "a timeout every ${_nth}th command" $KIB --name=f3 $_j --iodepth=32 --ioengine=libaio --direct=1 --do_verify=1
	_t1=$(($(cat /sys/block/$D/device/iotmo_cnt)))
	echo 0 >$SDP/opts
	echo 0 >$SDP/every_nth
	flush_caches $D
	# shellcheck disable=SC2086
	fio_phase "verify-only, injection off" $KIB --name=f3 $_j --iodepth=8 --ioengine=libaio --direct=1 --verify_only=1
	NOTE="scsi_debug $D: $((_e1 - _e0)) transport errors retried, $((_t1 - _t0)) timeouts"
	# the injections happened (else this item tested nothing)
	[ $((_e1 - _e0)) -gt 0 ] || bad "no transport error was injected (ioerr_cnt $_e0 -> $_e1)"
	[ $((_t1 - _t0)) -gt 0 ] || bad "no timeout was injected (iotmo_cnt $_t0 -> $_t1)"
	set_sched $D none
	D=""
}

# --- fault injection (debugfs; the debug kernel has it) ---------------------------------
FI=/sys/kernel/debug
# fi_arm ATTR PROBABILITY: inject with ATTR (failslab, fail_make_request)
# at PROBABILITY %, every call, "times" set to a large count; fi_injected
# ATTR: how many failures it injected since (6.1 counts "times" down at
# each one; the log cannot tell: a __GFP_NOWARN allocation's failure, as
# efq's and bfq's GFP_NOWAIT ones are, is never logged)
FI_TIMES=100000000
fi_arm() {
	echo 1 >$FI/$1/interval
	echo $FI_TIMES >$FI/$1/times
	echo 0 >$FI/$1/space
	echo 1 >$FI/$1/verbose
	echo $2 >$FI/$1/probability
}
fi_injected() { echo $((FI_TIMES - $(cat $FI/$1/times))); }

# nomem: failslab for the fio task's GFP_NOWAIT slab allocations, fio verify
w_nomem() {
	_f=$FI/failslab
	echo Y >$_f/task-filter
	echo Y >$_f/ignore-gfp-wait
	fi_arm failslab 20
	# a new cgroup for each run: its group (blkg, efq group) is allocated
	# on the submission path too
	cg_make inm
	# shellcheck disable=SC2086
	watched ${FIO_TMO:-180} "$D" /tmp/nm.$ITEM_N /tmp/cgexec inm sh -c 'echo 1 >/proc/self/make-it-fail && exec "$@"' nm \
		fio --minimal --name=nm --filename=/dev/$D --rw=randwrite --bssplit=4k/50:64k/30:256k/20 \
		--iodepth=16 --ioengine=libaio --direct=1 --size=${SZ}M $VOPT --do_verify=1 --numjobs=1
	_w=$?
	echo 0 >$_f/probability
	cg_remove inm
	[ $_w = 0 ] || return
	_e=$(fio_err /tmp/nm.$ITEM_N)
	VB=$(($(awk -F';' '$1 == 3 { s += $6 } END { print s + 0 }' /tmp/nm.$ITEM_N) * 1024))
	if [ "$WAIT_RC" != 0 ] || [ "$_e" != 0 ]; then
		VE=$((VE + 1))
		bad "fio under failslab: status $WAIT_RC, error $_e: $(grep -v '^3;' /tmp/nm.$ITEM_N | head -n 2 | tr '\n' ' ')"
	elif [ $VB != $((KIB * 1024)) ]; then
		bad "fio under failslab verified $VB bytes, expected $((KIB * 1024))"
	fi
	_n=$(fi_injected failslab)
	NOTE="$_n non-sleeping allocations of fio failed"
	[ "$_n" -gt 0 ] || bad "no allocation failure was injected"
}

# failreq: fail_make_request on $D while fio writes, then a clean pass
w_failreq() {
	_f=$FI/fail_make_request
	fi_arm fail_make_request 10
	echo 1 >/sys/block/$D/make-it-fail
	_o=/tmp/fr.$ITEM_N
	watched ${FIO_TMO:-180} "$D" $_o /tmp/cgexec ig fio --minimal --name=fr --filename=/dev/$D \
		--rw=randwrite --bssplit=4k/50:64k/30:256k/20 --iodepth=16 --ioengine=libaio --direct=1 \
		--size=${SZ}M --continue_on_error=io
	_w=$?
	echo 0 >/sys/block/$D/make-it-fail
	echo 0 >$_f/probability
	[ $_w = 0 ] || return
	_n=$(fi_injected fail_make_request)
	# terse v3: field 5 is the first error (EIO, 5, or 0)
	_e=$(fio_err $_o)
	case $_e in 0 | 5) ;; *) bad "fio under fail_make_request: error $_e, expected EIO (5) or none" ;; esac
	[ "$_n" -gt 0 ] || bad "no bio failure was injected"
	NOTE="$_n bios failed"
	flush_caches $D
	# shellcheck disable=SC2086
	fio_phase "write+verify after fail_make_request" $KIB --name=fr2 --filename=/dev/$D --rw=randwrite \
		--bssplit=4k/50:64k/30:256k/20 --iodepth=16 --ioengine=libaio --direct=1 --size=${SZ}M $VOPT --do_verify=1
}

# --- the matrix -------------------------------------------------------------------------
# each: WORKLOAD, the modes, the function and its arguments per mode of the
# full or fast matrix
run_matrix() { # NAME "MODES" "DEVICE OPTIONS" FUNCTION ARGS...
	_name=$1 _modes=$2 _dopt=$3
	shift 3
	# vmtest.integrity=MODE:W1,W2 runs only those workloads
	if [ -n "$IONLY" ]; then
		case ",$IONLY," in *",$_name,"*) ;; *) return 0 ;; esac
	fi
	# the fast subset has every control for seqwrite (the oops of issue
	# 13) and mq-deadline, the nearest one, for the other workloads
	CTRL=$CONTROLS
	[ $FULL = 1 ] || [ "$_name" = seqwrite ] || CTRL=mq-deadline
	SZ=$SZ_ALL
	[ "$_name" = seqwrite ] && SZ=$SZ_SEQ
	KIB=$((SZ * 1024))
	# shellcheck disable=SC2046
	configs $_modes >/tmp/configs
	while read -r _sc _mo; do
		item "$_name $_sc $_mo" || continue
		case ",$SKIPCFG," in
		*",$_sc:$_mo,"*)
			start "$_name" $_sc $_mo
			D=""
			bad "not run: $_sc ($_mo) crashed the kernel in an earlier item (scripts/vm/vmtest --crash-limit)"
			finish_item
			continue
			;;
		esac
		# shellcheck disable=SC2086
		setup_item "$_name" $_sc $_mo $_dopt || continue
		"$@"
		finish_item
	done </tmp/configs
}

# fast: one representative per class (seqwrite in both modes: the oops of
# issue 13 is a merge bug, flat and hierarchical)
run_matrix seqwrite "$MODES_ALL" "" w_seqwrite 4k 32
run_matrix randmix "$MODES_ONE" "" w_randmix 4k/40:16k/20:64k/20:256k/10:1m/10 16
run_matrix buffered "$MODES_ONE" "" w_buffered write --bs=64k --fsync=32
run_matrix trim "$MODES_ONE" "discard=1" w_trim randtrim
run_matrix mq "$MODES_ONE" "submit_queues=4" w_mq
run_matrix fs "$MODES_ONE" "" w_fs
run_matrix cgwb "$MODES_ONE" "" w_cgwb
run_matrix switch "hier" "" w_switch
run_matrix faults "$MODES_ONE" "" w_faults
# the debug kernel's fault injection (both modes: these are its only runs)
for _fi in "nomem failslab FAILSLAB" "failreq fail_make_request FAIL_MAKE_REQUEST"; do
	set -- $_fi
	if [ -w $FI/$2/probability ]; then
		run_matrix $1 "$MODES_ALL" "" w_$1
	else
		log "integrity: $1 not run: this kernel has no $2 (CONFIG_$3, CONFIG_FAULT_INJECTION_DEBUG_FS; make vmtest-debug has them)"
	fi
done
if [ $FULL = 1 ]; then
	run_matrix seq1m "$MODES_ALL" "" w_seqwrite 1m 8
	run_matrix seq64k "$MODES_ALL" "" w_seqwrite 64k 64
	run_matrix seq4k-qd1 "$MODES_ALL" "" w_seqwrite 4k 1
	run_matrix rand-qd1 "$MODES_ALL" "" w_randmix 4k/50:128k/50 1
	run_matrix rand-qd64 "$MODES_ALL" "" w_randmix 4k/30:8k/30:32k/20:1m/20 64
	run_matrix bufrand "$MODES_ALL" "" w_buffered randwrite --bssplit=4k/40:64k/40:1m/20 --fdatasync=8
	run_matrix bufseq4k "$MODES_ALL" "" w_buffered write --bs=4k --fdatasync=64
	run_matrix trimseq "$MODES_ALL" "discard=1" w_trim trim
	run_matrix trimwrite "$MODES_ALL" "discard=1" w_trimwrite
fi

table_begin "integrity: data written and read back (fio verify, checksums), ${SZ_ALL} MiB per workload (seqwrite ${SZ_SEQ} MiB); this boot's items"
awk -F'|' 'BEGIN { printf "%4s %-12s %-12s %-5s %12s %7s %7s %-6s %s\n", "item", "workload", "scheduler", "mode", "verified", "errors", "stalls", "result", "detail" }
	{ printf "%4s %-12s %-12s %-5s %12s %7s %7s %-6s %s\n", $1, $2, $3, $4, $5, $6, $7, $8, $9 }' /tmp/integrity.rows
table_end
cg_remove ig
