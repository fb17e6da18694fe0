#!/usr/bin/env bash
# Ratings with real processes (docs/ratings.md):
#  - `arena ladder GAME --fit --json` has the shape of CLI.md, and a perfect
#    score is reported as such, never as a number;
#  - a tournament that replays another's deals (same seed, more rounds)
#    adds nothing: the fit is that of the longer tournament alone;
#  - `ladder export --pgn` imported into a fresh database gives the same fit;
#    into its own database, it continues the same bots (a name without a
#    version is the ladder's bot of that name when only one played);
#  - `ladder export --jsonl` imported into a fresh database exports the same
#    lines again and gives the same fit, for a multiplayer duplicate ladder
#    too; the same lines also into a database where the tournament gets
#    another id, with gaps in the match numbers and a tournament named by a
#    string;
#  - malformed PGN and JSON Lines are refused with FILE:LINE, exit 2, and
#    nothing imported; a file is imported once;
#  - `arena bench greedy --vs random --sprt 0,50` accepts H1, greedy against
#    itself does not, and bench's JSON has the shape of CLI.md;
#  - `--sprt-model nelo` (normalized Elo): greedy over random accepts H1,
#    random over greedy H0, its JSON says so; the gauntlet SPRT against
#    several opponents (the reference bots by default, or --vs): a line
#    and a verdict per opponent, the gauntlet's H0 when one test accepts
#    H0 and H1 when all accept H1, at alpha and beta / k, the progress
#    lines, its JSON; their usage errors;
#  - the bench runs that docs/ratings.md quotes give the numbers it quotes.
# Usage: test_ratings.sh ARENA
set -u
ARENA=$1
DOC=$(cd "$(dirname "$0")/../../docs" && pwd)/ratings.md
. "$(dirname "$0")/lib.sh"
# The fits of two databases agree: same bots in the same order, same
# ratings, intervals, LOS and statuses.
same_fit() { # same_fit A.json B.json
  $PY - "$1" "$2" <<'PYEOF'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
ra, rb = a["ratings"], b["ratings"]
assert [r["bot"] for r in ra] == [r["bot"] for r in rb], (ra, rb)
def close(x, y):
    if x is None or y is None:
        return x is y
    if isinstance(x, list):
        return len(x) == len(y) and all(close(u, v) for u, v in zip(x, y))
    return abs(x - y) <= 1e-6 * max(1.0, abs(x))
for x, y in zip(ra, rb):
    for k in ("elo", "elo_ci95", "se", "los_next", "games", "wins", "draws", "losses"):
        assert close(x[k], y[k]), (k, x, y)
    assert x["status"] == y["status"]
assert a["clusters"] == b["clusters"] and a["matches"] == b["matches"], (a, b)
PYEOF
}

# ---- ladder --fit ---------------------------------------------------------------
"$ARENA" tournament $T --bots greedy,random,random --seats 2 --rounds 6 --seed 3 --db two.db -q --json >/dev/null
check "tournament for the fit" test $? = 0
"$ARENA" ladder $T --db two.db --seats 2 --fit --json >fit.json
check "ladder --fit --json exits 0" test $? = 0
check "ladder --fit JSON shape (CLI.md)" $PY - <<'PYEOF'
import json
d = json.load(open("fit.json"))
assert d["game"] == "taylor-blackjack" and d["seats"] == 2 and isinstance(d["options"], dict)
assert all(isinstance(v, str) for v in d["options"].values())
# greedy won all its 24 games: a status, not a number; the randoms are rated
# on their 12 games between themselves.
assert d["method"] == "bradley-terry" and d["matches"] == 36 and d["clusters"] == 12, d
r = d["ratings"]
assert r[0]["bot"] == "greedy" and sorted(x["bot"] for x in r[1:]) == ["random", "random#2"], r
for x in r:
    assert {"bot", "games", "elo", "elo_ci95", "status", "los_next"} <= set(x), x
    assert x["games"] == 24
g = r[0]
assert g["status"] == "perfect" and g["elo"] is None and g["elo_ci95"] is None and g["score"] == 1
for x in r[1:]:
    assert x["status"] == "rated"
    lo, hi = x["elo_ci95"]
    assert lo < x["elo"] < hi and abs((hi - lo) / 2 - 1.959963984540054 * x["se"]) < 1e-6
