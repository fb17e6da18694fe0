#!/usr/bin/python3
"""Every game's table as the viewers draw it (docs/viewer.md, "What each
table shows"), one match of each game (matches.sh, and play_dealer: a
BrawlJack match with the dealer, bust hands and a blind reveal with a bust
hand), every frame.

The replay page, in Debian's chromium, headless, over the DevTools protocol
(tests/viewer/cdp.py): every frame of the omniscient and the public views,
stepped with the page's own button, the public view's table checked
against the page's own model (its public observations):
- Bruise Jack: each up card a card element (class bj-COLOUR, data-colour,
  -number, -suit; text: colour initial, number, suit shape), the rows'
  cards those of the observation, no code like c1n4s0 anywhere; the key
  (five colours, five suits); the last showdown (each centre) at the end.
- Jack in the Box: each joker slot an element, open (its joker) or covered
  (the Jack on it and who put it there), as slot_* have them.
- BrawlJack: each hand's cards, state and value, a bust hand's total (its
  cards with aces 1, over 21); the blind reveal's cards and values (a bust
  hand's total); the outcome, and the last deal's during the next.
- Bombs: the top play as rank cards (the ranks top_form, top_rank, top_len
  make) with its name; each play of the trick with the cards its name
  makes; tens written "10", no "T".
Labels agree, in the page's omniscient view and in the terminal's dump
(`arena replay show`): the table numbers what the action label and
describe() number as they do: Taylor Blackjack's turn; Jack in the Box's
boxes (and a target's box and position); BrawlJack's deal and "seat S
hand K"; Bombs' hand and top play ("run 7-Q"), and the trick's last play
the action's; Bruise Jack's hand.

Skipped (exit 77) where chromium is not installed, after the terminal's
checks.

usage: test_tables.py ARENA"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cdp import Chrome  # noqa: E402
import check_pages  # noqa: E402
import page_model  # noqa: E402

ARENA = os.path.abspath(sys.argv[1])
SRC = os.path.dirname(os.path.abspath(__file__))
GAMES = ["taylor-blackjack", "brawljack", "bruise-jack", "jack-in-the-box", "bombs", "dealer"]
fails = []
passed = 0


def check(cond, msg):
    global passed
    if cond:
        passed += 1
    else:
        fails.append(msg)
        print("FAIL:", msg, flush=True)


# ---- The terminal's dump ------------------------------------------------------------

def dump_frames(text):
    """The frames of a dump: (records, describe line, table lines)."""
    out = []
    for block in re.split(r"^== (?:deal|decision \d+/\d+) ==\n", text, flags=re.M)[1:]:
        lines = block.split("\n")
        recs = [l for l in lines if re.match(r"seat \d+ \(", l)]
        rest = [l for l in lines if l.startswith("  ")]
        out.append((recs, rest[0].strip() if rest else "", rest[1:]))
    return out


def text_labels(game, text):
    """The dump's table numbers what its records and describe() number."""
    frames = dump_frames(text)
    check(frames, "%s: the dump has frames" % game)
    seen = 0
    for i, (recs, desc, table) in enumerate(frames):
        where = "%s dump, frame %d" % (game, i)
        body = "\n".join(table)
        if game == "taylor-blackjack":
            m, t = re.search(r"turn (\d+):", desc), re.search(r"^  game \d+/\d+ turn (\d+)  ", body, re.M)
            check(bool(m) == bool(t) and (not m or m.group(1) == t.group(1)),
                  "%s: describe() %r, the table %r" % (where, desc, table[:1]))
            seen += bool(m)
        elif game == "jack-in-the-box" and not desc.startswith("match over"):
            want = re.findall(r"; box (\d+) ", desc)
            check(want == re.findall(r"^  box (\d+)[: ]", body, re.M),
                  "%s: boxes %r in describe(), the table %r" % (where, want, body))
            seen += bool(want)
        elif game in ("brawljack", "dealer"):
            prev = "\n".join(frames[i - 1][2]) if i else ""
            for r in recs:
                m = re.search(r": (?:hit|stay) ((?:seat \d+|dealer) hand \d+)  ", r)
                if m:
                    seen += 1
                    check(re.search(r"^  %s " % m.group(1), prev, re.M),
                          "%s: %r names no hand of the table before it:\n%s" % (where, r, prev))
        elif game == "bombs":
            m = re.search(r"(?:to follow|window after) (.*) of seat", desc)
            if m:
                seen += 1
                check(re.search(r"top: %s \[" % re.escape(m.group(1)), body),
                      "%s: describe() names the top play %r, the table %r" % (where, m.group(1), table[:1]))
        elif game == "bruise-jack":
            m, t = re.match(r"hand (\d+/\d+)", desc), re.search(r"^  hand (\d+/\d+)", body, re.M)
            check(not m or (t and m.group(1) == t.group(1)), "%s: hands %r, %r" % (where, desc, table[:1]))
            seen += bool(m)
    check(seen, "%s dump: nothing was compared" % game)


