# SPDX-License-Identifier: GPL-2.0
#
# Integrity on real drivers (issue 33): what is written to qemu's NVMe, AHCI
# SATA and virtio-blk disks (scripts/vm/vmtest attaches them, throttled by
# qemu; lib.sh's disk_of) reads back identical under every efq scheduler,
# with none, mq-deadline and bfq as the controls, from two cgroups of
# different io.efq.weight (di_hi 800, di_lo 200; io.bfq.weight the same), so
# that the engine's group code runs.  Items (lib.sh's `item`), per disk:
#   verify   (per scheduler) at once: di_hi a random write of mixed sizes
#            (bssplit 4k/16k/64k/256k, libaio, iodepth 32, direct) verified
#            (crc32c); di_lo a buffered write (fsync every 16 writes,
#            end_fsync); then, caches dropped, di_lo verifies its region
#            from the device (md5, direct) while, where the disk takes
#            discards, di_hi runs a trimwrite (each block discarded,
#            written, verified) and di_lo a blkdiscard of another range; the
#            discards must reach the device (its stat)
#   ext4     (per scheduler) a 256 MiB ext4 at the start of the disk,
#            mounted with -o discard where the disk takes discards; di_hi
#            and di_lo each write a tree of files of several sizes, sync,
#            caches dropped, every file's sha256 read back and compared; a
#            third of the files removed, umount, caches dropped, mount, the
#            rest compared again; e2fsck -fn clean
#   switch   a verifying fio in each cgroup while the scheduler cycles
#            through none, mq-deadline, bfq and the four efq schedulers
#            (weights changed at each step) until both end: at least one
#            whole cycle mid-IO, every switch taking effect, both fio
#            ending with no error and everything verified
#   remove   with an efq scheduler selected (NVMe cfq, SATA as, virtio
#            deadline-fq), ext4 mounted and written from di_lo while di_hi's
#            fio writes the raw disk, the host unplugs the device: the guest
#            prints "vmtest-host: device_del DRIVE" and scripts/vm/run-qemu
#            sends device_del over QMP (for the SATA disk the AHCI
#            controller goes: qemu cannot unplug a disk from its port).  The
#            disk must vanish, fio and the writer end (IO failed or
#            completed) within 30 s, umount end, no task stay in D state,
#            and the kernel log show no warning, BUG, oops or hung task
#            (I/O errors of the removed disk are expected: counted, not
#            judged).  Then "vmtest-host: device_add DRIVE" puts the same
#            model back on the same file: the disk must come back and
#            verify a write under the same scheduler, so that the files
#            after this one (35-disks) find all three disks.  Last for each
#            disk: nothing else of this file uses it afterwards.
# Each item passes when no reason to fail it was found; its CHECK line
# names the disk, scheduler and step, and the reasons.
#
# Short form (default, make vmtest-6.12 and so make test): 8 MiB a job, the
# four efq schedulers on each disk and one control a disk (NVMe none, SATA
# mq-deadline, virtio bfq), a tree of 2x2x8 files, the switch item with at
# least one cycle of the seven schedulers.  Full form (vmtest.integrity=full,
# scripts/vm/vmtest --integrity full, the same switch as 45-integrity's
# full matrix; or vmtest.disks_integrity=full, which keeps the short
# budget of 600 s): 16 MiB a job, all three controls on every disk, a tree
# of 2x3x12 files, two switch cycles at least.  vmtest.dint_disks=nvme,sata
# and vmtest.dint_scheds=cfq,none narrow the matrix; vmtest.dint_remove=0
# leaves the removals out.  Stresses: vmtest.dint_cycles=N asks the switch
# item for N cycles of the seven schedulers; vmtest.dint_remove=N removes
# each disk N times in a row, under the schedulers of
# vmtest.dint_rm_scheds=cfq,as,... in turn (default the one above).
# vmtest.dint_break=1 tests the checks (DI_BREAK).
#
# vmtest-budget: 600
# vmtest-budget-full: 1200

