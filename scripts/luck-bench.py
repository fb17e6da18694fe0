#!/usr/bin/env python3
"""The luck adjustment's benchmark (docs/ratings.md, "Luck-adjusted
results"): per game, a duplicate tournament of the random and greedy
reference bots (`arena tournament GAME --bots random,greedy --duplicate`;
Bombs, 3 seats at least: random,greedy,random), every replay adjusted by
`arena replay adjust --json`, and per match the score difference greedy -
random (Bombs: greedy - the randoms' mean), raw and adjusted, compared:

  - per match: standard deviation raw and adjusted, and the ratio of their
    variances (the matches the adjusted score needs for the same interval
    width, as a fraction of the raw score's);
  - duplicate: the same over the mean of each deal's matches (its seat
    rotations), which is what duplicate deals give;
  - the means raw and adjusted with their 95% intervals (over deals), which
    must agree (the adjustment is unbiased);
  - the cost of the adjustment per match (CPU ms of `replay adjust`, its
    process's CPU time: wall time means little on a loaded machine).

Usage: luck-bench.py ARENA [--deals N] [--rollouts R] [--samples K]
                       [--policy P] [--horizon H] [--games G,G] [--jobs J]
                       [--terms LIST] [--seed S] [--work DIR]
Prints one Markdown table row per game."""
import argparse
import collections
import concurrent.futures
import json
import math
import os
import subprocess
import sys
import tempfile

import msgpack

GAMES = ["taylor-blackjack", "brawljack", "bruise-jack", "jack-in-the-box", "bombs"]


def play(arena, game, deals, seed, work):
    """The tournament's replays (a directory of them; those of an earlier
    run in the same --work are reused, so that settings compare on the same
    matches)."""
    bots = "random,greedy,random" if game == "bombs" else "random,greedy"
    out = os.path.join(work, game)
    if os.path.isdir(out):  # played before in this --work: adjusted again
        return sorted(os.path.join(out, f) for f in os.listdir(out) if f.endswith(".rpl"))
    os.makedirs(work, exist_ok=True)
    # Bombs at 3 seats plays 6 orders of a deal (balanced seating); the
    # others 2 rotations: about `deals` deals either way.
    subprocess.run([arena, "tournament", game, "--bots", bots, "--duplicate", "--rounds",
                    str(deals), "--seed", str(seed), "--db", out + ".db", "--replays", out,
                    "-q"], check=True, stdout=subprocess.DEVNULL)
    return sorted(os.path.join(out, f) for f in os.listdir(out) if f.endswith(".rpl"))


def adjust(arena, files, args):
    """Every replay's `replay adjust --json` object, in `jobs` processes."""
    flags = ["--json", "--rollouts", str(args.rollouts), "--samples", str(args.samples),
             "--policy", args.policy, "--horizon", args.horizon]
    if args.terms:
        flags += ["--terms", args.terms]
    chunks = [files[i::args.jobs] for i in range(args.jobs)]

    def run(chunk):
        if not chunk:
            return []
        p = subprocess.run([arena, "replay", "adjust", *flags, *chunk], check=True,
                           capture_output=True, text=True)
        return [json.loads(line) for line in p.stdout.splitlines()]

    with concurrent.futures.ThreadPoolExecutor(args.jobs) as ex:
        return [row for rows in ex.map(run, chunks) for row in rows]


def header(path):
    with open(path, "rb") as f:
        return next(msgpack.Unpacker(f, raw=False))


def diffs(rows):
    """Per match (raw, adjusted) greedy - random, grouped by deal (seed)."""
    deals = collections.defaultdict(list)
    for row in rows:
        h = header(row["file"])
        names = [p["name"] for p in h["players"]]
        g = names.index("greedy")
        others = [i for i in range(len(names)) if i != g]
        seats = row["seats"]
        d = tuple(seats[g][k] - sum(seats[i][k] for i in others) / len(others)
                  for k in ("raw", "adjusted"))
        deals[h["seed"]].append(d)
    return deals


def sd(xs):
    m = sum(xs) / len(xs)
    return math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))


def interval(xs):
    m = sum(xs) / len(xs)
    return "%.2f ± %.2f" % (m, 1.96 * sd(xs) / math.sqrt(len(xs)))


def row_of(game, rows):
    deals = diffs(rows)
    match = [d for ds in deals.values() for d in ds]
    dup = [tuple(sum(d[k] for d in ds) / len(ds) for k in (0, 1)) for ds in deals.values()]
    raw_m, adj_m = [d[0] for d in match], [d[1] for d in match]
    raw_d, adj_d = [d[0] for d in dup], [d[1] for d in dup]
    ms = sum(r["cpu_ms"] for r in rows) / len(rows)
    ratio = (sd(adj_m) / sd(raw_m)) ** 2
    ratio_d = (sd(adj_d) / sd(raw_d)) ** 2
    return ("| %s | %d | %d | %.3f | %.3f | %.2f | %.3f | %.3f | %.2f | %s | %s | %.0f |" %
            (game, len(match), len(dup), sd(raw_m), sd(adj_m), ratio, sd(raw_d), sd(adj_d),
             ratio_d, interval(raw_d), interval(adj_d), ms))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("arena")
    ap.add_argument("--deals", type=int, default=60)
    ap.add_argument("--rollouts", type=int, default=32)
    ap.add_argument("--samples", type=int, default=8)
    ap.add_argument("--policy", default="players")
    ap.add_argument("--horizon", default="deal")
    ap.add_argument("--games", default=",".join(GAMES))
    ap.add_argument("--terms", help="the kinds of term taken (replay adjust --terms)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=44)
    ap.add_argument("--work")
    args = ap.parse_args()
    work = args.work or tempfile.mkdtemp(prefix="luck-bench-")
    print("| game | matches | deals | sd raw | sd adj | var ratio | dup sd raw | dup sd adj "
          "| dup var ratio | mean raw (dup) | mean adj (dup) | CPU ms/match |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for game in args.games.split(","):
        files = play(args.arena, game, args.deals, args.seed, work)
        print(row_of(game, adjust(args.arena, files, args)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
