"""Bot plugins from Python: the reference bots (random, greedy, ismcts) and any
plugin .so, played in-process through the plugin ABI (ja_bot.h), as the
arena's `plugin` seat plays them.

    from jackarena import bots, forward

    greedy = bots.load("greedy")                 # or "ismcts:iters=200", "./mybot.so"
    g = forward.game("bombs")
    st = g.setup(3, seed=5)
    players = [greedy.seat(g, s, 3, match_seed=5) for s in range(3)]
    while not st.is_over():
        st.apply({s: players[s].act(st) for s in st.to_act()})

A Seat gets the same host services as in the arena: its own random stream
seeded from (match seed, seat) exactly as the referee seeds it (BLAKE2b of
the seed and the seat, docs/plugin-abi.md), the forward model, its
parameters, no deadline. So the same match seed and the same choices of the
other seats give the very match `arena play --seed` plays. A decision with a
single legal action is played without asking the bot, as the referee does.

Plugins are looked for in $JACKARENA_BOTS_DIR, then beside the library
libjackarena was loaded from: LIBDIR/jackarena/bots (an installation), then
the build tree's bots-plain/ (a sanitized build's plain twins) and bots/.
docs/training.md, "Opponents", is the guide.
"""
import ctypes
import hashlib
import os
import sys
import weakref

from jackarena import _abi, forward

__all__ = ["load", "bots_dir", "Plugin", "Seat", "BotError"]

PARAMS_MAX = 256  # JA_PARAMS_MAX (ja_params.h)
ABI_MAJOR = 1
REFERENCE = ("random", "greedy", "ismcts")


class BotError(RuntimeError):
    """A plugin refused to load, to play a seat, or to answer a decision."""


# ---- The C structures (ja_bot.h); tests/python/test_env.py checks offsets ----

_vp, _u32, _i32, _int = ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int32, ctypes.c_int
_F = ctypes.CFUNCTYPE
_LOG = _F(None, _vp, _int, ctypes.c_char_p)
_RNG = _F(ctypes.c_uint64, _vp)
_LEFT = _F(ctypes.c_int64, _vp)
_PARAMS = _F(_vp, _vp)
_OBSERVE = _F(_vp, _vp)


class _HostApi(ctypes.Structure):
    _fields_ = [("struct_size", _u32), ("log", _LOG), ("rng_next", _vp),
                ("time_left_ms", _LEFT), ("rules", _vp), ("params", _PARAMS),
                ("observe", _OBSERVE)]


class _Decision(ctypes.Structure):
    _fields_ = [("struct_size", _u32), ("turn", _u32), ("deadline_ms", _u32), ("seat", _i32),
                ("n_seats", _u32), ("game", ctypes.c_char_p), ("obs_version", _u32),
                ("obs_size", _u32), ("obs", _vp), ("legal", ctypes.POINTER(_u32)),
                ("n_legal", _u32)]


class _Desc(ctypes.Structure):
    _fields_ = [("struct_size", _u32), ("abi_major", ctypes.c_uint16),
                ("abi_minor", ctypes.c_uint16), ("name", ctypes.c_char_p),
                ("version", ctypes.c_char_p),
                ("supports", _F(_int, ctypes.c_char_p, _u32)),
                ("create", _F(_int, ctypes.POINTER(_HostApi), _vp, ctypes.c_char_p, _i32, _u32,
                              ctypes.POINTER(_vp))),
                ("act", _F(_int, _vp, ctypes.POINTER(_Decision), ctypes.POINTER(_u32))),
                ("end", _F(None, _vp, _vp)),
                ("destroy", _F(None, _vp)),
                ("extension", _vp),
                ("check_params", _F(_int, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t)),
                ("flags", _u32)]


class _Ctx(ctypes.Structure):
    """A seat's host context (hctx): the ja_rng first, so that libjackarena's
    ja_rng_next serves as rng_next with hctx as its argument."""
    _fields_ = [("rng", ctypes.c_uint64 * 4), ("params", ctypes.c_char * PARAMS_MAX)]


