#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarise kunit.py's JSON: per-suite counts, one tally line per case.

Usage: kunit-summary.py RESULTS.json
Prints "suite: N passed, N failed, N skipped" per suite and, for
tools/check.sh, "pass|fail|skip SUITE.CASE[.PARAM]" lines to the file named
by $SWP_TALLY. Exits 1 when a case failed or crashed, or when none ran.
"""
import json
import os
import sys


def leaves(group, path):
    for case in group.get("test_cases", []):
        yield path + [case["name"]], case["status"]
    for sub in group.get("sub_groups", []):
        yield from leaves(sub, path + [sub["name"]])


def main():
    with open(sys.argv[1]) as f:
        root = json.load(f)
    tally = os.environ.get("SWP_TALLY")
    name = "kunit-debug" if os.environ.get("KFLAVOUR") == "debug" else "kunit"
    out = open(tally, "a") if tally else None
    total = {"PASS": 0, "FAIL": 0, "SKIP": 0, "ERROR": 0}
    for suite in root.get("sub_groups", []):
        counts = dict.fromkeys(total, 0)
        for path, status in leaves(suite, [suite["name"]]):
            counts[status] = counts.get(status, 0) + 1
            if out:
                word = {"PASS": "pass", "SKIP": "skip"}.get(status, "fail")
                out.write("%s %s:%s\n" % (word, name, ".".join(path)))
        for k in total:
            total[k] += counts[k]
        print("  %-32s %4d passed, %d failed, %d skipped" % (
            suite["name"], counts["PASS"], counts["FAIL"] + counts["ERROR"],
            counts["SKIP"]))
    bad = total["FAIL"] + total["ERROR"]
    print("%s: %d passed, %d failed, %d skipped" % (
        name, total["PASS"], bad, total["SKIP"]))
    if total["PASS"] + bad == 0:
        print("%s: no test case ran" % name, file=sys.stderr)
        if out:
            out.write("fail %s:no-case-ran\n" % name)
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
