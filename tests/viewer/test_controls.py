#!/usr/bin/python3
"""The replay page's controls and widths in a browser (docs/viewer.md):
Debian's chromium, headless, driven over the DevTools protocol
(tests/viewer/cdp.py), with keys pressed as a spectator presses them.

- Widths: a long match (matches.sh, play_long: 2,090 decisions) in the
  omniscient view, in a seat's view and in the public view, and the
  report's index page, at a 1,400 px window and at a 400 px phone (its
  viewport meta tag in force): no horizontal overflow (scrollWidth within
  the window), the scrubber inside the window; the move history beside
  the table at 1,400 px and under it at 400 px, inside the window, no
  wider than its box, its current move marked and in its view (the pane
  scrolls: the omniscient view's is longer than it).
- The move history of the long match: the omniscient view marks the
  current decision's moves (numbered) and shows none after it; a click on
  an earlier move (the mouse, over DevTools) goes to its frame and marks
  it, in the omniscient view and in a seat's view (whose moves carry no
  decision numbers); the arrow keys move the mark with the frame.
- Keys (the forfeit replay, matches.sh): after the view menu is changed
  with its focus left on it, ArrowRight steps one frame and the view stays;
  n and p jump to the faulted decisions (5, where seat 1 forfeits, then
  its turns played for it), in the omniscient view and in seat 1's, and
  not in seat 0's (it may not know of seat 1's faults).
- Speed: a change while playing restarts the play timer at the new
  interval (the page's own state, window.jaReplay.state(): no clock).
- The hash: it follows the frame (#frame=N; a seat's view #view=S&step=K,
  no decision number), and a changed hash moves the page there.
- The go-to box moves to decision N.
No script error or exception is logged. Skipped (exit 77) only where
chromium is not installed.

usage: test_controls.py ARENA FAULTY_PLUGIN"""
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import Chrome  # noqa: E402

ARENA, FAULTY = sys.argv[1:3]
SRC = os.path.dirname(os.path.abspath(__file__))
fails = []
passed = 0


def check(cond, msg):
    global passed
    if cond:
        passed += 1
    else:
        fails.append(msg)
        print("FAIL:", msg, flush=True)


def wait_for(fn, what, guard=60):
    """Polls fn until it answers something true; the clock only guards hangs."""
    end = time.monotonic() + guard
    while time.monotonic() < end:
        v = fn()
        if v:
            return v
        time.sleep(0.05)
    print("FAIL: timed out waiting for", what, flush=True)
    fails.append("timed out: " + what)
    return None


STATE = "(window.jaReplay ? window.jaReplay.state() : null)"
KEYS = {"ArrowRight": ("ArrowRight", 39, None), "ArrowLeft": ("ArrowLeft", 37, None),
        "Home": ("Home", 36, None), "End": ("End", 35, None),
        "n": ("KeyN", 78, "n"), "p": ("KeyP", 80, "p")}


def press(b, k):
    code, vk, text = KEYS[k]
    b.key(k, code, vk, text)


def open_page(b, url):
    b.navigate("about:blank")
    b.navigate(url)
    return wait_for(lambda: b.eval("document.getElementById('pos') && "
                                   "document.getElementById('pos').textContent"), "the page " + url)


def widths(b, url, what, ready=True):
    out = {}
    for w, mobile in ((1400, False), (400, True)):
        b.viewport(w, 900, mobile)
        if ready:
            open_page(b, url)
        else:
            b.navigate(url)
            wait_for(lambda: b.eval("document.readyState") == "complete", "the page " + url)
        sw = b.eval("document.documentElement.scrollWidth")
        iw = b.eval("window.innerWidth")
        out[w] = sw
        check(iw == w, "%s at %d px: the layout is %r px wide" % (what, w, iw))
        check(sw is not None and sw <= w, "%s at %d px: scrollWidth %r" % (what, w, sw))
        if ready:
            r = b.eval("(r => [r.left, r.right, r.width])(document.getElementById('scrub')"
                       ".getBoundingClientRect())")
            check(r and r[0] >= 0 and r[1] <= w and r[2] > 0,
                  "%s at %d px: the scrubber is at %r" % (what, w, r))
            moves_layout(b, w, what)
    print("%s: scrollWidth %d at 1400 px, %d at 400 px" % (what, out[1400], out[400]), flush=True)
    b.viewport(1400, 900, False)


