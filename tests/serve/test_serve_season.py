#!/usr/bin/python3
"""A season of `arena serve` (docs/server.md), lived as its users would, on
loopback, with the server SIGKILLed three times and restarted:

- nine authors, each with several versions over the season: plugins (some
  with parameters, one refused by its own check_params), external bots of
  the Python SDK (one that leaves and comes back, one that replaces its
  author's plugin), a bot that faults until it is suspended and whose
  author then uploads a better one, an author who retires and comes back;
- 50 spectators (tests/serve/crowd.py) on every server, a slow client that
  drips request headers and sends junk all season, a poller that reads
  the live matches and the replays, pages and records of their batches and
  of the newest matches while they are played, and a watcher that follows
  live matches' public streams.

Checked at the end, and along the way:
- the server never exited on its own (alive before each kill, and at the
  end: SIGTERM, status 0);
- every batch ended, done or failed with a reason, once everybody retired;
- no match lost or recorded twice across the kills, every match's deal its
  own (no seed twice);
- no replay, replay page or match seed was public while a match of its
  batch was still being played (a batch seen live after one of its replays
  or seeds was served fails the test), and no live frame came before the
  match was --live-delay decisions further;
- every version ended in the status its story says, with its reason;
- /api/ladder's fit equals `arena ladder --fit --json`;
- the spectators got every event in order without a gap and every page;
- each server process's memory bounded (VmRSS at its peak within 4 times
  its first reading with the crowd connected).

Waits poll the API; the only clock is a guard against hangs (no timing is
asserted).

usage: test_serve_season.py ARENA RANDOM.so PICK.so ISMCTS.so SEATFAULT.so
       DAWDLE.so FREE_PORT.py SDK_DIR"""
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from crowd import Crowd  # noqa: E402
from serve_lib import (Server, check, free_port, kept, report, vm_rss_kib,  # noqa: E402
                       wait_for)

import zmq  # noqa: E402  (Debian's python3-zmq)

ARENA, RANDOM, PICK, ISMCTS, SEATFAULT, DAWDLE, FREE_PORT, SDK = sys.argv[1:9]
GAME = "bruise-jack"
SPECTATORS = 50
BOTS = []  # external bot processes, killed at exit


def auth(t):
    return {"Authorization": "Bearer " + t}


