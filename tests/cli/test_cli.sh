#!/usr/bin/env bash
# CLI contract tests (design/CLI.md): exit 2 with one clear line and nothing
# written for bad input; broken plugins refused by name; faults recorded and
# the match finished; same seed, same digest. Usage: test_cli.sh ARENA PLUGINS
set -u
ARENA=$1
PLUG=$2
PY=/usr/bin/python3
. "$(dirname "$0")/lib.sh"

T=taylor-blackjack
R="--replay x.rpl"
# Unknown things.
expect_fail 2 "unknown command 'nosuch'" -- "$ARENA" nosuch
expect_fail 2 "unknown game 'nosuch' \(games: taylor-blackjack" -- "$ARENA" play nosuch random random $R
expect_fail 2 "unknown option 'foo' for taylor-blackjack \(allowed: decks, last_card" -- "$ARENA" play $T random random --opt foo=1 $R
expect_fail 2 "bad value 'x' for option decks of taylor-blackjack \(allowed: auto, 1, 2\)" -- "$ARENA" play $T random random --opt decks=x $R
expect_fail 2 "bad value '0' for option games .*from 1 to" -- "$ARENA" play $T random random --opt games=0 $R
expect_fail 2 "not KEY=VALUE" -- "$ARENA" play $T random random --opt decks $R
expect_fail 2 "decks=1" -- "$ARENA" play $T random random random random random random random random --opt decks=1 $R
expect_fail 2 "2 to 12 seats; 1 bot given" -- "$ARENA" play $T random $R
expect_fail 2 "--seed needs a number" -- "$ARENA" play $T random random --seed -4 $R
expect_fail 2 "--move-ms needs" -- "$ARENA" play $T random random --move-ms soon $R
expect_fail 2 "unknown option '--frobnicate'" -- "$ARENA" play $T random random --frobnicate $R
expect_fail 2 "which game" -- "$ARENA" play
expect_fail 2 "unknown bot 'rando'" -- "$ARENA" play $T random rando $R
expect_fail 2 "bot 'random:fast': unknown parameter 'fast' \(this bot takes no parameters\)" -- "$ARENA" play $T random random:fast $R
# ismcts parameters (docs/bots.md): checked by the bot before anything runs.
expect_fail 2 "bot 'ismcts:iters=0': parameter 'iters' must be auto or an integer from 1 to 10000000, not '0'" -- "$ARENA" play $T random ismcts:iters=0 $R
expect_fail 2 "bot 'ismcts:fast=1': unknown parameter 'fast' \(known: iters, ms, c, nodes, rollout, anchor, verify, early, steps, horizon, drop, infer, stride\)" -- "$ARENA" play $T random ismcts:fast=1 $R
expect_fail 2 "bot 'ismcts:iters': parameter 'iters' needs a value \(iters=VALUE\)" -- "$ARENA" play $T random ismcts:iters $R
expect_fail 2 "parameter 'c' must be a number from 0 to 10, not '-1'" -- "$ARENA" play $T random ismcts:iters=5:c=-1 $R
expect_fail 2 "give iters=N or ms=N, not both" -- "$ARENA" play $T random ismcts:iters=5:ms=5 $R
expect_fail 2 "parameter 'anchor' must be auto or a number from 0 to 10, not '11'" -- "$ARENA" play $T random ismcts:anchor=11 $R
expect_fail 2 "bot 'ismcts:iters=5:iters=6': parameter 'iters' is given twice" -- "$ARENA" play $T random ismcts:iters=5:iters=6 $R
expect_fail 2 "no parameters after ':'" -- "$ARENA" play $T random ismcts: $R
expect_fail 2 "parameter 'rollout' must be one of auto, random, greedy, not 'smart'" -- "$ARENA" play $T random ismcts:rollout=smart $R
expect_fail 2 "parameter 'verify' must be auto or an integer from 0 to 100000, not 'x'" -- "$ARENA" play $T random ismcts:verify=x $R
expect_fail 2 "parameter 'verify' must be auto or an integer from 0 to 100000, not '100001'" -- "$ARENA" play $T random ismcts:iters=5:verify=100001 $R
expect_fail 2 "two bots are named 'a'" -- "$ARENA" play $T a=random a=random $R
expect_fail 2 "bot 'cmd:' names no command after 'cmd:'" -- "$ARENA" play $T random "cmd:" $R
# ismcts with a budget plays, and two budgets are two participants.
"$ARENA" play brawljack ismcts:iters=50 random --seed 3 --opt hands=1 >ism.txt 2>ism.err
check "play with ismcts:iters=50 exits 0" test $? = 0
check "ismcts:iters=50 plays without a fault" grep -qE "ismcts\(iters=50\) +score [0-9]+ +faults 0" ism.txt
"$ARENA" play brawljack ismcts:iters=50 ismcts:iters=20 --seed 3 --opt hands=1 >ism.txt 2>ism.err
check "two ismcts budgets play each other" grep -q "ismcts#2" ism.txt
# The paired rollout test, on by default in Bruise Jack (docs/bots.md).
"$ARENA" play bruise-jack ismcts:iters=20:verify=30 greedy --seed 3 --opt hands=1 >ism.txt 2>ism.err
check "ismcts:verify=30 plays bruise-jack without a fault" grep -qE "ismcts\(iters=20:verify=30\) +score [0-9.]+ +faults 0" ism.txt
rm -f ism.txt ism.err
# Broken plugins.
expect_fail 2 "bot plugin './missing.so': No such file" -- "$ARENA" play $T random ./missing.so $R
expect_fail 2 "no entry point ja_bot_entry_v1" -- "$ARENA" play $T random "$PLUG/noentry.so" $R
expect_fail 2 "built for bot ABI 2 .*loads ABI 1" -- "$ARENA" play $T random "$PLUG/abi2.so" $R
expect_fail 2 "built for bot ABI 3" -- "$ARENA" play $T random "$PLUG/badmajor.so" $R
mkdir -p aux && printf 'not a library\n' >aux/text.so
expect_fail 2 "bot plugin 'aux/text.so': not an ELF file$" -- "$ARENA" play $T random aux/text.so $R
expect_fail 2 "tiny.so': its descriptor is too small for ABI 1" -- "$ARENA" play $T random "$PLUG/tiny.so" $R
mkdir -p aux/d1 aux/d2 && cp "$PLUG/faulty.so" aux/d1/bot.so && cp "$PLUG/slow.so" aux/d2/bot.so
expect_fail 2 "two different bots are both named 'bot' \('aux/d1/bot.so' and 'aux/d2/bot.so'\); give one a name" -- "$ARENA" play $T aux/d1/bot.so aux/d2/bot.so $R
expect_fail 2 "two different bots are both named 'bot'" -- "$ARENA" tournament $T --bots random,aux/d1/bot.so,aux/d2/bot.so --db t.db
expect_fail 2 "bot plugin 'aux/text.so': not an ELF file$" -- "$ARENA" tournament $T --bots random,aux/text.so --db t.db
expect_fail 2 "no entry point ja_bot_entry_v1" -- "$ARENA" tournament $T --bots random,"$PLUG/noentry.so" --db t.db
expect_fail 2 "built for bot ABI 2" -- "$ARENA" tournament $T --bots random,"$PLUG/abi2.so" --db t.db
expect_fail 2 "descriptor is too small" -- "$ARENA" tournament $T --bots random,"$PLUG/tiny.so" --db t.db
expect_fail 2 "No such file" -- "$ARENA" tournament $T --bots random,./missing.so --db t.db
printf 'not an ELF file' >fake.so
expect_fail 2 "fake.so': not an ELF file" -- "$ARENA" play $T random ./fake.so $R
rm -f fake.so
# Unwritable replay path.
expect_fail 2 "--replay 'nodir/x.rpl': directory 'nodir' does not exist" -- "$ARENA" play $T random random --replay nodir/x.rpl
# Replay verification of bad files.
expect_fail 2 "cannot open replay 'none.rpl'" -- "$ARENA" replay verify none.rpl
expect_fail 2 "replay verify takes one FILE" -- "$ARENA" replay verify
expect_fail 2 "unknown replay command 'frob'" -- "$ARENA" replay frob

