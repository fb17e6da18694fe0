/* Batched training environments (ja_vec_env.h, docs/training.md). */
#include "jackarena/ja_vec_env.h"

#include "jackarena/ja_error.h"
#include "jackarena/ja_forward.h"
#include "jackarena/ja_params.h"
#include "jackarena/ja_rng.h"

#include <nettle/sha2.h>
#include <pthread.h>
#include <sodium.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Codes below this are the action index's (gen_encodings.py's CODE_LIMIT). */
#define CODE_LIMIT 65536u
#define NO_INDEX 0xFFFFu
#define EPISODE_STREAM JA_TAG('E', 'P', 'I', 'S')
#define CHUNK 32u /* bytes of an observation compared at a time (encode_delta) */

/* A run of the observation vector: count elements of one type, contiguous
 * in the C struct (from src) and in the vector (from dst). */
typedef struct vec_run {
    uint32_t src, dst, count;
    uint16_t type;
} vec_run;

/* A column of the observation's event window (JA_VEC_EVENT_RING): K
 * elements of one type from src in the struct, at dst in the vector. */
typedef struct vec_col {
    uint32_t src, dst;
    uint16_t type;
} vec_col;

#define MAX_EV_COLS 8u

typedef struct vec_opp {
    const ja_bot_desc *desc;
    char params[JA_PARAMS_MAX];
} vec_opp;

/* One opponent seat of one environment; its address is the plugin's hctx. */
typedef struct vec_seat {
    ja_rng rng; /* the seat's own stream (rng_next) */
    const vec_opp *opp;
    void *bot;  /* the instance, NULL between episodes */
    uint32_t turn;
    const void *act_obs; /* the observation of the act() in progress (observe) */
} vec_seat;

enum { VS_NONE, VS_ASKED, VS_OVER };

/* One thread's part of a step: its scratch memory, the engine steps it
 * played, its first error. work[0] is the caller's thread; the others are
 * the pool's (ja_vec_set_threads). */
typedef struct vec_work {
    ja_vec_env *e;
    ja_action *scratch;  /* max_actions: an opponent's legal list */
    unsigned char *prev; /* obs_stride: the observation a row encodes, kept */
    uint64_t decisions;  /* engine steps played, added to e's after the call */
    uint64_t seen;       /* the pool's generation this worker last ran */
    const int64_t *actions;
    int rc;              /* JA_OK, or the error of environment `failed` */
    uint32_t failed;
    char err[256];
    pthread_t thread;
} vec_work;

typedef struct vec_slot {
    struct sha256_ctx dg; /* Nettle's SHA-256, as the referee's digest */
    uint64_t base_seed, seed, episode; /* episode: index of the current one */
    uint32_t n_legal;                  /* the asked seat's, when asked */
    uint32_t decisions, faults, learner_steps;
    /* The decision being answered: its seats (0: none begun), those not
     * answered yet, the seat asked, the answers so far. */
    uint32_t mask, left, asked;
    ja_action by_seat[JA_MAX_SEATS];
    uint32_t n_on;     /* the row's mask elements set (their indexes: on) */
    uint32_t row_seat; /* the seat whose observation the row's vector encodes */
    /* JA_VEC_SEAT_ROWS: bit s, seat s's row encodes its observation (obs_of
     * the seat), which it did when last written, in this episode */
    uint32_t seats_valid;
    /* The row is what this wrote last: its vector encodes row_seat's
     * observation (in prev when prev_saved: the episode restarted since),
     * its mask is 1 at on's indexes and 0 elsewhere. */
    bool row_valid, prev_saved;
    uint8_t state;
    ja_vec_episode last;
} vec_slot;

struct ja_vec_env {
    const ja_game_rules *g;
    const ja_ext_observe_update *upd;
    ja_options opts;
    char opts_text[1024];
    uint32_t n_envs, n_seats, learner, flags, n_rewards;
    uint32_t obs_length, n_actions, n_runs;
    size_t state_stride, obs_stride;
    size_t row_floats;     /* an environment's floats in the vector buffer */
    bool seat_rows, ring;  /* JA_VEC_SEAT_ROWS, JA_VEC_EVENT_RING */
    /* The event window (ring): its K, event_seq's offset in the struct, its
     * columns (ev_seq first); the runs leave them out. */
    uint32_t ev_k, ev_count_src, n_ev_cols;
    vec_col ev_cols[MAX_EV_COLS];
    vec_run *runs;
    vec_run *parts;        /* the runs cut at chunks of CHUNK bytes, chunk by chunk */
    uint32_t *chunk_part;  /* n_chunks + 1: each chunk's first part */
    uint32_t n_chunks;
    uint32_t *cmp;         /* the chunks with a part, compared by encode_delta */
    uint32_t n_cmp;
    uint32_t *codes;    /* n_actions */
    uint16_t *index_of; /* CODE_LIMIT: the index of a code, NO_INDEX for none */
    vec_opp *opps;
    uint32_t n_opps;
    ja_vec_buffers buf;
    bool bound;
    uint64_t decisions; /* engine steps played, every environment */
    unsigned char *states; /* n_envs states */
    unsigned char *obs;    /* n_envs x n_seats observations */
    uint16_t *on;          /* n_envs x max_actions: the row's mask elements set */
    vec_slot *slots;
    vec_seat *seats;       /* n_envs x n_seats */
    ja_action *legal;      /* n_envs x max_actions: the asked seat's legal list */
    vec_work *work;        /* n_work: the caller's thread's, then the pool's */
    uint32_t n_work, n_started; /* work[1 .. n_started): threads running */
    /* The pool: workers wait for gen to move on, step their environments
     * and count pending down; quit ends them. */
    pthread_mutex_t mu;
    pthread_cond_t go, done;
    uint64_t gen;
    uint32_t pending;
    atomic_uint next; /* the first environment no thread has taken yet */
    bool quit, pool_ready;
};

static int fail(char *err, size_t cap, int rc, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail(char *err, size_t cap, int rc, const char *fmt, ...)
{
    if (err && cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, cap, fmt, ap);
        va_end(ap);
    }
    return rc;
}

/* ---- the host services a plugin gets (ja_bot.h) ------------------------------ */

static void host_log(void *hctx, int level, const char *msg)
{
    (void)hctx, (void)level, (void)msg; /* no one reads an environment's bot logs */
}

static uint64_t host_rng_next(void *hctx)
{
    return ja_rng_next(&((vec_seat *)hctx)->rng);
}

static int64_t host_time_left_ms(void *hctx)
{
    (void)hctx;
    return -1; /* no deadline */
}

static const char *host_params(void *hctx)
{
    return ((vec_seat *)hctx)->opp->params;
}

/* Every decision is handed with its observation (d->obs), on-demand bots'
 * too (ABI 1.3): observe() gives the same, during act() alone. */
static const void *host_observe(void *hctx)
{
    return ((vec_seat *)hctx)->act_obs;
}

static const ja_host_api HOST = {sizeof(ja_host_api), host_log, host_rng_next,
                                 host_time_left_ms, ja_game_find, host_params,
                                 host_observe};

