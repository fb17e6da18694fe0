#!/usr/bin/python3
"""`arena serve` end to end (docs/server.md): a server on a loopback port
with a temporary ladder database, driven over HTTP with the standard
library. Two authors upload two plugins (raw body and multipart), both are
validated and play; bad input of every kind is refused; the server is
SIGKILLed mid-play and restarted, and nothing is lost or doubled; /api/ladder
agrees with `arena ladder --fit --json` on the same database; pages, replays
and the event stream work; SIGTERM stops it with status 0.

Waits poll the JSON API; the only clock is a generous guard against hangs.

A second server suspends a bot that passed validation and faults in the
ladder (--fault-limit 0).

usage: test_serve.py ARENA RANDOM.so PICK.so SEGV.so SEATFAULT.so FREE_PORT.py"""
import atexit
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_lib import kept  # noqa: E402  (what a restart must keep)

ARENA, RANDOM, PICK, SEGV, SEATFAULT, FREE_PORT = sys.argv[1:7]
GAME = "bruise-jack"
GUARD = 600  # seconds: a hang, never a timing assertion
K = 6        # matches each bot plays before the checks
failures = []
SERVERS = []  # every server started, killed at exit whatever happened


def kill_servers():
    for proc in SERVERS:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


atexit.register(kill_servers)
signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # ctest's timeout: atexit still runs


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, flush=True)


class Server:
    def __init__(self, tmp, port, extra=()):
        self.tmp, self.port, self.proc, self.extra = tmp, port, None, list(extra)

    def start(self):
        self.err = open(os.path.join(self.tmp, "server.err"), "a")
        self.proc = subprocess.Popen(
            [ARENA, "serve", GAME, "--db", os.path.join(self.tmp, "ladder.db"),
             "--http", "127.0.0.1:%d" % self.port, "--smoke", "2", "--concurrency", "2",
             "--max-upload", "1000000", "--upload-rate", "8", "--seed", "7"] + self.extra,
            stdout=subprocess.DEVNULL, stderr=self.err)
        SERVERS.append(self.proc)
        wait_for(lambda: self.up(), "the server to listen")

    def up(self):
        check(self.proc.poll() is None, "the server died: " + tail(self.tmp))
        if self.proc.poll() is not None:
            sys.exit(report())
        try:
            socket.create_connection(("127.0.0.1", self.port), timeout=5).close()
            return True
        except OSError:
            return False

    def request(self, method, path, body=None, headers=None):
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
        c.request(method, path, body=body, headers=headers or {})
        r = c.getresponse()
        data = r.read()
        c.close()
        return r.status, r.getheader("Content-Type", ""), data

    def json(self, method, path, body=None, headers=None):
        st, _, data = self.request(method, path, body, headers)
        try:
            return st, json.loads(data)
        except ValueError:
            return st, None


def tail(tmp):
    try:
        with open(os.path.join(tmp, "server.err")) as f:
            return f.read()[-2000:]
    except OSError:
        return ""


START = time.monotonic()


def wait_for(pred, what):
    while True:
        v = pred()
        if v:
            return v
        if time.monotonic() - START > GUARD:
            print("FAIL: gave up waiting for", what, flush=True)
            sys.exit(1)
        time.sleep(0.2)


def report():
    print("%d passed, %d failed" % (1 if not failures else 0, 1 if failures else 0))
    return 1 if failures else 0


def multipart(fields, boundary="xYzBoUnDaRy"):
    out = b""
    for name, filename, data in fields:
        out += b"--" + boundary.encode() + b"\r\n"
        disp = 'form-data; name="%s"' % name
        if filename:
            disp += '; filename="%s"' % filename
        out += b"Content-Disposition: " + disp.encode() + b"\r\n"
        out += b"Content-Type: application/octet-stream\r\n\r\n" + data + b"\r\n"
    out += b"--" + boundary.encode() + b"--\r\n"
    return out, "multipart/form-data; boundary=" + boundary


def export(tmp):
    """The ladder's matches as `arena ladder export --jsonl` prints them."""
    out = subprocess.run([ARENA, "ladder", "export", GAME, "--jsonl", "--db",
                          os.path.join(tmp, "ladder.db")], capture_output=True, text=True)
    check(out.returncode == 0, "ladder export: " + out.stderr)
    return [json.loads(l) for l in out.stdout.splitlines() if l.strip()]


