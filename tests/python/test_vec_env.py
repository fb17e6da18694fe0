#!/usr/bin/python3
"""jackarena.env.VecEnv, the batched environments in C (libjackarena_env,
docs/training.md "Batched environments").

    test_vec_env.py agree LIB       every game: the C vectors, masks, rewards
                                    and ends equal the Python single-agent
                                    environment's byte for byte, step after
                                    step, over several episodes (auto-reset),
                                    with random and greedy opponents
    test_vec_env.py arena LIB ARENA a learner that plays as greedy plays
                                    `arena play`'s match (the same digest),
                                    in every game; determinism
    test_vec_env.py errors LIB      bad buffers, actions and states: one clear
                                    error naming the array or the environment
    test_vec_env.py selfplay LIB    self-play in every game: each row's seat,
                                    vector and mask, the rewards of every seat
                                    and the digests are the multi-agent
                                    environment's (make()) step after step;
                                    determinism; its errors
    test_vec_env.py layouts LIB     events="ring" and layout="seats": in
                                    every game each row is the ring of the
                                    seat's observation (to_ring() of the
                                    multi-agent environment's vector), the
                                    same when the cards the seat cannot see
                                    are re-dealt; a seat's row written only
                                    when it is asked; to_ring/from_ring;
                                    threads; errors

LIB is libjackarena.so.0 (libjackarena_env.so.0 beside it); the reference
bots are found beside it (bots-plain/ in a sanitized build tree).
"""
import hashlib
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SDK = os.path.normpath(os.path.join(HERE, "..", "..", "sdk", "python"))
sys.path.insert(0, SDK)
sys.path.insert(0, HERE)

from tally import check, finish  # noqa: E402
from test_env import SETS, arena_digest, raises  # noqa: E402


def row(v, i):
    return v.obs[i].tobytes(), v.mask[i].tobytes()


def py_row(obs):
    return obs["observation"].tobytes(), obs["action_mask"].tobytes()


def py_reset(E, np, p, seed, i):
    """The row, reward and end the Python environment gives at reset: an
    episode can end before the learner is asked (reward: its score)."""
    obs, info = p.reset(seed=seed)
    me = "player_%d" % p.learner
    if not p.aec.terminations[me]:
        return py_row(obs), 0.0, False
    last_info[i] = info
    o = p.aec.state.outcome()
    r = o.scores[p.learner] if p.aec.reward_kind == "score" else o.pairwise(p.learner)
    return py_row(obs), float(np.float32(r)), True


def agree_one(E, np, game, seats, opts, opponents, learner, n_envs, steps):
    """n_envs environments in C beside as many Python ones, the learner's
    choices random (one stream per environment). Returns the problems."""
    v = E.make_vec(game, n_envs, seats=seats, learner=learner, opponents=opponents, **opts)
    py = [E.single(game, seats=seats, learner=learner, opponents=opponents, **opts)
          for _ in range(n_envs)]
    seeds = [1000 * seats + 17 * i for i in range(n_envs)]
    v.reset(seeds)
    rngs = [random.Random(i) for i in range(n_envs)]
    episode = [0] * n_envs
    last = [None] * n_envs
    problems, ends = [], 0
    for i, p in enumerate(py):
        last[i] = py_reset(E, np, p, seeds[i], i)
    for t in range(steps):
        for i in range(n_envs):
            want, reward, done = last[i]
            got = (row(v, i), float(v.reward[i]), bool(v.done[i]))
            if got != (want, reward, done):
                problems.append("%s env %d step %d: %s" % (game, i, t, "vector" if got[0][0] !=
                                                           want[0] else "mask" if got[0][1] !=
                                                           want[1] else (got[1:], (reward, done))))
        actions = np.zeros(n_envs, np.int64)
        for i in range(n_envs):
            if v.done[i]:  # the next step starts the next episode (auto-reset)
                ep = v.episode(i)
                if ep["digest"] != last_info[i]["digest"]:
                    problems.append("%s env %d: digest %s, Python's %s" % (
                        game, i, ep["digest"], last_info[i]["digest"]))
                ends += 1
                episode[i] += 1
                last[i] = py_reset(E, np, py[i], E.VecEnv.episode_seed(seeds[i], episode[i]), i)
                actions[i] = 12345  # ignored
                continue
            a = rngs[i].choice(list(np.flatnonzero(v.mask[i])))
            actions[i] = a
            obs, r, term, trunc, info = py[i].step(int(a))
            last[i] = (py_row(obs), float(np.float32(r)), bool(term or trunc))
            if term or trunc:
                last_info[i] = info
        v.step(actions)
        if len(problems) > 3:
            break
    v.close()
    for p in py:
        p.close()
    return problems, ends