/* ---- seeds ---------------------------------------------------------------------- */

uint64_t ja_vec_bot_seed(uint64_t match_seed, int32_t seat)
{
    unsigned char in[16], out[crypto_generichash_BYTES_MIN];
    for (int i = 0; i < 8; i++)
        in[i] = (unsigned char)(match_seed >> (8 * i));
    memcpy(in + 8, "BOT ", 4);
    for (int i = 0; i < 4; i++)
        in[12 + i] = (unsigned char)((uint32_t)seat >> (8 * i));
    crypto_generichash(out, sizeof out, in, sizeof in, NULL, 0);
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)out[i] << (8 * i);
    return v;
}

uint64_t ja_vec_episode_seed(uint64_t seed, uint64_t k)
{
    return k == 0 ? seed : ja_seed_derive(seed, EPISODE_STREAM, k);
}

/* ---- the digest (docs/replay-format.md, "Digest") ----------------------------- */

static void dg_u32(struct sha256_ctx *d, uint32_t v)
{
    unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    sha256_update(d, 4, b);
}

static void dg_u64(struct sha256_ctx *d, uint64_t v)
{
    dg_u32(d, (uint32_t)v);
    dg_u32(d, (uint32_t)(v >> 32));
}

static void dg_text(struct sha256_ctx *d, const char *s)
{
    sha256_update(d, strlen(s) + 1, (const uint8_t *)s);
}

static void dg_begin(const ja_vec_env *e, vec_slot *sl)
{
    sha256_init(&sl->dg);
    dg_text(&sl->dg, "jackarena-digest-v1");
    dg_text(&sl->dg, e->g->name);
    dg_u32(&sl->dg, e->g->rules_version);
    dg_text(&sl->dg, e->opts_text);
    dg_u64(&sl->dg, sl->seed);
    dg_u32(&sl->dg, e->n_seats);
}

static void dg_step(vec_slot *sl, uint32_t mask, const ja_action *by_seat)
{
    unsigned char b[4 * (1 + JA_MAX_SEATS)], *p = b;
    uint32_t v = mask;
    for (uint32_t left = mask;; left &= left - 1) {
        p[0] = (unsigned char)v;
        p[1] = (unsigned char)(v >> 8);
        p[2] = (unsigned char)(v >> 16);
        p[3] = (unsigned char)(v >> 24);
        p += 4;
        if (!left)
            break;
        v = by_seat[__builtin_ctz(left)].code;
    }
    sha256_update(&sl->dg, (size_t)(p - b), b);
}

static void dg_end(vec_slot *sl, const ja_outcome *o, char hex[JA_VEC_DIGEST_HEX])
{
    uint8_t bin[SHA256_DIGEST_SIZE];
    dg_u32(&sl->dg, 0xFFFFFFFFu);
    for (uint32_t s = 0; s < o->n_seats; s++) {
        dg_u64(&sl->dg, (uint64_t)o->score[s]);
        dg_u32(&sl->dg, o->place[s]);
    }
    sha256_digest(&sl->dg, sizeof bin, bin);
    sodium_bin2hex(hex, JA_VEC_DIGEST_HEX, bin, sizeof bin);
}

/* ---- the encodings ------------------------------------------------------------- */

static uint32_t type_size(uint16_t t)
{
    static const uint8_t SIZE[JA_FT_COUNT] = {1, 1, 2, 2, 4, 4, 8};
    return t < JA_FT_COUNT ? SIZE[t] : 0;
}

/* Whether field f is a column of the event window of K entries: ev_seq and
 * the other ev_* arrays of its length (every game's observation names its
 * window so). */
static bool event_column(const ja_field *f, uint32_t k)
{
    return k && f->count == k && strncmp(f->name, "ev_", 3) == 0;
}

/* JA_VEC_EVENT_RING: the event window's K (ev_seq's count), event_seq and
 * the columns (ev_seq first). JA_OK, or JA_EINVAL for a game whose
 * observation has no such window. */
static int find_events(ja_vec_env *e, char *err, size_t cap)
{
    const ja_game_rules *g = e->g;
    uint32_t at = 0, seq_at = 0;
    bool count = false;
    e->ev_k = 0;
    for (uint32_t k = 0; k < g->n_obs_fields; k++) {
        const ja_field *f = &g->obs_fields[k];
        if (strcmp(f->name, "ev_seq") == 0 && f->type == JA_FT_U32) {
            e->ev_k = f->count;
            seq_at = at;
        }
        if (strcmp(f->name, "event_seq") == 0 && f->type == JA_FT_U32 && f->count == 1) {
            e->ev_count_src = f->offset;
            count = true;
        }
        at += f->count;
    }
    if (!e->ev_k || !count)
        return fail(err, cap, JA_EINVAL, "%s: its observation has no event window (ev_seq and "
                    "event_seq) to keep as a ring", g->name);
    e->n_ev_cols = 0;
    at = 0;
    for (uint32_t k = 0; k < g->n_obs_fields; k++) {
        const ja_field *f = &g->obs_fields[k];
        if (event_column(f, e->ev_k)) {
            if (e->n_ev_cols == MAX_EV_COLS)
                return fail(err, cap, JA_EINVAL, "%s: more than %u event columns", g->name,
                            MAX_EV_COLS);
            vec_col c = {f->offset, at, f->type};
            if (at == seq_at) { /* ev_seq first */
                e->ev_cols[e->n_ev_cols] = e->ev_cols[0];
                e->ev_cols[0] = c;
            } else {
                e->ev_cols[e->n_ev_cols] = c;
            }
            e->n_ev_cols++;
        }
        at += f->count;
    }
    return JA_OK;
}

/* The observation vector's runs: the field table's fields in order, one
 * run for consecutive fields of one type that follow each other in the
 * struct (with JA_VEC_EVENT_RING, the event columns left out: the ring's
 * own code writes them). Returns the vector's length, 0 when out of
 * memory. */
static uint32_t build_runs(ja_vec_env *e)
{
    const ja_game_rules *g = e->g;
    e->runs = calloc(g->n_obs_fields ? g->n_obs_fields : 1, sizeof *e->runs);
    if (!e->runs)
        return 0;
    uint32_t at = 0, n = 0;
    for (uint32_t k = 0; k < g->n_obs_fields; k++) {
        const ja_field *f = &g->obs_fields[k];
        if (e->ring && event_column(f, e->ev_k)) {
            at += f->count;
            continue;
        }
        vec_run *last = n ? &e->runs[n - 1] : NULL;
        if (last && last->dst + last->count != at)
            last = NULL; /* a gap: the event columns */
        if (last && last->type == f->type &&
            last->src + last->count * type_size(f->type) == f->offset)
            last->count += f->count;
        else
            e->runs[n++] = (vec_run){f->offset, at, f->count, f->type};
        at += f->count;
    }
    e->n_runs = n;
    return at;
}

/* The action index: every code below CODE_LIMIT the game's label() names,
 * ascending (as gen_encodings.py probes them). JA_OK or JA_ENOMEM. */
