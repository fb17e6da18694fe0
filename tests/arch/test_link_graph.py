#!/usr/bin/python3
"""scripts/link-graph.py on a made-up build tree, so that the check of the
layers can be seen to fail: two modules in every group (sdk/, referee/,
ladders/, each room of arena/, bench/), the first calling into the group
below;
then a room calling a room above it (arena/view/ -> arena/run/), a cycle
inside a room, and a call from serve/ into cli/. The clean tree passes
(exit 0); each breach fails (exit 1) with its line naming the modules.

usage: test_link_graph.py SOURCE_DIR"""
import os
import shutil
import subprocess
import sys
import tempfile

SRC = sys.argv[1]
SCRIPT = os.path.join(SRC, "scripts", "link-graph.py")
# Each group and the one below it that its first module calls (referee/
# and ladders/ stand side by side, both on sdk/).
BELOW = {"sdk/": None, "referee/": "sdk/", "ladders/": "sdk/", "arena/core/": "ladders/",
         "arena/view/": "arena/core/", "arena/run/": "arena/view/",
         "arena/serve/": "arena/run/", "arena/cli/": "arena/serve/", "bench/": "arena/cli/"}
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what, flush=True)


def sym(mod):
    """The function module mod (a path without .c) defines."""
    return mod.replace("/", "_")


def tree(extra_calls):
    """A build tree whose modules are G/m0.c and G/m1.c per group: m1 calls
    m0, m0 calls the m0 of the group below (the layers as they should be),
    plus extra_calls: (from module path, to module path)."""
    tmp = tempfile.mkdtemp(prefix="link-graph-")
    build = os.path.join(tmp, "build")
    calls = {}
    for g, below in BELOW.items():
        calls[g + "m1"] = [g + "m0"]
        calls[g + "m0"] = [below + "m0"] if below else []
    for a, b in extra_calls:
        calls[a].append(b)
    dirs = []
    for mod, callees in calls.items():
        d = os.path.dirname(mod)
        src = os.path.join(tmp, "src", mod + ".c")
        os.makedirs(os.path.dirname(src), exist_ok=True)
        with open(src, "w") as f:
            for c in callees:
                f.write("void %s(void);\n" % sym(c))
            f.write("void %s(void) {\n" % sym(mod))
            for c in callees:
                f.write("    %s();\n" % sym(c))
            f.write("}\n")
        tdir = os.path.join(build, d, "CMakeFiles", "t.dir")
        os.makedirs(tdir, exist_ok=True)
        obj = os.path.join(tdir, os.path.basename(mod) + ".c.o")
        subprocess.run(["cc", "-c", src, "-o", obj], check=True)
        with open(os.path.join(tdir, "link.txt"), "a") as f:
            f.write(" CMakeFiles/t.dir/%s.c.o" % os.path.basename(mod))
        if tdir not in dirs:
            dirs.append(tdir)
    os.makedirs(os.path.join(build, "CMakeFiles"), exist_ok=True)
    with open(os.path.join(build, "CMakeFiles", "TargetDirectories.txt"), "w") as f:
        f.write("\n".join(dirs) + "\n")
    return tmp, build


def run(extra, want, words):
    tmp, build = tree(extra)
    out = subprocess.run(["/usr/bin/python3", SCRIPT, build], capture_output=True, text=True)
    shutil.rmtree(tmp, ignore_errors=True)
    check(out.returncode == want and all(w in out.stderr for w in words),
          "%r: exit %d (wanted %d), %r" % (extra, out.returncode, want, out.stderr))


run([], 0, [])
run([("arena/view/m1", "arena/run/m0")], 1, ["arena/view/m1", "arena/run/m0",
                                             "a layer not below it"])
run([("arena/run/m0", "arena/run/m1")], 1, ["cycle between", "arena/run/m0", "arena/run/m1"])
run([("arena/serve/m0", "arena/cli/m0")], 1, ["arena/serve/m0", "arena/cli/m0"])
run([("ladders/m0", "referee/m0")], 1, ["ladders/m0", "referee/m0"])
print("link_graph_check: %s" % ("FAILED (%d)" % len(failures) if failures else "passed"))
sys.exit(1 if failures else 0)
