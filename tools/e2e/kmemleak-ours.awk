# SPDX-License-Identifier: GPL-2.0
#
# kmemleak-ours.awk FILE...: of the reports in kmemleak's FILEs (what
# /sys/kernel/debug/kmemleak lists), how many count against softiwarp:
# those whose allocation backtrace runs through softiwarp, through the
# RDMA core (ib_*, rdma_*, iw_cm, ucma, uverbs: built in on the test and
# debug kernels, so named), or through a module no longer loaded (a bare
# address, 0xffffffffa... or 0xffffffffc... as the kernel places modules,
# with or without the "[<...>]" older kernels print before it). Prints the
# number. The others are the kernel's own (a process's memory map while
# it runs, a netns, the 9p root): kmemleak reports some of those while
# they are in use, and they do not fail a test. Used by tools/e2e/lib.sh
# (dmesg_clean) and tools/guest/e2e.sh (the last check).
# (only the backtrace's lines are read: the hex dump may hold any text)
/^unreferenced object/ { n++; bt = 0; next }
/^ +backtrace/ { bt = 1; next }
bt && /softiwarp|swi_|[^a-z_]ib_[a-z]|rdma_|iw_cm|ucma_|uverbs|^ +(\[<[0-9a-f]+>\] )?0xffffffff[0-9a-f]+$/ && !seen[FILENAME, n]++ { c++ }
END { print c + 0 }
