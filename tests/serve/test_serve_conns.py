#!/usr/bin/python3
"""`arena serve`'s connections and pages of matches (docs/server.md,
"Connections", "HTTP API"), against a real server on loopback. Clients
connect from addresses of their own in 127/8 (every one is loopback).

- A slow client that sends a header line every 2 s is cut at the header
  deadline, while every other client is served meanwhile.
- Requests and event streams are counted apart, per address and in all:
  an address at --max-per-address streams gets 429 for another stream and
  200 for a page; another address gets its stream; --max-streams in all
  gives 503 for one more stream and 200 for a page. /api/server counts
  them. The server's threads do not grow with its streams.
- --trusted-proxy: a request from the proxy counts by the last address of
  its X-Forwarded-For; without the flag the header changes nothing.
- Pages of matches: /api/matches and /api/bots/NAME/matches newest first,
  followed through `next` to the oldest, every match once (as many as
  `arena ladder export`); their pages link the older ones; bad queries 400.
  At the edges: a page of exactly all of a bot's matches has no `next` and
  no older link; one fewer has both, leading to the last match alone; the
  pages' links keep the page size; the bot page's link to older matches
  is the API's `more_matches` (none for 20 matches or fewer).
- The rating history: each seat's elo_before, elo_after and games_before
  in the matches' API are the ladder's live Elo sequence (each change
  recomputed from the seats; each version's chained from 1500 to its live
  Elo in the ladder database); the bot page's chart draws it, a line per
  version, a point per rated match, in the order rated.
- Every answer carries the pages' policy, without 'unsafe-inline'; the
  pages' scripts and styles are served from /static/.

Waits poll; the only clock is a guard against hangs (no timing asserted).

usage: test_serve_conns.py ARENA RANDOM.so PICK.so FREE_PORT.py"""
import html
import http.client
import json
import os
import re
import socket
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from serve_lib import (Server, check, free_port, rating_chart, rating_sequence,  # noqa: E402
                       report, wait_for)

ARENA, RANDOM, PICK, FREE_PORT = sys.argv[1:5]
GAME = "bruise-jack"


def raw(s, addr, request):
    """A socket from addr with request sent; the caller reads and closes."""
    sock = socket.socket()
    sock.bind((addr, 0))
    sock.connect(("127.0.0.1", s.port))
    sock.sendall(request)
    return sock


def status_of(sock):
    """The status code of the answer on sock (its first line)."""
    sock.settimeout(120)
    data = b""
    while b"\r\n" not in data:
        d = sock.recv(4096)
        if not d:
            return 0
        data += d
    return int(data.split(b" ", 2)[1])


def stream(s, addr, extra=b""):
    sock = raw(s, addr, b"GET /api/events HTTP/1.1\r\nHost: x\r\n" + extra + b"\r\n")
    return sock, status_of(sock)


def get(s, addr, path, extra=b""):
    sock = raw(s, addr, b"GET " + path.encode() + b" HTTP/1.1\r\nHost: x\r\nConnection: close"
               b"\r\n" + extra + b"\r\n")
    st = status_of(sock)
    sock.close()
    return st


def threads(pid):
    return len(os.listdir("/proc/%d/task" % pid))


def connections(s):
    st, j = s.json("GET", "/api/server")
    return j["connections"] if st == 200 else {}


def slow_client(s):
    """A request whose headers never end: one line every 2 s until the
    server hangs up; meanwhile the others are served."""
    sock = raw(s, "127.0.0.3", b"GET / HTTP/1.1\r\n")
    sock.settimeout(2)
    served, lines = 0, 0

    def cut():
        nonlocal served, lines
        try:
            sock.sendall(b"X-Slow-%d: yes\r\n" % lines)
            lines += 1
            if sock.recv(1) == b"":
                return True
        except socket.timeout:
            pass
        except OSError:
            return True
        served += get(s, "127.0.0.4", "/") == 200
        return False
    wait_for(cut, "the slow client cut")
    sock.close()
    check(served >= 1 and lines >= 2, "others served while the slow client dripped headers: "
          "%d served, %d lines sent" % (served, lines))


