/* Batched training environments: N matches of one game stepped in one call,
 * one learning seat in each, every other seat played by a bot plugin inside
 * the call (libjackarena_env; docs/training.md, "Batched environments");
 * or, with JA_VEC_SELF_PLAY, every seat the caller's: each step answers the
 * one seat asked (the seat buffer says which), as make()'s multi-agent
 * environment asks its agents one at a time.
 *
 * Each call writes into buffers the caller owns and binds once
 * (ja_vec_bind): per environment the learner's observation vector
 * (obs_length float32, the game's training encoding: every field of the
 * observation field table in order, each element one float32 of its integer
 * value), its action mask (n_actions int8 over the action index: the game's
 * canonical action codes in ascending order), the reward of the step
 * (float32; every seat's in self-play), whether the episode is over (uint8)
 * and the seat the row is (int32). These are the vectors
 * jackarena.env's Encoding computes in Python, byte for byte.
 *
 *     ja_vec_config c = {.struct_size = sizeof c, .game = "bruise-jack",
 *                        .n_seats = 2, .n_envs = 1024, .learner = 0,
 *                        .opponents = &(ja_vec_opponent){greedy_desc, ""},
 *                        .n_opponents = 1, .flags = JA_VEC_AUTO_RESET};
 *     ja_vec_create(&c, &env, err, sizeof err);
 *     ja_vec_bind(env, &bufs, err, sizeof err);
 *     ja_vec_reset(env, seeds, err, sizeof err);
 *     for (;;) { choose actions[i] from obs and mask; ja_vec_step(env, actions, ...); }
 *
 * Determinism: episode k of environment i is the match of seed seeds[i]
 * (k = 0), then of ja_vec_episode_seed(seeds[i], k); its opponents are
 * seeded as the referee seeds plugin seats. The same seeds and the same
 * learner choices give the same trajectories, and each episode's digest is
 * the one `arena play --seed SEED` prints for the same bots and choices.
 *
 * The learner is asked only at a decision where it has two legal actions or
 * more (unless JA_VEC_ASK_FORCED), as the referee asks bots; a decision with
 * one legal action is played for it. In a joint decision (Bombs' windows)
 * the opponents asked with it answer from the same state, and the engine
 * applies every answer together.
 *
 * An opponent that errs (act() fails, or answers an index out of range) has
 * its seat's default action played, as the referee plays it; the episode's
 * faults count them.
 *
 * Nothing in ja_vec_step or ja_vec_reset allocates: the states, the seats'
 * observations and the digests are allocated by ja_vec_create. (A plugin's
 * create(), called at each episode's start, may allocate its own.)
 * An environment is used by one thread at a time; ja_vec_set_threads makes
 * its steps run on several (the rows are independent, so the results are
 * the same whatever the number of threads). */
#ifndef JA_VEC_ENV_H
#define JA_VEC_ENV_H

#include "ja_bot.h"
#include "ja_common.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ja_vec_config.flags */
/* A step given an environment whose episode is over starts its next
 * episode (the action given for it is ignored) and writes that episode's
 * first observation, reward 0 and done 0 ("next-step" auto-reset, as
 * Gymnasium 1.0's vector environments do). Without it such an environment
 * stays over (its action ignored, done 1, reward 0) until ja_vec_reset or
 * ja_vec_reset_one starts it again. */
#define JA_VEC_AUTO_RESET 1u
/* The reward at an episode's end is the learner's pairwise place score in
 * [0, 1] (how `arena bench` scores), instead of its score in points. */
#define JA_VEC_REWARD_PLACE 2u
/* Ask the learner decisions with a single legal action too. */
#define JA_VEC_ASK_FORCED 4u
/* Self-play: every seat is the caller's, no opponent (n_opponents 0). Each
 * step answers the decision of the seat the seat buffer names, one seat at
 * a time: in a joint decision (Bombs' windows) each seat asked answers in
 * turn, in seat order, from the same state, and the engine applies the
 * answers together after the last. With JA_VEC_ASK_FORCED every engine
 * decision is asked (one step a seat that acts). The reward buffer has a
 * column per seat (every seat's reward at the episode's end); the row's
 * vector is the asked seat's observation, and at the end the final
 * observation of the seat asked last (seat 0 when none was). The learner
 * names the seat whose score and place ja_vec_episode's units and place
 * are. */
#define JA_VEC_SELF_PLAY 8u
/* Self-play only: the vector buffer has a row per seat (n_envs x n_seats x
 * obs_length), and each step writes the asked seat's own row alone (where
 * it changed since that seat was last asked), so a change of seat no
 * longer rewrites its hand and known cards. Only the row of the seat the
 * seat buffer names is current: the others hold each seat's observation
 * when it was last asked (an earlier episode's before its first decision
 * of this one). The mask stays one per environment, the asked seat's. */
