#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of `make soak`: e2e 15-soak with all eight batches (132 QPs)
# for the minutes given (argument 1), its output in $RESULTS/15-soak.log.
SOAK_BATCHES=8 "$(dirname "$0")/../e2e/15-soak.sh" "$1" \
	> "$RESULTS/15-soak.log" 2>&1
