/* The wire protocol's encoders and decoder (wire.h, docs/protocol.md). */
#include "wire.h"
#include "ja_mp.h"

#include "jackarena/ja_error.h"
#include "jackarena/ja_version.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

static const char *const ERROR_CODES[] = {
#define REF__WIRE_ERR_CODE(e, code, doc) code,
    REF_WIRE_ERRORS(REF__WIRE_ERR_CODE)
#undef REF__WIRE_ERR_CODE
};

const char *ref_wire_error_code(ref_wire_err e)
{
    return (unsigned)e < REF_WIRE_ERR_COUNT ? ERROR_CODES[e] : "unknown";
}

/* ---- encoders --------------------------------------------------------------- */

/* Starts a message: a map of "type" and n_more other keys, which the caller
 * writes next (each encoder's key count sits next to its keys). */
static void begin(msgpack_sbuffer *b, msgpack_packer *pk, uint32_t n_more, const char *type)
{
    msgpack_sbuffer_clear(b);
    msgpack_packer_init(pk, b, msgpack_sbuffer_write);
    msgpack_pack_map(pk, 1 + n_more);
    ja_mp_put_kv_str(pk, "type", type);
}

void ref_wire_welcome(msgpack_sbuffer *b, const char *name, uint32_t capacity)
{
    msgpack_packer pk;
    begin(b, &pk, 5, "welcome");
    ja_mp_put_kv_u64(&pk, "protocol", JA_PROTOCOL);
    ja_mp_put_kv_str(&pk, "name", name);
    ja_mp_put_kv_u64(&pk, "capacity", capacity);
    ja_mp_put_kv_str(&pk, "server", "jackarena");
    ja_mp_put_kv_str(&pk, "server_version", ja_version());
}

void ref_wire_error(msgpack_sbuffer *b, ref_wire_err code, const char *message,
                    const char *match, uint32_t turn)
{
    msgpack_packer pk;
    begin(b, &pk, 2 + (match != NULL) + (turn != 0), "error");
    ja_mp_put_kv_str(&pk, "code", ref_wire_error_code(code));
    ja_mp_put_kv_str(&pk, "message", message);
    if (match)
        ja_mp_put_kv_str(&pk, "match", match);
    if (turn)
        ja_mp_put_kv_u64(&pk, "turn", turn);
}

void ref_wire_start(msgpack_sbuffer *b, const ref_wire_start_info *si, unsigned flags)
{
    const ja_game_rules *g = si->game;
    msgpack_packer pk;
    begin(b, &pk, 12 + ((flags & REF_WIRE_PROBE) != 0), "start");
    ja_mp_put_kv_str(&pk, "match", si->match);
    ja_mp_put_kv_str(&pk, "game", g->name);
    ja_mp_put_str(&pk, "options");
    msgpack_pack_map(&pk, si->options->n);
    for (uint32_t i = 0; i < si->options->n; i++) {
        char v[64];
        ja_options_value_str(g, si->options, (int)i, v, sizeof v);
        ja_mp_put_kv_str(&pk, g->options[i].name, v);
    }
    ja_mp_put_kv_u64(&pk, "seat", (uint64_t)si->seat);
    ja_mp_put_kv_u64(&pk, "seats", si->n_seats);
    ja_mp_put_str(&pk, "players");
    msgpack_pack_array(&pk, si->n_seats);
    for (uint32_t s = 0; s < si->n_seats; s++) {
        char def[16];
        snprintf(def, sizeof def, "seat%u", (unsigned)s);
        ja_mp_put_str(&pk, si->players && si->players[s] ? si->players[s] : def);
    }
    ja_mp_put_kv_u64(&pk, "move_ms", si->move_ms);
    ja_mp_put_kv_str(&pk, "params", si->params ? si->params : "");
    ja_mp_put_kv_u64(&pk, "seed", si->seed);
    ja_mp_put_kv_u64(&pk, "rules_version", g->rules_version);
    ja_mp_put_kv_u64(&pk, "obs_version", g->obs_version);
    ja_mp_put_kv_u64(&pk, "score_unit", JA_SCORE_UNIT);
    if (flags & REF_WIRE_PROBE)
        ja_mp_put_kv_str(&pk, "x_probe", "clients ignore keys they do not know");
}

