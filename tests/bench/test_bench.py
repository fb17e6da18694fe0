"""ja_bench's interface with a tiny workload (--matches 3): --help, usage
errors (exit 2, one line, nothing written), `--only engine --json` parsed
and checked for structure, --only repeated and as a comma list, and the page
(--out, in a scratch directory) keeping the block of a section not rerun.
Timings are never asserted: only the shape of what is printed and written,
and that every verdict agrees with the ratio and the spread it is given
(met only when all of them meet the target, undecided when they straddle
it).

usage: test_bench.py JA_BENCH SOURCE_DIR
"""
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile

BENCH, SRC = sys.argv[1], sys.argv[2]
SECTIONS = ["engine", "openspiel", "referee", "hosted", "external", "scale", "report", "bots",
            "vecenv"]
ROW_KEYS = {"section", "name", "value", "unit", "ratio", "spread", "target", "met", "verdict"}
MARK = {"met": "\u2713", "not met": "\u2717", "undecided": "?"}
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL: " + what)


def run(args, cwd):
    return subprocess.run([BENCH] + args, cwd=cwd, capture_output=True, text=True, timeout=600)


def block(page, name):
    m = re.search(r"<!-- ja_bench section %s: begin -->\n.*?<!-- ja_bench section %s: end -->\n"
                  % (name, name), page, re.S)
    return m.group(0) if m else None


def verdict(row, op, want):
    """The verdict a row's ratio and spread give against op want."""
    sp = row.get("spread") or {}
    vals = [row["ratio"]] + [sp[k] for k in ("min", "max") if k in sp]
    ok = [v >= want if op == ">=" else v <= want for v in vals]
    return "met" if all(ok) else "not met" if not any(ok) else "undecided"


def check_spread(row, trials):
    sp = row.get("spread")
    check(isinstance(sp, dict) and sp.get("trials") == trials
          and sp["min"] <= sp["max"], "row has the spread of %d trials: %r" % (trials, row))


def sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


source_page = os.path.join(SRC, "docs", "performance.md")
before = sha(source_page) if os.path.exists(source_page) else None

