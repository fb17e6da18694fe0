#!/usr/bin/python3
"""Bot logs in replays (docs/replay-format.md, "Bot logs"), with real processes.

    test_botlogs.py ARENA PLUGINS_DIR SOURCE_DIR

One match of Taylor Blackjack per kind of bot that logs, against random
(which logs nothing): an in-process plugin (logger.so: host log() at create
and at every decision), the same plugin hosted, the same bot as a cmd: bot
through the C client (its log calls travel in the answers' `log`), the C
client writing to stderr as well, a Python SDK bot (match.log()) and one
writing to stderr. In each replay every log record sits right after the
decision it belongs to, at exactly the decisions the logging seat was
asked, with that decision's own line (the bot's turn number matches), the
create/start line at the first; random's seat has none; the replay
verifies and its digest is the same whichever kind played (logs are not
in the digest). Then floods: a plugin logging more than a decision keeps,
over a whole match (4096 bytes a decision, then 262144 a match, each cut
with its marker and nothing after the match's), and a hosted plugin, a C
client and a Python bot flooding their logs or stderr (cut at 4096): every
match ends without a fault. Old replays (the fuzz corpus's) still verify.
"""
import json
import os
import subprocess
import sys
import tempfile

import msgpack

ARENA, PLUGINS, SRC = sys.argv[1:4]
LOGGER = os.path.join(PLUGINS, "logger.so")
LOGGERBOT = os.path.join(PLUGINS, "loggerbot")
LOGBOT = os.path.join(SRC, "tests", "cli", "logbot.py")
DECISION_MAX = 4096
DECISION_CUT = "\n[log cut: a decision keeps 4096 bytes]\n"
MATCH_MAX = 262144
MATCH_CUT = "\n[log cut: a seat keeps 262144 bytes of logs a match; later ones are dropped]\n"
FAILS = []


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("FAIL: " + what, file=sys.stderr)


def play(tmp, name, spec, opts=(), seed=11):
    """Plays spec (seat 0) against random; returns (result, records)."""
    rpl = os.path.join(tmp, name + ".rpl")
    with open(os.path.join(tmp, name + ".err"), "wb") as err:
        out = subprocess.run([ARENA, "play", "taylor-blackjack", "--bot", spec, "--bot", "random",
                              "--seed", str(seed), "--replay", rpl, "--json"] + list(opts),
                             stdout=subprocess.PIPE, stderr=err, check=False)
    if out.returncode != 0:
        check(False, "%s: arena play exited %d" % (name, out.returncode))
        return None, []
    ver = subprocess.run([ARENA, "replay", "verify", rpl], capture_output=True, check=False)
    check(ver.returncode == 0, "%s: replay verify: %s" % (name, ver.stdout + ver.stderr))
    with open(rpl, "rb") as f:
        return json.loads(out.stdout), list(msgpack.Unpacker(f, raw=False))


def logs_of(name, records):
    """{(decision, seat): text}, checking each log record's place: after its
    decision's record (or another log record of it), seats ascending."""
    logs, last_d, last_seat = {}, None, -1
    for r in records[1:]:
        t = r.get("t")
        if t == "d":
            last_d, last_seat = r, -1
        elif t == "log":
            ok = last_d is not None and r["n"] == last_d["n"] and r["s"] > last_seat
            check(ok, "%s: log record %r is not after its decision" % (name, (r["n"], r["s"])))
            last_seat = r["s"]
            logs[(r["n"], r["s"])] = r["text"]
    return logs


def asked(records, seat):
    """The decisions put to seat's bot, in order (no fault in these matches:
    asked = not forced)."""
    out = []
    for r in records[1:]:
        if r.get("t") == "d":
            for e in r["asked"]:
                if e["s"] == seat and (e["i"] >= 0 or e["f"] != "none"):
                    out.append(r["n"])
    return out


def no_faults(name, result):
    check(result is not None and all(s["faults"] == 0 for s in result["seats"]),
          "%s: faults in %r" % (name, result and [s["faults"] for s in result["seats"]]))


