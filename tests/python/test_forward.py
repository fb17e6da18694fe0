#!/usr/bin/python3
"""jackarena.forward (the forward model through ctypes) against the C engine.

    test_forward.py api CC LIB            the API, the library lookup, the C
                                          structures' layout
    test_forward.py agree ARENA LIB N     N matches per game played by the arena

agree: for every game, in several seat counts and option sets, the arena
plays seeded tournaments of the `random` reference bot with --replays and
--export-decisions (docs/training-data.md). Each replay is then re-played in
Python from setup(seats, seed, options) with the replay's actions, and at
every step:
  - the seats Python says are asked are the replay's;
  - each asked seat's legal list has the replay's size and holds the code
    played; where the referee asked a bot (the exported decisions, every
    decision that was not forced) it is the very list the bot was sent, with
    the same labels;
  - observe(seat) is the very observation the bot was sent, and sample() of
    that observation observes the same again (the round trip);
and at the end the match is over with the replay's scores and places. The
arena's engine and the Python model thus agree on every state the matches
pass through, as far as a seat or the referee can see it.
"""
import collections
import glob
import os
import random
import subprocess
import sys
import tempfile

import msgpack

HERE = os.path.dirname(os.path.abspath(__file__))
SDK = os.path.normpath(os.path.join(HERE, "..", "..", "sdk", "python"))
sys.path.insert(0, SDK)

from tally import check, finish  # noqa: E402


def raises(exc, fn, *args, **kw):
    """The message of the exc fn raised, or None if it did not."""
    try:
        fn(*args, **kw)
    except exc as e:
        return str(e)
    return None


