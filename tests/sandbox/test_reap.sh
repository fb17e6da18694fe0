#!/usr/bin/env bash
# Nothing of a cmd: bot is left behind (ja_reap, referee/proc.c;
# docs/security.md, "Nothing left behind").
#  0. The control: escapebot.py, run by hand, leaves a sleep and a sender in
#     a session of their own (setsid); both outlive it, and the sender sends
#     its datagram once released, long after its bot ended.
#  1. The same bot in the arena, unconfined and confined: while it plays,
#     its escaped processes run; once the arena has exited, no process of
#     it is left (none whose command line or environment holds its mark),
#     whether the run ended by itself (`play`, `tournament`), by SIGTERM or
#     SIGKILL of `arena play` (the keeper learns it from the kernel), or by
#     SIGINT of `arena tournament` (its own stop, after the match it plays).
# No duration is asserted: the test waits for events (a file the bot makes
# at its first act, the arena's exit, processes leaving /proc) in bounded
# polls.
# Usage: test_reap.sh ARENA
set -u
ARENA=$(realpath "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
PY=/usr/bin/python3
RAW=$ROOT/tests/proto/rawbot.py
T=taylor-blackjack
work=$(mktemp -d)
trap 'chmod -R u+rwx "$work" 2>/dev/null; rm -rf "$work"' EXIT
cd "$work"
unset JACKARENA_REAP JACKARENA_CONFINE
pass=0 fail=0
check() {
  local d=$1; shift
  if "$@"; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: $d"; [ -s err.txt ] && sed 's/^/  stderr: /' err.txt | tail -5
  fi
}
count() { # count MARK [env]: live processes whose command line or environment (env: whose
          # environment holds JA_ESCAPE_MARK=MARK) holds MARK
  $PY - "$@" <<'EOF'
import os, sys
mark = sys.argv[1].encode()
only_env = len(sys.argv) > 2
want = b"JA_ESCAPE_MARK=" + mark if only_env else mark
n = 0
for p in os.listdir("/proc"):
    if not p.isdigit() or int(p) == os.getpid():
        continue
    for f in ("environ",) if only_env else ("cmdline", "environ"):
        try:
            with open("/proc/%s/%s" % (p, f), "rb") as fh:
                if want in fh.read():
                    n += 1
                    break
        except OSError:
            pass
print(n)
EOF
}
poll() { # poll COMMAND...: until it succeeds, at most 60 s (a bound, not a timing)
  local i
  for ((i = 0; i < 1200; i++)); do
    "$@" && return 0
    sleep 0.05
  done
  return 1
}
none_left() { test "$(count "$1")" = 0; }
escaped() { test "$(count "$1" env)" -ge 2; }
port=$($PY "$ROOT/tests/free_port.py") # nothing listens there in part 1

# 0. The control.
mark=jareap$$control
$PY - >lport.txt <<'EOF' &
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1], flush=True)
s.settimeout(120)  # only a broken bot makes it wait that long
try:
    open("dgram.txt", "wb").write(s.recv(100))
except socket.timeout:
    pass
EOF
listener=$!
poll test -s lport.txt
JACKARENA_ENDPOINT= $PY "$HERE/escapebot.py" "$RAW" $mark "$work/release" "$(cat lport.txt)" 2>/dev/null
check "control: the bot has ended, its escaped sleep and sender run on" escaped $mark
touch release
wait $listener
check "control: the sender sent its datagram after its bot had ended" \
  test "$(cat dgram.txt 2>/dev/null)" = $mark
pkill -f "^$mark-sleep" 2>/dev/null
poll none_left $mark

# 1. In the arena.
abi=$($PY -c 'import ctypes; print(max(0, ctypes.CDLL(None).syscall(444, None, 0, 1)))')
CONFINED=--confine
[ "$abi" = 0 ] && CONFINED=--confine-weak # limits only; the keeper is the same
started() { # started DIR: the file the bot makes at its first act, in its TMPDIR under DIR
  find "$1" -name started 2>/dev/null | grep -q .
}
scenario() { # scenario NAME HOW ARENA-ARGS...: the escape bot (@) plays; the run ends by HOW
  local name=$1 how=$2; shift 2
  local mark=jareap$$$name dir=$work/t-$name a args=()
  mkdir -p "$dir"
  local bot="cmd:$PY $HERE/escapebot.py $RAW $mark \$TMPDIR/release $port"
  bot="$bot --act-touch \$TMPDIR/started --act-wait-file \$TMPDIR/go"
  for a in "$@"; do
    [ "$a" = @ ] && a=$bot
    args+=("$a")
  done
  TMPDIR=$dir "$ARENA" "${args[@]}" >out.txt 2>err.txt &
  local arena=$!
  if ! poll started "$dir"; then
    check "$name: the bot reaches its first act" false
    kill -KILL $arena
    return
  fi
  check "$name: its escaped sleep and sender run" escaped $mark
  local go; go=$(dirname "$(find "$dir" -name started | head -1)")/go
  if [ "$how" = end ]; then
    touch "$go"
    wait $arena
    check "$name: the arena exits 0" test $? = 0
    check "$name: when the arena has exited, no process of the bot is left" none_left $mark
  else
    kill -"$how" $arena
    # `tournament` stops after the matches it is playing: let the bot answer.
    [ "$how" = INT ] && touch "$go"
    wait $arena 2>/dev/null # bash's note of a job killed
    check "$name: after SIG$how of the arena, no process of the bot is left" poll none_left $mark
  fi
  check "$name: not even one that would send its datagram later" test "$(count $mark env)" = 0
}
for mode in unconfined confined; do
  c=--no-confine
  [ $mode = confined ] && c=$CONFINED
  scenario play-$mode end play $T random @ --seed 3 --move-ms 0 $c
  scenario tour-$mode end tournament $T --bot random --bot @ --seed 5 --opt games=1 --move-ms 0 \
    --db "$work/$mode.db" -q $c
  scenario term-$mode TERM play $T random @ --seed 3 --move-ms 0 $c
  scenario kill-$mode KILL play $T random @ --seed 3 --move-ms 0 $c
  scenario int-$mode INT tournament $T --bot random --bot @ --seed 5 --opt games=1 --move-ms 0 \
    --db "$work/i$mode.db" -q $c
done

echo "sandbox_reap: $pass passed, $fail failed"
[ "$fail" = 0 ]