assert abs((r[1]["elo"] + r[2]["elo"]) / 2 - 1500) < 1e-6      # anchored on the rated mean
assert r[1]["elo"] >= r[2]["elo"] and 0.5 <= r[1]["los_next"] < 1 and r[2]["los_next"] is None
PYEOF
"$ARENA" ladder $T --db two.db --seats 2 --fit >fit.txt
check "ladder --fit text" grep -q "official ratings (Bradley-Terry fit of 36 matches; 95% intervals from 12 independent deals)" fit.txt
check "ladder --fit text says why greedy has no number" grep -q "^greedy scored 100% against the rated bots" fit.txt
"$ARENA" ladder $T --db two.db --seats 2 --json >live.json
check "ladder without --fit stays live" $PY -c 'import json; d=json.load(open("live.json")); assert all(x["elo_ci95"] is None for x in d["ratings"]) and "method" not in d'
"$ARENA" ladder $T --db two.db --seats 2 --fit --anchor random=0 --json >anch.json
check "--anchor fixes a bot" $PY -c 'import json; d=json.load(open("anch.json")); r={x["bot"]: x for x in d["ratings"]}; assert r["random"]["elo"] == 0 and r["random"]["elo_ci95"] == [0, 0] and d["anchor"] == {"elo": 0, "bot": "random", "group": 1, "part": 1, "mean_elo": 1500}'
expect_fail 2 "--anchor greedy: this bot has no finite rating \(perfect\)" -- "$ARENA" ladder $T --db two.db --seats 2 --fit --anchor greedy
expect_fail 2 "--anchor nobody: no bot of this ladder is named so" -- "$ARENA" ladder $T --db two.db --seats 2 --fit --anchor nobody
expect_fail 2 "--anchor applies to the fit" -- "$ARENA" ladder $T --db two.db --anchor random
"$ARENA" ladder $T --db two.db --seats 2 --fit --model plackett-luce --json >pl.json
check "--model plackett-luce: the method, the same shape" $PY - <<'PYEOF'
import json
a, b = json.load(open("pl.json")), json.load(open("fit.json"))
assert a["method"] == "plackett-luce" and set(a) == set(b), (a, b)
assert [x["status"] for x in a["ratings"]] == [x["status"] for x in b["ratings"]]
PYEOF
"$ARENA" ladder $T --db two.db --seats 2 --fit --model plackett-luce >pl.txt
check "--model plackett-luce text" grep -q "official ratings (Plackett-Luce fit of 36 matches" pl.txt
expect_fail 2 "--model applies to the fit" -- "$ARENA" ladder $T --db two.db --model plackett-luce
expect_fail 2 "--model elo: the models are bradley-terry and plackett-luce" -- "$ARENA" ladder $T --db two.db --fit --model elo
expect_fail 2 "--folds applies to the cross-validation" -- "$ARENA" ladder $T --db two.db --folds 3
expect_fail 2 "--folds needs a number of folds from 2 up, not '1'" -- "$ARENA" ladder $T --db two.db --cross-validate --folds 1
expect_fail 2 "--cross-validate compares the models: give it without --fit" -- "$ARENA" ladder $T --db two.db --fit --cross-validate
"$ARENA" ladder $T --db two.db --seats 2 --cross-validate --folds 4 --json >cv.json
check "--cross-validate --json: greedy (perfect in every fold) skipped" $PY - <<'PYEOF'
import json, math
d = json.load(open("cv.json"))
assert d["folds"] == 4 and d["clusters"] == 36 and d["matches"] == 36, d
assert d["scored"] == 12 and d["skipped"] == 24, d   # the randoms' 12 matches
assert abs(d["equal"]["pair_logloss"] - math.log(2)) < 1e-9 and d["equal"]["top1"] == 0.5, d
assert set(d["models"]) == {"bradley-terry", "plackett-luce"}, d
PYEOF
"$ARENA" ladder $T --db two.db --seats 2 --cross-validate >cv.txt
check "--cross-validate text" grep -q "^  Plackett-Luce " cv.txt

# Replayed deals: a deal is a match seed of the ladder, so a second
# tournament with the same seed and more rounds replays the first one's
# deals (greedy and random are deterministic for a seed: the same matches).
# Replays count once: the two tournaments give the fit of the longer one
# alone, and no interval shrinks.
same_ratings() { # same_ratings A.json B.json: the same ratings and intervals
  $PY - "$1" "$2" <<'PYEOF'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
ra, rb = ({r["display_name"]: r for r in d["ratings"]} for d in (a, b))
assert ra.keys() == rb.keys(), (ra, rb)
def close(x, y):
    if isinstance(x, list):
        return len(x) == len(y) and all(close(u, v) for u, v in zip(x, y))
    if isinstance(x, float) or isinstance(y, float):
        return abs(x - y) <= 1e-6 * max(1.0, abs(x))
    return x == y
for k in ra:
    for f in ("elo", "elo_ci95", "se", "los_next", "games", "wins", "draws", "losses", "status"):
        assert close(ra[k][f], rb[k][f]), (k, f, ra[k][f], rb[k][f])
assert a["clusters"] == b["clusters"], (a["clusters"], b["clusters"])
PYEOF
}
check "no replays in one tournament" $PY -c 'import json; d=json.load(open("fit.json")); assert d["replays"] == {"matches": 0, "repeated": 0, "other_seats": 0, "merged_within": 0, "merged": 0} and all(r["played"] == r["games"] for r in d["ratings"]), d'
cp two.db twice.db
"$ARENA" tournament $T --bots greedy,random,random --seats 2 --rounds 12 --seed 3 --db twice.db -q --json >/dev/null
"$ARENA" tournament $T --bots greedy,random,random --seats 2 --rounds 12 --seed 3 --db more.db -q --json >/dev/null
"$ARENA" ladder $T --db twice.db --seats 2 --fit --json >twice.json
"$ARENA" ladder $T --db more.db --seats 2 --fit --json >more.json
check "more rounds, same seed: the fit of the longer tournament alone" same_ratings more.json twice.json
check "more rounds, same seed: 36 replays, merged" $PY -c 'import json; d=json.load(open("twice.json")); assert d["matches"] == 108 and d["replays"] == {"matches": 36, "repeated": 36, "other_seats": 0, "merged_within": 0, "merged": 36} and all(r["played"] == 72 and r["games"] == 48 for r in d["ratings"]), d'
"$ARENA" ladder $T --db twice.db --seats 2 --fit >twice.txt
check "replays said in the text" grep -q "^replays: 36 matches were dealt deals that an earlier tournament of this ladder had played (the same seeds), clustered with them: 36 repeated a match with the same bots in the same seats and count once with it (their mean), 0 sat the bots in other seats and count in full$" twice.txt

