"""Jack Arena bots in Python: subclass Bot, override act(), call run().

    import jackarena
    from jackarena.games import taylor

    class MyBot(jackarena.Bot):
        name, version = "mybot", "1.0"
        games = ["taylor-blackjack"]       # None (the default): every game

        def act(self, match, obs, legal):
            # obs: the game's observation as a dict keyed by field name
            #      (docs/protocol.md lists every game's fields)
            # legal: [{"code": int, "label": str}, ...]; return an index
            for i, a in enumerate(legal):
                if a["code"] == taylor.DRAW:
                    return i
            return match.rng.randrange(len(legal))

    if __name__ == "__main__":
        MyBot().run()

run() checks the bot's parameters ($JACKARENA_PARAMS, through check_params),
connects a ZeroMQ DEALER to $JACKARENA_ENDPOINT (the arena sets it for `cmd:`
bots; pass endpoint= otherwise), says hello under $JACKARENA_NAME (or the
class's name) with the token the arena gave a `cmd:` bot ($JACKARENA_TOKEN,
the proof that the name is its own), and plays every match the referee
starts until it says bye.
One process may play up to `capacity` matches at once: each has its own
Match object, and act() is called for one decision at a time. With CurveZMQ
the arena's public key comes from $JACKARENA_SERVER_KEY (or server_key=).

When act() raises, or returns something that is not an int, the SDK prints
the traceback on stderr and answers the decision with an `error` (one line,
"ExcType: message") and its `code`, as the C SDK does: the one an ActError
carries (raise ActError(EINVAL, "why") to refuse a decision with a JA_E*
code of ja_error.h, as a C bot's act() returns one), EBOT (bot failure) for
any other exception. The referee plays the fault policy's action and
charges the bot an `error` fault, named by its code. docs/python.md is the whole guide;
jackarena.games has every game's constants, jackarena.forward the forward
model (the rules engines, through libjackarena).

Uses Debian's python3-zmq and python3-msgpack; nothing else. The protocol is
docs/protocol.md (version PROTOCOL).
"""
import operator
import os
import random
import sys
import time
import traceback

from jackarena import _abi

# The error codes of ja_error.h (EINVAL = -1, ..., EBOT = -10, ...), by name.
_ERR_NAMES = {v: k for k, v in vars(_abi).items()
              if k.startswith("E") and isinstance(v, int) and not isinstance(v, bool) and v < 0}
globals().update({k: v for v, k in _ERR_NAMES.items()})

__all__ = ["Bot", "Match", "PROTOCOL", "SCORE_UNIT", "LOG_MAX", "ProtocolError", "ActError",
           "parse_params", "check_keys", "param_int", "param_float",
           "param_word"] + sorted(_ERR_NAMES.values())
__version__ = "0.2.0"

PROTOCOL = 1
SCORE_UNIT = 27720
PARAMS_MAX = 255      # bytes of a parameter text (the C SDK's JA_PARAMS_MAX less its NUL)
ERROR_MAX = 200       # characters of an `error` answer (the referee keeps a line of this order)
LOG_MAX = 4096        # bytes of a decision's log the referee keeps (docs/protocol.md, "action")


def parse_params(text):
    """The bot parameters "k=v:k=v" as a dict ("" and None give {}).

    Items are separated by ':'; the key is what precedes an item's first '='
    (a value may hold '=', never ':'). Raises ValueError naming the problem:
    an empty item, an empty key, an item without '=', a key given twice, a
    text longer than PARAMS_MAX bytes. Values stay text: convert them in
    check_params()."""
    if text is None or text == "":
        return {}
    if not isinstance(text, str):
        raise ValueError("parameters must be text (k=v:k=v), not %s" % type(text).__name__)
    if len(text.encode("utf-8", "surrogateescape")) > PARAMS_MAX:
        raise ValueError("parameters are longer than %d bytes" % PARAMS_MAX)
    params = {}
    for item in text.split(":"):
        if item == "":
            raise ValueError("empty parameter in '%s' (items are k=v separated by ':')" % text)
        key, eq, value = item.partition("=")
        if not key:
            raise ValueError("parameter '%s' has an empty key" % item)
        if not eq:
            raise ValueError("parameter '%s' needs a value (%s=VALUE)" % (key, key))
        if key in params:
            raise ValueError("parameter '%s' is given twice" % key)
        params[key] = value
    return params


