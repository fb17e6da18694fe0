/* The referee worker protocol's codec (worker_msg.h). */
#include "run/worker_msg.h"

#include "jackarena/ja_error.h"
#include "ja_mp.h"

#include <stdio.h>
#include <string.h>

/* ---- helpers ---------------------------------------------------------------- */

static void put_bin(msgpack_packer *pk, const char *key, const void *p, size_t n)
{
    ja_mp_put_str(pk, key);
    if (!p) {
        msgpack_pack_nil(pk);
        return;
    }
    msgpack_pack_bin(pk, n);
    msgpack_pack_bin_body(pk, p, n);
}

static void put_u64_array(msgpack_packer *pk, const char *key, const uint64_t *v, uint32_t n)
{
    ja_mp_put_str(pk, key);
    msgpack_pack_array(pk, n);
    for (uint32_t i = 0; i < n; i++)
        msgpack_pack_uint64(pk, v[i]);
}

/* A bin value (nil: absent, *p NULL). False when of another type. */
static bool get_bin(const msgpack_object *m, const char *key, const char **p, size_t *n)
{
    const msgpack_object *o = ja_mp_get(m, key);
    *p = NULL;
    *n = 0;
    if (!o || o->type == MSGPACK_OBJECT_NIL)
        return true;
    if (o->type != MSGPACK_OBJECT_BIN)
        return false;
    *p = o->via.bin.ptr;
    *n = o->via.bin.size;
    return true;
}

/* An array of exactly n unsigned integers, each <= max. */
static bool get_u64s(const msgpack_object *m, const char *key, uint32_t n, uint64_t max,
                     uint64_t *out)
{
    const msgpack_object *it;
    uint32_t k;
    if (!ja_mp_as_array(ja_mp_get(m, key), &it, &k) || k != n)
        return false;
    for (uint32_t i = 0; i < n; i++)
        if (!ja_mp_as_u64(&it[i], &out[i]) || out[i] > max)
            return false;
    return true;
}

static bool get_u32(const msgpack_object *m, const char *key, uint32_t *out)
{
    uint64_t v;
    if (!ja_mp_get_u64(m, key, &v) || v > UINT32_MAX)
        return false;
    *out = (uint32_t)v;
    return true;
}

/* Checks and unpacks one whole frame into u: a map, nothing after it. */
static int unpack_map(const char *buf, size_t len, msgpack_unpacked *u, char *why, size_t cap)
{
    size_t end = 0;
    int scan = ja_mp_scan(buf, len, 0, &end);
    if (scan <= 0 || end != len) {
        snprintf(why, cap, scan == 0 ? "truncated msgpack" : "not one msgpack object");
        return JA_EFORMAT;
    }
    size_t off = 0;
    if (msgpack_unpack_next(u, buf, len, &off) != MSGPACK_UNPACK_SUCCESS ||
        u->data.type != MSGPACK_OBJECT_MAP) {
        snprintf(why, cap, "not a msgpack map");
        return JA_EFORMAT;
    }
    return JA_OK;
}

/* ---- setup (the tournament's match settings) ------------------------------- */

void worker_setup_pack(msgpack_packer *pk, const arena_exec_ctx *ctx, uint32_t n_bots,
                       const char *const *specs)
{
    msgpack_pack_map(pk, 10);
    ja_mp_put_kv_str(pk, "game", ctx->game->name);
    ja_mp_put_str(pk, "options");
    msgpack_pack_array(pk, ctx->options.n);
    for (uint32_t i = 0; i < ctx->options.n; i++) {
        msgpack_pack_array(pk, 2);
        msgpack_pack_int64(pk, ctx->options.value[i]);
        msgpack_pack_uint8(pk, ctx->options.given[i]);
    }
    ja_mp_put_kv_u64(pk, "move_ms", ctx->move_ms);
    ja_mp_put_kv_u64(pk, "max_faults", ctx->max_faults);
    ja_mp_put_kv_u64(pk, "bank_ms", ctx->faults.bank_ms);
    ja_mp_put_kv_u64(pk, "on_fault", ctx->faults.on_fault);
    ja_mp_put_kv_i64(pk, "tournament", ctx->tournament_id);
    ja_mp_put_str(pk, "replay");
    if (ctx->replay_dir)
        msgpack_pack_true(pk);
    else
        msgpack_pack_false(pk);
    ja_mp_put_kv_u64(pk, "proto", WORKER_PROTO_VERSION);
    ja_mp_put_str(pk, "bots");
    msgpack_pack_array(pk, n_bots);
    for (uint32_t i = 0; i < n_bots; i++) {
        const ref_bot_info *bi = ref_bot_get_info(ctx->bots[i]);
        msgpack_pack_map(pk, 3);
        ja_mp_put_kv_str(pk, "spec", specs[i]);
        ja_mp_put_kv_str(pk, "name", ctx->names[i]);
        ja_mp_put_kv_str(pk, "sha256", bi->sha256 ? bi->sha256 : "");
    }
}

