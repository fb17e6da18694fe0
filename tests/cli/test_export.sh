#!/usr/bin/env bash
# `--export-decisions FILE` (docs/training-data.md) on `play` and
# `tournament`: one record per decision put to a bot (as many as play's
# "asked"), each consistent (index in range, the applied code is the chosen
# legal action unless a fault, the observation has the game's fields, the
# outcome is the seat's), every tournament match exactly once with --jobs 2
# and identical to a --jobs 1 run; a path that cannot be created exits 2 with
# one line and leaves no file.
# Usage: test_export.sh ARENA PLUGIN_DIR SOURCE_DIR
set -u
ARENA=$1 PLUG=$2 SRC=$3
PY=/usr/bin/python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
pass=0 fail=0
T=taylor-blackjack
check() { local d=$1; shift; if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $d"; fi; }

if ! "$PY" -c 'import msgpack' 2>/dev/null; then
  echo "SKIP: $PY has no msgpack module (apt-get install python3-msgpack)"
  exit 77
fi

# The game's observation field names, from the generated (and checked) table
# in docs/protocol.md.
sed -n "/<!-- obs $T -->/,/<!-- \/obs $T -->/p" "$SRC/docs/protocol.md" |
  sed -n 's/^| `\([a-z_0-9]*\)` |.*/\1/p' >fields.txt
check "field names found in docs/protocol.md" test "$(wc -l <fields.txt)" -gt 10

# check_play EXPORT JSON: the export of one `arena play` against its --json.
cat >check_play.py <<'EOF'
import json, sys, msgpack
export, play, fields = sys.argv[1], json.load(open(sys.argv[2])), open(sys.argv[3]).read().split()
with open(export, "rb") as f:
    recs = list(msgpack.Unpacker(f, raw=False))
h, ds = recs[0], recs[1:]
assert h["type"] == "match" and h["format"] == "jackarena-decisions" and h["version"] == 1, h
assert h["game"] == play["game"] and h["seed"] == play["seed"] and h["options"] == play["options"]
assert h["players"] == [s["bot"] for s in play["seats"]], h["players"]
assert len(ds) == play["asked"] == h["decisions"], (len(ds), play["asked"], h["decisions"])
faults = [0] * h["seats"]
for d in ds:
    assert d["type"] == "decision" and d["match"] == 0, d
    s, legal = d["seat"], d["legal"]
    assert len(legal) >= 2 and len(d["labels"]) == len(legal), d
    assert list(d["obs"].keys()) == fields, list(d["obs"].keys())
    assert d["obs"]["seat"] == s
    if d["fault"] == "none":
        assert 0 <= d["index"] < len(legal) and d["code"] == legal[d["index"]], d
    else:
        faults[s] += 1
        assert d["index"] == -1, d
    seat = play["seats"][s]
    assert d["outcome"]["score"] == seat["score"] and d["outcome"]["place"] == seat["place"], d
for s, seat in enumerate(play["seats"]):
    assert h["outcome"]["scores"][s] == seat["score"] and h["outcome"]["places"][s] == seat["place"]
    # every fault of a seat comes from a decision it was asked, but the forfeit
    assert faults[s] == seat["faults"] - (1 if seat["forfeit"] else 0), (s, faults[s], seat)
EOF

"$ARENA" play $T random random --seed 3 --export-decisions d.mp --json >d.json 2>err.txt
check "play --export-decisions exits 0" test $? = 0
check "no FILE.tmp left" test ! -e d.mp.tmp
check "play export matches play --json" "$PY" check_play.py d.mp d.json fields.txt

# Three seats, and a faulty bot that forfeits: faults and unasked seats.
"$ARENA" play $T random "$PLUG/faulty.so" greedy --seed 5 --export-decisions f.mp --json \
  >f.json 2>err.txt
check "faulty play exits 0" test $? = 0
check "faulty play export matches play --json" "$PY" check_play.py f.mp f.json fields.txt
check "faulty play export has faults" "$PY" -c '
import msgpack, sys
rs = list(msgpack.Unpacker(open("f.mp", "rb"), raw=False))[1:]
sys.exit(0 if any(r["fault"] != "none" for r in rs) else 1)'

# The same match exported twice is the same bytes.
"$ARENA" play $T random random --seed 3 --export-decisions d2.mp -q >/dev/null 2>&1
check "export is deterministic" cmp -s d.mp d2.mp

# Tournaments: every match once, records after their own header; --jobs 2 gives
# the same matches as --jobs 1.
B="--bots random,random,greedy --seats 2 --rounds 2 --seed 11 -q --json"
"$ARENA" tournament $T $B --db t1.db --jobs 1 --export-decisions t1.mp >t1.json 2>err.txt
check "tournament --jobs 1 export exits 0" test $? = 0
"$ARENA" tournament $T $B --db t2.db --jobs 2 --export-decisions t2.mp >t2.json 2>err.txt
check "tournament --jobs 2 export exits 0" test $? = 0
cat >check_tour.py <<'EOF'
import json, sys, msgpack
def load(path):
    matches, cur = {}, None
    for r in msgpack.Unpacker(open(path, "rb"), raw=False):
        if r["type"] == "match":
            assert r["match"] not in matches, "match %d twice" % r["match"]
            cur = r["match"]
            matches[cur] = [r, []]
        else:
            assert r["match"] == cur, "record of match %d after header %s" % (r["match"], cur)
            h = matches[cur][0]
            assert r["outcome"]["place"] == h["outcome"]["places"][r["seat"]]
            matches[cur][1].append(r)
    for n, (h, ds) in matches.items():
        assert h["decisions"] == len(ds) and ds, (n, h["decisions"], len(ds))
    return matches
a, b = load(sys.argv[1]), load(sys.argv[2])
planned = json.load(open(sys.argv[3]))["planned"]
assert sorted(a) == sorted(b) == list(range(planned)), (sorted(a), sorted(b), planned)
assert a == b, "--jobs 1 and --jobs 2 exports differ"
EOF
check "tournament exports: every match once, same with --jobs 2" \
  "$PY" check_tour.py t1.mp t2.mp t2.json

# A path that cannot be created: exit 2, one line, no file, nothing played.
for cmd in "play $T random random --seed 3" "tournament $T --bots random,random --db x.db"; do
  rm -f out.txt err.txt
  before=$(ls -A | sort)
  "$ARENA" $cmd --export-decisions nodir/d.mp >out.txt 2>err.txt
  rc=$?
  after=$(ls -A | grep -v -e '^out.txt$' -e '^err.txt$' | sort)
  check "${cmd%% *}: unwritable export exits 2" test "$rc" = 2
  check "${cmd%% *}: one line naming the file" \
    bash -c 'test "$(wc -l <err.txt)" = 1 && grep -q "nodir/d.mp" err.txt'
  check "${cmd%% *}: nothing written" test "$before" = "$after"
  mkdir -p adir
  "$ARENA" $cmd --export-decisions adir >out.txt 2>err.txt
  check "${cmd%% *}: a directory as FILE exits 2" test $? = 2
  check "${cmd%% *}: nothing written into it" test -z "$(ls -A adir)"
  rmdir adir
  rm -f out.txt err.txt
done

echo "export tests: $pass passed, $fail failed"
[ "$fail" = 0 ]
