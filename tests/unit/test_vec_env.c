/* The batched environments' C API (ja_vec_env.h): every game stepped with
 * random legal actions, against opponents and in self-play, determinism,
 * self-play playing the matches of opponents when the caller plays their
 * seats as they do, buffers bound again written whole, the same rows
 * whatever the threads (ja_vec_set_threads) and the batch size, the checks
 * of bad input, and no allocation in ja_vec_reset or ja_vec_step (allocation
 * calls of this binary's objects counted through the linker's --wrap, as
 * test_no_alloc counts them; tests/CMakeLists.txt). The opponent is a bot
 * of this file that draws from its host stream, so the host's services are
 * used. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "jackarena/ja_error.h"
#include "jackarena/ja_rng.h"
#include "jackarena/ja_vec_env.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "alloc_count.h"

/* Set by every create, on the stepping threads too: atomic. */
static const ja_host_api *_Atomic g_host;

static int tb_create(const ja_host_api *host, void *hctx, const char *game, int32_t seat,
                     uint32_t n_seats, void **out)
{
    (void)game, (void)seat, (void)n_seats;
    g_host = host;
    *out = hctx; /* no state of its own: allocates nothing */
    return JA_OK;
}

static int tb_act(void *bot, const ja_decision *d, uint32_t *index)
{
    if (!d->obs || d->n_legal < 2 || g_host->time_left_ms(bot) != -1)
        return JA_EINVAL;
    *index = (uint32_t)(g_host->rng_next(bot) % d->n_legal);
    return JA_OK;
}

static void tb_destroy(void *bot)
{
    (void)bot;
}

static const ja_bot_desc TEST_BOT = {.struct_size = sizeof(ja_bot_desc),
                                     .abi_major = JA_BOT_ABI_MAJOR, .abi_minor = JA_BOT_ABI_MINOR,
                                     .name = "test", .version = "1", .create = tb_create,
                                     .act = tb_act, .destroy = tb_destroy};

/* A bot that plays its legal action of the lowest code. */
static int low_act(void *bot, const ja_decision *d, uint32_t *index)
{
    (void)bot;
    *index = 0;
    for (uint32_t k = 1; k < d->n_legal; k++)
        if (d->legal[k].code < d->legal[*index].code)
            *index = k;
    return JA_OK;
}

static const ja_bot_desc LOW_BOT = {.struct_size = sizeof(ja_bot_desc),
                                    .abi_major = JA_BOT_ABI_MAJOR, .abi_minor = JA_BOT_ABI_MINOR,
                                    .name = "low", .version = "1", .create = tb_create,
                                    .act = low_act, .destroy = tb_destroy};

typedef struct bufs {
    float *obs;
    int8_t *mask;
    float *reward;
    uint8_t *done;
    int32_t *seat;
    ja_vec_buffers b;
} bufs;

static void bufs_make(bufs *x, const ja_vec_env *e)
{
    size_t n = ja_vec_n_envs(e), L = ja_vec_obs_length(e) * ja_vec_obs_rows(e);
    size_t A = ja_vec_n_actions(e), R = ja_vec_n_rewards(e);
    x->obs = calloc(n * L, sizeof *x->obs);
    x->mask = calloc(n * A, 1);
    x->reward = calloc(n * R, sizeof *x->reward);
    x->done = calloc(n, 1);
    x->seat = calloc(n, sizeof *x->seat);
    x->b = (ja_vec_buffers){x->obs, n * L, x->mask, n * A, x->reward, n * R, x->done, n,
                            x->seat, n};
}

static void bufs_free(bufs *x)
{
    free(x->obs);
    free(x->mask);
    free(x->reward);
    free(x->done);
    free(x->seat);
}

/* A batch of game with n environments; self-play with JA_VEC_SELF_PLAY in
 * flags, else the learner in the last seat and opp (TEST_BOT for NULL) in
 * the others. */
