/* Replay files and match digests (replay.h, docs/replay-format.md). */
#include "replay.h"
#include "ja_mp.h"
#include "outfile.h"

#include "jackarena/ja_error.h"
#include "jackarena/ja_version.h"
#include "ja_xalloc.h"

#include <errno.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define REPLAY_MAGIC "jackarena-replay"

/* ---- digest ----------------------------------------------------------------- */

void ref_digest_flush(ref_digest *d)
{
    sha256_update(&d->st, d->len, d->buf);
    d->len = 0;
}

/* Appends n bytes to the batch (n <= REF_DIGEST_BATCH). */
static void put(ref_digest *d, const void *p, size_t n)
{
    if (d->len + n > sizeof d->buf)
        ref_digest_flush(d);
    memcpy(d->buf + d->len, p, n);
    d->len += (uint32_t)n;
}

/* v little-endian at b. */
static void le32(unsigned char *b, uint32_t v)
{
    b[0] = (unsigned char)v;
    b[1] = (unsigned char)(v >> 8);
    b[2] = (unsigned char)(v >> 16);
    b[3] = (unsigned char)(v >> 24);
}

static void put_u32(ref_digest *d, uint32_t v)
{
    unsigned char b[4];
    le32(b, v);
    put(d, b, 4);
}

static void put_u64(ref_digest *d, uint64_t v)
{
    put_u32(d, (uint32_t)v);
    put_u32(d, (uint32_t)(v >> 32));
}

static void put_text(ref_digest *d, const char *s)
{
    size_t n = strlen(s) + 1;
    if (n > sizeof d->buf) { /* longer than a batch: hashed as it is */
        ref_digest_flush(d);
        sha256_update(&d->st, n, (const uint8_t *)s);
        return;
    }
    put(d, s, n);
}

/* Little-endian integers and NUL-terminated text, in a fixed order: see
 * docs/replay-format.md, "Digest". */
/* The options' text of the thread's last digest, kept for the next match
 * of the same game with the same options (a tournament's every match). */
static _Thread_local struct {
    const ja_game_rules *g;
    ja_options o;
    char text[1024];
} last_opts;

void ref_digest_begin(ref_digest *d, const ja_game_rules *g, const ja_options *o, uint64_t seed,
                      uint32_t n_seats)
{
    char *opts = last_opts.text;
    if (last_opts.g != g || memcmp(&last_opts.o, o, sizeof *o) != 0) {
        last_opts.g = NULL;
        if (ja_options_format(g, o, opts, sizeof last_opts.text) < 0)
            opts[0] = '\0';
        last_opts.g = g;
        last_opts.o = *o;
    }
    sha256_init(&d->st);
    d->len = 0;
    put_text(d, "jackarena-digest-v1");
    put_text(d, g->name);
    put_u32(d, g->rules_version);
    put_text(d, opts);
    put_u64(d, seed);
    put_u32(d, n_seats);
}

void ref_digest_end(ref_digest *d, const ja_outcome *o, uint8_t out[REF_DIGEST_BYTES])
{
    put_u32(d, 0xFFFFFFFFu); /* no decision has every seat bit set: end marker */
    for (uint32_t s = 0; s < o->n_seats; s++) {
        put_u64(d, (uint64_t)o->score[s]);
        put_u32(d, o->place[s]);
    }
    ref_digest_flush(d);
    sha256_digest(&d->st, REF_DIGEST_BYTES, out);
}

void ref_digest_hex(const uint8_t bin[REF_DIGEST_BYTES], char hex[REF_DIGEST_HEX])
{
    sodium_bin2hex(hex, REF_DIGEST_HEX, bin, REF_DIGEST_BYTES);
}

/* ---- writer ----------------------------------------------------------------- */

struct ref_replay_writer {
    ref_out *out;
    FILE *f;
    msgpack_packer pk;
};

int ref_replay_writer_open(const char *path, ref_replay_writer **out, char *err, size_t cap)
{
    *out = NULL;
    ref_replay_writer *w = ja_xcalloc(1, sizeof *w);
    int rc = ref_out_open("cannot write replay", path, REF_OUT_SYNC, &w->out, err, cap);
    if (rc != JA_OK) {
        free(w);
        return rc == JA_EINVAL ? JA_EIO : rc;
    }
    w->f = ref_out_file(w->out);
    msgpack_packer_init(&w->pk, w->f, msgpack_fbuffer_write);
    *out = w;
    return JA_OK;
}

