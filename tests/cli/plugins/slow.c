/* A slow bot for time-control tests: its first decision of a match burns
 * SPIN_MS of its thread's CPU time, its second sleeps SLEEP_MS of wall time
 * (using no CPU), and every other decision answers at once with the first
 * legal action. It logs one line before each slow answer, which its
 * reproduction bundle shows as its stderr tail. An in-process plugin cannot
 * be interrupted: the referee must judge both slow answers after the fact
 * (CPU time, and wall time past REF_WALL_FACTOR times the allowance). */
#define _POSIX_C_SOURCE 200809L
#include "jackarena/ja_bot.h"
#include "jackarena/ja_error.h"
#include <stdlib.h>
#include <time.h>

#define SPIN_MS 300
#define SLEEP_MS 600

typedef struct slow { uint32_t n; const ja_host_api *h; void *hctx; } slow;

static int create(const ja_host_api *h, void *hctx, const char *game, int32_t seat, uint32_t n,
                  void **out)
{
    slow *s = calloc(1, sizeof *s);
    if (!s)
        return JA_ENOMEM;
    s->h = h;
    s->hctx = hctx;
    *out = s;
    return JA_OK;
}

static int64_t cpu_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int act(void *bot, const ja_decision *d, uint32_t *index)
{
    slow *s = bot;
    s->n++;
    if (s->n == 1) {
        s->h->log(s->hctx, JA_LOG_DEBUG, "spinning");
        volatile uint64_t x = 0;
        for (int64_t end = cpu_ms() + SPIN_MS; cpu_ms() < end;)
            x++;
    } else if (s->n == 2) {
        s->h->log(s->hctx, JA_LOG_DEBUG, "sleeping");
        struct timespec ts = {SLEEP_MS / 1000, (SLEEP_MS % 1000) * 1000000L};
        nanosleep(&ts, NULL);
    }
    *index = 0;
    return JA_OK;
}

static void destroy(void *bot) { free(bot); }

static const ja_bot_desc desc = {
    .struct_size = sizeof(ja_bot_desc), .abi_major = JA_BOT_ABI_MAJOR,
    .abi_minor = JA_BOT_ABI_MINOR, .name = "slow", .version = "1",
    .create = create, .act = act, .destroy = destroy,
};
JA_BOT_DECLARE(desc)