MOVES = """(() => {
  const el = document.getElementById('history'), pane = document.getElementById('moves-pane'),
        tbl = document.getElementById('table-pane');
  if (!el || !pane || !tbl) return null;
  const r = x => (b => [b.left, b.top, b.right, b.bottom])(x.getBoundingClientRect());
  const rows = [...el.children], shown = rows.filter(li => !li.hidden), cur = [...el.querySelectorAll('li.cur')];
  const hidden = rows.find(li => li.hidden);
  return {pane: r(pane), list: r(el), table: r(tbl), cur: cur.map(r), curF: cur.map(li => +li.dataset.f),
          rows: rows.length, shown: shown.length, scrolls: el.scrollHeight > el.clientHeight,
          lastF: shown.length ? +shown[shown.length - 1].dataset.f : -1,
          firstHiddenF: hidden ? +hidden.dataset.f : -1, numbers: el.querySelectorAll('li .n').length,
          sw: el.scrollWidth, cw: el.clientWidth};
})()"""


def moves_layout(b, w, what):
    """The move history at window width w: beside the table (1,400 px) or
    under it (a phone), inside the window, no wider than its box, its
    current move marked and in its view."""
    m = b.eval(MOVES)
    check(m is not None, "%s at %d px: no move history" % (what, w))
    if not m:
        return None
    check(m["pane"][0] >= 0 and m["pane"][2] <= w, "%s at %d px: the moves are at %r" % (what, w, m["pane"]))
    check(m["sw"] <= m["cw"], "%s at %d px: the moves overflow their box: %r > %r" % (what, w, m["sw"], m["cw"]))
    if w >= 1000:
        check(m["pane"][0] >= m["table"][2], "%s at %d px: the moves are not beside the table: %r, %r"
              % (what, w, m["pane"], m["table"]))
    else:
        check(m["pane"][1] >= m["table"][3], "%s at %d px: the moves are not under the table: %r, %r"
              % (what, w, m["pane"], m["table"]))
    check(m["cur"], "%s at %d px: no move marked" % (what, w))
    for c in m["cur"]:
        check(c[1] >= m["list"][1] - 1 and c[3] <= m["list"][3] + 1,
              "%s at %d px: the marked move %r is out of the pane's view %r" % (what, w, c, m["list"]))
    return m


def click_move(b, back):
    """Clicks the move `back` rows before the last one shown (scrolled into
    the pane's view first); its frame."""
    f = b.eval("""(() => { const el = document.getElementById('history');
      const shown = [...el.children].filter(li => !li.hidden), li = shown[shown.length - 1 - %d];
      li.scrollIntoView({block: 'center'}); return +li.dataset.f; })()""" % back)
    r = b.eval("""(() => { const el = document.getElementById('history');
      const shown = [...el.children].filter(li => !li.hidden), li = shown[shown.length - 1 - %d];
      const q = li.getBoundingClientRect(); return [q.left + q.width / 2, q.top + q.height / 2]; })()""" % back)
    b.click(r[0], r[1])
    return f


def moves(b, page):
    """The long match's move history: the current decision marked, nothing
    after it, a click on an earlier move goes there, the keys move the
    mark; a seat's view likewise, without decision numbers."""
    b.viewport(1400, 900, False)
    open_page(b, page + "#frame=1000")
    m = b.eval(MOVES)
    check(m and m["curF"] and set(m["curF"]) == {1000} and m["lastF"] == 1000 and m["firstHiddenF"] == 1001,
          "the omniscient view at decision 1000: its moves marked and none after: %r"
          % ({k: m[k] for k in ("curF", "lastF", "firstHiddenF")} if m else m))
    check(m and m["scrolls"] and m["numbers"] == m["rows"],
          "the omniscient view's moves: numbered, in a pane that scrolls: %r" % m)
    f = click_move(b, 12)
    st = b.eval(STATE)
    m = b.eval(MOVES)
    check(f < 1000 and st["frame"] == f and set(m["curF"]) == {f} and m["lastF"] == f,
          "a click on the move of frame %d: frame %d, marked %r" % (f, st["frame"], m["curF"]))
    moves_layout(b, 1400, "the long match after a click on a move")
    press(b, "ArrowRight")
    m = b.eval(MOVES)
    check(set(m["curF"]) == {f + 1}, "ArrowRight after the click: marked %r, want %d" % (m["curF"], f + 1))
    open_page(b, page + "#view=2&step=300")
    m = moves_layout(b, 1400, "seat 2's view")
    check(m and m["numbers"] == 0, "seat 2's moves carry decision numbers: %r" % m)
    check(m and m["shown"] > 100, "seat 2's view shows %r moves at its 300th frame" % (m and m["shown"]))
    f = click_move(b, 5)
    st = b.eval(STATE)
    m = b.eval(MOVES)
    check(st["view"] == 2 and st["frame"] == f and set(m["curF"]) == {f},
          "a click on seat 2's move of frame %d: %r, marked %r" % (f, st, m["curF"]))
    check(b.eval("document.getElementById('history').textContent.indexOf('decision')") == -1,
          "the word 'decision' in seat 2's moves")


