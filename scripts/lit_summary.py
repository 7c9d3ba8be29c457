#!/usr/bin/env python3
"""Counts lit's per-test results (--xunit-xml-output) as "PASSED FAILED SKIPPED".

A test case with a <failure> is one lit counts as a failure (FAIL, UNRESOLVED,
TIMEOUT, ...); with <skipped> it was not run (UNSUPPORTED, SKIPPED, EXCLUDED);
anything else passed (PASS, XFAIL, and XPASS, which lit 22 does not fail).
Exits 1 without output when the file is missing or not lit's XML.
"""
import sys
import xml.etree.ElementTree as ET


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: lit_summary.py RESULTS.xml\n")
        return 2
    try:
        root = ET.parse(sys.argv[1]).getroot()
    except (OSError, ET.ParseError) as err:
        sys.stderr.write(f"lit_summary.py: cannot read {sys.argv[1]}: {err}\n")
        return 1
    if root.tag not in ("testsuites", "testsuite"):
        sys.stderr.write(f"lit_summary.py: {sys.argv[1]} is not lit's xunit XML\n")
        return 1
    passed = failed = skipped = 0
    for case in root.iter("testcase"):
        if case.find("failure") is not None or case.find("error") is not None:
            failed += 1
        elif case.find("skipped") is not None:
            skipped += 1
        else:
            passed += 1
    print(passed, failed, skipped)
    return 0


if __name__ == "__main__":
    sys.exit(main())
