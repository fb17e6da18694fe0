/* Batched environments' speed (bench_vec.h): environment steps per second
 * of ja_vec_step at three batch sizes, in self-play (every seat the
 * caller's, every decision asked: one step a seat that acts) and against
 * opponents, the caller's actions random legal indexes drawn between the
 * calls (not timed), against the bare engine's decisions per second in the
 * same game, both in the calling thread's CPU time, three interleaved
 * trials, the engine's best (a floor) and the batches' medians. An
 * environment step is one row written: the decision asked played, the
 * opponents' until a seat of the caller's is asked again (or the episode
 * ended, or the next one started), its observation vector and mask. Beside
 * them, not judged: the batch of 1,024 on VEC_THREADS threads
 * (ja_vec_set_threads) against one, both in wall time. */
#include "bench_vec.h"
#include "bench.h"
#include "bench_rows.h"

#include "jackarena/ja_bot.h"
#include "jackarena/ja_error.h"
#include "jackarena/ja_rng.h"
#include "jackarena/ja_vec_env.h"
#include "ja_xalloc.h"

#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#define VEC_TARGET 0.3     /* env steps/s over engine decisions/s at the largest batch */
#define VEC_STEPS_PER 100u /* environment steps a row per match of --matches */
static const uint32_t BATCHES[] = {1, 64, 1024};
#define N_BATCHES (sizeof BATCHES / sizeof BATCHES[0])
#define VEC_THREADS 2u     /* the threaded batch's (the largest) threads */

/* One batch: every buffer, the actions, the legal indexes' scratch. */
typedef struct vec_batch {
    ja_vec_env *e;
    ja_vec_buffers b;
    int64_t *actions;
    uint32_t *idx;
} vec_batch;

/* The ways a batch is played: self-play, against random (the opponents'
 * plugin), and the opt-in layouts in self-play: the events as a ring
 * (JA_VEC_EVENT_RING), and a row per seat as well (JA_VEC_SEAT_ROWS, the
 * layout that changes least a step); these two not threaded. */
typedef enum { MODE_SELF, MODE_OPP, MODE_RING, MODE_SEATS, N_MODES } vec_mode;
static const char *const MODE_NAME[N_MODES] = {"self-play", "vs random", "self-play, ring",
                                               "self-play, seat rows + ring"};
#define SELF (JA_VEC_SELF_PLAY | JA_VEC_ASK_FORCED)
static const uint32_t MODE_FLAGS[N_MODES] = {SELF, 0, SELF | JA_VEC_EVENT_RING,
                                             SELF | JA_VEC_SEAT_ROWS | JA_VEC_EVENT_RING};
#define THREADED(m) ((m) < MODE_RING) /* the modes with a threaded batch */

/* A buffer of the caller's, allocated as NumPy allocates an array's data
 * (what jackarena.env.make_vec() binds): on Linux, from 4 MiB on, the
 * kernel is asked to back it with huge pages (madvise MADV_HUGEPAGE from
 * the first whole page on, as NumPy's allocator does by default). */
static void *caller_buffer(size_t n)
{
    void *p = ja_xmalloc(n);
#ifdef MADV_HUGEPAGE
    if (n >= ((size_t)1 << 22)) {
        const uintptr_t page = 4096, at = ((uintptr_t)p + page - 1) & ~(page - 1);
        madvise((void *)at, n - (at - (uintptr_t)p), MADV_HUGEPAGE); /* advice */
    }
#endif
    return p;
}