DI_FULL=0
case ${INTEGRITY:-fast} in full*) DI_FULL=1 ;; esac
grep -q 'vmtest\.disks_integrity=full' /proc/cmdline && DI_FULL=1
arg() { sed -n "s/.*vmtest\.$1=\([^ ]*\).*/\1/p" /proc/cmdline | tr , ' '; }
DI_KINDS=$(arg dint_disks)
DI_KINDS=${DI_KINDS:-nvme sata virtio}
DI_SCHEDS=$(arg dint_scheds)
DI_REMOVE=$(arg dint_remove)
DI_REMOVE=${DI_REMOVE:-1}
case $DI_REMOVE in
*[!0-9]* | '') fail "disks-integrity: vmtest.dint_remove=$DI_REMOVE is not a count" && DI_REMOVE=1 ;;
esac
DI_RM_SCHEDS=$(arg dint_rm_scheds)
# vmtest.dint_break=1: the checks' own test: the data is damaged behind the
# verifiers' backs (4 KiB of the buffered write's region overwritten before
# its verify-only pass, a byte appended to one file of the tree before its
# read-back): every verify and ext4 item must fail and say where
DI_BREAK=$(arg dint_break)
if [ $DI_FULL = 1 ]; then
	SZ=16 ND=3 NF=12 CYCLES=2 SWA=2 SWB=1
else
	SZ=8 ND=2 NF=8 CYCLES=1 SWA=3 SWB=1
fi
_c=$(arg dint_cycles)
case $_c in
'') ;;
*[!0-9]* | 0) fail "disks-integrity: vmtest.dint_cycles=$_c is not a count of cycles" ;;
*) CYCLES=$_c ;;
esac
KIB=$((SZ * 1024))
MNT=/mnt/disks
mkdir -p $MNT
VOPT="--verify_fatal=1 --ioengine=libaio --direct=1"
log "disks-integrity: $([ $DI_FULL = 1 ] && echo full || echo short) form, $SZ MiB a job, disks $DI_KINDS"

cg_make di_hi
cg_make di_lo
for g in "di_hi 800" "di_lo 200"; do
	# shellcheck disable=SC2086
	set -- $g
	echo $2 >$CG/$1/io.efq.weight || fail "disks-integrity: io.efq.weight $2 in $1"
	echo $2 >$CG/$1/io.bfq.weight 2>/dev/null
done
head -c 1048576 /dev/urandom >/tmp/di_rand

# --- per item: judgement ------------------------------------------------------------
# di_start WHAT: begin an item's accounting; di_bad TEXT: it fails, TEXT why
di_start() {
	DW=$1 DBAD="" DNOTE="" DVB=0
	DT0=$(date +%s)
}
di_bad() { DBAD="${DBAD:+$DBAD; }$*"; }
di_note() { DNOTE="${DNOTE:+$DNOTE, }$*"; }
# di_end: the item's CHECK line (and a ROW line for the table)
di_end() {
	_k=$(item_dmesg)
	[ -n "$_k" ] && di_bad "kernel: $_k"
	_t=$(($(date +%s) - DT0))
	if [ -z "$DBAD" ]; then
		pass "disks-integrity $DW: $DVB bytes verified [$_t s]${DNOTE:+ ($DNOTE)}"
		echo "ROW disks-integrity: $DW|ok|$DVB|$_t"
	else
		fail "disks-integrity $DW: $DVB bytes verified [$_t s]: $DBAD"
		echo "ROW disks-integrity: $DW|FAIL|$DVB|$_t"
	fi
	grep -q " $MNT " /proc/mounts && umount $MNT 2>/dev/null
	return 0
}

# di_fio WHAT EXPECT_KIB FILE: judge a fio that has ended (output FILE,
# status WAIT_RC): no error, and EXPECT_KIB read back by verify (- for
# none); adds the bytes to DVB
di_fio() {
	_e=$(fio_err $3)
	_kib=$(awk -F';' '$1 == 3 { s += $6 } END { print s + 0 }' $3)
	if [ "$WAIT_RC" != 0 ] || [ "$_e" != 0 ] || ! grep -q '^3;' $3; then
		di_bad "$1: fio status $WAIT_RC, error $_e: $(grep -v '^3;' $3 | grep -iE 'verify|err|fio' | head -n 2 | tr '\n' ' ')"
		return 1
	fi
	[ "$2" = - ] && return 0
	DVB=$((DVB + _kib * 1024))
	if [ "$_kib" != "$2" ]; then
		di_bad "$1: verified $_kib KiB, expected $2 KiB"
		return 1
	fi
	return 0
}

# di_wait WHAT TMO PID...: run_watched_pids on $D; a stall or timeout is
# a reason to fail (the device is then marked dead)
di_wait() {
	_w=$1 _tmo=$2
	shift 2
	run_watched_pids $_tmo "$D" "$@" && return 0
	di_bad "$_w: $WATCH_WHAT"
	return 1
}

