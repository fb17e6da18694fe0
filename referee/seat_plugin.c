/* The `plugin` seat: a bot .so loaded with dlopen and called in-process.
 *
 * Trusted code only: a plugin that crashes or hangs takes the referee with
 * it (untrusted submissions use `hosted:`); a crash says so first, in one
 * line naming the bot, seat, match, decision and signal (every call into
 * the plugin is under guard, plugin_guard.h). It cannot be interrupted, so when
 * a deadline was asked for, its thinking time is measured and an overrun is
 * counted as a timeout after the fact (the answer is then discarded and the
 * default action played). The judge is the calling thread's CPU time
 * (CLOCK_THREAD_CPUTIME_ID), so a busy machine does not make a bot late;
 * wall time counts as well past REF_WALL_FACTOR times the allowance, so a
 * bot that sleeps or blocks is still caught. Without a deadline nothing
 * depends on the clock, which keeps tests deterministic; and when nothing
 * records the think time either (no replay, no observer: ref_seat_ask's
 * `timed`), no clock is read at all. The thread's CPU
 * clock is a system call (CLOCK_MONOTONIC is not): it is read before every
 * limited decision, and after it only when the wall time does not already
 * settle the question (plugin_ask).
 *
 * What the bot logs (host_log, every level) is kept in a small ring per
 * seat, its stand-in for a stderr tail in reproduction bundles, and, when
 * the match keeps logs, in the decision's log (the runtime's declog) until
 * the match takes it after each decision. */
#include "ja_botrt.h"
#include "plugin_guard.h"
#include "plugin_load.h"
#include "seat.h"

#include "jackarena/ja_error.h"
#include "jackarena/ja_rng.h"
#include "ja_xalloc.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <errno.h>
#include <stddef.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* Bytes of a seat's log kept for its stderr tail. */
#define LOG_TAIL 2048

/* Closed seats a bot keeps for its next ones (plugin_seat_close): a seat
 * is some 8 KiB, a malloc and a free at every match otherwise. */
#define SPARE_SEATS 4

typedef struct plugin_seat plugin_seat;

typedef struct plugin_bot {
    ref_bot base;
    void *dl;
    const ja_bot_desc *desc;
    char path[4096];
    char sha256[65];
    char name[64], version[32 + 256];
    char params[JA_BOTRT_PARAMS_MAX]; /* ja_host_api.params: "" for none */
    char spec[4096 + JA_BOTRT_PARAMS_MAX]; /* "PATH[:PARAMS]": what hosted: would take */
    ref_guard guard;       /* calls outside a seat: loading, supports(), unloading */
    ref_guard seat_like;   /* its tail for every seat's guard (set once, at load) */
    /* Closed seats kept for the next ones, each slot NULL or one seat's
     * memory (taken and given back by atomic exchange: seats of the bot
     * open and close in several threads at once). */
    _Atomic(plugin_seat *) spare[SPARE_SEATS];
} plugin_bot;

struct plugin_seat {
    ref_seat base;
    plugin_bot *pb;
    uint32_t move_ms;      /* the match's free time per decision (ref_seat_ctx) */
    /* Not zeroed when the seat is opened: each is set there. */
    ja_botrt rt;           /* the instance and its host services */
    ref_guard guard;       /* the crash line of this seat's calls */
    size_t log_len;
    char log[LOG_TAIL];    /* the last LOG_TAIL - 1 bytes logged, NUL-terminated */
    ja_declog declog;      /* logged since the last take (ref_seat_ctx.logs) */
};

static const ref_bot_ops plugin_ops;

/* ---- what the bot logs ---------------------------------------------------- */

