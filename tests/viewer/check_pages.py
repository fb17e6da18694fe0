#!/usr/bin/python3
"""Helpers of the browser test (test_browser.sh) for replay pages and the
log their self-test (#selftest) leaves in <pre id="selftest-log">: one line
per frame shown, "view V | frame F | pos ... | meta ... | timeline ... |
scrub K/M | action ... | describe ... | table ... | moves ... | scores ... |
result ...", "moves" the move history's marked rows (the newest moves,
" ; " between them) and "(N shown)".

  check_pages.py scramble PAGE SEAT OUT   the page with everything seat SEAT
                                          (or "public": the public view)
                                          may not see changed
  check_pages.py check DOM [forfeit]      what every view shows and hides
  check_pages.py same DOM1 DOM2 SEAT      seat SEAT's (or the public view's)
                                          lines are the same
  check_pages.py hands DOM PAGE           the public view shows no card of
                                          a hand
  check_pages.py logs DOM PAGE            each view shows the bots' logs
                                          it may see, and no other

The public view is view -2 in the log ("public" on the command line).

Exit status 0 when the check holds, 1 with FAIL lines."""
import html
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import page_model  # noqa: E402

fails = []


def fail(msg):
    fails.append(msg)
    print("FAIL:", msg)


def log_of(path):
    s = open(path, encoding="utf-8").read()
    m = re.search(r'<pre id="selftest-log" hidden="">(.*?)</pre>', s, re.S)
    if not m:
        print("FAIL: %s: no self-test log" % path)
        sys.exit(1)
    lines = []
    for raw in html.unescape(m.group(1)).split("\n"):
        e = {}
        for part in raw.split(" | "):
            k, _, v = part.partition(" ")
            e[k] = v
        e["view"], e["frame"] = int(e["view"]), int(e["frame"])
        e["raw"] = raw
        lines.append(e)
    return lines


PUBLIC = -2


def scramble(page, seat, out):
    """Every other seat's observations, decisions, faults and forfeits,
    whom each decision asked and which frames the others saw, and the
    public describe() line (shown in the omniscient view only). For the
    public view (seat PUBLIC): every seat's observation (every hand, and
    what each seat knows of the stock), every decision, the seed; the
    public observations alone are kept. The bots' logs of every other seat
    (of every seat for the public view) are scrambled, and one is added for
    a seat that has none in a frame."""
    s, m, d = page_model.read(page)
    n = d["seats"]
    if seat == PUBLIC:
        d["seed"] = "12345"
    # Labels: those of codes the view's own observations name in their
    # events (Bombs' plays) and of the seat's own decisions are kept, every
    # other one is changed.
    named = set()
    for f in d["frames"]:
        named |= named_codes(d["game"], f["pub"] if seat == PUBLIC else f["obs"][seat])
        named |= {a["code"] for a in f["asked"] if a["seat"] == seat}
    d["labels"] = {c: v if int(c) in named else "scrambled " + c for c, v in d["labels"].items()}

    def scr(v):
        if isinstance(v, list):
            return [(x * 7 + 3) % 251 for x in v] + [1]
        return (v * 7 + 3) % 251

    other = (seat + 1) % n if seat >= 0 else 0
    for f in d["frames"]:
        f["describe"] = "scrambled"
        for t in range(n):
            if t != seat:
                f["obs"][t] = {k: scr(v) for k, v in f["obs"][t].items()}
        if not any(a["seat"] == other for a in f["asked"]):
            f["asked"].append({"seat": other, "code": 0, "choices": 1, "index": -1,
                               "forced": True, "fault": "none", "us": 0, "forfeits": False})
            f["asked"].sort(key=lambda a: a["seat"])
        for a in f["asked"]:
            if a["seat"] != seat:
                a.update(code=a["code"] + 1, fault="timeout",
                         forced=not a["forced"], choices=a["choices"] + 5, us=a["us"] + 999,
                         index=3, forfeits=True)
        f["seen"] = sorted({t for t in range(n) if t != seat} | ({seat} & set(f["seen"])))
        logs = f.setdefault("logs", [])
        for lg in logs:
            if lg["seat"] != seat:
                lg["text"] = "scrambled " + lg["text"][::-1]
        if not any(lg["seat"] == other for lg in logs):
            logs.append({"seat": other, "text": "a scrambled log of seat %d" % other})
            logs.sort(key=lambda lg: lg["seat"])
    page_model.write(out, s, m, d)


