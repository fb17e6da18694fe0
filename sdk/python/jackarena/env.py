"""Environments for training bots: every game as a multi-agent environment
with PettingZoo's AEC interface, and a single-agent wrapper with opponents.

    import jackarena.env

    env = jackarena.env.make("bombs", seats=3, hands=1)
    env.reset(seed=7)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        if terminated or truncated:
            action = None
        else:                                   # any legal index
            action = int(obs["action_mask"].nonzero()[0][0])
        env.step(action)

    one = jackarena.env.single("bruise-jack", seats=2, opponents=["greedy"])
    obs, info = one.reset(seed=1)
    obs, reward, terminated, truncated, info = one.step(action)

Observations are {"observation": float32 vector, "action_mask": int8 vector}
as PettingZoo's classic games give them; the vector and the action index are
fixed per game (jackarena._encodings, docs/training.md "Encodings"). Neither
PettingZoo nor Gymnasium is needed: when they are importable the environment
is a pettingzoo.AECEnv and its spaces are Gymnasium's, else this module's
minimal Box, Discrete and Dict. NumPy is needed (Debian: python3-numpy).

Joint decisions (Bombs' interrupt windows, several seats asked at once): the
seats asked are selected one after the other in seat order; each answer is
kept aside and the engine applies them together once the last seat of the
window has answered. Until then the state does not change, so every seat
observes the window as it opened: no seat learns another's pending answer.

docs/training.md is the guide.
"""
import ctypes
import hashlib
import operator
import os
import random
import struct

try:
    import numpy as np
except ImportError:  # pragma: no cover - the message is the point
    raise ImportError("jackarena.env needs NumPy (Debian: apt-get install python3-numpy)") from None

from jackarena import _abi, _encodings, bots, forward

__all__ = ["make", "single", "make_vec", "VecEnv", "Encoding", "JackArenaEnv", "SingleAgentEnv", "IllegalAction",
           "Box", "Discrete", "Dict", "ENCODING_VERSION"]

ENCODING_VERSION = _encodings.ENCODING_VERSION
IllegalAction = forward.IllegalAction

# ---- Spaces: Gymnasium's when importable, else minimal ones ----------------


class _Space:
    def __init__(self, shape, dtype):
        self.shape, self.dtype = shape, np.dtype(dtype)
        self._rng = np.random.default_rng()

    def seed(self, seed=None):
        self._rng = np.random.default_rng(seed)
        return [seed]

    @property
    def np_random(self):
        return self._rng


class Box(_Space):
    """Values between low and high (arrays of shape), of dtype."""

    def __init__(self, low, high, shape, dtype):
        super().__init__(tuple(shape), dtype)
        self.low = np.broadcast_to(np.asarray(low, self.dtype), self.shape).copy()
        self.high = np.broadcast_to(np.asarray(high, self.dtype), self.shape).copy()

    def sample(self, mask=None):
        if self.dtype.kind == "f":
            lo, hi = self.low.astype(np.float64), self.high.astype(np.float64)
            return (lo + self._rng.random(self.shape) * (hi - lo)).astype(self.dtype)
        return self._rng.integers(self.low, self.high, self.shape, endpoint=True).astype(self.dtype)

    def contains(self, x):
        x = np.asarray(x)
        return (x.shape == self.shape and np.can_cast(x.dtype, self.dtype) and
                bool(np.all(x >= self.low)) and bool(np.all(x <= self.high)))

    def __contains__(self, x):
        return self.contains(x)

    def __eq__(self, other):
        return (isinstance(other, Box) and self.shape == other.shape and
                self.dtype == other.dtype and np.array_equal(self.low, other.low) and
                np.array_equal(self.high, other.high))

    def __repr__(self):
        return "Box(%s, %s)" % (self.shape, self.dtype)


class Discrete(_Space):
    """The integers 0 .. n-1."""

    def __init__(self, n):
        super().__init__((), np.int64)
        self.n, self.start = int(n), 0

    def sample(self, mask=None):
        if mask is not None:
            ok = np.flatnonzero(np.asarray(mask))
            return int(self._rng.choice(ok)) if len(ok) else 0
        return int(self._rng.integers(self.n))

    def contains(self, x):
        try:
            v = operator.index(x)
        except TypeError:
            return False
        return 0 <= v < self.n

    def __contains__(self, x):
        return self.contains(x)

    def __eq__(self, other):
        return isinstance(other, Discrete) and self.n == other.n

    def __repr__(self):
        return "Discrete(%d)" % self.n


class Dict(_Space):
    """A dict of spaces."""

    def __init__(self, spaces):
        super().__init__(None, np.float32)
        self.spaces = dict(spaces)

    def __getitem__(self, key):
        return self.spaces[key]

    def seed(self, seed=None):
        for i, sp in enumerate(self.spaces.values()):
            sp.seed(None if seed is None else seed + i)
        return [seed]

    def sample(self, mask=None):
        return {k: sp.sample() for k, sp in self.spaces.items()}

    def contains(self, x):
        return (isinstance(x, dict) and x.keys() == self.spaces.keys() and
                all(sp.contains(x[k]) for k, sp in self.spaces.items()))

    def __contains__(self, x):
        return self.contains(x)

    def __eq__(self, other):
        return isinstance(other, Dict) and self.spaces == other.spaces

    def __repr__(self):
        return "Dict(%s)" % ", ".join("%r: %r" % kv for kv in self.spaces.items())


try:
    import gymnasium.spaces as _gs

    def _box(low, high, shape, dtype):
        return _gs.Box(low=low, high=high, shape=shape, dtype=dtype)
    _discrete, _dict = _gs.Discrete, _gs.Dict
