#!/usr/bin/python3
"""A Python SDK bot that misbehaves on purpose, for tests/python/test_sdk.sh.

    testbot.py MODE [--log FILE]

MODE:
  good        plays the first legal action
  raise       act() raises ValueError on every decision
  acterror    act() raises ActError(EINVAL, ...) on turn 1, ActError(7) after
  bombsonly   reads a field only Bombs has (a KeyError in any other game)
  none        act() returns None
  range       act() returns len(legal): an index out of range
  startfail   start() raises: every decision of that match is an error
  endfail     end() raises: only logged
  bombs       plays only Bombs (games = ["bombs"])
  params      checks its parameters: depth (an int 1..9) and style (calm|wild)
              are the only keys; logs every match's params

--log FILE appends one JSON line per start and end (match id, params, result).
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "sdk", "python"))
import jackarena  # noqa: E402

MODE = sys.argv[1]
LOG = sys.argv[3] if len(sys.argv) > 3 and sys.argv[2] == "--log" else None


def log(obj):
    if LOG:
        with open(LOG, "a") as f:
            f.write(json.dumps(obj) + "\n")


class TestBot(jackarena.Bot):
    name = "testbot"
    version = "1.0"
    capacity = 2
    games = ["bombs"] if MODE == "bombs" else None

    def check_params(self, params):
        if MODE != "params":
            return
        for k in params:
            if k not in ("depth", "style"):
                raise ValueError("unknown parameter '%s' (known: depth, style)" % k)
        if "depth" in params and params["depth"] not in [str(d) for d in range(1, 10)]:
            raise ValueError("parameter 'depth' must be an integer from 1 to 9, not '%s'"
                             % params["depth"])
        if params.get("style", "calm") not in ("calm", "wild"):
            raise ValueError("parameter 'style' must be one of calm, wild, not '%s'"
                             % params["style"])

    def start(self, match):
        log({"event": "start", "match": match.id, "game": match.game, "params": match.params})
        if MODE == "startfail":
            raise RuntimeError("cannot start")

    def act(self, match, obs, legal):
        if MODE == "raise":
            raise ValueError("no play found for seat %d" % match.seat)
        if MODE == "acterror":
            if match.turn == 1:
                raise jackarena.ActError(jackarena.EINVAL, "seat %d refuses" % match.seat)
            raise jackarena.ActError(7)
        if MODE == "bombsonly":  # the reported bug: Bombs' fields read in another game
            return 0 if obs["actor"] == match.seat else 1
        if MODE == "none":
            return None
        if MODE == "range":
            return len(legal)
        return 0

    def end(self, match, result):
        log({"event": "end", "match": match.id, "result": result})
        if MODE == "endfail":
            raise RuntimeError("cannot end")


if __name__ == "__main__":
    TestBot().run()