def controls(b, url):
    open_page(b, url + "#frame=0")
    st = b.eval(STATE)
    check(st and st["frame"] == 0 and st["view"] == -1, "the page opens at the deal: %r" % st)
    if not st:
        return
    # The view menu changed as a mouse does it, its focus then left as it is.
    b.eval("(v => { v.focus(); v.value = '1'; v.dispatchEvent(new Event('change')); "
           "v.value = '-1'; v.dispatchEvent(new Event('change')); })(document.getElementById('view'))")
    press(b, "ArrowRight")
    st = b.eval(STATE)
    check(st["frame"] == 1 and st["view"] == -1,
          "ArrowRight after a change of the view menu: frame %d view %d, want 1 and -1"
          % (st["frame"], st["view"]))
    b.eval("(v => { v.focus(); v.value = '100'; v.dispatchEvent(new Event('change')); })"
           "(document.getElementById('speed'))")
    press(b, "ArrowRight")
    st = b.eval(STATE)
    check(st["frame"] == 2 and st["view"] == -1 and b.eval("document.getElementById('speed').value") == "100",
          "ArrowRight after a change of the speed menu: frame %d, speed %s"
          % (st["frame"], b.eval("document.getElementById('speed').value")))
    press(b, "ArrowLeft")
    check(b.eval(STATE)["frame"] == 1, "ArrowLeft steps back")
    m = b.eval(MOVES)
    check(m and m["curF"] == [1] and m["shown"] == 1, "the moves at decision 1: %r" % m)
    press(b, "End")
    last = b.eval(STATE)["frame"]
    check(last > 5, "End goes to the last frame: %d" % last)
    press(b, "Home")
    check(b.eval(STATE)["frame"] == 0, "Home goes to the deal")

    # Speed: a change while playing takes effect at once.
    b.eval("(s => { s.value = '1000'; s.dispatchEvent(new Event('change')); })"
           "(document.getElementById('speed'))")
    b.eval("document.getElementById('play').click()")
    st1 = b.eval(STATE)
    b.eval("(s => { s.value = '100'; s.dispatchEvent(new Event('change')); })"
           "(document.getElementById('speed'))")
    st2 = b.eval(STATE)
    check(st1["playing"] and st1["interval"] == 1000, "playing at the slow speed: %r" % st1)
    check(st2["playing"] and st2["interval"] == 100 and st2["timers"] == st1["timers"] + 1,
          "the speed changed while playing restarts the timer at 100 ms: %r then %r" % (st1, st2))
    b.eval("document.getElementById('play').click()")
    check(not b.eval(STATE)["playing"], "pause")

    # The hash follows the frame, and a changed hash moves the page.
    press(b, "Home")
    for _ in range(3):
        press(b, "ArrowRight")
    h = wait_for(lambda: (lambda x: x if x == "#frame=3" else None)(b.eval("location.hash")),
                 "the hash of frame 3")
    check(h == "#frame=3", "the hash after three steps: %r" % b.eval("location.hash"))
    b.eval("location.hash = '#frame=7'")
    st = wait_for(lambda: (lambda s: s if s and s["frame"] == 7 else None)(b.eval(STATE)),
                  "frame 7 from the hash")
    check(st and st["view"] == -1, "a changed hash moves to frame 7: %r" % b.eval(STATE))
    b.eval("location.hash = '#frame=7&view=1'")
    st = wait_for(lambda: (lambda s: s if s and s["view"] == 1 else None)(b.eval(STATE)),
                  "seat 1's view from the hash")
    check(st and st["frame"] <= 7, "seat 1's view at or before frame 7: %r" % st)
    # The hash of that frame written first (at most every 150 ms), then
    # the next one's: a write still due would otherwise pass for it.
    h7 = wait_for(lambda: (lambda x: x if x and x.startswith("#view=1&step=") else None)(
        b.eval("location.hash")), "the hash of a seat's view")
    press(b, "ArrowRight")
    h = wait_for(lambda: (lambda x: x if x and x.startswith("#view=1&step=") and x != h7 else None)(
        b.eval("location.hash")), "the hash of a seat's next frame")
    check(h and "frame" not in h, "a seat's view's hash has no decision number: %r" % h)
    st = b.eval(STATE)
    b.eval("location.hash = '#frame=0'")
    wait_for(lambda: (lambda s: s and s["view"] == -1 and s["frame"] == 0)(b.eval(STATE)),
             "back to the omniscient view")
    b.eval("location.hash = %r" % h)
    st2 = wait_for(lambda: (lambda s: s if s and s["view"] == 1 else None)(b.eval(STATE)),
                   "a seat's view's link")
    check(st2 and st2["frame"] == st["frame"], "the seat's link opens its frame again: %r, %r" % (st, st2))

    # Faults: seat 1's at decision 5, where it forfeits; its later turns,
    # played for it, carry the fault "forfeit" (7, 9, 11, 13, 19), as the
    # terminal viewer's n and p find them too.
    b.eval("location.hash = '#frame=0'")
    wait_for(lambda: (lambda s: s and s["view"] == -1 and s["frame"] == 0)(b.eval(STATE)), "the deal")
    press(b, "n")
    check(b.eval(STATE)["frame"] == 5, "n: the next fault, want frame 5: %r" % b.eval(STATE))
    press(b, "n")
    check(b.eval(STATE)["frame"] == 7, "n again: frame 7: %r" % b.eval(STATE))
    press(b, "p")
    check(b.eval(STATE)["frame"] == 5, "p: the previous fault, want frame 5: %r" % b.eval(STATE))
    press(b, "p")
    check(b.eval(STATE)["frame"] == 5, "p with no fault before: stays at 5: %r" % b.eval(STATE))
    press(b, "End")
    press(b, "p")
    check(b.eval(STATE)["frame"] == 19, "p from the end: frame 19: %r" % b.eval(STATE))
    b.eval("(v => { v.value = '1'; v.dispatchEvent(new Event('change')); })(document.getElementById('view'))")
    press(b, "Home")
    press(b, "n")
    st = b.eval(STATE)
    check(st["view"] == 1 and st["frame"] == 5, "n in seat 1's view: its own fault at 5: %r" % st)
    b.eval("(v => { v.value = '0'; v.dispatchEvent(new Event('change')); })(document.getElementById('view'))")
    press(b, "Home")
    press(b, "n")
    check(b.eval(STATE)["frame"] == 0, "n in seat 0's view: seat 1's fault is not its to see: %r"
          % b.eval(STATE))
    check(b.eval("document.getElementById('goto').hidden") is True,
          "the go-to box is hidden in a seat's view")

    # The go-to box.
    b.eval("(v => { v.value = '-1'; v.dispatchEvent(new Event('change')); })(document.getElementById('view'))")
    check(b.eval("document.getElementById('goto').hidden") is False, "the go-to box in the omniscient view")
    b.eval("document.getElementById('goto-n').value = '12'")
    b.eval("document.getElementById('goto').requestSubmit()")
    check(b.eval(STATE)["frame"] == 12, "the go-to box: decision 12: %r" % b.eval(STATE))
    check(b.eval("document.getElementById('pos').textContent").startswith("decision 12 "),
          "the position after the go-to box: %r" % b.eval("document.getElementById('pos').textContent"))
    # The scrubber moves the page too.
    b.eval("(s => { s.value = '4'; s.dispatchEvent(new Event('input')); })(document.getElementById('scrub'))")
    check(b.eval(STATE)["frame"] == 4, "the scrubber at 4: %r" % b.eval(STATE))
    check(b.eval("document.getElementById('errlog').textContent") == "", "no script error logged")


