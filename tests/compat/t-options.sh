#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Every option of Slurm 22.05's man pages is built or refused by name on
# sbatch, salloc, srun, squeue, sinfo, scontrol, scancel, sacct and sattach (none is taken for a
# typo), and docs/options.md is what the commands do now.
# Usage: t-options.sh BUILD SOURCE_ROOT
build=$1
src=$2
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$src/tools/options-table.sh" "$build" "$src/tests/compat/golden/options" >"$out"
passed=0
failed=0
if diff -u "$src/docs/options.md" "$out"; then
	passed=$((passed + 1)); echo "ok: docs/options.md is what the commands do"
else
	failed=$((failed + 1)); echo "FAIL: docs/options.md is stale: run tools/options-table.sh"
fi
for c in sbatch salloc srun squeue sinfo scontrol scancel sacct sattach; do
	gaps=$(sed -n "/^## $c\$/,/^## /p" "$out" | grep -c '| unknown |')
	if [ "$gaps" = 0 ]; then
		passed=$((passed + 1)); echo "ok: $c: every Slurm option built or refused by name"
	else
		failed=$((failed + 1)); echo "FAIL: $c: $gaps Slurm options unknown"
	fi
done
echo "cases: $passed passed, $failed failed"
[ "$failed" = 0 ]