def named_codes(game, o):
    """The action codes observation o names in its events: Bombs' plays in
    turn and out of turn (JA_BOMBS_EV_PLAY, _INTERRUPT) by their codes."""
    if game != "bombs":
        return set()
    kinds, args = o.get("ev_kind", []), o.get("ev_arg", [])
    return {args[i] if i < len(args) else 0 for i, k in enumerate(kinds) if k in (8, 9)}


def shown_moves(e):
    m = re.search(r"\((\d+) shown\)$", e["moves"])
    return int(m.group(1)) if m else -1


def check_moves(lines, last):
    """The move history: at every frame of the omniscient view its marked
    rows are that decision's (numbered so), none at the deal; in every view
    the number of moves shown depends on the frame alone and grows with
    it, and every frame after the deal shows some."""
    for v in sorted({e["view"] for e in lines}):
        count = {}
        for e in lines:
            if e["view"] != v:
                continue
            where = "view %d frame %d" % (v, e["frame"])
            k = shown_moves(e)
            if k < 0:
                fail("%s: no move history: %r" % (where, e["moves"]))
                return
            if count.setdefault(e["frame"], k) != k:
                fail("%s: %d moves shown, %d before" % (where, k, count[e["frame"]]))
            if v == -1 and e["frame"]:
                rows = e["moves"].rsplit(" (", 1)[0].split(" ; ")
                if not all(r.startswith("%d " % e["frame"]) for r in rows):
                    fail("%s: the marked moves are not the current decision's: %r"
                         % (where, e["moves"]))
            elif v == -1 and k:
                fail("%s: moves shown at the deal: %r" % (where, e["moves"]))
        ks = [count[f] for f in sorted(count)]
        if ks != sorted(ks) or (len(ks) > 1 and ks[-1] == 0):
            fail("view %d: the moves shown do not grow with the frames: %s" % (v, ks[:20]))


