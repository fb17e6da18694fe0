#!/usr/bin/env bash
# The main job: set up and build, then run a round-robin tournament of the
# reference bots random, greedy and random at Taylor Blackjack into the Elo
# ladder in out/arena.db, with one replay per match in out/replays/, print
# the standings and the ladder, and verify a replay.
#
#   scripts/main-job.sh                 the full job (sets everything up first)
#   scripts/main-job.sh --small         a short run (the ctest smoke test)
#   scripts/main-job.sh --no-setup      use an existing build (BUILD_DIR, default build)
# OUT_DIR (default out) is where the database and the replays go; a run with
# the same seed against the same database finishes the same tournament.
set -euo pipefail
cd "$(dirname "$0")/.."

small=0 setup=1
for a in "$@"; do
  case "$a" in
    --small) small=1 ;;
    --no-setup) setup=0 ;;
    -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
    *) echo "main-job: unknown argument '$a'" >&2; exit 2 ;;
  esac
done
BUILD_DIR=${BUILD_DIR:-build}
OUT_DIR=${OUT_DIR:-out}
[ "$setup" = 1 ] && bash scripts/setup.sh
arena="$BUILD_DIR/arena/arena"
mkdir -p "$OUT_DIR"

rounds=25 opts=()  # balanced seating: 6 matches a round
[ "$small" = 1 ] && rounds=1 opts=(--opt games=1)
"$arena" tournament taylor-blackjack --bots random,greedy,random --seats 3 --rounds "$rounds" \
  --seed 1 "${opts[@]}" --db "$OUT_DIR/arena.db" --replays "$OUT_DIR/replays"
echo
"$arena" ladder taylor-blackjack "${opts[@]}" --db "$OUT_DIR/arena.db"
echo
first=$(ls "$OUT_DIR/replays" | head -n 1)
"$arena" replay verify "$OUT_DIR/replays/$first"