int worker_setup_unpack(const char *buf, size_t len, worker_setup *out, char *why, size_t cap)
{
    memset(out, 0, sizeof *out);
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    int rc = unpack_map(buf, len, &u, why, cap);
    const msgpack_object *m = &u.data, *it = NULL, *bots = NULL;
    uint32_t n = 0;
    uint64_t proto = 0;
    if (rc != JA_OK)
        goto out;
    rc = JA_EFORMAT;
    if (!ja_mp_get_u64(m, "proto", &proto) || proto != WORKER_PROTO_VERSION) {
        snprintf(why, cap, "job settings of another protocol version");
        rc = JA_EVERSION;
        goto out;
    }
    if (!ja_mp_get_str(m, "game", out->game, sizeof out->game) ||
        !get_u32(m, "move_ms", &out->move_ms) || !get_u32(m, "max_faults", &out->max_faults) ||
        !get_u32(m, "bank_ms", &out->bank_ms) || !get_u32(m, "on_fault", &out->on_fault) ||
        out->on_fault >= REF_ON_FAULT_COUNT ||
        !ja_mp_get_i64(m, "tournament", &out->tournament_id) ||
        !ja_mp_as_bool(ja_mp_get(m, "replay"), &out->replay)) {
        snprintf(why, cap, "job settings lack game, move_ms, max_faults, bank_ms, on_fault, tournament or replay");
        goto out;
    }
    if (!ja_mp_as_array(ja_mp_get(m, "options"), &it, &n) || n > JA_MAX_OPTIONS) {
        snprintf(why, cap, "job settings: bad options");
        goto out;
    }
    out->options.n = n;
    for (uint32_t i = 0; i < n; i++) {
        const msgpack_object *kv;
        uint32_t two;
        int64_t v;
        uint64_t given;
        if (!ja_mp_as_array(&it[i], &kv, &two) || two != 2 || !ja_mp_as_i64(&kv[0], &v) ||
            v < INT32_MIN || v > INT32_MAX || !ja_mp_as_u64(&kv[1], &given) || given > 1) {
            snprintf(why, cap, "job settings: bad option %u", (unsigned)i);
            goto out;
        }
        out->options.value[i] = (int32_t)v;
        out->options.given[i] = (uint8_t)given;
    }
    if (!ja_mp_as_array(ja_mp_get(m, "bots"), &bots, &n) || n == 0 || n > WORKER_MAX_BOTS) {
        snprintf(why, cap, "job settings: bad bot list");
        goto out;
    }
    out->n_bots = n;
    for (uint32_t i = 0; i < n; i++) {
        worker_bot *b = &out->bots[i];
        if (!ja_mp_get_str(&bots[i], "spec", b->spec, sizeof b->spec) || !b->spec[0] ||
            !ja_mp_get_str(&bots[i], "name", b->name, sizeof b->name) ||
            !ja_mp_get_str(&bots[i], "sha256", b->sha256, sizeof b->sha256)) {
            snprintf(why, cap, "job settings: bad bot %u", (unsigned)i);
            goto out;
        }
    }
    rc = JA_OK;
out:
    msgpack_unpacked_destroy(&u);
    return rc;
}

