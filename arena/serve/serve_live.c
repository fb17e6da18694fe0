/* `arena serve`'s live matches (serve_live.h): the registry, the hook the
 * executor calls, the readers and the seat-view tickets. */
#include "serve/serve_live.h"

#include "core/json_w.h"
#include "serve/serve_util.h"
#include "view/viewer.h"

#include "jackarena/ja_error.h"
#include "jackarena/ja_rng.h"
#include "ja_xalloc.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <pthread.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define LINE_MAX_ 256
#define NAME_MAX_ 64
#define LIVE_CODES_MAX 64 /* codes one observation's events name: at most its events */
#define JA_STREAM_LIVE JA_TAG('L', 'I', 'V', 'E')

typedef struct live_ticket {
    char hash[ARENA_SERVE_HASH_HEX]; /* "" for a free slot */
    int seat;
    time_t expires;                  /* CLOCK_MONOTONIC seconds */
} live_ticket;

/* One seat's part in the decision that led to a frame. */
typedef struct live_act {
    uint32_t code;            /* the action applied */
    uint8_t in;               /* 1: the seat was in the decision */
    uint8_t forced, fault;    /* as its replay record */
} live_act;

typedef struct live_match {
    struct live_match *next;
    srv_live *l;
    char id[SRV_LIVE_ID_MAX];
    uint32_t seats;
    char names[JA_MAX_SEATS][NAME_MAX_];
    /* Under l->mu: */
    uint64_t frames;          /* frames recorded: decisions + 1 */
    bool ended;
    bool failed;
    ja_outcome outcome;
    char replay[96];
    unsigned readers;
    live_ticket tickets[SRV_LIVE_TICKETS];
    /* The ring: frame f in slot f % ring. */
    uint32_t ring;
    uint8_t *states;          /* ring * state_size */
    live_act *acts;           /* ring * seats: each slot's decision, by seat */
    /* The public line of each slot's frame and its check, made by the first
     * public reader that needs it (never in the match's thread: a match
     * nobody watches pays only the copy of its state): valid when
     * checked[k] is that frame's number + 1. */
    char (*line)[LINE_MAX_];
    uint8_t *pub;             /* 1: the line is public */
    uint64_t *checked;
    uint8_t *work;            /* the deal, made by hook_begin */
} live_match;

struct srv_live {
    const ja_game_rules *g;
    uint32_t delay, max_running, running;
    pthread_mutex_t mu;
    live_match *list;
    arena_live_hook hook;
};

struct srv_live_reader {
    srv_live *l;
    live_match *m;
    int seat;                 /* < 0: public */
    bool started, done;
    uint64_t next;            /* the next frame to give */
    uint8_t *state;           /* a copy of a frame's state */
    uint8_t *work;            /* the public check's scratch (public view) */
    uint8_t *obs, *last;      /* the seat's (or the public) observation, and the
                               * last one a seat's view sent */
    bool have_last;
    live_act act;             /* a seat's view: its part in the frame's decision */
    uint64_t ev_after;        /* the newest event whose codes' labels were sent */
};

static time_t mono_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec;
}

static void match_free(live_match *m)
{
    if (m == NULL)
        return;
    free(m->states);
    free(m->acts);
    free(m->line);
    free(m->pub);
    free(m->checked);
    free(m->work);
    free(m);
}

/* Unlinks and frees m once it has ended and nobody reads it. l->mu held. */
static void match_release(srv_live *l, live_match *m)
{
    if (!m->ended || m->readers)
        return;
    for (live_match **p = &l->list; *p; p = &(*p)->next)
        if (*p == m) {
            *p = m->next;
            break;
        }
    match_free(m);
}

/* describe()'s line of st (frame f) into line, and whether it is public:
 * the same line when st is determinized for each seat in turn (a fixed seed
 * per frame, so every reader finds the same). work: state_size of scratch. */
static bool line_public(const ja_game_rules *g, uint32_t seats, const void *st, uint64_t f,
                        uint8_t *work, char line[LINE_MAX_])
{
    char line2[LINE_MAX_];
    line[0] = '\0';
    g->describe(st, line, LINE_MAX_);
    for (uint32_t s = 0; s < seats; s++) {
        memcpy(work, st, g->state_size);
        g->determinize(work, (int)s, ja_seed_derive(f, JA_STREAM_LIVE, s));
        line2[0] = '\0';
        g->describe(work, line2, sizeof line2);
        if (strcmp(line2, line) != 0)
            return false;
    }
    return true;
}

