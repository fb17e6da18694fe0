#!/usr/bin/env bash
# `arena games` as text: in every option line of every game the columns
# (name, allowed values, default, help) start at the same place, whatever
# the lengths of the names and values, with two spaces at least between
# them; and every option of `arena games --json` is listed.
# Usage: test_listing.sh ARENA
set -u
A=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$A" games >"$work/games.txt" || { echo "FAIL: arena games exits non-zero"; exit 1; }
"$A" games --json >"$work/games.json" || { echo "FAIL: arena games --json exits non-zero"; exit 1; }
/usr/bin/python3 - "$work/games.txt" "$work/games.json" <<'PY'
import json, re, sys
lines = [l.rstrip("\n") for l in open(sys.argv[1]) if l.startswith("  --opt ")]
want = sum(len(g["options"]) for g in json.load(open(sys.argv[2])))
fail = []
if len(lines) != want:
    fail.append("%d option lines, --json has %d options" % (len(lines), want))
row = re.compile(r"^  --opt (\S+)( {2,})(\S+)( {2,})default (\S+)( {2,})(\S.*)$")
cols = set()
for l in lines:
    m = row.match(l)
    if not m:
        fail.append("not in columns: %r" % l)
        continue
    cols.add((m.start(3), m.start(5), m.start(7)))
if len(cols) > 1:
    fail.append("columns start at different places: %s" % sorted(cols))
for f in fail:
    print("FAIL:", f)
print("viewer_listing: %d option lines, %d failures" % (len(lines), len(fail)))
sys.exit(1 if fail else 0)
PY
