/* The `plugin` seat: a bot .so loaded with dlopen and called in-process.
 *
 * Trusted code only: a plugin that crashes or hangs takes the referee with
 * it (untrusted submissions use `hosted:`). It cannot be interrupted, so when
 * a deadline was asked for, its thinking time is measured and an overrun is
 * counted as a timeout after the fact (the answer is then discarded and the
 * default action played). Without a deadline nothing depends on the clock,
 * which keeps tests deterministic. */
#include "seat.h"

#include "jackarena/ja_error.h"
#include "jackarena/ja_rng.h"

#include <dlfcn.h>
#include <errno.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct plugin_bot {
    ref_bot base;
    void *dl;
    const ja_bot_desc *desc;
    char path[4096];
    char sha256[65];
    char name[64], version[32 + 256];
    char params[256];      /* ja_host_api.params: "" for none */
} plugin_bot;

typedef struct plugin_seat {
    ref_seat base;
    plugin_bot *pb;
    void *instance;
    ja_rng rng;            /* the bot's own stream */
    uint32_t move_ms;
    ref_answer pending;    /* answer computed by ask(), handed out by collect() */
} plugin_seat;

static const ref_bot_ops plugin_ops;

/* ---- host services handed to the plugin ---------------------------------- */

static void host_log(void *hctx, int level, const char *msg)
{
    plugin_seat *s = hctx;
    if (level <= JA_LOG_WARN)
        fprintf(stderr, "bot %s (seat %d): %s\n", s->pb->name, (int)s->base.seat, msg ? msg : "");
}

static uint64_t host_rng_next(void *hctx)
{
    plugin_seat *s = hctx;
    return ja_rng_next(&s->rng);
}

static int64_t host_time_left_ms(void *hctx)
{
    plugin_seat *s = hctx;
    if (!s->move_ms)
        return -1;
    int64_t left = (int64_t)s->move_ms - (ref_now_ns() - s->base.asked_ns) / 1000000;
    return left < 0 ? 0 : left;
}

static const char *host_params(void *hctx)
{
    plugin_seat *s = hctx;
    return s->pb->params;
}

static const ja_host_api host_api = {
    .struct_size = sizeof(ja_host_api),
    .log = host_log,
    .rng_next = host_rng_next,
    .time_left_ms = host_time_left_ms,
    .rules = ja_game_find,
    .params = host_params,
};

/* ---- loading ------------------------------------------------------------- */

/* SHA-256 of the file's bytes, as lowercase hex: a changed file is a new
 * ladder entry. */