except ImportError:
    _box, _discrete, _dict = Box, Discrete, Dict

try:
    from pettingzoo import AECEnv as _AECBase
except ImportError:
    _AECBase = object

# ---- Encodings -------------------------------------------------------------

_NP_TYPES = {"u8": np.uint8, "i8": np.int8, "u16": np.uint16, "i16": np.int16, "u32": np.uint32,
             "i32": np.int32, "i64": np.int64}


class Encoding:
    """A game's fixed encodings (docs/training.md, "Encodings"):

    - obs_length, the observation vector's length: every field of the
      observation in the field table's order, each element one float32 of
      its integer value; fields: (name, offset in the vector, count, type);
      low and high: each element's bounds (its C type's);
    - n_actions, the action index: the game's canonical action codes in
      ascending order; codes (the code of each index), index(code),
      code(index), mask(codes);
    - the event window as a ring (make_vec(..., events="ring")): to_ring()
      of a vector and from_ring() back; n_events (the window's K) and
      event_fields (the window's columns: ev_seq and the other ev_* fields
      of K elements, with their offsets in the vector).

    The vector is a function of one seat's observation alone (what the
    engine's observe() gives that seat, or the protocol's obs dict, which
    holds the same): encode_dict() of an observation a bot receives equals
    encode_buffer() of the engine's."""

    def __init__(self, game):
        name = game.name
        if name not in _encodings.GAMES:
            raise forward.LibraryError("no encoding for game %s in this SDK" % name)
        obs_version, length, fields, n_actions, blocks = _encodings.GAMES[name]
        lib = [(f.name, f.count, f.type) for f in game.obs_fields]
        if obs_version != game.obs_version or lib != [(n, c, t) for n, _, c, t in fields]:
            raise forward.LibraryError(
                "%s: the library's observation (version %d) is not the one this SDK's encoding "
                "was made from (version %d): the library and the package come from different "
                "releases" % (name, game.obs_version, obs_version))
        self.game, self.obs_version, self.obs_length = name, obs_version, length
        self.fields, self.n_actions, self.blocks = fields, n_actions, blocks
        self.codes = np.concatenate([np.arange(first, first + n, dtype=np.uint32)
                                     for first, n in blocks])
        self._index = {int(c): i for i, c in enumerate(self.codes)}
        self.low = np.empty(length, np.float32)
        self.high = np.empty(length, np.float32)
        offsets = {f.name: f.offset for f in game.obs_fields}
        self._views = []  # (slice of the vector, numpy type, byte offset, count, name)
        for fname, at, count, typ in fields:
            info = np.iinfo(_NP_TYPES[typ])
            self.low[at:at + count] = np.float32(info.min)
            self.high[at:at + count] = np.float32(info.max)
            self._views.append((slice(at, at + count), _NP_TYPES[typ], offsets[fname], count,
                                fname))
        self.n_events = next((c for n, _, c, _ in fields if n == "ev_seq"), 0)
        self.event_fields = [(n, at) for n, at, c, _ in fields
                             if self.n_events and c == self.n_events and n.startswith("ev_")]

    def __repr__(self):
        return "<jackarena.env.Encoding %s: %d values, %d actions>" % (
            self.game, self.obs_length, self.n_actions)

    def encode_buffer(self, buf, out=None):
        """The vector of an observation as the engine writes it (a buffer of
        the C struct: forward's observe buffer, a ja_decision's obs)."""
        out = np.empty(self.obs_length, np.float32) if out is None else out
        for sl, typ, off, count, _ in self._views:
            out[sl] = np.frombuffer(buf, typ, count, off)
        return out

    def encode_dict(self, obs, out=None):
        """The vector of an observation dict, as a bot receives it over the
        protocol (Bot.act's obs) or forward's State.observe() gives it."""
        out = np.empty(self.obs_length, np.float32) if out is None else out
        for sl, _, _, count, name in self._views:
            out[sl] = obs[name]
        return out

    def _window(self, vec):
        if not self.n_events:
            raise ValueError("%s has no event window" % self.game)
        at = dict(self.event_fields)["ev_seq"]
        return vec[..., at:at + self.n_events]

    def to_ring(self, vec, out=None):
        """The vector (or vectors: any leading dimensions) with the event
        window as a ring, as make_vec(..., events="ring") writes it: the event
        numbered q (its ev_seq) at slot (q - 1) % n_events of every event
        column, zeros where none is; every other element as it is. A
        function of the vector alone."""
        vec = np.array(vec, np.float32)  # a copy: out may be the vector given
        out = vec.copy() if out is None else out
        out[...] = vec
        k, seq = self.n_events, self._window(vec).astype(np.int64)
        # An entry's slot; an empty entry (0: the window's tail, fewer than
        # k events) its own, which no event fills.
        slot = np.where(seq > 0, (seq - 1) % k, np.arange(k))
        for _, at in self.event_fields:
            col = np.zeros_like(vec[..., at:at + k])
            np.put_along_axis(col, slot, vec[..., at:at + k], axis=-1)
            out[..., at:at + k] = col
        return out

    def from_ring(self, vec, out=None):
        """The default vector of a ring one (to_ring's inverse): the filled
        slots in the order of their numbers, oldest first, zeros after."""
        vec = np.array(vec, np.float32)
        out = vec.copy() if out is None else out
        out[...] = vec
        k, seq = self.n_events, self._window(vec).astype(np.float64)
        order = np.argsort(np.where(seq > 0, seq, np.inf), axis=-1, kind="stable")
        for _, at in self.event_fields:
            out[..., at:at + k] = np.take_along_axis(vec[..., at:at + k], order, axis=-1)
        return out

    def index(self, code):
        """The action index of a code; KeyError for a code the game does not have."""
        try:
            return self._index[code]
        except KeyError:
            raise KeyError("%s has no action code %r" % (self.game, code)) from None

    def code(self, index):
        """The action code of an index."""
        return int(self.codes[index])

    def mask(self, codes, out=None):
        """An int8 vector of n_actions: 1 at the index of each code."""
        out = np.zeros(self.n_actions, np.int8) if out is None else out
        for c in codes:
            out[self._index[c]] = 1
        return out


