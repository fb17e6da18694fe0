#!/usr/bin/python3
"""A heuristic bot for Jack in the Box: the Python counterpart of the `greedy`
reference bot's Jack in the Box heuristic
(bots/greedy/greedy_jack_in_the_box.c; docs/python.md, "Examples").

    PYTHONPATH=sdk/python arena play jack-in-the-box random \
        "cmd:/usr/bin/python3 sdk/python/examples/greedy_jack_in_the_box.py"

The boxes' active cards do not change while a turn scores, so the matches of
a turn can be made in any order: at every decision the bot plans the whole
scoring part at once. It reads its hand, the boxes and the joker slots from
the observation (`jackarena.games.jack_in_the_box`, `cards`), tries every
set of matches its cards (its own, and its partner's once opened) can make
against the open boxes, values where each plan ends, and takes the action
that starts the best plan (the lowest code on ties). The value of a plan's
end:

- the points of its matches, singles doubled when a box has all four
  positions matched by singles this turn;
- 0.3 per card used (used cards are replaced by fresh ones);
- +5 for an extra turn (every card used);
- Jack in the Box, when the plan leaves one own card, a Jack, with a joker
  of its colour free: +16, +2.5 for the refresh, the extra turn if nothing
  else is left; closing the last box of the match's last game: +30 if its
  side then leads, else -30;
- +3 for a Jack kept for later;
- team mode, before the first match: +1 for a plan that opens with a J, K
  or Q (which offers the partner's hand).

It exchanges (only when nothing matches) every card but its Jacks, changes
as many box positions as it may (after a Jack in the Box that earns an
extra turn, those its new hand cannot match), and opens its partner's hand
unless its own cards earn the extra turn with a better plan. The plan search
stops after SEARCH_BUDGET plans and partial plans (only in team mode, with
the partner's hand open, does it get near). No randomness: the same match,
the same choices.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import jackarena  # noqa: E402
from jackarena.games import cards, jack_in_the_box as jb  # noqa: E402

USE = 0.3            # per card used
EXTRA = 5.0          # an extra turn
JACK_IN = 16.0       # Jack in the Box
REFRESH = 2.5        # the K/Q points of a refresh
KEEP_JACK = 3.0      # a Jack kept in hand
END_GAME = 30.0      # closing the last box of the last game, leading (or not)
OPEN_OPTION = 1.0    # team mode: a first match with a J, K or Q
OPEN_GAIN = 3.0      # team mode: the partner's five cards
SEARCH_BUDGET = 30000
NEG_INF = float("-inf")


def colour(card):
    return jb.BLACK if cards.is_black(card) else jb.RED


def values(card):
    """A card's values: its rank (ace 1, ..., king 13); an ace is also 14."""
    r = cards.rank(card)
    return (1, 14) if r == cards.RANK_A else (r + 1,)


def pair_ok(a, b, target):
    """The pair rule: the sum or the difference of a and b is the target."""
    return any(x + y == t or abs(x - y) == t
               for x in values(a) for y in values(b) for t in values(target))


def pair_points(a, b, target):
    """1, 2 or 4 by how many of the two share the target's suit; 4, 8 or 12
    with a Jack."""
    same = (cards.suit(a) == cards.suit(target)) + (cards.suit(b) == cards.suit(target))
    jack = cards.RANK_J in (cards.rank(a), cards.rank(b))
    return ((1, 2, 4), (4, 8, 12))[jack][same]


def is_court(ref):
    return cards.rank(jb.REF_CARD(ref)) >= cards.RANK_J