def played(s, author):
    st, lad = s.json("GET", "/api/ladder")
    for row in lad.get("ratings", []) if st == 200 else []:
        if row.get("author") == author:
            return row["games"]
    return 0


def version_status(s, author, number=1):
    st, b = s.json("GET", "/api/bots/" + author)
    if st != 200:
        return None
    for v in b["versions"]:
        if v["version"] == number:
            return v
    return None


def main():
    tmp = tempfile.mkdtemp(prefix="serve-")
    port = free_port()
    s = Server(tmp, port)
    s.start()

    # A second server on the same database is refused (the database's lock).
    out = subprocess.run([ARENA, "serve", GAME, "--db", os.path.join(tmp, "ladder.db"),
                          "--http", "127.0.0.1:%d" % free_port()], capture_output=True, text=True)
    check(out.returncode == 1 and "in use by another arena" in out.stderr and
          len(out.stderr.strip().splitlines()) == 1, "a second server refused: %r" % out.stderr)

    # Registration: tokens, duplicates, names refused.
    tokens = {}
    for name in ("alice", "bob", "carol", "dave"):
        st, j = s.json("POST", "/api/register", json.dumps({"name": name}))
        check(st == 201 and j["name"] == name and len(j["token"]) == 64, "register " + name)
        tokens[name] = j["token"]
    st, _ = s.json("POST", "/api/register", json.dumps({"name": "alice"}))
    check(st == 409, "a duplicate name is 409, not %d" % st)
    for bad in ("", "../x", "<script>alert(1)</script>", "a" * 33, "-x", "a b", "é"):
        st, j = s.json("POST", "/api/register", json.dumps({"name": bad}))
        check(st == 400 and "name" in j["error"], "name %r refused (%d)" % (bad, st))
    st, j = s.json("POST", "/api/register", b"{not json")
    check(st == 400, "malformed JSON is 400, not %d" % st)
    st, j = s.json("POST", "/api/register", b"x" * 10000)
    check(st == 413, "an oversized registration body is 413, not %d" % st)
    st, _ = s.json("GET", "/api/register")
    check(st == 405, "GET /api/register is 405, not %d" % st)

    def auth(name):
        return {"Authorization": "Bearer " + tokens[name]}

    rnd, pick, segv = (open(p, "rb").read() for p in (RANDOM, PICK, SEGV))
    # Uploads: a raw body and a multipart form.
    st, j = s.json("POST", "/api/bots", rnd, auth("alice"))
    check(st == 202 and j["status"] == "validating" and j["version"] == 1,
          "upload random: %d %r" % (st, j))
    body, ct = multipart([("note", None, b"hello"), ("file", "pick.so", pick)])
    st, j = s.json("POST", "/api/bots", body, dict(auth("bob"), **{"Content-Type": ct}))
    check(st == 202 and j["version"] == 1, "multipart upload of pick: %d %r" % (st, j))
    st, j = s.json("POST", "/api/bots", rnd, auth("alice"))
    check(st == 409 and j["version"] == 1, "the same file again is 409: %d" % st)

    # Bad uploads.
    st, _ = s.json("POST", "/api/bots", rnd)
    check(st == 401, "no token: 401, not %d" % st)
    st, _ = s.json("POST", "/api/bots", rnd, {"Authorization": "Bearer " + "0" * 64})
    check(st == 401, "a wrong token: 401, not %d" % st)
    st, _ = s.json("POST", "/api/bots", rnd, {"Authorization": "Bearer " + tokens["alice"][:-1]})
    check(st == 401, "a truncated token: 401, not %d" % st)
    st, _ = s.json("POST", "/api/bots", b"x" * 1000001, auth("carol"))
    check(st == 413, "a huge upload is 413, not %d" % st)
    for body, ct in ((b"--b\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\nabc",
                      "multipart/form-data; boundary=b"),
                     (b"garbage", "multipart/form-data"),
                     (multipart([("other", "x", b"abc")])[0], multipart([])[1])):
        st, j = s.json("POST", "/api/bots", body, dict(auth("carol"), **{"Content-Type": ct}))
        check(st == 400, "malformed multipart is 400, not %d (%r)" % (st, j))
    st, j = s.json("POST", "/api/bots", b"", auth("carol"))
    check(st == 400, "an empty upload is 400, not %d" % st)
    st, j = s.json("POST", "/api/bots", b"#!/bin/sh\necho not a plugin\n" * 10, auth("carol"))
    check(st == 202, "a non-ELF upload is taken for validation (%d)" % st)
    st, j = s.json("POST", "/api/bots", segv, auth("dave"))
    check(st == 202, "the crashing plugin is taken for validation (%d)" % st)

    # Validation: the two good ones active, the others rejected with reasons.
    v = wait_for(lambda: (lambda x: x if x and x["status"] != "validating" else None)(
        version_status(s, "carol")), "carol's validation")
    check(v["status"] == "rejected" and "not an ELF file" in v["reason"] and
          tmp not in v["reason"], "non-ELF rejected with a reason, no server path: %r" % v)
    v = wait_for(lambda: (lambda x: x if x and x["status"] != "validating" else None)(
        version_status(s, "dave")), "dave's validation")
    check(v["status"] == "rejected" and "fault" in v["reason"] and v["report"]["smoke"],
          "crashing plugin rejected with its faults: %r" % v)
    # Each faulty smoke match names its reproduction bundle, the author's only.
    bundles = [m["bundle"] for m in v["report"]["smoke"] if m["faults"]]
    check(bundles and all(m.get("bundle") for m in v["report"]["smoke"] if m["faults"]) and
          not any(m.get("bundle") for m in v["report"]["smoke"] if not m["faults"]),
          "a bundle for each faulty smoke match: %r" % v["report"]["smoke"])
    url = bundles[0] if bundles else "/api/bots/dave/versions/1/smoke/0"
    st, j = s.json("GET", url)
    check(st == 401, "a bundle without a token: 401, not %d" % st)
    st, j = s.json("GET", url, None, auth("alice"))
    check(st == 403, "a bundle with another author's token: 403, not %d" % st)
    st, ct, raw = s.request("GET", url, None, auth("dave"))
    j = json.loads(raw) if st == 200 else {}
    check(st == 200 and ct == "application/json" and j.get("format") == "jackarena-repro" and
          j.get("game") == GAME and any(f.get("name") == "dave" and f.get("faults")
                                        for f in j.get("faulty", [])) and
          tmp.encode() not in raw,
          "the author reads the bundle, no server path in it: %d %r" % (st, raw[:300]))
    st, j = s.json("GET", "/api/bots/dave/versions/9/smoke/0", None, auth("dave"))
    check(st == 404, "no such version: 404, not %d" % st)
    for a in ("alice", "bob"):
        v = wait_for(lambda: (lambda x: x if x and x["status"] != "validating" else None)(
            version_status(s, a)), a + "'s validation")
        check(v["status"] == "active", "%s active: %r" % (a, v))

    # The event stream: an event arrives while matches are played.
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    c.request("GET", "/api/events")
    r = c.getresponse()
    check(r.status == 200 and r.getheader("Content-Type") == "text/event-stream", "events")
    line = b""
    while not line.startswith(b"data: "):
        line = r.readline()   # chunked: an event may span chunks
        check(line != b"", "the event stream ended")
        if not line:
            break
    if line:
        ev = json.loads(line[6:])
        check(ev.get("type") in ("match", "version", "batch"), "event %r" % ev)
    c.close()

    wait_for(lambda: played(s, "alice") >= K and played(s, "bob") >= K, "K matches each")

    # SIGKILL mid-play, restart: nothing lost or doubled, play goes on.
    s.proc.send_signal(signal.SIGKILL)
    s.proc.wait()
    before = export(tmp)
    keys = [(m["tournament"], m["match"]) for m in before]
    check(len(keys) == len(set(keys)) and len(keys) >= K,
          "matches before the restart: %d" % len(keys))
    s.start()
    wait_for(lambda: len(export(tmp)) >= len(before) + 6, "play after the restart")
    # The batch cut by the kill was resumed: every batch but the last whole.
    after = export(tmp)
    wrong = kept(before, after)
    check(not wrong, "nothing lost or doubled across the restart: %r" % wrong)

    # SIGTERM mid-play: the matches in flight are recorded, the server exits
    # 0, and the next start goes on from there.
    s.proc.send_signal(signal.SIGTERM)
    rc = s.proc.wait(timeout=GUARD)
    check(rc == 0, "SIGTERM mid-play exits 0, not %d: %s" % (rc, tail(tmp)))
    stopped = export(tmp)
    wrong = kept(after, stopped)
    check(not wrong, "matches after SIGTERM: %r" % wrong)
    s.start()
    wait_for(lambda: len(export(tmp)) >= len(stopped) + 4, "play after the second restart")
    after = export(tmp)
    wrong = kept(stopped, after)
    check(not wrong, "nothing lost or doubled across the second restart: %r" % wrong)

    # Pages, match records, replays.
    st, ct, page = s.request("GET", "/")
    check(st == 200 and ct.startswith("text/html") and b'src="/static/ladder.js"' in page,
          "index page")
    check(b"http://" not in page and b"https://" not in page, "no external URL in the index")
    check(b"<script>" not in page and b"<style>" not in page and b" style=" not in page,
          "no inline script or style in the index (the policy allows none)")
    st, ct, js = s.request("GET", "/static/ladder.js")
    check(st == 200 and ct.startswith("text/javascript") and b"/api/events" in js,
          "the ladder's script: %d %s" % (st, ct))
    st, ct, page = s.request("GET", "/bots/dave")
    check(st == 200 and b"rejected" in page and b"<script>alert" not in page, "bot page")
    st, ct, page = s.request("GET", "/submit")
    st2, _, js = s.request("GET", "/static/submit.js")
    check(st == 200 and b'src="/static/submit.js"' in page and st2 == 200 and
          b"/api/register" in js and b"params" in js, "submit page")
    m = after[0]
    mid = "%d-%d" % (m["tournament"], m["match"])
    st, j = s.json("GET", "/api/matches/" + mid)
    check(st == 200 and j["digest"] == m["digest"] and j["replay"], "match record %r" % j)
    st, ct, data = s.request("GET", "/matches/%s.replay" % mid)
    check(st == 200 and len(data) > 0, "replay download")
    rp = os.path.join(tmp, "m.rpl")
    with open(rp, "wb") as f:
        f.write(data)
    out = subprocess.run([ARENA, "replay", "verify", rp, "--json"], capture_output=True, text=True)
    check(out.returncode == 0 and m["digest"] in out.stdout, "the replay verifies: " + out.stderr)
    st, ct, page = s.request("GET", "/matches/%s.html" % mid)
    check(st == 200 and ct.startswith("text/html") and len(page) > 1000, "replay page")
    st, b = s.json("GET", "/api/bots/%s" % j["seats"][0]["author"])
    check(st == 200 and b["matches"], "a bot's recent matches")
    last = b["matches"][-1]
    st, j2 = s.json("GET", "/api/matches/" + last["id"])
    check(st == 200 and last["page"] and last["page"] == j2["page"] and
          last["replay"] == j2["replay"], "a bot's recent matches link their replay and page: "
          "%r against %r" % (last, j2))
    st, _ = s.json("GET", "/api/bots/nobody")
    check(st == 404, "an unknown author is 404")
    st, _ = s.json("GET", "/api/matches/999999-0")
    check(st == 404, "a match of no batch is 404")

    # Path tricks never reach the filesystem: all 404 (or 405), never a file.
    for p in ("/matches/../ladder.db", "/matches/..%2f..%2fladder.db", "/bots/%2e%2e",
              "/bots/..%2F..%2Fetc%2Fpasswd", "//etc/passwd", "/matches/1-0.html/../../serve.db",
              "/api/matches/1-0%2e%2e", "/matches/%2fetc%2fpasswd.html", "/bots/alice/../../x",
              "/api/bots/alice%00.so", "/matches/01-0.html", "/matches/-1-0.replay",
              "/ladder.db.serve/serve.db", "/bots/serve.db"):
        st, ct, data = s.request("GET", p)
        check(st in (400, 404) and b"SQLite" not in data and b"root:" not in data,
              "path %s: %d" % (p, st))

    # Retiring: a token retires only its author's versions.
    st, _ = s.json("POST", "/api/bots/alice/retire", b"", auth("bob"))
    check(st == 403, "bob cannot retire alice: %d" % st)
    st, _ = s.json("POST", "/api/bots/alice/retire", b"")
    check(st == 401, "retire without a token: %d" % st)
    for a in ("alice", "bob"):
        st, j = s.json("POST", "/api/bots/%s/retire" % a, b"", auth(a))
        check(st == 200 and j["retired"] == 1, "retire %s: %d %r" % (a, st, j))
    # Once the batch in flight is done, the ladder stands still: the server's
    # ladder is `arena ladder --fit --json` of the same database.
    wait_for(lambda: s.json("GET", "/api/ladder")[1]["playing"] is False, "the last batch")
    st, lad = s.json("GET", "/api/ladder")
    out = subprocess.run([ARENA, "ladder", GAME, "--fit", "--json", "--db",
                          os.path.join(tmp, "ladder.db")], capture_output=True, text=True)
    check(out.returncode == 0 and json.loads(out.stdout) == lad["fit"],
          "/api/ladder's fit equals arena ladder --fit --json")
    check({r["author"] for r in lad["ratings"]} == {"alice", "bob"}, "rated: alice and bob")
    check(all(r["version_status"] == "retired" and r["faults"] == 0 for r in lad["ratings"]),
          "both retired, no faults, still in the ladder")
    check(lad["matches"] == len(export(tmp)), "match count")

    # SIGTERM: a clean stop.
    s.proc.send_signal(signal.SIGTERM)
    rc = s.proc.wait(timeout=GUARD)
    check(rc == 0, "SIGTERM exits 0, not %d: %s" % (rc, tail(tmp)))
    if not failures:
        subprocess.run(["rm", "-rf", tmp])
    suspension()
    return report()


