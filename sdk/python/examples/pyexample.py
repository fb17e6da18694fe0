#!/usr/bin/python3
"""An example external bot with the Python SDK.

    PYTHONPATH=sdk/python arena play taylor-blackjack random \
        "cmd:/usr/bin/python3 sdk/python/examples/pyexample.py"

In Taylor Blackjack it reads its observation (a dict keyed by the fields of
docs/protocol.md) with the game's constants (jackarena.games.taylor, made
from the C header): it lays a card of the suit it holds most of, names that
suit after an ace, and always says "Last card". Anything else, in any game,
it picks at random from its own stream.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import jackarena  # noqa: E402
from jackarena.games import cards, taylor  # noqa: E402


class ExampleBot(jackarena.Bot):
    name = "pyexample"
    version = "1.1"
    capacity = 4

    def act(self, match, obs, legal):
        if match.game == "taylor-blackjack":
            choice = self.taylor(obs, [a["code"] for a in legal])
            if choice is not None:
                return choice
        return match.rng.randrange(len(legal))

    @staticmethod
    def taylor(obs, codes):
        """An index into codes, or None to leave it to chance."""
        held = [0] * cards.SUIT_COUNT
        for card, count in enumerate(obs["hand"]):
            held[cards.suit(card)] += count
        best_suit = max(range(cards.SUIT_COUNT), key=lambda s: held[s])
        if obs["stage"] == taylor.STAGE_NOMINATE and taylor.SUIT(best_suit) in codes:
            return codes.index(taylor.SUIT(best_suit))
        if obs["stage"] == taylor.STAGE_DECLARE and taylor.DECLARE in codes:
            return codes.index(taylor.DECLARE)
        # Plays are PLAY(card) for the cards 0..51; every other action's code is above.
        plays = [(held[cards.suit(c)], -i) for i, c in enumerate(codes) if c <= taylor.PLAY(51)]
        if plays:
            return -max(plays)[1]
        return None


if __name__ == "__main__":
    ExampleBot().run()
