#!/usr/bin/python3
"""`arena serve` and the bots' logs (docs/server.md, "Bot logs") end to
end: alice's and bob's bots (the logging test bot; alice's logs a line of
HTML too) play Taylor Blackjack on a server.

- GET /api/matches/ID/logs gives a match's logs to the authors of its
  bots only: no token or a made-up one 401, carol (no bot in the match)
  403; alice gets her seats' logs and no other, each the server's replay's
  log record of that seat and decision; bob likewise his, without alice's;
  no such match 404, a POST 405; once carol's slow bot plays too, a match
  of hers asked for as soon as it is recorded, while its batch still
  plays, is 404 (a 200 then would need the match published already).
- The public replay (/matches/ID.replay) holds no log record, and verifies
  with the match's digest; the public page's model has no log at any frame.
- The public page's form (headless chromium, where installed): carol's
  token is refused and shows no log; alice's shows her bot's log beside
  its decision, its HTML as text.

Waits poll the API; the only clock is a generous guard against hangs.

usage: test_serve_logs.py ARENA LOGGER.so DAWDLE.so FREE_PORT.py"""
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile

import msgpack

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_lib import Server, check, free_port, report, wait_for  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "viewer"))
import page_model  # noqa: E402
from cdp import Chrome  # noqa: E402

ARENA, LOGGER, DAWDLE, FREE_PORT = sys.argv[1:5]
MARKUP = '<b id="botlog-markup">'


def auth(token):
    return {"Authorization": "Bearer " + token}


def upload(s, token, params):
    with open(LOGGER, "rb") as f:
        h = auth(token)
        if params:
            h["X-Bot-Params"] = params
        st, j = s.json("POST", "/api/bots", f.read(), h)
    check(st == 202, "upload: %d %r" % (st, j))


def unpack(data):
    return list(msgpack.Unpacker(io.BytesIO(data), raw=False, strict_map_key=False))


def early(s, tokens):
    """A match of carol's slow bot asked for its logs as soon as it is
    recorded, while its batch's other match is still played (its bot
    sleeps before each decision): 404; a 200 only for a match published
    by then."""
    def first():
        st, j = s.json("GET", "/api/bots/carol/matches")
        return j["matches"][-1] if st == 200 and j and j.get("matches") else None
    m = wait_for(first, "a recorded match of carol's")
    st, j = s.json("GET", "/api/matches/%s/logs" % m["id"], headers=auth(tokens["carol"]))
    _, now = s.json("GET", "/api/matches/" + m["id"])
    check((st == 404 and "once its batch has ended" in j["error"]) or
          (st == 200 and now["published"]),
          "logs before the batch ended: %d %r (published now: %r)" % (st, j, now["published"]))
    print("logs asked for at once: %d (%s)" % (st, "published" if now["published"] else "batch running"))


def author_logs(s, mid, tokens, full, names):
    """Each author's logs: their seats', as the full replay has them."""
    for who in ("alice", "bob"):
        st, j = s.json("GET", "/api/matches/%s/logs" % mid, headers=auth(tokens[who]))
        if not check(st == 200, "%s's logs: %d %r" % (who, st, j)):
            continue
        seats = [k for k, n in enumerate(names) if n == who]
        want = [{"decision": r["n"] + 1, "seat": r["s"], "text": r["text"]}
                for r in full if r.get("t") == "log" and r["s"] in seats]
        check(j["id"] == mid and j["author"] == who and j["seats"] == seats,
              "%s's logs name the match and the seats %r: %r" % (who, seats, {
                  k: j[k] for k in ("id", "author", "seats")}))
        check(j["logs"] == want and len(want) > 3,
              "%s's logs are the replay's of seats %r (%d, want %d)"
              % (who, seats, len(j["logs"]), len(want)))
        check(all("seat %d turn" % lg["seat"] in lg["text"] for lg in j["logs"]),
              "%s's logs are their bot's" % who)
        check(any(MARKUP in lg["text"] for lg in j["logs"]) == (who == "alice"),
              "%s's logs: alice's HTML line in alice's only" % who)


def refusals(s, mid, tokens):
    path = "/api/matches/%s/logs" % mid
    for h, want, what in (({}, 401, "no token"), (auth("0" * 64), 401, "a made-up token"),
                          (auth(tokens["carol"]), 403, "an author with no bot in the match")):
        st, j = s.json("GET", path, headers=h)
        check(st == want and "error" in (j or {}), "logs with %s: %d, want %d: %r"
              % (what, st, want, j))
    t = mid.split("-")[0]
    st, _ = s.json("GET", "/api/matches/%s-999/logs" % t, headers=auth(tokens["alice"]))
    check(st == 404, "logs of no such match: %d" % st)
    st, _ = s.json("POST", path, b"", auth(tokens["alice"]))
    check(st == 405, "POST to the logs: %d" % st)


