#!/usr/bin/env bash
# Sets everything up and runs the whole test suite with ctest:
#   1. the fast set (label `fast`) in a Debug build under ASan + UBSan,
#      warnings as errors (build-asan/);
#   2. libFuzzer over every decoder of untrusted bytes, FUZZ_SECONDS (60)
#      per target (build-fuzz/, clang);
#   3. a Release build with clang, warnings as errors (build-clang/), and
#      its `unit` label (the link graph);
#   4. the slow set (label `slow`: long property runs, calibration) in a
#      Release build, warnings as errors (build/).
# Extra arguments go to both ctest runs (e.g. -R taylor, --output-on-failure).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --deps-only

jobs=$(nproc)
echo "== fast tests under ASan+UBSan (build-asan) =="
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DJA_SANITIZE=ON -DJA_WERROR=ON >/dev/null
cmake --build build-asan -j"$jobs"
# One test more than cores: the fast set's tests wait on processes and
# sockets, and at -j(cores) a quarter of the CPU time went unused (2 cores,
# 2026-11-27: 536 s at -j2, 469 s at -j3, the same 430 tests passing).
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
  ctest --test-dir build-asan -L fast -j"$((jobs + 1))" --output-on-failure "$@"

echo "== fuzzing, ${FUZZ_SECONDS:-60}s per target (build-fuzz) =="
bash scripts/fuzz.sh

echo "== clang build, warnings as errors (build-clang) =="
CC=clang cmake -S . -B build-clang -DCMAKE_BUILD_TYPE=Release -DJA_WERROR=ON >/dev/null
cmake --build build-clang -j"$jobs"
ctest --test-dir build-clang -L unit -j"$jobs" --output-on-failure "$@"

echo "== slow tests in Release (build) =="
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DJA_WERROR=ON >/dev/null
cmake --build build -j"$jobs"
ctest --test-dir build -L slow -j"$jobs" --output-on-failure "$@"