_encoding_cache = {}


def encoding(game):
    """The Encoding of a game (its name or a forward.Game)."""
    g = forward.game(game) if isinstance(game, str) else game
    if g.name not in _encoding_cache:
        _encoding_cache[g.name] = Encoding(g)
    return _encoding_cache[g.name]


# ---- The digest (docs/replay-format.md, "Digest") ----------------------------

class _Digest:
    def __init__(self, g, options_text, seed, n_seats):
        self.h = hashlib.sha256()
        self.h.update(b"jackarena-digest-v1\0" + g.name.encode() + b"\0" +
                      struct.pack("<I", g.rules_version) + options_text.encode() + b"\0" +
                      struct.pack("<QI", seed, n_seats))

    def decision(self, mask, by_seat):
        self.h.update(struct.pack("<I", mask) +
                      b"".join(struct.pack("<I", by_seat[s]) for s in sorted(by_seat)))

    def end(self, outcome):
        self.h.update(struct.pack("<I", 0xFFFFFFFF) + b"".join(
            struct.pack("<qI", u, p) for u, p in zip(outcome.units, outcome.places)))
        return self.h.hexdigest()


# ---- The AEC environment -----------------------------------------------------

_ENV_KEYS = ("reward", "skip_forced", "max_steps", "render_mode")
_REWARDS = ("score", "place")