/* Appends one line to the seat's log tail, dropping the oldest bytes. */
static void log_keep(plugin_seat *s, const char *msg)
{
    size_t len = strlen(msg) + 1; /* with its newline */
    if (len >= LOG_TAIL) {
        msg += len - LOG_TAIL + 1;
        len = LOG_TAIL - 1;
    }
    if (s->log_len + len >= LOG_TAIL) {
        size_t drop = s->log_len + len - (LOG_TAIL - 1);
        memmove(s->log, s->log + drop, s->log_len - drop);
        s->log_len -= drop;
    }
    memcpy(s->log + s->log_len, msg, len - 1);
    s->log[s->log_len + len - 1] = '\n';
    s->log_len += len;
    s->log[s->log_len] = '\0';
}

/* Where the bot's log() goes: the tail, and warnings to stderr. */
static void seat_log(void *ctx, int level, const char *msg)
{
    plugin_seat *s = ctx;
    log_keep(s, msg);
    if (level <= JA_LOG_WARN)
        fprintf(stderr, "bot %s (seat %d): %s\n", s->pb->name, (int)s->base.seat, msg);
}

/* ---- loading ------------------------------------------------------------- */

/* A call of b's outside a seat is under guard from here to ref_guard_leave:
 * while what ("being loaded"), in call ("supports()"). */
static void bot_guard(plugin_bot *b, const char *what, const char *call)
{
    ref_guard_set(&b->guard, b->name[0] ? b->name : b->path, what, b->spec);
    ref_guard_enter(&b->guard, call, 0);
}

/* SHA-256 of the file's bytes, as lowercase hex: a changed file is a new
 * ladder entry. */
int ref_file_sha256(const char *path, char hex[65])
{
    if (sodium_init() < 0)
        return JA_EIO;
    FILE *f = fopen(path, "rb");
    if (!f)
        return JA_EIO;
    crypto_hash_sha256_state st;
    crypto_hash_sha256_init(&st);
    unsigned char buf[65536], out[crypto_hash_sha256_BYTES];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        crypto_hash_sha256_update(&st, buf, n);
    int bad = ferror(f);
    fclose(f);
    if (bad)
        return JA_EIO;
    crypto_hash_sha256_final(&st, out);
    sodium_bin2hex(hex, 65, out, sizeof out);
    return JA_OK;
}

static void copy_str(char *dst, size_t cap, const char *src)
{
    snprintf(dst, cap, "%s", src ? src : "");
}

int ref_bot_plugin_open(const char *path, const char *params, ref_bot **out, char *err,
                        size_t cap)
{
    *out = NULL;
    struct stat sb;
    if (stat(path, &sb) != 0) {
        snprintf(err, cap, "bot plugin '%s': %s", path, strerror(errno));
        return JA_ENOTFOUND;
    }
    if (!S_ISREG(sb.st_mode)) {
        snprintf(err, cap, "bot plugin '%s': not a regular file", path);
        return JA_ENOTFOUND;
    }
    if (sodium_init() < 0) {
        snprintf(err, cap, "cannot initialise libsodium");
        return JA_EIO;
    }
    plugin_bot *b = ja_xcalloc(1, sizeof *b);
    copy_str(b->path, sizeof b->path, path);
    int rc = ref_file_sha256(path, b->sha256);
    if (rc) {
        snprintf(err, cap, "bot plugin '%s': cannot read: %s", path, strerror(errno));
        free(b);
        return JA_ENOTFOUND;
    }
    const ja_bot_desc *d;
    snprintf(b->spec, sizeof b->spec, "%s%s%s", path, params && *params ? ":" : "",
             params ? params : "");
    ref_guard_set(&b->seat_like, "", "", b->spec);
    /* Its initialisers (dlopen) and entry point run here, under guard. */
    bot_guard(b, "being loaded", "its initialisers or entry point");
    rc = ref_plugin_load(path, &b->dl, &d, err, cap);
    ref_guard_leave();
    if (rc != JA_OK) {
        free(b);
        return rc;
    }
    copy_str(b->name, sizeof b->name, d->name);
    /* The bot judges its parameters (check_params) before anything runs. */
    bot_guard(b, "checking its parameters", "check_params()");
    rc = ja_botrt_check_params(d, params, err, cap);
    ref_guard_leave();
    if (rc != JA_OK) {
        dlclose(b->dl);
        free(b);
        return rc;
    }
    b->desc = d;
    copy_str(b->params, sizeof b->params, params);
    /* Parameters change how the bot plays: they are part of its identity. */
    snprintf(b->version, sizeof b->version, "%.31s%s%s", d->version ? d->version : "0",
             b->params[0] ? ":" : "", b->params);
    b->base.ops = &plugin_ops;
    b->base.info = (ref_bot_info){"plugin", b->name, b->version, b->path, b->sha256};
    *out = &b->base;
    return JA_OK;
}