static int build_index(ja_vec_env *e)
{
    char label[128];
    e->index_of = malloc(CODE_LIMIT * sizeof *e->index_of);
    e->codes = malloc(CODE_LIMIT * sizeof *e->codes);
    if (!e->index_of || !e->codes)
        return JA_ENOMEM;
    uint32_t n = 0;
    for (uint32_t c = 0; c < CODE_LIMIT; c++) {
        bool named = e->g->label((ja_action){c}, label, sizeof label) >= 0;
        e->index_of[c] = named && n < NO_INDEX ? (uint16_t)n : NO_INDEX;
        if (named && n < NO_INDEX)
            e->codes[n++] = c;
    }
    e->n_actions = n;
    return JA_OK;
}

/* M(T) with T the C type of field type t. */
#define BY_TYPE(t, M)                                                \
    do {                                                             \
        switch (t) {                                                 \
        case JA_FT_U8: M(uint8_t); break;                            \
        case JA_FT_I8: M(int8_t); break;                             \
        case JA_FT_U16: M(uint16_t); break;                          \
        case JA_FT_I16: M(int16_t); break;                           \
        case JA_FT_U32: M(uint32_t); break;                          \
        case JA_FT_I32: M(int32_t); break;                           \
        default: M(int64_t); break;                                  \
        }                                                            \
    } while (0)

#define CONVERT(T)                                                   \
    do {                                                             \
        const T *s = (const T *)(const void *)src;                   \
        for (uint32_t j = 0; j < r->count; j++)                      \
            out[j] = (float)s[j];                                    \
    } while (0)

/* Writes runs[0 .. n) of raw observation obs to vec. */
static inline void encode_runs(const vec_run *runs, uint32_t n, const unsigned char *obs,
                               float *restrict vec)
{
    for (uint32_t k = 0; k < n; k++) {
        const vec_run *r = &runs[k];
        const unsigned char *src = obs + r->src;
        float *restrict out = vec + r->dst;
        BY_TYPE(r->type, CONVERT);
    }
}

static uint32_t obs_u32(const unsigned char *obs, uint32_t at)
{
    uint32_t v;
    memcpy(&v, obs + at, sizeof v);
    return v;
}

#define RING_COPY(T)                                                 \
    do {                                                             \
        const T *in = (const T *)(const void *)(obs + col->src);     \
        for (uint32_t x = j, slot = slot0; x < end; x++) {           \
            out[slot] = (float)in[x];                                \
            slot = slot + 1 == k ? 0 : slot + 1;                     \
        }                                                            \
    } while (0)

/* JA_VEC_EVENT_RING: the window's entries from j on (oldest first, each
 * numbered by ev_seq, consecutive, 0 for none) to their slots of the ring:
 * entry number q at slot (q - 1) % K of every column. */
static void ring_entries(const ja_vec_env *e, const unsigned char *obs, uint32_t j,
                         float *restrict vec)
{
    const uint32_t k = e->ev_k, *seq = (const uint32_t *)(const void *)(obs + e->ev_cols[0].src);
    uint32_t end = j;
    while (end < k && seq[end])
        end++;
    if (end == j)
        return;
    const uint32_t slot0 = (seq[j] - 1) % k;
    for (uint32_t c = 0; c < e->n_ev_cols; c++) {
        const vec_col *col = &e->ev_cols[c];
        float *restrict out = vec + col->dst;
        BY_TYPE(col->type, RING_COPY);
    }
}

/* The ring of obs, whole: every slot no entry fills is 0, as the window's
 * empty entries are. */
static void ring_full(const ja_vec_env *e, const unsigned char *obs, float *restrict vec)
{
    for (uint32_t c = 0; c < e->n_ev_cols; c++)
        memset(vec + e->ev_cols[c].dst, 0, e->ev_k * sizeof *vec);
    ring_entries(e, obs, 0, vec);
}

/* Whether the window of obs (n events so far) holds what prev's (r <= n)
 * does for every event both hold: compared column by column. */
static bool ring_overlap_same(const ja_vec_env *e, const unsigned char *obs,
                              const unsigned char *prev, uint32_t n, uint32_t r)
{
    const uint32_t k = e->ev_k, lo = n > k ? n - k : 0, r_first = r > k ? r - k : 0;
    if (r <= lo)
        return true; /* none in both */
    for (uint32_t c = 0; c < e->n_ev_cols; c++) {
        const vec_col *col = &e->ev_cols[c];
        const uint32_t size = type_size(col->type);
        if (memcmp(obs + col->src, prev + col->src + (size_t)(lo - r_first) * size,
                   (size_t)(r - lo) * size) != 0)
            return false;
    }
    return true;
}

/* The ring of obs where the vector holds prev's: the events since prev's
 * newest written to their slots, when both windows agree on the events
 * both hold (checked when they are two seats' observations: one seat's
 * window only gains events), else the ring whole. */
static void ring_delta(const ja_vec_env *e, const unsigned char *obs, const unsigned char *prev,
                       bool same_seat, float *restrict vec)
{
    const uint32_t k = e->ev_k, n = obs_u32(obs, e->ev_count_src),
                   r = obs_u32(prev, e->ev_count_src);
    if (n < r || n - r >= k || (!same_seat && !ring_overlap_same(e, obs, prev, n, r))) {
        ring_full(e, obs, vec);
        return;
    }
    const uint32_t held = n < k ? n : k; /* the window's entries; the last n - r are new */
    ring_entries(e, obs, held - (n - r), vec);
}

/* The vector of raw observation obs, whole. */
static void encode(const ja_vec_env *e, const unsigned char *obs, float *restrict vec)
{
    encode_runs(e->runs, e->n_runs, obs, vec);
    if (e->ring)
        ring_full(e, obs, vec);
}

/* The elements of obs that differ from prev (the observation vec encodes),
 * chunk by chunk of CHUNK bytes (the chunks with a run's element), and the
 * ring's new events. The bytes past obs_size are zeros in both. */
static void encode_delta(const ja_vec_env *e, const unsigned char *obs,
                         const unsigned char *prev, bool same_seat, float *restrict vec)
{
    for (uint32_t k = 0; k < e->n_cmp; k++) {
        const uint32_t c = e->cmp[k];
        if (memcmp(obs + c * CHUNK, prev + c * CHUNK, CHUNK) != 0)
            encode_runs(e->parts + e->chunk_part[c], e->chunk_part[c + 1] - e->chunk_part[c],
                        obs, vec);
    }
    if (e->ring)
        ring_delta(e, obs, prev, same_seat, vec);
}

/* The part of run r in chunk c (the elements with a byte in it): its count
 * 0 for none. */
static vec_run run_part(const vec_run *r, uint32_t c)
{
    const uint32_t size = type_size(r->type), end = r->src + r->count * size;
    const uint32_t lo = c * CHUNK, hi = lo + CHUNK;
    if (end <= lo || r->src >= hi)
        return (vec_run){0, 0, 0, r->type};
    const uint32_t from = (lo > r->src ? lo - r->src : 0) / size;
    const uint32_t to = ((hi < end ? hi : end) - r->src + size - 1) / size;
    return (vec_run){r->src + from * size, r->dst + from, to - from, r->type};
}

