/* A tournament run (tournament_run.h): plan, play, record, print the
 * standings. */
#include "run/tournament_run.h"

#include "core/db_lock.h"
#include "run/executor.h"
#include "run/export.h"
#include "core/json_w.h"
#include "run/progress.h"
#include "run/repro.h"
#include "run/standings.h"
#include "run/tournament.h"
#include "core/util.h"

#include "fit.h"
#include "jackarena/ja_error.h"
#include "ladder.h"
#include "proc.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static volatile sig_atomic_t g_stop;

static void on_progress(void *ctx, uint32_t done, uint32_t total)
{
    progress_update(ctx, done);
}

static void on_signal(int sig)
{
    (void)sig;
    g_stop = 1;
}

static bool ensure_dir(const char *dir)
{
    struct stat sb;
    if (stat(dir, &sb) == 0) {
        if (!S_ISDIR(sb.st_mode)) {
            arena_error("--replays '%s' is not a directory", dir);
            return false;
        }
    } else if (mkdir(dir, 0777) != 0 && !(errno == EEXIST && stat(dir, &sb) == 0 &&
                                           S_ISDIR(sb.st_mode))) {
        /* (EEXIST: made meanwhile by another process, which is fine.) */
        arena_error("cannot create replay directory '%s': %s", dir, strerror(errno));
        return false;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        arena_error("cannot write into replay directory '%s': %s", dir, strerror(errno));
        return false;
    }
    return true;
}

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
    return arena_fit_add(&in->m, &in->n, &in->cap, row, player);
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

/* Writes the reproduction bundle of a finished match with a fault, next to
 * its replay (repro.h). A bundle that cannot be written is reported and the
 * result still recorded: the replay is what counts. */
static void on_result(void *hctx, const arena_exec_ctx *c, const arena_job_result *jr)
{
    (void)hctx;
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
        arena_error("match %u: reproduction bundle not written: %s", (unsigned)jr->number, err);
}

/* --restart: a cmd: bot of the job whose process has exited starts again
 * before the match (between matches, in the tournament loop's thread). */
