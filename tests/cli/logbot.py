#!/usr/bin/python3
"""A Python SDK bot that logs, for tests/cli/test_botlogs.py.

    logbot.py MODE [BYTES]

It plays the first legal action. MODE:
  log          match.log() one line in start() and one per decision naming
               its seat and turn
  stderr       the decision's line printed on stderr instead
  flood        BYTES of match.log() a decision (lines of 100 characters)
  stderrflood  BYTES on stderr a decision
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "sdk", "python"))
import jackarena  # noqa: E402

MODE = sys.argv[1]
BYTES = int(sys.argv[2]) if len(sys.argv) > 2 else 0


class LogBot(jackarena.Bot):
    name = "logbot"
    version = "1.0"

    def start(self, match):
        if MODE == "log":
            match.log("py start seat", match.seat)

    def act(self, match, obs, legal):
        line = "py seat %d turn %d: %d choices" % (match.seat, match.turn, len(legal))
        if MODE == "log":
            match.log(line)
        elif MODE == "stderr":
            print("stderr " + line, file=sys.stderr, flush=True)
        elif MODE == "flood":
            for _ in range(BYTES // 101 + 1):
                match.log("y" * 100)
        elif MODE == "stderrflood":
            sys.stderr.write(("z" * 99 + "\n") * (BYTES // 100 + 1))
            sys.stderr.flush()
        return 0


if __name__ == "__main__":
    LogBot().run()
