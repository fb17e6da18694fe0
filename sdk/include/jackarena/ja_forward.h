/* Helpers over the forward model (ja_rules.h) for bots that search:
 * clone a state, play a joint decision, play a match out at random, score
 * an outcome in [0, 1]. Header-only, no allocation, no globals; a plugin
 * gets the rules table from its host (ja_host_api.rules), a state from its
 * observation (rules->sample), and may then use these on copies.
 * docs/forward-model.md walks through a complete bot built on them. */
#ifndef JA_FORWARD_H
#define JA_FORWARD_H

#include "ja_common.h"
#include "ja_error.h"
#include "ja_rng.h"
#include "ja_rules.h"

#ifdef __cplusplus
extern "C" {
#endif

/* States are flat and pointer-free: a clone is a copy of state_size bytes
 * (memcpy does the same; SDK headers include no <string.h>, and compilers
 * turn this loop into a memcpy). */
static inline void ja_state_clone(const ja_game_rules *g, void *dst, const void *src)
{
    unsigned char *d = (unsigned char *)dst;
    const unsigned char *s = (const unsigned char *)src;
    for (uint32_t i = 0; i < g->state_size; i++)
        d[i] = s[i];
}

/* Plays one step: every seat in to_act(st) takes a uniformly random legal
 * action, except `seat`, which plays `mine` when it is asked (pass seat -1
 * for none). JA_OK, JA_ESTATE when the match is over, or the engine's error. */
static inline int ja_forward_step(const ja_game_rules *g, void *st, int seat, ja_action mine,
                                  ja_rng *rng)
{
    ja_action legal[JA_MAX_ACTIONS], by_seat[JA_MAX_SEATS];
    uint32_t mask = g->to_act(st);
    if (!mask)
        return JA_ESTATE;
    for (int s = 0; s < JA_MAX_SEATS; s++) {
        by_seat[s].code = 0;
        if (!(mask & (1u << s)))
            continue;
        if (s == seat) {
            by_seat[s] = mine;
            continue;
        }
        uint32_t n = g->legal(st, s, legal, JA_MAX_ACTIONS);
        if (n == 0)
            return JA_EILLEGAL;
        by_seat[s] = legal[ja_rng_below(rng, n)];
    }
    return g->apply(st, mask, by_seat);
}

/* Plays st to the end of the match at random (at most max_steps steps) and
 * fills *out. JA_OK, JA_EAGAIN when max_steps ran out first, or the
 * engine's error. */
static inline int ja_forward_playout(const ja_game_rules *g, void *st, ja_rng *rng,
                                     uint32_t max_steps, ja_outcome *out)
{
    ja_action none = {0};
    for (uint32_t i = 0; g->to_act(st) != 0; i++) {
        if (i >= max_steps)
            return JA_EAGAIN;
        int rc = ja_forward_step(g, st, -1, none, rng);
        if (rc != JA_OK)
            return rc;
    }
    return g->outcome(st, out);
}

/* Seat's pairwise place score in [0, 1]: the mean over the other seats of 1
 * for a better place, 1/2 for the same, 0 for a worse one (how `arena bench`
 * scores a match). */
static inline double ja_outcome_pairwise(const ja_outcome *o, int seat)
{
    double sum = 0.0;
    if (o->n_seats < 2)
        return 0.5;
    for (uint32_t t = 0; t < o->n_seats; t++)
        if ((int)t != seat)
            sum += o->place[seat] < o->place[t] ? 1.0 : o->place[seat] == o->place[t] ? 0.5 : 0.0;
    return sum / (o->n_seats - 1);
}

#ifdef __cplusplus
}
#endif
#endif /* JA_FORWARD_H */
