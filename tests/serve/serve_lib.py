"""Helpers of the `arena serve` tests that start a server and talk to it
(test_serve_browser.py, test_serve_load.py; docs/server.md): a server on a
loopback port from tests/free_port.py, killed at exit whatever happened;
JSON requests; registering and uploading; waits that poll a condition with
a generous guard against hangs only (never a timing assertion); an
author's matches checked as the ladder's live Elo sequence, and the bot
page's rating chart against it (test_serve_conns.py, test_serve_versions.py)."""
import atexit
import html
import http.client
import json
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import time

GUARD = int(os.environ.get("JA_TEST_GUARD", "600"))  # seconds: a hang, never a timing assertion
failures = []
_servers = []
_start = time.monotonic()


def _kill_all():
    for proc in _servers:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


atexit.register(_kill_all)
signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # ctest's timeout: atexit still runs


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, flush=True)
    return cond


def wait_for(pred, what, guard=GUARD):
    while True:
        v = pred()
        if v:
            return v
        if time.monotonic() - _start > guard:
            print("FAIL: gave up waiting for", what, flush=True)
            sys.exit(1)
        time.sleep(0.2)


def free_port(free_port_py):
    return int(subprocess.run(["/usr/bin/python3", free_port_py], capture_output=True,
                              text=True, check=True).stdout.strip())


class Server:
    """`arena serve GAME` with its databases in tmp, on 127.0.0.1:port."""

    def __init__(self, arena, game, tmp, port, extra=()):
        self.arena, self.game, self.tmp, self.port = arena, game, tmp, port
        self.extra, self.proc = list(extra), None

    def start(self):
        self.err = open(os.path.join(self.tmp, "server.err"), "a")
        # In a sanitized build ASan keeps up to 256 MiB of freed memory in
        # quarantine by default; a small one keeps VmRSS about the server.
        env = dict(os.environ)
        env["ASAN_OPTIONS"] = (env.get("ASAN_OPTIONS", "") +
                               ":quarantine_size_mb=8:thread_local_quarantine_size_kb=64")
        self.proc = subprocess.Popen(
            [self.arena, "serve", self.game, "--db", os.path.join(self.tmp, "ladder.db"),
             "--http", "127.0.0.1:%d" % self.port, "--seed", "7"] + self.extra,
            stdout=subprocess.DEVNULL, stderr=self.err, env=env)
        _servers.append(self.proc)
        wait_for(self.up, "the server to listen")

    def tail(self):
        try:
            with open(os.path.join(self.tmp, "server.err")) as f:
                return f.read()[-2000:]
        except OSError:
            return ""

    def up(self):
        if self.proc.poll() is not None:
            print("FAIL: the server died:", self.tail(), flush=True)
            sys.exit(1)
        try:
            socket.create_connection(("127.0.0.1", self.port), timeout=5).close()
            return True
        except OSError:
            return False

    def request(self, method, path, body=None, headers=None):
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        try:
            c.request(method, path, body=body, headers=headers or {})
            r = c.getresponse()
            return r.status, r.getheader("Content-Type", ""), r.read()
        finally:
            c.close()

    def json(self, method, path, body=None, headers=None):
        st, _, data = self.request(method, path, body, headers)
        try:
            return st, json.loads(data)
        except ValueError:
            return st, None

    def register(self, name):
        st, j = self.json("POST", "/api/register", json.dumps({"name": name}))
        check(st == 201, "register %s: %d %r" % (name, st, j))
        return j["token"] if st == 201 else ""

    def upload(self, token, path):
        with open(path, "rb") as f:
            st, j = self.json("POST", "/api/bots", f.read(), {"Authorization": "Bearer " + token})
        check(st == 202, "upload %s: %d %r" % (path, st, j))
        return j

    def status(self, author):
        """The status of the author's first version (None before any)."""
        st, b = self.json("GET", "/api/bots/" + author)
        return b["versions"][0]["status"] if st == 200 and b["versions"] else None

    def wait_active(self, author):
        s = wait_for(lambda: (lambda x: x if x not in (None, "validating") else None)(
            self.status(author)), author + "'s validation")
        check(s == "active", "%s active, not %s: %s" % (author, s, self.tail()))

    def ladder(self):
        st, j = self.json("GET", "/api/ladder")
        check(st == 200, "GET /api/ladder: %d" % st)
        return j or {}

    def stop(self):
        """SIGTERM: the server stops after the matches in flight, status 0."""
        self.proc.send_signal(signal.SIGTERM)
        rc = self.proc.wait(timeout=GUARD)
        check(rc == 0, "SIGTERM exits 0, not %d: %s" % (rc, self.tail()))


