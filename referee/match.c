/* The match loop (match.h). */
#include "match.h"

#include "jackarena/ja_error.h"
#include "jackarena/ja_rng.h"
#include "ja_xalloc.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A bound on engine steps that no legal game reaches (every engine caps its
 * own length); passing it means an engine bug, reported as an error. */
#define MAX_STEPS 50000000u

static const char *const ON_FAULT_NAMES[REF_ON_FAULT_COUNT] = {"default", "random", "forfeit"};

const char *ref_on_fault_name(int policy)
{
    return policy >= 0 && policy < REF_ON_FAULT_COUNT ? ON_FAULT_NAMES[policy] : "unknown";
}

int ref_on_fault_parse(const char *s)
{
    for (int i = 0; s && i < REF_ON_FAULT_COUNT; i++)
        if (strcmp(s, ON_FAULT_NAMES[i]) == 0)
            return i;
    return -1;
}

void ref_match_ranked_places(const ja_outcome *o, const uint8_t forfeit[JA_MAX_SEATS],
                             uint32_t n_seats, uint32_t places[JA_MAX_SEATS])
{
    uint32_t kept = 0;
    for (uint32_t s = 0; s < n_seats; s++)
        kept += !forfeit[s];
    for (uint32_t s = 0; s < n_seats; s++) {
        if (forfeit[s]) {
            places[s] = kept + 1; /* forfeiters tie for last */
            continue;
        }
        /* Competition ranking among the seats that did not forfeit. */
        uint32_t better = 0;
        for (uint32_t t = 0; t < n_seats; t++)
            better += !forfeit[t] && o->place[t] < o->place[s];
        places[s] = better + 1;
    }
}

/* One match in play: its config, what the loop owns, and the step in
 * play. Allocated once by ref_match_start, in one block with the engine's
 * state, the observations and the legal lists, so that no step allocates. */
typedef struct ref_match {
    void *raw;                         /* what malloc gave (the block is aligned in it) */
    const ref_match_config *cfg;
    const ja_game_rules *g;
    uint32_t n;
    ref_match_result *out;
    char *err;
    size_t cap;
    void *st;                          /* the engine's state */
    unsigned char *obs;                /* n observations of obs_size */
    /* Writes seat s's observation into its buffer above: the game's
     * incremental update (JA_EXT_OBSERVE_UPDATE) when it offers one, which
     * brings the seat's last observation up to date, else observe(). */
    void (*observe)(const void *st, int seat, void *obs);
    ja_action *legal;                  /* n lists of max_actions */
    /* Bot logs (match.h), when the match writes a replay: each seat's log
     * of the step in play (n of them, in the block; NULL without a
     * replay), and what is left of each seat's REF_LOG_MATCH_MAX. */
    ja_declog *logs;
    uint32_t log_left[JA_MAX_SEATS];
    uint32_t log_cut;                  /* bit s: seat s's logs were cut */
    ref_seat *seats[JA_MAX_SEATS];
    uint32_t ms[JA_MAX_SEATS];         /* each seat's per-decision limit */
    uint32_t ms_max;
    uint32_t unlimited;                /* bit s: seat s has no time limit (its kind's) */
    uint32_t max_faults;               /* resolved: never 0 */
    bool timed;                        /* think times are recorded (replay, on_step) */
    bool replaying;                    /* a replay is written (cfg->replay) */
    uint32_t at_ask;                   /* bit s: seat s's kind answers in its ask
                                        * (ref_bot_ops.answers_at_ask) */
    uint32_t obs_set;                  /* bit s: seat s's observation was zeroed
                                        * (at its first observation) */
    uint32_t fault_rng_set;            /* bit s: fault_rng[s] is seeded (below) */
    uint32_t turns[JA_MAX_SEATS];      /* questions put to each seat so far */
    /* The step in play (reset by play_step). */
    uint32_t mask;                     /* seats of the decision */
    uint32_t nl[JA_MAX_SEATS];         /* legal actions of each seat */
    uint32_t allow[JA_MAX_SEATS];      /* each asked seat's allowance_ms() at its ask */
    ref_replay_rec recs[JA_MAX_SEATS]; /* one per seat of the decision */
    uint32_t n_recs;
    ja_action by_seat[JA_MAX_SEATS];   /* the actions applied */
    uint32_t asked;                    /* bit s: seat s has a question pending */
    uint32_t observed;                 /* bit s: seat s was observed and asked */
    uint32_t on_demand;                /* bit s: seat s is observed only when its bot asks */
    bool in_step;                      /* asked, collecting from recs[next_rec] */
    uint32_t next_rec;
    int rc;                            /* JA_OK while the match goes on */
    bool done;                         /* finished (rc says how) */
    /* Not zeroed at the start (ref_match_start): each is written before it
     * is read. The fault policy's own streams: one per seat, so that one
     * seat's faults never move another's replacement actions, nor the
     * deal; each seeded at its seat's first random replacement (bit s of
     * fault_rng_set). The digest, begun by start_record. */
    ja_rng fault_rng[JA_MAX_SEATS];
    ref_digest dg;
} match;