/* One element of a field as a signed 64-bit value (every field type fits). */
static int64_t field_value(uint16_t type, const unsigned char *p)
{
    switch (type) {
    case JA_FT_U8: return *p;
    case JA_FT_I8: { int8_t v; memcpy(&v, p, 1); return v; }
    case JA_FT_U16: { uint16_t v; memcpy(&v, p, 2); return v; }
    case JA_FT_I16: { int16_t v; memcpy(&v, p, 2); return v; }
    case JA_FT_U32: { uint32_t v; memcpy(&v, p, 4); return v; }
    case JA_FT_I32: { int32_t v; memcpy(&v, p, 4); return v; }
    default: { int64_t v; memcpy(&v, p, 8); return v; }
    }
}

static size_t field_width(uint16_t type)
{
    static const size_t w[JA_FT_COUNT] = {1, 1, 2, 2, 4, 4, 8};
    return type < JA_FT_COUNT ? w[type] : 0;
}

static size_t put_be(unsigned char *p, unsigned char tag, uint64_t v, int bytes)
{
    p[0] = tag;
    for (int i = 0; i < bytes; i++)
        p[1 + i] = (unsigned char)(v >> (8 * (bytes - 1 - i)));
    return (size_t)bytes + 1;
}

/* v in msgpack's smallest integer form (what msgpack_pack_int64 writes);
 * at most 9 bytes. Array fields are written through this in chunks: one
 * packer call per chunk instead of one per element, the encoder's hot spot. */
static size_t pack_int(unsigned char *p, int64_t v)
{
    if (v >= 0) {
        uint64_t u = (uint64_t)v;
        if (u < 128) {
            p[0] = (unsigned char)u;
            return 1;
        }
        if (u <= UINT8_MAX)
            return put_be(p, 0xcc, u, 1);
        if (u <= UINT16_MAX)
            return put_be(p, 0xcd, u, 2);
        if (u <= UINT32_MAX)
            return put_be(p, 0xce, u, 4);
        return put_be(p, 0xcf, u, 8);
    }
    if (v >= -32) {
        p[0] = (unsigned char)(0xe0 | (v & 0x1f));
        return 1;
    }
    if (v >= INT8_MIN)
        return put_be(p, 0xd0, (uint64_t)v, 1);
    if (v >= INT16_MIN)
        return put_be(p, 0xd1, (uint64_t)v, 2);
    if (v >= INT32_MIN)
        return put_be(p, 0xd2, (uint64_t)v, 4);
    return put_be(p, 0xd3, (uint64_t)v, 8);
}

void ref_wire_put_obs(msgpack_packer *pk, const ja_game_rules *g, const void *obs)
{
    const unsigned char *base = obs;
    unsigned char chunk[4096];
    msgpack_pack_map(pk, g->n_obs_fields);
    for (uint32_t i = 0; i < g->n_obs_fields; i++) {
        const ja_field *f = &g->obs_fields[i];
        size_t w = field_width(f->type), used = 0;
        ja_mp_put_str(pk, f->name);
        if (f->count != 1)
            msgpack_pack_array(pk, f->count);
        for (uint32_t k = 0; k < f->count; k++) {
            if (used + 9 > sizeof chunk) {
                pk->callback(pk->data, (const char *)chunk, used);
                used = 0;
            }
            used += pack_int(chunk + used, field_value(f->type, base + f->offset + (size_t)k * w));
        }
        if (used)
            pk->callback(pk->data, (const char *)chunk, used);
    }
}

/* The hosted channel's compact act (REF_WIRE_BIN): the observation as the
 * bytes ja_obs_canonical makes of it, the legal codes as little-endian
 * uint32s. No labels: the child's runtime never reads them. */
static void put_act_bin(msgpack_packer *pk, msgpack_sbuffer *b, const ja_game_rules *g,
                        const ja_decision *d)
{
    static const char zeros[1024];
    ja_mp_put_str(pk, "x_obs_bin");
    msgpack_pack_bin(pk, g->obs_size);
    for (size_t left = g->obs_size; left;) {
        size_t n = left < sizeof zeros ? left : sizeof zeros;
        msgpack_sbuffer_write(b, zeros, n);
        left -= n;
    }
    ja_obs_canonical(g, d->obs, b->data + b->size - g->obs_size);
    ja_mp_put_str(pk, "x_legal_bin");
    msgpack_pack_bin(pk, d->n_legal * 4);
    unsigned char chunk[1024];
    size_t used = 0;
    for (uint32_t i = 0; i < d->n_legal; i++) {
        if (used == sizeof chunk) {
            msgpack_sbuffer_write(b, (const char *)chunk, used);
            used = 0;
        }
        uint32_t c = d->legal[i].code;
        for (int k = 0; k < 4; k++)
            chunk[used++] = (unsigned char)(c >> (8 * k));
    }
    msgpack_sbuffer_write(b, (const char *)chunk, used);
}

