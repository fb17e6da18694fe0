#!/usr/bin/python3
"""`arena play GAME human BOT...` under a pseudo-terminal (docs/bots.md,
"Play against your bot"): a person plays a seat by typing numbers.

For each game, a short match in which the human always chooses action 1:
  - each screen is the seat's view exactly: its block of lines appears as
    a frame of `arena replay show --seat S` of the match's replay (the seat
    view the viewer tests hold to the boundary), with the legal actions
    numbered from 1 after it; nothing shows the seed before the result,
    and the moves are not printed;
  - the replay verifies, gives the digest printed, and records the label
    of choice 1 and the number of choices at each of the seat's decisions;
  - the same choices fed as a script (stdin a pipe) give the same digest.
Then, in Taylor Blackjack: a word, 0 and a number past the choices are
refused with one line and asked again; q, the end of the input (^D) and
Ctrl-C abandon the match (exit status 1, "match abandoned", no replay, no file
left beside it); Bombs' screens (from the first decision on) fit a
60-column terminal; `human` is
refused with one line where it makes no sense (tournament, bench, two
humans).
Usage: test_human_terminal.py ARENA"""
import os
import pty
import re
import select
import struct
import subprocess
import sys
import tempfile
import fcntl
import termios
import time

ARENA = os.path.abspath(sys.argv[1])
work = tempfile.mkdtemp()
failures = []
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
PROMPT = re.compile(r"your choice \(1-(\d+), q to quit\): $")

# (game, seats, options): short matches in which the human decides often.
MATCHES = [
    ("taylor-blackjack", ["human", "greedy"], ["--seed", "3", "--opt", "games=1",
                                               "--opt", "turn_cap=20"]),
    ("brawljack", ["human", "greedy"], ["--seed", "1", "--opt", "hands=1"]),
    ("bruise-jack", ["human", "greedy"], ["--seed", "1", "--opt", "hands=1"]),
    ("jack-in-the-box", ["random", "human"], ["--seed", "2", "--opt", "games=1"]),
    ("bombs", ["human", "greedy", "random"], ["--seed", "1", "--opt", "hands=1",
                                              "--opt", "tiebreak_hands=0"]),
]


def check(desc, cond):
    if not cond:
        failures.append(desc)
        print("FAIL:", desc, flush=True)
    return cond


def spawn(args, rows=50, cols=200):
    """arena ARGS on a pseudo-terminal of rows x cols (colours on, ASCII
    suits: the screens compare with the replay viewer's plain text)."""
    pid, fd = pty.fork()
    if pid == 0:
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        env = dict(os.environ, TERM="xterm", LANG="C", LC_ALL="C")
        env.pop("NO_COLOR", None)
        os.chdir(work)
        os.execve(ARENA, [ARENA, *args], env)
    return pid, fd


def read_more(fd, buf, guard=60.0):
    """Reads until a prompt ends the text or the program ends: (text,
    ended). The clock only guards against a hang."""
    end = time.monotonic() + guard
    while time.monotonic() < end:
        if PROMPT.search(ANSI.sub("", buf.decode("utf-8", "replace"))):
            return buf, False
        r, _, _ = select.select([fd], [], [], 0.2)
        if not r:
            continue
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            return buf, True
        if not chunk:
            return buf, True
        buf += chunk
    raise AssertionError("timed out; output: %r" % buf[-600:])


def plain(b):
    return ANSI.sub("", b.decode("utf-8", "replace")).replace("\r", "")


def finish(pid, fd):
    _, status = os.waitpid(pid, 0)
    os.close(fd)
    return os.WEXITSTATUS(status) if os.WIFEXITED(status) else -1


def play_as_human(game, seats, opts, replay, answer=b"1\n"):
    """Plays the match on a pty, answering every prompt with answer.
    Returns (screens: the text of each decision, the whole plain output,
    exit status)."""
    pid, fd = spawn(["play", game, *seats, *opts, "--replay", replay])
    screens, out, buf = [], "", b""
    while True:
        buf, ended = read_more(fd, buf)
        text = plain(buf)
        out += text
        buf = b""
        if ended:
            break
        screens.append(text)
        os.write(fd, answer)
    return screens, out, finish(pid, fd)


