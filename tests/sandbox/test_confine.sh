#!/usr/bin/env bash
# Confined `cmd:` bots (arena --confine, the default of `tournament`;
# ja_confine; docs/security.md, "Confined cmd: bots").
#  1. A spy bot (spybot.py) tries, at its first decision, to read the
#     arena's /proc/PID/cmdline and environ, the database (its planned
#     seeds), to list the replays, to write outside its scratch directory,
#     to connect over TCP and to signal the arena. Confined, each is denied,
#     its scratch directory is writable, its limits are set, it plays with
#     no fault, and the scratch directories are gone afterwards; with
#     --no-confine, the same bot reads the seeds and everything else (the
#     control).
#  2. The SDK's bots play confined: the Python example, the C example and
#     the Python forward-model bot flat_mc (libjackarena through ctypes:
#     named in the command, in the arena's JACKARENA_LIB, or by the
#     _install.py of an SDK installed under a prefix of its own and found
#     through the arena's PYTHONPATH), with no fault; a directory and a
#     PYTHONPATH= named in the command are readable, so is the arena's own
#     PYTHONPATH unless it holds the database, and never where it holds
#     another bot's own files; a script named by a bare name beside the
#     database plays (the script alone readable); a path the bot was
#     refused is named, before its hello and after the run.
#  3. Refusals, exit 2 in one line with nothing written: a named directory
#     that holds the database, a script that is the database, a
#     --confine-read path holding or within the replays, the home
#     directory, --confine-read without confinement, a bad
#     JACKARENA_CONFINE_MEM_MB, a missing launcher.
#  4. A kernel without Landlock, simulated by nolandlock (a seccomp filter
#     failing the Landlock calls with ENOSYS, as such a kernel does):
#     `tournament` refuses cmd: bots (exit 2, one line); --confine-weak plays
#     them with limits only (the spy then reads the seeds: weak confinement
#     protects no file, as documented) after one warning; hosted: plugins
#     play on, their reads while loading unrestricted (documented).
#  5. ja_confine's limits, run directly: address space, file size, core
#     files, no_new_privs; as root: no capabilities (a mode-000 file of its
#     own cannot be read), and, run as nobody, the task cap.
# Usage: test_confine.sh ARENA JA_CONFINE EXAMPLE_BOT LIBDIR NOLANDLOCK PLUGIN_DIR
set -u
ARENA=$1 CONFINE=$2 EXAMPLE=$3 LIBDIR=$4 NOLL=$5 P=$6
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
PY=/usr/bin/python3
T=taylor-blackjack
work=$(mktemp -d)
trap 'chmod -R u+rwx "$work" 2>/dev/null; rm -rf "$work"' EXIT
cd "$work"
# The scratch directories go here, so that the test sees them (and their removal).
mkdir tmp
export TMPDIR=$work/tmp
unset PYTHONPATH JACKARENA_LIB JACKARENA_CONFINE JACKARENA_CONFINE_MEM_MB
pass=0 fail=0
check() {
  local d=$1; shift
  if "$@"; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: $d"; [ -s err.txt ] && sed 's/^/  stderr: /' err.txt | tail -5
  fi
}
expect_fail() { # expect_fail CODE PATTERN -- command...: one stderr line, no file written
  local code=$1 pat=$2; shift 3
  local before; before=$(ls -A . tmp | grep -v -e '^out.txt$' -e '^err.txt$' | sort)
  "$@" >out.txt 2>err.txt
  local rc=$?
  local after; after=$(ls -A . tmp | grep -v -e '^out.txt$' -e '^err.txt$' | sort)
  if [ "$rc" = "$code" ] && [ "$(wc -l <err.txt)" = 1 ] && grep -qE -- "$pat" err.txt \
     && [ ! -s out.txt ] && [ "$before" = "$after" ]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1)); echo "FAIL: $* (rc=$rc, want $code, /$pat/)"; sed 's/^/  stderr: /' err.txt
  fi
  rm -f out.txt err.txt
}
abi=$($PY -c 'import ctypes; print(max(0, ctypes.CDLL(None).syscall(444, None, 0, 1)))')
if [ "$abi" = 0 ]; then
  echo "sandbox_confine: this kernel has no Landlock; parts 1 and 2 need it (part 4 is run)"
