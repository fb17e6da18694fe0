#!/usr/bin/python3
"""`arena serve`'s pages in a browser (docs/server.md): Debian's chromium,
headless, driven over the DevTools protocol on a pipe (tests/viewer/cdp.py).

The ladder page `/` is opened while only alice's bot is active (no match
can be played yet, no row is rated) and stays open: a marker is set in the page's window.
bob's bot is then uploaded; the page's own script, listening to
/api/events, must show bob's row and a changed match count, with the
marker still there (the page was not reloaded). The replay page of a
played match `/matches/T-N.html` runs the viewer's self-test (#selftest,
as tests/viewer/test_browser.sh does) and logs no script error. Every
page, the replay page too, fits a 400 px phone (scrollWidth). No request
of either page leaves the server's origin, and no script error or
exception is logged. The bot page draws alice's rating history (one line,
a point per rated match, its end dotted), and every page fits 1,400 px and
a 400 px phone, the chart's box within the page, the chart readable (three
quarters of its size or more, scrolling in its box) and no table's short
word broken across lines.

Waits poll a condition; the only clock is a generous guard against hangs.
Skipped (exit 77) only where chromium is not installed.

A second server plays live matches (two dawdle bots, Taylor Blackjack,
--live-delay 3): a live match's page `/live/ID` shows frames arriving
without a reload, drawn as the table (the newest one, the seats by name,
the pile's top card) and never a card of a hand (checked against the
seats' observations in the match's replay afterwards), then the link to
the match's replay page; beside the table its move history, the newest
move marked, no card of a hand in it either; a click on an earlier move
shows the table then, and "follow the match" the newest again; at a 400
px phone the moves go under the table and nothing overflows; its seat view
refuses another author's token (403) and a malformed one (401), and shows
the seat's observation and its move history for the seat's author.

usage: test_serve_browser.py ARENA RANDOM.so PICK.so DAWDLE.so FREE_PORT.py"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "viewer"))
from cdp import Chrome  # noqa: E402
from serve_lib import (Server, check, failures, free_port, report, wait_for,  # noqa: E402
                       walk_matches)
import check_pages  # noqa: E402
import page_model  # noqa: E402

ARENA, RANDOM, PICK, DAWDLE, FREE_PORT = sys.argv[1:6]


ROWS = "Array.from(document.querySelectorAll('#ladder tr')).map(r => r.textContent)"


def live_match(s):
    """The id and seats of a running match (waits for one)."""
    def one():
        st, j = s.json("GET", "/api/live")
        return j["matches"][0] if st == 200 and j and j.get("matches") else None
    return wait_for(one, "a live match")


# Each frame the live page draws: its position, the table's text and its
# newest moves' (marked in the history).
SNAP = ("window.jaFrames = []; new MutationObserver(function () { window.jaFrames.push(["
        "document.getElementById('pub-pos').textContent, "
        "document.getElementById('pub-table').innerText, Array.from(document.querySelectorAll("
        "'#pub-history li.cur')).map(function (li) { return li.textContent; }).join(' ; ')]); "
        "}).observe("
        "document.getElementById('pub-count'), {childList: true, characterData: true, "
        "subtree: true})")


def public_frames(s, m, snaps, tmp):
    """The live page's frames against the match's replay, once public: each
    shows the seats by name and the pile's top card, and no card of a hand
    (the seats' views of the replay page's model at that decision) but the
    ones the public observation knows, in its table or its newest moves."""
    check(len(snaps) > 1, "frames drawn one after the other: %d" % len(snaps))
    wait_for(lambda: s.request("GET", "/matches/%s.replay" % m["id"])[0] == 200 or None,
             "the replay, once its batch ended")
    rpl, page = os.path.join(tmp, "live.replay"), os.path.join(tmp, "live.html")
    with open(rpl, "wb") as f:
        f.write(s.request("GET", "/matches/%s.replay" % m["id"])[2])
    p = subprocess.run([ARENA, "replay", "html", rpl, "-o", page], capture_output=True, text=True)
    check(p.returncode == 0, "arena replay html: %s" % p.stderr)
    d = page_model.read(page)[2]
    looked, moved = 0, 0
    for pos, text, moves in snaps:
        f = 0 if pos == "the deal" else int(pos.split()[-1])
        pub, words = d["frames"][f]["pub"], set(text.split()) | set(moves.split())
        moved += bool(moves)
        top = check_pages.card_text(d["game"], pub["top"])
        # Cards everyone saw go into a hand (a pile picked up) are public.
        known = {check_pages.card_text(d["game"], i % 52)
                 for i, k in enumerate(pub.get("known", [])) if k}
        known |= check_pages.event_cards(d["game"], pub)
        check(all(x in text for x in m["seats"]) and top in words,
              "decision %d: the seats by name and the top card %s: %r" % (f, top, text))
        for o in d["frames"][f]["obs"]:
            for c in check_pages.hand_cards(d["game"], o, pub) - {top} - known:
                looked += 1
                check(c not in words, "decision %d: %s of a hand shown: %r %r" % (f, c, text, moves))
    check(looked > 0, "cards of hands looked for: %d" % looked)
    check(moved * 2 > len(snaps), "the newest moves marked in %d frames of %d" % (moved, len(snaps)))


MOVES = """(() => { const el = document.getElementById('pub-history');
  const r = x => (b => [b.left, b.top, b.right, b.bottom])(x.getBoundingClientRect());
  const shown = [...el.children].filter(li => !li.hidden), cur = [...el.querySelectorAll('li.cur')];
  return {shown: shown.length, cur: cur.length, last: cur.length > 0 && cur[cur.length - 1] ===
          shown[shown.length - 1], pos: document.getElementById('pub-pos').textContent,
          follow: !document.getElementById('pub-follow').hidden,
          moves: r(document.querySelector('.live-moves')), table: r(document.querySelector('.live-table')),
          sw: document.documentElement.scrollWidth, iw: window.innerWidth}; })()"""


def live_moves(b):
    """The ended match's page: its move history beside the table, the
    newest move marked; a click on an earlier one shows the table then, and
    "follow the match" the newest again; at 400 px under the table."""
    m = b.eval(MOVES)
    check(m and m["shown"] > 5 and m["cur"] > 0 and m["last"] and not m["follow"],
          "the live page's moves, the newest marked: %r" % m)
    check(m and m["moves"][0] >= m["table"][2], "the moves beside the table: %r" % m)
    end = m and m["pos"]
    r = b.eval("""(() => { const shown = [...document.querySelectorAll('#pub-history li')]
      .filter(li => !li.hidden), li = shown[shown.length - 5]; li.scrollIntoView({block: 'center'});
      const q = li.getBoundingClientRect(); return [q.left + q.width / 2, q.top + q.height / 2]; })()""")
    b.click(r[0], r[1])
    m = b.eval(MOVES)
    check(m and m["pos"] != end and m["follow"] and m["last"],
          "a click on an earlier move: the table then (%r, the end %r), 'follow' shown" % (m, end))
    b.eval("document.getElementById('pub-follow').click()")
    m = b.eval(MOVES)
    check(m and m["pos"] == end and not m["follow"], "'follow the match': the newest again: %r" % m)
    b.viewport(400, 800, True)
    m = wait_for(lambda: (lambda x: x if x and x["iw"] == 400 else None)(b.eval(MOVES)),
                 "the live page at 400 px")
    check(m and m["sw"] <= 400 and m["moves"][1] >= m["table"][3],
          "the live page at 400 px: no overflow, the moves under the table: %r" % m)
    b.viewport(1400, 900, False)


def live_pages(exe, tmp):
    port = free_port(FREE_PORT)
    origin = "http://127.0.0.1:%d/" % port
    d = os.path.join(tmp, "live")
    os.mkdir(d)
    s = Server(ARENA, "taylor-blackjack", d, port,
               ["--smoke", "1", "--concurrency", "1", "--live-delay", "3"])
    s.start()
    alice, bob, carol = s.register("alice"), s.register("bob"), s.register("carol")
    s.upload(alice, DAWDLE)
    s.upload(bob, DAWDLE)
    s.wait_active("alice")
    s.wait_active("bob")
    profile = os.path.join(d, "profile")
    os.mkdir(profile)
    b = Chrome(exe, profile)
    count = "+document.getElementById('%s-count').textContent"
    status = "document.getElementById('%s-status').textContent"
    try:
        # The list page links the running match.
        m = live_match(s)
        b.navigate(origin + "live")
        wait_for(lambda: b.eval("document.querySelectorAll('#live a').length") or None,
                 "a match on the live list page")

        # A match's page: frames arrive on the open page, then the replay link.
        replay = "(a => a && a.getAttribute('href'))(document.getElementById('pub-replay'))"

        def watch():
            m = live_match(s)
            b.navigate(origin + "live/" + m["id"])
            # The observer needs the page's counter: installed once it is
            # there (an eval before the page has loaded throws, and no
            # frame would be recorded).
            wait_for(lambda: b.eval("!!document.getElementById('pub-count')") or None,
                     "the live page's frame counter")
            b.eval("window.jaMarker = 'kept'")
            check(b.eval(SNAP + "; true") is True, "the frames' observer installed")
            r = wait_for(lambda: (b.eval(count % "pub") or 0) > 0 or "closed" in (
                b.eval(status % "pub") or ""), "the first frames on the live page")
            n1 = b.eval(count % "pub") or 0
            if r is not True or n1 == 0:
                return None
            # More frames, or the match's end: a match that ended just after
            # its first frames reached the page (its last ones all at once,
            # on a slow machine) shows no more; another one then.
            wait_for(lambda: (b.eval(count % "pub") or 0) > n1 or b.eval(replay),
                     "more frames on the open page, or the match's end")
            return m if (b.eval(count % "pub") or 0) > n1 else None
        m = wait_for(watch, "a live match page that shows frames, then more")
        check(b.eval("window.jaMarker") == "kept", "the live page got frames without a reload")
        href = wait_for(lambda: b.eval(replay), "the replay link when the match ends")
        check(href == "/matches/%s.html" % m["id"], "the replay link: %r" % href)
        check(b.eval("window.jaMarker") == "kept", "still the same page at the end")
        line = b.eval("document.getElementById('pub-line').textContent") or ""
        check(re.match(r"(game|match over)", line), "the public line: %r" % line)
        check(b.eval("document.querySelectorAll('#pub-table .row').length") > 0 and
              b.eval("document.querySelectorAll('#frames li, #pub-table li').length") == 0,
              "the newest frame drawn as the table, not a list of frames")
        public_frames(s, m, b.eval("window.jaFrames") or [], tmp)
        live_moves(b)

        # The seat view: refused without the seat's author's token.
        def seat_view(token, want):
            def once():
                m = live_match(s)
                b.navigate(origin + "live/" + m["id"])
                wait_for(lambda: b.eval("document.getElementById('seat').options.length") or
                         "closed" in (b.eval(status % "pub") or ""), "the seat list")
                if not b.eval("document.getElementById('seat').options.length"):
                    return None  # the match ended before the page opened its stream
                seat = [i for i, x in enumerate(m["seats"]) if x.startswith("alice@")][0]
                b.eval("document.getElementById('token').value = %s" % json.dumps(token))
                b.eval("document.getElementById('seat').value = '%d'" % seat)
                b.eval("document.getElementById('seatform').requestSubmit()")
                st = wait_for(lambda: b.eval(status % "seat"), "the seat view's answer")
                if "404" in st or "ended" in st or "closed" in st:
                    return None  # the match ended meanwhile: another one
                rows = []
                if want == 200 and st.startswith("Seat "):
                    wait_for(lambda: (b.eval(count % "seat") or 0) > 0 or "closed" in (
                        b.eval(status % "seat") or ""), "the seat's observations")
                    rows = b.eval("Array.from(document.querySelectorAll('#seat-table .row'))"
                                  ".map(r => r.textContent)") or []
                    if not b.eval(count % "seat") or not rows:
                        return None  # the match ended before the stream opened
                    rows.append(b.eval("document.querySelectorAll('#seat-history li.cur')"
                                       ".length"))
                return st, seat, rows
            return wait_for(once, "a seat view answer")
        st, _, _ = seat_view(bob, 403)
        check(st.startswith("Refused (403)"), "bob's token for alice's seat: %r" % st)
        st, _, _ = seat_view(carol, 403)
        check(st.startswith("Refused (403)"), "carol's token: %r" % st)
        st, _, _ = seat_view("not a token", 401)
        check(st.startswith("Refused (401)"), "a malformed token: %r" % st)
        check((b.eval(count % "seat") or 0) == 0 and
              b.eval("document.querySelectorAll('#seat-table .row').length") == 0,
              "nothing of the seat shown without its author's token")
        st, seat, rows = seat_view(alice, 200)
        check(st == "Seat %d's view:" % seat, "alice's seat view: %r" % st)
        check(any(r.startswith("alice@") and re.search(r"\bcards?\b", r) for r in rows[:-1]),
              "alice's seat's view: her hand drawn: %r" % rows[:3])
        check(rows[-1] > 0, "alice's seat's view: its newest moves marked: %r" % rows[-1:])

        # A match that is not being played: the page says so and links its replay.
        b.navigate(origin + "live/999-999")
        st = wait_for(lambda: (lambda x: x if x and "not being played" in x else None)(
            b.eval(status % "pub")), "the page of a match not being played")
        check(b.eval("document.querySelector('#pub-status a').getAttribute('href')") ==
              "/matches/999-999.html", "it links the replay: %r" % st)

        urls = b.urls()
        outside = [u for u in urls if not u.startswith(origin) and u != "about:blank"]
        check(not outside, "no request of the live pages leaves the server: %r" % outside)
        # The refused tickets (401/403) and the stream of a match not being
        # played (404): the browser logs those. A match that ended between
        # the list and its page's stream (the waits above take another one
        # then; a loaded machine makes it common) is one of the latter: a 404
        # of its events, which the page shows as "not being played".
        ended = re.compile(r"status of 404 \(Not Found\) \S*/api/live/[0-9]+-[0-9]+/events$")
        # Likewise a seat's stream whose match ended between its ticket and
        # the stream's opening: the ticket is refused then (403).
        ended_seat = re.compile(r"status of 403 \(Forbidden\) \S*/api/live/[0-9]+-[0-9]+/events"
                                r"\?ticket=[0-9a-f]+$")
        errs = [e for e in b.errors()
                if "/ticket" not in e and "/999-999/" not in e and not ended.search(e)
                and not ended_seat.search(e)]
        check(not errs, "no script error or exception on the live pages: %r" % errs)
    finally:
        b.close()
    s.stop()


def main():
    exe = shutil.which("chromium")
    if not exe:
        print("SKIP: chromium is not installed (scripts/setup.sh installs it)")
        return 77
    tmp = tempfile.mkdtemp(prefix="serve-browser-")
    port = free_port(FREE_PORT)
    origin = "http://127.0.0.1:%d/" % port
    s = Server(ARENA, "bruise-jack", tmp, port, ["--smoke", "1", "--concurrency", "2"])
    s.start()
    alice = s.register("alice")
    bob = s.register("bob")
    s.upload(alice, RANDOM)
    s.wait_active("alice")

    profile = os.path.join(tmp, "profile")
    os.mkdir(profile)
    b = Chrome(exe, profile)
    try:
        # The ladder with alice alone: no match, so no rated row yet.
        b.navigate(origin)
        wait_for(lambda: b.eval("document.getElementById('matches').textContent") == "0",
                 "the ladder page's first load")
        check(b.eval(ROWS) == [], "no rated bot yet: %r" % b.eval(ROWS))
        b.eval("window.jaMarker = 'kept'")

        # bob joins: the open page shows him and the matches, not reloaded.
        s.upload(bob, PICK)

        def live():
            rows = b.eval(ROWS) or []
            n = b.eval("document.getElementById('matches').textContent")
            bob_row = [r for r in rows if "bob" in r]
            if bob_row and n and n.isdigit() and int(n) > 0 and "active" in bob_row[0]:
                return rows, int(n)
            return None
        rows, n = wait_for(live, "bob's row and a match count on the open page")
        check(any("alice" in r for r in rows) and any("bob" in r for r in rows),
              "both bots on the ladder page: %r" % rows)
        check(b.eval("window.jaMarker") == "kept", "the ladder page updated without a reload")
        # Later matches change the count on the same page too.
        wait_for(lambda: (lambda m: m and m.isdigit() and int(m) > n)(
            b.eval("document.getElementById('matches').textContent")), "a later match count")
        check(b.eval("window.jaMarker") == "kept", "still the same page")
        check(b.eval("document.getElementById('pending').children.length") == 0,
              "no other versions listed")

        # A played match's replay page: the viewer's self-test steps through it.
        # Its page is public once its batch has ended (docs/server.md,
        # "Deals"): the newest match whose page is out.
        def published():
            st, j = s.json("GET", "/api/bots/alice")
            return next((x for x in (j.get("matches") or []) if x.get("page")), None) \
                if st == 200 else None
        m = wait_for(published, "a match of alice's with its replay page public")
        page = m.get("page")
        check(page, "a played match with a replay page: %r" % m)
        if page:
            b.navigate(origin.rstrip("/") + page + "#selftest")
            res = wait_for(lambda: b.eval(
                "(e => e && e.getAttribute('data-selftest'))"
                "(document.querySelector('[data-selftest]'))"), "the replay viewer's self-test")
            check(res.startswith("ok"), "the replay page's self-test: %r" % res)
            check(b.eval("document.getElementById('errlog').textContent") == "",
                  "the replay page logged no script error")
            check(b.eval("document.querySelectorAll('.points').length") >= 2,
                  "the replay page shows the seats' scores")

        # The bot page: the validation report readable (its checks passed,
        # no raw JSON), a link to all the matches, a page at a time.
        b.navigate(origin + "bots/alice")
        wait_for(lambda: b.eval("document.readyState") == "complete", "the page /bots/alice")
        text = b.eval("document.body.innerText") or ""
        check('{"' not in text and '"steps"' not in text and '"smoke"' not in text,
              "the bot page shows no raw JSON: %r" % text[:300])
        checks = b.eval("Array.from(document.querySelectorAll('table.checks td.pass'))"
                        ".map(e => e.parentNode.firstChild.textContent)") or []
        check("smoke" in " ".join(checks) and len(checks) >= 2,
              "the validation checks, passed: %r" % checks)
        check(b.eval("document.querySelectorAll('table.checks td.fail').length") == 0,
              "no check failed")
        check(b.eval("!!document.querySelector('a[href=\"/bots/alice/matches\"]')"),
              "the bot page links its matches")
        # Its rating history: alice's one version a line of a point per
        # rated match (as many as its matches listed then; play goes on),
        # its end dotted.
        lines = b.eval("Array.from(document.querySelectorAll('svg.elochart polyline.elo'))"
                       ".map(p => [p.querySelector('title').textContent, "
                       "p.points.numberOfItems])") or []
        shown = len(walk_matches(s, "/api/bots/alice/matches?limit=100"))
        check(len(lines) == 1 and lines[0][0] == "alice@1" and 1 <= lines[0][1] <= shown,
              "the rating chart: one line of a point per match (%d listed after): %r"
              % (shown, lines))
        check(b.eval("document.querySelectorAll('svg.elochart circle.end').length") == 1,
              "the line's end dotted")

        # Every page at 1,400 px and at a 400 px phone (its viewport meta tag
        # in force): no horizontal overflow; a wide table scrolls in its own
        # box, the rating chart shrinks to the page.
        for width, phone in ((1400, False), (400, True)):
            b.viewport(width, 800, phone)
            for path in ("", "matches", "bots/alice", "bots/alice/matches", "live", "submit",
                         page.lstrip("/") if page else ""):
                b.navigate(origin + path)
                wait_for(lambda: b.eval("document.readyState") == "complete" and
                         b.eval("!!document.querySelector('h1, #pos')"), "the page /" + path)
                if page and path == page.lstrip("/"):
                    wait_for(lambda: b.eval("document.getElementById('pos').textContent"),
                             "the replay")
                sw, iw = (b.eval("document.documentElement.scrollWidth"),
                          b.eval("window.innerWidth"))
                check(iw == width and sw is not None and sw <= width,
                      "/%s at %d px: scrollWidth %r, layout %r px" % (path, width, sw, iw))
                if path == "bots/alice":
                    # The chart's box within the page; the chart itself at
                    # three quarters of its size or more (its 11 px text
                    # 8 px or more), scrolling in that box when wider.
                    r = b.eval("(e => e && [e.getBoundingClientRect().left, "
                               "e.getBoundingClientRect().right])"
                               "(document.querySelector('.chartbox'))")
                    check(r and r[0] >= 0 and r[1] <= width,
                          "the rating chart's box within the page at %d px: %r" % (width, r))
                    scale = b.eval("(e => e && e.getBoundingClientRect().width / "
                                   "e.viewBox.baseVal.width)"
                                   "(document.querySelector('.chartbox svg.elochart'))")
                    check(scale and scale >= 0.75,
                          "the rating chart readable at %d px: drawn at %r of its size"
                          % (width, scale))
                    # The tables' words whole: no cell of one short word
                    # (a header, a status) drawn on two lines.
                    broken = b.eval(
                        "Array.from(document.querySelectorAll('th, td')).filter(c => {"
                        " const t = c.firstChild;"
                        " if (c.childNodes.length != 1 || t.nodeType != 3 ||"
                        "     !/^\\w{1,10}$/.test(t.textContent)) return false;"
                        " const g = document.createRange(); g.selectNodeContents(t);"
                        " return g.getClientRects().length > 1; }).map(c => c.textContent)")
                    check(broken == [], "table words broken at %d px: %r" % (width, broken))
        b.viewport(1400, 900, False)

        urls = b.urls()
        check(any(u.startswith(origin + "api/events") for u in urls) and
              any(u.startswith(origin + "matches/") for u in urls), "requests seen: %r" % urls)
        outside = [u for u in urls if not u.startswith(origin) and not u.startswith("data:")
                   and u != "about:blank"]
        check(not outside, "no request leaves the server: %r" % outside)
        errs = b.errors()
        check(not errs, "no script error or exception: %r" % errs)
    finally:
        b.close()
    s.stop()
    live_pages(exe, tmp)
    if not failures:
        shutil.rmtree(tmp, ignore_errors=True)
    return report("serve_browser")


if __name__ == "__main__":
    sys.exit(main())
