#!/usr/bin/python3
"""`arena serve`'s live matches (docs/server.md, "Live matches") end to
end: a server whose two bots (dawdle: a short sleep before each decision,
so that a match lasts long enough to be watched) play Taylor Blackjack
with --live-delay 5.

- /api/live lists a running match (its id, page, seats, frames shown).
- Its public stream (/api/live/ID/events) gives the match event, frames in
  increasing decision order, each released only once the match was 5
  decisions further (`at`, counted in decisions, never by the clock) or at
  the end, and an end event linking the replay page; each frame's line is
  the describe() line the replay viewer shows for that decision (the
  recorded replay, re-simulated by `arena replay show`), and each frame's
  public observation (version 2) is the replay page's public view of that
  decision; no frame carries a seat's observation, nor a label (version 3:
  Taylor Blackjack's events name no action code).
- A seat's view needs a ticket: no token or a malformed one 401, another
  author's token 403 (and an author with no bot in the match), a ticket for
  the author's own seat 200, then its stream gives that seat's observations
  and its own actions with their labels: read to the end, those are the
  last of the seat's decisions in the replay, in order, with the replay
  viewer's labels;
  the ticket works once (403 again), a made-up ticket 403; bad bodies 400,
  no such match 404, wrong methods 405.
- --live-delay out of range is a usage error (exit 2, one line).
- --queue 1: an upload while a version validates is 503.

Waits poll the API; the only clock is a generous guard against hangs.

usage: test_serve_live.py ARENA DAWDLE.so FREE_PORT.py"""
import http.client
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_lib import Server, check, free_port, report, wait_for  # noqa: E402
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "viewer"))
import page_model  # noqa: E402

ARENA, DAWDLE, FREE_PORT = sys.argv[1:4]
DELAY = 5


def stream(port, path, limit=None):
    """The events of an SSE stream until its end event (or `limit` events)."""
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
    c.request("GET", path)
    r = c.getresponse()
    if r.status != 200:
        body = r.read()
        c.close()
        return r.status, [json.loads(body)]
    check(r.getheader("Content-Type", "").startswith("text/event-stream"),
          "%s is an event stream" % path)
    out = []
    while limit is None or len(out) < limit:
        line = r.readline()   # chunked: events may span chunks
        if not line:
            break
        line = line.decode().rstrip("\n")
        if line.startswith("data: "):
            out.append(json.loads(line[6:]))
            if out[-1].get("type") == "end":
                break
    c.close()
    return 200, out


def live_match(s):
    """A running match of /api/live (waits for one)."""
    def one():
        st, j = s.json("GET", "/api/live")
        check(st == 200, "GET /api/live: %d" % st)
        return j["matches"][0] if st == 200 and j and j.get("matches") else None
    return wait_for(one, "a live match")


def usage_errors(tmp):
    for bad in ("501", "-1", "x", ""):
        p = subprocess.run([ARENA, "serve", "taylor-blackjack", "--db",
                            os.path.join(tmp, "u.db"), "--live-delay", bad],
                           capture_output=True, text=True)
        check(p.returncode == 2 and "--live-delay needs a number from 0 to 500" in p.stderr
              and p.stderr.count("\n") == 1,
              "--live-delay %r: exit 2 and one line: %d %r" % (bad, p.returncode, p.stderr))
    check(not os.path.exists(os.path.join(tmp, "u.db")), "nothing written on a usage error")


