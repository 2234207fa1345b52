#!/bin/sh
# Run the Meson test suite in build dir $1 and print one summary line,
# "check: N passed, N failed", counting individual test cases (cmocka cases,
# "cases: N passed, N failed" lines of script tests, else whole tests; a
# skipped test, exit 77, counted neither way).
# Exits non-zero on any failure.
set -u
build=${1:-build}
meson test -C "$build" --print-errorlogs --num-processes 2
rc=$?
python3 - "$build/meson-logs/testlog.json" "$rc" <<'PY'
import json, re, sys

passed = failed = 0
digest = []  # what failed, printed last: CI keeps only an output's tail
for line in open(sys.argv[1]):
    t = json.loads(line)
    out = (t.get("stdout") or "") + "\n" + (t.get("stderr") or "")
    ok = t["result"] == "OK"
    if t["result"] == "SKIP":  # exit 77: said why, counted neither way
        continue
    pairs = [(int(a), int(b)) for a, b in
             re.findall(r"^cases: (\d+) passed, (\d+) failed$", out, re.M)]
    pairs += [(int(n), 0) for n in re.findall(r"\[  PASSED  \] (\d+) test", out)]
    pairs += [(0, int(n)) for n in re.findall(r"\[  FAILED  \] (\d+) test", out)]
    p = sum(a for a, _ in pairs)
    f = sum(b for _, b in pairs)
    if not pairs:
        p, f = (1, 0) if ok else (0, 1)
    elif not ok and f == 0:
        f = 1  # crashed or leaked after its cases passed
    passed += p
    failed += f
    if t["result"] not in ("OK", "SKIP", "EXPECTEDFAIL"):
        why = [l for l in out.splitlines() if l.startswith("FAIL:") or "histcheck:" in l
               or "ERROR: " in l or "runtime error" in l]
        digest.append("failed: %s: %s" % (t["name"], " | ".join(why[:6])[:600]))
for d in digest[:10]:
    print(d)
print(f"check: {passed} passed, {failed} failed")
sys.exit(1 if failed or sys.argv[2] != "0" else 0)
PY
