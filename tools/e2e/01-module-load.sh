#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# modprobe softiwarp as a user would, check it is live and what modinfo
# says, unload it, and require a clean kernel log. The crc32c_driver
# parameter: the default ("fastest") times the crypto API's preferred
# driver (crc32c-intel on the test kernel) and the library's code
# (crc32c-generic; from 7.0 both are crc32c-lib, timed once), logs the
# figures and keeps the one with the higher; "crc32c" takes the preferred
# one untimed, the library's by name is taken, and a name that is no
# CRC32c (sha256) or no driver at all fails the load.
set -eu
. "$(dirname "$0")/lib.sh"

dmesg -C
modinfo softiwarp | grep -q '^license: *GPL'
modinfo -p softiwarp | grep -q '^crc32c_driver:.*fastest'
modprobe softiwarp
grep -q '^softiwarp ' /proc/modules
[ "$(cat /sys/module/softiwarp/initstate)" = live ]
[ "$(cat /sys/module/softiwarp/parameters/crc32c_driver)" = fastest ]
rmmod softiwarp
grep -q '^softiwarp ' /proc/modules && exit 1
dmesg > "$RESULTS/01-module-load.dmesg"
grep -q 'softiwarp: unloaded' "$RESULTS/01-module-load.dmesg"
dmesg_clean "$RESULTS/01-module-load.dmesg"
# The crypto API's CRC32c drivers: the one it prefers (crc32c-intel on
# x86 up to 6.x; crc32c-lib from 7.0, where it is the only one) and the
# library's code, crc32c-generic (crc32c-lib from 7.0)
pref=$(awk '/^name/ { n = $3 } /^driver/ { d = $3 }
	/^priority/ && n == "crc32c" && $3 > p { p = $3; best = d }
	END { print best }' /proc/crypto)
lib=crc32c-generic
grep -q '^driver *: crc32c-lib$' /proc/crypto && lib=crc32c-lib
echo "preferred: $pref, the library's: $lib"
[ -n "$pref" ]
# "CRC32c by DRIVER: N MB/s" for both (one line when they are one)
timed=$(sed -n 's/.*softiwarp: CRC32c by \(crc32c-[a-z]*\): \([0-9]*\) MB\/s$/\2 \1/p' \
	"$RESULTS/01-module-load.dmesg" | sort -n)
echo "timed at load: $(echo $timed)"
if [ "$pref" = "$lib" ]; then
	[ "$(echo "$timed" | wc -l)" -eq 1 ]
else
	[ "$(echo "$timed" | wc -l)" -eq 2 ]
	echo "$timed" | grep -q " $lib\$"
fi
echo "$timed" | grep -q " $pref\$"
fastest=$(echo "$timed" | tail -n 1 | cut -d' ' -f2)
grep -q "softiwarp: loaded; CRC32c by $fastest\$" "$RESULTS/01-module-load.dmesg"

dmesg -C
modprobe softiwarp crc32c_driver=crc32c
dmesg | grep -q "softiwarp: loaded; CRC32c by $pref\$"
if dmesg | grep -q 'MB/s'; then exit 1; fi	# untimed
rmmod softiwarp
dmesg -C
modprobe softiwarp crc32c_driver=$lib
dmesg | grep -q "softiwarp: loaded; CRC32c by $lib\$"
rmmod softiwarp
for bad in sha256 no-such-crc; do
	rc=0
	out=$(modprobe softiwarp crc32c_driver=$bad 2>&1) || rc=$?
	echo "crc32c_driver=$bad: modprobe exit $rc: $out"
	[ "$rc" -ne 0 ] && ! grep -q '^softiwarp ' /proc/modules
done
dmesg > "$RESULTS/01-module-load-crc.dmesg"
grep -q 'cannot set up the crc32c transform sha256: -22' \
	"$RESULTS/01-module-load-crc.dmesg"
grep -q 'cannot set up the crc32c transform no-such-crc: -2' \
	"$RESULTS/01-module-load-crc.dmesg"
