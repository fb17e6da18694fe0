#!/usr/bin/python3
"""Flat Monte Carlo over the forward model, in Python (docs/python.md; the C
version is sdk/examples/flat_mc.c, walked through in docs/forward-model.md).

    PYTHONPATH=sdk/python arena play bruise-jack random \
        "cmd:/usr/bin/python3 sdk/python/examples/flat_mc.py"

For each decision it samples `samples` full states consistent with its
observation (Game.sample: it never sees the real state) and, in each, plays
every legal action on a copy and the rest of the match at random, then
keeps the action with the best mean pairwise place score. Every action is
tried in the same sampled worlds with the same playout seed, so the luck of
the worlds cancels between two actions (a paired comparison, as
docs/forward-model.md advises). In a joint decision (Bombs' interrupt
windows) the other asked seats play at random.

Parameters (cmd[samples=16]:..., or $JACKARENA_PARAMS): samples (1..1000,
default 8), steps (the longest playout counted, 1..1000000, default 100000).
"""
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import jackarena  # noqa: E402
from jackarena import forward  # noqa: E402

PARAMS = {"samples": (1, 1000, 8), "steps": (1, 1000000, 100000)}


def int_param(params, key):
    return jackarena.param_int(params, key, *PARAMS[key])


class FlatMC(jackarena.Bot):
    name = "flat_mc"
    version = "1.0"
    capacity = 2

    def __init__(self):
        self._models = {}  # game name -> forward.Game, made once (this SDK is one thread)

    def check_params(self, params):
        jackarena.check_keys(params, list(PARAMS))
        for key in PARAMS:
            int_param(params, key)

    def start(self, match):
        g = self._models.get(match.game)
        if g is None:
            g = self._models[match.game] = forward.game(match.game)
        if match.obs_version and match.obs_version != g.obs_version:
            raise RuntimeError("%s: observation version %d, the library has %d"
                               % (match.game, match.obs_version, g.obs_version))
        match.state["samples"] = int_param(match.params, "samples")
        match.state["steps"] = int_param(match.params, "steps")

    def act(self, match, obs, legal):
        g = self._models[match.game]
        me, rng = match.seat, match.rng
        codes = [a["code"] for a in legal]
        totals = [0.0] * len(codes)
        work = None
        for _ in range(match.state["samples"]):
            world = g.sample(obs, me, rng.getrandbits(64))
            seed = rng.getrandbits(64)
            for i, code in enumerate(codes):
                work = world.clone(into=work)
                playout = random.Random(seed)
                # this action; any other seat asked with it at random
                work.apply({s: code if s == me else playout.choice(work.legal(s))
                            for s in work.to_act()})
                out = work.playout(playout, match.state["steps"])
                if out is not None:
                    totals[i] += out.pairwise(me)
        return max(range(len(codes)), key=totals.__getitem__)


if __name__ == "__main__":
    FlatMC().run()
