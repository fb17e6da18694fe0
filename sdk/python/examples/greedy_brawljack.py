#!/usr/bin/python3
"""A heuristic bot for BrawlJack: the Python counterpart of the `greedy`
reference bot's BrawlJack heuristic (bots/greedy/greedy_brawljack.c;
docs/python.md, "Examples").

    PYTHONPATH=sdk/python arena play brawljack random random \
        "cmd:/usr/bin/python3 sdk/python/examples/greedy_brawljack.py"

It reads the table from the observation (every hand's owner, state and
cards; the cards it has not seen; `jackarena.games.brawljack`, `cards`),
scores a table with a static evaluation, and at each decision takes the
action whose resulting table scores best for it (the lowest code on ties):

- a seat's worth is its stayed 21s (an AK-47 counts 2), plus half its LIVE
  21s (others may still bust them; its own count fully, since it stays them
  at once), plus half the chance, over its LIVE hands below 21, that one
  unseen card makes the hand exactly 21, plus 0.3 x its best hand / 21; the
  table's score is its own worth minus the best other seat's;
- a drawn card goes where it scores best: completing its own 21s, busting
  the others' 21s and high hands, dumping a useless card where it hurts;
  before the draw (the last seat playing) it weighs the expected score over
  the unseen cards;
- it stays a 21 at once; as the last seat playing it stays everything when
  that wins or ties the deal, else keeps hitting; with others playing it
  stays hands of 18 or more;
- playing the dealer, it hits the hand whose next card most often meets the
  target; in a blind tiebreak it takes two cards, then stays.

No randomness: the same match, the same choices.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import jackarena  # noqa: E402
from jackarena.games import brawljack as bw, cards  # noqa: E402

JOKER = 13          # the rank class of the jokers (the others: cards.RANK_A .. RANK_K)
W_LIVE = 0.5        # an opponent's LIVE 21
W_POT = 0.5         # per chance that one card makes a LIVE hand 21
W_BEST = 0.3        # the best hand, as a fraction of 21
STAY_MIN = 18       # with others playing, stay hands from this value on
BLIND_CARDS = 2     # blind hands stop at this many cards


def rank_class(card):
    return JOKER if card >= cards.JOKER_BLACK else cards.rank(card)


class HandInfo:
    """What the evaluation needs of a hand."""
    __slots__ = ("owner", "k", "state", "length", "hard", "ace", "joker", "first", "top")

    def __init__(self, owner, k, state):
        self.owner, self.k, self.state = owner, k, state
        self.length = self.hard = 0
        self.ace = self.joker = False
        self.first = self.top = 0  # rank classes of the bottom and the top card

    def copy(self):
        h = HandInfo(self.owner, self.k, self.state)
        for a in self.__slots__[3:]:
            setattr(h, a, getattr(self, a))
        return h

    def add(self, r):
        if r == JOKER:
            self.joker = True
        else:
            self.hard += 10 if r >= cards.RANK_T else r + 1
        self.ace |= r == cards.RANK_A
        if self.length == 0:
            self.first = r
        self.top = r
        self.length += 1

    def value(self):
        """The hand's value: 0 when bust; a joker alone is 21."""
        if self.joker:
            return 21 if self.length == 1 else 0
        if self.hard > 21:
            return 0
        return self.hard + 10 if self.ace and self.hard + 10 <= 21 else self.hard

    def twenty_ones(self):
        """2 for an ace and a king alone (an AK-47), 1 for another 21."""
        if self.value() != 21:
            return 0
        ak = self.length == 2 and {self.first, self.top} == {cards.RANK_A, cards.RANK_K}
        return 2 if ak else 1


def place(table, i, r):
    """A card of rank class r onto hand i (rules 6.1): on a card of its rank
    it starts a new hand of the same owner."""
    h = table[i]
    if r != JOKER and h.top != JOKER and r == h.top:
        if len(table) < bw.MAX_HANDS:
            n = HandInfo(h.owner, None, bw.HAND_LIVE)
            n.add(r)
            table.append(n)
        return
    h.add(r)
    if h.value() == 0:
        h.state = bw.HAND_BUST


