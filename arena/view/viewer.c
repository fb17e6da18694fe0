/* The viewer model: a replay re-simulated with its engine, and its JSON. */
#include "view/viewer.h"

#include "jackarena/ja_bombs.h"
#include "jackarena/ja_bot.h"
#include "jackarena/ja_error.h"
#include "ja_xalloc.h"

#include <stdlib.h>
#include <string.h>

const void *viewer_obs(const viewer_model *m, uint32_t f, uint32_t s)
{
    return m->obs + ((size_t)f * m->n_seats + s) * m->g->obs_size;
}

const void *viewer_obs_public(const viewer_model *m, uint32_t f)
{
    return m->pub ? m->pub + (size_t)f * m->g->obs_size : NULL;
}

const ref_replay_step *viewer_step(const viewer_model *m, uint32_t f)
{
    return &m->r->steps[f - 1];
}

const char *viewer_log(const viewer_model *m, uint32_t f, uint32_t s)
{
    return m->no_logs || f == 0 ? NULL : ref_replay_log_of(m->r, f - 1, s, NULL);
}

uint32_t viewer_deciding(const viewer_model *m, uint32_t f)
{
    return f + 1 < m->n_frames ? m->r->steps[f].seats : 0;
}

uint32_t viewer_table_seat(const viewer_model *m, uint32_t f)
{
    uint32_t mask = viewer_deciding(m, f);
    if (!mask && f > 0)
        mask = viewer_step(m, f)->seats;
    for (uint32_t s = 0; s < m->n_seats; s++)
        if (mask >> s & 1)
            return s;
    return 0;
}

uint32_t viewer_forfeits(const ref_replay *r, uint32_t s)
{
    uint32_t faults = 0, last_fault = 0, first_forfeit = 0;
    for (uint32_t i = 0; i < r->n_steps && !first_forfeit; i++) {
        const ref_replay_step *sp = &r->steps[i];
        for (uint32_t k = 0; k < sp->n; k++) {
            const ref_replay_rec *rec = &r->recs[sp->first + k];
            if (rec->seat != s || rec->fault == JA_FAULT_NONE)
                continue;
            if (rec->fault == JA_FAULT_FORFEIT) {
                first_forfeit = i + 1;
            } else {
                faults++;
                last_fault = i + 1;
            }
        }
    }
    if (first_forfeit)
        return last_fault ? last_fault : first_forfeit;
    /* The forfeit is counted once, as a fault of its own. */
    return faults && r->faults[s] == faults + 1 ? last_fault : 0;
}