# A real match: JSON result, replay verifies with the same digest.
"$ARENA" play $T random random random --seed 7 --replay m.rpl --json >play.json 2>err.txt
check "play --json exits 0" test $? = 0
check "play --json is one JSON document" $PY -c 'import json,sys; d=json.load(open("play.json")); assert d["seed"]=="7" and len(d["seats"])==3 and d["game"]=="taylor-blackjack"'
"$ARENA" replay verify m.rpl --json >verify.json
check "replay verify exits 0" test $? = 0
check "verify digest equals play digest" $PY -c 'import json; a=json.load(open("play.json")); b=json.load(open("verify.json")); assert b["ok"] and a["digest"]==b["digest"] and b["decisions"]==a["turns"], (a, b)'
"$ARENA" play $T random random random --seed 7 --json >play2.json
check "same seed, same match" $PY -c 'import json; a=json.load(open("play.json")); b=json.load(open("play2.json")); a.pop("replay"); assert a==b'
"$ARENA" play $T random random random --seed 8 --json >play3.json
check "another seed, another match" $PY -c 'import json; a=json.load(open("play.json")); b=json.load(open("play3.json")); assert a["digest"]!=b["digest"]'
# Luck adjustment: the random bots' action terms alone (--terms), and a bad list.
"$ARENA" replay adjust m.rpl --terms action --rollouts 2 --samples 2 --json >adj.json
check "replay adjust --terms action exits 0" test $? = 0
check "only action terms, one per random decision" $PY -c 'import json; a=json.load(open("adj.json")); assert a["terms"]==["action"] and a["actions"]>0 and a["events"]==0, a; assert all(s["deal"]==0 and s["chance"]==0 and abs(s["raw"]-s["action"]-s["adjusted"])<1e-9 for s in a["seats"]), a'
expect_fail 2 "--terms 'luck' is not one of deal\|chance\|action" -- "$ARENA" replay adjust m.rpl --terms luck