/* parts and chunk_part: the runs cut at the chunks, for encode_delta.
 * JA_OK or JA_ENOMEM. */
static int build_parts(ja_vec_env *e)
{
    uint32_t n_chunks = (e->g->obs_size + CHUNK - 1) / CHUNK, n = 0;
    e->chunk_part = malloc((n_chunks + 1) * sizeof *e->chunk_part);
    if (!e->chunk_part)
        return JA_ENOMEM;
    for (int pass = 0; pass < 2; pass++) {
        n = 0;
        for (uint32_t c = 0; c < n_chunks; c++) {
            e->chunk_part[c] = n;
            for (uint32_t k = 0; k < e->n_runs; k++) {
                vec_run p = run_part(&e->runs[k], c);
                if (p.count && pass)
                    e->parts[n] = p;
                n += p.count ? 1 : 0;
            }
        }
        e->chunk_part[n_chunks] = n;
        if (!pass && !(e->parts = malloc((n ? n : 1) * sizeof *e->parts)))
            return JA_ENOMEM;
    }
    e->n_chunks = n_chunks;
    if (!(e->cmp = malloc((n_chunks ? n_chunks : 1) * sizeof *e->cmp)))
        return JA_ENOMEM;
    e->n_cmp = 0;
    for (uint32_t c = 0; c < n_chunks; c++)
        if (e->chunk_part[c + 1] > e->chunk_part[c])
            e->cmp[e->n_cmp++] = c;
    return JA_OK;
}

/* ---- one environment -------------------------------------------------------------- */

static unsigned char *state_of(const ja_vec_env *e, uint32_t i)
{
    return e->states + (size_t)i * e->state_stride;
}

static unsigned char *obs_of(const ja_vec_env *e, uint32_t i, uint32_t seat)
{
    return e->obs + ((size_t)i * e->n_seats + seat) * e->obs_stride;
}

static vec_seat *seat_of(const ja_vec_env *e, uint32_t i, uint32_t seat)
{
    return &e->seats[(size_t)i * e->n_seats + seat];
}

/* Writes environment i's row: seat's observation and its mask (the legal
 * list when asked, else none); when the row is still what this wrote last,
 * only what changed since (the observation it encodes: in prev after a
 * restart, else still in row_seat's buffer, copied to prev before an update
 * of that same seat). With JA_VEC_SEAT_ROWS the vector is seat's own row,
 * which encodes seat's observation when it was last written (in this
 * episode: else written whole). */
static void write_row(ja_vec_env *e, vec_work *w, uint32_t i, uint32_t seat, bool asked)
{
    vec_slot *sl = &e->slots[i];
    unsigned char *obs = obs_of(e, i, seat);
    const unsigned char *prev = NULL;
    bool same_seat = true, mask_valid = sl->row_valid;
    if (e->seat_rows) {
        if (sl->seats_valid >> seat & 1u)
            prev = memcpy(w->prev, obs, e->obs_stride);
    } else if (sl->row_valid) {
        same_seat = !sl->prev_saved && seat == sl->row_seat;
        prev = sl->prev_saved ? w->prev
               : same_seat    ? memcpy(w->prev, obs, e->obs_stride)
                              : obs_of(e, i, sl->row_seat);
    }
    e->upd->update(state_of(e, i), (int)seat, obs);
    float *vec = e->buf.obs + (size_t)i * e->row_floats +
                 (e->seat_rows ? (size_t)seat * e->obs_length : 0);
    int8_t *mask = e->buf.mask + (size_t)i * e->n_actions;
    uint16_t *on = e->on + (size_t)i * e->g->max_actions;
    if (prev)
        encode_delta(e, obs, prev, same_seat, vec);
    else
        encode(e, obs, vec);
    if (mask_valid) {
        for (uint32_t k = 0; k < sl->n_on; k++)
            mask[on[k]] = 0;
    } else {
        memset(mask, 0, e->n_actions);
    }
    sl->row_valid = true;
    sl->prev_saved = false;
    sl->row_seat = seat;
    sl->seats_valid |= 1u << seat;
    sl->n_on = 0;
    if (e->buf.seat)
        e->buf.seat[i] = (int32_t)seat;
    if (!asked)
        return;
    const ja_action *legal = e->legal + (size_t)i * e->g->max_actions;
    for (uint32_t k = 0; k < sl->n_legal; k++) {
        uint32_t c = legal[k].code;
        uint16_t x = c < CODE_LIMIT ? e->index_of[c] : NO_INDEX;
        if (x != NO_INDEX && !mask[x]) {
            mask[x] = 1;
            on[sl->n_on++] = x;
        }
    }
}

/* An opponent's answer for its seat: a single legal action without asking,
 * else the bot's choice, or the default action for a fault. */
static ja_action opponent_act(ja_vec_env *e, vec_work *w, uint32_t i, uint32_t seat)
{
    const ja_game_rules *g = e->g;
    const unsigned char *st = state_of(e, i);
    ja_action *scratch = w->scratch;
    uint32_t n = g->legal(st, (int)seat, scratch, g->max_actions);
    if (n <= 1)
        return n ? scratch[0] : g->default_action(st, (int)seat);
    vec_seat *vs = seat_of(e, i, seat);
    unsigned char *obs = obs_of(e, i, seat);
    e->upd->update(st, (int)seat, obs);
    ja_decision d = {.struct_size = sizeof d, .turn = ++vs->turn, .deadline_ms = 0,
                     .seat = (int32_t)seat, .n_seats = e->n_seats, .game = g->name,
                     .obs_version = g->obs_version, .obs_size = g->obs_size, .obs = obs,
                     .legal = scratch, .n_legal = n};
    uint32_t index = UINT32_MAX;
    vs->act_obs = obs;
    int rc = vs->bot ? vs->opp->desc->act(vs->bot, &d, &index) : JA_EBOT;
    vs->act_obs = NULL;
    if (rc != JA_OK || index >= n) {
        e->slots[i].faults++;
        return g->default_action(st, (int)seat);
    }
    return scratch[index];
}

static void close_bots(ja_vec_env *e, uint32_t i, const ja_outcome *o)
{
    for (uint32_t s = 0; s < e->n_seats; s++) {
        vec_seat *vs = seat_of(e, i, s);
        if (!vs->bot)
            continue;
        if (o && JA_BOT_HAS(vs->opp->desc, end))
            vs->opp->desc->end(vs->bot, o);
        vs->opp->desc->destroy(vs->bot);
        vs->bot = NULL;
    }
}

/* The match of environment i is over: its record, the bots' end, the row
 * (the final observation, no legal action), done and the reward. */
