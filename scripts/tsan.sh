#!/usr/bin/env bash
# The project's threads under ThreadSanitizer, by hand (not part of
# scripts/test.sh nor CI; docs/testing.md, "ThreadSanitizer"):
#   scripts/tsan.sh [CTEST ARGS...]
# A Debug build with -DJA_TSAN=ON, warnings as errors (build-tsan/), and the
# tests that drive threads: the batched environments' pool
# (ja_vec_set_threads: test_vec_env), the hub's thread and its control calls
# (test_serve_ext), `arena serve`'s threads with real clients (serve_http,
# serve_live), and `arena tournament --jobs N`'s executors with real bot
# processes (proto_jobs, proto_capacity, proto_events, proto_direct).
# TSAN_TESTS (a ctest regex) picks others.
# tests/tsan.supp says which reports are suppressed and why (libzmq's
# lock-free pipes, which TSan cannot see). Every process's report goes to a
# scratch directory and is printed at the end: any report fails the run,
# whether or not the test that ran the process noticed its exit status.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
jobs=$(nproc)
tests=${TSAN_TESTS:-'^(test_vec_env|test_serve_ext|serve_http|serve_live|proto_jobs|proto_capacity|proto_events|proto_direct)$'}
cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=Debug -DJA_TSAN=ON -DJA_WERROR=ON >/dev/null
cmake --build build-tsan -j"$jobs"
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
rc=0
TSAN_OPTIONS="suppressions=$root/tests/tsan.supp log_path=$logs/tsan ${TSAN_OPTIONS:-}" \
  ctest --test-dir build-tsan -R "$tests" -j"$jobs" --output-on-failure "$@" || rc=$?
if compgen -G "$logs/tsan.*" >/dev/null; then
  cat "$logs"/tsan.*
  echo "tsan: ThreadSanitizer reported $(cat "$logs"/tsan.* | grep -c '^WARNING: ThreadSanitizer') problem(s), above" >&2
  rc=1
fi
exit "$rc"