# Live Elo (docs/elo.md; ladders/elo.h): K while a bot is new, then K, on a
# 400-point scale, a seat's change K/(n-1) times the sum over the other
# bots' seats of score - expected.
ELO_INITIAL, ELO_K_NEW, ELO_K, ELO_K_NEW_GAMES, ELO_SCALE = 1500.0, 32.0, 16.0, 30, 400.0


def walk_matches(s, url):
    """Every match of a listing through its `next` links, newest first."""
    out = []
    while url:
        st, j = s.json("GET", url)
        check(st == 200, "GET %s: %d" % (url, st))
        if st != 200:
            break
        out += j["matches"]
        url = j["next"]
    return out


def elo_change(m, k):
    """Seat k's live Elo change in match m, from every seat's elo_before,
    games_before and place (the seats of one bot never score each other)."""
    me, n = m["seats"][k], len(m["seats"])
    K = ELO_K_NEW if me["games_before"] < ELO_K_NEW_GAMES else ELO_K
    total = 0.0
    for o in m["seats"]:
        if (o["author"], o["version"]) == (me["author"], me["version"]):
            continue
        score = 1.0 if me["place"] < o["place"] else 0.5 if me["place"] == o["place"] else 0.0
        total += score - 1.0 / (1.0 + 10 ** ((o["elo_before"] - me["elo_before"]) / ELO_SCALE))
    return K / (n - 1) * total


def rating_sequence(s, author, db_path):
    """The author's matches through /api/bots/NAME/matches (play stopped),
    checked as the ladder's rating sequence: every seat's elo_after is its
    elo_before plus the Elo update of its match, computed here from the
    seats' elo_before, games_before and places; each version's matches by
    games_before are 0, 1, 2 ..., chained exactly (each elo_before the
    previous elo_after) from 1500 to the version's live Elo in the ladder
    database. Returns the versions' steps, {version: [(tournament,
    games_before, elo_after)]} each in rating order."""
    ms = walk_matches(s, "/api/bots/%s/matches?limit=7" % author)
    steps = {}
    for m in ms:
        for k, seat in enumerate(m["seats"]):
            want = seat["elo_before"] + elo_change(m, k)
            check(abs(seat["elo_after"] - want) < 1e-9,
                  "match %s seat %d: elo_after %r, the update gives %r"
                  % (m["id"], k, seat["elo_after"], want))
            if seat["author"] == author:
                steps.setdefault(seat["version"], []).append(
                    (seat["games_before"], seat["elo_before"], seat["elo_after"],
                     m["tournament"]))
    check(steps, "%s has rated matches" % author)
    db = sqlite3.connect("file:%s?mode=ro" % db_path, uri=True)
    for v, st in steps.items():
        st.sort()
        check([x[0] for x in st] == list(range(len(st))),
              "%s@%s: games_before 0 .. %d: %r" % (author, v, len(st) - 1, [x[0] for x in st]))
        chain = [ELO_INITIAL] + [x[2] for x in st]
        check([x[1] for x in st] == chain[:-1],
              "%s@%s: each match's elo_before the previous one's elo_after" % (author, v))
        live = db.execute("SELECT r.elo FROM ratings r JOIN bots b ON b.id = r.bot_id "
                          "WHERE b.name = ? AND b.version = ?", (author, v)).fetchall()
        check(live == [(chain[-1],)], "%s@%s: the last elo_after %r is the live Elo %r"
              % (author, v, chain[-1], live))
        steps[v] = [(x[3], x[0], x[2]) for x in st]
    db.close()
    return steps


