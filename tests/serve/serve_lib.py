"""Helpers of the `arena serve` tests that start a server and talk to it
(test_serve_browser.py, test_serve_load.py; docs/server.md): a server on a
loopback port from tests/free_port.py, killed at exit whatever happened;
JSON requests; registering and uploading; waits that poll a condition with
a generous guard against hangs only (never a timing assertion)."""
import atexit
import http.client
import json
import os
import signal
import socket
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
