#!/usr/bin/python3
"""A heuristic bot for Bombs: the Python counterpart of the `greedy` reference
bot's Bombs heuristic (bots/greedy/greedy_bombs.c; docs/python.md, "Examples").

    PYTHONPATH=sdk/python arena play bombs random random random \
        "cmd:/usr/bin/python3 sdk/python/examples/greedy_bombs.py"

It reads its hand from the observation (`hand`, one flag per card identity;
`jackarena.games.bombs` for the ranks, forms and action codes) and weighs
every choice by the cost of the hand it would keep. The hand is split
greedily into plays (the super bomb, bombs, double runs, runs, then pairs and
singles), each play costing what it takes to get rid of it: about 1 for a low
single or pair, less for a high one (it is likely to win its trick), less
for a run (many cards in one go); a bomb is an asset (it beats anything, at
any time). Then:

- on the lead it plays the combination that leaves the cheapest hand, a
  little better for every card shed;
- in turn it plays the beating play that lowers its cost enough, else
  passes; it spends a bomb only to go out, or against an opponent who owns
  the top play and holds 3 cards or fewer;
- in an interrupt window it completes a bomb with a low pair, and bombs out
  of turn only against such an opponent;
- any play that empties its hand is taken at once;
- in the exchange it revolts, accepts, requests the rank that lowers its
  cost most and returns the card whose loss costs least.

Ties go to the lowest action code. No randomness: the same match, the same
choices.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import jackarena  # noqa: E402
from jackarena.games import bombs, cards  # noqa: E402

# What a single or pair of each rank (3 .. A, 2, the jokers) saves: the
# higher it is, the likelier it wins its trick.
CONTROL = [0, 0, 0, 0, 0, 0, 0, 0, 0.1, 0.2, 0.3, 0.45, 0.7, 0.85, 0.95]
SINGLE = 1.0          # a single or pair
RUN, RUN_LONG = 0.8, 0.05  # a run of 3; minus this per card past 3
BOMB, BIG, SUPER = -0.3, -0.6, -1.0  # assets
PER_CARD = 0.05       # the bonus per card a play sheds
MIN_GAIN = 0.25       # a follow must lower the cost by this much
COMPLETE_MAX = bombs.R_J  # complete a bomb only with a pair below the Jack
THREAT = 3            # an opponent holding this many cards or fewer threatens
STOP = 10.0           # the worth of beating a threatening opponent's top play


def card_rank(ident):
    """The Bombs rank (R_3 .. R_2, R_XB, R_XR) of a card identity 0..53."""
    if ident >= cards.JOKER_BLACK:
        return bombs.R_XB + ident - cards.JOKER_BLACK
    return (cards.rank(ident) + 11) % 13  # the ace ranks above the king, the 2 above it


def decode(code):
    """A play code taken apart: (form, lowest rank, length, complete), or None
    for any other code (PASS, DECLINE, the lead kinds, the exchange)."""
    if bombs.SINGLE(0) <= code <= bombs.SINGLE(bombs.R_XR):
        return bombs.FORM_SINGLE, code - bombs.SINGLE(0), 0, False
    if bombs.PAIR(0) <= code <= bombs.PAIR(bombs.R_2):
        return bombs.FORM_PAIR, code - bombs.PAIR(0), 0, False
    for form, first in ((bombs.FORM_RUN, bombs.RUN), (bombs.FORM_DRUN, bombs.DRUN)):
        if first(0, 3) <= code < first(0, bombs.MAX_RUN + 1):
            k = code - first(0, 3)
            return form, k % bombs.RUN_STRIDE, 3 + k // bombs.RUN_STRIDE, False
    if bombs.COMPLETE(0) <= code <= bombs.COMPLETE(bombs.R_2):
        return bombs.FORM_BOMB, code - bombs.COMPLETE(0), 0, True
    if bombs.BOMB(0) <= code <= bombs.BOMB(bombs.R_2):
        return bombs.FORM_BOMB, code - bombs.BOMB(0), 0, False
    if bombs.BIG(0) <= code <= bombs.BIG(bombs.R_2):
        return bombs.FORM_BIG, code - bombs.BIG(0), 0, False
    if code == bombs.SUPER:
        return bombs.FORM_SUPER, bombs.R_XB, 0, False
    return None


def take(count, play):
    """The hand (cards per rank) after a play, or None if it lacks the cards."""
    form, rank, length, complete = play
    need = [0] * bombs.RANKS
    if form in (bombs.FORM_SINGLE, bombs.FORM_PAIR):
        need[rank] = 1 if form == bombs.FORM_SINGLE else 2
    elif form in (bombs.FORM_RUN, bombs.FORM_DRUN):
        for r in range(rank, rank + length):
            need[r] = 1 if form == bombs.FORM_RUN else 2
    elif form == bombs.FORM_BOMB:
        need[rank] = 2 if complete else 3
    elif form == bombs.FORM_BIG:
        need[rank] = 4
    else:
        need[bombs.R_XB] = need[bombs.R_XR] = 1
    if any(n > c for n, c in zip(need, count)):
        return None
    return [c - n for c, n in zip(count, need)]


def run_from(count, rank, least):
    """How many ranks from rank up (to the ace) are held at least `least` times."""
    n = 0
    while rank + n <= bombs.R_A and count[rank + n] >= least:
        n += 1
    return n


def hand_cost(count):
    """The cost of shedding a hand: split greedily into plays, each priced."""
    c = list(count)
    cost = 0.0
    if c[bombs.R_XB] and c[bombs.R_XR]:
        cost += SUPER
        c[bombs.R_XB] = c[bombs.R_XR] = 0
    for r in range(bombs.R_2 + 1):
        if c[r] >= 3:
            cost += BIG if c[r] == 4 else BOMB
            c[r] = 0
    for least in (2, 1):  # double runs first, then runs
        for r in range(bombs.R_A + 1):
            length = run_from(c, r, least)
            if length < 3:
                continue
            cost += RUN - RUN_LONG * (length * least - 3)
            for i in range(r, r + length):
                c[i] -= least
    for r in range(bombs.RANKS):
        groups = c[r] // 2 + c[r] % 2  # pairs, then a single
        cost += groups * (SINGLE - CONTROL[r])
    return cost


def all_leads(c):
    """Every play the hand can lead, as codes in ascending order."""
    leads = [bombs.SINGLE(r) for r in range(bombs.RANKS) if c[r]]
    leads += [bombs.PAIR(r) for r in range(bombs.R_2 + 1) if c[r] >= 2]
    for least, make in ((1, bombs.RUN), (2, bombs.DRUN)):
        for length in range(3, bombs.MAX_RUN + 1):
            leads += [make(r, length) for r in range(bombs.R_A - length + 2)
                      if run_from(c, r, least) >= length]
    leads += [bombs.BOMB(r) for r in range(bombs.R_2 + 1) if c[r] >= 3]
    leads += [bombs.BIG(r) for r in range(bombs.R_2 + 1) if c[r] == 4]
    if c[bombs.R_XB] and c[bombs.R_XR]:
        leads.append(bombs.SUPER)
    return leads


def lead_kind(play):
    """The L1 code (the kind of lead) of a play."""
    form, _, length, _ = play
    return {bombs.FORM_SINGLE: bombs.LEAD_SINGLE, bombs.FORM_PAIR: bombs.LEAD_PAIR,
            bombs.FORM_RUN: bombs.LEAD_RUN(length), bombs.FORM_DRUN: bombs.LEAD_DRUN(length),
            bombs.FORM_BOMB: bombs.LEAD_BOMB, bombs.FORM_BIG: bombs.LEAD_BIG}.get(
                form, bombs.LEAD_SUPER)


def lead_score(c, code):
    """Leading this play: the cost of the hand kept, less a little per card
    shed; going out beats everything. Lower is better."""
    after = take(c, decode(code))
    if after is None:
        return float("inf")
    if sum(after) == 0:
        return float("-inf")
    return hand_cost(after) - PER_CARD * (sum(c) - sum(after))


class GreedyBombs(jackarena.Bot):
    name = "greedy_bombs"
    version = "1.0"
    games = [bombs.GAME]

    def act(self, match, obs, legal):
        codes = [a["code"] for a in legal]
        count = [0] * bombs.RANKS
        for ident, held in enumerate(obs["hand"]):
            if held:
                count[card_rank(ident)] += 1
        stage = obs["stage"]
        if stage == bombs.STAGE_REVOLT:
            return codes.index(bombs.REVOLT)
        if stage == bombs.STAGE_ACCEPT:
            return codes.index(bombs.ACCEPT)
        if stage == bombs.STAGE_REQUEST:
            # NO_REQUEST (listed last) unless a requested card lowers the cost.
            best, best_cost = len(codes) - 1, hand_cost(count)
            for i, code in enumerate(codes[:-1]):
                more = list(count)
                more[code - bombs.REQUEST(0)] += 1
                if hand_cost(more) < best_cost:
                    best, best_cost = i, hand_cost(more)
            return best
        if stage == bombs.STAGE_RETURN:
            costs = []
            for code in codes:
                less = list(count)
                less[code - bombs.RETURN(0)] -= 1
                costs.append(hand_cost(less))
            return costs.index(min(costs))
        if stage in (bombs.STAGE_LEAD, bombs.STAGE_LEAD_RANK):
            return self.lead(obs, codes, count)
        return self.answer(obs, codes, count, window=stage == bombs.STAGE_WINDOW)

    @staticmethod
    def lead(obs, codes, count):
        """L1 (the kind) and L2 (the rank): the best lead the hand can make; in
        L2 among those of the kind chosen."""
        leads = all_leads(count)
        if obs["stage"] == bombs.STAGE_LEAD_RANK:
            leads = [c for c in leads if c in codes]
        best = min(leads, key=lambda code: lead_score(count, code))  # the lowest code on ties
        if obs["stage"] == bombs.STAGE_LEAD_RANK:
            return codes.index(best)
        return codes.index(lead_kind(decode(best)))

    @staticmethod
    def answer(obs, codes, count, window):
        """In turn (F) and in a window (W): a play that beats the top one, or
        PASS / DECLINE, always listed last."""
        now = hand_cost(count)
        owner = obs["top_owner"]
        threat = (owner != obs["seat"] and owner < bombs.MAX_SEATS
                  and 0 < obs["count"][owner] <= THREAT)
        best, best_value = len(codes) - 1, 0.0
        for i, code in enumerate(codes[:-1]):
            play = decode(code)
            after = take(count, play) if play else None
            if after is None:
                continue
            if sum(after) == 0:
                return i  # out
            if owner == obs["seat"]:
                continue  # never beat its own play, but to go out
            form, rank, _, complete = play
            heavy = form >= bombs.FORM_BOMB and not complete
            if not threat and (heavy or (complete and rank >= COMPLETE_MAX)
                               or (window and not complete)):
                continue
            gain = now - hand_cost(after) + PER_CARD * (sum(count) - sum(after))
            value = gain + STOP if threat else gain
            if value >= MIN_GAIN and value > best_value:
                best, best_value = i, value
        return best


if __name__ == "__main__":
    GreedyBombs().run()