def free_port():
    return int(subprocess.run(["/usr/bin/python3", FREE_PORT], capture_output=True,
                              text=True).stdout.strip())


def suspension():
    """A version past its fault limit is suspended, with the reason shown,
    and plays no more; its results stay in the ladder."""
    tmp = tempfile.mkdtemp(prefix="serve-")
    s = Server(tmp, free_port(), ["--smoke", "1", "--fault-limit", "0", "--upload-rate", "1"])
    s.start()
    tokens = {}
    for name in ("ann", "erin"):
        st, j = s.json("POST", "/api/register", json.dumps({"name": name}))
        tokens[name] = j["token"]
    for name, path in (("ann", RANDOM), ("erin", SEATFAULT)):
        st, j = s.json("POST", "/api/bots", open(path, "rb").read(),
                       {"Authorization": "Bearer " + tokens[name]})
        check(st == 202, "upload for %s: %d" % (name, st))
    # --upload-rate 1: a second upload within the hour is refused.
    st, j = s.json("POST", "/api/bots", open(PICK, "rb").read(),
                   {"Authorization": "Bearer " + tokens["erin"]})
    check(st == 429 and "upload-rate" in j["error"], "a second upload is 429: %d" % st)
    v = wait_for(lambda: (lambda x: x if x and x["status"] not in ("validating", "active")
                          else None)(version_status(s, "erin")), "erin's suspension")
    check(v["status"] == "suspended" and "limit of 0" in v["reason"] and "illegal" in v["reason"]
          and v["faults"] > 0, "erin suspended with the reason: %r" % v)
    check(version_status(s, "ann")["status"] == "active", "ann stays active")
    wait_for(lambda: s.json("GET", "/api/ladder")[1]["playing"] is False, "the last batch")
    st, lad = s.json("GET", "/api/ladder")
    rows = {r["author"]: r for r in lad["ratings"]}
    check("erin" in rows and rows["erin"]["version_status"] == "suspended" and
          rows["erin"]["faults"] == v["faults"], "erin stays in the ladder: %r" % rows.get("erin"))
    st, ct, page = s.request("GET", "/bots/erin")
    check(st == 200 and b"suspended" in page and b"limit of 0" in page, "erin's page")
    s.proc.send_signal(signal.SIGTERM)
    check(s.proc.wait(timeout=GUARD) == 0, "SIGTERM exits 0")
    if not failures:
        subprocess.run(["rm", "-rf", tmp])


if __name__ == "__main__":
    sys.exit(main())
