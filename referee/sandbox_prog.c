/* Finding the sandbox programs (sandbox_prog.h). */
#include "sandbox_prog.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void ref_sandbox_program(const char *env_var, const char *name, const char *install_rel,
                         char *out, size_t cap)
{
    const char *env = getenv(env_var);
    if (env && *env) {
        snprintf(out, cap, "%s", env);
        return;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        snprintf(out, cap, "%s", name);
        return;
    }
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = '\0';
    /* Beside the arena (build/arena), then an install (prefix/bin/arena ->
     * prefix/LIBDIR/jackarena/NAME), then from another program of the build
     * tree (build/bench/ja_bench -> build/arena/NAME). */
    const char *tries[][2] = {{"", name}, {install_rel, ""}, {"../arena/", name}};
    for (size_t i = 0; i < sizeof tries / sizeof *tries; i++) {
        snprintf(out, cap, "%s/%s%s", exe, tries[i][0], tries[i][1]);
        if (access(out, X_OK) == 0)
            return;
    }
    snprintf(out, cap, "%s/%s", exe, name);
}