int ref_replay_write_header(ref_replay_writer *w, const ja_game_rules *g,
                            const ref_replay_header *h)
{
    msgpack_packer *pk = &w->pk;
    char seed[24], when[32];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)h->seed);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);

    msgpack_pack_map(pk, 15);
    ja_mp_put_kv_str(pk, "format", REPLAY_MAGIC);
    ja_mp_put_kv_u64(pk, "version", JA_REPLAY_FORMAT);
    ja_mp_put_kv_str(pk, "arena", ja_version());
    ja_mp_put_kv_str(pk, "game", g->name);
    ja_mp_put_kv_u64(pk, "rules_version", g->rules_version);
    ja_mp_put_kv_u64(pk, "obs_version", g->obs_version);
    ja_mp_put_str(pk, "options");
    msgpack_pack_map(pk, h->options.n);
    for (uint32_t i = 0; i < h->options.n; i++) {
        char v[64];
        ja_options_value_str(g, &h->options, (int)i, v, sizeof v);
        ja_mp_put_kv_str(pk, g->options[i].name, v);
    }
    ja_mp_put_kv_str(pk, "seed", seed);
    ja_mp_put_kv_u64(pk, "seats", h->n_seats);
    ja_mp_put_str(pk, "players");
    msgpack_pack_array(pk, h->n_seats);
    for (uint32_t s = 0; s < h->n_seats; s++) {
        const ref_replay_player *p = &h->players[s];
        msgpack_pack_map(pk, 5);
        ja_mp_put_kv_str(pk, "name", p->name);
        ja_mp_put_kv_str(pk, "kind", p->kind);
        ja_mp_put_kv_str(pk, "version", p->version);
        ja_mp_put_kv_str(pk, "sha256", p->sha256);
        ja_mp_put_kv_str(pk, "bot", p->bot);
    }
    ja_mp_put_kv_str(pk, "match", h->match_id);
    ja_mp_put_kv_u64(pk, "move_ms", h->move_ms);
    ja_mp_put_kv_u64(pk, "bank_ms", h->bank_ms);
    ja_mp_put_kv_str(pk, "on_fault", h->on_fault[0] ? h->on_fault : "default");
    ja_mp_put_kv_str(pk, "created", when);
    return ferror(w->f) ? JA_EIO : JA_OK;
}

const char *ref_error_name(int32_t rc, char buf[REF_ERROR_NAME_MAX])
{
    if (rc != JA_OK && strcmp(ja_err_name(rc), "UNKNOWN") != 0)
        snprintf(buf, REF_ERROR_NAME_MAX, "JA_%s", ja_err_name(rc));
    else
        snprintf(buf, REF_ERROR_NAME_MAX, "code %d", (int)rc);
    return buf;
}

int ref_replay_write_step(ref_replay_writer *w, uint32_t step, const ref_replay_rec *recs,
                          uint32_t n)
{
    msgpack_packer *pk = &w->pk;
    msgpack_pack_map(pk, 3);
    ja_mp_put_kv_str(pk, "t", "d");
    ja_mp_put_kv_u64(pk, "n", step);
    ja_mp_put_str(pk, "asked");
    msgpack_pack_array(pk, n);
    for (uint32_t i = 0; i < n; i++) {
        const ref_replay_rec *r = &recs[i];
        /* `a` only where a reader could not tell otherwise: a fault of a
         * decision the bot was asked (docs/replay-format.md). */
        bool mark = r->asked && r->fault != JA_FAULT_NONE;
        bool code = r->fault == JA_FAULT_ERROR && r->error != 0;
        msgpack_pack_map(pk, 6 + mark + code);
        ja_mp_put_kv_u64(pk, "s", r->seat);
        ja_mp_put_kv_u64(pk, "c", r->code);
        ja_mp_put_kv_i64(pk, "i", r->forced || r->fault != JA_FAULT_NONE ? -1 : r->index);
        ja_mp_put_kv_u64(pk, "n", r->n_legal);
        ja_mp_put_kv_str(pk, "f", ja_fault_name(r->fault));
        ja_mp_put_kv_u64(pk, "us", r->think_us);
        if (mark)
            ja_mp_put_kv_u64(pk, "a", 1);
        if (code)
            ja_mp_put_kv_i64(pk, "e", r->error);
    }
    return ferror(w->f) ? JA_EIO : JA_OK;
}

