#!/usr/bin/python3
"""The Python SDK's generated constants are in step with the C headers.

    test_constants.py CC

1. sdk/python/tools/gen_constants.py, run into a temporary copy of the
   package, writes exactly the committed modules (a header changed without
   regenerating fails here: run the generator, which rewrites them);
2. a header with one more constant makes the generator write another module
   (so 1 can fail);
3. --verify: every function-like macro, and the card helpers, agree with C at
   sample arguments;
4. the modules import, and a few values read the way the headers and
   docs/protocol.md say.
"""
import difflib
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
PKG = os.path.join(ROOT, "sdk", "python", "jackarena")
GEN = os.path.join(ROOT, "sdk", "python", "tools", "gen_constants.py")
INCLUDE = os.path.join(ROOT, "sdk", "include")
CC = sys.argv[1] if len(sys.argv) > 1 else "cc"

from tally import check, finish  # noqa: E402

def generate(out_pkg, include=INCLUDE):
    p = subprocess.run([sys.executable, GEN, "--out", out_pkg, "--cc", CC, "--include", include],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise SystemExit("the generator failed: %s" % p.stderr)
    return sorted(os.path.relpath(line, out_pkg) for line in p.stdout.split())


def differences(files, a, b):
    out = []
    for f in files:
        x = open(os.path.join(a, f)).read().splitlines(True)
        y = open(os.path.join(b, f)).read().splitlines(True) if os.path.exists(os.path.join(b, f)) else []
        if x != y:
            out.append("".join(difflib.unified_diff(y, x, "committed/" + f, "generated/" + f, n=1))[:2000])
    return out


with tempfile.TemporaryDirectory() as work:
    fresh = os.path.join(work, "fresh", "jackarena")
    shutil.copytree(PKG, fresh)
    files = generate(fresh)
    check("the generator writes the modules", len(files) == 8 and "games/bombs.py" in files, files)
    diffs = differences(files, fresh, PKG)
    check("the committed modules equal the generated ones (run sdk/python/tools/gen_constants.py)",
          not diffs, "\n" + "\n".join(diffs))

    # A header with one more constant: the comparison above would fail.
    inc = os.path.join(work, "include")
    shutil.copytree(INCLUDE, inc)
    h = os.path.join(inc, "jackarena", "ja_bombs.h")
    text = open(h).read().replace("#define JA_BOMBS_SUPER 1000u",
                                  "#define JA_BOMBS_SUPER 1000u\n#define JA_BOMBS_TEST_NEW (7 * 6)")
    open(h, "w").write(text)
    changed = os.path.join(work, "changed", "jackarena")
    shutil.copytree(PKG, changed)
    generate(changed, inc)
    diffs = differences(files, changed, PKG)
    check("a changed header changes the generated bombs.py, and only it",
          len(diffs) == 1 and "+TEST_NEW = 42" in diffs[0], "\n".join(diffs))

    p = subprocess.run([sys.executable, GEN, "--verify", os.path.dirname(fresh), "--cc", CC,
                        "--include", INCLUDE], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    print(p.stdout.strip())
    check("function-like macros and card helpers agree with C", p.returncode == 0, "\n" + p.stdout)

sys.path.insert(0, os.path.dirname(PKG))
from jackarena import games  # noqa: E402
from jackarena.games import bombs, brawljack, bruise_jack, cards, jack_in_the_box, taylor  # noqa: E402

check("every game has a module", sorted(games.MODULES) == sorted(
    ["taylor-blackjack", "brawljack", "bruise-jack", "jack-in-the-box", "bombs"]), games.MODULES)
check("taylor", (taylor.DRAW, taylor.SUIT(cards.SUIT_H), taylor.STAGE_OVER, taylor.EV_WIN,
                 taylor.PLAY(19)) == (100, 112, 6, 9, 19))
check("bombs", (bombs.RUN(bombs.R_3, 5), bombs.PASS, bombs.STAGE_WINDOW,
                bombs.name_of("STAGE_", 7)) == (332, 1100, 8, "FOLLOW"))
check("brawljack", (brawljack.HIT(brawljack.DEALER, 2), brawljack.IS_HIT(575),
                    brawljack.IS_HIT(576), brawljack.CODE_OWNER(brawljack.STAY(3, 5)))
      == (514, True, False, 3))
check("jack-in-the-box", (jack_in_the_box.PAIR(3, jack_in_the_box.PARTNER + 4),
                          jack_in_the_box.REF_IS_PARTNER(68)) == (8192 + 384 + 68, True))
check("bruise-jack", (bruise_jack.PLACE(bruise_jack.SUIT), bruise_jack.STAGE_PLACE) == (12, 1))
check("cards", (cards.label(19), cards.label(cards.JOKER_RED), cards.parse("10h"),
                cards.suit(19), cards.rank(19)) == ("7D", "XR", 35, 1, 6))
for mod in (taylor, bombs, brawljack, bruise_jack, jack_in_the_box):
    names = [f.name for f in mod.OBS_FIELDS]
    check("%s: OBS_FIELDS has seat first and unique names" % mod.GAME,
          names[0] == "seat" and len(set(names)) == len(names) and
          all(f.type in ("u8", "i8", "u16", "i16", "u32", "i32", "i64") and f.count >= 1
              for f in mod.OBS_FIELDS))
known = [f for f in taylor.OBS_FIELDS if f.name == "known"]
check("taylor's known: 624 u8", known and known[0][1:3] == ("u8", 624), known)

sys.exit(finish())