def check(dom, forfeit):
    lines = log_of(dom)
    last = max(e["frame"] for e in lines)
    views = sorted({e["view"] for e in lines})
    if views[:2] != [PUBLIC, -1] or len(views) < 4:
        fail("the self-test did not go through every view: %s" % views)
    for e in lines:
        where = "view %d frame %d" % (e["view"], e["frame"])
        shown = e["result"] != "hidden"
        # The result: at the last frame, and only there.
        if shown != (e["frame"] == last):
            fail("%s: the result is %s" % (where, "shown" if shown else "hidden"))
        if "to act " not in e["table"]:
            fail("%s: who decides now is not shown" % where)
        if e["view"] == -1:
            if not re.fullmatch(r"(deal|decision %d) / %d" % (e["frame"], last), e["pos"]):
                fail("%s: position '%s'" % (where, e["pos"]))
            if e["timeline"] != "shown" or "seed" not in e["meta"]:
                fail("%s: no timeline or no seed" % where)
            if e["scrub"] != "%d/%d" % (e["frame"], last):
                fail("%s: the scrubber at %s" % (where, e["scrub"]))
        else:
            sees = "the table shows" if e["view"] == PUBLIC else "seat %d sees" % e["view"]
            want = {0: "the deal", last: "the end"}.get(e["frame"], sees)
            if e["pos"] != want:
                fail("%s: position '%s', want '%s'" % (where, e["pos"], want))
            if e["timeline"] != "hidden":
                fail("%s: the timeline is shown in a seat's view" % where)
            if "seed" in e["meta"]:
                fail("%s: the seed is shown in a seat's view" % where)
            if re.search(r"\bdecision\b|/ %d\b" % last, e["raw"]):
                fail("%s: decision numbers in a seat's view" % where)
        if e["view"] == PUBLIC and (e["action"] not in ("", "the deal") or e["describe"]):
            fail("%s: the public view shows a decision or the describe line: %r %r"
                 % (where, e["action"], e["describe"]))
    check_moves(lines, last)
    for v in [v for v in views if v != -1]:
        # A seat's scrubber: its position among the frames the seat
        # perceives, out of their number, nothing of the decisions.
        mine = sorted({e["frame"] for e in lines if e["view"] == v})
        for e in lines:
            if e["view"] == v and e["scrub"] != "%d/%d" % (mine.index(e["frame"]), len(mine) - 1):
                fail("view %d frame %d: the scrubber at %s, want its position among %d frames"
                     % (v, e["frame"], e["scrub"], len(mine)))
                break
        fr = [e["frame"] for e in lines if e["view"] == v]
        if 0 in fr:   # from the last time at the first frame (the "first" button) on
            fr = fr[len(fr) - 1 - fr[::-1].index(0):]
        if fr[0] != 0 or fr[-1] != last or fr != sorted(set(fr)):
            fail("view %d steps through frames %s" % (v, fr[:5]))
    if forfeit:
        at = [e for e in lines if "FORFEITS the match" in e["action"]]
        if sorted({(e["view"], e["frame"]) for e in at}) != [(-1, 5), (1, 5)]:
            fail("the forfeit is marked at %s, want decision 5 (omniscient and seat 1)"
                 % sorted({(e["view"], e["frame"]) for e in at}))
        end = [e for e in lines if e["frame"] == last]
        if not all(re.search(r"/ 2 faulty 0 2 forfeited$", e["result"]) for e in end):
            fail("the result does not mark the forfeit: %s" % end[0]["result"])


RANKS, SUITS = "A23456789TJQK", "\u2663\u2666\u2665\u2660"
# Bruise Jack's cards: colour initial, number, suit shape (replay.js, bj()).
BJ_COLOUR, BJ_NUMBER, BJ_SUIT = "KRYGB", "?1234", "\u2731\u25cf\u2665\u25b2\u25a0"


