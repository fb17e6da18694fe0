/* An example bot, built twice from this one file: as a plugin
 * (ja_example.so, loaded with dlopen) and as an external bot
 * (ja_example_bot, a process that plays over ZeroMQ through libja_client).
 * The bot code is the same ja_bot_desc either way; only main() differs.
 *
 *   arena play taylor-blackjack random ./build/sdk/examples/ja_example.so
 *   arena play taylor-blackjack random "cmd:./build/sdk/examples/ja_example_bot"
 *
 * Strategy: in Taylor Blackjack it reads its observation (ja_taylor_obs) and
 * lays the card of the suit it holds most of, keeping its options open;
 * otherwise (other decisions, other games) it picks at random from its own
 * stream. */
#include "jackarena/ja_bot.h"
#include "jackarena/ja_cards.h"
#include "jackarena/ja_error.h"
#include "jackarena/ja_params.h"
#include "jackarena/ja_taylor.h"

#include <stdlib.h>
#include <string.h>

typedef struct example {
    const ja_host_api *host;
    void *hctx;
} example;

static int create(const ja_host_api *host, void *hctx, const char *game, int32_t seat,
                  uint32_t n_seats, void **out)
{
    example *b = calloc(1, sizeof *b);
    if (!b)
        return JA_ENOMEM;
    b->host = host;
    b->hctx = hctx;
    *out = b;
    return JA_OK;
}

/* Uniform in [0, n) from the host's stream, without modulo bias. */
static uint32_t pick_random(example *b, uint32_t n)
{
    uint64_t threshold = (uint64_t)(-(uint64_t)n) % n, x;
    do
        x = b->host->rng_next(b->hctx);
    while (x < threshold);
    return (uint32_t)(x % n);
}

static int act(void *bot, const ja_decision *d, uint32_t *out_index)
{
    example *b = bot;
    if (d->obs && strcmp(d->game, "taylor-blackjack") == 0 &&
        d->obs_size == sizeof(ja_taylor_obs)) {
        const ja_taylor_obs *o = d->obs;
        int held[JA_SUIT_COUNT] = {0};
        for (int card = 0; card < 52; card++)
            held[ja_card_suit((uint8_t)card)] += o->hand[card];
        int best = -1, best_count = -1;
        for (uint32_t i = 0; i < d->n_legal; i++) {
            uint32_t code = d->legal[i].code;
            if (code < 52 && held[ja_card_suit((uint8_t)code)] > best_count) {
                best = (int)i;
                best_count = held[ja_card_suit((uint8_t)code)];
            }
        }
        if (best >= 0) {
            *out_index = (uint32_t)best;
            return JA_OK;
        }
    }
    *out_index = pick_random(b, d->n_legal);
    return JA_OK;
}

static void destroy(void *bot)
{
    free(bot);
}

/* It takes no parameters, and says so rather than ignore a typo: as a
 * plugin (./ja_example.so:x=1) and as a cmd: bot (cmd[x=1]:...), which then
 * exits 2 before its hello (docs/protocol.md, "Parameters"). */
static int check_params(const char *params, char *err, size_t cap)
{
    return ja_params_check_keys(params, NULL, err, cap);
}

static const ja_bot_desc desc = {
    .struct_size = sizeof(ja_bot_desc),
    .abi_major = JA_BOT_ABI_MAJOR,
    .abi_minor = JA_BOT_ABI_MINOR,
    .name = "example",
    .version = "1.0",
    .create = create,
    .act = act,
    .destroy = destroy,
    .check_params = check_params,
};

#ifdef EXAMPLE_PLUGIN
JA_BOT_DECLARE(desc)
#else
#include "jackarena/ja_client.h"

int main(int argc, char **argv)
{
    return ja_client_main(&desc, argc, argv);
}
#endif
