/* A bot that plays the first legal action at seat 0 and answers an index
 * out of range at every other seat: it passes a validation whose smoke
 * matches seat it at 0 only (--smoke 1) and faults in the ladder, where
 * the seats rotate, so that the server suspends it (--fault-limit). */
#include "jackarena/ja_bot.h"
#include "jackarena/ja_error.h"
#include <stdlib.h>

typedef struct seatfault { int32_t seat; } seatfault;

static int create(const ja_host_api *h, void *hctx, const char *game, int32_t seat, uint32_t n,
                  void **out)
{
    (void)h, (void)hctx, (void)game, (void)n;
    seatfault *b = calloc(1, sizeof *b);
    if (b == NULL)
        return JA_ENOMEM;
    b->seat = seat;
    *out = b;
    return JA_OK;
}

static int act(void *bot, const ja_decision *d, uint32_t *index)
{
    seatfault *b = bot;
    *index = b->seat == 0 ? 0 : d->n_legal + 1;
    return JA_OK;
}

static void destroy(void *bot) { free(bot); }

static const ja_bot_desc desc = {
    .struct_size = sizeof(ja_bot_desc), .abi_major = JA_BOT_ABI_MAJOR,
    .abi_minor = JA_BOT_ABI_MINOR, .name = "seatfault", .version = "1",
    .create = create, .act = act, .destroy = destroy,
};
JA_BOT_DECLARE(desc)