static void observe_frame(viewer_model *m, const void *st, uint32_t f)
{
    for (uint32_t s = 0; s < m->n_seats; s++)
        m->g->observe(st, (int)s, (void *)viewer_obs(m, f, s));
    if (m->g->describe(st, m->describe[f], VIEWER_DESCRIBE_MAX) < 0)
        m->describe[f][0] = '\0';
    const ja_ext_observe_public *op = ja_rules_extension(m->g, JA_EXT_OBSERVE_PUBLIC);
    if (m->pub && op)
        op->observe_public(st, m->pub + (size_t)f * m->g->obs_size);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* code_rec: one record per distinct action code, by ascending code. */
static void index_codes(viewer_model *m)
{
    const ref_replay *r = m->r;
    uint64_t *key = ja_xmalloc(r->n_recs * sizeof *key);
    m->code_rec = ja_xmalloc(r->n_recs * sizeof *m->code_rec);
    for (uint32_t i = 0; i < r->n_recs; i++)
        key[i] = (uint64_t)r->recs[i].code << 32 | i;
    qsort(key, r->n_recs, sizeof *key, cmp_u64);
    m->n_codes = 0;
    for (uint32_t i = 0; i < r->n_recs; i++)
        if (i == 0 || key[i] >> 32 != key[i - 1] >> 32)
            m->code_rec[m->n_codes++] = (uint32_t)key[i];
    free(key);
}

/* The model's buffers: every frame's observations and describe() line,
 * every record's label. */
static void alloc_model(viewer_model *m)
{
    m->obs = ja_xcalloc((size_t)m->n_frames * m->n_seats, m->g->obs_size);
    m->describe = ja_xcalloc(m->n_frames, sizeof *m->describe);
    m->label = ja_xcalloc(m->r->n_recs, sizeof *m->label);
    if (ja_rules_extension(m->g, JA_EXT_OBSERVE_PUBLIC))
        m->pub = ja_xcalloc(m->n_frames, m->g->obs_size);
}

/* Applies decision i of the replay to st, labelling its records, and
 * observes the frame it leads to. JA_OK, or JA_EMISMATCH with the
 * disagreement in err. */
static int replay_decision(viewer_model *m, void *st, uint32_t i, char *err, size_t cap)
{
    const ja_game_rules *g = m->g;
    const ref_replay_step *sp = &m->r->steps[i];
    if (g->to_act(st) != sp->seats) {
        snprintf(err, cap, "decision %u: the replay asks seats the rules do not ask", i);
        return JA_EMISMATCH;
    }
    ja_action by_seat[JA_MAX_SEATS] = {{0}};
    for (uint32_t k = 0; k < sp->n; k++) {
        const ref_replay_rec *rec = &m->r->recs[sp->first + k];
        by_seat[rec->seat].code = rec->code;
        viewer_label(g, rec->code, m->label[sp->first + k]);
    }
    /* apply() refuses an illegal action and leaves the state unchanged. */
    if (g->apply(st, sp->seats, by_seat) != JA_OK) {
        snprintf(err, cap, "decision %u: the rules refuse the recorded actions", i);
        return JA_EMISMATCH;
    }
    observe_frame(m, st, i + 1);
    return JA_OK;
}

/* Plays the replay's match again on st, from its deal, observing every
 * frame. JA_OK, or JA_EMISMATCH with the disagreement in err. */
static int replay_match(viewer_model *m, void *st, char *err, size_t cap)
{
    const ref_replay *r = m->r;
    if (m->g->setup(st, &r->h.options, r->h.n_seats, r->h.seed) != JA_OK) {
        snprintf(err, cap, "the game refused the replay's setup");
        return JA_EMISMATCH;
    }
    observe_frame(m, st, 0);
    int rc = JA_OK;
    for (uint32_t i = 0; i < r->n_steps && rc == JA_OK; i++)
        rc = replay_decision(m, st, i, err, cap);
    return rc;
}

int viewer_build(const ref_replay *r, viewer_model *m, char *err, size_t cap)
{
    memset(m, 0, sizeof *m);
    m->r = r;
    m->g = r->game;
    m->n_seats = r->h.n_seats;
    m->n_frames = r->n_steps + 1;
    void *st = ja_xcalloc(1, m->g->state_size);
    alloc_model(m);
    for (uint32_t s = 0; s < m->n_seats; s++)
        m->forfeit_at[s] = viewer_forfeits(r, s);
    int rc = replay_match(m, st, err, cap);
    if (rc == JA_OK)
        index_codes(m);
    free(st);
    if (rc != JA_OK)
        viewer_free(m);
    return rc;
}

void viewer_free(viewer_model *m)
{
    free(m->obs);
    free(m->pub);
    free(m->describe);
    free(m->label);
    free(m->code_rec);
    memset(m, 0, sizeof *m);
}

int viewer_load(const char *path, ref_replay **r, char *err, size_t cap)
{
    int rc = ref_replay_load(path, r, err, cap);
    if (rc != JA_OK)
        return rc;
    if (!(*r)->game) {
        snprintf(err, cap, "replay '%s': game '%s' is not built into this arena", path,
                 (*r)->h.game);
        ref_replay_free(r);
        return JA_EUNSUPPORTED;
    }
    return JA_OK;
}

int viewer_resimulate(const char *path, const ref_replay *r, viewer_model *m, char *err,
                      size_t cap)
{
    char why[1200];
    uint8_t digest[REF_DIGEST_BYTES];
    memset(m, 0, sizeof *m);
    int rc = ref_replay_verify(r, digest, why, sizeof why);
    if (rc == JA_OK)
        rc = viewer_build(r, m, why, sizeof why);
    if (rc != JA_OK)
        snprintf(err, cap, "replay '%s' does not re-simulate: %s", path, why);
    return rc;
}

int viewer_open(const char *path, ref_replay **r, viewer_model *m, char *err, size_t cap)
{
    memset(m, 0, sizeof *m);
    *r = NULL;
    int rc = viewer_load(path, r, err, cap);
    if (rc == JA_OK && (rc = viewer_resimulate(path, *r, m, err, cap)) != JA_OK)
        ref_replay_free(r);
    return rc;
}

void viewer_close(ref_replay **r, viewer_model *m)
{
    viewer_free(m);
    ref_replay_free(r);
}

void viewer_label(const ja_game_rules *g, uint32_t code, char label[VIEWER_LABEL_MAX])
{
    ja_action a = {code};
    if (g->label(a, label, VIEWER_LABEL_MAX) < 0)
        snprintf(label, VIEWER_LABEL_MAX, "action %u", (unsigned)code);
}

/* ---- field access --------------------------------------------------------- */

static int64_t field_elem(const ja_field *fd, const void *obs, uint32_t i)
{
    const uint8_t *p = (const uint8_t *)obs + fd->offset;
    switch (fd->type) {
    case JA_FT_U8: return ((const uint8_t *)p)[i];
    case JA_FT_I8: { int8_t v; memcpy(&v, p + i, 1); return v; }
    case JA_FT_U16: { uint16_t v; memcpy(&v, p + 2 * (size_t)i, 2); return v; }
    case JA_FT_I16: { int16_t v; memcpy(&v, p + 2 * (size_t)i, 2); return v; }
    case JA_FT_U32: { uint32_t v; memcpy(&v, p + 4 * (size_t)i, 4); return v; }
    case JA_FT_I32: { int32_t v; memcpy(&v, p + 4 * (size_t)i, 4); return v; }
    case JA_FT_I64: { int64_t v; memcpy(&v, p + 8 * (size_t)i, 8); return v; }
    default: return 0;
    }
}

/* g's observation field named name, or NULL. */
static const ja_field *field_named(const ja_game_rules *g, const char *name)
{
    for (uint32_t k = 0; k < g->n_obs_fields; k++)
        if (strcmp(g->obs_fields[k].name, name) == 0)
            return &g->obs_fields[k];
    return NULL;
}

bool viewer_field(const ja_game_rules *g, const void *obs, const char *name, uint32_t i,
                  int64_t *out)
{
    const ja_field *fd = field_named(g, name);
    *out = fd && i < fd->count ? field_elem(fd, obs, i) : 0;
    return fd != NULL;
}

/* The games whose events name action codes: the event kinds that do
 * (bits), and the field that holds the code. */
static const struct {
    const char *game;
    uint32_t kinds;
    const char *field;
} code_events[] = {
    {"bombs", 1u << JA_BOMBS_EV_PLAY | 1u << JA_BOMBS_EV_INTERRUPT, "ev_arg"},
};

uint32_t viewer_event_codes(const ja_game_rules *g, const void *obs, uint64_t after,
                            uint32_t *codes, uint32_t cap, uint64_t *newest)
{
    *newest = after;
    const ja_field *seq = field_named(g, "ev_seq");
    if (seq == NULL)
        return 0;
    uint32_t kinds = 0;
    const char *field = NULL;
    for (size_t k = 0; k < sizeof code_events / sizeof code_events[0]; k++)
        if (strcmp(code_events[k].game, g->name) == 0) {
            kinds = code_events[k].kinds;
            field = code_events[k].field;
        }
    uint32_t n = 0;
    for (uint32_t i = 0; i < seq->count; i++) {
        int64_t q = field_elem(seq, obs, i), kind, code;
        if (q <= 0)
            break;
        if ((uint64_t)q <= after)
            continue;
        *newest = (uint64_t)q;
        viewer_field(g, obs, "ev_kind", i, &kind);
        if (field == NULL || kind < 0 || kind >= 32 || !(kinds >> kind & 1u))
            continue;
        viewer_field(g, obs, field, i, &code);
        bool dup = false;
        for (uint32_t j = 0; j < n && !dup; j++)
            dup = codes[j] == (uint32_t)code;
        if (!dup && n < cap)
            codes[n++] = (uint32_t)code;
    }
    return n;
}

int64_t viewer_score(const viewer_model *m, uint32_t f, uint32_t from, uint32_t s)
{
    return viewer_score_in(m, f, viewer_obs(m, f, from), s);
}

int64_t viewer_score_in(const viewer_model *m, uint32_t f, const void *obs, uint32_t s)
{
    return f + 1 == m->n_frames ? m->r->outcome.score[s] : viewer_obs_score(m->g, obs, s);
}

int64_t viewer_obs_score(const ja_game_rules *g, const void *obs, uint32_t s)
{
    int64_t v;
    viewer_field(g, obs, "score", s, &v);
    for (uint32_t k = 0; k < g->n_obs_fields; k++)
        if (strcmp(g->obs_fields[k].name, "score") == 0)
            return strstr(g->obs_fields[k].doc, "27720") ? v : v * JA_SCORE_UNIT;
    return 0;
}

/* ---- JSON ------------------------------------------------------------------- */

void viewer_obs_json(json_w *w, const char *key, const ja_game_rules *g, const void *obs)
{
    jw_obj(w, key);
    for (uint32_t k = 0; k < g->n_obs_fields; k++) {
        const ja_field *fd = &g->obs_fields[k];
        if (fd->count == 1) {
            jw_int(w, fd->name, (long long)field_elem(fd, obs, 0));
            continue;
        }
        uint32_t n = fd->count;
        while (n > 0 && field_elem(fd, obs, n - 1) == 0)
            n--;
        jw_arr(w, fd->name);
        for (uint32_t i = 0; i < n; i++)
            jw_int(w, NULL, (long long)field_elem(fd, obs, i));
        jw_arr_end(w);
    }
    jw_obj_end(w);
}

/* Element i of field fd of obs, 0 for obs NULL (the all-zero observation). */
static int64_t elem_or_0(const ja_field *fd, const void *obs, uint32_t i)
{
    return obs ? field_elem(fd, obs, i) : 0;
}

/* The shift t (docs/viewer.md, "delta") that leaves the fewest elements of
 * array field fd to set when obs follows old: 0, or one that brings an
 * element equal to the new first one to the front (a window of recent
 * events that moved on). A candidate is dropped as soon as it costs as much
 * as the best so far. */
static uint32_t best_shift(const ja_field *fd, const void *old, const void *obs)
{
    uint32_t c = fd->count, best_t = 0, best = UINT32_MAX;
    if (!old)
        return 0;
    int64_t first = field_elem(fd, obs, 0);
    for (uint32_t t = 0; t < c && best > 0; t++) {
        if (t > 0 && field_elem(fd, old, t) != first)
            continue;
        uint32_t cost = 0;
        for (uint32_t i = 0; i < c && cost < best; i++)
            cost += field_elem(fd, obs, i) != elem_or_0(fd, i + t < c ? old : NULL, i + t);
        if (cost < best) {
            best = cost;
            best_t = t;
        }
    }
    return best_t;
}

/* One seat's observation obs as changes to old, its observation at the frame
 * before (NULL at frame 0: an all-zero one): per changed field its index in
 * the field table, then a scalar's value, or for an array [t, i, v, ...]:
 * the old array shifted t elements towards its start (0 past its end), then
 * element i set to v for each pair. */
static void obs_delta_json(json_w *w, const ja_game_rules *g, const void *old, const void *obs)
{
    jw_arr(w, NULL);
    for (uint32_t k = 0; k < g->n_obs_fields; k++) {
        const ja_field *fd = &g->obs_fields[k];
        uint32_t i = 0;
        while (i < fd->count && field_elem(fd, obs, i) == elem_or_0(fd, old, i))
            i++;
        if (i == fd->count)
            continue;
        jw_int(w, NULL, k);
        if (fd->count == 1) {
            jw_int(w, NULL, (long long)field_elem(fd, obs, 0));
            continue;
        }
        uint32_t t = best_shift(fd, old, obs);
        jw_arr(w, NULL);
        jw_int(w, NULL, t);
        for (i = 0; i < fd->count; i++) {
            int64_t v = field_elem(fd, obs, i);
            if (v != elem_or_0(fd, i + t < fd->count ? old : NULL, i + t)) {
                jw_int(w, NULL, i);
                jw_int(w, NULL, (long long)v);
            }
        }
        jw_arr_end(w);
    }
    jw_arr_end(w);
}

/* "labels": the label of every action code the match applied, once each
 * (the page names the plays that observations record by code). */
static void labels_json(json_w *w, const viewer_model *m)
{
    jw_obj(w, "labels");
    for (uint32_t i = 0; i < m->n_codes; i++) {
        char code[16];
        snprintf(code, sizeof code, "%u", (unsigned)m->r->recs[m->code_rec[i]].code);
        jw_str(w, code, m->label[m->code_rec[i]]);
    }
    jw_obj_end(w);
}

void viewer_model_json(json_w *w, const viewer_model *m)
{
    jw_obj(w, NULL);
    viewer_model_json_keys(w, m);
    jw_obj_end(w);
}

/* The match's header: the model's version, the game, seats, seed, options,
 * match id and the unit of scores. */
static void header_json(json_w *w, const viewer_model *m)
{
    const ref_replay *r = m->r;
    char buf[1024];
    jw_int(w, "model", 3);
    jw_str(w, "game", r->h.game);
    jw_str(w, "title", m->g->title);
    jw_int(w, "seats", m->n_seats);
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)r->h.seed);
    jw_str(w, "seed", buf);
    if (ja_options_format(m->g, &r->h.options, buf, sizeof buf) < 0)
        buf[0] = '\0';
    jw_str(w, "options", buf);
    jw_str(w, "match", r->h.match_id);
    jw_int(w, "score_unit", JA_SCORE_UNIT);
    if (m->logs_url)
        jw_str(w, "logs_url", m->logs_url);
}

