/* A test bot built several times from this one source (tests/ratings/
 * CMakeLists.txt): the same descriptor name and, unless SHEDDER_VERSION says
 * otherwise, the same version, but different bytes (SHEDDER_BUILD), each
 * written as ja_shedder.so in a directory of its own: a plugin rebuilt.
 * It plays a legal action drawn from its own random stream. */
#include "jackarena/ja_bot.h"
#include "jackarena/ja_error.h"
#include <stdlib.h>

#ifndef SHEDDER_BUILD
#define SHEDDER_BUILD 1
#endif
#ifndef SHEDDER_VERSION
#define SHEDDER_VERSION "1.0"
#endif
#define STR_(x) #x
#define STR(x) STR_(x)

/* What makes one build's file differ from another's. */
const char shedder_build[] = "shedder build " STR(SHEDDER_BUILD);

typedef struct shedder {
    const ja_host_api *host;
    void *hctx;
} shedder;

static int create(const ja_host_api *host, void *hctx, const char *game, int32_t seat,
                  uint32_t n_seats, void **out)
{
    (void)game, (void)seat, (void)n_seats;
    shedder *b = calloc(1, sizeof *b);
    if (b == NULL)
        return JA_ENOMEM;
    b->host = host;
    b->hctx = hctx;
    *out = b;
    return JA_OK;
}

static int act(void *bot, const ja_decision *d, uint32_t *index)
{
    shedder *b = bot;
    *index = (uint32_t)(b->host->rng_next(b->hctx) % d->n_legal);
    return JA_OK;
}

static void destroy(void *bot) { free(bot); }

static const ja_bot_desc desc = {
    .struct_size = sizeof(ja_bot_desc), .abi_major = JA_BOT_ABI_MAJOR,
    .abi_minor = JA_BOT_ABI_MINOR, .name = "shedder", .version = SHEDDER_VERSION,
    .create = create, .act = act, .destroy = destroy,
};
JA_BOT_DECLARE(desc)
