#!/usr/bin/python3
"""A human seat in a browser (`arena play GAME human BOT --http
127.0.0.1:0`; docs/bots.md, "In a browser"): Debian's chromium,
headless, driven over the DevTools protocol (cdp.py), plays a short match
of every game by clicking its legal actions (or pressing their number's
key), a different one from decision to decision.

- The seat's view: at each decision the state the page was given holds
  the seat's own observation as the replay re-simulates it (`arena replay
  html`, unpacked by page_model.py), and the page's table is exactly the
  replay viewer's picture of that observation for that seat (jaViewer.kit).
  The page shows the seat's hand and no card of another seat's hand (but a
  card the public view shows, or one the seat's observation knows of).
- The match: the page shows the result at the end, `arena play` exits 0,
  the replay verifies to the digest printed, and the same choices typed in
  the terminal (a script on stdin) give the same digest.
- Forged requests (with the page's key) are refused and change nothing: an
  illegal code (422), a stale or future turn (409), malformed bodies (400),
  a GET of the action route (405); without the key, 404. The page carries
  a Content-Security-Policy.
- The page's Quit button abandons the match: exit status 1, one line, no
  replay written; so does SIGINT (Ctrl-C) where arena play runs.
- Refused before the match, with one line and exit status 2: a
  non-loopback address without --public, a port in use, an address not
  this machine's, a malformed one, --public without --http, --http
  without a human seat.
No script error or exception is logged. Skipped (exit 77) only where
chromium is not installed.

usage: test_human_browser.py ARENA"""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import Chrome  # noqa: E402
import check_pages  # noqa: E402
import page_model  # noqa: E402

ARENA = os.path.abspath(sys.argv[1])
fails = []
passed = 0

MATCHES = [
    ("taylor-blackjack", ["human", "greedy"], ["--seed", "3", "--opt", "games=1",
                                               "--opt", "turn_cap=20"]),
    ("brawljack", ["human", "greedy"], ["--seed", "1", "--opt", "hands=1"]),
    ("bruise-jack", ["human", "greedy"], ["--seed", "1", "--opt", "hands=1"]),
    ("jack-in-the-box", ["random", "human"], ["--seed", "2", "--opt", "games=1"]),
    ("bombs", ["human", "greedy", "random"], ["--seed", "1", "--opt", "hands=1",
                                              "--opt", "tiebreak_hands=0"]),
]


def check(cond, msg):
    global passed
    if cond:
        passed += 1
    else:
        fails.append(msg)
        print("FAIL:", msg, flush=True)
    return cond


def wait_for(fn, what, guard=60):
    """Polls fn until it answers something true; the clock only guards hangs."""
    end = time.monotonic() + guard
    while time.monotonic() < end:
        v = fn()
        if v:
            return v
        time.sleep(0.05)
    check(False, "timed out waiting for " + what)
    return None


