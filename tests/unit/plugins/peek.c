/* A test plugin that takes its observation on demand (ABI 1.3,
 * JA_BOT_OBS_ON_DEMAND) and reads it at about one decision in three, as
 * its own stream decides (so that a seat's observations are some decisions
 * apart); it plays a uniform legal action from the same draw. It keeps, in
 * static storage (a test plugin: one match at a time, one thread), the
 * FNV-1a hash of every observation it read, with the seat and turn, and
 * counts the decisions handed with d->obs and without it, and any breach
 * of ja_host_api.observe's contract (another pointer at a second call
 * within one act(), an observation outside act()). The test reads them
 * through extension(PEEK_LOG_ID) (test_match_observe.c). */
#include "jackarena/ja_bot.h"
#include "jackarena/ja_error.h"

#include <stdlib.h>
#include <string.h>

#include "peek.h"

static peek_log LOG;

typedef struct peek_bot {
    const ja_host_api *host;
    void *hctx;
    int32_t seat;
} peek_bot;

static int create(const ja_host_api *host, void *hctx, const char *game, int32_t seat,
                  uint32_t n_seats, void **out_bot)
{
    (void)game;
    (void)n_seats;
    peek_bot *b = calloc(1, sizeof *b);
    if (!b)
        return JA_ENOMEM;
    b->host = host;
    b->hctx = hctx;
    b->seat = seat;
    if (!JA_HOST_HAS(host, observe) || host->observe(hctx) != NULL)
        LOG.breaches++; /* a 1.3 host has it, and no observation outside act() */
    *out_bot = b;
    return JA_OK;
}

static uint64_t fnv1a(const void *p, size_t n)
{
    const unsigned char *c = p;
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ c[i]) * 0x100000001b3u;
    return h;
}

static int act(void *bot, const ja_decision *d, uint32_t *out_index)
{
    peek_bot *b = bot;
    uint64_t x = b->host->rng_next(b->hctx);
    if (d->obs)
        LOG.handed++;
    else
        LOG.on_demand++;
    if ((x >> 40) % 3 == 0) {
        const void *obs = d->obs ? d->obs : b->host->observe(b->hctx);
        if (!obs || b->host->observe(b->hctx) != obs)
            LOG.breaches++;
        else if (LOG.n < PEEK_LOG_MAX)
            LOG.rec[LOG.n++] = (peek_rec){b->seat, d->turn, fnv1a(obs, d->obs_size)};
        else
            LOG.overflow = 1;
    }
    *out_index = (uint32_t)(x % d->n_legal);
    return JA_OK;
}

static void end(void *bot, const ja_outcome *o)
{
    (void)o;
    peek_bot *b = bot;
    if (b->host->observe(b->hctx) != NULL)
        LOG.breaches++;
}

static void destroy(void *bot)
{
    free(bot);
}

static const void *extension(const char *id)
{
    return strcmp(id, PEEK_LOG_ID) == 0 ? &LOG : NULL;
}

static const ja_bot_desc desc = {
    .struct_size = sizeof(ja_bot_desc),
    .abi_major = JA_BOT_ABI_MAJOR,
    .abi_minor = JA_BOT_ABI_MINOR,
    .name = "peek",
    .version = "1",
    .create = create,
    .act = act,
    .end = end,
    .destroy = destroy,
    .extension = extension,
    .flags = JA_BOT_OBS_ON_DEMAND,
};

JA_BOT_DECLARE(desc)