/* "players": each seat's bot, as the replay names it. */
static void players_json(json_w *w, const viewer_model *m)
{
    jw_arr(w, "players");
    for (uint32_t s = 0; s < m->n_seats; s++) {
        jw_obj(w, NULL);
        jw_str(w, "name", m->r->h.players[s].name);
        jw_str(w, "kind", m->r->h.players[s].kind);
        jw_str(w, "version", m->r->h.players[s].version);
        jw_obj_end(w);
    }
    jw_arr_end(w);
}

void viewer_fields_json(json_w *w, const ja_game_rules *g)
{
    jw_arr(w, "fields");
    for (uint32_t k = 0; k < g->n_obs_fields; k++) {
        jw_obj(w, NULL);
        jw_str(w, "name", g->obs_fields[k].name);
        jw_int(w, "count", g->obs_fields[k].count);
        jw_str(w, "doc", g->obs_fields[k].doc);
        jw_obj_end(w);
    }
    jw_arr_end(w);
}

/* A frame's "asked": the records of the decision that led to frame f
 * (none at the deal). */
static void asked_json(json_w *w, const viewer_model *m, uint32_t f)
{
    jw_arr(w, "asked");
    const ref_replay_step *sp = f > 0 ? viewer_step(m, f) : NULL;
    for (uint32_t k = 0; sp && k < sp->n; k++) {
        const ref_replay_rec *rec = &m->r->recs[sp->first + k];
        jw_obj(w, NULL);
        jw_int(w, "seat", rec->seat);
        jw_int(w, "code", rec->code);
        jw_int(w, "choices", rec->n_legal);
        jw_int(w, "index", rec->index);
        jw_bool(w, "forced", rec->forced);
        jw_str(w, "fault", ja_fault_name(rec->fault));
        char code[REF_ERROR_NAME_MAX];
        if (rec->fault == JA_FAULT_ERROR && rec->error)
            jw_str(w, "error", ref_error_name(rec->error, code));
        jw_int(w, "us", (long long)rec->think_us);
        jw_bool(w, "forfeits", rec->fault && m->forfeit_at[rec->seat] == f);
        jw_obj_end(w);
    }
    jw_arr_end(w);
}