/* The bytes of a match zeroed at its start: up to its streams. */
#define MATCH_ZEROED offsetof(match, fault_rng)

/* Writes the one-line error into the caller's buffer; returns rc. */
__attribute__((format(printf, 3, 4))) static int fail(match *m, int rc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->err, m->cap, fmt, ap);
    va_end(ap);
    return rc;
}

/* Time control of one seat (match.h): the decision's allowance in whole
 * milliseconds (what the bot is told, and when a seat cuts it off), the
 * bank's microseconds rounded up; 0 = none. */
static uint32_t allowance_ms(const match *m, uint32_t s)
{
    uint32_t move_ms = m->ms[s], bank_ms = m->cfg->bank_ms;
    if ((!move_ms && !bank_ms) || (m->unlimited >> s & 1))
        return 0;
    uint64_t ms = (uint64_t)move_ms + (m->out->bank_left_us[s] + 999) / 1000;
    return ms > UINT32_MAX - 1 ? UINT32_MAX - 1 : (uint32_t)ms;
}

/* Deals (the engine's setup), picks how seats are observed, and resolves
 * each seat's limit, the fault limit, the fault streams and the banks.
 * JA_OK or the engine's refusal. */
static int setup(match *m)
{
    const ref_match_config *cfg = m->cfg;
    const ja_game_rules *g = m->g;
    int rc = g->setup(m->st, &cfg->options, m->n, cfg->seed);
    if (rc != JA_OK)
        return fail(m, rc, "%s refused the match setup: %s", g->name, ja_strerror(rc));
    const ja_ext_observe_update *ou = ja_rules_extension(g, JA_EXT_OBSERVE_UPDATE);
    m->observe = ou && ou->update ? ou->update : g->observe;
    /* Think times cost two clock reads a decision; in-process plugins
     * without a limit skip them when nothing records them. */
    m->replaying = cfg->replay && *cfg->replay;
    m->timed = m->replaying || cfg->on_step;
    /* Each seat's per-decision limit: the one given, or its kind's default;
     * none for a kind without limits (a human seat). */
    for (uint32_t s = 0; s < m->n; s++) {
        if (cfg->bots[s]->ops->unlimited) {
            m->unlimited |= 1u << s;
            continue;
        }
        m->ms[s] = cfg->move_ms == REF_MOVE_MS_KIND ? ref_bot_default_move_ms(cfg->bots[s])
                                                    : cfg->move_ms;
        m->ms_max = m->ms[s] > m->ms_max ? m->ms[s] : m->ms_max;
    }
    m->max_faults = cfg->max_faults ? cfg->max_faults : REF_DEFAULT_MAX_FAULTS;
    for (uint32_t s = 0; s < m->n; s++) {
        m->out->bank_left_us[s] = (uint64_t)cfg->bank_ms * 1000;
        m->log_left[s] = REF_LOG_MATCH_MAX;
        if (m->logs)
            ja_declog_clear(&m->logs[s]);
    }
    return JA_OK;
}

/* Brings seat s's observation up to date (m->observe) in its buffer,
 * zeroed first at the seat's first observation of the match (an update
 * takes zeros for a seat never observed), and marks it observed in the
 * step. */