# di_sched SCHED: select it; 1 (with the reason) if that failed
di_sched() {
	set_sched $D $1 && return 0
	di_bad "select $1 on $D: $(cat /sys/block/$D/queue/scheduler 2>/dev/null)"
	return 1
}

# di_discard: the disk takes discards
di_discard() { [ "$(cat /sys/block/$D/queue/discard_max_bytes 2>/dev/null || echo 0)" != 0 ]; }
discards() { awk '{ print $12 + 0 }' /sys/block/$D/stat 2>/dev/null || echo 0; }

flush_all() {
	sync
	blockdev --flushbufs /dev/$D 2>/dev/null
	echo 3 >/proc/sys/vm/drop_caches
}

# di_job WHAT TMO PID OUT EXPECT_KIB: wait for a fio started in the
# background (watched), then judge it (di_fio)
di_job() {
	di_wait "$1" $2 $3 || return 1
	di_fio "$1" $5 $4
}

# --- verify: raw fio in two cgroups -----------------------------------------------
w_verify() {
	di_sched $1 || return
	_mix="--bssplit=4k/40:16k/30:64k/20:256k/10"
	_buf="--name=buf --filename=/dev/$D --offset=1g --size=${SZ}M --rw=write --bssplit=4k/50:64k/30:256k/20 --verify=md5"
	in_cg di_hi /tmp/di_a.fio fio --minimal --name=rnd --filename=/dev/$D --offset=0 --size=${SZ}M \
		--rw=randwrite $_mix --iodepth=32 $VOPT --verify=crc32c --do_verify=1
	_pa=$!
	# shellcheck disable=SC2086
	in_cg di_lo /tmp/di_b.fio fio --minimal $_buf --ioengine=psync --direct=0 --fsync=16 --end_fsync=1 \
		--do_verify=0
	_pb=$!
	di_job "random write bssplit iodepth 32 + verify (di_hi)" 180 $_pa /tmp/di_a.fio $KIB
	di_job "buffered write, fsync=16, end_fsync (di_lo)" 180 $_pb /tmp/di_b.fio - || return
	flush_all
	[ "$DI_BREAK" = 1 ] && dd if=/dev/urandom of=/dev/$D bs=4k seek=$((262144 + 16)) count=1 oflag=direct 2>/dev/null
	# shellcheck disable=SC2086
	in_cg di_lo /tmp/di_c.fio fio --minimal $_buf $VOPT --iodepth=8 --verify_only=1
	_pc=$!
	if di_discard; then
		_d0=$(discards)
		_h=$((SZ / 2))
		in_cg di_hi /tmp/di_d.fio fio --minimal --name=tw --filename=/dev/$D --offset=2g --size=${_h}M \
			--rw=trimwrite --bs=64k --iodepth=8 $VOPT --verify=crc32c --do_verify=1
		_pd=$!
		in_cg di_lo /tmp/di_e.out blkdiscard -o $((3 * 1024 * 1048576)) -l $((SZ * 1048576)) /dev/$D
		_pe=$!
	else
		di_note "no discard (discard_max_bytes 0)"
	fi
	di_job "verify-only of the buffered write, caches dropped (di_lo)" 180 $_pc /tmp/di_c.fio $KIB
	di_discard || return
	di_job "trimwrite + verify (di_hi)" 180 $_pd /tmp/di_d.fio $((_h * 1024))
	if di_wait "blkdiscard of $SZ MiB at 3 GiB (di_lo)" 60 $_pe && [ "$WAIT_RC" != 0 ]; then
		di_bad "blkdiscard of $SZ MiB at 3 GiB (di_lo): status $WAIT_RC: $(head -n 2 /tmp/di_e.out | tr '\n' ' ')"
	fi
	_n=$(($(discards) - _d0))
	di_note "$_n discards"
	[ $_n -gt 0 ] || di_bad "no discard reached $D (stat discards unchanged at $_d0)"
}

