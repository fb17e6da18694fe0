/* Where the arena's sandbox programs are: ja_host (hosted: seats,
 * referee/seat_hosted.c) and ja_confine (confined cmd: bots,
 * arena/run/confine.c), built beside the arena (build/arena) and installed in
 * LIBDIR/jackarena (cmake/install.cmake). */
#ifndef REF_SANDBOX_PROG_H
#define REF_SANDBOX_PROG_H

#include <stddef.h>

/* The path of program `name` into out: $env_var when set; else, from the
 * directory of this executable, the first executable of NAME beside it,
 * install_rel (relative to the bin directory of an install), and
 * ../arena/NAME (another program of the build tree, e.g. bench/ja_bench);
 * else NAME beside it (an absent file that a caller's access() check
 * names). */
void ref_sandbox_program(const char *env_var, const char *name, const char *install_rel,
                         char *out, size_t cap);

#endif /* REF_SANDBOX_PROG_H */
