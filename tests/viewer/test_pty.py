#!/usr/bin/python3
"""`arena replay show` under a pseudo-terminal: keys step forward and back,
q quits with status 0, and the terminal modes are restored on exit and on
SIGTERM. Usage: test_pty.py ARENA"""
import os, pty, re, select, signal, subprocess, sys, tempfile, termios, time

ARENA = sys.argv[1]
work = tempfile.mkdtemp()
rpl = os.path.join(work, "t.rpl")
subprocess.run([ARENA, "play", "taylor-blackjack", "greedy", "random", "--seed", "1",
                "--opt", "games=1", "--opt", "turn_cap=20", "--replay", rpl],
               check=True, stdout=subprocess.DEVNULL)
failures = []


def spawn(*args):
    pid, fd = pty.fork()
    if pid == 0:
        env = dict(os.environ, TERM="xterm", LANG="C.UTF-8", LC_ALL="C.UTF-8")
        env.pop("NO_COLOR", None)
        os.execve(ARENA, [ARENA, "replay", "show", rpl, *args], env)
    return pid, fd


def read_until(fd, pattern, timeout=10.0):
    """Reads until the text after the last screen clear is a whole screen
    (its last line, the key help, has arrived: the viewer writes a screen
    line by line) and matches pattern."""
    buf = b""
    end = time.time() + timeout
    while time.time() < end:
        r, _, _ = select.select([fd], [], [], 0.2)
        if r:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            buf += chunk
            screen = buf.decode("utf-8", "replace").split("\x1b[2J")[-1]
            if "q quit" in screen and re.search(pattern, screen):
                return screen
    raise AssertionError("timed out waiting for %r; screen: %r" % (pattern, buf[-400:]))


def check(desc, cond):
    if not cond:
        failures.append(desc)
        print("FAIL:", desc)


def modes_restored(fd):
    lflag = termios.tcgetattr(fd)[3]
    return bool(lflag & termios.ICANON) and bool(lflag & termios.ECHO)


# The replay's decisions (tests/viewer/expected/taylor-blackjack.txt).
TOTAL = 37

# Stepping: right, l, space forward; left, h back; G last; g first; q quits.
pid, fd = spawn()
s = read_until(fd, r"\[0/%d\]" % TOTAL)
check("first screen shows the deal", "== deal ==" in s)
check("the result is not shown before the end", "== result ==" not in s)
check("who decides now is shown", "to act: seat 1 (random)" in s)
check("colours on a terminal", "\x1b[1m" in s)
check("suit symbols on a UTF-8 terminal", "\u2660" in s)
for key, want in [(b"l", 1), (b"\x1b[C", 2), (b" ", 3), (b"h", 2), (b"\x1b[D", 1)]:
    os.write(fd, key)
    s = read_until(fd, r"\[%d/%d\]" % (want, TOTAL))
    check("key %r shows decision %d" % (key, want), "== decision %d/%d ==" % (want, TOTAL) in s)
os.write(fd, b"G")
s = read_until(fd, r"\[%d/%d\]" % (TOTAL, TOTAL))
check("G shows the result", "== result ==" in s)
os.write(fd, b"g")
read_until(fd, r"\[0/%d\]" % TOTAL)
os.write(fd, b"q")
_, status = os.waitpid(pid, 0)
check("q exits 0", os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0)
check("terminal modes restored after q", modes_restored(fd))
os.close(fd)

# A seat's view steps through what that seat saw only: no seed, no
# decision numbers, no total; who decides now; the result at the end only.
pid, fd = spawn("--seat", "1")
s = read_until(fd, r"\[seat 1\]")
check("--seat 1 hides seat 0's hand", not re.search(r"seat 0 greedy .*cards:", s))
check("--seat 1 shows seat 0's card count", re.search(r"seat 0 greedy .*score 0 +7 cards\r?\n", s))
check("--seat 1: no seed, no number of decisions", not re.search(r"seed|decisions|/%d\b" % TOTAL, s))
check("--seat 1 shows who decides", "to act: seat 1 (random)" in s)
os.write(fd, b"l")
s = read_until(fd, r"seat 1 sees")
check("--seat 1 steps without decision numbers", not re.search(r"decision|/%d" % TOTAL, s))
check("--seat 1: no result before the end", "== result ==" not in s)
os.write(fd, b"G")
s = read_until(fd, r"== result ==")
check("--seat 1: G shows the result", "place 1" in s)
os.write(fd, b"q")
os.waitpid(pid, 0)
os.close(fd)

# SIGTERM while in raw mode: the terminal is restored, then the signal kills.
pid, fd = spawn()
read_until(fd, r"\[0/%d\]" % TOTAL)
os.kill(pid, signal.SIGTERM)
_, status = os.waitpid(pid, 0)
check("SIGTERM ends the viewer", os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGTERM)
check("terminal modes restored after SIGTERM", modes_restored(fd))
os.close(fd)

print("viewer_pty: %d failures" % len(failures))
sys.exit(1 if failures else 0)
