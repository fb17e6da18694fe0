#!/usr/bin/python3
"""Waits until a running arena has reached a point, read in its database.

    kill_when.py [--cont] PID DB SQL

Polls DB (read-only, every 2 ms) until SQL, a query of one number, gives
one that is not 0, then sends PID SIGKILL; returns without killing when PID
has ended first (a zombie until the shell waits for it). The point is found
in the database, never by timing. The caller then waits for PID. --cont:
PID was started stopped (SIGSTOP) and is sent SIGCONT once the polling has
begun, so that a short run cannot pass the point while Python starts.
"""
import os
import signal
import sqlite3
import sys
import time

cont = sys.argv[1] == "--cont"
args = sys.argv[2:] if cont else sys.argv[1:]
pid, db, sql = int(args[0]), args[1], args[2]
while True:
    try:
        if open("/proc/%d/stat" % pid).read().split(")")[-1].split()[0] == "Z":
            break
    except OSError:
        break
    try:
        c = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
        n = c.execute(sql).fetchone()[0]
        c.close()
        if n:
            os.kill(pid, signal.SIGKILL)
            break
    except (sqlite3.Error, ProcessLookupError):
        pass
    if cont:
        os.kill(pid, signal.SIGCONT)
        cont = False
    time.sleep(0.002)
