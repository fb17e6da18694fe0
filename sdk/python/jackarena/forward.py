"""The forward model in Python: every game's rules engine, the same C code the
referee runs (libjackarena, through ctypes), for bots that search.

    from jackarena import forward

    g = forward.game("bombs")                      # a Game: one per thread
    st = g.setup(3, seed=7, options={"hands": 1})  # a State: a match from its start
    while not st.is_over():
        st.apply({s: st.legal(s)[0] for s in st.to_act()})
    print(st.outcome())                            # Outcome(units, scores, places)

    # In a bot: a full state consistent with what the seat knows
    st = g.sample(obs, match.seat, seed=match.rng.getrandbits(64))
    work = st.clone()

Observations are dicts keyed by field name, exactly as on the wire (an int
per scalar field, a list per array field; docs/protocol.md lists them), and
go to and from the engines' C structs through the field table the library
carries. States are flat byte buffers: clone() copies state_size bytes.

The library is found, in this order: $JACKARENA_LIB (a path); the path
jackarena/_install.py records when the SDK is installed; the build tree next
to this source package (build/lib/libjackarena.so.0 of the repository); then
ctypes.util.find_library("jackarena"). LibraryError names what was tried.

A Game owns the buffers its calls reuse (observation, actions, outcome), so
a Game and the States it made belong to one thread at a time; take one Game
per thread (game() makes a new one each call; the library is loaded once).
docs/python.md is the guide.
"""
import collections
import ctypes
import ctypes.util
import os
import struct
import threading

from jackarena import _abi

__all__ = ["game", "games", "library_path", "load", "Game", "State", "Outcome", "Option",
           "ObsField", "LibraryError", "IllegalAction"]

SONAME = "libjackarena.so.0"
_PKG_DIR = os.path.dirname(os.path.abspath(__file__))


class LibraryError(OSError):
    """libjackarena cannot be found or loaded, or does not match this SDK."""


class IllegalAction(ValueError):
    """apply() was given an action that is not legal (the state is unchanged)."""


# ---- The C structures (sdk/include/jackarena/ja_rules.h, ja_common.h) -------
# tests/python/test_forward.py checks every member's offset against C.

class _OptionSpec(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("kind", ctypes.c_int), ("values", ctypes.c_char_p),
                ("min", ctypes.c_int32), ("max", ctypes.c_int32), ("def_", ctypes.c_char_p),
                ("help", ctypes.c_char_p)]


class _Options(ctypes.Structure):
    _fields_ = [("n", ctypes.c_uint32), ("value", ctypes.c_int32 * _abi.MAX_OPTIONS),
                ("given", ctypes.c_uint8 * _abi.MAX_OPTIONS)]


class _Field(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("offset", ctypes.c_uint32), ("type", ctypes.c_uint16),
                ("count", ctypes.c_uint16), ("doc", ctypes.c_char_p)]


class _Outcome(ctypes.Structure):
    _fields_ = [("n_seats", ctypes.c_uint32), ("score", ctypes.c_int64 * _abi.MAX_SEATS),
                ("place", ctypes.c_uint8 * _abi.MAX_SEATS)]


class _Action(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint32)]


_F = ctypes.CFUNCTYPE
_vp, _u32, _int, _sz = ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_size_t
_u32p = ctypes.POINTER(ctypes.c_uint32)  # ja_action * (a struct of one uint32_t)


class _Rules(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_uint32), ("rules_version", ctypes.c_uint32),
        ("name", ctypes.c_char_p), ("title", ctypes.c_char_p),
        ("min_seats", ctypes.c_uint8), ("max_seats", ctypes.c_uint8),
        ("state_size", ctypes.c_uint32), ("obs_size", ctypes.c_uint32),
        ("max_actions", ctypes.c_uint32), ("obs_version", ctypes.c_uint32),
        ("options", ctypes.POINTER(_OptionSpec)), ("obs_fields", ctypes.POINTER(_Field)),
        ("n_obs_fields", ctypes.c_uint32),
        ("resolve_options", _F(_int, ctypes.POINTER(_Options), _u32, ctypes.c_char_p, _sz)),
        ("setup", _F(_int, _vp, ctypes.POINTER(_Options), _u32, ctypes.c_uint64)),
        ("to_act", _F(_u32, _vp)),
        ("legal", _F(_u32, _vp, _int, _u32p, _u32)),
        ("apply", _F(_int, _vp, _u32, _u32p)),
        ("default_action", _F(_Action, _vp, _int)),
        ("observe", _F(None, _vp, _int, _vp)),
        ("outcome", _F(_int, _vp, ctypes.POINTER(_Outcome))),
        ("determinize", _F(None, _vp, _int, ctypes.c_uint64)),
        ("sample", _F(_int, _vp, _int, ctypes.c_uint64, _vp)),
        ("label", _F(_int, _Action, ctypes.c_char_p, _sz)),
        ("describe", _F(_int, _vp, ctypes.c_char_p, _sz)),
        ("extension", _F(_vp, ctypes.c_char_p)),
    ]