/* ---- ops ----------------------------------------------------------------- */

static int plugin_supports(ref_bot *rb, const ja_game_rules *g)
{
    plugin_bot *b = (plugin_bot *)rb;
    if (!JA_BOT_HAS(b->desc, supports))
        return 1;
    bot_guard(b, "asked the games it plays", "supports()");
    int yes = b->desc->supports(g->name, g->obs_version);
    ref_guard_leave();
    return yes ? 1 : 0;
}

/* The observation of a bot that takes it on demand (ja_host_api.observe
 * during its act): the match brings the seat's own up to date then. */
static const void *plugin_observe(void *ctx)
{
    ref_seat *rs = ctx;
    return rs->obs_get ? rs->obs_get(rs->obs_ctx, rs->seat) : NULL;
}

static int plugin_seat_open(ref_bot *rb, const ref_seat_ctx *ctx, ref_seat **out, char *err,
                            size_t cap)
{
    plugin_bot *b = (plugin_bot *)rb;
    /* Opened at every match: a spare seat's memory, or new; zeroed up to
     * what is set here (the runtime, the guard, the log tail's length). */
    plugin_seat *s = NULL;
    for (int i = 0; i < SPARE_SEATS && !s; i++)
        s = atomic_exchange(&b->spare[i], NULL);
    if (!s)
        s = ja_xmalloc(sizeof *s);
    memset(s, 0, offsetof(plugin_seat, rt));
    s->log[0] = '\0';
    s->log_len = 0;
    ja_declog_clear(&s->declog);
    s->base.bot = rb;
    s->base.seat = ctx->seat;
    s->pb = b;
    s->move_ms = ctx->move_ms;
    ja_botrt_init(&s->rt, b->desc, seat_log, s);
    if (JA_BOT_FLAGS(b->desc) & JA_BOT_OBS_ON_DEMAND) {
        s->base.obs_on_demand = true;
        s->rt.obs_source = plugin_observe;
        s->rt.obs_source_ctx = &s->base;
    }
    if (ctx->logs)
        s->rt.declog = &s->declog;
    ref_guard_set_seat(&s->guard, ctx->players ? ctx->players[ctx->seat] : b->name, ctx->seat,
                       ctx->match_id, &b->seat_like);
    ref_guard_enter(&s->guard, "create()", 0);
    int rc = ja_botrt_start(&s->rt, ctx->game->name, ctx->seat, ctx->n_seats,
                            ref_bot_seed(ctx->match_seed, ctx->seat), b->params, false);
    ref_guard_leave();
    if (rc != JA_OK) {
        snprintf(err, cap, "bot %s refused seat %d of %s: %s", b->name, (int)ctx->seat,
                 ctx->game->name, ja_strerror(rc));
        ja_botrt_free(&s->rt);
        free(s);
        return JA_EBOT;
    }
    *out = &s->base;
    return JA_OK;
}

static int64_t thread_cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
        return 0;
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The plugin thinks right here; collect() hands out what it decided. The
 * CPU clock is read only when there is a limit to judge, and after the act
 * only when the wall time leaves the judgement open (ref_cpu_within): cpu_us
 * stays 0 otherwise, and charge_bank's use of the wall time in its place
 * takes nothing from the bank, as the CPU time would not have. */