def check_kind(tmp, name, spec, line, first, extra=None):
    """Seat 0's log at each decision it was asked: its own line (turn k at
    its k-th decision), the first line at the first (first None: no such
    line), extra's line too."""
    result, records = play(tmp, name, spec)
    no_faults(name, result)
    logs = logs_of(name, records)
    want = asked(records, 0)
    check(len(want) > 10, "%s: only %d decisions asked" % (name, len(want)))
    check(sorted(logs) == [(n, 0) for n in want],
          "%s: logs at %s, asked at %s" % (name, sorted(logs)[:8], want[:8]))
    for k, n in enumerate(want, 1):
        text = logs.get((n, 0), "")
        check(line % k in text, "%s: decision %d lacks %r: %r" % (name, n, line % k, text))
        if extra:
            check(extra % k in text, "%s: decision %d lacks %r: %r" % (name, n, extra % k, text))
        if first:
            check((first in text) == (k == 1), "%s: %r at decision %d: %r" % (name, first, n,
                                                                         text))
    return result["digest"] if result else None


def check_match_flood(tmp):
    """A plugin logging 5000 bytes a decision: every log cut at 4096 with
    its marker; the seat's logs of the match stop at 262144 bytes, the
    match's marker once, in the seat's last record; no fault."""
    result, records = play(tmp, "flood", LOGGER + ":flood=5000")
    no_faults("flood", result)
    logs = logs_of("flood", records)
    texts = [logs[k] for k in sorted(logs)]
    check(len(asked(records, 0)) > 70, "flood: too few decisions to reach the match's bound")
    check(all(len(t.encode()) <= DECISION_MAX for t in texts), "flood: a log over 4096 bytes")
    check(all(t.endswith(DECISION_CUT) for t in texts[:-1]), "flood: a log without its marker")
    total = sum(len(t.encode()) for t in texts)
    check(MATCH_MAX < total <= MATCH_MAX + len(MATCH_CUT),
          "flood: %d bytes of logs in the match" % total)
    check([MATCH_CUT in t for t in texts].count(True) == 1 and texts[-1].endswith(MATCH_CUT),
          "flood: the match's marker is not once, last")


def check_floods(tmp):
    """Hosted, C client and Python floods, logs and stderr: each decision's
    log cut at 4096 with its marker, no fault (a short match: games=1)."""
    short = ["--opt", "games=1"]
    cases = [("hosted-flood", "hosted:" + LOGGER + ":flood=100000", []),
             ("client-flood", "cmd[flood=100000]:" + LOGGERBOT, []),
             ("py-flood", "cmd:/usr/bin/python3 %s flood 100000" % LOGBOT, []),
             ("py-stderrflood", "cmd:/usr/bin/python3 %s stderrflood 100000" % LOGBOT, [])]
    for name, spec, opts in cases:
        result, records = play(tmp, name, spec, short + opts)
        no_faults(name, result)
        logs = logs_of(name, records)
        check(sorted(logs) == [(n, 0) for n in asked(records, 0)], "%s: logs not at each decision"
              % name)
        check(all(len(t.encode()) <= DECISION_MAX and t.endswith(DECISION_CUT)
                  for t in logs.values()), "%s: a log not cut at 4096 with its marker" % name)


def main():
    with tempfile.TemporaryDirectory() as tmp:
        logger_line, logger_first = "seat 0 turn %d: ", "create seat 0 of taylor-blackjack"
        digests = [
            check_kind(tmp, "plugin", LOGGER, logger_line, logger_first),
            check_kind(tmp, "hosted", "hosted:" + LOGGER, logger_line, logger_first),
            check_kind(tmp, "client", "cmd:" + LOGGERBOT, logger_line, logger_first),
            check_kind(tmp, "client-stderr", "cmd[stderr=1]:" + LOGGERBOT, logger_line,
                       logger_first, "stderr seat 0 turn %d: "),
            check_kind(tmp, "python", "cmd:/usr/bin/python3 %s log" % LOGBOT,
                       "py seat 0 turn %d: ", "py start seat 0"),
            check_kind(tmp, "python-stderr", "cmd:/usr/bin/python3 %s stderr" % LOGBOT,
                       "stderr py seat 0 turn %d: ", None),
        ]
        check(len(set(digests)) == 1, "the digests differ by kind: %s" % digests)
        check_match_flood(tmp)
        check_floods(tmp)
    corpus = os.path.join(SRC, "tests", "fuzz", "corpus", "replay")
    for old in ("small-2p.rpl", "small-6p.rpl", "old-faults-2p.rpl"):
        ver = subprocess.run([ARENA, "replay", "verify", os.path.join(corpus, old)],
                             capture_output=True, check=False)
        check(ver.returncode == 0, "old replay %s does not verify" % old)
    if FAILS:
        print("%d failure(s)" % len(FAILS), file=sys.stderr)
        return 1
    print("bot logs: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