last_info = {}


def agree(lib):
    from jackarena import forward
    forward.load(lib)
    import numpy as np
    import jackarena.env as E
    for k, (game, seats, opts) in enumerate(SETS):
        opponents = ["greedy"] if k % 2 else ["random"]
        learner = k % seats
        problems, ends = agree_one(E, np, game, seats, opts, opponents, learner, 3,
                                   400 if game != "taylor-blackjack" else 700)
        check("%s %d seats %s, learner %d against %s: C's vectors, masks, rewards, ends and "
              "digests are Python's (%d episodes ended)" % (game, seats, opts, learner,
                                                           opponents[0], ends),
              not problems and ends > 0, problems[:4])
    # The "place" reward and every decision asked (skip_forced=False).
    for kw in ({"reward": "place", "hands": 1}, {"skip_forced": False, "hands": 1}):
        problems, ends = agree_one(E, np, "bruise-jack", 3, kw, ["greedy", "random"], 1, 3, 200)
        check("bruise-jack %s: C's rows are Python's (%d episodes ended)" % (kw, ends),
              not problems and ends > 0, problems[:4])


def aec_row(np, a, seat):
    """What the C row of the multi-agent environment a must hold: the seat
    asked (at the end: seat, the last asked), its vector and mask, every
    seat's reward, the end."""
    done = all(a.terminations.values())
    if not done:
        seat = a.agent_name_mapping[a.agent_selection]
    o = a.observe("player_%d" % seat)
    rewards = [float(np.float32(a.rewards["player_%d" % s] if done else 0.0))
               for s in range(a.n_seats)]
    return seat, o["observation"].tobytes(), o["action_mask"].tobytes(), rewards, done


def selfplay_next(E, np, v, a, i, lists):
    """Environment i's action of the next step in C and in make()'s a: a
    random legal one, played in a; or, its episode over, a's next episode
    (the C one starts at the step). Returns 1 for an ended episode."""
    seeds, episode, last_seat, rngs, actions = lists
    if v.done[i]:
        episode[i] += 1
        a.reset(seed=E.VecEnv.episode_seed(seeds[i], episode[i]))
        last_seat[i] = 0
        actions[i] = 12345  # ignored
        return 1
    actions[i] = rngs[i].choice(list(np.flatnonzero(v.mask[i])))
    last_seat[i] = int(v.seat[i])
    a.step(int(actions[i]))
    return 0


