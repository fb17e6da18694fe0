/* Training-data export (export.h, docs/training-data.md). */
#include "run/export.h"

#include "ja_mp.h"
#include "outfile.h"
#include "wire.h"

#include "jackarena/ja_error.h"
#include "ja_xalloc.h"
#include "jackarena/ja_version.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- One match's records --------------------------------------------------- */

/* An sbuffer that remembers a failed write (msgpack-c's packer drops it):
 * msgpack-c allocates with its own realloc, which can fail. */
typedef struct out_buf {
    msgpack_sbuffer sb;
    bool oom;
} out_buf;

static int out_write(void *data, const char *buf, size_t len)
{
    out_buf *o = data;
    if (o->oom)
        return -1;
    if (msgpack_sbuffer_write(&o->sb, buf, len) != 0) {
        o->oom = true;
        return -1;
    }
    return 0;
}

/* Keys of a decision record written while the match runs (the outcome is
 * added at the end). */
#define REC_KEYS 10

struct arena_export_match {
    const ja_game_rules *game;
    ja_options options;
    uint64_t seed;
    uint32_t n_seats;
    uint32_t number;
    char match_id[64];
    char names[JA_MAX_SEATS][64];
    out_buf body;          /* every record's key-value pairs, no map header */
    size_t *ends;          /* record k spans body[ends[k-1] .. ends[k]) */
    uint8_t *seats;        /* record k's seat */
    uint32_t n, cap;
    bool oom;              /* body's buffer could not grow (msgpack-c) */
};

arena_export_match *arena_export_match_new(const ref_match_config *cfg, uint32_t number,
                                           const char *const *names)
{
    arena_export_match *m = ja_xcalloc(1, sizeof *m);
    m->game = cfg->game;
    m->options = cfg->options;
    m->seed = cfg->seed;
    m->n_seats = cfg->n_seats;
    m->number = number;
    snprintf(m->match_id, sizeof m->match_id, "%s", cfg->match_id ? cfg->match_id : "");
    for (uint32_t s = 0; s < cfg->n_seats && s < JA_MAX_SEATS; s++)
        snprintf(m->names[s], sizeof m->names[s], "%s", names ? names[s] : "");
    msgpack_sbuffer_init(&m->body.sb);
    return m;
}

void arena_export_match_free(arena_export_match *m)
{
    if (!m)
        return;
    msgpack_sbuffer_destroy(&m->body.sb);
    free(m->ends);
    free(m->seats);
    free(m);
}

/* Room for one more record. */
static void grow(arena_export_match *m)
{
    if (m->n < m->cap)
        return;
    m->cap = m->cap ? m->cap * 2 : 256;
    m->ends = ja_xrealloc(m->ends, m->cap * sizeof *m->ends);
    m->seats = ja_xrealloc(m->seats, m->cap * sizeof *m->seats);
}

void arena_export_match_step(void *ctx, const ja_game_rules *g, const ref_step_info *info)
{
    arena_export_match *m = ctx;
    msgpack_packer pk;
    msgpack_packer_init(&pk, &m->body, out_write);
    for (uint32_t k = 0; k < info->n_recs && !m->oom; k++) {
        const ref_replay_rec *r = &info->recs[k];
        if (!(info->observed & (1u << r->seat)))
            continue; /* forced or forfeited: not a decision of the bot */
        grow(m);
        const ja_action *legal = info->legal + (size_t)r->seat * g->max_actions;
        ja_mp_put_kv_str(&pk, "type", "decision");
        ja_mp_put_kv_u64(&pk, "match", m->number);
        ja_mp_put_kv_u64(&pk, "step", info->step);
        ja_mp_put_kv_u64(&pk, "seat", r->seat);
        ja_mp_put_str(&pk, "obs");
        ref_wire_put_obs(&pk, g, info->obs + (size_t)r->seat * g->obs_size);
        ja_mp_put_str(&pk, "legal");
        msgpack_pack_array(&pk, r->n_legal);
        for (uint32_t i = 0; i < r->n_legal; i++)
            msgpack_pack_uint32(&pk, legal[i].code);
        ja_mp_put_str(&pk, "labels");
        msgpack_pack_array(&pk, r->n_legal);
        for (uint32_t i = 0; i < r->n_legal; i++) {
            char label[96];
            if (g->label(legal[i], label, sizeof label) < 0)
                snprintf(label, sizeof label, "action %u", (unsigned)legal[i].code);
            ja_mp_put_str(&pk, label);
        }
        /* The bot's raw answer is only meaningful without a fault. */
        ja_mp_put_kv_i64(&pk, "index", r->fault == JA_FAULT_NONE ? r->index : -1);
        ja_mp_put_kv_u64(&pk, "code", r->code);
        ja_mp_put_kv_str(&pk, "fault", ja_fault_name(r->fault));
        if (m->body.oom) {
            m->oom = true;
            break;
        }
        m->seats[m->n] = r->seat;
        m->ends[m->n++] = m->body.sb.size;
    }
}

/* A score as `arena play --json` prints it: an integer when whole. */
static void put_score(msgpack_packer *pk, int64_t units)
{
    if (units % JA_SCORE_UNIT == 0)
        msgpack_pack_int64(pk, units / JA_SCORE_UNIT);
    else
        msgpack_pack_double(pk, (double)units / JA_SCORE_UNIT);
}

