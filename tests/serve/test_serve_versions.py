#!/usr/bin/python3
"""`arena serve` through an author's second version, parameters, a burst of
uploads, and the errors a batch can meet (docs/server.md, "Versions",
"Parameters", "Validation", "Scheduler").

- alice (random) and bob (pick) play; alice uploads a second plugin (pick
  with pick=last): it is validated, becomes alice's active version and
  retires her first ("replaced by version 2"); the server goes on playing
  (it used to stop at once: "participant name 'alice' is given twice"),
  and no match ever seats two versions of one author. A SIGKILL and a
  restart change nothing of that.
- Parameters: pick with pick=wrong is refused by the bot's own
  check_params before any smoke match ("refuses its parameters");
  malformed parameters are 400 at upload; the same file with the same
  parameters is 409, with other parameters a new version.
- The fair queue: carol's third upload in a row waits on herself (429,
  --author-queue 2; her first, dawdle, takes seconds to validate), dave's
  first upload is taken (202) and validated before her second.
- Fresh deals: every match of the ladder has a deal (seed) of its own.
- The rating history, once every author has retired and play stopped:
  each author's matches in the API are the ladder's live Elo sequence
  (serve_lib.rating_sequence), and the bot page's chart draws it, a line
  per version (alice's two), a point per rated match.
- Errors a batch meets, each failing that batch with its reason (in the
  API and on the bots' pages) while the server keeps serving and playing:
  a stored batch that names two versions of one author (written into the
  server database while it was stopped), a bot's file gone, and the ladder
  database locked by another program for longer than the busy timeout
  (retried, then played on or failed; never a stop).

Waits poll the JSON API; the only clock is a guard against hangs.

usage: test_serve_versions.py ARENA RANDOM.so PICK.so DAWDLE.so FREE_PORT.py"""
import json
import os
import signal
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_lib import (Server, check, failures, free_port, rating_chart,  # noqa: E402
                       rating_sequence, report, wait_for)

ARENA, RANDOM, PICK, DAWDLE, FREE_PORT = sys.argv[1:6]
GAME = "bruise-jack"


def auth(token):
    return {"Authorization": "Bearer " + token}


def upload(s, token, path, params=None):
    with open(path, "rb") as f:
        h = auth(token)
        if params is not None:
            h["X-Bot-Params"] = params
        return s.json("POST", "/api/bots", f.read(), h)


def versions(s, author):
    st, b = s.json("GET", "/api/bots/" + author)
    return {v["version"]: v for v in b["versions"]} if st == 200 else {}


def wait_status(s, author, number, want=None):
    """The version's status once it is no longer validating (or is `want`)."""
    def done():
        v = versions(s, author).get(number)
        if v is None or v["status"] == "validating":
            return None
        return v if want is None or v["status"] == want else None
    return wait_for(done, "%s version %d%s" % (author, number, " " + want if want else ""))


def export(tmp):
    out = subprocess.run([ARENA, "ladder", "export", GAME, "--jsonl", "--db",
                          os.path.join(tmp, "ladder.db")], capture_output=True, text=True)
    check(out.returncode == 0, "ladder export: " + out.stderr)
    return [json.loads(l) for l in out.stdout.splitlines() if l.strip()]


def matches(s):
    st, lad = s.json("GET", "/api/ladder")
    return lad["matches"] if st == 200 else 0


def batches(s, author):
    st, b = s.json("GET", "/api/bots/" + author)
    return b.get("batches", []) if st == 200 else []


def alive(s, what):
    check(s.proc.poll() is None, "the server still runs after %s: %s" % (what, s.tail()))
    st, _, _ = s.request("GET", "/")
    check(st == 200, "GET / after %s: %d" % (what, st))


