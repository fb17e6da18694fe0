/* Jack Arena replay viewer: plays back the JSON model embedded in the page
 * (docs/viewer.md). No network, no other file. Script errors are written into
 * #errlog so that tests (and people) see them. */
"use strict";
(function () {
  var errlog = document.getElementById("errlog");
  function logError(msg) { errlog.textContent += msg + "\n"; }
  window.addEventListener("error", function (e) { logError("error: " + e.message + " (line " + e.lineno + ")"); });

  var D = JSON.parse(document.getElementById("data").textContent);
  var F = D.frames, last = F.length - 1, cur = 0, view = -1, timer = null;
  var $ = function (id) { return document.getElementById(id); };
  function esc(s) { return String(s).replace(/[&<>"]/g, function (c) { return { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" }[c]; }); }
  function at(a, i) { return (a && i < a.length) ? a[i] : 0; }   /* trimmed arrays: missing = 0 */
  /* The running score: the outcome at the last frame, else the "score"
   * field, in units of 1/score_unit when its doc says so, else points. */
  var scoreInUnits = D.fields.some(function (f) { return f.name === "score" && /27720/.test(f.doc); });
  function running(o, s) {
    if (cur === last) return D.outcome.points[s];
    var v = at(o.score, s);
    return scoreInUnits ? pts(v) : v;
  }
  function pts(units) { var v = units / D.score_unit; return Math.round(v * 1000) / 1000; }
  function name(s) { return esc(D.players[s] ? D.players[s].name : "seat " + s); }

  /* Standard cards (ja_cards.h ids): rank + suit symbol; jokers XB/XR. */
  var RANKS = "A23456789TJQK", SUITS = ["\u2663", "\u2666", "\u2665", "\u2660"];
  function card(id) {
    if (id === 255 || id === undefined) return '<span class="card none">--</span>';
    var c = id % 54;
    if (c >= 52) return '<span class="card' + (c === 53 ? " red" : "") + '">' + (c === 52 ? "XB" : "XR") + "</span>";
    var s = Math.floor(c / 13);
    return '<span class="card' + (s === 1 || s === 2 ? " red" : "") + '">' + RANKS[c % 13] + SUITS[s] + "</span>";
  }
  function counts(a, n) {
    var out = [];
    for (var id = 0; id < n; id++) for (var k = 0; k < at(a, id); k++) out.push(card(id));
    return out.length ? out.join(" ") : '<span class="tag">no cards</span>';
  }
  function row(who, body) { return '<div class="row"><span class="who">' + who + "</span>" + body + "</div>"; }
  function tag(t) { return ' <span class="tag">' + esc(t) + "</span>"; }

  /* Per-game renderers: table(o) is the public picture from one observation;
   * hand(o) the cards private to the observing seat. */
  var R = {};
  R["taylor-blackjack"] = {
    table: function (o) {
      return row("pile", card(o.top) + tag("suit " + (o.active_suit < 4 ? SUITS[o.active_suit] : "-")) +
        tag("stock " + o.stock_count) + tag("pile " + o.pile_count) +
        tag("game " + (o.game + 1) + "/" + o.games + ", turn " + o.turn) +
        (o.penalty_kind ? tag("penalty x" + o.penalty_k) : ""));
    },
    hand: function (o) { return counts(o.hand, 52); }
  };
  R["jack-in-the-box"] = {
    table: function (o) {
      var h = row("game", tag((o.game + 1) + "/" + o.games + ", turn " + o.turn) + tag("stock " + o.stock_count));
      for (var b = 0; b < o.n_boxes; b++) {
        var cs = [];
        for (var q = 0; q < 4; q++) cs.push(card(at(o.active, b * 4 + q)));
        h += row("box " + (b + 1) + (at(o.box_open, b) ? "" : " (closed)"), cs.join(" "));
      }
      return h;
    },
    hand: function (o) { return counts(o.hand, 52); }
  };
  var BR = ["3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A", "2", "XB", "XR"];
  var BF = ["none", "single", "pair", "run", "double run", "bomb", "big bomb", "super bomb"];
  R["bombs"] = {
    table: function (o) {
      var t = o.top_form ? BF[o.top_form] + " of " + BR[o.top_rank] + (o.top_len ? " (" + o.top_len + ")" : "") +
        (o.top_owner !== 255 ? " by " + name(o.top_owner) : "") : "no play";
      var h = row("top", tag(t) + tag("hand " + (o.hand_no + 1)) + tag("passes " + o.passes));
      var cnt = [];
      for (var s = 0; s < D.seats; s++) cnt.push(name(s) + ": " + at(o.count, s));
      return h + row("cards held", tag(cnt.join(", ")));
    },
    hand: function (o) { return counts(o.hand, 54); }
  };
  var HS = ["-", "live", "stayed", "bust"];
  R["brawljack"] = {
    table: function (o) {
      var h = row("deal", tag((o.deal + 1) + "/" + o.hands) + " upcard " + card(o.upcard) + tag("deck " + o.deck_count));
      for (var i = 0; i < o.n_hands; i++) {
        var cs = [];
        for (var c = 0; c < at(o.hand_len, i); c++) cs.push(card(at(o.hand_card, i * 12 + c)));
        var own = at(o.hand_owner, i);
        h += row((own === 8 ? "dealer" : name(own)) + " #" + (at(o.hand_index, i) + 1),
          cs.join(" ") + tag(HS[at(o.hand_state, i)] + " " + at(o.hand_value, i)));
      }
      return h;
    },
    hand: function (o) { return "drawn " + card(o.drawn); }
  };
  function bj(id) {
    if (id === 255 || id === undefined) return '<span class="card none">--</span>';
    return '<span class="card bj">c' + Math.floor(id / 25) + "n" + (Math.floor(id / 5) % 5) + "s" + (id % 5) + "</span>";
  }
  var ROWS = ["colour", "number", "suit"];
  R["bruise-jack"] = {
    table: function (o) {
      var h = row("hand", tag((o.hand + 1) + "/" + o.hands) + tag("stock " + o.stock_count));
      for (var s = 0; s < D.seats; s++) {
        if (!((o.active >> s) & 1)) continue;
        for (var r = 0; r < 3; r++) {
          var k = s * 3 + r, cs = [];
          for (var c = 0; c < at(o.up_count, k); c++) cs.push(bj(at(o.up, k * 11 + c)));
          h += row(name(s) + " " + ROWS[r], cs.join(" ") + tag("shows " + at(o.shown, k)) + (at(o.claimed, k) ? tag("claimed") : ""));
        }
      }
      return h;
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

  function faulty(f) { return F[f].asked.some(function (a) { return a.fault !== "none"; }); }

  function render() {
    var fr = F[cur];
    $("pos").textContent = (cur === 0 ? "deal" : "decision " + cur) + " / " + last;
    var acts = fr.asked.filter(function (a) { return view < 0 || a.seat === view; }).map(function (a) {
      return name(a.seat) + ": <b>" + esc(a.label) + "</b>" +
        (a.forced ? tag("forced") : tag(a.choices + " choices, " + (a.us / 1000).toFixed(1) + " ms")) +
        (a.fault !== "none" ? ' <span class="fault">FAULT ' + esc(a.fault) + "</span>" : "");
    });
    $("action").innerHTML = cur === 0 ? "the deal" : (acts.length ? acts.join("<br>") : "(another seat decides)");
    $("describe").textContent = view < 0 ? fr.describe : "";
    var o = fr.obs[view < 0 ? 0 : view], h = G.table(o);
    for (var s = 0; s < D.seats; s++) {
      if (view >= 0 && s !== view) continue;
      h += row(name(s), G.hand(fr.obs[s]));
    }
    $("table").innerHTML = h;
    var sc = "<tr><th>seat</th><th>player</th><th>score</th></tr>";
    for (s = 0; s < D.seats; s++)
      sc += '<tr><td>' + s + "</td><td>" + name(s) + '</td><td class="score">' + esc(running(o, s)) + "</td></tr>";
    $("scores").innerHTML = sc;
    var tl = $("timeline").children;
    for (var i = 0; i < tl.length; i++) tl[i].className = (faulty(i) ? "fault" : "") + (i === cur ? " cur" : "");
  }
  function go(f) { cur = Math.max(0, Math.min(last, f)); render(); }
  function stop() { if (timer) { clearInterval(timer); timer = null; $("play").innerHTML = "&#x25B6;"; } }
  function play() {
    if (timer) { stop(); return; }
    if (cur === last) go(0);
    $("play").innerHTML = "&#x23F8;";
    timer = setInterval(function () { if (cur >= last) stop(); else go(cur + 1); }, +$("speed").value);
  }

  /* Static parts: header, view switch, timeline, result. */
  $("meta").innerHTML = esc(D.title) + " &middot; " + D.seats + " seats &middot; seed " + esc(D.seed) +
    " &middot; " + esc(D.options) + (D.back ? ' &middot; <a href="' + esc(D.back) + '" style="color:#fff">back to the report</a>' : "");
  var vs = '<option value="-1">everything (omniscient)</option>';
  for (var s = 0; s < D.seats; s++) vs += '<option value="' + s + '">seat ' + s + ": " + name(s) + "</option>";
  $("view").innerHTML = vs;
  var tlh = "";
  for (var f = 0; f <= last; f++) tlh += '<div data-f="' + f + '" title="' + (f ? "decision " + f : "deal") + '"></div>';
  $("timeline").innerHTML = tlh;
  var res = "<tr><th>place</th><th>player</th><th>points</th><th>faults</th></tr>";
  for (s = 0; s < D.seats; s++)
    res += "<tr><td>" + D.outcome.places[s] + "</td><td>" + name(s) + '</td><td class="points">' + esc(D.outcome.points[s]) +
      "</td><td>" + D.outcome.faults[s] + "</td></tr>";
  $("result").innerHTML = res;

  $("first").onclick = function () { stop(); go(0); };
  $("prev").onclick = function () { stop(); go(cur - 1); };
  $("next").onclick = function () { stop(); go(cur + 1); };
  $("last").onclick = function () { stop(); go(last); };
  $("play").onclick = play;
  $("view").onchange = function () { view = +this.value; render(); };
  $("timeline").onclick = function (e) { if (e.target.dataset.f) { stop(); go(+e.target.dataset.f); } };
  document.addEventListener("keydown", function (e) {
    if (e.key === "ArrowRight") $("next").click();
    else if (e.key === "ArrowLeft") $("prev").click();
    else if (e.key === "Home") $("first").click();
    else if (e.key === "End") $("last").click();
    else if (e.key === " ") { e.preventDefault(); play(); }
  });

  /* Self-test (#selftest in the URL): step through every frame in every view
   * with the page's own buttons, then record the result in the DOM. */
  function selftest() {
    var steps = 0;
    for (var v = -1; v < D.seats; v++) {
      $("view").value = String(v); $("view").onchange.call($("view"));
      $("first").click();
      while (cur < last) { $("next").click(); steps++; }
      while (cur > 0 && v === -1) { $("prev").click(); steps++; }
    }
    $("view").value = "-1"; $("view").onchange.call($("view"));
    $("last").click();
    document.body.setAttribute("data-selftest", "ok " + steps);
  }
  go(0);
  var m = /#frame=(\d+)/.exec(location.hash);
  if (m) go(+m[1]);
  if (/selftest/.test(location.hash)) {
    try { selftest(); } catch (e) { logError("selftest: " + e.message); }
  }
})();