# An anchor fixes its own group only: the other groups keep their mean.
line() { printf '{"game":"%s","seats":[{"bot":"%s","place":%s},{"bot":"%s","place":%s}]}\n' $T "$1" "$2" "$3" "$4"; }
{ for i in 1 2 3; do line a 1 b 2; line b 1 c 2; line c 1 a 2; done; line a 1 c 2
  line d 1 e 2; line d 1 e 2; line e 1 d 2; } >groups.jsonl
"$ARENA" ladder import groups.jsonl --db groups.db >/dev/null
"$ARENA" ladder $T --db groups.db --fit --json >g0.json
"$ARENA" ladder $T --db groups.db --fit --anchor e=2000 --json >g1.json
check "--anchor in group 2 leaves group 1's mean" $PY - <<'PYEOF'
import json
g0, g1 = (json.load(open(p)) for p in ("g0.json", "g1.json"))
r0, r1 = ({x["bot"]: x for x in g["ratings"]} for g in (g0, g1))
assert g1["groups"] == 2 and r1["a"]["group"] == 1 and r1["e"]["group"] == 2, g1
assert abs(sum(r1[b]["elo"] for b in "abc") / 3 - 1500) < 1e-6, r1
assert r1["e"]["elo"] == 2000 and abs(r1["d"]["elo"] - r1["e"]["elo"] - (r0["d"]["elo"] - r0["e"]["elo"])) < 1e-6
for b in "abc":
    assert abs(r1[b]["elo"] - r0[b]["elo"]) < 1e-9 and r1[b]["elo_ci95"] == r0[b]["elo_ci95"], (b, r0[b], r1[b])
assert g1["anchor"] == {"elo": 2000, "bot": "e", "group": 2, "part": 1, "mean_elo": 1500}, g1["anchor"]
assert g0["anchor"] == {"elo": 1500, "bot": None, "group": None, "part": None, "mean_elo": 1500}, g0["anchor"]
PYEOF
"$ARENA" ladder $T --db groups.db --fit --anchor e=2000 >g1.txt
check "--anchor says which group it fixes" grep -q "^anchor: e = 2000 in group 2; in every other group, the mean of its rated bots = 1500$" g1.txt

# Every strongly connected part is rated on its own, labelled: {a, b, c}
# (a cycle) is part 1; d and e lost every game to it and split 3:1 (part
# 3, below), g and h beat f only and split 1:1 (part 2, apart from part
# 1); f lost every game (zero), p beat a (perfect).
{ line a 1 b 2; line a 1 b 2; line b 1 a 2; line b 1 c 2; line b 1 c 2; line c 1 b 2
  line c 1 a 2; line c 1 a 2; line a 1 c 2; line a 1 d 2; line a 1 d 2; line b 1 e 2; line b 1 e 2
  line d 1 e 2; line d 1 e 2; line d 1 e 2; line e 1 d 2; line c 1 f 2; line c 1 f 2
  line g 1 f 2; line h 1 f 2; line g 1 h 2; line h 1 g 2; line p 1 a 2; line p 1 a 2; } >parts.jsonl
