/* The ladder (GET /): filled from /api/ladder, and again after events, at
 * most every 5 seconds however many come (a busy ladder sends several a
 * second); every text put in with textContent, never as HTML. */
(function () {
  function cell(tr, t) {
    var td = document.createElement('td');
    td.textContent = t;
    tr.appendChild(td);
    return td;
  }
  function fmt(x) { return x == null ? '' : Math.round(x).toString(); }
  function show(d) {
    var tb = document.getElementById('ladder');
    tb.textContent = '';
    (d.ratings || []).forEach(function (b, i) {
      var tr = document.createElement('tr');
      cell(tr, String(i + 1));
      var a = document.createElement('a');
      a.href = '/bots/' + encodeURIComponent(b.author);
      a.textContent = b.display_name;
      cell(tr, '').appendChild(a);
      cell(tr, b.version_status || '');
      cell(tr, fmt(b.elo));
      cell(tr, b.elo_ci95 ? '[' + fmt(b.elo_ci95[0]) + ', ' + fmt(b.elo_ci95[1]) + ']' : '');
      cell(tr, String(b.games));
      cell(tr, String(b.faults));
      tb.appendChild(tr);
    });
    document.getElementById('matches').textContent = String(d.matches);
    var pv = document.getElementById('pending');
    pv.textContent = '';
    (d.versions || []).forEach(function (v) {
      if (v.status == 'active' || v.status == 'retired') return;
      var li = document.createElement('li');
      li.textContent = v.author + ' version ' + v.version + ': ' + v.status +
        (v.reason ? ' (' + v.reason + ')' : '');
      pv.appendChild(li);
    });
  }
  var last = 0, timer = null;
  function load() {
    timer = null;
    last = Date.now();
    fetch('/api/ladder').then(function (r) { return r.json(); }).then(show);
  }
  load();
  new EventSource('/api/events').onmessage = function () {
    if (!timer) timer = setTimeout(load, Math.max(1000, 5000 - (Date.now() - last)));
  };
})();