static void *observe_seat(match *m, uint32_t s)
{
    unsigned char *obs = m->obs + (size_t)s * m->g->obs_size;
    if (!(m->obs_set >> s & 1)) {
        memset(obs, 0, m->g->obs_size);
        m->obs_set |= 1u << s;
    }
    m->observe(m->st, (int)s, obs);
    m->observed |= 1u << s;
    return obs;
}

/* Seat s's observation, asked for by its bot during act() (ref_seat.obs_get:
 * a seat of m->on_demand): brought up to date from its last one now. */
static const void *observe_on_demand(void *ctx, int32_t s)
{
    match *m = ctx;
    return observe_seat(m, (uint32_t)s);
}

/* Opens every seat, in seat order, telling each what its kind may tell its
 * bot, and marks those observed on demand (ref_match_config.obs_eager).
 * JA_OK, or the first seat's refusal (its message in err). */
static int open_seats(match *m)
{
    const ref_match_config *cfg = m->cfg;
    for (uint32_t s = 0; s < m->n; s++) {
        ref_seat_ctx sc = {m->g, (int32_t)s, m->n, cfg->seed, m->ms[s],
                           cfg->match_id ? cfg->match_id : "", &cfg->options, cfg->names,
                           cfg->replay_id, m->out->faults, m->logs != NULL};
        int rc = ref_seat_open(cfg->bots[s], &sc, &m->seats[s], m->err, m->cap);
        if (rc != JA_OK)
            return rc;
        if (cfg->bots[s]->ops->answers_at_ask)
            m->at_ask |= 1u << s;
        if (m->seats[s]->obs_on_demand && !cfg->on_step && !cfg->obs_eager) {
            m->on_demand |= 1u << s;
            m->seats[s]->obs_get = observe_on_demand;
            m->seats[s]->obs_ctx = m;
        }
    }
    return JA_OK;
}

/* Starts the record of the match: the replay's header (when there is a
 * replay) and the digest. JA_OK or JA_EIO. */
static int start_record(match *m)
{
    const ref_match_config *cfg = m->cfg;
    ref_digest_begin(&m->dg, m->g, &cfg->options, cfg->seed, m->n);
    if (!m->replaying)
        return JA_OK;
    ref_replay_header h;
    memset(&h, 0, sizeof h);
    snprintf(h.game, sizeof h.game, "%s", m->g->name);
    h.options = cfg->options;
    h.seed = cfg->seed;
    h.n_seats = m->n;
    h.move_ms = m->ms_max;
    h.bank_ms = cfg->bank_ms;
    snprintf(h.on_fault, sizeof h.on_fault, "%s", ref_on_fault_name(cfg->on_fault));
    snprintf(h.match_id, sizeof h.match_id, "%s", cfg->match_id ? cfg->match_id : "");
    for (uint32_t s = 0; s < m->n; s++) {
        const ref_bot_info *bi = ref_bot_get_info(cfg->bots[s]);
        ref_replay_player *p = &h.players[s];
        snprintf(p->name, sizeof p->name, "%s", cfg->names ? cfg->names[s] : bi->name);
        snprintf(p->kind, sizeof p->kind, "%s", bi->kind);
        snprintf(p->version, sizeof p->version, "%s", bi->version);
        snprintf(p->sha256, sizeof p->sha256, "%s", bi->sha256);
        snprintf(p->bot, sizeof p->bot, "%s", bi->name);
    }
    if (ref_replay_write_header(*cfg->replay, m->g, &h) != JA_OK)
        return fail(m, JA_EIO, "cannot write the replay");
    return JA_OK;
}

/* Seat s's part of the decision: its record, and then either its only
 * legal action (forced: not asked), the default for a forfeited seat, a
 * timeout for a spent bank without move time, or the question put to its
 * bot (a seat that cannot be asked faults `disconnect`). JA_OK, or
 * JA_ESTATE when the engine offers no legal action. */
