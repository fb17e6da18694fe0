#!/usr/bin/env bash
# scripts/screenshots.sh, which makes docs/viewer.md's gallery, run into a
# temporary directory: every picture docs/viewer.md shows from docs/img/ is
# made, each a PNG of the width the script asks for (1,400 px; 400 px for
# the phone picture; 1,200 px for the report). Skipped (exit 77) only where
# chromium is not installed.
# Usage: test_screenshots.sh ARENA
set -u
A=$1
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
command -v chromium >/dev/null || { echo "SKIP: chromium is not installed"; exit 77; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
bash "$ROOT/scripts/screenshots.sh" "$A" "$out" >"$out/list" || { echo "FAIL: screenshots.sh failed"; exit 1; }
fail=0
width() { /usr/bin/python3 -c 'import struct,sys
d=open(sys.argv[1],"rb").read(24)
print(struct.unpack(">I",d[16:20])[0] if d[:8]==b"\x89PNG\r\n\x1a\n" else 0)' "$1"; }
for f in $(grep -o 'img/[a-z-]*\.png' "$ROOT/docs/viewer.md" "$ROOT/README.md" | sed 's/.*img\///' | sort -u); do
  case $f in bombs-phone.png) want=400 ;; report.png) want=1200 ;; *) want=1400 ;; esac
  if [ ! -s "$out/$f" ]; then echo "FAIL: $f is shown in the docs but the script did not make it"; fail=1; continue; fi
  w=$(width "$out/$f")
  [ "$w" = "$want" ] || { echo "FAIL: $f is $w px wide, not $want"; fail=1; }
done
n=$(wc -l <"$out/list")
[ "$n" -ge 13 ] || { echo "FAIL: the script listed $n files, not 13"; fail=1; }
[ $fail = 0 ] && echo "PASS: $n screenshots"
exit $fail
