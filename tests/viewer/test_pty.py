#!/usr/bin/python3
"""`arena replay show` under a pseudo-terminal of 80x24: keys step forward
and back, autoplay plays and pauses at a speed the status line shows, views
switch (a seat's view shows its hand and no other seat's cards, the public
view no hand), g N Enter goes to decision N, every screen of every game fits
80x24 (and a narrower terminal after a resize), Bruise Jack's cards are
readable (colour, number, suit shape) with their key on the screen, q
quits with status 0 and the terminal modes are restored on exit and on
SIGTERM.
Usage: test_pty.py ARENA"""
import fcntl, os, pty, re, select, signal, struct, subprocess, sys, tempfile, termios, time

ARENA = os.path.abspath(sys.argv[1])
work = tempfile.mkdtemp()
rpl = os.path.join(work, "t.rpl")
subprocess.run([ARENA, "play", "taylor-blackjack", "greedy", "random", "--seed", "1",
                "--opt", "games=1", "--opt", "turn_cap=20", "--replay", rpl],
               check=True, stdout=subprocess.DEVNULL)
failures = []


def set_size(fd, rows, cols):
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


def spawn(*args, path=None):
    """The viewer of path (t.rpl) on a pseudo-terminal of 80x24."""
    pid, fd = pty.fork()
    if pid == 0:
        set_size(0, 24, 80)
        env = dict(os.environ, TERM="xterm", LANG="C.UTF-8", LC_ALL="C.UTF-8")
        env.pop("NO_COLOR", None)
        os.execve(ARENA, [ARENA, "replay", "show", path or rpl, *args], env)
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

# Stepping: right, l, enter forward; left, h back; G last; < first; q quits.
pid, fd = spawn()
s = read_until(fd, r"\[0/%d\]" % TOTAL)
check("first screen shows the deal", "== deal ==" in s)
check("the result is not shown before the end", "== result ==" not in s)
check("who decides now is shown", "to act: seat 1 (random)" in s)
check("colours on a terminal", "\x1b[1m" in s)
check("suit symbols on a UTF-8 terminal", "\u2660" in s)
for key, want in [(b"l", 1), (b"\x1b[C", 2), (b"\r", 3), (b"h", 2), (b"\x1b[D", 1)]:
    os.write(fd, key)
    s = read_until(fd, r"\[%d/%d\]" % (want, TOTAL))
    check("key %r shows decision %d" % (key, want), "== decision %d/%d ==" % (want, TOTAL) in s)
os.write(fd, b"G")
s = read_until(fd, r"\[%d/%d\]" % (TOTAL, TOTAL))
check("G shows the result", "== result ==" in s)
os.write(fd, b"<")
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
check("--seat 1 hides seat 0's hand", not re.search(r"seat 0 greedy .*cards?:", s))
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

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def plain_lines(screen):
    """The screen's lines as drawn: escapes removed, carriage returns too."""
    return ANSI.sub("", screen).replace("\r", "").split("\n")


def fits(desc, screen, rows=24, cols=80):
    lines = plain_lines(screen)
    wide = [l for l in lines if len(l) > cols]
    check("%s: no line wider than %d (%r)" % (desc, cols, wide[:1]), not wide)
    check("%s: at most %d rows (%d)" % (desc, rows, len(lines)), len(lines) <= rows)
    check("%s: the key line last" % desc, lines[-1].rstrip().endswith("q quit"))


def hand_cards(screen, seat):
    """The cards after "cards:" ("card:") on seat's line, its continuations too."""
    lines = plain_lines(screen)
    for i, l in enumerate(lines):
        m = re.match(r"  seat %d \S+ +score \S+ +\d+ cards?:(.*)$" % seat, l)
        if m:
            cards = m.group(1).split()
            col = l.index(":", l.index(" card")) + 2
            for cont in lines[i + 1:]:
                if not cont.startswith(" " * col) or cont[col:col + 1] == " ":
                    break
                cards += cont.split()
            return cards
    return None


def goto(fd, n, total):
    os.write(fd, b"g" + str(n).encode() + b"\r")
    return read_until(fd, r"\[%d/%d\]" % (n, total))


# Autoplay: + and - change the speed the status line shows, space plays
# (frames advance), space again pauses.
pid, fd = spawn()
s = read_until(fd, r"\[0/%d\] .*paused 1 s/frame" % TOTAL)
os.write(fd, b"++")
s = read_until(fd, r"paused 0.25 s/frame")
os.write(fd, b"-")
s = read_until(fd, r"paused 0.5 s/frame")
check("- slows down", "0.5 s/frame" in s)
os.write(fd, b"+ ")
s = read_until(fd, r"\[[1-9]\d*/%d\] .*playing 0.25 s/frame" % TOTAL)
check("space plays: the frames advance", "== decision" in s)
os.write(fd, b" ")
s = read_until(fd, r"paused 0.25 s/frame")
paused_at = re.search(r"\[(\d+)/", s).group(1)
os.write(fd, b"\x1b[C")
s = read_until(fd, r"\[\d+/%d\] .*paused" % TOTAL)
check("after the pause, right steps one frame (%s)" % paused_at,
      re.search(r"\[%d/" % (int(paused_at) + 1), s))
os.write(fd, b" ")
read_until(fd, r"playing")
os.write(fd, b"l")
s = read_until(fd, r"paused")
check("a step key while playing pauses", "playing" not in s)
os.write(fd, b">")
s = read_until(fd, r"\[%d/%d\]" % (TOTAL, TOTAL))
os.write(fd, b"?")
s = read_until(fd, r"== keys ==")
check("? shows the keys", "g N enter" in s and "space" in s)
fits("the key help", s)
os.write(fd, b"?")
read_until(fd, r"== result ==")
os.write(fd, b"q")
_, status = os.waitpid(pid, 0)
check("q exits 0 after autoplay", os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0)
check("terminal modes restored after autoplay", modes_restored(fd))
os.close(fd)

