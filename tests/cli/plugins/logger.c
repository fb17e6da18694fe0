/* A bot that logs (tests/cli/test_botlogs.py): at create() one line, and at
 * every decision a line naming its seat, its turn and the choice, so that a
 * test can check that each replay log record sits at the right decision;
 * with the parameter flood=N, N more bytes a decision too (lines of 100
 * bytes), to be cut at the documented bounds; with stderr=1, the decision's
 * line is also written to its standard error; with html=1, a line of HTML
 * too (which a viewer must show as text, never as markup). It plays the first legal
 * action and never draws from its random stream. Built two ways
 * (tests/cli/CMakeLists.txt):
 *   logger.so    a plugin (in-process, and hosted)
 *   loggerbot    LOGGER_CLIENT: an external bot through libja_client */
#include "jackarena/ja_bot.h"
#include "jackarena/ja_error.h"
#include "jackarena/ja_params.h"
#ifdef LOGGER_CLIENT
#include "jackarena/ja_client.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const KEYS[] = {"flood", "stderr", "html", NULL};

static int check_params(const char *params, char *err, size_t cap)
{
    int64_t v;
    int rc = ja_params_check_keys(params, KEYS, err, cap);
    if (rc == JA_OK)
        rc = ja_params_int(params, "flood", 0, 1 << 24, 0, &v, err, cap);
    if (rc == JA_OK)
        rc = ja_params_int(params, "stderr", 0, 1, 0, &v, err, cap);
    if (rc == JA_OK)
        rc = ja_params_int(params, "html", 0, 1, 0, &v, err, cap);
    return rc;
}

typedef struct logger {
    const ja_host_api *host;
    void *hctx;
    int32_t seat;
    int64_t flood, to_stderr, html;
} logger;

static int create(const ja_host_api *host, void *hctx, const char *game, int32_t seat,
                  uint32_t n_seats, void **out)
{
    (void)n_seats;
    logger *b = calloc(1, sizeof *b);
    if (!b)
        return JA_ENOMEM;
    b->host = host;
    b->hctx = hctx;
    b->seat = seat;
    const char *params = host->params(hctx);
    ja_params_int(params, "flood", 0, 1 << 24, 0, &b->flood, NULL, 0);
    ja_params_int(params, "stderr", 0, 1, 0, &b->to_stderr, NULL, 0);
    ja_params_int(params, "html", 0, 1, 0, &b->html, NULL, 0);
    char line[128];
    snprintf(line, sizeof line, "create seat %d of %s", (int)seat, game);
    host->log(hctx, JA_LOG_DEBUG, line);
    *out = b;
    return JA_OK;
}

static int act(void *bot, const ja_decision *d, uint32_t *index)
{
    logger *b = bot;
    char line[128];
    snprintf(line, sizeof line, "seat %d turn %u: %u choices, plays 0", (int)d->seat,
             (unsigned)d->turn, (unsigned)d->n_legal);
    b->host->log(b->hctx, JA_LOG_INFO, line);
    if (b->to_stderr) {
        fprintf(stderr, "stderr %s\n", line);
        fflush(stderr);
    }
    if (b->html)
        b->host->log(b->hctx, JA_LOG_INFO,
                     "<b id=\"botlog-markup\">not bold</b> <img src=x onerror=\"document.title="
                     "'pwned'\"> &amp; <script>document.title='pwned'</script>");
    char chunk[101];
    memset(chunk, 'x', 100);
    chunk[100] = '\0';
    for (int64_t left = b->flood; left > 0; left -= 101) /* 100 bytes and a newline */
        b->host->log(b->hctx, JA_LOG_DEBUG, chunk);
    *index = 0;
    return JA_OK;
}

static void destroy(void *bot)
{
    free(bot);
}

static const ja_bot_desc desc = {
    .struct_size = sizeof(ja_bot_desc),
    .abi_major = JA_BOT_ABI_MAJOR,
    .abi_minor = JA_BOT_ABI_MINOR,
    .name = "logger",
    .version = "1.0",
    .create = create,
    .act = act,
    .destroy = destroy,
    .check_params = check_params,
};

#ifdef LOGGER_CLIENT
int main(int argc, char **argv)
{
    return ja_client_main(&desc, argc, argv);
}
#else
JA_BOT_DECLARE(desc)
#endif
