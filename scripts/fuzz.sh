#!/usr/bin/env bash
# Fuzzes every decoder of untrusted bytes with libFuzzer (clang, ASan+UBSan).
#   scripts/fuzz.sh [SECONDS]   per target; default 60 (CI), longer by hand
# The plugin file check (elf) reads a few fixed-size headers and the
# server's request parsers (serve) are small: each gets a quarter of
# SECONDS, which covers it, so each adds 15 s to the CI total.
# New inputs that find new coverage stay in build-fuzz/corpus/<target>; the
# checked-in seeds are in tests/fuzz/corpus/<target>.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-${FUZZ_SECONDS:-60}}
command -v clang >/dev/null || { echo "fuzz: clang is not installed (scripts/setup.sh installs it)" >&2; exit 1; }
cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug -DJA_FUZZ=ON >/dev/null
targets=$(sed -n 's/^set(JA_FUZZ_TARGETS \(.*\))/\1/p' tests/fuzz/CMakeLists.txt)
for t in $targets; do
  cmake --build build-fuzz -j"$(nproc)" --target "fuzz_$t" >/dev/null
  mkdir -p "build-fuzz/corpus/$t"
  s=$secs
  [ "$t" = elf ] || [ "$t" = serve ] && s=$(( (secs + 3) / 4 ))
  echo "== fuzz_$t for ${s}s =="
  ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=1 \
    "build-fuzz/tests/fuzz/fuzz_$t" -max_total_time="$s" -max_len=65536 -rss_limit_mb=2048 \
    -print_final_stats=1 "build-fuzz/corpus/$t" "tests/fuzz/corpus/$t" 2>&1 | tail -n 12
done
