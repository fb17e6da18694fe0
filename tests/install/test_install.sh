#!/usr/bin/env bash
# The installed SDK and arena, used with nothing but the installed files.
#  1. `cmake --install BUILD` into a scratch prefix, then the tree is moved:
#     no installed file names the prefix it was installed into.
#  2. Every bot of the manifest (bots.txt: kind, name, source, flags, how to
#     play) is copied to a scratch directory and built with the pkg-config
#     one-liner (c++ -std=c++17 for a C++ plugin); plugins depend on libc
#     alone (C++ ones on the C++ library's own too) and export
#     ja_bot_entry_v1 alone; the installed arena plays each: plugins in-process, hosted:,
#     and hosted: from an unrelated directory; external bots as cmd:, and
#     as cmd: confined (--confine: the installed ja_confine, the prefix's
#     libraries readable with --confine-read).
#  3. A CMake project builds the example bot through find_package(JackArena)
#     (plugin, static and shared client), the C++ example as a plugin, and
#     a program on the shared SDK.
#  4. Every build of the same bot (same name, plugin or external) gives the
#     same digest for the same seed: manifest, find_package, the build
#     tree's own, in-process, hosted: and cmd: (an external bot draws from
#     the stream whose seed the referee sends in `start`).
#  5. The installed arena finds its reference bots, ja_host, ja_confine and ja_reap, and so do
#     its referee workers (--jobs 2); the installed shared libraries export
#     ja_ symbols only; private headers are not installed.
#  6. Python: the package imports from the prefix, and _install.LIBJACKARENA
#     is the installed shared library.
#  7. The installed examples: the greedy bot's sources (examples/greedy/)
#     build, copied to a scratch directory, with the pkg-config one-liner
#     of docs/bots.md into a plugin that plays as the installed greedy (the
#     same digest, in two games); each Python heuristic example
#     (examples/python/greedy_<game>.py) plays its game with the installed
#     package as the installed greedy does.
# Usage: test_install.sh CMAKE BUILD_DIR SOURCE_DIR LAYOUT MANIFEST TREE_EXTERNAL_BOT TREE_PLUGIN...
set -u
CMAKE=$1 BUILD=$2 SRC=$3 LAYOUT=$4 MANIFEST=$5 TREE_EXT=$6
shift 6
TREE_PLUGINS=("$@")
# shellcheck source=/dev/null
. "$LAYOUT"
PY=/usr/bin/python3
SEED=11
# shellcheck source=tests/install/lib.sh
. "$(dirname "$0")/lib.sh"
# Only the installed files and the system: nothing found through the build.
unset JACKARENA_BOTS_DIR JACKARENA_HOST CPATH C_INCLUDE_PATH LIBRARY_PATH LD_LIBRARY_PATH \
  PYTHONPATH PKG_CONFIG_PATH CMAKE_PREFIX_PATH CFLAGS LDFLAGS
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
check() { local d=$1; shift; if "$@"; then ok; else bad "$d"; fi; }

# 1. Install, then move the tree.
if ! "$CMAKE" --install "$BUILD" --prefix "$work/stage/usr" >install.log 2>&1; then
  sed 's/^/  /' install.log | tail -20
  echo "FAIL: cmake --install $BUILD"
  exit 1
fi
mkdir -p "$work/moved/elsewhere"
mv "$work/stage/usr" "$work/moved/elsewhere/prefix"
P=$work/moved/elsewhere/prefix
check "no installed file names the install prefix" test -z "$(grep -rlF "$work/stage" "$P")"
ARENA=$P/$BINDIR/arena
export PKG_CONFIG_PATH=$P/$LIBDIR/pkgconfig
check "pkg-config finds jackarena $VERSION" test "$(pkg-config --modversion jackarena)" = "$VERSION"

