#!/usr/bin/env bash
# The Debian package: `cpack -G DEB` of this build tree.
#  1. It is jackarena_VERSION_ARCH.deb; every file is under /usr, in the
#     layout of docs/install.md (programs, ja_host, ja_confine, reference
#     bots, static and shared libraries with their links, headers,
#     pkg-config and CMake files, the Python package in
#     /usr/lib/python3/dist-packages, docs).
#  2. Its Depends name the run-time libraries (zmq, msgpack-c, sqlite3,
#     sodium, seccomp, jansson, microhttpd) and python3-zmq, python3-msgpack; what
#     building bots needs is in Recommends.
#  3. Extracted with dpkg -x into a scratch root, it runs in place: the
#     arena plays its reference bots in-process and hosted: (the same
#     digest), a plugin builds against the extracted pkg-config file and
#     plays, and the Python package finds its library.
# Usage: test_deb.sh CPACK BUILD_DIR SOURCE_DIR LAYOUT
set -u
CPACK=$1 BUILD=$2 SRC=$3 LAYOUT=$4
# shellcheck source=/dev/null
. "$LAYOUT"
PY=/usr/bin/python3
# shellcheck source=tests/install/lib.sh
. "$(dirname "$0")/lib.sh"
unset JACKARENA_BOTS_DIR JACKARENA_HOST LD_LIBRARY_PATH PYTHONPATH PKG_CONFIG_PATH
pass=0 fail=0
check() { local d=$1; shift; if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $d"; fi; }

if ! command -v dpkg-shlibdeps >/dev/null; then
  echo "FAIL: dpkg-shlibdeps missing (Debian package dpkg-dev; scripts/setup.sh installs it)"
  exit 1
fi
if ! "$CPACK" -G DEB --config "$BUILD/CPackConfig.cmake" -B "$work/pkg" >cpack.log 2>&1; then
  sed 's/^/  /' cpack.log | tail -20
  echo "FAIL: cpack -G DEB"
  exit 1
fi
arch=$(dpkg --print-architecture)
deb=$work/pkg/jackarena_${VERSION}_$arch.deb
check "the package is $(basename "$deb")" test -f "$deb"
[ -f "$deb" ] || { echo "deb: $pass passed, $fail failed"; exit 1; }

# 1. The file list.
dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|; s|/$||' >files.txt
check "every file under /usr, none under /usr/local" \
  test -z "$(grep -v -e '^/usr$' -e '^/usr/' files.txt; grep '^/usr/local' files.txt)"
U=/usr
for f in "$U/$BINDIR/arena" "$U/$BINDIR/referee" "$U/$PKGDIR/ja_host" "$U/$PKGDIR/ja_confine" \
    "$U/$PKGDIR/ja_reap" \
    "$U/$PKGDIR/bots/ja_random.so" "$U/$PKGDIR/bots/ja_greedy.so" "$U/$PKGDIR/bots/ja_ismcts.so" \
    "$U/$PKGDIR/plugin.map" "$U/$DOCDIR/examples/halving.cpp" \
    "$U/$LIBDIR/libjackarena.a" "$U/$LIBDIR/libjackarena_client.a" \
    "$U/$LIBDIR/libjackarena.so.$VERSION" "$U/$LIBDIR/libjackarena.so.${VERSION%%.*}" \
    "$U/$LIBDIR/libjackarena.so" "$U/$LIBDIR/libjackarena_client.so.${VERSION%%.*}" \
    "$U/$INCLUDEDIR/jackarena/ja_bot.h" "$U/$INCLUDEDIR/jackarena/ja_forward.h" \
    "$U/$LIBDIR/pkgconfig/jackarena.pc" "$U/$LIBDIR/pkgconfig/jackarena-client.pc" \
    "$U/$LIBDIR/cmake/JackArena/JackArenaConfig.cmake" \
    "$U/$LIBDIR/cmake/JackArena/JackArenaConfigVersion.cmake" \
    /usr/lib/python3/dist-packages/jackarena/__init__.py \
    /usr/lib/python3/dist-packages/jackarena/_install.py \
    "$U/$DOCDIR/README.md" "$U/$DOCDIR/docs/install.md" "$U/$DOCDIR/examples/flat_mc.c" \
    "$U/$DOCDIR/examples/greedy/greedy.c" "$U/$DOCDIR/examples/greedy/greedy_bombs.c" \
    "$U/$DOCDIR/examples/python/greedy_taylor.py"; do
  check "the package holds $f" grep -qxF "$f" files.txt
done
if [ -f "$BUILD/man/arena.1" ]; then
  check "the package holds the man pages" grep -q "^$U/$MANDIR/man1/arena\.1" files.txt
fi

# 2. The control fields.
check "Package: jackarena" test "$(dpkg-deb -f "$deb" Package)" = jackarena
check "Version: $VERSION" test "$(dpkg-deb -f "$deb" Version)" = "$VERSION"
check "Architecture: $arch" test "$(dpkg-deb -f "$deb" Architecture)" = "$arch"
depends=$(dpkg-deb -f "$deb" Depends)
for p in libc6 libzmq5 libmsgpackc2 libsqlite3-0 libsodium23 libnettle8 libseccomp2 libjansson4 zlib1g libmicrohttpd12 \
    python3-zmq python3-msgpack; do
  check "Depends names $p" grep -qE "(^|, )$p( |,|$)" <<<"$depends"
done
recommends=$(dpkg-deb -f "$deb" Recommends)
for p in pkg-config libzmq3-dev libmsgpack-dev; do
  check "Recommends names $p" grep -qE "(^|, )$p( |,|$)" <<<"$recommends"
done

# 3. Extracted, run in place.
dpkg -x "$deb" root
R=$work/root
export LD_LIBRARY_PATH=$R/usr/$LIBDIR
play() { # play ARGS...: prints the digest of a faultless match
  "$R/usr/$BINDIR/arena" play "$@" --seed 5 --json </dev/null 2>>play.err | $PY -c '
import json, sys
d = json.load(sys.stdin)
assert all(s["faults"] == 0 for s in d["seats"]), d
print(d["digest"])' 2>>play.err
}
d1=$(play taylor-blackjack random greedy)
d2=$(play taylor-blackjack hosted:random greedy)
check "the extracted arena plays its reference bots" test -n "$d1"
check "... and hosted: with the same digest" test "$d1" = "$d2"
cp "$SRC/tests/install/forward_bot.c" .
# shellcheck disable=SC2046
cc -shared -fPIC forward_bot.c $(PKG_CONFIG_PATH=$R/usr/$LIBDIR/pkgconfig \
  pkg-config --cflags --libs jackarena) -o forward.so 2>cc.log
check "a plugin builds against the extracted jackarena.pc" test -f forward.so
d3=$(play bombs hosted:./forward.so random random --opt hands=1)
check "... and plays hosted" test -n "$d3"
sed 's/^/  stderr: /' play.err cc.log | head -5
PYTHONPATH=$R/usr/lib/python3/dist-packages $PY -c '
import os, jackarena, jackarena._install as i
lib = os.path.join(os.path.dirname(jackarena.__file__), i.LIBJACKARENA)
assert os.path.isfile(lib), lib'
check "the extracted Python package finds libjackarena" test $? = 0

echo "deb: $pass passed, $fail failed"
[ "$fail" = 0 ]
