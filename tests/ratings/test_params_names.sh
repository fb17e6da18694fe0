#!/usr/bin/env bash
# A bot's parameters wherever its name is shown (docs/ratings.md, "Names
# and parameters"), with real processes. plugins/long/ja_shedder.so is
# shedder with a long version (3.1.4-rc.2+git20250131.4f2a9c1); it takes
# any parameters (no check_params). Given twice, as depth=2 and as
# depth=3:style=wild, it is `shedder` and `shedder#2`:
#  - `arena bench`'s header and rows, and the SPRT line, show
#    shedder(depth=2) and shedder#2(depth=3:style=wild); --json adds params
#    and label beside bot;
#  - `arena tournament`'s standings show the labels, --json adds params and
#    label and keeps bot and display_name;
#  - `arena ladder` (and --fit) show the names with the versions that carry
#    the parameters, --json adds params;
#  - `arena report` shows the labels;
#  - every table's columns line up: each column's edge (the right one of a
#    number, the left one of a text) is at the same place in the header and
#    in every row.
# Usage: test_params_names.sh ARENA PLUGINS_DIR
set -u
ARENA=$1
PLUG=$2
. "$(dirname "$0")/lib.sh"
L="$PLUG/long/ja_shedder.so"
V=3.1.4-rc.2+git20250131.4f2a9c1
P1=depth=2 P2=depth=3:style=wild

# aligned FILE HEADER_WORD COLUMN...: in the table whose header line starts
# with HEADER_WORD (after spaces and '#'), every row ("  N  ..." or, for
# bench, the lines after the header up to a blank or '*' line) has each
# COLUMN's edge where the header has it. COLUMN is r:WORD (right-aligned:
# its last character) or l:WORD (left-aligned: its first).
aligned() {
  $PY - "$@" <<'PYEOF'
import re, sys
path, first, cols = sys.argv[1], sys.argv[2], sys.argv[3:]
lines = open(path).read().split("\n")
heads = [i for i, l in enumerate(lines) if re.match(r"^\s*(#\s+)?" + re.escape(first) + r"\s", l)]
assert heads, "no header starting with %r in %s" % (first, path)
for h in heads:
    head, rows = lines[h], []
    for l in lines[h + 1:]:
        if not l.strip() or l.lstrip().startswith("*") or not l.startswith("  "):
            break
        rows.append(l)
    assert rows, "no rows under %r" % head
    for col in cols:
        side, word = col.split(":", 1)
        at = re.search(r"(?<!\S)" + re.escape(word) + r"(?!\S)", head)
        assert at, "no column %r in %r" % (word, head)
        for r in rows:
            r += " "
            if side == "r":
                e = at.end() - 1
                ok = e < len(r) and r[e] != " " and r[e + 1] == " "
            else:
                s = at.start()
                ok = s < len(r) and r[s] != " " and r[s - 1] == " "
            assert ok, "column %r out of line:\n%s\n%s" % (word, head, r)
PYEOF
}

# ---- bench ------------------------------------------------------------------------
"$ARENA" bench "$L:$P1" --game $T --vs "$L:$P2",random --games 3 --seed 1 -q >b.txt
check "bench exits 0" test $? = 0
check "bench's header names the bot with its parameters" \
  grep -q "^bench shedder($P1) on $T:" b.txt
check "bench's rows: shedder#2($P2) and random" test \
  "$(awk '$1 == "opponent" { on = 1; next } on && NF > 5 && $1 != "*" { print $1 }' b.txt | tr '\n' ' ')" = \
  "shedder#2($P2) random "
check "bench's columns line up" aligned b.txt opponent r:games r:deals r:score r:faults
"$ARENA" bench "$L:$P1" --game $T --vs "$L:$P2" --games 3 --seed 1 -q --sprt 0,50 >bs.txt
check "the SPRT line names both with their parameters" \
  grep -q "^SPRT shedder($P1) vs shedder#2($P2), " bs.txt
