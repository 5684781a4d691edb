# SPDX-License-Identifier: GPL-2.0
#
# The systemd guest itself: systemd is PID 1 and the boot ended with no
# failed unit; cgroup v2 with the io controller; efq-modules.service loaded
# null_blk and the five efq modules, and a null_blk device lists the four
# efq schedulers; a unit started with IOWeight= gets a cgroup with the
# io.efq.* files; efq-weightd (tools/weightd, installed with its unit by
# scripts/vm/vmtest-systemd when it is built) runs.

cond "systemd is PID 1" "$(cat /proc/1/comm)" = systemd
v=$(systemctl --version | awk 'NR == 1 { print $2 }')
cond "systemd 257 or later (trixie's; it is $v)" "${v:-0}" -ge 257
if [ "$SYSTEM_STATE" = running ]; then
	pass "systemd: the boot ended with every unit up (is-system-running: running)"
else
	fail "systemd: the boot ended with every unit up (is-system-running: ${SYSTEM_STATE:-no answer}; failed: $(systemctl --failed --no-legend --plain | awk '{ printf "%s ", $1 }'))"
fi
cond "cgroup2 at $CG" "$(stat -f -c %T $CG)" = cgroup2fs
check "the io controller is available" grep -qw io $CG/cgroup.controllers
check "efq-modules.service is active" systemctl -q is-active efq-modules.service
for m in null_blk efq cfq_iosched deadline_fq_iosched as_iosched noop_iosched; do
	check "module $m loaded" grep -q "^$m " /proc/modules
done
cond "bfq not loaded (runc would write io.bfq.weight instead of io.weight)" \
	"$(grep -c '^bfq ' /proc/modules)" = 0
sd_scheds_listed

# a transient unit with IOWeight=: its cgroup has the io controller and
# efq's files
systemd-run --quiet --collect --unit=efq-boot-probe -p IOWeight=300 sleep 30
c=$(wait_unit_cg efq-boot-probe.service) || c=""
if [ -n "$c" ]; then
	pass "systemd-run -p IOWeight=300: the unit's cgroup $c has io.stat"
	for f in weight disk_time; do
		check "io.efq.$f in the unit's cgroup" test -f $CG/$c/io.efq.$f
	done
	expect_read "systemd wrote IOWeight=300 to io.weight" $CG/$c/io.weight "default 300"
	log "efq-boot-probe: $(weights "$c")"
else
	fail "systemd-run -p IOWeight=300: the unit's cgroup has io.stat within 30 s"
fi
systemctl stop efq-boot-probe.service 2>/dev/null

if [ -f /run/efq/weightd ]; then
	u=$(cat /run/efq/weightd)
	log "efq-weightd: $u, $(systemctl show -P ExecStart "$u" | sed -n 's/.*path=\([^ ;]*\).*/\1/p')"
	check "efq-weightd ($u) is active" systemctl -q is-active "$u"
	[ "$(systemctl is-active "$u")" = active ] ||
		journalctl -b -u "$u" --no-pager | tail -n 20
else
	fail "efq-weightd runs (not installed: the host had no efq-weightd build, see scripts/vm/vmtest-systemd)"
fi