with tempfile.TemporaryDirectory() as tmp:
    page = os.path.join(tmp, "perf.md")
    # The default page is docs/performance.md of the working directory: a
    # scratch docs/ here, so that no run could touch the source tree.
    os.mkdir(os.path.join(tmp, "docs"))

    r = run(["--help"], tmp)
    check(r.returncode == 0, "--help exits 0")
    check("--only" in r.stdout and "--json" in r.stdout and "--out" in r.stdout,
          "--help names --only, --json and --out")
    check(all(s in r.stdout for s in SECTIONS), "--help lists every section")

    # Usage errors: exit 2, one line on stderr naming the problem, nothing written.
    bad = [(["--only", "bogus"], "bogus"), (["--only", "engine,bogus"], "bogus"),
           (["--only", ","], "--only"), (["--only"], "--only"),
           (["--matches", "0"], "--matches"), (["--matches", "12x"], "12x"),
           (["--frob"], "--frob"), (["--out", os.path.join(tmp, "no", "such", "p.md"),
                                     "--only", "engine"], "--out")]
    for args, word in bad:
        r = run(args if "--out" in args else ["--out", page] + args, tmp)
        lines = r.stderr.splitlines()
        check(r.returncode == 2, "%s exits 2 (got %d)" % (args, r.returncode))
        check(len(lines) == 1 and word in lines[0], "%s: one line naming %s: %r"
              % (args, word, r.stderr))
        check(r.stdout == "", "%s prints nothing on stdout" % args)
        check(not os.path.exists(page), "%s writes no page" % args)
    r = run(["--only", "bogus"], tmp)
    check(all(s in r.stderr for s in SECTIONS), "an unknown section's error lists the sections")
    check(os.listdir(os.path.join(tmp, "docs")) == [], "usage errors write no default page")

    # --only engine --json: one JSON object on stdout, every row of the section.
    r = run(["--only", "engine", "--json", "--matches", "3", "--out", page], tmp)
    check(r.returncode == 0, "--only engine --json exits 0: " + r.stderr)
    out = r.stdout.strip().splitlines()
    check(len(out) == 1, "--json prints one line on stdout")
    doc = json.loads(out[0]) if len(out) == 1 else {}
    check(doc.get("sections") == ["engine"], "sections as asked: %r" % doc.get("sections"))
    check(doc.get("out") == page, "the JSON names the page written")
    for key in ("arena", "date", "cpu", "cores", "build"):
        check(key in doc, "the JSON has %s" % key)
    load = (doc.get("load") or {}).get("engine") or {}
    check(set(load) == {"start", "end"} and all(
        v is None or isinstance(v, (int, float)) for v in load.values()),
        "the JSON has the engine section's load: %r" % doc.get("load"))
    rows = doc.get("rows", [])
    check(len(rows) > 0, "engine rows present")
    for row in rows:
        check(set(row) == ROW_KEYS, "row keys: %r" % sorted(row))
        check(row.get("section") == "engine", "row of section engine: %r" % row.get("section"))
        check(isinstance(row.get("value"), (int, float)) and row["value"] > 0,
              "engine row has a positive figure: %r" % row)
        check(row.get("unit") == "decisions/s", "engine row unit: %r" % row.get("unit"))
        check(row.get("target") is None and row.get("met") is None and row.get("ratio") is None
              and row.get("spread") is None and row.get("verdict") is None,
              "engine rows have no target, no met, no ratio, no spread: %r" % row)
    names = [row.get("name") for row in rows]
    check(len(set(names)) == len(names), "row names are distinct")
    with open(page) as f:
        text = f.read()
    engine = block(text, "engine")
    check(engine is not None, "the page has the engine block")
    check(re.search(r"_Load average \(1 minute, /proc/loadavg\) at the section's start "
                    r"-?[0-9.]+, at its end -?[0-9.]+\._", engine or "") is not None,
          "the engine block's run line has the load at its start and end")
    table = [l for l in (engine or "").splitlines() if l.startswith("| ") and "---" not in l]
    check(len(table) == len(rows) + 1, "the engine table has one line per JSON row")
    for name in SECTIONS[1:]:
        b = block(text, name)
        check(b is not None and "Not measured yet" in b,
              "the %s block says it was not measured" % name)

    # --only repeated and as a comma list; the targets judged consistently.
    r = run(["--only", "referee", "--only", "engine,referee", "--json", "--matches", "3",
             "--out", page], tmp)
    check(r.returncode == 0, "--only referee --only engine,referee exits 0: " + r.stderr)
    doc = json.loads(r.stdout)
    check(doc.get("sections") == ["engine", "referee"], "sections in the page's order, once")
    ref = [row for row in doc["rows"] if row["section"] == "referee"]
    # Four per engine row: the referee (random, observed on demand: never)
    # against the engine (the target), two rows without a target (the engine
    # with the observations, the referee handing them, each against the
    # engine), and the referee handing observations against the engine with
    # the observations (the target).
    check(len(ref) == 4 * len(rows), "four referee rows per engine row")
    ceiling = [row for row in ref if row["name"].endswith(": engine + observations / engine")
               or row["name"].endswith(": referee handing observations / engine")]
    judged = [row for row in ref if row not in ceiling]
    check(len(ceiling) == 2 * len(rows), "two ceiling rows per engine row")
    check(sum(row["name"].endswith(": referee / engine") for row in judged) == len(rows)
          and sum(row["name"].endswith(
              ": referee handing observations / engine + observations") for row in judged)
          == len(rows),
          "a referee / engine and a referee handing observations / engine + observations "
          "row per engine row")
    for row in ceiling:
        check(row.get("target") is None and row.get("met") is None
              and isinstance(row.get("ratio"), (int, float)),
              "a ceiling row has a ratio and no target: %r" % row)
        check_spread(row, 3)
    for row in judged:
        t = row.get("target")
        # referee / engine >= 0.6; referee handing observations / engine +
        # observations >= 0.8
        want = 0.8 if row["name"].endswith("+ observations") else 0.6
        check(isinstance(t, dict) and t.get("op") == ">=" and t.get("value") == want
              and t.get("of") == "ratio" and t.get("text") == "\u2265 %g" % want,
              "referee row target: %r" % t)
        check(isinstance(row.get("ratio"), (int, float)), "referee row has a ratio")
        check_spread(row, 3)
        v = verdict(row, ">=", want)
        check(row.get("verdict") == v and row.get("met") is {"met": True, "not met": False,
                                                             "undecided": None}[v],
              "met and verdict agree with the ratio and its spread: %r" % row)

    # Rerunning one section keeps the other's block as it was.
    with open(page) as f:
        text = f.read()
    engine_before = block(text, "engine")
    r = run(["--only", "referee", "--matches", "3", "--out", page], tmp)
    check(r.returncode == 0, "--only referee exits 0: " + r.stderr)
    lines = r.stdout.splitlines()
    check(len(lines) == 4 * len(rows), "text output: a line per row")
    for line in lines:
        if (": engine + observations / engine:" in line
                or ": referee handing observations / engine:" in line):
            check(line.startswith("referee ") and re.search(
                r"ratio [0-9.]+ \(3 trials [0-9.]+\u2013[0-9.]+\)$", line),
                "text ceiling row with its spread, no target: %r" % line)
            continue
        check(line.startswith("referee ") and re.search(
            r"ratio [0-9.]+ \(3 trials [0-9.]+\u2013[0-9.]+\), target \u2265 0\.[68] "
            r"[\u2713\u2717?]$", line), "text row with its spread and target: %r" % line)
    with open(page) as f:
        text = f.read()
    check(block(text, "engine") == engine_before, "--only referee keeps the engine block")
    referee = block(text, "referee") or ""
    check("`ja_bench --only referee`" in referee, "the referee block names its run")
    check(re.search(r"\| \u2265 0\.8 [\u2713\u2717?] \|", referee) is not None,
          "the referee table has the target column")
    check(re.search(r"\| \*\*[0-9.]+\*\* \([0-9.]+\u2013[0-9.]+\) \| \u2265 0\.6 "
                    r"[\u2713\u2717?] \|", referee) is not None,
          "the referee table shows each judged ratio with its spread")
    check("_Load average (1 minute" in referee, "the referee block has its load")
    # This run's shares: every row once, in the list its o and r put it in.
    shares = re.findall(r"([a-z-]+ \d+) \(o (-?[0-9.]+), r (-?[0-9.]+): [0-9.]+; [0-9.]+\)",
                        referee)
    check(len(shares) == len(rows) and len(set(s[0] for s in shares)) == len(rows),
          "the referee text lists each row's shares once: %r" % shares)
    for line in referee.splitlines():
        if line.startswith("- ") and "(o " in line:
            got = [(float(o), float(r)) for _, o, r in
                   re.findall(r"([a-z-]+ \d+) \(o (-?[0-9.]+), r (-?[0-9.]+)", line)]
            if line.endswith("alone keeps referee / engine under 0.6."):
                ok = all(r > 0.67 for _, r in got)
            elif line.endswith("a referee handing observations cannot."):
                ok = all(r <= 0.67 and round((o + r) * 100) > 67 for o, r in got)
            else:
                ok = line.endswith("even handing observations.") and all(
                    round((o + r) * 100) <= 67 for o, r in got)
            check(ok, "a shares line agrees with its verdict: %r" % line)
    # The openspiel section: without --openspiel it keeps its block and says
    # why; with a stand-in for the OpenSpiel program (its two lines, fixed
    # figures) a row per pair judged against >= 5, the table's built: line;
    # a program that fails or prints no RESULT fails the run (exit 1).
    r = run(["--only", "openspiel", "--matches", "3", "--out", page], tmp)
    check(r.returncode == 0 and "openspiel not measured" in r.stderr,
          "--only openspiel without --openspiel exits 0 and says it did not measure: "
          + r.stderr)
    r = run(["--only", "openspiel", "--openspiel", os.path.join(tmp, "nope")], tmp)
    check(r.returncode == 2 and "--openspiel" in r.stderr and "nope" in r.stderr
          and len(r.stderr.strip().splitlines()) == 1,
          "--openspiel naming no program: exit 2 in one line: " + r.stderr)
    # The stand-in plays N "games" of 100 decisions, each some CPU work, so
    # that its decisions and its CPU time grow from a run of 1 game to one
    # of N (ja_bench times it by CPU time, less a run of one game).
    fake = os.path.join(tmp, "fake_playouts")
    with open(fake, "w") as f:
        f.write("#!/bin/sh\necho 'built: a stand-in'\n"
                "i=0; while [ $i -lt $(($2 * 400)) ]; do i=$((i + 1)); done\n"
                "echo \"RESULT game=$1 N=$2 players=3 decisions=$(($2 * 100)) chance_steps=52 "
                "seconds=1.0 decisions_per_s=1000 games_per_s=10.0 "
                "mean_decisions_per_game=62.50 mean_chance_steps_per_game=52.00\"\n")
    os.chmod(fake, 0o755)
    r = run(["--only", "openspiel", "--openspiel", fake, "--json", "--matches", "3",
             "--out", page], tmp)
    check(r.returncode == 0, "--only openspiel with a stand-in exits 0: " + r.stderr)
    doc = json.loads(r.stdout)
    osr = [row for row in doc["rows"] if row["section"] == "openspiel"]
    check(len(osr) == 2 and all("/ OpenSpiel " in row["name"] for row in osr),
          "two openspiel rows: %r" % osr)
    with open(page) as f:
        osb = block(f.read(), "openspiel") or ""
    # The table's OpenSpiel figure (decisions per CPU second, its best trial).
    theirs = {m.group(1): float(m.group(2)) for m in re.finditer(
        r"^\| [a-z-]+ \| \d+ \| \d+ \| ([^|]+?) \| (\d+) \|", osb, re.M)}
    for row in osr:
        t = row.get("target") or {}
        label = row["name"].split("/ OpenSpiel ", 1)[-1]
        check(t.get("op") == ">=" and t.get("value") == 5 and t.get("of") == "ratio"
              and row.get("unit") == "decisions/CPU s" and label in theirs
              and abs(row["ratio"] - row["value"] / theirs[label]) < 1e-3 * row["ratio"],
              "openspiel row: the engine's decisions per CPU second over the stand-in's: %r %r"
              % (row, theirs))
        check_spread(row, 5)
        check(row.get("verdict") == verdict(row, ">=", 5), "openspiel verdict: %r" % row)
    check(set((doc.get("load") or {}).keys()) == {"openspiel"}, "the load of openspiel alone")
    check("a stand-in" in osb and "| dou_dizhu |" in osb and "62.5 (52.0)" in osb,
          "the openspiel block shows the program's build line and figures")
    check("Optimisation of both sides: the rules engines as this `ja_bench` was built" in osb
          and "Not shown to be at the same level" in osb,
          "the openspiel block states both builds, and that a stand-in's level is unknown")
    check(re.search(r"\| \*\*[0-9.]+\*\* \([0-9.]+\u2013[0-9.]+\) \| \u2265 5 "
                    r"[\u2713\u2717?] \|", osb) is not None,
          "the openspiel table shows the ratio with its spread and verdict")
    with open(fake, "w") as f:
        f.write("#!/bin/sh\necho 'built: broken'\n")
    r = run(["--only", "openspiel", "--openspiel", fake, "--matches", "3", "--out", page], tmp)
    check(r.returncode == 1 and "no RESULT line" in r.stderr,
          "a program without RESULT fails the run, naming it: " + r.stderr)
    with open(page) as f:
        check((block(f.read(), "openspiel") or "") == osb, "a failed run leaves the page as it was")

    check(not os.path.exists(page + ".tmp"), "no temporary file is left")
    check(os.listdir(os.path.join(tmp, "docs")) == [], "no default page was written")

after = sha(source_page) if os.path.exists(source_page) else None
check(before == after, "docs/performance.md of the source tree is untouched")

if failures:
    print("%d failure(s)" % len(failures))
    sys.exit(1)
print("ok")
