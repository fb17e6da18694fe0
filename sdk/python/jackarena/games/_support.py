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


def card_functions(c):
    """The card functions of jackarena.games.cards, over its constants c (the
    module's globals, generated from ja_cards.h): Python versions of the
    header's inline functions and of the library's ja_card_format and
    ja_card_parse, checked against C by gen_constants.py --verify and
    tests/python/test_forward.py."""
    per_pack, black, red = c["CARDS_PER_PACK"], c["JOKER_BLACK"], c["JOKER_RED"]
    blacks = (c["SUIT_C"], c["SUIT_S"])
    ranks, suits = "A23456789TJQK", "CDHS"

    def ident(card):
        """The identity of a card id: id modulo CARDS_PER_PACK (ja_card_ident)."""
        return card % per_pack

    def suit(card):
        """SUIT_C .. SUIT_S of a card (ja_card_suit); 4 for a joker."""
        return ident(card) // 13

    def rank(card):
        """RANK_A .. RANK_K of a card (ja_card_rank)."""
        return ident(card) % 13

    def make(suit_, rank_):
        """The card of that suit and rank (ja_card_make)."""
        return 13 * suit_ + rank_

    def is_joker(card):
        return ident(card) >= 52

    def is_black(card):
        """Clubs and spades; jokers by their own colour (ja_card_is_black)."""
        i = ident(card)
        return i == black or (i < 52 and i // 13 in blacks)

    def label(card):
        """"7H", "TD", "XB", "XR" of a card id 0..107 (two packs: the identity's
        label; ja_card_format); ValueError for anything else (CARD_NONE...)."""
        if not 0 <= card < 2 * per_pack:
            raise ValueError("%r is no card" % (card,))
        i = ident(card)
        if i in (black, red):
            return "XB" if i == black else "XR"
        return ranks[i % 13] + suits[i // 13]

    def parse(text):
        """The identity of a label ("7H", "7h", "10H", "TH", "XB"), or -1 (ja_card_parse)."""
        t = text.upper()
        if t in ("XB", "XR"):
            return black if t == "XB" else red
        if len(t) == 3 and t.startswith("10"):
            t = "T" + t[2]
        if len(t) != 2 or t[0] not in ranks or t[1] not in suits:
            return -1
        return 13 * suits.index(t[1]) + ranks.index(t[0])

    return ident, suit, rank, make, is_joker, is_black, label, parse
