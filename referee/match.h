/* The match loop: one match of one game between seats of any kind.
 *
 * The loop asks the engine who decides, answers single-choice decisions
 * itself (forced, not sent to the bot), asks every other seat of the
 * decision in parallel, collects each answer or fault against one deadline,
 * plays the default action for a fault, and hands the engine all answers at
 * once. It records every step into the digest and the replay. It never
 * knows a game's rules beyond the ja_game_rules table, and it allocates only
 * when a match starts.
 *
 * Forfeit: a seat whose faults in the match exceed max_faults forfeits it.
 * Its remaining decisions are not put to the bot: the default action is
 * played and recorded with the fault kind `forfeit`, which is counted once
 * (the forfeit itself) in the result and the ladder. The match is played to
 * its end and the outcome is the engine's, unchanged (the replay and its
 * digest keep it), so every other seat's score stands as played; rankings
 * built from the result (the ladder, `arena play`) put the forfeiting seats
 * last with ref_match_ranked_places.
 *
 * Time control (docs/protocol.md, "Time control"): each decision may use
 * move_ms plus what is left of the seat's bank (bank_ms per match); time
 * used beyond move_ms comes out of the bank, and a decision that needs more
 * than both is a timeout, which empties the bank. The allowance is what the
 * seat is told (ja_decision.deadline_ms). Seats charge the CPU time of the
 * decision where their kind measures it (ref_answer.cpu_us), wall time
 * otherwise. A seat whose kind has no limits (ref_bot_ops.unlimited: a
 * human) gets no allowance at all, whatever move_ms and bank_ms say.
 *
 * Bot logs (docs/replay-format.md, "Bot logs"): when the match writes a
 * replay, what each asked seat's bot logged for a decision (ja_declog.h:
 * at most JA_DECLOG_MAX bytes a decision) is taken after its answer is
 * collected and written after the decision's record, within
 * REF_LOG_MATCH_MAX bytes per seat over the match: the log that passes it
 * is cut with REF_LOG_MATCH_CUT, and the seat's later logs are dropped.
 * Logs never enter the digest, and gathering them never waits on a bot.
 *
 * Fault policy (ref_on_fault): what replaces a missing answer: the game's
 * default action, a uniformly random legal action from the seat's own
 * JA_STREAM_FALT stream of the match seed (the deal never moves), or an
 * immediate forfeit. */
#ifndef REF_MATCH_H
#define REF_MATCH_H

#include "replay.h"
#include "seat.h"

/* Faults in one match a seat may make before it forfeits (documented in
 * docs/protocol.md and `--max-faults`). */
#define REF_DEFAULT_MAX_FAULTS 10u
#define REF_MAX_FAULTS_NEVER UINT32_MAX

/* Bytes of one seat's logs kept over one match, and the marker of the log
 * cut there (then a few bytes more), after which the seat's logs of the
 * match are dropped. */
#define REF_LOG_MATCH_MAX (256u * 1024)
#define REF_LOG_MATCH_CUT \
    "\n[log cut: a seat keeps 262144 bytes of logs a match; later ones are dropped]\n"

/* move_ms value asking each seat's kind for its default (none for plugins,
 * 1000 ms for external bots: ref_bot_default_move_ms). */
#define REF_MOVE_MS_KIND UINT32_MAX

/* What is played in place of a faulty answer (--on-fault). */
typedef enum ref_on_fault {
    REF_ON_FAULT_DEFAULT = 0,    /* the game's default action */
    REF_ON_FAULT_RANDOM,         /* a uniformly random legal action */
    REF_ON_FAULT_FORFEIT,        /* the first fault forfeits the match */
    REF_ON_FAULT_COUNT
} ref_on_fault;

/* "default", "random", "forfeit"; "unknown" outside the enum. */
const char *ref_on_fault_name(int policy);
/* The policy named s, or -1. */
int ref_on_fault_parse(const char *s);

/* What an observer sees after each step (borrowed for the callback). */
typedef struct ref_step_info {
    uint32_t step;
    uint32_t seats;
    const ja_action *by_seat;    /* applied actions, indexed by seat */
    const ref_replay_rec *recs;  /* one per seat of the decision, ascending */
    uint32_t n_recs;
    const void *state;           /* after the step; the real state, never for bots */
    /* What the seats asked in this step were given (training-data export):
     * seat s is in `observed` when the loop observed the state for it and
     * put the question to it (counted in ref_match_result.asked; forced and
     * forfeited seats are not). For such a seat, obs + s * game->obs_size
     * is its observation and legal + s * game->max_actions its legal list
     * of recs[k].n_legal actions; recs[k] holds its answer, fault and the
     * applied code. Valid only during the callback. */
    uint32_t observed;           /* bit s: seat s was observed and asked */
    const unsigned char *obs;    /* n_seats observations of obs_size */
    const ja_action *legal;      /* n_seats lists of max_actions */
} ref_step_info;

typedef void (*ref_step_fn)(void *ctx, const ja_game_rules *g, const ref_step_info *info);

/* One match: what it is, who plays it, and how it is run and watched.
 * Zero is the default of every field after `on_fault`. Pointers are
 * borrowed for ref_match_run. */