# ---- Loading the library ----------------------------------------------------

_lock = threading.Lock()
_loaded = None  # (path, CDLL, {name: address of its ja_game_rules})


def _candidates():
    """(where, path or None, why it is missing) in lookup order."""
    env = os.environ.get("JACKARENA_LIB")
    yield "$JACKARENA_LIB", env or None, "unset"
    try:
        from jackarena import _install
        p = os.path.normpath(os.path.join(_PKG_DIR, _install.LIBJACKARENA))
        yield "jackarena/_install.py", p, None
    except ImportError:
        yield "jackarena/_install.py", None, "absent (not an installed SDK)"
    except AttributeError:
        yield "jackarena/_install.py", None, "has no LIBJACKARENA"
    build = os.path.normpath(os.path.join(_PKG_DIR, "..", "..", "..", "build", "lib", SONAME))
    yield "the build tree", build, None
    found = ctypes.util.find_library("jackarena")
    yield "ctypes.util.find_library('jackarena')", found, "not found"


def load(path=None):
    """Loads libjackarena (once per process; later calls return the same) and
    returns its path. path, if given, is tried alone. Raises LibraryError."""
    global _loaded
    with _lock:
        if _loaded is not None:
            if path is not None and os.path.realpath(path) != os.path.realpath(_loaded[0]):
                raise LibraryError("libjackarena is already loaded from %s" % _loaded[0])
            return _loaded[0]
        tried = []
        cands = [("the path given", path, None)] if path is not None else _candidates()
        for where, p, missing in cands:
            if p is None:
                tried.append("%s: %s" % (where, missing))
                continue
            if os.sep in p and not os.path.exists(p):
                tried.append("%s: %s: no such file" % (where, p))
                if where in ("$JACKARENA_LIB", "the path given"):
                    break  # an explicit choice that fails is not replaced by another
                continue
            try:
                lib = ctypes.CDLL(p)
            except OSError as e:
                tried.append("%s: %s" % (where, e))
                if where in ("$JACKARENA_LIB", "the path given"):
                    break
                continue
            rules = _check(p, lib)
            _bind(lib)
            _loaded = (p, lib, rules)
            return p
        raise LibraryError("cannot load libjackarena (the forward model): tried %s; build the "
                           "target jackarena_shared, install the SDK, or set JACKARENA_LIB to "
                           "the library's path" % "; ".join(tried))


def _check(path, lib):
    """{game name: address of its rules} after checking the table's size."""
    try:
        base = ctypes.addressof(ctypes.c_void_p.in_dll(lib, "ja_games"))
    except ValueError:
        raise LibraryError("%s is not libjackarena (no ja_games)" % path) from None
    table = ctypes.cast(base, ctypes.POINTER(ctypes.c_void_p))
    rules = {}
    for i in range(64):
        addr = table[i]
        if not addr:
            break
        size = ctypes.c_uint32.from_address(addr).value
        if size != ctypes.sizeof(_Rules):
            raise LibraryError("%s: ja_game_rules is %d bytes there and %d in this Python SDK "
                               "(struct_size): the library and the package come from different "
                               "releases" % (path, size, ctypes.sizeof(_Rules)))
        r = _Rules.from_address(addr)
        rules[r.name.decode()] = addr
    if not rules:
        raise LibraryError("%s has no games" % path)
    return rules


