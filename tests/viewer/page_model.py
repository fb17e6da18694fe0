#!/usr/bin/python3
"""The model inside a replay page (docs/viewer.md, "The model in the page"),
for the viewer's tests: <script type="application/octet-stream" id="data">
holds the model's JSON, compressed with zlib and written in base64; each
frame holds per seat the changes of its observation ("delta"), which
unpack() turns back into whole observations ("obs": field name to a number,
or to an array with trailing zeros trimmed), and pack() into changes again;
the public observations ("public", one change list per frame) likewise
into each frame's "pub".

  page_model.py PAGE    prints the unpacked model as JSON"""
import base64
import json
import re
import sys
import zlib

DATA = re.compile(r'(<script type="application/octet-stream" id="data">)(.*?)(</script>)', re.S)


def read(path):
    """(page text, match of DATA, unpacked model)."""
    s = open(path, encoding="utf-8").read()
    m = DATA.search(s)
    if not m:
        raise ValueError("%s: no model in the page" % path)
    d = json.loads(zlib.decompress(base64.b64decode(m.group(2))))
    return s, m, unpack(d)


def write(path, s, m, d):
    """The page s with its model replaced by d (packed again)."""
    text = base64.b64encode(zlib.compress(json.dumps(pack(d), separators=(",", ":")).encode()))
    open(path, "w", encoding="utf-8").write(s[:m.start(2)] + text.decode() + s[m.end(2):])


def trim(a):
    while a and a[-1] == 0:
        a = a[:-1]
    return a


def unpack(d):
    """Also the public observations ("public": one change list per frame)
    into each frame's "pub", where the model has them."""
    if "public" in d:
        for fr, ch in zip(d["frames"], d["public"]):
            # a number S: the same changes as seat S's in this frame (model 3)
            fr["delta_pub"] = fr["delta"][ch] if isinstance(ch, int) else ch
        del d["public"]
    fields = d["fields"]
    prev = [{f["name"]: 0 if f["count"] == 1 else [] for f in fields} for _ in range(d["seats"])]
    for fr in d["frames"]:
        fr["obs"] = []
        deltas = fr["delta"] + ([fr["delta_pub"]] if "delta_pub" in fr else [])
        while len(prev) < len(deltas):
            prev.append({f["name"]: 0 if f["count"] == 1 else [] for f in fields})
        for s, ch in enumerate(deltas):
            o = dict(prev[s])
            for k, ops in zip(ch[0::2], ch[1::2]):
                name = fields[k]["name"]
                if isinstance(ops, int):
                    o[name] = ops
                    continue
                a = list(o[name][ops[0]:])
                for i, v in zip(ops[1::2], ops[2::2]):
                    a += [0] * (i + 1 - len(a))
                    a[i] = v
                o[name] = trim(a)
            fr["obs"].append(o)
            prev[s] = o
        del fr["delta"]
        if "delta_pub" in fr:
            fr["pub"] = fr["obs"].pop()
            del fr["delta_pub"]
    return d


def pack(d):
    """Changes without shifts: every element of a changed array is set."""
    d = json.loads(json.dumps(d))
    fields = d["fields"]
    prev = [{f["name"]: 0 if f["count"] == 1 else [] for f in fields} for _ in range(d["seats"])]
    has_pub = "pub" in d["frames"][0]
    if has_pub:
        prev.append(dict(prev[0]) if prev else {})
        prev[-1] = {f["name"]: 0 if f["count"] == 1 else [] for f in fields}
        d["public"] = []
    for fr in d["frames"]:
        fr["delta"] = []
        for s, o in enumerate(fr["obs"] + ([fr["pub"]] if has_pub else [])):
            ch = []
            for k, f in enumerate(fields):
                old, new = prev[s][f["name"]], o[f["name"]]
                if old == new:
                    continue
                if isinstance(new, int):
                    ch += [k, new]
                else:
                    n = max(len(old), len(new))
                    ch += [k, [0] + [x for i in range(n) for x in (i, new[i] if i < len(new) else 0)]]
            fr["delta"].append(ch)
            prev[s] = o
        del fr["obs"]
        if has_pub:
            d["public"].append(fr["delta"].pop())
            del fr["pub"]
    return d


if __name__ == "__main__":
    print(json.dumps(read(sys.argv[1])[2]))