class JackArenaEnv(_AECBase):
    """One game as an AEC environment (PettingZoo's interface): agents
    "player_0" ... "player_{seats-1}", agent k playing seat k. Make one with
    make(). Attributes beyond PettingZoo's: game (the forward.Game),
    encoding (its Encoding), state (the forward.State of the episode: the
    referee's side, every hand; a learner must not read it), seed (the
    episode's match seed), digest (the match's digest once over, as `arena
    play` prints it), steps (decisions applied)."""

    metadata = {"render_modes": ["ansi"], "name": "jackarena_v1", "is_parallelizable": False}

    def __init__(self, game, seats=None, options=None, reward="score", skip_forced=True,
                 max_steps=None, render_mode=None):
        self.game = forward.game(game)
        g = self.game
        self.n_seats = g._seats(g.min_seats if seats is None else seats)
        self.options = dict(options or {})
        g.options(self.options, self.n_seats)  # ValueError with the library's message
        if reward not in _REWARDS:
            raise ValueError("reward must be one of %s, not %r" % (", ".join(_REWARDS), reward))
        if max_steps is not None and (not isinstance(max_steps, int) or max_steps < 1):
            raise ValueError("max_steps must be a positive integer or None, not %r" % (max_steps,))
        if render_mode not in (None, "ansi"):
            raise ValueError("render_mode must be None or 'ansi', not %r" % (render_mode,))
        self.reward_kind, self.skip_forced, self.max_steps = reward, bool(skip_forced), max_steps
        self.render_mode = render_mode
        self.encoding = encoding(g)
        e = self.encoding
        self.possible_agents = ["player_%d" % s for s in range(self.n_seats)]
        self.agent_name_mapping = {a: s for s, a in enumerate(self.possible_agents)}
        obs_space = _dict({"observation": _box(e.low, e.high, (e.obs_length,), np.float32),
                           "action_mask": _box(0, 1, (e.n_actions,), np.int8)})
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: _discrete(e.n_actions) for a in self.possible_agents}
        self._obs_buf = ctypes.create_string_buffer(g.obs_size)
        self._seed_rng = random.Random()
        self.state, self.seed, self.digest, self.steps = None, None, None, 0
        self.agents, self.agent_selection = [], None
        self.rewards, self._cumulative_rewards = {}, {}
        self.terminations, self.truncations, self.infos = {}, {}, {}

    def __repr__(self):
        return "<jackarena.env %s, %d seats>" % (self.game.name, self.n_seats)

    # -- PettingZoo's interface ------------------------------------------------

    def observation_space(self, agent):
        return self.observation_spaces[agent]

    def action_space(self, agent):
        return self.action_spaces[agent]

    @property
    def num_agents(self):
        return len(self.agents)

    @property
    def max_num_agents(self):
        return len(self.possible_agents)

    @property
    def unwrapped(self):
        return self

    def reset(self, seed=None, options=None):
        """Starts an episode: a match with match seed `seed` (0 to 2^64 - 1,
        as `arena play --seed` takes it: the same seed gives the same deal),
        or a fresh one when None. options: game options for this episode,
        over make()'s."""
        if seed is None:
            seed = self._seed_rng.getrandbits(64)
        opts = dict(self.options, **(options or {}))
        self.state = self.game.setup(self.n_seats, seed, opts)
        text = " ".join("%s=%s" % kv for kv in self.game.options(opts, self.n_seats).items())
        self._digest = _Digest(self.game, text, seed, self.n_seats)
        self.seed, self.digest, self.steps, self._pending = seed, None, 0, {}
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._skip_agent_selection = None
        self._advance()

    def observe(self, agent):
        """{"observation": the seat's vector, "action_mask": its legal actions
        (zeros when it is not asked, or has answered in an open window)}."""
        s = self.agent_name_mapping[agent]
        g, st = self.game, self.state
        g._observe(st.buf, s, self._obs_buf)
        obs = self.encoding.encode_buffer(self._obs_buf)
        mask = np.zeros(self.encoding.n_actions, np.int8)
        if s not in self._pending and st.to_act_mask() >> s & 1:
            self.encoding.mask(st.legal(s), mask)
        return {"observation": obs, "action_mask": mask}

    def last(self, observe=True):
        agent = self.agent_selection
        return (self.observe(agent) if observe else None, self._cumulative_rewards[agent],
                self.terminations[agent], self.truncations[agent], self.infos[agent])

    def agent_iter(self, max_iter=2 ** 63):
        i = 0
        while self.agents and i < max_iter:
            yield self.agent_selection
            i += 1

    def step(self, action):
        """The selected agent plays action (an index of the action index, a
        Python or NumPy integer); None for an agent that is done.
        IllegalAction (a ValueError) for an index that is not legal now: the
        episode is unchanged."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            return self._was_dead_step(action)
        s = self.agent_name_mapping[agent]
        code = self._code(action, s)
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in self.agents}
        self._pending[s] = code
        self._advance()
        for a, r in self.rewards.items():
            self._cumulative_rewards[a] += r

    def render(self):
        if self.render_mode == "ansi" and self.state is not None:
            return self.state.describe()
        return None

    def close(self):
        pass

    # -- The engine's side -------------------------------------------------------

    def _code(self, action, seat):
        if action is None:
            raise ValueError("player_%d is asked: None is only for an agent that is done" % seat)
        try:
            i = operator.index(action)
        except TypeError:
            raise ValueError("an action is an integer index, not %r" % (action,)) from None
        legal = self.state.legal(seat)
        if not 0 <= i < self.encoding.n_actions or self.encoding.code(i) not in legal:
            what = "" if not 0 <= i < self.encoding.n_actions else " (%s)" % self.game.label(
                self.encoding.code(i))
            raise IllegalAction("%s: player_%d cannot play action %d%s now (legal: %s)" % (
                self.game.name, seat, i, what, ", ".join(
                    "%d %s" % (self.encoding.index(c), self.game.label(c)) for c in legal)))
        return self.encoding.code(i)

    def _advance(self):
        """Applies the decision once every seat asked has answered (forced
        answers filled in when skip_forced), and goes on to the next seat to
        ask, in seat order; ends the episode at the match's end."""
        st = self.state
        while True:
            mask = st.to_act_mask()
            if not mask:
                return self._finish()
            asked = [s for s in range(self.n_seats) if mask >> s & 1]
            if self.skip_forced:
                for s in asked:
                    if s not in self._pending:
                        legal = st.legal(s)
                        if len(legal) == 1:
                            self._pending[s] = legal[0]
            waiting = [s for s in asked if s not in self._pending]
            if waiting:
                self.agent_selection = self.possible_agents[waiting[0]]
                return None
            self._digest.decision(mask, self._pending)
            st.apply(dict(self._pending))
            self._pending = {}
            self.steps += 1
            if self.max_steps is not None and self.steps >= self.max_steps and st.to_act_mask():
                return self._truncate()

    def _finish(self):
        o = self.state.outcome()
        self.digest = self._digest.end(o)
        for a in self.agents:
            s = self.agent_name_mapping[a]
            self.rewards[a] = o.scores[s] if self.reward_kind == "score" else o.pairwise(s)
            self.terminations[a] = True
            self.infos[a] = {"score": o.scores[s], "place": o.places[s], "digest": self.digest}
        self.agent_selection = self.agents[0]

    def _truncate(self):
        for a in self.agents:
            self.truncations[a] = True
        self.agent_selection = self.agents[0]

    def _was_dead_step(self, action):
        if action is not None:
            raise ValueError("%s is done: the only action it may take is None"
                             % self.agent_selection)
        agent = self.agent_selection
        for d in (self.terminations, self.truncations, self.rewards, self._cumulative_rewards,
                  self.infos):
            del d[agent]
        self.agents.remove(agent)
        dead = [a for a in self.agents if self.terminations[a] or self.truncations[a]]
        if dead:
            if self._skip_agent_selection is None:
                self._skip_agent_selection = agent
            self.agent_selection = dead[0]
        else:
            if self._skip_agent_selection is not None:
                self.agent_selection = self._skip_agent_selection
            self._skip_agent_selection = None
        self.rewards = {a: 0.0 for a in self.agents}


def make(game, seats=None, **kw):
    """The AEC environment of game for seats seats (default: the game's
    fewest). Keywords: reward ("score": each agent's score in points at the
    end, the outcome's; "place": its pairwise place score in [0, 1], as
    `arena bench` counts), skip_forced (True: a decision with one legal
    action is played by the environment, as the referee never asks it),
    max_steps (truncate after so many decisions), render_mode (None or
    "ansi"); every other keyword is a game option (hands=2, decks=1...).
    ValueError for an unknown game, a bad seat count or option."""
    env_kw = {k: kw.pop(k) for k in _ENV_KEYS if k in kw}
    return JackArenaEnv(game, seats, options=kw, **env_kw)


# ---- One learner against bots ------------------------------------------------