_QUOTE_MAX = 64  # how much of a bad value a message quotes (as ja_params.h)


def check_keys(params, known):
    """Refuses a key of params (a dict from parse_params) not in known,
    with the message of C's ja_params_check_keys: "unknown parameter 'K'
    (known: A, B)", or "(this bot takes no parameters)" for an empty known."""
    for key in params:
        if key not in known:
            raise ValueError("unknown parameter '%s' (%s)" % (
                key[:_QUOTE_MAX], "known: " + ", ".join(known) if known
                else "this bot takes no parameters"))


def _bad(key, what, value):
    return ValueError("parameter '%s' must be %s, not '%s'" % (key, what, value[:_QUOTE_MAX]))


def param_int(params, key, lo, hi, default):
    """params[key] as a decimal integer in [lo, hi], default when absent;
    ValueError as C's ja_params_int ("parameter 'K' must be an integer from
    LO to HI, not 'V'")."""
    if key not in params:
        return default
    v = params[key]
    digits = v[1:] if v.startswith("-") else v
    if not digits or not digits.isascii() or not digits.isdigit() or not lo <= int(v) <= hi:
        raise _bad(key, "an integer from %d to %d" % (lo, hi), v)
    return int(v)


def param_float(params, key, lo, hi, default):
    """params[key] as a finite decimal number in [lo, hi], default when
    absent; ValueError as C's ja_params_double."""
    if key not in params:
        return default
    v = params[key]
    try:
        if not v or v.strip("0123456789.eE+-"):
            raise ValueError(v)
        x = float(v)
    except ValueError:
        x = float("nan")
    if not lo <= x <= hi:  # NaN and infinities fail here
        raise _bad(key, "a number from %.10g to %.10g" % (lo, hi), v)
    return x


def param_word(params, key, words, default):
    """params[key], which must be one of words; default when absent;
    ValueError as C's ja_params_word ("must be one of A, B, not 'V'")."""
    if key not in params:
        return default
    if params[key] not in words:
        raise _bad(key, "one of " + ", ".join(words), params[key])
    return params[key]


def _one_line(text, limit=ERROR_MAX):
    """text on one line of printable characters, at most limit of them."""
    text = "".join(c if c.isprintable() else " " for c in str(text))
    text = text.encode("utf-8", "replace").decode("utf-8")
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _describe(exc):
    """ "ExcType: message" of an exception, on one line."""
    msg = str(exc)
    return _one_line("%s: %s" % (type(exc).__name__, msg) if msg else type(exc).__name__)


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class ProtocolError(RuntimeError):
    """The referee refused the hello, or the connection failed."""


class ActError(Exception):
    """Raised by act() to refuse a decision with an error code: a JA_E* value
    of ja_error.h (EINVAL, EBOT, ... of this module), as a C bot's act()
    returns one. The SDK answers the decision with `error` ("ActError:
    JA_EINVAL: why") and `code`, which the referee names in the fault
    (docs/protocol.md, "action"; docs/faults.md, "Error codes")."""

    def __init__(self, code, message=""):
        if isinstance(code, bool) or not isinstance(code, int) or not -2**31 <= code < 2**31:
            raise TypeError("ActError's code must be a JA_E* value (a 32-bit int), not %r"
                            % (code,))
        super().__init__(code, message)
        self.code = code
        self.message = str(message)

    def __str__(self):
        name = _ERR_NAMES.get(self.code)
        what = "JA_%s" % name if name else "code %d" % self.code
        return "%s: %s" % (what, self.message) if self.message else what


