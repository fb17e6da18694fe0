#!/usr/bin/env bash
# No file, flag or plugin takes the arena down (docs/security.md, "Outputs"
# and "Plugin files"; docs/scale.md for --jobs):
# - every output path of every command (play --replay, its reproduction
#   bundle, --export-decisions; tournament --db, --replays,
#   --export-decisions; replay html -o; report -o, --db; ladder, ladder
#   export -o, ladder import --db) that is a FIFO, a character device, a
#   directory, or a symbolic link (to a regular file, dangling) is refused
#   with exit 2 and one line naming it, nothing written, and stays as it was;
#   '-' only where it is the standard output, never with --json; a
#   symbolic link planted at the old fixed name PATH.tmp is not followed;
#   good outputs still work, '-' giving the same bytes as a file;
# - a truncated, empty, foreign-architecture, text or executable file as a
#   plugin, in-process and hosted: exit 2 with its message, no crash;
# - --jobs beyond 64 per core, a repeated --opt, a bad --listen without any
#   external bot, zmq:NAME without --listen and the time and count flags
#   out of range: exit 2 at once.
# Usage: test_outputs.sh ARENA BOTS_DIR
set -u
ARENA=$1
BOTS=$2
PY=/usr/bin/python3
T=taylor-blackjack
. "$(dirname "$0")/lib.sh"

# A database, a replay and an export to work from.
"$ARENA" tournament $T --bots random,greedy --seed 1 --db good.db --replays reps -q >/dev/null 2>&1
check "setup: a tournament" test -s good.db
cp "$(ls reps/*.rpl | head -1)" good.rpl
"$ARENA" ladder export $T --jsonl --db good.db >good.jsonl
check "setup: an export" test -s good.jsonl

# What stands where an output should go.
mkfifo fifo
if mknod cdev c 1 3 2>/dev/null; then DEV=cdev; else DEV=/dev/null; fi
mkdir adir
echo victim >victim.txt
ln -s victim.txt link
ln -s nowhere dangling
KIND="it is (a FIFO|a character device|a directory|a symbolic link)"

for p in fifo "$DEV" adir link dangling; do
  expect_fail 2 "^arena: error: --replay '$p': $KIND; an output replaces only a regular file" -- \
    "$ARENA" play $T random random --replay "$p"
  expect_fail 2 "^arena: error: --export-decisions '$p': $KIND; an output replaces only a regular file" -- \
    "$ARENA" play $T random random --export-decisions "$p"
  expect_fail 2 "^arena: error: --export-decisions '$p': $KIND" -- \
    "$ARENA" tournament $T --bots random,random --db t.db --export-decisions "$p"
  expect_fail 2 "^arena: error: --db '$p': $KIND, not a database file" -- \
    "$ARENA" tournament $T --bots random,random --db "$p"
  expect_fail 2 "^arena: error: -o '$p': $KIND; an output replaces only a regular file" -- \
    "$ARENA" replay html good.rpl -o "$p"
  expect_fail 2 "^arena: error: -o '$p': $KIND" -- \
    "$ARENA" ladder export $T --jsonl --db good.db -o "$p"
  expect_fail 2 "^arena: error: --db '$p': $KIND, not a database file" -- "$ARENA" ladder $T --db "$p"
  expect_fail 2 "^arena: error: --db '$p': $KIND, not a database file" -- \
    "$ARENA" ladder export $T --pgn --db "$p"
  expect_fail 2 "^arena: error: --db '$p': $KIND, not a database file" -- \
    "$ARENA" ladder import good.jsonl --db "$p"
  expect_fail 2 "^arena: error: --db '$p': $KIND, not a database file" -- \
    "$ARENA" ladder import good.db --db "$p"
  expect_fail 2 "^arena: error: --db '$p': $KIND, not a database file" -- \
    "$ARENA" report --db "$p" -o site
  # The reproduction bundle next to --replay rb.rpl.
  rm -rf rb.repro.json
  case $p in
    fifo) mkfifo rb.repro.json ;;
    adir) mkdir rb.repro.json ;;
    *) ln -s "$p" rb.repro.json ;;
  esac
  expect_fail 2 "^arena: error: reproduction bundle 'rb.repro.json': $KIND" -- \
    "$ARENA" play $T random random --replay rb.rpl
  rm -rf rb.repro.json
