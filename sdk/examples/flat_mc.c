/* A bot built on the forward model (docs/forward-model.md walks through it):
 * one-ply "flat Monte Carlo". For each legal action it samples SAMPLES full
 * states consistent with its observation (rules->sample: it never sees the
 * real state), plays the action on a copy, plays the match out at random,
 * and keeps the action with the best mean pairwise place score.
 *
 *   arena play taylor-blackjack ./build/sdk/examples/ja_flat_mc.so random
 *
 * Everything it needs is allocated in create(); act() allocates nothing. */
#include "jackarena/ja_bot.h"
#include "jackarena/ja_error.h"
#include "jackarena/ja_forward.h"

#include <stdlib.h>

#define SAMPLES 8           /* playouts per legal action */
#define MAX_STEPS 100000u   /* a playout longer than this is not counted */

typedef struct flat_mc {
    const ja_host_api *host;
    void *hctx;
    const ja_game_rules *g;  /* the forward model */
    int seat;
    void *sampled, *work;    /* two states of g->state_size bytes */
} flat_mc;

static void destroy(void *bot)
{
    flat_mc *b = bot;
    free(b->sampled);
    free(b->work);
    free(b);
}

static int create(const ja_host_api *host, void *hctx, const char *game, int32_t seat,
                  uint32_t n_seats, void **out)
{
    (void)n_seats;
    const ja_game_rules *g = host->rules(game); /* the forward model */
    if (!g)
        return JA_EUNSUPPORTED;
    flat_mc *b = calloc(1, sizeof *b);
    if (!b)
        return JA_ENOMEM;
    b->host = host;
    b->hctx = hctx;
    b->g = g;
    b->seat = seat;
    b->sampled = malloc(g->state_size);
    b->work = malloc(g->state_size);
    if (!b->sampled || !b->work) {
        destroy(b);
        return JA_ENOMEM;
    }
    *out = b;
    return JA_OK;
}

static int act(void *bot, const ja_decision *d, uint32_t *index)
{
    flat_mc *b = bot;
    const ja_game_rules *g = b->g;
    if (d->obs_version != g->obs_version)
        return JA_EVERSION;
    ja_rng rng; /* seeded from the host's stream: same match seed, same play */
    ja_rng_seed(&rng, b->host->rng_next(b->hctx));
    double best = -1.0;
    *index = 0;
    for (uint32_t i = 0; i < d->n_legal; i++) {
        double sum = 0.0;
        for (int k = 0; k < SAMPLES; k++) {
            /* 1. a full state consistent with what this seat knows */
            if (g->sample(d->obs, b->seat, ja_rng_next(&rng), b->sampled) != JA_OK)
                return JA_EFORMAT;
            /* 2. a copy to play on (the sampled state could be reused) */
            ja_state_clone(g, b->work, b->sampled);
            /* 3. this action; other seats of a joint decision at random */
            if (ja_forward_step(g, b->work, b->seat, d->legal[i], &rng) != JA_OK)
                return JA_EILLEGAL;
            /* 4. the rest of the match at random, then the outcome */
            ja_outcome o;
            if (ja_forward_playout(g, b->work, &rng, MAX_STEPS, &o) == JA_OK)
                sum += ja_outcome_pairwise(&o, b->seat);
        }
        if (sum > best) {
            best = sum;
            *index = i;
        }
    }
    return JA_OK;
}

static const ja_bot_desc desc = {
    .struct_size = sizeof(ja_bot_desc),
    .abi_major = JA_BOT_ABI_MAJOR,
    .abi_minor = JA_BOT_ABI_MINOR,
    .name = "flat_mc",
    .version = "1.0",
    .create = create,
    .act = act,
    .destroy = destroy,
};

JA_BOT_DECLARE(desc)