class Match:
    """One match this bot plays. The bot may keep its own state in `state`.

    id, game, options (name -> text, resolved), seat, seats, players,
    move_ms, params (the bot's parameters for this match, a dict), rng (the
    bot's own random stream for this match, a random.Random seeded from the
    referee's `seed`, kept in seed: a seed for the forward model's sample()
    too), turn (the current request's
    number), state (a dict for the bot), rules_version and obs_version."""

    def __init__(self, msg, seed, params=None):
        self.id = msg["match"]
        self.game = msg["game"]
        self.options = dict(msg.get("options", {}))
        self.seat = int(msg["seat"])
        self.seats = int(msg["seats"])
        self.players = list(msg.get("players", []))
        self.move_ms = int(msg.get("move_ms", 0))
        self.rules_version = int(msg.get("rules_version", 0))
        self.obs_version = int(msg.get("obs_version", 0))
        self.params = dict(params or {})
        # The bot's own random stream. The referee sends the seat's stream
        # seed (a one-way function of the match seed, telling nothing of the
        # deal): the same seed gives the same play on every run. From a
        # referee that sends none: from run()'s seed, the match and the seat.
        sent = msg.get("seed")
        if isinstance(sent, int) and not isinstance(sent, bool) and sent >= 0:
            self.seed = sent
            self.rng = random.Random(sent)
        else:
            self.seed = None
            self.rng = random.Random("%s:%s:%d" % (seed, self.id, self.seat))
        self.state = {}
        self.turn = 0
        self.deadline = None  # time.monotonic() by which to answer, or None
        self.broken = None    # why every decision of this match is an error, or None
        self._log = []        # lines logged for the next answer
        self._log_bytes = 0

    def log(self, *args):
        """Logs one line for the decision being answered, made as print()
        makes one (args as text, separated by spaces). It goes with the
        answer (the action's `log`), and the referee keeps it in the replay
        beside the decision, for the bot's author (docs/python.md, "Logs").
        Lines logged in start() go with the first answer. A decision keeps
        LOG_MAX bytes: past them the referee cuts the log with a marker, and
        this method drops what would not be kept anyway."""
        if self._log_bytes > LOG_MAX:
            return
        line = " ".join(str(a) for a in args) + "\n"
        self._log.append(line)
        self._log_bytes += len(line.encode("utf-8", "replace"))

    def _take_log(self):
        """The log for the answer being sent (at most LOG_MAX + 1 bytes: one
        more says it was cut), or None; starts the next one."""
        if not self._log:
            return None
        data = "".join(self._log).encode("utf-8", "replace")[:LOG_MAX + 1]
        self._log, self._log_bytes = [], 0
        return data.decode("utf-8", "ignore")

    def time_left(self):
        """Seconds left for the current decision, or None without a deadline."""
        if self.deadline is None:
            return None
        return max(0.0, self.deadline - time.monotonic())


