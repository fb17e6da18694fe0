#!/usr/bin/python3
"""A heuristic bot for Bruise Jack: the Python counterpart of the `greedy`
reference bot's Bruise Jack heuristic (bots/greedy/greedy_bruise_jack.c;
docs/python.md, "Examples").

    PYTHONPATH=sdk/python arena play bruise-jack random \
        "cmd:/usr/bin/python3 sdk/python/examples/greedy_bruise_jack.py"

It knows its own centre card, so it knows its three rows exactly; what it
does not know is the next card and the other seats' centres. It reads its
rows, the up cards and the discards from the observation
(`jackarena.games.bruise_jack`), and values its rows in one of two ways:

- while another seat can still take cards, a utility of its own rows: in
  Way 2 the sum of the row scores (16 for a Bruise Jack, 11 for a Guile, the
  best total, 0 for a bust); in Way 1 the sum of (rank - 3)^2 over the rows
  (81 for a Guile, 100 for a claimed Bruise Jack, 0 for a bust), since rows
  are compared one at a time and only the highest rank counts;
- once every other seat is finished, its chance to win the hand against the
  tables they left, over every centre each of them could hold (in Way 1 none
  that would have made a claim): Way 2 by the sums, Way 1 row by row,
  averaged over the six row orders; a tie counts half.

Hit or stand: it hits when the expected value after the next card (uniform
over the cards it has not seen), put in its best open row, beats the value
now; at the end of a hand it also hits when standing would surely lose.
Placing a card: the open row where it is worth most (the lowest on ties).
No randomness: the same match, the same choices.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import jackarena  # noqa: E402
from jackarena.games import bruise_jack as bj  # noqa: E402

# Way 1 utility of a row's rank (0 bust, 4..11 totals, 12 Guile, 13 claimed).
WAY1_UTILITY = [0, 0, 0, 0, 1, 4, 9, 16, 25, 36, 49, 64, 81, 100]
ORDERS = [(0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)]


# ---- The row arithmetic (the inline functions of ja_bruise_jack.h) ----------

def level(card, row):
    """The level 0..4 of a card in the attribute of a row (0: wild)."""
    return (card // 25, card // 5 % 5, card % 5)[row]


def best_total(row_cards, row):
    """The largest total up to 11 of a row, a wild counting 1 or 6; -1 if bust."""
    hard = sum(1 if level(c, row) == bj.WILD else level(c, row) + 1 for c in row_cards)
    if hard > bj.TARGET:
        return -1
    for _ in range(sum(level(c, row) == bj.WILD for c in row_cards)):
        if hard + 5 <= bj.TARGET:
            hard += 5
    return hard


def is_pair(a, b, row):
    """A Bruise Jack: a wild and a card of the top level."""
    return sorted((level(a, row), level(b, row))) == [bj.WILD, bj.TOP_LEVEL]


def row_value(way, guile, claimed, row_cards, row):
    """A row's value at a showdown: its Way 1 rank or Way 2 score."""
    if claimed:
        return bj.RANK_CLAIMED
    if way == 2 and len(row_cards) == 2 and is_pair(row_cards[0], row_cards[1], row):
        return bj.SCORE_BRUISE
    best = best_total(row_cards, row)
    if best < 0:
        return bj.RANK_BUST
    if guile and len(row_cards) == 5:
        return bj.RANK_GUILE if way == 1 else bj.SCORE_GUILE
    return best


# ---- What the observation says -------------------------------------------------

def up_cards(obs, seat, row):
    i = seat * bj.ROWS + row
    return obs["up"][i * bj.MAX_UP: i * bj.MAX_UP + min(obs["up_count"][i], bj.MAX_UP)]


def rows_of(obs, seat, centre):
    """A seat's rows with this centre (None: it holds none), the centre first."""
    first = [] if centre is None else [centre]
    return [first + up_cards(obs, seat, r) for r in range(bj.ROWS)]


