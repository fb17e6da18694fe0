#!/usr/bin/python3
"""The C++ example plugin (sdk/examples/halving.cpp) in the build tree.

    test_cxx_plugin.py ARENA PLUGIN SOURCE_DIR

- Its dynamic symbol table defines ja_bot_entry_v1 and nothing else (nm -D
  --defined-only): no mangled entry point, no instantiation of the C++
  library's templates, no version node.
- It plays a match of every game the arena has, at the game's fewest seats
  against `random`, in-process: exit 0, no fault, its decisions answered by
  the bot itself (asked, at least two choices, no fault) as the replay
  records them, the replay verifies, and the same seed gives the same digest.
- A parameter it refuses stops the arena with its own message (check_params
  written in C++).
- docs/tutorial-cpp.md holds sdk/examples/halving.cpp verbatim: the page's
  bot, which install_tutorials builds and plays, is this one.
The same file built from the installed SDK (pkg-config and find_package),
and played hosted:, is tests/install/test_install.sh's.
"""
import json
import os
import subprocess
import sys
import tempfile

import msgpack

ARENA, PLUGIN, SRC = sys.argv[1], sys.argv[2], sys.argv[3]
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def arena(*args):
    return subprocess.run([ARENA, *args], capture_output=True, text=True)


def short_options(game):
    """The fewest games or hands: a match of each game stays short."""
    return [a for o in game["options"] if o["kind"] == "int" and o["name"] in ("games", "hands")
            for a in ("--opt", "%s=%d" % (o["name"], o["min"]))]


def own_answers(replay, seat):
    """Decisions of seat with a choice that its bot answered without a fault."""
    n = 0
    with open(replay, "rb") as f:
        for rec in msgpack.Unpacker(f, raw=False):
            if rec.get("t") == "d":
                n += sum(1 for a in rec["asked"]
                         if a["s"] == seat and a["n"] >= 2 and a["f"] == "none" and a["i"] >= 0)
    return n


def main():
    nm = subprocess.run(["nm", "-D", "--defined-only", PLUGIN], capture_output=True, text=True,
                        check=True)
    symbols = [line.split()[-1] for line in nm.stdout.splitlines() if line.strip()]
    check(symbols == ["ja_bot_entry_v1"],
          "the plugin exports ja_bot_entry_v1 alone, not %s" % symbols)

    games = json.loads(arena("games", "--json").stdout)
    check(len(games) >= 5, "arena games --json lists the games")
    spec = PLUGIN + ":playouts=4"
    with tempfile.TemporaryDirectory() as work:
        for g in games:
            name = g["name"]
            others = ["random"] * (g["min_seats"] - 1)
            replay = os.path.join(work, name + ".rpl")
            args = ["play", name, spec, *others, "--seed", "7", "--json", *short_options(g)]
            p = arena(*args, "--replay", replay)
            if p.returncode != 0:
                check(False, "%s: exit %d: %s" % (name, p.returncode, p.stderr.strip()))
                continue
            d = json.loads(p.stdout)
            me = d["seats"][0]
            check(me["bot"] == "halving" and me["faults"] == 0,
                  "%s: the C++ bot played without a fault: %s" % (name, me))
            check(own_answers(replay, 0) > 0, "%s: the C++ bot answered its decisions" % name)
            check(arena("replay", "verify", replay).returncode == 0,
                  "%s: the replay verifies" % name)
            again = arena(*args)
            check(again.returncode == 0 and json.loads(again.stdout)["digest"] == d["digest"],
                  "%s: the same seed gives the same digest" % name)
    p = arena("play", "bruise-jack", PLUGIN + ":playouts=0", "random")
    check(p.returncode == 2 and "parameter 'playouts' must be an integer from 1 to 100000" in
          p.stderr and len(p.stderr.splitlines()) == 1,
          "a refused parameter: exit 2 and the bot's line (%d: %s)" % (p.returncode, p.stderr))
    with open(os.path.join(SRC, "sdk/examples/halving.cpp"), encoding="utf-8") as f:
        example = f.read()
    with open(os.path.join(SRC, "docs/tutorial-cpp.md"), encoding="utf-8") as f:
        page = f.read()
    check("```cpp\n" + example + "```\n" in page,
          "docs/tutorial-cpp.md holds sdk/examples/halving.cpp as it is")
    print("%d failed" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
