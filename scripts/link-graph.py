#!/usr/bin/python3
"""The symbol-level link graph of a build tree, and its cycles.

Usage: scripts/link-graph.py BUILD_DIR [--edges]

Every object file of BUILD_DIR is a module named by its source file
(referee/hub.c). Module A calls module B when a symbol A leaves undefined
(`nm -u`) is one B defines (`nm --defined-only -g`). Within each checked
group (the referee's modules, referee/; the benchmark's files, bench/) the
calls must form no cycle: a cycle is printed, one line naming its modules,
and the exit status is 1. --edges also prints every edge of the groups,
"A -> B (symbol, ...)". Exit status 2 for a usage error or a build tree
without the objects of a group.
"""
import os
import subprocess
import sys

GROUPS = ("referee/", "bench/")


def source_of(obj, build):
    """The source path (relative to the source tree) an object was built
    from: CMake puts <dir>/<file>.c into <dir>/CMakeFiles/<target>.dir/<file>.c.o,
    with `..` spelt `__`."""
    rel = os.path.relpath(obj, build)
    parts = rel.split(os.sep)
    if "CMakeFiles" not in parts:
        return None
    i = parts.index("CMakeFiles")
    src = parts[:i] + [".." if p == "__" else p for p in parts[i + 2:]]
    path = os.path.normpath(os.path.join(*src))
    return path[:-2] if path.endswith(".o") else None


def symbols(obj, *flags):
    out = subprocess.run(["nm", "-P", *flags, obj], check=True, capture_output=True,
                         text=True).stdout
    return {line.split()[0] for line in out.splitlines() if line.strip()}


def cycles(nodes, edges):
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return found


def main(argv):
    args = [a for a in argv[1:] if a != "--edges"]
    if len(args) != 1 or not os.path.isdir(args[0]):
        print("usage: link-graph.py BUILD_DIR [--edges]", file=sys.stderr)
        return 2
    build = args[0]
    defined, undefined = {}, {}
    for root, _, files in os.walk(build):
        for f in sorted(files):
            if not f.endswith(".o"):
                continue
            obj = os.path.join(root, f)
            src = source_of(obj, build)
            if not src or not src.startswith(GROUPS) or src in defined:
                continue
            defined[src] = symbols(obj, "--defined-only", "-g")
            undefined[src] = symbols(obj, "-u")
    status = 0
    for group in GROUPS:
        mods = sorted(m for m in defined if m.startswith(group))
        if len(mods) < 2:
            print(f"link-graph: no objects of {group} under {build} (not built?)",
                  file=sys.stderr)
            return 2
        by_symbol = {}
        for m in mods:
            for s in defined[m]:
                by_symbol.setdefault(s, m)
        edges = {}
        for a in mods:
            for s in undefined[a]:
                b = by_symbol.get(s)
                if b and b != a:
                    edges.setdefault(a, {}).setdefault(b, []).append(s)
        if "--edges" in argv:
            for a in sorted(edges):
                for b in sorted(edges[a]):
                    print(f"{a} -> {b} ({', '.join(sorted(edges[a][b]))})")
        for comp in cycles(mods, edges):
            print(f"link-graph: cycle between {', '.join(comp)}", file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