"$ARENA" ladder import parts.jsonl --db parts.db >/dev/null
"$ARENA" ladder $T --db parts.db --fit --json >parts.json
check "each part rated, labelled (JSON)" $PY - <<'PYEOF'
import json
d = json.load(open("parts.json"))
r = {x["bot"]: x for x in d["ratings"]}
assert [x["bot"] for x in d["ratings"]][4:] == ["g", "h", "d", "e", "f"], d["ratings"]
assert [(x["part"], x["relation"], x["bots"], x["anchor"]) for x in d["parts"]] ==     [(1, "main", 3, "mean"), (2, "apart", 2, "mean"), (3, "below", 2, "mean")], d["parts"]
assert [(r[b]["status"], r[b]["part"]) for b in "abcghdefp"] == [("rated", 1)] * 3 +     [("rated", 2)] * 2 + [("rated", 3)] * 2 + [("zero", None), ("perfect", None)], r
assert abs(r["d"]["elo"] - 1595.424251) < 1e-5 and abs(r["e"]["elo"] - 1404.575749) < 1e-5
assert r["g"]["elo"] == 1500 and r["h"]["elo"] == 1500 and r["e"]["los_next"] is None
assert abs(sum(r[b]["elo"] for b in "abc") / 3 - 1500) < 1e-6 and d["clusters"] == 15
PYEOF
"$ARENA" ladder $T --db parts.db --fit >parts.txt
check "each part rated, labelled (text)" $PY - <<'PYEOF'
t = open("parts.txt").read()
rows = {l.split()[1]: l.split() for l in t.splitlines() if l[:5].strip().isdigit()}
assert [rows[b][-1] for b in "abcghdefp"] == ["1"] * 3 + ["2"] * 2 + ["3"] * 2 + ["-", "-"], rows
assert rows["d"][3] == "1595" and rows["f"][3] == "below", rows
assert "anchor: the mean of the rated bots of each part = 1500\n" in t
assert "part 3 (2 bots) scored 0% against part 1 (directly or through bots that beat it): it is rated on its own, around its own mean, and its ratings compare only within it\n" in t, t
assert "part 2 (2 bots) has no finite comparison with part 1: it is rated on its own" in t, t
PYEOF
"$ARENA" ladder $T --db parts.db --fit --anchor d=1000 --json >pa.json
"$ARENA" ladder $T --db parts.db --fit --anchor d=1000 >pa.txt
check "--anchor in part 3 fixes part 3 only" $PY -c '
import json; d = json.load(open("pa.json")); r = {x["bot"]: x for x in d["ratings"]}
assert r["d"]["elo"] == 1000 and abs(r["e"]["elo"] - (1000 - 190.848502)) < 1e-5 and r["g"]["elo"] == 1500
assert abs(sum(r[b]["elo"] for b in "abc") / 3 - 1500) < 1e-6
assert d["anchor"] == {"elo": 1000, "bot": "d", "group": 1, "part": 3, "mean_elo": 1500}, d["anchor"]
assert [x["anchor"] for x in d["parts"]] == ["mean", "mean", "bot"], d["parts"]'
check "--anchor in part 3 said in the text" grep -q "^anchor: d = 1000 in part 3; in every other part, the mean of its rated bots = 1500$" pa.txt

# A perfect score is a status, not a number.
"$ARENA" tournament $T --bots greedy,random --rounds 5 --seed 1 --db perfect.db -q --json >/dev/null
"$ARENA" ladder $T --db perfect.db --fit --json >perfect.json
check "perfect and zero scores" $PY -c '
import json; r = json.load(open("perfect.json"))["ratings"]
assert [(x["bot"], x["status"], x["elo"], x["elo_ci95"]) for x in r] == [("greedy", "perfect", None, None), ("random", "zero", None, None)], r'
"$ARENA" ladder $T --db perfect.db --fit >perfect.txt
check "perfect score said in words" grep -q "greedy won every game it played (a perfect score)" perfect.txt

# ---- PGN: export, import into a fresh database, the same fit ----------------------
"$ARENA" ladder export $T --pgn --db two.db --seats 2 >two.pgn
check "export --pgn exits 0" test $? = 0
check "PGN: the seven-tag roster and a result per game" $PY - <<'PYEOF'
import re
t = open("two.pgn").read()
games = t.strip().split("\n\n")
assert len(games) == 72, len(games)  # 36 games: tags, then the result token
for tags, result in zip(games[0::2], games[1::2]):
    names = re.findall(r'^\[(\w+) ', tags, re.M)
    assert names[:7] == ["Event", "Site", "Date", "Round", "White", "Black", "Result"], names
    assert re.search(r'\[Result "%s"\]' % re.escape(result), tags), (tags, result)
    assert result in ("1-0", "0-1", "1/2-1/2")
