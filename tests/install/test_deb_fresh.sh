#!/usr/bin/env bash
# The Debian package of this build tree installed with apt on a fresh
# Debian 12 (a debootstrapped scratch root), where the tutorials then run:
# scripts/check-deb.sh does it. Needs root, debootstrap and the Debian
# archive (as scripts/setup.sh does); skipped (77) without root.
# Usage: test_deb_fresh.sh CPACK BUILD_DIR SOURCE_DIR
set -u
CPACK=$1 BUILD=$2 SRC=$3
if [ "$(id -u)" -ne 0 ]; then
  echo "skipped: needs root (debootstrap, chroot)"
  exit 77
fi
# shellcheck source=tests/install/lib.sh
. "$(dirname "$0")/lib.sh"
if ! "$CPACK" -G DEB --config "$BUILD/CPackConfig.cmake" -B "$work/pkg" >cpack.log 2>&1; then
  tail -20 cpack.log
  echo "FAIL: cpack -G DEB"
  exit 1
fi
bash "$SRC/scripts/check-deb.sh" "$(ls "$work"/pkg/jackarena_*.deb)"
