#!/usr/bin/python3
"""`arena serve` under a bounded load (docs/server.md): 1,000 spectators on
loopback (crowd.py: one thread, each spectator from its own 127.0.X.Y
address), each a `GET /`, then an open /api/events stream and a
`GET /api/ladder` every PAGE_PERIOD seconds, while matches run.

The spectators connect while only alice's bot is active (nothing plays, no
event is sent), then bob's bot is uploaded and the server plays M matches
and is then stopped from playing (both retired). Checked: every spectator's
stream stays open and receives every event, the same ids in order without a
gap; every page and ladder request answers 200 with the page or JSON with
"matches"; the matches are recorded (the ladder's count reaches M and
equals `arena ladder export`'s); the server's resident memory (VmRSS)
stays flat: never past 4 times what it was with the spectators connected
and no match played, and at the end within 1.5 times of it. Waits poll a
condition; the only clock is a guard against hangs. No timing is asserted.

With --bench M it measures instead, for bench/bench_serve.c's `serve`
section: matches recorded per second over M matches with no spectator,
then over the next M with N, the server's VmRSS with the crowd just
connected, at its peak over both and at the end, the matches in the ladder,
and the crowd thread's CPU time over the second window and that window's
length, printed as one line
`serve R0 RN N PEAK_KIB RSS0_KIB RSSEND_KIB MATCHES CLIENT_CPU_S WINDOW_S`.

usage: test_serve_load.py ARENA RANDOM.so PICK.so FREE_PORT.py [--bench M]
       [--spectators N]   (N: SPECTATORS unless given)"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from crowd import Crowd, raise_nofile  # noqa: E402
from serve_lib import Server, check, failures, free_port, report, vm_rss_kib, wait_for  # noqa

SPECTATORS = 1000
M = 2000             # matches played under load in the test
PAGE_PERIOD = 10.0   # seconds between a spectator's ladder requests
# The server's flags, the test's and the bench's: room for the crowd's
# 1,000 streams beside its requests (each spectator from an address of its
# own, so --max-per-address stays at its default).
SERVER_FLAGS = ["--smoke", "1", "--concurrency", "2", "--max-streams", "1100", "--quiet"]

ap = argparse.ArgumentParser()
for name in ("arena", "random", "pick", "free_port"):
    ap.add_argument(name)
ap.add_argument("--bench", type=int, default=0, metavar="M")
ap.add_argument("--spectators", type=int, default=SPECTATORS, metavar="N")
ARGS = ap.parse_args()


def start_server(tmp):
    raise_nofile(ARGS.spectators)
    s = Server(ARGS.arena, "bruise-jack", tmp, free_port(ARGS.free_port), SERVER_FLAGS)
    s.start()
    return s


def gather(s):
    """The crowd, its streams open (or failed)."""
    crowd = Crowd(s.port, ARGS.spectators, PAGE_PERIOD)
    crowd.start()
    wait_for(lambda: all(x.connected or x.lost for x in crowd.spectators),
             "spectators connected")
    return crowd


def stream(x):
    """What spectator x's stream got, for a failure message."""
    return "spectator %d: %d events, ids %r to %r%s" % (x.i, x.count, x.first, x.last,
                                                        ", not in order" if x.gap else "")


def bench():
    tmp = tempfile.mkdtemp(prefix="serve-bench-")
    s = start_server(tmp)
    toks = [s.register(n) for n in ("alice", "bob")]
    s.upload(toks[0], ARGS.random)
    s.upload(toks[1], ARGS.pick)
    s.wait_active("alice")
    s.wait_active("bob")
    peak = [0]

    def matches():
        peak[0] = max(peak[0], vm_rss_kib(s.proc.pid))
        return s.ladder()["matches"]

    def rate(n, crowd=None):
        """Matches per second over the next n, the window's seconds, the
        crowd's CPU seconds in it, and the matches at its end."""
        m0 = wait_for(lambda: matches() or None, "a first match")
        t0, c0 = time.monotonic(), crowd.cpu_seconds() if crowd else 0.0
        m1 = wait_for(lambda: (lambda m: m if m >= m0 + n else None)(matches()), "%d matches" % n)
        t1, c1 = time.monotonic(), crowd.cpu_seconds() if crowd else 0.0
        return (m1 - m0) / (t1 - t0), t1 - t0, c1 - c0, m1

    r0 = rate(ARGS.bench)[0]
    crowd = gather(s)
    rss0 = vm_rss_kib(s.proc.pid)
    rn, window, cpu, total = rate(ARGS.bench, crowd)
    rss_end = vm_rss_kib(s.proc.pid)
    peak[0] = max(peak[0], rss0, rss_end)
    crowd.stop()
    bad = crowd.errors()
    s.stop()
    shutil.rmtree(tmp, ignore_errors=True)
    if bad or failures:
        print("FAIL: %d spectator errors, first %r; %r" % (crowd.n_errors(), bad[:5], failures),
              file=sys.stderr)
        return 1
    print("serve %.3f %.3f %d %d %d %d %d %.3f %.3f" %
          (r0, rn, ARGS.spectators, peak[0], rss0, rss_end, total, cpu, window))
    return 0


