/* The match loop: one match of one game between seats of any kind.
 *
 * The loop asks the engine who decides, answers single-choice decisions
 * itself (forced, not sent to the bot), asks every other seat of the
 * decision in parallel, collects each answer or fault against one deadline,
 * plays the default action for a fault, and hands the engine all answers at
 * once. It records every step into the digest and the replay. It never
 * knows a game's rules beyond the ja_game_rules table, and it allocates only
 * when a match starts. */
#ifndef REF_MATCH_H
#define REF_MATCH_H

#include "replay.h"
#include "seat.h"

typedef struct ref_match_config {
    const ja_game_rules *game;
    ja_options options;          /* resolved (ja_options_resolve) */
    uint32_t n_seats;
    uint64_t seed;               /* the match seed: the deal and the bots' streams */
    uint32_t move_ms;            /* per-decision limit; 0 = none */
    const char *match_id;        /* for logs, replays and bots; may be "" */
} ref_match_config;

typedef struct ref_match_result {
    ja_outcome outcome;
    uint32_t faults[JA_MAX_SEATS];
    uint32_t fault_kinds[JA_MAX_SEATS][JA_FAULT_COUNT];
    uint32_t decisions;          /* engine decisions (steps), forced ones included */
    uint32_t asked;              /* questions actually put to bots */
    uint64_t think_us[JA_MAX_SEATS];
    uint8_t digest[REF_DIGEST_BYTES];
} ref_match_result;

/* What an observer sees after each step (borrowed for the callback). */
typedef struct ref_step_info {
    uint32_t step;
    uint32_t seats;
    const ja_action *by_seat;    /* applied actions, indexed by seat */
    const ref_replay_rec *recs;  /* one per seat of the decision, ascending */
    uint32_t n_recs;
    const void *state;           /* after the step; the real state, never for bots */
} ref_step_info;

typedef void (*ref_step_fn)(void *ctx, const ja_game_rules *g, const ref_step_info *info);

/* Plays one match. bots[s] sits at seat s (the same bot may sit at several
 * seats); names[s] is its display name for the replay. If *replay is not
 * NULL, the match writes the whole replay and finishes it (taking ownership:
 * *replay is NULL afterwards, whatever happened). on_step may be NULL.
 * Returns JA_OK with *out filled, or an error (a bot refused its seat, an
 * engine bug, a replay write failure) with a one-line message in err. A
 * bot's misbehaviour is a fault in *out, never an error. */
int ref_match_run(const ref_match_config *cfg, ref_bot *const *bots, const char *const *names,
                  ref_replay_writer **replay, ref_step_fn on_step, void *ctx,
                  ref_match_result *out, char *err, size_t cap);

#endif /* REF_MATCH_H */