class Season:
    def __init__(self):
        self.tmp = tempfile.mkdtemp(prefix="serve-season-")
        self.endpoint = "tcp://127.0.0.1:%d" % free_port(FREE_PORT)
        self.s = Server(ARENA, GAME, self.tmp, free_port(FREE_PORT),
                        ["--listen", self.endpoint, "--smoke", "1", "--concurrency", "2",
                         "--fault-limit", "3", "--live-delay", "3"])
        self.tokens = {}
        self.keys = {}          # author -> (public, secret) of its current external bot
        self.bots = {}          # author -> its external bot's process
        self.published = set()  # tournaments whose replay, page or seed was served
        self.leaks = []
        self.polls = 0
        self.watched = 0        # live matches followed to their end
        self.early = []         # frames released before the delay
        self.crowd = None
        self.crowds = []
        self.rss = []           # per server process: its VmRSS readings
        self.halt = threading.Event()
        self.kills = 0

    # ---- the server and its crowd -------------------------------------------------

    def start(self):
        self.s.start()
        st, j = self.s.json("GET", "/api/server")
        self.server_key = j["external"]["server_key"]
        self.crowd = Crowd(self.s.port, SPECTATORS, page_period=2.0, seed=self.kills + 1)
        self.crowd.start()
        wait_for(lambda: all(x.connected or x.lost for x in self.crowd.spectators),
                 "the spectators connected")
        self.rss.append([vm_rss_kib(self.s.proc.pid)])

    def leave_crowd(self):
        """The spectators read what was sent, then go (before a kill, so that
        the kill is not counted against them)."""
        c = self.crowd
        last = self.last_event()
        if last:
            wait_for(lambda: all(x.lost or (x.last or 0) >= last for x in c.spectators),
                     "the spectators caught up")
        c.stop()
        self.crowds.append(c)

    def last_event(self):
        c = self.crowd
        return max([x.last for x in c.spectators if x.last] or [0])

    def kill(self, what):
        """SIGKILL mid-play, after checking that the server is alive, then a
        restart: everything recorded before is still there, nothing twice."""
        wait_for(lambda: self.s.json("GET", "/api/ladder")[1]["playing"], "play before " + what)
        check(self.s.proc.poll() is None, "the server alive before the kill of " + what)
        self.leave_crowd()
        before = self.export()
        self.s.proc.send_signal(signal.SIGKILL)
        self.s.proc.wait()
        self.kills += 1
        after_kill = self.export()
        self.start()
        wait_for(lambda: len(self.export()) >= len(after_kill) + 4, "play after " + what)
        wrong = kept(before, self.export(), skip=self.tournaments())
        check(not wrong, "nothing lost or doubled across %s: %r" % (what, wrong))

    def tournaments(self):
        """Batches of 2 seats, 1 round: 2 matches each; kept()'s wholeness
        check skips every batch that failed or is unfinished."""
        db = os.path.join(self.tmp, "ladder.db.serve", "serve.db")
        import sqlite3
        c = sqlite3.connect(db)
        t = {r[0] for r in c.execute("SELECT tournament FROM batches WHERE state != 'done' "
                                     "AND tournament IS NOT NULL")}
        c.close()
        return t

    def export(self):
        out = subprocess.run([ARENA, "ladder", "export", GAME, "--jsonl", "--db",
                              os.path.join(self.tmp, "ladder.db")], capture_output=True,
                             text=True)
        check(out.returncode == 0, "ladder export: " + out.stderr)
        return [json.loads(l) for l in out.stdout.splitlines() if l.strip()]

    # ---- authors ------------------------------------------------------------------

    def register(self, name):
        self.tokens[name] = self.s.register(name)

    def upload(self, name, path, params=None, want=202):
        h = auth(self.tokens[name])
        if params:
            h["X-Bot-Params"] = params
        with open(path, "rb") as f:
            st, j = self.s.json("POST", "/api/bots", f.read(), h)
        check(st == want, "%s uploads %s %s: %d %r" % (name, os.path.basename(path), params, st,
                                                      j))
        return j.get("version") if st == 202 else None

    def external(self, name):
        """A new key for name's external bot, registered, and its bot run."""
        pub, sec = (k.decode() for k in zmq.curve_keypair())
        st, j = self.s.json("POST", "/api/external", json.dumps({"key": pub}),
                            auth(self.tokens[name]))
        check(st == 202, "%s registers an external key: %d %r" % (name, st, j))
        self.keys[name] = (pub, sec)
        self.run_bot(name)
        return j.get("version")

    def run_bot(self, name):
        pub, sec = self.keys[name]
        env = dict(os.environ, JACKARENA_ENDPOINT=self.endpoint, JACKARENA_NAME=name,
                   JACKARENA_SERVER_KEY=self.server_key, JACKARENA_PUBLIC_KEY=pub,
                   JACKARENA_SECRET_KEY=sec)
        env.pop("JACKARENA_ARENA_PID", None)
        log = open(os.path.join(self.tmp, "bot-%s.log" % name), "a")
        p = subprocess.Popen(["/usr/bin/python3", os.path.join(SDK, "examples", "pyexample.py")],
                             stdout=subprocess.DEVNULL, stderr=log, env=env)
        BOTS.append(p)
        self.bots[name] = p

    def stop_bot(self, name):
        p = self.bots.pop(name)
        p.kill()
        p.wait()

    def version(self, name, number):
        st, b = self.s.json("GET", "/api/bots/" + name)
        for v in b.get("versions", []) if st == 200 else []:
            if v["version"] == number:
                return v
        return None

    def settle(self, name, number, *want):
        v = wait_for(lambda: (lambda x: x if x and x["status"] != "validating" else None)(
            self.version(name, number)), "%s version %d validated" % (name, number))
        check(v["status"] in want, "%s version %d: %s, not %s (%s)" % (name, number,
                                                                       v["status"], want,
                                                                       v["reason"]))
        return v

    def games(self, name):
        st, lad = self.s.json("GET", "/api/ladder")
        return sum(r["games"] for r in (lad.get("ratings", []) if st == 200 else [])
                   if r.get("author") == name)

    def play(self, n, what):
        m0 = len(self.export())
        wait_for(lambda: len(self.export()) >= m0 + n, what)
        self.sample()
        phase("%s: %d matches in all" % (what, len(self.export())))

    def sample(self):
        if self.s.proc.poll() is None:
            self.rss[-1].append(vm_rss_kib(self.s.proc.pid))

    # ---- the hostile and the curious ------------------------------------------------

    def slow_client(self):
        """Drips a request's headers, a line a second, from its own address,
        and sends junk between; starts again whenever it is cut or the
        server is away."""
        junk = [b"BREW / HTTP/1.1\r\n\r\n", b"GET /%2e%2e/ladder.db HTTP/1.1\r\n\r\n",
                b"POST /api/bots HTTP/1.1\r\nContent-Length: 999999999999\r\n\r\n",
                b"GET /api/matches?before=-3 HTTP/1.1\r\n\r\n", b"\x00\x01garbage\r\n\r\n"]
        k = 0
        while not self.halt.is_set():
            try:
                sock = socket.socket()
                sock.bind(("127.0.0.9", 0))
                sock.settimeout(1)
                sock.connect(("127.0.0.1", self.s.port))
                sock.sendall(junk[k % len(junk)])
                k += 1
                sock.close()
                sock = socket.socket()
                sock.bind(("127.0.0.9", 0))
                sock.settimeout(1)
                sock.connect(("127.0.0.1", self.s.port))
                sock.sendall(b"GET / HTTP/1.1\r\n")
                while not self.halt.is_set():
                    sock.sendall(b"X-Slow: yes\r\n")
                    try:
                        if sock.recv(1) == b"":
                            break
                    except socket.timeout:
                        pass
                sock.close()
            except OSError:
                self.halt.wait(0.2)

    def watcher(self):
        """Follows one live match's public stream at a time to its end: no
        frame comes before the match is --live-delay decisions further."""
        while not self.halt.is_set():
            try:
                st, live = self.s.json("GET", "/api/live")
                ms = live["matches"] if st == 200 else []
                # gus's dawdling plugin makes the matches long enough to be
                # followed; a fast match may end before its stream opens.
                ms = [m for m in ms if any(n.startswith("gus") for n in m["seats"])] or ms
                if not ms:
                    raise OSError
                c = http.client.HTTPConnection("127.0.0.1", self.s.port, timeout=60)
                c.request("GET", "/api/live/%s/events" % ms[0]["id"])
                r = c.getresponse()
                frames, end, delay = [], None, None
                while r.status == 200 and end is None and not self.halt.is_set():
                    line = r.readline()   # chunked: an event may span chunks
                    if not line:
                        break
                    if line.startswith(b"data: "):
                        ev = json.loads(line[6:])
                        if ev["type"] == "match":
                            delay = ev["delay"]
                        elif ev["type"] == "frame":
                            frames.append(ev)
                        elif ev["type"] == "end":
                            end = ev
                c.close()
                if end is not None and "decisions" in end and delay is not None:
                    self.watched += 1
                    self.early += [f for f in frames if f["at"] - f["decision"] < delay and
                                   f["at"] != end["decisions"]]
            except (OSError, ValueError, KeyError, http.client.HTTPException):
                self.halt.wait(0.2)

    def poller(self):
        """What is public while matches are played: a batch seen live after
        one of its replays, pages or seeds was served is a leak."""
        while not self.halt.is_set():
            try:
                st, live = self.s.json("GET", "/api/live")
                if st != 200:
                    raise OSError
                self.polls += 1
                # Only a live set read after a batch was seen published
                # counts against it: a match listed just before it ended
                # is no leak.
                tids = {int(m["id"].split("-")[0]) for m in live["matches"]}
                bad = tids & self.published
                # The newest matches recorded: a batch whose seed shows here
                # must never be seen live again.
                st, recent = self.s.json("GET", "/api/matches?limit=8")
                for m in recent["matches"] if st == 200 else []:
                    if m["seed"] or m["replay"]:
                        self.published.add(m["tournament"])
                st, live2 = self.s.json("GET", "/api/live")
                if st == 200:
                    bad |= {int(m["id"].split("-")[0]) for m in live2["matches"]} & self.published
                if bad:
                    self.leaks.append("batches of tournaments %r live after their replays or "
                                      "seeds were public" % sorted(bad))
                for t in tids:
                    for n in range(4):
                        mid = "%d-%d" % (t, n)
                        for path in ("/matches/%s.replay" % mid, "/matches/%s.html" % mid):
                            if self.s.request("GET", path)[0] == 200:
                                self.published.add(t)
                        st, j = self.s.json("GET", "/api/matches/" + mid)
                        if st == 200 and (j["seed"] or j["replay"]):
                            self.published.add(t)
            except (OSError, ValueError, KeyError, TypeError):
                self.halt.wait(0.2)  # the server is away (killed): poll again
            self.halt.wait(0.2)