static ja_vec_env *make_with(const char *game, uint32_t seats, uint32_t n, uint32_t flags,
                             const ja_bot_desc *bot, int32_t learner)
{
    ja_vec_opponent opp = {bot ? bot : &TEST_BOT, ""};
    bool self = flags & JA_VEC_SELF_PLAY;
    /* Short matches: one game or hand (bruise-jack and brawljack take none). */
    static const char *const ONE_GAME[] = {"games=1"}, *const ONE_HAND[] = {"hands=1"};
    bool games = strcmp(game, "taylor-blackjack") == 0 || strcmp(game, "jack-in-the-box") == 0;
    ja_vec_config c = {.struct_size = sizeof c, .game = game, .n_seats = seats, .n_envs = n,
                       .learner = learner, .opponents = self ? NULL : &opp,
                       .n_opponents = self ? 0 : 1, .flags = flags};
    if (games || strcmp(game, "bombs") == 0) {
        c.options = games ? ONE_GAME : ONE_HAND;
        c.n_options = 1;
    }
    ja_vec_env *e = NULL;
    char err[256];
    int rc = ja_vec_create(&c, &e, err, sizeof err);
    if (rc != JA_OK)
        fail_msg("%s: %s", game, err);
    return e;
}

static ja_vec_env *make(const char *game, uint32_t seats, uint32_t n, uint32_t flags)
{
    return make_with(game, seats, n, flags, NULL, (int32_t)(seats - 1));
}

/* A random legal index of environment i's mask (0 for an ended one). */
static int64_t pick(const bufs *x, uint32_t A, uint32_t i, ja_rng *r)
{
    uint32_t legal[8192], n = 0;
    for (uint32_t a = 0; a < A && n < 8192; a++)
        if (x->mask[(size_t)i * A + a])
            legal[n++] = a;
    return n ? legal[ja_rng_below(r, n)] : 0;
}

/* Plays steps steps of every environment; returns the episodes ended. */
static uint32_t play(ja_vec_env *e, bufs *x, uint32_t steps, uint64_t seed, long *allocs)
{
    uint32_t n = ja_vec_n_envs(e), A = ja_vec_n_actions(e), ended = 0;
    uint64_t seeds[16];
    int64_t actions[16];
    char err[256];
    ja_rng r;
    ja_rng_seed(&r, seed);
    for (uint32_t i = 0; i < n; i++)
        seeds[i] = seed + i;
    long before = g_allocs;
    assert_int_equal(ja_vec_reset(e, seeds, err, sizeof err), JA_OK);
    for (uint32_t t = 0; t < steps; t++) {
        for (uint32_t i = 0; i < n; i++)
            actions[i] = pick(x, A, i, &r);
        int rc = ja_vec_step(e, actions, err, sizeof err);
        if (rc != JA_OK)
            fail_msg("step %u: %s", t, err);
        for (uint32_t i = 0; i < n; i++)
            ended += x->done[i];
    }
    *allocs = g_allocs - before;
    return ended;
}

/* Every game against opponents, and in self-play (every decision asked:
 * one step a seat that acts, so no fewer steps than engine decisions). */
static void every_game(uint32_t flags, uint32_t steps)
{
    for (int k = 0; ja_games[k]; k++) {
        const ja_game_rules *g = ja_games[k];
        uint32_t seats = g->min_seats < 3 && g->max_seats >= 3 ? 3 : g->min_seats;
        ja_vec_env *e = make(g->name, seats, 6, flags), *f;
        bufs x, y;
        char err[256];
        bufs_make(&x, e);
        assert_int_equal(ja_vec_bind(e, &x.b, err, sizeof err), JA_OK);
        long allocs = 0;
        uint32_t ended = play(e, &x, steps, 77, &allocs);
        if (allocs != 0)
            fail_msg("%s: reset and steps allocated %ld times", g->name, allocs);
        if (ended == 0)
            fail_msg("%s: no episode ended in %u steps", g->name, steps);
        ja_vec_episode ep;
        assert_int_equal(ja_vec_episode_info(e, 0, &ep), JA_OK);
        assert_true(ep.episodes > 0 && strlen(ep.digest) == 64 && ep.faults == 0);
        if (flags & JA_VEC_SELF_PLAY) {
            if (ep.learner_steps < ep.decisions)
                fail_msg("%s: %u steps asked for %u decisions", g->name, ep.learner_steps,
                         ep.decisions);
            for (uint32_t i = 0; i < 6; i++)
                assert_true(x.seat[i] >= 0 && (uint32_t)x.seat[i] < seats);
        }
        assert_int_equal(ep.units, ep.scores[seats - 1]);
        /* The same seeds and choices: the same buffers. */
        f = make(g->name, seats, 6, flags);
        bufs_make(&y, f);
        assert_int_equal(ja_vec_bind(f, &y.b, err, sizeof err), JA_OK);
        play(f, &y, steps, 77, &allocs);
        size_t n = 6;
        assert_memory_equal(x.obs, y.obs, n * ja_vec_obs_length(e) * sizeof(float));
        assert_memory_equal(x.mask, y.mask, n * ja_vec_n_actions(e));
        assert_memory_equal(x.reward, y.reward, n * ja_vec_n_rewards(e) * sizeof(float));
        assert_memory_equal(x.seat, y.seat, n * sizeof(int32_t));
        ja_vec_episode ep2;
        ja_vec_episode_info(f, 0, &ep2);
        assert_string_equal(ep.digest, ep2.digest);
        ja_vec_destroy(e);
        ja_vec_destroy(f);
        bufs_free(&x);
        bufs_free(&y);
    }
}