int arena_export_match_end(arena_export_match *m, const ref_match_result *res, void **data,
                           size_t *len)
{
    *data = NULL;
    *len = 0;
    if (m->oom || m->body.oom)
        return JA_ENOMEM;
    const ja_game_rules *g = m->game;
    const ja_outcome *o = &res->outcome;
    out_buf out = {{0}, false};
    msgpack_sbuffer_init(&out.sb);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &out, out_write);

    /* The match header. */
    msgpack_pack_map(&pk, 15);
    ja_mp_put_kv_str(&pk, "type", "match");
    ja_mp_put_kv_str(&pk, "format", "jackarena-decisions");
    ja_mp_put_kv_u64(&pk, "version", ARENA_EXPORT_VERSION);
    ja_mp_put_kv_str(&pk, "arena", ja_version());
    ja_mp_put_kv_u64(&pk, "match", m->number);
    ja_mp_put_kv_str(&pk, "match_id", m->match_id);
    ja_mp_put_kv_str(&pk, "game", g->name);
    ja_mp_put_kv_u64(&pk, "rules_version", g->rules_version);
    ja_mp_put_kv_u64(&pk, "obs_version", g->obs_version);
    ja_mp_put_str(&pk, "options");
    msgpack_pack_map(&pk, m->options.n);
    for (uint32_t i = 0; i < m->options.n; i++) {
        char v[64];
        ja_options_value_str(g, &m->options, (int)i, v, sizeof v);
        ja_mp_put_kv_str(&pk, g->options[i].name, v);
    }
    char seed[24];
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)m->seed);
    ja_mp_put_kv_str(&pk, "seed", seed);
    ja_mp_put_kv_u64(&pk, "seats", m->n_seats);
    ja_mp_put_str(&pk, "players");
    msgpack_pack_array(&pk, m->n_seats);
    for (uint32_t s = 0; s < m->n_seats; s++)
        ja_mp_put_str(&pk, m->names[s]);
    ja_mp_put_kv_u64(&pk, "decisions", m->n);
    ja_mp_put_str(&pk, "outcome");
    msgpack_pack_map(&pk, 3);
    ja_mp_put_str(&pk, "scores");
    msgpack_pack_array(&pk, m->n_seats);
    for (uint32_t s = 0; s < m->n_seats; s++)
        put_score(&pk, o->score[s]);
    ja_mp_put_str(&pk, "places");
    msgpack_pack_array(&pk, m->n_seats);
    for (uint32_t s = 0; s < m->n_seats; s++)
        msgpack_pack_uint8(&pk, o->place[s]);
    ja_mp_put_str(&pk, "faults");
    msgpack_pack_array(&pk, m->n_seats);
    for (uint32_t s = 0; s < m->n_seats; s++)
        msgpack_pack_uint32(&pk, res->faults[s]);

    /* The decisions, each completed with its seat's outcome. */
    size_t start = 0;
    for (uint32_t k = 0; k < m->n; k++) {
        uint32_t s = m->seats[k];
        msgpack_pack_map(&pk, REC_KEYS + 1);
        out_write(&out, m->body.sb.data + start, m->ends[k] - start);
        start = m->ends[k];
        ja_mp_put_str(&pk, "outcome");
        msgpack_pack_map(&pk, 3);
        ja_mp_put_str(&pk, "score");
        put_score(&pk, o->score[s]);
        ja_mp_put_kv_i64(&pk, "score_units", o->score[s]);
        ja_mp_put_kv_u64(&pk, "place", o->place[s]);
    }
    if (out.oom) {
        msgpack_sbuffer_destroy(&out.sb);
        return JA_ENOMEM;
    }
    *data = out.sb.data; /* ownership passes to the caller */
    *len = out.sb.size;
    return JA_OK;
}

/* ---- The file ---------------------------------------------------------------- */

struct arena_export {
    ref_out *out;
    bool failed;
};

int arena_export_open(const char *path, arena_export **out, char *err, size_t cap)
{
    *out = NULL;
    arena_export *x = ja_xcalloc(1, sizeof *x);
    int rc = ref_out_open("--export-decisions", path, REF_OUT_SYNC | REF_OUT_STDOUT, &x->out,
                          err, cap);
    if (rc != JA_OK) {
        free(x);
        return JA_EIO;
    }
    *out = x;
    return JA_OK;
}

int arena_export_append(arena_export *x, const void *data, size_t len)
{
    if (x->failed || (len && fwrite(data, 1, len, ref_out_file(x->out)) != len)) {
        x->failed = true;
        return JA_EIO;
    }
    return JA_OK;
}

int arena_export_finish(arena_export **xp, char *err, size_t cap)
{
    arena_export *x = *xp;
    *xp = NULL;
    if (!x)
        return JA_OK;
    if (x->failed) {
        snprintf(err, cap, "--export-decisions '%s': %s", ref_out_path(x->out), strerror(EIO));
        ref_out_abort(&x->out);
        free(x);
        return JA_EIO;
    }
    int rc = ref_out_commit(&x->out, err, cap);
    free(x);
    return rc;
}

void arena_export_abort(arena_export **xp)
{
    arena_export *x = *xp;
    *xp = NULL;
    if (!x)
        return;
    ref_out_abort(&x->out);
    free(x);
}
