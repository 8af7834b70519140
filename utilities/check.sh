#!/bin/sh
# Runs the whole test suite from a fresh Debian 12 machine (as root):
# installs what is missing, builds with AddressSanitizer and UBSan, runs
# every test, and ends with the line "N passed, N failed" (skipped tests,
# if any, are listed just before it).
# Extra arguments go to the autotest suite (e.g. -k northd, or a number).
# The build and the tests' directories are in _build/sanitizers (see
# build.sh), e.g. _build/sanitizers/tests/testsuite.dir/N/.
cd "$(dirname "$0")/.." || exit 1
./utilities/build.sh --enable-sanitizers || exit 1
cd _build/sanitizers || exit 1

out=tests/check-output.txt
jobs=$(nproc)
# Generates the suite first, so that its output holds only the tests.
make -s check TESTSUITEFLAGS=--version >/dev/null 2>&1 || true
make -s check TESTSUITEFLAGS="-j$jobs $*" 2>&1 | tee "$out"
passed=$(grep -c -E '^ *[0-9]+: .* ok$' "$out")
failed=$(grep -c -E '^ *[0-9]+: .* FAILED \(' "$out")
skipped=$(grep -c -E '^ *[0-9]+: .* skipped \(' "$out")
if test "$passed" -eq 0 && test "$failed" -eq 0; then
    # The suite did not run at all (build or harness failure).
    failed=1
fi
if test "$failed" -gt 0; then
    # What each failed test last did, so that a CI log that keeps only its
    # tail still says why (the whole log is in testsuite.dir/N/).
    for log in tests/testsuite.dir/*/testsuite.log; do
        test -f "$log" || continue
        echo "--- ${log%/testsuite.log}: the last lines of its log"
        grep -v '^##\|^$' "$log" | tail -n 25
    done
fi
if test "$skipped" -gt 0; then
    # Each skipped test says why in its log; list them before the summary,
    # which stays the last line.
    grep -E '^ *[0-9]+: .* skipped \(' "$out"
    echo "$skipped skipped"
fi
echo "$passed passed, $failed failed"
test "$failed" -eq 0
