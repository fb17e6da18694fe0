#!/usr/bin/env bash
# -DBUILD_TESTING=OFF builds the product without the tests and without
# cmocka:
#  1. pkg-config is pointed at a scratch directory holding a link to every
#     module the system's pkg-config would find (its default path and
#     $PKG_CONFIG_PATH) but cmocka: there cmocka does not exist, and the
#     product's own modules (libzmq, msgpack, ...) still do;
#  2. a fresh build tree of the source configures there with
#     -DBUILD_TESTING=OFF: cmocka is not looked for, no test is configured
#     (no CTestTestfile.cmake, no test target), and the targets of the
#     product are all there (the commands, ja_host, the bots, the SDK
#     libraries, ja_bench);
#  3. one of them, the installed SDK library (jackarena), builds.
# Nothing outside the scratch directory is touched.
# Usage: test_build_testing_off.sh CMAKE SOURCE_DIR PKG_CONFIG CC GENERATOR
set -u
CMAKE=$1 SRC=$2 PKGCONF=$3 CC_=$4 GEN=$5
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
check() { local d=$1; shift; if "$@"; then ok; else bad "$d"; fi; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ja_notest.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
pc=$tmp/pkgconfig
mkdir -p "$pc"
IFS=: read -r -a dirs <<<"$("$PKGCONF" --variable pc_path pkg-config):${PKG_CONFIG_PATH:-}"
for d in "${dirs[@]}"; do
    [ -d "$d" ] || continue
    for f in "$d"/*.pc; do
        name=$(basename "$f")
        [ -e "$f" ] && [ "$name" != cmocka.pc ] && [ ! -e "$pc/$name" ] && ln -s "$f" "$pc/$name"
    done
done
# Only the scratch directory: PKG_CONFIG_LIBDIR replaces the default path.
export PKG_CONFIG_LIBDIR=$pc
unset PKG_CONFIG_PATH CMAKE_PREFIX_PATH
check "cmocka hidden from pkg-config" bash -c "! '$PKGCONF' --exists cmocka"
check "libzmq still found by pkg-config" "$PKGCONF" --exists libzmq

b=$tmp/build
if "$CMAKE" -S "$SRC" -B "$b" -G "$GEN" -DCMAKE_C_COMPILER="$CC_" -DCMAKE_BUILD_TYPE=Release \
    -DBUILD_TESTING=OFF >"$tmp/configure.log" 2>&1; then
    ok
else
    bad "configure with -DBUILD_TESTING=OFF and no cmocka:"
    tail -20 "$tmp/configure.log"
    echo "$pass passed, $fail failed"
    exit 1
fi
check "cmocka not looked for" bash -c "! grep -qi cmocka '$b/CMakeCache.txt'"
check "no test configured (CTestTestfile.cmake)" test ! -e "$b/CTestTestfile.cmake"
check "no tests/ in the build tree" test ! -e "$b/tests"
targets=$("$CMAKE" --build "$b" --target help 2>&1)
for t in arena referee ja_host ja_confine ja_reap random greedy ismcts jackarena jackarena_shared \
    jackarena_client jackarena_client_shared ja_bench; do
    check "target $t configured" grep -qE "(^|[ .])$t(:|$| )" <<<"$targets"
done
for t in test_options ja_scenario ja_headers_c; do
    check "no test target $t" bash -c "! grep -qE '(^|[ .])$t(:|\$| )' <<<\"\$1\"" _ "$targets"
done

if "$CMAKE" --build "$b" --target jackarena -j2 >"$tmp/build.log" 2>&1 &&
    [ -e "$b/lib/libjackarena.a" ]; then
    ok
else
    bad "build of the SDK library (jackarena):"
    tail -20 "$tmp/build.log"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
