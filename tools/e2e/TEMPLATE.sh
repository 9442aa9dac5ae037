#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The template of an end-to-end test (Documentation/testing.rst, "Running
# one test, adding one"). Its name has no number, so no run picks it up:
# copy it to tools/e2e/NN-name.sh, NN the next free number (the tests run
# in the order of their numbers), keep it executable, and replace this
# comment by what the test proves and how, as the other tests' do.
#
# tools/guest/e2e.sh runs every tools/e2e/[0-9][0-9]-*.sh in the guest,
# as root, with its output in $RESULTS/NN-name.log ($RESULTS is
# build/e2e/ on the host); the test passes when it exits 0, is skipped
# when it exits 77 (it needs what this kernel lacks: say what first, as
# 21-rdma-cgroup.sh does), fails when it exits with anything else or runs
# out of time: 300 s (E2E_TEST_TIMEOUT),
# times E2E_SLOW on the debug kernel. A test that needs longer says so in
# a comment line of its own near the top, "# timeout: SECS" with a number
# for SECS (12-faults.sh has one).
#
# Without the two namespaces (a test of the module alone, such as
# 01-module-load.sh) source lib.sh only, load the module yourself and end
# with its unload and dmesg_clean.
set -eux -o pipefail
. "$(dirname "$0")/lib.sh"

T=$(basename "$0" .sh)      # NN-name: the logs are $RESULTS/$T-*.log
NS0=swns0 NS1=swns1         # server side, client side
DEV0=swi0 DEV1=swi1         # softiwarp device in NS0, in NS1
IP0=10.77.0.1 IP1=10.77.0.2
RPING_PORT=7174             # rping's default port
. "$(dirname "$0")/netns-lib.sh"

# --- setup: NS0 and NS1 over a veth pair, a device on each end, ACTIVE ----
netns_setup

# --- the test -------------------------------------------------------------
# Any command that fails ends the test (set -e); say why with
# fail "TAG: what went wrong (see LOG)", whose FAIL line build/e2e/
# failures.txt shows. A process started in the background goes into
# bg_pids, so that the EXIT trap of netns-lib.sh stops it on a failure.
# The logs of rdma-core and perftest tools are checked for error lines
# too (tool_log_clean, rping_logs_clean in lib.sh): not every error ends
# in an exit status.
rping_pair example "$IP0" "$RPING_PORT" 4096 20

# --- teardown: devices, module and namespaces gone, the kernel log clean --
netns_teardown
echo "PASS $T"