static int ask_seat(match *m, uint32_t s)
{
    const ja_game_rules *g = m->g;
    ref_match_result *out = m->out;
    ja_action *legal = m->legal + (size_t)s * g->max_actions;
    m->nl[s] = g->legal(m->st, (int)s, legal, g->max_actions);
    if (m->nl[s] == 0)
        return fail(m, JA_ESTATE, "%s offered seat %u no legal action (engine bug)", g->name,
                    (unsigned)s);
    ref_replay_rec *r = &m->recs[m->n_recs++];
    memset(r, 0, sizeof *r);
    r->seat = (uint8_t)s;
    r->n_legal = m->nl[s];
    r->index = -1;
    if (m->nl[s] == 1) {
        r->forced = 1;
        r->code = legal[0].code;
        m->by_seat[s] = legal[0];
        return JA_OK;
    }
    if (out->forfeit[s]) {
        r->fault = JA_FAULT_FORFEIT; /* not asked: the default is played */
        return JA_OK;
    }
    if (m->cfg->bank_ms && !m->ms[s] && !out->bank_left_us[s]) {
        r->fault = JA_FAULT_TIMEOUT; /* a spent bank and no move time: flag fallen */
        return JA_OK;
    }
    /* A seat observed on demand: when its bot asks. */
    void *obs = m->on_demand >> s & 1 ? NULL : observe_seat(m, s);
    ja_decision d = {
        .struct_size = sizeof(ja_decision),
        .turn = ++m->turns[s],
        .deadline_ms = m->allow[s] = allowance_ms(m, s),
        .seat = (int32_t)s,
        .n_seats = m->n,
        .game = g->name,
        .obs_version = g->obs_version,
        .obs_size = g->obs_size,
        .obs = obs,
        .legal = legal,
        .n_legal = m->nl[s],
    };
    r->asked = 1; /* it has a turn, whatever comes of the ask */
    m->seats[s]->decision = out->decisions + 1;
    if (ref_seat_ask(m->seats[s], &d, m->timed) != JA_OK)
        r->fault = JA_FAULT_DISCONNECT;
    else
        m->asked |= 1u << s;
    out->asked++;
    return JA_OK;
}

/* The bank pays for seat s's time beyond move_ms (CPU time where the seat
 * measured it, wall time otherwise); a timeout, or more than the bank
 * holds, empties it and is a timeout. */
static void charge_bank(match *m, ref_replay_rec *r, const ref_answer *a)
{
    uint32_t s = r->seat;
    uint64_t *bank = &m->out->bank_left_us[s];
    uint64_t used = a->cpu_us ? a->cpu_us : a->think_us;
    uint64_t free_us = (uint64_t)m->ms[s] * 1000;
    uint64_t over = used > free_us ? used - free_us : 0;
    if (r->fault == JA_FAULT_TIMEOUT || over > *bank) {
        if (r->fault == JA_FAULT_NONE)
            r->fault = JA_FAULT_TIMEOUT;
        *bank = 0;
    } else {
        *bank -= over;
    }
}

/* Seat s's deadline for its pending question: its allowance counted from
 * its own ask (so every seat gets its whole allowance); 0 for none. */
static int64_t seat_deadline(const match *m, uint32_t s)
{
    uint32_t allow = m->allow[s];
    return allow ? m->seats[s]->asked_ns + (int64_t)allow * 1000000 : 0;
}

/* Collects the answer of the asked seat of r against its deadline: the
 * action it chose, or its fault (an index out of range is `illegal`), and
 * its time, charged to its bank when it has an allowance. JA_OK, or
 * JA_ESTATE when the seat's participant left the match (ref_answer.left). */
static int collect_seat(match *m, ref_replay_rec *r)
{
    uint32_t s = r->seat;
    ref_answer got;
    const ref_answer *a = &got;
    uint32_t allow = m->allow[s];
    if (m->at_ask >> s & 1) {
        a = &m->seats[s]->answer; /* what its ask left there */
    } else {
        got = (ref_answer){.left = NULL};
        ref_seat_collect(m->seats[s], seat_deadline(m, s), &got);
    }
    if (a->left) {
        m->out->abandoned = 1;
        return fail(m, JA_ESTATE, "seat %u (%s) left the match at decision %u: %s",
                    (unsigned)s,
                    m->cfg->names ? m->cfg->names[s] : ref_bot_get_info(m->cfg->bots[s])->name,
                    m->out->decisions, a->left);
    }
    r->think_us = a->think_us;
    m->out->think_us[s] += a->think_us;
    r->fault = (uint8_t)a->fault;
    r->error = a->fault == JA_FAULT_ERROR ? a->error : 0;
    if (a->fault == JA_FAULT_NONE && a->index < m->nl[s]) {
        m->by_seat[s] = m->legal[(size_t)s * m->g->max_actions + a->index];
        r->index = (int32_t)a->index;
    } else if (a->fault == JA_FAULT_NONE) {
        r->fault = JA_FAULT_ILLEGAL;
    }
    if (allow)
        charge_bank(m, r, a);
    return JA_OK;
}