class Plans:
    """The plans of one decision: the cards, what each can match, the plan
    being built and the best values found."""

    def __init__(self, obs, partner_cards, budget=SEARCH_BUDGET):
        self.obs, self.me, self.budget, self.nodes = obs, obs["seat"], budget, 0
        self.partner = (self.me + 2) % 4 if obs["teams"] else -1
        self.ref = [c for c in range(52) for _ in range(obs["hand"][c])]
        if partner_cards and self.partner >= 0:
            self.ref += [jb.PARTNER + c for c in range(52)
                         for _ in range(obs["known"][52 * self.partner + c])]
        self.card = [jb.REF_CARD(r) for r in self.ref]
        n = len(self.ref)
        self.no_extra = False
        self.court_bonus = bool(obs["teams"]) and obs["matches"] == 0 and not obs["opened"]
        # What each card, and each pair, can match: positions (and points).
        live = [p for p in range(jb.POSITIONS) if self.live(p)]
        self.single_at = [[p for p in live if cards.rank(self.card[i]) ==
                           cards.rank(obs["active"][p])] for i in range(n)]
        self.pair_at = {(i, j): [(p, pair_points(self.card[i], self.card[j], obs["active"][p]))
                                 for p in live
                                 if pair_ok(self.card[i], self.card[j], obs["active"][p])]
                        for i in range(n) for j in range(i + 1, n)}
        # The plan.
        self.used = [False] * n
        self.mask = [0] * jb.MAX_BOXES    # positions matched by singles, per box
        self.count = [0] * jb.MAX_BOXES   # singles per box
        self.points = 0
        self.plan = []                    # (code, position) of each match
        # Results.
        self.best = NEG_INF
        self.best_pos = [NEG_INF] * jb.POSITIONS
        self.match_pos, self.best_code = None, {}

    def live(self, pos):
        b = pos // 4
        return b < self.obs["n_boxes"] and self.obs["box_open"][b] and self.obs["active"][pos] < 52

    def jack_box(self, card):
        """The box a Jack can go into (the lowest with a free joker slot of
        its colour), or None."""
        o = self.obs
        for b in range(o["n_boxes"]):
            for k in (2 * b, 2 * b + 1):
                free = o["slot_color"][k] == colour(card) and o["slot_jack"][k] >= 52
                if o["box_open"][b] and free:
                    return b
        return None

    def closes_last(self, b):
        """True if a Jack into box b closes the last open box."""
        o = self.obs
        free = sum(1 for k in (2 * b, 2 * b + 1) if o["slot_color"][k] and o["slot_jack"][k] >= 52)
        return sum(o["box_open"][:o["n_boxes"]]) == 1 and free == 1

    def leaf_value(self, jack_in=None):
        """The value of ending the scoring part with the current plan.
        jack_in: None chooses, False never, True only with Jack in the Box."""
        o = self.obs
        pts = self.points
        for b in range(o["n_boxes"]):
            if o["single_mask"][b] | self.mask[b] == 0xF:
                pts += o["single_count"][b] + self.count[b]  # the singles doubled
        own_left = [i for i in range(len(self.ref)) if not self.used[i]
                    and not jb.REF_IS_PARTNER(self.ref[i])]
        partner_left = sum(1 for i in range(len(self.ref)) if not self.used[i]
                           and jb.REF_IS_PARTNER(self.ref[i]))
        jacks = sum(1 for i in own_left if cards.rank(self.card[i]) == cards.RANK_J)
        v = pts + USE * self.used.count(True)
        keep = v + KEEP_JACK * jacks
        if not own_left and not partner_left and not self.no_extra:
            keep += EXTRA
        jin = NEG_INF
        b = self.jack_box(self.card[own_left[0]]) if len(own_left) == 1 and jacks == 1 else None
        if b is not None:
            jin = v + JACK_IN
            if self.closes_last(b):
                if o["game"] + 1 >= o["games"]:
                    others = [o["score"][s] for s in range(o["n_seats"])
                              if s not in (self.me, self.partner)]
                    leads = o["score"][self.me] + pts + JACK_IN > max(others)
                    jin += END_GAME if leads else -END_GAME
            else:
                jin += REFRESH
                if partner_left == 0 and not self.no_extra:
                    jin += EXTRA
        if jack_in is None:
            return max(jin, keep)
        return jin if jack_in else keep

    def record(self):
        """The plan is finished: its value, overall, through each position it
        matches and (stage B) through each of its matches on the target."""
        v = self.leaf_value()
        self.best = max(self.best, v)
        for code, pos in self.plan:
            w = v
            if self.court_bonus:
                refs = ([jb.SINGLE_REF(code)] if jb.IS_SINGLE(code)
                        else [jb.PAIR_REF1(code), jb.PAIR_REF2(code)])
                if any(is_court(r) for r in refs):
                    w += OPEN_OPTION
            self.best_pos[pos] = max(self.best_pos[pos], w)
            if pos == self.match_pos:
                self.best_code[code] = max(self.best_code.get(code, NEG_INF), w)

    def search(self, i=0):
        """Every set of matches over the cards from i on: the first card not
        yet used goes in a single, in a pair with a later card, or unused."""
        while i < len(self.ref) and self.used[i]:
            i += 1
        if i >= len(self.ref) or self.nodes >= self.budget:
            self.record()
            return
        self.nodes += 1
        self.used[i] = True
        for pos in self.single_at[i]:
            b, old = pos // 4, self.mask[pos // 4]
            self.mask[b] |= 1 << (pos % 4)
            self.count[b] += 1
            self.plan.append((jb.SINGLE(self.ref[i]), pos))
            self.points += 1
            self.search(i + 1)
            self.points -= 1
            self.plan.pop()
            self.count[b] -= 1
            self.mask[b] = old
        for j in range(i + 1, len(self.ref)):
            if self.used[j] or not self.pair_at[i, j]:
                continue
            self.used[j] = True
            code = jb.PAIR(min(self.ref[i], self.ref[j]), max(self.ref[i], self.ref[j]))
            for pos, pts in self.pair_at[i, j]:
                self.plan.append((code, pos))
                self.points += pts
                self.search(i + 1)
                self.points -= pts
                self.plan.pop()
            self.used[j] = False
        self.used[i] = False
        self.search(i + 1)


