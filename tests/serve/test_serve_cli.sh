#!/bin/bash
# `arena serve` bad flags: exit 2, one line naming the problem, nothing
# written (no database, no data folder).
set -u
ARENA=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
bad() { # expected-text args...
    local want=$1
    shift
    local err
    err=$(cd "$T" && "$ARENA" serve "$@" 2>&1 >/dev/null)
    local rc=$?
    if [ $rc -ne 2 ] || [ "$(printf '%s\n' "$err" | wc -l)" -ne 1 ] || [[ "$err" != *"$want"* ]]; then
        echo "FAIL: arena serve $*: exit $rc, '$err' (wanted exit 2 and '$want')"
        fail=1
    fi
    if [ -n "$(ls -A "$T")" ]; then
        echo "FAIL: arena serve $*: wrote $(ls -A "$T")"
        fail=1
        rm -rf "${T:?}"/*
    fi
}
bad "name one game"
bad "unknown game" nosuchgame
bad "not a loopback address" bruise-jack --http 0.0.0.0:8080
bad "port must be" bruise-jack --http 127.0.0.1:0
bad "port must be" bruise-jack --http 127.0.0.1:99999
bad "HOST:PORT" bruise-jack --http 8080
bad "[IPv6]" bruise-jack --http ::1:8080
bad "numeric IPv4" bruise-jack --http example.org:8080
bad "--concurrency" bruise-jack --concurrency 0
bad "--smoke" bruise-jack --smoke 0
bad "--max-upload" bruise-jack --max-upload 12
bad "--seats 9" bruise-jack --seats 9
bad "hands" bruise-jack --opt hands=0
bad "--fault-limit" bruise-jack --fault-limit x
bad "unknown option" bruise-jack --bogus
bad "--max-streams" bruise-jack --max-streams 0
bad "--max-per-address" bruise-jack --max-per-address 0
bad "must not be above --max-clients" bruise-jack --max-per-address 100
bad "must not be above" bruise-jack --max-streams 4 --max-per-address 5
bad "--trusted-proxy 'example.org'" bruise-jack --trusted-proxy example.org
bad "numeric IPv4 or IPv6" bruise-jack --trusted-proxy 1.2.3
bad "--author-queue" bruise-jack --author-queue 0
bad "must be below --queue" bruise-jack --author-queue 64
# Connections the open-files limit cannot hold: said at start, nothing written.
err=$(cd "$T" && ulimit -n 2000 && ulimit -Hn 2000 && "$ARENA" serve bruise-jack \
      --max-streams 5000 2>&1 >/dev/null)
rc=$?
if [ $rc -ne 2 ] || [[ "$err" != *"open files"* ]] || [ -n "$(ls -A "$T")" ]; then
    echo "FAIL: --max-streams past the open-files limit: exit $rc, '$err', wrote $(ls -A "$T")"
    fail=1
    rm -rf "${T:?}"/*
fi
touch "$T/f"
err=$(cd "$T" && "$ARENA" serve bruise-jack --data f 2>&1 >/dev/null)
rc=$?
if [ $rc -ne 2 ] || [ -e "$T/arena.db" ]; then
    echo "FAIL: --data naming a file: exit $rc, '$err'"
    fail=1
fi
rm -f "$T/f"
out=$("$ARENA" serve --help)
if [[ "$out" != *"--max-upload BYTES"* ]] || [[ "$out" != *"--public"* ]] ||
   [[ "$out" != *"--max-streams"* ]] || [[ "$out" != *"--trusted-proxy"* ]]; then
    echo "FAIL: --help"
    fail=1
fi
if "$ARENA" --help | grep -q "serve GAME"; then :; else
    echo "FAIL: arena --help does not list serve"
    fail=1
fi
[ $fail -eq 0 ] && echo "serve_cli: ok"
exit $fail
