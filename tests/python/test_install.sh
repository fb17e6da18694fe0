#!/usr/bin/env bash
# The Python SDK installed with pip, offline, the way docs/python.md says for
# Debian 12 (PEP 668): a virtual environment that sees Debian's packages,
# `pip install --no-build-isolation --no-index`. The installed package (not
# the source tree) plays a match through the arena, has the constants, and
# finds libjackarena through $JACKARENA_LIB.
# Usage: test_install.sh ARENA LIBJACKARENA
set -u
ARENA=$1
LIB=$2
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$(cd "$HERE/../../sdk/python" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
pass=0 fail=0
check() {
  local d=$1; shift
  if "$@"; then pass=$((pass + 1)); else
    fail=$((fail + 1)); echo "FAIL: $d"; [ -s err.txt ] && sed 's/^/  /' err.txt | tail -8
  fi
}
cp -r "$SRC" src                # pip writes build/ and *.egg-info next to the sources
rm -rf src/build src/*.egg-info
/usr/bin/python3 -m venv --system-site-packages venv >out.txt 2>err.txt
check "a virtual environment over Debian's packages (python3-venv)" test $? = 0
venv/bin/pip install --no-build-isolation --no-index ./src >out.txt 2>err.txt
check "pip installs the SDK offline" bash -c "[ $? = 0 ] && grep -q 'Successfully installed jackarena' out.txt"
check "the package and its constants come from the environment" venv/bin/python -c '
import jackarena, jackarena.games, jackarena.games.bombs as b, jackarena.forward
assert jackarena.__file__.startswith("'"$work"'/venv/"), jackarena.__file__
assert b.RUN(b.R_3, 5) == 332 and jackarena.games.by_name("bombs") is b'
JACKARENA_LIB="$LIB" venv/bin/python -c '
from jackarena import forward
st = forward.game("bruise-jack").setup(2, 1)
assert not st.is_over() and st.legal(st.to_act()[0])' >out.txt 2>err.txt
check "the installed forward model loads libjackarena from \$JACKARENA_LIB" test $? = 0
cat >installed.py <<'PYEOF'
import jackarena
class Bot(jackarena.Bot):
    name = "installed"
    def act(self, match, obs, legal):
        return len(legal) - 1
Bot().run()
PYEOF
"$ARENA" play bruise-jack random "cmd:$work/venv/bin/python $work/installed.py" --seed 2 --json >p.json 2>err.txt
check "a bot of the installed package plays a match without a fault" bash -c \
  "[ $? = 0 ] && /usr/bin/python3 -c 'import json; d = json.load(open(\"p.json\")); assert d[\"seats\"][1][\"bot\"] == \"installed\" and d[\"seats\"][1][\"faults\"] == 0, d'"
echo "install: $pass passed, $fail failed"
[ "$fail" = 0 ]