/* ---- messages ----------------------------------------------------------------- */

static const char *const TYPE_NAMES[] = {NULL, "hello", "hb", "result", "job", "quit"};

static void begin(msgpack_sbuffer *sb, msgpack_packer *pk, worker_msg_type t, uint32_t n_fields)
{
    msgpack_sbuffer_clear(sb);
    msgpack_packer_init(pk, sb, msgpack_sbuffer_write);
    msgpack_pack_map(pk, n_fields);
    ja_mp_put_kv_str(pk, "t", TYPE_NAMES[t]);
}

void worker_pack_hello(msgpack_sbuffer *sb, uint32_t slots, uint32_t depth, const char *host,
                       int64_t pid)
{
    msgpack_packer pk;
    begin(sb, &pk, WORKER_HELLO, 6);
    ja_mp_put_kv_u64(&pk, "v", WORKER_PROTO_VERSION);
    ja_mp_put_kv_u64(&pk, "slots", slots);
    ja_mp_put_kv_u64(&pk, "depth", depth);
    ja_mp_put_kv_str(&pk, "host", host);
    ja_mp_put_kv_i64(&pk, "pid", pid);
}

void worker_pack_simple(msgpack_sbuffer *sb, worker_msg_type type)
{
    msgpack_packer pk;
    begin(sb, &pk, type, 1);
}

void worker_pack_job(msgpack_sbuffer *sb, const char *ctx, size_t ctx_len, const arena_job *job,
                     bool export_wanted)
{
    msgpack_packer pk;
    begin(sb, &pk, WORKER_JOB, 6);
    put_bin(&pk, "ctx", ctx, ctx_len);
    ja_mp_put_kv_u64(&pk, "n", job->number);
    ja_mp_put_kv_u64(&pk, "seed", job->seed);
    ja_mp_put_str(&pk, "seats");
    msgpack_pack_array(&pk, job->n_seats);
    for (uint32_t s = 0; s < job->n_seats; s++)
        msgpack_pack_uint16(&pk, job->slot[s]);
    ja_mp_put_str(&pk, "export");
    if (export_wanted)
        msgpack_pack_true(&pk);
    else
        msgpack_pack_false(&pk);
}

void worker_pack_result(msgpack_sbuffer *sb, const arena_job_result *r, const void *replay,
                        size_t replay_len)
{
    msgpack_packer pk;
    const ref_match_result *m = &r->res;
    uint32_t n = m->outcome.n_seats <= JA_MAX_SEATS ? m->outcome.n_seats : 0;
    begin(sb, &pk, WORKER_RESULT, 7);
    ja_mp_put_kv_u64(&pk, "n", r->number);
    ja_mp_put_kv_i64(&pk, "rc", r->rc);
    ja_mp_put_kv_str(&pk, "err", r->err);
    put_bin(&pk, "replay", replay, replay_len);
    put_bin(&pk, "export", r->export_data, r->export_len);
    ja_mp_put_str(&pk, "res");
    msgpack_pack_map(&pk, 10);
    ja_mp_put_str(&pk, "score");
    msgpack_pack_array(&pk, n);
    for (uint32_t s = 0; s < n; s++)
        msgpack_pack_int64(&pk, m->outcome.score[s]);
    uint64_t v[JA_MAX_SEATS] = {0};
    for (uint32_t s = 0; s < n; s++)
        v[s] = m->outcome.place[s];
    put_u64_array(&pk, "place", v, n);
    for (uint32_t s = 0; s < n; s++)
        v[s] = m->forfeit[s];
    put_u64_array(&pk, "forfeit", v, n);
    put_u64_array(&pk, "think_us", m->think_us, n);
    ja_mp_put_str(&pk, "kinds"); /* per seat, its faults of each kind */
    msgpack_pack_array(&pk, n);
    for (uint32_t s = 0; s < n; s++) {
        msgpack_pack_array(&pk, JA_FAULT_COUNT);
        for (int f = 0; f < JA_FAULT_COUNT; f++)
            msgpack_pack_uint32(&pk, m->fault_kinds[s][f]);
    }
    for (uint32_t s = 0; s < n; s++)
        v[s] = m->faults[s];
    put_u64_array(&pk, "faults", v, n);
    ja_mp_put_kv_u64(&pk, "decisions", m->decisions);
    ja_mp_put_kv_u64(&pk, "asked", m->asked);
    put_bin(&pk, "digest", m->digest, sizeof m->digest);
    ja_mp_put_kv_u64(&pk, "seats", n);
}