done
# Directories: anything but a directory (or nothing) is refused.
ln -s adir dirlink
for p in fifo "$DEV" victim.txt link dangling dirlink dirlink/; do
  expect_fail 2 "^arena: error: --replays '$p': it is (a FIFO|a character device|a regular file|a symbolic link), not a directory" -- \
    "$ARENA" tournament $T --bots random,random --db t.db --replays "$p"
  expect_fail 2 "^arena: error: -o '${p%/}': it is (a FIFO|a character device|a regular file|a symbolic link), not a directory" -- \
    "$ARENA" report --db good.db -o "$p"
done
check "the FIFO is still a FIFO" test -p fifo
check "the device is still a device" test -c "$DEV"
check "the symbolic link still points at its file" bash -c '[ -L link ] && [ "$(cat victim.txt)" = victim ]'
check "the dangling link is still dangling" bash -c '[ -L dangling ] && [ ! -e nowhere ]'
check "the directory is still empty" bash -c '[ -d adir ] && [ -z "$(ls -A adir)" ]'

# The standard output: only where it makes sense, once, never with --json.
expect_fail 2 "^arena: error: --replay '-': the standard output is not possible here" -- \
  "$ARENA" play $T random random --replay -
expect_fail 2 "^arena: error: --replays '-': give a directory" -- \
  "$ARENA" tournament $T --bots random,random --db t.db --replays -
expect_fail 2 "^arena: error: -o '-': give a directory" -- "$ARENA" report --db good.db -o -
expect_fail 2 "^arena: error: --export-decisions - and --json both write to the standard output" -- \
  "$ARENA" play $T random random --export-decisions - --json
expect_fail 2 "^arena: error: --export-decisions - and --json both write to the standard output" -- \
  "$ARENA" tournament $T --bots random,random --db t.db --export-decisions - --json
expect_fail 2 "^arena: error: --replay and --export-decisions both name 'same.out'" -- \
  "$ARENA" play $T random random --replay same.out --export-decisions same.out

# Good outputs still work.
"$ARENA" play $T random greedy --seed 3 --export-decisions - -q >std.mp 2>std.err
check "play --export-decisions - exits 0" test $? = 0
"$ARENA" play $T random greedy --seed 3 --export-decisions file.mp -q >/dev/null 2>&1
check "the standard output gets the bytes of the file" cmp -s std.mp file.mp
check "... and play's own report goes to stderr" grep -q "result after" std.err
echo old >r.rpl
"$ARENA" play $T random greedy --seed 3 --replay r.rpl -q >/dev/null 2>&1
check "a replay replaces a regular file" "$ARENA" replay verify r.rpl
echo victim2 >v2.txt
ln -s v2.txt p.rpl.tmp
"$ARENA" play $T random greedy --seed 3 --replay p.rpl -q >/dev/null 2>&1
check "a link planted at PATH.tmp is not followed" bash -c '[ "$(cat v2.txt)" = victim2 ] && [ -L p.rpl.tmp ]'
check "... and the replay is written" "$ARENA" replay verify p.rpl
"$ARENA" replay html good.rpl -o - >a.html
"$ARENA" replay html good.rpl -o b.html
check "replay html -o - is the page" cmp -s a.html b.html
echo old >b.html
"$ARENA" replay html good.rpl -o b.html
check "replay html replaces a regular file" cmp -s a.html b.html
"$ARENA" ladder export $T --jsonl --db good.db -o - >e1.jsonl
"$ARENA" ladder export $T --jsonl --db good.db -o e2.jsonl
check "ladder export -o - and -o FILE agree" bash -c 'cmp -s e1.jsonl good.jsonl && cmp -s e2.jsonl good.jsonl'
"$ARENA" tournament $T --bots random,greedy --seed 2 --db t2.db --replays reps2 \
  --export-decisions t2.mp --jobs 2 -q >/dev/null 2>&1
check "a tournament with every output exits 0" test $? = 0
check "... its replays and export are there" bash -c '[ "$(ls reps2/*.rpl | wc -l)" = 2 ] && [ -s t2.mp ]'
"$ARENA" tournament $T --bots random,greedy --seed 4 --db t3.db --export-decisions - -q \
  >t3.mp 2>t3.err
check "tournament --export-decisions - exits 0" test $? = 0
check "... the decisions on stdout, the standings on stderr" bash -c '[ -s t3.mp ] && grep -q "standings\|elo\|Elo" t3.err'
"$ARENA" report --db good.db -o site >/dev/null
check "report writes a fresh site" test -s site/index.html
check "no temporary file is left anywhere" bash -c '[ -z "$(find . -name "*.tmp-*")" ]'

# Plugin files checked before dlopen, in-process and hosted.
head -c 3000 "$BOTS/ja_random.so" >trunc.so
: >empty.so
echo 'not a library' >text.so
case $(uname -m) in
  x86_64) other=183 want="built for aarch64, this arena runs on x86_64" ;;
  aarch64) other=62 want="built for x86_64, this arena runs on aarch64" ;;
  *) other="" want="" ;;
