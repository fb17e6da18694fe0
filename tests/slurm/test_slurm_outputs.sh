#!/usr/bin/env bash
# `arena tournament --slurm N` with --replays and --export-decisions on a
# private single-node Slurm cluster (cluster.sh, lib.sh). The database
# already holds another tournament, so the shards must name their matches
# as tournament 2 (--tournament-id). A 4-shard run gives the replays of
# `--jobs 1`: the same 120 names, each verified by `arena replay verify`
# with the digest of the same match of `--jobs 1` and of the ladder (the
# bytes differ only by the recorded think times), and the same decision
# export byte for byte (in match order). A shard cancelled before it ran
# fails the run; the same command again submits that shard only, and the
# replays and the export are again those of `--jobs 1`: none lost, none
# twice (a second copy of a shard's export changes nothing). No
# wall-clock deadline: waits poll files or squeue. Usage:
# test_slurm_outputs.sh ARENA
. "$(cd "$(dirname "$0")" && pwd)/lib.sh"

"$ARENA" tournament bombs --bots random,greedy,random --rounds 1 --seed 3 --db pre.db -q >/dev/null  # 6 matches
for d in one sl f; do cp pre.db $d.db; done
"$ARENA" $T --db one.db -q --replays r1 --export-decisions one.mp >/dev/null

same_replays() { # same_replays DIR DB: DIR's replays are r1's (names, digests) and DB's digests
  digests "$1" >"$1.dig" && [ "$(wc -l <"$1.dig")" = 120 ] && cmp -s r1.dig "$1.dig" &&
    [ -z "$(ls "$1" | grep -v '^t2-m[0-9]*\.rpl$')" ] &&
    $PY - "$1.dig" "$2" <<'PYEOF'
import sqlite3, sys
rows = dict(l.split() for l in open(sys.argv[1]))
db = sqlite3.connect(sys.argv[2])
got = {"t2-m%06d.rpl" % n: d for n, d in
       db.execute("select number, digest from matches where tournament_id = 2 and status = 'done'")}
assert got == rows, (len(got), len(rows))
PYEOF
}
digests r1 >r1.dig
check "--jobs 1: 120 replays named t2-m*, each verified" \
  eval '[ "$(grep -c "^t2-m[0-9]*\.rpl [0-9a-f]\{64\}$" r1.dig)" = 120 ]'

"$ARENA" $T --db sl.db --slurm 4 -q --replays r4 --export-decisions sl.mp >/dev/null 2>sl.err
rc=$?
check "--slurm 4 with replays and export: exit 0 (rc=$rc: $(head -c 300 sl.err))" [ "$rc" = 0 ]
check "--slurm 4: the ladder of --jobs 1" same_ladder one.db sl.db 126
check "--slurm 4: the replays of --jobs 1 (names, digests), each verified" same_replays r4 sl.db
check "--slurm 4: the decision export of --jobs 1, byte for byte" cmp one.mp sl.mp
check "--slurm 4: the shards were told tournament 2" grep -q -- "--tournament-id 2 " sl.db.slurm/t2.sh

# A shard cancelled before it runs: the others write their replays and
# exports; the run fails and exports nothing yet.
held f.out f.err "1 2 3 4 " cancel3 -- \
  "$ARENA" $T --db f.db --slurm 4 --slurm-opt "--hold" --replays rf --export-decisions f.mp
check "cancelled shard: exit 1 (rc=$rc)" [ "$rc" = 1 ]
check "cancelled shard: 90 replays, none of shard 3 (matches 2, 6, ...)" \
  eval '[ "$(ls rf | wc -l)" = 90 ] && [ ! -e rf/t2-m000002.rpl ]'
check "cancelled shard: the export is there and empty (no match went into --db)" \
  eval '[ -f f.mp ] && [ ! -s f.mp ]'
# A second copy of a shard's export (as a task run again after a kill
# would leave): each match is still exported once.
src=$(ls f.db.slurm/t2-1of4.*.mp | head -n 1)
cp "$src" f.db.slurm/t2-1of4.999999.mp
"$ARENA" $T --db f.db --slurm 4 --replays rf --export-decisions f.mp >f2.out 2>f2.err
rc=$?
check "again: exit 0 (rc=$rc: $(tail -n 1 f2.err))" [ "$rc" = 0 ]
check "again: only shard 3 submitted" grep -q "^arena: Slurm job [0-9]*: 1 shard of 4 (3)," f2.err
check "again: the ladder of --jobs 1" same_ladder one.db f.db 126
check "again: the replays of --jobs 1, none lost, none twice" same_replays rf f.db
check "again: the decision export of --jobs 1 (two attempts, a copy: each match once)" \
  cmp one.mp f.mp
"$ARENA" $T --db f.db --slurm 4 --replays rf --export-decisions f3.mp >f3.out 2>f3.err
rc=$?
check "a finished tournament: exit 0, nothing submitted, nothing exported" \
  eval '[ "$rc" = 0 ] && ! grep -q "Slurm job" f3.err && [ -f f3.mp ] && [ ! -s f3.mp ]'

expect 2 "--tournament-id 2 needs --shard I/N" -- \
  "$ARENA" $T --db n.db --tournament-id 2
check "--tournament-id without --shard: nothing written" [ ! -e n.db ]

finish slurm_outputs
