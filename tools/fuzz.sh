#!/bin/sh
# Run every libFuzzer target in build dir $1 for $2 seconds each, starting
# from the seed corpus in tests/fuzz/corpus/<target> (new inputs are kept in
# $1/corpus, crashes in $1/artifacts). Prints "fuzz: N passed, N failed".
set -u
build=$1
secs=${2:-60}
src=$(cd "$(dirname "$0")/.." && pwd)
passed=0 failed=0
mkdir -p "$build/artifacts"
for exe in "$build"/tests/fuzz/fuzz_*; do
	case $exe in *.p) continue ;; esac
	[ -f "$exe" ] && [ -x "$exe" ] || continue
	t=${exe##*/fuzz_}
	mkdir -p "$build/corpus/$t"
	cp -n "$src/tests/fuzz/corpus/$t"/* "$build/corpus/$t/" 2>/dev/null || true
	log="$build/artifacts/$t.log"
	if "$exe" -max_total_time="$secs" -max_len=4096 -rss_limit_mb=2048 -timeout=10 \
		-artifact_prefix="$build/artifacts/$t-" "$build/corpus/$t" >"$log" 2>&1; then
		runs=$(sed -n 's/^Done \([0-9]*\) runs in \([0-9]*\) second.*/\1 runs in \2 s/p' "$log")
		echo "fuzz: $t: clean, $runs"
		passed=$((passed + 1))
	else
		echo "fuzz: $t: FAILED, see $log"
		grep -E 'ERROR|SUMMARY|runtime error' "$log" | head -n 5
		failed=$((failed + 1))
	fi
done
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