class SingleAgentEnv:
    """One learning seat, every other seat played by a bot (jackarena.bots),
    with Gymnasium's single-agent interface: reset(seed, options) -> (obs,
    info); step(action) -> (obs, reward, terminated, truncated, info).
    observation_space and action_space as the AEC environment's. The bots
    are seeded from the episode's match seed as the referee seeds them, so
    the same seed and the same choices of the learner give the match `arena
    play --seed SEED` plays with those bots. Make one with single()."""

    def __init__(self, game, seats=None, learner=0, opponents=("random",), **kw):
        self.aec = make(game, seats, **kw)
        n = self.aec.n_seats
        self.learner = self._learner(learner)
        specs = list(opponents) if isinstance(opponents, (list, tuple)) else [opponents]
        if not specs:
            raise ValueError("give at least one opponent")
        self.plugins = [p if isinstance(p, bots.Plugin) else bots.load(p) for p in specs]
        for p in self.plugins:
            if not p.supports(self.aec.game):
                raise bots.BotError("bot %s does not play %s" % (p.name, self.aec.game.name))
        self.observation_space = self.aec.observation_space("player_0")
        self.action_space = self.aec.action_space("player_0")
        self.players = [None] * n

    def _learner(self, learner):
        if not isinstance(learner, int) or not 0 <= learner < self.aec.n_seats:
            raise ValueError("learner must be a seat from 0 to %d, not %r" % (
                self.aec.n_seats - 1, learner))
        return learner

    def _opponent(self, seat):
        """The plugin of an opponent seat: the list in seat order, skipping
        the learner's seat, the last one repeated."""
        k = seat - (seat > self.learner)
        return self.plugins[min(k, len(self.plugins) - 1)]

    def reset(self, seed=None, options=None):
        """Starts an episode (seed as JackArenaEnv.reset). options: game
        options, and "learner": the learning seat from this episode on."""
        opts = dict(options or {})
        if "learner" in opts:
            self.learner = self._learner(opts.pop("learner"))
        self._close_players()
        self.aec.reset(seed, opts)
        g, n = self.aec.game, self.aec.n_seats
        self.players = [None if s == self.learner else
                        self._opponent(s).seat(g, s, n, self.aec.seed) for s in range(n)]
        self._play()
        me = "player_%d" % self.learner
        if self.aec.terminations[me] or self.aec.truncations[me]:
            self.aec.agent_selection = me  # over before the learner was asked: its own view
        obs, _, _, _, info = self.aec.last()
        return obs, dict(info, seed=self.aec.seed)

    def _play(self):
        """Lets the bots answer until the learner is asked or the episode ends."""
        aec, me = self.aec, "player_%d" % self.learner
        while not (aec.terminations[me] or aec.truncations[me]) and aec.agent_selection != me:
            s = aec.agent_name_mapping[aec.agent_selection]
            aec.step(aec.encoding.index(self.players[s].act(aec.state)))
        if aec.terminations[me] or aec.truncations[me]:
            o = aec.state.outcome()  # None when truncated: the bots are closed without end()
            for p in self.players:
                if p is not None:
                    p.end(o)

    def step(self, action):
        aec, me = self.aec, "player_%d" % self.learner
        if aec.terminations[me] or aec.truncations[me]:
            raise ValueError("the episode is over: reset() first")
        aec.step(action)
        self._play()
        aec.agent_selection = me if aec.terminations[me] or aec.truncations[me] else \
            aec.agent_selection
        obs, reward, terminated, truncated, info = aec.last()
        aec._cumulative_rewards[me] = 0.0
        return obs, reward, terminated, truncated, dict(info)

    def render(self):
        return self.aec.render()

    def _close_players(self):
        for p in self.players:
            if p is not None:
                p.close()
        self.players = [None] * len(self.players)

    def close(self):
        self._close_players()


def single(game, seats=None, learner=0, opponents=("random",), **kw):
    """A SingleAgentEnv: seat `learner` learns, the other seats are played by
    opponents, bot specifiers as the arena takes them ("random", "greedy",
    "ismcts:iters=200", "./mybot.so") or jackarena.bots.Plugin objects, in
    seat order past the learner's (the last repeated). Other keywords as
    make()'s."""
    return SingleAgentEnv(game, seats, learner, opponents, **kw)


# ---- Batched environments in C (libjackarena_env, ja_vec_env.h) ----------------

class _VecOpponent(ctypes.Structure):
    _fields_ = [("desc", ctypes.c_void_p), ("params", ctypes.c_char_p)]


class _VecConfig(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_uint32), ("game", ctypes.c_char_p),
                ("n_seats", ctypes.c_uint32), ("options", ctypes.POINTER(ctypes.c_char_p)),
                ("n_options", ctypes.c_uint32), ("n_envs", ctypes.c_uint32),
                ("learner", ctypes.c_int32), ("opponents", ctypes.POINTER(_VecOpponent)),
                ("n_opponents", ctypes.c_uint32), ("flags", ctypes.c_uint32)]


class _VecBuffers(ctypes.Structure):
    _fields_ = [("obs", ctypes.c_void_p), ("obs_len", ctypes.c_size_t),
                ("mask", ctypes.c_void_p), ("mask_len", ctypes.c_size_t),
                ("reward", ctypes.c_void_p), ("reward_len", ctypes.c_size_t),
                ("done", ctypes.c_void_p), ("done_len", ctypes.c_size_t),
                ("seat", ctypes.c_void_p), ("seat_len", ctypes.c_size_t)]