esac
if [ -n "$other" ]; then
  $PY - "$BOTS/ja_random.so" "$other" <<'EOF'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
b[18:20] = struct.pack("<H", int(sys.argv[2]))  # e_machine
open("foreign.so", "wb").write(b)
EOF
fi
for k in "" hosted:; do
  expect_fail 2 "^arena: error: bot plugin './trunc.so': truncated: its segments need [0-9]+ bytes, the file has 3000$" -- \
    "$ARENA" play $T random "${k}./trunc.so"
  expect_fail 2 "^arena: error: bot plugin './empty.so': not an ELF file \(it is empty\)$" -- \
    "$ARENA" play $T random "${k}./empty.so"
  expect_fail 2 "^arena: error: bot plugin './text.so': not an ELF file$" -- \
    "$ARENA" play $T random "${k}./text.so"
  expect_fail 2 "^arena: error: bot plugin '/bin/true': an executable, not a shared library$" -- \
    "$ARENA" play $T random "${k}/bin/true"
  if [ -n "$other" ]; then
    expect_fail 2 "^arena: error: bot plugin './foreign.so': $want$" -- \
      "$ARENA" play $T random "${k}./foreign.so"
  fi
  expect_fail 2 "^arena: error: bot plugin './trunc.so': truncated" -- \
    "$ARENA" tournament $T --bots "random,${k}./trunc.so" --db t.db
done

# Flags with bounds, refused before anything runs.
expect_fail 2 "^arena: error: --jobs needs a number up to [0-9]+ \(64 per online core\), not '100000'$" -- \
  "$ARENA" tournament $T --bots random,random --jobs 100000 --db t.db
expect_fail 2 "^arena: error: --opt games is given twice \('games=1' and 'games=2'\)$" -- \
  "$ARENA" play $T random random --opt games=1 --opt games=2
expect_fail 2 "^arena: error: --opt decks is given twice" -- \
  "$ARENA" tournament $T --bots random,random --db t.db --opt decks=1 --opt decks=2
expect_fail 2 "^arena: error: --listen 'foo://bar': use ipc://PATH or tcp://HOST:PORT$" -- \
  "$ARENA" play $T random random --listen foo://bar
expect_fail 2 "^arena: error: --listen 'tcp://10.1.2.3:5555': plain tcp is refused" -- \
  "$ARENA" tournament $T --bots random,random --db t.db --listen tcp://10.1.2.3:5555
expect_fail 2 "^arena: error: bot 'lone' \(zmq:lone\) .*give --listen ENDPOINT so the bot can connect" -- \
  "$ARENA" play $T random zmq:lone
expect_fail 2 "give --listen ENDPOINT so the bot can connect" -- \
  "$ARENA" tournament $T --bots random,zmq:lone --db t.db
expect_fail 2 "^arena: error: bot 'lone' \(zmq:lone\): this command has no --listen" -- \
  "$ARENA" bench zmq:lone --game $T
expect_fail 2 "^arena: error: --move-ms needs a number of milliseconds from 0 to 86400000, not '86400001'$" -- \
  "$ARENA" play $T random random --move-ms 86400001
expect_fail 2 "^arena: error: --bank-ms needs a number of milliseconds from 0 to 86400000" -- \
  "$ARENA" play $T random random --bank-ms 86400001
expect_fail 2 "^arena: error: --startup-ms needs a number of milliseconds from 1 to 86400000, not '0'$" -- \
  "$ARENA" play $T random random --startup-ms 0
expect_fail 2 "^arena: error: --games needs a number of deals from 1 to 1000000, not '1000001'$" -- \
  "$ARENA" bench greedy --game $T --games 1000001
expect_fail 2 "^arena: error: --rounds needs a number from 1 to 10000, not '10001'$" -- \
  "$ARENA" conformance cmd:/bin/true --rounds 10001
expect_fail 2 "^arena: error: --move-ms needs a number of milliseconds" -- \
  "$ARENA" conformance cmd:/bin/true --move-ms 4294967295
expect_fail 2 "^arena: error: --seats needs a number from 1 to 20, not '21'$" -- \
  "$ARENA" ladder $T --db good.db --seats 21
"$ARENA" tournament $T --bots random,greedy --seed 5 --db t4.db --jobs 64 -q >/dev/null 2>&1
check "--jobs beyond the matches to play plays them (2 matches, --jobs 64)" test $? = 0

finish
