/* Confined cmd: bots (confine.h). */
#include "run/confine.h"
#include "run/confine_read.h"

#include "ja_sandbox.h"
#include "sandbox_prog.h"

#include "jackarena/ja_error.h"
#include "ja_xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef JA_INSTALL_CONFINE_REL
#define JA_INSTALL_CONFINE_REL "../lib/jackarena/ja_confine"
#endif

bool arena_confine_enabled(const arena_confine *c)
{
    return c->mode == ARENA_CONFINE_ON || c->mode == ARENA_CONFINE_WEAK ||
           (c->mode == ARENA_CONFINE_DEFAULT && c->by_default);
}

void arena_confine_protect(arena_confine *c, const char *path, const char *what)
{
    if (!path || !*path || c->n_protect == ARENA_CONFINE_MAX_PROTECT)
        return;
    char *p = c->protect[c->n_protect].path;
    confine_canonical(path, p);
    for (int i = 0; i < c->n_protect; i++)
        if (strcmp(c->protect[i].path, p) == 0)
            return;
    c->protect[c->n_protect].what = what;
    c->protect[c->n_protect].within_ok = false;
    c->n_protect++;
}

/* ---- scratch directories ------------------------------------------------------ */

/* Removes name (in directory dfd) and, a directory, all beneath it, whatever
 * modes the bot left (its own directories it may have made unreadable).
 * Symbolic links are removed, never followed. */
static void remove_at(int dfd, const char *name, int depth)
{
    struct stat sb;
    if (fstatat(dfd, name, &sb, AT_SYMLINK_NOFOLLOW) != 0)
        return;
    if (!S_ISDIR(sb.st_mode)) {
        unlinkat(dfd, name, 0);
        return;
    }
    if (depth < 200) {
        fchmodat(dfd, name, 0700, 0);
        int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
        if (d) {
            struct dirent *e;
            while ((e = readdir(d)))
                if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
                    remove_at(fd, e->d_name, depth + 1);
            closedir(d);
        } else if (fd >= 0) {
            close(fd);
        }
    }
    unlinkat(dfd, name, AT_REMOVEDIR);
}

void arena_confine_cleanup(arena_confine *c)
{
    if (c->root[0])
        remove_at(AT_FDCWD, c->root, 0);
    c->root[0] = '\0';
    c->n_scratch = 0;
    free(c->own);
    c->own = NULL;
    c->n_own = 0;
}

void arena_confine_own(arena_confine *c, const arena_bot *b)
{
    enum { MAX_OWN = 16 };
    char (*paths)[PATH_MAX] = ja_xcalloc(MAX_OWN, PATH_MAX);
    int n;
    confine_own_paths(b->target, paths, &n, MAX_OWN);
    if (n)
        c->own = ja_xrealloc(c->own, (size_t)(c->n_own + n) * sizeof *c->own);
    for (int i = 0; i < n; i++) {
        c->own[c->n_own].bot = b;
        snprintf(c->own[c->n_own++].path, PATH_MAX, "%s", paths[i]);
    }
    free(paths);
}

/* b's scratch directory, made at its first start. */
static int scratch_of(arena_confine *c, const arena_bot *b, const char **dir, char *err,
                      size_t cap)
{
    for (int i = 0; i < c->n_scratch; i++)
        if (c->scratch[i].bot == b) {
            *dir = c->scratch[i].dir;
            return JA_OK;
        }
    if (!c->root[0]) {
        const char *tmp = getenv("TMPDIR");
        snprintf(c->root, sizeof c->root, "%s/jackarena-bots-XXXXXX",
                 tmp && *tmp && strlen(tmp) < PATH_MAX - 64 ? tmp : "/tmp");
        if (!mkdtemp(c->root)) { /* 0700 */
            snprintf(err, cap, "cannot create the bots' scratch directory '%s': %s", c->root,
                     strerror(errno));
            c->root[0] = '\0';
            return JA_EIO;
        }
        char real[PATH_MAX];
        if (realpath(c->root, real))
            snprintf(c->root, sizeof c->root, "%s", real);
        /* Each bot's scratch is its own: none may read the others'. */
        arena_confine_protect(c, c->root, "the bots' scratch directories");
    }
    if (c->n_scratch == ARENA_MAX_BOTS) {
        snprintf(err, cap, "more than %d confined bots", ARENA_MAX_BOTS);
        return JA_EIO;
    }
    char *d = c->scratch[c->n_scratch].dir;
    snprintf(d, PATH_MAX, "%s/%d", c->root, c->n_scratch);
    if (mkdir(d, 0700) != 0) {
        snprintf(err, cap, "cannot create the scratch directory '%s': %s", d, strerror(errno));
        return JA_EIO;
    }
    c->scratch[c->n_scratch++].bot = b;
    *dir = d;
    return JA_OK;
}

/* ---- the launcher ---------------------------------------------------------------- */

/* The settings, once: the mode against the kernel, the extra paths, the
 * address-space limit. */