# --- ext4: trees from two cgroups ------------------------------------------------------
# the tree writer: DIR SEED NDIRS NFILES; sizes cycle through 0 B .. 1 MiB,
# the contents pieces of /tmp/di_rand at offsets that differ per file
cat >/tmp/di_tree <<'EOF'
#!/bin/sh
dir=$1 seed=$2 nd=$3 nf=$4
set -- 0 1 511 4096 4097 16384 65536 100000 262144 1048576
n=0
for d in $(seq 1 "$nd"); do
	mkdir -p "$dir/d$d/s" || exit 1
	for f in $(seq 1 "$nf"); do
		n=$((n + 1))
		i=$(((n + seed) % 10 + 1))
		eval sz=\${$i}
		p=$dir/d$d/f$f
		[ $((f % 4)) = 0 ] && p=$dir/d$d/s/f$f
		off=$(((n * 8191 + seed * 131) % (1048576 - sz + 1)))
		tail -c +$((off + 1)) /tmp/di_rand | head -c "$sz" >"$p" || exit 1
		[ $((n % 8)) = 0 ] && sync
	done
done
sync
EOF
chmod +x /tmp/di_tree

# di_sums FILE: sha256 of every file under $MNT, watched (reads from $D)
di_sums() {
	run_watched 120 "$D" "$1" sh -c "cd $MNT && find . -type f | sort | xargs sha256sum" && [ "$WAIT_RC" = 0 ] &&
		return 0
	di_bad "checksums of the files: ${WATCH_WHAT:-status $WAIT_RC}"
	return 1
}

# di_cmp WHAT A B: the two checksum lists are equal (and not empty)
di_cmp() {
	if [ -s "$2" ] && cmp -s "$2" "$3"; then
		DVB=$((DVB + $(cd $MNT && find . -type f -exec cat {} + | wc -c)))
		return 0
	fi
	di_bad "$1: checksums differ ($(diff "$2" "$3" | grep '^[-+][0-9a-f]' | head -n 2 | tr '\n' ' '))"
	return 1
}

# di_mkfs: a 256 MiB ext4 at the start of $D, mounted at $MNT (-o discard
# where the disk takes discards)
di_mkfs() {
	if ! mkfs.ext4 -q -F /dev/$D 256M >/tmp/di_mkfs 2>&1; then
		di_bad "mkfs.ext4: $(head -n 2 /tmp/di_mkfs | tr '\n' ' ')"
		return 1
	fi
	_mo=""
	di_discard && _mo="-o discard"
	# shellcheck disable=SC2086
	if ! mount -t ext4 $_mo /dev/$D $MNT 2>/tmp/di_mount; then
		di_bad "mount $_mo: $(cat /tmp/di_mount)"
		return 1
	fi
}

w_ext4() {
	di_sched $1 || return
	di_mkfs || return
	in_cg di_hi /tmp/di_th /tmp/di_tree $MNT/hi 3 $ND $NF
	_pa=$!
	in_cg di_lo /tmp/di_tl /tmp/di_tree $MNT/lo 11 $ND $NF
	_pb=$!
	di_wait "writing the tree from di_hi" 240 $_pa || return
	[ "$WAIT_RC" = 0 ] || di_bad "tree writer in di_hi: status $WAIT_RC: $(head -n 2 /tmp/di_th | tr '\n' ' ')"
	di_wait "writing the tree from di_lo" 240 $_pb || return
	[ "$WAIT_RC" = 0 ] || di_bad "tree writer in di_lo: status $WAIT_RC: $(head -n 2 /tmp/di_tl | tr '\n' ' ')"
	_nf=$(find $MNT -type f | wc -l)
	[ "$_nf" = $((2 * ND * NF)) ] || di_bad "$_nf files written, expected $((2 * ND * NF))"
	di_sums /tmp/di_s1 || return
	[ "$DI_BREAK" = 1 ] && echo x >>"$(find $MNT/lo -type f | sort | head -n 1)"
	sync
	echo 3 >/proc/sys/vm/drop_caches
	di_sums /tmp/di_s2 || return
	di_cmp "read back after sync and drop_caches" /tmp/di_s1 /tmp/di_s2 || return
	# a third of the files removed (discards with -o discard), then a cold
	# mount: the rest must be intact
	_d0=$(discards)
	find $MNT -type f -name 'f*[369]' -exec rm {} +
	sync
	if ! umount $MNT; then
		di_bad "umount"
		return
	fi
	echo 3 >/proc/sys/vm/drop_caches
	if ! mount -t ext4 /dev/$D $MNT; then
		di_bad "mount again"
		return
	fi
	(cd $MNT && find . -type f | sort | xargs sha256sum) >/tmp/di_s3 2>&1
	grep -v '/f[0-9]*[369]$' /tmp/di_s1 >/tmp/di_s1r
	di_cmp "the files left after removals, umount and mount" /tmp/di_s1r /tmp/di_s3 || return
	di_note "$_nf files, $(du -sk $MNT | cut -f1) KiB left, $(($(discards) - _d0)) discards"
	if ! umount $MNT; then
		di_bad "umount before e2fsck"
		return
	fi
	e2fsck -fn /dev/$D >/tmp/di_fsck 2>&1 ||
		di_bad "e2fsck -fn: $(grep -v '^e2fsck\|^Pass' /tmp/di_fsck | head -n 3 | tr '\n' ' ')"
}