def selfplay_one(E, np, game, seats, opts, n_envs, steps, **kw):
    """n_envs self-play environments in C beside as many make() ones, the
    choices random. Returns the problems and the episodes ended."""
    v = E.make_vec(game, n_envs, seats=seats, self_play=True, **kw, **opts)
    aec = [E.make(game, seats=seats, **kw, **opts) for _ in range(n_envs)]
    seeds = [2000 * seats + 31 * i for i in range(n_envs)]
    v.reset(seeds)
    for i, a in enumerate(aec):
        a.reset(seed=seeds[i])
    rngs = [random.Random(7 + i) for i in range(n_envs)]
    episode, last_seat = [0] * n_envs, [0] * n_envs
    problems, ends = [], 0
    for t in range(steps):
        actions = np.zeros(n_envs, np.int64)
        for i, a in enumerate(aec):
            want = aec_row(np, a, last_seat[i])
            got = (int(v.seat[i]), v.obs[i].tobytes(), v.mask[i].tobytes(),
                   [float(r) for r in v.reward[i]], bool(v.done[i]))
            if got != want:
                what = [k for k, x, y in zip(("seat", "vector", "mask", "rewards", "done"), got,
                                             want) if x != y]
                problems.append("%s env %d step %d: %s differ (%s, %s)" % (
                    game, i, t, ", ".join(what), got[0::3], want[0::3]))
            if v.done[i]:  # the next step starts the next episode
                ep = v.episode(i)
                if ep["digest"] != a.digest:
                    problems.append("%s env %d: digest %s, make()'s %s" % (game, i, ep["digest"],
                                                                          a.digest))
            ends += selfplay_next(E, np, v, a, i, (seeds, episode, last_seat, rngs, actions))
        v.step(actions)
        if len(problems) > 3:
            break
    v.close()
    return problems, ends


def selfplay(lib):
    from jackarena import forward
    forward.load(lib)
    import numpy as np
    import jackarena.env as E
    for game, seats, opts in SETS:
        problems, ends = selfplay_one(E, np, game, seats, opts, 2,
                                      300 if game != "taylor-blackjack" else 400 * seats)
        check("%s %d seats %s in self-play: C's seats, vectors, masks, rewards, ends and digests "
              "are make()'s (%d episodes ended)" % (game, seats, opts, ends),
              not problems and ends > 0, problems[:4])
    for kw in ({"reward": "place"}, {"skip_forced": False}):
        problems, ends = selfplay_one(E, np, "bruise-jack", 3, {"hands": 1}, 2, 300, **kw)
        check("bruise-jack in self-play, %s: C's rows are make()'s (%d episodes ended)" % (
            kw, ends), not problems and ends > 0, problems[:4])
    hashes = trajectories(E, np, ([5, 6, 7], [5, 6, 7], [5, 6, 9]), self_play=True)
    check("self-play: the same seeds and actions give the same trajectories; another seed "
          "another", hashes[0] == hashes[1] != hashes[2], hashes)
    threaded = trajectories(E, np, ([5, 6, 7], [5, 6, 7]), self_play=True, threads=2)
    check("self-play on 2 threads: the same trajectories as on one",
          threaded[0] == hashes[0] and threaded[1] == hashes[0], (threaded, hashes[0]))
    # Its shapes and errors.
    v = E.make_vec("bruise-jack", 4, seats=3, self_play=True)
    check("self-play's reward has a column per seat, its seat a row each",
          v.reward.shape == (4, 3) and v.seat.shape == (4,) and v.seat.dtype == np.int32)
    msg = raises(ValueError, v.bind, np.zeros((4, v.encoding.obs_length), np.float32),
                 np.zeros((4, v.encoding.n_actions), np.int8), np.zeros(4, np.float32),
                 np.zeros(4, np.uint8))
    check("self-play's bind() wants the reward of every seat", msg ==
          "reward must be of shape (4, 3), not (4,)", msg)
    v.reset(1)
    try:
        v.mask[0, 0] = 1
        writeable = True
    except ValueError:
        writeable = False
    check("the environment's own arrays are read-only to the caller", not writeable)
    v.close()
    msg = raises(ValueError, E.make_vec, "bruise-jack", 2, seats=2, self_play=True,
                 opponents=["random"])
    check("self-play refuses opponents", msg and msg.startswith("self-play takes no opponent"),
          msg)