def card_text(game, cid):
    """A card as the page writes it (replay.js, card() and bj()): Bombs
    writes the ten "10", the other games "T"."""
    if game == "bruise-jack":
        return BJ_COLOUR[cid // 25 % 5] + BJ_NUMBER[cid // 5 % 5] + BJ_SUIT[cid % 5]
    c = cid % 54
    if c >= 52:
        return "XB" if c == 52 else "XR"
    rank = "10" if game == "bombs" and c % 13 == 9 else RANKS[c % 13]
    return rank + SUITS[c // 13]


def hand_cards(game, o, pub):
    """The cards private to a seat's observation o: its hand (counts per
    card), and a drawn or centre card the public observation pub hides."""
    out = set()
    for cid, k in enumerate(o.get("hand", []) if isinstance(o.get("hand"), list) else []):
        if k:
            out.add(card_text(game, cid))
    for f in ("drawn", "centre"):
        v = o.get(f)
        if isinstance(v, int) and v != 255 and pub.get(f) != v:
            out.add(card_text(game, v))
    return out


def event_cards(game, o):
    """The cards observation o's events show (a card laid, a centre shown
    at a showdown): public once shown."""
    out = set()
    kinds = o.get("ev_kind", [])
    for f in ("ev_card", "ev_card2"):
        for i, c in enumerate(o.get(f, [])):
            kind = kinds[i] if i < len(kinds) else 0
            if c != 255 and not (game == "taylor-blackjack" and kind == 4):   # 4: a suit named
                out.add(card_text(game, c))
    return out


def hands(dom, page):
    """At every frame of the public view: no card of any seat's hand in its
    table or its newest moves, but a card the table shows face up (the
    omniscient view's public picture, before "to act"), one the public
    observation knows of a hand ("known": several decks may hold the same
    card) or one its events show."""
    _, _, d = page_model.read(page)
    lines = log_of(dom)
    table = {e["frame"]: e["table"].split(" / to act ")[0] for e in lines if e["view"] == -1}
    checked = 0
    for e in lines:
        if e["view"] != PUBLIC:
            continue
        f = e["frame"]
        pub = d["frames"][f]["pub"]
        shown = set(table[f].split())
        known = {card_text(d["game"], i % 52) for i, k in enumerate(pub.get("known", [])) if k}
        known |= event_cards(d["game"], pub)
        words = set(e["table"].split()) | set(e["moves"].split())
        for s, o in enumerate(d["frames"][f]["obs"]):
            for c in hand_cards(d["game"], o, pub) - shown - known:
                checked += 1
                if c in words:
                    fail("public view, frame %d: %s of seat %d's hand is shown: %s | %s"
                         % (f, c, s, e["table"], e["moves"]))
                    return
    if not checked:
        fail("the public view: no hand's card to look for (the check checks nothing)")
    print("public view: %d cards of hands looked for, none shown" % checked)


def logs(dom, page):
    """The "botlog" of every line: every seat's logs of the frame's decision
    in the omniscient view, the seat's own in its view, none in the public
    view (the page writes "log of NAME" above each text). A log holding
    HTML must show as its text, tags and all (as markup its tags would be
    missing from the text), at least once."""
    _, _, d = page_model.read(page)
    squeeze = lambda t: re.sub(r"\s+", "", t)
    shown = markup = 0
    for e in log_of(dom):
        v, f = e["view"], e["frame"]
        want = "".join("log of %s%s" % (d["players"][lg["seat"]]["name"], lg["text"])
                       for lg in d["frames"][f].get("logs", [])
                       if v == -1 or lg["seat"] == v)
        if squeeze(e.get("botlog", "")) != squeeze(want):
            fail("view %d frame %d: the logs shown are %r, want %r" % (v, f, e.get("botlog"), want))
            return
        shown += bool(want)
        markup += '<b id="botlog-markup">' in e.get("botlog", "")
    if not shown or not markup:
        fail("no log (%d) or no log of HTML (%d) shown anywhere (the check checks nothing)"
             % (shown, markup))
    print("logs: %d frames of a view with logs, each as the view may see, %d with HTML as text"
          % (shown, markup))


def same(dom1, dom2, seat):
    a = [e["raw"] for e in log_of(dom1) if e["view"] == seat]
    b = [e["raw"] for e in log_of(dom2) if e["view"] == seat]
    if not a:
        fail("no lines of seat %d" % seat)
    for x, y in zip(a, b):
        if x != y:
            fail("seat %d's view depends on what it may not see:\n  %s\n  %s" % (seat, x, y))
            break
    if len(a) != len(b):
        fail("seat %d's view shows %d frames, then %d" % (seat, len(a), len(b)))


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "scramble":
        scramble(sys.argv[2], PUBLIC if sys.argv[3] == "public" else int(sys.argv[3]),
                 sys.argv[4])
    elif cmd == "check":
        check(sys.argv[2], len(sys.argv) > 3 and sys.argv[3] == "forfeit")
    elif cmd == "same":
        same(sys.argv[2], sys.argv[3], PUBLIC if sys.argv[4] == "public" else int(sys.argv[4]))
    elif cmd == "hands":
        hands(sys.argv[2], sys.argv[3])
    elif cmd == "logs":
        logs(sys.argv[2], sys.argv[3])
    else:
        sys.exit("unknown command " + cmd)
    sys.exit(1 if fails else 0)