# only_entry FILE: exports ja_bot_entry_v1 and nothing else (the whole
# list of defined dynamic symbols: no version node, no C++ instantiation).
only_entry() { [ "$(nm -D --defined-only "$1" | awk '{print $3}')" = ja_bot_entry_v1 ]; }
# needs_libc_only FILE: no shared library but the C library's (libc, libm).
needs_libc_only() {
  local needed
  needed=$(readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
  grep -qx libc.so.6 <<<"$needed" && ! grep -vqxE 'lib(c|m)\.so\.6' <<<"$needed"
}
# needs_cxx_libs_only FILE: the C library's and the C++ compiler's run-time
# libraries (libstdc++, libgcc_s), nothing else.
needs_cxx_libs_only() {
  local needed
  needed=$(readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
  grep -qx libc.so.6 <<<"$needed" && grep -qx libstdc++.so.6 <<<"$needed" &&
    ! grep -vqxE 'lib(c|m)\.so\.6|libstdc\+\+\.so\.6|libgcc_s\.so\.1' <<<"$needed"
}

# play ARGS...: `arena play ARGS --seed SEED --json` by the installed arena,
# without a fault; sets dig to the digest (empty on failure).
play() {
  dig=
  if "$ARENA" play "$@" --seed "$SEED" --json >"$work/play.json" 2>"$work/play.err" </dev/null; then
    dig=$($PY - "$work/play.json" 2>>"$work/play.err" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
assert all(s["faults"] == 0 for s in d["seats"]), d["seats"]
print(d["digest"])
EOF
)
  fi
  [ -n "$dig" ] || { sed 's/^/  stderr: /' "$work/play.err" | head -5; return 1; }
}

# record KEY WHAT: the digest just played must equal the first one recorded
# under KEY (the bot's name: plugins and external builds alike).
declare -A first_dig first_what play_args
record() {
  if [ -z "${first_dig[$1]:-}" ]; then
    first_dig[$1]=$dig first_what[$1]=$2
    ok
  elif [ "${first_dig[$1]}" = "$dig" ]; then
    ok
  else
    bad "$2: digest $dig, but ${first_what[$1]} gave ${first_dig[$1]}"
  fi
}

# play_bot KIND NAME FILE WHAT: plays FILE with NAME's manifest arguments
# in every way its kind allows and records the digests.
play_bot() {
  local kind=$1 name=$2 file=$3 what=$4 spec a args
  local -a specs
  if [ "$kind" = plugin ] || [ "$kind" = plugin-c++ ]; then
    mkdir -p "$work/unrelated/$what"
    cp "$file" "$work/unrelated/$what/$name.so"
    specs=("$file" "hosted:$file" "hosted:./$name.so")
  else
    specs=("cmd:$file")
  fi
  for spec in "${specs[@]}"; do
    args=()
    for a in ${play_args[$kind:$name]}; do
      [ "${a:0:1}" = @ ] && a=$spec${a:1}
      args+=("$a")
    done
    if [ "$spec" = "hosted:./$name.so" ]; then
      (cd "$work/unrelated/$what" && play "${args[@]}")
    else
      play "${args[@]}"
    fi || { bad "$what: arena play ${args[*]}"; continue; }
    record "$name" "$what as $spec"
    # Confined: ja_confine found in the install; a client linked to the
    # shared SDK reads it from the prefix.
    if [ "$kind" = client ]; then
      play "${args[@]}" --confine --confine-read "$P/$LIBDIR" || {
        bad "$what: arena play ${args[*]} --confine"; continue; }
      record "$name" "$what as $spec, confined"
    fi
  done
}

# 2. The manifest's bots, built from a copy of their source.
mkdir -p src bin
while read -r -u 3 kind name source cflags rest; do
  [ -z "$kind" ] || [ "${kind:0:1}" = "#" ] && continue
  [ "${source:0:1}" = / ] || source=$SRC/$source
  flags=()
  [ "$cflags" = - ] || IFS=, read -ra flags <<<"$cflags"
  play_args[$kind:$name]=$rest
  mkdir -p "src/$kind-$name"
  cp "$source" "src/$kind-$name/"
  copy=src/$kind-$name/$(basename "$source")
  case $kind in
    plugin)
      out=$work/bin/$name.so
      # shellcheck disable=SC2046
      if ! cc -shared -fPIC "$copy" "${flags[@]}" $(pkg-config --cflags --libs jackarena) \
           -o "$out" >cc.log 2>&1; then
        bad "plugin $name: cc -shared -fPIC $(basename "$source") \$(pkg-config --cflags --libs jackarena)"
        sed 's/^/  /' cc.log | head -10
        continue
      fi
      check "plugin $name exports ja_bot_entry_v1 alone" only_entry "$out"
      check "plugin $name needs the C library alone" needs_libc_only "$out"
      ;;
    plugin-c++)
      out=$work/bin/$name.so
      # shellcheck disable=SC2046
      if ! c++ -std=c++17 -shared -fPIC "$copy" "${flags[@]}" $(pkg-config --cflags --libs jackarena) \
           -o "$out" >cc.log 2>&1; then
        bad "plugin $name: c++ -std=c++17 -shared -fPIC $(basename "$source") \$(pkg-config --cflags --libs jackarena)"
        sed 's/^/  /' cc.log | head -10
        continue
      fi
      check "C++ plugin $name exports ja_bot_entry_v1 alone" only_entry "$out"
      check "C++ plugin $name needs the C and C++ libraries alone" needs_cxx_libs_only "$out"
      ;;
    client)
      out=$work/bin/$name
      # shellcheck disable=SC2046
      if ! cc "$copy" "${flags[@]}" $(pkg-config --cflags --libs jackarena-client) -o "$out" \
           >cc.log 2>&1; then
        bad "client $name: cc $(basename "$source") \$(pkg-config --cflags --libs jackarena-client)"
        sed 's/^/  /' cc.log | head -10
        continue
      fi
      check "client $name links the SDK statically" \
        test -z "$(readelf -d "$out" | grep -F '(NEEDED)' | grep -F jackarena)"
      ;;
    *) bad "bots.txt: unknown kind '$kind' for $name"; continue ;;
  esac
  play_bot "$kind" "$name" "$out" "$kind $name (pkg-config)"