int ref_replay_write_log(ref_replay_writer *w, uint32_t step, uint32_t seat, const char *text,
                         size_t len)
{
    msgpack_packer *pk = &w->pk;
    msgpack_pack_map(pk, 4);
    ja_mp_put_kv_str(pk, "t", "log");
    ja_mp_put_kv_u64(pk, "n", step);
    ja_mp_put_kv_u64(pk, "s", seat);
    ja_mp_put_str(pk, "text");
    msgpack_pack_str(pk, (uint32_t)len);
    msgpack_pack_str_body(pk, text, len);
    return ferror(w->f) ? JA_EIO : JA_OK;
}

int ref_replay_writer_finish(ref_replay_writer **wp, const ja_outcome *o,
                             const uint32_t faults[JA_MAX_SEATS], uint32_t decisions,
                             const uint8_t digest[REF_DIGEST_BYTES], char *err, size_t cap)
{
    ref_replay_writer *w = *wp;
    msgpack_packer *pk = &w->pk;
    char hex[REF_DIGEST_HEX];
    ref_digest_hex(digest, hex);
    msgpack_pack_map(pk, 6);
    ja_mp_put_kv_str(pk, "t", "end");
    ja_mp_put_str(pk, "scores");
    msgpack_pack_array(pk, o->n_seats);
    for (uint32_t s = 0; s < o->n_seats; s++)
        msgpack_pack_int64(pk, o->score[s]);
    ja_mp_put_str(pk, "places");
    msgpack_pack_array(pk, o->n_seats);
    for (uint32_t s = 0; s < o->n_seats; s++)
        msgpack_pack_uint8(pk, o->place[s]);
    ja_mp_put_str(pk, "faults");
    msgpack_pack_array(pk, o->n_seats);
    for (uint32_t s = 0; s < o->n_seats; s++)
        msgpack_pack_uint32(pk, faults[s]);
    ja_mp_put_kv_u64(pk, "decisions", decisions);
    ja_mp_put_kv_str(pk, "digest", hex);
    int rc = ref_out_commit(&w->out, err, cap);
    free(w);
    *wp = NULL;
    return rc;
}

void ref_replay_writer_abort(ref_replay_writer **wp)
{
    if (!wp || !*wp)
        return;
    ref_replay_writer *w = *wp;
    ref_out_abort(&w->out);
    free(w);
    *wp = NULL;
}

/* ---- reader ----------------------------------------------------------------- */

static int fault_from_name(const char *s)
{
    for (int f = 0; f < JA_FAULT_COUNT; f++)
        if (strcmp(ja_fault_name(f), s) == 0)
            return f;
    return -1;
}

/* The header's format and its version. JA_OK, JA_EFORMAT (not a replay) or
 * JA_EVERSION. */
static int header_format(const msgpack_object *m, char *err, size_t cap)
{
    char fmt[32];
    uint64_t ver;
    if (!ja_mp_get_str(m, "format", fmt, sizeof fmt) || strcmp(fmt, REPLAY_MAGIC) != 0) {
        snprintf(err, cap, "not a Jack Arena replay (no \"format\": \"%s\" header)", REPLAY_MAGIC);
        return JA_EFORMAT;
    }
    if (!ja_mp_get_u64(m, "version", &ver)) {
        snprintf(err, cap, "replay header has no format version");
        return JA_EFORMAT;
    }
    if (ver != JA_REPLAY_FORMAT) {
        snprintf(err, cap, "replay format version %llu is not supported (this build reads %d)",
                 (unsigned long long)ver, JA_REPLAY_FORMAT);
        return JA_EVERSION;
    }
    return JA_OK;
}

/* The header's fields into h: the game's name, the rules version, the
 * seed, and the optional ones (older replays lack some); the seat count
 * into *seats, for header_game to check against the game. JA_OK or
 * JA_EFORMAT. */
static int header_fields(const msgpack_object *m, ref_replay_header *h, uint64_t *seats,
                         char *err, size_t cap)
{
    char seed[32];
    uint64_t u;
    if (!ja_mp_get_str(m, "game", h->game, sizeof h->game) ||
        !ja_mp_get_u64(m, "rules_version", &u) || !ja_mp_get_str(m, "seed", seed, sizeof seed) ||
        !ja_mp_get_u64(m, "seats", seats)) {
        snprintf(err, cap, "replay header lacks game, rules_version, seed or seats");
        return JA_EFORMAT;
    }
    h->rules_version = (uint32_t)u;
    if (ja_mp_get_u64(m, "obs_version", &u))
        h->obs_version = (uint32_t)u;
    if (ja_mp_get_u64(m, "move_ms", &u))
        h->move_ms = (uint32_t)u;
    /* Time bank and fault policy came later: older replays have neither. */
    if (ja_mp_get_u64(m, "bank_ms", &u))
        h->bank_ms = (uint32_t)u;
    if (!ja_mp_get_str(m, "on_fault", h->on_fault, sizeof h->on_fault))
        snprintf(h->on_fault, sizeof h->on_fault, "default");
    ja_mp_get_str(m, "match", h->match_id, sizeof h->match_id);
    char *end = NULL;
    errno = 0;
    h->seed = strtoull(seed, &end, 10);
    if (!seed[0] || *end || errno || seed[0] == '-') {
        snprintf(err, cap, "replay header has a bad seed '%s'", seed);
        return JA_EFORMAT;
    }
    return JA_OK;
}

