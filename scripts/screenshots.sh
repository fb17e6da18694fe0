#!/usr/bin/env bash
# Regenerates the screenshots of docs/viewer.md ("Gallery") and the README's
# pictures with the project's own commands: one short match per game played
# by `arena play`, its page made by `arena replay html`, and headless
# chromium's screenshot of the page at a chosen decision, in the full view
# and in the public view, at 1,400 px and (one game) at 400 px; then a
# report site (`arena report`) and its index.
#
# Usage: scripts/screenshots.sh [ARENA [OUT]]
#   ARENA  the arena binary (default: build/arena/arena)
#   OUT    where the PNGs go (default: docs/img)
# Needs chromium (scripts/setup.sh installs it). Prints each file written;
# exits 1 naming the step that failed.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
A=${1:-$ROOT/build/arena/arena}
OUT=${2:-$ROOT/docs/img}
case $A in /*) ;; *) A=$PWD/$A ;; esac
case $OUT in /*) ;; *) OUT=$PWD/$OUT ;; esac
CHROME=$(command -v chromium || true)
die() { echo "screenshots.sh: $*" >&2; exit 1; }
[ -n "$CHROME" ] || die "chromium is not installed (scripts/setup.sh installs it)"
[ -x "$A" ] || die "no arena binary at $A (build first: cmake --build build)"
mkdir -p "$OUT"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

shot() { # shot WIDTH HEIGHT FILE URL: one screenshot with a fresh profile
  local prof; prof=$(mktemp -d "$work/profile.XXXX")
  timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --disable-dev-shm-usage --hide-scrollbars --user-data-dir="$prof" \
    --virtual-time-budget=3000 --window-size="$1,$2" --screenshot="$OUT/$3" "$4" \
    >>chrome.log 2>&1 || die "chromium could not take $3 (see its log: $(tail -n 3 chrome.log))"
  [ -s "$OUT/$3" ] || die "chromium wrote no $3"
  echo "$OUT/$3"
}

# The matches: GAME | the arena play arguments | the decision shown.
while IFS='|' read -r game args frame; do
  # shellcheck disable=SC2086
  "$A" play "$game" $args --replay "$game.rpl" >/dev/null || die "cannot play $game"
  "$A" replay html "$game.rpl" -o "$game.html" || die "cannot make the page of $game"
  shot 1400 900 "$game.png" "file://$work/$game.html#frame=$frame"
  shot 1400 900 "$game-public.png" "file://$work/$game.html#view=public&step=$frame"
done <<'EOF'
taylor-blackjack|greedy random --seed 1 --opt games=1 --opt turn_cap=30|12
brawljack|greedy random --seed 2 --opt hands=1|6
bruise-jack|greedy random --seed 1 --opt hands=1|9
jack-in-the-box|greedy random --seed 1 --opt games=1|10
bombs|greedy random random --seed 1 --opt hands=1 --opt tiebreak_hands=0|3
EOF
shot 400 860 bombs-phone.png "file://$work/bombs.html#frame=3"
cp "$OUT/bombs.png" "$OUT/replay-page.png" && echo "$OUT/replay-page.png"

"$A" tournament taylor-blackjack --bots greedy,random,sharp=greedy,lucky=random \
  --seats 2 --rounds 3 --seed 1 --opt games=3 --db arena.db --replays replays \
  >/dev/null 2>&1 || die "cannot run the report's tournament"
"$A" report -o report >/dev/null || die "cannot make the report"
shot 1200 900 report.png "file://$work/report/index.html"