class _VecEpisode(ctypes.Structure):
    _fields_ = [("episodes", ctypes.c_uint64), ("seed", ctypes.c_uint64),
                ("decisions", ctypes.c_uint32), ("faults", ctypes.c_uint32),
                ("learner_steps", ctypes.c_uint32), ("units", ctypes.c_int64),
                ("place", ctypes.c_uint8), ("digest", ctypes.c_char * 65),
                ("scores", ctypes.c_int64 * _abi.MAX_SEATS),
                ("places", ctypes.c_uint8 * _abi.MAX_SEATS)]


VEC_AUTO_RESET, VEC_REWARD_PLACE, VEC_ASK_FORCED, VEC_SELF_PLAY = 1, 2, 4, 8
VEC_SEAT_ROWS, VEC_EVENT_RING = 16, 32
_LAYOUTS, _EVENTS = ("row", "seats"), ("window", "ring")
VEC_MAX_THREADS = 64
_vec_lib = None


def vec_library_path():
    """libjackarena_env beside libjackarena (the same directory), or its
    soname where libjackarena was found by the loader's own search."""
    lib = forward.library_path()
    name = "libjackarena_env.so.0"
    return os.path.join(os.path.dirname(os.path.realpath(lib)), name) if os.sep in lib else name


def _vec():
    global _vec_lib
    if _vec_lib is None:
        path = vec_library_path()
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            raise forward.LibraryError("cannot load the batched environments (%s): %s; build the "
                                       "target jackarena_env_shared or install the SDK"
                                       % (path, e)) from None
        vp, u32, cp, sz = ctypes.c_void_p, ctypes.c_uint32, ctypes.c_char_p, ctypes.c_size_t
        sig = {"ja_vec_create": ([ctypes.POINTER(_VecConfig), ctypes.POINTER(vp), cp, sz],
                                 ctypes.c_int),
               "ja_vec_destroy": ([vp], None), "ja_vec_obs_length": ([vp], u32),
               "ja_vec_n_actions": ([vp], u32), "ja_vec_action_code": ([vp, u32], u32),
               "ja_vec_n_rewards": ([vp], u32),
               "ja_vec_bind": ([vp, ctypes.POINTER(_VecBuffers), cp, sz], ctypes.c_int),
               "ja_vec_reset": ([vp, vp, cp, sz], ctypes.c_int),
               "ja_vec_reset_one": ([vp, u32, ctypes.c_uint64, cp, sz], ctypes.c_int),
               "ja_vec_step": ([vp, vp, cp, sz], ctypes.c_int),
               "ja_vec_episode_info": ([vp, u32, ctypes.POINTER(_VecEpisode)], ctypes.c_int),
               "ja_vec_episode_seed": ([ctypes.c_uint64, ctypes.c_uint64], ctypes.c_uint64)}
        for fn, (args, res) in sig.items():
            f = getattr(lib, fn)
            f.argtypes, f.restype = args, res
        _vec_lib = lib
    return _vec_lib


_BUFFERS = (("obs", np.float32), ("mask", np.int8), ("reward", np.float32), ("done", np.uint8),
            ("seat", np.int32))