static void test_every_game(void **state)
{
    (void)state;
    every_game(JA_VEC_AUTO_RESET, 400);
}

static void test_every_game_self_play(void **state)
{
    (void)state;
    every_game(JA_VEC_AUTO_RESET | JA_VEC_SELF_PLAY | JA_VEC_ASK_FORCED, 1600);
}

/* The index of environment i's mask that policy of seat plays: seat 0 its
 * highest legal index, the others their lowest (LOW_BOT's choice). */
static int64_t policy(const bufs *x, uint32_t A, uint32_t i, int32_t seat)
{
    const int8_t *m = x->mask + (size_t)i * A;
    int64_t hi = -1, lo = -1;
    for (uint32_t a = 0; a < A; a++)
        if (m[a]) {
            lo = lo < 0 ? a : lo;
            hi = a;
        }
    return seat == 0 ? (hi < 0 ? 0 : hi) : (lo < 0 ? 0 : lo);
}

/* Plays steps steps of e with policy (the rows' seats) and writes each
 * environment's first episodes' digests to dg[i][k] (k < 4). */
static void play_policy(ja_vec_env *e, bufs *x, uint32_t steps, char dg[][4][JA_VEC_DIGEST_HEX])
{
    uint32_t n = ja_vec_n_envs(e), A = ja_vec_n_actions(e);
    uint64_t seeds[4] = {5, 6, 7, 8};
    int64_t actions[4];
    char err[256];
    assert_int_equal(ja_vec_bind(e, &x->b, err, sizeof err), JA_OK);
    assert_int_equal(ja_vec_reset(e, seeds, err, sizeof err), JA_OK);
    for (uint32_t t = 0; t < steps; t++) {
        for (uint32_t i = 0; i < n; i++)
            actions[i] = policy(x, A, i, x->seat[i]);
        if (ja_vec_step(e, actions, err, sizeof err) != JA_OK)
            fail_msg("step %u: %s", t, err);
        for (uint32_t i = 0; i < n; i++) {
            ja_vec_episode ep;
            ja_vec_episode_info(e, i, &ep);
            if (x->done[i] && ep.episodes <= 4)
                memcpy(dg[i][ep.episodes - 1], ep.digest, JA_VEC_DIGEST_HEX);
        }
    }
}

/* In every game, self-play whose caller plays seat 0 as a learner would
 * and every other seat as LOW_BOT plays the matches, digest for digest, of
 * the learner in seat 0 against LOW_BOT (joint decisions included: their
 * seats answer from the same state either way). */
static void test_self_play_is_opponents(void **state)
{
    (void)state;
    for (int k = 0; ja_games[k]; k++) {
        const ja_game_rules *g = ja_games[k];
        uint32_t seats = g->min_seats < 3 && g->max_seats >= 3 ? 3 : g->min_seats;
        static char a[4][4][JA_VEC_DIGEST_HEX], b[4][4][JA_VEC_DIGEST_HEX];
        memset(a, 0, sizeof a);
        memset(b, 1, sizeof b);
        ja_vec_env *e = make_with(g->name, seats, 4, JA_VEC_AUTO_RESET, &LOW_BOT, 0);
        ja_vec_env *f = make_with(g->name, seats, 4, JA_VEC_AUTO_RESET | JA_VEC_SELF_PLAY,
                                  NULL, 0);
        bufs x, y;
        bufs_make(&x, e);
        bufs_make(&y, f);
        play_policy(e, &x, 300, a);
        play_policy(f, &y, 300 * seats * 4, b);
        for (uint32_t i = 0; i < 4; i++) {
            if (!a[i][1][0])
                fail_msg("%s: environment %u finished fewer than 2 episodes", g->name, i);
            for (uint32_t ep = 0; ep < 4 && a[i][ep][0]; ep++)
                if (memcmp(a[i][ep], b[i][ep], JA_VEC_DIGEST_HEX) != 0)
                    fail_msg("%s: environment %u, episode %u: %.64s against opponents, %.64s "
                             "in self-play", g->name, i, ep, a[i][ep], b[i][ep]);
        }
        ja_vec_destroy(e);
        ja_vec_destroy(f);
        bufs_free(&x);
        bufs_free(&y);
    }
}

