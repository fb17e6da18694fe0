/* A bot whose play depends on a parameter: pick=first (the default) plays
 * the first legal action, pick=last the last, pick=fail makes act() return
 * an error on every other decision (an `error` fault). Built three ways from this
 * file (tests/cli/CMakeLists.txt):
 *   pick.so     a plugin of ABI 1.2 that checks its parameters (check_params)
 *   pick11.so   PICK_ABI11: the same bot with an ABI 1.1 descriptor (no
 *               check_params member): its parameters reach it unchecked
 *   pickbot     PICK_CLIENT: an external bot (libja_client), which checks
 *               $JACKARENA_PARAMS at start-up and exits 2 on a refusal
 * It never draws from its random stream, so a match against the same
 * opponents is the same match in-process, hosted and as cmd:. */
#include "jackarena/ja_bot.h"
#include "jackarena/ja_error.h"
#include "jackarena/ja_params.h"
#ifdef PICK_CLIENT
#include "jackarena/ja_client.h"
#endif

#include <stdlib.h>

#ifndef PICK_ABI11
static const char *const KEYS[] = {"pick", NULL};
#endif
static const char *const PICKS[] = {"first", "last", "fail", NULL};

#ifndef PICK_ABI11
static int check_params(const char *params, char *err, size_t cap)
{
    int pick;
    int rc = ja_params_check_keys(params, KEYS, err, cap);
    return rc == JA_OK ? ja_params_word(params, "pick", PICKS, 0, &pick, err, cap) : rc;
}
#endif

typedef struct pick_bot {
    int pick;     /* index into PICKS */
    uint32_t n;   /* decisions asked */
} pick_bot;

static int create(const ja_host_api *host, void *hctx, const char *game, int32_t seat,
                  uint32_t n_seats, void **out)
{
    pick_bot *b = calloc(1, sizeof *b);
    if (!b)
        return JA_ENOMEM;
    /* Unchecked text (ABI 1.1) may hold anything: a bad value is "first". */
    const char *params = JA_HOST_HAS(host, params) ? host->params(hctx) : "";
    int pick = 0;
    if (ja_params_word(params, "pick", PICKS, 0, &pick, NULL, 0) != JA_OK)
        pick = 0;
    b->pick = pick;
    *out = b;
    return JA_OK;
}

static int act(void *bot, const ja_decision *d, uint32_t *index)
{
    pick_bot *b = bot;
    if (b->pick == 2 && b->n++ % 2 == 0)
        return JA_EBOT;
    *index = b->pick == 1 ? d->n_legal - 1 : 0;
    return JA_OK;
}

static void destroy(void *bot)
{
    free(bot);
}

static const ja_bot_desc desc = {
#ifdef PICK_ABI11
    /* As built against ABI 1.1: the descriptor ends before check_params. */
    .struct_size = offsetof(ja_bot_desc, check_params),
    .abi_minor = 1,
#else
    .struct_size = sizeof(ja_bot_desc),
    .abi_minor = JA_BOT_ABI_MINOR,
    .check_params = check_params,
#endif
    .abi_major = JA_BOT_ABI_MAJOR,
    .name = "pick",
    .version = "1.0",
    .create = create,
    .act = act,
    .destroy = destroy,
};

#ifdef PICK_CLIENT
int main(int argc, char **argv)
{
    return ja_client_main(&desc, argc, argv);
}
#else
JA_BOT_DECLARE(desc)
#endif