fi
port=$($PY "$ROOT/tests/free_port.py") # nothing listens there
SDK="--confine-read $ROOT/sdk/python"
spy() { # spy TAG: the spy bot's specifier for the files of run TAG
  echo "cmd:$PY $HERE/spybot.py --db $work/$1.db --replays $work/$1 --outside $work/$1.out --port $port"
}
spy_line() { # spy_line FILE: the spy's report
  grep '^spy: ' "$1" | head -1
}
has() { # has FILE KEY=RESULT...: the spy's report in FILE says each
  local line; line=$(spy_line "$1"); shift
  local kv
  for kv in "$@"; do
    [[ " ${line#spy: } " == *" $kv "* ]] || { echo "  want $kv in: $line"; return 1; }
  done
}
clean_json() { # clean_json FILE: every planned match played, no fault
  $PY -c 'import json, sys
d = json.load(open(sys.argv[1]))
assert d["matches"] == d["planned"] > 0 and d["faults"] == 0, d' "$1"
}

if [ "$abi" != 0 ]; then
  # 1. The spy, confined (the default of `tournament`) ...
  JACKARENA_CONFINE_MEM_MB=512 "$ARENA" tournament $T --bots "random,$(spy c)" $SDK --seed 5 --opt games=1 --db c.db \
    --replays c --json -q >c.json 2>err.txt
  check "confined spy: tournament exits 0" test $? = 0
  check "confined spy: every match played, no fault" clean_json c.json
  cp err.txt c.err
  check "confined spy: the arena's command line, environment and database are denied" \
    has c.err cmdline=denied environ=denied db=denied
  check "confined spy: the replays cannot be listed, nothing written outside its scratch" \
    has c.err replays=denied outside=denied scratch=written
  check "confined spy: nothing written outside" test ! -e c.out
  check "confined spy: JACKARENA_CONFINE_MEM_MB of address space, 64 MiB files, no core" \
    has c.err limits=as:512,fsize:64,core:0
  if [ "$abi" -ge 4 ]; then
    check "confined spy: no TCP connection (Landlock ABI $abi)" has c.err tcp=denied
  fi
  if [ "$abi" -ge 6 ]; then
    check "confined spy: no signal to the arena (Landlock ABI $abi)" has c.err signal=denied
  fi
  check "confined spy: its scratch directory is removed after the run" test -z "$(ls -A tmp)"
  # (tmp holds what the bots below write there when not confined)
  # ... and not confined: the same bot reads everything (the control).
  "$ARENA" tournament $T --bots "random,$(spy u)" --no-confine --seed 5 --opt games=1 --db u.db \
    --replays u --json -q >u.json 2>err.txt
  check "unconfined spy: tournament exits 0" test $? = 0
  cp err.txt u.err
  check "unconfined spy: reads the arena's command line, environment and every planned seed" \
    has u.err cmdline=read environ=read db=seeds:2
  check "unconfined spy: lists the replays, writes outside, connects, signals" \
    has u.err replays=listed outside=written tcp=refused signal=sent
  check "unconfined spy: wrote its file" test -s u.out

  # 2. The SDK's bots, confined. flat_mc is given its library in the command
  # (an assignment's path is readable), whichever build tree this is.
  LIB=$LIBDIR/libjackarena.so.0
  FMC="flat_mc=cmd:JACKARENA_PARAMS=samples=2:steps=5000 JACKARENA_LIB=$LIB"
  FMC="$FMC $PY $ROOT/sdk/python/examples/flat_mc.py"
  "$ARENA" tournament brawljack --bot random --bot "cmd:$PY $ROOT/sdk/python/examples/pyexample.py" \
    --bot "cmd:$EXAMPLE" --bot "$FMC" --seats 3 --opt hands=1 --seed 3 --move-ms 0 \
    $SDK --db s.db --json -q >s.json 2>err.txt
  check "SDK bots confined: tournament exits 0" test $? = 0
  check "SDK bots confined: pyexample, example_bot and flat_mc play every match, no fault" \
    $PY -c 'import json
