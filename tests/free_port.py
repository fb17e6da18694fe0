#!/usr/bin/python3
"""Prints a TCP port on 127.0.0.1 that is free now, for tests whose bots
must know the port before the arena binds it.

It is drawn at random below the kernel's ephemeral range
(/proc/sys/net/ipv4/ip_local_port_range), where a port bound with port 0 or
the source port of an outgoing connection is never taken: tests that run at
the same time (ctest -j) cannot steal it between this check and the bind,
as they could a port the kernel handed out."""
import random
import socket


def ephemeral_low():
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            return int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return 32768


def main():
    hi = min(ephemeral_low(), 65536)
    lo = min(20000, hi // 2)
    for _ in range(200):
        port = random.randrange(lo, hi)
        s = socket.socket()
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            continue
        finally:
            s.close()
        print(port)
        return 0
    raise SystemExit("no free port found between %d and %d" % (lo, hi))


if __name__ == "__main__":
    raise SystemExit(main())