/* The mask is written where it changed only; buffers bound again are
 * written whole: a batch whose buffers are scribbled on and bound again
 * before every step writes what one left alone writes. */
static void test_bound_again(void **state)
{
    (void)state;
    const uint32_t n = 4;
    ja_vec_env *e = make("jack-in-the-box", 2, n, JA_VEC_AUTO_RESET | JA_VEC_SELF_PLAY);
    ja_vec_env *f = make("jack-in-the-box", 2, n, JA_VEC_AUTO_RESET | JA_VEC_SELF_PLAY);
    uint32_t L = ja_vec_obs_length(e), A = ja_vec_n_actions(e);
    bufs x, y;
    bufs_make(&x, e);
    bufs_make(&y, f);
    char err[256];
    uint64_t seeds[4] = {1, 2, 3, 4};
    int64_t actions[4];
    ja_rng r;
    ja_rng_seed(&r, 3);
    assert_int_equal(ja_vec_bind(e, &x.b, err, sizeof err), JA_OK);
    assert_int_equal(ja_vec_bind(f, &y.b, err, sizeof err), JA_OK);
    assert_int_equal(ja_vec_reset(e, seeds, err, sizeof err), JA_OK);
    assert_int_equal(ja_vec_reset(f, seeds, err, sizeof err), JA_OK);
    for (uint32_t t = 0; t < 300; t++) {
        for (uint32_t i = 0; i < n; i++)
            actions[i] = pick(&x, A, i, &r);
        memset(y.mask, 1, (size_t)n * A);
        memset(y.obs, 0xff, (size_t)n * L * sizeof(float));
        assert_int_equal(ja_vec_bind(f, &y.b, err, sizeof err), JA_OK);
        assert_int_equal(ja_vec_step(e, actions, err, sizeof err), JA_OK);
        assert_int_equal(ja_vec_step(f, actions, err, sizeof err), JA_OK);
        assert_memory_equal(x.mask, y.mask, (size_t)n * A);
        assert_memory_equal(x.obs, y.obs, (size_t)n * L * sizeof(float));
    }
    ja_vec_destroy(e);
    ja_vec_destroy(f);
    bufs_free(&x);
    bufs_free(&y);
}

/* More than the 16 environments a thread takes at a time (vec_env.c's
 * VEC_TAKE), and not a multiple of them. */
#define ROW_ENVS 20u

/* A set of ROW_ENVS environments of game (flags, seeds 500 + i): one
 * batch on threads threads, or (threads 0) ROW_ENVS batches of one. */
typedef struct envs {
    uint32_t batches, per;
    ja_vec_env *e[ROW_ENVS];
    bufs x[ROW_ENVS];
} envs;

static void envs_make(envs *v, const char *game, uint32_t seats, uint32_t flags,
                      uint32_t threads)
{
    char err[256];
    v->batches = threads ? 1 : ROW_ENVS;
    v->per = threads ? ROW_ENVS : 1;
    for (uint32_t b = 0; b < v->batches; b++) {
        v->e[b] = make(game, seats, v->per, flags);
        if (threads)
            assert_int_equal(ja_vec_set_threads(v->e[b], threads, err, sizeof err), JA_OK);
        bufs_make(&v->x[b], v->e[b]);
        assert_int_equal(ja_vec_bind(v->e[b], &v->x[b].b, err, sizeof err), JA_OK);
        uint64_t seeds[ROW_ENVS];
        for (uint32_t k = 0; k < v->per; k++)
            seeds[k] = 500 + b + k;
        assert_int_equal(ja_vec_reset(v->e[b], seeds, err, sizeof err), JA_OK);
    }
}

static void envs_free(envs *v)
{
    for (uint32_t b = 0; b < v->batches; b++) {
        ja_vec_destroy(v->e[b]);
        bufs_free(&v->x[b]);
    }
}

