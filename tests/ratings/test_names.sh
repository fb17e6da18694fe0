#!/usr/bin/env bash
# Names of ladder bots with real processes (docs/database.md, "Display
# names"). One plugin source built three times as ja_shedder.so: plugins/a
# and plugins/b are shedder 1.0 with different bytes (a rebuild),
# plugins/v2 is shedder 2.0; plugins/c is a's file with bytes appended (it
# still loads, and is another entry). A tournament of each against random
# goes into one database, then:
#  - the standings name the build as the ladder does at that point
#    (`shedder` while it is alone, `shedder@1.0~HASH8` once another build
#    of 1.0 has played), and --json has bot, version, sha256, display_name;
#  - `arena ladder GAME` shows one row per build, `shedder@1.0~HASH8` with
#    the hashes `sha256sum` gives, `shedder@2.0`, `random`; --json has the
#    identity fields apart and the display name; --fit prints the same names;
#  - `--anchor` takes each printed name (and the whole hash), and refuses
#    `shedder@1.0` and `shedder` with exit 2 and one line listing the
#    candidates as printed;
#  - `arena report` and PGN export name the bots the same way.
# Usage: test_names.sh ARENA PLUGINS_DIR
set -u
ARENA=$1
PLUG=$2
. "$(dirname "$0")/lib.sh"
# An extended regular expression that matches exactly the text $1.
literal() { printf '%s' "$1" | sed 's/[][\.*^$(){}+?|]/\\&/g'; }
# The bot column of a text table: the second field of rows "  N  NAME ...".
names_of() { awk '$1 ~ /^[0-9]+$/ && NF > 5 { print $2 }' "$1" | sort | tr '\n' ' '; }

mkdir c && cp "$PLUG/a/ja_shedder.so" c/ && printf 'appended after the ELF image' >>c/ja_shedder.so
full_a=$(sha256sum "$PLUG/a/ja_shedder.so" | cut -c1-64)
full_b=$(sha256sum "$PLUG/b/ja_shedder.so" | cut -c1-64)
full_c=$(sha256sum c/ja_shedder.so | cut -c1-64)
ha=${full_a:0:8} hb=${full_b:0:8} hc=${full_c:0:8}
check "the builds differ in their first 8 hex digits" \
  test "$ha" != "$hb" -a "$ha" != "$hc" -a "$hb" != "$hc"
A="shedder@1.0~$ha" B="shedder@1.0~$hb" C="shedder@1.0~$hc"

# ---- Build a, alone: `shedder` ---------------------------------------------------
"$ARENA" tournament $T --bots "$PLUG/a/ja_shedder.so",random --rounds 6 --seed 1 --db n.db -q \
  --json >t1.json
check "tournament of build a exits 0" test $? = 0
check "standings JSON of build a: shedder, its identity apart" $PY - "$full_a" <<'PYEOF'
import json, sys
st = {s["bot"]: s for s in json.load(open("t1.json"))["standings"]}
s = st["shedder"]
assert (s["version"], s["sha256"], s["display_name"]) == ("1.0", sys.argv[1], "shedder"), s
assert st["random"]["display_name"] == "random" and len(st["random"]["sha256"]) == 64, st
PYEOF
"$ARENA" ladder $T --db n.db >l1.txt
check "one build: the ladder shows 'shedder'" test "$(names_of l1.txt)" = "random shedder "

# ---- Build b: the two builds of 1.0 are told apart ------------------------------------
"$ARENA" tournament $T --bots "$PLUG/b/ja_shedder.so",random --rounds 6 --seed 2 --db n.db -q >t2.txt
check "tournament of build b exits 0" test $? = 0
check "standings of build b name it $B" test "$(names_of t2.txt)" = "random $B "
"$ARENA" ladder $T --db n.db >l2.txt
check "ladder exits 0" test $? = 0
check "ladder rows: $A, $B, random" test "$(names_of l2.txt)" = "$(printf '%s\n' "$A" "$B" random | sort | tr '\n' ' ')"
check "no row is plain 'shedder'" test "$(grep -c '^ *[0-9]*  shedder ' l2.txt)" = 0
"$ARENA" ladder $T --db n.db --json >l2.json
check "ladder --json: bot, version, sha256 apart, and the display name" $PY - "$full_a" "$full_b" <<'PYEOF'
import json, sys
a, b = sys.argv[1:3]
r = json.load(open("l2.json"))["ratings"]
got = sorted((x["bot"], x["version"], x["sha256"], x["display_name"]) for x in r if x["bot"] == "shedder")
want = sorted([("shedder", "1.0", a, "shedder@1.0~" + a[:8]), ("shedder", "1.0", b, "shedder@1.0~" + b[:8])])
assert got == want, (got, want)
assert [x["display_name"] for x in r if x["bot"] == "random"] == ["random"], r
PYEOF
"$ARENA" ladder $T --db n.db --fit >f2.txt
check "--fit exits 0" test $? = 0
check "--fit prints the names of the live ladder" test "$(names_of f2.txt)" = "$(names_of l2.txt)"
"$ARENA" ladder $T --db n.db --fit --json >f2.json
check "--fit --json: display names and hashes" $PY - "$full_a" "$full_b" <<'PYEOF'
import json, sys
a, b = sys.argv[1:3]
r = json.load(open("f2.json"))["ratings"]
got = sorted((x["display_name"], x["sha256"]) for x in r if x["bot"] == "shedder")
assert got == sorted([("shedder@1.0~" + a[:8], a), ("shedder@1.0~" + b[:8], b)]), got
PYEOF