static void finish(ja_vec_env *e, vec_work *w, uint32_t i)
{
    vec_slot *sl = &e->slots[i];
    ja_outcome o;
    memset(&o, 0, sizeof o);
    e->g->outcome(state_of(e, i), &o);
    ja_vec_episode *last = &sl->last;
    last->episodes = sl->episode + 1;
    last->seed = sl->seed;
    last->decisions = sl->decisions;
    last->faults = sl->faults;
    last->learner_steps = sl->learner_steps;
    last->units = o.score[e->learner];
    last->place = o.place[e->learner];
    for (uint32_t s = 0; s < e->n_seats; s++) {
        last->scores[s] = o.score[s];
        last->places[s] = o.place[s];
    }
    dg_end(sl, &o, last->digest);
    close_bots(e, i, &o);
    sl->state = VS_OVER;
    write_row(e, w, i, e->flags & JA_VEC_SELF_PLAY ? sl->asked : e->learner, false);
    e->buf.done[i] = 1;
    float *reward = e->buf.reward + (size_t)i * e->n_rewards;
    for (uint32_t k = 0; k < e->n_rewards; k++) {
        int s = e->n_rewards > 1 ? (int)k : (int)e->learner;
        reward[k] = e->flags & JA_VEC_REWARD_PLACE ? (float)ja_outcome_pairwise(&o, s)
                                                   : (float)((double)o.score[s] / JA_SCORE_UNIT);
    }
}

/* Seat s's answer in environment i when the caller plays it: a single
 * legal action played for it (true), or the seat asked (false: its row
 * written). */
static bool ask(ja_vec_env *e, vec_work *w, uint32_t i, uint32_t s)
{
    const ja_game_rules *g = e->g;
    vec_slot *sl = &e->slots[i];
    const unsigned char *st = state_of(e, i);
    ja_action *legal = e->legal + (size_t)i * g->max_actions;
    uint32_t n = g->legal(st, (int)s, legal, g->max_actions);
    if (n > 1 || (e->flags & JA_VEC_ASK_FORCED)) {
        sl->n_legal = n;
        sl->asked = s;
        sl->state = VS_ASKED;
        sl->learner_steps++;
        write_row(e, w, i, s, true);
        return false;
    }
    sl->by_seat[s] = n ? legal[0] : g->default_action(st, (int)s);
    return true;
}

/* Plays environment i until a seat of the caller's is asked (its row
 * written) or the match ends (finish). answer: the asked seat's answer, or
 * NULL. The seats of a decision answer in seat order, from the same state;
 * the engine applies their answers after the last. */
static void advance(ja_vec_env *e, vec_work *w, uint32_t i, const ja_action *answer)
{
    const ja_game_rules *g = e->g;
    unsigned char *st = state_of(e, i);
    vec_slot *sl = &e->slots[i];
    const uint32_t mine = e->flags & JA_VEC_SELF_PLAY ? ~0u : 1u << e->learner;
    if (answer) {
        sl->by_seat[sl->asked] = *answer;
        sl->left &= ~(1u << sl->asked);
    }
    for (;;) {
        if (!sl->mask) {
            sl->mask = sl->left = g->to_act(st);
            if (!sl->mask) {
                finish(e, w, i);
                return;
            }
        }
        for (; sl->left; sl->left &= sl->left - 1) {
            uint32_t s = (uint32_t)__builtin_ctz(sl->left);
            if (!(mine & (1u << s)))
                sl->by_seat[s] = opponent_act(e, w, i, s);
            else if (!ask(e, w, i, s))
                return;
        }
        dg_step(sl, sl->mask, sl->by_seat);
        g->apply(st, sl->mask, sl->by_seat); /* legal lists' actions: JA_OK */
        sl->mask = 0;
        sl->decisions++;
        w->decisions++;
    }
}

static void clear_reward(ja_vec_env *e, uint32_t i)
{
    for (uint32_t k = 0; k < e->n_rewards; k++)
        e->buf.reward[(size_t)i * e->n_rewards + k] = 0.0f;
}

/* Starts episode `episode` of environment i (seed base) and plays to the
 * learner's first decision. JA_OK, or JA_EBOT when an opponent refused its
 * seat (err names it). */
static int start(ja_vec_env *e, vec_work *w, uint32_t i, uint64_t base, uint64_t episode,
                 char *err, size_t cap)
{
    const ja_game_rules *g = e->g;
    vec_slot *sl = &e->slots[i];
    close_bots(e, i, NULL);
    sl->base_seed = base;
    sl->episode = episode;
    sl->seed = ja_vec_episode_seed(base, episode);
    sl->decisions = sl->faults = sl->learner_steps = 0;
    sl->mask = sl->left = sl->asked = 0;
    sl->state = VS_NONE;
    if (g->setup(state_of(e, i), &e->opts, e->n_seats, sl->seed) != JA_OK)
        return fail(err, cap, JA_EINVAL, "environment %u: %s refused its setup", i, g->name);
    if (sl->row_valid && !e->seat_rows) { /* the observation the row encodes, about to be zeroed */
        memcpy(w->prev, obs_of(e, i, sl->row_seat), e->obs_stride);
        sl->prev_saved = true;
    }
    sl->seats_valid = 0; /* the seats' rows: each written whole when next asked */
    memset(obs_of(e, i, 0), 0, e->obs_stride * e->n_seats);
    dg_begin(e, sl);
    for (uint32_t s = 0; s < e->n_seats && !(e->flags & JA_VEC_SELF_PLAY); s++) {
        if (s == e->learner)
            continue;
        vec_seat *vs = seat_of(e, i, s);
        ja_rng_seed(&vs->rng, ja_vec_bot_seed(sl->seed, (int32_t)s));
        vs->turn = 0;
        int rc = vs->opp->desc->create(&HOST, vs, g->name, (int32_t)s, e->n_seats, &vs->bot);
        if (rc != JA_OK || !vs->bot) {
            vs->bot = NULL;
            sl->row_valid = false; /* prev is another's: the next row is written whole */
            close_bots(e, i, NULL);
            return fail(err, cap, JA_EBOT, "environment %u: bot %s refused seat %u of %s: %s", i,
                        vs->opp->desc->name ? vs->opp->desc->name : "?", s, g->name,
                        ja_strerror(rc != JA_OK ? rc : JA_EBOT));
        }
    }
    e->buf.done[i] = 0;
    clear_reward(e, i);
    advance(e, w, i, NULL);
    return JA_OK;
}

/* ---- the API ------------------------------------------------------------------------ */