/* A frame's "logs" (only where its decision has some): what each seat's
 * bot logged for the decision that led to frame f, in seat order, as
 * {"seat", "text"}. The page shows a seat's in its view and the
 * omniscient one only. */
static void logs_json(json_w *w, const viewer_model *m, uint32_t f)
{
    const ref_replay_step *sp = f > 0 && !m->no_logs ? viewer_step(m, f) : NULL;
    bool any = false;
    for (uint32_t k = 0; sp && k < sp->n; k++) {
        uint32_t s = m->r->recs[sp->first + k].seat;
        const char *text = viewer_log(m, f, s);
        if (!text)
            continue;
        if (!any)
            jw_arr(w, "logs");
        any = true;
        jw_obj(w, NULL);
        jw_int(w, "seat", s);
        jw_str(w, "text", text);
        jw_obj_end(w);
    }
    if (any)
        jw_arr_end(w);
}

/* Frame f: its describe() line, the decision that led to it, the seats
 * that perceive it, each seat's observation as changes to the one
 * before, and the decision's logs. */
static void frame_json(json_w *w, const viewer_model *m, uint32_t f)
{
    jw_obj(w, NULL);
    jw_str(w, "describe", m->describe[f]);
    asked_json(w, m, f);
    jw_arr(w, "seen");
    for (uint32_t s = 0; s < m->n_seats; s++)
        if (viewer_seat_sees(m, f, (int)s))
            jw_int(w, NULL, s);
    jw_arr_end(w);
    jw_arr(w, "delta");
    for (uint32_t s = 0; s < m->n_seats; s++)
        obs_delta_json(w, m->g, f > 0 ? viewer_obs(m, f - 1, s) : NULL, viewer_obs(m, f, s));
    jw_arr_end(w);
    logs_json(w, m, f);
    jw_obj_end(w);
}

