#!/usr/bin/env python3
# Writes the seed corpus of fuzz_elf (tests/fuzz/corpus/elf): a minimal
# x86-64 ELF shared object that the plugin file check accepts (header,
# PT_LOAD, PT_DYNAMIC with DT_FLAGS_1, DT_STRTAB, DT_SYMTAB, two section
# headers; 368 bytes; not a loadable library) and variants of it that the
# check refuses: cut short, another machine, class or byte order, an
# executable, a PIE, an object file, offsets past the end or wrapping
# around, extended section numbering, no loadable segment, no dynamic
# section, no symbol table, a table outside the segments; an empty file and
# a text file.
import os, struct, sys

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "corpus", "elf")
os.makedirs(out, exist_ok=True)

EH, PH, DYN, SH = 64, 56, 16, 64
PHOFF, DYNOFF = EH, EH + 2 * PH
SHOFF = DYNOFF + 4 * DYN
SIZE = SHOFF + 2 * SH


def image(e_type=3, machine=62, cls=2, data=1, phoff=PHOFF, shoff=SHOFF, phentsize=PH,
          phnum=2, shentsize=SH, shnum=2, load_type=1, load_off=0, load_filesz=SIZE,
          dyn_type=2, dyn_filesz=4 * DYN, flags_1=0, symtab=DYNOFF, sh0_size=0):
    ident = b"\x7fELF" + bytes([cls, data, 1, 0]) + bytes(8)
    eh = ident + struct.pack("<HHIQQQIHHHHHH", e_type, machine, 1, 0, phoff, shoff, 0, EH,
                             phentsize, phnum, shentsize, shnum, 0)
    ph = struct.pack("<IIQQQQQQ", load_type, 4, load_off, 0, 0, load_filesz, SIZE, 0x1000)
    ph += struct.pack("<IIQQQQQQ", dyn_type, 6, DYNOFF, DYNOFF, DYNOFF, dyn_filesz, dyn_filesz, 8)
    # DT_FLAGS_1, DT_STRTAB, DT_SYMTAB (symtab None: left out), DT_NULL
    dyn = struct.pack("<qQ", 0x6FFFFFFB, flags_1) + struct.pack("<qQ", 5, DYNOFF)
    dyn += struct.pack("<qQ", 6, symtab) if symtab is not None else struct.pack("<qQ", 21, 0)
    dyn += struct.pack("<qQ", 0, 0)
    sh = struct.pack("<IIQQQQIIQQ", 0, 0, 0, 0, 0, sh0_size, 0, 0, 0, 0) + bytes(SH)
    b = eh + ph + dyn + sh
    assert len(b) == SIZE
    return b


ok = image()
seeds = {
    "ok.so": ok,
    "truncated.so": ok[:200],
    "header-only.so": ok[:EH],
    "ident-only.so": ok[:16],
    "empty": b"",
    "text.so": b"not a library\n",
    "aarch64.so": image(machine=183),
    "class32.so": image(cls=1),
    "bigendian.so": image(data=2),
    "exec.so": image(e_type=2),
    "object.o": image(e_type=1),
    "pie.so": image(flags_1=0x08000000),
    "phoff-wraps.so": image(phoff=2**64 - 8),
    "filesz-wraps.so": image(load_off=16, load_filesz=2**64 - 8),
    "shoff-past.so": image(shoff=100000),
    "shnum-extended.so": image(shnum=0, sh0_size=2**64 - 1),
    "no-load.so": image(load_type=4),
    "phentsize.so": image(phentsize=32),
    "dynamic-past.so": image(dyn_filesz=1 << 20),
    "no-dynamic.so": image(dyn_type=4),
    "no-symtab.so": image(symtab=None),
    "symtab-outside.so": image(symtab=1 << 40),
}
for name, b in seeds.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(b)
