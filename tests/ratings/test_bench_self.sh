#!/usr/bin/env bash
# `arena bench greedy --vs greedy --sprt 0,50` over many seeds never accepts
# H1: a bot is not 50 Elo stronger than itself (the duplicate deals make the
# two seats' luck cancel, so each run should end in H0 quickly).
# Usage: test_bench_self.sh ARENA
set -u
ARENA=$1
pass=0 fail=0
for seed in $(seq 1 40); do
  out=$("$ARENA" bench greedy --game taylor-blackjack --vs greedy --sprt 0,50 --seed "$seed" -q --json)
  if [ $? = 0 ] && printf '%s' "$out" | grep -q '"result":"H0"'; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1)); echo "FAIL: seed $seed: $out"
  fi
done
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