static int check_opponents(ja_vec_env *e, const ja_vec_config *c, char *err, size_t cap)
{
    if (c->flags & JA_VEC_SELF_PLAY)
        return c->opponents || c->n_opponents
                   ? fail(err, cap, JA_EINVAL, "self-play takes no opponent: every seat is "
                                               "the caller's")
                   : JA_OK;
    if (!c->opponents || c->n_opponents == 0)
        return fail(err, cap, JA_EINVAL, "give at least one opponent");
    e->opps = calloc(c->n_opponents, sizeof *e->opps);
    if (!e->opps)
        return fail(err, cap, JA_ENOMEM, "out of memory");
    e->n_opps = c->n_opponents;
    for (uint32_t k = 0; k < c->n_opponents; k++) {
        const ja_bot_desc *d = c->opponents[k].desc;
        const char *p = c->opponents[k].params ? c->opponents[k].params : "";
        if (!d || d->abi_major != JA_BOT_ABI_MAJOR || !JA_BOT_HAS(d, create) ||
            !JA_BOT_HAS(d, act) || !JA_BOT_HAS(d, destroy))
            return fail(err, cap, JA_EINVAL, "opponent %u: not a bot descriptor of ABI %d", k,
                        JA_BOT_ABI_MAJOR);
        const char *name = d->name ? d->name : "?";
        if (JA_BOT_HAS(d, supports) && !d->supports(e->g->name, e->g->obs_version))
            return fail(err, cap, JA_EBOT, "bot %s does not play %s", name, e->g->name);
        if (strlen(p) >= JA_PARAMS_MAX)
            return fail(err, cap, JA_EINVAL, "bot %s: parameters too long (at most %d bytes)",
                        name, JA_PARAMS_MAX - 1);
        char why[256] = "";
        if (JA_BOT_HAS(d, check_params) && d->check_params(p, why, sizeof why) != JA_OK)
            return fail(err, cap, JA_EINVAL, "bot %s refused its parameters '%s': %s", name, p,
                        why[0] ? why : "the bot refused them (it gave no reason)");
        e->opps[k].desc = d;
        snprintf(e->opps[k].params, sizeof e->opps[k].params, "%s", p);
    }
    return JA_OK;
}

static int check_game(ja_vec_env *e, const ja_vec_config *c, char *err, size_t cap)
{
    if (!c->game || !(e->g = ja_game_find(c->game)))
        return fail(err, cap, JA_EINVAL, "unknown game '%s'", c->game ? c->game : "(none)");
    e->upd = ja_rules_extension(e->g, JA_EXT_OBSERVE_UPDATE);
    if (!e->upd)
        return fail(err, cap, JA_EINVAL, "%s has no incremental observation", e->g->name);
    ja_options_init(e->g, &e->opts);
    for (uint32_t k = 0; k < c->n_options; k++) {
        int rc = ja_options_set(e->g, &e->opts, c->options[k], err, cap);
        if (rc != JA_OK)
            return rc;
    }
    int rc = ja_options_resolve(e->g, &e->opts, c->n_seats, err, cap);
    if (rc != JA_OK)
        return rc;
    if (ja_options_format(e->g, &e->opts, e->opts_text, sizeof e->opts_text) < 0)
        return fail(err, cap, JA_EINVAL, "options too long");
    e->n_seats = c->n_seats;
    if (c->learner < 0 || (uint32_t)c->learner >= c->n_seats)
        return fail(err, cap, JA_EINVAL, "learner must be a seat from 0 to %u, not %d",
                    c->n_seats - 1, (int)c->learner);
    e->learner = (uint32_t)c->learner;
    if (c->n_envs == 0 || c->n_envs > (1u << 24))
        return fail(err, cap, JA_EINVAL, "n_envs must be from 1 to %u, not %u", 1u << 24,
                    c->n_envs);
    e->n_envs = c->n_envs;
    if (c->flags & ~(JA_VEC_AUTO_RESET | JA_VEC_REWARD_PLACE | JA_VEC_ASK_FORCED |
                     JA_VEC_SELF_PLAY | JA_VEC_SEAT_ROWS | JA_VEC_EVENT_RING))
        return fail(err, cap, JA_EINVAL, "unknown flags 0x%x", c->flags);
    if ((c->flags & JA_VEC_SEAT_ROWS) && !(c->flags & JA_VEC_SELF_PLAY))
        return fail(err, cap, JA_EINVAL, "JA_VEC_SEAT_ROWS is for self-play (against opponents "
                                         "every row is the learner's)");
    e->flags = c->flags;
    e->seat_rows = c->flags & JA_VEC_SEAT_ROWS;
    e->ring = c->flags & JA_VEC_EVENT_RING;
    if (e->ring && find_events(e, err, cap) != JA_OK)
        return JA_EINVAL;
    e->n_rewards = c->flags & JA_VEC_SELF_PLAY ? c->n_seats : 1;
    return JA_OK;
}

static size_t round64(size_t n)
{
    return (n + 63) & ~(size_t)63;
}

#define HUGE_PAGE ((size_t)2 << 20)

/* n bytes aligned to a cache line; from 2 MiB on, whole 2 MiB pages the
 * kernel is asked to back with huge pages (Linux's transparent huge pages,
 * honoured in their `madvise` mode as in `always`). A step visits each
 * environment's state and observations in turn: at a batch of 1,024 they
 * span thousands of small pages, a TLB miss each (docs/training.md,
 * "Batched environments"). */