def start(game, seats, opts, replay):
    """arena play with the human seat on a page: the process and the page's
    address (the first of the two lines it prints on stderr)."""
    p = subprocess.Popen([ARENA, "play", game, *seats, *opts, "--http", "127.0.0.1:0",
                          "--replay", replay], stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = p.stderr.readline()
    m = re.fullmatch(r"Your seat is at (http://127\.0\.0\.1:\d+/play/[0-9a-f]{32})", line.strip())
    if not m:
        p.kill()
        raise SystemExit("FAIL: no page address in %r (%s)" % (line, p.stderr.read()))
    check(p.stderr.readline().startswith("Open it in a browser"), "the address's second line")
    return p, m.group(1)


def refusals():
    """Bad --http uses, each refused before the match with one line (exit 2)."""
    base = [ARENA, "play", "taylor-blackjack", "human", "greedy", "--opt", "games=1"]
    held = socket.socket()
    held.bind(("127.0.0.1", 0))
    held.listen()
    port = held.getsockname()[1]
    for args, want in [
            (["--http", "192.0.2.1:8080"], r"--http 192\.0\.2\.1:8080 is not a loopback address: "
             r"give --public to play from another machine \(plain HTTP: .*\)"),
            (["--http", "127.0.0.1:%d" % port], r"--http 127\.0\.0\.1:%d: port %d is in use "
             r"\(another program listens there\); give another port, or 0 for any free one"
             % (port, port)),
            (["--http", "192.0.2.1:0", "--public"], r"--http 192\.0\.2\.1:0: 192\.0\.2\.1 is not "
             r"an address of this machine"),
            (["--http", "127.0.0.1"], r"--http needs HOST:PORT \(e\.g\. 127\.0\.0\.1:8080\), not "
             r"'127\.0\.0\.1'"),
            (["--http", "example.org:80"], r"--http 'example\.org:80': the host must be a numeric "
             r"IPv4 address, localhost or \[IPv6\]"),
            (["--public"], r"--public goes with --http HOST:PORT \(where the human seat plays\)")]:
        r = subprocess.run(base + args, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                           timeout=60)
        check(r.returncode == 2 and re.fullmatch("arena: error: " + want + "\n", r.stderr)
              and r.stdout == "", "%s: refused with one line: %d %r" % (args, r.returncode,
                                                                        r.stderr))
    held.close()
    r = subprocess.run([ARENA, "play", "taylor-blackjack", "random", "greedy", "--http",
                        "127.0.0.1:0"], capture_output=True, text=True, timeout=60)
    check(r.returncode == 2 and r.stderr == "arena: error: --http is where a human seat plays: "
          "give one with 'human' (arena play GAME human BOT...)\n",
          "--http without a human seat: %d %r" % (r.returncode, r.stderr))


def request(url, path, body=None, method=None, key=None):
    """(status, JSON answer, headers) of the page's API at path."""
    base, k = url.split("/play/")
    data = body if isinstance(body, (bytes, type(None))) else json.dumps(body).encode()
    req = urllib.request.Request("%s/api/%s%s" % (base, key or k, path), data=data,
                                 method=method or ("POST" if data is not None else "GET"))
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, json.load(r), r.headers
    except urllib.error.HTTPError as e:
        return e.code, json.load(e), e.headers


STATE = "(window.jaHuman && window.jaHuman.state())"
ROWS = ("Array.from(document.querySelectorAll('#table .row')).map(r => r.textContent)"
        ".join(' / ')")


def decision(b, last_turn):
    """Waits until the page shows a decision after last_turn, or the end."""
    def ready():
        st = b.eval(STATE)
        if st and (st["status"] == "over" or (st["status"] == "turn" and st["turn"] != last_turn
                                               and not st["sending"])):
            return st
        return None
    return wait_for(ready, "a decision after turn %r" % last_turn)


def forged(url, st):
    """Forged requests at a decision waiting: each refused, nothing changed."""
    code, before, _ = request(url, "/state")
    legal = [a["code"] for a in before["legal"]]
    illegal = max(legal) + 1
    turn = before["turn"]
    for body, want, what in [
            ({"turn": turn, "code": illegal}, 422, "an illegal code"),
            ({"turn": turn - 1, "code": legal[0]}, 409, "a stale turn"),
            ({"turn": turn + 1, "code": legal[0]}, 409, "a future turn"),
            (b"{", 400, "malformed JSON"),
            ({"turn": turn}, 400, "no code"),
            ({"turn": turn, "code": legal[0], "index": 0}, 400, "an extra key"),
            ({"turn": str(turn), "code": legal[0]}, 400, "a turn as a string"),
            ({"turn": turn, "code": -1}, 400, "a negative code"),
            (b"{\"turn\": %d, \"code\": %d, \"pad\": \"%s\"}" % (turn, legal[0], b"x" * 2000), 400,
             "a body too long")]:
        code, ans, _ = request(url, "/act", body)
        check(code == want and ans.get("error"),
              "forged POST (%s): %d %r, want %d and an error" % (what, code, ans, want))
    code, ans, _ = request(url, "/act", method="GET")
    check(code == 405, "GET of /act: %d" % code)
    code, ans, _ = request(url, "/act", {"turn": turn, "code": legal[0]}, key="0" * 32)
    check(code == 404, "a POST without the key: %d" % code)
    code, _, _ = request(url, "/state", key=url.split("/play/")[1] + "x")
    check(code == 404, "the key with more after it: %d" % code)
    base = url.split("/play/")[0]
    for path in ("/play/" + "0" * 32, "/", "/play/"):
        try:
            urllib.request.urlopen(base + path, timeout=60)
            check(False, "%s answered without the key" % path)
        except urllib.error.HTTPError as e:
            check(e.code == 404, "%s without the key: %d" % (path, e.code))
    with urllib.request.urlopen(url, timeout=60) as r:
        check("script-src 'self'" in (r.headers.get("Content-Security-Policy") or ""),
              "the page has a Content-Security-Policy")
    code, after, _ = request(url, "/state")
    check(after["version"] == before["version"] and after["status"] == "turn" and
          after["turn"] == turn, "the forged requests changed nothing: %r" % after["status"])


def js(v):
    return json.dumps(v)


def picture(b, header, labels, obs, seat):
    """The replay viewer's picture of obs for seat, as the page's DOM holds it."""
    d = {"game": header["game"], "seats": header["seats"], "players": header["players"],
         "fields": header["fields"], "labels": labels, "score_unit": header["score_unit"]}
    return b.eval("(() => { var e = document.createElement('div'); e.innerHTML = "
                  "jaViewer.kit(%s).picture(%s, %d); return [e.innerHTML, Array.from("
                  "e.querySelectorAll('.row')).map(r => r.textContent).join(' / ')]; })()"
                  % (js(d), js(obs), seat))


def hidden(game, frame, seat, shown_public):
    """Cards of the other seats' hands at frame that seat may not see: not
    in its own hand, not known to it, not on the table for all to see."""
    pub, mine = frame.get("pub", {}), frame["obs"][seat]
    out = set()
    for t, o in enumerate(frame["obs"]):
        if t != seat:
            out |= check_pages.hand_cards(game, o, pub)
    known = mine.get("known") if game in ("taylor-blackjack", "jack-in-the-box") else None
    knows = {check_pages.card_text(game, i % 52) for i, k in enumerate(known or []) if k}
    return out - check_pages.hand_cards(game, mine, pub) - knows - set(shown_public.split())


def verify_views(b, game, rpl, seat, seen):
    """Each decision's state and table against the replay's seat view."""
    page = rpl[:-4] + ".html"
    subprocess.run([ARENA, "replay", "html", rpl, "-o", page], check=True)
    _, _, d = page_model.read(page)
    F = d["frames"]
    at = [f - 1 for f in range(1, len(F)) for a in F[f]["asked"]
          if a["seat"] == seat and not a["forced"]]
    check(len(at) == len(seen), "%s: %d decisions on the page, %d in the replay"
          % (game, len(seen), len(at)))
    labels, looked = {}, 0
    for k, (state, html, rows, i) in enumerate(seen[:len(at)]):
        fr = F[at[k]]
        rec = [a for a in F[at[k] + 1]["asked"] if a["seat"] == seat][0]
        check(rec["code"] == state["legal"][i]["code"] and rec["index"] == i and
              rec["choices"] == len(state["legal"]), "%s, decision %d: the replay records the "
              "action clicked (%r, %r)" % (game, k + 1, rec, state["legal"][i]))
        labels.update(state.get("labels", {}))
        where = "%s, decision %d" % (game, k + 1)
        check(state["obs"] == fr["obs"][seat],
              "%s: the page was given the seat's observation" % where)
        # Nothing else of the match: the header, that observation, the
        # labels of its codes, the decision.
        check(set(state) == {"version", "status", "game", "title", "seats", "seat",
                             "score_unit", "players", "fields", "obs", "labels", "turn", "legal"}
              and all(set(p) == {"name"} for p in state["players"]),
              "%s: the state holds nothing but the seat's: %s" % (where, sorted(state)))
        want_html, _ = picture(b, state, labels, fr["obs"][seat], seat)
        check(html == want_html, "%s: the table is the seat's picture:\n  %s\n  %s"
              % (where, html[:300], want_html[:300]))
        own = check_pages.hand_cards(game, fr["obs"][seat], fr.get("pub", {}))
        words = set(rows.split())
        check(own <= words, "%s: the seat's hand %s is shown" % (where, sorted(own - words)))
        shown = picture(b, state, labels, fr["pub"], -1)[1] if "pub" in fr else ""
        bad = hidden(game, fr, seat, shown)
        looked += len(bad)
        check(not (bad & words), "%s: another seat's cards shown: %s" % (where, bad & words))
    return looked


def play_game(b, work, game, seats, opts, first):
    seat = seats.index("human")
    rpl = os.path.join(work, game + ".rpl")
    p, url = start(game, seats, opts, rpl)
    b.navigate(url)
    seen, last = [], None
    while True:
        st = decision(b, last)
        if not st or st["status"] == "over":
            break
        code, state, _ = request(url, "/state")
        check(code == 200 and state["turn"] == st["turn"], "%s: the state of turn %d"
              % (game, st["turn"]))
        if first and not seen:
            forged(url, st)
        # A legal action of each decision in turn (not always the first):
        # its button clicked, or its number's key pressed.
        n = len(state["legal"])
        i = (len(seen) * 5 + 2) % n
        buttons = b.eval("Array.from(document.querySelectorAll('#actions button'))"
                         ".map(b => [+b.dataset.code, b.textContent])")
        check([c for c, _ in buttons] == [a["code"] for a in state["legal"]] and
              all(t == "%d%s" % (j + 1, a["label"]) for j, ((_, t), a) in
                  enumerate(zip(buttons, state["legal"]))),
              "%s: the buttons are the legal actions, numbered, with their labels" % game)
        seen.append((state, b.eval("document.getElementById('table').innerHTML"), b.eval(ROWS),
                     i))
        if len(seen) % 2 or i >= 9:
            b.eval("document.querySelectorAll('#actions button')[%d].click()" % i)
        else:
            b.key(str(i + 1), "Digit%d" % (i + 1), 49 + i, str(i + 1))
        last = st["turn"]
    wait_for(lambda: b.eval("!document.getElementById('result-box').hidden"), game + ": the result")
    check(b.eval("document.getElementById('status').textContent") == "The match is over.",
          "%s: the page says the match is over" % game)
    out, err = p.communicate(timeout=120)
    check(p.returncode == 0, "%s: arena play exits 0 (%d): %s" % (game, p.returncode, err))
    digest = re.search(r"^digest ([0-9a-f]{64})$", out, re.M)
    digest = digest and digest.group(1)
    v = subprocess.run([ARENA, "replay", "verify", rpl], capture_output=True, text=True)
    check(v.returncode == 0 and digest and digest in v.stdout, "%s: the replay verifies to the "
          "digest printed" % game)
    looked = verify_views(b, game, rpl, seat, seen)
    typed = "".join("%d\n" % (i + 1) for _, _, _, i in seen)
    again = subprocess.run([ARENA, "play", game, *seats, *opts], input=typed,
                           capture_output=True, text=True)
    check(again.returncode == 0 and digest and digest in again.stdout,
          "%s: the same choices in the terminal give the same digest" % game)
    print("%s: %d decisions in the browser, %d hidden cards looked for, digest %s"
          % (game, len(seen), looked, digest), flush=True)
    return looked


def quit_run(b, work):
    rpl = os.path.join(work, "quit.rpl")
    p, url = start("taylor-blackjack", ["human", "greedy"], ["--seed", "3"], rpl)
    b.navigate(url)
    decision(b, None)
    b.eval("document.getElementById('quit').click()")
    wait_for(lambda: "You left the match" in (b.eval("document.getElementById('status')"
                                                     ".textContent") or ""), "the page's quit")
    out, err = p.communicate(timeout=120)
    check(p.returncode == 1, "quit: exit status %d, want 1" % p.returncode)
    check(re.fullmatch(r"arena: error: match abandoned: seat 0 \(human\) left the match at "
                       r"decision \d+: it quit in the browser \(the replay is not written\)\n",
                       err), "quit: one line says why: %r" % err)
    check(not [f for f in os.listdir(work) if f.startswith("quit")], "quit: no replay written")


def interrupt_run(b, work):
    """Ctrl-C (SIGINT) where arena play runs, at the seat's decision: the
    match is abandoned as by the page's Quit, and the page says so."""
    rpl = os.path.join(work, "sigint.rpl")
    p, url = start("bombs", ["greedy", "human", "random"], ["--seed", "5"], rpl)
    b.navigate(url)
    decision(b, None)
    p.send_signal(signal.SIGINT)
    wait_for(lambda: "You left the match" in (b.eval("document.getElementById('status')"
                                                     ".textContent") or ""), "the page's end")
    out, err = p.communicate(timeout=120)
    check(p.returncode == 1, "SIGINT: exit status %d, want 1" % p.returncode)
    check(re.fullmatch(r"arena: error: match abandoned: seat 1 \(human\) left the match at "
                       r"decision \d+: it was interrupted \(SIGINT: Ctrl-C\) \(the replay is not "
                       r"written\)\n", err), "SIGINT: one line says why: %r" % err)
    check(not [f for f in os.listdir(work) if f.startswith("sigint")],
          "SIGINT: no replay (nor its temporary file) written")


def main():
    exe = shutil.which("chromium")
    if not exe:
        print("SKIP: chromium is not installed (scripts/setup.sh installs it)")
        return 77
    work = tempfile.mkdtemp(prefix="human-browser-")
    profile = os.path.join(work, "profile")
    os.mkdir(profile)
    refusals()
    b = Chrome(exe, profile)
    try:
        looked = {}
        for i, (game, seats, opts) in enumerate(MATCHES):
            looked[game] = play_game(b, work, game, seats, opts, i == 0)
        for game in ("taylor-blackjack", "jack-in-the-box", "bombs"):
            check(looked[game] > 0, "%s: no hidden card looked for (the check checks nothing)"
                  % game)
        quit_run(b, work)
        interrupt_run(b, work)
        check(b.eval("document.getElementById('errlog').textContent") == "",
              "no script error logged")
        errs = b.errors()
        check(not errs, "no script error or exception: %r" % errs)
    finally:
        b.close()
    print("play_human_browser: %d passed, %d failed" % (passed, len(fails)))
    if not fails:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
