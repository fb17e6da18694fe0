# Shared by the command-line tests (sourced): a scratch directory, $work,
# removed at exit and the current directory; the pass/fail counters; check
# and expect_fail; finish, which prints the counts and sets the status.

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
pass=0 fail=0

# expect_fail CODE PATTERN -- command...: exit CODE, exactly one stderr line
# matching PATTERN, empty stdout, and no file created in the work directory.
expect_fail() {
  local code=$1 pat=$2; shift 3
  local before after
  before=$(ls -A | grep -v -e '^out.txt$' -e '^err.txt$' | sort)
  "$@" >out.txt 2>err.txt
  local rc=$?
  after=$(ls -A | grep -v -e '^out.txt$' -e '^err.txt$' | sort)
  local lines; lines=$(wc -l <err.txt)
  if [ "$rc" = "$code" ] && [ "$lines" = 1 ] && grep -qE -- "$pat" err.txt && [ ! -s out.txt ] \
     && [ "$before" = "$after" ]; then
    pass=$((pass + 1))
  else
    fail=$((fail + 1))
    echo "FAIL: $* (rc=$rc, want $code, /$pat/)"; sed 's/^/  stderr: /' err.txt; head -3 out.txt | sed 's/^/  stdout: /'
  fi
  rm -f out.txt err.txt
}

check() { # check DESCRIPTION command...: the command must succeed
  local d=$1; shift
  if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $d"; fi
}

finish() { # the counts; the status of the test
  echo "$pass passed, $fail failed"
  [ "$fail" = 0 ]
}