static void *big_alloc(size_t n)
{
#ifdef MADV_HUGEPAGE
    if (n >= HUGE_PAGE) {
        n = (n + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
        void *p = aligned_alloc(HUGE_PAGE, n);
        if (p)
            madvise(p, n, MADV_HUGEPAGE); /* advice: no huge pages is no error */
        return p;
    }
#endif
    return aligned_alloc(64, round64(n));
}

/* ---- threads ------------------------------------------------------------------------ */

static void work_free(ja_vec_env *e)
{
    for (uint32_t k = 0; k < e->n_work; k++) {
        free(e->work[k].scratch);
        free(e->work[k].prev);
    }
    free(e->work);
    e->work = NULL;
    e->n_work = 0;
}

/* n threads' shares, each its own scratch memory (no thread started).
 * JA_OK or JA_ENOMEM. */
static int work_make(ja_vec_env *e, uint32_t n)
{
    e->work = calloc(n, sizeof *e->work);
    if (!e->work)
        return JA_ENOMEM;
    e->n_work = n;
    for (uint32_t k = 0; k < n; k++) {
        vec_work *w = &e->work[k];
        w->e = e;
        w->scratch = calloc(e->g->max_actions, sizeof *w->scratch);
        w->prev = aligned_alloc(64, e->obs_stride);
        if (!w->scratch || !w->prev)
            return JA_ENOMEM;
        memset(w->prev, 0, e->obs_stride);
    }
    return JA_OK;
}

static void step_range(vec_work *w);

/* A pool thread: steps its share at each generation until quit. */
static void *worker(void *arg)
{
    vec_work *w = arg;
    ja_vec_env *e = w->e;
    for (;;) {
        pthread_mutex_lock(&e->mu);
        while (e->gen == w->seen && !e->quit)
            pthread_cond_wait(&e->go, &e->mu);
        bool quit = e->quit;
        w->seen = e->gen;
        pthread_mutex_unlock(&e->mu);
        if (quit)
            return NULL;
        step_range(w);
        pthread_mutex_lock(&e->mu);
        if (--e->pending == 0)
            pthread_cond_signal(&e->done);
        pthread_mutex_unlock(&e->mu);
    }
}

/* Ends the pool's threads (work[1 ..]) and frees every share. */
static void pool_stop(ja_vec_env *e)
{
    if (e->n_started > 1) {
        pthread_mutex_lock(&e->mu);
        e->quit = true;
        pthread_cond_broadcast(&e->go);
        pthread_mutex_unlock(&e->mu);
        for (uint32_t k = 1; k < e->n_started; k++)
            pthread_join(e->work[k].thread, NULL);
        e->quit = false;
    }
    e->n_started = 0;
    work_free(e);
}

/* Runs step_range on the caller's thread and the pool's. */
static void pool_run(ja_vec_env *e)
{
    atomic_store_explicit(&e->next, 0, memory_order_relaxed);
    if (e->n_work == 1) {
        step_range(&e->work[0]);
        return;
    }
    pthread_mutex_lock(&e->mu);
    e->gen++;
    e->pending = e->n_work - 1;
    pthread_cond_broadcast(&e->go);
    pthread_mutex_unlock(&e->mu);
    step_range(&e->work[0]);
    pthread_mutex_lock(&e->mu);
    while (e->pending)
        pthread_cond_wait(&e->done, &e->mu);
    pthread_mutex_unlock(&e->mu);
}

int ja_vec_set_threads(ja_vec_env *e, uint32_t n, char *err, size_t cap)
{
    if (n == 0 || n > JA_VEC_MAX_THREADS)
        return fail(err, cap, JA_EINVAL, "threads must be from 1 to %d, not %u",
                    JA_VEC_MAX_THREADS, n);
    if (n == e->n_work)
        return JA_OK;
    if (!e->pool_ready) { /* before the threads change: on failure they stay as they are */
        if (pthread_mutex_init(&e->mu, NULL) != 0)
            return fail(err, cap, JA_ENOMEM, "cannot make the threads' lock");
        if (pthread_cond_init(&e->go, NULL) != 0) {
            pthread_mutex_destroy(&e->mu);
            return fail(err, cap, JA_ENOMEM, "cannot make the threads' conditions");
        }
        if (pthread_cond_init(&e->done, NULL) != 0) {
            pthread_cond_destroy(&e->go);
            pthread_mutex_destroy(&e->mu);
            return fail(err, cap, JA_ENOMEM, "cannot make the threads' conditions");
        }
        e->pool_ready = true;
    }
    pool_stop(e);
    int rc = work_make(e, n);
    e->n_started = 1;
    for (uint32_t k = 1; k < n && rc == JA_OK; k++) {
        vec_work *w = &e->work[k];
        w->seen = e->gen;
        if (pthread_create(&w->thread, NULL, worker, w) != 0)
            rc = JA_ENOMEM;
        else
            e->n_started = k + 1;
    }
    if (rc != JA_OK) {
        pool_stop(e);
        if (work_make(e, 1) != JA_OK)
            work_free(e); /* out of memory: the environment is unusable */
        return fail(err, cap, JA_ENOMEM, "cannot start %u threads", n);
    }
    return JA_OK;
}

uint32_t ja_vec_threads(const ja_vec_env *e)
{
    return e->n_work;
}

/* The per-environment memory. JA_OK or JA_ENOMEM. */
static int allocate(ja_vec_env *e)
{
    const size_t n = e->n_envs;
    e->state_stride = round64(e->g->state_size);
    e->obs_stride = round64(e->g->obs_size); /* whole chunks */
    e->states = big_alloc(n * e->state_stride);
    e->obs = big_alloc(n * e->n_seats * e->obs_stride);
    e->on = calloc(n * e->g->max_actions, sizeof *e->on);
    e->slots = calloc(n, sizeof *e->slots);
    e->seats = calloc(n * e->n_seats, sizeof *e->seats);
    e->legal = calloc(n * e->g->max_actions, sizeof *e->legal);
    if (!e->states || !e->obs || !e->on || !e->slots || !e->seats || !e->legal ||
        work_make(e, 1) != JA_OK)
        return JA_ENOMEM;
    memset(e->obs, 0, n * e->n_seats * e->obs_stride);
    for (uint32_t i = 0; i < e->n_envs && e->n_opps; i++)
        for (uint32_t s = 0, k = 0; s < e->n_seats; s++) {
            if (s == e->learner)
                continue;
            seat_of(e, i, s)->opp = &e->opps[k < e->n_opps ? k : e->n_opps - 1];
            k++;
        }
    return JA_OK;
}

int ja_vec_create(const ja_vec_config *c, ja_vec_env **out, char *err, size_t cap)
{
    *out = NULL;
    if (!c || c->struct_size < sizeof *c)
        return fail(err, cap, JA_EINVAL, "ja_vec_config: struct_size is not sizeof(ja_vec_config)");
    if (sodium_init() < 0)
        return fail(err, cap, JA_EINVAL, "libsodium failed to start");
    ja_vec_env *e = calloc(1, sizeof *e);
    if (!e)
        return fail(err, cap, JA_ENOMEM, "out of memory");
    atomic_init(&e->next, 0);
    int rc = check_game(e, c, err, cap);
    if (rc == JA_OK)
        rc = check_opponents(e, c, err, cap);
    if (rc == JA_OK) {
        e->obs_length = build_runs(e);
        e->row_floats = (size_t)e->obs_length * (e->seat_rows ? e->n_seats : 1);
        rc = e->obs_length && build_index(e) == JA_OK && build_parts(e) == JA_OK &&
                     allocate(e) == JA_OK
                 ? JA_OK
                 : fail(err, cap, JA_ENOMEM, "out of memory");
    }
    if (rc != JA_OK) {
        ja_vec_destroy(e);
        return rc;
    }
    *out = e;
    return JA_OK;
}

void ja_vec_destroy(ja_vec_env *e)
{
    if (!e)
        return;
    if (e->seats)
        for (uint32_t i = 0; i < e->n_envs; i++)
            close_bots(e, i, NULL);
    pool_stop(e);
    if (e->pool_ready) {
        pthread_mutex_destroy(&e->mu);
        pthread_cond_destroy(&e->go);
        pthread_cond_destroy(&e->done);
    }
    free(e->runs);
    free(e->parts);
    free(e->chunk_part);
    free(e->cmp);
    free(e->codes);
    free(e->index_of);
    free(e->opps);
    free(e->states);
    free(e->obs);
    free(e->on);
    free(e->slots);
    free(e->seats);
    free(e->legal);
    free(e);
}

uint32_t ja_vec_n_envs(const ja_vec_env *e)
{
    return e->n_envs;
}

uint64_t ja_vec_decisions(const ja_vec_env *e)
{
    return e->decisions;
}

uint32_t ja_vec_n_rewards(const ja_vec_env *e)
{
    return e->n_rewards;
}

uint32_t ja_vec_obs_length(const ja_vec_env *e)
{
    return e->obs_length;
}

uint32_t ja_vec_obs_rows(const ja_vec_env *e)
{
    return e->seat_rows ? e->n_seats : 1;
}

uint32_t ja_vec_n_actions(const ja_vec_env *e)
{
    return e->n_actions;
}

uint32_t ja_vec_action_code(const ja_vec_env *e, uint32_t index)
{
    return index < e->n_actions ? e->codes[index] : UINT32_MAX;
}

static int check_len(const char *name, const void *p, size_t len, size_t want, char *err,
                     size_t cap)
{
    if (!p)
        return fail(err, cap, JA_EINVAL, "buffer %s: none given", name);
    if (len != want)
        return fail(err, cap, JA_EINVAL, "buffer %s: %zu elements, not the %zu it needs", name,
                    len, want);
    return JA_OK;
}

int ja_vec_bind(ja_vec_env *e, const ja_vec_buffers *b, char *err, size_t cap)
{
    const size_t n = e->n_envs;
    int rc = check_len("obs", b->obs, b->obs_len, n * e->row_floats, err, cap);
    if (rc == JA_OK)
        rc = check_len("mask", b->mask, b->mask_len, n * e->n_actions, err, cap);
    if (rc == JA_OK)
        rc = check_len("reward", b->reward, b->reward_len, n * e->n_rewards, err, cap);
    if (rc == JA_OK)
        rc = check_len("done", b->done, b->done_len, n, err, cap);
    if (rc == JA_OK && (b->seat || (e->flags & JA_VEC_SELF_PLAY)))
        rc = check_len("seat", b->seat, b->seat_len, n, err, cap);
    if (rc != JA_OK)
        return rc;
    e->buf = *b;
    e->bound = true;
    for (uint32_t i = 0; i < e->n_envs; i++) { /* the next rows are written whole */
        e->slots[i].row_valid = false;
        e->slots[i].seats_valid = 0;
    }
    return JA_OK;
}

int ja_vec_reset_one(ja_vec_env *e, uint32_t i, uint64_t seed, char *err, size_t cap)
{
    if (!e->bound)
        return fail(err, cap, JA_ESTATE, "no buffers bound (ja_vec_bind first)");
    if (i >= e->n_envs)
        return fail(err, cap, JA_EINVAL, "environment %u: there are %u", i, e->n_envs);
    if (!e->n_work)
        return fail(err, cap, JA_ENOMEM, "out of memory");
    int rc = start(e, &e->work[0], i, seed, 0, err, cap);
    e->decisions += e->work[0].decisions;
    e->work[0].decisions = 0;
    return rc;
}

int ja_vec_reset(ja_vec_env *e, const uint64_t *seeds, char *err, size_t cap)
{
    if (!e->bound)
        return fail(err, cap, JA_ESTATE, "no buffers bound (ja_vec_bind first)");
    if (!e->n_work)
        return fail(err, cap, JA_ENOMEM, "out of memory");
    int rc = JA_OK;
    for (uint32_t i = 0; i < e->n_envs && rc == JA_OK; i++)
        rc = start(e, &e->work[0], i, seeds[i], 0, err, cap);
    e->decisions += e->work[0].decisions;
    e->work[0].decisions = 0;
    return rc;
}

/* Environments a thread takes at a time: a thread held up (by a machine
 * busy with other programs) holds up no more than these. */
#define VEC_TAKE 16u

/* Steps environments lo .. hi - 1 (ja_vec_step); false at an error. */
static bool step_envs(vec_work *w, uint32_t lo, uint32_t hi)
{
    ja_vec_env *e = w->e;
    for (uint32_t i = lo; i < hi; i++) {
        vec_slot *sl = &e->slots[i];
        if (sl->state == VS_OVER && !(e->flags & JA_VEC_AUTO_RESET)) {
            clear_reward(e, i); /* stays over, done 1 */
            continue;
        }
        if (sl->state == VS_OVER) {
            int rc = start(e, w, i, sl->base_seed, sl->episode + 1, w->err, sizeof w->err);
            if (rc != JA_OK) {
                w->rc = rc;
                w->failed = i;
                return false;
            }
            continue;
        }
        e->buf.done[i] = 0;
        clear_reward(e, i);
        ja_action answer = {e->codes[w->actions[i]]};
        advance(e, w, i, &answer);
    }
    return true;
}

/* A thread's part of a step: VEC_TAKE environments at a time, the next
 * ones no thread has taken, until none is left or an error. Each
 * environment is stepped by one thread, whichever: the rows are the same. */
static void step_range(vec_work *w)
{
    ja_vec_env *e = w->e;
    w->rc = JA_OK;
    if (e->n_work == 1) {
        step_envs(w, 0, e->n_envs);
        return;
    }
    for (;;) {
        uint32_t lo = atomic_fetch_add_explicit(&e->next, VEC_TAKE, memory_order_relaxed);
        if (lo >= e->n_envs || !step_envs(w, lo, lo + VEC_TAKE < e->n_envs ? lo + VEC_TAKE
                                                                               : e->n_envs))
            return;
    }
}

/* Checks every environment's action before any is played. */
static int check_actions(const ja_vec_env *e, const int64_t *actions, char *err, size_t cap)
{
    for (uint32_t i = 0; i < e->n_envs; i++) {
        const vec_slot *sl = &e->slots[i];
        if (sl->state == VS_OVER)
            continue;
        if (sl->state != VS_ASKED)
            return fail(err, cap, JA_ESTATE, "environment %u: never reset (ja_vec_reset first)",
                        i);
        int64_t a = actions[i];
        const ja_action *legal = e->legal + (size_t)i * e->g->max_actions;
        bool ok = false;
        if (a >= 0 && a < (int64_t)e->n_actions)
            for (uint32_t k = 0; k < sl->n_legal && !ok; k++)
                ok = legal[k].code == e->codes[a];
        if (!ok) {
            char what[96] = "";
            if (a >= 0 && a < (int64_t)e->n_actions) {
                what[0] = ' ';
                what[1] = '(';
                int n = e->g->label((ja_action){e->codes[a]}, what + 2, sizeof what - 3);
                snprintf(what + 2 + (n > 0 ? n : 0), sizeof what - 2 - (n > 0 ? n : 0), ")");
            }
            return fail(err, cap, JA_EILLEGAL,
                        "environment %u: action %lld%s is not legal now (%u legal actions; "
                        "the indexes run from 0 to %u)",
                        i, (long long)a, what, sl->n_legal, e->n_actions - 1);
        }
    }
    return JA_OK;
}

int ja_vec_step(ja_vec_env *e, const int64_t *actions, char *err, size_t cap)
{
    if (!e->bound)
        return fail(err, cap, JA_ESTATE, "no buffers bound (ja_vec_bind first)");
    if (!e->n_work)
        return fail(err, cap, JA_ENOMEM, "out of memory");
    int rc = check_actions(e, actions, err, cap);
    if (rc != JA_OK)
        return rc;
    for (uint32_t k = 0; k < e->n_work; k++)
        e->work[k].actions = actions;
    pool_run(e);
    const vec_work *first = NULL; /* the error of the lowest environment */
    for (uint32_t k = 0; k < e->n_work; k++) {
        vec_work *w = &e->work[k];
        e->decisions += w->decisions;
        w->decisions = 0;
        if (w->rc != JA_OK && (!first || w->failed < first->failed))
            first = w;
    }
    if (!first)
        return JA_OK;
    return fail(err, cap, first->rc, "%s", first->err);
}

int ja_vec_episode_info(const ja_vec_env *e, uint32_t i, ja_vec_episode *out)
{
    if (i >= e->n_envs)
        return JA_EINVAL;
    *out = e->slots[i].last;
    return JA_OK;
}