/* Seat s's log of the decision just collected (match.h, "Bot logs") into
 * m->logs[s], within what is left of the seat's logs of the match: the one
 * that passes it is cut (its marker, a few bytes, beyond), and the seat's
 * later ones are dropped. */
static void take_log(match *m, uint32_t s)
{
    ja_declog *l = &m->logs[s];
    ref_seat_take_log(m->seats[s], l);
    if (l->len <= m->log_left[s]) {
        m->log_left[s] -= l->len;
        return;
    }
    if (m->log_cut & (1u << s)) {
        ja_declog_clear(l);
        return;
    }
    /* The first log past the bound: what fits, then the marker (alone when
     * the bound was reached exactly). */
    size_t mark = sizeof REF_LOG_MATCH_CUT - 1;
    ja_declog_cut(l, m->log_left[s] > mark ? m->log_left[s] : mark, REF_LOG_MATCH_CUT);
    m->log_left[s] = 0;
    m->log_cut |= 1u << s;
}

/* The step's logs, after its decision record: one record per asked seat
 * whose bot logged something, in seat order. JA_OK or JA_EIO. */
static int write_logs(match *m)
{
    for (uint32_t k = 0; k < m->n_recs; k++) {
        ja_declog *l = &m->logs[m->recs[k].seat];
        if (l->len && ref_replay_write_log(*m->cfg->replay, m->out->decisions, m->recs[k].seat,
                                           l->text, l->len) != JA_OK)
            return JA_EIO;
        ja_declog_clear(l);
    }
    return JA_OK;
}

/* The fault policy for the faulty seat of r (match.h): the action played
 * instead (the game's default, or a random legal one from the seat's fault
 * stream), the fault counted (a forfeited seat's are not), and the forfeit
 * once the seat's faults pass the limit (counted once, as a fault of its
 * own kind). */
static void replace_fault(match *m, ref_replay_rec *r)
{
    const ref_match_config *cfg = m->cfg;
    ref_match_result *out = m->out;
    uint32_t s = r->seat;
    r->index = -1; /* no answer applied (docs/replay-format.md) */
    const ja_action *legal = m->legal + (size_t)s * m->g->max_actions;
    if (cfg->on_fault == REF_ON_FAULT_RANDOM && r->fault != JA_FAULT_FORFEIT) {
        if (!(m->fault_rng_set & (1u << s))) {
            ja_rng_stream(&m->fault_rng[s], cfg->seed, JA_STREAM_FALT, s);
            m->fault_rng_set |= 1u << s;
        }
        m->by_seat[s] = legal[ja_rng_below(&m->fault_rng[s], m->nl[s])];
    } else {
        m->by_seat[s] = m->g->default_action(m->st, (int)s);
    }
    if (r->fault != JA_FAULT_FORFEIT) {
        out->faults[s]++;
        out->fault_kinds[s][r->fault]++;
    }
    uint32_t limit = cfg->on_fault == REF_ON_FAULT_FORFEIT ? 0 : m->max_faults;
    if (!out->forfeit[s] && limit != REF_MAX_FAULTS_NEVER && out->faults[s] > limit) {
        out->forfeit[s] = 1;
        out->faults[s]++;
        out->fault_kinds[s][JA_FAULT_FORFEIT]++;
    }
}

/* Applies the step's actions and records the step: the digest, the
 * replay, the observer. JA_OK, JA_ESTATE (the engine refused) or JA_EIO. */
