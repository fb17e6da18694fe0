#!/usr/bin/env python3
"""The Plackett-Luce fit of `arena ladder --fit --model plackett-luce`
checked against an independent implementation (docs/ratings.md, "Model").

The data: 8 bots of known strengths, 4 seats, 160 deals of 2 matches each
(other seats), orders drawn from Plackett-Luce with some adjacent places
tied, and 20 of the matches played again in another imported tournament
(replays: same seed and seating, sometimes another result), imported as
JSON Lines. The arena's fit (Newton-Raphson, analytic derivatives, one
bot's theta held at 0, re-anchored) is compared with this one, written
from the model's definition and structured otherwise:

  - the likelihood as a matrix: every Efron denominator of every match is a
    row of A (the weights of the bots' strengths g = e^theta in it), so
    log L = c . theta - sum_r v_r log (A g)_r, with c the weighted counts of
    places taken and v the matches' weights (1/r for r replays);
  - the estimate by Hunter's MM algorithm (D. R. Hunter, Annals of
    Statistics 32(1), 2004, section 5): g_i <- c_i / sum_r v_r A_ri / (A g)_r;
  - the information by central finite differences of the gradient;
  - the covariance of the centred ratings with pseudo-inverses,
    H^+ B H^+, B = G/(G-1) sum over deals of u u^T.

Estimates must agree to 1e-5 Elo (the JSON has 10 significant digits, so
1e-6 at 1700) and standard errors to 1e-6 relative.
Usage: test_pl_reference.py ARENA"""
import json
import math
import os
import subprocess
import sys
import tempfile

import numpy as np

ARENA = sys.argv[1]
ELO = 400.0 / math.log(10.0)
BOTS = 8
SEATS = 4
TRUE = np.linspace(-300.0, 300.0, BOTS) / ELO


def draw_order(rng, players):
    """A finishing order of `players` (best first) from Plackett-Luce."""
    left, order = list(players), []
    while left:
        g = np.exp(TRUE[left])
        k = rng.choice(len(left), p=g / g.sum())
        order.append(left.pop(k))
    return order


def scores_of(rng, order):
    """Points by place, adjacent places tied now and then: seat -> score."""
    pts, s = {}, 10 * len(order)
    for i, p in enumerate(order):
        if i > 0 and rng.random() >= 0.2:
            s -= 10
        pts[p] = s
    return pts


def make_data(rng):
    """(matches, lines): matches as (deal, seating, places), lines JSONL."""
    matches, lines = [], []
    for deal in range(160):
        bots = [int(b) for b in rng.choice(BOTS, SEATS, replace=False)]
        for rot in range(2):
            seating = bots[rot:] + bots[:rot]
            matches.append((deal, seating, scores_of(rng, draw_order(rng, seating))))
    for k in range(0, 40, 2):  # 20 replays, some with another result
        deal, seating, pts = matches[k]
        if k % 4 == 0:
            pts = scores_of(rng, draw_order(rng, seating))
        matches.append((deal, seating, pts))
    for i, (deal, seating, pts) in enumerate(matches):
        lines.append(json.dumps({
            "game": "taylor-blackjack", "seed": str(1000 + deal),
            "tournament": "replay" if i >= 320 else "main",
            "seats": [{"bot": "b%d" % p, "version": "1", "score": pts[p]} for p in seating]}))
    return matches, lines


def places(seating, pts):
    """Competition ranking of the seats by score (1, 1, 3)."""
    return [1 + sum(pts[q] > pts[p] for q in seating) for p in seating]


def design(matches):
    """Rows of A, their weights v, deal of each row; counts c per deal."""
    key = {}
    for deal, seating, _ in matches:
        key[(deal, tuple(seating))] = key.get((deal, tuple(seating)), 0) + 1
    rows, v, row_deal = [], [], []
    c = np.zeros((160, BOTS))
    for deal, seating, pts in matches:
        w = 1.0 / key[(deal, tuple(seating))]
        pl = places(seating, pts)
        order = sorted(range(SEATS), key=lambda s: pl[s])
        a = 0
        while a < SEATS:
            b = a
            while b < SEATS and pl[order[b]] == pl[order[a]]:
                b += 1
            if a + 1 == SEATS:
                break
            d = b - a
            for s in order[a:b]:
                c[deal, seating[s]] += w
            for l in range(d):
                row = np.zeros(BOTS)
                for j in range(a, SEATS):
                    row[seating[order[j]]] += (1.0 - l / d) if j < b else 1.0
                rows.append(row)
                v.append(w)
                row_deal.append(deal)
            a = b
    return np.array(rows), np.array(v), np.array(row_deal), c


