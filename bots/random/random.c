/* The `random` reference bot: plays any game by picking uniformly among the
 * legal actions, using only its own seeded stream from the host. Written only
 * against the public SDK (ja_bot.h), like any third-party plugin. It never
 * reads its observation, and says so (ABI 1.3, JA_BOT_OBS_ON_DEMAND): an
 * in-process seat then builds none for it. */
#include "jackarena/ja_bot.h"
#include "jackarena/ja_error.h"
#include "jackarena/ja_params.h"

#include <stdlib.h>

typedef struct random_bot {
    const ja_host_api *host;
    void *hctx;
} random_bot;

static int supports(const char *game, uint32_t obs_version)
{
    (void)game;
    (void)obs_version;
    return 1; /* it never reads the observation */
}

/* It takes no parameters: any is refused before anything runs (ABI 1.2). */
static int check_params(const char *params, char *err, size_t cap)
{
    return ja_params_check_keys(params, NULL, err, cap);
}

static int create(const ja_host_api *host, void *hctx, const char *game, int32_t seat,
                  uint32_t n_seats, void **out_bot)
{
    random_bot *b = calloc(1, sizeof *b);
    if (!b)
        return JA_ENOMEM;
    b->host = host;
    b->hctx = hctx;
    *out_bot = b;
    return JA_OK;
}

/* Uniform over [0, n) without modulo bias (rejects the low 2^64 mod n).
 * That bound is under n, so a draw of n or more is never rejected and the
 * bound, a 64-bit division, is computed only for the rare draw under n:
 * the same choices, one division a decision fewer. */
static int act(void *bot, const ja_decision *d, uint32_t *out_index)
{
    random_bot *b = bot;
    uint64_t n = d->n_legal, x = b->host->rng_next(b->hctx);
    if (x < n) {
        const uint64_t threshold = (uint64_t)(-n) % n;
        while (x < threshold)
            x = b->host->rng_next(b->hctx);
    }
    *out_index = (uint32_t)(x % n);
    return JA_OK;
}

static void destroy(void *bot)
{
    free(bot);
}

static const ja_bot_desc desc = {
    .struct_size = sizeof(ja_bot_desc),
    .abi_major = JA_BOT_ABI_MAJOR,
    .abi_minor = JA_BOT_ABI_MINOR,
    .name = "random",
    .version = "1.0",
    .supports = supports,
    .create = create,
    .act = act,
    .end = NULL,
    .destroy = destroy,
    .extension = NULL,
    .check_params = check_params,
    .flags = JA_BOT_OBS_ON_DEMAND,
};

JA_BOT_DECLARE(desc)