void viewer_points_json(json_w *w, const ja_outcome *o, uint32_t n_seats)
{
    char buf[32];
    jw_arr(w, "points");
    for (uint32_t s = 0; s < n_seats; s++) {
        arena_format_score(o->score[s], buf, sizeof buf);
        jw_str(w, NULL, buf);
    }
    jw_arr_end(w);
    jw_arr(w, "places");
    for (uint32_t s = 0; s < n_seats; s++)
        jw_int(w, NULL, o->place[s]);
    jw_arr_end(w);
}

/* "outcome": the scores (in units and as points), places, fault counts
 * and where each seat forfeited. */
static void outcome_json(json_w *w, const viewer_model *m)
{
    const ref_replay *r = m->r;
    jw_obj(w, "outcome");
    jw_arr(w, "scores");
    for (uint32_t s = 0; s < m->n_seats; s++)
        jw_int(w, NULL, (long long)r->outcome.score[s]);
    jw_arr_end(w);
    viewer_points_json(w, &r->outcome, m->n_seats);
    jw_arr(w, "faults");
    for (uint32_t s = 0; s < m->n_seats; s++)
        jw_int(w, NULL, r->faults[s]);
    jw_arr_end(w);
    jw_arr(w, "forfeit");
    for (uint32_t s = 0; s < m->n_seats; s++)
        jw_int(w, NULL, m->forfeit_at[s]);
    jw_arr_end(w);
    jw_obj_end(w);
}

