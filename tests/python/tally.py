"""Checks counted for the Python test scripts of tests/python: check() each
assertion, then finish() prints "N passed, N failed" and gives the exit status."""
counts = {"passed": 0, "failed": 0}


def check(what, ok, detail=""):
    if ok:
        counts["passed"] += 1
    else:
        counts["failed"] += 1
        print("FAIL: %s%s" % (what, (": " + str(detail)[:2000]) if detail != "" else ""))


def finish():
    print("%d passed, %d failed" % (counts["passed"], counts["failed"]))
    return 1 if counts["failed"] else 0
