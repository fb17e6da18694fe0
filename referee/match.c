/* The match loop (match.h). */
#include "match.h"

#include "jackarena/ja_error.h"
#include "jackarena/ja_rng.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A bound on engine steps that no legal game reaches (every engine caps its
 * own length); passing it means an engine bug, reported as an error. */
#define MAX_STEPS 50000000u

typedef struct match_buffers {
    void *st;
    unsigned char *obs;  /* n_seats observations */
    ja_action *legal;    /* n_seats lists of max_actions */
} match_buffers;

static void free_buffers(match_buffers *b)
{
    free(b->st);
    free(b->obs);
    free(b->legal);
}

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

/* Time control of one seat (match.h): the decision's allowance in whole
 * milliseconds (what the bot is told, and when a seat cuts it off), the
 * bank's microseconds rounded up; 0 = none. */
static uint32_t allowance_ms(uint32_t move_ms, uint32_t bank_ms, uint64_t bank_left_us)
{
    if (!move_ms && !bank_ms)
        return 0;
    uint64_t ms = (uint64_t)move_ms + (bank_left_us + 999) / 1000;
    return ms > UINT32_MAX - 1 ? UINT32_MAX - 1 : (uint32_t)ms;
}

int ref_match_run(const ref_match_config *cfg, ref_bot *const *bots, const char *const *names,
                  ref_replay_writer **replay, ref_step_fn on_step, void *ctx,
                  ref_match_result *out, char *err, size_t cap)
{
    return ref_match_run_opts(cfg, NULL, bots, names, replay, on_step, ctx, out, err, cap);
}