/* 1 when obs_delta_json would write the same change list for old->obs as
 * for old2->obs2: the same fields changed, each to the same scalar or with
 * the same shift and the same elements set. */
static int same_delta(const ja_game_rules *g, const void *old, const void *obs, const void *old2,
                      const void *obs2)
{
    for (uint32_t k = 0; k < g->n_obs_fields; k++) {
        const ja_field *fd = &g->obs_fields[k];
        int ch = 0, ch2 = 0;
        for (uint32_t i = 0; i < fd->count; i++) {
            ch |= field_elem(fd, obs, i) != elem_or_0(fd, old, i);
            ch2 |= field_elem(fd, obs2, i) != elem_or_0(fd, old2, i);
        }
        if (ch != ch2)
            return 0;
        if (!ch)
            continue;
        if (fd->count == 1) {
            if (field_elem(fd, obs, 0) != field_elem(fd, obs2, 0))
                return 0;
            continue;
        }
        uint32_t t = best_shift(fd, old, obs);
        if (t != best_shift(fd, old2, obs2))
            return 0;
        for (uint32_t i = 0; i < fd->count; i++) {
            int64_t v = field_elem(fd, obs, i), v2 = field_elem(fd, obs2, i);
            int set = v != elem_or_0(fd, i + t < fd->count ? old : NULL, i + t);
            int set2 = v2 != elem_or_0(fd, i + t < fd->count ? old2 : NULL, i + t);
            if (set != set2 || (set && v != v2))
                return 0;
        }
    }
    return 1;
}