def queue_full(tmp):
    """--queue bounds the versions waiting for validation: with --queue 1,
    an upload while one version validates is 503 (the first one validates
    slowly: dawdle sleeps at each decision, and --smoke 100), and the
    server stops at once all the same (between two smoke matches)."""
    q = os.path.join(tmp, "queue")
    os.mkdir(q)
    s = Server(ARENA, "bruise-jack", q, free_port(FREE_PORT), ["--queue", "1", "--smoke", "100"])
    s.start()
    a, b = s.register("alice"), s.register("bob")
    s.upload(a, DAWDLE)
    with open(DAWDLE, "rb") as f:
        st, j = s.json("POST", "/api/bots", f.read(), {"Authorization": "Bearer " + b})
    check(st == 503 and "queue is full" in (j or {}).get("error", ""),
          "an upload past --queue: 503, not %d %r" % (st, j))
    st, j = s.json("GET", "/api/bots/alice")
    check(st == 200 and j["versions"][0]["status"] == "validating",
          "the first version is still validating: %r" % j)
    s.stop()


def seat_actions(s, mid, seat, seen, tmp):
    """The actions a seat's stream (read to its end) gave: the last of the
    seat's decisions in the match's replay, in order, each with its code,
    the replay viewer's label and whether it was forced."""
    acts = [e["action"] for e in seen if "action" in e]
    check(acts and all(set(a) <= {"code", "label", "forced", "fault"} for a in acts),
          "the seat's actions in its stream: %r" % acts[:2])
    wait_for(lambda: s.request("GET", "/matches/%s.replay" % mid)[0] == 200 or None,
             "the seat's match's replay")
    rpl, page = os.path.join(tmp, "seat.replay"), os.path.join(tmp, "seat.html")
    with open(rpl, "wb") as f:
        f.write(s.request("GET", "/matches/%s.replay" % mid)[2])
    p = subprocess.run([ARENA, "replay", "html", rpl, "-o", page], capture_output=True, text=True)
    check(p.returncode == 0, "arena replay html: %s" % p.stderr)
    d = page_model.read(page)[2]
    want = [{"code": a["code"], "label": d["labels"][str(a["code"])], "forced": a["forced"]}
            for f in d["frames"] for a in f["asked"] if a["seat"] == seat]
    got = [{k: a[k] for k in ("code", "label", "forced")} for a in acts]
    # A reader SRV_LIVE_BACKLOG frames behind skips ahead (a loaded machine
    # lags), so the stream's actions are the seat's decisions in order,
    # maybe with gaps, ending with its last one.
    it = iter(want)
    in_order = all(any(a == w for w in it) for a in got)
    check(got and in_order and want[-1] == got[-1],
          "the seat's %d actions are its decisions of the replay, in order, to its last: "
          "%r, want from %r" % (len(got), got[-3:], want[-3:]))


