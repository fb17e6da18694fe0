#!/usr/bin/env bash
# Real runtimes, confined (the default of `arena tournament`; docs/security.md,
# "Confined cmd: bots"), with nothing granted by hand (no --confine-read):
#  1. Node.js: node/nodebot.js, written from docs/protocol.md with the npm
#     packages zeromq (a native module) and @msgpack/msgpack, installed by
#     `npm ci` from node/package-lock.json beside the bot, plays every game
#     with no fault (node reads OpenSSL's configuration at start, and its
#     node_modules lie beside the script). The same bot without its token
#     is refused at once with the hello's refusal, not after the start-up
#     time; a Node.js bot refused a file at start is told which.
#  2. Python in a virtual environment (the runtime's home outside the
#     system: pyvenv.cfg and its site-packages), importing a module
#     installed there.
#  3. The JVM, where a JDK is installed: `java` runs a source file under
#     ja_confine with the default address-space cap.
# `npm ci` needs the npm registry (or a cache filled by an earlier run, kept
# in the build tree): where neither can be had, part 1 is skipped with a
# line saying so, and the test exits 77 (ctest: skipped) once the other
# parts have passed. node and npm themselves are installed by
# scripts/setup.sh: a machine without them fails.
# Usage: test_runtimes.sh ARENA JA_CONFINE NPM_CACHE
set -u
ARENA=$1 CONFINE=$2 NPM_CACHE=$3
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
PY=/usr/bin/python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
mkdir tmp
export TMPDIR=$work/tmp
unset PYTHONPATH JACKARENA_LIB JACKARENA_CONFINE JACKARENA_CONFINE_MEM_MB NODE_PATH NODE_OPTIONS
pass=0 fail=0 skipped=0
check() {
  local d=$1; shift
  if "$@"; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: $d"; [ -s err.txt ] && sed 's/^/  stderr: /' err.txt | tail -8
  fi
}
clean_json() { # clean_json FILE: every planned match played, no fault
  $PY -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["matches"] == d["planned"] > 0 and d["faults"] == 0, d' "$1"
}
abi=$($PY -c 'import ctypes; print(max(0, ctypes.CDLL(None).syscall(444, None, 0, 1)))')
if [ "$abi" = 0 ]; then
  echo "sandbox_runtimes: this kernel has no Landlock: nothing to test"
  exit 77
fi

# 1. Node.js.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "FAIL: node and npm are not installed (scripts/setup.sh installs them)"
  fail=$((fail + 1))
else
  mkdir nodebot
  cp "$HERE/node/nodebot.js" "$HERE/node/package.json" "$HERE/node/package-lock.json" nodebot/
  if (cd nodebot && npm ci --no-audit --no-fund --prefer-offline --cache "$NPM_CACHE" \
        >../npm.log 2>&1); then
    NODE="nodebot=cmd:node $work/nodebot/nodebot.js"
    for g in taylor-blackjack brawljack bruise-jack jack-in-the-box bombs; do
      bots=random seats=2
      [ $g = bombs ] && bots=random,random seats=3
      "$ARENA" tournament $g --bots $bots --bot "$NODE" --seats $seats --seed 7 --db "n-$g.db" --json -q \
        >"n-$g.json" 2>err.txt
      check "node: the zeromq bot plays $g confined, no fault" clean_json "n-$g.json"
    done
    # Refused for good (its hello carries no token): at once, with the
    # refusal, though a day of start-up time is given.
    "$ARENA" tournament taylor-blackjack --bots random \
      --bot "nodebot=cmd:env -u JACKARENA_TOKEN node $work/nodebot/nodebot.js" --seed 7 \
      --startup-ms 86400000 --db nt.db --json -q >nt.json 2>err.txt
    rc=$?
    check "node: a hello without its token: exit 2 at once, naming the refusal" bash -c \
      "[ $rc = 2 ] && grep -q \"^arena: error: bot 'nodebot' (cmd:.*): a hello as 'nodebot' was refused (unauthorized): \" err.txt"
    # A file it may not read: the line names it.
    printf 'the tournament seed\n' >secret.txt
    printf 'require("fs").readFileSync("%s");\n' "$work/secret.txt" >nodebot/peek.js
    "$ARENA" tournament taylor-blackjack --bots random --bot "cmd:node $work/nodebot/peek.js" \
      --seed 7 --db np.db --json -q >np.json 2>err.txt
    rc=$?
    check "node: a bot refused a file at start: exit 2, the line names the file" bash -c \
      "[ $rc = 2 ] && tail -1 err.txt | grep -q \"before saying hello (confined, it was refused '$work/secret.txt': \""
  elif grep -qE 'E(NOTFOUND|AI_AGAIN|CONNREFUSED|CONNRESET|TIMEDOUT|NETUNREACH)|ETIMEDOUT|network' npm.log; then
    echo "note: the npm registry cannot be reached and the cache has no zeromq: the Node.js part is skipped"
    sed 's/^/  npm: /' npm.log | tail -3
    skipped=1
  else
    echo "FAIL: npm ci failed (not for want of the network)"
    sed 's/^/  npm: /' npm.log | tail -10
    fail=$((fail + 1))
  fi
fi

# 2. Python in a virtual environment: its pyvenv.cfg and site-packages
# (the runtime's home, outside the system) are readable.
$PY -m venv --system-site-packages --without-pip venv
site=$(venv/bin/python -c 'import site; print(site.getsitepackages()[0])')
printf 'WHERE = "venv"\n' >"$site/venvmod.py"
mkdir vb
cat >vb/venvbot.py <<'EOF'
import sys

import jackarena
import venvmod


class VenvBot(jackarena.Bot):
    name = "venvbot"


assert sys.prefix != sys.base_prefix, "not in the virtual environment"
VenvBot().run()
EOF
"$ARENA" tournament taylor-blackjack --bots random \
  --bot "cmd:PYTHONPATH=$ROOT/sdk/python $work/venv/bin/python $work/vb/venvbot.py" --seed 7 \
  --opt games=1 --db v.db --json -q >v.json 2>err.txt
check "python: a bot run by a virtual environment's python imports what is installed there" \
  clean_json v.json

# 3. The JVM.
if command -v java >/dev/null; then
  mkdir -p jv s
  printf 'public class Hi { public static void main(String[] a) { System.out.println("jvm " + Runtime.getRuntime().availableProcessors()); } }\n' >jv/Hi.java
  out=$("$CONFINE" --read "$work/jv" --write "$work/s" --mem-mb 4096 -- "java $work/jv/Hi.java" 2>err.txt)
  check "java: the JVM compiles and runs a source file confined, under 4096 MiB of address space" \
    bash -c "[[ '$out' == jvm\ * ]]"
else
  echo "note: no java here: part 3 is not run"
fi

echo "sandbox_runtimes: $pass passed, $fail failed"
[ "$fail" = 0 ] || exit 1
[ "$skipped" = 0 ] || exit 77
exit 0