# Views: v cycles everything, public, seat 0, seat 1; a digit picks a seat.
# A seat's view shows its hand as the full view does and none of the other
# seat's cards; the public view shows no hand; seat views have no seed, no
# decision numbers, and g does not read one.
pid, fd = spawn()
full = read_until(fd, r"\[0/%d\]" % TOTAL)
c0, c1 = hand_cards(full, 0), hand_cards(full, 1)
check("the full view shows both hands", c0 and c1)
os.write(fd, b"1")
s = read_until(fd, r"\[seat 1\] view: seat 1")
check("seat 1's view shows its hand", hand_cards(s, 1) == c1)
text = ANSI.sub("", s)
leaked = [c for c in c0 or [] if re.search(r"(?<!\S)%s(?!\S)" % re.escape(c), text)]
check("seat 1's view shows none of seat 0's cards (%r)" % leaked, not leaked)
check("seat 1's view: no seed, no decision numbers",
      not re.search(r"seed|decisions|/%d\b" % TOTAL, text))
os.write(fd, b"g")
s = read_until(fd, r"g: decision numbers")
check("g reads no number in a seat's view", "go to decision" not in s)
os.write(fd, b"v")
s = read_until(fd, r"\[%d/%d\] view: everything" % (0, TOTAL))
os.write(fd, b"v")
s = read_until(fd, r"\[public\] view: public")
check("the public view shows no hand", not re.search(r"cards?:", s))
check("the public view: no seed", "seed" not in s)
os.write(fd, b"v")
s = read_until(fd, r"\[seat 0\] view: seat 0")
check("v: seat 0's view shows its hand", hand_cards(s, 0) == c0 and hand_cards(s, 1) is None)
os.write(fd, b"V")
read_until(fd, r"\[public\]")
os.write(fd, b"V")
read_until(fd, r"view: everything")
s = goto(fd, 12, TOTAL)
check("g 12 enter shows decision 12", "== decision 12/%d ==" % TOTAL in s)
os.write(fd, b"g99\r")
s = read_until(fd, r"no decision 99")
check("g 99: stays at decision 12", "[12/%d]" % TOTAL in s)
os.write(fd, b"<")
read_until(fd, r"\[0/%d\]" % TOTAL)
os.write(fd, b"\x1b[F")
read_until(fd, r"\[%d/%d\]" % (TOTAL, TOTAL))
os.write(fd, b"\x1b[H")
read_until(fd, r"\[0/%d\]" % TOTAL)
os.write(fd, b"q")
_, status = os.waitpid(pid, 0)
check("q exits 0 after views", os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0)
check("terminal modes restored after views", modes_restored(fd))
os.close(fd)

# Every game fits 80x24 in every view at the deal, a middle decision and the
# end, its hands wrapped between cards; after a resize to 60 columns the
# screen is redrawn to fit them.
subprocess.run(["bash", "-c", "source \"$1\" && play_all \"$2\"", "-",
                os.path.join(os.path.dirname(os.path.abspath(__file__)), "matches.sh"), ARENA],
               check=True, cwd=work)
for game in ["taylor-blackjack", "brawljack", "bruise-jack", "jack-in-the-box", "bombs"]:
    path = os.path.join(work, game + ".rpl")
    total = int(re.search(r"(\d+) decisions", subprocess.run(
        [ARENA, "replay", "verify", path], check=True, capture_output=True,
        text=True).stdout).group(1))
    pid, fd = spawn(path=path)
    s = read_until(fd, r"\[0/%d\]" % total)
    fits("%s deal" % game, s)
    for c in hand_cards(s, 0) or []:
        check("%s: card %r whole" % (game, c), re.fullmatch(r"(10|[2-9TJQKAX])[\u2660-\u2666BR]", c))
    if game == "bruise-jack":
        # Its own cards readable: colour initial, number, suit shape; the key.
        text = ANSI.sub("", s)
        cards = re.findall(r"^    (?:colour|number|suit) +\d+(?: claimed)?:(.*)$", text, re.M)
        check("bruise-jack: cards drawn %r" % cards[:2], cards and all(
            re.fullmatch(r"[KRYGB][?1-4][\u2731\u25cf\u2665\u25b2\u25a0]", c) for c in " ".join(cards).split()))
        check("bruise-jack: no card written as a code", not re.search(r"c\dn\ds\d", text))
        check("bruise-jack: the key", "key: colour K R Y G B (black red yellow green blue)" in text and
              "(blob circle heart triangle square)" in text)
    for n in (total // 2, total):
        s = goto(fd, n, total)
        fits("%s decision %d" % (game, n), s)
        views = 3 + int(re.search(r"(\d+) seats", ANSI.sub("", s)).group(1))
        for k in range(1, views):
            os.write(fd, b"v")
            s = read_until(fd, r"view: (public|seat|everything)")
            fits("%s decision %d, view %d" % (game, n, k), s)
            if "[public]" in s:
                check("%s: the public view shows no hand" % game,
                      not re.search(r"cards?:|drawn |score \S+ +centre ", ANSI.sub("", s)))
    set_size(fd, 20, 60)
    os.kill(pid, signal.SIGWINCH)
    time.sleep(0.3)
    os.write(fd, b"\x1b[D")
    s = read_until(fd, r"\[%d/%d\]" % (total - 1, total))
    fits("%s at 60x20" % game, s, rows=20, cols=60)
    os.write(fd, b"q")
    _, status = os.waitpid(pid, 0)
    check("%s: q exits 0" % game, os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0)
    os.close(fd)

print("viewer_pty: %d failures" % len(failures))
sys.exit(1 if failures else 0)