static int check_settings(arena_confine *c, char *err, size_t cap)
{
    if (c->checked)
        return JA_OK;
    int abi = ja_landlock_abi();
    if (abi == 0 && c->mode != ARENA_CONFINE_WEAK) {
        snprintf(err, cap, "cannot confine cmd: bots: this kernel has no Landlock (Linux 5.13 or "
                 "later, with landlock among its security modules), so they could read the "
                 "database and its seeds; use --confine-weak to run them with limits only, or "
                 "--no-confine");
        return JA_EINVAL;
    }
    for (int i = 0; i < c->n_reads; i++) {
        struct stat sb;
        if (stat(c->reads[i], &sb) != 0) {
            snprintf(err, cap, "--confine-read '%s': %s", c->reads[i], strerror(errno));
            return JA_EINVAL;
        }
    }
    const char *v = getenv("JACKARENA_CONFINE_MEM_MB");
    uint32_t mem = ARENA_CONFINE_MEM_MB;
    if (v && *v && (!arena_parse_u32(v, &mem) || mem > 1000000)) {
        snprintf(err, cap, "JACKARENA_CONFINE_MEM_MB='%s': give a whole number from 0 to 1000000",
                 v);
        return JA_EINVAL;
    }
    snprintf(c->mem_mb, sizeof c->mem_mb, "%u", (unsigned)mem);
    /* A bot's file directly in the home directory would open all of it
     * (~/.ssh, ~/.jackarena); a file or directory within it is the user's
     * to give. */
    int home = c->n_protect;
    arena_confine_protect(c, getenv("HOME"), "the home directory");
    if (c->n_protect > home)
        c->protect[home].within_ok = true;
    if (abi == 0)
        fprintf(stderr, "arena: this kernel has no Landlock: confined cmd: bots get limits only "
                        "and can read whatever this user can (--confine-weak)\n");
    c->checked = true;
    return JA_OK;
}

void arena_confine_argv_free(char **argv)
{
    for (size_t i = 0; argv && argv[i]; i++)
        free(argv[i]);
    free(argv);
}

/* ja_confine's arguments for the grants g: the program prog, its limits,
 * the scratch directory it writes, the tcp port, the paths it reads, "--". */
static char **launcher_argv(const arena_confine *c, const confine_grants *g, const char *prog,
                            const char *scratch, unsigned tcp_port)
{
    size_t n = 0, max = 16 + 2 * (size_t)g->n;
    char **v = ja_xcalloc(max, sizeof *v);
    char port[16], tasks[16], fsize[16];
    snprintf(port, sizeof port, "%u", tcp_port);
    snprintf(tasks, sizeof tasks, "%d", ARENA_CONFINE_TASKS);
    snprintf(fsize, sizeof fsize, "%d", ARENA_CONFINE_FSIZE_MB);
    const char *fixed[] = {prog, "--tasks", tasks, "--fsize-mb", fsize, "--mem-mb", c->mem_mb,
                           "--write", scratch};
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++)
        v[n++] = ja_xstrdup(fixed[i]);
    if (tcp_port) {
        v[n++] = ja_xstrdup("--tcp-connect");
        v[n++] = ja_xstrdup(port);
    }
    if (c->mode == ARENA_CONFINE_WEAK)
        v[n++] = ja_xstrdup("--weak");
    for (int i = 0; i < g->n; i++)
        if (!g->g[i].off) {
            v[n++] = ja_xstrdup("--read");
            v[n++] = ja_xstrdup(g->g[i].path);
        }
    v[n++] = ja_xstrdup("--");
    return v;
}

int arena_confine_launcher(arena_confine *c, const arena_bot *b, unsigned tcp_port,
                           const char *keys, char ***argv, char *tmpdir, size_t tmpdir_cap,
                           char *err, size_t cap)
{
    *argv = NULL;
    int rc = check_settings(c, err, cap);
    if (rc != JA_OK)
        return rc;
    arena_confine_protect(c, keys, "the CurveZMQ keys");
    char prog[PATH_MAX];
    ref_sandbox_program("JACKARENA_CONFINE", "ja_confine", JA_INSTALL_CONFINE_REL, prog,
                        sizeof prog);
    if (access(prog, X_OK) != 0) {
        snprintf(err, cap, "the launcher of confined bots %s is missing (%s); set "
                 "JACKARENA_CONFINE", prog, strerror(errno));
        return JA_EINVAL;
    }
    confine_grants *g = ja_xcalloc(1, sizeof *g);
    confine_grants_command(g, b->target);
    for (int i = 0; i < c->n_reads; i++)
        confine_grants_named(g, c->reads[i]);
    confine_grants_found(g);
    const char *scratch = NULL;
    rc = scratch_of(c, b, &scratch, err, cap);
    if (rc == JA_OK)
        rc = confine_grants_check(g, c, b, err, cap);
    if (rc == JA_OK)
        *argv = launcher_argv(c, g, prog, scratch, tcp_port);
    free(g);
    if (rc != JA_OK)
        return rc;
    snprintf(tmpdir, tmpdir_cap, "TMPDIR=%s", scratch);
    return JA_OK;
}
