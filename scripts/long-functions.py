#!/usr/bin/env python3
"""Lists the C functions of the project's code longer than a limit.

The project writes long work as named steps (referee/match.c is the model;
docs/architecture.md, "Named steps"): no function of its own code is over
80 lines. Tests (tests/) are not counted. A function is what the project's
format gives it: its body opens with "{" in the first column and closes
with "}" in the first column; its length is the lines between the two.

Usage: long-functions.py [--limit N] [ROOT]   (ROOT: the source tree)
Exit status 1 when a function is over the limit, each listed as
"LINES FILE:LINE NAME"; 0 otherwise.
"""
import argparse
import os
import re
import sys

SKIP_DIRS = {"tests", ".git"}
NAME = re.compile(r"(\w+)\s*\(")


def c_files(root):
    for top, dirs, files in os.walk(root):
        rel = os.path.relpath(top, root)
        parts = [] if rel == "." else rel.split(os.sep)
        if parts and (parts[0] in SKIP_DIRS or parts[0].startswith("build")):
            dirs[:] = []
            continue
        dirs.sort()
        for f in sorted(files):
            if f.endswith(".c"):
                yield os.path.join(top, f)


def functions(lines):
    """(name, first line, length) of every function body in lines."""
    i = 0
    while i < len(lines):
        if lines[i].startswith("{"):
            # The signature: the lines above back to a blank line or the
            # end of a comment or declaration.
            j = i - 1
            while j > 0 and lines[j - 1].strip() and not lines[j - 1].rstrip().endswith(
                    ("*/", ";", "}")):
                j -= 1
            sig = " ".join(lines[j:i])
            k = i + 1
            while k < len(lines) and not lines[k].startswith("}"):
                k += 1
            m = NAME.search(sig)
            if m and "=" not in sig.split("(")[0]:
                yield m.group(1), j + 1, k - i - 1
            i = k
        i += 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=80)
    ap.add_argument("root", nargs="?", default=os.path.join(os.path.dirname(__file__), ".."))
    a = ap.parse_args()
    root = os.path.abspath(a.root)
    over = []
    for path in c_files(root):
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().split("\n")
        for name, line, n in functions(lines):
            if n > a.limit:
                over.append((n, os.path.relpath(path, root), line, name))
    over.sort(reverse=True)
    for n, path, line, name in over:
        print("%4d %s:%d %s" % (n, path, line, name))
    print("%d function%s over %d lines" % (len(over), "" if len(over) == 1 else "s", a.limit))
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
