#!/usr/bin/python3
"""A bot written from PROTOCOL.md alone: pyzmq and msgpack, nothing of the SDK.

It connects a DEALER to $JACKARENA_ENDPOINT, says hello, answers every `act`
with a seeded random index, pongs, and exits on the referee's `bye`. With
--bad KIND it misbehaves in one way, on every --every-th act, at most --times
times per match, so the protocol tests can check that each bad input becomes
the right fault and changes nothing else:

  garbage     bytes that are not msgpack        -> malformed
  nonmap      a msgpack array, not a map        -> malformed
  notype      a map without "type"              -> malformed
  missing     an action without "index"         -> malformed
  mistyped    an action with "index": "three"   -> malformed
  range       an index past the legal list      -> illegal
  negative    index -1                          -> illegal
  stale       a wrong turn                      -> protocol
  unknown     an action for a match it does not play -> protocol
  multiframe  the action split over two frames  -> malformed
  toobig      a frame over the size cap         -> disconnect (libzmq drops it)
  late        the answer after the deadline     -> timeout
  silent      no answer at all                  -> timeout
  disconnect  exits in the middle of a match    -> disconnect
  nohello     connects and never says hello     (the arena refuses to start)

--log FILE appends one JSON line per message received (type, code...).
--protocol N says hello with protocol version N (default 1).
--hold-until N holds every answer until N matches are running at once (or
--hold-seconds pass): the capacity test.

A bot the arena started (cmd:) sends the token of $JACKARENA_TOKEN in its
hello: it alone proves the name is this bot's. The seat-identity tests use:

  --steal NAME      a thief: at each of its first --steal-times `start`s it
                    opens another connection (same Curve key) and says hello
                    as NAME, first without a token, then with its own; it
                    plays whatever that connection is sent (a takeover would
                    show) and logs what it gets with "via": "steal"
  --exit-after-welcome  exits at once (no bye) once welcomed: a connection
                    that dies
  --retry-refused N  says hello again (up to N times, 0.1 s apart) while the
                    referee answers name_taken: a bot whose old connection
                    is still being closed
  --wait-file F     says hello only once file F exists
  --touch F         creates file F once welcomed
  --act-touch F     at its first act, creates file F, then (with
  --act-wait-file G) answers it once file G exists (or 60 s passed; it logs
                    {"type": "waited", "ok": whether G came}): another
                    process acts while the referee waits for this answer
"""
import argparse
import json
import os
import random
import sys
import time