PYEOF
"$ARENA" ladder import two.pgn --game $T --db fresh.db >import.txt
check "import PGN exits 0" test $? = 0
check "import PGN reports" grep -q "imported 36 matches of 3 bots from two.pgn (pgn) into fresh.db" import.txt
"$ARENA" ladder $T --db fresh.db --fit --json >fit2.json
check "PGN round trip gives the same fit" same_fit fit.json fit2.json
expect_fail 2 "two.pgn: this file was already imported into 'fresh.db'" -- "$ARENA" ladder import two.pgn --game $T --db fresh.db
# Imported into the database it came from: PGN names bots by name alone,
# and each name is the one bot of the ladder that played under it, so the
# results continue those bots (no new identity, twice the games).
cp two.db back.db
"$ARENA" ladder import two.pgn --game $T --db back.db >/dev/null
check "PGN back into its database: the same bots, twice the games" $PY - <<'PYEOF'
import sqlite3
a, b = sqlite3.connect("two.db"), sqlite3.connect("back.db")
q = "select b.name, b.version, r.games from ratings r join bots b on b.id = r.bot_id order by 1"
ra, rb = a.execute(q).fetchall(), b.execute(q).fetchall()
assert [(n, v, 2 * g) for n, v, g in ra] == rb, (ra, rb)
assert b.execute("select count(*) from bots").fetchone()[0] == 3
PYEOF
# Where two bots of the ladder played under a name (fresh.db: the imported
# greedy, then greedy 1.0 played), the bare name is ambiguous and keeps the
# imported identity; name@version (as PGN export names them) is the one.
"$ARENA" tournament $T --bots greedy,random --seats 2 --rounds 1 --seed 9 --db fresh.db -q --json >/dev/null
printf '[Game "%s"]\n[White "greedy@1.0"]\n[Black "random"]\n[Result "1-0"]\n\n1-0\n\n[Game "%s"]\n[White "greedy"]\n[Black "random#2"]\n[Result "0-1"]\n\n0-1\n' $T $T >amb.pgn
"$ARENA" ladder import amb.pgn --db fresh.db >/dev/null
check "PGN names: name@version is that version, an ambiguous name keeps its own" $PY - <<'PYEOF'
import sqlite3
c = sqlite3.connect("fresh.db")
q = ("select b.name, b.version from results r join matches m on m.id = r.match_id"
     " join bots b on b.id = r.bot_id join tournaments t on t.id = m.tournament_id"
     " where t.id = (select max(id) from tournaments) order by m.number, r.seat")
got = c.execute(q).fetchall()
assert got == [("greedy", "1.0"), ("random", ""), ("greedy", ""), ("random#2", "")], got
PYEOF

# ---- JSON Lines: round trip, byte for byte, and the same fit -------------------------
"$ARENA" ladder export $T --jsonl --db two.db --seats 2 -o two.jsonl
check "export --jsonl exits 0" test $? = 0
"$ARENA" ladder import two.jsonl --db fresh2.db --json >imp.json
check "import JSONL" $PY -c 'import json; d=json.load(open("imp.json")); assert d["matches"] == 36 and d["format"] == "jsonl" and d["ladders"][0]["seats"] == 2'
"$ARENA" ladder export $T --jsonl --db fresh2.db --seats 2 >again.jsonl
check "JSONL round trip: the same lines" cmp -s two.jsonl again.jsonl
"$ARENA" ladder $T --db fresh2.db --fit --json >fit3.json
check "JSONL round trip gives the same fit" same_fit fit.json fit3.json

# The same lines also when the tournament gets another id here (the
# database has a tournament already), when matches are missing (numbers
# with gaps) and when the file names its tournament by a string.
"$ARENA" tournament $T --bots greedy,random --seats 2 --opt games=1 --seed 5 --db other.db -q --json >/dev/null
"$ARENA" ladder import two.jsonl --db other.db >/dev/null
"$ARENA" ladder export $T --jsonl --db other.db --seats 2 >again2.jsonl
check "JSONL round trip into a database with a tournament: the same lines" cmp -s two.jsonl again2.jsonl
check "JSONL round trip: the imported tournament has another id" $PY -c 'import sqlite3; assert sqlite3.connect("other.db").execute("select id, source from tournaments where format = \"import\"").fetchall() == [(2, 1)]'
sed -e '2d;5d;9d' -e 's/"tournament":1,/"tournament":"spring cup",/' two.jsonl >gaps.jsonl
"$ARENA" ladder import gaps.jsonl --db gaps.db >/dev/null
"$ARENA" ladder export $T --jsonl --db gaps.db --seats 2 >gaps2.jsonl
check "JSONL round trip with gaps and a named tournament: the same lines" cmp -s gaps.jsonl gaps2.jsonl
check "JSONL: the gaps are there" $PY -c 'import json; m=[json.loads(l)["match"] for l in open("gaps2.jsonl")]; assert m[:4] == [0, 2, 3, 5] and len(m) == 33, m'

# A multiplayer duplicate ladder: the deals (clusters) survive the round trip.
# Balanced seating: each of the 4 combinations plays its deal in 6 seatings.
"$ARENA" tournament $T --bots greedy,random,random,random --seats 3 --duplicate --rounds 1 --seed 8 --opt games=1 --db multi.db -q --json >/dev/null
"$ARENA" ladder $T --db multi.db --seats 3 --opt games=1 --fit --json >m1.json
"$ARENA" ladder export $T --jsonl --db multi.db --seats 3 --opt games=1 >multi.jsonl
"$ARENA" ladder import multi.jsonl --db multi2.db >/dev/null
"$ARENA" ladder $T --db multi2.db --seats 3 --opt games=1 --fit --json >m2.json
check "multiplayer JSONL round trip gives the same fit" same_fit m1.json m2.json
check "duplicate sets are the clusters" $PY -c 'import json; d=json.load(open("m1.json")); assert d["matches"] == 24 and d["clusters"] == 4, d'
"$ARENA" ladder export $T --pgn --db multi.db --seats 3 --opt games=1 >multi.pgn
check "multiplayer PGN: one game per pair" test "$(grep -c '^\[White ' multi.pgn)" = 72