/* Records frame f (state st, after the decision of the n records recs)
 * into the ring. Called in the match's thread; the slot is rewritten, and
 * the frame counted, under the lock (readers copy frames out under it). */
static void record(live_match *m, const void *st, uint32_t f, const ref_replay_rec *recs,
                   uint32_t n)
{
    srv_live *l = m->l;
    const ja_game_rules *g = l->g;
    uint32_t k = f % m->ring;
    pthread_mutex_lock(&l->mu);
    memcpy(m->states + (size_t)k * g->state_size, st, g->state_size);
    live_act *acts = m->acts + (size_t)k * m->seats;
    memset(acts, 0, m->seats * sizeof *acts);
    for (uint32_t i = 0; i < n; i++)
        if (recs[i].seat < m->seats)
            acts[recs[i].seat] = (live_act){recs[i].code, 1, recs[i].forced, recs[i].fault};
    m->frames = (uint64_t)f + 1;
    pthread_mutex_unlock(&l->mu);
}

static void *hook_begin(void *ctx, const arena_exec_ctx *xc, const arena_job *job)
{
    srv_live *l = ctx;
    const ja_game_rules *g = l->g;
    pthread_mutex_lock(&l->mu);
    bool room = l->running < l->max_running;
    if (room)
        l->running++;
    pthread_mutex_unlock(&l->mu);
    if (!room)
        return NULL;
    live_match *m = ja_xcalloc(1, sizeof *m);
    uint32_t ring = l->delay + SRV_LIVE_BACKLOG;
    m->ring = ring;
    m->states = ja_xmalloc((size_t)ring * g->state_size);
    m->line = ja_xcalloc(ring, sizeof *m->line);
    m->pub = ja_xcalloc(ring, 1);
    m->checked = ja_xcalloc(ring, sizeof *m->checked);
    m->work = ja_xmalloc(g->state_size);
    m->acts = ja_xcalloc((size_t)ring * job->n_seats, sizeof *m->acts);
    if (g->setup(m->work, &xc->options, job->n_seats, job->seed) != JA_OK) {
        match_free(m);
        pthread_mutex_lock(&l->mu);
        l->running--;
        pthread_mutex_unlock(&l->mu);
        return NULL;
    }
    m->l = l;
    m->seats = job->n_seats;
    snprintf(m->id, sizeof m->id, "%" PRId64 "-%u", xc->tournament_id, (unsigned)job->number);
    snprintf(m->replay, sizeof m->replay, "/matches/%s.html", m->id);
    for (uint32_t s = 0; s < job->n_seats; s++)
        snprintf(m->names[s], sizeof m->names[s], "%s", xc->names[job->slot[s]]);
    /* Frame 0: the deal, as setup makes it from the match seed (the match
     * loop does the same). */
    pthread_mutex_lock(&l->mu);
    m->next = l->list;
    l->list = m;
    pthread_mutex_unlock(&l->mu);
    record(m, m->work, 0, NULL, 0);
    return m;
}

static void hook_step(void *match, const ja_game_rules *g, const ref_step_info *info)
{
    (void)g;
    record(match, info->state, info->step + 1, info->recs, info->n_recs);
}

static void hook_end(void *match, const arena_job_result *r)
{
    live_match *m = match;
    srv_live *l = m->l;
    pthread_mutex_lock(&l->mu);
    m->ended = true;
    m->failed = r->rc != JA_OK;
    m->outcome = r->res.outcome;
    if (r->rc != JA_OK || !r->replay_path[0])
        m->replay[0] = '\0';
    l->running--;
    match_release(l, m);
    pthread_mutex_unlock(&l->mu);
}

srv_live *srv_live_new(const ja_game_rules *g, uint32_t delay, uint32_t max_running)
{
    srv_live *l = ja_xcalloc(1, sizeof *l);
    l->g = g;
    l->delay = delay;
    l->max_running = max_running;
    pthread_mutex_init(&l->mu, NULL);
    l->hook = (arena_live_hook){hook_begin, hook_step, hook_end, l};
    return l;
}

void srv_live_free(srv_live **lp)
{
    srv_live *l = *lp;
    if (l == NULL)
        return;
    while (l->list) {
        live_match *m = l->list;
        l->list = m->next;
        match_free(m);
    }
    pthread_mutex_destroy(&l->mu);
    free(l);
    *lp = NULL;
}