/* Whether environment i's row and last episode in v are ref's (one batch). */
static bool same_row(const envs *ref, const envs *v, uint32_t i)
{
    const ja_vec_env *e = ref->e[0], *f = v->e[i / v->per];
    const bufs *x = &ref->x[0], *y = &v->x[i / v->per];
    size_t L = ja_vec_obs_length(e) * ja_vec_obs_rows(e), A = ja_vec_n_actions(e);
    size_t R = ja_vec_n_rewards(e);
    uint32_t k = i % v->per;
    ja_vec_episode a, b;
    ja_vec_episode_info(e, i, &a);
    ja_vec_episode_info(f, k, &b);
    return !memcmp(x->obs + i * L, y->obs + k * L, L * sizeof(float)) &&
           !memcmp(x->mask + i * A, y->mask + k * A, A) &&
           !memcmp(x->reward + i * R, y->reward + k * R, R * sizeof(float)) &&
           x->done[i] == y->done[k] && x->seat[i] == y->seat[k] &&
           strcmp(a.digest, b.digest) == 0 && a.episodes == b.episodes;
}

/* Steps ROW_ENVS environments of game as one batch on one thread and,
 * beside it, on threads threads (0: as batches of one), with the same
 * actions (each environment's drawn from its own stream), and compares
 * every row after every step; the second's steps allocate nothing.
 * Returns the episodes ended. */
static uint32_t compare_rows(const char *game, uint32_t seats, uint32_t flags, uint32_t threads,
                             uint32_t steps)
{
    static envs ref, v;
    envs_make(&ref, game, seats, flags, 1);
    envs_make(&v, game, seats, flags, threads);
    uint32_t A = ja_vec_n_actions(ref.e[0]), ended = 0;
    ja_rng rng[ROW_ENVS];
    char err[256];
    for (uint32_t i = 0; i < ROW_ENVS; i++)
        ja_rng_seed(&rng[i], 900 + i);
    long allocs = 0;
    for (uint32_t t = 0; t <= steps; t++) {
        int64_t actions[ROW_ENVS];
        for (uint32_t i = 0; i < ROW_ENVS; i++) {
            if (!same_row(&ref, &v, i))
                fail_msg("%s (%s): step %u, environment %u: %u %s write another row than one "
                         "thread", game, flags & JA_VEC_SELF_PLAY ? "self-play" : "opponents", t,
                         i, threads, threads ? "threads" : "batches of one");
            ended += ref.x[0].done[i];
            actions[i] = pick(&ref.x[0], A, i, &rng[i]);
        }
        if (t == steps)
            break;
        if (ja_vec_step(ref.e[0], actions, err, sizeof err) != JA_OK)
            fail_msg("%s: step %u: %s", game, t, err);
        long before = g_allocs;
        for (uint32_t b = 0; b < v.batches; b++)
            if (ja_vec_step(v.e[b], actions + b * v.per, err, sizeof err) != JA_OK)
                fail_msg("%s: step %u: %s", game, t, err);
        allocs += g_allocs - before;
    }
    if (allocs != 0)
        fail_msg("%s: %u threads: the steps allocated %ld times", game, threads, allocs);
    envs_free(&ref);
    envs_free(&v);
    return ended;
}

/* Every game, against opponents and in self-play: a batch stepped on 2, 3
 * and 64 threads (more than its environments) and the same environments
 * as batches of one write one thread's rows at every step, and finish the
 * same episodes (digests). */
static void test_threads_and_batches(void **state)
{
    (void)state;
    static const uint32_t THREADS[] = {2, 3, JA_VEC_MAX_THREADS, 0};
    for (int k = 0; ja_games[k]; k++) {
        const ja_game_rules *g = ja_games[k];
        uint32_t seats = g->min_seats < 3 && g->max_seats >= 3 ? 3 : g->min_seats;
        for (int self = 0; self < 2; self++) {
            uint32_t flags = JA_VEC_AUTO_RESET |
                             (self ? JA_VEC_SELF_PLAY | JA_VEC_ASK_FORCED : 0);
            for (size_t m = 0; m < sizeof THREADS / sizeof THREADS[0]; m++) {
                uint32_t ended = compare_rows(g->name, seats, flags, THREADS[m], 150);
                if (ended < 2) /* auto-resets on the threads too */
                    fail_msg("%s: %u episodes ended in 150 steps", g->name, ended);
            }
        }
    }
}

/* The default vector of a JA_VEC_EVENT_RING one of game g (length L): the
 * ring's filled slots (ev_seq not 0) sorted by their numbers, oldest first
 * from the window's start, zeros after them. */