"$ARENA" bench "$L:$P1" --game $T --vs "$L:$P2",random --games 3 --seed 1 -q --json >b.json
check "bench --json: bot, params and label, for the bot and each opponent" $PY - "$P1" "$P2" <<'PYEOF'
import json, sys
p1, p2 = sys.argv[1:3]
d = json.load(open("b.json"))
assert (d["bot"], d["params"], d["label"]) == ("shedder", p1, "shedder(%s)" % p1), d
got = [(o["bot"], o["params"], o["label"]) for o in d["opponents"]]
assert got == [("shedder#2", p2, "shedder#2(%s)" % p2), ("random", "", "random")], got
PYEOF

# ---- tournament ---------------------------------------------------------------------
"$ARENA" tournament $T --bots "$L:$P1","$L:$P2",random --rounds 2 --seed 5 --db p.db -q >t.txt
check "tournament exits 0" test $? = 0
check "standings: the labels" test \
  "$(awk '$1 ~ /^[0-9]+$/ && NF > 5 { print $2 }' t.txt | sort | tr '\n' ' ')" = \
  "random shedder#2($P2) shedder($P1) "
check "standings' columns line up" aligned t.txt bot r:games r:wins r:score r:mean r:faults
"$ARENA" tournament $T --bots "$L:$P1","$L:$P2",random --rounds 2 --seed 6 --db p.db -q \
  --json >t.json
check "tournament --json: bot, version, display_name as before; params and label added" \
  $PY - "$V" "$P1" "$P2" <<'PYEOF'
import json, sys
v, p1, p2 = sys.argv[1:4]
st = {s["bot"]: s for s in json.load(open("t.json"))["standings"]}
want = {"shedder": (v + ":" + p1, "shedder", p1, "shedder(%s)" % p1),
        "shedder#2": (v + ":" + p2, "shedder#2", p2, "shedder#2(%s)" % p2),
        "random": ("1.0", "random", "", "random")}
got = {b: (s["version"], s["display_name"], s["params"], s["label"]) for b, s in st.items()}
assert got == want, got
PYEOF

# ---- ladder ------------------------------------------------------------------------
"$ARENA" ladder $T --db p.db >l.txt
check "ladder exits 0" test $? = 0
check "ladder rows: name and version, the parameters in the version" test \
  "$(awk '$1 ~ /^[0-9]+$/ && NF > 5 { print $2, $3 }' l.txt | sort | tr '\n' ' ')" = \
  "random 1.0 shedder $V:$P1 shedder#2 $V:$P2 "
check "ladder's columns line up" aligned l.txt bot l:version r:games r:elo r:faults
"$ARENA" ladder $T --db p.db --fit >f.txt
check "ladder --fit exits 0" test $? = 0
check "--fit's columns line up" aligned f.txt bot l:version r:games r:elo r:score
"$ARENA" ladder $T --db p.db --json >l.json
check "ladder --json: params read from the version" $PY - "$P1" "$P2" <<'PYEOF'
import json, sys
p1, p2 = sys.argv[1:3]
got = {r["bot"]: r["params"] for r in json.load(open("l.json"))["ratings"]}
assert got == {"shedder": p1, "shedder#2": p2, "random": ""}, got
PYEOF

# ---- report ------------------------------------------------------------------------
"$ARENA" report --db p.db -o site >/dev/null
check "report exits 0" test $? = 0
check "report's standings show the labels" $PY - "$P1" "$P2" <<'PYEOF'
import html, re, sys
p1, p2 = sys.argv[1:3]
page = open("site/index.html").read()
table = page[page.index('<table class="standings'):]
table = table[:table.index("</table>")]
cells = [html.unescape(c) for c in re.findall(r'</span>(?:<a [^>]*>)?([^<]*)(?:</a>)?</td>', table)]
assert sorted(cells) == sorted(["shedder(%s)" % p1, "shedder#2(%s)" % p2, "random"]), cells
PYEOF

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
