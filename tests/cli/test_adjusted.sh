#!/usr/bin/env bash
# Luck-adjusted results where they are used (docs/ratings.md, "Luck-adjusted
# fit and bench"), with real processes: `arena ladder GAME --fit --adjusted`
# prints the official fit unchanged and the adjusted one beside it (every
# match adjusted from its replay, reproducibly); a corrupt replay is counted
# and named, the match keeping its raw result; a ladder without replays, and
# flags that do not go together, exit 2 with one line. `arena bench
# --adjusted` prints the raw figures unchanged, the adjusted ones beside,
# the SPRT's raw LLR beside the adjusted one, and leaves no temporary file.
# `arena report --adjusted` adds the adjusted fit's columns and its counts,
# on the index and on each bot's page. A random seat's actions are adjusted
# whatever its display name (random#2, NAME=).
# Usage: test_adjusted.sh ARENA
set -u
ARENA=$1
PY=/usr/bin/python3
. "$(dirname "$0")/lib.sh"
G=brawljack
OPT=(--opt hands=1)

"$ARENA" tournament $G --bots random,greedy --duplicate --rounds 8 --seed 5 "${OPT[@]}" \
  --db a.db --replays reps >/dev/null 2>&1
check "tournament with replays" test "$(ls reps | wc -l)" = 16
"$ARENA" ladder $G "${OPT[@]}" --db a.db --fit --json >raw.json
"$ARENA" ladder $G "${OPT[@]}" --db a.db --fit --adjusted --json >adj.json
"$ARENA" ladder $G "${OPT[@]}" --db a.db --fit --adjusted --json >adj2.json
"$ARENA" ladder $G "${OPT[@]}" --db a.db --fit --adjusted >adj.txt

cat >same.py <<'PYEOF'
import json, sys
raw, adj, adj2 = (json.load(open(f)) for f in sys.argv[1:4])
a = adj.pop("adjusted")
assert raw == adj, "the official fit is printed unchanged"
assert a["matches"] == 16 and a["adjusted_matches"] == 16, a
assert a["no_replay"] == 0 and a["failed"] == 0 and a["first_failure"] is None, a
assert a["method"] == "bradley-terry" and a["policy"] == "players" and a["horizon"] == "match", a
assert len(a["ratings"]) == 2 and all(r["status"] == "rated" for r in a["ratings"]), a
b = adj2.pop("adjusted")
for x in (a, b):
    x.pop("cpu_ms")
assert a == b, "the adjustment is reproducible"
PYEOF
check "ladder --fit --adjusted: raw unchanged, 16 of 16 adjusted, reproducible" \
  "$PY" same.py raw.json adj.json adj2.json
check "text: both tables, labelled" grep -q "official ratings" adj.txt
check "text: the adjusted table" grep -q "luck-adjusted ratings" adj.txt
check "text: the count" grep -q "16 of 16 matches adjusted from their replays" adj.txt

# A corrupt replay: counted, named, the match kept raw.
head -c 100 reps/t1-m000003.rpl >cut && mv cut reps/t1-m000003.rpl
"$ARENA" ladder $G "${OPT[@]}" --db a.db --fit --adjusted >bad.txt 2>bad.err
check "a corrupt replay is not fatal" test $? = 0
check "it is counted" grep -q "15 of 16 matches adjusted.*0 without a replay and 1 whose replay failed" bad.txt
check "it is named" grep -q "first failure: replay '.*t1-m000003.rpl'" bad.txt
# A replay of another match: its digest is not the match's.
cp reps/t1-m000005.rpl reps/t1-m000004.rpl
"$ARENA" ladder $G "${OPT[@]}" --db a.db --fit --adjusted --json >swap.json
check "another match's replay is refused" "$PY" -c '
import json, sys
a = json.load(open("swap.json"))["adjusted"]
assert a["failed"] == 2 and a["adjusted_matches"] == 14, a'

# Each bot's page (botpages.py SITE 1): the index's adjusted Elo and
# interval beside its official ones (never instead), and the same note;
# without --adjusted (SITE 0) none.
cat >botpages.py <<'PYEOF'
import re, sys
site, adjusted = sys.argv[1], sys.argv[2] == "1"
index = open(site + "/index.html").read()
rows = re.findall(r'<tr><td>\d+</td><td class="l"><span class="key c\d+"></span>'
                  r'<a href="(bots/[^"]+)">[^<]*</a></td>((?:<td>[^<]*</td>)+)</tr>', index)
assert len(rows) == 2, rows
for href, cells in rows:
    cells = re.findall(r"<td>([^<]*)</td>", cells)
    page = open(site + "/" + href).read()
    head = "<th>Elo (fit)</th><th>95% interval</th>"
    if not adjusted:
        assert "luck-adjusted" not in page, href
        continue
    assert head + "<th>Elo (luck-adjusted)</th><th>95% interval</th>" in page, href
    m = re.search(r'<table class="botsum num">.*?</tr>\n<tr>((?:<td>[^<]*</td>)+)</tr>', page, re.S)
    mine = re.findall(r"<td>([^<]*)</td>", m.group(1))
    # index: games wins score score/game elo ci aelo aci live faults;
    # the page: games wins score elo ci aelo aci live faults
    assert mine == cells[:3] + cells[4:], (href, mine, cells)
    assert cells[6] not in ("", "&ndash;"), cells
    assert "14 of 16 matches adjusted" in page and "first failure: replay" in page, href