# --- switch: scheduler cycles under verifying IO --------------------------------------
SW_SEQ="none mq-deadline bfq cfq deadline-fq as noop"
# rounds of two verifying fio (one per cgroup), the scheduler switched
# through SW_SEQ again and again while they run, until CYCLES whole cycles
# are done (6 rounds and 200 s a cycle at most)
w_switch() {
	di_sched none || return
	_n=0 _ok=0 _r=0 _st=$(date +%s)
	while [ $((_n / 7)) -lt $CYCLES ] && [ $_r -lt $((CYCLES * 6)) ]; do
		_r=$((_r + 1))
		in_cg di_hi /tmp/di_sa.fio fio --minimal --name=swa --filename=/dev/$D --offset=$((_r % 2))g \
			--size=$((SZ * SWA))M --rw=randwrite --bssplit=4k/60:16k/30:64k/10 --iodepth=32 $VOPT \
			--verify=crc32c --do_verify=1
		_pa=$!
		in_cg di_lo /tmp/di_sb.fio fio --minimal --name=swb --filename=/dev/$D --offset=$((_r % 2 + 2))g \
			--size=$((SZ * SWB))M --rw=randwrite --bs=4k --iodepth=4 $VOPT --verify=md5 --do_verify=1
		_pb=$!
		sleep 0.5
		while kill -0 $_pa 2>/dev/null || kill -0 $_pb 2>/dev/null; do
			# shellcheck disable=SC2086
			_s=$(echo $SW_SEQ | cut -d' ' -f$((_n % 7 + 1)))
			_n=$((_n + 1))
			if set_sched $D $_s; then
				_ok=$((_ok + 1))
			else
				di_bad "switch $_n to $_s mid-IO (round $_r)"
			fi
			[ -e /tmp/dead.$D ] && break 2
			echo $((100 + (_n * 170) % 900)) >$CG/di_hi/io.efq.weight
			echo $((100 + (_n * 170) % 900)) >$CG/di_hi/io.bfq.weight 2>/dev/null
			[ $(($(date +%s) - _st)) -lt $((CYCLES * 200)) ] || break
			sleep 0.2
		done
		di_job "random write + verify across the switches (di_hi, round $_r)" 180 $_pa /tmp/di_sa.fio $((KIB * SWA))
		di_job "4k random write + verify across the switches (di_lo, round $_r)" 180 $_pb /tmp/di_sb.fio $((KIB * SWB))
		[ -z "$DBAD" ] || break
	done
	echo 800 >$CG/di_hi/io.efq.weight
	echo 800 >$CG/di_hi/io.bfq.weight 2>/dev/null
	_cyc=$((_n / 7))
	di_note "$_n switches ($_ok took effect, $_cyc whole cycles) in $_r rounds of fio"
	[ $_ok = $_n ] || di_bad "$_ok of $_n switches took effect"
	if [ -e /tmp/dead.$D ]; then
		di_bad "a switch did not finish: $D left for dead"
		return
	fi
	[ $_cyc -ge $CYCLES ] ||
		di_bad "only $_n switches ($_cyc whole cycles of $SW_SEQ) while fio ran, expected $CYCLES cycles"
}

# --- remove: the host unplugs the disk under IO ----------------------------------------
# wait_gone SECONDS: until /sys/block/$D is gone (status 1 on timeout)
wait_gone() {
	_t=0
	while [ -e /sys/block/$D ]; do
		[ $_t -lt $(($1 * 10)) ] || return 1
		usleep 100000
		_t=$((_t + 1))
	done
	DGONE=$((_t / 10)).$((_t % 10))
}

