# What `cmake --install BUILD --prefix P` installs, and the Debian package
# `cpack -G DEB` makes of it (docs/install.md). Included from the top-level
# CMakeLists.txt after every target exists; targets are named here, never
# changed elsewhere for installing.
#
#   P/bin/arena, P/bin/referee            the commands
#   P/LIBDIR/jackarena/ja_host            the sandbox host of hosted: seats
#   P/LIBDIR/jackarena/ja_confine         the launcher of confined cmd: bots
#   P/LIBDIR/jackarena/ja_reap            the keeper of every cmd: bot's processes
#   P/LIBDIR/jackarena/bots/ja_*.so       the reference bots
#   P/LIBDIR/jackarena/plugin.map         the version script of plugins
#   P/LIBDIR/libjackarena{,_client}.a     the SDK and the C client, static (PIC)
#   P/LIBDIR/libjackarena{,_client}.so*   the same, shared (soname .so.MAJOR)
#   P/LIBDIR/pkgconfig/*.pc               jackarena (plugins, forward model),
#                                         jackarena-client (external C bots)
#   P/LIBDIR/cmake/JackArena/             find_package(JackArena)
#   P/include/jackarena/*.h               the public headers
#   P/JA_INSTALL_PYTHONDIR/jackarena/     the Python package + _install.py
#   P/share/man/man1/{arena,referee}.1    from --help, by help2man
#   P/share/doc/jackarena/                README.md, LICENSE, docs/, examples/ (the C
#                                         examples, python/, greedy/: the greedy bot's
#                                         sources)
#
# Relocatable: nothing installed holds P. The programs find ja_host and the
# bots from their own path (/proc/self/exe), the .pc files from ${pcfiledir},
# the CMake package from its own directory, the Python package its shared
# library from its own directory; so the prefix may be chosen at install
# time, and the tree moved afterwards.
#
# The decision about plugins: the jackarena pkg-config module and
# JackArena::sdk link the static SDK into the plugin with its symbols hidden
# (-Wl,--exclude-libs,libjackarena.a), compile with -fvisibility=hidden and
# link with the version script plugin.map (-Wl,--version-script), so a
# plugin needs nothing but libc (a C++ one libstdc++ and libgcc_s too, all
# under /usr, which the hosted sandbox lets ja_host read with the plugin
# file), loads from any directory, and exports ja_bot_entry_v1 alone: in C
# the visibility already gives that, in C++ the version script is what
# keeps the standard library's template instantiations (default visibility
# whatever the flags) out of the dynamic symbol table.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(JA_INSTALL_PYTHONDIR "lib/python3/dist-packages" CACHE STRING
  "Where the Python package jackarena goes, relative to the prefix (Debian's sys.path has /usr/lib/python3/dist-packages)")