def layouts_one(E, np, game, seats, opts, n_envs, steps, layout):
    """Self-play in C with the events as a ring (and layout) beside make()
    environments, random choices. Each row must be to_ring() of the asked
    seat's vector; with layout="seats" every other seat's row must be the
    one it had when last asked. Every few steps the asked seat's hidden
    cards are re-dealt in a clone of make()'s state: its ring row must not
    change. Returns the problems, the episodes ended and the re-deals."""
    v = E.make_vec(game, n_envs, seats=seats, self_play=True, events="ring", layout=layout,
                   **opts)
    enc = v.encoding
    aec = [E.make(game, seats=seats, **opts) for _ in range(n_envs)]
    seeds = [3000 * seats + 7 * i for i in range(n_envs)]
    v.reset(seeds)
    for i, a in enumerate(aec):
        a.reset(seed=seeds[i])
    rngs, hide = [random.Random(11 + i) for i in range(n_envs)], random.Random(5)
    episode, last_seat = [0] * n_envs, [0] * n_envs
    kept = [dict() for _ in range(n_envs)]  # seat: its row when last written
    problems, ends, scrambles = [], 0, 0
    for t in range(steps):
        actions = np.zeros(n_envs, np.int64)
        for i, a in enumerate(aec):
            seat, vec, mask, rewards, done = aec_row(np, a, last_seat[i])
            want = enc.to_ring(np.frombuffer(vec, np.float32))
            got = v.obs[i, int(v.seat[i])] if layout == "seats" else v.obs[i]
            if (int(v.seat[i]), got.tobytes(), v.mask[i].tobytes(), bool(v.done[i])) != \
                    (seat, want.tobytes(), mask, done):
                problems.append("%s env %d step %d: not the ring of seat %d's vector" % (
                    game, i, t, seat))
            if not np.array_equal(enc.from_ring(got), np.frombuffer(vec, np.float32)):
                problems.append("%s env %d step %d: from_ring is not the vector" % (game, i, t))
            kept[i][seat] = want
            for s, row in kept[i].items():
                if layout == "seats" and s != seat and not np.array_equal(v.obs[i, s], row):
                    problems.append("%s env %d step %d: seat %d's row changed, seat %d asked" % (
                        game, i, t, s, seat))
            if not done and hide.random() < 0.1:
                real = a.state.clone()
                a.state.determinize(seat, hide.getrandbits(64))
                after = enc.to_ring(a.observe("player_%d" % seat)["observation"])
                a.state = real
                scrambles += 1
                if not np.array_equal(after, got):
                    problems.append("%s env %d step %d: seat %d's ring row depends on cards it "
                                    "cannot see" % (game, i, t, seat))
            ends += selfplay_next(E, np, v, a, i, (seeds, episode, last_seat, rngs, actions))
        v.step(actions)
        if len(problems) > 3:
            break
    v.close()
    return problems, ends, scrambles


