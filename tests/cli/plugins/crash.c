/* A bot that crashes, or fails, as it is told, for the tests of crash lines
 * and error codes (tests/cli/test_crash.sh):
 *
 *   crash.so:how=HOW:at=N:in=CALL
 *
 * HOW: segv (a write through a null pointer), bus (a read past the end of
 * a mapped empty file), fpe (an integer division by zero), ill (an
 * undefined instruction), abrt (abort()), stack (unbounded recursion), or
 * einval / code7 (act() returns JA_EINVAL, or 7, which is no JA_E* code: an
 * `error` fault, and the match goes on); none (the default) plays the first
 * legal action. N (default 3): the seat's turn at which it happens (a
 * crash once, an error at every N-th turn). CALL: act (the default) or
 * create (the crash at the start of the match).
 *
 * Built without sanitizers (tests/cli/CMakeLists.txt), so that every crash
 * is the signal itself (UBSan would report the division first) and the
 * plugin also runs hosted. */
#include "jackarena/ja_bot.h"
#include "jackarena/ja_error.h"
#include "jackarena/ja_params.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static const char *const KEYS[] = {"how", "at", "in", NULL};
static const char *const HOWS[] = {"none", "segv", "bus", "fpe", "ill", "abrt", "stack",
                                   "einval", "code7", NULL};
enum { NONE, SEGV, BUS, FPE, ILL, ABRT, STACK, EINVAL_RC, CODE7 };
static const char *const CALLS[] = {"act", "create", NULL};

typedef struct crash_bot {
    int how;
    int64_t at;
    uint32_t n;   /* decisions asked */
} crash_bot;

static int read_params(const char *params, crash_bot *b, int *call, char *err, size_t cap)
{
    int rc = ja_params_check_keys(params, KEYS, err, cap);
    if (rc == JA_OK)
        rc = ja_params_word(params, "how", HOWS, NONE, &b->how, err, cap);
    if (rc == JA_OK)
        rc = ja_params_int(params, "at", 1, 1000000, 3, &b->at, err, cap);
    if (rc == JA_OK)
        rc = ja_params_word(params, "in", CALLS, 0, call, err, cap);
    return rc;
}

static int check_params(const char *params, char *err, size_t cap)
{
    crash_bot b;
    int call;
    return read_params(params, &b, &call, err, cap);
}

/* Recursion the compiler cannot turn into a loop: each frame keeps a
 * buffer it reads after the call. */
static int deep(volatile char *up, int n)
{
    volatile char frame[1024];
    if (n < 0) /* never: the stack runs out first */
        return 0;
    frame[0] = up ? up[0] : (char)n;
    return deep(frame, n + 1) + frame[0];
}

static int crash(int how)
{
    volatile int zero = 0, one = 1; /* volatile: 1 / x is no division to GCC */
    switch (how) {
    case SEGV:
        *(volatile int *)(uintptr_t)zero = 1;
        break;
    case BUS: {
        /* A page mapped from an empty file: touching it is SIGBUS. */
        char path[] = "/tmp/crash-bus-XXXXXX";
        int fd = mkstemp(path);
        if (fd < 0)
            return raise(SIGBUS);
        unlink(path);
        volatile char *p = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, 0);
        close(fd);
        if (p == MAP_FAILED)
            return raise(SIGBUS);
        return p[0];
    }
    case FPE:
        return one / zero;
    case ILL:
        __builtin_trap();
    case ABRT:
        abort();
    case STACK:
        return deep(NULL, 0);
    }
    return 0;
}

static int create(const ja_host_api *host, void *hctx, const char *game, int32_t seat,
                  uint32_t n_seats, void **out)
{
    crash_bot *b = calloc(1, sizeof *b);
    if (!b)
        return JA_ENOMEM;
    int call = 0;
    const char *params = JA_HOST_HAS(host, params) ? host->params(hctx) : "";
    if (read_params(params, b, &call, NULL, 0) != JA_OK) {
        free(b);
        return JA_EINVAL;
    }
    if (call == 1 && b->how != NONE && b->how < EINVAL_RC)
        crash(b->how);
    *out = b;
    return JA_OK;
}

static int act(void *bot, const ja_decision *d, uint32_t *index)
{
    crash_bot *b = bot;
    b->n++;
    *index = 0;
    if (b->how == EINVAL_RC && b->n % b->at == 0)
        return JA_EINVAL;
    if (b->how == CODE7 && b->n % b->at == 0)
        return 7;
    if (b->how != NONE && b->n == b->at)
        crash(b->how);
    return JA_OK;
}

static void destroy(void *bot) { free(bot); }

static const ja_bot_desc desc = {
    .struct_size = sizeof(ja_bot_desc), .abi_major = JA_BOT_ABI_MAJOR,
    .abi_minor = JA_BOT_ABI_MINOR, .name = "crash", .version = "1",
    .create = create, .act = act, .destroy = destroy, .check_params = check_params,
};
JA_BOT_DECLARE(desc)
