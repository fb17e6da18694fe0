"""A crowd of spectators of `arena serve` (docs/server.md) in one thread:
non-blocking sockets under `selectors`, so that a thousand of them cost one
Python thread, not two each (test_serve_load.py, and through it ja_bench's
serve section).

Spectator i connects from its own loopback address, 127.0.X.Y with
X = 1 + i // 250 and Y = 1 + i % 250 (the whole of 127/8 is loopback on
Linux), so that a server's cap on the connections of one address never
applies to the crowd. Like a browser on the ladder page, each spectator
asks for `GET /` once, then opens `GET /api/events` and keeps it, and every
`page_period` seconds (its phase a seeded random offset) asks for
`GET /api/ladder` on a new connection. Of its stream it keeps the first
and last event ids, the count of events and whether an id ever failed to
follow the one before (a gap or disorder): counters, never the list.
Errors (a status other than 200, a body that is not what the page should
be, a stream that ends while the crowd is not stopping, a refused or reset
connection) are kept as short texts, a few per spectator."""
import heapq
import json
import os
import random
import resource
import selectors
import socket
import threading
import time
from itertools import repeat

TICK = 0.1          # seconds: the loop's shortest turn, so that a read gathers
                    # the events of a turn: its cost is per read, not per event
SAMPLE = 200        # one event in SAMPLE has its JSON parsed (all are counted), the
                    # spectators staggered: every stream gets the same events, so a
                    # thousand of them still parse each event five times
KEPT_ERRORS = 3     # errors kept per spectator (the rest are only counted)
MAX_HEAD = 16384    # bytes of a response's status line and headers
MAX_LINE = 1 << 20  # bytes of an event stream's line without its end


def is_ladder_page(body):
    """Whether the body of `GET /` is the ladder page: the page whose script
    (/static/ladder.js) opens the event stream."""
    return b'src="/static/ladder.js"' in body