static double thread_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int batch_open(vec_batch *v, const ja_game_rules *g, uint32_t seats, uint32_t n,
                      const ja_bot_desc *random, uint32_t flags, uint32_t threads)
{
    ja_vec_opponent opp = {random, ""};
    ja_vec_config c = {.struct_size = sizeof c, .game = g->name, .n_seats = seats,
                       .n_envs = n, .learner = 0, .opponents = random ? &opp : NULL,
                       .n_opponents = random ? 1 : 0, .flags = JA_VEC_AUTO_RESET | flags};
    char err[256];
    memset(v, 0, sizeof *v);
    if (ja_vec_create(&c, &v->e, err, sizeof err) != JA_OK) {
        fprintf(stderr, "ja_bench: vecenv: %s: %s\n", g->name, err);
        return -1;
    }
    size_t L = (size_t)ja_vec_obs_length(v->e) * ja_vec_obs_rows(v->e);
    size_t A = ja_vec_n_actions(v->e), R = ja_vec_n_rewards(v->e);
    v->b = (ja_vec_buffers){caller_buffer(n * L * sizeof(float)), n * L, caller_buffer(n * A),
                            n * A, caller_buffer(n * R * sizeof(float)), n * R,
                            caller_buffer(n), n, caller_buffer(n * sizeof(int32_t)), n};
    v->actions = ja_xmalloc(n * sizeof *v->actions);
    v->idx = ja_xmalloc(A * sizeof *v->idx);
    uint64_t *seeds = ja_xmalloc(n * sizeof *seeds);
    for (uint32_t i = 0; i < n; i++)
        seeds[i] = ja_seed_derive(7, JA_STREAM_MATCH, i);
    int rc = ja_vec_set_threads(v->e, threads, err, sizeof err);
    if (rc == JA_OK)
        rc = ja_vec_bind(v->e, &v->b, err, sizeof err);
    if (rc == JA_OK)
        rc = ja_vec_reset(v->e, seeds, err, sizeof err);
    free(seeds);
    if (rc != JA_OK)
        fprintf(stderr, "ja_bench: vecenv: %s: %s\n", g->name, err);
    return rc == JA_OK ? 0 : -1;
}

static void batch_close(vec_batch *v)
{
    ja_vec_destroy(v->e);
    free(v->b.obs);
    free(v->b.mask);
    free(v->b.reward);
    free(v->b.done);
    free(v->b.seat);
    free(v->actions);
    free(v->idx);
}

/* Environment steps per second of `steps` steps (rounded up to whole
 * calls) in the calling thread's CPU time (*wall: in wall time); -1 on an
 * error (printed). */
static double batch_rate(vec_batch *v, uint64_t steps, ja_rng *rng, double *per_step,
                         double *wall)
{
    uint32_t n = ja_vec_n_envs(v->e), A = ja_vec_n_actions(v->e);
    uint64_t calls = (steps + n - 1) / n;
    double spent = 0, spent_wall = 0;
    char err[256];
    uint64_t d0 = ja_vec_decisions(v->e);
    for (uint64_t c = 0; c < calls; c++) {
        for (uint32_t i = 0; i < n; i++) {
            const int8_t *m = v->b.mask + (size_t)i * A;
            uint32_t k = 0;
            for (uint32_t a = 0; a < A; a++)
                if (m[a])
                    v->idx[k++] = a;
            v->actions[i] = k ? v->idx[ja_rng_below(rng, k)] : 0;
        }
        double t0 = thread_cpu_s(), w0 = bench_now_s();
        int rc = ja_vec_step(v->e, v->actions, err, sizeof err);
        spent += thread_cpu_s() - t0;
        spent_wall += bench_now_s() - w0;
        if (rc != JA_OK) {
            fprintf(stderr, "ja_bench: vecenv: step: %s\n", err);
            return -1;
        }
    }
    *per_step = (double)(ja_vec_decisions(v->e) - d0) / (double)(calls * n);
    *wall = spent_wall > 0 ? (double)(calls * n) / spent_wall : 0;
    return spent > 0 ? (double)(calls * n) / spent : 0;
}