static void before_job(void *hctx, const arena_exec_ctx *c, const arena_job *job)
{
    arena_bots *bs = hctx;
    (void)c;
    for (uint32_t s = 0; s < job->n_seats; s++) {
        arena_bot *b = &bs->b[job->slot[s]];
        char how[128] = "", err[700];
        if (!b->proc || !ref_proc_exited(b->proc, how, sizeof how))
            continue;
        fprintf(stderr, "arena: bot '%s' %s; restarting it before match %u\n", b->name, how,
                (unsigned)job->number);
        if (!arena_ext_restart(bs->ext, b, err, sizeof err))
            arena_error("%s (its matches fault until it is back)", err);
    }
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
 * cannot be read or memory runs out (the standings then show the names of
 * the tournament). */
static ladder_display_name *standing_names(ladder_db *db, const ladder_key *key,
                                           const ladder_standing *st, uint32_t n)
{
    ladder_bot_row *bots = NULL;
    ladder_display_name *names = NULL, *out = NULL;
    uint32_t nb = 0;
    int *at = calloc(n ? n : 1, sizeof *at); /* st[i]'s row in bots */
    if (at == NULL || ladder_db_ladder_bots(db, key, &bots, &nb) != JA_OK)
        goto out;
    ladder_bot_row *all = realloc(bots, ((size_t)nb + n + 1) * sizeof *all);
    if (all == NULL)
        goto out;
    bots = all;
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
    if (ladder_display_names(bots, nb, &names) != JA_OK ||
        (out = calloc(n ? n : 1, sizeof *out)) == NULL)
        goto out;
    for (uint32_t i = 0; i < n; i++)
        memcpy(out[i], names[at[i]], sizeof out[i]);
out:
    free(names);
    free(bots);
    free(at);
    return out;
}

static void print_standings(FILE *out, ladder_db *db, const ja_game_rules *g, const char *opts_text,
                            const ladder_tournament_info *ti, const ladder_standing *st,
                            uint32_t n, const ladder_display_name *names,
                            const uint64_t faults[JA_FAULT_COUNT], const ladder_fit *fit,
                            bool json)
{
#define NAME(i) (names ? names[i] : st[i].bot)
    uint64_t total_faults = 0;
    for (int f = 1; f < JA_FAULT_COUNT; f++)
        total_faults += faults[f];
    if (json) {
        json_w w;
        jw_init(&w, out);
        jw_obj(&w, NULL);
        jw_str(&w, "game", g->name);
        arena_jw_options(&w, opts_text);
        char seed[21];
        jw_int(&w, "tournament", ti->id);
        jw_str(&w, "seed", ladder_seed_format(ti->seed, seed));
        jw_int(&w, "seats", ti->n_seats);
        jw_int(&w, "matches", ti->n_done);
        jw_int(&w, "planned", ti->n_matches);
        jw_int(&w, "faults", (long long)total_faults);
        jw_obj(&w, "fault_kinds");
        for (int f = 1; f < JA_FAULT_COUNT; f++)
            if (faults[f])
                jw_int(&w, ja_fault_name(f), (long long)faults[f]);
        jw_obj_end(&w);
        jw_arr(&w, "standings");
        for (uint32_t i = 0; i < n; i++) {
            jw_obj(&w, NULL);
            jw_str(&w, "bot", st[i].bot);
            jw_str(&w, "version", st[i].version);
            if (st[i].sha256[0])
                jw_str(&w, "sha256", st[i].sha256);
            else
                jw_null(&w, "sha256");
            jw_str(&w, "display_name", NAME(i));
            jw_int(&w, "games", st[i].games);
            jw_int(&w, "wins", st[i].wins);
            jw_score(&w, "score", st[i].score);
            jw_int(&w, "faults", st[i].faults);
            uint64_t fk[JA_FAULT_COUNT];
            slot_faults(db, ti->id, &st[i], fk);
            jw_obj(&w, "fault_kinds");
            for (int f = 1; f < JA_FAULT_COUNT; f++)
                if (fk[f])
                    jw_int(&w, ja_fault_name(f), (long long)fk[f]);
            jw_obj_end(&w);
            jw_int(&w, "forfeits", (long long)fk[JA_FAULT_FORFEIT]);
            /* elo and elo_ci95 from the fit where it rates the bot; the live
             * Elo otherwise, with a null interval. */
            const ladder_fit_player *fp = fit ? &fit->players[i] : NULL;
            if (fp && fp->status == LADDER_FIT_RATED) {
                jw_num(&w, "elo", fp->elo);
                jw_arr(&w, "elo_ci95");
                jw_num(&w, NULL, fp->ci_lo);
                jw_num(&w, NULL, fp->ci_hi);
                jw_arr_end(&w);
            } else {
                jw_num(&w, "elo", st[i].elo);
                jw_null(&w, "elo_ci95");
            }
            jw_str(&w, "elo_status", fp ? ladder_fit_status_name(fp->status) : "live");
            /* Fitted ratings compare only within a part (docs/ratings.md). */
            if (fp && fp->status == LADDER_FIT_RATED)
                jw_int(&w, "elo_part", fit->parts[fp->part].number);
            else
                jw_null(&w, "elo_part");
            jw_num(&w, "live_elo", st[i].elo);
            jw_obj_end(&w);
        }
        jw_arr_end(&w);
        jw_obj_end(&w);
        jw_end(&w);
        return;
    }
    fprintf(out, "\nstandings after %u of %u matches (faults: %llu):\n", ti->n_done, ti->n_matches,
            (unsigned long long)total_faults);
    fprintf(out, "   #  %-20s %6s %6s %9s %8s %7s %8s  %-13s\n", "bot", "games", "wins", "score",
            "mean", "faults", "live elo", "fit elo, 95%");
    for (uint32_t i = 0; i < n; i++) {
        char sc[32], fe[48];
        arena_format_score(st[i].score, sc, sizeof sc);
        double mean = st[i].games ? (double)st[i].score / JA_SCORE_UNIT / (double)st[i].games : 0;
        const ladder_fit_player *fp = fit ? &fit->players[i] : NULL;
        if (fp && fp->status == LADDER_FIT_RATED && ladder_fit_several_parts(fit))
            snprintf(fe, sizeof fe, "%.0f [%.0f, %.0f] part %u", fp->elo, fp->ci_lo, fp->ci_hi,
                     fit->parts[fp->part].number);
        else if (fp && fp->status == LADDER_FIT_RATED)
            snprintf(fe, sizeof fe, "%.0f [%.0f, %.0f]", fp->elo, fp->ci_lo, fp->ci_hi);
        else
            snprintf(fe, sizeof fe, "%s", fp ? ladder_fit_status_name(fp->status) : "-");
        fprintf(out, "  %2u  %-20s %6lld %6lld %9s %8.3f %7lld %8.0f  %s\n", i + 1, NAME(i),
                (long long)st[i].games, (long long)st[i].wins, sc, mean, (long long)st[i].faults,
                st[i].elo, fe);
    }
    /* Faults by kind, for the bots that made any. */
    for (uint32_t i = 0; i < n; i++) {
        if (!st[i].faults)
            continue;
        uint64_t fk[JA_FAULT_COUNT];
        slot_faults(db, ti->id, &st[i], fk);
        fprintf(out, "  faults of %s:", NAME(i));
        for (int f = 1; f < JA_FAULT_COUNT; f++)
            if (fk[f])
                fprintf(out, " %s %llu", ja_fault_name(f), (unsigned long long)fk[f]);
        if (fk[JA_FAULT_FORFEIT])
            fprintf(out, " (forfeited %llu match%s: last place in each)",
                    (unsigned long long)fk[JA_FAULT_FORFEIT],
                    fk[JA_FAULT_FORFEIT] == 1 ? "" : "es");
        fputc('\n', out);
    }
    if (fit && ladder_fit_several_parts(fit))
        fprintf(out,
                "fit elo: Bradley-Terry over this tournament's matches, mean 1500 in each part "
                "(a part's results against the others were all wins, all losses or none, so "
                "ratings of different parts do not compare; docs/ratings.md); perfect/zero: no "
                "finite rating\n");
    else if (fit)
        fprintf(out, "fit elo: Bradley-Terry over this tournament's matches, mean 1500 "
                "(docs/ratings.md); perfect/zero: no finite rating\n");
#undef NAME
}

int arena_tournament_run(FILE *out, const arena_tournament_args *a)
{
    const ja_game_rules *g = a->game;
    const ja_options o = a->options;
    arena_bots *bots = a->bots;
    arena_ext *ext = a->ext;
    const arena_scale *sc = a->scale;
    const ladder_plan_params pp = a->plan;
    const uint32_t seats = pp.n_seats, rounds = pp.rounds;
    const bool duplicate = pp.duplicate, resume = a->resume, json = a->json, quiet = a->quiet;
    const char *db_path = a->db_path, *replay_dir = a->replay_dir,
               *export_path = a->export_path;
    uint32_t jobs = a->jobs;
    char err[1200];
    g_stop = 0;
    arena_confine_protect(&ext->confine, db_path, "the database");
    arena_confine_protect(&ext->confine, replay_dir, "the replays");
    arena_confine_protect(&ext->confine, export_path, "the decision export");
    if (!arena_bots_load(bots, g)) {
        arena_bots_free(bots);
        return EXIT_USAGE;
    }
    int status = EXIT_RUNTIME;
    ladder_db *db = NULL;
    arena_executor *x = NULL;
    uint32_t *pending = NULL;
    ladder_standing *st = NULL;
    arena_export *xf = NULL;
    arena_db_lock lock = {.fd = -1};
    arena_slurm_workers *sw = NULL;
    if (replay_dir && !ensure_dir(replay_dir)) {
        status = EXIT_USAGE;
        goto out;
    }
    if (export_path && arena_export_open(export_path, &xf, err, sizeof err) != JA_OK) {
        arena_error("%s", err);
        status = EXIT_USAGE;
        goto out;
    }
    struct stat sb;
    if (resume && stat(db_path, &sb) != 0) {
        arena_error("--resume: %s has no unfinished %s tournament with these bots, options and "
                    "format (no such file)", db_path, g->name);
        status = EXIT_USAGE;
        goto out;
    }
    /* One run at a time plays into a database (db_lock.h), taken before the
     * database is opened (or made), so a second run writes nothing. */
    if ((status = arena_db_lock_open(db_path, &lock, &db)) != EXIT_OK)
        goto out;
    status = EXIT_RUNTIME;
    int rc;

    /* The tournament as the database knows it. */
    char opts_text[LADDER_OPTIONS_MAX];
    ja_options_format(g, &o, opts_text, sizeof opts_text);
    ladder_bot lb[ARENA_MAX_BOTS];
    for (int i = 0; i < bots->n; i++) {
        const ref_bot_info *bi = ref_bot_get_info(bots->b[i].bot);
        /* External bots: their announced version, no file hash. */
        lb[i] = (ladder_bot){bots->b[i].name, bi->version,
                             bots->b[i].builtin ? "builtin" : bi->kind,
                             bots->b[i].spec, bi->sha256[0] ? bi->sha256 : NULL};
    }
    ladder_tournament_spec spec = {{g->name, seats, opts_text}, a->have_seed ? a->seed : 0,
                                   pp.format, rounds, duplicate, (uint32_t)bots->n, lb};
    int64_t tid = 0;
    bool found = false;
    if (resume || a->have_seed) {
        unsigned flags = a->have_seed ? 0 : LADDER_FIND_ANY_SEED | LADDER_FIND_UNFINISHED;
        rc = ladder_db_tournament_find(db, &spec, flags, &tid);
        if (rc == JA_OK)
            found = true;
        else if (rc != JA_ENOTFOUND) {
            arena_error("%s", ladder_db_errmsg(db));
            status = arena_db_status(rc);
            goto out;
        } else if (resume && !a->have_seed) {
            arena_error("--resume: %s has no unfinished %s tournament with these bots, options "
                        "and format", db_path, g->name);
            status = EXIT_USAGE;
            goto out;
        }
    }
    if (!found) {
        spec.seed = a->have_seed ? a->seed : arena_random_seed();
        rc = ladder_db_tournament_create(db, &spec, &tid);
        if (rc != JA_OK) {
            arena_error("%s", ladder_db_errmsg(db));
            status = arena_db_status(rc);
            goto out;
        }
    }
    ladder_tournament_info ti;
    if ((rc = ladder_db_tournament_get(db, tid, &ti)) != JA_OK) {
        arena_error("%s", ladder_db_errmsg(db));
        goto out;
    }
    uint32_t n_pending = 0;
    if ((rc = ladder_db_pending(db, tid, &pending, &n_pending)) != JA_OK) {
        arena_error("%s", ladder_db_errmsg(db));
        goto out;
    }
    if (!json) {
        char seed_s[21];
        fprintf(out,
                "tournament %lld: %s, %d bots, %u seats, %s, %u round%s, seed %s: %u matches\n",
                (long long)tid, g->name, bots->n, seats, ladder_format_name(pp.format), rounds,
                rounds == 1 ? "" : "s", ladder_seed_format(ti.seed, seed_s), ti.n_matches);
        fprintf(out, "options: %s\ndatabase: %s%s%s\n", opts_text, db_path,
                replay_dir ? "; replays: " : "", replay_dir ? replay_dir : "");
        if (found && n_pending && n_pending < ti.n_matches)
            fprintf(out, "resuming: %u of %u matches already played\n", ti.n_matches - n_pending,
                    ti.n_matches);
        else if (found && !n_pending)
            fprintf(out, "already complete in %s: nothing to play\n", db_path);
        fflush(out);
    }

    /* No more matches at once than this run has to play: a worker or a
     * thread beyond that would have nothing to do. */
    uint32_t to_play = 0;
    for (uint32_t i = 0; i < n_pending; i++)
        to_play += !sc->shard_n || pending[i] % sc->shard_n == sc->shard_i - 1;
    if (jobs > to_play)
        jobs = to_play ? to_play : 1;

    /* Play what is pending. */
    ref_bot *slot_bots[ARENA_MAX_BOTS];
    const char *slot_names[ARENA_MAX_BOTS];
    for (int i = 0; i < bots->n; i++) {
        slot_bots[i] = bots->b[i].bot;
        slot_names[i] = bots->b[i].name;
    }
    const char *slot_specs[ARENA_MAX_BOTS];
    for (int i = 0; i < bots->n; i++)
        slot_specs[i] = bots->b[i].spec;
    arena_fault_cfg fc = {ext->bank_ms, ext->on_fault, ext->restart, replay_dir != NULL};
    /* --tournament-id (a shard of --slurm): the matches are named as those
     * of the tournament the shard is merged into. */
    arena_exec_ctx xc = {g, o, a->move_ms, slot_bots, slot_names,
                         replay_dir, sc->tournament_id ? sc->tournament_id : tid,
                         arena_ext_max_faults(ext), fc, slot_specs, NULL};
    /* --slurm: the shards play, in Slurm jobs (slurm.h); no executor here.
     * --slurm-workers with nothing to play: no job either. */
    if (sc->slurm.workers && !to_play) {
        if ((rc = arena_executor_inproc_new(&xc, &x)) != JA_OK) {
            arena_error("cannot start the executor: %s", ja_strerror(rc));
            goto out;
        }
    } else if (!sc->slurm.n &&
               !arena_scale_executor(sc, ext, bots, &xc, jobs, quiet || json, &g_stop, &x, &sw)) {
        goto out;
    }
    if (x) {
        x->export = xf;
        x->on_result = on_result;
        x->before_job = ext->restart ? before_job : NULL;
        x->hook_ctx = bots;
    }
    struct sigaction sa = {0}, old_int, old_term;
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    progress pr;
    progress_begin(&pr, ti.n_matches, ti.n_matches - n_pending, quiet);
    if (x)
        rc = arena_tournament_play_part(db, tid, x, sc->shard_i, sc->shard_n, &g_stop, on_progress,
                                        &pr, err, sizeof err);
    else
        rc = arena_slurm_play(db, db_path, tid, &spec, &sc->slurm, xf, quiet || json, &g_stop,
                              on_progress, &pr, err, sizeof err);
    progress_end(&pr, pr.last_done);
    /* --slurm-workers: whether the job ended by itself (before its workers
     * are told to quit, which ends it too); it is cancelled and gone
     * before the standings. */
    char swerr[1200];
    bool sw_failed = arena_slurm_workers_failed(sw, swerr, sizeof swerr);
    /* Workers are told to quit now, not after the standings and the fit. */
    if (x)
        x->ops->destroy(x); /* no job refers to the export file any more */
    x = NULL;
    arena_slurm_workers_end(&sw);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    /* The export holds every match recorded by this run, also when it was
     * interrupted or failed later: put it in place either way. */
    if (xf) {
        char xerr[1200];
        if (arena_export_finish(&xf, xerr, sizeof xerr) != JA_OK) {
            arena_error("%s", xerr);
            if (rc == JA_OK)
                goto out;
        }
    }
    if (rc != JA_OK) {
        arena_error("%s", err);
        goto out;
    }

    uint32_t n_st = 0;
    uint64_t faults[JA_FAULT_COUNT] = {0};
    if ((rc = ladder_db_tournament_get(db, tid, &ti)) != JA_OK ||
        (rc = ladder_db_standings(db, tid, &st, &n_st)) != JA_OK ||
        (rc = ladder_db_tournament_faults(db, tid, faults)) != JA_OK) {
        arena_error("%s", ladder_db_errmsg(db));
        goto out;
    }
    ladder_key key = {g->name, seats, opts_text};
    ladder_fit *fit = fit_tournament(db, &key, tid, st, n_st);
    ladder_display_name *names = standing_names(db, &key, st, n_st);
    print_standings(out, db, g, opts_text, &ti, st, n_st, names, faults, fit, json);
    free(names);
    ladder_fit_free(&fit);
    if (g_stop && !ti.done && sw_failed) {
        arena_error("%s", swerr);
        goto out;
    }
    if (g_stop && !ti.done) {
        arena_error("interrupted after %u of %u matches; run the same command again to finish",
                    ti.n_done, ti.n_matches);
        goto out;
    }
    status = EXIT_OK;
out:
    free(st);
    free(pending);
    if (x)
        x->ops->destroy(x);
    arena_slurm_workers_end(&sw);
    arena_export_abort(&xf);
    ladder_db_close(&db);
    arena_db_lock_release(&lock);
    arena_bots_free(bots);
    return status;
}