def layouts(lib):
    from jackarena import forward
    forward.load(lib)
    import numpy as np
    import jackarena.env as E
    for game, seats, opts in SETS:
        for layout in ("seats", "row"):
            problems, ends, scrambles = layouts_one(
                E, np, game, seats, opts, 2, 200 if game != "taylor-blackjack" else 300 * seats,
                layout)
            check("%s %d seats %s, events='ring', layout=%r: every row is to_ring() of its "
                  "seat's vector, the same with the hidden cards re-dealt (%d times), the other "
                  "seats' rows kept (%d episodes ended)" % (game, seats, opts, layout, scrambles,
                                                            ends),
                  not problems and ends > 0 and scrambles > 0, problems[:4])
    # Against opponents: the learner's row is to_ring() of the default one.
    for game, seats, opts in SETS[::3]:
        a = E.make_vec(game, 3, seats=seats, opponents=["random"], **opts)
        b = E.make_vec(game, 3, seats=seats, opponents=["random"], events="ring", **opts)
        a.reset(9)
        b.reset(9)
        rng, bad = random.Random(2), 0
        for _ in range(150):
            bad += not np.array_equal(a.encoding.to_ring(a.obs), b.obs)
            acts = [rng.choice(list(np.flatnonzero(m))) if m.any() else 0 for m in a.mask]
            a.step(acts)
            b.step(acts)
        check("%s against random, events='ring': the rows are to_ring() of the default ones"
              % game, bad == 0, bad)
        a.close()
        b.close()
    # to_ring and from_ring on their own: a window of fewer than K events
    # is its own ring; a full one turns.
    enc = E.encoding("taylor-blackjack")
    k, at = enc.n_events, dict(enc.event_fields)["ev_seq"]
    x = np.zeros(enc.obs_length, np.float32)
    x[at:at + 5] = np.arange(1, 6)
    check("fewer events than the window: the ring is the window", np.array_equal(
        enc.to_ring(x), x))
    x[at:at + k] = np.arange(k + 10, 2 * k + 10)  # events k + 10 .. 2k + 9
    kind = dict(enc.event_fields)["ev_kind"]
    x[kind:kind + k] = np.arange(k) % 7
    r = enc.to_ring(x)
    check("a full window turns: event q at slot (q - 1) %% %d" % k,
          r[at + (k + 10 - 1) % k] == k + 10 and r[kind + (k + 10 - 1) % k] == 0 and
          np.array_equal(enc.from_ring(r), x) and np.array_equal(
              enc.to_ring(np.stack([x, x]))[1], r))
    # Threads, shapes and errors.
    hashes = trajectories(E, np, ([5, 6, 7], [5, 6, 7]), self_play=True, layout="seats",
                          events="ring")
    threaded = trajectories(E, np, ([5, 6, 7],), self_play=True, layout="seats", events="ring",
                            threads=2)
    check("layout='seats', events='ring' on 2 threads: the same trajectories as on one",
          hashes[0] == hashes[1] == threaded[0], (hashes, threaded))
    v = E.make_vec("bombs", 4, seats=3, self_play=True, layout="seats", hands=1)
    check("layout='seats': obs has a row per seat", v.obs.shape == (4, 3, v.encoding.obs_length))
    msg = raises(ValueError, v.bind, np.zeros((4, v.encoding.obs_length), np.float32),
                 np.zeros((4, v.encoding.n_actions), np.int8), np.zeros((4, 3), np.float32),
                 np.zeros(4, np.uint8))
    check("layout='seats': bind() wants a row per seat", msg == "obs must be of shape (4, 3, %d), "
          "not (4, %d)" % (v.encoding.obs_length, v.encoding.obs_length), msg)
    v.close()
    for kw, want in ((dict(layout="seats"), "layout='seats' is for self-play"),
                     (dict(layout="seat"), "layout must be one of row, seats, not 'seat'"),
                     (dict(events="rings"), "events must be one of window, ring, not 'rings'")):
        msg = raises(ValueError, E.make_vec, "bruise-jack", 2, seats=2, **kw)
        check("make_vec refuses %s" % kw, msg and msg.startswith(want), msg)


def trajectories(E, np, seed_lists, **kw):
    """For each list of seeds, the SHA-256 of every array after each of 300
    steps of random legal choices in Bombs (3 seats, one hand)."""
    hashes = []
    for seeds in seed_lists:
        v = E.make_vec("bombs", len(seeds), seats=3, hands=1, **kw)
        v.reset(seeds)
        h, rng = hashlib.sha256(), random.Random(1)
        for _ in range(300):
            v.step([rng.choice(list(np.flatnonzero(m))) if m.any() else 0 for m in v.mask])
            h.update(v.obs.tobytes() + v.mask.tobytes() + v.reward.tobytes() +
                     v.done.tobytes() + v.seat.tobytes())
        hashes.append(h.hexdigest())
        v.close()
    return hashes