int ref_wire_act(msgpack_sbuffer *b, const char *match, const ja_game_rules *g,
                 const ja_decision *d, unsigned flags)
{
    if (d->obs_size != g->obs_size || !d->obs)
        return JA_EINVAL;
    msgpack_packer pk;
    begin(b, &pk, 5 + ((flags & REF_WIRE_PROBE) != 0), "act");
    ja_mp_put_kv_str(&pk, "match", match);
    ja_mp_put_kv_u64(&pk, "turn", d->turn);
    ja_mp_put_kv_u64(&pk, "deadline_ms", d->deadline_ms);
    if (flags & REF_WIRE_BIN) {
        put_act_bin(&pk, b, g, d);
        return JA_OK;
    }
    ja_mp_put_str(&pk, "obs");
    ref_wire_put_obs(&pk, g, d->obs);
    ja_mp_put_str(&pk, "legal");
    msgpack_pack_array(&pk, d->n_legal);
    for (uint32_t i = 0; i < d->n_legal; i++) {
        char label[96];
        if (g->label(d->legal[i], label, sizeof label) < 0)
            snprintf(label, sizeof label, "action %u", (unsigned)d->legal[i].code);
        msgpack_pack_map(&pk, 2);
        ja_mp_put_kv_u64(&pk, "code", d->legal[i].code);
        ja_mp_put_kv_str(&pk, "label", label);
    }
    if (flags & REF_WIRE_PROBE) {
        ja_mp_put_str(&pk, "x_probe");
        msgpack_pack_array(&pk, 2);
        msgpack_pack_nil(&pk);
        msgpack_pack_true(&pk);
    }
    return JA_OK;
}

void ref_wire_end(msgpack_sbuffer *b, const ref_wire_end_info *ei)
{
    const ja_outcome *o = ei->outcome;
    msgpack_packer pk;
    begin(b, &pk, 6, "end");
    ja_mp_put_kv_str(&pk, "match", ei->match);
    ja_mp_put_str(&pk, "scores");
    msgpack_pack_array(&pk, o->n_seats);
    for (uint32_t s = 0; s < o->n_seats; s++)
        msgpack_pack_int64(&pk, o->score[s]);
    ja_mp_put_str(&pk, "places");
    msgpack_pack_array(&pk, o->n_seats);
    for (uint32_t s = 0; s < o->n_seats; s++)
        msgpack_pack_uint8(&pk, o->place[s]);
    ja_mp_put_str(&pk, "faults");
    msgpack_pack_array(&pk, o->n_seats);
    for (uint32_t s = 0; s < o->n_seats; s++)
        msgpack_pack_uint32(&pk, ei->faults ? ei->faults[s] : 0);
    ja_mp_put_kv_str(&pk, "replay", ei->replay ? ei->replay : "");
    ja_mp_put_kv_u64(&pk, "score_unit", JA_SCORE_UNIT);
}

void ref_wire_ping(msgpack_sbuffer *b)
{
    msgpack_packer pk;
    begin(b, &pk, 0, "ping");
}

void ref_wire_bye(msgpack_sbuffer *b)
{
    msgpack_packer pk;
    begin(b, &pk, 0, "bye");
}

/* ---- decoder ---------------------------------------------------------------- */

static const char *const TYPE_NAMES[REF_WIRE_OTHER] = {"hello", "action", "pong", "bye"};

/* A string field: absent is fine when optional; present must be a string
 * that fits. Returns false (and says why) otherwise. */
static bool get_str(const msgpack_object *m, const char *key, bool required, char *buf,
                    size_t cap, char *why, size_t wcap)
{
    const msgpack_object *o = ja_mp_get(m, key);
    if (!o) {
        if (required)
            snprintf(why, wcap, "\"%s\" is missing", key);
        return !required;
    }
    if (o->type != MSGPACK_OBJECT_STR) {
        snprintf(why, wcap, "\"%s\" must be a string", key);
        return false;
    }
    if (!ja_mp_as_str(o, buf, cap)) {
        snprintf(why, wcap, "\"%s\" is longer than %zu bytes", key, cap - 1);
        return false;
    }
    if (memchr(buf, '\0', o->via.str.size)) {
        snprintf(why, wcap, "\"%s\" holds a NUL byte", key);
        return false;
    }
    return true;
}

