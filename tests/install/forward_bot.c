/* A small forward-model plugin for tests/install: built with nothing but an
 * installed SDK (cc -shared -fPIC forward_bot.c $(pkg-config --cflags --libs
 * jackarena)), it calls what lives in the SDK library, not in its headers:
 * ja_rng_* (through ja_forward.h and directly) and ja_fault_name, whose
 * absence once made such a plugin fail to load ("undefined symbol").
 *
 * Strategy: one sampled world per decision; every legal action is played
 * on a copy of it with the same playout seed, and the best pairwise place
 * score wins; ties go to a random one of the best. */
#include "jackarena/ja_bot.h"
#include "jackarena/ja_error.h"
#include "jackarena/ja_forward.h"

#include <stdlib.h>
#include <string.h>

#define MAX_STEPS 5000u

typedef struct fwd {
    const ja_host_api *host;
    void *hctx;
    const ja_game_rules *g;
    int seat;
    unsigned char *world, *work;
} fwd;

static void destroy(void *bot)
{
    fwd *b = bot;
    free(b->world);
    free(b->work);
    free(b);
}

static int create(const ja_host_api *host, void *hctx, const char *game, int32_t seat,
                  uint32_t n_seats, void **out)
{
    (void)n_seats;
    /* The fault table is the SDK library's: a wrong name means a wrong SDK. */
    if (strcmp(ja_fault_name(JA_FAULT_TIMEOUT), "timeout") != 0)
        return JA_EVERSION;
    const ja_game_rules *g = host->rules(game);
    if (!g)
        return JA_EUNSUPPORTED;
    fwd *b = calloc(1, sizeof *b);
    if (!b)
        return JA_ENOMEM;
    *b = (fwd){host, hctx, g, seat, malloc(g->state_size), malloc(g->state_size)};
    if (!b->world || !b->work) {
        destroy(b);
        return JA_ENOMEM;
    }
    *out = b;
    return JA_OK;
}

static int act(void *bot, const ja_decision *d, uint32_t *index)
{
    fwd *b = bot;
    const ja_game_rules *g = b->g;
    ja_rng rng;
    ja_rng_seed(&rng, b->host->rng_next(b->hctx));
    if (d->obs_version != g->obs_version ||
        g->sample(d->obs, b->seat, ja_rng_next(&rng), b->world) != JA_OK)
        return JA_EFORMAT;
    uint64_t playout_seed = ja_rng_next(&rng);
    double best = -1.0;
    uint32_t n_best = 0;
    *index = 0;
    for (uint32_t i = 0; i < d->n_legal; i++) {
        ja_rng pr;
        ja_rng_seed(&pr, playout_seed);
        ja_state_clone(g, b->work, b->world);
        ja_outcome o;
        int rc = ja_forward_step(g, b->work, b->seat, d->legal[i], &pr);
        if (rc == JA_OK)
            rc = ja_forward_playout(g, b->work, &pr, MAX_STEPS, &o);
        if (rc != JA_OK) { /* an engine error or a playout past MAX_STEPS */
            b->host->log(b->hctx, JA_LOG_WARN, ja_fault_name(JA_FAULT_ERROR));
            continue;
        }
        double v = ja_outcome_pairwise(&o, b->seat);
        if (v > best) {
            best = v;
            n_best = 1;
            *index = i;
        } else if (v == best && ja_rng_below(&rng, ++n_best) == 0) {
            *index = i;
        }
    }
    return JA_OK;
}

static const ja_bot_desc desc = {
    .struct_size = sizeof(ja_bot_desc),
    .abi_major = JA_BOT_ABI_MAJOR,
    .abi_minor = JA_BOT_ABI_MINOR,
    .name = "forward",
    .version = "1.0",
    .create = create,
    .act = act,
    .destroy = destroy,
};
JA_BOT_DECLARE(desc)