d = json.load(open("s.json"))
assert d["matches"] == d["planned"] == 24 and d["faults"] == 0, d
assert {"pyexample", "example_bot", "flat_mc"} <= {s["bot"] for s in d["standings"]}, d'
  JACKARENA_LIB=$LIB "$ARENA" tournament brawljack --bots random,random \
    --bot "cmd:JACKARENA_PARAMS=samples=2:steps=5000 $PY $ROOT/sdk/python/examples/flat_mc.py" \
    --seats 3 --opt hands=1 --seed 3 --move-ms 0 $SDK --db s2.db --json -q >s2.json 2>err.txt
  check "flat_mc confined, its library named only in the arena's environment (JACKARENA_LIB): it loads it" \
    clean_json s2.json
  check "... and no refusal is noted" bash -c "! grep -q 'by its confinement' err.txt"
  JACKARENA_LIB=$LIB "$ARENA" tournament brawljack --bots random,random \
    --bot "cmd:JACKARENA_PARAMS=samples=2:steps=5000 $PY $ROOT/sdk/python/examples/flat_mc.py" \
    --seats 3 --opt hands=1 --seed 3 --move-ms 0 $SDK --confine-read "$LIBDIR" --db s3.db --json -q \
    >s3.json 2>err.txt
  check "... and with --confine-read of the library's directory" \
    clean_json s3.json

  # The SDK installed under a prefix of its own (as cmake --install lays it
  # out: the package with its _install.py, the library in LIBDIR), found
  # through the arena's PYTHONPATH only: the bot imports it and loads the
  # library that _install.py names, without --confine-read.
  pfx=$work/pfx
  mkdir -p "$pfx/lib/python3/dist-packages" fmc
  cp -r "$ROOT/sdk/python/jackarena" "$pfx/lib/python3/dist-packages/"
  rm -rf "$pfx/lib/python3/dist-packages/jackarena/__pycache__"
  printf 'LIBJACKARENA = "../../../libjackarena.so.0"\n' >"$pfx/lib/python3/dist-packages/jackarena/_install.py"
  cp "$(readlink -f "$LIB")" "$pfx/lib/libjackarena.so.0"
  cp "$ROOT/sdk/python/examples/flat_mc.py" fmc/
  PYTHONPATH=$pfx/lib/python3/dist-packages "$ARENA" tournament brawljack --bots random,random \
    --bot "cmd:JACKARENA_PARAMS=samples=2:steps=5000 $PY $work/fmc/flat_mc.py" \
    --seats 3 --opt hands=1 --seed 3 --move-ms 0 --db s4.db --json -q >s4.json 2>err.txt
  check "flat_mc confined, the SDK installed under another prefix (PYTHONPATH): it loads libjackarena" \
    clean_json s4.json
  check "... and no refusal is noted" bash -c "! grep -q 'by its confinement' err.txt"

  # What a bot finds by itself never reaches another bot's own files: the
  # arena's PYTHONPATH holds alice's directory; bob (elsewhere) is not given
  # it while alice plays, and is without her (the control).
  mkdir -p bots/alice bobdir
  cat >bots/alice/alice.py <<'EOF2'
import jackarena


class Own(jackarena.Bot):
    name = "own"