def main():
    exe = shutil.which("chromium")
    if not exe:
        print("SKIP: chromium is not installed (scripts/setup.sh installs it)")
        return 77
    tmp = tempfile.mkdtemp(prefix="viewer-controls-")
    os.chdir(tmp)
    r = subprocess.run(["bash", "-c", '. "$1/matches.sh" && play_forfeit "$2" "$3" && play_long "$2"',
                        "-", SRC, ARENA, FAULTY])
    if r.returncode != 0:
        print("FAIL: could not play the test matches")
        return 1
    for g in ("forfeit", "long"):
        subprocess.run([ARENA, "replay", "html", g + ".rpl", "-o", g + ".html"], check=True)
    subprocess.run([ARENA, "tournament", "taylor-blackjack", "--bots", "greedy,random", "--rounds", "2",
                    "--seed", "3", "--opt", "games=1", "--opt", "turn_cap=20", "--db", "t.db", "--replays", "rp"],
                   check=True, stdout=subprocess.DEVNULL)
    subprocess.run([ARENA, "report", "--db", "t.db", "-o", "site"], check=True, stdout=subprocess.DEVNULL)
    profile = os.path.join(tmp, "profile")
    os.mkdir(profile)
    b = Chrome(exe, profile)
    try:
        page = "file://%s/long.html" % tmp
        widths(b, page + "#frame=1000", "the long match")
        widths(b, page + "#frame=1000&view=2", "the long match, seat 2's view")
        check(b.eval("document.getElementById('scrub').hidden") is False, "a scrubber in a seat's view")
        widths(b, page + "#view=public&step=2", "the long match, the public view")
        moves(b, page)
        widths(b, "file://%s/site/index.html" % tmp, "the report", ready=False)
        controls(b, "file://%s/forfeit.html" % tmp)
        errs = b.errors()
        check(not errs, "no script error or exception: %r" % errs)
    finally:
        b.close()
    print("viewer_controls: %d passed, %d failed" % (passed, len(fails)))
    if not fails:
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