int ref_match_run_opts(const ref_match_config *cfg, const ref_match_opts *opts,
                       ref_bot *const *bots, const char *const *names,
                       ref_replay_writer **replay, ref_step_fn on_step, void *ctx,
                       ref_match_result *out, char *err, size_t cap)
{
    const ja_game_rules *g = cfg->game;
    const uint32_t n = cfg->n_seats;
    ref_seat *seats[JA_MAX_SEATS] = {0};
    match_buffers b = {0};
    int rc = JA_OK;
    memset(out, 0, sizeof *out);

    b.st = calloc(1, g->state_size);
    b.obs = calloc(n, g->obs_size);
    b.legal = calloc((size_t)n * g->max_actions, sizeof *b.legal);
    if (!b.st || !b.obs || !b.legal) {
        snprintf(err, cap, "out of memory");
        rc = JA_ENOMEM;
        goto done;
    }
    rc = g->setup(b.st, &cfg->options, n, cfg->seed);
    if (rc != JA_OK) {
        snprintf(err, cap, "%s refused the match setup: %s", g->name, ja_strerror(rc));
        goto done;
    }
    /* Each seat's per-decision limit: the one given, or its kind's default. */
    uint32_t ms[JA_MAX_SEATS], ms_max = 0;
    for (uint32_t s = 0; s < n; s++) {
        ms[s] = cfg->move_ms == REF_MOVE_MS_KIND ? ref_bot_default_move_ms(bots[s]) : cfg->move_ms;
        ms_max = ms[s] > ms_max ? ms[s] : ms_max;
    }
    const uint32_t max_faults =
        opts && opts->max_faults ? opts->max_faults : REF_DEFAULT_MAX_FAULTS;
    /* The fault policy's own streams: one per seat, so that one seat's
     * faults never move another's replacement actions, nor the deal. */
    ja_rng fault_rng[JA_MAX_SEATS];
    for (uint32_t s = 0; s < n; s++) {
        ja_rng_stream(&fault_rng[s], cfg->seed, JA_STREAM_FALT, s);
        out->bank_left_us[s] = (uint64_t)cfg->bank_ms * 1000;
    }
    const ref_seat_match sm = {&cfg->options, names, opts ? opts->replay_id : NULL, out->faults};
    for (uint32_t s = 0; s < n; s++) {
        ref_seat_ctx sc = {g, (int32_t)s, n, cfg->seed, ms[s], cfg->match_id ? cfg->match_id : ""};
        rc = ref_seat_open_match(bots[s], &sc, &sm, &seats[s], err, cap);
        if (rc != JA_OK)
            goto done;
    }
    if (replay && *replay) {
        ref_replay_header h;
        memset(&h, 0, sizeof h);
        snprintf(h.game, sizeof h.game, "%s", g->name);
        h.options = cfg->options;
        h.seed = cfg->seed;
        h.n_seats = n;
        h.move_ms = ms_max;
        h.bank_ms = cfg->bank_ms;
        snprintf(h.on_fault, sizeof h.on_fault, "%s", ref_on_fault_name(cfg->on_fault));
        snprintf(h.match_id, sizeof h.match_id, "%s", cfg->match_id ? cfg->match_id : "");
        for (uint32_t s = 0; s < n; s++) {
            const ref_bot_info *bi = ref_bot_get_info(bots[s]);
            ref_replay_player *p = &h.players[s];
            snprintf(p->name, sizeof p->name, "%s", names ? names[s] : bi->name);
            snprintf(p->kind, sizeof p->kind, "%s", bi->kind);
            snprintf(p->version, sizeof p->version, "%s", bi->version);
            snprintf(p->sha256, sizeof p->sha256, "%s", bi->sha256);
        }
        if (ref_replay_write_header(*replay, g, &h) != JA_OK) {
            snprintf(err, cap, "cannot write the replay");
            rc = JA_EIO;
            goto done;
        }
    }

    ref_digest dg;
    ref_digest_begin(&dg, g, &cfg->options, cfg->seed, n);
    uint32_t turns[JA_MAX_SEATS] = {0};
    uint32_t nl[JA_MAX_SEATS];
    ref_replay_rec recs[JA_MAX_SEATS];
    ja_action by_seat[JA_MAX_SEATS];
    uint32_t mask;
    while ((mask = g->to_act(b.st)) != 0) {
        if (out->decisions >= MAX_STEPS) {
            snprintf(err, cap, "%s did not end after %u decisions (engine bug)", g->name, MAX_STEPS);
            rc = JA_ESTATE;
            goto done;
        }
        uint32_t asked = 0, observed = 0, n_recs = 0;
        memset(by_seat, 0, sizeof by_seat);
        /* Ask every seat of the decision before collecting any answer. */
        for (uint32_t s = 0; s < n; s++) {
            if (!(mask & (1u << s)))
                continue;
            ja_action *legal = b.legal + (size_t)s * g->max_actions;
            nl[s] = g->legal(b.st, (int)s, legal, g->max_actions);
            if (nl[s] == 0) {
                snprintf(err, cap, "%s offered seat %u no legal action (engine bug)", g->name,
                         (unsigned)s);
                rc = JA_ESTATE;
                goto done;
            }
            ref_replay_rec *r = &recs[n_recs++];
            memset(r, 0, sizeof *r);
            r->seat = (uint8_t)s;
            r->n_legal = nl[s];
            r->index = -1;
            if (nl[s] == 1) {
                r->forced = 1;
                r->code = legal[0].code;
                by_seat[s] = legal[0];
                continue;
            }
            if (out->forfeit[s]) {
                r->fault = JA_FAULT_FORFEIT; /* not asked: the default is played below */
                continue;
            }
            uint32_t allow = allowance_ms(ms[s], cfg->bank_ms, out->bank_left_us[s]);
            if (cfg->bank_ms && !ms[s] && !out->bank_left_us[s]) {
                r->fault = JA_FAULT_TIMEOUT; /* a spent bank and no move time: flag fallen */
                continue;
            }
            void *obs = b.obs + (size_t)s * g->obs_size;
            g->observe(b.st, (int)s, obs);
            observed |= 1u << s;
            ja_decision d = {
                .struct_size = sizeof(ja_decision),
                .turn = ++turns[s],
                .deadline_ms = allow,
                .seat = (int32_t)s,
                .n_seats = n,
                .game = g->name,
                .obs_version = g->obs_version,
                .obs_size = g->obs_size,
                .obs = obs,
                .legal = legal,
                .n_legal = nl[s],
            };
            r->asked = 1; /* it has a turn, whatever comes of the ask */
            if (ref_seat_ask(seats[s], &d) != JA_OK)
                r->fault = JA_FAULT_DISCONNECT;
            else
                asked |= 1u << s;
            out->asked++;
        }
        /* Each seat's deadline counts from its own ask, so every seat gets
         * its whole limit. */
        for (uint32_t k = 0; k < n_recs; k++) {
            ref_replay_rec *r = &recs[k];
            uint32_t s = r->seat;
            if (r->forced)
                continue;
            if (asked & (1u << s)) {
                ref_answer a;
                uint32_t allow = allowance_ms(ms[s], cfg->bank_ms, out->bank_left_us[s]);
                int64_t deadline = allow ? seats[s]->asked_ns + (int64_t)allow * 1000000 : 0;
                ref_seat_collect(seats[s], deadline, &a);
                r->think_us = a.think_us;
                out->think_us[s] += a.think_us;
                r->fault = (uint8_t)a.fault;
                if (a.fault == JA_FAULT_NONE && a.index < nl[s]) {
                    by_seat[s] = b.legal[(size_t)s * g->max_actions + a.index];
                    r->index = (int32_t)a.index;
                } else if (a.fault == JA_FAULT_NONE) {
                    r->fault = JA_FAULT_ILLEGAL;
                }
                /* The bank pays for the time beyond move_ms: CPU time where
                 * the seat measured it, wall time otherwise. */
                if (allow) {
                    uint64_t used = a.cpu_us ? a.cpu_us : a.think_us;
                    uint64_t free_us = (uint64_t)ms[s] * 1000;
                    uint64_t over = used > free_us ? used - free_us : 0;
                    if (r->fault == JA_FAULT_TIMEOUT || over > out->bank_left_us[s]) {
                        if (r->fault == JA_FAULT_NONE)
                            r->fault = JA_FAULT_TIMEOUT;
                        out->bank_left_us[s] = 0;
                    } else {
                        out->bank_left_us[s] -= over;
                    }
                }
            }
            if (r->fault != JA_FAULT_NONE) {
                r->index = -1; /* no answer applied (docs/replay-format.md) */
                const ja_action *legal = b.legal + (size_t)s * g->max_actions;
                if (cfg->on_fault == REF_ON_FAULT_RANDOM && r->fault != JA_FAULT_FORFEIT)
                    by_seat[s] = legal[ja_rng_below(&fault_rng[s], nl[s])];
                else
                    by_seat[s] = g->default_action(b.st, (int)s);
                if (r->fault != JA_FAULT_FORFEIT) {
                    out->faults[s]++;
                    out->fault_kinds[s][r->fault]++;
                }
                uint32_t limit = cfg->on_fault == REF_ON_FAULT_FORFEIT ? 0 : max_faults;
                if (!out->forfeit[s] && limit != REF_MAX_FAULTS_NEVER &&
                    out->faults[s] > limit) {
                    out->forfeit[s] = 1; /* counted once, as a fault of its own kind */
                    out->faults[s]++;
                    out->fault_kinds[s][JA_FAULT_FORFEIT]++;
                }
            }
            r->code = by_seat[s].code;
        }
        rc = g->apply(b.st, mask, by_seat);
        if (rc != JA_OK) {
            snprintf(err, cap, "%s refused a validated action at decision %u (engine bug)",
                     g->name, out->decisions);
            rc = JA_ESTATE;
            goto done;
        }
        ref_digest_step(&dg, mask, by_seat);
        if (replay && *replay && ref_replay_write_step(*replay, out->decisions, recs, n_recs)) {
            snprintf(err, cap, "cannot write the replay");
            rc = JA_EIO;
            goto done;
        }
        if (on_step) {
            ref_step_info info = {out->decisions, mask, by_seat, recs, n_recs, b.st,
                                  observed, b.obs, b.legal};
            on_step(ctx, g, &info);
        }
        out->decisions++;
    }
    rc = g->outcome(b.st, &out->outcome);
    if (rc != JA_OK) {
        snprintf(err, cap, "%s has no outcome at the end of the match (engine bug)", g->name);
        rc = JA_ESTATE;
        goto done;
    }
    ref_digest_end(&dg, &out->outcome, out->digest);
    for (uint32_t s = 0; s < n; s++)
        ref_seat_end(seats[s], &out->outcome);
    /* What a faulty seat's bot said on stderr, for its reproduction bundle. */
    if (opts && opts->stderr_tails && opts->stderr_cap)
        for (uint32_t s = 0; s < n; s++) {
            char *t = opts->stderr_tails + (size_t)s * opts->stderr_cap;
            t[0] = '\0';
            if (out->faults[s])
                ref_seat_stderr_tail(seats[s], t, opts->stderr_cap);
        }
    if (replay && *replay)
        rc = ref_replay_writer_finish(replay, &out->outcome, out->faults, out->decisions,
                                      out->digest, err, cap);
done:
    if (replay)
        ref_replay_writer_abort(replay);
    for (uint32_t s = 0; s < n; s++)
        ref_seat_close(&seats[s]);
    free_buffers(&b);
    return rc;
}
