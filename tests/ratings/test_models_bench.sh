#!/usr/bin/env bash
# scripts/ratings-bench.py, the rating models' prediction benchmark of
# docs/ratings.md ("Choosing the model"), at its --quick sizes: every table
# row is there with finite numbers, and where the two models are the same
# model (two seats, no ties: Plackett-Luce is Bradley-Terry) they score
# the same.
# Usage: test_models_bench.sh ARENA
set -u
ARENA=$1
BENCH=$(cd "$(dirname "$0")/../../scripts" && pwd)/ratings-bench.py
. "$(dirname "$0")/lib.sh"
$PY "$BENCH" "$ARENA" --quick >bench.md
check "ratings-bench.py --quick exits 0" test $? = 0
check "the tables: every scenario and ladder, the two models equal at 2 seats" $PY - <<'PYEOF'
import re
rows = [l.split("|")[1:-1] for l in open("bench.md") if l.startswith("| ") and "---" not in l]
names = [r[0].strip() for r in rows]
for want in ("pl, 2 seats", "pl, 6 seats", "pl-ties, 4 seats", "thurstone, 4 seats",
             "bruise-jack hands=1, 3 seats", "bombs hands=2, 3 seats", "taylor-blackjack, 2 seats"):
    assert want in names, (want, names)
assert len(rows) == 5 + 11 + 2, names   # 5 scenarios, 11 ladders, 2 headers
for r in rows:
    if r[1].strip() == "matches":
        continue
    # 11 numbers; "-" where the ladder gave none (a standard error of one
    # deal at these sizes).
    nums = re.findall(r"[-+]?\d+\.\d+|(?<=[ (])-(?=[ )])", "|".join(r[3:]))
    assert len(nums) == 11, r
two = rows[names.index("pl, 2 seats")]
bt, pl = two[3].split("/")[1:]
assert bt.strip() == pl.strip() and two[4].strip().startswith(("+0.0000", "-0.0000")), two
PYEOF
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