const arena_live_hook *srv_live_hook(srv_live *l)
{
    return &l->hook;
}

/* The match named id that is still playing or read. l->mu held. */
static live_match *find(srv_live *l, const char *id)
{
    for (live_match *m = l->list; m; m = m->next)
        if (strcmp(m->id, id) == 0)
            return m;
    return NULL;
}

/* Frames released so far: those `delay` decisions behind the last, all of
 * them once the match has ended. l->mu held. */
static uint64_t released(const srv_live *l, const live_match *m)
{
    if (m->ended)
        return m->frames;
    uint64_t decisions = m->frames ? m->frames - 1 : 0;
    return m->frames && decisions >= l->delay ? decisions - l->delay + 1 : 0;
}

/* The game's observation field table (name, count, doc), which the
 * observations of the stream follow (as the replay viewer's model's
 * "fields"). */
static json_t *fields_json(const ja_game_rules *g)
{
    json_t *a = json_array();
    for (uint32_t k = 0; k < g->n_obs_fields; k++)
        json_array_append_new(a, json_pack("{ss si ss}", "name", g->obs_fields[k].name, "count",
                                           (int)g->obs_fields[k].count, "doc",
                                           g->obs_fields[k].doc));
    return a;
}

static json_t *seats_json(const live_match *m)
{
    json_t *a = json_array();
    for (uint32_t s = 0; s < m->seats; s++)
        json_array_append_new(a, json_string(m->names[s]));
    return a;
}

char *srv_live_list_json(srv_live *l)
{
    json_t *list = json_array();
    pthread_mutex_lock(&l->mu);
    for (live_match *m = l->list; m; m = m->next) {
        if (m->ended)
            continue;
        char page[96];
        snprintf(page, sizeof page, "/live/%s", m->id);
        json_array_append_new(list, json_pack("{ss ss so sI}", "id", m->id, "page", page,
                                              "seats", seats_json(m), "steps",
                                              (json_int_t)released(l, m)));
    }
    pthread_mutex_unlock(&l->mu);
    json_t *o = json_pack("{so sI}", "matches", list, "delay", (json_int_t)l->delay);
    char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    return text;
}

/* ---- readers ------------------------------------------------------------------ */

int srv_live_reader_open(srv_live *l, const char *id, int seat, srv_live_reader **out)
{
    srv_live_reader *r = ja_xcalloc(1, sizeof *r);
    r->l = l;
    r->seat = seat;
    r->state = ja_xmalloc(l->g->state_size);
    r->obs = ja_xmalloc(l->g->obs_size);
    if (seat >= 0)
        r->last = ja_xmalloc(l->g->obs_size);
    else
        r->work = ja_xmalloc(l->g->state_size);
    pthread_mutex_lock(&l->mu);
    live_match *m = find(l, id);
    int rc = m == NULL ? JA_ENOTFOUND : seat >= (int)m->seats ? JA_ERANGE : JA_OK;
    if (rc == JA_OK) {
        m->readers++;
        r->m = m;
    }
    pthread_mutex_unlock(&l->mu);
    if (rc != JA_OK) {
        srv_live_reader_close(&r);
        return rc;
    }
    *out = r;
    return JA_OK;
}

static char *dump(json_t *j)
{
    char *t = j ? json_dumps(j, JSON_COMPACT) : NULL;
    json_decref(j);
    return t;
}

/* Observation obs of g as a JSON value (viewer_obs_json's object), or NULL
 * when out of memory. */
static json_t *obs_value(const ja_game_rules *g, const void *obs)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (f == NULL)
        return NULL;
    json_w w;
    jw_init(&w, f);
    viewer_obs_json(&w, NULL, g, obs);
    json_t *j = fclose(f) == 0 ? json_loadb(buf, len, 0, NULL) : NULL;
    free(buf);
    return j;
}

/* The labels of the action codes that observation obs names in its events
 * newer than the last r sent (viewer_event_codes: Bombs' plays), as
 * "labels" of j when there is one: a label depends on its code alone, and
 * obs shows the code. Other decisions' labels are never sent: a seat's
 * stream has its own (seat_event), the public stream none. */
