/* A bot for the multi-node Slurm test (test_slurm_nodes.sh) and for
 * cli_scale_join (tests/cli/test_scale_join.sh): it plays the first legal
 * action, and before its first match in a process it passes a gate. With JA_TEST_GATE_DIR set, it creates the file named after its
 * host (gethostname: a node's own name in its UTS namespace) in that
 * directory and waits until the directory names JA_TEST_GATE_HOSTS hosts
 * (default 2). A shard or a referee worker that begins to play on one
 * node thus waits, holding that node's one CPU, until another node plays
 * too: the test knows every node played, without depending on timing.
 * JA_TEST_GATE_NAME, when set, is the name it signs in with instead of the
 * host's (two workers on one machine: test_scale_join.sh). Without
 * JA_TEST_GATE_DIR there is no gate (the `--jobs 1` run). Waiting
 * only delays a match, so the results are those of the same bot without
 * the gate. */
#define _POSIX_C_SOURCE 200809L
#include "jackarena/ja_bot.h"
#include "jackarena/ja_error.h"
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

typedef struct gate { int unused; } gate;

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static bool g_open;

/* The hosts named in dir (its entries but dot files). */
static long hosts_in(const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return 0;
    long n = 0;
    const struct dirent *e;
    while ((e = readdir(d)) != NULL)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* JA_OK once the gate is open; JA_EIO when this host cannot sign in. */
static int pass_gate(void)
{
    const char *dir = getenv("JA_TEST_GATE_DIR");
    const char *want_s = getenv("JA_TEST_GATE_HOSTS");
    long want = want_s && *want_s ? strtol(want_s, NULL, 10) : 2;
    char host[256], path[PATH_MAX];
    if (dir == NULL || *dir == '\0')
        return JA_OK;
    const char *name = getenv("JA_TEST_GATE_NAME");
    if (name && *name)
        snprintf(host, sizeof host, "%s", name);
    else if (gethostname(host, sizeof host) != 0)
        return JA_EIO;
    host[sizeof host - 1] = '\0';
    if (snprintf(path, sizeof path, "%s/%s", dir, host) >= (int)sizeof path)
        return JA_EIO;
    int fd = open(path, O_WRONLY | O_CREAT, 0644);
    if (fd < 0)
        return JA_EIO;
    close(fd);
    struct timespec ts = {0, 10 * 1000000L};
    while (hosts_in(dir) < want)
        nanosleep(&ts, NULL);
    return JA_OK;
}

static int create(const ja_host_api *h, void *hctx, const char *game, int32_t seat, uint32_t n,
                  void **out)
{
    (void)h, (void)hctx, (void)game, (void)seat, (void)n;
    pthread_mutex_lock(&g_mu);
    int rc = g_open ? JA_OK : pass_gate();
    g_open = rc == JA_OK;
    pthread_mutex_unlock(&g_mu);
    if (rc != JA_OK)
        return rc;
    gate *b = calloc(1, sizeof *b);
    if (b == NULL)
        return JA_ENOMEM;
    *out = b;
    return JA_OK;
}

static int act(void *bot, const ja_decision *d, uint32_t *index)
{
    (void)bot, (void)d;
    *index = 0;
    return JA_OK;
}

static void destroy(void *bot) { free(bot); }

static const ja_bot_desc desc = {
    .struct_size = sizeof(ja_bot_desc), .abi_major = JA_BOT_ABI_MAJOR,
    .abi_minor = JA_BOT_ABI_MINOR, .name = "gate", .version = "1",
    .create = create, .act = act, .destroy = destroy,
};
JA_BOT_DECLARE(desc)
