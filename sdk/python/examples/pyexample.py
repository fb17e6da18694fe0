#!/usr/bin/python3
"""An example external bot with the Python SDK.

    PYTHONPATH=sdk/python arena play taylor-blackjack random \
        "cmd:/usr/bin/python3 sdk/python/examples/pyexample.py"

In Taylor Blackjack it reads its observation (a dict keyed by the fields of
docs/protocol.md) and lays the card of the suit it holds most of; anything
else, in any game, it picks at random from its own stream.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import jackarena  # noqa: E402


class ExampleBot(jackarena.Bot):
    name = "pyexample"
    version = "1.0"
    capacity = 4

    def act(self, match, obs, legal):
        if match.game == "taylor-blackjack" and "hand" in obs:
            held = [0, 0, 0, 0]
            for card, count in enumerate(obs["hand"]):
                held[card // 13] += count
            plays = [(held[a["code"] // 13], -i) for i, a in enumerate(legal) if a["code"] < 52]
            if plays:
                return -max(plays)[1]
        return match.rng.randrange(len(legal))


if __name__ == "__main__":
    ExampleBot().run()