# ---- Malformed files: FILE:LINE, exit 2, nothing imported -----------------------------
cp fresh2.db keep.db
rows() { $PY -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("select count(*) from matches").fetchone()[0])' "$1"; }
n0=$(rows keep.db)
head -n 42 two.pgn >bad.pgn; printf '\n[White "x"]\n[Black "y"]\n[Result "1-0"]\n\n0-1\n' >>bad.pgn
line=$(grep -n '^0-1$' bad.pgn | tail -1 | cut -d: -f1)
expect_fail 2 "^arena: error: bad.pgn:$line: the Result tag \(1-0\) and the result token \(0-1\) differ$" -- "$ARENA" ladder import bad.pgn --game $T --db keep.db
check "bad PGN imported nothing" test "$(rows keep.db)" = "$n0"
{ head -n 3 two.jsonl; echo '{"game":"taylor-blackjack","seats":[{"bot":"a","place":1},{"bot":"b","place":1}'; tail -n 2 two.jsonl; } >bad.jsonl
expect_fail 2 "^arena: error: bad.jsonl:4: not JSON: " -- "$ARENA" ladder import bad.jsonl --db keep.db
{ head -n 2 two.jsonl; echo '{"game":"taylor-blackjack","options":{"decks":"9"},"seats":[{"bot":"a","place":1},{"bot":"b","place":2}]}'; } >badopt.jsonl
expect_fail 2 "^arena: error: badopt.jsonl:3: .*decks" -- "$ARENA" ladder import badopt.jsonl --db keep.db
{ head -n 2 two.jsonl; echo '{"game":"taylor-blackjack","seats":[{"bot":"a","place":1},{"bot":"b","place":3}]}'; } >badplace.jsonl
expect_fail 2 "^arena: error: badplace.jsonl:3: places must be a competition ranking" -- "$ARENA" ladder import badplace.jsonl --db keep.db
check "bad JSON Lines imported nothing" test "$(rows keep.db)" = "$n0"
printf '[Event "?"]\n[White "a"]\n[Black "b"]\n[Result "1-0"]\n\n1-0\n' >nogame.pgn
expect_fail 2 "^arena: error: nogame.pgn:1: the result names no game \(give --game GAME\)$" -- "$ARENA" ladder import nogame.pgn --db none.db
check "a refused import creates no database" test ! -e none.db
expect_fail 2 "cannot read 'missing.pgn': No such file" -- "$ARENA" ladder import missing.pgn --game $T
expect_fail 2 "unknown game 'nope'" -- "$ARENA" ladder import two.pgn --game nope
expect_fail 2 "choose the format with --pgn or --jsonl" -- "$ARENA" ladder export $T --db two.db
expect_fail 2 "no ladder database 'none.db'" -- "$ARENA" ladder export $T --pgn --db none.db

# ---- bench ----------------------------------------------------------------------------
"$ARENA" bench greedy --game $T --vs random --sprt 0,50 --seed 1 >bench.txt
check "bench greedy vs random exits 0" test $? = 0
check "bench greedy vs random: H1 accepted" bash -c 'tail -n 1 bench.txt | grep -q "H1 accepted$"'
"$ARENA" bench greedy --game $T --vs random --sprt 0,50 --seed 1 --json -q >bench.json
check "bench JSON shape (CLI.md) and H1" $PY - <<'PYEOF'
import json
d = json.load(open("bench.json"))
assert d["bot"] == "greedy" and d["game"] == "taylor-blackjack" and d["seed"] == "1"
o = d["opponents"]
assert len(o) == 1 and o[0]["bot"] == "random"
assert {"bot", "games", "score", "elo_diff", "elo_ci95", "los"} <= set(o[0])
assert o[0]["games"] == 2 * o[0]["deals"] and 0.9 < o[0]["score"] <= 1
lo, hi = o[0]["elo_ci95"]
assert lo > 200 and (hi is None or hi > lo)
s = d["sprt"]
assert s["result"] == "H1" and s["llr"] >= s["bounds"][1] and s["bounds"][0] < 0 < s["bounds"][1]
assert abs(s["bounds"][1] - 2.944438979) < 1e-6
PYEOF
# docs/ratings.md quotes these runs: its numbers are theirs.
"$ARENA" bench greedy --game $T --vs random --seed 1 --json -q >b200.json
"$ARENA" bench greedy --game $T --vs random --seats 4 --games 100 --seed 1 --json -q >b4.json
check "docs/ratings.md: the bench numbers it quotes are those of the runs" $PY - "$DOC" <<'PYEOF'
import json, re, sys
doc = open(sys.argv[1]).read()
prose = " ".join(doc.split())
def ci(o): return "[%+.0f, %s]" % (o["elo_ci95"][0], "+inf" if o["elo_ci95"][1] is None else "%+.0f" % o["elo_ci95"][1])
def want(text):
    assert text in prose, "docs/ratings.md does not say: " + text
