#!/usr/bin/python3
"""A heuristic bot for Taylor Blackjack: the Python counterpart of the
`greedy` reference bot's Taylor Blackjack heuristic
(bots/greedy/greedy_taylor.c; docs/python.md, "Examples").

    PYTHONPATH=sdk/python arena play taylor-blackjack random \
        "cmd:/usr/bin/python3 sdk/python/examples/greedy_taylor.py"

A turn is a chain of the bot's own decisions with nothing hidden in between
(the card after an 8, the cards of a ten run, the suit after an ace), so at
every decision it plans the rest of its turn, scores every way the turn can
end and takes the action leading to the best end (the lowest code on ties).
It reads its hand, the pile, the cards known to be in other hands and the
hand sizes from the observation (`jackarena.games.taylor`, `cards`). The
value of a turn's end:

- going out wins, and beats everything;
- minus the cost of the hand kept: about 1 a card, less for useful cards.
  Red 2s and red Jacks (counters) cost 1 minus the cards they are expected
  to save, from the black 2s and Jacks the opponents may hold; black ones
  count as counters and a little more (a weapon); 8s, aces, 10s, Qs, Ks and
  7s cost a bit less than 1. A card drawn costs 1;
- plus the effect of the last card, weighed by the threat of the seat it
  hits (0.6 + 3 / the cards that seat holds): a black 2 or Jack makes the
  next seat draw 2 or 7 unless it can answer (a hypergeometric chance over
  the unseen cards); a Q or K skips seats (or gives the turn straight
  back); a 7 turns play away from the next seat;
- minus the chance that the next seat can follow the top card, times its
  threat, plus a little per card held of the suit left to follow (so it
  names the suit it holds most of, after an ace).

It always declares "Last card". The plan looks at most PLAN_BUDGET steps
ahead per action weighed; past it, 8s and 10s count as plain cards. No
randomness: the same match, the same choices.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import jackarena  # noqa: E402
from jackarena.games import cards, taylor  # noqa: E402

WIN = 1e6               # going out
DRAW = 1.0              # a card drawn
W_BASE, W_LEAD = 0.6, 3.0  # the threat of a seat holding c cards: W_BASE + W_LEAD / c
THREAT_SCALE = 0.3      # the chance of facing a penalty, per black card opponents may hold
THREAT_CAP = 0.7        # ... at most
WEAPON2, WEAPONJ = 0.1, 0.3  # a black 2 or Jack is worth this much more than a red one
COST8, COSTA, COST7, COSTQK = 0.75, 0.85, 0.95, 0.9
COST_EXTRA = 0.7        # a Q with 2 seats, a K with 3: another turn
COST10, TEN_RUN, COST10_MIN = 0.95, 0.1, 0.5  # a 10: less per other card of its suit
MIN_COST = -0.5         # no card is worth keeping more than this
LONE8 = 0.7             # an 8 as the last card (playing it out draws a card)
EXTRA_TURN = 1.0        # the turn comes straight back
SKIP = 0.5              # per threat of a seat skipped
REVERSE = 0.5           # per threat difference of a reversal
COME_BACK = 1.0         # a penalty passed back to us, bigger (2 seats)
PASS_ON = 0.5           # a penalty the next seat passes on to the one after
FOLLOW = 0.6            # per threat x chance the next seat can follow
OWN_SUIT = 0.15         # per card held of the suit to follow
PLAN_BUDGET = 500       # plan steps per action weighed

RANK2, RANKJ = cards.RANK_2, cards.RANK_J


def black(c):
    return cards.is_black(c)


class Hand:
    """A hand: copies of each identity 0..51, by suit, in all."""

    def __init__(self, counts):
        self.c = list(counts)
        self.suit = [sum(self.c[13 * s: 13 * s + 13]) for s in range(4)]
        self.total = sum(self.c)

    def without(self, card):
        h = Hand.__new__(Hand)
        h.c, h.suit, h.total = list(self.c), list(self.suit), self.total - 1
        h.c[card] -= 1
        h.suit[cards.suit(card)] -= 1
        return h


def none_of(p, m, u):
    """The chance that none of u cards dealt from a pool of p holds one of m."""
    q = 1.0
    for i in range(u):
        if p - m - i <= 0:
            return 0.0
        q *= (p - m - i) / (p - i)
    return q


class Plan:
    """One decision's evaluation of the ways its turn can end."""

    def __init__(self, obs):
        self.obs, self.me, self.n = obs, obs["seat"], obs["n_seats"]
        self.dir = -1 if obs["direction"] < 0 else 1
        self.hand = Hand(obs["hand"])
        self.nodes = 0
        self.cache = {}
        # The unseen copies: not in its hand, the pile, a public stock or
        # known to be in another hand.
        seen = list(obs["hand"])
        visible = obs["pile"][:obs["pile_count"]]
        if obs["stock_known"]:
            visible += obs["stock"][:obs["stock_count"]]
        for c in visible:
            if c < 52:
                seen[c] += 1
        self.w, self.unknown = [], [0] * self.n
        known_b2 = known_bj = opp_cards = 0
        for p in range(self.n):
            self.w.append(W_BASE + W_LEAD / (obs["hand_count"][p] or 1))
            if p == self.me:
                continue
            known = obs["known"][52 * p: 52 * p + 52]
            for c, k in enumerate(known):
                seen[c] += k
                known_b2 += k if black(c) and cards.rank(c) == RANK2 else 0
                known_bj += k if black(c) and cards.rank(c) == RANKJ else 0
            self.unknown[p] = max(obs["hand_count"][p] - sum(known), 0)
            opp_cards += self.unknown[p]
        self.pool = [max(obs["decks"] - s, 0) for s in seen]
        self.pool_total = sum(self.pool)
        # The black 2s and Jacks opponents may hold: the chance to face one.
        frac = min(opp_cards / self.pool_total, 1.0) if self.pool_total else 0.0
        b2 = [cards.make(s, RANK2) for s in (cards.SUIT_C, cards.SUIT_S)]
        bj = [cards.make(s, RANKJ) for s in (cards.SUIT_C, cards.SUIT_S)]
        e2 = known_b2 + frac * (self.pool[b2[0]] + self.pool[b2[1]])
        ej = known_bj + frac * (self.pool[bj[0]] + self.pool[bj[1]])
        self.save2 = 2.0 * min(THREAT_SCALE * e2, THREAT_CAP)
        self.saveJ = 7.0 * min(THREAT_SCALE * ej, THREAT_CAP)
        self.draw_cost = DRAW if obs["stock_count"] > 0 or obs["pile_count"] > 1 else 0.0

    def seat(self, s):
        return s % self.n

    # ---- Holding cards ------------------------------------------------------

    def card_cost(self, h, c):
        r = cards.rank(c)
        if r == RANK2:
            v = 1.0 - self.save2 - (WEAPON2 if black(c) else 0.0)
        elif r == RANKJ:
            v = 1.0 - self.saveJ - (WEAPONJ if black(c) else 0.0)
        elif r == cards.RANK_8:
            v = COST8
        elif r == cards.RANK_A:
            v = COSTA
        elif r == cards.RANK_T:
            v = max(COST10 - TEN_RUN * (h.suit[cards.suit(c)] - 1), COST10_MIN)
        elif r == cards.RANK_Q:
            v = COST_EXTRA if self.n == 2 else COSTQK
        elif r == cards.RANK_K:
            v = COST_EXTRA if self.n == 3 else COSTQK
        elif r == cards.RANK_7:
            v = 1.0 if self.n == 2 else COST7
        else:
            v = 1.0
        return max(v, MIN_COST)

    def hand_cost(self, h):
        v, last = 0.0, -1
        for c in range(52):
            if h.c[c]:
                v += h.c[c] * self.card_cost(h, c)
                last = c
        if h.total == 1 and cards.rank(last) == cards.RANK_8:
            v += LONE8
        return v

    # ---- What the other seats may hold ----------------------------------------

    def p_holds(self, seat, want):
        """The chance that a seat holds one of the identities `want`: certain
        if one is known to be in its hand, else hypergeometric."""
        key = (seat, want)
        if key not in self.cache:
            known = self.obs["known"][52 * seat: 52 * seat + 52]
            if any(known[c] for c in want):
                self.cache[key] = 1.0
            else:
                m = sum(self.pool[c] for c in want)
                self.cache[key] = 1.0 - none_of(self.pool_total, m, self.unknown[seat])
        return self.cache[key]

    def p_follow(self, seat, suit, rank):
        """The chance that a seat can lay a card on a top of this rank and suit."""
        want = tuple(sorted(set(range(13 * suit, 13 * suit + 13)) |
                            {cards.make(s, rank) for s in range(4)}))
        return self.p_holds(seat, want)

    def p_rank(self, seat, rank, black_only):
        suits = (cards.SUIT_C, cards.SUIT_S) if black_only else range(4)
        return self.p_holds(seat, tuple(sorted(cards.make(s, rank) for s in suits)))

    # ---- The value of a turn's end ---------------------------------------------

    def pen_value(self, h, kind, k, nxt):
        """A penalty (kind, k) set for the next seat."""
        per, rank = (2, RANK2) if kind == taylor.PEN_TWO else (7, RANKJ)
        p_any, p_black = self.p_rank(nxt, rank, False), self.p_rank(nxt, rank, True)
        v = (1.0 - p_any) * per * k * self.w[nxt]
        after = self.seat(nxt + self.dir)
        if after == self.me:  # it comes back, bigger, unless we can answer
            covered = any(h.c[cards.make(s, rank)] for s in range(4))
            v -= p_black * per * (k + 1) * COME_BACK * (0.3 if covered else 1.0)
        else:
            v += p_black * per * (k + 1) * self.w[after] * PASS_ON
        return v

    def suit_value(self, h, nxt, suit, rank):
        return OWN_SUIT * h.suit[suit] - FOLLOW * self.w[nxt] * self.p_follow(nxt, suit, rank)

    def best_suit(self, h):
        """The suit to name after an ace, and its value (the lowest on ties)."""
        nxt = self.seat(self.me + self.dir)
        best, best_value = 0, float("-inf")
        for s in range(4):
            v = self.suit_value(h, nxt, s, cards.RANK_A)
            if v > best_value + 1e-9:
                best, best_value = s, v
        return best, best_value

    def end_value(self, h, top, suit, drew=0, effect=False, pen_kind=0, pen_k=0):
        """Ending the turn holding h, top on the pile, suit to follow, having
        drawn `drew` cards; effect: the top card's effect applies; pen_k > 0:
        a penalty set under a penalty."""
        v = -self.hand_cost(h) - drew * self.draw_cost
        r = cards.rank(top)
        nxt = self.seat(self.me + self.dir)
        if pen_k > 0:
            return v + self.pen_value(h, pen_kind, pen_k, nxt)
        if effect:
            if r in (RANK2, RANKJ) and black(top):
                kind = taylor.PEN_TWO if r == RANK2 else taylor.PEN_JACK
                return v + self.pen_value(h, kind, 1, nxt)
            if r == cards.RANK_7 and self.n > 2:
                prev = self.seat(self.me - self.dir)
                v += REVERSE * (self.w[nxt] - self.w[prev])
                nxt = prev
            elif r in (cards.RANK_Q, cards.RANK_K):
                skips = 1 if r == cards.RANK_Q else 2
                to = self.seat(self.me + (1 + skips) * self.dir)
                if to == self.me:
                    return v + EXTRA_TURN
                for i in range(1, skips + 1):  # the seats that lose their turn
                    sk = self.seat(self.me + i * self.dir)
                    if sk not in (self.me, to):
                        v += SKIP * self.w[sk]
                nxt = to
            elif r == cards.RANK_A:
                return v + self.best_suit(h)[1]
        return v + self.suit_value(h, nxt, suit, r)

    # ---- The rest of the turn ---------------------------------------------------

    def resolve(self, h, c):
        """After laying c in a normal turn or after an 8 (h no longer holds it)."""
        r = cards.rank(c)
        if r == cards.RANK_8:
            if h.total == 0:
                return self.end_value(h, c, cards.suit(c), drew=1)
            if self.nodes >= PLAN_BUDGET:  # the card that must follow is not planned
                return self.end_value(h, c, cards.suit(c))
            return self.after_eight(h)
        if h.total == 0:
            return WIN
        if r == cards.RANK_T:
            if self.nodes >= PLAN_BUDGET:
                return self.end_value(h, c, cards.suit(c))
            return self.ten_run(h, cards.suit(c), c)
        return self.end_value(h, c, cards.suit(c), effect=True)

    def run_end(self, h, e):
        """The end of a ten run whose last card is e (h no longer holds it)."""
        r = cards.rank(e)
        if r == cards.RANK_8:
            return self.resolve(h, e)
        if h.total == 0:
            return WIN
        return self.end_value(h, e, cards.suit(e), effect=r != cards.RANK_T)

    def after_eight(self, h):
        """Any card may follow an 8; one 8 is tried (which one does not matter)."""
        self.nodes += 1
        best, eight = float("-inf"), False
        for c in range(52):
            if not h.c[c]:
                continue
            if cards.rank(c) == cards.RANK_8 and h.total > 1:
                if eight:
                    continue
                eight = True
            best = max(best, self.resolve(h.without(c), c))
        return best

    def ten_run(self, h, s, top):
        """A run of suit s, top laid last: finish now, or lay the suit's cards
        ending with e, for every e, either all the others or only those that
        cost something to keep."""
        self.nodes += 1
        best = self.run_end(h, top)
        suit_cards = range(13 * s, 13 * s + 13)
        for e in suit_cards:
            if not h.c[e]:
                continue
            for lay_all in (False, True):
                h2 = h.without(e)
                for c in suit_cards:
                    while h2.c[c] and (lay_all or self.card_cost(h, c) > 0):
                        h2 = h2.without(c)
                best = max(best, self.run_end(h2, e))
        return best

    def action_value(self, code):
        obs, h = self.obs, self.hand
        stage = obs["stage"]
        if code <= taylor.PLAY(51):
            if not h.c[code]:
                return float("-inf")
            h2 = h.without(code)
            if stage in (taylor.STAGE_TURN, taylor.STAGE_EIGHT):
                return self.resolve(h2, code)
            if stage == taylor.STAGE_RUN:
                return self.run_end(h2, code) if h2.total == 0 else \
                    self.ten_run(h2, cards.suit(code), code)
            if stage == taylor.STAGE_PENALTY:
                if h2.total == 0:
                    return WIN
                k = obs["penalty_k"] + (1 if black(code) else -1)
                if k <= 0:
                    return self.end_value(h2, code, cards.suit(code))
                return self.end_value(h2, code, cards.suit(code),
                                      pen_kind=obs["penalty_kind"], pen_k=k)
            return float("-inf")
        if code == taylor.DRAW:
            return self.end_value(h, obs["top"], obs["active_suit"], drew=1)
        if code == taylor.PICK_UP:
            per = 2 if obs["penalty_kind"] == taylor.PEN_TWO else 7
            return self.end_value(h, obs["top"], obs["active_suit"], drew=per * obs["penalty_k"])
        if code == taylor.FINISH:
            return self.run_end(h, obs["top"])
        if code == taylor.DECLARE:
            return 1.0
        if code == taylor.STAY_SILENT:
            return 0.0
        if taylor.SUIT(0) <= code <= taylor.SUIT(3):
            return 1.0 if self.best_suit(h)[0] == code - taylor.SUIT(0) else 0.0
        return float("-inf")


class GreedyTaylor(jackarena.Bot):
    name = "greedy_taylor"
    version = "1.0"
    games = [taylor.GAME]

    def act(self, match, obs, legal):
        plan = Plan(obs)
        best, best_value = 0, float("-inf")
        for i, a in enumerate(legal):
            plan.nodes = 0
            v = plan.action_value(a["code"])
            if i == 0 or v > best_value + 1e-9:
                best, best_value = i, v
        return best


if __name__ == "__main__":
    GreedyTaylor().run()