#define JA_VEC_SEAT_ROWS 16u
/* The observation's event window (ev_seq and the other ev_* columns, oldest
 * first in the default vector, so every element moves at each event) is
 * written as a ring instead: the event numbered q (its ev_seq, 1-based) at
 * slot (q - 1) % K of every column, K the window's length, and 0 in every
 * slot no event fills; event_seq, the number of the newest, says where the
 * ring ends (slot (event_seq - 1) % K). A new event writes one slot. The
 * vector's length, fields and offsets are the default's; only the order of
 * the window's entries differs (sorting the slots by ev_seq gives the
 * default vector back). Either layout, self-play or against opponents. */
#define JA_VEC_EVENT_RING 32u

#define JA_VEC_DIGEST_HEX 65 /* 64 hex digits and NUL */
#define JA_VEC_MAX_THREADS 64 /* ja_vec_set_threads */

/* One opponent: a bot plugin's descriptor (what its ja_bot_entry_v1
 * returns; borrowed, it must outlive the environment) and its parameters,
 * "k=v:k=v" ("" or NULL for none; copied). */
typedef struct ja_vec_opponent {
    const ja_bot_desc *desc;
    const char *params;
} ja_vec_opponent;

typedef struct ja_vec_config {
    uint32_t struct_size; /* sizeof(ja_vec_config) */
    const char *game;     /* "bruise-jack" */
    uint32_t n_seats;
    const char *const *options; /* n_options "key=value" game options */
    uint32_t n_options;
    uint32_t n_envs;      /* 1 or more */
    /* the learning seat, 0 .. n_seats - 1 (self-play: the seat whose score
     * and place ja_vec_episode's units and place are) */
    int32_t learner;
    /* The other seats' bots, in seat order past the learner's, the last
     * repeated: {greedy} plays every other seat. At least one; none (NULL
     * and 0) with JA_VEC_SELF_PLAY. */
    const ja_vec_opponent *opponents;
    uint32_t n_opponents;
    uint32_t flags;       /* JA_VEC_* */
} ja_vec_config;

/* The caller's buffers, row-major, one row per environment; each length
 * (in elements) must be exactly what the shape needs.
 *
 * The vector and the mask are written only where they changed since the
 * call before (an observation changes by a few dozen elements a decision,
 * of 691 to 2,563; a decision's legal actions are a few of up to 5,670):
 * between calls the bound buffers are the environment's, and a caller that
 * writes into them binds them again (ja_vec_bind), after which the next
 * call writes every row whole. */
typedef struct ja_vec_buffers {
    float *obs;      /* n_envs x obs_length (JA_VEC_SEAT_ROWS: n_envs x n_seats x obs_length) */
    size_t obs_len;
    int8_t *mask;    /* n_envs x n_actions: 1 where the action is legal */
    size_t mask_len;
    /* n_envs x n_rewards (ja_vec_n_rewards): the reward of the last step,
     * the learner's, or in self-play every seat's */
    float *reward;
    size_t reward_len;
    uint8_t *done;   /* n_envs: 1 when the episode is over */
    size_t done_len;
    /* n_envs: the seat whose observation and mask the row holds (the seat
     * asked). Required in self-play; else optional (NULL: not written). */
    int32_t *seat;
    size_t seat_len;
} ja_vec_buffers;

/* The last finished episode of one environment. */
typedef struct ja_vec_episode {
    uint64_t episodes;  /* episodes of this environment finished so far */
    uint64_t seed;      /* the last one's match seed */
    uint32_t decisions; /* engine steps (every seat's) */
    uint32_t faults;    /* the opponents' faults (default actions played) */
    uint32_t learner_steps; /* decisions the learner (self-play: any seat) was asked */
    int64_t units;      /* the learner's score, units of 1/JA_SCORE_UNIT */
    uint8_t place;      /* the learner's place, 1 = best */
    char digest[JA_VEC_DIGEST_HEX]; /* as `arena play` prints it */
    int64_t scores[JA_MAX_SEATS];   /* every seat's score (n_seats of them) */
    uint8_t places[JA_MAX_SEATS];   /* every seat's place */
} ja_vec_episode;

typedef struct ja_vec_env ja_vec_env;

/* A batch of environments. JA_OK, or JA_EINVAL (a bad game, seat count,
 * option, learner, opponent or parameters: one line in err), JA_EBOT (an
 * opponent that does not play the game), JA_ENOMEM. */
