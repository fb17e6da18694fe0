#!/usr/bin/env bash
# The tutorials (docs/tutorial-*.md), run as a new bot author would: the
# build tree is installed into a scratch prefix, and with only the installed
# files on PATH, PKG_CONFIG_PATH and PYTHONPATH, each page's files are
# written and its shell blocks run in order (run_doc.py says how blocks are
# marked): the bots are built with the pages' own one-liners and played by
# the installed arena.
# Usage: test_tutorials.sh CMAKE BUILD_DIR LAYOUT PAGE...
set -u
CMAKE=$1 BUILD=$2 LAYOUT=$3
shift 3
# shellcheck source=/dev/null
. "$LAYOUT"
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/install/lib.sh
. "$HERE/lib.sh"
if ! "$CMAKE" --install "$BUILD" --prefix "$work/prefix" >"$work/install.log" 2>&1; then
  tail -20 "$work/install.log"
  echo "FAIL: cmake --install $BUILD"
  exit 1
fi
P=$work/prefix
# Only the installed files and the system.
unset JACKARENA_BOTS_DIR JACKARENA_HOST JACKARENA_LIB CPATH C_INCLUDE_PATH LIBRARY_PATH \
  LD_LIBRARY_PATH CMAKE_PREFIX_PATH CFLAGS LDFLAGS
export PATH=$P/$BINDIR:$PATH
export PKG_CONFIG_PATH=$P/$LIBDIR/pkgconfig
export PYTHONPATH=$P/$PYTHONDIR
fail=0
for page in "$@"; do
  dir=$work/$(basename "$page" .md)
  mkdir -p "$dir"
  /usr/bin/python3 "$HERE/run_doc.py" "$page" "$dir" || fail=1
done
exit $fail
