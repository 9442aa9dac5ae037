#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of `make soak`: tools/e2e/soak.sh for the minutes given (argument
# 1), its output in $RESULTS/15-soak.log.
"$(dirname "$0")/../e2e/soak.sh" "$1" > "$RESULTS/15-soak.log" 2>&1
