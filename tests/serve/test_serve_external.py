#!/usr/bin/python3
"""`arena serve --listen` end to end (docs/server.md, "External bots"): a
server with a loopback HTTP port and a loopback tcp endpoint for external
bots, both from tests/free_port.py. Two authors upload plugins; a third
registers an external bot's CurveZMQ public key over HTTP, and the Python
SDK's example bot (sdk/python/examples/pyexample.py, run as docs/server.md
shows) connects with that key, passes validation and plays ladder matches
beside the plugins. Refused: a malformed key, a key bound to another bot,
a wrong token, registration on a server without --listen, a bot with an
unregistered key (ZAP; the server keeps running) and a registered key
saying hello under another author's name. A new key supersedes the old
one (its bot is told bye) while the plugins play on. The server is
SIGKILLed mid-play and restarted, the external bot reconnects, and nothing
is lost or doubled. Then the bot is killed mid-play: at most its batch in
flight is played, its later batches wait while the plugins play on, and it
plays again, still active, once it is back.

Waits poll the JSON API; the only clock is a generous guard against hangs
(and the SDK's own wait for a welcome, which an unregistered key never gets).

usage: test_serve_external.py ARENA RANDOM.so PICK.so FREE_PORT.py SDK_DIR"""
import json
import os
import signal
import stat
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_lib import GUARD, Server, check, free_port, kept, report, wait_for  # noqa: E402

import zmq  # noqa: E402  (Debian's python3-zmq)

ARENA, RANDOM, PICK, FREE_PORT, SDK = sys.argv[1:6]
GAME = "bruise-jack"
K = 6  # matches each bot plays before the checks
BOTS = []  # external bot processes, killed at exit


def keypair():
    pub, sec = zmq.curve_keypair()
    return pub.decode(), sec.decode()


def start_bot(endpoint, server_key, name, pub, sec, log):
    """The SDK's example bot, configured by its environment (docs/server.md)."""
    env = dict(os.environ, JACKARENA_ENDPOINT=endpoint, JACKARENA_NAME=name,
               JACKARENA_SERVER_KEY=server_key, JACKARENA_PUBLIC_KEY=pub,
               JACKARENA_SECRET_KEY=sec)
    env.pop("JACKARENA_ARENA_PID", None)
    p = subprocess.Popen(["/usr/bin/python3", os.path.join(SDK, "examples", "pyexample.py")],
                         stdout=subprocess.DEVNULL, stderr=open(log, "w"), env=env)
    BOTS.append(p)
    return p


def kill_bot(p):
    if p.poll() is None:
        p.kill()
    p.wait()


def versions(s, author):
    st, b = s.json("GET", "/api/bots/" + author)
    return b["versions"] if st == 200 else []


def version(s, author, number):
    for v in versions(s, author):
        if v["version"] == number:
            return v
    return None


def settled(s, author, number):
    v = version(s, author, number)
    return v if v and v["status"] != "validating" else None


def played(s, author):
    """Games of the author's versions together."""
    st, lad = s.json("GET", "/api/ladder")
    return sum(row["games"] for row in (lad.get("ratings", []) if st == 200 else [])
               if row.get("author") == author)


def export(tmp):
    out = subprocess.run([ARENA, "ladder", "export", GAME, "--jsonl", "--db",
                          os.path.join(tmp, "ladder.db")], capture_output=True, text=True)
    check(out.returncode == 0, "ladder export: " + out.stderr)
    return [json.loads(l) for l in out.stdout.splitlines() if l.strip()]


def register_key(s, token, key):
    return s.json("POST", "/api/external", json.dumps({"key": key}),
                  {"Authorization": "Bearer " + token})


def without_listen():
    """A server without --listen refuses external registration, and
    --listen takes tcp only (a usage error, exit 2)."""
    tmp = tempfile.mkdtemp(prefix="serve-ext0-")
    s = Server(ARENA, GAME, tmp, free_port(FREE_PORT))
    s.start()
    token = s.register("ext")
    st, j = register_key(s, token, keypair()[0])
    check(st == 409 and "--listen" in j["error"], "no --listen: 409 naming it, %d %r" % (st, j))
    st, j = s.json("GET", "/api/server")
    check(st == 200 and j["external"] is None and j["game"] == GAME, "/api/server: %r" % j)
    s.stop()
    for bad in ("ipc:///tmp/x", "tcp://127.0.0.1", "udp://1.2.3.4:5"):
        out = subprocess.run([ARENA, "serve", GAME, "--db", os.path.join(tmp, "x.db"),
                              "--listen", bad], capture_output=True, text=True)
        check(out.returncode == 2 and "--listen" in out.stderr and
              len(out.stderr.strip().splitlines()) == 1 and
              not os.path.exists(os.path.join(tmp, "x.db")),
              "--listen %s: usage error, %d %r" % (bad, out.returncode, out.stderr))


