# SPDX-License-Identifier: GPL-2.0
#
# Every tunable of every efq scheduler against what efqsim lists
# (/tunables/<sched> = `efqsim --list-tunables --scheduler <sched> --device
# null`, whose null device has null_blk's default depth 64 like nullb0:
# name, default, unit, lo..hi): the set of names, the defaults, lo and hi read
# back, above hi clamps to hi, "abc" is EINVAL.  The device is idle (the
# hierarchical switch is only writable then).

D=nullb0
nb_create 0 irqmode=0 memory_backed=0 || fail "create null_blk device $D"
IOS=/sys/block/$D/queue/iosched

for s in $EFQ_SCHEDS; do
	if ! set_sched $D $s; then
		fail "$s: select on $D"
		continue
	fi
	pass "$s: select on $D"
	want=$(awk 'NR > 1 { print $1 }' /tunables/$s | sort | tr '\n' ' ')
	have=$(ls $IOS | sort | tr '\n' ' ')
	cond "$s: the files in queue/iosched are efqsim's tunables [$want]" "$want" = "$have"
	[ "$want" = "$have" ] || log "$s: queue/iosched has [$have]"

	awk 'NR > 1 { print $1, $2, $4 }' /tunables/$s >/tmp/tun.$s
	while read -r name def range; do
		f=$IOS/$name
		if [ ! -e "$f" ]; then
			fail "$s/$name: exists"
			continue
		fi
		lo=${range%..*}
		hi=${range#*..}
		expect_read "$s/$name: default $def" "$f" "$def"
		expect_ok "$s/$name: write lo $lo" "$f" "$lo"
		expect_read "$s/$name: reads back lo $lo" "$f" "$lo"
		expect_ok "$s/$name: write hi $hi" "$f" "$hi"
		expect_read "$s/$name: reads back hi $hi" "$f" "$hi"
		# above hi clamps to hi.  From lo, so that a write which does
		# nothing cannot pass.
		wr "$f" "$lo" >/dev/null
		if [ ${#hi} -lt 19 ]; then
			above=$((hi + 1))
			expect_ok "$s/$name: write above hi ($above)" "$f" "$above"
			expect_read "$s/$name: above hi clamps to $hi" "$f" "$hi"
		fi
		expect_err "$s/$name: write abc is EINVAL" EINVAL "$f" abc
		wr "$f" "$def" >/dev/null
		expect_read "$s/$name: default restored" "$f" "$def"
	done </tmp/tun.$s
done
set_sched $D none
nb_remove 0
