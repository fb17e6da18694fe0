/* One bot runtime (ja_botrt.h). */
#include "ja_botrt.h"
#include "ja_mp.h"

#include "jackarena/ja_error.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void ja_botrt_pack_action(msgpack_packer *pk, const char *match, uint64_t turn, int rc,
                          uint32_t index, const ja_declog *log)
{
    bool with_log = log && log->len;
    msgpack_pack_map(pk, (rc == JA_OK ? 4 : 5) + (with_log ? 1 : 0));
    ja_mp_put_kv_str(pk, "type", "action");
    ja_mp_put_kv_str(pk, "match", match);
    ja_mp_put_kv_u64(pk, "turn", turn);
    if (rc == JA_OK) {
        ja_mp_put_kv_u64(pk, "index", index);
    } else {
        char why[96];
        if (strcmp(ja_err_name(rc), "UNKNOWN") != 0)
            snprintf(why, sizeof why, "act() returned JA_%s (%s)", ja_err_name(rc),
                     ja_strerror(rc));
        else
            snprintf(why, sizeof why, "act() returned %d, not a JA_E* code", rc);
        ja_mp_put_kv_str(pk, "error", why);
        ja_mp_put_kv_i64(pk, "code", rc);
    }
    if (with_log) {
        ja_mp_put_str(pk, "log");
        msgpack_pack_str(pk, log->len);
        msgpack_pack_str_body(pk, log->text, log->len);
    }
}

void ja_botrt_pack_games(msgpack_packer *pk, const ja_bot_desc *desc)
{
    uint32_t n = 0;
    for (int i = 0; ja_games[i]; i++)
        n += !JA_BOT_HAS(desc, supports) ||
             desc->supports(ja_games[i]->name, ja_games[i]->obs_version);
    ja_mp_put_str(pk, "games");
    msgpack_pack_array(pk, n ? n : 1);
    for (int i = 0; ja_games[i]; i++)
        if (!JA_BOT_HAS(desc, supports) ||
            desc->supports(ja_games[i]->name, ja_games[i]->obs_version))
            ja_mp_put_str(pk, ja_games[i]->name);
    if (!n)
        ja_mp_put_str(pk, "");
}

int64_t ja_botrt_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* ---- host services ------------------------------------------------------- */

static void host_log(void *hctx, int level, const char *msg)
{
    ja_botrt *rt = hctx;
    if (rt->declog)
        ja_declog_line(rt->declog, msg ? msg : "");
    if (rt->log)
        rt->log(rt->log_ctx, level, msg ? msg : "");
}

static uint64_t host_rng_next(void *hctx)
{
    return ja_rng_next(&((ja_botrt *)hctx)->rng);
}

static int64_t host_time_left_ms(void *hctx)
{
    ja_botrt *rt = hctx;
    if (!rt->deadline_ms)
        return -1;
    int64_t left = (int64_t)rt->deadline_ms - (ja_botrt_now_ns() - rt->asked_ns) / 1000000;
    return left < 0 ? 0 : left;
}

static const char *host_params(void *hctx)
{
    return ((ja_botrt *)hctx)->params;
}

/* The decision's observation (ja_host_api.observe): d->obs, or the owner's
 * on-demand one, made at the first call of the act; NULL outside act(). */
static const void *host_observe(void *hctx)
{
    ja_botrt *rt = hctx;
    if (rt->acting && !rt->act_obs && rt->obs_source)
        rt->act_obs = rt->obs_source(rt->obs_source_ctx);
    return rt->acting ? rt->act_obs : NULL;
}

const ja_host_api ja_botrt_host_api = {
    .struct_size = sizeof(ja_host_api),
    .log = host_log,
    .rng_next = host_rng_next,
    .time_left_ms = host_time_left_ms,
    .rules = ja_game_find,
    .params = host_params,
    .observe = host_observe,
};

/* ---- parameters ---------------------------------------------------------- */

