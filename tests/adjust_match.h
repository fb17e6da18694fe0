/* Matches played in memory into a ref_replay, for the tests of the
 * luck adjustment (view/adjust.h): seat 0 plays uniformly random legal
 * actions (the random reference bot), every other seat the greedy reference
 * bot's heuristic of the game, or the first legal action when `greedy` is
 * NULL. The replay is what the referee would record (header, steps, recs,
 * outcome, each record asked unless forced, without a fault); its digest is
 * made up from the seed (not from the actions), since the adjustment only
 * takes its seeds from it. */
#ifndef TESTS_ADJUST_MATCH_H
#define TESTS_ADJUST_MATCH_H

#include "greedy.h"
#include "ja_xalloc.h"
#include "jackarena/ja_error.h"
#include "jackarena/ja_rng.h"
#include "replay.h"

#include <stdlib.h>
#include <string.h>

/* One action index of a seat at st: random for seat 0, else greedy's. */
static uint32_t am_pick(const ja_game_rules *g, const void *st, int s, const ja_action *l,
                        uint32_t nl, greedy_act_fn greedy, void *obs, ja_rng *rng)
{
    uint32_t i = ja_rng_below(rng, nl);
    if (s == 0 || nl < 2)
        return i;
    if (!greedy)
        return 0;
    g->observe(st, s, obs);
    ja_decision d = {.struct_size = sizeof d, .turn = 1, .seat = s, .n_seats = 0,
                     .game = g->name, .obs_version = g->obs_version, .obs_size = g->obs_size,
                     .obs = obs, .legal = l, .n_legal = nl};
    uint32_t j;
    return greedy(&d, &j) == JA_OK && j < nl ? j : i;
}

/* Plays the match of game g (options kv, "" for none) with n seats from
 * seed into a replay the caller frees (ref_replay_free); NULL when the
 * options are refused. */
static ref_replay *am_play(const ja_game_rules *g, const char *kv, uint32_t n, uint64_t seed,
                           greedy_act_fn greedy)
{
    ref_replay *r = ja_xcalloc(1, sizeof *r);
    char err[256];
    ja_options_init(g, &r->h.options);
    if ((kv[0] && ja_options_set(g, &r->h.options, kv, err, sizeof err) != JA_OK) ||
        ja_options_resolve(g, &r->h.options, n, err, sizeof err) != JA_OK) {
        free(r);
        return NULL;
    }
    snprintf(r->h.game, sizeof r->h.game, "%s", g->name);
    r->game = g;
    r->h.seed = seed;
    r->h.n_seats = n;
    for (uint32_t s = 0; s < n; s++)
        snprintf(r->h.players[s].name, sizeof r->h.players[s].name, "%s", s ? "greedy" : "random");
    uint8_t *st = ja_xcalloc(1, g->state_size), *obs = ja_xcalloc(1, g->obs_size);
    ja_action *l = ja_xcalloc(g->max_actions, sizeof *l);
    g->setup(st, &r->h.options, n, seed);
    ja_rng rng;
    ja_rng_stream(&rng, seed, JA_TAG('T', 'A', 'D', 'J'), 0);
    uint32_t cap = 0;
    for (uint32_t mask; (mask = g->to_act(st)) != 0;) {
        if (r->n_steps == cap) {
            cap = cap ? 2 * cap : 256;
            r->steps = realloc(r->steps, cap * sizeof *r->steps);
            r->recs = realloc(r->recs, cap * JA_MAX_SEATS * sizeof *r->recs);
        }
        ref_replay_step *sp = &r->steps[r->n_steps++];
        *sp = (ref_replay_step){mask, r->n_recs, 0};
        ja_action by[JA_MAX_SEATS] = {{0}};
        for (uint32_t m = mask; m; m &= m - 1) {
            int s = __builtin_ctz(m);
            uint32_t nl = g->legal(st, s, l, g->max_actions);
            uint32_t i = am_pick(g, st, s, l, nl, greedy, obs, &rng);
            by[s] = l[i];
            r->recs[r->n_recs++] = (ref_replay_rec){.seat = (uint8_t)s, .code = by[s].code,
                                                    .forced = nl < 2, .index = nl < 2 ? -1 : (int32_t)i,
                                                    .n_legal = nl, .asked = nl >= 2};
            sp->n++;
        }
        g->apply(st, mask, by);
    }
    g->outcome(st, &r->outcome);
    for (int i = 0; i < REF_DIGEST_BYTES; i++)
        r->digest[i] = (uint8_t)(ja_seed_derive(seed, JA_TAG('D', 'G', 'S', 'T'), (uint64_t)i));
    free(st);
    free(obs);
    free(l);
    return r;
}

#endif /* TESTS_ADJUST_MATCH_H */
