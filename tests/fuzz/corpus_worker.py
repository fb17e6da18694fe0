#!/usr/bin/env python3
# Writes the seed corpus of fuzz_worker (tests/fuzz/corpus/worker): one
# well-formed message of each type, and a few broken ones.
import os, sys
import msgpack

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus", "worker")
os.makedirs(out, exist_ok=True)
setup = msgpack.packb({"game": "taylor-blackjack", "options": [[1, 0], [0, 1]], "move_ms": 0,
                       "max_faults": 0, "tournament": 1, "replay": True, "proto": 1,
                       "bots": [{"spec": "random", "name": "random", "sha256": ""},
                                {"spec": "greedy", "name": "greedy", "sha256": ""}]})
res = {"score": [1, 0, -1], "place": [1, 2, 3], "forfeit": [0, 0, 0], "think_us": [5, 6, 7],
       "kinds": [[0] * 8] * 3, "faults": [0, 0, 0], "decisions": 40, "asked": 30,
       "digest": b"\x01" * 32, "seats": 3}
msgs = {
    "hello": {"t": "hello", "v": 1, "slots": 2, "host": "box:1", "pid": 1},
    "hello-v9": {"t": "hello", "v": 9, "slots": 2, "host": "box:1", "pid": 1},
    "hello-slots0": {"t": "hello", "v": 1, "slots": 0, "host": "box:1", "pid": 1},
    "hb": {"t": "hb"},
    "quit": {"t": "quit"},
    "job": {"t": "job", "ctx": setup, "n": 7, "seed": 99, "seats": [0, 1, 0], "export": False},
    "result": {"t": "result", "n": 7, "rc": 0, "err": "", "replay": b"RPL", "export": None, "res": res},
    "result-err": {"t": "result", "n": 7, "rc": -16, "err": "differs", "replay": None, "export": None},
    "result-seats99": {"t": "result", "n": 7, "rc": 0, "err": "", "replay": None, "export": None,
                       "res": dict(res, seats=99)},
    "unknown": {"t": "boom"},
}
for name, m in msgs.items():
    open(os.path.join(out, name), "wb").write(msgpack.packb(m))
open(os.path.join(out, "setup"), "wb").write(setup)
open(os.path.join(out, "truncated"), "wb").write(msgpack.packb(msgs["result"])[:40])
open(os.path.join(out, "huge-array"), "wb").write(b"\x81\xa1t\xdd\xff\xff\xff\xff")