def _has(desc, member):
    """JA_BOT_HAS: the descriptor's struct_size covers member and it is set."""
    f = getattr(_Desc, member)
    return (f.offset + f.size <= desc.struct_size and
            bool(_vp.from_address(ctypes.addressof(desc) + f.offset).value))


def _on_log(hctx, level, msg):
    seat = _Seat_by_ctx.get(hctx)
    text = (msg or b"").decode("utf-8", "replace")
    if seat is not None:
        seat.log.append(text)
        del seat.log[:-20]
        if level <= 1:  # JA_LOG_ERROR, JA_LOG_WARN: to stderr, as the arena does
            print("%s (seat %d): %s" % (seat.plugin.name, seat.seat, text), file=sys.stderr)


def _on_time_left(hctx):
    return -1  # no deadline: an iteration budget never reads the clock


def _on_params(hctx):
    return hctx + _Ctx.params.offset


def _on_observe(hctx):
    """ja_host_api.observe (ABI 1.3): the asked seat's observation, which
    this host always fills before act() (d.obs too); None outside act()."""
    seat = _Seat_by_ctx.get(hctx)
    return ctypes.addressof(seat._obs) if seat is not None and seat._acting else None


_Seat_by_ctx = weakref.WeakValueDictionary()  # hctx -> Seat, for log()
_callbacks = (_LOG(_on_log), _LEFT(_on_time_left), _PARAMS(_on_params), _OBSERVE(_on_observe))
_host = None


def _host_api():
    global _host
    if _host is None:
        lib = ctypes.CDLL(forward.library_path())
        h = _HostApi()
        h.struct_size = ctypes.sizeof(_HostApi)
        h.log, h.time_left_ms, h.params, h.observe = _callbacks
        h.rng_next = ctypes.cast(lib.ja_rng_next, _vp).value
        h.rules = ctypes.cast(lib.ja_game_find, _vp).value
        lib.ja_rng_seed.argtypes, lib.ja_rng_seed.restype = [_vp, ctypes.c_uint64], None
        _host = (h, lib)
    return _host


def bot_seed(match_seed, seat):
    """The seed of a seat's own stream in a match (the referee's
    ref_bot_seed: the first 8 bytes, little-endian, of BLAKE2b-128 of the
    seed (8 bytes LE), "BOT " and the seat (4 bytes LE)): one-way, it tells
    nothing of the deal."""
    data = match_seed.to_bytes(8, "little") + b"BOT " + (seat & 0xFFFFFFFF).to_bytes(4, "little")
    return int.from_bytes(hashlib.blake2b(data, digest_size=16).digest()[:8], "little")


def bots_dir():
    """Where reference bots are looked for: the first existing directory of
    $JACKARENA_BOTS_DIR, LIBDIR/jackarena/bots, the build tree's bots-plain
    and bots (beside the library's directory); None when none exists."""
    env = os.environ.get("JACKARENA_BOTS_DIR")
    if env:
        return env
    libdir = os.path.dirname(os.path.realpath(forward.library_path()))
    for d in (os.path.join(libdir, "jackarena", "bots"), os.path.join(libdir, "..", "bots-plain"),
              os.path.join(libdir, "..", "bots")):
        if os.path.isdir(d):
            return os.path.normpath(d)
    return None


def _split(spec):
    """(file, params) of a specifier, as the arena splits one: "ismcts:iters=50"
    (a reference bot), "./bot.so:x=1" or "/dir/bot.so" (a file)."""
    head, colon, rest = spec.partition(":")
    if "/" not in head and head in REFERENCE:
        d = bots_dir()
        if d is None:
            raise BotError("no directory of reference bots beside %s (set JACKARENA_BOTS_DIR)"
                           % forward.library_path())
        return os.path.join(d, "ja_%s.so" % head), rest if colon else "", head
    if os.path.exists(spec):
        return spec, "", None
    slash = spec.rfind("/")
    cut = spec.find(":", slash + 1)
    path, params = (spec, "") if cut < 0 else (spec[:cut], spec[cut + 1:])
    if "/" not in path and ".so" not in path:
        raise BotError("unknown bot '%s' (reference bots: %s; write ./%s for a file)"
                       % (spec, ", ".join(REFERENCE), path))
    return path, params, None


