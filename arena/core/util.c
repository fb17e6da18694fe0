/* Helpers of the arena library and its commands (util.h). */
#include "core/util.h"

#include "jackarena/ja_error.h"
#include "outfile.h"

#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void arena_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("arena: error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

bool arena_parse_u64(const char *s, uint64_t *out)
{
    if (!s || !*s || *s == '-' || *s == '+')
        return false;
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || errno)
        return false;
    *out = (uint64_t)v;
    return true;
}

bool arena_parse_u32(const char *s, uint32_t *out)
{
    uint64_t v;
    if (!arena_parse_u64(s, &v) || v > UINT32_MAX)
        return false;
    *out = (uint32_t)v;
    return true;
}

bool arena_parse_ms(const char *flag, const char *s, bool positive, uint32_t *out)
{
    uint32_t v;
    if (!arena_parse_u32(s, &v) || v > ARENA_MAX_MS || (positive && v == 0)) {
        arena_error("%s needs a number of milliseconds from %d to %u, not '%s'", flag,
                    positive ? 1 : 0, ARENA_MAX_MS, s);
        return false;
    }
    *out = v;
    return true;
}

uint64_t arena_random_seed(void)
{
    uint64_t v = 0;
    if (sodium_init() >= 0)
        randombytes_buf(&v, sizeof v);
    return v;
}

const ja_game_rules *arena_find_game(const char *name)
{
    const ja_game_rules *g = ja_game_find(name);
    if (g)
        return g;
    char list[512] = "";
    size_t used = 0;
    for (int i = 0; ja_games[i] && used < sizeof list; i++)
        used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "",
                                 ja_games[i]->name);
    arena_error("unknown game '%s' (games: %s)", name, list);
    return NULL;
}

int arena_db_status(int rc)
{
    return (rc == JA_EIO || rc == JA_EVERSION || rc == JA_EFORMAT) ? EXIT_USAGE : EXIT_RUNTIME;
}

void arena_format_score(int64_t units, char *buf, size_t cap)
{
    if (units % JA_SCORE_UNIT == 0)
        snprintf(buf, cap, "%" PRId64, units / JA_SCORE_UNIT);
    else
        snprintf(buf, cap, "%.4g", (double)units / JA_SCORE_UNIT);
}

/* ---- outputs ------------------------------------------------------------------ */

/* A directory output: missing with its parent there, or a directory. */
static bool check_dir(const char *flag, const char *path)
{
    if (!*path || strcmp(path, "-") == 0) {
        arena_error("%s '%s': give a directory", flag, path);
        return false;
    }
    /* "link/" would make lstat follow the link: look at "link". */
    char bare[4200];
    snprintf(bare, sizeof bare, "%s", path);
    for (size_t n = strlen(bare); n > 1 && bare[n - 1] == '/'; n--)
        bare[n - 1] = '\0';
    struct stat sb;
    if (lstat(bare, &sb) == 0) {
        if (S_ISDIR(sb.st_mode))
            return true;
        const char *kind = ref_out_kind(bare);
        arena_error("%s '%s': it is %s, not a directory%s", flag, path,
                    kind ? kind : "a regular file",
                    S_ISLNK(sb.st_mode) ? " (give the directory's own path)" : "");
        return false;
    }
    char copy[4200];
    snprintf(copy, sizeof copy, "%s", bare);
    const char *parent = dirname(copy);
    if (stat(parent, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        arena_error("%s '%s': directory '%s' does not exist", flag, path, parent);
        return false;
    }
    return true;
}

/* Two outputs naming one file: the same text, or the same existing file. */
static bool same_output(const char *a, const char *b)
{
    struct stat sa, sb;
    return strcmp(a, b) == 0 || (stat(a, &sa) == 0 && stat(b, &sb) == 0 &&
                                 sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino);
}

bool arena_outputs_check(const arena_output *outs, size_t n, const char *stdout_user)
{
    const char *dash = NULL;
    for (size_t i = 0; i < n; i++) {
        const arena_output *o = &outs[i];
        if (!o->path)
            continue;
        char err[4400];
        if (o->how & ARENA_OUT_DIR) {
            if (!check_dir(o->flag, o->path))
                return false;
        } else if (o->how & ARENA_OUT_DB) {
            size_t len = strlen(o->path);
            const char *kind = len && o->path[len - 1] == '/' ? "a directory name"
                                                              : ref_out_kind(o->path);
            if (kind) {
                arena_error("%s '%s': it is %s, not a database file%s", o->flag, o->path, kind,
                            strcmp(kind, "a symbolic link") == 0 ? " (give the file's own path)"
                                                                 : "");
                return false;
            }
        } else if (ref_out_check(o->flag, o->path, o->how & ARENA_OUT_STDOUT ? REF_OUT_STDOUT : 0,
                                 err, sizeof err) != JA_OK) {
            arena_error("%s", err);
            return false;
        }
        bool is_dash = strcmp(o->path, "-") == 0;
        if (is_dash && dash) {
            arena_error("%s - and %s - both write to the standard output; give one a file", dash,
                        o->flag);
            return false;
        }
        if (is_dash && stdout_user) {
            arena_error("%s - and %s both write to the standard output; give %s a file", o->flag,
                        stdout_user, o->flag);
            return false;
        }
        if (is_dash)
            dash = o->flag;
        for (size_t j = 0; j < i && !is_dash; j++)
            if (outs[j].path && same_output(outs[j].path, o->path)) {
                arena_error("%s and %s both name '%s'", outs[j].flag, o->flag, o->path);
                return false;
            }
    }
    if (dash && !ref_out_stdout()) {
        arena_error("%s -: cannot take the standard output: %s", dash, strerror(errno));
        return false;
    }
    return true;
}

bool arena_db_check(const char *path)
{
    arena_output o = {"--db", path, ARENA_OUT_DB};
    return arena_outputs_check(&o, 1, NULL);
}