def _bind(lib):
    """Declares the signatures of the library functions used here."""
    R, O = ctypes.POINTER(_Rules), ctypes.POINTER(_Options)
    cp = ctypes.c_char_p
    for name, res, args in [
            ("ja_options_init", None, [R, O]),
            ("ja_options_set", _int, [R, O, cp, cp, _sz]),
            ("ja_options_resolve", _int, [R, O, _u32, cp, _sz]),
            ("ja_options_value_str", _int, [R, O, _int, cp, _sz]),
            ("ja_strerror", cp, [_int])]:
        f = getattr(lib, name)
        f.restype, f.argtypes = res, args


def library_path():
    """The path libjackarena was loaded from (loading it if needed)."""
    return load()


def games():
    """The names of the games of the library, in its order."""
    load()
    return list(_loaded[2])


def game(name):
    """A new Game for the game named name. ValueError for an unknown name."""
    load()
    addr = _loaded[2].get(name)
    if addr is None:
        raise ValueError("unknown game '%s' (games: %s)" % (name, ", ".join(_loaded[2])))
    return Game(_Rules.from_address(addr))


def _strerror(rc):
    return _loaded[1].ja_strerror(rc).decode()


# ---- Games, states, outcomes --------------------------------------------------

Option = collections.namedtuple("Option", "name kind values min max default help")
Option.__doc__ = """One option of a game: kind "enum" (values: the allowed words) or "int"
(min, max); default as shown to users ("auto", "200*N"); help (one line)."""

ObsField = collections.namedtuple("ObsField", "name offset type count doc")
ObsField.__doc__ = """One field of a game's observation, from the library's table: name (its
key), offset in the C struct, type ("u8", "i32"...), count (1 for a scalar), doc."""

_TYPES = {_abi.FT_U8: ("u8", "B"), _abi.FT_I8: ("i8", "b"), _abi.FT_U16: ("u16", "H"),
          _abi.FT_I16: ("i16", "h"), _abi.FT_U32: ("u32", "I"), _abi.FT_I32: ("i32", "i"),
          _abi.FT_I64: ("i64", "q")}


class Outcome(collections.namedtuple("Outcome", "units scores places")):
    """A finished match: units (each seat's score in units of 1/SCORE_UNIT of a
    point, ints), scores (points, floats) and places (1 = best; ties share a
    place: 1, 1, 3)."""
    __slots__ = ()

    def pairwise(self, seat):
        """Seat's mean over the other seats of 1 for a better place, 1/2 for the
        same, 0 for a worse one (how `arena bench` scores; ja_outcome_pairwise)."""
        n = len(self.places)
        if n < 2:
            return 0.5
        mine = self.places[seat]
        return sum(1.0 if mine < p else 0.5 if mine == p else 0.0
                   for t, p in enumerate(self.places) if t != seat) / (n - 1)


