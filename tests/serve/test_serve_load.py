#!/usr/bin/python3
"""`arena serve` under a bounded load (docs/server.md): 50 spectators on
loopback, each an open /api/events stream plus a GET / and a GET
/api/ladder every half second, while matches run.

The spectators connect while only alice's bot is active (nothing plays, no
event is sent), then bob's bot is uploaded and the server plays M matches
and is then stopped from playing (both retired). Checked: every spectator's
stream stays open and receives every event, the same ids in the same
order without a gap; every page and ladder request answers 200 with the
page or valid JSON; the matches are recorded (the ladder's count reaches
M and equals `arena ladder export`'s); the server's resident memory
(VmRSS) never grows past a generous factor of what it was with the
spectators connected and no match played. Waits poll a condition; the
only clock is a guard against hangs. No timing is asserted.

With --bench M it measures instead, for bench/ja_bench.c's `serve`
section: matches recorded per second over M matches with 0 spectators,
then over the next M with 50, and the server's peak RSS, printed as one
line `serve RATE0 RATE50 PEAK_KIB RSS0_KIB MATCHES`.

usage: test_serve_load.py ARENA RANDOM.so PICK.so FREE_PORT.py [--bench M]"""
import http.client
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_lib import Server, check, failures, free_port, report, vm_rss_kib, wait_for  # noqa

ARENA, RANDOM, PICK, FREE_PORT = sys.argv[1:5]
BENCH = int(sys.argv[6]) if len(sys.argv) > 6 and sys.argv[5] == "--bench" else 0
SPECTATORS = 50
M = 2000        # matches played under load in the test
PERIOD = 0.5    # seconds between a spectator's page requests


class Spectator:
    """An open event stream (its ids kept) and a poller of / and /api/ladder."""

    def __init__(self, port, stop):
        self.port, self.stop = port, stop
        self.ids, self.bad, self.requests = [], [], 0
        self.connected = threading.Event()
        threading.Thread(target=self.stream, daemon=True).start()
        self.poller = threading.Thread(target=self.poll, daemon=True)
        self.poller.start()

    def stream(self):
        try:
            c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
            c.request("GET", "/api/events")
            r = c.getresponse()
            if r.status != 200:
                self.bad.append("events: %d" % r.status)
                return
            self.connected.set()
            eid = None
            while not self.stop.is_set():
                line = r.fp.readline()
                if not line:
                    if not self.stop.is_set():
                        self.bad.append("the event stream ended")
                    return
                if line.startswith(b"id: "):
                    eid = int(line[4:])
                elif line.startswith(b"data: "):
                    json.loads(line[6:])
                    self.ids.append(eid)
        except Exception as e:  # noqa: BLE001 (any failure is the test's finding)
            if not self.stop.is_set():
                self.bad.append("events: %r" % e)

    def poll(self):
        self.connected.wait()
        while not self.stop.is_set():
            for path in ("/", "/api/ladder"):
                try:
                    c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
                    c.request("GET", path)
                    r = c.getresponse()
                    data = r.read()
                    c.close()
                    if r.status != 200:
                        self.bad.append("%s: %d" % (path, r.status))
                    elif path == "/":
                        if b"/api/events" not in data:
                            self.bad.append("/: not the ladder page")
                    else:
                        json.loads(data)["matches"]
                    self.requests += 1
                except Exception as e:  # noqa: BLE001
                    self.bad.append("%s: %r" % (path, e))
            self.stop.wait(PERIOD)


def start_server(tmp):
    s = Server(ARENA, "bruise-jack", tmp, free_port(FREE_PORT),
               ["--smoke", "1", "--concurrency", "2", "--max-clients", "256", "--quiet"])
    s.start()
    return s


def spectate(s, stop):
    specs = [Spectator(s.port, stop) for _ in range(SPECTATORS)]
    wait_for(lambda: all(x.connected.is_set() or x.bad for x in specs), "spectators connected")
    return specs


def leave(specs, stop):
    """The pollers finish their requests before the server is stopped."""
    stop.set()
    for x in specs:
        x.poller.join()