def rating_chart(page, author, steps):
    """The bot page's rating chart against the versions' steps
    (rating_sequence): one polyline per version, titled AUTHOR@VERSION,
    one point per rated match, left to right in the order rated (the
    versions by tournament), each point's height the Elo after it (an
    affine map of it, to the 0.1 of the drawing), a dot at each line's end
    with its Elo."""
    lines = re.findall(r'<polyline class="elo line c[0-9]" points="([^"]*)"><title>([^<]*)'
                       r'</title></polyline>', page)
    check(len(lines) == len(steps), "%s: one line per version: %d for %r"
          % (author, len(lines), sorted(steps)))
    order = sorted((t, g, v) for v, st in steps.items() for t, g, _ in st)
    xs = {}
    pts = []
    for points, title in lines:
        v = html.unescape(title)[len(author) + 1:]
        xy = [tuple(map(float, p.split(","))) for p in points.split()]
        st = steps.get(v, [])
        check(title.startswith(author + "@") and len(xy) == len(st),
              "%s: %d points for %d matches" % (title, len(xy), len(st)))
        check(all(a[0] < b[0] for a, b in zip(xy, xy[1:])), "%s: left to right" % title)
        xs.update({(t, g, v): x for (x, _), (t, g, _) in zip(xy, st)})
        pts += [(e, y) for (_, y), (_, _, e) in zip(xy, st)]
        end = re.search(r'<circle class="elo end c[0-9]" cx="[^"]*" cy="[^"]*" r="3"><title>'
                        + re.escape(title) + r': (-?[0-9]+)</title>', page)
        check(end and st and int(end.group(1)) == round(st[-1][2]),
              "%s: its end's dot with its Elo" % title)
    check(sorted(xs, key=xs.get) == order if len(xs) == len(order) else False,
          "%s: the points in the order rated" % author)
    # y = a + b * elo for every point (b < 0: up is more).
    n = len(pts)
    if n >= 2:
        me, my = sum(e for e, _ in pts) / n, sum(y for _, y in pts) / n
        var = sum((e - me) ** 2 for e, _ in pts)
        b = sum((e - me) * (y - my) for e, y in pts) / var if var else 0.0
        a = my - b * me
        worst = max(abs(y - (a + b * e)) for e, y in pts)
        check(b < 0 and worst < 0.1, "%s: heights drawn from the Elo (slope %r, off by %r)"
              % (author, b, worst))


def kept(before, after, skip=()):
    """What a restart must keep, from two `arena ladder export --jsonl`
    readings (lists of matches): no match recorded twice, every match of
    `before` still there with its digest, and every batch (one tournament
    of 2 matches: a duplicate pair, 2 seats, 1 round) whole but the last
    and those in `skip`. Returns what is wrong, as messages (none: empty)."""
    wrong = []
    keys = [(m["tournament"], m["match"]) for m in after]
    if len(keys) != len(set(keys)):
        wrong.append("a match recorded twice")
    new = {(m["tournament"], m["match"]): m["digest"] for m in after}
    if any(new.get((m["tournament"], m["match"])) != m["digest"] for m in before):
        wrong.append("a match lost or changed its digest")
    per = {}
    for t, _ in keys:
        per[t] = per.get(t, 0) + 1
    cut = {t: n for t, n in per.items() if n != 2 and t != max(per) and t not in skip}
    if cut:
        wrong.append("batches not whole: %r" % cut)
    return wrong


def vm_rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def report(name):
    print("%s: %s" % (name, "FAILED (%d)" % len(failures) if failures else "passed"))
    return 1 if failures else 0