def view_block(screen):
    """The seat's view on a decision's screen: the lines after its title up
    to "your choices:"; and the choices' labels, by number."""
    body = screen.split("== your turn")[-1].split("\n", 1)[1]
    view, _, rest = body.partition("your choices:\n")
    labels = {}
    for m in re.finditer(r"(?:^|  )\s*(\d+)\) (.+?)(?=\s+\d+\) |\s*$)", rest, re.M):
        labels[int(m.group(1))] = m.group(2).strip()
    return view, labels


def seat_dump(replay, seat):
    return subprocess.run([ARENA, "replay", "show", replay, "--seat", str(seat)],
                          check=True, capture_output=True, text=True).stdout


def digest_of(text):
    m = re.search(r"^digest ([0-9a-f]{64})$", text, re.M)
    return m and m.group(1)


for game, seats, opts in MATCHES:
    seat = seats.index("human")
    rpl = os.path.join(work, game + ".rpl")
    screens, out, status = play_as_human(game, seats, opts, rpl)
    check("%s: exit status 0 (%d)" % (game, status), status == 0)
    check("%s: the human decides several times (%d)" % (game, len(screens)), len(screens) >= 3)
    before = out.split("\nresult after")[0]
    check("%s: no seed before the result" % game, not re.search(r"seed \d", before))
    check("%s: the seed with the result" % game, re.search(r"^seed \d+$", out, re.M))
    check("%s: the moves are not printed" % game, not re.search(r"^ +\d+  \S", before, re.M))
    check("%s: the replay is written" % game, "replay written to" in out)
    digest = digest_of(out)
    v = subprocess.run([ARENA, "replay", "verify", rpl], capture_output=True, text=True)
    check("%s: the replay verifies" % game, v.returncode == 0)
    check("%s: the replay's digest is the one printed" % game, digest and digest in v.stdout)
    # Every screen is a frame of the replay's seat view, and the seat's
    # records are choice 1 of each screen with its number of choices.
    dump = seat_dump(rpl, seat)
    recs = re.findall(r"^seat %d \(human\): (.+?)  \[(\d+) choices" % seat, dump, re.M)
    check("%s: one record per screen (%d, %d)" % (game, len(recs), len(screens)),
          len(recs) == len(screens))
    for k, sc in enumerate(screens):
        view, labels = view_block(sc)
        if not check("%s, decision %d: the view is a frame of the seat's view" % (game, k + 1),
                     view.strip() and view in dump):
            print(view)
            break
        check("%s, decision %d: choices numbered 1..N" % (game, k + 1),
              sorted(labels) == list(range(1, len(labels) + 1)))
        n = int(PROMPT.search(sc).group(1))
        check("%s, decision %d: the prompt offers the choices listed" % (game, k + 1),
              n == len(labels))
        if k < len(recs):
            check("%s, decision %d: choice 1 (%s) is what the replay records (%s)"
                  % (game, k + 1, labels.get(1), recs[k][0]),
                  labels.get(1) == recs[k][0] and int(recs[k][1]) == n)
    # The last screen is the seat's view of the end (the seat view's last
    # frame).
    end = out.split("== the end of the match ==\n")[-1].split("\nresult after")[0]
    last = dump.split("== result ==")[0].rsplit("\n==", 1)[-1].split("\n", 1)[1]
    check("%s: the end's screen is the seat's view of the end" % game,
          end.strip() and end.strip() in last)
    # The same choices as a script: the same match.
    again = subprocess.run([ARENA, "play", game, *seats, *opts], input="1\n" * len(screens),
                           capture_output=True, text=True)
    check("%s: the scripted replay of the choices ends well" % game, again.returncode == 0)
    check("%s: the same choices give the same digest" % game, digest_of(again.stdout) == digest)
    print("%s: %d decisions as the human, digest %s" % (game, len(screens), digest), flush=True)