static int decode_result(const msgpack_object *m, worker_msg *w, char *why, size_t cap)
{
    arena_job_result *r = &w->res;
    int64_t rc;
    const char *xd;
    size_t xlen;
    if (!get_u32(m, "n", &r->number) || !ja_mp_get_i64(m, "rc", &rc) || rc > 0 ||
        rc <= -JA_ERR_COUNT || !ja_mp_get_str(m, "err", r->err, sizeof r->err) ||
        !get_bin(m, "replay", &w->replay, &w->replay_len) || !get_bin(m, "export", &xd, &xlen)) {
        snprintf(why, cap, "result lacks n, rc, err, replay or export");
        return JA_EFORMAT;
    }
    r->rc = (int)rc;
    r->export_data = (void *)xd;
    r->export_len = xlen;
    if (r->rc != JA_OK)
        return JA_OK; /* nothing was played: no match result to read */
    const msgpack_object *res = ja_mp_get(m, "res"), *it;
    ref_match_result *x = &r->res;
    uint64_t n, v[JA_MAX_SEATS];
    uint32_t k;
    const char *dg;
    size_t dlen;
    if (!ja_mp_get_u64(res, "seats", &n) || n == 0 || n > JA_MAX_SEATS) {
        snprintf(why, cap, "result of match %u: bad seat count", (unsigned)r->number);
        return JA_EFORMAT;
    }
    x->outcome.n_seats = (uint32_t)n;
    if (!ja_mp_as_array(ja_mp_get(res, "score"), &it, &k) || k != n)
        goto bad;
    for (uint32_t s = 0; s < n; s++)
        if (!ja_mp_as_i64(&it[s], &x->outcome.score[s]))
            goto bad;
    if (!get_u64s(res, "place", (uint32_t)n, n, v))
        goto bad;
    for (uint32_t s = 0; s < n; s++)
        x->outcome.place[s] = (uint8_t)v[s];
    if (!get_u64s(res, "forfeit", (uint32_t)n, 1, v))
        goto bad;
    for (uint32_t s = 0; s < n; s++)
        x->forfeit[s] = (uint8_t)v[s];
    if (!get_u64s(res, "think_us", (uint32_t)n, UINT64_MAX, x->think_us))
        goto bad;
    if (!get_u64s(res, "faults", (uint32_t)n, UINT32_MAX, v))
        goto bad;
    for (uint32_t s = 0; s < n; s++)
        x->faults[s] = (uint32_t)v[s];
    if (!ja_mp_as_array(ja_mp_get(res, "kinds"), &it, &k) || k != n)
        goto bad;
    for (uint32_t s = 0; s < n; s++) {
        const msgpack_object *fk;
        uint32_t nf;
        if (!ja_mp_as_array(&it[s], &fk, &nf) || nf != JA_FAULT_COUNT)
            goto bad;
        for (uint32_t f = 0; f < nf; f++) {
            uint64_t c;
            if (!ja_mp_as_u64(&fk[f], &c) || c > UINT32_MAX)
                goto bad;
            x->fault_kinds[s][f] = (uint32_t)c;
        }
    }
    if (!get_u32(res, "decisions", &x->decisions) || !get_u32(res, "asked", &x->asked) ||
        !get_bin(res, "digest", &dg, &dlen) || dlen != REF_DIGEST_BYTES)
        goto bad;
    memcpy(x->digest, dg, REF_DIGEST_BYTES);
    return JA_OK;
bad:
    snprintf(why, cap, "result of match %u: malformed match result", (unsigned)r->number);
    return JA_EFORMAT;
}