def public(s, tmp, mid, full):
    """The public replay and page: no log, the same digest."""
    st, _, data = s.request("GET", "/matches/%s.replay" % mid)
    check(st == 200, "the public replay: %d" % st)
    recs = unpack(data)
    check(not [r for r in recs if r.get("t") == "log"], "the public replay holds no log record")
    check(recs == [r for r in full if r.get("t") != "log"],
          "the public replay is the replay without its logs")
    rpl = os.path.join(tmp, "public.replay")
    with open(rpl, "wb") as f:
        f.write(data)
    v = subprocess.run([ARENA, "replay", "verify", rpl], capture_output=True, text=True)
    check(v.returncode == 0, "the public replay verifies: %s" % (v.stdout + v.stderr))
    st, _, page = s.request("GET", "/matches/%s.html" % mid)
    check(st == 200, "the public page: %d" % st)
    html = os.path.join(tmp, "public.html")
    with open(html, "wb") as f:
        f.write(page)
    d = page_model.read(html)[2]
    check(len(d["frames"]) > 3 and not any(fr.get("logs") for fr in d["frames"]),
          "the public page's model has no log")
    check(b"seat 0 turn" not in page and b"botlog-markup" not in page,
          "the public page's text has no log")


def page_form(s, tmp, mid, tokens):
    """The public page's form: carol's token gets the refusal and no log;
    alice's shows her bot's log of a decision beside it, its HTML as
    text; no script error."""
    exe = shutil.which("chromium")
    if not exe:
        print("chromium is not installed: the page's form is not checked")
        return
    _, j = s.json("GET", "/api/matches/%s/logs" % mid, headers=auth(tokens["alice"]))
    lg = next(x for x in j["logs"] if MARKUP in x["text"])
    prof = tempfile.mkdtemp(prefix="profile-", dir=tmp)
    b = Chrome(exe, prof)
    el = "document.getElementById('%s')."
    try:
        b.navigate("http://127.0.0.1:%d/matches/%s.html#frame=%d" % (s.port, mid, lg["decision"]))
        wait_for(lambda: b.eval("!!window.jaReplay") or None, "the replay page")
        check(b.eval(el % "botlog" + "textContent") == "" and
              b.eval(el % "logform" + "hidden") is False,
              "the page: no log before a token, the form shown")

        def submit(token):
            b.eval(el % "logmsg" + "textContent = ''")
            b.eval(el % "logtoken" + "value = %s;" % json.dumps(token) +
                   el % "logform" + "requestSubmit()")
            return wait_for(lambda: b.eval(el % "logmsg" + "textContent") or None,
                            "the page's answer to a token")
        msg = submit(tokens["carol"])
        check("authors of its bots only" in msg and b.eval(el % "botlog" + "textContent") == "",
              "carol's token on the page: %r, no log" % msg)
        msg = submit(tokens["alice"])
        shown = b.eval(el % "botlog" + "textContent") or ""
        check(msg.startswith("alice: ") and lg["text"].split("\n")[0] in shown and
              MARKUP in shown, "alice's log beside decision %d: %r (%r)"
              % (lg["decision"], shown[:200], msg))
        check(b.eval("document.querySelector('#botlog b, #botlog img, #botlog script') === null")
              and b.eval("document.title") != "pwned", "a log's HTML on the page is text")
        # The browser reports carol's 403 itself: that one is expected.
        errs = [e for e in b.errors() if not ("403" in e and e.endswith("/logs"))]
        check(not errs and b.eval(el % "errlog" + "textContent") == "",
              "no script error on the page: %r" % errs)
    finally:
        b.close()


def main():
    tmp = tempfile.mkdtemp(prefix="serve-logs-")
    s = Server(ARENA, "taylor-blackjack", tmp, free_port(FREE_PORT),
               ["--smoke", "1", "--concurrency", "1", "--data", os.path.join(tmp, "data")])
    s.start()
    tokens = {n: s.register(n) for n in ("alice", "bob", "carol")}
    upload(s, tokens["alice"], "html=1")
    upload(s, tokens["bob"], None)
    s.wait_active("alice")
    s.wait_active("bob")
    def first():
        st, j = s.json("GET", "/api/matches")
        return j["matches"][-1]["id"] if st == 200 and j and j.get("matches") else None
    mid = wait_for(first, "a recorded match")
    wait_for(lambda: s.json("GET", "/api/matches/" + mid)[1].get("published"),
             "the match's batch to end")
    st, m = s.json("GET", "/api/matches/" + mid)
    names = [seat["author"] for seat in m["seats"]]
    t, n = mid.split("-")
    with open(os.path.join(tmp, "data", "replays", "t%s-m%06d.rpl" % (t, int(n))), "rb") as f:
        full = unpack(f.read())
    check(sum(r.get("t") == "log" for r in full) > 6, "the server's replay keeps the logs")
    author_logs(s, mid, tokens, full, names)
    refusals(s, mid, tokens)
    public(s, tmp, mid, full)
    page_form(s, tmp, mid, tokens)
    with open(DAWDLE, "rb") as f:
        st, j = s.json("POST", "/api/bots", f.read(), auth(tokens["carol"]))
    check(st == 202, "carol's upload: %d %r" % (st, j))
    s.wait_active("carol")
    early(s, tokens)
    s.stop()
    return report("serve_logs")


if __name__ == "__main__":
    sys.exit(main())