def text_bruise(text):
    """Bruise Jack's cards readable in the dump, with their key."""
    check(not re.search(r"c\dn\ds\d", text), "bruise-jack dump: cards written as codes")
    rows = re.findall(r"^    (?:colour|number|suit) +\d+(?: claimed)?:(.*)$", text, re.M)
    cards = " ".join(rows).split()
    check(cards and all(re.fullmatch(r"[KRYGB][?1-4][*oh^#]", c) for c in cards),
          "bruise-jack dump: cards %r" % sorted(set(cards))[:8])
    frames = len(re.findall(r"^== (?:deal|decision)", text, re.M))
    check(text.count("  key: colour K R Y G B (black red yellow green blue), number ? 1 2 3 4,\n"
                     "  suit * o h ^ # (blob circle heart triangle square)") == frames,
          "bruise-jack dump: the key in each of the %d frames" % frames)
    check(re.search(r"^  last showdown: rows compared .*; won by seat \d", text, re.M),
          "bruise-jack dump: no last showdown")


def terminal(tmp):
    for g in GAMES:
        text = subprocess.run([ARENA, "replay", "show", g + ".rpl"], check=True,
                              capture_output=True, text=True, env=dict(os.environ, NO_COLOR="1")).stdout
        text_labels(g, text)
        if g == "bruise-jack":
            text_bruise(text)
        if g == "dealer":
            check(re.search(r"^  seat \d hand \d bust   (2[2-9]|3\d): ", text, re.M),
                  "dealer dump: no bust hand with its total")
            check(re.search(r"^  blind reveal: .*: bust 2\d", text, re.M), "dealer dump: no bust reveal")
            check(re.search(r"^  deal 1 outcome: .*won by seat", text, re.M),
                  "dealer dump: no last deal's outcome")


# ---- The page ------------------------------------------------------------------------

# Every frame of the omniscient and the public views, stepped with the
# page's own button: the action line, describe() and the table's rows,
# with their tags, cards and the parts drawn (slots, reveals, plays...).
COLLECT = r"""(function () {
  var $ = function (id) { return document.getElementById(id); }, out = [];
  function each(e, sel, fn) { return Array.prototype.map.call(e.querySelectorAll(sel), fn); }
  function tags(e) { return each(e, ".tag", function (t) { return t.textContent; }); }
  function cards(e) {
    return each(e, ".card", function (c) {
      return { cls: c.className, text: c.textContent, data: Object.assign({}, c.dataset), title: c.title || "" };
    });
  }
  function rows() {
    return each($("table"), ".row", function (r) {
      var body = r.querySelector(".body");
      return { cls: r.className, who: r.querySelector(".who").textContent, text: body.textContent,
        tags: tags(body), cards: cards(body), swatches: body.querySelectorAll(".swatch").length,
        bold: each(body, "b", function (b) { return b.textContent; }),
        parts: each(body, ".slot, .reveal, .showdown, .play, .ev", function (p) {
          return { cls: p.className, data: Object.assign({}, p.dataset), text: p.textContent, cards: cards(p),
            tags: tags(p), bold: each(p, "b", function (b) { return b.textContent; }),
            plays: each(p, ".play", function (q) { return q.dataset.play; }) };
        }) };
    });
  }
  var views = [-1].concat($("view").querySelector('option[value="-2"]') ? [-2] : []);
  views.forEach(function (v) {
    $("view").value = String(v); $("view").onchange.call($("view"));
    $("first").click();
    for (;;) {
      var st = window.jaReplay.state();
      out.push({ view: v, frame: st.frame, action: $("action").textContent, describe: $("describe").textContent,
        acts: each($("action"), "b", function (b) { return b.textContent; }), rows: rows() });
      $("next").click();
      if (window.jaReplay.state().frame === st.frame) break;
    }
  });
  return JSON.stringify(out);
})()"""

BJ_COLOUR = ["black", "red", "yellow", "green", "blue"]
BR = ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2", "XB", "XR"]


def rows_named(e, who):
    return [r for r in e["rows"] if r["who"] == who]


def bruise_page(frames, d):
    saw_showdown = False
    for e in frames:
        where = "bruise-jack view %d frame %d" % (e["view"], e["frame"])
        text = " ".join(r["who"] + " " + r["text"] for r in e["rows"])
        check(not re.search(r"c\dn\ds\d", text), "%s: a card written as a code" % where)
        legend = [r for r in e["rows"] if "legend" in r["cls"]]
        check(len(legend) == 1 and legend[0]["swatches"] == 5 and
              all(w in legend[0]["text"] for w in BJ_COLOUR + ["blob", "circle", "heart", "triangle", "square"]),
              "%s: the key %r" % (where, legend))
        ids = []
        for r in e["rows"]:
            if "sub" not in r["cls"]:
                continue
            for c in r["cards"]:
                col, num, suit = (int(c["data"].get(k, -1)) for k in ("colour", "number", "suit"))
                cid = 25 * col + 5 * num + suit
                ok = min(col, num, suit) >= 0 and "bj-" + BJ_COLOUR[col] in c["cls"].split()
                check(ok and c["text"] == check_pages.card_text("bruise-jack", cid),
                      "%s: the card %r" % (where, c))
                ids.append(cid)
        if e["view"] != -2:
            continue
        o = d["frames"][e["frame"]]["pub"]
        at = (lambda a, i: a[i] if i < len(a) else 0)
        want = [at(o["up"], k * 11 + i) for s in range(d["seats"]) if o["active"] >> s & 1
                for k in range(3 * s, 3 * s + 3) for i in range(at(o["up_count"], k))]
        check(ids == want, "%s: the rows' cards %r, the observation's %r" % (where, ids, want))
        sd = rows_named(e, "last showdown")
        if o["showdowns"]:
            saw_showdown = True
            got = [(int(p["data"]["seat"]), p["cards"][0]["text"] if p["cards"] else None)
                   for p in (sd[0]["parts"] if sd else []) if "showdown" in p["cls"]]
            want = [(s, None if at(o["last_centre"], s) == 255 else check_pages.card_text("bruise-jack", at(o["last_centre"], s)))
                    for s in range(d["seats"])
                    if at(o["last_centre"], s) != 255 or any(at(o["last_row"], 3 * s + r) for r in range(3))]
            check(got == want, "%s: the last showdown's centres %r, want %r" % (where, got, want))
    check(saw_showdown, "bruise-jack: no frame with the last showdown")


def jitb_page(frames, d):
    covered = 0
    for e in frames:
        if e["view"] != -2:
            continue
        where = "jack-in-the-box public view frame %d" % e["frame"]
        o = d["frames"][e["frame"]]["pub"]
        at = (lambda a, i: a[i] if i < len(a) else 0)
        slots = [p for r in e["rows"] for p in r["parts"] if "slot" in p["cls"].split()]
        want = [k for k in range(2 * o["n_boxes"]) if at(o["slot_color"], k)]
        check([int(p["data"]["slot"]) for p in slots] == want,
              "%s: slots %r, want %r" % (where, [p["data"] for p in slots], want))
        for p in slots:
            k = int(p["data"]["slot"])
            jack, red = at(o["slot_jack"], k), at(o["slot_color"], k) == 1
            if jack == 255:
                ok = "open" in p["cls"] and p["cards"][0]["text"] == ("XR" if red else "XB") and p["tags"] == ["open"]
            else:
                covered += 1
                name = d["players"][at(o["slot_seat"], k)]["name"]
                ok = ("covered" in p["cls"] and p["cards"][0]["text"] == check_pages.card_text("jack-in-the-box", jack)
                      and p["tags"] == ["by " + name])
            check(ok, "%s: slot %d drawn %r" % (where, k, p))
        boxes = [r["who"] for r in e["rows"] if r["who"].startswith("box ")]
        check(len(boxes) == o["n_boxes"], "%s: boxes %r" % (where, boxes))
    check(covered, "jack-in-the-box: no covered joker slot drawn")


def hard_total(texts):
    t = 0
    for x in texts:
        t += 21 if x in ("XB", "XR") else 1 if x[0] == "A" else 10 if x[0] in "TJQK" else int(x[:-1])
    return t


def brawl_page(frames, d, name):
    saw = {"bust": 0, "reveal bust": 0, "outcome": 0, "last deal": 0}
    HS = ["-", "live", "stayed", "bust"]
    for e in frames:
        if e["view"] != -2:
            continue
        where = "%s public view frame %d" % (name, e["frame"])
        o = d["frames"][e["frame"]]["pub"]
        at = (lambda a, i: a[i] if i < len(a) else 0)
        hands = [r for r in e["rows"] if re.match(r"(seat \d+|dealer) hand \d+", r["who"])]
        check(len(hands) == o["n_hands"], "%s: %d hands drawn, %d on the table" % (where, len(hands), o["n_hands"]))
        for i, r in enumerate(hands[:o["n_hands"]]):
            own, k, st = at(o["hand_owner"], i), at(o["hand_index"], i), at(o["hand_state"], i)
            texts = [check_pages.card_text("brawljack", at(o["hand_card"], 12 * i + c)) for c in range(at(o["hand_len"], i))]
            head = ("dealer" if own == 8 else "seat %d" % own) + " hand %d" % k
            value = "bust %d" % hard_total(texts) if st == 3 else "%s %d" % (HS[st], at(o["hand_value"], i))
            check(re.match(re.escape(head) + r"( |$)", r["who"]) and [c["text"] for c in r["cards"]] == texts and r["tags"][0] == value,
                  "%s: hand %d drawn %r %r %r, want %s %r %s" % (where, i, r["who"], r["cards"], r["tags"], head, texts, value))
            if st == 3:
                saw["bust"] += 1
                check(hard_total(texts) > 21, "%s: a bust hand worth %d" % (where, hard_total(texts)))
        reveals = [p for r in e["rows"] for p in r["parts"] if "reveal" in p["cls"].split()]
        want = [s for s in range(d["seats"]) if at(o["shown_count"], s)]
        check([int(p["data"]["seat"]) for p in reveals] == want, "%s: reveals %r, want seats %r" % (where, reveals, want))
        for p in reveals:
            s = int(p["data"]["seat"])
            texts = [check_pages.card_text("brawljack", at(o["shown_card"], 11 * s + c)) for c in range(at(o["shown_count"], s))]
            v = at(o["shown_value"], s)
            value = str(v) if v else "bust %d" % hard_total(texts)
            saw["reveal bust"] += not v
            check([c["text"] for c in p["cards"]] == texts and p["tags"] == [value],
                  "%s: seat %d's reveal %r, want %r %s" % (where, s, p, texts, value))
        saw["outcome"] += any(r["who"] == "outcome" and "won by" in r["text"] for r in e["rows"])
        saw["last deal"] += any(re.fullmatch(r"deal \d+ outcome", r["who"]) for r in e["rows"])
    if name == "dealer":
        for k, n in saw.items():
            check(n, "%s: no frame shows %s" % (name, k))
    else:
        check(saw["outcome"], "%s: no outcome" % name)


def play_ranks(label):
    """The ranks a play of that name is made of."""
    m = re.fullmatch(r"(single|pair|complete|bomb|big bomb) (\S+)", label)
    if m:
        return [m.group(2)] * {"single": 1, "pair": 2, "complete": 2, "bomb": 3, "big bomb": 4}[m.group(1)]
    m = re.fullmatch(r"(run|double run) (\S+)-(\S+)", label)
    if m and m.group(2) in BR and m.group(3) in BR:
        a, b = BR.index(m.group(2)), BR.index(m.group(3))
        return [BR[r] for r in range(a, b + 1) for _ in range(1 if m.group(1) == "run" else 2)]
    return ["XB", "XR"] if label == "super bomb" else None


def bombs_page(frames, d):
    tricks = 0
    for e in frames:
        where = "bombs view %d frame %d" % (e["view"], e["frame"])
        allcards = [c["text"] for r in e["rows"] for c in r["cards"]]
        check(not any(re.fullmatch(r"T.?", c) for c in allcards), "%s: a ten written T: %r" % (where, allcards))
        for r in e["rows"]:
            for p in r["parts"]:
                if "play" in p["cls"].split():
                    got = [c["text"] for c in p["cards"]]
                    check(play_ranks(p["data"]["play"]) == got and all("rank" in c["cls"] for c in p["cards"]),
                          "%s: the play %r drawn %r" % (where, p["data"]["play"], got))
            evs = [p for p in r["parts"] if "ev" in p["cls"].split() and p["bold"]]
            for p in evs:
                check(p["plays"] == p["bold"][:1], "%s: the trick's play %r drawn as %r" % (where, p["bold"], p["plays"]))
            tricks += len(evs) >= 2
        if e["view"] != -2:
            continue
        o = d["frames"][e["frame"]]["pub"]
        top = rows_named(e, "top")
        check(len(top) == 1, "%s: no top row" % where)
        if not top:
            continue
        if o["top_form"]:
            f, r, n = o["top_form"], o["top_rank"], o["top_len"]
            name = ["", "single %s", "pair %s", "run %s-%s", "double run %s-%s", "bomb %s", "big bomb %s", "super bomb"][f]
            name = name % ((BR[r], BR[r + n - 1]) if f in (3, 4) else (BR[r],) if f < 7 else ())
            check([p["data"]["play"] for p in top[0]["parts"]] == [name] and top[0]["tags"][0].startswith(name),
                  "%s: the top play drawn %r %r, want %s" % (where, top[0]["parts"], top[0]["tags"], name))
        else:
            check(top[0]["tags"] == ["no play"], "%s: the top row %r" % (where, top[0]["tags"]))
    check(tricks, "bombs: no trick of two plays drawn")


def page_labels(game, frames):
    """In the omniscient view, the table numbers what the action label and
    describe() number."""
    omni = [e for e in frames if e["view"] == -1]
    seen = 0
    for i, e in enumerate(omni):
        where = "%s page frame %d" % (game, e["frame"])
        desc, act = e["describe"], e["action"]
        tags = " ".join(t for r in e["rows"] for t in r["tags"])
        if game == "taylor-blackjack":
            m, t = re.search(r"turn (\d+):", desc), re.search(r"game \d+/\d+, turn (\d+)", tags)
            check(bool(m) == bool(t) and (not m or m.group(1) == t.group(1)), "%s: describe() %r, tags %r" % (where, desc, tags))
            seen += bool(m)
        elif game == "jack-in-the-box" and not desc.startswith("match over"):
            want = re.findall(r"; box (\d+) ", desc)
            got = [re.match(r"box (\d+)", r["who"]).group(1) for r in e["rows"] if r["who"].startswith("box ")]
            check(want == got, "%s: boxes %r in describe(), %r in the table" % (where, want, got))
            m = re.search(r"target (box \d+ pos \d+)", act)
            if m:
                seen += 1
                tgt = [c["title"] for r in e["rows"] for c in r["cards"] if "target" in c["cls"].split()]
                check(tgt == [m.group(1)], "%s: %r, the table's target %r" % (where, act, tgt))
        elif game in ("brawljack", "dealer"):
            m, t = re.match(r"deal (\d+/\d+)", desc), re.search(r"deal (\d+/\d+)", tags)
            check(not m or (t and m.group(1) == t.group(1)), "%s: describe() %r, tags %r" % (where, desc, tags))
            for h in re.findall(r": (?:hit|stay) ((?:seat \d+|dealer) hand \d+)", act):
                seen += 1
                check(any(re.match(re.escape(h) + r"( |$)", r["who"]) for r in omni[i - 1]["rows"]),
                      "%s: %r names no hand of the table before it" % (where, act))
        elif game == "bombs":
            m = re.search(r"(?:to follow|window after) (.*) of seat", desc)
            top = rows_named(e, "top")
            if m:
                seen += 1
                check(top and top[0]["tags"][0].startswith(m.group(1) + " by "),
                      "%s: describe() names %r, the top row %r" % (where, m.group(1), top and top[0]["tags"]))
            m, t = re.match(r"hand (\d+/\d+)", desc), re.search(r"hand (\d+/\d+)", tags)
            check(not m or (t and m.group(1) == t.group(1)), "%s: describe() %r, tags %r" % (where, desc, tags))
            plays = [p for p in e["acts"] if play_ranks(p)]
            trick = [r for r in e["rows"] if r["who"] in ("this trick", "last trick")]
            if plays and trick and trick[0]["who"] == "this trick":
                check(trick[0]["bold"] and trick[0]["bold"][-1] in plays,
                      "%s: %r, the trick's last play %r" % (where, act, trick[0]["bold"][-1:]))
        elif game == "bruise-jack":
            m, t = re.match(r"hand (\d+/\d+)", desc), re.search(r"hand (\d+/\d+)", tags)
            check(not m or (t and m.group(1) == t.group(1)), "%s: describe() %r, tags %r" % (where, desc, tags))
            seen += bool(m)
    check(seen, "%s page: nothing was compared" % game)


def browser(exe, tmp):
    profile = os.path.join(tmp, "profile")
    os.mkdir(profile)
    b = Chrome(exe, profile)
    try:
        for g in GAMES:
            page = os.path.join(tmp, g + ".html")
            subprocess.run([ARENA, "replay", "html", g + ".rpl", "-o", page], check=True)
            b.navigate("about:blank")
            b.navigate("file://" + page)
            frames = None
            for _ in range(600):
                if b.eval("!!(window.jaReplay && document.getElementById('table').innerHTML)"):
                    frames = json.loads(b.eval(COLLECT))
                    break
                subprocess.run(["sleep", "0.05"])
            check(frames, "%s: the page did not start" % g)
            if not frames:
                continue
            check(b.eval("document.getElementById('errlog').textContent") == "", "%s: script errors" % g)
            d = page_model.read(page)[2]
            page_labels(g, frames)
            {"bruise-jack": bruise_page, "jack-in-the-box": jitb_page, "bombs": bombs_page}.get(
                g, lambda f, d: None)(frames, d)
            if g in ("brawljack", "dealer"):
                brawl_page(frames, d, g)
        errs = b.errors()
        check(not errs, "no script error or exception: %r" % errs)
    finally:
        b.close()


def main():
    tmp = tempfile.mkdtemp(prefix="viewer-tables-")
    os.chdir(tmp)
    r = subprocess.run(["bash", "-c", '. "$1/matches.sh" && play_all "$2" && play_dealer "$2"', "-", SRC, ARENA])
    if r.returncode != 0:
        print("FAIL: could not play the test matches")
        return 1
    terminal(tmp)
    exe = shutil.which("chromium")
    if not exe:
        print("viewer_tables: %d passed, %d failed; SKIP the page: chromium is not installed" % (passed, len(fails)))
        return 1 if fails else 77
    browser(exe, tmp)
    print("viewer_tables: %d passed, %d failed" % (passed, len(fails)))
    if not fails:
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