def arena(lib, arena_path):
    from jackarena import bots, forward
    forward.load(lib)
    import numpy as np
    import jackarena.env as E
    # The learner's choices made by greedy itself: arena's match.
    for game, seats, opts, seed in (("taylor-blackjack", 2, ["games=1"], 7),
                                    ("brawljack", 3, ["hands=2"], 3),
                                    ("bruise-jack", 3, ["hands=2"], 5),
                                    ("jack-in-the-box", 4, ["games=1", "teams=on"], 6),
                                    ("bombs", 3, ["hands=1"], 6)):
        kw = dict(o.split("=") for o in opts)
        v = E.make_vec(game, 2, seats=seats, learner=1, opponents=["greedy"], auto_reset=False,
                       **kw)
        v.reset([seed, seed + 1])
        # The mirror answers in a Python single-agent environment that
        # follows the same match; its choices are given to C.
        one = [E.single(game, seats=seats, learner=1, opponents=["greedy"], **kw)
               for _ in range(2)]
        mirror = [bots.load("greedy").seat(v.game, 1, seats, s) for s in (seed, seed + 1)]
        for i, s in enumerate((seed, seed + 1)):
            one[i].reset(seed=s)
        while not v.done.all():
            acts = np.zeros(2, np.int64)
            for i in range(2):
                if not v.done[i] and not one[i].aec.terminations["player_1"]:
                    acts[i] = one[i].aec.encoding.index(mirror[i].act(one[i].aec.state))
                    one[i].step(int(acts[i]))
            v.step(acts)
        for i, s in enumerate((seed, seed + 1)):
            theirs = arena_digest(arena_path, game, ["greedy"] * seats, s, opts)
            ep = v.episode(i)
            check("%s seed %d: greedy learning against greedy in C plays arena's match" % (
                game, s), ep["digest"] == theirs and ep["steps"] > 0, (ep, theirs))
        v.close()
    # Determinism: the same seeds and choices, the same trajectories.
    hashes = trajectories(E, np, ([5, 6, 7, 8], [5, 6, 7, 8], [9, 6, 7, 8]),
                          opponents=["random", "greedy"])
    check("the same seeds and actions give the same trajectories; another seed another",
          hashes[0] == hashes[1] != hashes[2], hashes)
    threaded = trajectories(E, np, ([5, 6, 7, 8],), opponents=["random", "greedy"], threads=3)
    check("on 3 threads (greedy and random played on them) the same trajectories as on one",
          threaded[0] == hashes[0], (threaded, hashes[0]))


