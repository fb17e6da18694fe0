#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine (as root) for Jack Arena and builds it.
#
#   scripts/setup.sh               install the Debian packages, build into build/
#   scripts/setup.sh --deps-only   install the packages only
#   BUILD_DIR=dir scripts/setup.sh build elsewhere
#
# Idempotent: packages already present are not fetched again, and the build
# is incremental.
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  build-essential cmake pkg-config git
  libzmq3-dev libmsgpack-dev libsqlite3-dev libsodium-dev nettle-dev libcmocka-dev libseccomp-dev
  libmicrohttpd-dev
  libjansson-dev zlib1g-dev
  python3 python3-zmq python3-msgpack python3-numpy python3-venv python3-setuptools sqlite3
  help2man dpkg-dev debootstrap
  clang libclang-rt-14-dev
  chromium
  # sandbox_runtimes: a confined Node.js bot (its zeromq package comes from npm)
  nodejs
  # the slow `slurm` tests: a private cluster (tests/slurm/cluster.sh; its two
  # nodes in namespaces need iproute2's `ip`)
  slurmctld slurmd slurm-client munge iproute2
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# npm: Debian's package, unless the installed nodejs brings its own (a
# nodejs from elsewhere conflicts with Debian's npm).
command -v npm >/dev/null 2>&1 || missing+=(npm)
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  if [ "$(id -u)" -ne 0 ]; then
    echo "setup: installing packages needs root (run as root, or install: ${missing[*]})" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

[ "${1:-}" = "--deps-only" ] && exit 0

BUILD_DIR=${BUILD_DIR:-build}
cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release ${CMAKE_ARGS:-} >/dev/null
cmake --build "$BUILD_DIR" -j"$(nproc)"
echo "setup: built into $BUILD_DIR (arena: $BUILD_DIR/arena/arena)"