static bool add_labels(srv_live_reader *r, json_t *j, const void *obs)
{
    const ja_game_rules *g = r->l->g;
    uint32_t codes[LIVE_CODES_MAX];
    uint32_t n = viewer_event_codes(g, obs, r->ev_after, codes, LIVE_CODES_MAX, &r->ev_after);
    if (n == 0)
        return true;
    json_t *o = json_object();
    for (uint32_t i = 0; i < n && o; i++) {
        char key[16], label[VIEWER_LABEL_MAX];
        snprintf(key, sizeof key, "%u", (unsigned)codes[i]);
        viewer_label(g, codes[i], label);
        if (json_object_set_new(o, key, json_string(label)) != 0) {
            json_decref(o);
            o = NULL;
        }
    }
    return o && json_object_set_new(j, "labels", o) == 0;
}

/* A seat's part in a decision as its stream tells it: the action's code
 * and label, forced, and its fault when it had one. */
static json_t *act_json(const ja_game_rules *g, const live_act *a)
{
    char label[VIEWER_LABEL_MAX];
    viewer_label(g, a->code, label);
    json_t *j = json_pack("{sI ss sb}", "code", (json_int_t)a->code, "label", label, "forced",
                          (int)a->forced);
    if (j && a->fault != JA_FAULT_NONE &&
        json_object_set_new(j, "fault", json_string(ja_fault_name(a->fault))) != 0) {
        json_decref(j);
        return NULL;
    }
    return j;
}

/* Seat r->seat's view of r->state as a "seen" event's JSON text: its
 * observation, its part in the decision that led there ("action"), the
 * labels its observation's events name; NULL when it did not decide and
 * its observation is the same as the last one sent (or out of memory). */
static char *seat_event(srv_live_reader *r)
{
    const ja_game_rules *g = r->l->g;
    g->observe(r->state, r->seat, r->obs);
    if (r->have_last && !r->act.in && memcmp(r->obs, r->last, g->obs_size) == 0)
        return NULL;
    memcpy(r->last, r->obs, g->obs_size);
    r->have_last = true;
    json_t *o = obs_value(g, r->obs);
    json_t *j = o ? json_pack("{ss si so}", "type", "seen", "seat", r->seat, "obs", o) : NULL;
    json_t *a = j && r->act.in ? act_json(g, &r->act) : NULL;
    bool ok = j && (!r->act.in || (a && json_object_set_new(j, "action", a) == 0)) &&
              add_labels(r, j, r->obs);
    if (!ok) {
        json_decref(j);
        return NULL;
    }
    return dump(j);
}

/* The "frame" event of public frame f (its state in r->state), sent when
 * the match had played `at` decisions: its line and, since version 2, the
 * public observation (JA_EXT_OBSERVE_PUBLIC) as "public"; since version 3
 * the labels of the codes its events name. */
static char *public_event(srv_live_reader *r, uint64_t f, uint64_t at, const char *line)
{
    const ja_game_rules *g = r->l->g;
    json_t *j = json_pack("{ss sI sI ss}", "type", "frame", "decision", (json_int_t)f, "at",
                          (json_int_t)at, "line", line);
    const ja_ext_observe_public *op = ja_rules_extension(g, JA_EXT_OBSERVE_PUBLIC);
    if (j && op) {
        op->observe_public(r->state, r->obs);
        json_t *o = obs_value(g, r->obs);
        if (o == NULL || json_object_set_new(j, "public", o) != 0 || !add_labels(r, j, r->obs)) {
            json_decref(j);
            return NULL;
        }
    }
    return dump(j);
}

/* The public line of frame f (slot k, its state copied into r->state) and
 * whether it may be sent: the first reader of a frame checks it, outside
 * the lock, and keeps the verdict while the slot holds the frame. l->mu
 * held on entry and on return. */
static bool frame_public(srv_live_reader *r, uint64_t f, uint32_t k, char line[LINE_MAX_])
{
    srv_live *l = r->l;
    live_match *m = r->m;
    if (m->checked[k] == f + 1) {
        memcpy(line, m->line[k], LINE_MAX_);
        return m->pub[k];
    }
    pthread_mutex_unlock(&l->mu);
    bool pub = line_public(l->g, m->seats, r->state, f, r->work, line);
    pthread_mutex_lock(&l->mu);
    if (m->frames <= f + m->ring) { /* not overwritten meanwhile */
        m->checked[k] = f + 1;
        m->pub[k] = pub;
        memcpy(m->line[k], line, LINE_MAX_);
    }
    return pub;
}