class VecEnv:
    """n_envs matches of one game stepped together in C: seat `learner`
    learns in each, every other seat is played by a bot plugin inside the
    call (opponents as single()'s); or with self_play every seat is the
    caller's, asked one at a time as make()'s agents are. Make one with
    make_vec().

    Attributes: n_envs, self_play, layout, events, encoding (the game's Encoding: the
    vectors are its encode_buffer's, byte for byte), obs (n_envs x
    obs_length float32; n_envs x n_seats x obs_length with layout="seats"),
    mask (n_envs x n_actions int8), reward (n_envs
    float32; in self-play n_envs x n_seats, every seat's), done (n_envs
    uint8), seat (n_envs int32: the seat each row's observation and mask
    are, the one asked): the arrays the C code writes into, in place (the
    vector and mask only where they changed: read-only to the caller);
    reset() and step()
    return them (overwritten by the next call: copy what you keep), or the
    ones given to bind().

    step(actions) plays actions[i] (an index of the action index) in every
    environment. An environment whose episode is over: with auto_reset (the
    default) its next step starts the next episode, whatever action is
    given for it (reward 0, done 0, the new episode's first observation);
    without, it stays over (its action ignored, done 1, reward 0) until
    reset() or reset_one(). Episode k of
    environment i is the match of seed seeds[i] (k = 0), then of
    episode_seed(seeds[i], k); episode(i) tells the last finished one (its
    seed and digest: the digest `arena play --seed SEED` prints for the same
    bots and choices). With threads=N each step() runs on N threads (the
    batch cut into N shares; the opponents' plugins run on them too) and
    writes what one thread writes.

    Opt-in layouts (docs/training.md, "Opt-in layouts"): events="ring" writes each
    vector's event window as a ring (encoding.to_ring() of the default
    vector: a new event writes one slot); layout="seats" (self-play only)
    makes obs (n_envs, n_seats, obs_length), a row per seat, each written
    only when its seat is asked: obs[i, seat[i]] is the current row, the
    others each seat's when it was last asked."""

    def __init__(self, game, n_envs, seats=None, learner=0, opponents=("random",),
                 reward="score", skip_forced=True, auto_reset=True, options=None,
                 self_play=False, threads=1, layout="row", events="window"):
        lib = _vec()
        self.game = forward.game(game)
        g = self.game
        self.n_seats = g._seats(g.min_seats if seats is None else seats)
        if not isinstance(n_envs, int) or n_envs < 1:
            raise ValueError("n_envs must be a positive integer, not %r" % (n_envs,))
        if reward not in _REWARDS:
            raise ValueError("reward must be one of %s, not %r" % (", ".join(_REWARDS), reward))
        if not isinstance(threads, int) or isinstance(threads, bool) or \
                not 1 <= threads <= VEC_MAX_THREADS:
            raise ValueError("threads must be an integer from 1 to %d, not %r"
                             % (VEC_MAX_THREADS, threads))
        if layout not in _LAYOUTS:
            raise ValueError("layout must be one of %s, not %r" % (", ".join(_LAYOUTS), layout))
        if events not in _EVENTS:
            raise ValueError("events must be one of %s, not %r" % (", ".join(_EVENTS), events))
        if layout == "seats" and not self_play:
            raise ValueError("layout='seats' is for self-play (against opponents every row is "
                             "the learner's)")
        self.layout, self.events = layout, events
        self.options = dict(options or {})
        g.options(self.options, self.n_seats)  # ValueError with the library's message
        specs = [] if opponents is None else \
            list(opponents) if isinstance(opponents, (list, tuple)) else [opponents]
        self.self_play = bool(self_play)
        if self.self_play and specs:
            raise ValueError("self-play takes no opponent: every seat is the caller's "
                             "(opponents=None)")
        if not self.self_play and not specs:
            raise ValueError("give at least one opponent")
        self.plugins = [p if isinstance(p, bots.Plugin) else bots.load(p) for p in specs]
        self.encoding = encoding(g)
        self.n_envs, self.learner = n_envs, learner
        flags = ((VEC_AUTO_RESET if auto_reset else 0) |
                 (VEC_REWARD_PLACE if reward == "place" else 0) |
                 (0 if skip_forced else VEC_ASK_FORCED) |
                 (VEC_SELF_PLAY if self.self_play else 0) |
                 (VEC_SEAT_ROWS if layout == "seats" else 0) |
                 (VEC_EVENT_RING if events == "ring" else 0))
        self._keep = [("%s=%s" % kv).encode() for kv in self.options.items()] + \
            [p.params.encode() for p in self.plugins]
        opts = (ctypes.c_char_p * max(1, len(self.options)))(*self._keep[:len(self.options)])
        opps = (_VecOpponent * len(self.plugins))(*[
            _VecOpponent(ctypes.addressof(p._desc), p.params.encode()) for p in self.plugins])
        cfg = _VecConfig(ctypes.sizeof(_VecConfig), g.name.encode(), self.n_seats, opts,
                         len(self.options), n_envs, learner if isinstance(learner, int) else -1,
                         opps if self.plugins else None, len(self.plugins), flags)
        h = ctypes.c_void_p()
        self._err = ctypes.create_string_buffer(512)
        self._check(lib.ja_vec_create(ctypes.byref(cfg), ctypes.byref(h), self._err,
                                      len(self._err)))
        self._h = h
        if threads != 1:
            try:
                set_threads = lib.ja_vec_set_threads
            except AttributeError:
                self.close()
                raise forward.LibraryError("libjackarena_env has no threads (ja_vec_set_threads): "
                                           "the library and the package come from different "
                                           "releases") from None
            set_threads.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_char_p,
                                    ctypes.c_size_t]
            set_threads.restype = ctypes.c_int
            self._call(set_threads, threads)
        self.threads = threads
        e = self.encoding
        if (lib.ja_vec_obs_length(self._h) != e.obs_length or
                lib.ja_vec_n_actions(self._h) != e.n_actions or
                any(lib.ja_vec_action_code(self._h, i) != c for i, c in enumerate(e.codes))):
            self.close()
            raise forward.LibraryError("%s: libjackarena_env's encoding is not this SDK's: the "
                                       "library and the package come from different releases"
                                       % g.name)
        self.observation_space = _box(e.low, e.high, (e.obs_length,), np.float32)
        self.action_space = _discrete(e.n_actions)
        self._seed_rng = random.Random()
        self.bind(*(np.zeros(shape, dtype) for shape, (_, dtype) in zip(self._shapes(),
                                                                         _BUFFERS)))
        for name, _ in _BUFFERS:  # the environment's own: the caller only reads them
            view = getattr(self, name).view()
            view.flags.writeable = False
            setattr(self, name, view)

    def __repr__(self):
        return "<jackarena.env.VecEnv %s, %d seats, %d environments>" % (
            self.game.name, self.n_seats, self.n_envs)

    def _call(self, fn, *args):
        if getattr(self, "_h", None) is None:
            raise ValueError("the environment is closed")
        self._check(fn(self._h, *args, self._err, len(self._err)))

    def _check(self, rc):
        if rc == _abi.OK:
            return
        msg = self._err.value.decode("utf-8", "replace") or forward._strerror(rc)
        if rc == _abi.EILLEGAL:
            raise IllegalAction("%s: %s" % (self.game.name, msg))
        if rc == _abi.EBOT:
            raise bots.BotError(msg)
        if rc == _abi.ENOMEM:
            raise MemoryError(msg)
        raise ValueError(msg)

    def _shapes(self):
        n, e = self.n_envs, self.encoding
        return ((n, self.n_seats, e.obs_length) if self.layout == "seats" else (n, e.obs_length),
                (n, e.n_actions),
                (n, self.n_seats) if self.self_play else (n,), (n,), (n,))

    def bind(self, obs, mask, reward, done, seat=None):
        """Makes the environment write into these arrays from now on (each
        C-contiguous and writeable: obs float32 (n_envs, obs_length), mask
        int8 (n_envs, n_actions), reward float32 (n_envs,), in self-play
        (n_envs, n_seats), done uint8 (n_envs,), seat int32 (n_envs,) or
        None for one of the environment's own), e.g. one time step's rows
        of a rollout's storage (obs (n_envs, n_seats, obs_length) with
        layout="seats"). The next call writes every row whole, and
        the calls after it the vector and mask only where they changed: to
        write into bound arrays, bind them again. ValueError naming the
        array that does not fit; nothing is copied."""
        if seat is None:
            seat = np.zeros(self.n_envs, np.int32)
        given = (obs, mask, reward, done, seat)
        for a, shape, (name, dtype) in zip(given, self._shapes(), _BUFFERS):
            if not isinstance(a, np.ndarray):
                raise ValueError("%s must be a NumPy array, not %s" % (name, type(a).__name__))
            if a.dtype != dtype:
                raise ValueError("%s must be of dtype %s, not %s" % (name, np.dtype(dtype), a.dtype))
            if a.shape != shape:
                raise ValueError("%s must be of shape %s, not %s" % (name, shape, a.shape))
            if not a.flags.c_contiguous or not a.flags.writeable:
                raise ValueError("%s must be C-contiguous and writeable" % name)
        b = _VecBuffers(*(x for a in given for x in (a.ctypes.data, a.size)))
        self._call(_vec().ja_vec_bind, ctypes.byref(b))
        self.obs, self.mask, self.reward, self.done, self.seat = given

    def _seeds(self, seed):
        if seed is None:
            return np.array([self._seed_rng.getrandbits(64) for _ in range(self.n_envs)],
                            np.uint64)
        if isinstance(seed, (int, np.integer)):
            return np.array([(int(seed) + i) % 2 ** 64 for i in range(self.n_envs)], np.uint64)
        s = np.asarray(seed)
        if s.shape != (self.n_envs,) or s.dtype.kind not in "iu":
            raise ValueError("seeds must be an integer or %d integers, not %s of %s"
                             % (self.n_envs, s.dtype, s.shape))
        if s.dtype.kind == "i" and (s < 0).any():
            raise ValueError("environment %d: a seed is from 0 to 2^64 - 1, not %d"
                             % (int(np.flatnonzero(s < 0)[0]), int(s[s < 0][0])))
        return np.ascontiguousarray(s, np.uint64)

    def reset(self, seed=None):
        """Starts an episode in every environment: seed an integer (environment
        i gets seed + i), n_envs integers, or None (fresh ones). Returns (obs,
        mask)."""
        seeds = self._seeds(seed)
        self._call(_vec().ja_vec_reset, seeds.ctypes.data)
        return self.obs, self.mask

    def reset_one(self, i, seed):
        """Starts an episode of environment i alone with match seed seed."""
        self._call(_vec().ja_vec_reset_one, int(i), int(seed))

    def step(self, actions):
        """actions: n_envs action indexes (any integer array or sequence;
        in self-play each the answer of the seat its row names). Returns
        (obs, mask, reward, done) (and self.seat: each row's seat).
        IllegalAction (a ValueError) naming the first environment whose
        index is not legal, before any is played."""
        a = np.asarray(actions)
        if a.shape != (self.n_envs,) or (a.size and a.dtype.kind not in "iu"):
            raise ValueError("actions must be %d integer indexes (shape (%d,)), not %s of %s"
                             % (self.n_envs, self.n_envs, a.dtype, a.shape))
        a = np.ascontiguousarray(a, np.int64)
        self._call(_vec().ja_vec_step, a.ctypes.data)
        return self.obs, self.mask, self.reward, self.done

    def episode(self, i):
        """The last finished episode of environment i: {"episodes" (how many
        have finished), "seed", "digest", "score" (points), "place" (the
        learner's), "scores", "places" (every seat's), "decisions", "steps"
        (the learner's; in self-play every seat's asked), "faults"}; None
        before the first."""
        ep = _VecEpisode()
        if not 0 <= i < self.n_envs or _vec().ja_vec_episode_info(self._h, i, ep) != _abi.OK:
            raise ValueError("environment %r: there are %d" % (i, self.n_envs))
        if not ep.episodes:
            return None
        return {"episodes": ep.episodes, "seed": ep.seed, "digest": ep.digest.decode(),
                "score": ep.units / _abi.SCORE_UNIT, "place": ep.place,
                "scores": [ep.scores[s] / _abi.SCORE_UNIT for s in range(self.n_seats)],
                "places": [ep.places[s] for s in range(self.n_seats)],
                "decisions": ep.decisions, "steps": ep.learner_steps, "faults": ep.faults}

    @staticmethod
    def episode_seed(seed, k):
        """The match seed of episode k of an environment reset with seed."""
        return int(_vec().ja_vec_episode_seed(seed, k))

    def close(self):
        if getattr(self, "_h", None) is not None:
            _vec().ja_vec_destroy(self._h)
            self._h = None

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


def make_vec(game, n_envs, seats=None, learner=0, opponents=("random",), **kw):
    """A VecEnv of n_envs environments. Keywords: reward ("score" or
    "place", as make()'s), skip_forced (as make()'s), auto_reset (True),
    self_play (False; True: every seat the caller's, no opponents), threads
    (1: each step() runs on that many threads, the same rows whatever the
    number), events ("window", or "ring": the event window as a ring),
    layout ("row", or "seats" in self-play: a row per seat); every other
    keyword is a game option."""
    env_kw = {k: kw.pop(k) for k in ("reward", "skip_forced", "auto_reset", "self_play",
                                     "threads", "layout", "events") if k in kw}
    if env_kw.get("self_play") and opponents == ("random",):
        opponents = None
    return VecEnv(game, n_envs, seats, learner, opponents, options=kw, **env_kw)
