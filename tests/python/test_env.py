#!/usr/bin/python3
"""jackarena.env, jackarena.bots and the encodings (docs/training.md).

    test_env.py tables LIB            the committed encodings and docs tables
                                      are what gen_encodings.py makes
    test_env.py aec LIB               every game's AEC loop to the end with
                                      random legal actions: masks, rewards,
                                      determinism, hidden information
    test_env.py windows LIB ARENA     Bombs' joint decisions
    test_env.py api LIB CC            make()'s errors, illegal actions, the
                                      done agents, spaces, the bot structs'
                                      layout; PettingZoo's api_test if present
    test_env.py bots LIB ARENA        the reference bots from Python play as
                                      `arena play` plays them (same digest)
    test_env.py single LIB ARENA      the single-agent wrapper against greedy

LIB is libjackarena.so.0; the reference bots are found beside it
(jackarena.bots: bots-plain/ in a sanitized build tree).
"""
import hashlib
import json
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SDK = os.path.normpath(os.path.join(HERE, "..", "..", "sdk", "python"))
sys.path.insert(0, SDK)

from tally import check, finish  # noqa: E402

# (game, seats, options): every game, a few seat counts and option sets.
SETS = [
    ("taylor-blackjack", 2, {"games": 1}),
    ("taylor-blackjack", 4, {"games": 1, "decks": 2}),
    ("brawljack", 2, {}),
    ("brawljack", 5, {"hands": 2, "dealer": "on"}),
    ("bruise-jack", 3, {"hands": 2}),
    ("bruise-jack", 2, {"way": 2}),
    ("jack-in-the-box", 2, {"games": 1}),
    ("jack-in-the-box", 4, {"games": 1, "teams": "on"}),
    ("bombs", 3, {"hands": 1}),
    ("bombs", 5, {"hands": 1, "interrupt_after_pass": "on"}),
]


def raises(exc, fn, *args, **kw):
    try:
        fn(*args, **kw)
    except exc as e:
        return str(e) or type(e).__name__
    return None


def random_episode(E, env, seed, rng, probe=None):
    """Plays env to the end from reset(seed) with random legal actions;
    returns (digest, hash of every observation seen, agents' reward sums)."""
    env.reset(seed=seed)
    seen = hashlib.sha256()
    sums = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        sums[agent] += reward
        seen.update(obs["observation"].tobytes() + obs["action_mask"].tobytes())
        if probe:
            probe(env, agent, obs)
        if term or trunc:
            env.step(None)
        else:
            env.step(int(rng.choice(obs["action_mask"].nonzero()[0])))
    return env.digest, seen.hexdigest(), sums


# ---- tables ------------------------------------------------------------------

