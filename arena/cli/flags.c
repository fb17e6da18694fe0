/* Flags shared by several commands (flags.h). */
#include "cli/flags.h"
#include "core/util.h"

#include "jackarena/ja_error.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

int arena_common_flag(arena_common *co, int c, const char *arg)
{
    switch (c) {
    case ARENA_OPT_BOT:
        return arena_bots_add(co->bots, arg) ? 1 : -1;
    case ARENA_OPT_BOTS:
        return arena_bots_add_list(co->bots, arg) ? 1 : -1;
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

void arena_getopt_error(const char *cmd, char **argv)
{
    if (optopt)
        arena_error("%s: option '%s' needs a value", cmd, argv[optind - 1]);
    else
        arena_error("%s: unknown option '%s' (see 'arena %s --help')", cmd, argv[optind - 1], cmd);
}

