#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Add a "known cause" column to the expect suite's table from
# tools/expect-notes.txt (TEST<TAB>note). Usage: tools/expect-notes.sh TABLE
table=$1
notes="$(dirname "$0")/expect-notes.txt"
tmp=$(mktemp)
awk -F'\t' -v notes="$notes" '
BEGIN { while ((getline l < notes) > 0) if (l !~ /^#/ && index(l, "\t")) { split(l, a, "\t"); n[a[1]] = a[2] } }
/^\| test \| result \| why \|$/ { print "| test | result | why | known cause |"; next }
/^\| --- \| --- \| --- \|$/ { print "| --- | --- | --- | --- |"; next }
/^\| test[0-9]/ { t = $0; sub(/^\| /, "", t); sub(/ .*/, "", t); print $0 " " (t in n ? n[t] : "") " |"; next }
{ print }' "$table" >"$tmp" && cat "$tmp" >"$table"
rm -f "$tmp"
