/* A misbehaving bot for fault tests: on every third decision it answers an
 * index out of range, on every fifth it returns an error; otherwise it
 * picks the first legal action. The referee must play the default action,
 * count the faults by kind, and finish the match. */
#include "jackarena/ja_bot.h"
#include "jackarena/ja_error.h"
#include <stdlib.h>

typedef struct faulty { uint32_t n; } faulty;

static int create(const ja_host_api *h, void *hctx, const char *game, int32_t seat, uint32_t n,
                  void **out)
{
    *out = calloc(1, sizeof(faulty));
    return *out ? JA_OK : JA_ENOMEM;
}

static int act(void *bot, const ja_decision *d, uint32_t *index)
{
    faulty *f = bot;
    f->n++;
    if (f->n % 5 == 0)
        return JA_EBOT;
    *index = f->n % 3 == 0 ? d->n_legal + 7 : 0;
    return JA_OK;
}

static void destroy(void *bot) { free(bot); }

static const ja_bot_desc desc = {
    .struct_size = sizeof(ja_bot_desc), .abi_major = JA_BOT_ABI_MAJOR,
    .abi_minor = JA_BOT_ABI_MINOR, .name = "faulty", .version = "1",
    .create = create, .act = act, .destroy = destroy,
};
JA_BOT_DECLARE(desc)