static void unring(const ja_game_rules *g, const float *ring, float *out, uint32_t L)
{
    memcpy(out, ring, L * sizeof *out);
    uint32_t at = 0, seq_at = 0, k = 0;
    for (uint32_t f = 0; f < g->n_obs_fields; f++) {
        if (strcmp(g->obs_fields[f].name, "ev_seq") == 0) {
            seq_at = at;
            k = g->obs_fields[f].count;
        }
        at += g->obs_fields[f].count;
    }
    assert_true(k > 0 && k <= 64);
    uint32_t order[64], m = 0; /* the filled slots, by number */
    for (uint32_t s = 0; s < k; s++)
        if (ring[seq_at + s] != 0) {
            uint32_t j = m++;
            for (; j > 0 && ring[seq_at + order[j - 1]] > ring[seq_at + s]; j--)
                order[j] = order[j - 1];
            order[j] = s;
        }
    at = 0;
    for (uint32_t f = 0; f < g->n_obs_fields; f++) {
        const ja_field *fd = &g->obs_fields[f];
        if (fd->count == k && strncmp(fd->name, "ev_", 3) == 0)
            for (uint32_t j = 0; j < k; j++)
                out[at + j] = j < m ? ring[at + order[j]] : 0.0f;
        at += fd->count;
    }
}

/* A batch of ROW_ENVS of game with flags; its buffers bound, reset with
 * seeds 300 + i. */
static ja_vec_env *layout_make(const char *game, uint32_t seats, uint32_t flags, bufs *x)
{
    char err[256];
    uint64_t seeds[ROW_ENVS];
    ja_vec_env *e = make(game, seats, ROW_ENVS, flags);
    bufs_make(x, e);
    assert_int_equal(ja_vec_obs_rows(e), flags & JA_VEC_SEAT_ROWS ? seats : 1);
    assert_int_equal(ja_vec_bind(e, &x->b, err, sizeof err), JA_OK);
    for (uint32_t i = 0; i < ROW_ENVS; i++)
        seeds[i] = 300 + i;
    assert_int_equal(ja_vec_reset(e, seeds, err, sizeof err), JA_OK);
    return e;
}

/* Steps game in the default layout and, beside it with the same actions,
 * in layout `flags` (JA_VEC_EVENT_RING, with or without JA_VEC_SEAT_ROWS),
 * and checks after every step: the same seats, masks, rewards, ends and
 * digests; the asked seat's row un-ringed is the default row; with
 * JA_VEC_SEAT_ROWS every other seat's row is what it was before the step
 * (written only when that seat is asked). Returns the episodes ended. */
static uint32_t compare_layout(const ja_game_rules *g, uint32_t seats, uint32_t base,
                               uint32_t flags, uint32_t steps)
{
    bufs x, y;
    ja_vec_env *e = layout_make(g->name, seats, base, &x);
    ja_vec_env *f = layout_make(g->name, seats, base | flags, &y);
    const uint32_t L = ja_vec_obs_length(e), A = ja_vec_n_actions(e), R = ja_vec_n_rewards(e);
    const uint32_t per = flags & JA_VEC_SEAT_ROWS ? seats : 1;
    float *plain = malloc(L * sizeof *plain);
    float *before = malloc((size_t)ROW_ENVS * per * L * sizeof *before);
    ja_rng r;
    ja_rng_seed(&r, 41);
    char err[256];
    uint32_t ended = 0;
    for (uint32_t t = 0; t <= steps; t++) {
        for (uint32_t i = 0; i < ROW_ENVS; i++) {
            uint32_t s = (flags & JA_VEC_SEAT_ROWS) ? (uint32_t)y.seat[i] : 0;
            ja_vec_episode a, b;
            ja_vec_episode_info(e, i, &a);
            ja_vec_episode_info(f, i, &b);
            unring(g, y.obs + ((size_t)i * per + s) * L, plain, L);
            if (memcmp(plain, x.obs + (size_t)i * L, L * sizeof *plain) != 0 ||
                memcmp(x.mask + (size_t)i * A, y.mask + (size_t)i * A, A) != 0 ||
                memcmp(x.reward + (size_t)i * R, y.reward + (size_t)i * R,
                       R * sizeof(float)) != 0 ||
                x.done[i] != y.done[i] || (x.b.seat && x.seat[i] != y.seat[i]) ||
                strcmp(a.digest, b.digest) != 0)
                fail_msg("%s, flags 0x%x: step %u, environment %u: not the default row "
                         "un-ringed", g->name, base | flags, t, i);
            for (uint32_t o = 0; o < per && t > 0; o++)
                if (o != s && memcmp(before + ((size_t)i * per + o) * L,
                                     y.obs + ((size_t)i * per + o) * L, L * sizeof(float)))
                    fail_msg("%s: step %u, environment %u: seat %u's row written, seat %u "
                             "asked", g->name, t, i, o, s);
            ended += x.done[i];
        }
        if (t == steps)
            break;
        int64_t actions[ROW_ENVS];
        for (uint32_t i = 0; i < ROW_ENVS; i++)
            actions[i] = pick(&x, A, i, &r);
        memcpy(before, y.obs, (size_t)ROW_ENVS * per * L * sizeof *before);
        assert_int_equal(ja_vec_step(e, actions, err, sizeof err), JA_OK);
        assert_int_equal(ja_vec_step(f, actions, err, sizeof err), JA_OK);
    }
    free(plain);
    free(before);
    ja_vec_destroy(e);
    ja_vec_destroy(f);
    bufs_free(&x);
    bufs_free(&y);
    return ended;
}