Own().run()
EOF2
  { printf 'import sys\ntry:\n    open("%s").read()\n    print("alice=read", file=sys.stderr)\n' "$work/bots/alice/alice.py"
    printf 'except OSError:\n    print("alice=denied", file=sys.stderr)\n'
    cat bots/alice/alice.py; } >bobdir/bob.py
  BOB="bob=cmd:PYTHONPATH=$ROOT/sdk/python $PY $work/bobdir/bob.py"
  PYTHONPATH=$work/bots "$ARENA" tournament $T --bots "random,$BOB" \
    --bot "alice=cmd:PYTHONPATH=$ROOT/sdk/python $PY $work/bots/alice/alice.py" \
    --seed 5 --opt games=1 --db ob.db --json -q >ob.json 2>err.txt
  check "another bot's own files are not granted through the arena's PYTHONPATH" bash -c \
    "grep -q 'alice=denied' err.txt && ! grep -q 'alice=read' err.txt"
  PYTHONPATH=$work/bots "$ARENA" tournament $T --bots "random,$BOB" \
    --seed 5 --opt games=1 --db oc.db --json -q >oc.json 2>err.txt
  check "... which grants them when no other bot's they are (the control)" grep -q 'alice=read' err.txt

  # What the command names is readable: a directory (cd), an assignment's
  # paths (PYTHONPATH=); the same path in the arena's environment is not.
  mkdir -p pd
  cat >pd/pathbot.py <<'EOF2'
import jackarena


class PathBot(jackarena.Bot):
    name = "pathbot"


PathBot().run()
EOF2
  "$ARENA" tournament $T --bots "random,cmd:cd $work/pd && PYTHONPATH=$ROOT/sdk/python $PY pathbot.py" \
    --seed 5 --opt games=1 --db pd.db --json -q >pd.json 2>err.txt
  check "a directory and a PYTHONPATH named in the command are readable" clean_json pd.json
  PYTHONPATH=$ROOT/sdk/python "$ARENA" tournament $T --bots "random,cmd:cd $work/pd && $PY pathbot.py" \
    --seed 5 --opt games=1 --db pe.db --json -q >pe.json 2>err.txt
  check "... so is a PYTHONPATH of the arena's environment (what the bot finds by itself)" \
    clean_json pe.json
  # ... but not one that holds what the bot must not read: dropped, the bot
  # does not find its module there and exits (the hint).
  printf 'HELPER = 1\n' >helper.py
  printf 'import helper\n' >pd/helperbot.py
  PYTHONPATH=$work "$ARENA" tournament $T --bots "random,cmd:$PY $work/pd/helperbot.py" \
    --seed 5 --opt games=1 --db pf.db --json -q >pf.json 2>err.txt
  check "a PYTHONPATH entry of the arena's environment that holds the database is not readable (exit 2, the hint)" \
    bash -c "[ $? = 2 ] && grep -q \"No module named 'helper'\" err.txt && grep -q 'before saying hello (confined: it reads only' err.txt"

  # A script named by a bare name (the tutorials' "cmd:python3 bot.py"),
  # in the directory of the database: the script alone is readable.
  mkdir -p bare
  cp pd/pathbot.py bare/
  (cd bare && "$ARENA" tournament $T --bots "random,cmd:PYTHONPATH=$ROOT/sdk/python $PY pathbot.py" \
    --seed 5 --opt games=1 --db arena.db --json -q >../bare.json 2>../err.txt)
  check "a script named by a bare name beside the database plays" clean_json bare.json
  # What the bot was refused, named: a path its output says it could not
  # open (Permission denied), before its hello ...
  printf 'the tournament seed\n' >secret.txt
  printf 'open("%s").read()\n' "$work/secret.txt" >pd/peek.py
  "$ARENA" tournament $T --bots "random,cmd:$PY $work/pd/peek.py" --seed 5 --opt games=1 \
    --db pg.db --json -q >pg.json 2>err.txt
  check "a bot refused a file at start: exit 2, the arena names the file" bash -c \
    "[ $? = 2 ] && tail -1 err.txt | grep -q \"exited with status 1 before saying hello (confined, it was refused '$work/secret.txt': \""
  # ... and after it, while it plays (every decision an error).
  cat >pd/peekact.py <<EOF2
import jackarena


class PeekAct(jackarena.Bot):
    name = "peekact"

    def act(self, match, obs, legal):
        open("$work/secret.txt").read()
        return 0