def bench():
    tmp = tempfile.mkdtemp(prefix="serve-bench-")
    s = start_server(tmp)
    toks = [s.register(n) for n in ("alice", "bob")]
    s.upload(toks[0], RANDOM)
    s.upload(toks[1], PICK)
    s.wait_active("alice")
    s.wait_active("bob")
    peak = [0]

    def matches():
        peak[0] = max(peak[0], vm_rss_kib(s.proc.pid))
        return s.ladder()["matches"]

    def rate(n):
        m0 = wait_for(lambda: matches() or None, "a first match")
        t0 = time.monotonic()
        m1 = wait_for(lambda: (lambda m: m if m >= m0 + n else None)(matches()), "%d matches" % n)
        return (m1 - m0) / (time.monotonic() - t0), m1

    r0, _ = rate(BENCH)
    stop = threading.Event()
    specs = spectate(s, stop)
    rss0 = vm_rss_kib(s.proc.pid)
    r50, total = rate(BENCH)
    leave(specs, stop)
    bad = [b for x in specs for b in x.bad]
    s.stop()
    shutil.rmtree(tmp, ignore_errors=True)
    if bad or failures:
        print("FAIL: %r" % (bad[:5] + failures), file=sys.stderr)
        return 1
    print("serve %.3f %.3f %d %d %d" % (r0, r50, peak[0], rss0, total))
    return 0


def main():
    if BENCH:
        return bench()
    tmp = tempfile.mkdtemp(prefix="serve-load-")
    s = start_server(tmp)
    toks = {n: s.register(n) for n in ("alice", "bob")}
    s.upload(toks["alice"], RANDOM)
    s.wait_active("alice")

    stop = threading.Event()
    specs = spectate(s, stop)
    check(all(x.connected.is_set() for x in specs), "every spectator connected: %r" %
          [b for x in specs for b in x.bad][:5])
    rss0 = vm_rss_kib(s.proc.pid)
    samples = [rss0]

    s.upload(toks["bob"], PICK)

    def played():
        samples.append(vm_rss_kib(s.proc.pid))
        return s.ladder()["matches"] >= M
    wait_for(played, "%d matches under load" % M)
    for n in ("alice", "bob"):
        st, j = s.json("POST", "/api/bots/%s/retire" % n, b"",
                       {"Authorization": "Bearer " + toks[n]})
        check(st == 200, "retire %s: %d %r" % (n, st, j))
    wait_for(lambda: s.ladder()["playing"] is False, "the last batch")
    samples.append(vm_rss_kib(s.proc.pid))
    # The last event sent is the highest id any stream saw once play has
    # stopped; every stream must get to it.
    last = max(max(x.ids) for x in specs if x.ids)
    wait_for(lambda: all((x.ids and x.ids[-1] >= last) or x.bad for x in specs),
             "every stream to reach event %d" % last)
    # Every spectator kept polling while matches ran.
    wait_for(lambda: all(x.requests >= 4 or x.bad for x in specs), "every spectator's requests")
    leave(specs, stop)
    counts = [x.requests for x in specs]

    bad = [b for x in specs for b in x.bad]
    check(not bad, "no spectator error: %d, first %r" % (len(bad), bad[:5]))
    first = specs[0].ids[0] if specs[0].ids else None
    want = list(range(first, last + 1)) if first is not None else []
    check(len(want) >= M, "events sent while %d matches were played: %d" % (M, len(want)))
    for i, x in enumerate(specs):
        # An event sent after `last` may have reached some streams already.
        ids = list(x.ids)
        check(ids[:len(want)] == want and ids == list(range(first, first + len(ids))),
              "spectator %d got every event, in order: %d of %d, first %r" %
              (i, len(ids), len(want), ids[:3]))
    lad = s.ladder()
    out = subprocess.run([ARENA, "ladder", "export", "bruise-jack", "--jsonl", "--db",
                          os.path.join(tmp, "ladder.db")], capture_output=True, text=True)
    exported = [l for l in out.stdout.splitlines() if l.strip()]
    check(out.returncode == 0 and lad["matches"] == len(exported) and len(exported) >= M,
          "matches recorded: ladder %d, export %d" % (lad["matches"], len(exported)))
    peak = max(samples)
    check(peak <= 4 * rss0, "VmRSS bounded: %d KiB at the start of the load, peak %d KiB" %
          (rss0, peak))
    q = len(samples) // 4
    print("VmRSS samples (KiB) at each quarter of the run: %r" % samples[::q if q else 1])
    print("spectators %d, events %d, matches %d, requests %d (min %d per spectator), "
          "VmRSS %d KiB at the start, %d KiB peak" % (SPECTATORS, len(want), lad["matches"],
                                                      sum(counts), min(counts), rss0, peak))
    s.stop()
    if not failures:
        shutil.rmtree(tmp, ignore_errors=True)
    return report("serve_load")


if __name__ == "__main__":
    sys.exit(main())