/* Every game: the ring in the default layout against opponents and in
 * self-play, and with a row per seat in self-play, are the default rows
 * un-ringed at every step; a row per seat is the same on 2 threads and as
 * batches of one. */
static void test_ring_and_seat_rows(void **state)
{
    (void)state;
    const uint32_t self = JA_VEC_AUTO_RESET | JA_VEC_SELF_PLAY | JA_VEC_ASK_FORCED;
    for (int k = 0; ja_games[k]; k++) {
        const ja_game_rules *g = ja_games[k];
        uint32_t seats = g->min_seats < 3 && g->max_seats >= 3 ? 3 : g->min_seats;
        uint32_t ended = compare_layout(g, seats, JA_VEC_AUTO_RESET, JA_VEC_EVENT_RING, 200) +
                         compare_layout(g, seats, self, JA_VEC_EVENT_RING, 300) +
                         compare_layout(g, seats, self, JA_VEC_EVENT_RING | JA_VEC_SEAT_ROWS,
                                        300) +
                         compare_layout(g, seats, self, JA_VEC_SEAT_ROWS, 300);
        if (ended < 4)
            fail_msg("%s: %u episodes ended", g->name, ended);
        for (uint32_t th = 0; th <= 2; th += 2)
            compare_rows(g->name, seats, self | JA_VEC_EVENT_RING | JA_VEC_SEAT_ROWS, th, 100);
    }
    /* Bombs at two tables: each seat numbers the events it sees, so two
     * seats' windows differ (the ring of the default layout written whole
     * at a change of seat). */
    const ja_game_rules *bombs = ja_game_find("bombs");
    assert_true(compare_layout(bombs, 6, self, JA_VEC_EVENT_RING, 400) > 0);
}

