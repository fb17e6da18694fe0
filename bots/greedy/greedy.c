/* The `greedy` reference bot: a one-turn heuristic player per game, written
 * only against the public SDK (ja_bot.h and the games' headers), like any
 * third-party plugin. The heuristics live in greedy_<game>.c (greedy.h);
 * supports() refuses every game without one. docs/bots.md describes them. */
#include "greedy.h"
#include "greedy_games.h"

#include "jackarena/ja_error.h"
#include "jackarena/ja_params.h"

#include <stdlib.h>
#include <string.h>

typedef struct game_entry {
    const char *game;      /* engine name */
    uint32_t obs_version;  /* the observation version the heuristic reads */
    uint32_t obs_size;     /* sizeof the observation struct it reads */
    greedy_act_fn act;
} game_entry;

typedef struct greedy_bot {
    const ja_host_api *host;
    void *hctx;
    const game_entry *g;
    int32_t seat;
    uint32_t n_seats;
} greedy_bot;

/* ---- The plugin -------------------------------------------------------------- */

/* The games greedy plays; CMake defines GREEDY_HAVE_<GAME> for each
 * greedy_<game>.c present. */
static const game_entry GAMES[] = {
    {"taylor-blackjack", JA_TAYLOR_OBS_VERSION, sizeof(ja_taylor_obs), greedy_taylor_act},
#ifdef GREEDY_HAVE_BRAWLJACK
    {"brawljack", JA_BRAWLJACK_OBS_VERSION, sizeof(ja_brawljack_obs), greedy_brawljack_act},
#endif
#ifdef GREEDY_HAVE_BRUISE_JACK
    {"bruise-jack", JA_BRUISE_JACK_OBS_VERSION, sizeof(ja_bruise_jack_obs), greedy_bruise_jack_act},
#endif
#ifdef GREEDY_HAVE_JACK_IN_THE_BOX
    {"jack-in-the-box", JA_JITB_OBS_VERSION, sizeof(ja_jitb_obs), greedy_jack_in_the_box_act},
#endif
#ifdef GREEDY_HAVE_BOMBS
    {"bombs", JA_BOMBS_OBS_VERSION, sizeof(ja_bombs_obs), greedy_bombs_act},
#endif
};

static const game_entry *find_game(const char *game, uint32_t obs_version)
{
    if (!game)
        return NULL;
    for (size_t i = 0; i < sizeof GAMES / sizeof GAMES[0]; i++)
        if (strcmp(GAMES[i].game, game) == 0 && GAMES[i].obs_version == obs_version)
            return &GAMES[i];
    return NULL;
}

static int supports(const char *game, uint32_t obs_version)
{
    return find_game(game, obs_version) != NULL;
}

/* It takes no parameters: any is refused before anything runs (ABI 1.2). */
static int check_params(const char *params, char *err, size_t cap)
{
    return ja_params_check_keys(params, NULL, err, cap);
}

static int create(const ja_host_api *host, void *hctx, const char *game, int32_t seat,
                  uint32_t n_seats, void **out_bot)
{
    const game_entry *g = NULL;
    for (size_t i = 0; game && i < sizeof GAMES / sizeof GAMES[0]; i++)
        if (strcmp(GAMES[i].game, game) == 0)
            g = &GAMES[i];
    if (!g)
        return JA_EUNSUPPORTED;
    greedy_bot *b = calloc(1, sizeof *b);
    if (!b)
        return JA_ENOMEM;
    b->host = host;
    b->hctx = hctx;
    b->g = g;
    b->seat = seat;
    b->n_seats = n_seats;
    *out_bot = b;
    return JA_OK;
}

static int act(void *bot, const ja_decision *d, uint32_t *out_index)
{
    const greedy_bot *b = bot;
    if (!b || !d || !out_index || !d->legal || d->n_legal == 0)
        return JA_EINVAL;
    if (d->obs_version != b->g->obs_version || d->obs_size < b->g->obs_size || !d->obs)
        return JA_EVERSION;
    return b->g->act(d, out_index);
}

static void destroy(void *bot)
{
    free(bot);
}

static const ja_bot_desc desc = {
    .struct_size = sizeof(ja_bot_desc),
    .abi_major = JA_BOT_ABI_MAJOR,
    .abi_minor = JA_BOT_ABI_MINOR,
    .name = "greedy",
    .version = "1.0",
    .supports = supports,
    .create = create,
    .act = act,
    .end = NULL,
    .destroy = destroy,
    .extension = NULL,
    .check_params = check_params,
};

JA_BOT_DECLARE(desc)