static int hash_file(const char *path, char hex[65])
{
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

int ref_bot_plugin_open(const char *path, ref_bot **out, char *err, size_t cap)
{
    return ref_bot_plugin_open_params(path, NULL, out, err, cap);
}

int ref_bot_plugin_open_params(const char *path, const char *params, ref_bot **out, char *err,
                               size_t cap)
{
    *out = NULL;
    if (params && strlen(params) >= sizeof ((plugin_bot *)0)->params) {
        snprintf(err, cap, "bot plugin '%s': parameters too long (at most %zu bytes)", path,
                 sizeof ((plugin_bot *)0)->params - 1);
        return JA_EINVAL;
    }
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
    plugin_bot *b = calloc(1, sizeof *b);
    if (!b) {
        snprintf(err, cap, "out of memory");
        return JA_ENOMEM;
    }
    copy_str(b->path, sizeof b->path, path);
    int rc = hash_file(path, b->sha256);
    if (rc) {
        snprintf(err, cap, "bot plugin '%s': cannot read: %s", path, strerror(errno));
        free(b);
        return JA_ENOTFOUND;
    }
    /* dlopen searches the library path for a bare name; "./x.so" is a file. */
    char full[4200];
    snprintf(full, sizeof full, "%s%s", strchr(path, '/') ? "" : "./", path);
    b->dl = dlopen(full, RTLD_NOW | RTLD_LOCAL);
    if (!b->dl) {
        const char *e = dlerror();
        snprintf(err, cap, "bot plugin '%s': cannot load: %s", path, e ? e : "unknown error");
        free(b);
        return JA_EFORMAT;
    }
    ja_bot_entry_fn entry;
    *(void **)&entry = dlsym(b->dl, JA_BOT_ENTRY_SYMBOL);
    if (!entry) {
        /* Name the ABI it was built for, when it exports another major. */
        for (int major = 2; major <= 9; major++) {
            char sym[32];
            snprintf(sym, sizeof sym, "ja_bot_entry_v%d", major);
            if (dlsym(b->dl, sym)) {
                snprintf(err, cap,
                         "bot plugin '%s': built for bot ABI %d (exports %s); this arena loads "
                         "ABI %d (%s)",
                         path, major, sym, JA_BOT_ABI_MAJOR, JA_BOT_ENTRY_SYMBOL);
                dlclose(b->dl);
                free(b);
                return JA_EVERSION;
            }
        }
        snprintf(err, cap, "bot plugin '%s': no entry point %s (not a Jack Arena bot plugin)",
                 path, JA_BOT_ENTRY_SYMBOL);
        dlclose(b->dl);
        free(b);
        return JA_EFORMAT;
    }
    const ja_bot_desc *d = entry();
    const char *why = NULL;
    if (!d)
        why = "its entry point returned no descriptor";
    else if (d->abi_major != JA_BOT_ABI_MAJOR)
        why = "wrong ABI major in its descriptor";
    else if (d->struct_size < offsetof(ja_bot_desc, destroy) + sizeof d->destroy)
        why = "its descriptor is too small for ABI 1";
    else if (!d->name || !d->create || !d->act || !d->destroy)
        why = "its descriptor lacks name, create, act or destroy";
    if (why) {
        int wrong_major = d && d->abi_major != JA_BOT_ABI_MAJOR;
        if (wrong_major)
            snprintf(err, cap, "bot plugin '%s': built for bot ABI %u; this arena loads ABI %d",
                     path, (unsigned)d->abi_major, JA_BOT_ABI_MAJOR);
        else
            snprintf(err, cap, "bot plugin '%s': %s", path, why);
        dlclose(b->dl); /* d points into the library: not read past here */
        free(b);
        return wrong_major ? JA_EVERSION : JA_EFORMAT;
    }
    b->desc = d;
    copy_str(b->name, sizeof b->name, d->name);
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
    return b->desc->supports(g->name, g->obs_version) ? 1 : 0;
}

static int plugin_seat_open(ref_bot *rb, const ref_seat_ctx *ctx, ref_seat **out, char *err,
                            size_t cap)
{
    plugin_bot *b = (plugin_bot *)rb;
    plugin_seat *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, cap, "out of memory");
        return JA_ENOMEM;
    }
    s->base.bot = rb;
    s->base.seat = ctx->seat;
    s->pb = b;
    s->move_ms = ctx->move_ms;
    ja_rng_stream(&s->rng, ctx->match_seed, JA_STREAM_BOT, (uint64_t)ctx->seat);
    int rc = b->desc->create(&host_api, s, ctx->game->name, ctx->seat, ctx->n_seats, &s->instance);
    if (rc != JA_OK) {
        snprintf(err, cap, "bot %s refused seat %d of %s: %s", b->name, (int)ctx->seat,
                 ctx->game->name, ja_strerror(rc));
        free(s);
        return JA_EBOT;
    }
    *out = &s->base;
    return JA_OK;
}

/* The plugin thinks right here; collect() hands out what it decided. */
static int plugin_ask(ref_seat *rs, const ja_decision *d)
{
    plugin_seat *s = (plugin_seat *)rs;
    uint32_t index = UINT32_MAX;
    int rc = s->pb->desc->act(s->instance, d, &index);
    uint64_t us = (uint64_t)(ref_now_ns() - rs->asked_ns) / 1000;
    s->pending = (ref_answer){index, JA_FAULT_NONE, us};
    if (rc != JA_OK)
        s->pending.fault = JA_FAULT_ERROR;
    else if (index >= d->n_legal)
        s->pending.fault = JA_FAULT_ILLEGAL;
    else if (s->move_ms && us > (uint64_t)s->move_ms * 1000)
        s->pending.fault = JA_FAULT_TIMEOUT;
    return JA_OK;
}

static void plugin_collect(ref_seat *rs, int64_t deadline_ns, ref_answer *out)
{
    (void)deadline_ns;
    *out = ((plugin_seat *)rs)->pending;
}

static void plugin_end(ref_seat *rs, const ja_outcome *o)
{
    plugin_seat *s = (plugin_seat *)rs;
    if (JA_BOT_HAS(s->pb->desc, end))
        s->pb->desc->end(s->instance, o);
}

static void plugin_seat_close(ref_seat *rs)
{
    plugin_seat *s = (plugin_seat *)rs;
    if (s->instance)
        s->pb->desc->destroy(s->instance);
    free(s);
}

static void plugin_destroy(ref_bot *rb)
{
    plugin_bot *b = (plugin_bot *)rb;
    /* Under ASan, unloading hides the plugin's frames from leak reports. */
    if (b->dl && !getenv("JA_NO_DLCLOSE"))
        dlclose(b->dl);
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
};