def main():
    tmp = tempfile.mkdtemp(prefix="serve-live-")
    usage_errors(tmp)
    queue_full(tmp)
    port = free_port(FREE_PORT)
    s = Server(ARENA, "taylor-blackjack", tmp, port,
               ["--smoke", "1", "--concurrency", "1", "--live-delay", str(DELAY)])
    s.start()
    alice, bob, carol = s.register("alice"), s.register("bob"), s.register("carol")
    s.upload(alice, DAWDLE)
    s.upload(bob, DAWDLE)
    s.wait_active("alice")
    s.wait_active("bob")

    # The list shows a running match.
    m = live_match(s)
    check(re.fullmatch(r"\d+-\d+", m["id"]) and m["page"] == "/live/" + m["id"],
          "a live match's id and page: %r" % m)
    check(sorted(m["seats"]) == ["alice@1", "bob@1"], "its seats: %r" % m)
    check(isinstance(m["steps"], int) and m["steps"] >= 0, "its frames shown: %r" % m)
    st, _, page = s.request("GET", m["page"])
    st2, _, js = s.request("GET", "/static/live_match.js")
    check(st == 200 and b'src="/static/live_match.js"' in page and b"<script>" not in page and
          b"http" not in page.split(b"</nav>")[1] and st2 == 200 and b"/api/live/" in js,
          "the live page: %d" % st)

    # The public stream of a match watched from its start to its end.
    st, ev = stream(port, "/api/live/%s/events" % m["id"])
    check(st == 200 and ev and ev[0]["type"] == "match" and ev[0]["delay"] == DELAY
          and ev[0]["id"] == m["id"], "the stream starts with the match: %r" % ev[:1])
    frames = [e for e in ev if e["type"] == "frame"]
    end = ev[-1] if ev else {}
    check(end.get("type") == "end" and end.get("replay") == "/matches/%s.html" % m["id"],
          "the stream ends with the end event and the replay page: %r" % end)
    total = end.get("decisions", -1)
    check(len(frames) > DELAY, "frames arrived: %d" % len(frames))
    print("public frames %d of %d decisions, %d while playing" % (len(frames), total, len([f for f in frames if f["at"] < total])))
    ds = [f["decision"] for f in frames]
    check(ds == sorted(set(ds)), "frames in increasing decision order")
    early = [f for f in frames if f["at"] - f["decision"] < DELAY and f["at"] != total]
    check(not early, "no frame released before the match was %d decisions further: %r"
          % (DELAY, early[:3]))
    check(any(f["at"] < total for f in frames), "some frames came while the match was played")
    check(all(set(f) == {"type", "decision", "at", "line", "public"} for f in frames),
          "public frames carry the line and the public observation (no seat's)")
    check(ev[0].get("version") == 3 and ev[0].get("fields") and ev[0].get("score_unit"),
          "the match event: version 3, the field table, the score unit: %r" % ev[0].keys())

    # Each line is the replay viewer's describe() line of that decision.
    rpl = os.path.join(tmp, "m.replay")
    # Public once the match's batch has ended (the other rotation's deal
    # must not be told by this one's seed): 404 until then, with why.
    st, j = s.json("GET", "/matches/%s.replay" % m["id"])
    check(st == 200 or (st == 404 and "once its batch has ended" in j["error"]),
          "the match's replay before its batch ends: %d %r" % (st, j))
    st = wait_for(lambda: (lambda r: r[0] if r[0] == 200 else None)(
        s.request("GET", "/matches/%s.replay" % m["id"])), "the replay, once its batch ended")
    st, _, data = s.request("GET", "/matches/%s.replay" % m["id"])
    check(st == 200, "the match's replay: %d" % st)
    with open(rpl, "wb") as f:
        f.write(data)
    show = subprocess.run([ARENA, "replay", "show", rpl], capture_output=True, text=True)
    check(show.returncode == 0, "arena replay show: %s" % show.stderr)
    blocks = re.split(r"^== (?:deal|decision (\d+)/\d+) ==$", show.stdout, flags=re.M)
    by_decision = {}
    for i in range(1, len(blocks) - 1, 2):
        by_decision[int(blocks[i]) if blocks[i] else 0] = blocks[i + 1]
    check(len(by_decision) == total + 1, "the replay has %d frames" % (total + 1))
    wrong = [f for f in frames if ("  " + f["line"] + "\n") not in by_decision.get(
        f["decision"], "")]
    check(not wrong, "every public line is the replay's line of its decision: %r" % wrong[:2])
    # Each public observation is the replay viewer's public view of that
    # decision (the model of `arena replay html`), which has no seat.
    page = os.path.join(tmp, "m.html")
    p = subprocess.run([ARENA, "replay", "html", rpl, "-o", page], capture_output=True, text=True)
    check(p.returncode == 0, "arena replay html: %s" % p.stderr)
    model = page_model.read(page)[2]
    wrong = [f["decision"] for f in frames if f["public"] != model["frames"][f["decision"]]["pub"]
             or f["public"]["seat"] != 255]
    check(not wrong, "every public observation is the replay's public view: %r" % wrong[:3])

    # Seat views: tickets.
    def ticket(mid, token, body):
        h = {"Content-Type": "application/json"}
        if token is not None:
            h["Authorization"] = "Bearer " + token
        return s.json("POST", "/api/live/%s/ticket" % mid, json.dumps(body), h)

    def with_live(fn):
        """fn(match) until it does not answer 404 (its match ended meanwhile)."""
        def once():
            r = fn(live_match(s))
            return r if r[0] != 404 else None
        return wait_for(once, "an answer for a live match")

    def seat_of(mt, author):
        return [i for i, b in enumerate(mt["seats"]) if b.startswith(author + "@")][0]

    st, j = with_live(lambda mt: ticket(mt["id"], None, {"seat": 0}))
    check(st == 401 and "token" in j["error"], "no token: 401: %d %r" % (st, j))
    st, j = with_live(lambda mt: ticket(mt["id"], "0" * 64, {"seat": 0}))
    check(st == 401, "an unknown token: 401: %d %r" % (st, j))
    st, j = with_live(lambda mt: ticket(mt["id"], "xyz", {"seat": 0}))
    check(st == 401, "a malformed token: 401: %d %r" % (st, j))
    st, j = with_live(lambda mt: ticket(mt["id"], bob, {"seat": seat_of(mt, "alice")}))
    check(st == 403 and "not this author" in j["error"],
          "bob for alice's seat: 403: %d %r" % (st, j))
    st, j = with_live(lambda mt: ticket(mt["id"], carol, {"seat": 0}))
    check(st == 403, "carol (no bot in the match): 403: %d %r" % (st, j))
    st, j = with_live(lambda mt: ticket(mt["id"], alice, {"seat": 7}))
    check(st == 400, "no such seat: 400: %d %r" % (st, j))
    st, j = with_live(lambda mt: ticket(mt["id"], alice, {"seat": "x"}))
    check(st == 400, "a bad body: 400: %d %r" % (st, j))
    st, j = ticket("999-999", alice, {"seat": 0})
    check(st == 404, "no such match: 404: %d %r" % (st, j))
    st, _, _ = s.request("GET", "/api/live/1-0/ticket")
    check(st == 405, "GET on the ticket route: 405: %d" % st)
    st, _, _ = s.request("POST", "/api/live")
    check(st == 405, "POST /api/live: 405: %d" % st)

    # alice's own seat: a ticket, then her seat's observations.
    got = {}

    def alice_view(mt):
        seat = seat_of(mt, "alice")
        st, j = ticket(mt["id"], alice, {"seat": seat})
        if st != 200:
            return st, j
        got.update(j, match=mt["id"], want=seat)
        return st, j
    st, j = with_live(alice_view)
    check(st == 200 and re.fullmatch(r"[0-9a-f]{64}", j.get("ticket", "")) and
          j["events"] == "/api/live/%s/events?ticket=%s" % (got["match"], j["ticket"]),
          "alice's ticket: %d %r" % (st, j))
    if st == 200:
        st, ev = stream(port, j["events"])
        seen = [e for e in ev if e.get("type") == "seen"]
        check(st == 200 and ev and ev[0].get("seat") == got["want"],
              "the seat stream opens for alice's seat: %d %r" % (st, ev[:1]))
        check(seen and all(e["seat"] == got["want"] and e["obs"]["seat"] == got["want"]
                           and "decision" not in e and "labels" not in e for e in seen),
              "alice's seat sees its own observations: %r" % seen[:1])
        check(ev and ev[-1].get("type") == "end", "alice's stream read to the end: %r" % ev[-1:])
        st, again = stream(port, j["events"])
        check(st == 403 and "ticket" in again[0]["error"], "a ticket works once: %d" % st)
        seat_actions(s, got["match"], got["want"], seen, tmp)
    st, bad = stream(port, "/api/live/%s/events?ticket=%s" % (m["id"], "ab" * 32))
    check(st == 403, "a made-up ticket: 403: %d" % st)
    st, bad = stream(port, "/api/live/999-999/events")
    check(st == 404, "no such live match: 404: %d" % st)
    s.stop()
    return report("serve_live")


if __name__ == "__main__":
    sys.exit(main())
