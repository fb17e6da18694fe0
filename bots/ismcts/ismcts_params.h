/* Parameters of the `ismcts` reference bot ("iters=2000:c=0.7"), parsed by
 * one function: the plugin's check_params (ja_bot.h, ABI 1.2: the arena
 * asks it before anything runs, so that a bad key is a usage error) and
 * its create(). docs/bots.md lists the keys. */
#ifndef ISMCTS_PARAMS_H
#define ISMCTS_PARAMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ISMCTS_DEFAULT_ITERS 1000u /* iters=auto in a game without its own value */
#define ISMCTS_ITERS_AUTO UINT32_MAX /* iters=auto: the game's value (ismcts.c GREEDY[]) */
#define ISMCTS_DEFAULT_C 0.7
#define ISMCTS_DEFAULT_NODES 65536u
#define ISMCTS_ANCHOR_AUTO (-1.0) /* anchor=auto: the game's value (ismcts.c GREEDY[]) */
#define ISMCTS_VERIFY_AUTO UINT32_MAX /* verify=auto: the game's value (ismcts.c GREEDY[]) */
#define ISMCTS_DROP_AUTO (-1.0) /* drop=auto: the game's value (ismcts.c GREEDY[]) */
#define ISMCTS_DEFAULT_DROP 1.0 /* drop=auto in a game without its own value */
#define ISMCTS_MAX_VERIFY 100000u
#define ISMCTS_INFER_AUTO UINT32_MAX /* infer=auto: the game's value (ismcts.c GREEDY[]) */
#define ISMCTS_MAX_INFER 64u
#define ISMCTS_STRIDE_AUTO 0u /* stride=auto: the game's playout heuristic as it is */
#define ISMCTS_MAX_STRIDE 7u
#define ISMCTS_STEPS_AUTO UINT32_MAX /* steps=auto: the game's value with iters=auto, else none */
#define ISMCTS_MAX_STEP_BUDGET 1000000000u
#define ISMCTS_MAX_ITERS 10000000u
#define ISMCTS_MAX_MS 3600000u
#define ISMCTS_MIN_NODES 16u
#define ISMCTS_MAX_NODES 16777216u

/* auto: greedy playouts in the games where they were measured to play
 * better at the default budget and stay cheap (docs/bots.md), else random. */
typedef enum ismcts_rollout {
    ISMCTS_ROLLOUT_AUTO,
    ISMCTS_ROLLOUT_RANDOM,
    ISMCTS_ROLLOUT_GREEDY
} ismcts_rollout;

/* How far a playout runs: auto (to the end of the current hand where the
 * game values the rest: Bruise Jack; else the match), the match, or the
 * hand (refused in a game without a value for the rest). */
typedef enum ismcts_horizon {
    ISMCTS_HORIZON_AUTO,
    ISMCTS_HORIZON_MATCH,
    ISMCTS_HORIZON_HAND
} ismcts_horizon;

typedef struct ismcts_params {
    uint32_t iters;        /* iterations per decision; 0 when ms is set;
                              ISMCTS_ITERS_AUTO: the game's default */
    uint32_t ms;           /* milliseconds per decision; 0 when iters is set */
    double c;              /* UCB1 exploration constant (rewards are in [0, 1]) */
    uint32_t nodes;        /* node pool size: the memory bound */
    ismcts_rollout rollout;
    double anchor;         /* standard errors the search needs to overrule greedy; 0: off;
                              ISMCTS_ANCHOR_AUTO: the game's default */
    uint32_t verify;       /* paired rollout test at the root: determinizations; 0: off;
                              ISMCTS_VERIFY_AUTO: the game's default */
    uint32_t steps;        /* the search stops after this many engine steps in all
                              (0: none); ISMCTS_STEPS_AUTO: the game's default */
    bool early;            /* the paired test stops early (futility and clear wins) */
    ismcts_horizon horizon; /* playouts end with the match or the current hand */
    double drop;           /* early=on: a candidate whose mean difference is at or below
                              minus this many standard errors at a look is dropped;
                              ISMCTS_DROP_AUTO: the game's default */
    uint32_t infer;        /* the paired test's determinizations informed by the other
                              seats' decisions: tries per pair (0: uniform);
                              ISMCTS_INFER_AUTO: the game's default */
    uint32_t stride;       /* Bruise Jack: the playout heuristic weighs every stride-th
                              unseen card, 1 to 7; ISMCTS_STRIDE_AUTO: 7 */
} ismcts_params;

/* Fills p from text ("" or NULL: the defaults). JA_OK, or JA_EINVAL with a
 * one-line message in err naming the bad key or value and what is allowed. */
int ismcts_params_parse(const char *text, ismcts_params *p, char *err, size_t cap);

#endif /* ISMCTS_PARAMS_H */