set(JA_INSTALL_PKGDIR ${CMAKE_INSTALL_LIBDIR}/jackarena)
set(JA_INSTALL_BOTSDIR ${JA_INSTALL_PKGDIR}/bots)
set(JA_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/JackArena)
set(JA_INSTALL_PCDIR ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# ja_install_rel(OUT FROM TO): the path from install directory FROM to TO
# (each relative to the prefix, or absolute). Both under the prefix: the
# result does not depend on it.
function(ja_install_rel out from to)
  foreach(v from to)
    if(NOT IS_ABSOLUTE "${${v}}")
      set(${v} "${CMAKE_INSTALL_PREFIX}/${${v}}")
    endif()
  endforeach()
  file(RELATIVE_PATH rel "${from}" "${to}")
  string(REGEX REPLACE "/$" "" rel "${rel}")
  if(rel STREQUAL "")
    set(rel ".")
  endif()
  set(${out} "${rel}" PARENT_SCOPE)
endfunction()

# ---- the programs --------------------------------------------------------
# arena and referee find ja_host, ja_confine, ja_reap and the reference bots
# relative to their own directory (referee/seat_hosted.c, arena/run/confine.c,
# referee/proc.c, arena/run/botspec.c).
ja_install_rel(ja_host_rel ${CMAKE_INSTALL_BINDIR} ${JA_INSTALL_PKGDIR}/ja_host)
ja_install_rel(ja_confine_rel ${CMAKE_INSTALL_BINDIR} ${JA_INSTALL_PKGDIR}/ja_confine)
ja_install_rel(ja_reap_rel ${CMAKE_INSTALL_BINDIR} ${JA_INSTALL_PKGDIR}/ja_reap)
ja_install_rel(ja_bots_rel ${CMAKE_INSTALL_BINDIR} ${JA_INSTALL_BOTSDIR})
# ... and confined bots may read the SDK installed with them (the libraries
# in LIBDIR, the Python package's directory; arena/run/confine.c).
ja_install_rel(ja_lib_rel ${CMAKE_INSTALL_BINDIR} ${CMAKE_INSTALL_LIBDIR})
ja_install_rel(ja_python_rel ${CMAKE_INSTALL_BINDIR} ${JA_INSTALL_PYTHONDIR})
target_compile_definitions(ja_referee PRIVATE JA_INSTALL_HOST_REL="${ja_host_rel}"
  JA_INSTALL_REAP_REL="${ja_reap_rel}")
# (ja_arena, the library the two programs link, holds the code that looks.)
target_compile_definitions(ja_arena PRIVATE JA_INSTALL_BOTS_REL="${ja_bots_rel}"
  JA_INSTALL_CONFINE_REL="${ja_confine_rel}" JA_INSTALL_LIB_REL="${ja_lib_rel}"
  JA_INSTALL_PYTHON_REL="${ja_python_rel}")
install(TARGETS arena referee RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS ja_host ja_confine ja_reap RUNTIME DESTINATION ${JA_INSTALL_PKGDIR})
install(FILES ${CMAKE_SOURCE_DIR}/sdk/plugin.map DESTINATION ${JA_INSTALL_PKGDIR})

# The reference bots. A sanitized build (JA_SANITIZE, JA_FUZZ, JA_TSAN) builds them
# with the sanitizers for its own tests; what it installs is a plain twin of
# each (same sources, definitions, include directories and libraries, the
# plain SDK jackarena for ja_sdk), so that the installed bots run hosted
# (ja_host cannot load a sanitized plugin) like those of a release build.
set(ja_ref_bots random greedy ismcts)
if(JA_SANITIZE OR JA_FUZZ OR JA_TSAN)
  foreach(bot ${ja_ref_bots})
    get_target_property(dir ${bot} SOURCE_DIR)
    get_target_property(srcs ${bot} SOURCES)
    list(TRANSFORM srcs PREPEND "${dir}/" REGEX "^[^/]")
    add_library(${bot}_plain MODULE ${srcs})
    foreach(prop COMPILE_DEFINITIONS INCLUDE_DIRECTORIES LINK_OPTIONS OUTPUT_NAME)
      get_target_property(v ${bot} ${prop})
      if(v)
        set_property(TARGET ${bot}_plain PROPERTY ${prop} "${v}")
      endif()
    endforeach()
    get_target_property(libs ${bot} LINK_LIBRARIES)
    list(TRANSFORM libs REPLACE "^ja_sdk$" "jackarena")
    target_link_libraries(${bot}_plain PRIVATE ${libs})
    set_target_properties(${bot}_plain PROPERTIES PREFIX "" JA_NO_SANITIZE ON
      LIBRARY_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/bots-plain)
    install(TARGETS ${bot}_plain LIBRARY DESTINATION ${JA_INSTALL_BOTSDIR})
  endforeach()
else()
  install(TARGETS ${ja_ref_bots} LIBRARY DESTINATION ${JA_INSTALL_BOTSDIR})
endif()

# ---- the libraries and headers --------------------------------------------
# libjackarena_client.so finds libjackarena.so beside it wherever the
# prefix is.
set_target_properties(jackarena_client_shared jackarena_env_shared PROPERTIES
  INSTALL_RPATH "$ORIGIN")
install(TARGETS jackarena jackarena_shared jackarena_client jackarena_client_shared
  jackarena_env jackarena_env_shared
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/sdk/include/jackarena
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")

# ---- pkg-config ------------------------------------------------------------
ja_install_rel(JA_PC_PREFIX ${JA_INSTALL_PCDIR} .)
foreach(v LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${CMAKE_INSTALL_${v}}")
    set(JA_PC_${v} "${CMAKE_INSTALL_${v}}")
  else()
    set(JA_PC_${v} "\${prefix}/${CMAKE_INSTALL_${v}}")
  endif()
endforeach()
foreach(pc jackarena jackarena-client)
  configure_file(${CMAKE_CURRENT_LIST_DIR}/${pc}.pc.in ${CMAKE_BINARY_DIR}/install/${pc}.pc @ONLY)
  install(FILES ${CMAKE_BINARY_DIR}/install/${pc}.pc DESTINATION ${JA_INSTALL_PCDIR})
endforeach()

# ---- find_package(JackArena) -------------------------------------------------
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/JackArenaConfig.cmake.in
  ${CMAKE_BINARY_DIR}/install/JackArenaConfig.cmake
  INSTALL_DESTINATION ${JA_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_LIBDIR CMAKE_INSTALL_INCLUDEDIR)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/install/JackArenaConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/install/JackArenaConfig.cmake
  ${CMAKE_BINARY_DIR}/install/JackArenaConfigVersion.cmake DESTINATION ${JA_INSTALL_CMAKEDIR})

# ---- Python ------------------------------------------------------------------
# The package directory as it is (every module and subpackage), and
# _install.py: where the installed libjackarena.so.MAJOR is, from the
# package's directory.
install(DIRECTORY ${CMAKE_SOURCE_DIR}/sdk/python/jackarena DESTINATION ${JA_INSTALL_PYTHONDIR}
  PATTERN "__pycache__" EXCLUDE PATTERN "*.pyc" EXCLUDE)
ja_install_rel(ja_py_lib ${JA_INSTALL_PYTHONDIR}/jackarena
  ${CMAKE_INSTALL_LIBDIR}/libjackarena.so.${PROJECT_VERSION_MAJOR})
file(CONFIGURE OUTPUT ${CMAKE_BINARY_DIR}/install/_install.py CONTENT
"# Generated by cmake/install.cmake: the installed SDK library (the forward
# model), relative to this package's directory.
LIBJACKARENA = \"${ja_py_lib}\"
")
install(FILES ${CMAKE_BINARY_DIR}/install/_install.py
  DESTINATION ${JA_INSTALL_PYTHONDIR}/jackarena)

# ---- man pages ---------------------------------------------------------------
find_program(JA_HELP2MAN help2man)
if(JA_HELP2MAN)
  set(ja_man_arena "run card-game bots against each other (Jack Arena)")
  set(ja_man_referee "a Jack Arena referee worker: plays the matches an arena hands out")
  set(ja_pages)
  foreach(prog arena referee)
    set(page ${CMAKE_BINARY_DIR}/man/${prog}.1)
    add_custom_command(OUTPUT ${page}
      COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/man
      COMMAND ${JA_HELP2MAN} --no-info --version-string=${PROJECT_VERSION}
        --name=${ja_man_${prog}} --include=${CMAKE_CURRENT_LIST_DIR}/man.h2m
        --output=${page} $<TARGET_FILE:${prog}>
      DEPENDS ${prog} ${CMAKE_CURRENT_LIST_DIR}/man.h2m VERBATIM)
    list(APPEND ja_pages ${page})
  endforeach()
  add_custom_target(ja_man ALL DEPENDS ${ja_pages})
  install(FILES ${ja_pages} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
else()
  message(WARNING "help2man not found: the man pages arena(1) and referee(1) are "
    "neither built nor installed (Debian package help2man)")
endif()

# ---- documentation -------------------------------------------------------------
install(FILES ${CMAKE_SOURCE_DIR}/README.md ${CMAKE_SOURCE_DIR}/LICENSE
  DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/docs DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/sdk/examples/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples)
install(DIRECTORY ${CMAKE_SOURCE_DIR}/sdk/python/examples/
  DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples/python PATTERN "__pycache__" EXCLUDE)
# The greedy reference bot's sources (docs/bots.md), which the documents
# point to: an example of a plugin playing every game (built by the
# one-liner docs/bots.md gives; its CMakeLists.txt is the build tree's).
install(DIRECTORY ${CMAKE_SOURCE_DIR}/bots/greedy/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples/greedy
  FILES_MATCHING PATTERN "*.c" PATTERN "*.h")

# ---- the Debian package (cpack -G DEB) ---------------------------------------
# Prefix /usr; Python in /usr/lib/python3/dist-packages (on sys.path). The
# run-time libraries come from dpkg-shlibdeps (package dpkg-dev); what
# building bots needs (pkg-config, the zmq and msgpack headers, a compiler)
# is recommended, not required: the arena runs without it. CPack adds the
# ldconfig calls (postinst, postrm) for the libraries in /usr/lib.
set(JA_DEB_MAINTAINER "The Jack Arena developers <jackarena@invalid>" CACHE STRING
  "Maintainer field of the Debian package")
set(CPACK_PACKAGE_NAME jackarena)
set(CPACK_PACKAGE_VENDOR "The Jack Arena developers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "tournament harness for card-game bots")
set(CPACK_PACKAGE_DESCRIPTION "Jack Arena runs card-game bots against each other under
each game's rules and rates them in Elo ladders. This package holds the arena
and referee commands, the sandbox for untrusted plugins, the reference bots,
the bot SDK (C headers, static and shared libraries, pkg-config and CMake
files, the C client of external bots) and the Python SDK.")
set(CPACK_PACKAGE_CONTACT "${JA_DEB_MAINTAINER}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${JA_DEB_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_SECTION games)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "python3-zmq, python3-msgpack")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS
  "pkg-config, libzmq3-dev, libmsgpack-dev, gcc | c-compiler, g++ | c++-compiler, python3-numpy")
include(CPack)