# --anchor: each printed name, as printed; the whole hash too.
anchor_is() { # anchor_is NAME ELO -- ARG: the fit anchored by ARG fixes NAME at ELO
  "$ARENA" ladder $T --db n.db --fit --json --anchor "$4" >anchor.json &&
  $PY - "$1" "$2" <<'PYEOF'
import json, sys
name, elo = sys.argv[1], float(sys.argv[2])
d = json.load(open("anchor.json"))
assert (d["anchor"]["elo"], d["anchor"]["bot"], d["anchor"]["group"]) == (elo, name, 1), d["anchor"]
x = [r for r in d["ratings"] if r["display_name"] == name]
assert len(x) == 1 and x[0]["elo"] == elo and x[0]["elo_ci95"] == [elo, elo], x
PYEOF
}
check "--anchor $A=1600" anchor_is "$A" 1600 -- "$A=1600"
check "--anchor $B=1400" anchor_is "$B" 1400 -- "$B=1400"
check "--anchor $B (1500 by default)" anchor_is "$B" 1500 -- "$B"
check "--anchor random=1700" anchor_is random 1700 -- random=1700
check "--anchor with the whole hash" anchor_is "$A" 1550 -- "shedder@1.0~$full_a=1550"
"$ARENA" ladder $T --db n.db --fit --anchor "$A=1600" >fa.txt
check "--anchor in the text: 'anchor: $A = 1600'" grep -qxF "anchor: $A = 1600" fa.txt
expect_fail 2 "^arena: error: $(literal "--anchor shedder@1.0: 2 bots of this ladder fit this name: $A, $B (give one of these names)")\$" -- \
  "$ARENA" ladder $T --db n.db --fit --anchor shedder@1.0=1500
expect_fail 2 "^arena: error: $(literal "--anchor shedder: 2 bots of this ladder fit this name: $A, $B (give one of these names)")\$" -- \
  "$ARENA" ladder $T --db n.db --fit --anchor shedder
expect_fail 2 "^arena: error: $(literal "--anchor shedder@1.0~${full_a:0:7}: no bot of this ladder is named so (its bots: $A, random, $B)")\$" -- \
  "$ARENA" ladder $T --db n.db --fit --anchor "shedder@1.0~${full_a:0:7}"

# The report and PGN export name them so too.
"$ARENA" report --db n.db -o site >/dev/null
check "report exits 0" test $? = 0
check "report standings name both builds" $PY - "$A" "$B" <<'PYEOF'
import re, sys
html = open("site/index.html").read()
table = html[html.index('<table class="standings'):]
table = table[:table.index("</table>")]
cells = re.findall(r'</span>(?:<a [^>]*>)?([^<]*)(?:</a>)?</td>', table)
assert sorted(cells) == sorted([sys.argv[1], sys.argv[2], "random"]), cells
PYEOF
"$ARENA" ladder export $T --db n.db --pgn -o n.pgn
check "PGN export exits 0" test $? = 0
check "PGN players: $A, $B, random" test \
  "$(grep -hoE '^\[(White|Black) "[^"]*"' n.pgn | sed 's/.*"\(.*\)"/\1/' | sort -u | tr '\n' ' ')" = \
  "$(printf '%s\n' "$A" "$B" random | sort | tr '\n' ' ')"

# ---- shedder 2.0, and a copy of build a with bytes appended -------------------------------
"$ARENA" tournament $T --bots "$PLUG/v2/ja_shedder.so",random --rounds 6 --seed 3 --db n.db -q >t3.txt
check "tournament of shedder 2.0 exits 0" test $? = 0
check "standings name it shedder@2.0" test "$(names_of t3.txt)" = "random shedder@2.0 "
"$ARENA" tournament $T --bots ./c/ja_shedder.so,random --rounds 6 --seed 4 --db n.db -q --json >t4.json
check "tournament of the appended copy exits 0" test $? = 0
check "the appended copy is a new entry, $C" $PY - "$full_c" <<'PYEOF'
import json, sys
s = [x for x in json.load(open("t4.json"))["standings"] if x["bot"] == "shedder"]
assert len(s) == 1 and s[0]["sha256"] == sys.argv[1], s
assert s[0]["display_name"] == "shedder@1.0~" + sys.argv[1][:8], s
PYEOF
"$ARENA" ladder $T --db n.db >l4.txt
check "ladder rows: three builds of 1.0, shedder@2.0, random" test "$(names_of l4.txt)" = \
  "$(printf '%s\n' "$A" "$B" "$C" shedder@2.0 random | sort | tr '\n' ' ')"
"$ARENA" ladder $T --db n.db --fit >f4.txt
check "--fit prints the same names" test "$(names_of f4.txt)" = "$(names_of l4.txt)"
check "--anchor shedder@2.0=1500" anchor_is shedder@2.0 1500 -- shedder@2.0=1500
check "--anchor $C=1500" anchor_is "$C" 1500 -- "$C=1500"
expect_fail 2 "^arena: error: $(literal "--anchor shedder: 4 bots of this ladder fit this name: $A, $B, shedder@2.0, $C (give one of these names)")\$" -- \
  "$ARENA" ladder $T --db n.db --fit --anchor shedder=1500
expect_fail 2 "^arena: error: $(literal "--anchor shedder@1.0: 3 bots of this ladder fit this name: $A, $B, $C (give one of these names)")\$" -- \
  "$ARENA" ladder $T --db n.db --fit --anchor shedder@1.0

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