static int apply_step(match *m)
{
    const ref_match_config *cfg = m->cfg;
    ref_match_result *out = m->out;
    if (m->g->apply(m->st, m->mask, m->by_seat) != JA_OK)
        return fail(m, JA_ESTATE, "%s refused a validated action at decision %u (engine bug)",
                    m->g->name, out->decisions);
    ref_digest_step(&m->dg, m->mask, m->by_seat);
    if (m->replaying &&
        (ref_replay_write_step(*cfg->replay, out->decisions, m->recs, m->n_recs) ||
         (m->logs && write_logs(m))))
        return fail(m, JA_EIO, "cannot write the replay");
    if (cfg->on_step) {
        ref_step_info info = {out->decisions, m->mask, m->by_seat, m->recs, m->n_recs, m->st,
                              m->observed, m->obs, m->legal};
        cfg->on_step(cfg->step_ctx, m->g, &info);
    }
    out->decisions++;
    return JA_OK;
}

/* One decision of the seats in m->mask: asks every seat of it before
 * collecting any answer, collects each answer or fault, plays the fault
 * policy, then applies and records the step. With nowait, a seat whose
 * answer is not there yet (ref_seat_ready) ends the call with JA_EAGAIN,
 * and the next call goes on collecting where this one stopped. JA_OK or an
 * error. */
static int play_step(match *m, bool nowait)
{
    if (!m->in_step) {
        if (m->out->decisions >= MAX_STEPS)
            return fail(m, JA_ESTATE, "%s did not end after %u decisions (engine bug)",
                        m->g->name, MAX_STEPS);
        m->asked = m->observed = m->n_recs = 0;
        memset(m->by_seat, 0, sizeof m->by_seat);
        /* The seats of the decision, in seat order. */
        for (uint32_t left = m->mask & (UINT32_MAX >> (32 - m->n)); left; left &= left - 1) {
            int rc = ask_seat(m, (uint32_t)__builtin_ctz(left));
            if (rc != JA_OK)
                return rc;
        }
        m->in_step = true;
        m->next_rec = 0;
    }
    for (; m->next_rec < m->n_recs; m->next_rec++) {
        ref_replay_rec *r = &m->recs[m->next_rec];
        if (r->forced)
            continue;
        if (m->asked & (1u << r->seat)) {
            if (nowait && !ref_seat_ready(m->seats[r->seat], seat_deadline(m, r->seat)))
                return JA_EAGAIN;
            int rc = collect_seat(m, r);
            if (rc != JA_OK)
                return rc;
            if (m->logs)
                take_log(m, r->seat);
        }
        if (r->fault != JA_FAULT_NONE)
            replace_fault(m, r);
        r->code = m->by_seat[r->seat].code;
    }
    m->in_step = false;
    return apply_step(m);
}

/* The end of a played match: the outcome, the digest, the `end` to every
 * seat, each faulty seat's stderr tail, and the replay finished. JA_OK,
 * JA_ESTATE (no outcome) or the replay's error. */
static int finish(match *m)
{
    const ref_match_config *cfg = m->cfg;
    ref_match_result *out = m->out;
    if (m->g->outcome(m->st, &out->outcome) != JA_OK)
        return fail(m, JA_ESTATE, "%s has no outcome at the end of the match (engine bug)",
                    m->g->name);
    ref_digest_end(&m->dg, &out->outcome, out->digest);
    for (uint32_t s = 0; s < m->n; s++)
        ref_seat_end(m->seats[s], &out->outcome);
    /* What a faulty seat's bot said on stderr, for its reproduction bundle. */
    if (cfg->stderr_tails && cfg->stderr_cap)
        for (uint32_t s = 0; s < m->n; s++) {
            char *t = cfg->stderr_tails + (size_t)s * cfg->stderr_cap;
            t[0] = '\0';
            if (out->faults[s])
                ref_seat_stderr_tail(m->seats[s], t, cfg->stderr_cap);
        }
    if (m->replaying)
        return ref_replay_writer_finish(cfg->replay, &out->outcome, out->faults, out->decisions,
                                        out->digest, m->err, m->cap);
    return JA_OK;
}

