/* A slow bot for the live-match tests: it sleeps DAWDLE_MS of wall time
 * (using no CPU) before each decision and plays the first legal action, so
 * that a ladder match lasts long enough to be watched while it is played.
 * The tests never time it: they wait for what the server shows. */
#define _POSIX_C_SOURCE 200809L
#include "jackarena/ja_bot.h"
#include "jackarena/ja_error.h"
#include <stdlib.h>
#include <time.h>

#define DAWDLE_MS 15

typedef struct dawdle { int unused; } dawdle;

static int create(const ja_host_api *h, void *hctx, const char *game, int32_t seat, uint32_t n,
                  void **out)
{
    (void)h, (void)hctx, (void)game, (void)seat, (void)n;
    dawdle *b = calloc(1, sizeof *b);
    if (b == NULL)
        return JA_ENOMEM;
    *out = b;
    return JA_OK;
}

static int act(void *bot, const ja_decision *d, uint32_t *index)
{
    (void)bot, (void)d;
    struct timespec ts = {0, DAWDLE_MS * 1000000L};
    nanosleep(&ts, NULL);
    *index = 0;
    return JA_OK;
}

static void destroy(void *bot) { free(bot); }

static const ja_bot_desc desc = {
    .struct_size = sizeof(ja_bot_desc), .abi_major = JA_BOT_ABI_MAJOR,
    .abi_minor = JA_BOT_ABI_MINOR, .name = "dawdle", .version = "1",
    .create = create, .act = act, .destroy = destroy,
};
JA_BOT_DECLARE(desc)