done 3<"$MANIFEST"

# 3. The same example bot through find_package(JackArena).
mkdir consumer
cp "$SRC"/tests/install/consumer/* "$SRC/sdk/examples/example_bot.c" "$SRC/sdk/examples/halving.cpp" \
  consumer/
if "$CMAKE" -S consumer -B consumer/build -DCMAKE_PREFIX_PATH="$P" -DCMAKE_BUILD_TYPE=Release \
     >consumer.log 2>&1 && "$CMAKE" --build consumer/build >>consumer.log 2>&1; then
  ok
  C=consumer/build
  check "find_package plugin exports ja_bot_entry_v1 alone" only_entry $C/example.so
  check "find_package plugin needs the C library alone" needs_libc_only $C/example.so
  play_bot plugin example "$work/$C/example.so" "plugin example (find_package)"
  check "find_package C++ plugin exports ja_bot_entry_v1 alone" only_entry $C/halving.so
  check "find_package C++ plugin needs the C and C++ libraries alone" needs_cxx_libs_only \
    $C/halving.so
  play_bot plugin-c++ halving "$work/$C/halving.so" "C++ plugin halving (find_package)"
  play_bot client example "$work/$C/example_bot" "client example (find_package, static)"
  play_bot client example "$work/$C/example_bot_shared" "client example (find_package, shared)"
  check "JackArena::sdk_shared answers" test "$($C/sdk_shared)" = "$VERSION crash bombs 1"
else
  bad "find_package(JackArena) project"
  sed 's/^/  /' consumer.log | tail -15
fi

# 4. The build tree's own external example bot, played by the installed arena.
play_bot client example "$TREE_EXT" "client example (build tree)"

# 5. The installed arena, its reference bots, ja_host and workers.
check "installed ja_host" test -x "$P/$PKGDIR/ja_host"
check "installed ja_confine" test -x "$P/$PKGDIR/ja_confine"
check "installed ja_reap" test -x "$P/$PKGDIR/ja_reap"
for b in random greedy ismcts; do
  f=$P/$PKGDIR/bots/ja_$b.so
  check "installed $b exports ja_bot_entry_v1 alone" only_entry "$f"
  check "installed $b needs the C library alone" needs_libc_only "$f"
done
for f in "${TREE_PLUGINS[@]}"; do
  check "build-tree plugin $(basename "$f") exports ja_bot_entry_v1 alone" only_entry "$f"
done
if play taylor-blackjack random greedy; then
  ok
  record ref:random-greedy "installed random greedy"
  play taylor-blackjack hosted:random greedy && record ref:random-greedy "installed hosted:random greedy" \
    || bad "installed arena: hosted:random greedy"
else
  bad "installed arena: random greedy"
fi
# Plugin bots only: --jobs 2 hands the matches to 2 referee workers, which
# find the reference bots from their own path.
"$ARENA" tournament taylor-blackjack --bots random,greedy,ismcts:iters=20 --rounds 1 \
  --opt games=1 --jobs 2 --seed $SEED --db t.db --json -q >t.json 2>t.err </dev/null
check "tournament through installed referee workers exits 0" test $? = 0
check "every match of it finished without a fault" $PY -c '
import json, sys
d = json.load(open("t.json"))
assert d["matches"] == d["planned"] > 0, d
assert d["faults"] == 0 and len(d["standings"]) == 3, d
'
sed 's/^/  stderr: /' t.err | head -5

for lib in libjackarena libjackarena_client libjackarena_env; do
  so=$P/$LIBDIR/$lib.so
  check "$lib.so: soname $lib.so.${VERSION%%.*}" \
    test "$(readelf -d "$so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')" = "$lib.so.${VERSION%%.*}"
  check "$lib.so exports ja_ symbols only" \
    test -z "$(nm -D --defined-only "$so" | awk '$3 !~ /^ja_/')"
  check "$lib.a installed" test -f "$P/$LIBDIR/$lib.a"
done
for sym in ja_rng_seed ja_rng_below ja_fault_name ja_game_find; do
  check "libjackarena.so defines $sym" grep -qx "$sym" \
    <(nm -D --defined-only "$P/$LIBDIR/libjackarena.so" | awk '{print $3}')
done
check "libjackarena_client.so defines ja_client_main" grep -qx ja_client_main \
  <(nm -D --defined-only "$P/$LIBDIR/libjackarena_client.so" | awk '{print $3}')
check "libjackarena_env.so defines ja_vec_step" grep -qx ja_vec_step \
  <(nm -D --defined-only "$P/$LIBDIR/libjackarena_env.so" | awk '{print $3}')
check "the public headers, all of them, and nothing else" test \
  "$(cd "$SRC/sdk/include/jackarena" && ls)" = "$(cd "$P/$INCLUDEDIR/jackarena" && ls)"
check "no private header installed" test -z "$(find "$P" -name 'ja_mp*.h' -o -name 'ja_botrt.h')"
check "documentation installed" test -f "$P/$DOCDIR/README.md" -a -f "$P/$DOCDIR/docs/install.md" \
  -a -f "$P/$DOCDIR/examples/example_bot.c"
if [ -f "$BUILD/man/arena.1" ]; then
  check "man pages installed" test -s "$P/$MANDIR/man1/arena.1" -a -s "$P/$MANDIR/man1/referee.1"
else
  echo "note: no man pages in this build (help2man missing): not checked"
fi

# 6. Python, from the prefix only.
PYTHONPATH=$P/$PYTHONDIR $PY - "$P" "$VERSION" >py.out 2>&1 <<'EOF'
import ctypes, os, sys
import jackarena, jackarena._install as inst
prefix, version = sys.argv[1], sys.argv[2]
pkg = os.path.dirname(os.path.abspath(jackarena.__file__))
assert pkg.startswith(prefix + "/"), pkg
lib = os.path.normpath(os.path.join(pkg, inst.LIBJACKARENA))
assert os.path.isfile(lib), lib
assert os.path.basename(lib) == "libjackarena.so." + version.split(".")[0], lib
f = ctypes.CDLL(lib).ja_version
f.restype = ctypes.c_char_p
assert f().decode() == version, f()
assert hasattr(jackarena, "Bot")
EOF
check "python: jackarena from the prefix, _install.LIBJACKARENA loads" test $? = 0
sed 's/^/  /' py.out | tail -5
# The batched environments from the prefix: libjackarena_env beside
# libjackarena, the installed reference bots as opponents.
PYTHONPATH=$P/$PYTHONDIR $PY - >vec.out 2>&1 <<'EOF'
import jackarena.env as E
v = E.make_vec("bruise-jack", 4, seats=2, opponents=["greedy"], hands=1)
obs, mask = v.reset(seed=1)
assert obs.shape == (4, v.encoding.obs_length) and mask.any(axis=1).all(), mask
for _ in range(40):
    v.step([int(m.nonzero()[0][0]) if m.any() else 0 for m in v.mask])
assert v.episode(0) is not None, "no episode ended"
EOF
check "python: make_vec from the prefix steps with the installed greedy" test $? = 0
sed 's/^/  /' vec.out | tail -5

# 7. The examples, as installed.
G=$P/$DOCDIR/examples/greedy
check "the greedy sources installed, and nothing else of bots/greedy" test \
  "$(cd "$SRC/bots/greedy" && ls -- *.c *.h)" = "$(cd "$G" && ls)"
mkdir greedy-src && cp "$G"/* greedy-src/
# shellcheck disable=SC2046
if (cd greedy-src && cc -shared -fPIC -O2 -DGREEDY_HAVE_BRAWLJACK -DGREEDY_HAVE_BRUISE_JACK \
      -DGREEDY_HAVE_JACK_IN_THE_BOX -DGREEDY_HAVE_BOMBS greedy*.c \
      $(pkg-config --cflags --libs jackarena) -o "$work/bin/greedy.so") >cc.log 2>&1; then
  ok
  check "the installed greedy sources build a plugin exporting ja_bot_entry_v1 alone" \
    only_entry "$work/bin/greedy.so"
  for g in "taylor-blackjack random" "bombs random random"; do
    set -- $g
    if play "$@" greedy; then
      ref=$dig
      play "$@" "$work/bin/greedy.so" && check "greedy built from the installed sources plays $1 as the installed greedy" test "$dig" = "$ref" \
        || bad "arena play $* $work/bin/greedy.so"
    else
      bad "installed arena: $* greedy"
    fi
  done
else
  bad "the installed greedy sources: cc -shared -fPIC greedy*.c \$(pkg-config --cflags --libs jackarena)"
  sed 's/^/  /' cc.log | head -10
fi
for g in taylor-blackjack:taylor brawljack:brawljack bruise-jack:bruise_jack \
         jack-in-the-box:jack_in_the_box bombs:bombs; do
  game=${g%%:*} ex=$P/$DOCDIR/examples/python/greedy_${g#*:}.py
  check "examples/python/$(basename "$ex") installed" test -f "$ex"
  others=(random); [ "$game" = bombs ] && others=(random random)
  if play "$game" "${others[@]}" greedy; then
    ref=$dig
    PYTHONPATH=$P/$PYTHONDIR play "$game" "${others[@]}" "cmd:$PY $ex" &&
      check "installed $(basename "$ex") plays $game as the installed greedy" test "$dig" = "$ref" \
      || bad "installed arena: $game with cmd:$PY $ex"
  else
    bad "installed arena: $game ${others[*]} greedy"
  fi
done

echo "install: $pass passed, $fail failed"
[ "$fail" = 0 ]
