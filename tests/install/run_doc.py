#!/usr/bin/python3
"""Runs a tutorial page: writes its files and runs its shell blocks, in order.

    run_doc.py PAGE.md WORKDIR

A fenced code block right after a marker line (blank lines between are
allowed) is taken:

    <!-- file: NAME -->        the block is written to WORKDIR/NAME
    <!-- run -->               the block runs in WORKDIR with bash; it must
                               exit 0 (set -e -o pipefail: every command)
    <!-- run: exit N -->       the block runs without set -e; it must exit N

Blocks without a marker are for reading only. The page must have at least
one block of each kind, so a page whose markers were lost cannot pass.
Every block's output is printed, prefixed with its line number in the page;
the exit status is 0 when every block did what its marker says, else 1.
"""
import os
import re
import subprocess
import sys

MARKER = re.compile(r"^<!--\s*(file:\s*(?P<file>[\w.\-/]+)|run(:\s*exit\s+(?P<code>\d+))?)\s*-->\s*$")
FENCE = re.compile(r"^(```+|~~~+)")


def blocks(lines):
    """Yields (line number, marker match, block text) for each marked block."""
    i = 0
    while i < len(lines):
        m = MARKER.match(lines[i])
        if not m:
            i += 1
            continue
        j = i + 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        f = FENCE.match(lines[j]) if j < len(lines) else None
        if not f:
            raise SystemExit("%d: a marker not followed by a code block" % (i + 1))
        fence = f.group(1)
        k = j + 1
        while k < len(lines) and not lines[k].startswith(fence):
            k += 1
        if k == len(lines):
            raise SystemExit("%d: a code block that never ends" % (j + 1))
        yield j + 1, m, "".join(lines[j + 1:k])
        i = k + 1


def main():
    page, work = sys.argv[1], sys.argv[2]
    with open(page, encoding="utf-8") as f:
        lines = f.readlines()
    files = runs = failed = 0
    for line, m, text in blocks(lines):
        if m.group("file"):
            path = os.path.join(work, m.group("file"))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            files += 1
            continue
        runs += 1
        want = int(m.group("code") or 0)
        script = ("set -e -o pipefail\n" if want == 0 else "") + text
        print("---- %s:%d" % (os.path.basename(page), line), flush=True)
        p = subprocess.run(["bash", "-c", script], cwd=work, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        for out in p.stdout.splitlines()[-40:]:
            print("  " + out)
        if p.returncode != want:
            print("FAIL %s:%d: exit status %d, expected %d" %
                  (page, line, p.returncode, want), flush=True)
            failed += 1
    if not files or not runs:
        print("FAIL %s: %d files and %d run blocks (each page needs both)" % (page, files, runs))
        return 1
    print("%s: %d files, %d blocks run, %d failed" % (page, files, runs, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