static void test_bad_input(void **state)
{
    (void)state;
    char err[256];
    ja_vec_env *e = NULL;
    ja_vec_opponent opp = {&TEST_BOT, NULL};
    ja_vec_config c = {.struct_size = sizeof c, .game = "nogame", .n_seats = 2, .n_envs = 2,
                       .learner = 0, .opponents = &opp, .n_opponents = 1};
    assert_int_equal(ja_vec_create(&c, &e, err, sizeof err), JA_EINVAL);
    assert_string_equal(err, "unknown game 'nogame'");
    c.game = "bruise-jack";
    c.learner = 2;
    assert_int_equal(ja_vec_create(&c, &e, err, sizeof err), JA_EINVAL);
    assert_string_equal(err, "learner must be a seat from 0 to 1, not 2");
    c.learner = 0;
    c.n_opponents = 0;
    assert_int_equal(ja_vec_create(&c, &e, err, sizeof err), JA_EINVAL);
    assert_string_equal(err, "give at least one opponent");
    c.n_opponents = 1;
    c.flags = JA_VEC_SELF_PLAY;
    assert_int_equal(ja_vec_create(&c, &e, err, sizeof err), JA_EINVAL);
    assert_string_equal(err, "self-play takes no opponent: every seat is the caller's");
    c.flags = 64;
    assert_int_equal(ja_vec_create(&c, &e, err, sizeof err), JA_EINVAL);
    assert_string_equal(err, "unknown flags 0x40");
    c.flags = JA_VEC_SEAT_ROWS;
    assert_int_equal(ja_vec_create(&c, &e, err, sizeof err), JA_EINVAL);
    assert_string_equal(err, "JA_VEC_SEAT_ROWS is for self-play (against opponents every row "
                             "is the learner's)");
    c.flags = JA_VEC_SELF_PLAY;
    c.opponents = NULL;
    c.n_opponents = 0;
    assert_int_equal(ja_vec_create(&c, &e, err, sizeof err), JA_OK);
    assert_int_equal(ja_vec_n_rewards(e), 2);
    bufs s;
    bufs_make(&s, e);
    s.b.seat = NULL;
    assert_int_equal(ja_vec_bind(e, &s.b, err, sizeof err), JA_EINVAL);
    assert_string_equal(err, "buffer seat: none given");
    s.b.seat = s.seat;
    s.b.reward_len = 2;
    assert_int_equal(ja_vec_bind(e, &s.b, err, sizeof err), JA_EINVAL);
    assert_string_equal(err, "buffer reward: 2 elements, not the 4 it needs");
    ja_vec_destroy(e);
    bufs_free(&s);
    c.flags = JA_VEC_SELF_PLAY | JA_VEC_SEAT_ROWS;
    assert_int_equal(ja_vec_create(&c, &e, err, sizeof err), JA_OK);
    bufs_make(&s, e);
    s.b.obs_len /= 2;
    assert_int_equal(ja_vec_bind(e, &s.b, err, sizeof err), JA_EINVAL);
    char want[96];
    snprintf(want, sizeof want, "buffer obs: %zu elements, not the %zu it needs",
             (size_t)2 * ja_vec_obs_length(e), (size_t)4 * ja_vec_obs_length(e));
    assert_string_equal(err, want);
    ja_vec_destroy(e);
    bufs_free(&s);
    c.flags = 0;
    c.opponents = &opp;
    c.n_opponents = 1;
    assert_int_equal(ja_vec_create(&c, &e, err, sizeof err), JA_OK);
    assert_int_equal(ja_vec_n_rewards(e), 1);
    bufs x;
    bufs_make(&x, e);
    int64_t actions[2] = {0, 0};
    assert_int_equal(ja_vec_step(e, actions, err, sizeof err), JA_ESTATE);
    assert_string_equal(err, "no buffers bound (ja_vec_bind first)");
    x.b.mask_len--;
    assert_int_equal(ja_vec_bind(e, &x.b, err, sizeof err), JA_EINVAL);
    assert_non_null(strstr(err, "buffer mask:"));
    x.b.mask_len++;
    assert_int_equal(ja_vec_bind(e, &x.b, err, sizeof err), JA_OK);
    assert_int_equal(ja_vec_step(e, actions, err, sizeof err), JA_ESTATE);
    assert_string_equal(err, "environment 0: never reset (ja_vec_reset first)");
    uint64_t seeds[2] = {1, 2};
    assert_int_equal(ja_vec_reset(e, seeds, err, sizeof err), JA_OK);
    float before = x.obs[0];
    uint32_t A = ja_vec_n_actions(e);
    ja_rng r;
    ja_rng_seed(&r, 1);
    actions[0] = pick(&x, A, 0, &r);
    actions[1] = -1;
    assert_int_equal(ja_vec_step(e, actions, err, sizeof err), JA_EILLEGAL);
    assert_non_null(strstr(err, "environment 1: action -1 is not legal now"));
    assert_true(x.obs[0] == before);
    for (actions[1] = 0; x.mask[A + (uint32_t)actions[1]]; actions[1]++)
        ;
    assert_int_equal(ja_vec_step(e, actions, err, sizeof err), JA_EILLEGAL);
    assert_non_null(strstr(err, "environment 1: action"));
    assert_int_equal(ja_vec_set_threads(e, 0, err, sizeof err), JA_EINVAL);
    assert_string_equal(err, "threads must be from 1 to 64, not 0");
    assert_int_equal(ja_vec_set_threads(e, 65, err, sizeof err), JA_EINVAL);
    assert_int_equal(ja_vec_threads(e), 1);
    assert_int_equal(ja_vec_set_threads(e, 2, err, sizeof err), JA_OK);
    assert_int_equal(ja_vec_threads(e), 2);
    actions[1] = -1; /* checked before any thread steps */
    assert_int_equal(ja_vec_step(e, actions, err, sizeof err), JA_EILLEGAL);
    assert_non_null(strstr(err, "environment 1: action -1 is not legal now"));
    assert_true(x.obs[0] == before);
    ja_vec_destroy(e);
    bufs_free(&x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_game),
        cmocka_unit_test(test_every_game_self_play),
        cmocka_unit_test(test_self_play_is_opponents),
        cmocka_unit_test(test_bound_again),
        cmocka_unit_test(test_threads_and_batches),
        cmocka_unit_test(test_ring_and_seat_rows),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