static int decode_job(const msgpack_object *m, worker_msg *w, char *why, size_t cap)
{
    const msgpack_object *it;
    uint32_t k;
    if (!get_bin(m, "ctx", &w->ctx, &w->ctx_len) || !w->ctx || !get_u32(m, "n", &w->job.number) ||
        !ja_mp_get_u64(m, "seed", &w->job.seed) ||
        !ja_mp_as_bool(ja_mp_get(m, "export"), &w->export_wanted) ||
        !ja_mp_as_array(ja_mp_get(m, "seats"), &it, &k) || k == 0 || k > JA_MAX_SEATS) {
        snprintf(why, cap, "job lacks ctx, n, seed, seats or export");
        return JA_EFORMAT;
    }
    w->job.n_seats = k;
    for (uint32_t s = 0; s < k; s++) {
        uint64_t v;
        if (!ja_mp_as_u64(&it[s], &v) || v >= WORKER_MAX_BOTS) {
            snprintf(why, cap, "job %u: bad seat %u", (unsigned)w->job.number, (unsigned)s);
            return JA_EFORMAT;
        }
        w->job.slot[s] = (uint16_t)v;
    }
    return JA_OK;
}

int worker_msg_decode(const char *buf, size_t len, worker_msg *w, char *why, size_t cap)
{
    memset(w, 0, sizeof *w);
    why[0] = '\0';
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    int rc = unpack_map(buf, len, &u, why, cap);
    const msgpack_object *m = &u.data;
    char t[16];
    if (rc != JA_OK)
        goto out;
    rc = JA_EFORMAT;
    if (!ja_mp_get_str(m, "t", t, sizeof t)) {
        snprintf(why, cap, "message without a type (t)");
        goto out;
    }
    w->type = 0;
    for (int i = 1; i <= WORKER_QUIT; i++)
        if (strcmp(t, TYPE_NAMES[i]) == 0)
            w->type = (worker_msg_type)i;
    switch (w->type) {
    case WORKER_HELLO: {
        uint64_t v;
        if (!ja_mp_get_u64(m, "v", &v) || !get_u32(m, "slots", &w->slots) ||
            !ja_mp_get_str(m, "host", w->host, sizeof w->host) || !ja_mp_get_i64(m, "pid", &w->pid)) {
            snprintf(why, cap, "hello lacks v, slots, host or pid");
            goto out;
        }
        if (v != WORKER_PROTO_VERSION) {
            snprintf(why, cap, "worker speaks protocol %llu, this arena %d", (unsigned long long)v,
                     WORKER_PROTO_VERSION);
            rc = JA_EVERSION;
            goto out;
        }
        if (w->slots == 0 || w->slots > WORKER_MAX_SLOTS) {
            snprintf(why, cap, "hello announces %u slots (1 to %u)", (unsigned)w->slots,
                     WORKER_MAX_SLOTS);
            goto out;
        }
        /* depth is optional: a worker without it takes 2 jobs a slot. */
        w->depth = WORKER_DEPTH_MIN;
        uint64_t depth = WORKER_DEPTH_MIN;
        if (ja_mp_get(m, "depth") &&
            (!ja_mp_get_u64(m, "depth", &depth) || depth < WORKER_DEPTH_MIN ||
             depth > WORKER_MAX_DEPTH)) {
            snprintf(why, cap, "hello's depth is not a number of jobs a slot from %u to %u",
                     WORKER_DEPTH_MIN, WORKER_MAX_DEPTH);
            goto out;
        }
        w->depth = (uint32_t)depth;
        w->version = (uint32_t)v;
        rc = JA_OK;
        break;
    }
    case WORKER_HB:
    case WORKER_QUIT: rc = JA_OK; break;
    case WORKER_JOB: rc = decode_job(m, w, why, cap); break;
    case WORKER_RESULT: rc = decode_result(m, w, why, cap); break;
    default: snprintf(why, cap, "unknown message type '%s'", t); goto out;
    }
out:
    /* Byte fields point into buf, not into the zone: they outlive u. */
    msgpack_unpacked_destroy(&u);
    return rc;
}