def gradient(theta, A, v, c):
    g = np.exp(theta)
    return c - g * (A.T @ (v / (A @ g)))


def fit(A, v, c):
    ctot = c.sum(axis=0)
    g = np.ones(BOTS)
    for it in range(1000000):
        g = ctot / (A.T @ (v / (A @ g)))
        g /= math.exp(np.log(g).mean())
        # MM's steps shrink linearly: stop on the gradient, not the step.
        if it % 100 == 99 and np.abs(gradient(np.log(g), A, v, ctot)).max() < 1e-11:
            return np.log(g)
    raise SystemExit("MM did not converge")


def covariance(theta, A, v, row_deal, c):
    ctot = c.sum(axis=0)
    h = 1e-5
    H = np.zeros((BOTS, BOTS))
    for i in range(BOTS):
        e = np.zeros(BOTS)
        e[i] = h
        H[:, i] = -(gradient(theta + e, A, v, ctot) - gradient(theta - e, A, v, ctot)) / (2 * h)
    H = (H + H.T) / 2
    deals = sorted(set(row_deal.tolist()))
    B = np.zeros((BOTS, BOTS))
    for d in deals:
        sel = row_deal == d
        u = gradient(theta, A[sel], v[sel], c[d])
        B += np.outer(u, u)
    G = len(deals)
    B *= G / (G - 1)
    # H has the null space of the constant vector (a common shift of every
    # theta changes nothing), P its projector: (H + P)^-1 - P is H's
    # pseudo-inverse, without pinv's rank decision on a finite difference.
    P = np.full((BOTS, BOTS), 1.0 / BOTS)
    Hp = np.linalg.inv(H + P) - P
    return Hp @ B @ Hp


def main():
    rng = np.random.default_rng(20240507)
    matches, lines = make_data(rng)
    A, v, row_deal, c = design(matches)
    theta = fit(A, v, c)
    V = covariance(theta, A, v, row_deal, c)
    want_elo = 1500.0 + ELO * (theta - theta.mean())
    want_se = ELO * np.sqrt(np.diag(V))
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "pl.jsonl")
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        db = os.path.join(tmp, "pl.db")
        subprocess.run([ARENA, "ladder", "import", path, "--db", db], check=True,
                       stdout=subprocess.DEVNULL)
        out = subprocess.run([ARENA, "ladder", "taylor-blackjack", "--db", db, "--seats", "4",
                              "--fit", "--model", "plackett-luce", "--json"],
                             check=True, capture_output=True, text=True).stdout
        bt = subprocess.run([ARENA, "ladder", "taylor-blackjack", "--db", db, "--seats", "4",
                             "--fit", "--model", "bradley-terry", "--json"],
                            check=True, capture_output=True, text=True).stdout
    got, got_bt = json.loads(out), json.loads(bt)
    assert got["method"] == "plackett-luce" and got_bt["method"] == "bradley-terry", got
    assert got["matches"] == 340 and got["clusters"] == 160, got
    assert got["replays"]["matches"] == 20 and got["replays"]["merged"] == 20, got["replays"]
    assert got["covariance"] == "sandwich" and got["parts"][0]["converged"], got
    worst_elo = worst_se = 0.0
    for r in got["ratings"]:
        i = int(r["bot"][1:])
        assert r["status"] == "rated", r
        worst_elo = max(worst_elo, abs(r["elo"] - want_elo[i]))
        worst_se = max(worst_se, abs(r["se"] - want_se[i]) / want_se[i])
    bt_gap = max(abs(r["elo"] - want_elo[int(r["bot"][1:])]) for r in got_bt["ratings"])
    print("largest differences: elo %.2e, se %.2e (relative); Bradley-Terry's elo %.2f away"
          % (worst_elo, worst_se, bt_gap))
    assert worst_elo < 1e-5, worst_elo
    assert worst_se < 1e-6, worst_se
    # The reference is sharp enough to tell the models apart.
    assert bt_gap > 1.0, bt_gap
    print("ok")


if __name__ == "__main__":
    main()