def py(code, env=None, cwd=None):
    """Runs python code in a fresh interpreter: (exit status, stdout + stderr)."""
    e = dict(os.environ)
    e.pop("JACKARENA_LIB", None)
    e.update(env or {})
    p = subprocess.run([sys.executable, "-c", code], env=e, cwd=cwd, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    return p.returncode, p.stdout


# ---- api ---------------------------------------------------------------------

def test_layout(cc, work):
    """Every member of the ctypes mirrors sits where C puts it."""
    from jackarena import forward as fw
    import ctypes
    structs = [("ja_game_rules", fw._Rules), ("ja_options", fw._Options), ("ja_field", fw._Field),
               ("ja_outcome", fw._Outcome), ("ja_option_spec", fw._OptionSpec),
               ("ja_action", fw._Action)]
    src = ["#include <stdio.h>", "#include <stddef.h>", '#include "jackarena/ja_rules.h"',
           "int main(void) {"]
    want = []
    for cname, cls in structs:
        src.append('printf("%%zu\\n", sizeof(%s));' % cname)
        want.append(("sizeof(%s)" % cname, ctypes.sizeof(cls)))
        for name, _ in cls._fields_:
            member = "def" if name == "def_" else name
            src.append('printf("%%zu\\n", offsetof(%s, %s));' % (cname, member))
            want.append(("offsetof(%s, %s)" % (cname, member), getattr(cls, name).offset))
    src.append("return 0; }")
    c = os.path.join(work, "layout.c")
    open(c, "w").write("\n".join(src))
    inc = os.path.normpath(os.path.join(SDK, "..", "include"))
    subprocess.run([cc, "-I", inc, c, "-o", c[:-2]], check=True)
    got = [int(x) for x in subprocess.run([c[:-2]], stdout=subprocess.PIPE, text=True,
                                          check=True).stdout.split()]
    bad = [(w, v, g) for (w, v), g in zip(want, got) if v != g]
    check("the ctypes structures match C (%d sizes and offsets)" % len(want),
          len(got) == len(want) and not bad, bad)


def test_lookup(cc, lib, work):
    # $JACKARENA_LIB first; an explicit path that fails is not replaced.
    rc, out = py("from jackarena import forward; print(forward.library_path())",
                 {"JACKARENA_LIB": lib, "PYTHONPATH": SDK})
    check("$JACKARENA_LIB is used", rc == 0 and out.strip() == lib, out)
    rc, out = py("from jackarena import forward; forward.games()",
                 {"JACKARENA_LIB": "/nonexistent/libjackarena.so.0", "PYTHONPATH": SDK})
    check("a $JACKARENA_LIB that does not exist is an error naming it",
          rc == 1 and "LibraryError: cannot load libjackarena (the forward model): tried "
          "$JACKARENA_LIB: /nonexistent/libjackarena.so.0: no such file; build" in out, out)
    # The source tree: build/lib next to sdk/python (when this build is there).
    tree_lib = os.path.normpath(os.path.join(SDK, "..", "..", "build", "lib", "libjackarena.so.0"))
    if os.path.exists(tree_lib):
        rc, out = py("from jackarena import forward; print(forward.library_path())",
                     {"PYTHONPATH": SDK})
        check("the build tree next to the source package", rc == 0 and out.strip() == tree_lib, out)
    # A copy of the package elsewhere: _install.py, then nothing left.
    alone = os.path.join(work, "alone")
    import shutil
    shutil.copytree(os.path.join(SDK, "jackarena"), os.path.join(alone, "pkg", "jackarena"))
    env = {"PYTHONPATH": os.path.join(alone, "pkg"), "LD_LIBRARY_PATH": ""}
    import ctypes.util
    if ctypes.util.find_library("jackarena") is None:  # else the system has one: it is found
        rc, out = py("from jackarena import forward; forward.games()", env)
        check("nothing found: every place tried is named",
              rc == 1 and "tried $JACKARENA_LIB: unset; jackarena/_install.py: absent (not an "
              "installed SDK); the build tree: " in out and
              "find_library('jackarena'): not found; build the target jackarena_shared" in out, out)
    rel = os.path.relpath(lib, os.path.join(alone, "pkg", "jackarena"))
    open(os.path.join(alone, "pkg", "jackarena", "_install.py"), "w").write(
        "LIBJACKARENA = %r\n" % rel)
    rc, out = py("from jackarena import forward; print(forward.library_path(), forward.games())",
                 env)
    check("jackarena/_install.py's LIBJACKARENA, relative to the package",
          rc == 0 and out.startswith(os.path.normpath(lib)) and "bombs" in out, out)
    # A library whose ja_game_rules has another size; one that is no libjackarena.
    fake = os.path.join(work, "libfake.so")
    open(fake + ".c", "w").write(
        "#include <stdint.h>\nstatic struct { uint32_t size; } r = {12};\n"
        "const void *const ja_games[] = {&r, 0};\n")
    subprocess.run([cc, "-shared", "-fPIC", fake + ".c", "-o", fake], check=True)
    rc, out = py("from jackarena import forward; forward.games()",
                 {"JACKARENA_LIB": fake, "PYTHONPATH": SDK})
    check("a library with another struct_size is refused, saying so",
          rc == 1 and "ja_game_rules is 12 bytes there and" in out and "struct_size" in out, out)
    other = os.path.join(work, "libother.so")
    open(other + ".c", "w").write("int ja_nothing(void) { return 0; }\n")
    subprocess.run([cc, "-shared", "-fPIC", other + ".c", "-o", other], check=True)
    rc, out = py("from jackarena import forward; forward.games()",
                 {"JACKARENA_LIB": other, "PYTHONPATH": SDK})
    check("a library that is not libjackarena is refused",
          rc == 1 and "is not libjackarena (no ja_games)" in out, out)


def test_api(lib):
    from jackarena import forward
    from jackarena.games import bombs, cards, taylor
    import ctypes
    forward.load(lib)
    check("games", forward.games() == ["taylor-blackjack", "brawljack", "bruise-jack",
                                       "jack-in-the-box", "bombs"], forward.games())
    check("an unknown game", "unknown game 'chess' (games: taylor-blackjack" in
          (raises(ValueError, forward.game, "chess") or ""))
    g = forward.game("taylor-blackjack")
    check("metadata", (g.name, g.title, g.min_seats, g.max_seats, g.obs_version) ==
          ("taylor-blackjack", "Taylor Blackjack", 2, 12, taylor.OBS_VERSION))
    check("the field table is the generated one",
          [(f.name, f.type, f.count, f.doc) for f in g.obs_fields] == [tuple(f) for f in taylor.OBS_FIELDS])
    check("options resolved, as text", g.options({"games": 1}, 3) == {
        "decks": "1", "last_card": "explicit", "rebuild": "noshuffle", "turn_cap": "600",
        "games": "1"}, g.options({"games": 1}, 3))
    check("a bad option value: the library's message",
          raises(ValueError, g.options, {"decks": "3"}, 2) ==
          "bad value '3' for option decks of taylor-blackjack (allowed: auto, 1, 2)")
    check("an unknown option", "unknown option 'colour'" in
          (raises(ValueError, g.setup, 2, 1, {"colour": "red"}) or ""),
          raises(ValueError, g.setup, 2, 1, {"colour": "red"}))
    check("a bad seat count", raises(ValueError, g.setup, 13, 1) ==
          "taylor-blackjack takes 2 to 12 seats, not 13")
    check("a bad seed", "a seed is an integer from 0 to 2^64 - 1" in
          (raises(ValueError, g.setup, 2, -1) or ""))
    check("option specs", [o.name for o in g.options_spec] ==
          ["decks", "last_card", "rebuild", "turn_cap", "games"] and
          g.options_spec[0].values == ["auto", "1", "2"] and g.options_spec[4].kind == "int")
    st = g.setup(2, 7, {"games": 1})
    check("setup is deterministic", st.observe(0) == g.setup(2, 7, {"games": 1}).observe(0))
    check("outcome is None before the end", st.outcome() is None and not st.is_over())
    seat = st.to_act()[0]
    legal = st.legal(seat)
    other = 1 - seat
    check("a seat not asked has no legal actions", st.legal(other) == [])
    check("labels", g.label(taylor.DRAW) == "draw" and g.label(taylor.PLAY(19)) == "play 7D")
    check("an unknown code has no label", raises(ValueError, g.label, 99999) ==
          "taylor-blackjack has no action with code 99999")
    before = st.observe(seat)
    bad = next(c for c in range(52) if c not in legal)
    msg = raises(forward.IllegalAction, st.apply, bad)
    check("an illegal action: IllegalAction naming it, the state unchanged",
          msg and "seat %d: %d (play %s)" % (seat, bad, cards.label(bad)) in msg and
          st.observe(seat) == before, msg)
    check("actions for the wrong seat", "but the seats asked are [%d]" % seat in
          (raises(ValueError, st.apply, {other: legal[0]}) or ""))
    check("a seat out of range", raises(ValueError, st.legal, 12) ==
          "seat 12 is not a seat of this 2-seat match")
    copy = st.clone()
    st.apply(legal[-1])
    check("clone() is independent", copy.observe(seat) == before and st.observe(seat) != before)
    reuse = g.setup(2, 1, {"games": 1})
    st.clone(into=reuse)
    check("clone(into=) copies", reuse.observe(0) == st.observe(0))
    check("cloning across games is refused", "cannot copy a taylor-blackjack state into a bombs"
          in (raises(ValueError, st.clone, forward.game("bombs").setup(3, 1)) or ""))
    st.apply(st.legal(st.to_act()[0])[0])
    out = copy.playout(random.Random(3))
    check("a playout ends the match", copy.is_over() and out == copy.outcome() and
          sorted(out.places)[0] == 1 and out.scores == [u / 27720 for u in out.units], out)
    check("the match is over: apply refuses", raises(ValueError, copy.apply, 0) ==
          "the match is over")
    check("pairwise", forward.Outcome([2, 1, 1], [0, 0, 0], [1, 2, 2]).pairwise(0) == 1.0 and
          forward.Outcome([2, 1, 1], [0, 0, 0], [1, 2, 2]).pairwise(1) == 0.25)
    # sample: the round trip, and bad observations named
    obs = st.observe(st.to_act()[0])
    s2 = g.sample(obs, st.to_act()[0], 12345)
    check("sample(observe(s)) observes the same", s2.observe(st.to_act()[0]) == obs)
    check("sample of another seed can differ elsewhere",
          any(g.sample(obs, st.to_act()[0], k).observe(1 - st.to_act()[0]) !=
              st.observe(1 - st.to_act()[0]) for k in range(5)))
    broken = dict(obs)
    del broken["hand"]
    check("an observation without a field", raises(ValueError, g.sample, broken, 0, 1) ==
          "taylor-blackjack observation: no field 'hand'")
    broken = dict(obs, top=300)
    check("a value out of its type's range", "field 'top'" in
          (raises(ValueError, g.sample, broken, 0, 1) or ""))
    broken = dict(obs, pile=[1, 2])
    check("an array of the wrong length", raises(ValueError, g.sample, broken, 0, 1) ==
          "taylor-blackjack observation: field 'pile' needs a list of 104 values")
    broken = dict(obs, hand=[4] * 52)
    check("an observation no state could produce", "no state could produce this observation"
          in (raises(ValueError, g.sample, broken, obs["seat"], 1) or ""))
    # Joint decisions: Bombs' interrupt windows
    b = forward.game("bombs")
    st = b.setup(4, 3, {"hands": 1})
    rng = random.Random(1)
    joint = 0
    while not st.is_over() and not joint:
        seats = st.to_act()
        if len(seats) > 1:
            joint = 1
            check("a joint decision needs every asked seat",
                  "decide together" in (raises(ValueError, st.apply, st.legal(seats[0])[0]) or ""))
            check("a joint decision is its obs stage", st.observe(seats[0])["stage"] ==
                  bombs.STAGE_WINDOW)
        st.apply({s: rng.choice(st.legal(s)) for s in seats})
    check("bombs has a joint decision", joint == 1)
    # Card helpers against the library's ja_card_format / ja_card_parse
    clib = ctypes.CDLL(lib)
    clib.ja_card_format.argtypes = [ctypes.c_uint8, ctypes.c_char_p, ctypes.c_size_t]
    clib.ja_card_parse.argtypes = [ctypes.c_char_p]
    buf = ctypes.create_string_buffer(8)
    diff = []
    for c in range(256):
        rc = clib.ja_card_format(c, buf, 8)
        want = buf.value.decode() if rc == 0 else None
        try:
            got = cards.label(c)
        except ValueError:
            got = None
        if got != want:
            diff.append((c, got, want))
    labels = [cards.label(c) for c in range(54)] + ["7h", "10H", "10h", "xb", "T", "", "1H",
                                                    "AZ", "10", "TH2", "11H", "QS"]
    diff += [(t, cards.parse(t), clib.ja_card_parse(t.encode())) for t in labels
             if cards.parse(t) != clib.ja_card_parse(t.encode())]
    check("cards.label and cards.parse agree with ja_card_format and ja_card_parse", not diff, diff)


# ---- agree ---------------------------------------------------------------------

# (game, seats, options): each is one seeded tournament of `random` bots.
SETS = [
    ("taylor-blackjack", 2, ["games=1"]),
    ("taylor-blackjack", 3, ["games=1", "last_card=auto", "rebuild=shuffle"]),
    ("taylor-blackjack", 6, ["games=1", "decks=2", "turn_cap=200"]),
    ("brawljack", 2, []),
    ("brawljack", 3, ["dealer=on", "hands=3"]),
    ("brawljack", 5, ["dealer=on", "dealer_control=auto", "hands=2", "blind_rounds=2"]),
    ("bruise-jack", 2, []),
    ("bruise-jack", 3, ["way=2", "guile=on", "hands=3"]),
    ("bruise-jack", 4, ["ties=replay", "guile=on", "hands=2"]),
    ("jack-in-the-box", 2, []),
    ("jack-in-the-box", 3, ["variant=v1"]),
    ("jack-in-the-box", 4, ["variant=v2", "teams=on", "games=2"]),
    ("jack-in-the-box", 4, ["variant=v3"]),
    ("bombs", 3, ["hands=2"]),
    ("bombs", 4, ["hands=2", "out_of_turn=off"]),
    ("bombs", 5, ["hands=1", "interrupt_after_pass=on"]),
    ("bombs", 8, ["hands=2", "tiebreak_hands=1"]),
]


def play(arena, game, seats, opts, matches, seed, work):
    """Plays about `matches` matches; (replay paths, export records by match id)."""
    name = "%s-%d-%d" % (game, seats, seed)
    rounds = -(-matches // seats)
    bots = ",".join(["random"] * seats)
    cmd = [arena, "tournament", game, "--bots", bots, "--seats", str(seats), "--rounds",
           str(rounds), "--seed", str(seed), "--db", os.path.join(work, name + ".db"),
           "--replays", os.path.join(work, name), "--export-decisions",
           os.path.join(work, name + ".mp"), "--jobs", "2", "-q"]
    for o in opts:
        cmd += ["--opt", o]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    exported = collections.defaultdict(dict)
    with open(os.path.join(work, name + ".mp"), "rb") as f:
        for rec in msgpack.Unpacker(f, raw=False):
            if rec["type"] == "match":
                current = rec["match_id"]
                exported[current]["match"] = rec
            else:
                exported[current][(rec["step"], rec["seat"])] = rec
    return sorted(glob.glob(os.path.join(work, name, "*.rpl"))), exported


def replay_in_python(forward, path, exported, rng):
    """Re-plays one replay in Python; None when it agrees, else what differs."""
    with open(path, "rb") as f:
        recs = list(msgpack.Unpacker(f, raw=False))
    head, decisions, end = recs[0], [r for r in recs if r.get("t") == "d"], recs[-1]
    g = forward.game(head["game"])
    st = g.setup(head["seats"], int(head["seed"]), head["options"])
    mine = exported.get(head["match"], {})
    used = 0
    for d in decisions:
        asked = [e["s"] for e in d["asked"]]
        if st.to_act() != asked:
            return "step %d: Python asks %s, the replay %s" % (d["n"], st.to_act(), asked)
        for e in d["asked"]:
            legal = st.legal(e["s"])
            if len(legal) != e["n"] or e["c"] not in legal:
                return "step %d seat %d: %d legal actions, replay %d (code %d)" % (
                    d["n"], e["s"], len(legal), e["n"], e["c"])
            rec = mine.get((d["n"], e["s"]))
            if rec is None:
                if e["n"] != 1:
                    return "step %d seat %d: a decision with %d choices was not exported" % (
                        d["n"], e["s"], e["n"])
                continue
            used += 1
            if legal != rec["legal"]:
                return "step %d seat %d: legal %s, sent %s" % (d["n"], e["s"], legal, rec["legal"])
            if [g.label(c) for c in legal] != rec["labels"]:
                return "step %d seat %d: labels differ" % (d["n"], e["s"])
            obs = st.observe(e["s"])
            if obs != rec["obs"]:
                diff = [k for k in obs if obs[k] != rec["obs"].get(k)]
                return "step %d seat %d: observation differs in %s" % (d["n"], e["s"], diff)
            if g.sample(rec["obs"], e["s"], rng.getrandbits(64)).observe(e["s"]) != rec["obs"]:
                return "step %d seat %d: sample/observe does not round-trip" % (d["n"], e["s"])
        st.apply({e["s"]: e["c"] for e in d["asked"]})
    if used != len(mine) - 1:
        return "%d exported decisions, %d met" % (len(mine) - 1, used)
    o = st.outcome()
    if o is None:
        return "the match is not over after the replay's decisions"
    if o.units != end["scores"] or o.places != end["places"]:
        return "outcome %s, replay %s %s" % (o, end["scores"], end["places"])
    m = mine.get("match")
    if m and (m["outcome"]["places"] != o.places):
        return "the export's places differ"
    return None


def agree(arena, lib, per_game):
    from jackarena import forward
    forward.load(lib)
    rng = random.Random(7)
    per_set = collections.Counter(game for game, _, _ in SETS)
    with tempfile.TemporaryDirectory() as work:
        for i, (game, seats, opts) in enumerate(SETS):
            n = -(-per_game // per_set[game])
            paths, exported = play(arena, game, seats, opts, n, 100 + i, work)
            problems = []
            steps = 0
            for p in paths:
                why = replay_in_python(forward, p, exported, rng)
                if why:
                    problems.append("%s: %s" % (os.path.basename(p), why))
                steps += 1
            check("%s, %d seats %s: %d matches re-played in Python agree with the engine" % (
                game, seats, " ".join(opts) or "(defaults)", len(paths)),
                paths and not problems, problems[:3])
            print("%s %d seats %s: %d matches" % (game, seats, " ".join(opts), len(paths)))


def main():
    mode = sys.argv[1]
    with tempfile.TemporaryDirectory() as work:
        if mode == "api":
            cc, lib = sys.argv[2], os.path.abspath(sys.argv[3])
            test_layout(cc, work)
            test_lookup(cc, lib, work)
            test_api(lib)
        elif mode == "agree":
            agree(os.path.abspath(sys.argv[2]), os.path.abspath(sys.argv[3]), int(sys.argv[4]))
        else:
            raise SystemExit("test_forward.py: unknown mode '%s'" % mode)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
