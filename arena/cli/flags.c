/* Flags shared by several commands (flags.h). */
#include "cli/flags.h"
#include "core/util.h"

#include "jackarena/ja_error.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

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

