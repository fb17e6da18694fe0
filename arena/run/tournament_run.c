/* A tournament run (tournament_run.h): prepare (the bots, the outputs,
 * the database and the tournament in it), then play, record and print the
 * standings. */
#include "run/tournament_run.h"

#include "run/executor.h"
#include "run/export.h"
#include "core/json_w.h"
#include "run/progress.h"
#include "run/repro.h"
#include "run/rounds.h"
#include "run/standings.h"
#include "run/tournament.h"
#include "core/util.h"

#include "fit.h"
#include "jackarena/ja_error.h"
#include "ja_xalloc.h"
#include "ladder.h"
#include "proc.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static volatile sig_atomic_t g_stop;

static void on_progress(void *ctx, uint32_t done, uint32_t total)
{
    progress_update(ctx, done);
}

/* A first signal stops the run (g_stop 1); a second one (2) also gives up
 * the matches still at the workers at once (executor.h). */
static void on_signal(int sig)
{
    (void)sig;
    g_stop = g_stop ? 2 : 1;
}

/* Says a failure that does not stop the run, through the caller's
 * on_error (tournament_run.h). */
__attribute__((format(printf, 2, 3))) static void say(const arena_tournament_args *a,
                                                      const char *fmt, ...)
{
    if (!a->on_error)
        return;
    char line[1400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    a->on_error(line);
}

/* ---- prepare ---------------------------------------------------------------- */

/* The replay directory, made when missing (its parent there), and
 * writable. JA_OK or JA_EIO. */
static int ensure_dir(const char *dir, char *err, size_t cap)
{
    struct stat sb;
    if (stat(dir, &sb) == 0) {
        if (!S_ISDIR(sb.st_mode)) {
            snprintf(err, cap, "--replays '%s' is not a directory", dir);
            return JA_EIO;
        }
    } else if (mkdir(dir, 0777) != 0 && !(errno == EEXIST && stat(dir, &sb) == 0 &&
                                           S_ISDIR(sb.st_mode))) {
        /* (EEXIST: made meanwhile by another process, which is fine.) */
        snprintf(err, cap, "cannot create replay directory '%s': %s", dir, strerror(errno));
        return JA_EIO;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        snprintf(err, cap, "cannot write into replay directory '%s': %s", dir, strerror(errno));
        return JA_EIO;
    }
    return JA_OK;
}

/* The code of a failure of the database, as tournament_run.h sorts them:
 * its own when the file given cannot be used (the user's, as
 * arena_db_status judges them), JA_EDB otherwise. */
static int db_failure(int rc)
{
    return rc == JA_EIO || rc == JA_EVERSION || rc == JA_EFORMAT ? rc : JA_EDB;
}

/* Takes the lock of the database, then opens it (made when missing), as a
 * writer that plays into it does: the lock first, so that a second run
 * writes nothing (db_lock.h). A lock file that cannot be made is said once
 * the database is open: when the database cannot be opened either, its own
 * error says more. JA_OK, JA_EBUSY (in use by another arena), or the
 * database's failure (db_failure). The lock, if taken, is t's to release. */
static int open_database(arena_tournament *t, char *err, size_t cap)
{
    const char *db_path = t->a->db_path;
    char why[1200];
    int lock_rc = arena_db_lock_take(db_path, &t->lock, why, sizeof why);
    if (lock_rc == JA_EBUSY) {
        snprintf(err, cap, "%s; wait for it to finish (or stop it), then run the same command "
                 "again", why);
        return JA_EBUSY;
    }
    int rc = ladder_db_open(db_path, &t->db);
    if (rc != JA_OK) {
        snprintf(err, cap, "%s", t->db ? ladder_db_errmsg(t->db) : ja_strerror(rc));
        ladder_db_close(&t->db);
        return db_failure(rc);
    }
    if (lock_rc != JA_OK) {
        snprintf(err, cap, "%s", why);
        return JA_EDB;
    }
    return JA_OK;
}

/* The tournament as the database knows it: its ladder, its participants
 * (external bots: their announced version, no file hash) and its format;
 * its seed is the one given, or 0 until it is known. */
static void describe(arena_tournament *t)
{
    const arena_tournament_args *a = t->a;
    const arena_bots *bots = a->bots;
    ja_options_format(a->game, &a->options, t->opts_text, sizeof t->opts_text);
    for (int i = 0; i < bots->n; i++) {
        const ref_bot_info *bi = ref_bot_get_info(bots->b[i].bot);
        t->lb[i] = (ladder_bot){bots->b[i].name, bi->version,
                                bots->b[i].builtin ? "builtin" : bi->kind, bots->b[i].spec,
                                bi->sha256[0] ? bi->sha256 : NULL};
    }
    t->spec = (ladder_tournament_spec){{a->game->name, a->plan.n_seats, t->opts_text},
                                       a->have_seed ? a->seed : 0, a->plan.format,
                                       a->plan.rounds, a->plan.duplicate, (uint32_t)bots->n,
                                       t->lb, a->plan.seating, a->plan.deals,
                                       a->plan.n_deals};
}

/* The tournament in the database: found again (the same seed, or with
 * --resume the newest unfinished one of any seed), or planned into it with
 * the seed given or a random one. JA_OK, JA_ENOTFOUND (--resume with
 * nothing to resume) or the database's failure (db_failure). */
static int find_or_plan(arena_tournament *t, char *err, size_t cap)
{
    const arena_tournament_args *a = t->a;
    describe(t);
    if (a->resume || a->have_seed) {
        unsigned flags = a->have_seed ? 0 : LADDER_FIND_ANY_SEED | LADDER_FIND_UNFINISHED;
        if (!a->seating_given)
            flags |= LADDER_FIND_ANY_SEATING;
        int rc = ladder_db_tournament_find(t->db, &t->spec, flags, &t->tid);
        if (rc == JA_OK) {
            t->found = true;
            return JA_OK;
        }
        if (rc != JA_ENOTFOUND) {
            snprintf(err, cap, "%s", ladder_db_errmsg(t->db));
            return db_failure(rc);
        }
        if (a->resume && !a->have_seed) {
            snprintf(err, cap, "--resume: %s has no unfinished %s tournament with these bots, "
                     "options and format", a->db_path, a->game->name);
            return JA_ENOTFOUND;
        }
    }
    t->spec.seed = a->have_seed ? a->seed : arena_random_seed();
    int rc = ladder_db_tournament_create(t->db, &t->spec, &t->tid);
    if (rc != JA_OK) {
        snprintf(err, cap, "%s", ladder_db_errmsg(t->db));
        return db_failure(rc);
    }
    return JA_OK;
}

int arena_tournament_prepare(arena_tournament *t, const arena_tournament_args *a, char *err,
                             size_t cap)
{
    memset(t, 0, sizeof *t);
    t->a = a;
    t->lock.fd = -1;
    err[0] = '\0';
    arena_confine_protect(&a->ext->confine, a->db_path, "the database");
    arena_confine_protect(&a->ext->confine, a->replay_dir, "the replays");
    arena_confine_protect(&a->ext->confine, a->export_path, "the decision export");
    int rc = arena_bots_load(a->bots, a->game, err, cap);
    if (rc == JA_OK && a->replay_dir)
        rc = ensure_dir(a->replay_dir, err, cap);
    if (rc == JA_OK && a->export_path)
        rc = arena_export_open(a->export_path, &t->xf, err, cap);
    struct stat sb;
    if (rc == JA_OK && a->resume && stat(a->db_path, &sb) != 0) {
        snprintf(err, cap, "--resume: %s has no unfinished %s tournament with these bots, "
                 "options and format (no such file)", a->db_path, a->game->name);
        rc = JA_ENOTFOUND;
    }
    if (rc == JA_OK)
        rc = open_database(t, err, cap);
    if (rc == JA_OK)
        rc = find_or_plan(t, err, cap);
    return rc;
}

void arena_tournament_close(arena_tournament *t)
{
    arena_export_abort(&t->xf);
    ladder_db_close(&t->db);
    arena_db_lock_release(&t->lock);
    arena_bots_free(t->a->bots);
}

/* ---- run ---------------------------------------------------------------------- */

/* The matches of one tournament, for the fit: players are standing rows. */
typedef struct fit_input {
    int64_t tid;
    const ladder_standing *st;
    uint32_t n_st;
    ladder_fit_match *m;
    size_t n, cap;
} fit_input;

static int collect_match(void *ctx, const ladder_match_row *row)
{
    fit_input *in = ctx;
    if (row->tournament_id != in->tid)
        return 0;
    uint32_t player[JA_MAX_SEATS];
    for (uint32_t s = 0; s < row->n_seats; s++) {
        uint32_t i = 0;
        while (i < in->n_st && in->st[i].bot_id != row->bot_id[s])
            i++;
        if (i == in->n_st)
            return 0; /* not one of this tournament's bots: cannot happen */
        player[s] = i;
    }
    arena_fit_add(&in->m, &in->n, &in->cap, row, player);
    return JA_OK;
}

/* Official ratings of the tournament's own matches (docs/ratings.md), player
 * i being standing row i; NULL when there is nothing to fit. */
static ladder_fit *fit_tournament(ladder_db *db, const ladder_key *key, int64_t tid,
                                  const ladder_standing *st, uint32_t n_st)
{
    fit_input in = {tid, st, n_st, NULL, 0, 0};
    ladder_fit *f = NULL;
    if (ladder_db_foreach_match(db, key, collect_match, &in) == JA_OK && in.n > 0)
        ladder_fit_run(in.m, in.n, n_st, NULL, &f);
    free(in.m);
    return f;
}

/* Faults of standing row i by kind, and its forfeits; zeros on error. */
static void slot_faults(ladder_db *db, int64_t tid, const ladder_standing *st,
                        uint64_t out[JA_FAULT_COUNT])
{
    if (ladder_db_slot_faults(db, tid, st->slot, out) != JA_OK)
        memset(out, 0, sizeof(uint64_t) * JA_FAULT_COUNT);
}

/* The names of the standings' bots as `arena ladder` shows them
 * (ladders/names.h): over the bots of the ladder, and the participants
 * without a finished match yet. names[i] is st[i]'s; NULL when the store
 * cannot be read (the standings then show the names of the tournament). */
static ladder_display_name *standing_names(ladder_db *db, const ladder_key *key,
                                           const ladder_standing *st, uint32_t n)
{
    ladder_bot_row *bots = NULL;
    ladder_display_name *names = NULL, *out = NULL;
    uint32_t nb = 0;
    int *at = ja_xcalloc(n, sizeof *at); /* st[i]'s row in bots */
    if (ladder_db_ladder_bots(db, key, &bots, &nb) != JA_OK)
        goto out;
    bots = ja_xrealloc(bots, ((size_t)nb + n + 1) * sizeof *bots);
    uint32_t sorted = nb; /* bots[0..sorted-1] are the ladder's, by id */
    for (uint32_t i = 0; i < n; i++) {
        at[i] = ladder_bot_index(bots, sorted, st[i].bot_id);
        if (at[i] >= 0)
            continue;
        ladder_bot_row *b = &bots[nb];
        memset(b, 0, sizeof *b);
        b->id = st[i].bot_id;
        snprintf(b->name, sizeof b->name, "%s", st[i].bot);
        snprintf(b->version, sizeof b->version, "%s", st[i].version);
        snprintf(b->sha256, sizeof b->sha256, "%s", st[i].sha256);
        at[i] = (int)nb++;
    }
    if (ladder_display_names(bots, nb, &names) != JA_OK)
        goto out;
    out = ja_xcalloc(n, sizeof *out);
    for (uint32_t i = 0; i < n; i++)
        memcpy(out[i], names[at[i]], sizeof out[i]);
out:
    free(names);
    free(bots);
    free(at);
    return out;
}

/* The run of a prepared tournament: the plan's state, what is pending, the
 * executor that plays it and what the executor is told of the bots. */
typedef struct run_state {
    arena_tournament *t;
    const arena_tournament_args *a;
    ladder_tournament_info ti;
    uint32_t *pending, n_pending;
    uint32_t to_play;                    /* pending matches of this run's shard */
    ref_bot *slot_bots[ARENA_MAX_BOTS];
    const char *slot_names[ARENA_MAX_BOTS], *slot_specs[ARENA_MAX_BOTS];
    arena_exec_ctx xc;
    arena_executor *x;                   /* NULL: none, or --slurm (slurm.h) */
    arena_slurm_workers *sw;             /* --slurm-workers: their Slurm job */
    bool sw_failed;                      /* that job ended by itself, said in swerr */
    char swerr[1200];
} run_state;

/* Writes the reproduction bundle of a finished match with a fault, next to
 * its replay (repro.h). A bundle that cannot be written is said and the
 * result still recorded: the replay is what counts. */
static void on_result(void *hctx, const arena_exec_ctx *c, const arena_job_result *jr)
{
    const arena_tournament *t = hctx;
    if (!c->replay_dir || !jr->replay_path[0])
        return;
    ref_bot *bots[JA_MAX_SEATS];
    const char *names[JA_MAX_SEATS], *specs[JA_MAX_SEATS];
    for (uint32_t s = 0; s < jr->job.n_seats; s++) {
        bots[s] = c->bots[jr->job.slot[s]];
        names[s] = c->names[jr->job.slot[s]];
        specs[s] = c->specs ? c->specs[jr->job.slot[s]] : NULL;
    }
    char id[64];
    snprintf(id, sizeof id, "t%lld-m%u", (long long)c->tournament_id, (unsigned)jr->number);
    ref_match_config cfg = {c->game, c->options, jr->job.n_seats, jr->job.seed, c->move_ms, id,
                            c->faults.bank_ms, c->faults.on_fault, .max_faults = c->max_faults};
    arena_repro_info in = {&cfg, c->tournament_id, jr->number, bots, names, specs,
                           jr->stderr_tails};
    char err[600];
    if (arena_repro_write(jr->replay_path, &in, &jr->res, err, sizeof err) != JA_OK)
        say(t->a, "match %u: reproduction bundle not written: %s", (unsigned)jr->number, err);
}

/* --restart: a cmd: bot of the job whose process has exited starts again
 * before the match (between matches, in the tournament loop's thread). */
static void before_job(void *hctx, const arena_exec_ctx *c, const arena_job *job)
{
    const arena_tournament *t = hctx;
    arena_bots *bs = t->a->bots;
    (void)c;
    for (uint32_t s = 0; s < job->n_seats; s++) {
        arena_bot *b = &bs->b[job->slot[s]];
        char how[128] = "", err[700];
        if (!b->proc || !ref_proc_exited(b->proc, how, sizeof how))
            continue;
        fprintf(stderr, "arena: bot '%s' %s; restarting it before match %u\n", b->name, how,
                (unsigned)job->number);
        if (!arena_ext_restart(bs->ext, b, err, sizeof err))
            say(t->a, "%s (its matches fault until it is back)", err);
    }
}

/* The tournament's state and its pending matches, and how many of those
 * this run plays (its shard's). */
static int read_plan(run_state *r, char *err, size_t cap)
{
    const arena_scale *sc = r->a->scale;
    ladder_db *db = r->t->db;
    bool planned;
    /* Swiss, knockout: a round whose results were all in when the run
     * before stopped is followed by the next one now. */
    int rc = arena_rounds_advance(db, r->t->tid, r->a->plan.deals, r->a->plan.n_deals, &planned,
                                  err, cap);
    if (rc != JA_OK)
        return rc;
    rc = ladder_db_tournament_get(db, r->t->tid, &r->ti);
    if (rc == JA_OK)
        rc = ladder_db_pending(db, r->t->tid, &r->pending, &r->n_pending);
    if (rc != JA_OK) {
        snprintf(err, cap, "%s", ladder_db_errmsg(db));
        return rc;
    }
    for (uint32_t i = 0; i < r->n_pending; i++)
        r->to_play += !sc->shard_n || r->pending[i] % sc->shard_n == sc->shard_i - 1;
    if (ladder_format_by_rounds(r->ti.format)) /* the rounds to come too */
        r->to_play = r->ti.n_matches - r->ti.n_done;
    return JA_OK;
}

/* The matches played before this run: for swiss and knockout those
 * recorded (the rounds to come are not planned yet, so not pending, and
 * not played either), else those not pending. */
static uint32_t played_before(const run_state *r)
{
    return ladder_format_by_rounds(r->ti.format) ? r->ti.n_done : r->ti.n_matches - r->n_pending;
}

/* The text's header: the tournament, where it is kept, and whether it is
 * resumed or already complete. */
static void print_header(FILE *out, const run_state *r)
{
    const arena_tournament_args *a = r->a;
    const ladder_plan_params *pp = &a->plan;
    const ladder_tournament_info *ti = &r->ti;
    char seed_s[21];
    /* knockout: --rounds is the deals of a tie */
    bool ko = pp->format == LADDER_FORMAT_KNOCKOUT;
    uint32_t rounds = ko ? ladder_rounds_total(pp) : pp->rounds;
    fprintf(out, "tournament %lld: %s, %d bots, %u seats, %s, %s seating, %u round%s, seed %s: "
            "%u matches\n",
            (long long)r->t->tid, a->game->name, a->bots->n, pp->n_seats,
            ladder_format_name(pp->format), ladder_seating_name(ti->seating), rounds,
            rounds == 1 ? "" : "s", ladder_seed_format(ti->seed, seed_s), ti->n_matches);
    fprintf(out, "options: %s\ndatabase: %s%s%s\n", r->t->opts_text, a->db_path,
            a->replay_dir ? "; replays: " : "", a->replay_dir ? a->replay_dir : "");
    if (a->deals_path)
        fprintf(out, "deals: %u from %s (sha256 %.16s...)\n", pp->n_deals, a->deals_path,
                ti->deals);
    if (pp->format == LADDER_FORMAT_SWISS)
        fprintf(out, "swiss: %u rounds, each planned from the results before it\n",
                pp->rounds);
    else if (ko)
        fprintf(out, "knockout: %u deal%s a %s, each in %s\n", pp->rounds,
                pp->rounds == 1 ? "" : "s", pp->n_seats == 2 ? "tie" : "table",
                pp->n_seats == 2 ? "both seat orders" : "every seat order and rotation");
    if (r->t->found && r->n_pending && played_before(r) > 0)
        fprintf(out, "resuming: %u of %u matches already played\n", played_before(r),
                ti->n_matches);
    else if (r->t->found && !r->n_pending)
        fprintf(out, "already complete in %s: nothing to play\n", a->db_path);
    fflush(out);
}

/* The executor of the run, with its hooks: none for --slurm (the shards
 * play, in Slurm jobs: slurm.h), nor for --slurm-workers with nothing to
 * play (an in-process one then, which submits no job). */
static int start_executor(run_state *r, char *err, size_t cap)
{
    const arena_tournament_args *a = r->a;
    const arena_scale *sc = a->scale;
    arena_ext *ext = a->ext;
    /* No more matches at once than this run has to play: a worker or a
     * thread beyond that would have nothing to do. */
    uint32_t jobs = a->jobs > r->to_play ? (r->to_play ? r->to_play : 1) : a->jobs;
    for (int i = 0; i < a->bots->n; i++) {
        r->slot_bots[i] = a->bots->b[i].bot;
        r->slot_names[i] = a->bots->b[i].name;
        r->slot_specs[i] = a->bots->b[i].spec;
    }
    arena_fault_cfg fc = {ext->bank_ms, ext->on_fault, ext->restart, a->replay_dir != NULL};
    /* --tournament-id (a shard of --slurm): the matches are named as those
     * of the tournament the shard is merged into. */
    r->xc = (arena_exec_ctx){a->game, a->options, a->move_ms, r->slot_bots, r->slot_names,
                             a->replay_dir, sc->tournament_id ? sc->tournament_id : r->t->tid,
                             arena_ext_max_faults(ext), fc, r->slot_specs, NULL};
    if (sc->slurm.workers && !r->to_play) {
        int rc = arena_executor_inproc_new(&r->xc, &r->x);
        if (rc != JA_OK) {
            snprintf(err, cap, "cannot start the executor: %s", ja_strerror(rc));
            return rc;
        }
    } else if (!sc->slurm.n) {
        int rc = arena_scale_executor(sc, ext, a->bots, &r->xc, jobs, a->quiet || a->json,
                                      &g_stop, &r->x, &r->sw, err, cap);
        if (rc != JA_OK)
            return rc;
    }
    if (r->x) {
        r->x->export = r->t->xf;
        r->x->on_result = on_result;
        r->x->before_job = ext->restart ? before_job : NULL;
        r->x->hook_ctx = r->t;
    }
    return JA_OK;
}

/* Plays the pending matches by the executor; for swiss and knockout, round
 * after round, each planned once the one before is recorded, until the
 * last or a stop. */
static int play_rounds(run_state *r, progress *pr, char *err, size_t cap)
{
    const arena_scale *sc = r->a->scale;
    arena_tournament *t = r->t;
    for (;;) {
        int rc = arena_tournament_play_part(t->db, t->tid, r->x, sc->shard_i, sc->shard_n,
                                            &g_stop, on_progress, pr, err, cap);
        bool planned = false;
        if (rc == JA_OK && !g_stop)
            rc = arena_rounds_advance(t->db, t->tid, r->a->plan.deals, r->a->plan.n_deals,
                                      &planned, err, cap);
        if (rc != JA_OK || !planned)
            return rc;
    }
}

/* Plays the pending matches, by the executor or in Slurm's shards, until
 * they are done or a signal stops them; then stops the executor and the
 * Slurm workers (told to quit now, not after the standings and the fit),
 * noting first whether their job ended by itself. */
static int play_pending(run_state *r, char *err, size_t cap)
{
    const arena_tournament_args *a = r->a;
    const arena_scale *sc = a->scale;
    arena_tournament *t = r->t;
    struct sigaction sa = {0}, old_int, old_term;
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    progress pr;
    progress_begin(&pr, r->ti.n_matches, played_before(r), a->quiet);
    int rc;
    if (r->x)
        rc = play_rounds(r, &pr, err, cap);
    else
        rc = arena_slurm_play(t->db, a->db_path, t->tid, &t->spec, &sc->slurm, t->xf,
                              a->quiet || a->json, &g_stop, on_progress, &pr, err, cap);
    progress_end(&pr, pr.last_done);
    r->sw_failed = arena_slurm_workers_failed(r->sw, r->swerr, sizeof r->swerr);
    if (r->x)
        r->x->ops->destroy(r->x); /* no job refers to the export file any more */
    r->x = NULL;
    arena_slurm_workers_end(&r->sw);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    return rc;
}

/* The export holds every match recorded by this run, also when it was
 * interrupted or failed later: it is put in place either way. When the
 * play failed too (rc), the export's failure is said and the play's kept. */
static int finish_export(run_state *r, int rc, char *err, size_t cap)
{
    char xerr[1200];
    if (!r->t->xf)
        return rc;
    int xrc = arena_export_finish(&r->t->xf, xerr, sizeof xerr);
    if (xrc == JA_OK)
        return rc;
    if (rc != JA_OK) {
        say(r->a, "%s", xerr);
        return rc;
    }
    snprintf(err, cap, "%s", xerr);
    return xrc;
}

/* What the standings show: the tournament, its rows (their names as
 * `arena ladder` shows them, or NULL for the tournament's), its faults by
 * kind, the fit of its matches (NULL: none). */
typedef struct standings_view {
    ladder_db *db;
    const ja_game_rules *g;
    const char *opts_text;
    const ladder_tournament_info *ti;
    const ladder_standing *st;
    uint32_t n;
    const ladder_display_name *names;
    const uint64_t *faults;              /* JA_FAULT_COUNT */
    const ladder_fit *fit;
    const arena_bots *bots;              /* the participants, by slot */
    char (*label)[LADDER_LABEL_MAX];     /* row i's label (row_label) */
    int width;                           /* of the text's bot column */
    const arena_rounds_view *rounds;     /* swiss, knockout; NULL for the others */
} standings_view;

static const char *row_name(const standings_view *v, uint32_t i)
{
    return v->names ? v->names[i] : v->st[i].bot;
}

/* The parameters of row i's participant, as given; "" for none. */
static const char *row_params(const standings_view *v, uint32_t i)
{
    uint32_t slot = v->st[i].slot;
    return slot < (uint32_t)v->bots->n ? v->bots->b[slot].params : "";
}

/* Every row's label, what the text shows (ladders/names.h): its name with
 * the participant's parameters, unless the name shows the version (which
 * holds them), and the width of the bot column. */
static void row_labels(standings_view *v)
{
    v->label = ja_xcalloc(v->n ? v->n : 1, sizeof *v->label);
    v->width = 20;
    for (uint32_t i = 0; i < v->n; i++) {
        const char *name = row_name(v, i);
        bool plain = strcmp(name, v->st[i].bot) == 0;
        ladder_label(v->label[i], sizeof v->label[i], name, plain ? row_params(v, i) : "");
        v->width = arena_col_width(v->width, arena_text_cols(v->label[i]));
    }
}

/* The fitted rating of row i, NULL where there is no fit. */
static const ladder_fit_player *row_fit(const standings_view *v, uint32_t i)
{
    return v->fit ? &v->fit->players[i] : NULL;
}

/* "fault_kinds": the kinds that occurred, with their counts. */
static void json_fault_kinds(json_w *w, const uint64_t fk[JA_FAULT_COUNT])
{
    jw_obj(w, "fault_kinds");
    for (int f = 1; f < JA_FAULT_COUNT; f++)
        if (fk[f])
            jw_int(w, ja_fault_name(f), (long long)fk[f]);
    jw_obj_end(w);
}

/* Row i's ratings: elo and elo_ci95 from the fit where it rates the bot,
 * the live Elo otherwise with a null interval. */
static void json_row_elo(json_w *w, const standings_view *v, uint32_t i)
{
    const ladder_fit_player *fp = row_fit(v, i);
    bool rated = fp && fp->status == LADDER_FIT_RATED;
    if (rated) {
        jw_num(w, "elo", fp->elo);
        jw_arr(w, "elo_ci95");
        jw_num(w, NULL, fp->ci_lo);
        jw_num(w, NULL, fp->ci_hi);
        jw_arr_end(w);
    } else {
        jw_num(w, "elo", v->st[i].elo);
        jw_null(w, "elo_ci95");
    }
    jw_str(w, "elo_status", fp ? ladder_fit_status_name(fp->status) : "live");
    /* Fitted ratings compare only within a part (docs/ratings.md). */
    if (rated)
        jw_int(w, "elo_part", v->fit->parts[fp->part].number);
    else
        jw_null(w, "elo_part");
    jw_num(w, "live_elo", v->st[i].elo);
}

/* Row i of the JSON's "standings". */
static void json_row(json_w *w, const standings_view *v, uint32_t i)
{
    const ladder_standing *st = &v->st[i];
    jw_obj(w, NULL);
    jw_str(w, "bot", st->bot);
    jw_str(w, "version", st->version);
    if (st->sha256[0])
        jw_str(w, "sha256", st->sha256);
    else
        jw_null(w, "sha256");
    jw_str(w, "display_name", row_name(v, i));
    jw_str(w, "params", row_params(v, i));
    jw_str(w, "label", v->label[i]);
    jw_int(w, "games", st->games);
    jw_int(w, "wins", st->wins);
    jw_score(w, "score", st->score);
    jw_int(w, "faults", st->faults);
    uint64_t fk[JA_FAULT_COUNT];
    slot_faults(v->db, v->ti->id, st, fk);
    json_fault_kinds(w, fk);
    jw_int(w, "forfeits", (long long)fk[JA_FAULT_FORFEIT]);
    json_row_elo(w, v, i);
    jw_obj_end(w);
}

/* The standings as one JSON object and a newline. */
static void print_json(FILE *out, const standings_view *v, uint64_t total_faults)
{
    const ladder_tournament_info *ti = v->ti;
    json_w w;
    char seed[21];
    jw_init(&w, out);
    jw_obj(&w, NULL);
    jw_str(&w, "game", v->g->name);
    arena_jw_options(&w, v->opts_text);
    jw_int(&w, "tournament", ti->id);
    jw_str(&w, "seed", ladder_seed_format(ti->seed, seed));
    jw_int(&w, "seats", ti->n_seats);
    jw_str(&w, "seating", ladder_seating_name(ti->seating));
    jw_int(&w, "matches", ti->n_done);
    jw_int(&w, "planned", ti->n_matches);
    jw_int(&w, "faults", (long long)total_faults);
    json_fault_kinds(&w, v->faults);
    jw_arr(&w, "standings");
    for (uint32_t i = 0; i < v->n; i++)
        json_row(&w, v, i);
    jw_arr_end(&w);
    if (v->rounds)
        arena_rounds_print_json(&w, v->rounds);
    jw_obj_end(&w);
    jw_end(&w);
}

/* Row i of the text's table. */
static void print_row(FILE *out, const standings_view *v, uint32_t i)
{
    const ladder_standing *st = &v->st[i];
    char sc[32], fe[48];
    arena_format_score(st->score, sc, sizeof sc);
    double mean = st->games ? (double)st->score / JA_SCORE_UNIT / (double)st->games : 0;
    const ladder_fit_player *fp = row_fit(v, i);
    if (fp && fp->status == LADDER_FIT_RATED && ladder_fit_several_parts(v->fit))
        snprintf(fe, sizeof fe, "%.0f [%.0f, %.0f] part %u", fp->elo, fp->ci_lo, fp->ci_hi,
                 v->fit->parts[fp->part].number);
    else if (fp && fp->status == LADDER_FIT_RATED)
        snprintf(fe, sizeof fe, "%.0f [%.0f, %.0f]", fp->elo, fp->ci_lo, fp->ci_hi);
    else
        snprintf(fe, sizeof fe, "%s", fp ? ladder_fit_status_name(fp->status) : "-");
    fprintf(out, "  %2u  ", i + 1);
    arena_put_col(out, v->label[i], v->width);
    fprintf(out, " %6lld %6lld %9s %8.3f %7lld %8.0f  %s\n", (long long)st->games, (long long)st->wins, sc, mean, (long long)st->faults, st->elo,
            fe);
}

/* Faults by kind, for the bots that made any. */
static void print_fault_lines(FILE *out, const standings_view *v)
{
    for (uint32_t i = 0; i < v->n; i++) {
        if (!v->st[i].faults)
            continue;
        uint64_t fk[JA_FAULT_COUNT];
        slot_faults(v->db, v->ti->id, &v->st[i], fk);
        fprintf(out, "  faults of %s:", v->label[i]);
        for (int f = 1; f < JA_FAULT_COUNT; f++)
            if (fk[f])
                fprintf(out, " %s %llu", ja_fault_name(f), (unsigned long long)fk[f]);
        if (fk[JA_FAULT_FORFEIT])
            fprintf(out, " (forfeited %llu match%s: last place in each)",
                    (unsigned long long)fk[JA_FAULT_FORFEIT],
                    fk[JA_FAULT_FORFEIT] == 1 ? "" : "es");
        fputc('\n', out);
    }
}

/* The standings as text: the table, the faults, what "fit elo" means. */
static void print_text(FILE *out, const standings_view *v, uint64_t total_faults)
{
    fprintf(out, "\nstandings after %u of %u matches (faults: %llu):\n", v->ti->n_done,
            v->ti->n_matches, (unsigned long long)total_faults);
    fputs("   #  ", out);
    arena_put_col(out, "bot", v->width);
    fprintf(out, " %6s %6s %9s %8s %7s %8s  %s\n", "games", "wins", "score", "mean", "faults",
            "live elo", "fit elo, 95%");
    for (uint32_t i = 0; i < v->n; i++)
        print_row(out, v, i);
    print_fault_lines(out, v);
    if (v->fit && ladder_fit_several_parts(v->fit))
        fprintf(out,
                "fit elo: Bradley-Terry over this tournament's matches, mean 1500 in each part "
                "(a part's results against the others were all wins, all losses or none, so "
                "ratings of different parts do not compare; docs/ratings.md); perfect/zero: no "
                "finite rating\n");
    else if (v->fit)
        fprintf(out, "fit elo: Bradley-Terry over this tournament's matches, mean 1500 "
                "(docs/ratings.md); perfect/zero: no finite rating\n");
    if (v->rounds)
        arena_rounds_print_text(out, v->rounds);
}

static void print_standings(FILE *out, standings_view *v, bool json)
{
    uint64_t total_faults = 0;
    for (int f = 1; f < JA_FAULT_COUNT; f++)
        total_faults += v->faults[f];
    row_labels(v);
    if (json)
        print_json(out, v, total_faults);
    else
        print_text(out, v, total_faults);
    free(v->label);
}

/* The standings as the database has them after play, with the fit of the
 * tournament's matches; then whether the run stopped short of the end (a
 * signal, or the Slurm workers' job ending by itself). */
static int report(run_state *r, FILE *out, char *err, size_t cap)
{
    const arena_tournament_args *a = r->a;
    arena_tournament *t = r->t;
    ladder_standing *st = NULL;
    uint32_t n_st = 0;
    uint64_t faults[JA_FAULT_COUNT] = {0};
    int rc;
    if ((rc = ladder_db_tournament_get(t->db, t->tid, &r->ti)) != JA_OK ||
        (rc = ladder_db_standings(t->db, t->tid, &st, &n_st)) != JA_OK ||
        (rc = ladder_db_tournament_faults(t->db, t->tid, faults)) != JA_OK) {
        snprintf(err, cap, "%s", ladder_db_errmsg(t->db));
        free(st);
        return rc;
    }
    ladder_key key = {a->game->name, a->plan.n_seats, t->opts_text};
    ladder_fit *fit = fit_tournament(t->db, &key, t->tid, st, n_st);
    ladder_display_name *names = standing_names(t->db, &key, st, n_st);
    arena_rounds_view rv;
    bool by_rounds = arena_rounds_view_read(&rv, t->db, &r->ti, a->plan.deals, a->plan.n_deals,
                                            a->bots);
    standings_view v = {t->db, a->game, t->opts_text, &r->ti, st, n_st, names, faults, fit,
                        a->bots, NULL, 0, by_rounds ? &rv : NULL};
    print_standings(out, &v, a->json);
    arena_rounds_view_free(&rv);
    free(names);
    ladder_fit_free(&fit);
    free(st);
    if (g_stop && !r->ti.done && r->sw_failed) {
        snprintf(err, cap, "%s", r->swerr);
        return JA_EIO;
    }
    if (g_stop && !r->ti.done) {
        snprintf(err, cap, "interrupted after %u of %u matches; run the same command again to "
                 "finish", r->ti.n_done, r->ti.n_matches);
        return JA_EAGAIN;
    }
    return JA_OK;
}

int arena_tournament_run(arena_tournament *t, FILE *out, char *err, size_t cap)
{
    run_state r = {.t = t, .a = t->a};
    err[0] = '\0';
    g_stop = 0;
    int rc = read_plan(&r, err, cap);
    if (rc == JA_OK && !t->a->json)
        print_header(out, &r);
    if (rc == JA_OK)
        rc = start_executor(&r, err, cap);
    if (rc == JA_OK) {
        rc = play_pending(&r, err, cap);
        rc = finish_export(&r, rc, err, cap);
    }
    free(r.pending);
    if (r.x)
        r.x->ops->destroy(r.x);
    arena_slurm_workers_end(&r.sw);
    return rc == JA_OK ? report(&r, out, err, cap) : rc;
}
