#!/usr/bin/env bash
# The Debian package on a fresh Debian 12, by hand (not part of CI: it
# downloads a base system from the Debian archive, a few minutes):
#   1. debootstrap a minimal bookworm into a scratch directory;
#   2. `apt install ./jackarena_*.deb` in it (Depends and Recommends from the
#      archive, nothing else);
#   3. run the tutorials there (docs/tutorial-c.md, docs/tutorial-cpp.md,
#      docs/tutorial-python.md, through tests/install/run_doc.py): a C plugin,
#      a forward-model plugin built with one cc line and played in-process,
#      hosted: and as cmd:, a C++ plugin built with one c++ line (g++ from
#      Recommends), and Python bots with the forward model.
#
#   bash scripts/check-deb.sh [PACKAGE.deb]      as root; default: build/jackarena_*.deb
#
# Needs debootstrap (apt-get install debootstrap) and the Debian archive.
# Make the package first: (cd build && cpack -G DEB).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$(id -u)" -ne 0 ]; then
  echo "check-deb: run as root (debootstrap and chroot)" >&2
  exit 2
fi
deb=${1:-$(ls build/jackarena_*.deb 2>/dev/null | tail -1)}
if [ -z "$deb" ] || [ ! -f "$deb" ]; then
  echo "check-deb: no package: give PACKAGE.deb, or make one with (cd build && cpack -G DEB)" >&2
  exit 2
fi
command -v debootstrap >/dev/null || { echo "check-deb: debootstrap is missing (apt-get install debootstrap)" >&2; exit 2; }
root=$(mktemp -d /tmp/jackarena-deb.XXXXXX)
chmod 755 "$root"   # apt in the chroot drops to its _apt user
cleanup() {
  for m in proc dev sys; do umount "$root/$m" 2>/dev/null || true; done
  rm -rf --one-file-system "$root"
}
trap cleanup EXIT
echo "check-deb: debootstrap bookworm into $root"
debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian >"$root.log" 2>&1 ||
  { tail -5 "$root.log"; echo "check-deb: debootstrap failed" >&2; exit 1; }
rm -f "$root.log"
cp /etc/resolv.conf "$root/etc/resolv.conf"
mount -t proc proc "$root/proc"
mount --bind /dev "$root/dev"
mount --bind /sys "$root/sys"
mkdir -p "$root/root/check"
cp "$deb" "$root/root/check/"
cp docs/tutorial-c.md docs/tutorial-cpp.md docs/tutorial-python.md tests/install/run_doc.py \
  "$root/root/check/"
echo "check-deb: apt install ./$(basename "$deb")"
chroot "$root" /bin/bash -euo pipefail -c "
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  cd /root/check
  apt-get install -y -qq ./$(basename "$deb") >apt.log 2>&1 || { tail -20 apt.log; exit 1; }
  mkdir c cpp py
  /usr/bin/python3 run_doc.py tutorial-c.md /root/check/c | grep -E '^FAIL|files,'
  /usr/bin/python3 run_doc.py tutorial-cpp.md /root/check/cpp | grep -E '^FAIL|files,'
  /usr/bin/python3 run_doc.py tutorial-python.md /root/check/py | grep -E '^FAIL|files,'
"
echo "check-deb: the package installs on a fresh Debian 12 and the three tutorials run"
