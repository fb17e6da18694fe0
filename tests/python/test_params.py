#!/usr/bin/python3
"""The Python parameter helpers (jackarena.check_keys, param_int, param_float,
param_word) accept and refuse exactly what C's ja_params.h does, with the
same messages: each case runs through both, C through ctypes over the SDK
library. Usage: test_params.py LIBJACKARENA"""
import ctypes
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                                "sdk", "python"))
import jackarena  # noqa: E402

lib = ctypes.CDLL(sys.argv[1])
ERR = 512
c_char_pp = ctypes.POINTER(ctypes.c_char_p)


def words(ws):
    arr = (ctypes.c_char_p * (len(ws) + 1))(*[w.encode() for w in ws], None)
    return ctypes.cast(arr, c_char_pp)


def c_call(kind, text, key, *args):
    err = ctypes.create_string_buffer(ERR)
    t = text.encode()
    if kind == "keys":
        rc = lib.ja_params_check_keys(t, words(args[0]), err, ERR)
        return rc, None, err.value.decode()
    if kind == "int":
        out = ctypes.c_int64()
        rc = lib.ja_params_int(t, key.encode(), ctypes.c_int64(args[0]), ctypes.c_int64(args[1]),
                               ctypes.c_int64(args[2]), ctypes.byref(out), err, ERR)
        return rc, out.value, err.value.decode()
    if kind == "float":
        out = ctypes.c_double()
        rc = lib.ja_params_double(t, key.encode(), ctypes.c_double(args[0]),
                                  ctypes.c_double(args[1]), ctypes.c_double(args[2]),
                                  ctypes.byref(out), err, ERR)
        return rc, out.value, err.value.decode()
    out = ctypes.c_int()
    rc = lib.ja_params_word(t, key.encode(), words(args[0]), args[0].index(args[1]),
                            ctypes.byref(out), err, ERR)
    return rc, args[0][out.value], err.value.decode()


def py_call(kind, text, key, *args):
    try:
        params = jackarena.parse_params(text)
        if kind == "keys":
            jackarena.check_keys(params, args[0])
            return 0, None, ""
        if kind == "int":
            return 0, jackarena.param_int(params, key, *args), ""
        if kind == "float":
            return 0, jackarena.param_float(params, key, *args), ""
        return 0, jackarena.param_word(params, key, args[0], args[1]), ""
    except ValueError as e:
        return -1, None, str(e)


CASES = [
    ("keys", "worlds=4", None, ["worlds"]),
    ("keys", "world=4", None, ["worlds", "style"]),
    ("keys", "x=1", None, []),
    ("keys", "", None, []),
    ("int", "worlds=4", "worlds", 1, 100, 8),
    ("int", "", "worlds", 1, 100, 8),
    ("int", "worlds=0", "worlds", 1, 100, 8),
    ("int", "worlds=-3", "worlds", -5, 5, 0),
    ("int", "worlds=1e3", "worlds", 1, 10000, 8),
    ("int", "worlds=-", "worlds", 1, 10000, 8),
    ("int", "worlds=" + "9" * 80, "worlds", 1, 10000, 8),
    ("float", "c=0.7", "c", 0.0, 2.0, 1.4),
    ("float", "c=1e-2", "c", 0.0, 2.0, 1.4),
    ("float", "c=inf", "c", 0.0, 2.0, 1.4),
    ("float", "c=nan", "c", 0.0, 2.0, 1.4),
    ("float", "c=3", "c", 0.0, 2.5, 1.4),
    ("float", "c= 1", "c", 0.0, 2.5, 1.4),
    ("word", "style=wild", "style", ["calm", "wild"], "calm"),
    ("word", "", "style", ["calm", "wild"], "wild"),
    ("word", "style=loud", "style", ["calm", "wild"], "calm"),
]

failed = 0
for kind, text, key, *args in CASES:
    c, p = c_call(kind, text, key, *args), py_call(kind, text, key, *args)
    c_ok, p_ok = c[0] == 0, p[0] == 0
    same = c_ok == p_ok and (c[2] == p[2] if not c_ok else c[1] == p[1] or c[1] is None)
    if not same:
        failed += 1
        print("FAIL %s %r: C %r, Python %r" % (kind, text, c, p))
print("params: %d cases, %d failed" % (len(CASES), failed))
sys.exit(1 if failed else 0)