/* The "end" event of r's match (it has ended). l->mu held. */
static json_t *end_event(const live_match *m)
{
    if (m->failed)
        return json_pack("{ss ss}", "type", "end", "error", "the match could not be played");
    json_t *sc = json_array(), *pl = json_array();
    for (uint32_t s = 0; s < m->outcome.n_seats; s++) {
        json_array_append_new(sc, json_real((double)m->outcome.score[s] / JA_SCORE_UNIT));
        json_array_append_new(pl, json_integer(m->outcome.place[s]));
    }
    json_t *j = json_pack("{ss sI so so}", "type", "end", "decisions",
                          (json_int_t)(m->frames - 1), "scores", sc, "places", pl);
    if (j)
        json_object_set_new(j, "replay", m->replay[0] ? json_string(m->replay) : json_null());
    return j;
}

/* The next released frame's event for r into *text, JA_EAGAIN when none
 * is left to give (a seat's frames without a change give nothing). l->mu
 * held on entry; released on return, but for JA_EAGAIN: then it is still
 * held, so that no frame released meanwhile can be passed over by the
 * "end" event. */
static int next_frame(srv_live_reader *r, char **text)
{
    srv_live *l = r->l;
    live_match *m = r->m;
    for (;;) {
        uint64_t n = released(l, m);
        uint64_t lo = m->frames > m->ring ? m->frames - m->ring : 0;
        if (r->next < lo) /* fell behind: the oldest frame still kept */
            r->next = lo;
        if (r->next >= n)
            break;
        uint64_t f = r->next++;
        uint32_t k = (uint32_t)(f % m->ring);
        memcpy(r->state, m->states + (size_t)k * l->g->state_size, l->g->state_size);
        if (r->seat >= 0)
            r->act = m->acts[(size_t)k * m->seats + (uint32_t)r->seat];
        if (r->seat < 0) {
            char line[LINE_MAX_];
            uint64_t at = m->frames - 1;
            if (!frame_public(r, f, k, line))
                continue;
            pthread_mutex_unlock(&l->mu);
            *text = public_event(r, f, at, line);
            return *text ? JA_OK : JA_ENOMEM;
        }
        pthread_mutex_unlock(&l->mu);
        if ((*text = seat_event(r)) != NULL)
            return JA_OK;
        pthread_mutex_lock(&l->mu);
    }
    return JA_EAGAIN;
}

int srv_live_reader_next(srv_live_reader *r, char **text)
{
    srv_live *l = r->l;
    live_match *m = r->m;
    *text = NULL;
    if (r->done)
        return JA_ESTATE;
    pthread_mutex_lock(&l->mu);
    if (!r->started) {
        r->started = true;
        json_t *j = json_pack("{ss ss ss so sI si so si}", "type", "match", "id", m->id, "game",
                              l->g->name, "seats", seats_json(m), "delay", (json_int_t)l->delay,
                              "version", SRV_LIVE_VERSION, "fields", fields_json(l->g),
                              "score_unit", (int)JA_SCORE_UNIT);
        if (j && r->seat >= 0)
            json_object_set_new(j, "seat", json_integer(r->seat));
        pthread_mutex_unlock(&l->mu);
        *text = dump(j);
        return *text ? JA_OK : JA_ENOMEM;
    }
    int rc = next_frame(r, text);
    if (rc != JA_EAGAIN)
        return rc;
    if (!m->ended) {
        pthread_mutex_unlock(&l->mu);
        return JA_EAGAIN;
    }
    json_t *j = end_event(m);
    pthread_mutex_unlock(&l->mu);
    r->done = true;
    *text = dump(j);
    return *text ? JA_OK : JA_ENOMEM;
}

bool srv_live_reader_ready(srv_live_reader *r)
{
    if (r->done)
        return true; /* the stream is to be ended */
    pthread_mutex_lock(&r->l->mu);
    bool ready = !r->started || r->next < released(r->l, r->m) || r->m->ended;
    pthread_mutex_unlock(&r->l->mu);
    return ready;
}

void srv_live_reader_close(srv_live_reader **rp)
{
    srv_live_reader *r = *rp;
    if (r == NULL)
        return;
    if (r->m) {
        pthread_mutex_lock(&r->l->mu);
        r->m->readers--;
        match_release(r->l, r->m);
        pthread_mutex_unlock(&r->l->mu);
    }
    free(r->state);
    free(r->work);
    free(r->obs);
    free(r->last);
    free(r);
    *rp = NULL;
}

/* ---- tickets ------------------------------------------------------------------ */