static const ja_bot_desc *load_random(const char *bots_dir)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/ja_random.so", bots_dir);
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL); /* kept loaded: the descriptor's */
    ja_bot_entry_fn entry = h ? (ja_bot_entry_fn)(uintptr_t)dlsym(h, JA_BOT_ENTRY_SYMBOL) : NULL;
    if (!entry) {
        fprintf(stderr, "ja_bench: vecenv: cannot load %s: %s\n", path,
                h ? "no entry point" : dlerror());
        return NULL;
    }
    return entry();
}

/* The section runs pinned to one CPU (ja_bench.c), which would put every
 * thread of the threaded batch on that CPU: its batch is made (so that its
 * pool's threads inherit it) and stepped with the calling thread free to
 * run on every CPU the process may use, then pinned again. */
static void affinity_widen(cpu_set_t *saved)
{
    cpu_set_t any;
    CPU_ZERO(&any);
    for (int c = 0; c < CPU_SETSIZE; c++)
        CPU_SET(c, &any); /* the kernel keeps the CPUs allowed */
    if (sched_getaffinity(0, sizeof *saved, saved) == 0)
        (void)sched_setaffinity(0, sizeof any, &any);
    else
        CPU_ZERO(saved);
}

static void affinity_restore(const cpu_set_t *saved)
{
    if (CPU_COUNT(saved) > 0)
        (void)sched_setaffinity(0, sizeof *saved, saved);
}

/* One game's figures: three trials of the engine and of each batch. */
typedef struct game_figs {
    double eng[3], env[N_MODES][N_BATCHES][3], per_step[N_MODES];
    /* The batch of 1,024 in wall time, on one thread and on VEC_THREADS */
    double wall1[N_MODES][3], wall_n[N_MODES][3];
} game_figs;

/* Measures f: three interleaved trials of the engine, each batch of each
 * mode and the threaded batch. 0, or 1 on an error (printed). */
static int game_measure(game_figs *f, const ja_game_rules *g, const ja_bot_desc *random,
                        uint32_t matches, bench_engine_rate_fn engine)
{
    uint32_t seats = g->min_seats;
    vec_batch v[N_MODES][N_BATCHES + 1]; /* [N_BATCHES]: the largest on VEC_THREADS threads */
    const uint64_t steps = (uint64_t)matches * VEC_STEPS_PER;
    ja_rng rng;
    ja_rng_seed(&rng, 11);
    cpu_set_t pinned;
    memset(v, 0, sizeof v);
    for (int m = 0; m < N_MODES; m++)
        for (size_t b = 0; b < N_BATCHES + THREADED(m); b++) {
            if (b == N_BATCHES)
                affinity_widen(&pinned);
            int rc = batch_open(&v[m][b], g, seats, BATCHES[b < N_BATCHES ? b : N_BATCHES - 1],
                                m == MODE_OPP ? random : NULL, MODE_FLAGS[m],
                                b < N_BATCHES ? 1 : VEC_THREADS);
            if (b == N_BATCHES)
                affinity_restore(&pinned);
            if (rc != 0)
                return 1;
        }
    for (int t = 0; t < 3; t++) {
        f->eng[t] = engine(g, seats, matches);
        for (int m = 0; m < N_MODES; m++) {
            double wall, ps;
            for (size_t b = 0; b < N_BATCHES; b++)
                if ((f->env[m][b][t] = batch_rate(&v[m][b], steps, &rng, &f->per_step[m],
                                                  &wall)) < 0)
                    return 1;
            f->wall1[m][t] = wall; /* the largest batch's */
            if (!THREADED(m))
                continue;
            affinity_widen(&pinned);
            double r = batch_rate(&v[m][N_BATCHES], steps, &rng, &ps, &f->wall_n[m][t]);
            affinity_restore(&pinned);
            if (r < 0)
                return 1;
        }
    }
    for (int m = 0; m < N_MODES; m++)
        for (size_t b = 0; b < N_BATCHES + THREADED(m); b++)
            batch_close(&v[m][b]);
    return 0;
}

/* The threaded batches' table, filled game by game, printed after the
 * main one. */
static char threaded_md[4096];
static size_t threaded_at;