# wait_back KIND SECONDS: until disk_of KIND names a disk again (in D2)
wait_back() {
	_t=0
	until D2=$(disk_of $1); do
		[ $_t -lt $(($2 * 10)) ] || return 1
		usleep 100000
		_t=$((_t + 1))
	done
	DBACK=$((_t / 10)).$((_t % 10))
}

w_remove() { # KIND SCHED
	_kind=$1 _drive=d$1
	di_sched $2 || return
	di_mkfs || return
	_io0=$(dev_ios $D)
	in_cg di_hi /tmp/di_ra.fio fio --minimal --name=rm --filename=/dev/$D --offset=1g --size=1g \
		--rw=randwrite --bssplit=4k/50:64k/50 --iodepth=32 --ioengine=libaio --direct=1 \
		--runtime=120 --time_based
	_pa=$!
	in_cg di_lo /tmp/di_rw sh -c "i=0; while [ \$i -lt 400 ]; do i=\$((i + 1));
		head -c 262144 /tmp/di_rand >$MNT/w\$i || exit 1; [ \$((i % 4)) = 0 ] && { sync || exit 1; }; done"
	_pb=$!
	sleep 3
	kill -0 $_pa 2>/dev/null || di_bad "fio ended before the removal: $(tail -n 2 /tmp/di_ra.fio | tr '\n' ' ')"
	[ "$(dev_ios $D)" != "$_io0" ] || di_bad "no IO completed on $D before the removal"
	_ie0=$(dmesg | grep -c 'I/O error')
	if [ $_kind = sata ]; then
		# qemu cannot plug an ide-hd into an AHCI port again (its bus
		# takes no hotplug): the guest deletes the SCSI device of the
		# disk (sd's removal, as on a hot-unplug of the port) and scans
		# its host to put it back
		_host=$(readlink -f /sys/block/$D/device | sed -n 's,.*/\(host[0-9]*\)/.*,\1,p')
		(echo 1 >/sys/block/$D/device/delete) 2>/tmp/di_del &
		_pdel=$!
		_how="the guest's write to /sys/block/$D/device/delete"
	else
		# the host's part: scripts/vm/run-qemu sends device_del over QMP
		host_do device_del $_drive
		_how="the host's device_del $_drive (see run-qemu's vmtest-host-reply line)"
	fi
	if ! wait_gone 60; then
		di_bad "$D still there 60 s after $_how"
		kill -9 $_pa $_pb 2>/dev/null
		return
	fi
	di_note "$D gone after $DGONE s"
	if [ $_kind = sata ]; then
		if ! wait_pid $_pdel 30; then
			di_bad "the write to $D's device/delete still running 30 s after $D was gone"
		elif [ "$WAIT_RC" != 0 ]; then
			di_bad "the write to $D's device/delete: status $WAIT_RC: $(cat /tmp/di_del)"
		fi
	fi
	wait_pid $_pa 30 || {
		di_bad "fio still running 30 s after $D was removed"
		kill -9 $_pa
	}
	# its IO failed or completed: no error, or one a removed disk gives
	_e=$(fio_err /tmp/di_ra.fio)
	di_note "fio: status $WAIT_RC, error $_e"
	case $_e in
	0 | 5 | 6 | 19 | 28) ;;
	*) di_bad "fio on the removed $D: error $_e (expected none, EIO, ENXIO, ENODEV or ENOSPC)" ;;
	esac
	wait_pid $_pb 30 || {
		di_bad "the ext4 writer still running 30 s after $D was removed"
		kill -9 $_pb
	}
	(umount $MNT) >/tmp/di_umount 2>&1 &
	if ! wait_pid $! 30; then
		di_bad "umount of the ext4 of the removed $D still running after 30 s"
	elif [ "$WAIT_RC" != 0 ]; then
		di_bad "umount of the ext4 of the removed $D: status $WAIT_RC: $(cat /tmp/di_umount)"
	fi
	_ds=$(tasks_in_d)
	[ -z "$_ds" ] || di_bad "tasks in D state for 3 s after the removal: $_ds"
	di_note "$(($(dmesg | grep -c 'I/O error') - _ie0)) I/O error lines"
	# the disk again, as it was
	if [ $_kind = sata ]; then
		echo "- - -" >/sys/class/scsi_host/$_host/scan
		_how="a scan of $_host"
	else
		host_do device_add $_drive
		_how="the host's device_add $_drive"
	fi
	if ! wait_back $_kind 60; then
		di_bad "the $_kind disk not back 60 s after $_how"
		return
	fi
	di_note "back as $D2 after $DBACK s"
	D=$D2
	di_sched $2 || return
	fio --minimal --name=back --filename=/dev/$D --offset=0 --size=${SZ}M --rw=randwrite \
		--bssplit=4k/50:64k/50 --iodepth=16 $VOPT --verify=crc32c --do_verify=1 >/tmp/di_rb.fio 2>&1 &
	di_wait "write + verify on the disk put back" 120 $! &&
		di_fio "write + verify on the disk put back, $2" $KIB /tmp/di_rb.fio
}