/* The game of the replay (r->game), which this build must implement under
 * the same rules version, and its number of seats. JA_OK, or
 * JA_EUNSUPPORTED, JA_EFORMAT or JA_EVERSION with err. */
static int header_game(ref_replay *r, uint64_t seats, char *err, size_t cap)
{
    ref_replay_header *h = &r->h;
    r->game = ja_game_find(h->game);
    if (!r->game) {
        snprintf(err, cap, "replay of unknown game '%s'", h->game);
        return JA_EUNSUPPORTED;
    }
    if (seats < r->game->min_seats || seats > r->game->max_seats) {
        snprintf(err, cap, "replay has %llu seats; %s takes %u to %u", (unsigned long long)seats,
                 h->game, (unsigned)r->game->min_seats, (unsigned)r->game->max_seats);
        return JA_EFORMAT;
    }
    h->n_seats = (uint32_t)seats;
    if (h->rules_version != r->game->rules_version) {
        snprintf(err, cap,
                 "replay made under %s rules version %u; this build implements version %u",
                 h->game, (unsigned)h->rules_version, (unsigned)r->game->rules_version);
        return JA_EVERSION;
    }
    return JA_OK;
}

/* The match's options: every key the game knows must be there, as text,
 * and the whole must resolve for the replay's seats. JA_OK or JA_EFORMAT. */
static int header_options(const msgpack_object *m, ref_replay *r, char *err, size_t cap)
{
    ref_replay_header *h = &r->h;
    const msgpack_object *om = ja_mp_get(m, "options");
    if (!om || om->type != MSGPACK_OBJECT_MAP) {
        snprintf(err, cap, "replay header has no options map");
        return JA_EFORMAT;
    }
    ja_options_init(r->game, &h->options);
    for (uint32_t i = 0; i < om->via.map.size; i++) {
        char key[64], v[64], kv[200];
        if (!ja_mp_as_str(&om->via.map.ptr[i].key, key, sizeof key) ||
            !ja_mp_as_str(&om->via.map.ptr[i].val, v, sizeof v)) {
            snprintf(err, cap, "replay header has a malformed option");
            return JA_EFORMAT;
        }
        snprintf(kv, sizeof kv, "%s=%s", key, v);
        char why[256];
        if (ja_options_set(r->game, &h->options, kv, why, sizeof why) != JA_OK) {
            snprintf(err, cap, "replay header: %s", why);
            return JA_EFORMAT;
        }
    }
    char why[256];
    if (ja_options_resolve(r->game, &h->options, h->n_seats, why, sizeof why) != JA_OK) {
        snprintf(err, cap, "replay header: %s", why);
        return JA_EFORMAT;
    }
    return JA_OK;
}

/* The players, as far as the header names them (each field optional). */
static void header_players(const msgpack_object *m, ref_replay_header *h)
{
    const msgpack_object *players;
    uint32_t np = 0;
    if (!ja_mp_as_array(ja_mp_get(m, "players"), &players, &np))
        return;
    for (uint32_t s = 0; s < np && s < h->n_seats; s++) {
        ref_replay_player *p = &h->players[s];
        ja_mp_get_str(&players[s], "name", p->name, sizeof p->name);
        ja_mp_get_str(&players[s], "kind", p->kind, sizeof p->kind);
        ja_mp_get_str(&players[s], "version", p->version, sizeof p->version);
        ja_mp_get_str(&players[s], "sha256", p->sha256, sizeof p->sha256);
        ja_mp_get_str(&players[s], "bot", p->bot, sizeof p->bot);
    }
}

/* The header (docs/replay-format.md) into r->h, its game into r->game.
 * JA_OK, or the error of the first thing wrong with err. */