/* Releases whatever the match holds, however far it got: an unfinished
 * replay is abandoned, every open seat closed (the buffers go with the
 * match's block). */
static void teardown(match *m)
{
    if (m->cfg->replay)
        ref_replay_writer_abort(m->cfg->replay);
    for (uint32_t s = 0; s < m->n; s++)
        ref_seat_close(&m->seats[s]);
}

/* Where each buffer of the match begins in its one allocation: the match,
 * the engine's state, the observations, the legal lists and the seats'
 * logs (with a replay), each on a cache line of its own. */
#define LINE 64u
static size_t line_up(size_t n) { return (n + LINE - 1) / LINE * LINE; }

int ref_match_start(const ref_match_config *cfg, ref_match_result *out, char *err, size_t cap,
                    ref_match **mp)
{
    memset(out, 0, sizeof *out);
    /* One allocation. Zeroed: the match up to its streams (MATCH_ZEROED);
     * not the engine's state, every byte of which setup() writes, nor the
     * observations, each zeroed at its seat's first observation
     * (observe_seat: a seat of `random` is never observed), nor the legal
     * lists, read only as far as legal() wrote them. */
    const ja_game_rules *g = cfg->game;
    if (cfg->n_seats > JA_MAX_SEATS) { /* what the engine's setup would say */
        snprintf(err, cap, "%s refused the match setup: %s", g->name, ja_strerror(JA_EINVAL));
        *mp = NULL;
        return JA_EINVAL;
    }
    bool logs = cfg->replay && *cfg->replay;
    const size_t at_st = line_up(sizeof(match)), at_obs = at_st + line_up(g->state_size),
                 at_legal = at_obs + line_up((size_t)cfg->n_seats * g->obs_size),
                 at_logs = at_legal + line_up((size_t)cfg->n_seats * g->max_actions *
                                              sizeof(ja_action)),
                 size = at_logs + (logs ? (size_t)cfg->n_seats * sizeof(ja_declog) : 0);
    /* malloc, aligned here: aligned_alloc frees the bytes before the line
     * as a small chunk that no later request takes, until glibc's cache of
     * that size is full; after that, each one freed goes to a fast bin,
     * which the next large request must first consolidate. */
    unsigned char *raw = ja_xmalloc(size + LINE - 1);
    unsigned char *block = raw + (LINE - (uintptr_t)raw % LINE) % LINE;
    match *m = *mp = (match *)block;
    memset(block, 0, MATCH_ZEROED);
    m->raw = raw;
    m->st = block + at_st;
    m->obs = block + at_obs;
    m->legal = (ja_action *)(block + at_legal);
    m->logs = logs ? (ja_declog *)(block + at_logs) : NULL;
    m->cfg = cfg;
    m->g = cfg->game;
    m->n = cfg->n_seats;
    m->out = out;
    m->err = err;
    m->cap = cap;
    int rc = setup(m);
    if (rc == JA_OK)
        rc = open_seats(m);
    if (rc == JA_OK)
        rc = start_record(m);
    m->rc = rc;
    m->done = rc != JA_OK;
    return rc;
}

int ref_match_play(match *m, bool nowait)
{
    if (m->done)
        return m->rc;
    int rc = JA_OK;
    while (rc == JA_OK && (m->in_step || (m->mask = m->g->to_act(m->st)) != 0))
        rc = play_step(m, nowait);
    if (rc == JA_EAGAIN)
        return rc;
    if (rc == JA_OK)
        rc = finish(m);
    m->rc = rc;
    m->done = true;
    return rc;
}

int64_t ref_match_waits_until(const match *m)
{
    if (m->done || !m->in_step || m->next_rec >= m->n_recs)
        return 0;
    return seat_deadline(m, m->recs[m->next_rec].seat);
}

void ref_match_close(match *m)
{
    if (!m)
        return;
    teardown(m);
    free(m->raw);
}

int ref_match_run(const ref_match_config *cfg, ref_match_result *out, char *err, size_t cap)
{
    match *m;
    int rc = ref_match_start(cfg, out, err, cap, &m);
    if (rc == JA_OK)
        rc = ref_match_play(m, false);
    ref_match_close(m);
    return rc;
}