def main():
    tmp = tempfile.mkdtemp(prefix="ja-serve-ver-")
    s = Server(ARENA, GAME, tmp, free_port(FREE_PORT), ["--smoke", "6", "--quiet"])
    s.start()
    ta, tb = s.register("alice"), s.register("bob")
    check(upload(s, ta, RANDOM)[0] == 202, "alice's first upload")
    check(upload(s, tb, PICK)[0] == 202, "bob's first upload")
    wait_status(s, "alice", 1, "active")
    wait_status(s, "bob", 1, "active")
    wait_for(lambda: matches(s) >= 4, "the first matches")

    # --- the second version: validated, replaces the first, the server plays on
    st, j = upload(s, ta, PICK, "pick=last")
    check(st == 202 and j["version"] == 2 and j["params"] == "pick=last",
          "alice's second version: %d %r" % (st, j))
    v2 = wait_status(s, "alice", 2)
    check(v2["status"] == "active", "alice@2 active: %r" % v2)
    check(v2["params"] == "pick=last", "its parameters shown: %r" % v2)
    v1 = versions(s, "alice")[1]
    check(v1["status"] == "retired" and v1["reason"] == "replaced by version 2",
          "alice@1 replaced: %r" % v1)
    n = matches(s)
    wait_for(lambda: any(m["seats"][0]["bot"] == "alice" and m["seats"][0]["version"] == "2"
                         or m["seats"][1]["bot"] == "alice" and m["seats"][1]["version"] == "2"
                         for m in export(tmp)) and matches(s) >= n + 4, "alice@2 playing")
    alive(s, "a second version")
    page = s.request("GET", "/bots/alice")[2].decode()
    check("pick=last" in page and "replaced by version 2" in page,
          "the bot page shows the parameters and the replacement")

    # --- parameters: the bot's own check, the shape, 409 and a new version
    st, j = upload(s, ta, PICK, "pick=wrong")
    check(st == 202 and j["version"] == 3, "pick=wrong is taken for validation: %d %r" % (st, j))
    v3 = wait_status(s, "alice", 3)
    check(v3["status"] == "rejected" and "refuses its parameters 'pick=wrong'" in v3["reason"]
          and "pick" in v3["reason"], "the bot's check_params refuses: %r" % v3)
    check(v3["report"] and v3["report"]["smoke"] == [], "no smoke match played: %r" % v3)
    check(versions(s, "alice")[2]["status"] == "active", "alice@2 stays active")
    for bad in ("pick", "pick=", "pick=a b", ":x=1", "x" * 300):
        st, j = upload(s, ta, PICK, bad)
        check(st == 400 and "parameters" in j.get("error", ""),
              "parameters %r: 400, not %d %r" % (bad[:20], st, j))
    st, j = upload(s, ta, PICK, "pick=last")
    check(st == 409 and j.get("version") == 2, "the same file and parameters: 409 %r" % j)
    st, j = s.json("POST", "/api/external", json.dumps({"key": "x", "params": "a=1"}), auth(ta))
    check(st in (400, 409), "external bots take no parameters: %d" % st)

    # --- the fair queue: one author's burst waits on itself
    tc, td = s.register("carol"), s.register("dave")
    codes = [upload(s, tc, p)[0] for p in (DAWDLE, PICK)]
    st3, j3 = upload(s, tc, PICK, "pick=last")
    check(codes == [202, 202], "carol's first two uploads: %r" % codes)
    check(st3 == 429 and "--author-queue" in j3.get("error", ""),
          "carol's third waits on herself: %d %r" % (st3, j3))
    st, j = upload(s, td, RANDOM)
    check(st == 202, "dave's upload is taken beside carol's burst: %d %r" % (st, j))
    dv = wait_status(s, "dave", 1, "active")
    cv = wait_status(s, "carol", 2, "active")
    check(dv["updated"] <= cv["updated"], "dave validated before carol's second")
    check(versions(s, "carol")[1]["status"] == "retired", "carol@1 replaced by carol@2")

    # --- SIGKILL and restart: the versions as they were, still playing
    n = matches(s)
    s.proc.send_signal(signal.SIGKILL)
    s.proc.wait()
    s.start()
    wait_for(lambda: matches(s) >= n + 4, "play after the restart")
    alive(s, "a SIGKILL and restart")

    # --- a stored batch that cannot run: two versions of one author
    s.stop()
    db = sqlite3.connect(os.path.join(tmp, "ladder.db.serve", "serve.db"))
    vids = [r[0] for r in db.execute(
        "SELECT v.id FROM versions v JOIN authors a ON a.id = v.author "
        "WHERE a.name = 'alice' ORDER BY v.number LIMIT 2")]
    db.execute("INSERT INTO batches (seed, state, versions, created) VALUES "
               "('1', 'planned', '%d,%d', 0)" % tuple(vids))
    bad_batch = db.execute("SELECT max(id) FROM batches").fetchone()[0]
    db.executemany("INSERT INTO batch_versions VALUES (?, ?, ?)",
                   [(bad_batch, 0, vids[0]), (bad_batch, 1, vids[1])])
    db.commit()
    db.close()
    s.start()
    wait_for(lambda: any(b["id"] == bad_batch and b["state"] == "failed"
                         for b in batches(s, "alice")), "the impossible batch failed")
    b = [b for b in batches(s, "alice") if b["id"] == bad_batch][0]
    check("both alice's" in b["reason"], "its reason: %r" % b)
    check("both alice" in s.request("GET", "/bots/alice")[2].decode(), "shown on the page")
    n = matches(s)
    wait_for(lambda: matches(s) >= n + 4, "play after the failed batch")
    alive(s, "a batch that cannot run")

    # --- a bot's file gone: its version cannot play, its batch fails
    s.stop()
    os.unlink(os.path.join(tmp, "ladder.db.serve", "bots", "%s.so" % dave_sha(tmp)))
    s.start()
    wait_for(lambda: versions(s, "dave")[1]["status"] == "suspended", "dave suspended")
    dv = versions(s, "dave")[1]
    check("no longer loads" in dv["reason"], "dave's reason: %r" % dv)
    wait_for(lambda: any(b["state"] == "failed" and "no longer loads" in b["reason"]
                         for b in batches(s, "dave")), "dave's batch failed with the reason")
    n = matches(s)
    wait_for(lambda: matches(s) >= n + 4, "play without dave")
    alive(s, "a bot file gone")

    # --- the ladder database locked by another program beyond the busy
    # timeout: the batch is retried (or failed), the server serves and plays
    log = os.path.join(tmp, "server.err")
    seen = os.path.getsize(log)
    lock = sqlite3.connect(os.path.join(tmp, "ladder.db"), timeout=60, isolation_level=None)
    lock.execute("BEGIN EXCLUSIVE")

    def met():
        with open(log) as f:
            f.seek(seen)
            new = f.read()
        return "batch" in new and ("attempt 1 of" in new or "failed" in new)
    st, _, _ = s.request("GET", "/api/ladder")
    check(st == 200, "the ladder reads while its database is locked: %d" % st)
    wait_for(met, "a batch meeting the lock (a retry or a failure logged)")
    lock.execute("ROLLBACK")
    lock.close()
    n = matches(s)
    wait_for(lambda: matches(s) >= n + 4, "play after the lock")
    alive(s, "a locked ladder database")
    for a in ("alice", "bob", "carol", "dave"):
        st, b = s.json("GET", "/api/bots/" + a)
        check(tmp not in json.dumps(b), "no server path in %s's reasons: %r" % (a, b["batches"]))

    # --- the whole ladder: fresh deals, never one author twice in a match
    ms = export(tmp)
    seeds = [m["seed"] for m in ms]
    check(len(seeds) == len(set(seeds)), "every match dealt its own cards (%d matches, %d deals)"
          % (len(seeds), len(set(seeds))))
    twice = [m for m in ms if len({x["bot"] for x in m["seats"]}) != len(m["seats"])]
    check(not twice, "no match seats one author twice: %r" % twice[:1])
    st, lad = s.json("GET", "/api/ladder")
    out = subprocess.run([ARENA, "ladder", GAME, "--fit", "--json", "--db",
                          os.path.join(tmp, "ladder.db")], capture_output=True, text=True)
    check(out.returncode == 0, "arena ladder --fit: " + out.stderr)

    # --- the rating history, play stopped: each author's matches the
    # ladder's live Elo sequence, the bot page's chart a line per version
    toks = {"alice": ta, "bob": tb, "carol": tc, "dave": td}
    for a, t in toks.items():
        s.json("POST", "/api/bots/%s/retire" % a, b"", auth(t))
    wait_for(lambda: s.json("GET", "/api/ladder")[1]["playing"] is False, "play to stop")
    for a in toks:
        steps = rating_sequence(s, a, os.path.join(tmp, "ladder.db"))
        rating_chart(s.request("GET", "/bots/" + a)[2].decode(), a, steps)
        if a == "alice":
            check(len(steps) == 2, "alice's two versions rated: %r" % sorted(steps))
    s.stop()
    return report("serve_versions")


def dave_sha(tmp):
    db = sqlite3.connect(os.path.join(tmp, "ladder.db.serve", "serve.db"))
    sha = db.execute("SELECT v.sha256 FROM versions v JOIN authors a ON a.id = v.author "
                     "WHERE a.name = 'dave'").fetchone()[0]
    db.close()
    return sha


if __name__ == "__main__":
    sys.exit(main())