static int parse_header(const msgpack_object *m, ref_replay *r, char *err, size_t cap)
{
    uint64_t seats = 0;
    int rc = header_format(m, err, cap);
    if (rc == JA_OK)
        rc = header_fields(m, &r->h, &seats, err, cap);
    if (rc == JA_OK)
        rc = header_game(r, seats, err, cap);
    if (rc == JA_OK)
        rc = header_options(m, r, err, cap);
    if (rc == JA_OK)
        header_players(m, &r->h);
    return rc;
}

static void grow(void **p, uint32_t *capn, uint32_t need, size_t size)
{
    if (need <= *capn)
        return;
    uint32_t n = *capn ? *capn * 2 : 256;
    while (n < need)
        n *= 2;
    *p = ja_xrealloc(*p, (size_t)n * size);
    *capn = n;
}

static int parse_step(const msgpack_object *m, ref_replay *r, uint32_t *cap_steps,
                      uint32_t *cap_recs, char *why, size_t cap)
{
    const msgpack_object *asked;
    uint32_t n;
    if (!ja_mp_as_array(ja_mp_get(m, "asked"), &asked, &n) || n == 0 || n > r->h.n_seats) {
        snprintf(why, cap, "decision record without a valid \"asked\" list");
        return JA_EFORMAT;
    }
    grow((void **)&r->steps, cap_steps, r->n_steps + 1, sizeof *r->steps);
    grow((void **)&r->recs, cap_recs, r->n_recs + n, sizeof *r->recs);
    ref_replay_step *st = &r->steps[r->n_steps];
    st->seats = 0;
    st->first = r->n_recs;
    st->n = n;
    int last = -1;
    for (uint32_t i = 0; i < n; i++) {
        ref_replay_rec *rec = &r->recs[r->n_recs + i];
        uint64_t seat, code, nl = 0, us = 0;
        int64_t index;
        char fault[32];
        if (!ja_mp_get_u64(&asked[i], "s", &seat) || !ja_mp_get_u64(&asked[i], "c", &code) ||
            !ja_mp_get_i64(&asked[i], "i", &index) || !ja_mp_get_str(&asked[i], "f", fault, sizeof fault)) {
            snprintf(why, cap, "decision record entry lacks s, c, i or f");
            return JA_EFORMAT;
        }
        ja_mp_get_u64(&asked[i], "n", &nl);
        ja_mp_get_u64(&asked[i], "us", &us);
        uint64_t a = 0;
        bool has_a = ja_mp_get_u64(&asked[i], "a", &a);
        int64_t e = 0;
        ja_mp_get_i64(&asked[i], "e", &e);
        int f = fault_from_name(fault);
        if (seat >= r->h.n_seats || (int)seat <= last || code > UINT32_MAX || f < 0 ||
            index < -1 || index > INT32_MAX || e < INT32_MIN || e > INT32_MAX) {
            snprintf(why, cap, "decision record entry out of range (seat %llu, fault '%s')",
                     (unsigned long long)seat, fault);
            return JA_EFORMAT;
        }
        last = (int)seat;
        bool forced = index < 0 && f == JA_FAULT_NONE;
        /* Asked: said by `a` on a fault; a replay written before `a` (and
         * an entry without it) asked every decision but the forced ones,
         * forfeits and fallen flags (a timeout with no answer, i = -1,
         * where an asked timeout had i = 0). */
        bool was_asked = has_a ? a != 0
                               : !forced && f != JA_FAULT_FORFEIT &&
                                     !(f == JA_FAULT_TIMEOUT && index < 0);
        *rec = (ref_replay_rec){(uint8_t)seat, (uint8_t)f, forced, (uint32_t)code,
                                (int32_t)index, (uint32_t)nl, us, was_asked,
                                f == JA_FAULT_ERROR ? (int32_t)e : 0};
        st->seats |= 1u << seat;
    }
    r->n_recs += n;
    r->n_steps++;
    return JA_OK;
}

/* A log record (docs/replay-format.md, "Bot logs"): it follows the
 * decision it belongs to, names a seat of it, one per seat in ascending
 * order; its text is cleaned and bounded as the writer's was (a longer one
 * is cut, not refused). JA_OK or JA_EFORMAT. */