_plugins = {}  # path -> (CDLL, descriptor): a plugin is loaded once per process


def load(spec, params=None):
    """A Plugin from a specifier as the arena takes it: "random", "greedy",
    "ismcts:iters=200:c=0.7", "./mybot.so", "/dir/bot.so:depth=3". params
    (text "k=v:k=v"), if given, replaces the specifier's. BotError when the
    file cannot be loaded, is no bot of this ABI, or refuses the parameters."""
    path, spec_params, ref = _split(spec)
    if params is not None:
        params = params if isinstance(params, str) else ":".join(
            "%s=%s" % kv for kv in params.items())
    return Plugin(path, spec_params if params is None else params, ref)


class Plugin:
    """A loaded bot plugin with its parameters. Attributes: name, version,
    path, params. seat() makes the player of one seat of one match."""

    def __init__(self, path, params="", ref=None):
        _host_api()
        real = os.path.realpath(path)
        if real not in _plugins:
            if not os.path.exists(path):
                raise BotError("bot file %s: no such file" % path)
            try:
                lib = ctypes.CDLL(real, mode=os.RTLD_NOW | os.RTLD_LOCAL)
            except OSError as e:
                raise BotError("cannot load bot %s: %s (a plugin of a sanitized build cannot be "
                               "loaded by python3: use bots-plain/ or a release build)"
                               % (path, e)) from None
            try:
                entry = lib.ja_bot_entry_v1
            except AttributeError:
                raise BotError("%s: no entry point ja_bot_entry_v1 (not a bot plugin of ABI 1)"
                               % path) from None
            entry.restype, entry.argtypes = ctypes.POINTER(_Desc), []
            p = entry()
            if not p:
                raise BotError("%s: ja_bot_entry_v1 returned no descriptor" % path)
            d = p.contents
            if d.abi_major != ABI_MAJOR:
                raise BotError("%s: built for bot ABI %d; this SDK loads ABI %d"
                               % (path, d.abi_major, ABI_MAJOR))
            for m in ("create", "act", "destroy"):
                if not _has(d, m):
                    raise BotError("%s: the descriptor has no %s()" % (path, m))
            _plugins[real] = (lib, d)
        self._lib, self._desc = _plugins[real]
        self.path = path
        self.name = (self._desc.name or b"").decode() or (ref or os.path.basename(path))
        self.version = (self._desc.version or b"").decode() if _has(self._desc, "version") else ""
        self.params = params or ""
        if len(self.params.encode()) >= PARAMS_MAX:
            raise BotError("bot %s: parameters too long (at most %d bytes)"
                           % (self.name, PARAMS_MAX - 1))
        self._check()

    def __repr__(self):
        return "<jackarena.bots.Plugin %s%s>" % (self.name, "(%s)" % self.params
                                                 if self.params else "")

    def _check(self):
        if not _has(self._desc, "check_params"):
            return
        err = ctypes.create_string_buffer(512)
        if self._desc.check_params(self.params.encode(), err, len(err)) != _abi.OK:
            raise BotError("bot %s refused its parameters '%s': %s"
                           % (self.name, self.params, err.value.decode("utf-8", "replace")
                              or "the bot refused them (it gave no reason)"))

    def supports(self, game):
        """True if the bot plays game (a forward.Game)."""
        if not _has(self._desc, "supports"):
            return True
        return bool(self._desc.supports(game.name.encode(), game.obs_version))

    def seat(self, game, seat, n_seats, match_seed):
        """The player of seat in a match of game (a forward.Game) with
        n_seats seats and this match seed: a Seat."""
        return Seat(self, game, seat, n_seats, match_seed)


