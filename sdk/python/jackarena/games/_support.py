"""Helpers of the generated constant modules (jackarena.games.*): C's integer
semantics for the translated function-like macros, the field record and
name lookup. Written by hand; sdk/python/tools/gen_constants.py uses it."""
from collections import namedtuple

# One field of a game's observation: name (the key on the wire), type ("u8",
# "i8", "u16", "i16", "u32", "i32", "i64"), count (1 for a scalar, else the
# array's length), doc (one line).
Field = namedtuple("Field", "name type count doc")


def _u32(v):
    """v as C's unsigned int (modulo 2^32)."""
    return v & 0xFFFFFFFF


def _u64(v):
    return v & 0xFFFFFFFFFFFFFFFF


def _i32(v):
    """v as a 32-bit int, wrapping as the C compilers of this project do."""
    v &= 0xFFFFFFFF
    return v - (1 << 32) if v >= 1 << 31 else v


def _i64(v):
    v &= 0xFFFFFFFFFFFFFFFF
    return v - (1 << 64) if v >= 1 << 63 else v


def _cdiv(a, b):
    """C's integer division: truncates toward zero."""
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b >= 0) else -q


def _cmod(a, b):
    return a - b * _cdiv(a, b)


def name_of(names, group, value):
    """The first name in names (a module's globals) that starts with group,
    is an upper-case constant and equals value, without group; or None."""
    for k, v in names.items():
        if k.startswith(group) and k.isupper() and type(v) is int and v == value:
            return k[len(group):]
    return None
