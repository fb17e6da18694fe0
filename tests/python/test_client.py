#!/usr/bin/python3
"""The Python SDK's client against a scripted referee: a ROUTER socket in this
process plays the referee's side of docs/protocol.md exactly, so every answer
of the SDK is seen as bytes on the wire. Each case starts tests/python/testbot.py
as a real process with JACKARENA_ENDPOINT (and JACKARENA_PARAMS) set.

    test_client.py            every case; prints "N passed, N failed"
"""
import json
import os
import subprocess
import sys
import tempfile

import msgpack
import zmq

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "sdk", "python"))
import jackarena  # noqa: E402

BOT = os.path.join(HERE, "testbot.py")
TIMEOUT_MS = 30000  # only so that a broken SDK fails the test instead of hanging it
LEGAL = [{"code": 6, "label": "play 7C"}, {"code": 100, "label": "draw"}]


class Referee:
    """One bot process and the referee's socket it talks to."""

    def __init__(self, mode, params=None, work=None, token=None):
        self.ctx = zmq.Context()
        self.sock = self.ctx.socket(zmq.ROUTER)
        self.sock.setsockopt(zmq.LINGER, 0)
        self.endpoint = "ipc://%s/ref" % work
        self.sock.bind(self.endpoint)
        env = dict(os.environ, JACKARENA_ENDPOINT=self.endpoint, JACKARENA_NAME="tb")
        env.pop("JACKARENA_PARAMS", None)
        env.pop("JACKARENA_TOKEN", None)
        if params is not None:
            env["JACKARENA_PARAMS"] = params
        if token is not None:
            env["JACKARENA_TOKEN"] = token
        self.log = os.path.join(work, "bot.log")
        self.proc = subprocess.Popen([sys.executable, BOT, mode, "--log", self.log], env=env,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.peer = None

    def recv(self):
        if not self.sock.poll(TIMEOUT_MS):
            raise AssertionError("the bot sent nothing within %d ms" % TIMEOUT_MS)
        peer, raw = self.sock.recv_multipart()
        self.peer = peer
        return msgpack.unpackb(raw, raw=False)

    def send(self, msg):
        self.sock.send_multipart([self.peer, msgpack.packb(msg, use_bin_type=True)])

    def welcome(self):
        hello = self.recv()
        assert hello["type"] == "hello", hello
        self.send({"type": "welcome", "protocol": 1, "name": hello["name"], "capacity": 2})
        return hello

    def start(self, match, **extra):
        msg = {"type": "start", "match": match, "game": "taylor-blackjack",
               "options": {"games": "1"}, "seat": 1, "seats": 2, "players": ["random", "tb"],
               "move_ms": 0, "rules_version": 1, "obs_version": 1, "score_unit": 27720}
        msg.update(extra)
        self.send(msg)

    def act(self, match, turn, legal=LEGAL):
        self.send({"type": "act", "match": match, "turn": turn, "deadline_ms": 0,
                   "obs": {"seat": 1, "stage": 0}, "legal": legal})
        answer = self.recv()
        assert answer["type"] == "action" and answer["match"] == match, answer
        assert answer["turn"] == turn, answer
        return answer

    def end(self, match):
        self.send({"type": "end", "match": match, "scores": [27720, 0], "places": [1, 2],
                   "faults": [0, 0], "replay": "", "score_unit": 27720})

    def finish(self):
        """Says bye; the bot's exit status and stderr."""
        self.send({"type": "bye"})
        try:
            _, err = self.proc.communicate(timeout=TIMEOUT_MS / 1000)
        finally:
            self.sock.close()
            self.ctx.term()
        return self.proc.returncode, err.decode()

    def events(self):
        if not os.path.exists(self.log):
            return []
        return [json.loads(line) for line in open(self.log)]


def case_good(work):
    r = Referee("good", work=work)
    hello = r.welcome()
    assert hello == {"type": "hello", "protocol": 1, "name": "tb", "version": "1.0",
                     "capacity": 2}, hello
    r.start("m1")
    assert r.act("m1", 1) == {"type": "action", "match": "m1", "turn": 1, "index": 0}
    r.end("m1")
    rc, err = r.finish()
    assert rc == 0 and err == "", (rc, err)
    ends = [e for e in r.events() if e["event"] == "end"]
    assert ends == [{"event": "end", "match": "m1", "result": {
        "scores": [1.0, 0.0], "places": [1, 2], "faults": [0, 0], "replay": ""}}], ends


def case_raise(work):
    r = Referee("raise", work=work)
    r.welcome()
    r.start("m1")
    for turn in (1, 2, 3):
        a = r.act("m1", turn)
        assert a == {"type": "action", "match": "m1", "turn": turn,
                     "error": "ValueError: no play found for seat 1", "code": -10}, a
    rc, err = r.finish()
    assert rc == 0, rc
    # The whole traceback once, then one line per repeat.
    assert err.count("Traceback (most recent call last)") == 1, err
    assert 'raise ValueError("no play found' in err, err
    assert err.count("(the same place as before)") == 2, err


def case_acterror(work):
    # An ActError's code goes on the wire beside `error`, as the C SDK sends
    # what act() returned (docs/protocol.md, "action"); one outside ja_error.h
    # is sent as it is, named by its number.
    r = Referee("acterror", work=work)
    r.welcome()
    r.start("m1")
    a = r.act("m1", 1)
    assert a == {"type": "action", "match": "m1", "turn": 1,
                 "error": "ActError: JA_EINVAL: seat 1 refuses", "code": -1}, a
    a = r.act("m1", 2)
    assert a == {"type": "action", "match": "m1", "turn": 2, "error": "ActError: code 7",
                 "code": 7}, a
    rc, err = r.finish()
    assert rc == 0 and "ActError: JA_EINVAL: seat 1 refuses" in err, (rc, err)
    # The codes are ja_error.h's.
    assert (jackarena.EINVAL, jackarena.EBOT, jackarena.EMISMATCH) == (-1, -10, -16)
    for bad in ("EINVAL", 2**31, True, None):
        try:
            jackarena.ActError(bad)
        except TypeError:
            continue
        raise AssertionError("ActError(%r) accepted" % (bad,))


def case_keyerror(work):
    r = Referee("bombsonly", work=work)
    r.welcome()
    r.start("m1")
    a = r.act("m1", 1)
    assert a["error"] == "KeyError: 'actor'" and a["code"] == -10 and "index" not in a, a
    r.finish()


def case_none(work):
    r = Referee("none", work=work)
    r.welcome()
    r.start("m1")
    a = r.act("m1", 1)
    assert a["error"] == "TypeError: act() returned None, not an index (an int)", a
    assert a["code"] == -10, a
    r.finish()


def case_range(work):
    r = Referee("range", work=work)
    r.welcome()
    r.start("m1")
    a = r.act("m1", 1)
    assert a == {"type": "action", "match": "m1", "turn": 1, "index": 2}, a  # sent as is
    rc, err = r.finish()
    assert err == "", err


def case_unknown_match(work):
    r = Referee("good", work=work)
    r.welcome()
    a = r.act("never-started", 4)
    assert a["error"] == "no start was received for match never-started", a
    assert a["code"] == -10, a  # JA_EBOT, as the C SDK's client answers
    r.finish()


def case_startfail(work):
    r = Referee("startfail", work=work)
    r.welcome()
    r.start("m1")
    for turn in (1, 2):
        a = r.act("m1", turn)
        assert a["error"] == "start() failed: RuntimeError: cannot start", a
        assert a["code"] == -10, a
    rc, err = r.finish()
    assert "start() failed in match m1; every decision of it is an error" in err, err
    assert "Traceback" in err, err


def case_endfail(work):
    r = Referee("endfail", work=work)
    r.welcome()
    r.start("m1")
    r.act("m1", 1)
    r.end("m1")
    r.start("m2")
    assert r.act("m2", 1)["index"] == 0  # still playing after end() raised
    rc, err = r.finish()
    assert rc == 0 and "end() failed in match m1" in err, (rc, err)


def case_games(work):
    # games = ["bombs"] goes into the hello.
    r = Referee("bombs", work=work)
    hello = r.welcome()
    assert hello["games"] == ["bombs"], hello
    r.finish()


def case_token(work):
    # A bot the arena started proves its name: $JACKARENA_TOKEN goes into the
    # hello as it is (case_good: no token without it).
    r = Referee("good", work=work, token="5e" * 32)
    hello = r.welcome()
    assert hello["token"] == "5e" * 32 and hello["name"] == "tb", hello
    r.finish()


def case_params(work):
    # $JACKARENA_PARAMS reaches every match without params of its own (absent
    # or ""); a start's params take precedence; refused ones make that match's
    # decisions errors.
    r = Referee("params", params="depth=3:style=wild", work=work)
    r.welcome()
    r.start("env")
    r.start("own", params="depth=7")
    r.start("none", params="")
    r.start("bad", params="depth=10")
    r.start("badsyntax", params="depth=3::style=calm")
    assert "index" in r.act("env", 1) and "index" in r.act("own", 1)
    assert r.act("bad", 1)["error"] == ("bad parameters: parameter 'depth' must be an integer "
                                       "from 1 to 9, not '10'")
    assert r.act("badsyntax", 1)["error"] == ("bad parameters: empty parameter in "
                                             "'depth=3::style=calm' (items are k=v separated by ':')")
    rc, err = r.finish()
    assert rc == 0, (rc, err)
    starts = {e["match"]: e["params"] for e in r.events() if e["event"] == "start"}
    assert starts == {"env": {"depth": "3", "style": "wild"}, "own": {"depth": "7"},
                      "none": {"depth": "3", "style": "wild"}}, starts


def case_params_refused(work):
    # Refused at start-up: one line on stderr, exit 2, no hello.
    for text, why in [("depth=0", "parameter 'depth' must be an integer from 1 to 9, not '0'"),
                      ("colour=red", "unknown parameter 'colour' (known: depth, style)"),
                      ("depth", "parameter 'depth' needs a value (depth=VALUE)"),
                      ("depth=3:depth=4", "parameter 'depth' is given twice")]:
        r = Referee("params", params=text, work=work)
        try:
            _, err = r.proc.communicate(timeout=TIMEOUT_MS / 1000)
            assert r.proc.returncode == 2, (text, r.proc.returncode, err)
            assert err.decode() == "tb: bad parameters '%s': %s\n" % (text, why), err
            assert not r.sock.poll(0), "a hello was sent"
        finally:
            r.sock.close()
            r.ctx.term()


def case_parse_params(work):
    p = jackarena.parse_params
    assert p("") == {} and p(None) == {}
    assert p("a=1") == {"a": "1"}
    assert p("a=1:b=x=y:c=") == {"a": "1", "b": "x=y", "c": ""}
    for bad, msg in [(":a=1", "empty parameter in ':a=1'"), ("a=1:", "empty parameter"),
                     ("=1", "parameter '=1' has an empty key"),
                     ("a", "parameter 'a' needs a value"), ("a=1:a=2", "'a' is given twice"),
                     ("a=" + "x" * 300, "longer than 255 bytes"), (7, "must be text")]:
        try:
            p(bad)
        except ValueError as e:
            assert msg in str(e), (bad, str(e))
        else:
            raise AssertionError("accepted %r" % (bad,))


def main():
    cases = [(k[5:], v) for k, v in sorted(globals().items()) if k.startswith("case_")]
    passed = failed = 0
    for name, fn in cases:
        with tempfile.TemporaryDirectory() as work:
            try:
                fn(work)
            except Exception as e:  # report and go on with the other cases
                failed += 1
                print("FAIL: %s: %r" % (name, e))
            else:
                passed += 1
                print("ok: %s" % name)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