def errors(lib):
    from jackarena import bots, forward
    forward.load(lib)
    import numpy as np
    import jackarena.env as E
    v = E.make_vec("bruise-jack", 4, seats=2, opponents="random")
    n, L, A = 4, v.encoding.obs_length, v.encoding.n_actions
    good = dict(obs=np.zeros((n, L), np.float32), mask=np.zeros((n, A), np.int8),
                reward=np.zeros(n, np.float32), done=np.zeros(n, np.uint8))
    for name, bad, want in (
            ("obs", np.zeros((n, L), np.float64), "obs must be of dtype float32, not float64"),
            ("mask", np.zeros((n, A + 1), np.int8), "mask must be of shape (4, %d), not (4, %d)"
             % (A, A + 1)),
            ("reward", np.zeros(n + 1, np.float32), "reward must be of shape (4,), not (5,)"),
            ("done", np.zeros((n, 2), np.uint8)[:, 0], "done must be C-contiguous and writeable"),
            ("obs", [[0.0] * L] * n, "obs must be a NumPy array, not list")):
        msg = raises(ValueError, v.bind, **dict(good, **{name: bad}))
        check("bind() refuses a bad %s: %s" % (name, want), msg == want, msg)
    check("bind() takes caller-owned arrays, written in place",
          v.bind(**good) is None and v.obs is good["obs"])
    msg = raises(ValueError, v.step, [0] * n)
    check("a step before any reset names the environment",
          msg == "environment 0: never reset (ja_vec_reset first)", msg)
    v.reset(3)
    check("reset writes into the caller's arrays", good["mask"].sum() > 0)
    acts = np.array([int(np.flatnonzero(m)[0]) for m in v.mask])
    bad = acts.copy()
    bad[2] = A + 7
    before = v.obs.copy()
    msg = raises(E.IllegalAction, v.step, bad)
    check("an index out of range is refused naming environment 2, nothing played",
          msg and msg.startswith("bruise-jack: environment 2: action %d is not legal now" % (A + 7))
          and np.array_equal(before, v.obs), msg)
    illegal = acts.copy()
    illegal[3] = int(np.flatnonzero(v.mask[3] == 0)[0])
    msg = raises(E.IllegalAction, v.step, illegal)
    check("an illegal index is refused naming environment 3 and the action's label",
          msg and "environment 3: action %d (" % illegal[3] in msg, msg)
    for a, want in ((np.zeros(n + 1, np.int64), "actions must be 4 integer indexes"),
                    (np.zeros(n, np.float32), "actions must be 4 integer indexes")):
        msg = raises(ValueError, v.step, a)
        check("step() refuses %s actions" % a.dtype, msg and msg.startswith(want), msg)
    msg = raises(ValueError, v.reset, [1, 2])
    check("reset() refuses a wrong number of seeds", msg and "seeds must be" in msg, msg)
    msg = raises(ValueError, v.reset, [1, -2, 3, 4])
    check("reset() names the environment of a negative seed",
          msg and msg.startswith("environment 1:"), msg)
    v.close()
    # Without auto-reset, an ended episode's environment must be reset.
    v = E.make_vec("bruise-jack", 2, seats=2, opponents="random", auto_reset=False, hands=1)
    v.reset(1)
    rng = random.Random(0)
    while not v.done.any():
        v.step([rng.choice(list(np.flatnonzero(m))) for m in v.mask])
    i = int(np.flatnonzero(v.done)[0])
    final = v.obs[i].copy()
    v.step([0, 0] if v.done.all() else [0 if v.done[k] else int(np.flatnonzero(v.mask[k])[0])
                                         for k in range(2)])
    check("without auto_reset an ended environment stays over, its action ignored",
          v.done[i] == 1 and v.reward[i] == 0 and np.array_equal(final, v.obs[i]))
    v.reset_one(i, 99)
    check("reset_one() starts it again", not v.done[i] and v.mask[i].any())
    v.close()
    msg = raises(ValueError, v.step, [0, 0])
    check("a closed environment says so", msg == "the environment is closed", msg)
    for kw, want in ((dict(learner=2), "learner must be a seat from 0 to 1, not 2"),
                     (dict(opponents=[]), "give at least one opponent"),
                     (dict(decks=9), "decks")):
        msg = raises(ValueError, E.make_vec, "bruise-jack", 2, seats=2, **kw)
        check("make_vec refuses %s" % kw, msg and want in msg, msg)
    msg = raises(bots.BotError, E.make_vec, "bombs", 2, seats=3, opponents=["nobot"])
    check("an unknown opponent is refused", msg and "unknown bot 'nobot'" in msg, msg)
    msg = raises(bots.BotError, E.make_vec, "bombs", 2, seats=3, opponents=["ismcts:iters=0"])
    check("an opponent's bad parameters are refused", msg and "iters" in msg, msg)
    for bad in (0, 65, 1.5):
        msg = raises(ValueError, E.make_vec, "bombs", 2, seats=3, threads=bad)
        check("threads=%r is refused" % (bad,), msg == "threads must be an integer from 1 to "
              "64, not %r" % (bad,), msg)


def main():
    mode, lib = sys.argv[1], os.path.abspath(sys.argv[2])
    if mode == "agree":
        agree(lib)
    elif mode == "arena":
        arena(lib, os.path.abspath(sys.argv[3]))
    elif mode == "errors":
        errors(lib)
    elif mode == "selfplay":
        selfplay(lib)
    elif mode == "layouts":
        layouts(lib)
    else:
        raise SystemExit("test_vec_env.py: unknown mode '%s'" % mode)
    return finish()


if __name__ == "__main__":
    sys.exit(main())