/* One game's rows, self-play and against random. */
static void game_rows(FILE *md, const ja_game_rules *g, const game_figs *f)
{
    uint32_t seats = g->min_seats;
    double e = bench_best(f->eng, 3); /* the baseline: a floor, its best trial */
    for (int m = 0; m < N_MODES; m++) {
        fprintf(md, "| %s | %u | %s | %.0f | %.2f |", g->name, seats, MODE_NAME[m], e,
                f->per_step[m]);
        for (size_t b = 0; b < N_BATCHES; b++) {
            double s = bench_median3(f->env[m][b]), per[3];
            char name[112], tgt[64], rt[96];
            snprintf(name, sizeof name, "%s, %u seats, %s, batch %u", g->name, seats,
                     MODE_NAME[m], BATCHES[b]);
            bool last = b + 1 == N_BATCHES;
            const bench_row *r = bench_row_add_trials(
                name, s, "env steps/s", e > 0 ? s / e : NAN,
                bench_ratios(f->env[m][b], f->eng, 3, per), 3,
                last ? BENCH_AT_LEAST : BENCH_NO_TARGET, VEC_TARGET);
            fprintf(md, " %.0f | %s |", s, bench_ratio_cell(r, last, rt, sizeof rt));
            if (!last)
                continue;
            snprintf(name, sizeof name, "%s, %u seats, %s, batch %u, per engine decision",
                     g->name, seats, MODE_NAME[m], BATCHES[b]);
            for (int t = 0; t < 3; t++)
                per[t] *= f->per_step[m];
            const bench_row *d = bench_row_add_trials(name, s * f->per_step[m],
                                                      "engine decisions/s",
                                                      e > 0 ? s * f->per_step[m] / e : NAN, per,
                                                      3, BENCH_NO_TARGET, 0);
            fprintf(md, " %s | %.2f | %s |\n", bench_ratio_cell(d, false, rt, sizeof rt),
                    f->per_step[m] > 0 ? 1 / f->per_step[m] : NAN,
                    bench_row_target(r, tgt, sizeof tgt));
        }
        /* Threaded, in wall time: the speedup over one thread, not judged. */
        if (!THREADED(m))
            continue;
        double one = bench_median3(f->wall1[m]), n = bench_median3(f->wall_n[m]), per[3];
        char name[112], rt[96];
        snprintf(name, sizeof name, "%s, %u seats, %s, batch %u, %u threads (wall time)",
                 g->name, seats, MODE_NAME[m], BATCHES[N_BATCHES - 1], VEC_THREADS);
        const bench_row *r = bench_row_add_trials(name, n, "env steps/s",
                                                  one > 0 ? n / one : NAN,
                                                  bench_ratios(f->wall_n[m], f->wall1[m], 3, per),
                                                  3, BENCH_NO_TARGET, 0);
        int k = snprintf(threaded_md + threaded_at, sizeof threaded_md - threaded_at,
                         "| %s | %u | %s | %.0f | %.0f | %s |\n", g->name, seats, MODE_NAME[m],
                         one, n, bench_ratio_cell(r, false, rt, sizeof rt));
        if (k > 0 && (size_t)k < sizeof threaded_md - threaded_at)
            threaded_at += (size_t)k;
    }
}

