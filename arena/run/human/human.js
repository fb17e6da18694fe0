/* The human seat's page (`arena play GAME human BOT --http HOST:PORT`;
 * docs/bots.md, "Play against your bot"): the seat's view drawn with the
 * replay viewer's renderers (jaViewer.kit of replay.js, loaded first), its
 * legal actions as buttons. The state comes from /api/KEY/state, waited
 * for (a long poll) after each version; a choice goes to /api/KEY/act.
 * The key is the second part of this page's path. The renderers escape
 * every text they put in as HTML; every other text goes in with
 * textContent. Script errors are written into #errlog. */
(function () {
  "use strict";
  var $ = function (id) { return document.getElementById(id); };
  window.addEventListener("error", function (e) { $("errlog").textContent += "error: " + e.message + "\n"; });
  var api = "/api/" + (location.pathname.split("/")[2] || "");
  var D = null, K = null, ver = 0, cur = null, sending = false, ended = false;

  function add(p, tag, t) { var e = document.createElement(tag); e.textContent = t; p.appendChild(e); return e; }
  function status(t, cls) { var p = $("status"); p.textContent = t; p.className = cls || ""; }

  /* The first state of a match: its game, seats and field table. */
  function begin(d) {
    D = { game: d.game, seats: d.seats, players: d.players, fields: d.fields, labels: {}, score_unit: d.score_unit };
    K = jaViewer.kit(D);
    document.title = d.title + ": seat " + d.seat;
    $("title").textContent = d.title + ": you play seat " + d.seat;
    $("meta").textContent = d.players.map(function (p, s) {
      return "seat " + s + ": " + p.name + (s === d.seat ? " (you)" : "");
    }).join(" \u00b7 ");
  }
  function scores(d) {
    var t = $("scores"); t.textContent = "";
    var h = add(t, "tr", ""); add(h, "th", "seat"); add(h, "th", "player"); add(h, "th", "score");
    for (var s = 0; s < d.seats; s++) {
      var tr = add(t, "tr", "");
      add(tr, "td", String(s)); add(tr, "td", d.players[s].name);
      add(tr, "td", d.outcome ? d.outcome.points[s] : d.obs ? String(K.score(d.obs, s)) : "0").className = "score";
    }
  }
  function result(d) {
    var t = $("result"); t.textContent = "";
    $("result-box").hidden = !d.outcome;
    if (!d.outcome) return;
    var h = add(t, "tr", ""); add(h, "th", "place"); add(h, "th", "player"); add(h, "th", "points");
    for (var s = 0; s < d.seats; s++) {
      var tr = add(t, "tr", "");
      add(tr, "td", String(d.outcome.places[s])); add(tr, "td", d.players[s].name);
      add(tr, "td", d.outcome.points[s]).className = "points";
    }
  }
  /* The legal actions as buttons, numbered as the terminal numbers them. */
  function actions(d) {
    var box = $("actions"); box.textContent = "";
    var turn = d.status === "turn";
    $("quit").hidden = !turn;
    if (!turn) return;
    d.legal.forEach(function (a, i) {
      var b = document.createElement("button");
      add(b, "span", String(i + 1)).className = "num";
      add(b, "span", a.label).className = "label";
      b.className = "act";
      b.dataset.code = String(a.code);
      b.onclick = function () { choose(d.turn, a.code); };
      box.appendChild(b);
    });
  }
  function show(d) {
    cur = d;
    if (!d.game) { status("Waiting for the match to start..."); return; }
    if (!K) begin(d);
    Object.assign(D.labels, d.labels || {});
    if (d.obs) $("table").innerHTML = K.picture(d.obs, d.seat);
    scores(d); result(d); actions(d);
    if (d.status === "turn") status("Your turn: choose an action.", "turn");
    else if (d.status === "over") status("The match is over.");
    else if (d.status === "left") status("You left the match: it is abandoned, and its replay is not written.");
    else status("Waiting for the other seats...");
  }

  function post(path, body) {
    return fetch(api + path, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) })
      .then(function (r) { return r.json().then(function (j) { return { ok: r.ok, code: r.status, error: j.error }; }); });
  }
  function settle(r) {
    sending = false;
    if (!r.ok) { status("Refused (" + r.code + "): " + r.error, "refused"); if (cur) actions(cur); }
  }
  function choose(turn, code) {
    if (sending) return;
    sending = true;
    Array.prototype.forEach.call($("actions").children, function (b) { b.disabled = true; });
    post("/act", { turn: turn, code: code }).then(settle, function (e) { settle({ ok: false, code: 0, error: e.message }); });
  }
  $("quit").onclick = function () {
    if (sending || !cur || cur.status !== "turn") return;
    sending = true;
    post("/quit", {}).then(function (r) {
      settle(r);
      if (r.ok) { ended = true; show(Object.assign({}, cur, { status: "left" })); }
    }, function (e) { settle({ ok: false, code: 0, error: e.message }); });
  };
  /* Keys 1-9 press the action of that number. */
  document.addEventListener("keydown", function (e) {
    if (e.ctrlKey || e.altKey || e.metaKey || !/^[1-9]$/.test(e.key)) return;
    var b = $("actions").children[+e.key - 1];
    if (b && !b.disabled) { e.preventDefault(); b.click(); }
  });

  function poll() {
    fetch(api + "/state?after=" + ver, { cache: "no-store" }).then(function (r) {
      return r.json().then(function (j) { if (!r.ok) throw new Error(j.error); return j; });
    }).then(function (d) {
      if (ended) return;
      ver = d.version;
      show(d);
      if (d.status === "over" || d.status === "left") { ended = true; return; }
      poll();
    }).catch(function (e) {
      if (!ended) status("The arena stopped answering (arena play ended?): " + e.message, "refused");
    });
  }
  /* What the tests read: the state shown. */
  window.jaHuman = { state: function () { return cur && { version: ver, status: cur.status, turn: cur.turn, sending: sending }; } };
  poll();
})();
