#!/usr/bin/python3
"""Every link of a static site resolves to a file of the site.

Usage: check_links.py DIR

Reads every .html file under DIR, takes each href= and src= value (but
"#..." links within a page), resolves it against the page's directory and
checks that it names a file inside DIR. Prints one FAIL line per broken or
outside link and "N links, M pages"; exit status 0 when all resolve, 1
otherwise."""
import os
import re
import sys

root = os.path.realpath(sys.argv[1])
fails = links = pages = 0
for d, _, files in os.walk(root):
    for name in files:
        if not name.endswith(".html"):
            continue
        pages += 1
        page = os.path.join(d, name)
        text = open(page, encoding="utf-8").read()
        for ref in re.findall(r'\b(?:href|src)="([^"]*)"', text):
            if ref.startswith("#"):
                continue
            links += 1
            target = os.path.realpath(os.path.join(d, ref.split("#")[0]))
            rel = os.path.relpath(page, root)
            if not target.startswith(root + os.sep):
                print("FAIL: %s: %s leaves the site" % (rel, ref))
                fails += 1
            elif not os.path.isfile(target):
                print("FAIL: %s: %s names no file" % (rel, ref))
                fails += 1
print("%d links, %d pages" % (links, pages))
sys.exit(1 if fails else 0)
