# SPDX-License-Identifier: GPL-2.0
# Block I/O of the two-guest storage tests (nvmeof.guest, rnbd.guest),
# sourced in the guest after pair-lib.sh: write a source file's ranges to
# a block device with O_DIRECT at several block sizes and in parallel
# streams, read them back the same way, compare. The sourcing script sets
# $src, the source data (random, written once), and $blk_out, where what
# is read back goes.

# write_region DEV BS OFFSET_MB SIZE_MB: dd the source's range to DEV
write_region() {
	write_kib "$1" "$2" $(($3 * 1024)) $(($4 * 1024))
}

# read_region DEV BS OFFSET_MB SIZE_MB OUT: dd DEV's range into OUT
read_region() {
	read_kib "$1" "$2" $(($3 * 1024)) $(($4 * 1024)) "$5"
}

# write_kib DEV BS OFFSET_KIB SIZE_KIB: the same in KiB (BS divides both)
write_kib() {
	local bs=$2 n=$(( $4 * 1024 / $2 )) skip=$(( $3 * 1024 / $2 ))
	dd if="$src" of="$1" bs="$bs" count="$n" skip="$skip" seek="$skip" \
		oflag=direct conv=notrunc status=none
}

# read_kib DEV BS OFFSET_KIB SIZE_KIB OUT
read_kib() {
	local bs=$2 n=$(( $4 * 1024 / $2 )) skip=$(( $3 * 1024 / $2 ))
	dd if="$1" of="$5" bs="$bs" count="$n" skip="$skip" seek="$skip" \
		iflag=direct conv=notrunc status=none
}

# parallel_io WRITE|READ DEV OUT AT MB: four streams of MB/4 MiB each
# (counted in KiB: MB need not be a multiple of 4), 128 KiB blocks, from
# AT MiB on
parallel_io() {
	local pids=() i rc=0 at=$(($4 * 1024)) n=$(($5 * 256))
	for i in 0 1 2 3; do
		if [ "$1" = write ]; then
			write_kib "$2" 131072 $((at + n * i)) "$n" &
		else
			read_kib "$2" 131072 $((at + n * i)) "$n" "$3" &
		fi
		pids+=($!)
	done
	for i in "${pids[@]}"; do wait "$i" || rc=1; done
	return $rc
}

# block_io NAME DEV UNIT: write 9 UNIT MiB in four regions (UNIT 1 MiB at
# 4 KiB blocks, 2 at 64 KiB, 2 at 1 MiB, 4 in parallel streams of 128
# KiB blocks), read them back in three (5 at 1 MiB, 2 at 8 KiB, 2 in
# parallel streams), compare.
block_io() {
	local u=$3 t0 t1 total=$((9 * $3))
	rm -f "$blk_out"
	t0=$(date +%s.%N)
	check "$1: write 0-$u MiB, 4 KiB blocks" write_region "$2" 4096 0 "$u"
	check "$1: write $u-$((3 * u)) MiB, 64 KiB blocks" \
		write_region "$2" 65536 "$u" $((2 * u))
	check "$1: write $((3 * u))-$((5 * u)) MiB, 1 MiB blocks" \
		write_region "$2" 1048576 $((3 * u)) $((2 * u))
	check "$1: write $((5 * u))-$total MiB, 4 parallel streams" \
		parallel_io write "$2" "" $((5 * u)) $((4 * u))
	t1=$(date +%s.%N)
	check "$1: read 0-$((5 * u)) MiB, 1 MiB blocks" \
		read_region "$2" 1048576 0 $((5 * u)) "$blk_out"
	check "$1: read $((5 * u))-$((7 * u)) MiB, 8 KiB blocks" \
		read_region "$2" 8192 $((5 * u)) $((2 * u)) "$blk_out"
	check "$1: read $((7 * u))-$total MiB, 4 parallel streams" \
		parallel_io read "$2" "$blk_out" $((7 * u)) $((2 * u))
	log "info $1: wrote $total MiB in $(awk "BEGIN { print $t1 - $t0 }") s," \
		"read it in $(awk "BEGIN { print $(date +%s.%N) - $t1 }") s"
	check "$1: $total MiB read back equal to what was written" \
		cmp -n $((total * 1048576)) "$src" "$blk_out"
	rm -f "$blk_out"
}