static int parse_log(const msgpack_object *m, ref_replay *r, uint32_t *cap_logs, char *why,
                     size_t cap)
{
    uint64_t n, seat;
    const msgpack_object *t = ja_mp_get(m, "text");
    if (!ja_mp_get_u64(m, "n", &n) || !ja_mp_get_u64(m, "s", &seat) || !t ||
        t->type != MSGPACK_OBJECT_STR) {
        snprintf(why, cap, "log record lacks n, s or text");
        return JA_EFORMAT;
    }
    const ref_replay_log *prev = r->n_logs ? &r->logs[r->n_logs - 1] : NULL;
    if (!r->n_steps || n != r->n_steps - 1 || seat >= JA_MAX_SEATS ||
        !(r->steps[n].seats >> seat & 1) || (prev && prev->step == n && prev->seat >= seat)) {
        snprintf(why, cap, "log record of decision %llu, seat %llu, is not after that "
                           "decision or names a seat it did not ask",
                 (unsigned long long)n, (unsigned long long)seat);
        return JA_EFORMAT;
    }
    ja_declog l;
    ja_declog_clear(&l);
    ja_declog_add(&l, t->via.str.ptr, t->via.str.size);
    grow((void **)&r->logs, cap_logs, r->n_logs + 1, sizeof *r->logs);
    size_t at = r->log_text_len;
    r->log_text = ja_xrealloc(r->log_text, at + l.len + 1);
    memcpy(r->log_text + at, l.text, (size_t)l.len + 1);
    r->log_text_len += (size_t)l.len + 1;
    r->logs[r->n_logs++] = (ref_replay_log){(uint32_t)n, (uint32_t)seat, at, l.len};
    return JA_OK;
}

const char *ref_replay_log_of(const ref_replay *r, uint32_t step, uint32_t seat, size_t *len)
{
    uint64_t key = (uint64_t)step << 32 | seat;
    uint32_t lo = 0, hi = r->n_logs;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        uint64_t k = (uint64_t)r->logs[mid].step << 32 | r->logs[mid].seat;
        if (k == key) {
            if (len)
                *len = r->logs[mid].len;
            return r->log_text + r->logs[mid].off;
        }
        if (k < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (len)
        *len = 0;
    return NULL;
}

static int parse_end(const msgpack_object *m, ref_replay *r, char *why, size_t cap)
{
    const msgpack_object *sc, *pl, *fa;
    uint32_t ns, np, nf = 0;
    char hex[REF_DIGEST_HEX + 1];
    if (!ja_mp_as_array(ja_mp_get(m, "scores"), &sc, &ns) || !ja_mp_as_array(ja_mp_get(m, "places"), &pl, &np) ||
        ns != r->h.n_seats || np != r->h.n_seats || !ja_mp_get_str(m, "digest", hex, sizeof hex) ||
        strlen(hex) != 64) {
        snprintf(why, cap, "end record lacks scores, places or digest");
        return JA_EFORMAT;
    }
    r->outcome.n_seats = ns;
    for (uint32_t s = 0; s < ns; s++) {
        uint64_t p;
        if (!ja_mp_as_i64(&sc[s], &r->outcome.score[s]) || !ja_mp_as_u64(&pl[s], &p) || p > 255) {
            snprintf(why, cap, "end record has a malformed score or place");
            return JA_EFORMAT;
        }
        r->outcome.place[s] = (uint8_t)p;
    }
    if (ja_mp_as_array(ja_mp_get(m, "faults"), &fa, &nf))
        for (uint32_t s = 0; s < nf && s < JA_MAX_SEATS; s++) {
            uint64_t v = 0;
            ja_mp_as_u64(&fa[s], &v);
            r->faults[s] = (uint32_t)v;
        }
    size_t bin_len = 0;
    if (sodium_hex2bin(r->digest, sizeof r->digest, hex, 64, NULL, &bin_len, NULL) != 0 ||
        bin_len != REF_DIGEST_BYTES) {
        snprintf(why, cap, "end record has a malformed digest");
        return JA_EFORMAT;
    }
    r->has_end = 1;
    return JA_OK;
}

/* The bytes of the replay file at path into *buf (the caller frees it) and
 * *len. JA_OK, JA_ENOTFOUND or JA_EIO with err. */
static int read_replay(const char *path, char **buf_out, size_t *len_out, char *err, size_t cap)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, cap, "cannot open replay '%s': %s", path, strerror(errno));
        return JA_ENOTFOUND;
    }
    char *buf = NULL;
    size_t len = 0, bcap = 0, n;
    char chunk[65536];
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (len + n > bcap) {
            bcap = (len + n) * 2;
            buf = ja_xrealloc(buf, bcap);
        }
        memcpy(buf + len, chunk, n);
        len += n;
    }
    int rerr = ferror(f);
    fclose(f);
    if (rerr) {
        free(buf);
        snprintf(err, cap, "cannot read replay '%s'", path);
        return JA_EIO;
    }
    *buf_out = buf;
    *len_out = len;
    return JA_OK;
}