PeekAct().run()
EOF2
  "$ARENA" tournament $T --bots "random,cmd:PYTHONPATH=$ROOT/sdk/python $PY $work/pd/peekact.py" \
    --seed 5 --opt games=1 --db ph.db --json -q >ph.json 2>err.txt
  check "a bot refused a file as it plays: one line names it once the run is over" \
    test "$(grep -c "^arena: bot 'peekact' (cmd:.*) was refused '$work/secret.txt' by its confinement" err.txt)" = 1
  rm -f secret.txt

  # 3. Refusals.
  mkdir -p b
  cp "$HERE/spybot.py" b/
  expect_fail 2 "^arena: error: bot 'spybot': confined, it could read '$work/b', which holds the database \('$work/b/t.db'\)" -- \
    "$ARENA" tournament $T --bots "random,cmd:cd b && $PY spybot.py" --db b/t.db
  "$ARENA" tournament $T --db t.db --bots random,random --opt games=1 -q >/dev/null 2>&1
  expect_fail 2 "^arena: error: bot 'spybot': confined, it could read '$work/t.db', which is the database or within it \('$work/t.db'\): its command names it$" -- \
    "$ARENA" tournament $T --bots "random,cmd:$PY b/spybot.py --db t.db" --db t.db
  rm -f t.db
  mkdir -p rr
  expect_fail 2 "which holds the replays \('$work/rr/r'\)" -- \
    "$ARENA" tournament $T --bots "random,$(spy x)" --confine-read "$work/rr" --db t.db --replays rr/r
  mkdir -p rr/r/sub
  expect_fail 2 "^arena: error: bot 'spybot': confined, it could read '$work/rr/r/sub', which lies within the replays \\('$work/rr/r'\\)" -- \
    "$ARENA" tournament $T --bots "random,$(spy x)" --confine-read "$work/rr/r/sub" --db t.db --replays rr/r
  rm -rf rr/r
  expect_fail 2 "which holds the home directory" -- env HOME="$work/b" \
    "$ARENA" tournament $T --bots "random,cmd:cd b && $PY spybot.py" --db t.db
  expect_fail 2 "^arena: error: bot 'spybot': --confine-read is for confined bots: add --confine$" -- \
    "$ARENA" tournament $T --bots "random,$(spy x)" --no-confine $SDK --db t.db
  expect_fail 2 "JACKARENA_CONFINE_MEM_MB='lots'" -- env JACKARENA_CONFINE_MEM_MB=lots \
    "$ARENA" tournament $T --bots "random,$(spy x)" --db t.db
  expect_fail 2 "launcher of confined bots /nonexistent/ja_confine is missing" -- \
    env JACKARENA_CONFINE=/nonexistent/ja_confine "$ARENA" tournament $T --bots "random,$(spy x)" --db t.db
  check "play does not confine by default: the spy reads the arena's command line" bash -c \
    "'$ARENA' play $T random '$(spy p)' --seed 5 --opt games=1 >/dev/null 2>p.err && grep -q 'cmdline=read' p.err"
  check "play --confine confines" bash -c \
    "'$ARENA' play $T random '$(spy q)' --confine $SDK --seed 5 --opt games=1 >/dev/null 2>q.err && grep -q 'cmdline=denied' q.err"
fi

# 4. No Landlock (simulated).
check "nolandlock: the kernel's Landlock ABI reads as none" \
  "$NOLL" $PY -c 'import ctypes, sys; sys.exit(0 if ctypes.CDLL(None).syscall(444, None, 0, 1) < 0 else 1)'
expect_fail 2 "^arena: error: bot 'spybot': cannot confine cmd: bots: this kernel has no Landlock .*--confine-weak.*--no-confine$" -- \
  "$NOLL" "$ARENA" tournament $T --bots "random,$(spy n)" --db n.db
"$NOLL" "$ARENA" tournament $T --bots "random,$(spy w)" --confine-weak $SDK --seed 5 --opt games=1 \
  --db w.db --replays w --json -q >w.json 2>err.txt
check "--confine-weak without Landlock: tournament exits 0, no fault" clean_json w.json
cp err.txt w.err
check "--confine-weak without Landlock: one warning" \
  test "$(grep -c '^arena: this kernel has no Landlock: confined cmd: bots get limits only' w.err)" = 1
