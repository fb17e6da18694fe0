#!/usr/bin/env bash
# The main job: set up, build, then play a match of Taylor Blackjack between
# reference bots, printed move by move, with its replay written and verified.
#
#   scripts/main-job.sh                 the full job (sets everything up first)
#   scripts/main-job.sh --small         one short game (the ctest smoke test)
#   scripts/main-job.sh --no-setup      use an existing build (BUILD_DIR, default build)
set -euo pipefail
cd "$(dirname "$0")/.."

small=0 setup=1
for a in "$@"; do
  case "$a" in
    --small) small=1 ;;
    --no-setup) setup=0 ;;
    -h|--help) sed -n '2,8p' "$0"; exit 0 ;;
    *) echo "main-job: unknown argument '$a'" >&2; exit 2 ;;
  esac
done
BUILD_DIR=${BUILD_DIR:-build}
OUT_DIR=${OUT_DIR:-out}
[ "$setup" = 1 ] && bash scripts/setup.sh
arena="$BUILD_DIR/arena/arena"
mkdir -p "$OUT_DIR"

opts=()
[ "$small" = 1 ] && opts=(--opt games=1 --opt turn_cap=60)
"$arena" play taylor-blackjack random random random --seed 7 "${opts[@]}" \
  --replay "$OUT_DIR/taylor-blackjack.rpl"
echo
"$arena" replay verify "$OUT_DIR/taylor-blackjack.rpl"