class Brawl:
    """One decision: the table, the unseen cards by rank class, and the
    evaluations."""

    def __init__(self, obs):
        self.obs, self.me, self.n = obs, obs["seat"], obs["n_seats"]
        self.table = []
        for i in range(min(obs["n_hands"], bw.MAX_HANDS)):
            h = HandInfo(obs["hand_owner"][i], obs["hand_index"][i], bw.HAND_NONE)
            for j in range(min(obs["hand_len"][i], bw.HAND_CARDS)):
                h.add(rank_class(obs["hand_card"][bw.HAND_CARDS * i + j]))
            h.state = obs["hand_state"][i]
            self.table.append(h)
        self.unseen = [0] * (JOKER + 1)
        for c in range(bw.DECK):
            if obs["unseen"][c]:
                self.unseen[rank_class(c)] += 1

    def find(self, table, owner, k):
        for i, h in enumerate(table):
            if h.owner == owner and h.k == k:
                return i
        return -1

    @staticmethod
    def p21(h, unseen):
        """The chance that one unseen card makes LIVE hand h exactly 21."""
        total = sum(unseen)
        if total == 0:
            return 0.0
        n = 0
        for r in range(JOKER):
            if unseen[r] and r != h.top:
                x = h.copy()
                x.add(r)
                n += unseen[r] if x.value() == 21 else 0
        return n / total

    def worth(self, table, unseen, seat, w_live):
        e, best = 0.0, 0
        for h in table:
            v = h.value()
            if h.owner != seat or h.state == bw.HAND_BUST or v == 0:
                continue
            tw = h.twenty_ones()
            if h.state == bw.HAND_STAYED:
                e += tw
            elif tw:
                e += w_live * tw
            else:
                e += W_POT * self.p21(h, unseen)
            best = max(best, v)
        return e + W_BEST * best / 21.0

    def evaluate(self, table, unseen):
        """Its own worth minus the best other seat's."""
        other = max(self.worth(table, unseen, p, W_LIVE) for p in range(self.n) if p != self.me)
        return self.worth(table, unseen, self.me, 1.0) - other

    def after(self, i, r, from_unseen):
        """The evaluation once a card of class r goes on hand i."""
        table = [h.copy() for h in self.table]
        unseen = list(self.unseen)
        if from_unseen and unseen[r] > 0:
            unseen[r] -= 1
        place(table, i, r)
        return self.evaluate(table, unseen)

    def expected(self, i):
        """The expected evaluation of hitting hand i with the next unseen card."""
        total = sum(self.unseen)
        if total == 0:
            return self.evaluate(self.table, self.unseen)
        return sum(self.unseen[r] * self.after(i, r, True)
                   for r in range(JOKER + 1) if self.unseen[r]) / total

    def dealer_met(self, table):
        """Dealer success (rules 9) on a table."""
        dealer = [h for h in table if h.owner == bw.DEALER]
        best = max([h.value() for h in dealer], default=0)
        tws = sum(h.twenty_ones() for h in dealer)
        return (tws if self.obs["mode"] == bw.MODE_POINTS else best) >= self.obs["target"]

    def dealer_chance(self, i):
        """The chance that the next card on dealer hand i meets the target."""
        total = sum(self.unseen)
        if total == 0:
            return 0.0
        n = 0
        for r in range(JOKER + 1):
            if self.unseen[r]:
                table = [h.copy() for h in self.table]
                place(table, i, r)
                n += self.unseen[r] if self.dealer_met(table) else 0
        return n / total

    def winning_now(self):
        """True when staying every hand now wins or ties the deal (the others done)."""
        tws, best = [0] * bw.MAX_SEATS, [0] * bw.MAX_SEATS
        points = False
        for h in self.table:
            if h.owner >= self.n:
                continue
            tws[h.owner] += h.twenty_ones()
            points |= h.twenty_ones() > 0
            best[h.owner] = max(best[h.owner], h.value())
        score = tws if points else best
        return all(score[p] <= score[self.me] for p in range(self.n) if p != self.me)

    def value(self, code):
        """The value of one legal action (higher is better)."""
        obs = self.obs
        if bw.IS_HIT(code):
            i = self.find(self.table, bw.CODE_OWNER(code), bw.CODE_INDEX(code))
            if i < 0:
                return -1e9
            if obs["stage"] == bw.STAGE_HIT:
                if obs["drawn"] < bw.DECK:
                    return self.after(i, rank_class(obs["drawn"]), False)
                return self.expected(i)
            if obs["stage"] == bw.STAGE_HIT_REGULAR:
                return self.expected(i)
            if obs["stage"] == bw.STAGE_DEALER_HIT:
                # Ties go to the lowest hand: it has the most room.
                return self.dealer_chance(i) - self.table[i].value() * 1e-4
            return -1e9
        if bw.IS_STAY(code):
            i = self.find(self.table, bw.CODE_OWNER(code), bw.CODE_INDEX(code))
            if i < 0:
                return -1e9
            v = self.table[i].value()
            if v == 21:
                return 3.0
            if obs["stage"] == bw.STAGE_DEALER_STAY:
                return -1.0  # a dealer hand below 21 can still reach the target
            if all(obs["done"][p] for p in range(self.n) if p != self.me):
                return 2.0 if self.winning_now() else -1.0
            return 1.0 + v / 100.0 if v >= STAY_MIN else -1.0
        if code == bw.BLIND_HIT:
            return 1.0 if obs["blind_count"][self.me] < BLIND_CARDS else -1.0
        if code in (bw.END_TURN, bw.BLIND_STAY):
            return 0.0
        return -1e9


class GreedyBrawlJack(jackarena.Bot):
    name = "greedy_brawljack"
    version = "1.0"
    games = [bw.GAME]

    def act(self, match, obs, legal):
        b = Brawl(obs)
        best, best_value = 0, -1e18
        for i, a in enumerate(legal):
            v = b.value(a["code"])
            if v > best_value + 1e-9:
                best, best_value = i, v
        return best


if __name__ == "__main__":
    GreedyBrawlJack().run()
