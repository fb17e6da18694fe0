#!/usr/bin/python3
"""A cmd: bot that tries what a confined bot must not do (test_confine.sh).

At its first decision (the tournament's database and replay directory
exist by then) it tries, and reports on stderr in one line starting
"spy:", each as KEY=RESULT:

  cmdline  read /proc/$JACKARENA_ARENA_PID/cmdline (where --db is)
  environ  read /proc/$JACKARENA_ARENA_PID/environ
  db       read the database (the path from the arena's command line when
           it could read it, else --db) and count the planned seeds
  replays  list the replay directory (--replays)
  outside  write the file --outside
  scratch  write a file in $TMPDIR
  tcp      connect to a closed TCP port on 127.0.0.1 (refused when allowed,
           denied when confined)
  signal   send SIGCONT (harmless) to the arena
  limits   its address-space, file-size and core limits in MiB
           ("as:512,fsize:64,core:0"; "none" for no limit)

then plays random legal actions like any bot. Results: "denied" (EACCES or
EPERM), or what it got ("read", "seeds:N", "listed", "written", "refused",
"sent"), or "error:<exception>".
"""
import argparse
import errno
import os
import resource
import signal
import socket
import sqlite3
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "sdk", "python"))
import jackarena  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--db", required=True)
ap.add_argument("--replays", required=True)
ap.add_argument("--outside", required=True)
ap.add_argument("--port", type=int, required=True)
args = ap.parse_args()


def attempt(fn):
    try:
        return fn()
    except OSError as e:
        if e.errno in (errno.EACCES, errno.EPERM):
            return "denied"
        return "error:%s" % e.strerror
    except Exception as e:  # sqlite3 errors and the like
        return "error:%s" % str(e).replace(" ", "_")


def spy():
    pid = int(os.environ["JACKARENA_ARENA_PID"])
    found = {}

    def cmdline():
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            argv = f.read().split(b"\0")
        if b"--db" in argv:
            found["db"] = argv[argv.index(b"--db") + 1].decode()
        return "read"

    def environ():
        with open("/proc/%d/environ" % pid, "rb") as f:
            return "read" if b"PATH=" in f.read() else "empty"

    def db():
        path = found.get("db", args.db)
        if not os.path.isabs(path):  # relative to the arena's working directory
            path = os.path.join(os.getcwd(), path)
        with open(path, "rb") as f:  # raises when confined
            if f.read(16) != b"SQLite format 3\0":
                return "not-sqlite"
        c = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
        n = c.execute("SELECT COUNT(seed) FROM matches").fetchone()[0]
        return "seeds:%d" % n

    def replays():
        os.listdir(args.replays)
        return "listed"

    def write(path):
        with open(path, "w") as f:
            f.write("spy\n")
        return "written"

    def tcp():
        s = socket.socket()
        try:
            s.connect(("127.0.0.1", args.port))
            return "connected"
        except ConnectionRefusedError:
            return "refused"
        finally:
            s.close()

    def sig():
        os.kill(pid, signal.SIGCONT)
        return "sent"

    def limits():
        def mib(res):
            soft = resource.getrlimit(res)[0]
            return "none" if soft == resource.RLIM_INFINITY else str(soft >> 20)
        return "as:%s,fsize:%s,core:%s" % (mib(resource.RLIMIT_AS), mib(resource.RLIMIT_FSIZE),
                                            mib(resource.RLIMIT_CORE))

    r = [("cmdline", attempt(cmdline)), ("environ", attempt(environ)), ("db", attempt(db)),
         ("replays", attempt(replays)), ("outside", attempt(lambda: write(args.outside))),
         ("scratch", attempt(lambda: write(os.path.join(os.environ["TMPDIR"], "spy.txt")))),
         ("tcp", attempt(tcp)), ("signal", attempt(sig)), ("limits", attempt(limits))]
    print("spy: " + " ".join("%s=%s" % kv for kv in r), file=sys.stderr, flush=True)


class SpyBot(jackarena.Bot):
    name = "spybot"
    version = "1"

    def __init__(self):
        self.spied = False

    def act(self, match, obs, legal):
        if not self.spied:
            self.spied = True
            spy()
        return match.rng.randrange(len(legal))


if __name__ == "__main__":
    SpyBot().run()
