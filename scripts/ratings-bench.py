#!/usr/bin/env python3
"""The rating models' prediction benchmark (docs/ratings.md, "Choosing the
model"): `arena ladder --cross-validate` on simulated ladders of known
strengths and on real ladders of every game played by the reference bots,
printed as the Markdown tables the document quotes.

Simulated ladders (imported as JSON Lines, one match a deal; the game named
is a label only): 8 bots 100 Elo apart, each scenario replicated with
different seeds; orders drawn from
  - pl:        Plackett-Luce (an exponential race: the model of PL, whose
               pairs are exactly Bradley-Terry),
  - pl-ties:   the same, then each place tied with the one above it with
               probability 0.2,
  - thurstone: normal performances, sd chosen so that a 100 Elo gap wins
               64% of pairs as in the logistic model: neither model's own.
Real ladders: `arena tournament GAME --bots random,greedy,ismcts:iters=25,
ismcts:iters=100 --duplicate --seating cyclic --rounds 15 --opt ...` (see
GAMES) at 2 seats (where the game allows it) and at 3: about 10 minutes of
CPU in a Release build. Cyclic seating (3 rotations of a combination, not
balanced seating's 6 orders at 3 seats) keeps the CPU time, and the
tables docs/ratings.md quotes, as they were made.

Usage: ratings-bench.py ARENA [--quick] [--work DIR]
  --quick   tiny sizes (a smoke test of the script, not a measurement)
  --work    keep the databases in DIR (default: a temporary directory)"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile

import numpy as np

# Every game. Matches are short (one game or hand; two hands of Bombs) so
# that the ladders have many deals for their CPU time (ISMCTS's rollouts
# play to the end of the match, so its cost grows with the square of the
# match's length); Taylor Blackjack, the cheapest, with its default options
# too.
GAMES = [("taylor-blackjack", None), ("taylor-blackjack", "games=1"), ("brawljack", "hands=1"),
         ("bruise-jack", "hands=1"), ("jack-in-the-box", "games=1"), ("bombs", "hands=2")]
ELO = 400.0 / math.log(10.0)


def order_of(rng, kind, strengths):
    """Places (1 = best, competition ranking) of the seats' strengths."""
    n = len(strengths)
    if kind == "thurstone":
        # P(i beats j) = Phi((Ri - Rj) / (s sqrt 2)); s matches the logistic
        # at a 100 Elo gap (0.640065): s = 100 / (sqrt 2 * 0.358459).
        perf = np.asarray(strengths) + rng.normal(0.0, 100.0 / (math.sqrt(2) * 0.358459), n)
        order = list(np.argsort(-perf))
    else:
        # Exponential race: T_i ~ Exp(g_i), g_i = 10^(R_i/400).
        t = rng.exponential(1.0, n) / np.power(10.0, np.asarray(strengths) / 400.0)
        order = list(np.argsort(t))
    places, place = [0] * n, 1
    for k, s in enumerate(order):
        if k > 0 and not (kind == "pl-ties" and rng.random() < 0.2):
            place = k + 1
        places[s] = place
    return places


def simulate(kind, seats, deals, seed):
    rng = np.random.default_rng(seed)
    bots = 8
    elo = [100.0 * b for b in range(bots)]
    lines = []
    for d in range(deals):
        who = [int(b) for b in rng.choice(bots, seats, replace=False)]
        pl = order_of(rng, kind, [elo[b] for b in who])
        lines.append(json.dumps({
            "game": "taylor-blackjack", "seed": str(d + 1),
            "seats": [{"bot": "s%d" % b, "version": "1", "place": p} for b, p in zip(who, pl)]}))
    return "\n".join(lines) + "\n"


def arena(*args):
    return subprocess.run([ARENA, *args], check=True, capture_output=True, text=True).stdout


def cross_validate(db, game, seats, opt=None):
    more = ["--opt", opt] if opt else []
    return json.loads(arena("ladder", game, "--db", db, "--seats", str(seats), *more,
                            "--cross-validate", "--json"))


def tie_share(db, game, seats, opt):
    """The share of the ladder's matches with two seats sharing a place."""
    more = ["--opt", opt] if opt else []
    lines = arena("ladder", "export", game, "--jsonl", "--db", db, "--seats", str(seats),
                  *more).splitlines()
    tied = 0
    for l in lines:
        places = [s["place"] for s in json.loads(l)["seats"]]
        tied += len(set(places)) < len(places)
    return tied / len(lines)


