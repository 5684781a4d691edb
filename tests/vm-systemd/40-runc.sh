# SPDX-License-Identifier: GPL-2.0
# vmtest-budget: 360
#
# What a container user writes: two runc containers running together, OCI
# linux.resources.blockIO.weight 750 and 250, with runc's systemd cgroup
# driver (cgroupsPath "efq.slice:efq:ctr-SIDE": the scope efq-ctr-SIDE.scope
# in efq.slice), as docker and podman run them on a systemd host.  Each
# runs the same random reader as 20-ioweight: the guest's own fio, its /usr
# bind-mounted read-only into a rootfs of four symlinks (trixie has a merged
# /usr), the null_blk device passed in (linux.devices, allowed in
# linux.resources.devices).  On cgroup v2 runc writes the weight unchanged
# to io.bfq.weight where that file exists, else 1 + (w - 10) * 9999 / 990
# to io.weight (750 -> 7475, 250 -> 2425, a ratio of 3.08); bfq is not
# loaded here (efq-modules.service), so io.weight it is, and efq-weightd
# copies it into efq.  Expected: io.efq.disk_time ratio 3.08 +/- 15%, IOPS
# ratio 2.47..3.85 under efq, about 1:1 under none.

# bundle SIDE WEIGHT OFFSET: the OCI bundle /run/efq/bundles/SIDE
bundle() {
	_b=/run/efq/bundles/$1
	rm -rf $_b
	mkdir -p $_b/rootfs/usr $_b/rootfs/proc $_b/rootfs/dev $_b/rootfs/sys $_b/rootfs/tmp $_b/rootfs/go
	for _l in bin sbin lib lib64; do
		ln -s usr/$_l $_b/rootfs/$_l
	done
	_maj=${DEV%%:*} _min=${DEV#*:}
	_args=$(fio_job $1 $3 | sed 's/[^ ]*/"&"/g; s/ /, /g')
	_wrap=$(printf '%s' "$SD_WRAP" | sed 's/"/\\"/g')
	cat >$_b/config.json <<JSON
{
	"ociVersion": "1.0.2",
	"process": {
		"terminal": false,
		"user": { "uid": 0, "gid": 0 },
		"args": [ "/bin/sh", "-c", "$_wrap", "/go", $_args ],
		"env": [ "PATH=/usr/sbin:/usr/bin" ],
		"cwd": "/",
		"noNewPrivileges": true
	},
	"root": { "path": "rootfs", "readonly": true },
	"hostname": "efq-ctr-$1",
	"mounts": [
		{ "destination": "/proc", "type": "proc", "source": "proc" },
		{ "destination": "/dev", "type": "tmpfs", "source": "tmpfs", "options": [ "nosuid", "strictatime", "mode=755", "size=65536k" ] },
		{ "destination": "/sys", "type": "sysfs", "source": "sysfs", "options": [ "nosuid", "noexec", "nodev", "ro" ] },
		{ "destination": "/tmp", "type": "tmpfs", "source": "tmpfs", "options": [ "nosuid", "nodev", "mode=1777" ] },
		{ "destination": "/usr", "type": "bind", "source": "/usr", "options": [ "rbind", "ro" ] },
		{ "destination": "/go", "type": "bind", "source": "$GO", "options": [ "rbind", "ro" ] }
	],
	"linux": {
		"cgroupsPath": "efq.slice:efq:ctr-$1",
		"devices": [ { "path": "/dev/$D", "type": "b", "major": $_maj, "minor": $_min, "fileMode": 432, "uid": 0, "gid": 0 } ],
		"resources": {
			"devices": [
				{ "allow": false, "access": "rwm" },
				{ "allow": true, "type": "b", "major": $_maj, "minor": $_min, "access": "rw" }
			],
			"blockIO": { "weight": $2 }
		},
		"namespaces": [ { "type": "pid" }, { "type": "ipc" }, { "type": "uts" }, { "type": "mount" }, { "type": "network" } ]
	}
}
JSON
}

# start_ctr SIDE OFFSET OUT
start_ctr() {
	runc --systemd-cgroup run --bundle /run/efq/bundles/$1 efq-ctr-$1 >$3 2>&1 &
}

log "$(runc --version | head -n 1)"
# what efq-weightd is to copy into io.efq.io_weight
SD_EXPECT_HI="default 7475" SD_EXPECT_LO="default 2425"
if sd_device; then
	bundle hi 750 0
	bundle lo 250 2g
	sd_suite ctr start_ctr scope 3.08 "runc blockIO.weight 750 vs 250 (io.weight 7475 vs 2425)"
	sd_wrote "runc wrote blockIO.weight 750 to io.weight as 7475" "$wh" "io.weight=[default 7475]"
	sd_wrote "runc wrote blockIO.weight 250 to io.weight as 2425" "$wl" "io.weight=[default 2425]"
	nb_remove 5 || fail "remove $D"
else
	fail "ctr: create the device-bound null_blk $D"
fi
