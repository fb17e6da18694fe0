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
--hold-until N holds every answer until N matches are running at once (or
--hold-seconds pass): the capacity test.
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
    a = ap.parse_args()
    if not a.endpoint:
        sys.exit("rawbot: no endpoint (JACKARENA_ENDPOINT)")
    if a.lifetime:
        import signal
        signal.signal(signal.SIGALRM, lambda *_: os._exit(5))
        signal.alarm(int(a.lifetime))

    ctx = zmq.Context()
    s = ctx.socket(zmq.DEALER)
    s.setsockopt(zmq.LINGER, 1000)
    if a.server_key:
        pub, sec = zmq.curve_keypair()
        if os.environ.get("RAWBOT_PUBLIC_KEY"):
            pub = os.environ["RAWBOT_PUBLIC_KEY"].encode()
            sec = os.environ["RAWBOT_SECRET_KEY"].encode()
        s.curve_serverkey = a.server_key.encode()
        s.curve_publickey = pub
        s.curve_secretkey = sec
    s.connect(a.endpoint)
    log = open(a.log, "a") if a.log else None

    def send(obj):
        s.send(msgpack.packb(obj, use_bin_type=True))

    if a.bad != "nohello":
        send({"type": "hello", "protocol": 1, "name": a.name, "version": a.version,
              "capacity": a.capacity})
    if a.hello_timeout:
        if not s.poll(int(a.hello_timeout * 1000)):
            print("rawbot: no welcome", file=sys.stderr)
            sys.exit(3)

    rngs = {}        # match -> its own stream, so choices never depend on timing
    acts = {}        # match -> acts seen
    bad_done = {}    # match -> misbehaviours done
    running = set()
    max_running = 0
    held = []
    hold_start = None

    def answer(m):
        match, turn, n = m["match"], m["turn"], len(m["legal"])
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
        if not s.poll(timeout):
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
        if log:
            log.write(json.dumps({k: v for k, v in m.items() if k in
                                  ("type", "code", "match", "turn", "message", "faults",
                                   "seat", "game", "protocol", "name", "capacity",
                                   "params")}) + "\n")
            log.flush()
        if t == "start":
            rngs[m["match"]] = random.Random("%d:%s:%d" % (a.seed, m["match"], m["seat"]))
            acts[m["match"]] = 0
            running.add(m["match"])
            max_running = max(max_running, len(running))
        elif t == "act":
            acts[m["match"]] = acts.get(m["match"], 0) + 1
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
    if log:
        log.write(json.dumps({"type": "summary", "max_running": max_running}) + "\n")
        log.close()
    s.close()
    ctx.term()


if __name__ == "__main__":
    main()