static int plugin_ask(ref_seat *rs, const ja_decision *d)
{
    plugin_seat *s = (plugin_seat *)rs;
    uint32_t index = UINT32_MAX;
    int64_t cpu0 = d->deadline_ms ? thread_cpu_ns() : 0;
    ref_guard_enter(&s->guard, "act()", rs->decision);
    int rc = ja_botrt_act(&s->rt, d, rs->asked_ns, &index);
    ref_guard_leave();
    uint64_t us = rs->asked_ns ? (uint64_t)(ref_now_ns() - rs->asked_ns) / 1000 : 0;
    uint64_t cpu_us = d->deadline_ms && !ref_cpu_within(us, (uint64_t)s->move_ms * 1000)
                          ? (uint64_t)(thread_cpu_ns() - cpu0) / 1000 + 1
                          : 0;
    /* The answer, where collect() and the match (answers_at_ask) take it. */
    ref_answer *a = &rs->answer;
    uint64_t allow_us = (uint64_t)d->deadline_ms * 1000;
    a->index = index;
    a->fault = JA_FAULT_NONE;
    a->think_us = us;
    a->cpu_us = cpu_us;
    a->error = 0;
    a->left = NULL;
    if (rc != JA_OK) {
        a->index = 0;
        a->fault = JA_FAULT_ERROR;
        a->error = rc;
    } else if (index >= d->n_legal) {
        a->fault = JA_FAULT_ILLEGAL;
    } else if (allow_us && (cpu_us > allow_us || us > REF_WALL_FACTOR * allow_us)) {
        a->fault = JA_FAULT_TIMEOUT;
    }
    return JA_OK;
}

static void plugin_collect(ref_seat *rs, int64_t deadline_ns, ref_answer *out)
{
    (void)deadline_ns;
    *out = rs->answer;
}

static void plugin_end(ref_seat *rs, const ja_outcome *o)
{
    plugin_seat *s = (plugin_seat *)rs;
    ref_guard_enter(&s->guard, "end()", 0);
    ja_botrt_end(&s->rt, o);
    ref_guard_leave();
}

static size_t plugin_stderr_tail(ref_seat *rs, char *buf, size_t cap)
{
    plugin_seat *s = (plugin_seat *)rs;
    size_t len = s->log_len < cap ? s->log_len : cap - 1;
    memcpy(buf, s->log + s->log_len - len, len);
    buf[len] = '\0';
    return len;
}

static void plugin_take_log(ref_seat *rs, ja_declog *out)
{
    ja_declog_take(out, &((plugin_seat *)rs)->declog);
}

static void plugin_seat_close(ref_seat *rs)
{
    plugin_seat *s = (plugin_seat *)rs;
    ref_guard_enter(&s->guard, "destroy()", 0);
    ja_botrt_free(&s->rt);
    ref_guard_leave();
    /* Kept for the bot's next seat when a slot is free. */
    for (int i = 0; i < SPARE_SEATS && s; i++) {
        plugin_seat *none = NULL;
        if (atomic_compare_exchange_strong(&s->pb->spare[i], &none, s))
            s = NULL;
    }
    free(s);
}

static void plugin_destroy(ref_bot *rb)
{
    plugin_bot *b = (plugin_bot *)rb;
    for (int i = 0; i < SPARE_SEATS; i++)
        free(atomic_exchange(&b->spare[i], NULL));
    /* Under ASan, unloading hides the plugin's frames from leak reports. */
    if (b->dl && !getenv("JA_NO_DLCLOSE")) {
        bot_guard(b, "being unloaded", "its finalisers (dlclose)");
        dlclose(b->dl);
        ref_guard_leave();
    }
    free(b);
}

static const ref_bot_ops plugin_ops = {
    .kind = "plugin",
    .supports = plugin_supports,
    .seat_open = plugin_seat_open,
    .ask = plugin_ask,
    .collect = plugin_collect,
    .end = plugin_end,
    .seat_close = plugin_seat_close,
    .destroy = plugin_destroy,
    .clock_free = true,
    .answers_at_ask = true,
    .stderr_tail = plugin_stderr_tail,
    .take_log = plugin_take_log,
};
