#!/usr/bin/env bash
# Fuzzes every decoder of untrusted bytes with libFuzzer (clang, ASan+UBSan).
#   scripts/fuzz.sh [SECONDS]   per target; default 60 (CI), longer by hand
# The plugin file check (elf) reads a few fixed-size headers and the
# server's request parsers (serve) are small: each gets a quarter of
# SECONDS, which covers it. The targets run side by side, one a core: on
# CI's two cores the five take about two minutes, not three and a half.
# New inputs that find new coverage stay in build-fuzz/corpus/<target>; the
# checked-in seeds are in tests/fuzz/corpus/<target>.
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-${FUZZ_SECONDS:-60}}
command -v clang >/dev/null || { echo "fuzz: clang is not installed (scripts/setup.sh installs it)" >&2; exit 1; }
cmake -S . -B build-fuzz -DCMAKE_C_COMPILER=clang -DCMAKE_BUILD_TYPE=Debug -DJA_FUZZ=ON >/dev/null
targets=$(sed -n 's/^set(JA_FUZZ_TARGETS \(.*\))/\1/p' tests/fuzz/CMakeLists.txt)
# Longest first; each one's last lines are printed when it ends, and any
# failure fails the script.
jobs=$(nproc)
short_target() { [ "$1" = elf ] || [ "$1" = serve ]; }
# shellcheck disable=SC2086
cmake --build build-fuzz -j"$jobs" --target $(printf 'fuzz_%s ' $targets) >/dev/null
long=() short=()
for t in $targets; do
  if short_target "$t"; then short+=("$t"); else long+=("$t"); fi
done
run() {
  local t=$1 s=$secs
  short_target "$t" && s=$(( (secs + 3) / 4 ))
  mkdir -p "build-fuzz/corpus/$t"
  local rc=0
  ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=1 \
    "build-fuzz/tests/fuzz/fuzz_$t" -max_total_time="$s" -max_len=65536 -rss_limit_mb=2048 \
    -print_final_stats=1 "build-fuzz/corpus/$t" "tests/fuzz/corpus/$t" \
    >"build-fuzz/fuzz_$t.log" 2>&1 || rc=$?
  echo "== fuzz_$t for ${s}s: $([ $rc = 0 ] && echo ok || echo "FAILED (exit $rc)") =="
  tail -n 12 "build-fuzz/fuzz_$t.log"
  return $rc
}
failed=0 running=0
for t in "${long[@]}" "${short[@]}"; do
  if [ "$running" -ge "$jobs" ]; then
    wait -n || failed=1
    running=$((running - 1))
  fi
  run "$t" &
  running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
  wait -n || failed=1
  running=$((running - 1))
done
if [ "$failed" != 0 ]; then
  echo "fuzz: a target failed (its log above, and build-fuzz/fuzz_TARGET.log)" >&2
  exit 1
fi