JA_API int ja_vec_create(const ja_vec_config *cfg, ja_vec_env **out, char *err, size_t cap);
JA_API void ja_vec_destroy(ja_vec_env *e);

JA_API uint32_t ja_vec_n_envs(const ja_vec_env *e);
/* Engine steps (every seat's decisions, forced ones included) played by
 * every environment since ja_vec_create. */
JA_API uint64_t ja_vec_decisions(const ja_vec_env *e);
/* The reward buffer's columns: 1 (the learner's), n_seats in self-play. */
JA_API uint32_t ja_vec_n_rewards(const ja_vec_env *e);
/* The observation vector's length and the action index's size. */
JA_API uint32_t ja_vec_obs_length(const ja_vec_env *e);
/* The vector buffer's rows per environment: 1, or n_seats with
 * JA_VEC_SEAT_ROWS. */
JA_API uint32_t ja_vec_obs_rows(const ja_vec_env *e);
JA_API uint32_t ja_vec_n_actions(const ja_vec_env *e);
/* The action code of an index (UINT32_MAX out of range). */
JA_API uint32_t ja_vec_action_code(const ja_vec_env *e, uint32_t index);

/* Steps the environments on n threads (1, the default: the caller's
 * alone; at most JA_VEC_MAX_THREADS): in ja_vec_step the caller's thread
 * and n - 1 threads of the environment's own (started here, waiting
 * between steps) take the batch's environments 16 at a time, in order,
 * until none is left (so a thread held up by a busy machine holds up no
 * more than its 16), and the call returns when all are done. Each environment is stepped
 * by one thread as it would be by one, so every row, reward, episode and
 * digest is the same whatever n (opponent plugins run on those threads:
 * ja_bot.h lets different instances run at once). ja_vec_reset and
 * ja_vec_reset_one stay on the caller's thread. On an error (an opponent
 * that refused its seat at an auto-reset) the error is the lowest
 * environment's, and the other threads' shares may have been stepped.
 * JA_OK, JA_EINVAL for n out of range, JA_ENOMEM when the threads cannot
 * be started (the environment is left on one thread). */
JA_API int ja_vec_set_threads(ja_vec_env *e, uint32_t n, char *err, size_t cap);
JA_API uint32_t ja_vec_threads(const ja_vec_env *e);

/* Binds the caller's buffers (kept until the next bind or destroy).
 * JA_EINVAL naming the buffer whose length is wrong. */
JA_API int ja_vec_bind(ja_vec_env *e, const ja_vec_buffers *b, char *err, size_t cap);

/* Starts an episode in every environment (seeds: n_envs match seeds) and
 * writes each one's first observation, mask, reward 0 and done 0 (done 1,
 * with the final reward, for a match that ended before the learner was
 * asked). JA_ESTATE with no buffers bound, JA_EBOT when an opponent refused
 * its seat (err names the environment). */
JA_API int ja_vec_reset(ja_vec_env *e, const uint64_t *seeds, char *err, size_t cap);
/* The same for environment i alone (the others are left as they are). */
JA_API int ja_vec_reset_one(ja_vec_env *e, uint32_t i, uint64_t seed, char *err, size_t cap);

/* The learner of every environment plays actions[i] (an index of the
 * action index), the opponents play until the learner is asked again or
 * the episode ends, and each row of the buffers is written. In self-play
 * actions[i] is the answer of the seat the row named, and play goes on to
 * the next seat asked (or the episode's end). Every action is
 * checked before any is played: JA_EILLEGAL naming the first environment
 * whose index is out of range or not legal now, JA_ESTATE for an
 * environment never reset; nothing is changed then. An environment whose
 * episode is over ignores its action (JA_VEC_AUTO_RESET). */
JA_API int ja_vec_step(ja_vec_env *e, const int64_t *actions, char *err, size_t cap);

/* The last finished episode of environment i (episodes 0: none yet).
 * JA_EINVAL for i out of range. */
JA_API int ja_vec_episode_info(const ja_vec_env *e, uint32_t i, ja_vec_episode *out);

/* The match seed of episode k of an environment reset with seed (k = 0:
 * seed itself). */
JA_API uint64_t ja_vec_episode_seed(uint64_t seed, uint64_t k);

/* The seed of a plugin seat's own random stream in a match: the first 8
 * bytes, little-endian, of BLAKE2b-128 of the match seed (8 bytes LE),
 * "BOT " and the seat (4 bytes LE), as the referee seeds it. */
JA_API uint64_t ja_vec_bot_seed(uint64_t match_seed, int32_t seat);

#ifdef __cplusplus
}
#endif
#endif /* JA_VEC_ENV_H */