def caps(s):
    per = connections(s)["max_per_address"]
    pid = s.proc.pid
    t0 = threads(pid)
    mine = [stream(s, "127.0.0.5") for _ in range(per)]
    check(all(st == 200 for _, st in mine), "streams up to --max-per-address: %r" %
          [st for _, st in mine])
    extra, st = stream(s, "127.0.0.5")
    check(st == 429, "one stream more from that address: 429, not %d" % st)
    extra.close()
    check(get(s, "127.0.0.5", "/") == 200, "a page from that address: 200 (counted apart)")
    other, st = stream(s, "127.0.0.6")
    check(st == 200, "a stream from another address: 200, not %d" % st)
    wait_for(lambda: connections(s).get("streams") == per + 1, "the streams counted")
    # --max-streams in all: fill it from other addresses.
    total = connections(s)["max_streams"]
    more = []
    a = 10
    while len(mine) + 1 + len(more) < total:
        more += [stream(s, "127.0.1.%d" % a) for _ in range(min(per, total - len(mine) - 1 -
                                                                len(more)))]
        a += 1
    check(all(st == 200 for _, st in more), "streams up to --max-streams")
    last, st = stream(s, "127.0.2.1")
    check(st == 503, "one stream more than --max-streams: 503, not %d" % st)
    last.close()
    check(get(s, "127.0.2.1", "/") == 200, "a page at --max-streams: 200")
    check(threads(pid) <= t0 + 1, "threads do not grow with streams: %d, then %d with %d "
          "streams" % (t0, threads(pid), total))
    for sock, _ in mine + more:
        sock.close()
    other.close()
    wait_for(lambda: connections(s).get("streams") == 0, "the streams closed and uncounted")


def proxy(tmp):
    """--trusted-proxy: the client behind the proxy is counted; the header
    means nothing from anyone else."""
    p = Server(ARENA, GAME, os.path.join(tmp, "p"), free_port(FREE_PORT),
               ["--trusted-proxy", "127.0.0.1", "--max-per-address", "2", "--quiet"])
    os.makedirs(p.tmp, exist_ok=True)
    p.start()
    xff = b"X-Forwarded-For: 10.0.0.9, 192.0.2.1\r\n"
    a = [stream(p, "127.0.0.1", xff) for _ in range(2)]
    b, st = stream(p, "127.0.0.1", xff)
    check([x for _, x in a] == [200, 200] and st == 429,
          "behind the proxy, 192.0.2.1's third stream: 429, not %d" % st)
    c, st = stream(p, "127.0.0.1", b"X-Forwarded-For: 192.0.2.2\r\n")
    check(st == 200, "another client behind the proxy: 200, not %d" % st)
    for sock in [x for x, _ in a] + [b, c]:
        sock.close()
    p.stop()


def forged(s):
    """Without --trusted-proxy, X-Forwarded-For changes nothing."""
    per = connections(s)["max_per_address"]
    socks = [stream(s, "127.0.0.7", b"X-Forwarded-For: 192.0.2.%d\r\n" % i) for i in range(per)]
    extra, st = stream(s, "127.0.0.7", b"X-Forwarded-For: 192.0.2.99\r\n")
    check(st == 429, "a forged X-Forwarded-For does not lift the cap: %d" % st)
    for sock, _ in socks + [(extra, 0)]:
        sock.close()


def export(tmp):
    out = subprocess.run([ARENA, "ladder", "export", GAME, "--jsonl", "--db",
                          os.path.join(tmp, "ladder.db")], capture_output=True, text=True)
    return [json.loads(l) for l in out.stdout.splitlines() if l.strip()]


def walk(s, url):
    """Every match through a listing's `next` links: ids in order."""
    ids = []
    while url:
        st, j = s.json("GET", url)
        check(st == 200, "GET %s: %d %r" % (url, st, j))
        if st != 200:
            break
        check(len(j["matches"]) <= 3, "a page holds at most limit matches")
        ids += [(m["tournament"], m["number"]) for m in j["matches"]]
        url = j["next"]
    return ids


def pages_of_matches(s, tmp):
    toks = {n: s.register(n) for n in ("alice", "bob")}
    s.upload(toks["alice"], RANDOM)
    s.upload(toks["bob"], PICK)
    s.wait_active("alice")
    s.wait_active("bob")
    wait_for(lambda: len(export(tmp)) >= 12, "a dozen matches")
    for a in toks:
        s.json("POST", "/api/bots/%s/retire" % a, b"", {"Authorization": "Bearer " + toks[a]})
    wait_for(lambda: s.json("GET", "/api/ladder")[1]["playing"] is False, "play to stop")
    all_ids = walk(s, "/api/matches?limit=3")
    ex = export(tmp)
    check(len(all_ids) == len(set(all_ids)) == len(ex),
          "every match once through /api/matches: %d of %d" % (len(set(all_ids)), len(ex)))
    check(all_ids == sorted(all_ids, reverse=True), "newest first")
    alice = walk(s, "/api/bots/alice/matches?limit=3")
    check(len(alice) == len(ex), "alice sat in every match: %d of %d" % (len(alice), len(ex)))
    st, j = s.json("GET", "/api/bots/alice")
    check(st == 200 and len(j["matches"]) == min(20, len(ex)) and
          [(m["tournament"], m["number"]) for m in j["matches"]] == all_ids[:len(j["matches"])],
          "the bot's recent matches, newest first")
    check(all(m["published"] and m["seed"] and m["replay"] for m in j["matches"]),
          "every match of an ended batch shows its seed and replay")
    st, _, page = s.request("GET", "/matches")
    check(st == 200 and b"/matches/" in page, "the matches page")
    st, _, page = s.request("GET", "/bots/alice")
    check(st == 200 and (len(ex) <= 20 or b"/bots/alice/matches?before=" in page),
          "the bot page links its older matches")
    if len(ex) > 20:
        cursor = page.split(b"/bots/alice/matches?before=")[1].split(b'"')[0].decode()
        st, _, older = s.request("GET", "/bots/alice/matches?before=" + cursor)
        check(st == 200 and b"Newest matches" in older, "an older page of alice's matches")
    for bad in ("/api/matches?limit=0", "/api/matches?limit=101", "/api/matches?before=x",
                "/api/matches?before=-1", "/bots/alice/matches?before=1x"):
        st, _, _ = s.request("GET", bad)
        check(st == 400, "%s: 400, not %d" % (bad, st))
    st, _, _ = s.request("GET", "/api/bots/nobody/matches")
    check(st == 404, "no such author's matches: 404, not %d" % st)
    page_boundaries(s, len(alice))
    for a in toks:
        steps = rating_sequence(s, a, os.path.join(tmp, "ladder.db"))
        rating_chart(s.request("GET", "/bots/" + a)[2].decode(), a, steps)