check "--confine-weak without Landlock: files are not protected (documented)" has w.err db=seeds:2
check "ja_confine without Landlock and without --weak refuses (exit 125, one line)" bash -c \
  "'$NOLL' '$CONFINE' -- true 2>e.txt; [ \$? = 125 ] && [ \$(wc -l <e.txt) = 1 ] && grep -q 'no Landlock' e.txt"
printf 'the tournament seed\n' >secret.txt
"$NOLL" "$ARENA" tournament $T --bots "random,hosted:$P/peek.so" --seed 7 --opt games=1 --db p.db \
  --json -q >p.json 2>/dev/null
check "hosted: without Landlock plays on, its constructor reading files (documented)" $PY -c '
import json; d = json.load(open("p.json"))
assert d["matches"] == d["planned"] and d["fault_kinds"].get("illegal", 0) > 0, d'
rm -f secret.txt

# 5. ja_confine's limits, run directly, on small Python programs in s5 (its
# scratch directory here).
mkdir -p s5
cat >s5/alloc.py <<'EOF2'
bytearray(200 << 20)
EOF2
cat >s5/big.py <<'EOF2'
import os
open(os.path.join(os.path.dirname(__file__), "big"), "wb").write(bytes(2 << 20))
EOF2
cat >s5/nnp.py <<'EOF2'
import ctypes
print(ctypes.CDLL(None).prctl(39, 0, 0, 0, 0))  # PR_GET_NO_NEW_PRIVS
EOF2
cat >s5/threads.py <<'EOF2'
import threading, time
n = 0
try:
    for _ in range(64):
        threading.Thread(target=time.sleep, args=(2,), daemon=True).start()
        n += 1
except RuntimeError:
    pass
print(n)
EOF2
if [ "$abi" != 0 ]; then W="--write $work/s5"; else W="--weak"; fi
run() { "$CONFINE" $W "$@"; } # run [OPTIONS] -- COMMAND
fails_with() { # fails_with PATTERN COMMAND...: exit status 1, PATTERN on stderr
  local pat=$1; shift
  "$@" 2>e.txt
  [ $? = 1 ] && grep -q "$pat" e.txt
}
check "address space: 200 MiB cannot be had under --mem-mb 100" \
  fails_with MemoryError run --mem-mb 100 -- "$PY s5/alloc.py"
check "... and can without it" run -- "$PY s5/alloc.py"
check "file size: 2 MiB cannot be written under --fsize-mb 1" \
  fails_with "File too large" run --fsize-mb 1 -- "$PY s5/big.py"
check "no core files" test "$(run -- 'ulimit -c')" = 0
check "no new privileges" test "$(run -- "$PY s5/nnp.py")" = 1
NOBODY=""
if [ "$(id -u)" = 0 ]; then
  # Root owns the file but, without CAP_DAC_OVERRIDE, mode 000 keeps it out.
  check "as root: no capabilities (a mode-000 file of its own cannot be read)" \
    run -- "echo x >s5/locked && chmod 000 s5/locked && ! cat s5/locked 2>/dev/null"
  check "... which root with capabilities can (the control)" test "$(cat s5/locked)" = x
  # RLIMIT_NPROC does not bind root: the task cap is checked as nobody.
  NOBODY="setpriv --reuid=65534 --regid=65534 --clear-groups"
  chmod 711 "$work"
  chmod 777 s5
fi
if [ -z "$NOBODY" ] || $NOBODY true 2>/dev/null; then
  got=$($NOBODY "$CONFINE" $W --tasks 8 -- "$PY s5/threads.py" 2>/dev/null)
  check "task cap: --tasks 8 stops a bot's threads (it started ${got:-none} of 64)" \
    test "${got:-64}" -lt 64
  got=$($NOBODY "$CONFINE" $W -- "$PY s5/threads.py" 2>/dev/null)
  check "... and without it 64 threads start" test "$got" = 64
else
  echo "note: cannot run as nobody here; the task cap is not checked"
fi

echo "sandbox_confine: $pass passed, $fail failed"
[ "$fail" = 0 ]