# Bad answers are refused with one line and asked again; q abandons.
rpl = os.path.join(work, "quit.rpl")
pid, fd = spawn(["play", "taylor-blackjack", "me=human", "greedy", "--seed", "3",
                 "--opt", "games=1", "--replay", rpl])
buf, _ = read_more(fd, b"")
check("the intro says who the person plays", "You play seat 0 of Taylor Blackjack" in plain(buf))
for answer, why in [(b"draw\n", "'draw' is not a number"),
                    (b"0\n", "'0' is not one of the choices"),
                    (b"99\n", "'99' is not one of the choices"),
                    (b"\n", "type a number from 1 to")]:
    os.write(fd, answer)
    buf, ended = read_more(fd, b"")
    t = plain(buf)
    check("%r: refused (%s)" % (answer, why), not ended and why in t and "== your turn" not in t)
os.write(fd, b"q\n")
buf, ended = read_more(fd, b"")
t = plain(buf)
check("q: the match is abandoned", ended and "match abandoned: seat 0 (me) left the match at "
      "decision" in t and "it quit (the replay is not written)" in t)
check("q: exit status 1", finish(pid, fd) == 1)
check("q: no replay, no file beside it", not [f for f in os.listdir(work) if "quit" in f])

# The end of the input (^D on the terminal) abandons the match too.
pid, fd = spawn(["play", "taylor-blackjack", "human", "greedy", "--seed", "3",
                 "--opt", "games=1", "--replay", rpl])
read_more(fd, b"")
os.write(fd, b"1\n")
read_more(fd, b"")
os.write(fd, b"\x04")
buf, ended = read_more(fd, b"")
check("^D: the match is abandoned", ended and "its input ended before the match did" in plain(buf))
check("^D: exit status 1", finish(pid, fd) == 1)
check("^D: no replay", not os.path.exists(rpl))

# Ctrl-C at the prompt abandons the match too, and leaves no file behind
# (not even the replay's temporary one).
rpl_int = os.path.join(work, "intr.rpl")
pid, fd = spawn(["play", "taylor-blackjack", "human", "greedy", "--seed", "3",
                 "--opt", "games=1", "--replay", rpl_int])
read_more(fd, b"")
os.write(fd, b"1\n")
read_more(fd, b"")
os.write(fd, b"\x03")
buf, ended = read_more(fd, b"")
check("^C: the match is abandoned", ended and "it was interrupted (SIGINT: Ctrl-C)" in plain(buf))
check("^C: exit status 1", finish(pid, fd) == 1)
check("^C: no replay, no file beside it", not [f for f in os.listdir(work) if "intr" in f])

# Bombs' screens fit a terminal of 60 columns (hands wrapped between cards).
pid, fd = spawn(["play", "bombs", "human", "greedy", "random", "--seed", "1", "--opt",
                 "hands=1", "--opt", "tiebreak_hands=0"], rows=24, cols=60)
buf, out = b"", ""
for _ in range(4):
    buf, ended = read_more(fd, b"")
    out += plain(buf)
    if ended:
        break
    os.write(fd, b"1\n")
os.write(fd, b"q\n")
finish(pid, fd)
screen = out[out.find("== your turn"):]
wide = [l for l in screen.split("\n") if len(l) > 60]
check("bombs at 60 columns: no line of a screen wider (%r)" % wide[:1],
      not wide and "== your turn" in out)

# Refused where it makes no sense: one line each, exit status 2.
for args, want in [
        (["tournament", "taylor-blackjack", "--bots", "human,greedy"], "plays only in 'arena play'"),
        (["bench", "taylor-blackjack", "random", "--vs", "human"], "plays only in 'arena play'"),
        (["play", "taylor-blackjack", "human", "human"], "more than one human seat"),
        (["play", "taylor-blackjack", "human", "--bot", "me=human"], "more than one human seat")]:
    r = subprocess.run([ARENA, *args], capture_output=True, text=True, stdin=subprocess.DEVNULL)
    check("%s: refused (%r)" % (" ".join(args), r.stderr),
          r.returncode == 2 and want in r.stderr and r.stderr.count("\n") == 1)

print("play_human_terminal: %d failures" % len(failures))
sys.exit(1 if failures else 0)
