#!/bin/sh
# Compat: our `scontrol show hostnames|hostlist|hostlistsorted` must print
# byte for byte what Slurm 22.05 printed (golden/scontrol-hostlist.txt).
# Usage: t-scontrol-hostlist.sh PATH-TO-OUR-scontrol
set -u
ours=$1
here=$(cd "$(dirname "$0")" && pwd)
golden="$here/golden/scontrol-hostlist.txt"
out=$(mktemp)
trap 'rm -f "$out" "$out.diff"' EXIT
{
	head -n 1 "$golden"
	while IFS= read -r e; do
		echo "== $e"
		for verb in hostnames hostlist hostlistsorted; do
			echo "-- $verb"
			"$ours" show "$verb" "$e"
		done
	done <"$here/hostlist-cases.txt"
} >"$out" 2>&1
passed=0 failed=0
# compare case by case so one difference names its expression
cases=$(grep -c '^== ' "$golden")
i=1
while [ "$i" -le "$cases" ]; do
	if [ "$(awk -v n="$i" '/^== /{c++} c==n' "$golden")" = "$(awk -v n="$i" '/^== /{c++} c==n' "$out")" ]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "FAIL: $(awk -v n="$i" '/^== /{c++} c==n' "$golden" | head -n 1)"
	fi
	i=$((i + 1))
done
if [ "$failed" -ne 0 ]; then
	diff -u "$golden" "$out"
fi
echo "cases: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