/* Whether the bot in seat s of m is author's: its name is "AUTHOR@VERSION". */
static bool seat_is(const live_match *m, int s, const char *author)
{
    size_t n = strlen(author);
    return n && strncmp(m->names[s], author, n) == 0 && m->names[s][n] == '@';
}

int srv_live_ticket_new(srv_live *l, const char *id, int seat, const char *author,
                        char ticket[65])
{
    pthread_mutex_lock(&l->mu);
    live_match *m = find(l, id);
    int rc = m == NULL || m->ended                   ? JA_ENOTFOUND
             : seat < 0 || seat >= (int)m->seats     ? JA_ERANGE
             : !seat_is(m, seat, author)             ? JA_EBUSY
                                                     : JA_OK;
    if (rc == JA_OK) {
        /* A free or expired slot, else the one that expires first. */
        time_t now = mono_now();
        live_ticket *t = &m->tickets[0];
        for (uint32_t i = 0; i < SRV_LIVE_TICKETS; i++) {
            live_ticket *c = &m->tickets[i];
            if (!c->hash[0] || c->expires <= now) {
                t = c;
                break;
            }
            if (c->expires < t->expires)
                t = c;
        }
        arena_serve_token_new(ticket);
        arena_serve_token_hash(ticket, t->hash);
        t->seat = seat;
        t->expires = now + SRV_LIVE_TICKET_SECONDS;
    }
    pthread_mutex_unlock(&l->mu);
    return rc;
}

bool srv_live_ticket_use(srv_live *l, const char *id, const char *ticket, int *seat)
{
    if (ticket == NULL || !arena_serve_token_shape(ticket))
        return false;
    bool ok = false;
    pthread_mutex_lock(&l->mu);
    live_match *m = find(l, id);
    if (m && m->ended) /* tickets die with their match */
        m = NULL;
    time_t now = mono_now();
    for (uint32_t i = 0; m && i < SRV_LIVE_TICKETS && !ok; i++) {
        live_ticket *t = &m->tickets[i];
        if (t->hash[0] && t->expires > now && arena_serve_token_check(ticket, t->hash)) {
            ok = true;
            *seat = t->seat;
            t->hash[0] = '\0'; /* once */
        }
    }
    pthread_mutex_unlock(&l->mu);
    return ok;
}

/* ---- routes ------------------------------------------------------------------- */

/* The match id of the n characters at p, canonical, into id. */
static bool take_id(const char *p, size_t n, char id[SRV_LIVE_ID_MAX])
{
    char buf[SRV_LIVE_ID_MAX];
    int64_t t;
    uint32_t num;
    if (n == 0 || n >= sizeof buf)
        return false;
    memcpy(buf, p, n);
    buf[n] = '\0';
    if (!arena_serve_match_id(buf, &t, &num))
        return false;
    snprintf(id, SRV_LIVE_ID_MAX, "%" PRId64 "-%u", t, (unsigned)num);
    return strcmp(id, buf) == 0;
}

srv_live_route_kind srv_live_route(const char *method, const char *path,
                                   char id[SRV_LIVE_ID_MAX])
{
    id[0] = '\0';
    if (method == NULL || path == NULL)
        return SRV_LIVE_NONE;
    bool get = strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0;
    bool post = strcmp(method, "POST") == 0;
    size_t n = strlen(path);
    srv_live_route_kind k = SRV_LIVE_NONE;
    bool want_post = false;
    if (strcmp(path, "/live") == 0)
        k = SRV_LIVE_LIST_PAGE;
    else if (strcmp(path, "/api/live") == 0)
        k = SRV_LIVE_LIST;
    else if (strncmp(path, "/live/", 6) == 0 && take_id(path + 6, n - 6, id))
        k = SRV_LIVE_PAGE;
    else if (strncmp(path, "/api/live/", 10) == 0 && n > 17) {
        const char *tail = path + n - 7;
        if (strcmp(tail, "/events") == 0 && take_id(path + 10, n - 17, id))
            k = SRV_LIVE_EVENTS;
        else if (strcmp(tail, "/ticket") == 0 && take_id(path + 10, n - 17, id))
            k = SRV_LIVE_TICKET, want_post = true;
    }
    if (k == SRV_LIVE_NONE) {
        id[0] = '\0';
        return k;
    }
    return (want_post ? post : get) ? k : SRV_LIVE_BAD_METHOD;
}