int ja_botrt_check_params(const ja_bot_desc *desc, const char *params, char *err, size_t cap)
{
    const char *text = params ? params : "";
    if (cap)
        err[0] = '\0';
    if (strlen(text) >= JA_BOTRT_PARAMS_MAX) {
        snprintf(err, cap, "parameters too long (at most %d bytes)", JA_BOTRT_PARAMS_MAX - 1);
        return JA_EINVAL;
    }
    if (!JA_BOT_HAS(desc, check_params))
        return JA_OK;
    char why[512];
    why[0] = '\0';
    if (desc->check_params(text, why, sizeof why) == JA_OK)
        return JA_OK;
    why[sizeof why - 1] = '\0';
    /* One printable line, whatever the bot wrote. */
    for (char *c = why; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = ' ';
    snprintf(err, cap, "%s", why[0] ? why : "the bot refused them (it gave no reason)");
    return JA_EINVAL;
}

/* ---- a match ------------------------------------------------------------- */

/* src into dst of cap bytes, cut to fit and NUL-terminated (a seat is
 * opened at every match: no printf machinery for two copies). */
static void copy_text(char *dst, size_t cap, const char *src)
{
    size_t n = strlen(src);
    if (n >= cap)
        n = cap - 1;
    memcpy(dst, src, n);
    dst[n] = '\0';
}

void ja_botrt_init(ja_botrt *rt, const ja_bot_desc *desc, ja_botrt_log_fn log, void *log_ctx)
{
    memset(rt, 0, sizeof *rt);
    rt->desc = desc;
    rt->log = log;
    rt->log_ctx = log_ctx;
}

int ja_botrt_start(ja_botrt *rt, const char *game, int32_t seat, uint32_t n_seats,
                   uint64_t rng_seed, const char *params, bool buffers)
{
    ja_botrt_free(rt);
    rt->g = ja_game_find(game);
    copy_text(rt->game, sizeof rt->game, rt->g ? rt->g->name : game);
    rt->seat = seat;
    rt->n_seats = n_seats;
    rt->deadline_ms = 0;
    ja_rng_seed(&rt->rng, rng_seed);
    char why[256];
    if (ja_botrt_check_params(rt->desc, params, why, sizeof why) != JA_OK) {
        host_log(rt, JA_LOG_ERROR, why);
        return JA_EINVAL;
    }
    copy_text(rt->params, sizeof rt->params, params ? params : "");
    if (buffers) {
        rt->cap_legal = rt->g && rt->g->max_actions ? rt->g->max_actions : JA_MAX_ACTIONS;
        rt->legal = calloc(rt->cap_legal, sizeof *rt->legal);
        rt->obs = rt->g ? calloc(1, rt->g->obs_size) : NULL;
        if (!rt->legal || (rt->g && !rt->obs))
            return JA_ENOMEM;
    }
    return rt->desc->create(&ja_botrt_host_api, rt, rt->game, seat, n_seats, &rt->bot);
}

static int bad(char *why, size_t cap, const char *what)
{
    snprintf(why, cap, "%s", what);
    return JA_EFORMAT;
}

int ja_botrt_decode_act(ja_botrt *rt, const msgpack_object *msg, ja_decision *d, char *why,
                        size_t cap)
{
    uint64_t turn, deadline = 0;
    const msgpack_object *items;
    uint32_t n;
    if (!rt->legal)
        return bad(why, cap, "no match started");
    if (!ja_mp_get_u64(msg, "turn", &turn))
        return bad(why, cap, "an act without an integer turn");
    const msgpack_object *lb = rt->compact ? ja_mp_get(msg, "x_legal_bin") : NULL;
    const msgpack_object *ob = rt->compact ? ja_mp_get(msg, "x_obs_bin") : NULL;
    if (lb) {
        /* The hosted channel's compact form (referee/wire.h, REF_WIRE_BIN). */
        if (lb->type != MSGPACK_OBJECT_BIN || lb->via.bin.size == 0 || lb->via.bin.size % 4)
            return bad(why, cap, "an act with a malformed legal list");
        n = lb->via.bin.size / 4;
        if (n > rt->cap_legal)
            return bad(why, cap, "an act with more legal actions than the game has");
        const unsigned char *p = (const unsigned char *)lb->via.bin.ptr;
        for (uint32_t i = 0; i < n; i++, p += 4)
            rt->legal[i].code = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                                (uint32_t)p[3] << 24;
    } else {
        if (!ja_mp_as_array(ja_mp_get(msg, "legal"), &items, &n) || n == 0)
            return bad(why, cap, "an act without a legal list");
        if (n > rt->cap_legal)
            return bad(why, cap, "an act with more legal actions than the game has");
        for (uint32_t i = 0; i < n; i++) {
            uint64_t code;
            if (!ja_mp_get_u64(&items[i], "code", &code) || code > UINT32_MAX)
                return bad(why, cap, "an act with a malformed legal list");
            rt->legal[i].code = (uint32_t)code;
        }
    }
    if (rt->g && ob) {
        if (ob->type != MSGPACK_OBJECT_BIN || ob->via.bin.size != rt->g->obs_size)
            return bad(why, cap, "an act with a malformed observation");
        ja_obs_canonical(rt->g, ob->via.bin.ptr, rt->obs);
    } else if (rt->g && !ja_mp_as_obs(ja_mp_get(msg, "obs"), rt->g, rt->obs)) {
        return bad(why, cap, "an act with a malformed observation");
    }
    if (ja_mp_get(msg, "deadline_ms") && !ja_mp_get_u64(msg, "deadline_ms", &deadline))
        return bad(why, cap, "an act with a malformed deadline_ms");
    *d = (ja_decision){
        .struct_size = sizeof *d,
        .turn = turn > UINT32_MAX ? UINT32_MAX : (uint32_t)turn,
        .deadline_ms = deadline > UINT32_MAX ? UINT32_MAX : (uint32_t)deadline,
        .seat = rt->seat,
        .n_seats = rt->n_seats,
        .game = rt->game,
        .obs_version = rt->g ? rt->g->obs_version : 0,
        .obs_size = rt->g ? rt->g->obs_size : 0,
        .obs = rt->g ? rt->obs : NULL,
        .legal = rt->legal,
        .n_legal = n,
    };
    return JA_OK;
}

void ja_botrt_decode_outcome(const msgpack_object *msg, ja_outcome *out)
{
    const msgpack_object *items;
    uint32_t n;
    memset(out, 0, sizeof *out);
    if (ja_mp_as_array(ja_mp_get(msg, "scores"), &items, &n) && n <= JA_MAX_SEATS) {
        out->n_seats = n;
        for (uint32_t i = 0; i < n; i++)
            ja_mp_as_i64(&items[i], &out->score[i]);
    }
    if (ja_mp_as_array(ja_mp_get(msg, "places"), &items, &n) && n <= JA_MAX_SEATS)
        for (uint32_t i = 0; i < n; i++) {
            uint64_t p;
            if (ja_mp_as_u64(&items[i], &p) && p <= UINT8_MAX)
                out->place[i] = (uint8_t)p;
        }
}

void ja_botrt_end(ja_botrt *rt, const ja_outcome *o)
{
    if (!rt->bot)
        return;
    if (JA_BOT_HAS(rt->desc, end))
        rt->desc->end(rt->bot, o);
    rt->desc->destroy(rt->bot);
    rt->bot = NULL;
}

void ja_botrt_free(ja_botrt *rt)
{
    if (rt->bot)
        rt->desc->destroy(rt->bot);
    rt->bot = NULL;
    free(rt->obs);
    free(rt->legal);
    rt->obs = NULL;
    rt->legal = NULL;
    rt->cap_legal = 0;
}
