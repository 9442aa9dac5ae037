# SPDX-License-Identifier: GPL-2.0
# Helpers for the end-to-end tests (sourced in the guest).

# dmesg_clean LOGFILE: no warning, bug, oops or leak report in the log.
dmesg_clean() {
	! grep -E 'WARNING:|BUG:|Oops|general protection|KASAN|UBSAN|kmemleak|Call Trace' "$1"
}