# The JSON example is the SPRT run, rounded as shown.
block = doc.split("`arena bench --json` prints:", 1)[1].split("```json\n", 1)[1].split("```", 1)[0]
shown = json.loads(block.replace("{...}", "null"))
real = json.load(open("bench.json"))
real["options"] = None
def same(x, y, where):
    if isinstance(x, dict):
        assert isinstance(y, dict) and x.keys() == y.keys(), (where, x, y)
        for k in x: same(x[k], y[k], where + "." + k)
    elif isinstance(x, list):
        assert isinstance(y, list) and len(x) == len(y), (where, x, y)
        for i, (u, v) in enumerate(zip(x, y)): same(u, v, "%s[%d]" % (where, i))
    elif isinstance(x, float):
        digits = len(repr(x).split(".")[1])
        assert isinstance(y, (int, float)) and round(y, digits) == x, (where, x, y)
    else:
        assert x == y and type(x) == type(y), (where, x, y)
same(shown, real, "bench --json")
o, s = real["opponents"][0], real["sprt"]
want("accepts %s after %d deals (%d games)" % (s["result"], s["deals"], s["games"]))
want("greedy wins all %d" % o["wins"] if o["wins"] == o["games"] else "greedy wins %d" % o["wins"])
want("score %.3f, %s Elo, the conservative 95%% interval %s, LLR %.2f" % (o["score"], "+inf" if o["elo_diff"] is None else "%+.0f" % o["elo_diff"], ci(o), s["llr"]))
o = json.load(open("b200.json"))["opponents"][0]
want("Over %d deals" % o["deals"])
want("greedy scores %d-%d-%d against random, score %.3f, %+.0f Elo %s." % (o["wins"], o["draws"], o["losses"], o["score"], o["elo_diff"], ci(o)))
o = json.load(open("b4.json"))["opponents"][0]
assert o["conservative"] and o["score"] == 1 and o["deals"] == 100, o
want("wins every one of the 100 deals: the report is %s Elo" % ci(o))
PYEOF
for seed in 1 2 3; do
  "$ARENA" bench greedy --game $T --vs greedy --sprt 0,50 --seed $seed --json -q >self.json
  check "greedy against itself, seed $seed: not H1" $PY -c 'import json; d=json.load(open("self.json")); assert d["sprt"]["result"] != "H1" and d["opponents"][0]["bot"] == "greedy#2", d'
done
"$ARENA" bench greedy --game $T --games 10 --seed 4 --json -q >default.json
check "bench: every reference bot by default, sprt null" $PY -c 'import json; d=json.load(open("default.json")); assert [o["bot"] for o in d["opponents"]] == ["greedy#2", "random"] and d["sprt"] is None and all(o["games"] == 20 for o in d["opponents"]), d'
"$ARENA" bench greedy --game $T --vs random --games 6 --seed 5 --json -q >b1.json
"$ARENA" bench greedy --game $T --vs random --games 6 --seed 5 --json -q >b2.json
check "bench is deterministic for --seed" cmp -s b1.json b2.json
"$ARENA" bench random --game $T --vs greedy --seats 3 --games 4 --seed 6 --json -q >b3.json
check "bench with 3 seats" $PY -c 'import json; d=json.load(open("b3.json")); o=d["opponents"][0]; assert d["seats"] == 3 and o["games"] == 12 and len(o["deal_scores"]) == 13, d'
expect_fail 2 "bench: which game\? give --game GAME" -- "$ARENA" bench greedy
expect_fail 2 "--sprt needs ELO0,ELO1 with ELO0 < ELO1" -- "$ARENA" bench greedy --game $T --vs random --sprt 50,0
expect_fail 2 "--sprt-model needs logistic or nelo, not 'elo'" -- "$ARENA" bench greedy --game $T --vs random --sprt 0,50 --sprt-model elo
expect_fail 2 "--sprt-model sets the units of --sprt ELO0,ELO1: give --sprt too" -- "$ARENA" bench greedy --game $T --vs random --sprt-model nelo
expect_fail 2 "--sprt needs ELO0,ELO1 with ELO0 < ELO1" -- "$ARENA" bench greedy --game $T --vs random,greedy --sprt 5,5 --sprt-model nelo
expect_fail 2 "unknown bot 'nobot'" -- "$ARENA" bench greedy --game $T --vs nobot
expect_fail 2 "--alpha needs a probability" -- "$ARENA" bench greedy --game $T --vs random --sprt 0,5 --alpha 2
expect_fail 2 "--seats 13: taylor-blackjack is played by 2 to 12 seats" -- "$ARENA" bench greedy --game $T --seats 13