class Seat:
    """One bot instance playing one seat of one match. act(state) returns the
    code it plays; end(outcome) tells it the match is over (and destroys it;
    close() destroys it without telling). A Seat holds buffers of its own:
    a decision allocates nothing in C."""

    def __init__(self, plugin, game, seat, n_seats, match_seed):
        if not plugin.supports(game):
            raise BotError("bot %s does not play %s" % (plugin.name, game.name))
        host, lib = _host_api()
        self.plugin, self.game, self.seat, self.n_seats = plugin, game, seat, n_seats
        self.log = []
        self.turn = 0
        self._acting = False
        self._ctx = _Ctx()
        self._ctx.params = plugin.params.encode()
        lib.ja_rng_seed(ctypes.addressof(self._ctx), bot_seed(match_seed, seat))
        self._hctx = ctypes.addressof(self._ctx)
        _Seat_by_ctx[self._hctx] = self
        self._game_name = game.name.encode()
        self._obs = ctypes.create_string_buffer(game.obs_size)
        self._legal = (_u32 * game.max_actions)()
        self._index = _u32()
        self._d = _Decision(struct_size=ctypes.sizeof(_Decision), seat=seat, n_seats=n_seats,
                            game=self._game_name, obs_version=game.obs_version,
                            obs_size=game.obs_size, obs=ctypes.addressof(self._obs),
                            legal=self._legal)
        self._bot = _vp()
        rc = plugin._desc.create(ctypes.byref(host), self._hctx, self._game_name, seat, n_seats,
                                 ctypes.byref(self._bot))
        if rc != _abi.OK:
            _Seat_by_ctx.pop(self._hctx, None)
            self._bot = None
            raise BotError("bot %s refused seat %d of %s: %s" % (plugin.name, seat, game.name,
                                                                 forward._strerror(rc)))

    def __repr__(self):
        return "<jackarena.bots.Seat %s seat %d>" % (self.plugin.name, self.seat)

    def act(self, state):
        """The code the bot plays for its seat in state (a forward.State where
        the seat is asked). A single legal action is played without asking,
        as the referee does. BotError for an error or an index out of range."""
        g = self.game
        n = g._legal(state.buf, self.seat, self._legal, g.max_actions)
        if n == 0:
            raise BotError("seat %d is not asked now" % self.seat)
        if n == 1:
            return self._legal[0]
        if not self._bot:
            raise BotError("bot %s (seat %d) has ended" % (self.plugin.name, self.seat))
        g._observe(state.buf, self.seat, self._obs)
        self.turn += 1
        d = self._d
        d.turn, d.n_legal = self.turn, n
        self._acting = True
        try:
            rc = self.plugin._desc.act(self._bot, ctypes.byref(d), ctypes.byref(self._index))
        finally:
            self._acting = False
        if rc != _abi.OK:
            raise BotError("bot %s (seat %d) failed decision %d: act() returned %s"
                           % (self.plugin.name, self.seat, self.turn, forward._strerror(rc)))
        i = self._index.value
        if i >= n:
            raise BotError("bot %s (seat %d) answered decision %d with index %d of %d legal "
                           "actions" % (self.plugin.name, self.seat, self.turn, i, n))
        return self._legal[i]

    def end(self, outcome=None):
        """The match is over: end() with the outcome (a forward.Outcome), then
        destroy(). Nothing happens twice."""
        if not self._bot:
            return
        if outcome is not None and _has(self.plugin._desc, "end"):
            o = forward._Outcome()
            o.n_seats = len(outcome.units)
            for s, (u, p) in enumerate(zip(outcome.units, outcome.places)):
                o.score[s], o.place[s] = u, p
            self.plugin._desc.end(self._bot, ctypes.addressof(o))
        self.close()

    def close(self):
        """Destroys the instance (without end())."""
        if self._bot:
            self.plugin._desc.destroy(self._bot)
            self._bot = None
        _Seat_by_ctx.pop(self._hctx, None)

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass
