/* Jack Arena replay viewer: plays back the model embedded in the page
 * (docs/viewer.md). No network; the page holds its match, and this script
 * and its style are inline or beside it. Script errors are written into
 * #errlog so that tests (and people) see them. */
"use strict";
/* The renderers, shared by the replay page and the server's live pages
 * (arena/serve/pages/live_match.js loads this script for them):
 * jaViewer.kit(D) gives the pictures of observations of D's game, where D
 * holds the match's game, seats, players ([{name}]), fields (the field
 * table), labels and score_unit, as the replay's model does. */
var jaViewer = (function () {
  function kit(D) {
    function esc(s) { return String(s).replace(/[&<>"]/g, function (c) { return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]; }); }
    function at(a, i) { return (a && i < a.length) ? a[i] : 0; }   /* trimmed arrays: missing = 0 */
    /* The running score: the outcome at the last frame, else the "score"
     * field, in units of 1/score_unit when its doc says so, else points. */
    var scoreInUnits = D.fields.some(function (f) { return f.name === "score" && /27720/.test(f.doc); });
    function pts(units) { var v = units / D.score_unit; return Math.round(v * 1000) / 1000; }
    function name(s) { return esc(D.players[s] ? D.players[s].name : "seat " + s); }

    /* Standard cards (ja_cards.h ids): rank + suit symbol; jokers XB/XR.
     * The ten is "10" in Bombs, as its labels and describe() write it, and
     * "T" in the other games, as theirs do. cls: more classes of the card;
     * title: its tooltip (plain text). */
    var RANKS = "A23456789TJQK".split(""), SUITS = ["\u2663", "\u2666", "\u2665", "\u2660"];
    if (D.game === "bombs") RANKS[9] = "10";
    function span(cls, html, attrs) { return '<span class="' + cls + '"' + (attrs || "") + ">" + html + "</span>"; }
    function tip(title) { return title ? ' title="' + esc(title) + '"' : ""; }
    function card(id, cls, title) {
      var more = cls ? " " + cls : "";
      if (id === 255 || id === undefined) return span("card none" + more, "--", tip(title));
      var c = id % 54;
      if (c >= 52) return span("card" + (c === 53 ? " red" : "") + more, c === 52 ? "XB" : "XR", tip(title));
      var s = Math.floor(c / 13);
      return span("card" + (s === 1 || s === 2 ? " red" : "") + more, RANKS[c % 13] + SUITS[s], tip(title));
    }
    function cards(ids) { return ids.map(function (id) { return card(id); }).join(" "); }
    function counts(a, n) {
      var out = [];
      for (var id = 0; id < n; id++) for (var k = 0; k < at(a, id); k++) out.push(card(id));
      return out.length ? out.join(" ") : '<span class="tag">no cards</span>';
    }
    function row(head, body, cls) {
      return '<div class="row' + (cls ? " " + cls : "") + '"><span class="who">' + head + '</span> <span class="body">' + body + "</span></div>";
    }
    function tag(t) { return ' <span class="tag">' + esc(t) + "</span>"; }
    function ncards(n) { return tag(n + (n === 1 ? " card" : " cards")); }
    /* A seat's name as plain text (tag() escapes it). */
    function who(s) { return D.players[s] ? D.players[s].name : "seat " + s; }
    /* The names of the seats of a mask, or of an array's non-zero entries. */
    function names(mask, a) {
      var out = [];
      for (var s = 0; s < D.seats; s++) if (a ? at(a, s) : (mask >> s) & 1) out.push(who(s));
      return out.join(", ");
    }
    /* Cards of a per-identity count array known to be in a hand, if any. */
    function known(a, from, n) {
      var out = [];
      for (var id = 0; id < n; id++) for (var k = 0; k < at(a, from + id); k++) out.push(card(id));
      return out.length ? tag("known") + " " + out.join(" ") : "";
    }
    /* The number of events an observation's ring holds (ev_seq 0: empty). */
    function events(o, cap) {
      var n = 0;
      while (n < cap && at(o.ev_seq, n) !== 0) n++;
      return n;
    }

    /* Per-game renderers: table(o) is the public picture from one observation;
     * hand(o) the cards private to the observing seat; other(o, s) what o
     * shows about another seat s (optional); deciding(o) who decides now as o
     * tells it (optional: else the to_act field). Numbers are written as
     * the game's label() and describe() write them: a turn, a hand, a deal
     * from 1; Jack in the Box's boxes and positions, BrawlJack's hands of
     * an owner from 0. */
    var R = {};
    var PENALTY = ["", "2 (twos)", "7 (black jacks)"];
    R["taylor-blackjack"] = {
      table: function (o) {
        /* turn counts the turns completed: the one being played is turn + 1,
         * as describe() has it; none once the match is over. */
        return row("pile", card(o.top) + tag("suit " + (o.active_suit < 4 ? SUITS[o.active_suit] : "-")) +
          tag("stock " + o.stock_count) + tag("pile " + o.pile_count) +
          tag("game " + (o.game + 1) + "/" + o.games + (o.stage === 6 ? "" : ", turn " + (o.turn + 1))) +
          (o.direction < 0 ? tag("counter-clockwise") : "") +
          (o.penalty_kind ? tag("penalty " + o.penalty_k + " x " + (PENALTY[o.penalty_kind] || "?")) : ""));
      },
      hand: function (o) { return ncards(at(o.hand_count, o.seat)) + " " + counts(o.hand, 52); },
      other: function (o, s) { return ncards(at(o.hand_count, s)) + known(o.known, s * 52, 52); }
    };
    /* A joker slot of Jack in the Box (slot k: box k >> 1): open, its
     * joker shown; covered, the Jack on it and who put it there. */
    function jitbSlot(o, k) {
      var col = at(o.slot_color, k), jack = at(o.slot_jack, k), what = (col === 1 ? "red" : "black") + " joker slot";
      if (col !== 1 && col !== 2) return "";
      if (jack === 255) return span("slot open", card(col === 1 ? 53 : 52, "joker", what + ": open") + tag("open"), ' data-slot="' + k + '"');
      return span("slot covered", card(jack, "jack", what + ": covered") + tag("by " + who(at(o.slot_seat, k))), ' data-slot="' + k + '"');
    }
    R["jack-in-the-box"] = {
      table: function (o) {
        var h = row("game", tag("game " + (o.game + 1) + "/" + o.games + (o.stage === 6 ? "" : ", turn " + o.turn + (o.extra_turn ? " (extra)" : ""))) +
          tag("stock " + o.stock_count) + tag("discard " + o.discard_count) + (o.lock_seat !== 255 ? tag("lock: " + who(o.lock_seat)) : ""));
        for (var b = 0; b < o.n_boxes; b++) {
          var cs = [], js = [];
          for (var q = 0; q < 4; q++)
            cs.push(card(at(o.active, b * 4 + q), o.target === b * 4 + q ? "target" : "", "box " + b + " pos " + q));
          for (var k = 2 * b; k < 2 * b + 2; k++) js.push(jitbSlot(o, k));
          h += row("box " + b + (at(o.box_open, b) ? "" : " (closed)"), cs.join(" ") + ' <span class="jokers">jokers ' + js.join(" ") + "</span>");
        }
        var ms = [];
        for (var i = 0; i < o.n_marked && i < 5; i++) ms.push(card(at(o.marked, i)));
        return h + (ms.length ? row("marked", ms.join(" ") + tag("for exchange")) : "");
      },
      hand: function (o) { return ncards(at(o.hand_count, o.seat)) + " " + counts(o.hand, 52); },
      other: function (o, s) { return ncards(at(o.hand_count, s)) + known(o.known, s * 52, 52); }
    };
    /* Bombs names ranks (its public record has no suits: docs/rules/bombs.md,
     * §13.4), low to high. */
    var BR = ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2", "XB", "XR"];
    /* A play code taken apart as ja_bombs_play_decode does: form (1 single,
     * 2 pair, 3 run, 4 double run, 5 bomb, 6 big bomb, 7 super bomb), its
     * lowest rank, the length of a run, a completion; null if no play. */
    function bombsPlay(c) {
      var p = null, k;
      if (c >= 100 && c <= 114) p = { form: 1, rank: c - 100 };
      else if (c >= 200 && c <= 212) p = { form: 2, rank: c - 200 };
      else if ((c >= 300 && c < 460) || (c >= 500 && c < 660)) {
        k = c - (c < 500 ? 300 : 500);
        p = { form: c < 500 ? 3 : 4, rank: k % 16, len: 3 + Math.floor(k / 16) };
        if (p.rank + p.len - 1 > 11) return null;
      } else if (c >= 700 && c <= 712) p = { form: 5, rank: c - 700, complete: true };
      else if (c >= 800 && c <= 812) p = { form: 5, rank: c - 800 };
      else if (c >= 900 && c <= 912) p = { form: 6, rank: c - 900 };
      else if (c === 1000) p = { form: 7, rank: 13 };
      return p;
    }
    function rankName(r) { return BR[r] || "?"; }
    /* A play's name as the engine's label() and describe() write it. */
    function bombsName(p) {
      var r = rankName(p.rank), to = rankName(p.rank + (p.len || 1) - 1);
      return ["none", "single " + r, "pair " + r, "run " + r + "-" + to, "double run " + r + "-" + to,
        (p.complete ? "complete " : "bomb ") + r, "big bomb " + r, "super bomb"][p.form] || "?";
    }
    function rankCard(r) { return span("card rank" + (r === 14 ? " red" : ""), esc(rankName(r)), ' data-rank="' + r + '"'); }
    /* A play's cards, by rank: a completion shows the pair it adds. */
    function bombsCards(p) {
      var per = [0, 1, 2, 1, 2, p.complete ? 2 : 3, 4][p.form] || 1, out = [];
      if (p.form === 7) out = [rankCard(13), rankCard(14)];
      else for (var i = 0; i < (p.len || 1); i++) for (var k = 0; k < per; k++) out.push(rankCard(p.rank + i));
      return span("play", out.join(" "), ' data-play="' + esc(bombsName(p)) + '"');
    }
    /* Bombs' public events (ev_kind: JA_BOMBS_EV_*): plays with their cards. */
    function bombsEvent(kind, seat, arg) {
      var w = name(seat), r = esc(rankName(arg)), p;
      switch (kind) {
        case 0: return w + " deals";
        case 1: return w + " revolts";
        case 2: return w + " offers a " + r + " " + rankCard(arg);
        case 3: return w + " accepts the " + r;
        case 4: return w + " refuses the " + r;
        case 5: return w + " requests a " + r + ", not held";
        case 6: return w + " requests a " + r + ", handed over";
        case 7: return w + " returns a " + r + " " + rankCard(arg);
        case 8: case 9:
          p = bombsPlay(arg);
          return w + " <b>" + esc(D.labels[arg] || (p ? bombsName(p) : "play " + arg)) + "</b>" +
            (kind === 9 ? " out of turn" : "") + (p ? " " + bombsCards(p) : "");
        case 10: return w + " passes";
        case 11: return w + " wins the trick";
        case 12: return w + " is out, place " + arg;
        case 13: return w + " is last, place " + arg;
        case 14: return "hand " + (arg + 1) + " ends";
        case 15: return w + " moves to table " + (arg + 1);
      }
      return w + ": event " + kind;
    }
    function boundary(k) { return k === 0 || k === 11 || k === 14; }   /* deal, trick, end of hand */
    /* The current trick from the public events, as the text viewer shows it
     * (arena/view/viewer_text.c, bombs_trick). */
    function bombsTrick(o) {
      var n = events(o, 48), b = n - 1, title = "this trick";
      while (b >= 0 && !boundary(at(o.ev_kind, b))) b--;
      if (b >= 0 && b === n - 1 && at(o.ev_kind, b) === 11) {
        title = "last trick";
        do b--; while (b >= 0 && !boundary(at(o.ev_kind, b)));
      }
      var from = b + 1, i;
      if (b >= 0 && at(o.ev_kind, b) === 0)
        for (i = from; i < n; i++) if (at(o.ev_kind, i) === 8 || at(o.ev_kind, i) === 9) { from = i; break; }
      if (from >= n) return "";
      var k0 = at(o.ev_kind, from);
      if (b >= 0 && at(o.ev_kind, b) === 0 && k0 !== 8 && k0 !== 9) title = "exchange";
      var ev = [];
      if (b < 0 && o.event_seq > 48) ev.push(span("ev", "..."));
      for (i = from; i < n; i++) ev.push(span("ev", bombsEvent(at(o.ev_kind, i), at(o.ev_seat, i), at(o.ev_arg, i))));
      return row(title, '<span class="trick">' + ev.join(" ") + "</span>");
    }
    var STAGE_WHAT = ["", "revolt or not", "accept the offered card or not", "request a rank or not", "return a card",
      "lead", "lead", "beat the top play or pass"];
    R["bombs"] = {
      table: function (o) {
        var top = o.top_form ? { form: o.top_form, rank: o.top_rank, len: o.top_len } : null;
        var h = row("hand", tag(o.tiebreak ? "tiebreak hand " + o.tiebreak : "hand " + (o.hand_no + 1) + "/" + o.hands) +
          tag("table " + (o.table === 255 ? "-" : o.table + 1) + "/" + o.n_tables));
        h += row("top", top ? bombsCards(top) + tag(bombsName(top) + (o.top_owner !== 255 ? " by " + who(o.top_owner) : "")) +
          tag(o.passes + (o.passes === 1 ? " pass" : " passes")) : tag("no play"));
        return h + bombsTrick(o);
      },
      hand: function (o) { return ncards(at(o.count, o.seat)) + " " + counts(o.hand, 54) + (at(o.place, o.seat) ? tag("finished " + at(o.place, o.seat)) : ""); },
      /* Cards held and known ranks: only for the seats at the observer's table. */
      other: function (o, s) {
        var t = at(o.seat_table, s);
        if (t === 255) return tag("sits out this hand");
        if (o.table === 255 || t !== o.table) return tag("at table " + (t + 1));
        var ks = [];
        for (var r = 0; r < 15; r++) for (var k = 0; k < at(o.known, s * 15 + r); k++) ks.push(rankCard(r));
        return ncards(at(o.count, s)) + (ks.length ? tag("known") + " " + ks.join(" ") : "") +
          (at(o.place, s) ? tag("finished " + at(o.place, s)) : "");
      },
      deciding: function (o) {
        if (o.stage === 9) return "nobody: the match is over";
        if (o.stage === 0) return "a seat at another table";
        if (o.stage === 8) {
          var w = [];
          for (var s = 0; s < D.seats; s++)
            if (at(o.seat_table, s) === o.table && at(o.count, s) && s !== o.turn_seat) w.push(name(s));
          return "interrupt window for " + w.join(", ") + "; then " + name(o.turn_seat) + " in turn";
        }
        return name(o.actor) + (STAGE_WHAT[o.stage] ? ": " + STAGE_WHAT[o.stage] : "");
      }
    };
    /* BrawlJack. A bust hand's value is 0 in the observation: its total is
     * the sum of its cards with the aces as 1 (a joker 21). */
    var HS = ["-", "live", "stayed", "bust"];
    function hardTotal(ids) {
      return ids.reduce(function (t, id) { var c = id % 54, r = c % 13; return t + (c >= 52 ? 21 : r >= 9 ? 10 : r + 1); }, 0);
    }
    /* A hand as the labels name it ("hit seat 2 hand 1", "hit dealer hand 0"). */
    function brawlHand(own, k) {
      return (own === 8 ? "dealer" : "seat " + own) + " hand " + k + (own === 8 ? "" : " <small>" + name(own) + "</small>");
    }
    /* What decided a deal, from its public events from..to-1 (the result,
     * the dealer, each blind round's reveals, the winner), as text. */
    function brawlOutcome(o, from, to) {
      var out = [], share = [];
      for (var i = from; i < to; i++) {
        var s = at(o.ev_seat, i), v = at(o.ev_value, i);
        switch (at(o.ev_kind, i)) {
          case 7: out.push(v === 255 ? "every hand bust" : "highest hand " + v); break;
          case 8: out.push("most twenty-ones " + v); break;
          case 9: out.push("dealer's target " + v); break;
          case 10: out.push("the dealer reaches it: the deal is cancelled"); break;
          case 11: out.push("the dealer fails"); break;
          case 12: out.push("blind round " + v); break;
          case 15: out.push(who(s) + " shows " + (v ? v : "bust")); break;
          case 16: out.push("won by " + who(s)); break;
          case 17: share.push(who(s)); break;
        }
      }
      if (share.length) out.push("shared by " + share.join(", "));
      return out.join("; ");
    }
    /* The deal's result, the dealer's phase, the blind tiebreak: its
     * players, the last reveal (cards and values) and what decided. */
    function brawlResult(o) {
      var h = "", s, res = [], bl = [], rv = [];
      if (o.mode) {
        for (s = 0; s < D.seats; s++) res.push(who(s) + " " + (at(o.result, s) < 0 ? "no score" : at(o.result, s)));
        h += row("result", tag(o.mode === 2 ? "twenty-ones" : "highest hand") + " " + esc(res.join(", ")) +
          tag("leaders: " + names(0, o.leader)) +
          (o.dealer && o.target !== 255 ? tag("dealer's target " + o.target + (o.controller === 255 ? ", played by the referee" : ", played by " + who(o.controller))) : ""));
      }
      for (s = 0; s < D.seats; s++)
        if (at(o.blind_player, s)) bl.push(who(s) + " " + at(o.blind_count, s) + " face down" + (at(o.blind_stayed, s) ? ", stayed" : ""));
      if (o.blind_round) h += row("blind", tag("blind round " + o.blind_round + "/" + o.blind_rounds) + " " + esc(bl.join("; ")));
      for (s = 0; s < D.seats; s++) {
        var ids = [], v = at(o.shown_value, s);
        for (var i = 0; i < at(o.shown_count, s); i++) ids.push(at(o.shown_card, s * 11 + i));
        if (ids.length) rv.push(span("reveal", name(s) + " " + cards(ids) + tag(v ? String(v) : "bust " + hardTotal(ids)), ' data-seat="' + s + '"'));
      }
      if (rv.length) h += row("blind reveal", rv.join(" "));
      /* Events since the deal began; before this deal's result, the last
       * deal's, while the ring holds it. */
      var n = events(o, 64), d = n - 1, p;
      while (d >= 0 && at(o.ev_kind, d) !== 0) d--;
      var now = brawlOutcome(o, d + 1, n);
      if (now) return h + row("outcome", esc(now));
      for (p = d - 1; p >= 0 && at(o.ev_kind, p) !== 0; p--);
      var last = d > 0 ? brawlOutcome(o, p + 1, d) : "";
      return h + (last ? row("deal " + o.deal + " outcome", esc(last)) : "");
    }
    R["brawljack"] = {
      table: function (o) {
        var h = row("deal", tag("deal " + (o.deal + 1) + "/" + o.hands + (o.turn ? ", turn " + o.turn : "")) + " upcard " + card(o.upcard) +
          tag("deck " + o.deck_count) + tag("first: " + who(o.first)));
        for (var i = 0; i < o.n_hands; i++) {
          var ids = [], st = at(o.hand_state, i), n21 = at(o.hand_21s, i);
          for (var c = 0; c < at(o.hand_len, i); c++) ids.push(at(o.hand_card, i * 12 + c));
          h += row(brawlHand(at(o.hand_owner, i), at(o.hand_index, i)), cards(ids) +
            tag(st === 3 ? "bust " + hardTotal(ids) : (HS[st] || "?") + " " + at(o.hand_value, i)) +
            (n21 ? tag(n21 === 2 ? "AK-47: two 21s" : "21") : ""), st === 3 ? "bust" : "");
        }
        return h + brawlResult(o);
      },
      hand: function (o) { return "drawn " + card(o.drawn) + (at(o.blind_count, o.seat) ? tag("blind hand: " + at(o.blind_count, o.seat) + " face down") : ""); },
      other: function (o, s) { return at(o.blind_count, s) ? tag("blind hand: " + at(o.blind_count, s) + " face down") : ""; }
    };
    /* Bruise Jack's own 125 cards (docs/rules/bruise-jack.md §1): id = 25
     * colour + 5 number + suit, each a level 0..4 (level 0 wild, worth 1
     * or 6; level l worth l + 1). Drawn with the colour as the card's fill
     * (and its initial, K for black), the number and the suit's shape. */
    var BJ_COLOUR = ["black", "red", "yellow", "green", "blue"], BJ_LETTER = "KRYGB",
      BJ_NUMBER = ["?", "1", "2", "3", "4"], BJ_SUIT = ["\u2731", "\u25CF", "\u2665", "\u25B2", "\u25A0"],
      BJ_SUIT_NAME = ["blob", "circle", "heart", "triangle", "square"], ROWS = ["colour", "number", "suit"];
    function bj(id) {
      if (id === 255 || id === undefined || id >= 125) return span("card none", "--");
      var c = Math.floor(id / 25), n = Math.floor(id / 5) % 5, s = id % 5;
      return span("card bj bj-" + BJ_COLOUR[c], "<small>" + BJ_LETTER[c] + "</small>" + BJ_NUMBER[n] + BJ_SUIT[s],
        tip(BJ_COLOUR[c] + " " + BJ_NUMBER[n] + " " + BJ_SUIT_NAME[s]) + ' data-colour="' + c + '" data-number="' + n + '" data-suit="' + s + '"');
    }
    /* The key to the cards: each attribute's five levels in order, and
     * what they are worth. */
    function bjLegend() {
      var cs = BJ_COLOUR.map(function (c, i) { return span("swatch bj-" + c, BJ_LETTER[i]) + " " + c; });
      var ss = BJ_SUIT.map(function (x, i) { return x + " " + BJ_SUIT_NAME[i]; });
      return row("key", "colour " + cs.join(" ") + " &middot; number " + BJ_NUMBER.join(" ") + " &middot; suit " + ss.join(" ") +
        " &middot; a card counts its row's attribute, the five levels worth 1 or 6 (wild), 2, 3, 4, 5", "legend");
    }
    /* A row's value at the showdown as docs/rules/bruise-jack.md §4 has it. */
    function bjRowValue(o, v) {
      if (v === 0) return "bust";
      if (o.way === 1 && v === 13) return "Bruise Jack";
      if (o.way === 1 && v === 12) return "Guile";
      return o.way === 2 && v === 16 ? "Bruise Jack" : String(v);
    }
    /* The last showdown: each seat's centre and row values, the order the
     * rows were compared in (Way 1), who led it. */
    function bjShowdown(o) {
      if (!o.showdowns) return "";
      var parts = [], ord = [];
      for (var s = 0; s < D.seats; s++) {
        var c = at(o.last_centre, s), vs = [];
        for (var r = 0; r < 3; r++) vs.push(ROWS[r] + " " + bjRowValue(o, at(o.last_row, s * 3 + r)));
        if (c !== 255 || at(o.last_row, s * 3) || at(o.last_row, s * 3 + 1) || at(o.last_row, s * 3 + 2))
          parts.push(span("showdown", name(s) + " " + (c !== 255 ? bj(c) : "") + tag(vs.join(", ")), ' data-seat="' + s + '"'));
      }
      for (var i = 0; i < 3; i++) if (at(o.last_order, i) < 3) ord.push(ROWS[at(o.last_order, i)]);
      var w = names(o.last_winners);
      return row("last showdown", parts.join(" ") + (ord.length ? tag("rows compared: " + ord.join(", ")) : "") +
        tag((o.last_winners & (o.last_winners - 1) ? "tied: " : "won by ") + w));
    }
    R["bruise-jack"] = {
      table: function (o) {
        var h = row("hand", tag("hand " + (o.hand + 1) + "/" + o.hands + (o.replay ? " (replay " + o.replay + ")" : "") + ", dealer " + who(o.dealer)) +
          tag("stock " + o.stock_count) + tag("discard " + o.discard_count));
        for (var s = 0; s < D.seats; s++) {
          if (!((o.active >> s) & 1)) continue;
          h += row(name(s), (at(o.has_centre, s) ? span("card back", "\u2592", tip("centre, face down")) + " centre" : tag("no centre")) +
            (at(o.stood, s) ? tag("stood") : ""));
          for (var r = 0; r < 3; r++) {
            var k = s * 3 + r, cs = [];
            for (var c = 0; c < at(o.up_count, k); c++) cs.push(bj(at(o.up, k * 11 + c)));
            h += row(ROWS[r], cs.join(" ") + tag("shows " + at(o.shown, k)) +
              (at(o.claimed, k) ? tag("claimed Bruise Jack") : at(o.open, k) ? "" : tag("closed")), "sub");
          }
        }
        return h + bjShowdown(o) + bjLegend();
      },
      hand: function (o) { return "centre " + bj(o.centre) + (o.drawn !== 255 ? " drawn " + bj(o.drawn) : ""); }
    };
    /* Fallback for a game without a renderer: the field table. */
    var GEN = {
      table: function (o) {
        var parts = [];
        D.fields.forEach(function (f) {
          var v = o[f.name];
          if (f.count === 1) parts.push(esc(f.name) + "=" + v);
          else if (v.length) parts.push(esc(f.name) + "=[" + v.join(",") + "]");
        });
        return '<div class="gen">' + parts.join(" ") + "</div>";
      },
      hand: function () { return ""; }
    };
    var G = R[D.game] || GEN;
    var hasToAct = D.fields.some(function (f) { return f.name === "to_act"; });
    /* Who decides now as observation o tells it. */
    function decidingIn(o) {
      if (G.deciding) return G.deciding(o);
      if (!hasToAct) return "";
      return o.to_act === 255 ? "nobody: the match is over" : name(o.to_act);
    }
    /* The table of one observation o: the public picture, who decides now,
     * and a row per seat: the hand of seat `mine` (o its own observation),
     * what o shows of the others (mine < 0: the public observation, no hand). */
    function picture(o, mine) {
      var h = G.table(o), d = decidingIn(o);
      if (d) h += row("to act", d);
      for (var s = 0; s < D.seats; s++) {
        if (s === mine) h += row(name(s), G.hand(o));
        else if (G.other) h += row(name(s), G.other(o, s));
      }
      return h;
    }
    /* A score of o in points (the "score" field in units of 1/score_unit
     * when its doc says so, else points). */
    function score(o, s) { var v = at(o.score, s); return scoreInUnits ? pts(v) : v; }
    return { G: G, esc: esc, at: at, pts: pts, name: name, row: row, tag: tag, card: card,
      decidingIn: decidingIn, picture: picture, score: score, scoreInUnits: scoreInUnits,
      bj: bj, bombsEvent: bombsEvent };   /* the last two for the move history (hist) */
  }
  /* Observation prev changed by d (a model's "delta": per changed field its
   * index, then a scalar's value or an array's [shift, i, v, ...]), as a
   * new object; arrays kept with trailing zeros trimmed. */
  function apply(fields, prev, d) {
    var o = Object.assign({}, prev);
    for (var j = 0; j < d.length; j += 2) {
      var f = fields[d[j]], ops = d[j + 1];
      if (typeof ops === "number") { o[f.name] = ops; continue; }
      var a = o[f.name].slice(ops[0]);
      for (var k = 1; k < ops.length; k += 2) {
        while (a.length < ops[k]) a.push(0);
        a[ops[k]] = ops[k + 1];
      }
      while (a.length && a[a.length - 1] === 0) a.pop();
      o[f.name] = a;
    }
    return o;
  }
  /* The all-zero observation of a field table. */
  function zero(fields) {
    var o = {};
    fields.forEach(function (f) { o[f.name] = f.count === 1 ? 0 : []; });
    return o;
  }
  /* The move history (docs/viewer.md, "The move history"), kept apart from
   * the renderers above: hist(D, K), K = kit(D), turns what a view may see
   * into the rows of its history, each {seat, html, cls}: a decision's
   * record (its label), or an event of an observation in the game's words.
   * The replay page and the live pages both use it. */
  function hist(D, K) {
    var esc = K.esc, at = K.at, name = K.name, card = K.card;
    var SUITS = ["\u2663", "\u2666", "\u2665", "\u2660"], ROWS = ["colour", "number", "suit"];
    function cards(n) { return n + (n === 1 ? " card" : " cards"); }
    function plus(v) { return v ? " (+" + v + ")" : ""; }
    function seatsIn(mask) {
      var w = [];
      for (var s = 0; s < D.seats; s++) if ((mask >> s) & 1) w.push(name(s));
      return w.join(", ");
    }
    /* Per game: event i of observation o (its ev_* arrays) as HTML. */
    var EV = {};
    EV["taylor-blackjack"] = function (o, i) {
      var w = name(at(o.ev_seat, i)), n = at(o.ev_count, i);
      switch (at(o.ev_kind, i)) {
        case 0: return w + " deals; the starter is " + card(at(o.ev_card, i));
        case 1: return w + " lays " + card(at(o.ev_card, i));
        case 2: return w + " draws " + cards(n);
        case 3: return w + " picks up " + cards(n);
        case 4: return w + " names " + (SUITS[at(o.ev_card, i)] || "?");
        case 5: return w + " finishes a ten run";
        case 6: return w + " says \u201clast card\u201d";
        case 7: return w + " did not say \u201clast card\u201d: draws " + cards(n);
        case 8: return "the pile becomes the stock: " + cards(n);
        case 9: return w + " wins the game";
        case 10: return "the turn cap ends the game";
      }
    };
    EV["brawljack"] = function (o, i) {
      var s = at(o.ev_seat, i), h = at(o.ev_hand, i), c = card(at(o.ev_card, i)), v = at(o.ev_value, i);
      function owner(x) { return x === 8 ? "the dealer" : name(x); }
      /* A hand of the list o has now: not for an event before a newer deal. */
      var old = h >= o.n_hands;
      for (var j = i + 1; j < o.ev_seq.length && o.ev_seq[j]; j++) if (at(o.ev_kind, j) === 0) old = true;
      function hand() { return old ? "a hand" : owner(at(o.hand_owner, h)) + "'s hand " + at(o.hand_index, h); }
      switch (at(o.ev_kind, i)) {
        case 0: return "a deal begins: " + name(s) + " first, the upcard " + c;
        case 1: return owner(s) + " puts " + c + " on " + hand() + (v ? " (" + v + ")" : "");
        case 2: return c + " starts a new hand of " + owner(s);
        case 3: return hand() + " goes bust on " + c;
        case 4: return owner(s) + " stays " + hand() + " at " + v;
        case 5: return name(s) + " has no live hand left";
        case 6: return "the stock is empty";
        case 7: return v === 255 ? "every hand is bust" : "the best hand is " + v;
        case 8: return "the most twenty-ones: " + v;
        case 9: return "the dealer's turn: " + (s === 255 ? "played by the rules" : name(s) + " plays the dealer") + ", target " + v;
        case 10: return "the dealer meets the target: the deal is cancelled";
        case 11: return "the dealer fails: the leaders' result stands";
        case 12: return "blind round " + v + " begins";
        case 13: return name(s) + " takes a face-down card (" + cards(v) + ")";
        case 14: return name(s) + " stays the blind hand";
        case 15: return name(s) + "'s blind hand shows " + (v || "bust");
        case 16: return name(s) + " wins the deal";
        case 17: return name(s) + " shares the deal with " + (v - 1) + (v === 2 ? " other" : " others");
      }
    };
    EV["bruise-jack"] = function (o, i) {
      var w = name(at(o.ev_seat, i)), a = at(o.ev_arg, i), c = at(o.ev_card, i), b = K.bj(c);
      switch (at(o.ev_kind, i)) {
        case 0: return w + " deals" + (a ? " (replay " + a + ")" : "");
        case 1: return w + " shows the centre " + b;
        case 2: return w + " claims the " + (ROWS[a] || "?") + " row, discarding " + b;
        case 3: return w + " gets a new centre, face down";
        case 4: return w + " takes a card" + (c !== 255 ? " " + b : "");
        case 5: return w + " puts " + b + " on the " + (ROWS[a] || "?") + " row";
        case 6: return w + " stands";
        case 7: return "the stock is empty";
        case 8: return "the showdown's order: " + [Math.floor(a / 9), Math.floor(a / 3) % 3, a % 3].map(function (r) { return ROWS[r]; }).join(", ");
        case 9: return w + " wins the hand" + (a > 1 ? ", sharing the point among " + a : "");
        case 10: return "a tie: " + seatsIn(a) + " replay the hand";
      }
    };
    function pos(p) { return "box " + Math.floor(p / 4) + " pos " + p % 4; }
    EV["jack-in-the-box"] = function (o, i) {
      var w = name(at(o.ev_seat, i)), c = card(at(o.ev_card, i)), c2 = at(o.ev_card2, i), p = at(o.ev_pos, i), v = at(o.ev_value, i);
      switch (at(o.ev_kind, i)) {
        case 0: return w + " deals";
        case 1: return c + " dealt to " + pos(p) + (v ? ": " + w + " +" + v : "");
        case 2: return c + " drawn for " + pos(p) + " and discarded" + (v ? ": " + w + " +" + v : "");
        case 3: return w + " matches " + pos(p) + " with " + c + (c2 !== 255 ? " " + card(c2) : "") + plus(v);
        case 4: return w + " opens the partner's hand";
        case 5: return w + " keeps the partner's hand closed";
        case 6: return w + " puts " + c + " on a joker of box " + p + ": Jack in the Box" + plus(v);
        case 7: return w + "'s singles against box " + p + " doubled" + plus(v);
        case 8: return w + " marks " + c;
        case 9: return w + " discards the " + cards(v) + " marked";
        case 10: return w + " draws " + cards(v);
        case 11: return w + " changes the box and holds the lock";
        case 12: return w + "'s lock ends";
        case 13: return w + " takes an extra turn";
        case 14: return "the game ends: " + (v === 0 ? "the boxes are closed" : "the stock is out");
      }
    };
    EV["bombs"] = function (o, i) { return K.bombsEvent(at(o.ev_kind, i), at(o.ev_seat, i), at(o.ev_arg, i)); };

    /* The events of observation o numbered after `after`, as rows, and the
     * newest number (`after` when none is newer); a row "..." first when
     * some between were not kept (an observation keeps the last few dozen). */
    function events(o, after) {
      var rows = [], last = after, ev = EV[D.game], q = o.ev_seq || [];
      for (var i = 0; ev && i < q.length && q[i]; i++) {
        if (q[i] <= after) continue;
        if (!rows.length && q[i] > after + 1) rows.push({ seat: -1, html: "\u2026", cls: "gap" });
        rows.push({ seat: at(o.ev_seat, i), html: ev(o, i) || "event " + at(o.ev_kind, i), cls: "" });
        last = q[i];
      }
      return { rows: rows, last: last };
    }
    /* An observation that shows no events (Bombs at several tables, in the
     * public view): the scores it publishes, when they change from prev's. */
    var hasScore = D.fields.some(function (f) { return f.name === "score"; });
    function scores(prev, o) {
      if (!prev || !hasScore || (o.ev_seq && o.ev_seq.length)) return [];
      var ch = [];
      for (var s = 0; s < D.seats; s++) {
        var d = Math.round((K.score(o, s) - K.score(prev, s)) * 1000) / 1000;
        if (d) ch.push(name(s) + " " + (d > 0 ? "+" : "") + d);
      }
      return ch.length ? [{ seat: -1, html: "scores: " + ch.join(", "), cls: "" }] : [];
    }
    /* A decision's record a ({seat, code, forced, fault, forfeits}) as a row:
     * its seat and the label of its action. */
    function decision(a) {
      return { seat: a.seat, cls: a.forced ? "forced" : "",
        html: name(a.seat) + ": <b>" + esc(D.labels[a.code] || "action " + a.code) + "</b>" +
          (a.forced ? ' <span class="tag">forced</span>' : "") +
          (a.fault && a.fault !== "none" ? ' <span class="fault">' + esc(a.fault) + "</span>" : "") +
          (a.forfeits ? ' <span class="fault forfeit">forfeits</span>' : "") };
    }
    /* What a view adds to its history at a frame it perceives: the records
     * of its own decisions there (acts: a seat's view only) that no new
     * event of that seat tells, then the new events of its observation o
     * (after: the newest event number it showed), then the scores when o
     * shows no events (prev: its observation before, or null). The rows and
     * the newest event number. */
    function step(prev, o, after, acts) {
      var ev = events(o, after), rows = [];
      acts.forEach(function (a) {
        if (!ev.rows.some(function (r) { return r.seat === a.seat; })) rows.push(decision(a));
      });
      return { rows: rows.concat(ev.rows, ev.rows.length ? [] : scores(prev, o)), last: ev.last };
    }
    return { events: events, decision: decision, step: step };
  }
  /* A history pane: the rows of one view in el (a list), each tied to its
   * frame, in frame order; show(f) shows the rows up to frame f (the plays
   * so far), marks the newest ("cur") and scrolls el, not the page, to
   * them; a click on a row calls pick(its frame). */
  function pane(el, pick) {
    var rows = [], at = [], shown = 0, mark = [];
    el.addEventListener("click", function (e) {
      var li = e.target.closest ? e.target.closest("li") : null;
      if (li && el.contains(li)) pick(+li.dataset.f);
    });
    function clear() { el.textContent = ""; rows = []; at = []; shown = 0; mark = []; }
    /* Rows of frame f (after every row added before); num: a number shown
     * before each (the omniscient view's decision), or undefined. */
    function add(f, list, num) {
      var frag = document.createDocumentFragment();
      list.forEach(function (r) {
        var li = document.createElement("li");
        li.dataset.f = String(f);
        if (r.cls) li.className = r.cls;
        li.innerHTML = (num === undefined ? "" : '<span class="n">' + num + "</span> ") + r.html;
        li.hidden = true;
        frag.appendChild(li);
        rows.push(li);
        at.push(f);
      });
      el.appendChild(frag);
    }
    function show(f) {
      var lo = 0, hi = at.length, i;   /* the rows of frames up to f: the first lo */
      while (lo < hi) { var m = (lo + hi) >> 1; if (at[m] <= f) lo = m + 1; else hi = m; }
      for (i = shown; i < lo; i++) rows[i].hidden = false;
      for (i = lo; i < shown; i++) rows[i].hidden = true;
      shown = lo;
      mark.forEach(function (li) { li.classList.remove("cur"); li.removeAttribute("aria-current"); });
      mark = [];
      for (i = lo - 1; i >= 0 && at[i] === at[lo - 1]; i--) {
        rows[i].classList.add("cur");
        rows[i].setAttribute("aria-current", "step");
        mark.unshift(rows[i]);
      }
      el.scrollTop = el.scrollHeight;
    }
    /* The rows marked, and how many are shown. */
    function current() { return { rows: mark.slice(), shown: shown }; }
    return { clear: clear, add: add, show: show, current: current };
  }
  return { kit: kit, apply: apply, zero: zero, hist: hist, pane: pane };
})();
window.jaViewer = jaViewer;
(function () {
  if (!document.getElementById("data")) return;   /* a live page: the renderers only */
  var errlog = document.getElementById("errlog");
  function logError(msg) { errlog.textContent += msg + "\n"; }
  window.addEventListener("error", function (e) { logError("error: " + e.message + " (line " + e.lineno + ")"); });

  /* The model: JSON, compressed with zlib and written in base64; the
   * browser's DecompressionStream inflates it. */
  function load() {
    if (typeof DecompressionStream === "undefined")
      return Promise.reject(new Error("this browser has no DecompressionStream to unpack the match"));
    var bin = atob(document.getElementById("data").textContent.trim()), bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    var text = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
    return new Response(text).text().then(JSON.parse);
  }
  /* Every frame's observations from the changes the model holds ("delta"):
   * per seat, the fields that changed since the frame before, as field
   * index then a scalar's value or an array's [shift, i, v, ...]. Arrays
   * are kept with trailing zeros trimmed; a field that did not change is
   * the previous frame's own value. */
  function rebuild(D) {
    var prev = [], pub = jaViewer.zero(D.fields);
    for (var s = 0; s < D.seats; s++) prev.push(jaViewer.zero(D.fields));
    D.frames.forEach(function (fr, f) {
      fr.obs = fr.delta.map(function (d, s) { return (prev[s] = jaViewer.apply(D.fields, prev[s], d)); });
      /* The public observation (D.public, where the game has one): pubSeen
       * when it changed, as a seat's "seen". */
      if (D.public) {
        /* A number S: the same changes as seat S's in this frame (model 3). */
        var pd = typeof D.public[f] === "number" ? fr.delta[D.public[f]] : D.public[f];
        pub = fr.pub = jaViewer.apply(D.fields, pub, pd); fr.pubSeen = pd.length > 0;
      }
    });
    return D;
  }
  load().then(rebuild).then(start).catch(function (e) { logError("cannot show the match: " + e.message); });

  function start(D) {
    /* view: -1 (ALL) the omniscient view, -2 (PUB) the public one (what the
     * table shows everyone: the public observations, no hand, no decision
     * record, no seed), else a seat's. */
    var ALL = -1, PUB = -2;
    var F = D.frames, last = F.length - 1, cur = 0, view = ALL, timer = null;
    /* pos: in a seat's or the public view, the frames it perceives, in order
     * (its scrubber's positions and its links' steps); null in the omniscient
     * view. interval, timers: the play timer's period and how many were
     * started (window.jaReplay.state() tells the tests). */
    var pos = null, interval = 0, timers = 0;
    var $ = function (id) { return document.getElementById(id); };
    var K = jaViewer.kit(D), G = K.G, esc = K.esc, at = K.at, name = K.name, row = K.row, tag = K.tag;
    function running(o, s) { return cur === last ? D.outcome.points[s] : K.score(o, s); }
    var H = jaViewer.hist(D, K), moves = jaViewer.pane($("history"), function (f) { stop(); go(f); }), movesOf = null;

    function faulty(f) { return F[f].asked.some(function (a) { return a.fault !== "none"; }); }
    function forfeit(f) { return F[f].asked.some(function (a) { return a.forfeits; }); }

    /* A seat's view steps through the frames that seat perceives (the deal,
     * the end, its decisions, changes of its observation: "seen"), the
     * public view through the deal, the end and the changes of the public
     * observation; the omniscient view through every frame. */
    function seen(f) {
      if (view === ALL || f === 0 || f === last) return true;
      return view === PUB ? F[f].pubSeen : F[f].seen.indexOf(view) >= 0;
    }
    function seenFrom(f, dir) {
      while (f > 0 && f < last && !seen(f)) f += dir;
      return Math.max(0, Math.min(last, f));
    }
    function positions() {
      if (view === ALL) return null;
      var p = [];
      for (var f = 0; f <= last; f++) if (seen(f)) p.push(f);
      return p;
    }
    function posIndex(f) {   /* the last position at or before frame f */
      var lo = 0, hi = pos.length - 1;
      while (lo < hi) { var m = (lo + hi + 1) >> 1; if (pos[m] <= f) lo = m; else hi = m - 1; }
      return lo;
    }
    /* The omniscient picture comes from the table in play: the lowest seat
     * deciding now (at the end, the lowest that decided last). */
    function tableSeat() {
      var a = cur < last ? F[cur + 1].asked : F[last].asked;
      return a.length ? a[0].seat : 0;
    }
    /* Who decides now: the replay's truth in the omniscient view, the
     * view's observation in the others. */
    function deciding(o) {
      if (view === ALL)
        return cur === last ? "nobody: the match is over" : F[cur + 1].asked.map(function (a) { return name(a.seat); }).join(", ");
      return K.decidingIn(o);
    }

    /* The move history of the view (built when the view changes), up to the
     * frame shown: the omniscient view every decision's records, numbered;
     * a seat's view its own decisions and the events its observations
     * show; the public view the events of the public observation only (a
     * decision's record can name what only its seat knew). */
    function fillMoves() {
      moves.clear();
      movesOf = view;
      var after = 0, prev = null;
      for (var f = 0; f <= last; f++) {
        if (view === ALL) { moves.add(f, F[f].asked.map(H.decision), f); continue; }
        if (!seen(f)) continue;
        var o = view === PUB ? F[f].pub : F[f].obs[view];
        var r = H.step(prev, o, after, view === PUB ? [] : F[f].asked.filter(function (a) { return a.seat === view; }));
        moves.add(f, r.rows);
        after = r.last;
        prev = o;
      }
    }
    function showMoves() {
      if (movesOf !== view) fillMoves();
      moves.show(cur);
    }

    function render() {
      var fr = F[cur];
      showMoves();
      $("pos").textContent = view === ALL ? (cur === 0 ? "deal" : "decision " + cur) + " / " + last :
        (cur === 0 ? "the deal" : cur === last ? "the end" : view === PUB ? "the table shows" : "seat " + view + " sees");
      /* The public view shows no decision record: a label can name what
       * only its seat knew (Jack in the Box's target before it is matched). */
      var acts = fr.asked.filter(function (a) { return view === ALL || a.seat === view; }).map(function (a) {
        return name(a.seat) + ": <b>" + esc(D.labels[a.code] || "action " + a.code) + "</b>" +
          (a.forced ? tag("forced") : tag(a.choices + " choices, " + (a.us / 1000).toFixed(1) + " ms")) +
          (a.fault !== "none" ? ' <span class="fault">FAULT ' + esc(a.fault) +
            (a.error ? " (act() returned " + esc(a.error) + ")" : "") + "</span>" : "") +
          (a.forfeits ? ' <span class="fault forfeit">FORFEITS the match</span>' : "");
      });
      $("action").innerHTML = cur === 0 ? "the deal" : view === PUB ? "" : (acts.length ? acts.join("<br>") : "(another seat decided)");
      renderLogs(fr);
      $("describe").textContent = view === ALL ? fr.describe : "";
      var o = view === PUB ? fr.pub : fr.obs[view === ALL ? tableSeat() : view], h = G.table(o), d = deciding(o);
      if (d) h += row("to act", d);
      for (var s = 0; s < D.seats; s++) {
        if (view === ALL || s === view) h += row(name(s), G.hand(fr.obs[s]));
        else if (G.other) h += row(name(s), G.other(o, s));
      }
      $("table").innerHTML = h;
      var sc = "<tr><th>seat</th><th>player</th><th>score</th></tr>";
      for (s = 0; s < D.seats; s++)
        sc += '<tr><td>' + s + "</td><td>" + name(s) + '</td><td class="score">' + esc(running(o, s)) + "</td></tr>";
      $("scores").innerHTML = sc;
      /* The result at the last frame only: before, it would tell how the
       * match ends. */
      var res = "";
      if (cur === last) {
        res = "<tr><th>place</th><th>player</th><th>points</th><th>faults</th></tr>";
        for (s = 0; s < D.seats; s++)
          res += "<tr><td>" + D.outcome.places[s] + "</td><td>" + name(s) + '</td><td class="points">' + esc(D.outcome.points[s]) +
            "</td><td>" + D.outcome.faults[s] + (D.outcome.forfeit[s] ? ' <span class="fault forfeit">forfeited</span>' : "") + "</td></tr>";
      }
      $("result").innerHTML = res;
      $("result-box").hidden = cur !== last;
      /* A seat's view has no timeline and no decision numbers: they would
       * tell how many decisions other seats had and how long the match lasts. */
      $("timeline").hidden = view !== ALL;
      $("goto").hidden = view !== ALL;
      /* The scrubber: every frame in the omniscient view, the frames the
       * seat perceives in its view (positions, no decision numbers). */
      var sc = $("scrub");
      sc.max = String(view === ALL ? last : pos.length - 1);
      sc.value = String(view === ALL ? cur : posIndex(cur));
      $("meta").innerHTML = esc(D.title) + " &middot; " + D.seats + " seats" + (view === ALL ? " &middot; seed " + esc(D.seed) : "") +
        " &middot; " + esc(D.options) + (D.back ? ' &middot; <a class="back" href="' + esc(D.back) + '">back to the report</a>' : "");
      curMark.style.left = pct(cur);
      if (LOG) LOG.push(snapshot());
    }
    /* What the bots logged for the decision that led to frame fr, under it:
     * every seat's in the omniscient view, the seat's own in its view (a log
     * may tell the bot's hand), none in the public view. */
    function renderLogs(fr) {
      var logs = view === PUB ? [] : (fr.logs || []).filter(function (l) { return view === ALL || l.seat === view; });
      $("botlog").innerHTML = logs.map(function (l) {
        return '<div class="botlog"><div class="logwho">log of ' + name(l.seat) + "</div><pre>" + esc(l.text) + "</pre></div>";
      }).join("");
      $("botlog").hidden = !logs.length;
    }
    function go(f, dir) { cur = seenFrom(Math.max(0, Math.min(last, f)), dir || -1); render(); keepHash(); }
    function stop() { if (timer) { clearInterval(timer); timer = null; $("play").innerHTML = "&#x25B6;"; } }
    /* The play timer at the speed chosen now: started again when the speed
     * changes while playing. */
    function startTimer() {
      if (timer) clearInterval(timer);
      interval = +$("speed").value;
      timers++;
      timer = setInterval(function () { if (cur >= last) stop(); else go(cur + 1, 1); }, interval);
    }
    function play() {
      if (timer) { stop(); return; }
      if (cur === last) go(0);
      $("play").innerHTML = "&#x23F8;";
      startTimer();
    }
    /* The next (dir 1) or previous (-1) frame with a fault the view may
     * see: any seat's in the omniscient view, the seat's own in its view. */
    function toFault(dir) {
      for (var f = cur + dir; f >= 0 && f <= last; f += dir)
        if (seen(f) && F[f].asked.some(function (a) { return a.fault !== "none" && (view === ALL || a.seat === view); })) {
          stop(); go(f); return;
        }
    }

    /* The URL's hash follows the page (#frame=N; a seat's view
     * #view=S&step=K, its K-th perceived frame: no decision number; the
     * public view #view=public&step=K), written with replaceState (no
     * history entry per step) at most every 150 ms. */
    var hashTimer = null;
    function hashOf() {
      return view === ALL ? "#frame=" + cur : "#view=" + (view === PUB ? "public" : view) + "&step=" + posIndex(cur);
    }
    function keepHash() {
      if (LOG || hashTimer) return;
      hashTimer = setTimeout(function () {
        hashTimer = null;
        var h = hashOf();
        if (location.hash === h) return;
        try { history.replaceState(history.state, "", h); } catch (e) { location.replace(h); }
      }, 150);
    }
    /* A hash read: #frame=N, #view=S or #view=public (with #frame=N: the
     * last frame the view perceives at or before N; with #step=K: its K-th). */
    function fromHash(h) {
      var hv = /(?:^#|&)view=(\d+|public)/.exec(h), hf = /(?:^#|&)frame=(\d+)/.exec(h), hs = /(?:^#|&)step=(\d+)/.exec(h);
      view = !hv ? ALL : hv[1] === "public" ? (D.public ? PUB : ALL) : +hv[1] < D.seats ? +hv[1] : ALL;
      pos = positions();
      $("view").value = String(view);
      if (hs && pos) go(pos[Math.min(+hs[1], pos.length - 1)]);
      else go(hf ? +hf[1] : 0);
    }

    /* Static parts: view switch, the timeline's marks (faults, a forfeit,
     * the current frame) placed along the scrubber. */
    var vs = '<option value="-1">everything (omniscient)</option>' +
      (D.public ? '<option value="-2">public (what the table shows)</option>' : "");
    for (var s = 0; s < D.seats; s++) vs += '<option value="' + s + '">seat ' + s + ": " + name(s) + "</option>";
    $("view").innerHTML = vs;
    $("goto-n").max = String(last);
    function pct(f) { return (last ? f / last * 100 : 0) + "%"; }
    function mark(f, cls) {   /* style set through the DOM: no style attribute (CSP) */
      var m = document.createElement("div");
      m.className = cls;
      m.style.left = pct(f);
      m.dataset.f = String(f);
      m.title = f ? "decision " + f : "deal";
      return $("timeline").appendChild(m);
    }
    for (var f = 1; f <= last; f++) if (faulty(f)) mark(f, "fault" + (forfeit(f) ? " forfeit" : ""));
    var curMark = mark(0, "cur");

    function setView(v) { view = v; pos = positions(); $("view").value = String(v); go(cur); }
    $("first").onclick = function () { stop(); go(0); };
    $("prev").onclick = function () { stop(); go(cur - 1, -1); };
    $("next").onclick = function () { stop(); go(cur + 1, 1); };
    $("last").onclick = function () { stop(); go(last); };
    $("play").onclick = play;
    /* The menus give the focus back: the keys then step frames. */
    $("view").onchange = function () { setView(+this.value); this.blur(); };
    $("speed").onchange = function () { if (timer) startTimer(); this.blur(); };
    $("scrub").oninput = function () { stop(); go(view === ALL ? +this.value : pos[+this.value]); };
    $("timeline").onclick = function (e) {
      var r = this.getBoundingClientRect();
      stop();
      go(e.target.dataset.f ? +e.target.dataset.f : Math.round((e.clientX - r.left) / r.width * last));
    };
    $("goto").onsubmit = function (e) {
      e.preventDefault();
      var n = parseInt($("goto-n").value, 10);
      if (n >= 0) { stop(); go(Math.min(n, last)); }
      $("goto-n").blur();
    };
    window.addEventListener("hashchange", function () {
      if (location.hash !== hashOf()) { stop(); fromHash(location.hash); }
    });
    /* Keys act on the frames whatever has the focus, but a box typed in: a
     * menu or the scrubber does not take them for itself. */
    var KEYS = {
      ArrowRight: function () { $("next").click(); }, ArrowLeft: function () { $("prev").click(); },
      Home: function () { $("first").click(); }, End: function () { $("last").click(); },
      " ": play, n: function () { toFault(1); }, p: function () { toFault(-1); }
    };
    document.addEventListener("keydown", function (e) {
      var t = e.target, act = KEYS[e.key];
      if (!act || e.ctrlKey || e.altKey || e.metaKey) return;
      if (t && (t.tagName === "TEXTAREA" || (t.tagName === "INPUT" && t.type !== "range"))) return;
      e.preventDefault();
      act();
    });
    if (D.logs_url) authorLogs();
    /* A server's page (D.logs_url): the form that fetches an author's logs
     * of the match with their token (docs/server.md, "Bot logs") and shows
     * them beside their decisions, as a replay file's logs are. */
    function authorLogs() {
      $("logform").hidden = false;
      $("logform").onsubmit = function (e) {
        e.preventDefault();
        $("logtoken").blur();
        fetch(D.logs_url, { cache: "no-store", headers: { Authorization: "Bearer " + $("logtoken").value.trim() } })
          .then(function (r) { return r.json().then(function (j) { return r.ok ? j : Promise.reject(new Error(j.error || r.status)); }); })
          .then(function (j) {
            F.forEach(function (fr) { fr.logs = (fr.logs || []).filter(function (l) { return j.seats.indexOf(l.seat) < 0; }); });
            j.logs.forEach(function (l) { if (F[l.decision]) F[l.decision].logs.push({ seat: l.seat, text: l.text }); });
            F.forEach(function (fr) { fr.logs.sort(function (a, b) { return a.seat - b.seat; }); });
            $("logmsg").textContent = j.author + ": " + j.logs.length + " logs of seat " + j.seats.join(", ");
            render();
          })
          .catch(function (err) { $("logmsg").textContent = "no logs: " + err.message; });
      };
    }
    window.jaReplay = {
      state: function () { return { frame: cur, view: view, playing: !!timer, interval: timer ? interval : 0, timers: timers }; }
    };

    /* Self-test (#selftest in the URL): step through every frame in every view
     * with the page's own buttons, then record the result in the DOM:
     * data-selftest on <body>, and in <pre id="selftest-log"> one line per
     * frame shown, with what it showed (the browser test compares the lines). */
    var LOG = null;
    function text(id) {   /* rows and table lines separated by " / " */
      var e = $(id), parts = e.querySelectorAll(".row, tr");
      var t = parts.length ? Array.prototype.map.call(parts, function (p) {
        return p.tagName === "TR" ? Array.prototype.map.call(p.children, function (c) { return c.textContent; }).join(" ") : p.textContent;
      }).join(" / ") : e.textContent;
      return t.replace(/\s+/g, " ").trim();
    }
    function movesText() {   /* the rows marked, and how many are shown */
      var c = moves.current();
      return (c.rows.map(function (li) { return li.textContent; }).join(" ; ") + " (" + c.shown + " shown)").replace(/\s+/g, " ").trim();
    }
    function snapshot() {
      return ["view " + view, "frame " + cur, "pos " + text("pos"), "meta " + text("meta"),
        "timeline " + ($("timeline").hidden ? "hidden" : "shown"), "scrub " + $("scrub").value + "/" + $("scrub").max,
        "action " + text("action"), "botlog " + text("botlog"),
        "describe " + text("describe"), "table " + text("table"), "moves " + movesText(), "scores " + text("scores"),
        "result " + ($("result-box").hidden ? "hidden" : text("result"))].join(" | ");
    }
    function selftest() {
      var steps = 0;
      LOG = [];
      var views = [ALL].concat(D.public ? [PUB] : []);
      for (var s = 0; s < D.seats; s++) views.push(s);
      views.forEach(function (v) {
        $("view").value = String(v); $("view").onchange.call($("view"));
        $("first").click();
        while (cur < last) { $("next").click(); steps++; }
        while (cur > 0 && v === ALL) { $("prev").click(); steps++; }
      });
      $("view").value = "-1"; $("view").onchange.call($("view"));
      $("last").click();
      var pre = document.createElement("pre");
      pre.id = "selftest-log";
      pre.hidden = true;
      pre.textContent = LOG.join("\n");
      LOG = null;
      document.body.appendChild(pre);
      document.body.setAttribute("data-selftest", "ok " + steps);
    }
    fromHash(location.hash);
    if (/selftest/.test(location.hash)) {
      try { selftest(); } catch (e) { logError("selftest: " + e.message); }
    }
  }
})();
