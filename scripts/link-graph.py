#!/usr/bin/python3
"""The symbol-level link graph of a build tree, and its cycles.

Usage: scripts/link-graph.py BUILD_DIR [--edges]

Every object file a target of BUILD_DIR links (the objects its link.txt
names, so that objects left from files since moved do not count) is a
module named by its source file (referee/hub.c). Module A calls module B
when a symbol A leaves undefined (`nm -u`) is one B defines (`nm
--defined-only -g`). Two rules, each breach printed on one line with exit
status 1:
  - layers: a module calls only modules of its own group or of a lower
    layer: sdk/ (the SDK: support code, rules engines, codec, runtime,
    client), then referee/ and ladders/ (side by side: neither calls the
    other), then arena/, room by room (docs/architecture.md, "Inside
    arena/"): the page templates made C strings at build time (arena/*.c of
    the build tree, data only), core/, view/, run/, serve/ (a leaf: only the
    CLI starts the server), cli/; then bench/;
  - cycles: within each group the calls form no cycle.
--edges also prints every edge, "A -> B (symbol, ...)". Exit status 2 for a
usage error or a build tree without the objects of a group.
"""
import os
import subprocess
import sys

# A room of arena/ before arena/ itself (the generated templates), so that
# group_of finds the room.
GROUPS = ("sdk/", "referee/", "ladders/", "arena/core/", "arena/view/", "arena/run/",
          "arena/serve/", "arena/cli/", "arena/", "bench/")
LAYER = {"sdk/": 0, "referee/": 1, "ladders/": 1, "arena/": 2, "arena/core/": 3,
         "arena/view/": 4, "arena/run/": 5, "arena/serve/": 6, "arena/cli/": 7, "bench/": 8}
# Groups of one module or none (the generated templates are two files of
# data, and no rule needs more than one module to hold).
SMALL = ("arena/",)


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


def linked_objects(build):
    """The object files the targets of a build tree link, from each current
    target's CMakeFiles/<target>.dir/link.txt (paths relative to the
    target's directory)."""
    objs = set()
    # The targets of the current configuration (a tree may keep the
    # directories of targets since removed).
    with open(os.path.join(build, "CMakeFiles", "TargetDirectories.txt")) as f:
        dirs = [line.strip() for line in f if line.strip().endswith(".dir")]
    for root in dirs:
        files = os.listdir(root) if os.path.isdir(root) else []
        if "link.txt" not in files:
            continue
        base = os.path.dirname(os.path.dirname(root))  # the target's directory
        with open(os.path.join(root, "link.txt")) as f:
            for tok in f.read().split():
                if tok.endswith(".o"):
                    path = os.path.normpath(os.path.join(base, tok))
                    if os.path.exists(path):
                        objs.add(path)
    return sorted(objs)


def group_of(mod):
    return next(g for g in GROUPS if mod.startswith(g))


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
    for obj in linked_objects(build):
        src = source_of(obj, build)
        if not src or not src.startswith(GROUPS) or src in defined:
            continue
        defined[src] = symbols(obj, "--defined-only", "-g")
        undefined[src] = symbols(obj, "-u")
    status = 0
    by_symbol = {}
    for m in sorted(defined):
        for s in defined[m]:
            by_symbol.setdefault(s, m)
    edges = {}
    for a in sorted(defined):
        for s in undefined[a]:
            b = by_symbol.get(s)
            if b and b != a:
                edges.setdefault(a, {}).setdefault(b, []).append(s)
    if "--edges" in argv:
        for a in sorted(edges):
            for b in sorted(edges[a]):
                print(f"{a} -> {b} ({', '.join(sorted(edges[a][b]))})")
    for a in sorted(edges):
        for b in sorted(edges[a]):
            ga, gb = group_of(a), group_of(b)
            if ga != gb and LAYER[gb] >= LAYER[ga]:
                print(f"link-graph: {a} ({ga}) calls {b} ({gb}), a layer not below it: "
                      f"{', '.join(sorted(edges[a][b]))}", file=sys.stderr)
                status = 1
    for group in GROUPS:
        mods = sorted(m for m in defined if group_of(m) == group)
        if len(mods) < 2 and group not in SMALL:
            print(f"link-graph: no objects of {group} under {build} (not built?)",
                  file=sys.stderr)
            return 2
        inner = {a: {b: v for b, v in edges.get(a, {}).items() if group_of(b) == group}
                 for a in mods}
        for comp in cycles(mods, inner):
            print(f"link-graph: cycle between {', '.join(comp)}", file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