/* "public": the public observation of every frame (JA_EXT_OBSERVE_PUBLIC) as
 * changes to the one before, as a seat's "delta" is ([] where it did not
 * change), or, where those changes are exactly seat S's "delta" of the same
 * frame (most frames: what changed is public), the number S instead (the
 * page would otherwise hold most change lists twice); absent for a game
 * without one. After the other keys, which stay as they were. */
static void public_json(json_w *w, const viewer_model *m)
{
    if (!m->pub)
        return;
    jw_arr(w, "public");
    for (uint32_t f = 0; f < m->n_frames; f++) {
        const void *old = f > 0 ? viewer_obs_public(m, f - 1) : NULL, *now = viewer_obs_public(m, f);
        /* The first frame, or no change ([]): the list itself. */
        bool own = !old || memcmp(old, now, m->g->obs_size) == 0;
        uint32_t s = own ? m->n_seats : 0;
        while (s < m->n_seats &&
               !same_delta(m->g, old, now, viewer_obs(m, f - 1, s), viewer_obs(m, f, s)))
            s++;
        if (s < m->n_seats)
            jw_int(w, NULL, s);
        else
            obs_delta_json(w, m->g, old, now);
    }
    jw_arr_end(w);
}

void viewer_model_json_keys(json_w *w, const viewer_model *m)
{
    header_json(w, m);
    players_json(w, m);
    viewer_fields_json(w, m->g);
    jw_arr(w, "frames");
    for (uint32_t f = 0; f < m->n_frames; f++)
        frame_json(w, m, f);
    jw_arr_end(w);
    outcome_json(w, m);
    labels_json(w, m);
    public_json(w, m);
}

bool viewer_seat_sees(const viewer_model *m, uint32_t fr, int seat)
{
    if (seat == VIEWER_ALL || fr == 0 || fr + 1 == m->n_frames)
        return true;
    if (seat < 0)
        return m->pub && memcmp(viewer_obs_public(m, fr), viewer_obs_public(m, fr - 1),
                                m->g->obs_size) != 0;
    if (viewer_step(m, fr)->seats >> seat & 1)
        return true;
    return memcmp(viewer_obs(m, fr, (uint32_t)seat), viewer_obs(m, fr - 1, (uint32_t)seat),
                  m->g->obs_size) != 0;
}
