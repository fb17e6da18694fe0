#!/usr/bin/python3
"""An external bot that crashes once, for `--restart` tests.

It speaks docs/protocol.md with pyzmq and msgpack alone and answers every
`act` with index 0. On the first `act` of its second match it exits at once
with status 3 (os._exit: no bye, no clean-up) after one line on stderr, unless the marker file given
as its argument exists; it creates the marker first, so a process started
again after the crash plays on. The marker's path is relative to $TMPDIR:
a confined bot's scratch directory (arena --confine, the default of
`tournament`), which the arena keeps across restarts.
"""
import os
import sys

import msgpack
import zmq

marker = os.path.join(os.environ.get("TMPDIR") or ".", sys.argv[1])
ctx = zmq.Context()
s = ctx.socket(zmq.DEALER)
s.setsockopt(zmq.LINGER, 0)
s.connect(os.environ["JACKARENA_ENDPOINT"])
name = os.environ.get("JACKARENA_NAME", "crashbot")


def send(obj):
    s.send(msgpack.packb(obj, use_bin_type=True))


send({"type": "hello", "protocol": 1, "name": name, "version": "1", "capacity": 1,
      "token": os.environ["JACKARENA_TOKEN"]})
matches = 0
while True:
    m = msgpack.unpackb(s.recv(), raw=False)
    t = m.get("type")
    if t == "start":
        matches += 1
    elif t == "act":
        if matches == 2 and not os.path.exists(marker):
            open(marker, "w").close()
            print("crashbot: crashing on purpose", file=sys.stderr, flush=True)
            os._exit(3)
        send({"type": "action", "match": m["match"], "turn": m["turn"], "index": 0})
    elif t == "ping":
        send({"type": "pong"})
    elif t == "bye":
        break
s.close()
ctx.term()
