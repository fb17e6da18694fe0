/* The submit page (GET /submit): registration and upload through the API
 * (docs/server.md); the answers shown as they come. */
(function () {
  function $(id) { return document.getElementById(id); }
  function show(id, r) {
    r.text().then(function (t) { $(id).textContent = r.status + ' ' + t; });
  }
  $('reg').onsubmit = function (e) {
    e.preventDefault();
    fetch('/api/register', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: $('name').value })
    }).then(function (r) { show('regout', r); });
  };
  $('up').onsubmit = function (e) {
    e.preventDefault();
    var fd = new FormData();
    fd.append('file', $('file').files[0]);
    var p = $('params').value.trim();
    if (p) fd.append('params', p);
    fetch('/api/bots', {
      method: 'POST',
      headers: { 'Authorization': 'Bearer ' + $('token').value.trim() },
      body: fd
    }).then(function (r) { show('upout', r); });
  };
})();