def main():
    without_listen()
    tmp = tempfile.mkdtemp(prefix="serve-ext-")
    lport = free_port(FREE_PORT)
    s = Server(ARENA, GAME, tmp, free_port(FREE_PORT),
               ["--listen", "tcp://127.0.0.1:%d" % lport])
    s.start()
    data = os.path.join(tmp, "ladder.db.serve")

    # Where and how to connect: the same on /api/server and the submit page.
    st, j = s.json("GET", "/api/server")
    ext = j["external"] if st == 200 else None
    check(ext and ext["endpoint"] == "tcp://127.0.0.1:%d" % lport and
          len(ext["server_key"]) == 40, "/api/server: %r" % j)
    endpoint, server_key = ext["endpoint"], ext["server_key"]
    st, _, page = s.request("GET", "/submit")
    check(st == 200 and server_key.replace("&", "&amp;").replace("<", "&lt;").replace(
        ">", "&gt;").encode() in page, "the submit page shows the server key")
    sec_path = os.path.join(data, "curve", "arena.key")
    check(stat.S_IMODE(os.stat(sec_path).st_mode) == 0o600, "the server's secret key is 0600")

    tokens = {n: s.register(n) for n in ("alice", "bob", "eve", "mallory")}
    s.upload(tokens["alice"], RANDOM)
    s.upload(tokens["bob"], PICK)

    # Registration of eve's key, and bad input.
    pub1, sec1 = keypair()
    st, j = register_key(s, tokens["eve"], pub1)
    check(st == 202 and j["kind"] == "external" and j["version"] == 1 and
          j["status"] == "validating", "eve registers a key: %d %r" % (st, j))
    for bad in ("", "abc", pub1[:-1], pub1 + "0", "~" * 40, 12, None):
        st, j = register_key(s, tokens["mallory"], bad)
        check(st == 400 and "key" in j["error"], "key %r refused: %d %r" % (bad, st, j))
    st, j = s.json("POST", "/api/external", b"{not json",
                   {"Authorization": "Bearer " + tokens["mallory"]})
    check(st == 400, "malformed JSON: 400, not %d" % st)
    st, j = register_key(s, tokens["mallory"], pub1)
    check(st == 409 and "another bot" in j["error"], "a key bound to eve: %d %r" % (st, j))
    st, j = register_key(s, tokens["eve"], pub1)
    check(st == 409 and "already your version 1" in j["error"], "the same key again: %r" % j)
    st, j = register_key(s, "0" * 64, keypair()[0])
    check(st == 401, "a wrong token: 401, not %d" % st)
    st, j = s.json("POST", "/api/external", json.dumps({"key": keypair()[0]}))
    check(st == 401, "no token: 401, not %d" % st)
    st, _ = s.json("GET", "/api/external")
    check(st == 405, "GET /api/external: 405, not %d" % st)
    check(version(s, "mallory", 1) is None, "mallory has no version")

    # A bot with an unregistered key is refused by ZAP: it never gets a
    # welcome (the SDK gives up), and eve's version is not validated by it.
    intruder = start_bot(endpoint, server_key, "eve", *keypair(), os.path.join(tmp, "intr.err"))
    # eve's key saying hello as alice: refused (unauthorized) at once.
    imp = start_bot(endpoint, server_key, "alice", pub1, sec1, os.path.join(tmp, "imp.err"))
    check(imp.wait(timeout=GUARD) == 1, "the impersonator exits 1")
    with open(os.path.join(tmp, "imp.err")) as f:
        err = f.read()
    check("refused the hello: unauthorized" in err, "impersonation refused: %r" % err[-300:])
    check(intruder.wait(timeout=GUARD) == 1, "the intruder exits 1")
    with open(os.path.join(tmp, "intr.err")) as f:
        err = f.read()
    check("no welcome" in err, "the unregistered key got no welcome: %r" % err[-300:])
    check(s.up() and version(s, "eve", 1)["status"] == "validating",
          "the server runs on, eve still waits for her bot")

    # eve's bot connects: validated, then plays beside the plugins.
    bot = start_bot(endpoint, server_key, "eve", pub1, sec1, os.path.join(tmp, "eve1.err"))
    s.wait_active("alice")
    s.wait_active("bob")
    v = wait_for(lambda: settled(s, "eve", 1), "eve's validation")
    check(v["status"] == "active" and v["kind"] == "external" and v["key"] == pub1 and
          [x["step"] for x in v["report"]["steps"]] == ["hello", "supports", "smoke"] and
          len(v["report"]["smoke"]) == 4, "eve active after hello and smoke: %r" % v)
    wait_for(lambda: all(played(s, a) >= K for a in ("alice", "bob", "eve")), "K matches each")
    # In the ladder, a plugin's seat names its file's hash; eve's has none.
    seats = [x for m in export(tmp) for x in m["seats"]]
    check(any(x["bot"] == "eve" for x in seats) and
          all(("sha256" in x) == (x["bot"] != "eve") for x in seats),
          "eve's seats are the external bot's")

    # A new key supersedes the old: version 1 retired, its bot told bye;
    # version 2 waits for its bot while the plugins play on.
    before_rekey = {m["tournament"] for m in export(tmp)}
    pub2, sec2 = keypair()
    st, j = register_key(s, tokens["eve"], pub2)
    check(st == 202 and j["version"] == 2, "eve's new key: %d %r" % (st, j))
    v1 = version(s, "eve", 1)
    check(v1["status"] == "retired" and "superseded by version 2" in v1["reason"],
          "version 1 superseded: %r" % v1)
    check(bot.wait(timeout=GUARD) == 0, "the old key's bot is told bye and exits 0")
    a0, b0 = played(s, "alice"), played(s, "bob")
    wait_for(lambda: played(s, "alice") >= a0 + 4 and played(s, "bob") >= b0 + 4,
             "the plugins play on without eve")
    check(version(s, "eve", 2)["status"] == "validating", "version 2 waits for its bot")
    bot = start_bot(endpoint, server_key, "eve", pub2, sec2, os.path.join(tmp, "eve2.err"))
    v = wait_for(lambda: settled(s, "eve", 2), "eve's version 2 validation")
    check(v["status"] == "active", "version 2 active: %r" % v)
    e0 = played(s, "eve")
    wait_for(lambda: played(s, "eve") >= e0 + K, "eve's version 2 plays")

    # SIGKILL mid-play, restart, the bot reconnects: nothing lost or doubled.
    s.proc.send_signal(signal.SIGKILL)
    s.proc.wait()
    kill_bot(bot)
    before = export(tmp)
    keys = [(m["tournament"], m["match"]) for m in before]
    check(len(keys) == len(set(keys)), "matches before the restart: %d" % len(keys))
    s.start()
    st, j = s.json("GET", "/api/server")
    check(st == 200 and j["external"]["server_key"] == server_key,
          "the server key is kept across restarts: %r" % j)
    bot = start_bot(endpoint, server_key, "eve", pub2, sec2, os.path.join(tmp, "eve3.err"))
    wait_for(lambda: len(export(tmp)) >= len(before) + 3 * K, "play after the restart")
    # Every batch made after the re-key but the last is whole, the one cut
    # by the kill too.
    wrong = kept(before, export(tmp), before_rekey)
    check(not wrong, "nothing lost or doubled across the restart: %r" % wrong)
    e1 = played(s, "eve")
    wait_for(lambda: played(s, "eve") >= e1 + 2, "eve plays after the restart")
    st, lad = s.json("GET", "/api/ladder")
    rows = {r["version"]: r["games"] for r in lad["ratings"] if r["author"] == "eve"}
    check(set(rows) == {"1", "2"} and all(rows.values()),
          "the ladder JSON shows both of eve's versions with games: %r" % rows)

    # The bot dies mid-play and comes back: what it was asked in the batch
    # in flight faults (disconnect); later batches with eve wait for her bot,
    # unplayed and unfaulted, while the plugins play on; eve stays active.
    def eve_matches():
        return [m for m in export(tmp) if any(x["bot"] == "eve" for x in m["seats"])]
    f0 = version(s, "eve", 2)["faults"]
    kill_bot(bot)
    n_cut = len(eve_matches())
    a2, b2 = played(s, "alice"), played(s, "bob")
    wait_for(lambda: played(s, "alice") >= a2 + 4 and played(s, "bob") >= b2 + 4,
             "the plugins play on while eve's bot is gone")
    n_mid = len(eve_matches())
    check(n_mid <= n_cut + 2, "eve's later batches wait for her bot: %d -> %d matches" %
          (n_cut, n_mid))
    bot = start_bot(endpoint, server_key, "eve", pub2, sec2, os.path.join(tmp, "eve4.err"))
    wait_for(lambda: len(eve_matches()) >= n_mid + 2 * K, "eve plays again once her bot is back")
    v = version(s, "eve", 2)
    check(v["status"] == "active" and v["faults"] <= f0 + 20,
          "eve still active after her bot came back: %r" % v)
    fkeys = [(m["tournament"], m["match"]) for m in export(tmp)]
    check(len(fkeys) == len(set(fkeys)), "no match recorded twice after the bot's return")

    s.stop()
    check(bot.wait(timeout=GUARD) == 0, "the bot is told bye when the server stops")
    return report("serve_external")


if __name__ == "__main__":
    try:
        sys.exit(main())
    finally:
        for p in BOTS:
            kill_bot(p)
