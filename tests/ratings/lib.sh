# Shared by the tests of tests/ratings (sourced): a fresh working directory
# removed on exit, pass/fail counts, and the two checks.
PY=/usr/bin/python3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
pass=0 fail=0
T=taylor-blackjack

check() { local d=$1; shift; if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $d"; fi; }
expect_fail() { # expect_fail CODE PATTERN -- command...: one stderr line, nothing on stdout, no file changed
  local code=$1 pat=$2; shift 3
  local before; before=$(ls -A --full-time | grep -v '^total' | sort)
  "$@" >out.txt 2>err.txt
  local rc=$?
  local after; after=$(ls -A --full-time | grep -v -e '^total' -e ' out.txt$' -e ' err.txt$' | sort)
  if [ "$rc" = "$code" ] && [ "$(wc -l <err.txt)" = 1 ] && grep -qE -- "$pat" err.txt \
     && [ ! -s out.txt ] && [ "$before" = "$after" ]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1)); echo "FAIL: $* (rc=$rc, want $code, /$pat/)"; sed 's/^/  stderr: /' err.txt
  fi
  rm -f out.txt err.txt
}