T0 = time.monotonic()


def phase(what):
    """Where the season is, and when (for the log: never asserted)."""
    print("%6.1f s  %s" % (time.monotonic() - T0, what), flush=True)


def main():
    se = Season()
    se.start()
    s = se.s
    hostile = threading.Thread(target=se.slow_client, daemon=True)
    poll = threading.Thread(target=se.poller, daemon=True)
    watch = threading.Thread(target=se.watcher, daemon=True)
    hostile.start()
    poll.start()
    watch.start()

    # ---- opening: eight plugin authors and one external bot
    phase("opening: eight plugin authors and one external bot")
    for a in ("ann", "ben", "cat", "dan", "eve", "fay", "gus", "hal", "xia"):
        se.register(a)
    se.upload("ann", RANDOM)
    se.upload("ben", PICK)
    se.upload("cat", RANDOM)
    se.upload("dan", SEATFAULT)
    se.upload("eve", PICK, "pick=last")
    se.upload("fay", RANDOM)
    se.upload("gus", DAWDLE)
    se.upload("hal", ISMCTS, "iters=8")
    se.external("xia")
    for a in ("ann", "ben", "cat", "eve", "fay", "gus", "hal", "xia"):
        se.settle(a, 1, "active")
    se.settle("dan", 1, "active", "suspended")  # it passes, then faults in the ladder
    se.play(20, "the first matches")
    # One live match followed to its end while gus's plugin still dawdles
    # (its second version does not): waited for, not left to chance.
    wait_for(lambda: se.watched >= 1, "a live match of gus's dawdling plugin watched to its end")

    # ---- new versions while playing: replacing, refused, retired
    phase("new versions while playing: replacing, refused, retired")
    se.upload("ann", PICK, "pick=last")
    se.upload("ben", PICK, "pick=nonsense")
    st, j = s.json("POST", "/api/bots/cat/retire", b"", auth(se.tokens["cat"]))
    check(st == 200 and j["retired"] == 1, "cat retires: %d %r" % (st, j))
    se.settle("ann", 2, "active")
    v = se.settle("ben", 2, "rejected")
    check("refuses its parameters" in v["reason"], "ben@2's reason: %r" % v["reason"])
    check(se.version("ann", 1)["status"] == "retired" and
          se.version("ben", 1)["status"] == "active", "ann@1 replaced; ben@1 plays on")
    se.play(12, "play with ann@2")
    se.kill("the first kill")

    # ---- xia's bot leaves and comes back; eve's plugin replaced by a bot
    phase("xia's bot leaves and comes back; eve's plugin replaced by a bot")
    se.stop_bot("xia")
    se.play(12, "play while xia is away")
    se.run_bot("xia")
    g = se.games("xia")
    wait_for(lambda: se.games("xia") > g, "xia playing again")
    se.external("eve")
    se.settle("eve", 2, "active")
    check(se.version("eve", 1)["status"] == "retired", "eve's plugin replaced by her bot")
    se.upload("gus", PICK)
    se.settle("gus", 2, "active")
    se.play(16, "play with eve's bot")
    se.kill("the second kill")

    # ---- dan suspended, then better; cat back; ann's third; hal's second
    phase("dan suspended, then better; cat back; ann's third; hal's second")
    v = wait_for(lambda: (lambda x: x if x and x["status"] == "suspended" else None)(
        se.version("dan", 1)), "dan@1 suspended for its faults")
    check("over the limit" in v["reason"], "dan@1's reason: %r" % v["reason"])
    se.upload("dan", RANDOM)
    se.settle("dan", 2, "active")
    se.upload("cat", PICK, "pick=last")
    se.settle("cat", 2, "active")
    se.upload("ann", ISMCTS, "iters=4")
    se.settle("ann", 3, "active")
    se.upload("hal", ISMCTS, "iters=16")
    se.settle("hal", 2, "active")
    se.play(16, "play with the new versions")
    se.kill("the third kill")
    se.play(12, "play after the third kill")

    # ---- the end of the season: everybody retires, play stops
    phase("the end of the season: everybody retires, play stops")
    for a, t in se.tokens.items():
        st, j = s.json("POST", "/api/bots/%s/retire" % a, b"", auth(t))
        check(st == 200, "%s retires: %d %r" % (a, st, j))
    wait_for(lambda: s.json("GET", "/api/ladder")[1]["playing"] is False, "play to stop")
    se.sample()
    se.halt.set()
    poll.join()
    hostile.join()
    watch.join()
    se.leave_crowd()

    check(not se.leaks, "nothing public before its batch ended: %r" % se.leaks[:3])
    check(se.watched >= 1 and not se.early, "live frames never before the delay: %d matches "
          "watched, early frames %r" % (se.watched, se.early[:3]))
    check(se.polls >= 20 and se.published, "the poller watched (%d polls, %d batches seen "
          "published)" % (se.polls, len(se.published)))
    import sqlite3
    c = sqlite3.connect(os.path.join(se.tmp, "ladder.db.serve", "serve.db"))
    states = c.execute("SELECT state, count(*), sum(reason = '') FROM batches GROUP BY state")
    states = {r[0]: (r[1], r[2]) for r in states}
    c.close()
    check(set(states) <= {"done", "failed"}, "every batch ended: %r" % states)
    check("failed" not in states or states["failed"][1] == 0, "a failed batch has its reason")
    ms = se.export()
    keys = [(m["tournament"], m["match"]) for m in ms]
    check(len(keys) == len(set(keys)), "no match recorded twice")
    seeds = [m["seed"] for m in ms]
    check(len(seeds) == len(set(seeds)), "every match a deal of its own: %d matches, %d deals"
          % (len(seeds), len(set(seeds))))
    st, lad = s.json("GET", "/api/ladder")
    out = subprocess.run([ARENA, "ladder", GAME, "--fit", "--json", "--db",
                          os.path.join(se.tmp, "ladder.db")], capture_output=True, text=True)
    check(out.returncode == 0 and json.loads(out.stdout) == lad["fit"],
          "/api/ladder's fit equals arena ladder --fit --json")
    check(lad["matches"] == len(ms), "the ladder's count: %d, export %d" % (lad["matches"],
                                                                         len(ms)))
    for c in se.crowds:
        errs = c.errors()
        check(not errs, "the spectators saw no error: %r" % errs[:3])
        check(all(not x.gap for x in c.spectators), "every spectator's events in order, no gap")
        check(all(x.requests >= 1 for x in c.spectators), "every spectator's pages answered")
    for i, r in enumerate(se.rss):
        check(max(r) <= 4 * r[0], "server %d's memory bounded: %d KiB first, %d KiB peak" %
              (i, r[0], max(r)))
    print("season: %d matches, %d batches %r, %d polls, %d batches seen published, %d live "
          "matches watched, VmRSS per server %r" % (len(ms), sum(v[0] for v in states.values()),
                                                   states, se.polls, len(se.published),
                                                   se.watched, [(r[0], max(r)) for r in se.rss]))
    s.stop()
    for p in BOTS:
        if p.poll() is None:
            p.kill()
            p.wait()
    return report("serve_season")


if __name__ == "__main__":
    try:
        sys.exit(main())
    finally:
        for p in BOTS:
            if p.poll() is None:
                p.kill()