class Game:
    """One game's rules engine. Attributes: name, title, min_seats, max_seats,
    rules_version, obs_version, state_size, obs_size, max_actions,
    options_spec (a list of Option), obs_fields (a list of ObsField)."""

    def __init__(self, rules):
        self._r = rules
        self._lib = _loaded[1]  # keeps the library loaded while this Game lives
        r = rules
        self.name = r.name.decode()
        self.title = r.title.decode()
        self.min_seats, self.max_seats = r.min_seats, r.max_seats
        self.rules_version, self.obs_version = r.rules_version, r.obs_version
        self.state_size, self.obs_size, self.max_actions = r.state_size, r.obs_size, r.max_actions
        self.options_spec = []
        i = 0
        while r.options[i].name:
            o = r.options[i]
            kind = "enum" if o.kind == _abi.OPT_ENUM else "int"
            values = o.values.decode().split("|") if kind == "enum" and o.values else []
            self.options_spec.append(Option(o.name.decode(), kind, values, o.min, o.max,
                                            (o.def_ or b"").decode(), (o.help or b"").decode()))
            i += 1
        self.obs_fields = []
        for k in range(r.n_obs_fields):
            f = r.obs_fields[k]
            if f.type not in _TYPES:
                raise LibraryError("%s: field %s has an unknown type %d" % (self.name, f.name, f.type))
            self.obs_fields.append(ObsField(f.name.decode(), f.offset, _TYPES[f.type][0], f.count,
                                            (f.doc or b"").decode()))
        self._make_codec()
        # Buffers every call reuses: no allocation per step beyond Python's own.
        self._obs = ctypes.create_string_buffer(self.obs_size)
        self._acts = (ctypes.c_uint32 * self.max_actions)()
        self._by_seat = (ctypes.c_uint32 * _abi.MAX_SEATS)()
        self._outcome = _Outcome()
        self._text = ctypes.create_string_buffer(1024)
        self._to_act, self._legal, self._apply = r.to_act, r.legal, r.apply
        self._observe, self._outcome_fn, self._sample = r.observe, r.outcome, r.sample
        self._label, self._describe, self._default = r.label, r.describe, r.default_action
        self._setup, self._determinize = r.setup, r.determinize

    def __repr__(self):
        return "<jackarena.forward.Game %s>" % self.name

    # -- observations ---------------------------------------------------------

    def _make_codec(self):
        fmt, pos, layout, flat = ["="], 0, [], 0
        for f in sorted(self.obs_fields, key=lambda f: f.offset):
            code = {t: c for t, c in _TYPES.values()}[f.type]
            if f.offset < pos:
                raise LibraryError("%s: field %s overlaps the one before" % (self.name, f.name))
            if f.offset > pos:
                fmt.append("%dx" % (f.offset - pos))
            fmt.append("%d%s" % (f.count, code))
            pos = f.offset + f.count * struct.calcsize("=" + code)
            layout.append((f.name, flat, f.count, code))
            flat += f.count
        if pos > self.obs_size:
            raise LibraryError("%s: the fields run past the observation's size" % self.name)
        fmt.append("%dx" % (self.obs_size - pos))
        self._codec = struct.Struct("".join(fmt))
        order = {f.name: i for i, f in enumerate(self.obs_fields)}
        self._layout = sorted(layout, key=lambda x: order[x[0]])  # the table's order

    def _decode(self):
        vals = self._codec.unpack_from(self._obs)
        return {name: vals[at] if count == 1 else list(vals[at:at + count])
                for name, at, count, _ in self._layout}

    def _encode(self, obs):
        if not isinstance(obs, dict):
            raise ValueError("an observation is a dict of fields, not %s" % type(obs).__name__)
        flat = [0] * self._codec.size  # long enough; trimmed below
        n = 0
        for name, at, count, _ in self._layout:
            try:
                v = obs[name]
            except KeyError:
                raise ValueError("%s observation: no field '%s'" % (self.name, name)) from None
            if count == 1:
                flat[at] = v
            else:
                if not isinstance(v, (list, tuple)) or len(v) != count:
                    raise ValueError("%s observation: field '%s' needs a list of %d values"
                                     % (self.name, name, count))
                flat[at:at + count] = v
            n = max(n, at + count)
        try:
            self._codec.pack_into(self._obs, 0, *flat[:n])
        except struct.error:
            for name, at, count, code in self._layout:  # name the field
                try:
                    struct.pack("=%d%s" % (count, code), *flat[at:at + count])
                except struct.error as e:
                    raise ValueError("%s observation: field '%s': %s"
                                     % (self.name, name, e)) from None
            raise

    # -- options ----------------------------------------------------------------

    def _resolve(self, options, n_seats):
        o = _Options()
        lib = self._lib
        lib.ja_options_init(ctypes.byref(self._r), ctypes.byref(o))
        err = self._text
        for k, v in (options or {}).items():
            if not isinstance(k, str):
                raise ValueError("option names are text, not %r" % (k,))
            kv = ("%s=%s" % (k, v)).encode()
            if lib.ja_options_set(ctypes.byref(self._r), ctypes.byref(o), kv, err,
                                  ctypes.sizeof(err)) != _abi.OK:
                raise ValueError(err.value.decode())
        if lib.ja_options_resolve(ctypes.byref(self._r), ctypes.byref(o), n_seats, err,
                                  ctypes.sizeof(err)) != _abi.OK:
            raise ValueError(err.value.decode())
        return o

    def options(self, options=None, n_seats=None):
        """The options of a match, resolved: a dict name -> text with every
        option (defaults filled in for n_seats, default min_seats), as a
        `start` message carries them. options: a dict name -> value (text or
        int). ValueError with the library's message for a bad one."""
        n = self._seats(n_seats if n_seats is not None else self.min_seats)
        o = self._resolve(options, n)
        out = {}
        for i, spec in enumerate(self.options_spec):
            self._lib.ja_options_value_str(ctypes.byref(self._r), ctypes.byref(o), i, self._text,
                                           ctypes.sizeof(self._text))
            out[spec.name] = self._text.value.decode()
        return out

    def _seats(self, n):
        if not isinstance(n, int) or not self.min_seats <= n <= self.max_seats:
            raise ValueError("%s takes %d to %d seats, not %r" % (self.name, self.min_seats,
                                                                  self.max_seats, n))
        return n

    # -- states -----------------------------------------------------------------

    def setup(self, n_seats, seed, options=None):
        """A State at the start of a match: n_seats seats, seed (0 <= seed <
        2^64: the match seed, as replays and `arena play --seed` give it),
        options a dict (as for options())."""
        n = self._seats(n_seats)
        seed = _seed(seed)
        o = self._resolve(options, n)
        st = State(self, n)
        rc = self._setup(st.buf, ctypes.byref(o), n, seed)
        if rc != _abi.OK:
            raise ValueError("%s: setup failed: %s" % (self.name, _strerror(rc)))
        return st

    def sample(self, obs, seat, seed):
        """A full State consistent with what seat sees in obs (an observation
        dict, as act() gets it): hidden cards re-dealt at random from seed,
        the stock shuffled. ValueError for an observation no state could
        produce, or one that lacks a field."""
        n = obs.get("n_seats", self.max_seats) if isinstance(obs, dict) else self.max_seats
        if not isinstance(n, int) or not 1 <= n <= self.max_seats:
            raise ValueError("%s observation: n_seats %r" % (self.name, n))
        if not isinstance(seat, int) or not 0 <= seat < n:
            raise ValueError("seat %r is not a seat of this %d-seat match" % (seat, n))
        self._encode(obs)
        st = State(self, n)
        rc = self._sample(self._obs, seat, _seed(seed), st.buf)
        if rc != _abi.OK:
            raise ValueError("%s: no state could produce this observation of seat %d (%s)"
                             % (self.name, seat, _strerror(rc)))
        return st

    def label(self, code):
        """The label of an action code ("play 7H"); ValueError for a code the
        game does not have."""
        if not isinstance(code, int) or not 0 <= code < 1 << 32:
            raise ValueError("%r is not an action code" % (code,))
        n = self._label(_Action(code), self._text, ctypes.sizeof(self._text))
        if n < 0:
            raise ValueError("%s has no action with code %d" % (self.name, code))
        return self._text.value.decode()