/* An integer field that may be negative on the wire: negatives become
 * UINT64_MAX (never a valid turn or index). */
static bool get_uint(const msgpack_object *m, const char *key, bool required, uint64_t *out,
                     char *why, size_t wcap)
{
    const msgpack_object *o = ja_mp_get(m, key);
    if (!o) {
        if (required)
            snprintf(why, wcap, "\"%s\" is missing", key);
        return !required;
    }
    if (o->type == MSGPACK_OBJECT_POSITIVE_INTEGER) {
        *out = o->via.u64;
        return true;
    }
    if (o->type == MSGPACK_OBJECT_NEGATIVE_INTEGER) {
        *out = UINT64_MAX;
        return true;
    }
    snprintf(why, wcap, "\"%s\" must be an integer", key);
    return false;
}

/* A free-text key into out->error (has_error): a string, cut to fit, made
 * one line for logs and messages. JA_OK or JA_EFORMAT. */
static int get_error(const msgpack_object *m, const char *key, ref_wire_msg *out, char *why,
                     size_t cap)
{
    const msgpack_object *e = ja_mp_get(m, key);
    if (e->type != MSGPACK_OBJECT_STR) {
        snprintf(why, cap, "\"%s\" must be a string", key);
        return JA_EFORMAT;
    }
    size_t n = e->via.str.size < sizeof out->error - 1 ? e->via.str.size : sizeof out->error - 1;
    memcpy(out->error, e->via.str.ptr, n);
    out->error[n] = '\0';
    for (char *c = out->error; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = ' ';
    out->has_error = true;
    return JA_OK;
}

static int decode_hello(const msgpack_object *m, ref_wire_msg *out, char *why, size_t cap)
{
    uint64_t capacity = 1;
    if (!get_uint(m, "protocol", true, &out->protocol, why, cap) ||
        !get_str(m, "name", true, out->name, sizeof out->name, why, cap) ||
        !get_str(m, "version", false, out->version, sizeof out->version, why, cap) ||
        !get_str(m, "token", false, out->token, sizeof out->token, why, cap) ||
        !get_uint(m, "capacity", false, &capacity, why, cap))
        return JA_EFORMAT;
    if (!out->name[0]) {
        snprintf(why, cap, "\"name\" is empty");
        return JA_EFORMAT;
    }
    if (capacity == 0 || capacity == UINT64_MAX) {
        snprintf(why, cap, "\"capacity\" must be at least 1");
        return JA_EFORMAT;
    }
    out->capacity = capacity > REF_WIRE_MAX_CAPACITY ? REF_WIRE_MAX_CAPACITY : (uint32_t)capacity;
    const msgpack_object *games = ja_mp_get(m, "games"), *items;
    uint32_t n;
    if (games) {
        if (!ja_mp_as_array(games, &items, &n) || n > REF_WIRE_MAX_GAMES) {
            snprintf(why, cap, "\"games\" must be an array of at most %d strings",
                     REF_WIRE_MAX_GAMES);
            return JA_EFORMAT;
        }
        for (uint32_t i = 0; i < n; i++)
            if (!ja_mp_as_str(&items[i], out->games[i], sizeof out->games[i])) {
                snprintf(why, cap, "\"games\" must be an array of game names");
                return JA_EFORMAT;
            }
        out->n_games = n;
    }
    /* The compact act (wire.h, REF_WIRE_BIN), asked for. */
    const msgpack_object *bin = ja_mp_get(m, "x_bin");
    if (bin && bin->type != MSGPACK_OBJECT_BOOLEAN) {
        snprintf(why, cap, "\"x_bin\" must be true or false");
        return JA_EFORMAT;
    }
    out->bin = bin && bin->via.boolean;
    /* A hosted child whose bot refused its parameters (docs/security.md). */
    if (ja_mp_get(m, "x_params_error"))
        return get_error(m, "x_params_error", out, why, cap);
    return JA_OK;
}

/* An action's "log" (optional): a string, of which the first JA_DECLOG_MAX
 * bytes are kept (a longer one is cut, not refused). JA_OK or JA_EFORMAT. */
static int get_log(const msgpack_object *m, ref_wire_msg *out, char *why, size_t cap)
{
    const msgpack_object *l = ja_mp_get(m, "log");
    if (!l)
        return JA_OK;
    if (l->type != MSGPACK_OBJECT_STR) {
        snprintf(why, cap, "\"log\" must be a string");
        return JA_EFORMAT;
    }
    size_t n = l->via.str.size < sizeof out->log ? l->via.str.size : sizeof out->log;
    memcpy(out->log, l->via.str.ptr, n);
    out->log_len = (uint32_t)n;
    out->log_cut = l->via.str.size > n;
    return JA_OK;
}

static int decode_action(const msgpack_object *m, ref_wire_msg *out, char *why, size_t cap)
{
    if (!get_str(m, "match", true, out->match, sizeof out->match, why, cap))
        return JA_EFORMAT;
    out->has_match = true;
    if (!get_uint(m, "turn", true, &out->turn, why, cap))
        return JA_EFORMAT;
    if (get_log(m, out, why, cap) != JA_OK)
        return JA_EFORMAT;
    /* "error" in place of "index": the bot could not choose (protocol.md),
     * with "code" when its SDK knows what act() returned. */
    if (ja_mp_get(m, "error")) {
        int64_t code;
        if (ja_mp_get_i64(m, "code", &code) && code >= INT32_MIN && code <= INT32_MAX)
            out->code = (int32_t)code;
        return get_error(m, "error", out, why, cap);
    }
    if (!get_uint(m, "index", true, &out->index, why, cap))
        return JA_EFORMAT;
    return JA_OK;
}

int ref_wire_decode(const void *buf, size_t len, ref_wire_msg *out, char *why, size_t cap)
{
    memset(out, 0, offsetof(ref_wire_msg, log)); /* the log's bytes: as far as log_len says */
    out->type = REF_WIRE_OTHER;
    out->capacity = 1;
    size_t end = 0;
    int scan = ja_mp_scan(buf, len, 0, &end);
    if (scan <= 0) {
        snprintf(why, cap, scan == 0 ? "not a msgpack message (truncated)"
                                     : "not a msgpack message");
        return JA_EFORMAT;
    }
    if (end != len) {
        snprintf(why, cap, "%zu bytes after the msgpack map (one map per frame)", len - end);
        return JA_EFORMAT;
    }
    const unsigned char *p = buf;
    if (!((p[0] >= 0x80 && p[0] <= 0x8f) || p[0] == 0xde || p[0] == 0xdf)) {
        snprintf(why, cap, "the message is not a msgpack map");
        return JA_EFORMAT;
    }
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    size_t off = 0;
    int rc = JA_OK;
    msgpack_unpack_return ur = msgpack_unpack_next(&u, buf, len, &off);
    if (ur != MSGPACK_UNPACK_SUCCESS || u.data.type != MSGPACK_OBJECT_MAP) {
        snprintf(why, cap, ur == MSGPACK_UNPACK_NOMEM_ERROR ? "out of memory decoding"
                                                           : "not a msgpack map");
        rc = JA_EFORMAT;
        goto done;
    }
    const msgpack_object *m = &u.data;
    const msgpack_object *t = ja_mp_get(m, "type");
    if (!t || t->type != MSGPACK_OBJECT_STR || t->via.str.size == 0) {
        snprintf(why, cap, "no string \"type\"");
        rc = JA_EFORMAT;
        goto done;
    }
    size_t tn = t->via.str.size < sizeof out->type_name - 1 ? t->via.str.size
                                                            : sizeof out->type_name - 1;
    memcpy(out->type_name, t->via.str.ptr, tn);
    out->type_name[tn] = '\0';
    for (int k = 0; k < REF_WIRE_OTHER; k++)
        if (t->via.str.size == strlen(TYPE_NAMES[k]) &&
            memcmp(t->via.str.ptr, TYPE_NAMES[k], t->via.str.size) == 0)
            out->type = (ref_wire_type)k;
    if (out->type == REF_WIRE_HELLO)
        rc = decode_hello(m, out, why, cap);
    else if (out->type == REF_WIRE_ACTION)
        rc = decode_action(m, out, why, cap);
done:
    msgpack_unpacked_destroy(&u);
    return rc;
}