PYEOF
# The report: the adjusted columns beside the official ones, only when asked.
"$ARENA" report --db a.db -o site >/dev/null
check "report: no adjusted column unless asked" sh -c '! grep -q "luck-adjusted" site/index.html'
check "report: no adjusted column on a bot's page unless asked" "$PY" botpages.py site 0
"$ARENA" report --db a.db -o site --adjusted >/dev/null
check "report --adjusted: the column" grep -q "<th>Elo (fit)</th><th>95% interval</th><th>Elo (luck-adjusted)</th>" site/index.html
check "report --adjusted: the count" grep -q "14 of 16 matches adjusted; 0 without a replay and 2 whose replay failed" site/index.html
check "report --adjusted: the first failure" grep -q "first failure: replay" site/index.html
check "report --adjusted: each bot's page, the adjusted Elo beside the official" \
  "$PY" botpages.py site 1

# No replay at all: one line, exit 2.
"$ARENA" tournament $G --bots random,greedy --rounds 3 --seed 5 "${OPT[@]}" --db b.db >/dev/null 2>&1
expect_fail 2 "none of the 6 matches could be adjusted \(6 without a replay" -- \
  "$ARENA" ladder $G "${OPT[@]}" --db b.db --fit --adjusted
expect_fail 2 "--adjusted applies to the fit" -- "$ARENA" ladder $G --db a.db --adjusted
expect_fail 2 "--adjusted fits Bradley-Terry" -- \
  "$ARENA" ladder $G --db a.db --fit --adjusted --model plackett-luce

# bench --adjusted: raw figures unchanged, the adjusted beside, no file left.
mkdir tmp
BENCH=(bench greedy --game $G --vs random --games 4 --seed 3 "${OPT[@]}" -q --sprt -1,1)
"$ARENA" "${BENCH[@]}" --json >braw.json 2>/dev/null
TMPDIR=$PWD/tmp "$ARENA" "${BENCH[@]}" --json --adjusted >badj.json 2>/dev/null
check "bench --adjusted leaves no temporary file" test -z "$(ls -A tmp)"
cat >bench.py <<'PYEOF'
import json, sys
raw, adj = (json.load(open(f)) for f in sys.argv[1:3])
o, p = raw["opponents"][0], adj["opponents"][0]
a = p.pop("adjusted")
raw_llr = p["sprt"].pop("raw_llr")
assert raw_llr == o["sprt"]["llr"], (raw_llr, o["sprt"])
o["sprt"].pop("llr"); p["sprt"].pop("llr")
assert o == p, (o, p)
assert a["policy"] == "players" and a["horizon"] == "match" and a["cpu_ms"] > 0, a
assert -0.5 < a["score"] < 1.5 and a["sd"] >= 0 and a["raw_sd"] == a["raw_sd"], a
PYEOF
check "bench --adjusted: raw unchanged, adjusted beside, raw LLR beside" \
  "$PY" bench.py braw.json badj.json
"$ARENA" "${BENCH[@]}" --adjusted >badj.txt 2>/dev/null
check "bench text: the adjusted rows" grep -q "^luck-adjusted (each match's luck" badj.txt
check "bench text: the SPRT says which" grep -q "on the luck-adjusted scores (raw LLR" badj.txt

# The random bot's policy is known whatever its display name: a seat is
# taken as the random bot by the bot's own name the replay keeps (`bot`),
# so random#2 and a NAME= are found as random, and a bot named `random`
# with NAME= is not. An older replay (no `bot`) falls back to the display
# name, random or random#N. The same match gives the same adjustment.
"$ARENA" bench greedy --game $G --vs random,random,bob=random --games 4 --seed 3 "${OPT[@]}" -q \
  --adjusted --json >bnames.json 2>/dev/null
check "bench --adjusted: random, random#2 and bob=random adjusted alike" "$PY" -c '
import json
o = json.load(open("bnames.json"))["opponents"]
for x in o:
    x["adjusted"].pop("cpu_ms")
assert [x["label"] for x in o] == ["random", "random#2", "bob"], o
assert o[0]["adjusted"] == o[1]["adjusted"] == o[2]["adjusted"], [x["adjusted"] for x in o]'
for bots in random,random a=random,b=random random=greedy,greedy; do
  "$ARENA" tournament $G --bots $bots --rounds 1 --seed 5 "${OPT[@]}" --db "n-$bots.db" \
    --replays "n-$bots" >/dev/null 2>&1
done
cat >oldreplay.py <<'PYEOF'
import msgpack, sys
data = open(sys.argv[1], "rb").read()
u = msgpack.Unpacker(raw=False)
u.feed(data)
h = next(u)
rest = data[u.tell():]
for p in h["players"]:
    del p["bot"]
open(sys.argv[2], "wb").write(msgpack.packb(h, use_bin_type=True) + rest)
PYEOF
"$PY" oldreplay.py n-random,random/t1-m000001.rpl old.rpl
for f in n-random,random/t1-m000001.rpl n-a=random,b=random/t1-m000001.rpl old.rpl \
  n-random=greedy,greedy/t1-m000001.rpl; do
  "$ARENA" replay adjust "$f" --json --policy players >>names.jsonl
done
check "replay adjust: random#2, NAME= and an older replay's random#2 are random; random=greedy is not" \
  "$PY" -c '
import json
a = [json.loads(l) for l in open("names.jsonl")]
for x in a:
    for k in ("file", "ms", "cpu_ms"):
        x.pop(k)
assert a[0]["actions"] > 0 and a[0] == a[1] == a[2], a
assert a[3]["actions"] == 0, a[3]'
finish
