/* Flags shared by several commands (flags.h). */
#include "cli/flags.h"
#include "core/util.h"
#include "outfile.h"

#include "jackarena/ja_error.h"

#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

bool arena_cli_ok(int rc, const char *err)
{
    if (rc == JA_OK)
        return true;
    arena_error("%s", err);
    return false;
}

/* --bot SPEC, or with list --bots A,B: 1, or -1 after the usage error. */
static int bots_flag(arena_bots *bs, const char *arg, bool list)
{
    char err[ARENA_BOTS_ERR_CAP];
    int rc = list ? arena_bots_add_list(bs, arg, err, sizeof err)
                  : arena_bots_add(bs, arg, err, sizeof err);
    return arena_cli_ok(rc, err) ? 1 : -1;
}

int arena_common_flag(arena_common *co, int c, const char *arg)
{
    switch (c) {
    case ARENA_OPT_BOT:
        return bots_flag(co->bots, arg, false);
    case ARENA_OPT_BOTS:
        return bots_flag(co->bots, arg, true);
    case ARENA_OPT_OPT:
        if (co->n_opt == (int)(sizeof co->opt_kv / sizeof *co->opt_kv)) {
            arena_error("too many --opt");
            return -1;
        }
        /* One value per option: a second --opt KEY would silently win. */
        for (int i = 0; i < co->n_opt; i++) {
            size_t a = strcspn(co->opt_kv[i], "="), b = strcspn(arg, "=");
            if (a == b && strncmp(co->opt_kv[i], arg, a) == 0) {
                arena_error("--opt %.*s is given twice ('%s' and '%s')", (int)b, arg,
                            co->opt_kv[i], arg);
                return -1;
            }
        }
        co->opt_kv[co->n_opt++] = arg;
        return 1;
    case ARENA_OPT_SEED:
        if (!arena_parse_u64(arg, &co->seed)) {
            arena_error("--seed needs a number from 0 to 18446744073709551615, not '%s'", arg);
            return -1;
        }
        co->have_seed = true;
        return 1;
    case ARENA_OPT_MOVE_MS:
        return arena_parse_ms("--move-ms", arg, false, &co->move_ms) ? 1 : -1;
    }
    return 0;
}

bool arena_common_options(const arena_common *co, const ja_game_rules *g, uint32_t n_seats,
                          ja_options *o)
{
    char err[1024];
    ja_options_init(g, o);
    for (int i = 0; i < co->n_opt; i++)
        if (ja_options_set(g, o, co->opt_kv[i], err, sizeof err) != JA_OK) {
            arena_error("%s", err);
            return false;
        }
    if (ja_options_resolve(g, o, n_seats, err, sizeof err) != JA_OK) {
        arena_error("%s", err);
        return false;
    }
    return true;
}

int arena_ext_flag(arena_ext *e, int c, const char *arg)
{
    switch (c) {
    case ARENA_OPT_LISTEN: e->listen = arg; return 1;
    case ARENA_OPT_CURVE: e->curve = true; return 1;
    case ARENA_OPT_CURVE_DIR: e->curve_dir = arg; e->curve = true; return 1;
    case ARENA_OPT_CURVE_ALLOW: e->curve_allow = arg; e->curve = true; return 1;
    case ARENA_OPT_PLAIN_TCP: e->plain_tcp = true; return 1;
    case ARENA_OPT_PLAIN_TCP_REMOTE: e->plain_tcp = e->plain_tcp_remote = true; return 1;
    case ARENA_OPT_STARTUP_MS:
        return arena_parse_ms("--startup-ms", arg, true, &e->startup_ms) ? 1 : -1;
    case ARENA_OPT_MAX_FAULTS:
        if (!arena_parse_u32(arg, &e->max_faults) || e->max_faults == UINT32_MAX) {
            arena_error("--max-faults needs a number (0 = never forfeit), not '%s'", arg);
            return -1;
        }
        e->have_max_faults = true;
        return 1;
    case ARENA_OPT_BANK_MS:
        return arena_parse_ms("--bank-ms", arg, false, &e->bank_ms) ? 1 : -1;
    case ARENA_OPT_ON_FAULT: {
        int p = ref_on_fault_parse(arg);
        if (p < 0) {
            arena_error("--on-fault '%s': use default, random or forfeit", arg);
            return -1;
        }
        e->on_fault = (uint8_t)p;
        return 1;
    }
    case ARENA_OPT_RESTART: e->restart = true; return 1;
    case ARENA_OPT_CONFINE: e->confine.mode = ARENA_CONFINE_ON; return 1;
    case ARENA_OPT_NO_CONFINE: e->confine.mode = ARENA_CONFINE_OFF; return 1;
    case ARENA_OPT_CONFINE_WEAK: e->confine.mode = ARENA_CONFINE_WEAK; return 1;
    case ARENA_OPT_CONFINE_READ:
        if (e->confine.n_reads == ARENA_CONFINE_MAX_READ) {
            arena_error("--confine-read: at most %d paths", ARENA_CONFINE_MAX_READ);
            return -1;
        }
        e->confine.reads[e->confine.n_reads++] = arg;
        return 1;
    }
    return 0;
}

void arena_getopt_error(const char *cmd, char **argv)
{
    if (optopt)
        arena_error("%s: option '%s' needs a value", cmd, argv[optind - 1]);
    else
        arena_error("%s: unknown option '%s' (see 'arena %s --help')", cmd, argv[optind - 1], cmd);
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