def row(cv):
    bt, pl = cv["models"]["bradley-terry"], cv["models"]["plackett-luce"]
    g = cv["plackett_luce_gain"]
    return {"matches": cv["matches"], "deals": cv["clusters"], "scored": cv["scored"],
            "equal": cv["equal"]["order_logloss"], "bt": bt["order_logloss"],
            "pl": pl["order_logloss"], "gain": g["order"], "gain_se": g["order_se"],
            "bt_pair": bt["pair_logloss"], "pl_pair": pl["pair_logloss"],
            "pair_gain": g["pair"], "pair_gain_se": g["pair_se"],
            "bt_top1": bt["top1"], "pl_top1": pl["top1"]}


HEAD = ("| {what} | matches | ties | order log-loss: equal / BT / PL | PL's gain (se) | "
        "pairwise: BT / PL | PL's pairwise gain (se) | top-1: BT / PL |\n"
        "| --- | --- | --- | --- | --- | --- | --- | --- |")


class Num(float):
    """A number that prints "-" for none (null in the JSON: nothing scored,
    or a standard error of one deal)."""

    def __format__(self, spec):
        return "-" if math.isnan(self) else float.__format__(self, spec)


def line(name, r):
    r = {k: Num("nan" if v is None else v) if k != "matches" else v for k, v in r.items()}
    return ("| {} | {} | {:.0f}% | {:.4f} / {:.4f} / {:.4f} | {:+.4f} ({:.4f}) | {:.4f} / {:.4f} "
            "| {:+.4f} ({:.4f}) | {:.3f} / {:.3f} |").format(
                name, r["matches"], 100 * r["ties"], r["equal"], r["bt"], r["pl"], r["gain"],
                r["gain_se"], r["bt_pair"], r["pl_pair"], r["pair_gain"], r["pair_gain_se"],
                r["bt_top1"], r["pl_top1"])


def simulated(work, quick):
    reps, deals = (2, 40) if quick else (20, 150)
    print(HEAD.format(what="simulated (%d replicas, 8 bots)" % reps))
    for kind, seats in (("pl", 2), ("pl", 4), ("pl", 6), ("pl-ties", 4), ("thurstone", 4)):
        rows = []
        for rep in range(reps):
            path = os.path.join(work, "sim-%s-%d-%d" % (kind, seats, rep))
            with open(path + ".jsonl", "w") as f:
                f.write(simulate(kind, seats, deals, 1000 * seats + rep))
            arena("ladder", "import", path + ".jsonl", "--db", path + ".db")
            rows.append(row(cross_validate(path + ".db", "taylor-blackjack", seats)))
            rows[-1]["ties"] = tie_share(path + ".db", "taylor-blackjack", seats, None)
        mean = {k: float(np.mean([r[k] for r in rows])) for k in rows[0]}
        # Across replicas: the gains' own spread, not the within-ladder se.
        for k in ("gain", "pair_gain"):
            mean[k + "_se"] = float(np.std([r[k] for r in rows], ddof=1) / math.sqrt(reps))
        mean["matches"] = "%d x %d" % (reps, deals)
        print(line("%s, %d seats" % (kind, seats), mean))


def real(work, quick):
    iters, rounds = ((5, 10), 1) if quick else ((25, 100), 15)
    bots = "random,greedy,ismcts:iters=%d,ismcts:iters=%d" % iters
    print()
    print(HEAD.format(what="real: %s, `--duplicate --seating cyclic`, %d rounds"
                      % (bots, rounds)))
    sys.stdout.flush()
    db = os.path.join(work, "real.db")
    gains = []
    for game, opt in GAMES:
        for seats in (2, 3):
            if game == "bombs" and seats == 2:
                continue
            more = ["--opt", opt] if opt else []
            arena("tournament", game, "--bots", bots, "--seats", str(seats), "--rounds",
                  str(rounds), "--duplicate", "--seating", "cyclic", *more, "--seed", "42",
                  "--db", db, "-q", "--json")
            r = row(cross_validate(db, game, seats, opt))
            r["ties"] = tie_share(db, game, seats, opt)
            if r["gain"] is not None and r["gain_se"] is not None:
                gains.append((r["gain"], r["gain_se"]))
            print(line("%s%s, %d seats" % (game, " " + opt if opt else "", seats), r))
            sys.stdout.flush()
    print()
    print("PL's order gain: mean %+.4f over %d ladders; above its standard error in %d, "
          "below minus it in %d" % (float(np.mean([g for g, _ in gains])), len(gains),
                                    sum(g > se for g, se in gains), sum(g < -se for g, se in gains)))


def main():
    global ARENA
    ap = argparse.ArgumentParser()
    ap.add_argument("arena")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--work")
    a = ap.parse_args()
    ARENA = os.path.abspath(a.arena)
    with tempfile.TemporaryDirectory() as tmp:
        work = a.work or tmp
        os.makedirs(work, exist_ok=True)
        simulated(work, a.quick)
        sys.stdout.flush()
        real(work, a.quick)


if __name__ == "__main__":
    main()