import msgpack
import zmq


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--endpoint", default=os.environ.get("JACKARENA_ENDPOINT"))
    ap.add_argument("--name", default=os.environ.get("JACKARENA_NAME", "rawbot"))
    ap.add_argument("--version", default="1.0")
    ap.add_argument("--protocol", type=int, default=1, help="the hello's protocol version")
    ap.add_argument("--capacity", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--bad", default="")
    ap.add_argument("--every", type=int, default=3)
    ap.add_argument("--times", type=int, default=2)
    ap.add_argument("--log", default="")
    ap.add_argument("--hold-until", type=int, default=0)
    ap.add_argument("--hold-seconds", type=float, default=60.0)
    ap.add_argument("--server-key", default=os.environ.get("JACKARENA_SERVER_KEY"))
    ap.add_argument("--hello-timeout", type=float, default=0)
    ap.add_argument("--lifetime", type=float, default=0,
                    help="exit with status 5 after this many seconds whatever happens")
    ap.add_argument("--steal", default="")
    ap.add_argument("--steal-times", type=int, default=1)
    ap.add_argument("--exit-after-welcome", action="store_true")
    ap.add_argument("--bin", default="",
                    help="send this as the hello's x_bin (true/false, or anything else "
                         "as a string) and log each act's form")
    ap.add_argument("--retry-refused", type=int, default=0)
    ap.add_argument("--wait-file", default="")
    ap.add_argument("--touch", default="")
    ap.add_argument("--act-touch", default="")
    ap.add_argument("--act-wait-file", default="")
    a = ap.parse_args()
    if not a.endpoint:
        sys.exit("rawbot: no endpoint (JACKARENA_ENDPOINT)")
    if a.lifetime:
        import signal
        signal.signal(signal.SIGALRM, lambda *_: os._exit(5))
        signal.alarm(int(a.lifetime))

    ctx = zmq.Context()
    keys = None
    if a.server_key:
        pub, sec = zmq.curve_keypair()
        if os.environ.get("RAWBOT_PUBLIC_KEY"):
            pub = os.environ["RAWBOT_PUBLIC_KEY"].encode()
            sec = os.environ["RAWBOT_SECRET_KEY"].encode()
        keys = (pub, sec)

    def connect():
        sock = ctx.socket(zmq.DEALER)
        sock.setsockopt(zmq.LINGER, 1000)
        if keys:
            sock.curve_serverkey = a.server_key.encode()
            sock.curve_publickey, sock.curve_secretkey = keys
        sock.connect(a.endpoint)
        return sock

    s = connect()
    log = open(a.log, "a") if a.log else None

    def send(obj, sock=None):
        (sock or s).send(msgpack.packb(obj, use_bin_type=True))

    def note(m, **extra):
        if log:
            rec = {k: v for k, v in m.items() if k in
                   ("type", "code", "match", "turn", "message", "faults", "seat", "game", "ok",
                    "protocol", "name", "capacity", "params", "places")}
            rec.update(extra)
            if a.bin and m.get("type") == "act":  # the act's form, for the compact-act test
                rec["keys"] = sorted(k for k in m if k in ("obs", "legal", "x_obs_bin", "x_legal_bin"))
                rec["sizes"] = [len(m[k]) for k in ("x_obs_bin", "x_legal_bin") if k in m]
            log.write(json.dumps(rec) + "\n")
            log.flush()

    # A bot the arena started (cmd:) proves its name with the token it was
    # given in $JACKARENA_TOKEN; one started by hand (zmq:NAME) has none.
    token = os.environ.get("JACKARENA_TOKEN")
    hello = {"type": "hello", "protocol": a.protocol, "name": a.name, "version": a.version,
             "capacity": a.capacity}
    if token:
        hello["token"] = token
    if a.bin:
        hello["x_bin"] = {"true": True, "false": False}.get(a.bin, a.bin)
    if a.wait_file:
        while not os.path.exists(a.wait_file):
            time.sleep(0.05)
    if a.bad != "nohello":
        send(hello)
    if a.hello_timeout:
        if not s.poll(int(a.hello_timeout * 1000)):
            print("rawbot: no welcome", file=sys.stderr)
            sys.exit(3)
    if a.retry_refused or a.exit_after_welcome or a.touch:
        # Wait for the answer to the hello here.
        for attempt in range(a.retry_refused + 1):
            m = msgpack.unpackb(s.recv(), raw=False)
            note(m)
            if m["type"] != "error" or m.get("code") != "name_taken" or attempt == a.retry_refused:
                break
            time.sleep(0.1)
            send(hello)
        if m["type"] != "welcome":
            print("rawbot: hello refused: %s" % m, file=sys.stderr)
            sys.exit(3)
        if a.exit_after_welcome:
            os._exit(0)
        if a.touch:
            open(a.touch, "w").close()

    steals = []      # the thief's other connections
    steals_done = set()  # ... that the referee said bye to

    def steal():
        t = connect()
        steals.append(t)
        send({"type": "hello", "protocol": 1, "name": a.steal, "version": a.version,
              "capacity": 1}, t)
        if token:
            send({"type": "hello", "protocol": 1, "name": a.steal, "version": a.version,
                  "capacity": 1, "token": token}, t)

    def on_steal(t):
        m = msgpack.unpackb(t.recv(), raw=False)
        note(m, via="steal")
        if m.get("type") == "act":  # a takeover: play the victim's seat
            send({"type": "action", "match": m["match"], "turn": m["turn"], "index": 0}, t)
        elif m.get("type") == "ping":
            send({"type": "pong"}, t)
        return m.get("type")

    rngs = {}        # match -> its own stream, so choices never depend on timing
    acts = {}        # match -> acts seen
    bad_done = {}    # match -> misbehaviours done
    running = set()
    max_running = 0
    held = []
    hold_start = None

    def answer(m):
        match, turn = m["match"], m["turn"]
        n = len(m["legal"]) if "legal" in m else len(m["x_legal_bin"]) // 4
        k = acts[match]
        bad = a.bad and k % a.every == 0 and bad_done.get(match, 0) < a.times
        if bad:
            bad_done[match] = bad_done.get(match, 0) + 1
        index = rngs[match].randrange(n)
        msg = {"type": "action", "match": match, "turn": turn, "index": index}
        if not bad or a.bad in ("nohello",):
            send(msg)
        elif a.bad == "garbage":
            s.send(b"\xc1\xc1 this is not msgpack")
        elif a.bad == "nonmap":
            send(["action", match, turn, index])
        elif a.bad == "notype":
            send({"match": match, "turn": turn, "index": index})
        elif a.bad == "missing":
            send({"type": "action", "match": match, "turn": turn})
        elif a.bad == "mistyped":
            send({"type": "action", "match": match, "turn": turn, "index": "three"})
        elif a.bad == "range":
            send(dict(msg, index=n + 5))
        elif a.bad == "negative":
            send(dict(msg, index=-1))
        elif a.bad == "stale":
            send(dict(msg, turn=turn + 1000))
        elif a.bad == "unknown":
            send(dict(msg, match="no-such-match"))
        elif a.bad == "multiframe":
            s.send_multipart([msgpack.packb(msg), b"extra"])
        elif a.bad == "toobig":
            send(dict(msg, pad="x" * 70000))
        elif a.bad == "late":
            time.sleep(m["deadline_ms"] / 1000.0 + 0.3)
            send(msg)
        elif a.bad == "silent":
            pass
        elif a.bad == "disconnect":
            s.close(linger=0)
            ctx.term()
            os._exit(0)
        else:
            send(msg)

    while True:
        timeout = 200 if held else None
        poller = zmq.Poller()
        poller.register(s, zmq.POLLIN)
        for t in steals:
            poller.register(t, zmq.POLLIN)
        ready = dict(poller.poll(timeout))
        for t in steals:
            if t in ready and on_steal(t) == "bye":
                steals_done.add(t)
        if s not in ready:
            if held and time.time() - hold_start > a.hold_seconds:
                for m in held:
                    answer(m)
                held = []
            continue
        raw = s.recv()
        try:
            m = msgpack.unpackb(raw, raw=False)
        except Exception:
            print("rawbot: the referee sent something that is not msgpack", file=sys.stderr)
            sys.exit(4)
        t = m.get("type")
        note(m)
        if t == "start":
            if a.steal and len(steals) < a.steal_times:
                steal()
            rngs[m["match"]] = random.Random("%d:%s:%d" % (a.seed, m["match"], m["seat"]))
            acts[m["match"]] = 0
            running.add(m["match"])
            max_running = max(max_running, len(running))
        elif t == "act":
            acts[m["match"]] = acts.get(m["match"], 0) + 1
            if a.act_touch and not os.path.exists(a.act_touch):
                open(a.act_touch, "w").close()
                give_up = time.time() + 60
                while a.act_wait_file and not os.path.exists(a.act_wait_file) and \
                        time.time() < give_up:
                    time.sleep(0.05)
                if a.act_wait_file:
                    note({"type": "waited", "ok": os.path.exists(a.act_wait_file)})
            if a.hold_until and max_running < a.hold_until:
                if not held:
                    hold_start = time.time()
                held.append(m)
                continue
            if held:
                for h in held:
                    answer(h)
                held = []
            answer(m)
        elif t == "end":
            running.discard(m["match"])
        elif t == "ping":
            send({"type": "pong"})
        elif t == "bye":
            break
        if held and max_running >= a.hold_until:
            for h in held:
                answer(h)
            held = []
    # The referee says bye to the thief's other connections too: read each
    # to its end, so that every answer to its hellos is in the log.
    for t in steals:
        while t not in steals_done and t.poll(5000):
            if on_steal(t) == "bye":
                break
        t.close()
    if log:
        log.write(json.dumps({"type": "summary", "max_running": max_running}) + "\n")
        log.close()
    s.close()
    ctx.term()


if __name__ == "__main__":
    main()