def address(i):
    """The loopback address spectator i connects from."""
    return "127.0.%d.%d" % (1 + i // 250, 1 + i % 250)


def raise_nofile(n):
    """Raises the soft limit on open files to the hard one when it is below
    what n spectators need (a stream and a page request each, and the
    selector's own)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = 2 * n + 64
    if soft != resource.RLIM_INFINITY and soft < need:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


class Spectator:
    """One spectator: its stream's counters, its errors, its open connections."""
    __slots__ = ("i", "addr", "first", "last", "count", "gap", "requests", "errors",
                 "n_errors", "connected", "lost", "stream", "ladder", "tail", "eid", "data")

    def __init__(self, i):
        self.i, self.addr = i, address(i)
        self.first = self.last = None
        self.count, self.gap, self.requests, self.n_errors = 0, False, 0, 0
        self.errors, self.connected, self.lost = [], False, False   # lost: the stream failed
        self.stream = self.ladder = None   # the open connections
        self.tail, self.eid, self.data = b"", None, None   # the stream's parse state


class _Conn:
    """One request on a non-blocking socket and the response as it arrives."""
    __slots__ = ("spec", "path", "sock", "out", "connecting", "head", "status", "chunked",
                 "length", "raw", "body", "got", "done")

    def __init__(self, spec, path, sock, port):
        self.spec, self.path, self.sock = spec, path, sock
        # The page requests close after their answer, as a browser's
        # connection that idles out would; the stream keeps its own.
        close = "" if path == "/api/events" else "Connection: close\r\n"
        self.out = ("GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n%s\r\n" %
                    (path, port, close)).encode()
        self.connecting, self.head, self.status = True, bytearray(), None
        self.chunked, self.length, self.raw, self.body = False, None, bytearray(), []
        self.got, self.done = 0, False


class Crowd:
    """n spectators of the server on 127.0.0.1:port, in one thread from
    start() to stop()."""

    def __init__(self, port, n, page_period=10.0, seed=1):
        self.port, self.n, self.page_period = port, n, page_period
        self.spectators = [Spectator(i) for i in range(n)]
        self._rng = random.Random(seed)
        self._sel = selectors.DefaultSelector()
        self._due = []          # (time, i) of the next ladder request of each spectator
        self._halt = False
        self._cpu = 0.0
        self._connected = 0
        self._thread = threading.Thread(target=self._run, name="crowd", daemon=True)

    # ---- the counters, read from any thread -----------------------------------------

    def connected(self):
        """Streams whose 200 header arrived."""
        return self._connected

    def errors(self):
        """The kept errors, as "spectator I: TEXT"."""
        return ["spectator %d: %s" % (x.i, e) for x in self.spectators for e in list(x.errors)]

    def n_errors(self):
        """Errors, the kept ones and the others."""
        return sum(x.n_errors for x in self.spectators)

    def requests(self):
        """Page requests (`/` and `/api/ladder`) answered 200 with the right body."""
        return sum(x.requests for x in self.spectators)

    def cpu_seconds(self):
        """The crowd thread's own CPU time so far (sampled at each turn)."""
        return self._cpu

    # ---- the thread -------------------------------------------------------------------

    def start(self):
        raise_nofile(self.n)
        self._thread.start()

    def stop(self):
        """Closes every connection (no error counted for them) and joins."""
        self._halt = True
        self._thread.join()

    def _run(self):
        cpu0 = time.thread_time()
        for x in self.spectators:
            self._open(x, "/")
        while not self._halt:
            turn = time.monotonic()
            while self._due and self._due[0][0] <= turn:
                _, i = heapq.heappop(self._due)
                x = self.spectators[i]
                if x.ladder is None:   # one at a time, as a page's timer would
                    self._open(x, "/api/ladder")
                heapq.heappush(self._due, (turn + self.page_period, i))
            for key, mask in self._sel.select(TICK):
                self._ready(key.data, mask)
            self._cpu = time.thread_time() - cpu0
            time.sleep(max(0.0, turn + TICK - time.monotonic()))
        for key in list(self._sel.get_map().values()):
            key.fileobj.close()
        self._sel.close()

    def _error(self, x, what, path=None):
        if path == "/api/events":
            x.lost = True
        x.n_errors += 1
        if len(x.errors) < KEPT_ERRORS:
            x.errors.append(what)

    def _open(self, x, path):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        c = _Conn(x, path, s, self.port)
        try:
            s.bind((x.addr, 0))
            s.connect(("127.0.0.1", self.port))
        except BlockingIOError:
            pass
        except OSError as e:
            s.close()
            self._error(x, "%s: %s" % (path, e.strerror or type(e).__name__), path)
            self._next(c)
            return
        if path == "/api/ladder":
            x.ladder = c
        elif path == "/api/events":
            x.stream = c
        self._sel.register(s, selectors.EVENT_WRITE, c)

    def _close(self, c):
        self._sel.unregister(c.sock)
        c.sock.close()
        if c.spec.ladder is c:
            c.spec.ladder = None
        if c.spec.stream is c:
            c.spec.stream = None

    def _fail(self, c, why):
        self._error(c.spec, "%s: %s" % (c.path, why), c.path)
        self._close(c)
        self._next(c)

    def _next(self, c):
        """After `GET /` (answered or not), the stream and the first ladder
        request, at a random point of the first period."""
        if c.path == "/":
            self._open(c.spec, "/api/events")
            heapq.heappush(self._due, (time.monotonic() + self._rng.uniform(0, self.page_period),
                                       c.spec.i))

    def _ready(self, c, mask):
        if mask & selectors.EVENT_WRITE:
            if c.connecting:
                err = c.sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
                if err:
                    return self._fail(c, os.strerror(err))
                c.connecting = False
            try:
                sent = c.sock.send(c.out)
            except BlockingIOError:
                return
            except OSError as e:
                return self._fail(c, e.strerror or type(e).__name__)
            c.out = c.out[sent:]
            if not c.out:
                self._sel.modify(c.sock, selectors.EVENT_READ, c)
            return
        try:
            data = c.sock.recv(65536)
        except BlockingIOError:
            return
        except OSError as e:
            return self._fail(c, e.strerror or type(e).__name__)
        if not data:
            return self._eof(c)
        if c.status is None:
            c.head += data
            end = c.head.find(b"\r\n\r\n")
            if end < 0:
                if len(c.head) > MAX_HEAD:
                    self._fail(c, "a response head over %d bytes" % MAX_HEAD)
                return
            if not self._head(c, bytes(c.head[:end])):
                return
            data = bytes(c.head[end + 4:])
            c.head = None
        self._body(c, data)

    def _head(self, c, head):
        lines = head.split(b"\r\n")
        parts = lines[0].split(None, 2)
        if len(parts) < 2 or not parts[1].isdigit():
            self._fail(c, "not an HTTP status line: %r" % lines[0][:40])
            return False
        c.status = int(parts[1])
        if c.status != 200:
            self._fail(c, "status %d" % c.status)
            return False
        for line in lines[1:]:
            name, _, value = line.partition(b":")
            name, value = name.strip().lower(), value.strip().lower()
            if name == b"transfer-encoding":
                c.chunked = value == b"chunked"
            elif name == b"content-length" and value.isdigit():
                c.length = int(value)
        if c.chunked:   # RFC 9112: chunked framing wins over a Content-Length
            c.length = None
        if c.path == "/api/events":
            c.spec.connected = True
            self._connected += 1
        return True

    def _body(self, c, data):
        """Takes the body's bytes as they arrive: decoded from chunks when
        chunked, else up to Content-Length when there is one, else until the
        end of the connection."""
        if c.chunked:
            c.raw += data
            data = self._dechunk(c)
            if data is None:
                return
        if c.path == "/api/events":
            if self._events(c, data) and c.done and not self._halt:
                self._fail(c, "the stream ended")
            return
        c.body.append(data)
        c.got += len(data)
        if c.done or (c.length is not None and c.got >= c.length):
            self._page(c)

    def _dechunk(self, c):
        """The data of the whole chunks in c.raw (which keeps the rest);
        c.done at the last chunk. None after a malformed chunk, failed.

        Split at every CRLF, the bytes alternate size line and data as long
        as no data holds a CRLF (the server's events hold none): then each
        size equals its data's length, checked all at once in C, which costs
        a fraction of a Python loop over the chunks (a thousand streams get
        every event: the loop's cost per event is the crowd's CPU)."""
        raw = c.raw
        parts = raw.split(b"\r\n")
        n = (len(parts) - 1) // 2   # the (size, data) pairs followed by their CRLF
        try:
            sizes = list(map(int, parts[0:2 * n:2], repeat(16)))
        except ValueError:
            sizes = None
        if n and sizes == list(map(len, parts[1:2 * n:2])) and 0 not in sizes:
            del raw[:sum(sizes) + sum(map(len, parts[0:2 * n:2])) + 4 * n]
            return b"".join(parts[1:2 * n:2])
        pos, out = 0, []
        while not c.done:
            nl = raw.find(b"\r\n", pos)
            if nl < 0:
                break
            try:
                size = int(raw[pos:nl].split(b";")[0], 16)
            except ValueError:
                self._fail(c, "a bad chunk size %r" % bytes(raw[pos:nl][:20]))
                return None
            if size == 0:   # the last chunk, then trailers up to a blank line
                end = raw.find(b"\r\n\r\n", nl)
                if end < 0:
                    break
                pos, c.done = end + 4, True
                break
            end = nl + 2 + size
            if len(raw) < end + 2:
                break
            if raw[end:end + 2] != b"\r\n":
                self._fail(c, "a chunk not ended by CRLF")
                return None
            out.append(raw[nl + 2:end])
            pos = end + 2
        del raw[:pos]
        return b"".join(out)

    def _eof(self, c):
        if c.status is None:
            return self._fail(c, "closed before a response")
        if c.path == "/api/events":
            if not self._halt:
                self._fail(c, "the stream ended")
            return
        if c.length is not None and c.got < c.length:
            return self._fail(c, "closed after %d of %d bytes" % (c.got, c.length))
        if c.chunked and not c.done:
            return self._fail(c, "closed before the last chunk")
        self._page(c)

    def _page(self, c):
        """A page request's whole answer (status 200): checked, then closed."""
        body = b"".join(c.body)
        if c.length is not None:
            body = body[:c.length]
        if c.path == "/":
            ok = is_ladder_page(body)
            why = "not the ladder page"
        else:
            try:
                j = json.loads(body)
                ok, why = isinstance(j, dict) and "matches" in j, "no \"matches\" in the JSON"
            except ValueError:
                ok, why = False, "not JSON"
        if ok:
            c.spec.requests += 1
            self._close(c)
            self._next(c)
        else:
            self._fail(c, why)

    def _events(self, c, data):
        """Server-sent events: lines ended by LF (the server's, arena_sse_set);
        `id:` and `data:` fields, a blank line ending an event, `:` a
        comment (the keep-alives). False when the stream failed."""
        x = c.spec
        buf = x.tail + data
        if not x.tail and x.data is None and self._whole(x, buf):
            return True
        end = buf.rfind(b"\n") + 1
        x.tail = buf[end:]
        if len(x.tail) > MAX_LINE:
            self._fail(c, "a line over %d bytes" % MAX_LINE)
            return False
        for line in buf[:end - 1].split(b"\n") if end else ():
            if not line:
                if x.data is not None:
                    data, x.data = x.data, None
                    try:
                        eid = int(x.eid)
                    except (TypeError, ValueError):
                        eid = None
                    if self._got(x, eid, eid, 1) == 0:
                        self._sample(x, eid, data)
                continue
            if line[0] == 58:   # ':'
                continue
            name, _, value = line.partition(b":")
            if value[:1] == b" ":
                value = value[1:]
            if name == b"data":
                x.data = value if x.data is None else x.data + b"\n" + value
            elif name == b"id":
                x.eid = value
        return True

    def _whole(self, x, buf):
        """Whether buf, from the start of an event, is whole events of the
        server's form, the lines "id: N", "data: JSON" and a blank one each,
        N following the one before: then taken at once with C loops, as
        _dechunk's chunks are; else (a comment, a gap, another form) the
        line by line parse."""
        events = buf.split(b"\n\n")
        k = len(events) - 1
        # Each event of that form holds one LF, and the blank line ends it.
        if not k or events[-1] or buf.count(b"\n") != 3 * k:
            return False
        try:
            a = int(events[0][4:events[0].find(b"\n")])
        except ValueError:
            return False
        if not all(map(bytes.startswith, events,
                       [b"id: %d\ndata: " % i for i in range(a, a + k)])):
            return False
        x.eid = b"%d" % (a + k - 1)
        j = self._got(x, a, a + k - 1, k)
        if j is not None:
            self._sample(x, a + j, events[j].partition(b"\n")[2][len(b"data: "):])
        return True

    def _got(self, x, first, last, k):
        """k events received, with the ids first to last, following each
        other (None: an event without a number for its id): counted, and
        checked to follow the last one before. The index among them of the
        one to sample, if any (one in SAMPLE)."""
        if x.count == 0:
            x.first = first
        elif first is None or x.last is None or first != x.last + 1:
            x.gap = True
        x.last = last
        j = (x.i - x.count) % SAMPLE   # the first event here numbered i modulo SAMPLE
        x.count += k
        return j if j < k else None

    def _sample(self, x, eid, data):
        try:
            json.loads(data)
        except ValueError:
            self._error(x, "/api/events: event %s is not JSON" % eid)