class Hand:
    """One decision's view of the hand."""

    def __init__(self, obs):
        self.obs = obs
        self.me, self.way, self.guile = obs["seat"], obs["way"], bool(obs["guile"])
        self.claimed = self.claims(self.me)
        self.mine = rows_of(obs, self.me, obs["centre"] if obs["centre"] != bj.NONE else None)
        seen = {obs["centre"], obs["drawn"]}
        for seat in range(obs["n_seats"]):
            for r in range(bj.ROWS):
                seen.update(up_cards(obs, seat, r))
        seen.update(obs["discard"][:obs["discard_count"]])
        self.pool = [c for c in range(bj.CARDS) if c not in seen]  # the next card is one of these
        others = [p for p in range(obs["n_seats"]) if p != self.me and obs["active"] >> p & 1]
        self.end_game = all(obs["stood"][p] or not any(obs["open"][p * bj.ROWS + r]
                                                       for r in range(bj.ROWS)) for p in others)
        # The end game: each other seat's possible row values, with weights.
        self.field = [self.outcomes(p) for p in others] if self.end_game else []
        self.p_win_cache = {}

    def claims(self, seat):
        """Which of a seat's rows are claimed Bruise Jacks (Way 1 only)."""
        return [self.way == 1 and bool(self.obs["claimed"][seat * bj.ROWS + r])
                for r in range(bj.ROWS)]

    def values(self, rows, claimed):
        return tuple(row_value(self.way, self.guile, claimed[r], rows[r], r)
                     for r in range(bj.ROWS))

    def outcomes(self, p):
        """Seat p's row values over every centre it may hold: {values: weight}."""
        obs = self.obs
        claimed = self.claims(p)
        centres = self.pool if obs["has_centre"][p] else [None]
        found = {}
        for c in centres:
            if c is not None and self.way == 1 and self.would_claim(p, c):
                continue
            v = self.values(rows_of(obs, p, c), claimed)
            found[v] = found.get(v, 0) + 1
        return found

    def would_claim(self, p, c):
        """True if a Way 1 centre c would have been claimed with the first up
        card of one of p's unclaimed rows (so p cannot hold it)."""
        for r in range(bj.ROWS):
            i = p * bj.ROWS + r
            if (not self.obs["claimed"][i] and self.obs["up_count"][i] > 0
                    and is_pair(c, self.obs["up"][i * bj.MAX_UP], r)):
                return True
        return False

    def p_win(self, mine):
        """The chance that row values `mine` win the hand; a tie counts half."""
        if mine not in self.p_win_cache:
            orders = ORDERS if self.way == 1 else ORDERS[:1]
            total = 0.0
            for order in orders:
                p = 1.0  # the seats' centres are independent
                for found in self.field:
                    if p <= 0 or not found:
                        continue
                    won = 0.0
                    for theirs, weight in found.items():
                        c = self.compare(mine, theirs, order)
                        won += weight * (1.0 if c > 0 else 0.5 if c == 0 else 0.0)
                    p *= won / sum(found.values())
                total += p
            self.p_win_cache[mine] = total / len(orders)
        return self.p_win_cache[mine]

    def compare(self, a, b, order):
        """-1, 0 or 1: Way 1 row by row in `order`, Way 2 by the sums."""
        if self.way == 2:
            return (sum(a) > sum(b)) - (sum(a) < sum(b))
        for r in order:
            if a[r] != b[r]:
                return -1 if a[r] < b[r] else 1
        return 0

    def evaluate(self, rows):
        """The chance to win in the end game, else the utility of the rows."""
        v = self.values(rows, self.claimed)
        if self.end_game:
            return self.p_win(v)
        return sum(WAY1_UTILITY[x] for x in v) if self.way == 1 else sum(v)

    def best_row(self, card):
        """The best open row for a card (the lowest on ties) and its value."""
        best, best_value = None, 0.0
        for r in range(bj.ROWS):
            if not self.obs["open"][self.me * bj.ROWS + r]:
                continue
            rows = [list(x) for x in self.mine]
            rows[r].append(card)
            v = self.evaluate(rows)
            if best is None or v > best_value + 1e-12:
                best, best_value = r, v
        return best, best_value


class GreedyBruiseJack(jackarena.Bot):
    name = "greedy_bruise_jack"
    version = "1.0"
    games = [bj.GAME]

    def act(self, match, obs, legal):
        codes = [a["code"] for a in legal]
        h = Hand(obs)
        if obs["stage"] == bj.STAGE_PLACE:
            row, _ = h.best_row(obs["drawn"])
            return codes.index(bj.PLACE(row))
        now = h.evaluate(h.mine)
        after = [h.best_row(c)[1] for c in h.pool]
        hit = after and (sum(after) / len(after) > now + 1e-9 or (h.end_game and now < 1e-12))
        return codes.index(bj.HIT if hit and bj.HIT in codes else bj.STAND)


if __name__ == "__main__":
    GreedyBruiseJack().run()
