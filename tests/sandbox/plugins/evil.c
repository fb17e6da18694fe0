/* Fault-injection bots for the hosted sandbox (tests/sandbox/): one source,
 * built once per misbehaviour with -DEVIL=<n> (CMakeLists.txt). Each plays
 * the first legal action until its TRIGGER-th decision of a match, then
 * misbehaves as its name says (ENDCRASH plays every decision and crashes
 * in end(), once its match is over). Only the sandbox stands between these and
 * the machine: never load them in-process (but `badindex` and `garbage`,
 * which are survivable). */
#include "jackarena/ja_bot.h"
#include "jackarena/ja_error.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { SEGV, LOOP, ABORT, HOG, FORKBOMB, GARBAGE, BADINDEX, SLEEPER, OPENFILE, CONNECT, EXEC, PEEK,
       ENDCRASH };
#define TRIGGER 2

typedef struct evil { uint32_t n; } evil;

/* PEEK: a constructor, which runs while the plugin loads (when the sandbox
 * still allows read-only opens for the dynamic loader), reads a file of the
 * arena's working directory; the bot then answers out of range if it could
 * (an `illegal` fault tells the test), in range otherwise. */
static int peeked;
__attribute__((constructor)) static void peek(void)
{
    if (EVIL != PEEK)
        return;
    int fd = open("secret.txt", O_RDONLY);
    char c;
    peeked = fd >= 0 && read(fd, &c, 1) == 1;
    if (fd >= 0)
        close(fd);
}

static int create(const ja_host_api *h, void *hctx, const char *game, int32_t seat, uint32_t n,
                  void **out)
{
    *out = calloc(1, sizeof(evil));
    return *out ? JA_OK : JA_ENOMEM;
}

static volatile int *volatile nowhere;

static int act(void *bot, const ja_decision *d, uint32_t *index)
{
    evil *e = bot;
    *index = 0;
    if (++e->n < TRIGGER && EVIL != GARBAGE && EVIL != PEEK)
        return JA_OK;
    switch (EVIL) {
    case SEGV:
        return *nowhere;
    case LOOP:
        for (volatile unsigned long i = 0;; i++)
            ;
    case ABORT:
        abort();
    case HOG:
        /* Address space, not touched: the limit is hit at once. */
        for (;;) {
            char *p = malloc(16 << 20);
            if (!p)
                return *nowhere; /* what careless code does next */
            p[0] = 1;
        }
    case FORKBOMB:
        for (;;)
            if (fork() == 0)
                for (;;)
                    ;
    case GARBAGE: {
        static const char junk[] = "\x93\x01\x02\xc1 {\"type\":\"action\",\"index\":0} \xff\xfe\n";
        for (int i = 0; i < 100; i++) {
            fwrite(junk, 1, sizeof junk - 1, stdout);
            fwrite(junk, 1, sizeof junk - 1, stderr);
        }
        fflush(stdout);
        return JA_OK;
    }
    case BADINDEX:
        *index = d->n_legal + 5;
        return JA_OK;
    case SLEEPER: {
        uint32_t ms = d->deadline_ms ? 3 * d->deadline_ms : 3000;
        struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
        nanosleep(&ts, NULL);
        return JA_OK;
    }
    case OPENFILE: {
        int fd = open("/etc/passwd", O_RDONLY);
        char c;
        if (fd >= 0 && read(fd, &c, 1) == 1)
            *index = (uint32_t)c % d->n_legal;
        return JA_OK;
    }
    case CONNECT: {
        int fd = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(80),
                                .sin_addr.s_addr = htonl(0x7f000001)};
        if (fd >= 0)
            connect(fd, (struct sockaddr *)&a, sizeof a);
        return JA_OK;
    }
    case PEEK:
        *index = peeked ? d->n_legal + 1 : 0;
        return JA_OK;
    case EXEC: {
        char *argv[] = {"/bin/true", NULL};
        execv(argv[0], argv);
        return JA_OK;
    }
    case ENDCRASH: /* plays well: it crashes in end() */
        return JA_OK;
    }
    return JA_OK;
}

static void destroy(void *bot) { free(bot); }

static void end_crash(void *bot, const ja_outcome *o)
{
    (void)bot;
    (void)o;
    (void)*nowhere;
}

#define STR2(x) #x
#define STR(x) STR2(x)
static const ja_bot_desc desc = {
    .struct_size = sizeof(ja_bot_desc), .abi_major = JA_BOT_ABI_MAJOR,
    .abi_minor = JA_BOT_ABI_MINOR, .name = "evil" STR(EVIL), .version = "1",
    .create = create, .act = act, .destroy = destroy,
    .end = EVIL == ENDCRASH ? end_crash : NULL,
};
JA_BOT_DECLARE(desc)