# --- the matrix ------------------------------------------------------------------------
n_kinds=0
for k in $DI_KINDS; do
	D=$(disk_of $k) || {
		if [ $BUILTIN = 1 ]; then
			log "disks-integrity: no $k disk (the built-in kernel has no driver for it): skipped"
		else
			fail "disks-integrity: the $k disk is there (lib.sh disk_of $k)"
		fi
		continue
	}
	n_kinds=$((n_kinds + 1))
	log "disks-integrity: $k is $D ($(devnum $D)), $(ls -d /sys/block/$D/mq/* | wc -l) hardware queues, rotational $(cat /sys/block/$D/queue/rotational), discard_max_bytes $(cat /sys/block/$D/queue/discard_max_bytes), scheduler $(cat /sys/block/$D/queue/scheduler)"
	dflt=$(sed 's/.*\[\(.*\)\].*/\1/' /sys/block/$D/queue/scheduler)
	if [ -n "$DI_SCHEDS" ]; then
		scheds=$DI_SCHEDS
	elif [ $DI_FULL = 1 ]; then
		scheds="none mq-deadline bfq $EFQ_SCHEDS"
	else
		case $k in nvme) c=none ;; sata) c=mq-deadline ;; *) c=bfq ;; esac
		scheds="$c $EFQ_SCHEDS"
	fi
	for s in $scheds; do
		if item "$k $D $s verify"; then
			di_start "$k $s verify"
			if [ -e /tmp/dead.$D ]; then di_bad "$D left for dead by an earlier item"; else w_verify $s; fi
			di_end
		fi
		if item "$k $D $s ext4"; then
			di_start "$k $s ext4"
			if [ -e /tmp/dead.$D ]; then di_bad "$D left for dead by an earlier item"; else w_ext4 $s; fi
			di_end
		fi
	done
	if item "$k $D switch"; then
		di_start "$k switch"
		if [ -e /tmp/dead.$D ]; then di_bad "$D left for dead by an earlier item"; else w_switch; fi
		di_end
	fi
	# a kernel without ACPI PCI hotplug (the built-in mode's) lists no
	# hotplug slot and never lets the host's device go
	if [ $BUILTIN = 1 ] && [ $k != sata ] && [ -z "$(ls /sys/bus/pci/slots 2>/dev/null)" ]; then
		log "disks-integrity: $k remove skipped: no PCI hotplug slot (/sys/bus/pci/slots is empty)"
	else
		case $k in nvme) s=cfq ;; sata) s=as ;; *) s=deadline-fq ;; esac
		set -- ${DI_RM_SCHEDS:-$s}
		_i=0
		while [ $_i -lt $DI_REMOVE ]; do
			_i=$((_i + 1))
			# the next scheduler of the list, round and round
			s=$1
			shift
			set -- "$@" $s
			item "$k $D remove${DI_RM_SCHEDS:+ $s}$([ $DI_REMOVE = 1 ] || echo " $_i")" || continue
			di_start "$k $s remove"
			if [ -e /tmp/dead.$D ]; then di_bad "$D left for dead by an earlier item"; else w_remove $k $s; fi
			di_end
			D=$(disk_of $k) || break
		done
	fi
	# the disk as the files after this one (35-disks) expect it: there,
	# with its default scheduler
	if D=$(disk_of $k); then
		[ -e /tmp/dead.$D ] || set_sched $D $dflt ||
			fail "disks-integrity: $k disk $D back to its default scheduler $dflt"
	else
		fail "disks-integrity: the $k disk is there at the end, for the files after this one"
	fi
done
[ $n_kinds -gt 0 ] || [ $BUILTIN = 1 ] || fail "disks-integrity: no disk to test"
cg_remove di_hi || fail "disks-integrity: rmdir di_hi"
cg_remove di_lo || fail "disks-integrity: rmdir di_lo"