typedef struct ref_match_config {
    /* What the match is (the replay header and the digest record it). */
    const ja_game_rules *game;
    ja_options options;          /* resolved (ja_options_resolve) */
    uint32_t n_seats;
    uint64_t seed;               /* the match seed: the deal and the bots' streams */
    uint32_t move_ms;            /* per-decision limit; 0 = none; REF_MOVE_MS_KIND */
    const char *match_id;        /* for logs, replays and bots; may be "" or NULL */
    uint32_t bank_ms;            /* per-match time bank per seat; 0 = none */
    uint8_t on_fault;            /* ref_on_fault */
    /* How it is run. */
    uint32_t max_faults;         /* 0 = REF_DEFAULT_MAX_FAULTS; REF_MAX_FAULTS_NEVER */
    const char *replay_id;       /* told to bots at the end; NULL = none */
    /* Optional: n_seats buffers of stderr_cap bytes, caller-owned. At the
     * end of the match each seat with a fault gets the tail of its bot's
     * stderr there (ref_seat_stderr_tail; "" when its kind keeps none). */
    char *stderr_tails;
    size_t stderr_cap;
    /* Who plays: bots[s] sits at seat s (the same bot may sit at several
     * seats); names[s] is its display name for the replay (NULL: each
     * bot's own name). */
    ref_bot *const *bots;
    const char *const *names;
    /* Where it goes: if replay and *replay are not NULL, the match writes
     * the whole replay and finishes it, taking ownership (*replay is NULL
     * afterwards, whatever happened). on_step (NULL = none) is called with
     * step_ctx after each step. */
    ref_replay_writer **replay;
    ref_step_fn on_step;
    void *step_ctx;
    /* Observations on demand (ABI 1.3): a seat whose bot takes its
     * observation on demand (an in-process plugin with
     * JA_BOT_OBS_ON_DEMAND) is asked with d->obs NULL, and its observation
     * is brought up to date only if the bot asks for it during act()
     * (ja_host_api.observe), never at all if it does not. Every other seat
     * is observed before it is asked. With on_step, or with obs_eager (the
     * bench: what seats that read their observation cost), every asked
     * seat is observed before it is asked, as the observer expects. The
     * observation is the same bytes either way, and nothing the match
     * records (digest, replay) depends on it. */
    bool obs_eager;
} ref_match_config;

typedef struct ref_match_result {
    ja_outcome outcome;
    uint32_t faults[JA_MAX_SEATS];
    uint32_t fault_kinds[JA_MAX_SEATS][JA_FAULT_COUNT];
    uint32_t decisions;          /* engine decisions (steps), forced ones included */
    uint32_t asked;              /* questions actually put to bots */
    /* Wall time each seat thought, summed. In-process plugins without a
     * limit are timed only when a replay or on_step records the times: 0
     * otherwise (two clock reads a decision saved). */
    uint64_t think_us[JA_MAX_SEATS];
    uint8_t forfeit[JA_MAX_SEATS];   /* 1: the seat forfeited (see above) */
    uint64_t bank_left_us[JA_MAX_SEATS]; /* what is left of each bank (bank_ms) */
    /* 1: a seat's participant left the match (ref_answer.left: a human
     * quit): it stopped there, unfinished, and ref_match_run returned
     * JA_ESTATE with "seat S (NAME) left the match at decision D: WHY";
     * its replay is abandoned, never written. */
    uint8_t abandoned;
    uint8_t digest[REF_DIGEST_BYTES];
} ref_match_result;

/* Plays the match cfg describes. Returns JA_OK with *out filled, or an
 * error (a bot refused its seat, an engine bug, a replay write failure, a
 * participant that left: out->abandoned) with a one-line message in err. A
 * bot's misbehaviour is a fault in *out, never an error. */
int ref_match_run(const ref_match_config *cfg, ref_match_result *out, char *err, size_t cap);

/* The same match, played in parts: what lets one thread play several
 * matches whose seats answer asynchronously (external bots on direct seats,
 * arena/run/executor_events.c). ref_match_run is start, play(false), close.
 *
 * ref_match_start prepares the match (buffers, seats, the record's start)
 * and always gives a handle in *m that
 * ref_match_close releases; it returns what ref_match_run would have
 * returned had the match failed there, or JA_OK. cfg, out and err are
 * borrowed until ref_match_close. */
typedef struct ref_match ref_match;
int ref_match_start(const ref_match_config *cfg, ref_match_result *out, char *err, size_t cap,
                    ref_match **m);
/* Plays on. nowait false: to the end, as ref_match_run. nowait true: stops
 * with JA_EAGAIN when an asked seat's answer is not there yet
 * (ref_seat_ready), to be called again once it may be; the match and its
 * record are exactly those of a played-through match. The end: JA_OK
 * (the result in out) or ref_match_run's errors, and the same again on
 * later calls. */
int ref_match_play(ref_match *m, bool nowait);
/* While play returned JA_EAGAIN: the absolute CLOCK_MONOTONIC deadline of
 * the seat it waits for (0: none), after which play goes on (a timeout). */
int64_t ref_match_waits_until(const ref_match *m);
/* Closes every seat, abandons an unfinished replay, frees the match. NULL
 * allowed. */
void ref_match_close(ref_match *m);

/* The places a ranking uses (the ladder, `arena play`): a forfeiting seat
 * takes last place (forfeiters tie), and the other seats keep their order
 * as played, in competition ranking (1, 1, 3). Without forfeits these are
 * the outcome's places. */
void ref_match_ranked_places(const ja_outcome *o, const uint8_t forfeit[JA_MAX_SEATS],
                             uint32_t n_seats, uint32_t places[JA_MAX_SEATS]);

#endif /* REF_MATCH_H */