int bench_vec(FILE *md, const char *bots_dir, uint32_t matches, bench_engine_rate_fn engine)
{
    const ja_bot_desc *random = load_random(bots_dir);
    if (!random)
        return 1;
    fprintf(md, "## Batched environments\n\n"
                "The batched training environments (`ja_vec_step`, libjackarena_env; "
                "docs/training.md, \"Batched environments\") against the bare rules engine "
                "(%u seeded matches of uniform random legal choices, as in \"Rules engines\"). "
                "Each game at its fewest seats with default options, auto-reset on, in two "
                "modes and two layouts: *self-play*, every seat the caller's and every decision asked "
                "(`JA_VEC_SELF_PLAY | JA_VEC_ASK_FORCED`: an environment step is one seat's "
                "decision, as an engine step is, but in a joint decision where each seat asked "
                "is a step), and *vs random*, the learner in seat 0 and `random` (the plugin) in "
                "every other seat, played inside the call, the learner asked only with two legal "
                "actions or more; and self-play in the two opt-in layouts (docs/training.md, "
                "\"Opt-in layouts\"; not threaded): *self-play, ring* (`JA_VEC_EVENT_RING`: the event "
                "window written as a ring, so a new event writes one slot instead of moving every "
                "entry) and *self-play, seat rows + ring* (`JA_VEC_SEAT_ROWS` as well: a row per "
                "seat, each written only when its seat is asked). An environment step is one row "
                "written: the decision asked "
                "played, the opponents' until a seat of the caller's is asked again, the "
                "digest, the observation vector (float32) and the action mask; only the "
                "`ja_vec_step` calls are timed, in the calling thread's CPU time, as the "
                "engine is (the random legal indexes are drawn between them, untimed); the "
                "buffers are allocated as NumPy allocates `make_vec()`'s arrays "
                "(on Linux, the kernel asked for huge pages from 4 MiB on). %u environment "
                "steps a row and batch, three interleaved trials of the "
                "engine and the twelve batches: the engine, the baseline, is a floor (its best "
                "trial), the batches the medians of theirs. Ratios are environment steps/s over "
                "the engine's decisions/s of the same run, each with the lowest and highest of "
                "its per-trial ratios in brackets (each trial over the engine's trial beside "
                "it); the target (at least 0.3) is the batch of 1,024's, judged on the *self-play* "
                "row (the default layout: the like-for-like measure); the layouts' rows say what "
                "a trainer who opts in gets.\n\n"
                "*Decisions a step* is how many engine steps (every seat's decisions, forced "
                "ones included; a joint decision is one) one environment step played in this "
                "run; *per decision* is the batch of 1,024's engine steps/s over the engine's "
                "(its steps/s times decisions a step): the cost of an engine decision inside "
                "the environment against the bare engine's; *ceiling* is 1 / decisions a "
                "step, the ratio an environment would reach if everything beyond the engine's "
                "own steps (the opponents' observations and plugins, the vector, the mask, the "
                "digest) cost nothing. Against opponents one step plays several engine "
                "decisions, so its ratio cannot pass its ceiling whatever the environment "
                "costs.\n\n"
                "| game | seats | mode | engine decisions/s | decisions a step | batch 1 "
                "steps/s | / engine | batch 64 steps/s | / engine | batch 1024 steps/s | / engine "
                "| per decision | ceiling | target |\n"
                "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n",
            matches, matches * VEC_STEPS_PER);
    threaded_at = 0;
    threaded_md[0] = '\0';
    for (int i = 0; ja_games[i]; i++) {
        game_figs f;
        if (game_measure(&f, ja_games[i], random, matches, engine) != 0)
            return 1;
        game_rows(md, ja_games[i], &f);
    }
    fprintf(md, "\nOn %u threads (`ja_vec_set_threads`, not judged: the target is one "
                "thread's), the batch of 1,024 in wall time against the same batch on one "
                "thread, measured in the same trials (the one thread's wall-time figure, so not "
                "the table's above; the one thread on the section's CPU, the threaded batch free "
                "to use every CPU the process may: its threads are made and stepped unpinned); "
                "the speedup is the ratio of their medians, its trials' "
                "spread in brackets. The rows are the same whatever the threads "
                "(`test_vec_env` checks them); on a machine shared with other programs the "
                "speedup says what the other threads found free, not what threads can do.\n\n"
                "| game | seats | mode | batch 1024, 1 thread steps/s | %u threads steps/s "
                "| speedup |\n|---|---|---|---|---|---|\n%s",
            VEC_THREADS, VEC_THREADS, threaded_md);
    return 0;
}