int ref_replay_load(const char *path, ref_replay **out, char *err, size_t cap)
{
    *out = NULL;
    char *buf = NULL;
    size_t len = 0;
    int rc = read_replay(path, &buf, &len, err, cap);
    if (rc != JA_OK)
        return rc;
    rc = ref_replay_parse(buf, len, path, out, err, cap);
    free(buf);
    return rc;
}

/* The record type ("t") of the one msgpack map of the n bytes at p, or ""
 * (the header's). False when they are no msgpack object. */
static bool record_type(const char *p, size_t n, char t[8])
{
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    size_t off = 0;
    bool ok = msgpack_unpack_next(&u, p, n, &off) == MSGPACK_UNPACK_SUCCESS;
    if (ok && !ja_mp_get_str(&u.data, "t", t, 8))
        t[0] = '\0';
    msgpack_unpacked_destroy(&u);
    return ok;
}

int ref_replay_strip_logs(const char *src, const char *dst, char *err, size_t cap)
{
    char *buf = NULL;
    size_t len = 0;
    int rc = read_replay(src, &buf, &len, err, cap);
    if (rc != JA_OK)
        return rc;
    ref_out *out = NULL;
    rc = ref_out_open("cannot write replay", dst, 0, &out, err, cap);
    for (size_t off = 0, end; rc == JA_OK && off < len; off = end) {
        char t[8];
        if (ja_mp_scan(buf, len, off, &end) <= 0 || !record_type(buf + off, end - off, t)) {
            snprintf(err, cap, "replay '%s' is corrupt at byte %zu", src, off);
            rc = JA_EFORMAT;
        } else if (strcmp(t, "log") != 0 &&
                   fwrite(buf + off, 1, end - off, ref_out_file(out)) != end - off) {
            snprintf(err, cap, "cannot write '%s': %s", dst, strerror(errno));
            rc = JA_EIO;
        }
    }
    free(buf);
    if (rc == JA_OK)
        return ref_out_commit(&out, err, cap);
    ref_out_abort(&out);
    return rc;
}

int ref_replay_parse(const char *buf, size_t len, const char *path, ref_replay **out, char *err,
                     size_t cap)
{
    *out = NULL;
    ref_replay *r = ja_xcalloc(1, sizeof *r);
    uint32_t cap_steps = 0, cap_recs = 0, cap_logs = 0;
    msgpack_unpacked u;
    msgpack_unpacked_init(&u);
    size_t off = 0;
    int rc = JA_OK, record = 0;
    char why[512] = "";
    while (rc == JA_OK && off < len) {
        size_t at = off, obj_end;
        int scan = ja_mp_scan(buf, len, off, &obj_end);
        msgpack_unpack_return ur = scan < 0    ? MSGPACK_UNPACK_PARSE_ERROR
                                   : scan == 0 ? MSGPACK_UNPACK_CONTINUE
                                               : msgpack_unpack_next(&u, buf, obj_end, &off);
        if (ur == MSGPACK_UNPACK_CONTINUE) {
            snprintf(err, cap, "replay '%s' is truncated at byte %zu (record %d)", path, at, record);
            rc = JA_EFORMAT;
            break;
        }
        if (ur != MSGPACK_UNPACK_SUCCESS && ur != MSGPACK_UNPACK_EXTRA_BYTES) {
            snprintf(err, cap, "replay '%s' is corrupt at byte %zu (record %d)", path, at, record);
            rc = ur == MSGPACK_UNPACK_NOMEM_ERROR ? JA_ENOMEM : JA_EFORMAT;
            break;
        }
        const msgpack_object *m = &u.data;
        char t[8] = "";
        if (record == 0) {
            rc = parse_header(m, r, why, sizeof why);
        } else if (r->has_end) {
            snprintf(why, sizeof why, "data after the end record");
            rc = JA_EFORMAT;
        } else if (!ja_mp_get_str(m, "t", t, sizeof t)) {
            snprintf(why, sizeof why, "record without a type \"t\"");
            rc = JA_EFORMAT;
        } else if (strcmp(t, "d") == 0) {
            rc = parse_step(m, r, &cap_steps, &cap_recs, why, sizeof why);
        } else if (strcmp(t, "log") == 0) {
            rc = parse_log(m, r, &cap_logs, why, sizeof why);
        } else if (strcmp(t, "end") == 0) {
            rc = parse_end(m, r, why, sizeof why);
        } /* unknown record types are skipped: that is how the format grows */
        if (rc != JA_OK && why[0])
            snprintf(err, cap, "replay '%s': %s (record %d at byte %zu)", path, why, record, at);
        record++;
    }
    msgpack_unpacked_destroy(&u);
    if (rc == JA_OK && record == 0) {
        snprintf(err, cap, "replay '%s' is empty", path);
        rc = JA_EFORMAT;
    }
    if (rc == JA_OK && !r->has_end) {
        snprintf(err, cap, "replay '%s' is truncated at byte %zu: no end record", path, len);
        rc = JA_EFORMAT;
    }
    if (rc != JA_OK) {
        ref_replay_free(&r);
        return rc;
    }
    *out = r;
    return JA_OK;
}

