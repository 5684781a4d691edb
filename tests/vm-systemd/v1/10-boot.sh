# SPDX-License-Identifier: GPL-2.0
#
# The bookworm guest itself (scripts/vm/vmtest-systemd --release bookworm):
# systemd 252 is PID 1 on the legacy hierarchy (systemd.unified_cgroup_
# hierarchy=0) and the boot ended with no failed unit; /sys/fs/cgroup is
# not cgroup2 and /sys/fs/cgroup/blkio is a v1 mount of the blkio
# controller, where PID 1 sits in its root; the modules loaded (bfq not)
# and a null_blk lists the four efq schedulers; efq's v1 files are on the
# blkio mount (the root's blkio.weight reads 500, efq's default) beside
# blk-throttle's; a unit of `systemd-run -p IOWeight=60` gets a blkio
# cgroup with efq's files, where systemd wrote blkio.weight 300: on the
# legacy hierarchy systemd 252 turns IOWeight=W into blkio.weight
# min(max(W * 500 / 100, 10), 1000) (20-ioweight.sh).

cond "systemd is PID 1" "$(cat /proc/1/comm)" = systemd
v=$(systemctl --version | awk 'NR == 1 { print $2 }')
cond "systemd 252..255 (bookworm's, which runs on cgroup v1; it is $v)" "${v:-0}" -ge 252 -a "${v:-0}" -lt 256
if [ "$SYSTEM_STATE" = running ]; then
	pass "systemd: the boot ended with every unit up (is-system-running: running)"
else
	fail "systemd: the boot ended with every unit up (is-system-running: ${SYSTEM_STATE:-no answer}; failed: $(systemctl --failed --no-legend --plain | awk '{ printf "%s ", $1 }'))"
fi
check "systemd.unified_cgroup_hierarchy=0 on the kernel command line" grep -qw systemd.unified_cgroup_hierarchy=0 /proc/cmdline
cond "/sys/fs/cgroup is not cgroup2 (it is $(stat -f -c %T /sys/fs/cgroup))" "$(stat -f -c %T /sys/fs/cgroup)" != cgroup2fs
log "cgroup mounts: $(awk '$3 ~ /^cgroup/ { printf "%s(%s) ", $2, $3 }' /proc/mounts)"
cond "/sys/fs/cgroup/blkio is a cgroup v1 mount (it is $(stat -f -c %T /sys/fs/cgroup/blkio 2>&1))" \
	"$(stat -f -c %T /sys/fs/cgroup/blkio 2>&1)" = cgroupfs
cond "the blkio controller is on that mount ($(awk '$2 == "/sys/fs/cgroup/blkio" { print $4 }' /proc/mounts))" \
	"$(awk '$2 == "/sys/fs/cgroup/blkio" && $3 == "cgroup" && $4 ~ /(^|,)blkio(,|$)/ { print "y" }' /proc/mounts)" = y
cond "/proc/cgroups: blkio on a v1 hierarchy (hierarchy $(awk '$1 == "blkio" { print $2 }' /proc/cgroups))" \
	"$(awk '$1 == "blkio" { print $2 }' /proc/cgroups)" != 0
check "PID 1 in the blkio root (/proc/1/cgroup)" grep -q '^[0-9]*:blkio:/$' /proc/1/cgroup
cond "the tests run on the blkio mount (lib-systemd.sh: SD_V1 $SD_V1, CG $CG)" "$SD_V1:$CG" = 1:/sys/fs/cgroup/blkio
check "efq-modules.service is active" systemctl -q is-active efq-modules.service
for m in null_blk efq cfq_iosched deadline_fq_iosched as_iosched noop_iosched; do
	check "module $m loaded" grep -q "^$m " /proc/modules
done
cond "bfq not loaded (runc would write blkio.bfq.weight where blkio.weight is missing)" \
	"$(grep -c '^bfq ' /proc/modules)" = 0
for f in weight weight_device disk_time disk_sectors throttle.io_serviced throttle.read_iops_device; do
	check "the blkio root has blkio.$f" test -f $CG/blkio.$f
done
expect_read "the blkio root's blkio.weight reads 500 (efq's default)" $CG/blkio.weight 500
sd_scheds_listed

# a transient unit with IOWeight=: a blkio cgroup with efq's files
systemd-run --quiet --collect --unit=efq-boot-probe -p IOWeight=60 sleep 30
c=$(wait_unit_cg efq-boot-probe.service) || c=""
if [ -n "$c" ]; then
	pass "systemd-run -p IOWeight=60: the unit's cgroup $c on the blkio mount has blkio.weight"
	for f in weight_device disk_time disk_sectors; do
		check "blkio.$f in the unit's cgroup" test -f $CG/$c/blkio.$f
	done
	check "the unit's process is in that cgroup" grep -q "^$(systemctl show -P MainPID efq-boot-probe.service)\$" $CG/$c/cgroup.procs
	expect_read "systemd wrote IOWeight=60 to blkio.weight as 300" $CG/$c/blkio.weight 300
	log "efq-boot-probe: $(weights "$c")"
else
	fail "systemd-run -p IOWeight=60: the unit's cgroup has blkio.weight within 30 s"
fi
systemctl stop efq-boot-probe.service 2>/dev/null
