#!/usr/bin/python3
"""Every game at its fewest and its most seats, end to end.

For each game `arena games --json` lists, at its min_seats and its max_seats
(Bombs at 20: four tables), with `random` in every seat:
  - `arena tournament` records the matches into a ladder (one round of N
    bots at N seats: N matches, one per rotation, with --seating cyclic;
    with --long, balanced seating: N matches per seat order, N-1 orders
    for odd N, N for even N, 1 for N = 2), with a replay each; the
    largest games run on two jobs, so their results cross the worker
    messages;
  - `arena ladder GAME --seats N` (live Elo) and `--fit` list every bot with
    the right number of games;
  - `ladder export --jsonl` has one line per match with N seats, places in
    1..N and the stored digests; `ladder import` of it into a fresh database
    and a second export give the same matches; `--pgn` has one game per
    pair of seats per match, and at 2 seats imports back;
  - `arena replay verify` verifies every replay, with the digest the ladder
    stored;
  - `arena report` writes a page naming every ladder (its replay pages are
    left out: the replays are removed first).

Options: every INT option named `games` or `hands` at its minimum, so that
a match is short (a game without such an option plays its defaults); with
--long, the defaults and two rounds of cyclic seating at 2 seats, one
round of balanced seating beyond.

usage: test_seat_counts.py ARENA [--long]
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

ARENA = sys.argv[1]
LONG = "--long" in sys.argv[2:]
SEED = 20
failures = []


def run(*args, ok=True):
    p = subprocess.run([ARENA, *args], capture_output=True, text=True)
    if ok and p.returncode != 0:
        raise AssertionError("arena %s: exit %d: %s" % (" ".join(args), p.returncode,
                                                         p.stderr.strip()))
    return p


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def short_options(game):
    if LONG:
        return []
    opts = []
    for o in game["options"]:
        if o["kind"] == "int" and o["name"] in ("games", "hands"):
            opts += ["--opt", "%s=%d" % (o["name"], o["min"])]
    return opts


def one(work, game, n):
    name = game["name"]
    tag = "%s at %d seats" % (name, n)
    db = os.path.join(work, "arena.db")
    replays = os.path.join(work, "replays-%s-%d" % (name, n))
    opts = short_options(game)
    balanced = LONG and n > 2
    rounds = 2 if LONG and not balanced else 1
    orders = (n - 1 if n % 2 else n) if balanced else 1
    jobs = "2" if n == game["max_seats"] and n > game["min_seats"] else "1"
    bots = ",".join(["random"] * n)
    t = json.loads(run("tournament", name, "--bots", bots, "--seats", str(n), "--rounds",
                       str(rounds), "--seed", str(SEED + n), "--db", db, "--replays", replays,
                       "--jobs", jobs, "--seating", "balanced" if balanced else "cyclic",
                       "--json", *opts).stdout)
    matches = n * orders * rounds
    check(t["seats"] == n and t["seating"] == ("balanced" if balanced else "cyclic") and
          t["planned"] == matches and t["matches"] == matches,
          tag + ": %s of %s matches played" % (t["matches"], t["planned"]))
    sel = ["--seats", str(n), "--db", db, *opts]

    lad = json.loads(run("ladder", name, *sel, "--json").stdout)
    check(lad["seats"] == n, tag + ": ladder seats")
    check(len(lad["ratings"]) == n, tag + ": %d bots in the live ladder" % len(lad["ratings"]))
    check(all(r["games"] == matches for r in lad["ratings"]),
          tag + ": every bot played %d matches" % matches)
    fit = json.loads(run("ladder", name, *sel, "--fit", "--json").stdout)
    check(fit["seats"] == n and fit["matches"] == matches, tag + ": the fit's matches")
    check(len(fit["ratings"]) == n, tag + ": %d bots in the fit" % len(fit["ratings"]))

    jl = os.path.join(work, "%s-%d.jsonl" % (name, n))
    run("ladder", "export", name, "--jsonl", *sel, "-o", jl)
    lines = [json.loads(x) for x in open(jl)]
    check(len(lines) == matches, tag + ": %d exported matches" % len(lines))
    for m in lines:
        places = sorted(s["place"] for s in m["seats"])
        if len(m["seats"]) != n or places[0] != 1 or places[-1] > n:
            check(False, tag + ": exported match %s: %d seats, places %s" %
                  (m["match"], len(m["seats"]), places))
            break
    if name == "bombs" and n == game["max_seats"]:
        check(lines[0]["options"]["tables"] == "4", tag + ": four tables")
    other = os.path.join(work, "imported-%s-%d.db" % (name, n))
    run("ladder", "import", jl, "--db", other)
    jl2 = jl + ".again"
    run("ladder", "export", name, "--jsonl", "--seats", str(n), "--db", other, *opts, "-o", jl2)
    again = [json.loads(x) for x in open(jl2)]
    strip = lambda ms: [{k: v for k, v in m.items() if k != "tournament"} for m in ms]
    check(strip(again) == strip(lines), tag + ": JSON Lines export, import, export")

    pgn = os.path.join(work, "%s-%d.pgn" % (name, n))
    run("ladder", "export", name, "--pgn", *sel, "-o", pgn)
    games = sum(1 for x in open(pgn) if x.startswith("[Result "))
    check(games == matches * n * (n - 1) // 2, tag + ": %d PGN games" % games)
    if n == 2:
        pdb = os.path.join(work, "pgn-%s.db" % name)
        run("ladder", "import", pgn, "--game", name, "--db", pdb)
        back = json.loads(run("ladder", name, "--seats", "2", "--db", pdb, *opts,
                              "--json").stdout)
        check(sum(r["games"] for r in back["ratings"]) == 2 * matches,
              tag + ": PGN import")

    files = sorted(os.listdir(replays))
    check(len(files) == matches, tag + ": %d replays" % len(files))
    digests = set()
    for f in files:
        p = run("replay", "verify", os.path.join(replays, f), "--json", ok=False)
        v = json.loads(p.stdout) if p.stdout else {}
        if p.returncode != 0 or not v.get("ok"):
            check(False, tag + ": replay %s: %s" % (f, p.stderr.strip() or v))
            continue
        digests.add(v["digest"])
    check(digests == {m["digest"] for m in lines}, tag + ": replay digests = stored digests")


def main():
    games = json.loads(run("games", "--json").stdout)
    work = tempfile.mkdtemp(prefix="ja-seats-")
    try:
        for g in games:
            for n in sorted({g["min_seats"], g["max_seats"]}):
                try:
                    one(work, g, n)
                except (AssertionError, ValueError, KeyError) as e:
                    check(False, "%s at %d seats: %s" % (g["name"], n, e))
        # The report without the replay pages (a page of a 20-seat replay
        # holds every seat's view of every decision: megabytes, seconds).
        for d in os.listdir(work):
            if d.startswith("replays-"):
                shutil.rmtree(os.path.join(work, d))
        site = os.path.join(work, "site")
        run("report", "--db", os.path.join(work, "arena.db"), "-o", site)
        page = open(os.path.join(site, "index.html")).read()
        for g in games:
            for n in sorted({g["min_seats"], g["max_seats"]}):
                check("<h2>%s, %d seats &middot;" % (g["title"], n) in page,
                      "report: %s at %d seats" % (g["name"], n))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("%d games at their fewest and most seats: %s" %
          (len(games), "ok" if not failures else "%d failures" % len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