void ref_replay_free(ref_replay **r)
{
    if (!r || !*r)
        return;
    free((*r)->steps);
    free((*r)->recs);
    free((*r)->logs);
    free((*r)->log_text);
    free(*r);
    *r = NULL;
}

/* ---- verifier --------------------------------------------------------------- */

int ref_replay_verify(const ref_replay *r, uint8_t digest[REF_DIGEST_BYTES], char *err, size_t cap)
{
    const ja_game_rules *g = r->game;
    void *st = ja_xcalloc(1, g->state_size);
    ja_action *legal = ja_xcalloc(g->max_actions, sizeof *legal);
    int rc = JA_OK;
    if (g->setup(st, &r->h.options, r->h.n_seats, r->h.seed) != JA_OK) {
        snprintf(err, cap, "the game refused the replay's setup");
        rc = JA_EMISMATCH;
        goto done;
    }
    ref_digest d;
    ref_digest_begin(&d, g, &r->h.options, r->h.seed, r->h.n_seats);
    for (uint32_t i = 0; i < r->n_steps; i++) {
        const ref_replay_step *sp = &r->steps[i];
        uint32_t mask = g->to_act(st);
        if (mask != sp->seats) {
            snprintf(err, cap, "decision %u: the replay asks seats 0x%x, the rules say 0x%x", i,
                     (unsigned)sp->seats, (unsigned)mask);
            rc = JA_EMISMATCH;
            goto done;
        }
        ja_action by_seat[JA_MAX_SEATS] = {{0}};
        for (uint32_t k = 0; k < sp->n; k++) {
            const ref_replay_rec *rec = &r->recs[sp->first + k];
            uint32_t nl = g->legal(st, rec->seat, legal, g->max_actions), j;
            for (j = 0; j < nl && legal[j].code != rec->code; j++)
                ;
            if (j == nl) {
                snprintf(err, cap, "decision %u: seat %u's action %u is not legal", i,
                         (unsigned)rec->seat, (unsigned)rec->code);
                rc = JA_EMISMATCH;
                goto done;
            }
            if (rec->forced && nl != 1) {
                snprintf(err, cap, "decision %u: marked forced but seat %u had %u choices", i,
                         (unsigned)rec->seat, (unsigned)nl);
                rc = JA_EMISMATCH;
                goto done;
            }
            by_seat[rec->seat].code = rec->code;
        }
        if (g->apply(st, mask, by_seat) != JA_OK) {
            snprintf(err, cap, "decision %u: the rules refused the recorded actions", i);
            rc = JA_EMISMATCH;
            goto done;
        }
        ref_digest_step(&d, mask, by_seat);
    }
    ja_outcome o;
    if (g->to_act(st) != 0 || g->outcome(st, &o) != JA_OK) {
        snprintf(err, cap, "the match is not over after the replay's %u decisions", r->n_steps);
        rc = JA_EMISMATCH;
        goto done;
    }
    ref_digest_end(&d, &o, digest);
    for (uint32_t s = 0; s < o.n_seats; s++)
        if (o.score[s] != r->outcome.score[s] || o.place[s] != r->outcome.place[s]) {
            snprintf(err, cap, "seat %u: the replay records score %lld place %u, the rules give %lld place %u",
                     (unsigned)s, (long long)r->outcome.score[s], (unsigned)r->outcome.place[s],
                     (long long)o.score[s], (unsigned)o.place[s]);
            rc = JA_EMISMATCH;
            goto done;
        }
    if (memcmp(digest, r->digest, REF_DIGEST_BYTES) != 0) {
        snprintf(err, cap, "the recorded digest does not match the re-simulated match");
        rc = JA_EMISMATCH;
    }
done:
    free(st);
    free(legal);
    return rc;
}