def hand_matches(obs, pos):
    """True if the own hand can match a position (a single or a pair)."""
    target = obs["active"][pos]
    held = [c for c in range(52) for _ in range(obs["hand"][c])]
    return (any(cards.rank(c) == cards.rank(target) for c in held)
            or any(pair_ok(held[i], held[j], target)
                   for i in range(len(held)) for j in range(i + 1, len(held))))


class GreedyJackInTheBox(jackarena.Bot):
    name = "greedy_jack_in_the_box"
    version = "1.0"
    games = [jb.GAME]

    def act(self, match, obs, legal):
        codes = [a["code"] for a in legal]
        stage = obs["stage"]
        if stage in (jb.STAGE_CHOOSE, jb.STAGE_MATCH):
            value = self.scoring(obs, codes)
        elif stage == jb.STAGE_OPEN:
            return codes.index(jb.OPEN if self.should_open(obs) else jb.KEEP_CLOSED)
        elif stage == jb.STAGE_EXCHANGE:
            return self.mark(obs, codes)
        else:  # STAGE_CHANGE, STAGE_BONUS
            return self.change(obs, codes)
        best = 0
        for i in range(1, len(codes)):
            if value[i] > value[best] + 1e-9:
                best = i
        return best

    @staticmethod
    def scoring(obs, codes):
        """Stages A and B: the value of each legal action, from the best plan
        it starts."""
        x = Plans(obs, partner_cards=bool(obs["opened"]))
        if obs["stage"] == jb.STAGE_MATCH:
            x.match_pos = obs["target"]
            x.search()
            return [x.best_code.get(c, NEG_INF) for c in codes]
        x.search()
        value = []
        for c in codes:
            if c < jb.JACK_IN(0, 0):
                value.append(x.best_pos[c])            # TARGET(position)
            elif c < jb.EXCHANGE:
                value.append(x.leaf_value(True))       # Jack in the Box now
            elif c == jb.END_TURN:
                value.append(x.leaf_value(False))
            else:
                value.append(0.0)                      # EXCHANGE: only when nothing scores
        return value

    @staticmethod
    def should_open(obs):
        """Open the partner's hand unless its own cards' best plan beats it."""
        closed = Plans(obs, partner_cards=False)
        closed.search()
        without_extra = Plans(obs, partner_cards=False, budget=SEARCH_BUDGET - closed.nodes)
        without_extra.no_extra = True
        without_extra.search()
        return without_extra.best + OPEN_GAIN > closed.best

    @staticmethod
    def mark(obs, codes):
        """Exchange every card but the Jacks (at least one card), then confirm."""
        others = sum(obs["hand"][c] for c in range(52) if cards.rank(c) != cards.RANK_J)
        for i, c in enumerate(codes):
            if c == jb.CONFIRM:
                continue
            card = c - jb.MARK(0)
            if cards.rank(card) != cards.RANK_J or (others == 0 and obs["n_marked"] == 0):
                return i
        return codes.index(jb.CONFIRM)

    @staticmethod
    def change(obs, codes):
        """Change as many positions as allowed; before its own extra turn only
        those its new hand cannot match."""
        picky = obs["stage"] == jb.STAGE_BONUS and obs["extra_due"]
        for i, c in enumerate(codes):
            if c != jb.DONE and not (picky and hand_matches(obs, c - jb.CHANGE(0, 0))):
                return i
        return codes.index(jb.DONE)


if __name__ == "__main__":
    GreedyJackInTheBox().run()