# ---- bench: normalized Elo ---------------------------------------------------------
"$ARENA" bench greedy --game $T --vs random --sprt 0,50 --sprt-model nelo --seed 1 >nelo.txt
check "bench --sprt-model nelo exits 0" test $? = 0
check "nelo: the SPRT line is in nElo and greedy accepts H1" bash -c \
  'tail -n 1 nelo.txt | grep -q "^SPRT greedy vs random, H0: +0 nElo, H1: +50 nElo .*: H1 accepted$"'
"$ARENA" bench random --game $T --vs greedy --sprt 0,50 --sprt-model normalized --seed 2 --json -q >nelo.json
check "nelo ('normalized', fastchess's name): random against greedy accepts H0; the JSON" $PY - <<'PYEOF'
import json, math
d = json.load(open("nelo.json"))
s, o = d["sprt"], d["opponents"][0]
assert s["model"] == "nelo" and s["result"] == "H0" and s["llr"] <= s["bounds"][0], s
assert o["sprt"] == {"llr": s["llr"], "result": "H0"}, o
assert s["deals"] == o["deals"] and s["games"] == 2 * o["deals"], (s, o)
# random loses every deal: no spread, so no t-value and no normalized Elo
# (its value where there is one: tests/unit/test_sprt.c)
assert o["score"] == 0 and o["conservative"] and o["nelo"] is None and o["nelo_ci95"] == [None, None], o
PYEOF

# ---- bench: the gauntlet SPRT --------------------------------------------------------
"$ARENA" bench greedy --game $T --sprt 0,50 --seed 1 >g.txt 2>g.err
check "gauntlet against the reference bots exits 0" test $? = 0
check "gauntlet: its test, each at beta 0.025 with k = 2" \
  grep -q "^SPRT gauntlet greedy vs 2 opponents, H1: +50 Elo against each, H0: +0 Elo against one (alpha 0.05, beta 0.05; each test at beta 0.025, bounds \[-3.638, 2.970\]):$" g.txt
check "gauntlet: greedy#2 (itself) accepts H0, random H1" bash -c \
  'grep -q "^  greedy#2 .*: H0 accepted$" g.txt && grep -q "^  random .*: H1 accepted$" g.txt'
check "gauntlet: H0 accepted, as one test accepted H0" bash -c \
  'tail -n 1 g.txt | grep -q "^gauntlet after [0-9]* deals ([0-9]* games): H0 accepted$"'
check "gauntlet: a progress line when each test decides" bash -c \
  'grep -q "^SPRT vs greedy#2: H0 accepted after" g.err && grep -q "^SPRT vs random: H1 accepted after" g.err'
"$ARENA" bench greedy --game $T --vs random,greedy --sprt 0,50 --seed 1 --json -q >g.json
check "gauntlet JSON: a verdict per opponent, the least LLR, the totals" $PY - <<'PYEOF'
import json, math
d = json.load(open("g.json"))
s, o = d["sprt"], d["opponents"]
assert [x["bot"] for x in o] == ["random", "greedy#2"], o
assert [x["sprt"]["result"] for x in o] == ["H1", "H0"], o
assert s["result"] == "H0" and s["model"] == "logistic", s
assert s["llr"] == min(x["sprt"]["llr"] for x in o) <= s["bounds"][0], s
assert abs(s["bounds"][0] - math.log(0.025 / 0.95)) < 1e-6 and abs(s["bounds"][1] - math.log(0.975 / 0.05)) < 1e-6, s
assert s["deals"] == sum(x["deals"] for x in o) and s["games"] == sum(x["games"] for x in o), s
PYEOF
"$ARENA" bench greedy --game $T --vs random,random --sprt 0,50 --sprt-model nelo --seed 3 -q >g1.txt
check "a nelo gauntlet that every test passes: H1" bash -c \
  'grep -q "^  random .*: H1 accepted$" g1.txt && grep -q "^  random#2 .*: H1 accepted$" g1.txt && tail -n 1 g1.txt | grep -q "H1 accepted$"'
"$ARENA" bench greedy --game $T --vs random,greedy --sprt 0,50 --beta 0.4 --seed 1 -q >g2.txt
check "a test still going when another accepts H0 is stopped" bash -c \
  'grep -q "^  random .*: inconclusive (stopped: the gauntlet.s H0 was accepted)$" g2.txt && grep -q "each test at beta 0.2," g2.txt && tail -n 1 g2.txt | grep -q "H0 accepted$"'
"$ARENA" bench greedy --game $T --vs random,greedy --sprt 0,50 --games 3 --seed 1 -q >g3.txt
check "a gauntlet cut short by --games: inconclusive" bash -c \
  'tail -n 1 g3.txt | grep -q "^gauntlet after 6 deals (12 games): inconclusive (raise --games to go on)$"'

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
