#!/usr/bin/python3
"""A bot that leaves processes behind (test_reap.sh).

Usage: escapebot.py RAWBOT MARK RELEASE PORT [RAWBOT ARGS]...
       escapebot.py --sender MARK RELEASE PORT      (what it starts)

Before it plays, it forks a process that leaves the bot's process group and
session (setsid) and starts two processes there, then exits, so that both
are orphans outside the group the arena started:

  - a sleep (argv[0] "MARK-sleep"), alive for 600 s;
  - a sender, which waits for the file RELEASE to appear, then sends the
    datagram MARK to 127.0.0.1:PORT (UDP, which no confinement stops) and
    exits: a grandchild that would act long after its bot ended.

Both have JA_ESCAPE_MARK=MARK in their environment (the bot itself does
not), so the test finds exactly them in /proc. Then the bot becomes RAWBOT
(tests/proto/rawbot.py, a protocol client) with the remaining arguments,
and plays.
"""
import os
import socket
import sys
import time


def sender(mark, release, port):
    give_up = time.time() + 600  # a broken test leaves nothing for ever
    while not os.path.exists(release) and time.time() < give_up:
        time.sleep(0.05)
    if os.path.exists(release):
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.sendto(mark.encode(), ("127.0.0.1", int(port)))
    os._exit(0)


def escape(mark, release, port):
    os.setsid()
    os.environ["JA_ESCAPE_MARK"] = mark
    if os.fork() == 0:
        os.execv("/bin/sleep", [mark + "-sleep", "600"])
    if os.fork() == 0:  # a program of its own: /proc/PID/environ shows the mark
        os.execv(sys.executable, [sys.executable, __file__, "--sender", mark, release, port])
    os._exit(0)


def main():
    if sys.argv[1] == "--sender":
        sender(*sys.argv[2:5])
    rawbot, mark, release, port = sys.argv[1:5]
    pid = os.fork()
    if pid == 0:
        escape(mark, release, port)
    os.waitpid(pid, 0)
    os.execv(sys.executable, [sys.executable, rawbot] + sys.argv[5:])


if __name__ == "__main__":
    main()