class Bot:
    """Subclass and override act(); check_params(), start() and end() are
    optional. Class attributes: name, version, capacity (matches at once),
    games (None for every game, or the list of game names it plays: the
    arena then never seats it in another)."""

    name = "pybot"
    version = "0.1"
    capacity = 1
    games = None

    def check_params(self, params):
        """Checks the bot's parameters (a dict of text values, from
        parse_params). Raise ValueError with a message naming the key to
        refuse them; the default accepts anything. Called once at start-up
        for $JACKARENA_PARAMS (a refusal exits with status 2 before the
        hello) and for each match's parameters."""

    def start(self, match):
        """A match begins (match.game, match.seat, match.options,
        match.params...). If it raises, every decision of the match is
        answered with an error."""

    def act(self, match, obs, legal):
        """Return the index of the chosen entry of `legal`."""
        return match.rng.randrange(len(legal))

    def end(self, match, result):
        """The match is over: result has "scores" (in points), "places",
        "faults" and "replay". An exception here is only logged."""

    def log(self, *args):
        print("%s:" % getattr(self, "_hello_name", self.name), *args, file=sys.stderr, flush=True)

    # ---- the client ----------------------------------------------------------

    def _hello(self):
        """The hello message; ValueError for a bad class attribute."""
        hello = {"type": "hello", "protocol": PROTOCOL, "name": self._hello_name,
                 "version": str(self.version)}
        # A cmd: bot's credential: the referee seats no one under its name
        # without it (docs/protocol.md, "hello").
        token = os.environ.get("JACKARENA_TOKEN")
        if token:
            hello["token"] = token
        try:
            capacity = operator.index(self.capacity)
        except TypeError:
            raise ValueError("capacity must be an int, not %r" % (self.capacity,)) from None
        if capacity < 1:
            raise ValueError("capacity must be at least 1, not %d" % capacity)
        hello["capacity"] = capacity
        if self.games is not None:
            games = self.games
            if isinstance(games, str) or not all(isinstance(g, str) and g for g in games):
                raise ValueError("games must be None or a list of game names, not %r" % (games,))
            if not games:
                raise ValueError("games is empty: the bot would play nothing (None means every game)")
            hello["games"] = list(games)
        return hello

    def _start_params(self, env_params):
        """Checks $JACKARENA_PARAMS: the parsed dict, or exits with status 2
        after one line on stderr."""
        try:
            params = parse_params(env_params)
            self.check_params(params)
        except ValueError as e:
            print("%s: bad parameters '%s': %s" % (self._hello_name, _one_line(env_params, 300),
                                                   _one_line(e, 300)), file=sys.stderr, flush=True)
            raise SystemExit(2)
        return params

    def run(self, endpoint=None, name=None, server_key=None, seed=0, verbose=False,
            welcome_timeout=30.0):
        """Plays until the referee says bye. Exits with status 2 (SystemExit)
        when check_params refuses $JACKARENA_PARAMS; raises ProtocolError
        when the hello is refused or no welcome comes within welcome_timeout
        seconds, ValueError for a bad capacity or games attribute."""
        import msgpack  # here, so that parse_params and the constants need neither
        import zmq
        self._hello_name = name or os.environ.get("JACKARENA_NAME") or self.name
        self._env_params_text = os.environ.get("JACKARENA_PARAMS", "")
        self._env_params = self._start_params(self._env_params_text)
        hello = self._hello()
        endpoint = endpoint or os.environ.get("JACKARENA_ENDPOINT")
        if not endpoint:
            raise ProtocolError("no endpoint: set JACKARENA_ENDPOINT or pass endpoint=")
        server_key = server_key or os.environ.get("JACKARENA_SERVER_KEY")
        self._packb = lambda obj: msgpack.packb(obj, use_bin_type=True)
        self._seen_failures = set()
        ctx = zmq.Context()
        sock = ctx.socket(zmq.DEALER)
        sock.setsockopt(zmq.LINGER, 1000)
        if server_key:
            pub = os.environ.get("JACKARENA_PUBLIC_KEY")
            sec = os.environ.get("JACKARENA_SECRET_KEY")
            if not (pub and sec):
                pub, sec = (k.decode() for k in zmq.curve_keypair())
            sock.curve_serverkey = server_key.encode()
            sock.curve_publickey = pub.encode()
            sock.curve_secretkey = sec.encode()
        sock.connect(endpoint)
        matches = {}
        try:
            self._send(sock, hello)
            if not sock.poll(int(welcome_timeout * 1000)):
                raise ProtocolError("no welcome from %s within %g s" % (endpoint, welcome_timeout))
            welcomed = False
            arena_pid = int(os.environ.get("JACKARENA_ARENA_PID", "0") or 0)
            while True:
                # A message already queued (several matches in flight) is
                # taken without polling first: a poll checks the socket
                # before and after it waits, system calls each.
                try:
                    raw = sock.recv(zmq.NOBLOCK)
                except zmq.Again:
                    # Wake each second to see whether the arena that started
                    # this bot still exists (one killed outright sends no bye).
                    if not sock.poll(1000):
                        if arena_pid > 0 and not _alive(arena_pid):
                            raise ProtocolError("the arena (pid %d) is gone" % arena_pid)
                        continue
                    raw = sock.recv()
                received = time.monotonic()
                try:
                    msg = msgpack.unpackb(raw, raw=False, strict_map_key=False)
                except Exception:
                    self.log("ignoring a message that is not msgpack")
                    continue
                if not isinstance(msg, dict):
                    continue
                t = msg.get("type")
                if t == "welcome":
                    welcomed = True
                elif t == "error":
                    if not welcomed:
                        raise ProtocolError("the referee refused the hello: %s: %s"
                                            % (msg.get("code"), msg.get("message")))
                    if verbose:
                        self.log("referee error %s: %s" % (msg.get("code"), msg.get("message")))
                elif t == "start":
                    self._on_start(matches, msg, seed)
                elif t == "act":
                    self._on_act(sock, matches, msg, received)
                elif t == "end":
                    self._on_end(matches, msg)
                elif t == "ping":
                    self._send(sock, {"type": "pong"})
                elif t == "bye":
                    return
                # Unknown types are ignored: that is how the protocol grows.
        finally:
            sock.close()
            ctx.term()

    def _on_start(self, matches, msg, seed):
        try:
            # The start's parameters; without them (absent or ""), $JACKARENA_PARAMS,
            # as the C client does.
            text = msg.get("params") or self._env_params_text
            m = Match(msg, seed)
        except (KeyError, TypeError, ValueError):
            self.log("ignoring a malformed start message")
            return
        matches[m.id] = m
        try:
            m.params = parse_params(text)
            self.check_params(m.params)
        except ValueError as e:
            m.broken = _one_line("bad parameters: %s" % e)
            self.log("match %s: %s; every decision of it is an error" % (m.id, m.broken))
            return
        except Exception as e:
            m.broken = _one_line("check_params() failed: %s" % _describe(e))
            self._report("check_params() failed in match %s; every decision of it is an error"
                         % m.id)
            return
        try:
            self.start(m)
        except Exception as e:
            m.broken = _one_line("start() failed: %s" % _describe(e))
            self._report("start() failed in match %s; every decision of it is an error" % m.id)

    def _on_end(self, matches, msg):
        m = matches.pop(msg.get("match"), None)
        if m is None:
            return
        unit = msg.get("score_unit", SCORE_UNIT) or SCORE_UNIT
        result = {"scores": [s / unit for s in msg.get("scores", [])],
                  "places": msg.get("places", []),
                  "faults": msg.get("faults", []),
                  "replay": msg.get("replay", "")}
        try:
            self.end(m, result)
        except Exception:
            self._report("end() failed in match %s" % m.id)

    def _on_act(self, sock, matches, msg, received):
        mid, turn, legal = msg.get("match"), msg.get("turn"), msg.get("legal") or []
        answer = {"type": "action", "match": mid, "turn": turn}
        m = matches.get(mid)
        if m is None:  # the bot cannot choose: a bot failure, as the C SDK says
            answer["error"] = "no start was received for match %s" % _one_line(mid, 80)
            answer["code"] = _abi.EBOT
        elif m.broken:
            answer["error"] = m.broken
            answer["code"] = _abi.EBOT
        else:
            m.turn = turn
            dl = msg.get("deadline_ms", 0)
            m.deadline = received + dl / 1000.0 if dl else None
            try:
                choice = self.act(m, msg.get("obs", {}), legal)
                if isinstance(choice, bool):
                    raise TypeError("act() returned %r, not an index (an int)" % choice)
                try:
                    answer["index"] = operator.index(choice)
                except TypeError:
                    raise TypeError("act() returned %s, not an index (an int)"
                                    % _one_line(repr(choice), 60)) from None
            except Exception as e:
                answer["error"] = _describe(e)
                answer["code"] = e.code if isinstance(e, ActError) else _abi.EBOT
                self._report("act() failed in match %s, turn %s" % (mid, turn))
        log = m._take_log() if m is not None else None
        if log:
            answer["log"] = log
        self._send(sock, answer)

    def _report(self, what):
        """Logs the exception being handled: its whole traceback the first
        time it comes from a given place, one line after that."""
        etype, exc, tb = sys.exc_info()
        where = (etype, tuple((f.filename, f.lineno) for f in traceback.extract_tb(tb)))
        if where in self._seen_failures:
            self.log("%s: %s (the same place as before)" % (what, _describe(exc)))
            return
        self._seen_failures.add(where)
        self.log("%s:" % what)
        traceback.print_exc(file=sys.stderr)
        sys.stderr.flush()

    def _send(self, sock, obj):
        sock.send(self._packb(obj))