def main():
    if ARGS.bench:
        return bench()
    n = ARGS.spectators
    tmp = tempfile.mkdtemp(prefix="serve-load-")
    s = start_server(tmp)
    toks = {a: s.register(a) for a in ("alice", "bob")}
    s.upload(toks["alice"], ARGS.random)
    s.wait_active("alice")

    crowd = gather(s)
    specs = crowd.spectators
    check(crowd.connected() == n, "every spectator connected: %d of %d, first errors %r" %
          (crowd.connected(), n, crowd.errors()[:5]))
    rss0 = vm_rss_kib(s.proc.pid)
    samples = [rss0]

    s.upload(toks["bob"], ARGS.pick)

    def played():
        samples.append(vm_rss_kib(s.proc.pid))
        return s.ladder()["matches"] >= M
    wait_for(played, "%d matches under load" % M)
    for a in ("alice", "bob"):
        st, j = s.json("POST", "/api/bots/%s/retire" % a, b"",
                       {"Authorization": "Bearer " + toks[a]})
        check(st == 200, "retire %s: %d %r" % (a, st, j))
    wait_for(lambda: s.ladder()["playing"] is False, "the last batch")
    rss_end = vm_rss_kib(s.proc.pid)
    samples.append(rss_end)
    # The last event sent is the highest id any stream saw once play has
    # stopped; every stream must get to it.
    last = max((x.last for x in specs if x.last is not None), default=None)
    if not check(last is not None, "events reached the streams: %r" % crowd.errors()[:5]):
        return report("serve_load")
    wait_for(lambda: all((x.last is not None and x.last >= last) or x.lost for x in specs),
             "every stream to reach event %d" % last)
    # Every spectator kept asking for the ladder: the page and two answers.
    wait_for(lambda: all(x.requests >= 3 or x.n_errors for x in specs),
             "every spectator's requests")
    crowd.stop()

    check(not crowd.n_errors(), "no spectator error: %d, first %r" %
          (crowd.n_errors(), crowd.errors()[:5]))
    first = specs[0].first
    check(first is not None and last - first + 1 >= M,
          "events sent while %d matches were played: first %r, last %d" % (M, first, last))
    # An event sent after `last` may have reached some streams already.
    short = [x for x in specs if x.last is None or x.first != first or x.gap or x.last < last]
    check(not short, "every stream got the events %r to %d in order: %d did not, first %s" %
          (first, last, len(short), stream(short[0]) if short else ""))
    lad = s.ladder()
    out = subprocess.run([ARGS.arena, "ladder", "export", "bruise-jack", "--jsonl", "--db",
                          os.path.join(tmp, "ladder.db")], capture_output=True, text=True)
    exported = [line for line in out.stdout.splitlines() if line.strip()]
    check(out.returncode == 0 and lad["matches"] == len(exported) and len(exported) >= M,
          "matches recorded: ladder %d, export %d" % (lad["matches"], len(exported)))
    peak = max(samples)
    check(peak <= 4 * rss0, "VmRSS bounded: %d KiB with the spectators connected, peak %d KiB" %
          (rss0, peak))
    check(rss_end <= 1.5 * rss0, "VmRSS flat: %d KiB with the spectators connected, %d KiB "
          "after %d matches" % (rss0, rss_end, lad["matches"]))
    q = len(samples) // 4
    print("VmRSS samples (KiB) at each quarter of the run: %r" % samples[::q if q else 1])
    counts = [x.requests for x in specs]
    print("spectators %d, events %d, matches %d, requests %d (min %d per spectator), "
          "VmRSS %d KiB connected, %d KiB peak, %d KiB at the end; the crowd's CPU %.1f s" %
          (n, last - first + 1 if first is not None else 0, lad["matches"], sum(counts),
           min(counts), rss0, peak, rss_end, crowd.cpu_seconds()))
    s.stop()
    if not failures:
        shutil.rmtree(tmp, ignore_errors=True)
    return report("serve_load")


if __name__ == "__main__":
    sys.exit(main())