def older_href(page):
    """The href of a page's "Older matches" link, or None."""
    m = re.search(r'<a class="older" href="([^"]*)">Older matches</a>', page)
    return html.unescape(m.group(1)) if m else None


def page_boundaries(s, n):
    """alice's n matches at the edges of a page: a page of exactly n has no
    older link (API `next` null), of n - 1 one whose page holds the last
    match alone and no older link; the HTML links keep the page size; the
    bot page's link to older matches is the API's `more_matches`."""
    st, j = s.json("GET", "/api/bots/alice/matches?limit=%d" % n)
    check(st == 200 and len(j["matches"]) == n and j["next"] is None,
          "a page of all %d matches: no next (%r)" % (n, j.get("next")))
    st, j = s.json("GET", "/api/bots/alice/matches?limit=%d" % (n - 1))
    check(st == 200 and len(j["matches"]) == n - 1 and j["next"], "a page of %d: a next" % (n - 1))
    st, last = s.json("GET", j["next"])
    check(st == 200 and len(last["matches"]) == 1 and last["next"] is None,
          "the next page: the last match alone, no next: %r" % last.get("next"))
    page = s.request("GET", "/bots/alice/matches?limit=%d" % n)[2].decode()
    check(page.count("<tr><td>") == n and older_href(page) is None,
          "the page of all %d: no older link" % n)
    page = s.request("GET", "/bots/alice/matches?limit=%d" % (n - 1))[2].decode()
    href = older_href(page)
    cursor = j["next"].split("before=")[1].split("&")[0]
    check(page.count("<tr><td>") == n - 1 and href == "/bots/alice/matches?before=%s&limit=%d"
          % (cursor, n - 1), "the page of %d: its older link %r" % (n - 1, href))
    page = s.request("GET", href or "/")[2].decode()
    check(page.count("<tr><td>") == 1 and older_href(page) is None and
          'href="/bots/alice/matches?limit=%d">Newest matches' % (n - 1) in page,
          "the last page: one match, no older link, the newest page linked")
    st, b = s.json("GET", "/api/bots/alice")
    href = older_href(s.request("GET", "/bots/alice")[2].decode())
    more = b["more_matches"]
    check((more is None) == (n <= 20) and (href is None if more is None else
                                          href == "/bots/alice/matches?before=%s" %
                                          more.split("before=")[1].split("&")[0]),
          "the bot page's older link %r, the API's more_matches %r (%d matches)" % (href, more, n))


def policy(s):
    c = http.client.HTTPConnection("127.0.0.1", s.port, timeout=120)
    for path in ("/", "/submit", "/live", "/bots/alice", "/matches", "/static/ladder.js",
                 "/api/ladder"):
        c.request("GET", path)
        r = c.getresponse()
        body = r.read()
        csp = r.getheader("Content-Security-Policy", "")
        check(r.status == 200 and "script-src 'self'" in csp and "unsafe-inline" not in csp,
              "%s: %d, policy %r" % (path, r.status, csp))
        if r.getheader("Content-Type", "").startswith("text/html"):
            check(b"<script>" not in body and b"<style" not in body and b" style=" not in body
                  and b" onclick=" not in body, "%s: no inline script or style" % path)
    c.close()


def main():
    tmp = tempfile.mkdtemp(prefix="serve-conns-")
    s = Server(ARENA, GAME, tmp, free_port(FREE_PORT),
               ["--smoke", "1", "--max-streams", "24", "--max-clients", "16",
                "--max-per-address", "4", "--quiet"])
    s.start()
    slow_client(s)
    caps(s)
    forged(s)
    proxy(tmp)
    pages_of_matches(s, tmp)
    policy(s)
    s.stop()
    return report("serve_conns")


if __name__ == "__main__":
    sys.exit(main())