def _seed(seed):
    if not isinstance(seed, int) or not 0 <= seed < 1 << 64:
        raise ValueError("a seed is an integer from 0 to 2^64 - 1, not %r" % (seed,))
    return seed


class State:
    """A full state of a match of one game: what the referee holds (every hand,
    the stock's order, the match's own random stream). Make one with
    Game.setup or Game.sample; copy it with clone()."""

    __slots__ = ("game", "n_seats", "buf")

    def __init__(self, game, n_seats):
        self.game, self.n_seats = game, n_seats
        self.buf = ctypes.create_string_buffer(game.state_size)

    def clone(self, into=None):
        """A copy of this state; into (a State of the same game) is reused
        when given."""
        if into is None:
            into = State(self.game, self.n_seats)
        elif into.game is not self.game and into.game.name != self.game.name:
            raise ValueError("cannot copy a %s state into a %s one" % (self.game.name,
                                                                        into.game.name))
        into.n_seats = self.n_seats
        ctypes.memmove(into.buf, self.buf, self.game.state_size)
        return into

    def to_act_mask(self):
        """The seats deciding now as a bitmask (bit s: seat s); 0 once over."""
        return self.game._to_act(self.buf)

    def to_act(self):
        """The seats deciding now, ascending: usually one, several in a joint
        decision (Bombs' interrupt windows), none once the match is over."""
        mask = self.game._to_act(self.buf)
        return [s for s in range(self.n_seats) if mask >> s & 1]

    def is_over(self):
        return self.game._to_act(self.buf) == 0

    def _seat(self, seat):
        if not isinstance(seat, int) or not 0 <= seat < self.n_seats:
            raise ValueError("seat %r is not a seat of this %d-seat match" % (seat, self.n_seats))
        return seat

    def legal(self, seat):
        """The legal action codes of seat, ascending; [] for a seat not asked."""
        g = self.game
        n = g._legal(self.buf, self._seat(seat), g._acts, g.max_actions)
        return g._acts[:n]

    def default_action(self, seat):
        """The action the referee plays for seat after a fault."""
        return self.game._default(self.buf, self._seat(seat)).code

    def apply(self, actions):
        """Plays one step: actions is {seat: code} with one action for every
        seat of to_act(), or a single code when exactly one seat is asked.
        IllegalAction (the state unchanged) for an action that is not legal;
        ValueError for seats that are not the ones asked."""
        g = self.game
        mask = g._to_act(self.buf)
        if mask == 0:
            raise ValueError("the match is over")
        by = g._by_seat
        if isinstance(actions, int):
            if mask & (mask - 1):
                raise ValueError("seats %s decide together: give {seat: code}" % self.to_act())
            actions = {mask.bit_length() - 1: actions}
        given = 0
        try:
            for s, code in actions.items():
                if not 0 <= s < self.n_seats or not 0 <= code < 1 << 32:
                    raise TypeError
                given |= 1 << s
                by[s] = code
        except (AttributeError, TypeError):
            raise ValueError("actions must be {seat: code} or one code, not %r"
                             % (actions,)) from None
        if given != mask:
            raise ValueError("actions for seats %s, but the seats asked are %s"
                             % (sorted(actions), self.to_act()))
        rc = g._apply(self.buf, mask, by)
        if rc != _abi.OK:
            if rc == _abi.EILLEGAL:
                bad = ", ".join("seat %d: %s" % (s, _name(g, by[s])) for s in self.to_act()
                                if by[s] not in self.legal(s))
                raise IllegalAction("%s: not legal now: %s" % (g.name, bad or "the joint action"))
            raise ValueError("%s: apply failed: %s" % (g.name, _strerror(rc)))

    def outcome(self):
        """The Outcome once the match is over, else None."""
        g = self.game
        if g._outcome_fn(self.buf, ctypes.byref(g._outcome)) != _abi.OK:
            return None
        o = g._outcome
        n = o.n_seats
        units = list(o.score[:n])
        return Outcome(units, [u / _abi.SCORE_UNIT for u in units], list(o.place[:n]))

    def observe(self, seat):
        """What seat sees now: an observation dict, exactly as an act sends it."""
        g = self.game
        g._observe(self.buf, self._seat(seat), g._obs)
        return g._decode()

    def determinize(self, seat, seed):
        """Re-deals everything seat cannot see, and the future (the referee's
        side: observe(seat) does not change)."""
        self.game._determinize(self.buf, self._seat(seat), _seed(seed))

    def describe(self):
        """One line of public state, for logs."""
        g = self.game
        g._describe(self.buf, g._text, ctypes.sizeof(g._text))
        return g._text.value.decode()

    def playout(self, rng, max_steps=100000):
        """Plays this state to the end, every seat at random from rng (a
        random.Random), and returns the Outcome; None if max_steps steps did
        not finish the match (ja_forward_playout in C)."""
        g = self.game
        to_act, legal, apply_, acts, by = g._to_act, g._legal, g._apply, g._acts, g._by_seat
        buf, cap, below = self.buf, g.max_actions, rng.randrange
        for _ in range(max_steps):
            mask = to_act(buf)
            if not mask:
                return self.outcome()
            m, s = mask, 0
            while m:
                if m & 1:
                    n = legal(buf, s, acts, cap)
                    by[s] = acts[below(n)]
                m >>= 1
                s += 1
            rc = apply_(buf, mask, by)
            if rc != _abi.OK:
                raise ValueError("%s: apply failed in a playout: %s" % (g.name, _strerror(rc)))
        return self.outcome() if not to_act(buf) else None


def _name(g, code):
    try:
        return "%d (%s)" % (code, g.label(code))
    except ValueError:
        return str(code)
