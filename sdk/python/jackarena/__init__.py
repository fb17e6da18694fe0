"""Jack Arena bots in Python: subclass Bot, override act(), call run().

    import jackarena

    class MyBot(jackarena.Bot):
        name, version = "mybot", "1.0"

        def act(self, match, obs, legal):
            # obs: the game's observation as a dict keyed by field name
            #      (docs/protocol.md lists every game's fields)
            # legal: [{"code": int, "label": str}, ...]; return an index
            return match.rng.randrange(len(legal))

    if __name__ == "__main__":
        MyBot().run()

run() connects a ZeroMQ DEALER to $JACKARENA_ENDPOINT (the arena sets it for
`cmd:` bots; pass endpoint= otherwise), says hello under $JACKARENA_NAME (or
the class's name), and plays every match the referee starts until it says
bye. One process may play up to `capacity` matches at once: each has its own
Match object, and act() is called for one decision at a time. With CurveZMQ
the arena's public key comes from $JACKARENA_SERVER_KEY (or server_key=).

Uses Debian's python3-zmq and python3-msgpack; nothing else. The protocol is
docs/protocol.md (version PROTOCOL).
"""
import os
import random
import sys
import time

import msgpack
import zmq

__all__ = ["Bot", "Match", "PROTOCOL", "ProtocolError"]
__version__ = "0.1.0"

PROTOCOL = 1
SCORE_UNIT = 27720


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


class Match:
    """One match this bot plays. The bot may keep its own state in `state`."""

    def __init__(self, msg, seed):
        self.id = msg["match"]
        self.game = msg["game"]
        self.options = dict(msg.get("options", {}))
        self.seat = int(msg["seat"])
        self.seats = int(msg["seats"])
        self.players = list(msg.get("players", []))
        self.move_ms = int(msg.get("move_ms", 0))
        # The bot's own random stream: from its seed, the match and the
        # seat, never from anything of the referee's.
        self.rng = random.Random("%s:%s:%d" % (seed, self.id, self.seat))
        self.state = {}
        self.turn = 0
        self.deadline = None  # time.monotonic() by which to answer, or None

    def time_left(self):
        """Seconds left for the current decision, or None without a deadline."""
        if self.deadline is None:
            return None
        return max(0.0, self.deadline - time.monotonic())


class Bot:
    """Subclass and override act(); start() and end() are optional."""

    name = "pybot"
    version = "0.1"
    capacity = 1

    def start(self, match):
        """A match begins (match.game, match.seat, match.options...)."""

    def act(self, match, obs, legal):
        """Return the index of the chosen entry of `legal`."""
        return match.rng.randrange(len(legal))

    def end(self, match, result):
        """The match is over: result has "scores" (in points), "places",
        "faults" and "replay"."""

    def log(self, *args):
        print("%s:" % self._hello_name, *args, file=sys.stderr, flush=True)

    # ---- the client ----------------------------------------------------------

    def run(self, endpoint=None, name=None, server_key=None, seed=0, verbose=False,
            welcome_timeout=30.0):
        """Plays until the referee says bye. Raises ProtocolError when the
        hello is refused or no welcome comes within welcome_timeout seconds."""
        endpoint = endpoint or os.environ.get("JACKARENA_ENDPOINT")
        if not endpoint:
            raise ProtocolError("no endpoint: set JACKARENA_ENDPOINT or pass endpoint=")
        self._hello_name = name or os.environ.get("JACKARENA_NAME") or self.name
        server_key = server_key or os.environ.get("JACKARENA_SERVER_KEY")
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
            self._send(sock, {"type": "hello", "protocol": PROTOCOL, "name": self._hello_name,
                              "version": str(self.version), "capacity": int(self.capacity)})
            if not sock.poll(int(welcome_timeout * 1000)):
                raise ProtocolError("no welcome from %s within %g s" % (endpoint, welcome_timeout))
            welcomed = False
            arena_pid = int(os.environ.get("JACKARENA_ARENA_PID", "0") or 0)
            while True:
                # Wake each second to see whether the arena that started this
                # bot still exists (one killed outright sends no bye).
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
                    m = Match(msg, seed)
                    matches[m.id] = m
                    self._call(self.start, m)
                elif t == "act":
                    self._on_act(sock, matches, msg, received)
                elif t == "end":
                    m = matches.pop(msg.get("match"), None)
                    if m is not None:
                        unit = msg.get("score_unit", SCORE_UNIT)
                        result = {"scores": [s / unit for s in msg.get("scores", [])],
                                  "places": msg.get("places", []),
                                  "faults": msg.get("faults", []),
                                  "replay": msg.get("replay", "")}
                        self._call(self.end, m, result)
                elif t == "ping":
                    self._send(sock, {"type": "pong"})
                elif t == "bye":
                    return
                # Unknown types are ignored: that is how the protocol grows.
        finally:
            sock.close()
            ctx.term()

    def _on_act(self, sock, matches, msg, received):
        mid, turn, legal = msg.get("match"), msg.get("turn"), msg.get("legal") or []
        m = matches.get(mid)
        index = 0
        if m is not None and legal:
            m.turn = turn
            dl = msg.get("deadline_ms", 0)
            m.deadline = received + dl / 1000.0 if dl else None
            try:
                index = int(self.act(m, msg.get("obs", {}), legal))
                if not 0 <= index < len(legal):
                    raise IndexError("index %d out of range" % index)
            except Exception as e:
                self.log("act() failed in match %s (%r); answering 0" % (mid, e))
                index = 0
        self._send(sock, {"type": "action", "match": mid, "turn": turn, "index": index})

    def _call(self, fn, *args):
        try:
            fn(*args)
        except Exception as e:
            self.log("%s() failed: %r" % (fn.__name__, e))

    @staticmethod
    def _send(sock, obj):
        sock.send(msgpack.packb(obj, use_bin_type=True))
