#!/usr/bin/env bash
# The browser test: Debian's chromium, headless, opens generated replay pages
# (one per game, one with a forfeit) and a report page, steps through each
# replay in every view with the page's own buttons (#selftest), checks that
# no script error was logged and that the scores shown are the replay's,
# checks with check_pages.py what each view showed at each frame (the result
# at the last frame only; in a seat's view no timeline, no decision
# numbers, no seed; who decides now; a forfeit where it happened) and that a
# seat's view does not change when everything it may not see is scrambled,
# nor the public view when every hand, decision and the seed are (and that
# it shows no card of a hand), that the bots' logs show in the omniscient
# view and each seat's own in its view only, never in the public view (and
# a seat's view unchanged when the others' logs are scrambled), and saves
# screenshots in SHOTS. Skipped (exit 77) only where chromium is not
# installed.
# Usage: test_browser.sh ARENA SHOTS FAULTY_PLUGIN LOGGER_PLUGIN
set -u
A=$1
SHOTS=$2
FAULTY=$3
LOGGER=$4
CHROME=$(command -v chromium || true)
if [ -z "$CHROME" ]; then
  echo "SKIP: chromium is not installed (scripts/setup.sh installs it)"
  exit 77
fi
SRC=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
. "$SRC/matches.sh"
mkdir -p "$SHOTS"
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

chrome() { # chrome ARGS... URL: one headless run with a fresh profile
  local prof; prof=$(mktemp -d "$work/profile.XXXX")
  timeout 90 "$CHROME" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --disable-dev-shm-usage --user-data-dir="$prof" "$@" 2>>chrome.log
}

CHECK="/usr/bin/python3 $SRC/check_pages.py"
selftest() { # selftest NAME: NAME.html stepped through (NAME.dom), no script error
  chrome --virtual-time-budget=10000 --dump-dom "file://$work/$1.html#selftest" >$1.dom
  grep -q 'data-selftest="ok [0-9]' $1.dom && ok || bad "$1: the self-test did not step through the replay"
  if grep -q '<pre id="errlog"></pre>' $1.dom; then ok; else
    bad "$1: script errors"; grep -o '<pre id="errlog">[^<]*' $1.dom; fi
}

play_all "$A" && play_forfeit "$A" "$FAULTY" || { echo "FAIL: could not play the test matches"; exit 1; }
for g in $GAMES forfeit; do
  "$A" replay html $g.rpl -o $g.html || { bad "html $g"; continue; }
  selftest $g
  $CHECK check $g.dom $([ $g = forfeit ] && echo forfeit) && ok || bad "$g: what the views show"
  # Seat 1's view with everything else scrambled: the same, frame by frame.
  $CHECK scramble $g.html 1 $g-scrambled.html || bad "$g: cannot scramble"
  selftest $g-scrambled
  $CHECK same $g.dom $g-scrambled.dom 1 && ok || bad "$g: seat 1's view sees what it may not"
  # The public view with every hand, the stock as seats know it, every
  # decision and the seed scrambled: the same, frame by frame; and no card
  # of a hand in its text at any frame.
  $CHECK scramble $g.html public $g-public.html || bad "$g: cannot scramble for the public view"
  selftest $g-public
  $CHECK same $g.dom $g-public.dom public && ok || bad "$g: the public view sees what it may not"
  $CHECK hands $g.dom $g.html && ok || bad "$g: the public view shows a card of a hand"
  # Scores: the page's result table against the text viewer's result lines.
  sed -i '/<script/,$d' $g.dom   # the page's own script holds the same class names
  shown=$(grep -o 'class="points">[^<]*' $g.dom | sed 's/.*>//' | tr '\n' ' ')
  want=$("$A" replay show $g.rpl | sed -n '/^== result ==/,$p' | grep -o 'score [^ ]*' | sed 's/score //' | tr '\n' ' ')
  [ -n "$want" ] && [ "$shown" = "$want" ] && ok || bad "$g: page shows scores '$shown', the replay has '$want'"
  # After the self-test the page is on the last frame: its running scores
  # are the final ones too.
  running=$(grep -o 'class="score">[^<]*' $g.dom | sed 's/.*>//' | tr '\n' ' ')
  [ "$running" = "$want" ] && ok || bad "$g: last frame shows scores '$running', want '$want'"
  for v in "" 1 public; do
    chrome --window-size=1200,800 --virtual-time-budget=3000 --screenshot="$SHOTS/replay-$g${v:+-seat$v}.png" \
      "file://$work/$g.html#frame=3${v:+&view=$v}" >/dev/null
    [ -s "$SHOTS/replay-$g${v:+-seat$v}.png" ] && ok || bad "$g: no screenshot${v:+ of seat $v}"
  done
done

# Bot logs: where each view may see them; a seat's view and the public view
# unchanged when what they may not see of the logs is scrambled.
play_logs "$A" "$LOGGER" && "$A" replay html logs.rpl -o logs.html || bad "logs: cannot make the page"
selftest logs
$CHECK logs logs.dom logs.html && ok || bad "logs: what the views show"
for v in 0 1 public; do
  $CHECK scramble logs.html $v logs-$v.html || bad "logs: cannot scramble for $v"
  selftest logs-$v
  $CHECK same logs.dom logs-$v.dom $v && ok || bad "logs: view $v sees a log it may not"
done
# A log of HTML is text: no element of it in the page, its script not run.
grep -q '<b id="botlog-markup">' logs.dom && bad "logs: a log's HTML made an element" || ok
grep -q '<title>pwned' logs.dom && bad "logs: a log's script ran" || ok
chrome --window-size=1200,800 --virtual-time-budget=3000 --screenshot="$SHOTS/replay-logs.png" \
  "file://$work/logs.html#frame=1" >/dev/null
[ -s "$SHOTS/replay-logs.png" ] && ok || bad "logs: no screenshot"

# The report site, when this build has `arena report`.
if "$A" report --help >/dev/null 2>&1; then
  "$A" tournament taylor-blackjack --bots greedy,random --rounds 2 --seed 3 --opt games=1 \
    --opt turn_cap=20 --db t.db --replays rp >/dev/null || bad "tournament"
  "$A" report --db t.db -o site >/dev/null || bad "report"
  chrome --virtual-time-budget=5000 --dump-dom "file://$work/site/index.html" >index.dom
  grep -q '<svg' index.dom && ok || bad "report: no rating chart"
  grep -q 'greedy' index.dom && ok || bad "report: no standings"
  link=$(grep -o 'href="matches/[^"]*\.html"' index.dom | head -1 | sed 's/href="//; s/"$//')
  if [ -n "$link" ] && [ -f "site/$link" ]; then
    ok
    chrome --virtual-time-budget=10000 --dump-dom "file://$work/site/$link#selftest" >m.dom
    grep -q 'data-selftest="ok' m.dom && grep -q '<pre id="errlog"></pre>' m.dom && ok || bad "report: the match page fails"
  else bad "report: no match page linked"; fi
  chrome --window-size=1200,900 --virtual-time-budget=3000 --screenshot="$SHOTS/report.png" \
    "file://$work/site/index.html" >/dev/null
  [ -s "$SHOTS/report.png" ] && ok || bad "report: no screenshot"
fi

echo "viewer_browser: $pass passed, $fail failed (screenshots in $SHOTS)"
[ $fail = 0 ]