# Corrupt, truncated and tampered replays.
size=$(stat -c %s m.rpl)
head -c $((size / 2)) m.rpl >trunc.rpl
expect_fail 2 "is truncated at byte [0-9]+" -- "$ARENA" replay verify trunc.rpl
printf '\xc1\xc1\xc1garbage' >garbage.rpl
expect_fail 2 "corrupt at byte 0" -- "$ARENA" replay verify garbage.rpl
$PY - <<'PYEOF'
import msgpack
recs = list(msgpack.Unpacker(open("m.rpl", "rb"), raw=False, strict_map_key=False))
end = recs[-1]; end["scores"][0] += 27720
with open("tampered.rpl", "wb") as f:
    for r in recs: f.write(msgpack.packb(r))
# a decision that asks the wrong seat
recs = list(msgpack.Unpacker(open("m.rpl", "rb"), raw=False, strict_map_key=False))
recs[5]["asked"][0]["s"] = (recs[5]["asked"][0]["s"] + 1) % 3
with open("wrongseat.rpl", "wb") as f:
    for r in recs: f.write(msgpack.packb(r))
PYEOF
expect_fail 1 "does not verify: seat 0: the replay records score" -- "$ARENA" replay verify tampered.rpl
expect_fail 1 "does not verify: decision 4: the replay asks seats" -- "$ARENA" replay verify wrongseat.rpl
"$ARENA" replay verify tampered.rpl --json >tj.json 2>/dev/null
check "verify --json reports ok=false" $PY -c 'import json; d=json.load(open("tj.json")); assert d["ok"] is False and d["digest"] is None and "score" in d["error"]'
rm -f trunc.rpl garbage.rpl tampered.rpl wrongseat.rpl tj.json

# A replay made under another rules version of its game is refused, not
# re-simulated under rules that may play it differently: a Bombs replay
# marked rules version 1 (before the window priority fix of version 2).
"$ARENA" play bombs random random random --seed 31 --opt hands=1 --opt interrupt_after_pass=on \
  --replay b.rpl -q >/dev/null
check "bombs replay verifies" "$ARENA" replay verify b.rpl
$PY - <<'PYEOF'
import msgpack
recs = list(msgpack.Unpacker(open("b.rpl", "rb"), raw=False, strict_map_key=False))
recs[0]["rules_version"] = 1
with open("oldrules.rpl", "wb") as f:
    for r in recs: f.write(msgpack.packb(r))
PYEOF
expect_fail 2 "replay made under bombs rules version 1; this build implements version [0-9]+" -- \
  "$ARENA" replay verify oldrules.rpl
rm -f b.rpl oldrules.rpl

# A faulty bot: faults counted by kind, defaults played, match over, replay verifies.
"$ARENA" play $T random "$PLUG/faulty.so" --seed 3 --replay f.rpl --json >f.json 2>err.txt
check "faulty bot match exits 0" test $? = 0
check "faults counted by kind" $PY -c 'import json; d=json.load(open("f.json")); s=d["seats"][1]; k=s["fault_kinds"]; assert s["faults"]>0 and k.get("illegal",0)>0 and k.get("error",0)>0 and s["faults"]==sum(k.values()) and d["seats"][0]["faults"]==0, d'
check "faulty match replay verifies" "$ARENA" replay verify f.rpl

# Listings and help.
check "games --json" $PY -c 'import json,subprocess,sys; d=json.loads(subprocess.check_output([sys.argv[1],"games","--json"])); g=[x for x in d if x["name"]=="taylor-blackjack"][0]; assert g["min_seats"]==2 and g["max_seats"]==12 and {o["name"] for o in g["options"]}=={"decks","last_card","rebuild","turn_cap","games"}' "$ARENA"
check "bots --json lists random" $PY -c 'import json,subprocess,sys; d=json.loads(subprocess.check_output([sys.argv[1],"bots","--json"])); assert any(b["name"]=="random" and "taylor-blackjack" in b["games"] for b in d)' "$ARENA"
for c in "games" "bots" "play" "replay verify" "replay"; do
  check "$c --help" bash -c "\"$ARENA\" $c --help | grep -q usage"
done
expect_fail 2 "unexpected argument 'extra'" -- "$ARENA" games extra

finish