def tables(lib):
    gen = os.path.join(SDK, "tools", "gen_encodings.py")
    p = subprocess.run([sys.executable, gen, "--check", "--lib", lib], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    check("jackarena/_encodings.py and docs/training.md's layouts are what gen_encodings.py "
          "makes of the library", p.returncode == 0, p.stdout)
    # The generator notices a change: a stale module is reported, not rewritten.
    with tempfile.TemporaryDirectory() as work:
        out = os.path.join(work, "_encodings.py")
        open(out, "w").write("# stale\n")
        docs = os.path.join(work, "training.md")
        open(docs, "w").write(open(os.path.join(SDK, "..", "..", "docs", "training.md")).read())
        p = subprocess.run([sys.executable, gen, "--check", "--lib", lib, "--out", out, "--docs",
                            docs], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        check("--check names a stale module and leaves it",
              p.returncode == 1 and out in p.stdout and open(out).read() == "# stale\n", p.stdout)


# ---- aec -----------------------------------------------------------------------

def mask_probe(E, problems):
    """Checks, at every step, each agent's mask against the engine's legal
    actions, the dict and buffer encodings, and the observation space."""
    def probe(env, agent, obs):
        if env.terminations[agent] or env.truncations[agent]:
            return
        st, enc = env.state, env.encoding
        s = env.agent_name_mapping[agent]
        legal = st.legal(s)
        got = sorted(enc.code(i) for i in obs["action_mask"].nonzero()[0])
        if got != legal:
            problems.append("step %d %s: mask %s, legal %s" % (env.steps, agent, got, legal))
        if (env.skip_forced and len(legal) < 2) or s not in st.to_act():
            problems.append("step %d: %s selected with legal %s" % (env.steps, agent, legal))
        for other in env.agents:
            t = env.agent_name_mapping[other]
            o = env.observe(other)
            if t not in st.to_act() and o["action_mask"].any():
                problems.append("step %d: %s, not asked, has a mask" % (env.steps, other))
            if not (o["observation"] == enc.encode_dict(st.observe(t))).all():
                problems.append("step %d: %s's vector is not its observe() dict's" % (
                    env.steps, other))
        if not env.observation_space(agent).contains(obs):
            problems.append("step %d: the observation is outside the observation space"
                            % env.steps)
    return probe


def hidden_probe(E, rng, stats, problems):
    """Every few steps: each seat's vector is unchanged when everything it
    cannot see is re-dealt (determinize), while the state changes."""
    def probe(env, agent, obs):
        if env.terminations[agent] or rng.random() > 0.1:
            return
        for s in range(env.n_seats):
            before = env.observe(env.possible_agents[s])["observation"]
            real = env.state.clone()
            env.state.determinize(s, rng.getrandbits(64))
            after = env.observe(env.possible_agents[s])["observation"]
            env.state, scrambled = real, env.state
            if not (before == after).all():
                problems.append("step %d: seat %d's vector changed when its hidden cards were "
                                "scrambled" % (env.steps, s))
            stats["scrambles"] += 1
            stats["changed"] += scrambled.buf.raw != real.buf.raw
    return probe


def aec(lib):
    from jackarena import forward
    forward.load(lib)
    import jackarena.env as E
    for game, seats, opts in SETS:
        env = E.make(game, seats=seats, **opts)
        problems, stats = [], {"scrambles": 0, "changed": 0}
        rng = random.Random(11)
        probe_m, probe_h = mask_probe(E, problems), hidden_probe(E, random.Random(3), stats,
                                                                 problems)
        digests = []
        for seed in (1, 2):
            d, seen, sums = random_episode(E, env, seed, random.Random(seed),
                                           lambda *a: (probe_m(*a), probe_h(*a)))
            o = env.state.outcome()
            check("%s %d seats %s seed %d: the episode ends, every agent done" % (
                game, seats, opts, seed), o is not None and env.agents == [] and d is not None)
            check("%s %d seats seed %d: each agent's rewards add up to its score" % (
                game, seats, seed), [sums[a] for a in env.possible_agents] == o.scores,
                (sums, o.scores))
            digests.append((d, seen))
            # The same seed and the same choices: the same episode.
            again = random_episode(E, env, seed, random.Random(seed))
            check("%s %d seats seed %d: the same seed and choices give the same episode" % (
                game, seats, seed), again[:2] == (d, seen))
        check("%s %d seats: two seeds give two episodes" % (game, seats),
              digests[0] != digests[1])
        check("%s %d seats %s: masks are the legal actions, vectors the observations'" % (
            game, seats, opts), not problems, problems[:3])
        check("%s %d seats: hidden cards scrambled %d times, the state changed by it" % (
            game, seats, stats["scrambles"]),
            stats["scrambles"] > 0 and stats["changed"] > 0, stats)
        del rng
    # The "place" reward: the pairwise place score.
    env = E.make("bruise-jack", seats=3, reward="place", hands=1)
    _, _, sums = random_episode(E, env, 4, random.Random(4))
    o = env.state.outcome()
    check("reward='place' gives the pairwise place score",
          [sums[a] for a in env.possible_agents] == [o.pairwise(s) for s in range(3)], sums)


# ---- windows -------------------------------------------------------------------

def windows(lib, arena):
    from jackarena import bots, forward
    forward.load(lib)
    import jackarena.env as E
    met, problems = 0, []
    for seats, seed in ((3, 1), (4, 2), (5, 3)):
        env = E.make("bombs", seats=seats, hands=1, interrupt_after_pass="on")
        env.reset(seed=seed)
        rng = random.Random(seed)
        window_views = None
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            st = env.state
            asked = st.to_act()
            s = env.agent_name_mapping[agent]
            if len(asked) > 1:
                if window_views is None or env.steps != window_step:  # a window opens
                    window_step = env.steps
                    met += 1
                    window_views = {a: env.observe(a)["observation"] for a in env.possible_agents}
                    opened = asked
                    first = [t for t in asked if len(st.legal(t)) > 1][0]
                    if s != first:  # seats with a single choice are answered for them
                        problems.append("a window's first seat selected is %d, not %d"
                                        % (s, first))
                answered = sorted(env._pending)
                want = [t for t in opened if t not in answered]
                if want[0] != s:
                    problems.append("window %s: seat %d selected, %d due" % (opened, s, want[0]))
                for a in env.possible_agents:
                    if not (env.observe(a)["observation"] == window_views[a]).all():
                        problems.append("window %s: %s's view changed after %s answered" % (
                            opened, a, answered))
                for t in answered:
                    if env.observe("player_%d" % t)["action_mask"].any():
                        problems.append("seat %d answered, still has a mask" % t)
            else:
                window_views = None
            env.step(int(rng.choice(obs["action_mask"].nonzero()[0])))
        check("bombs %d seats: the episode ends" % seats, env.state.is_over())
    check("interrupt windows met (%d)" % met, met >= 3, met)
    check("windows: seats selected in seat order, views unchanged until every answer is in, "
          "no mask after answering", not problems, problems[:3])
    # The same windows decided by bots: the digest `arena play` gives.
    seats, seed = 4, 9
    specs = ["greedy", "random", "greedy", "random"]
    env = E.make("bombs", seats=seats, hands=1)
    digest = play_bots(E, bots, env, seed, specs)
    out = arena_digest(arena, "bombs", specs, seed, ["hands=1"])
    check("bombs with windows played by bots through the environment: arena's digest",
          digest == out, (digest, out))


# ---- api -----------------------------------------------------------------------

def api(lib, cc):
    from jackarena import forward
    forward.load(lib)
    import jackarena.env as E
    check("an unknown game is refused", "unknown game 'chess'" in (raises(ValueError, E.make,
                                                                         "chess") or ""))
    check("a bad seat count is refused", raises(ValueError, E.make, "bombs", seats=1) ==
          "bombs takes 3 to 20 seats, not 1" if forward.game("bombs").min_seats == 3 else True,
          raises(ValueError, E.make, "bombs", seats=1))
    msg = raises(ValueError, E.make, "taylor-blackjack", decks=3)
    check("a bad option is refused with the library's message",
          msg and "bad value '3' for option decks of taylor-blackjack" in msg, msg)
    check("a bad reward kind is refused", "reward must be one of score, place" in (
        raises(ValueError, E.make, "brawljack", reward="win") or ""))
    env = E.make("taylor-blackjack", seats=2, games=1, render_mode="ansi")
    env.reset(seed=3)
    obs = env.observe(env.agent_selection)
    enc = env.encoding
    bad = next(i for i in range(enc.n_actions) if not obs["action_mask"][i])
    before = env.state.clone().buf.raw
    msg = raises(E.IllegalAction, env.step, bad)
    check("an illegal index raises IllegalAction naming it and the legal ones, state unchanged",
          msg and "cannot play action %d (%s) now (legal: " % (bad, env.game.label(
              enc.code(bad))) in msg and env.state.buf.raw == before, msg)
    check("an index out of range is illegal", raises(E.IllegalAction, env.step, enc.n_actions))
    check("a numpy integer is an action", raises(Exception, env.step, E.np.int32(
        obs["action_mask"].nonzero()[0][0])) is None)
    check("render('ansi') is the engine's describe()", env.render() == env.state.describe())
    check("the index maps codes both ways", all(enc.index(enc.code(i)) == i
                                                for i in range(enc.n_actions)))
    check("Discrete contains numpy ints, not floats", env.action_space("player_0").contains(
        E.np.int64(3)) and not env.action_space("player_0").contains(2.5))
    sp = env.observation_space("player_0")
    sp.seed(1)
    check("the observation space samples what it contains", sp.contains(sp.sample()))
    # The end: every agent done, each stepped with None leaves in turn.
    env = E.make("bruise-jack", seats=3, hands=1)
    env.reset(seed=2)
    rng = random.Random(2)
    while not env.terminations[env.agent_selection]:
        o = env.observe(env.agent_selection)
        env.step(int(rng.choice(o["action_mask"].nonzero()[0])))
    check("a done agent's step must be None", raises(ValueError, env.step, 0))
    left = []
    while env.agents:
        left.append(env.agent_selection)
        env.step(None)
    check("done agents leave one by one, each once", sorted(left) == env.possible_agents, left)
    # Truncation.
    env = E.make("taylor-blackjack", seats=2, max_steps=5)
    env.reset(seed=1)
    while not env.truncations[env.agent_selection]:
        o = env.observe(env.agent_selection)
        env.step(int(o["action_mask"].nonzero()[0][0]))
    check("max_steps truncates every agent", env.steps == 5 and all(env.truncations.values()))
    # skip_forced=False asks forced decisions too.
    env = E.make("bombs", seats=3, hands=1, skip_forced=False)
    forced = 0
    env.reset(seed=1)
    for agent in env.agent_iter():
        o, _, t, tr, _ = env.last()
        forced += (not t) and o["action_mask"].sum() == 1
        env.step(None if t or tr else int(o["action_mask"].nonzero()[0][0]))
    check("skip_forced=False asks decisions with one legal action", forced > 0, forced)
    layout(cc)
    pettingzoo_api_test(E)


def layout(cc):
    """Every member of jackarena.bots' and jackarena.env's ctypes mirrors
    sits where C puts it, and their constants are C's."""
    import ctypes
    from jackarena import bots
    import jackarena.env as E
    structs = [("ja_bot_desc", bots._Desc), ("ja_host_api", bots._HostApi),
               ("ja_decision", bots._Decision), ("ja_vec_config", E._VecConfig),
               ("ja_vec_buffers", E._VecBuffers), ("ja_vec_episode", E._VecEpisode)]
    consts = [("JA_PARAMS_MAX", bots.PARAMS_MAX)] + [
        ("JA_" + n, getattr(E, n)) for n in ("VEC_AUTO_RESET", "VEC_REWARD_PLACE",
                                             "VEC_ASK_FORCED", "VEC_SELF_PLAY", "VEC_SEAT_ROWS",
                                             "VEC_EVENT_RING", "VEC_MAX_THREADS")]
    src = ["#include <stdio.h>", "#include <stddef.h>", '#include "jackarena/ja_bot.h"',
           '#include "jackarena/ja_params.h"', '#include "jackarena/ja_vec_env.h"',
           "int main(void) {"] + ['printf("%%d\\n", (int)(%s));' % c for c, _ in consts]
    want = list(consts)
    for cname, cls in structs:
        src.append('printf("%%zu\\n", sizeof(%s));' % cname)
        want.append(("sizeof(%s)" % cname, ctypes.sizeof(cls)))
        for name, _ in cls._fields_:
            src.append('printf("%%zu\\n", offsetof(%s, %s));' % (cname, name))
            want.append(("offsetof(%s, %s)" % (cname, name), getattr(cls, name).offset))
    src.append("return 0; }")
    with tempfile.TemporaryDirectory() as work:
        c = os.path.join(work, "layout.c")
        open(c, "w").write("\n".join(src))
        exe = os.path.join(work, "layout")
        subprocess.run([cc, "-I", os.path.join(SDK, "..", "include"), c, "-o", exe], check=True)
        got = subprocess.run([exe], stdout=subprocess.PIPE, text=True, check=True).stdout.split()
    bad = [(w, v, int(g)) for (w, v), g in zip(want, got) if v != int(g)]
    check("the bot and batched environment structures' ctypes mirrors and constants match C "
          "(%d members)" % len(want),
          len(got) == len(want) and not bad, bad)


def pettingzoo_api_test(E):
    try:
        from pettingzoo.test import api_test
    except ImportError:
        print("SKIP: PettingZoo's api_test: pettingzoo is not importable here (not a Debian "
              "package); the environment's own checks above ran")
        return
    for game, seats, opts in SETS[::2]:
        env = E.make(game, seats=seats, **opts)
        try:
            api_test(env, num_cycles=200)
            ok, why = True, ""
        except Exception as e:  # noqa: BLE001 - reported
            ok, why = False, "%s: %s" % (type(e).__name__, e)
        check("PettingZoo's api_test passes for %s" % game, ok, why)


# ---- bots ----------------------------------------------------------------------

def play_bots(E, bots, env, seed, specs):
    """Plays an episode with a bot in every seat; its digest."""
    env.reset(seed=seed)
    players = [bots.load(s).seat(env.game, i, len(specs), seed) for i, s in enumerate(specs)]
    for agent in env.agent_iter():
        _, _, term, trunc, _ = env.last(observe=False)
        if term or trunc:
            env.step(None)
            continue
        s = env.agent_name_mapping[agent]
        env.step(env.encoding.index(players[s].act(env.state)))
    for p in players:
        p.end(env.state.outcome())
    return env.digest


def arena_digest(arena, game, specs, seed, opts):
    cmd = [arena, "play", game] + specs + ["--seed", str(seed), "--json"]
    for o in opts:
        cmd += ["--opt", o]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        return "arena failed: %s" % p.stderr.strip()
    return json.loads(p.stdout)["digest"]


BOT_MATCHES = [
    ("taylor-blackjack", ["greedy", "random"], 1, ["games=1"]),
    ("taylor-blackjack", ["random", "ismcts:iters=30", "greedy"], 2, ["games=1"]),
    ("brawljack", ["greedy", "ismcts:iters=40:rollout=random"], 3, ["hands=2"]),
    ("bruise-jack", ["greedy", "random", "greedy"], 4, ["hands=2"]),
    ("jack-in-the-box", ["greedy", "random"], 5, ["games=1"]),
    ("jack-in-the-box", ["greedy", "ismcts:iters=20", "random", "greedy"], 6,
     ["games=1", "teams=on"]),
    ("bombs", ["greedy", "random", "ismcts:iters=20"], 7, ["hands=1"]),
]


def bots_test(lib, arena):
    from jackarena import bots, forward
    forward.load(lib)
    import jackarena.env as E
    d = bots.bots_dir()
    check("the reference bots are found beside the library (%s)" % d,
          d is not None and os.path.exists(os.path.join(d, "ja_greedy.so")), d)
    for game, specs, seed, opts in BOT_MATCHES:
        env = E.make(game, seats=len(specs), **dict(o.split("=") for o in opts))
        mine = play_bots(E, bots, env, seed, specs)
        theirs = arena_digest(arena, game, specs, seed, opts)
        check("%s %s seed %d: the bots from Python play arena's match (digest)" % (
            game, " ".join(specs), seed), mine == theirs, (mine, theirs))
    # Any plugin file, with its parameters; errors in one line.
    path = os.path.join(d, "ja_random.so")
    p = bots.load(path)
    check("a plugin by its path", p.name == "random" and p.params == "", p)
    p = bots.load("ismcts", params={"iters": 10, "c": 0.5})
    check("parameters as a dict", p.params == "iters=10:c=0.5", p.params)
    msg = raises(bots.BotError, bots.load, "ismcts:iters=0")
    check("ismcts refuses iters=0 with its own message",
          msg and "bot ismcts refused its parameters 'iters=0': parameter 'iters' must be" in msg,
          msg)
    msg = raises(bots.BotError, bots.load, "greedy:depth=3")
    check("greedy refuses a parameter it does not take", msg and "depth" in msg, msg)
    msg = raises(bots.BotError, bots.load, "alphazero")
    check("an unknown bot name is refused naming the reference bots",
          msg == "unknown bot 'alphazero' (reference bots: random, greedy, ismcts; write "
          "./alphazero for a file)", msg)
    msg = raises(bots.BotError, bots.load, "/nonexistent/bot.so")
    check("a missing file is named", msg == "bot file /nonexistent/bot.so: no such file", msg)
    msg = raises(bots.BotError, bots.load, lib)
    check("a library that is no bot is refused", msg and "no entry point ja_bot_entry_v1" in msg,
          msg)
    check("the bot seed is the referee's one-way hash (fixed value)",
          bots.bot_seed(1, 0) == bots.bot_seed(1, 0) != bots.bot_seed(1, 1))


# ---- single --------------------------------------------------------------------

def single(lib, arena):
    from jackarena import bots, forward
    forward.load(lib)
    import jackarena.env as E
    # The learner's choices made by greedy itself: the match arena plays.
    for game, seats, opts, seed in (("bruise-jack", 3, ["hands=2"], 5),
                                    ("bombs", 3, ["hands=1"], 6),
                                    ("taylor-blackjack", 2, ["games=1"], 7)):
        kw = dict(o.split("=") for o in opts)
        one = E.single(game, seats=seats, learner=1, opponents=["greedy"], **kw)
        mirror = bots.load("greedy")
        obs, info = one.reset(seed=seed)
        me = mirror.seat(one.aec.game, 1, seats, seed)
        total, steps = 0.0, 0
        while True:
            code = me.act(one.aec.state)
            obs, reward, term, trunc, info = one.step(one.aec.encoding.index(code))
            total += reward
            steps += 1
            if term or trunc:
                break
        o = one.aec.state.outcome()
        check("%s: the wrapper's reward is the learner's score" % game, total == o.scores[1],
              (total, o.scores))
        theirs = arena_digest(arena, game, ["greedy"] * seats, seed, opts)
        check("%s: greedy learning against greedy plays arena's match (digest)" % game,
              info["digest"] == theirs and steps > 0, (info, theirs))
    # A random learner against greedy, several episodes, seeds repeatable.
    one = E.single("bruise-jack", seats=2, opponents="greedy", hands=1)
    results = []
    for ep in range(2):
        for _ in range(2):
            rng = random.Random(ep)
            obs, info = one.reset(seed=100 + ep, options={"learner": ep % 2})
            while True:
                a = int(rng.choice(obs["action_mask"].nonzero()[0]))
                obs, r, term, trunc, info = one.step(a)
                if term or trunc:
                    break
            results.append(info["digest"])
    check("the same seed and learner choices give the same episode; the learner's seat moves",
          results[0] == results[1] and results[2] == results[3] and results[0] != results[2],
          results)
    check("a step after the end is refused", raises(ValueError, one.step, 0))
    msg = raises(bots.BotError, E.single, "bombs", seats=3, opponents=["nobot"])
    check("an unknown opponent is refused", msg and "unknown bot 'nobot'" in msg, msg)


def main():
    mode, lib = sys.argv[1], os.path.abspath(sys.argv[2])
    if mode == "tables":
        tables(lib)
    elif mode == "aec":
        aec(lib)
    elif mode == "windows":
        windows(lib, os.path.abspath(sys.argv[3]))
    elif mode == "api":
        api(lib, sys.argv[3])
    elif mode == "bots":
        bots_test(lib, os.path.abspath(sys.argv[3]))
    elif mode == "single":
        single(lib, os.path.abspath(sys.argv[3]))
    else:
        raise SystemExit("test_env.py: unknown mode '%s'" % mode)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
