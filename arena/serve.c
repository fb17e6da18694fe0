/* `arena serve` (serve.h): the events, the validation worker, the
 * scheduler and the run. The HTTP side is serve_http.c. */
#include "serve_int.h"
#include "serve_live.h"
#include "serve_ext.h"

#include "botspec.h"
#include "db_lock.h"
#include "executor.h"
#include "repro.h"
#include "tournament.h"
#include "util.h"

#include "elf_check.h"
#include "jackarena/ja_error.h"
#include "jackarena/ja_rng.h"
#include "seat.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SRV_STREAM_SMOKE JA_TAG('S', 'R', 'V', 'S')

static volatile sig_atomic_t g_stop;

static void on_signal(int sig)
{
    (void)sig;
    g_stop = 1;
}

/* Waits until woken or about a second has passed; returns at once when
 * stopping. */
static void srv_wait(arena_server *s, uint64_t seen)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += 1;
    pthread_mutex_lock(&s->mu);
    while (s->wake == seen && !*s->stop &&
           pthread_cond_timedwait(&s->cond, &s->mu, &ts) != ETIMEDOUT) {
    }
    pthread_mutex_unlock(&s->mu);
}

static uint64_t srv_wake_count(arena_server *s)
{
    pthread_mutex_lock(&s->mu);
    uint64_t w = s->wake;
    pthread_mutex_unlock(&s->mu);
    return w;
}

/* ---- validation ---------------------------------------------------------------- */

static void version_path(const arena_server *s, const arena_serve_version *v, char *out,
                         size_t cap)
{
    snprintf(out, cap, "%s/%s", s->data, v->file);
}

/* A faulty smoke match's reproduction bundle (repro.h), written beside its
 * replay; a clean match's replay is removed. True when a bundle exists. */
static bool smoke_bundle(const arena_exec_ctx *xc, const arena_job *job, arena_job_result *r,
                         uint32_t seat)
{
    if (!r->replay_path[0])
        return false;
    if (!r->res.faults[seat]) {
        unlink(r->replay_path);
        return false;
    }
    ref_bot *bots[JA_MAX_SEATS];
    const char *names[JA_MAX_SEATS];
    for (uint32_t k = 0; k < job->n_seats; k++) {
        bots[k] = xc->bots[job->slot[k]];
        names[k] = xc->names[job->slot[k]];
    }
    char id[32];
    snprintf(id, sizeof id, "t0-m%u", (unsigned)job->number);
    ref_match_config cfg = {xc->game, xc->options, job->n_seats, job->seed, xc->move_ms, id,
                            0, REF_ON_FAULT_DEFAULT, .max_faults = 0};
    arena_repro_info in = {&cfg, 0, job->number, bots, names, NULL, r->stderr_tails};
    char err[600];
    if (arena_repro_write(r->replay_path, &in, &r->res, err, sizeof err) != JA_OK) {
        arena_error("smoke match %u: reproduction bundle not written: %s", (unsigned)job->number,
                    err);
        return false;
    }
    return true;
}

/* Plays the smoke matches of candidate cand against random: cand in seat
 * i % seats of match i, random in the others. JA_OK with the report's
 * "smoke" array filled (a faulty match's entry names its reproduction
 * bundle, for the author: docs/server.md); JA_EBOT when the candidate
 * faulted (reason in why); another error when a match could not be played. */
static int smoke(arena_server *s, const arena_serve_version *v, ref_bot *cand, ref_bot *random,
                 json_t *list, char *why, size_t cap)
{
    const arena_serve_args *a = s->a;
    ref_bot *bots[2] = {cand, random};
    const char *names[2] = {v->author, "random"};
    char dir[4300], top[4200];
    snprintf(top, sizeof top, "%s/validation", s->data);
    arena_serve_smoke_dir(s->data, v->id, dir, sizeof dir);
    bool keep = (mkdir(top, 0700) == 0 || errno == EEXIST) &&
                (mkdir(dir, 0700) == 0 || errno == EEXIST);
    if (!keep)
        arena_error("cannot create '%s' (no reproduction bundles): %s", dir, strerror(errno));
    arena_fault_cfg fc = {0, REF_ON_FAULT_DEFAULT, false, true};
    arena_exec_ctx xc = {a->game, a->options, a->move_ms, bots, names, keep ? dir : NULL, 0, 0,
                         fc, NULL, NULL};
    uint64_t total = 0;
    int status = JA_OK;
    for (uint32_t i = 0; i < a->smoke && !*s->stop; i++) {
        arena_job job = {i, ja_seed_derive(s->seed, SRV_STREAM_SMOKE, (uint64_t)v->id * 1024 + i),
                         a->seats, {0}};
        uint32_t seat = i % a->seats;
        for (uint32_t k = 0; k < a->seats; k++)
            job.slot[k] = k == seat ? 0 : 1;
        arena_job_result *r = calloc(1, sizeof *r);
        if (r == NULL)
            return JA_ENOMEM;
        arena_job_run(&xc, &job, false, r);
        if (r->rc != JA_OK) {
            snprintf(why, cap, "smoke match %u could not be played: %s", i, r->err);
            status = r->rc;
        } else {
            json_t *fk = json_object();
            for (int f = 1; f < JA_FAULT_COUNT; f++)
                if (r->res.fault_kinds[seat][f])
                    json_object_set_new(fk, ja_fault_name(f),
                                        json_integer(r->res.fault_kinds[seat][f]));
            json_t *e = json_pack("{sI sI so}", "seat", (json_int_t)seat, "faults",
                                  (json_int_t)r->res.faults[seat], "fault_kinds", fk);
            if (smoke_bundle(&xc, &job, r, seat)) {
                char url[128];
                snprintf(url, sizeof url, "/api/bots/%s/versions/%" PRId64 "/smoke/%u",
                         v->author, v->number, (unsigned)i);
                json_object_set_new(e, "bundle", json_string(url));
            }
            json_array_append_new(list, e);
            total += r->res.faults[seat];
        }
        free(r->export_data);
        free(r->stderr_tails);
        free(r);
        if (status != JA_OK)
            return status;
    }
    if (*s->stop)
        return JA_EAGAIN;
    if (total) {
        snprintf(why, cap, "%" PRIu64 " fault%s in %u smoke matches against random (none allowed)",
                 total, total == 1 ? "" : "s", a->smoke);
        return JA_EBOT;
    }
    return JA_OK;
}

/* Validates one version: the status it gets, with its reason and report. */
static void validate(arena_server *s, const arena_serve_version *v, ref_bot *random)
{
    char path[4400], why[1400] = "";
    version_path(s, v, path, sizeof path);
    json_t *rep = json_object(), *steps = json_array(), *sm = json_array();
    json_object_set_new(rep, "steps", steps);
    json_object_set_new(rep, "smoke", sm);
    ref_bot *cand = NULL;
    const char *status = ARENA_V_REJECTED;
    char err[1200];
    bool ext = srv_ext_is(v);
    if (ext) { /* its bot is connected (srv_ext_next_validating): hub's, borrowed */
        if (srv_ext_bot(s, v, &cand, err, sizeof err) != JA_OK) {
            snprintf(why, sizeof why, "its bot is not connected: %s", err);
            json_array_append_new(steps, json_pack("{ss ss}", "step", "hello", "result",
                                                   "failed"));
            goto done;
        }
        json_array_append_new(steps, json_pack("{ss ss}", "step", "hello", "result", "ok"));
        goto supports;
    }
    /* The messages name the stored file by its hash, never by its path. */
    if (ref_elf_check(path, err, sizeof err) != JA_OK) {
        snprintf(why, sizeof why, "not a plugin for this server: %s", err);
        json_array_append_new(steps, json_pack("{ss ss}", "step", "elf", "result", "failed"));
        goto done;
    }
    json_array_append_new(steps, json_pack("{ss ss}", "step", "elf", "result", "ok"));
    if (ref_bot_hosted_open(path, NULL, &cand, err, sizeof err) != JA_OK) {
        snprintf(why, sizeof why, "does not load in the sandbox: %s", err);
        json_array_append_new(steps, json_pack("{ss ss}", "step", "load", "result", "failed"));
        goto done;
    }
    json_array_append_new(steps, json_pack("{ss ss}", "step", "load", "result", "ok"));
supports:
    if (!ref_bot_supports(cand, s->a->game)) {
        snprintf(why, sizeof why, "does not play %s", s->a->game->name);
        json_array_append_new(steps, json_pack("{ss ss}", "step", "supports", "result", "failed"));
        goto done;
    }
    json_array_append_new(steps, json_pack("{ss ss}", "step", "supports", "result", "ok"));
    int rc = smoke(s, v, cand, random, sm, why, sizeof why);
    if (rc == JA_EAGAIN) { /* stopping: validated again at the next start */
        json_decref(rep);
        if (!ext)
            ref_bot_destroy(&cand);
        return;
    }
    json_array_append_new(steps, json_pack("{ss ss}", "step", "smoke", "result",
                                           rc == JA_OK ? "ok" : "failed"));
    if (rc == JA_OK)
        status = ARENA_V_ACTIVE;
done:
    if (!ext)
        ref_bot_destroy(&cand);
    /* Paths in messages are the server's: show the file by its name. */
    char *p;
    size_t dl = strlen(s->data);
    while ((p = strstr(why, s->data)) != NULL) {
        size_t skip = dl + (p[dl] == '/');
        memmove(p, p + skip, strlen(p + skip) + 1);
    }
    json_object_set_new(rep, "result", json_string(status));
    json_object_set_new(rep, "reason", json_string(why));
    char *text = json_dumps(rep, JSON_COMPACT);
    json_decref(rep);
    bool changed = false;
    arena_serve_db_version_set(s->sdb, v->id, status, why, text, ARENA_V_VALIDATING, &changed);
    free(text);
    if (changed)
        srv_event_version(s, v->author, v->number, status, why);
}

static void *validator(void *arg)
{
    arena_server *s = arg;
    char path[4200], err[1200];
    snprintf(path, sizeof path, "%s/ja_random.so", arena_bots_dir());
    ref_bot *random = NULL;
    if (ref_bot_plugin_open(path, NULL, &random, err, sizeof err) != JA_OK) {
        arena_error("the validator needs the reference bot random: %s", err);
        s->failed = true;
        *s->stop = 1;
        srv_event(s, NULL);
        return NULL;
    }
    while (!*s->stop) {
        uint64_t seen = srv_wake_count(s);
        arena_serve_version v;
        int rc = srv_ext_next_validating(s, &v);
        if (rc == JA_OK)
            validate(s, &v, random);
        else
            srv_wait(s, seen);
    }
    ref_bot_destroy(&random);
    return NULL;
}

/* ---- the scheduler ------------------------------------------------------------- */

/* Loaded bots of versions, kept between batches. */
typedef struct bot_cache {
    int64_t id[64];
    ref_bot *bot[64];
    uint32_t n;
} bot_cache;

static ref_bot *cache_get(arena_server *s, bot_cache *c, const arena_serve_version *v, char *err,
                          size_t cap)
{
    for (uint32_t i = 0; i < c->n; i++)
        if (c->id[i] == v->id)
            return c->bot[i];
    if (c->n == 64) { /* forget the oldest */
        ref_bot_destroy(&c->bot[0]);
        memmove(c->id, c->id + 1, 63 * sizeof c->id[0]);
        memmove(c->bot, c->bot + 1, 63 * sizeof c->bot[0]);
        c->n--;
    }
    char path[4400];
    version_path(s, v, path, sizeof path);
    ref_bot *b = NULL;
    if (ref_bot_hosted_open(path, NULL, &b, err, cap) != JA_OK)
        return NULL;
    c->id[c->n] = v->id;
    c->bot[c->n++] = b;
    return b;
}

static void cache_free(bot_cache *c)
{
    for (uint32_t i = 0; i < c->n; i++)
        ref_bot_destroy(&c->bot[i]);
    c->n = 0;
}

typedef struct play_ctx {
    arena_server *s;
    const arena_serve_batch *b;
    volatile sig_atomic_t stop; /* the server stops, or an external bot of b left */
} play_ctx;

static void on_match(void *ctx, uint32_t done, uint32_t total)
{
    play_ctx *p = ctx;
    p->stop = *p->s->stop || srv_ext_ready(p->s, p->b) != SRV_EXT_READY;
    srv_event(p->s, json_pack("{ss sI sI si si}", "type", "match", "batch", (json_int_t)p->b->id,
                              "tournament", (json_int_t)p->b->tournament, "done", (int)done,
                              "total", (int)total));
}

/* After a finished batch: its faults added to its versions; a version past
 * the fault limit suspended. */
static int finish_batch(arena_server *s, ladder_db *db, const arena_serve_batch *b)
{
    int64_t faults[16] = {0};
    uint64_t kinds[16][JA_FAULT_COUNT];
    for (uint32_t i = 0; i < b->n; i++) {
        if (ladder_db_slot_faults(db, b->tournament, i, kinds[i]) != JA_OK) {
            arena_error("%s", ladder_db_errmsg(db));
            return JA_EDB;
        }
        for (int f = 1; f < JA_FAULT_COUNT; f++)
            if (f != JA_FAULT_FORFEIT)
                faults[i] += (int64_t)kinds[i][f];
    }
    int rc = arena_serve_db_batch_done(s->sdb, b, faults);
    if (rc != JA_OK)
        return rc;
    srv_event_batch(s, b, "done");
    for (uint32_t i = 0; i < b->n; i++) {
        arena_serve_version v;
        if (!faults[i] || arena_serve_db_version_get(s->sdb, b->version[i], &v) != JA_OK ||
            v.faults <= s->a->fault_limit)
            continue;
        char why[512];
        int used = snprintf(why, sizeof why,
                            "%" PRId64 " faults in ladder matches, over the limit of %u; last "
                            "batch %" PRId64 " (tournament %" PRId64 "):",
                            v.faults, s->a->fault_limit, b->id, b->tournament);
        for (int f = 1; f < JA_FAULT_COUNT && used > 0 && (size_t)used < sizeof why; f++)
            if (kinds[i][f])
                used += snprintf(why + used, sizeof why - (size_t)used, " %s %" PRIu64,
                                 ja_fault_name(f), kinds[i][f]);
        bool changed = false;
        arena_serve_db_version_set(s->sdb, v.id, ARENA_V_SUSPENDED, why, NULL, ARENA_V_ACTIVE,
                                   &changed);
        if (changed)
            srv_event_version(s, v.author, v.number, ARENA_V_SUSPENDED, why);
    }
    return JA_OK;
}

/* Plays (or resumes) one batch to its end, or until stopped. */
static int play_batch(arena_server *s, ladder_db *db, bot_cache *cache, arena_serve_batch *b)
{
    const arena_serve_args *a = s->a;
    arena_serve_version v[16];
    char ver[16][24], spec[16][4500], name[16][ARENA_SERVE_NAME_MAX + 24], err[1400];
    ladder_bot lb[16];
    ref_bot *bots[16];
    const char *names[16], *specs[16];
    for (uint32_t i = 0; i < b->n; i++) {
        if (arena_serve_db_version_get(s->sdb, b->version[i], &v[i]) != JA_OK) {
            arena_error("batch %" PRId64 ": version %" PRId64 " is not in the server database",
                        b->id, b->version[i]);
            return JA_EDB;
        }
        snprintf(ver[i], sizeof ver[i], "%" PRId64, v[i].number);
        snprintf(name[i], sizeof name[i], "%s@%" PRId64, v[i].author, v[i].number);
        names[i] = name[i];
        specs[i] = spec[i];
        if (srv_ext_is(&v[i])) { /* the hub's participant, borrowed */
            snprintf(spec[i], sizeof spec[i], "zmq:%s", v[i].author);
            lb[i] = (ladder_bot){v[i].author, ver[i], "zmq", spec[i], NULL};
            if (srv_ext_bot(s, &v[i], &bots[i], err, sizeof err) != JA_OK)
                return JA_OK; /* gone since srv_ext_ready: the scheduler waits again */
            continue;
        }
        snprintf(spec[i], sizeof spec[i], "hosted:%s/%s", s->data, v[i].file);
        lb[i] = (ladder_bot){v[i].author, ver[i], "hosted", spec[i], v[i].sha256};
        bots[i] = cache_get(s, cache, &v[i], err, sizeof err);
        if (bots[i] == NULL) {
            /* A file that loaded in validation and no longer does. */
            bool changed = false;
            char why[1600];
            snprintf(why, sizeof why, "no longer loads: %s", err);
            arena_serve_db_version_set(s->sdb, v[i].id, ARENA_V_SUSPENDED, why, NULL, NULL,
                                       &changed);
            srv_event_version(s, v[i].author, v[i].number, ARENA_V_SUSPENDED, why);
            int64_t none[16] = {0};
            int rc = arena_serve_db_batch_done(s->sdb, b, none);
            srv_event_batch(s, b, "done");
            return rc;
        }
    }
    uint32_t rounds = (a->concurrency + a->seats - 1) / a->seats;
    if (rounds < a->rounds)
        rounds = a->rounds;
    ladder_tournament_spec ts = {{a->game->name, a->seats, s->opts_text},
                                 b->seed, LADDER_FORMAT_ROUND_ROBIN, rounds ? rounds : 1,
                                 true, b->n, lb};
    int rc;
    if (b->tournament == 0) {
        /* Found again when a server stopped between making it and noting it. */
        int64_t tid = 0;
        rc = ladder_db_tournament_find(db, &ts, 0, &tid);
        if (rc == JA_ENOTFOUND)
            rc = ladder_db_tournament_create(db, &ts, &tid);
        if (rc != JA_OK) {
            arena_error("batch %" PRId64 ": %s", b->id, ladder_db_errmsg(db));
            return rc;
        }
        if ((rc = arena_serve_db_batch_set_tournament(s->sdb, b->id, tid)) != JA_OK)
            return rc;
        b->tournament = tid;
        srv_event_batch(s, b, "running");
    }
    uint32_t *pending = NULL, n_pending = 0;
    if ((rc = ladder_db_pending(db, b->tournament, &pending, &n_pending)) != JA_OK) {
        arena_error("batch %" PRId64 ": %s", b->id, ladder_db_errmsg(db));
        return rc;
    }
    free(pending);
    if (n_pending) {
        arena_exec_ctx xc = {a->game, a->options, a->move_ms, bots, names, s->replays_dir,
                             b->tournament, 0, {0}, specs, srv_live_hook(s->live)};
        arena_executor *x = NULL;
        uint32_t jobs = a->concurrency < n_pending ? a->concurrency : n_pending;
        if ((rc = arena_executor_threads_new(&xc, jobs, &x)) != JA_OK) {
            arena_error("batch %" PRId64 ": cannot start the executor: %s", b->id,
                        ja_strerror(rc));
            return rc;
        }
        play_ctx pc = {s, b, 0};
        rc = arena_tournament_play(db, b->tournament, x, &pc.stop, on_match, &pc, err, sizeof err);
        x->ops->destroy(x);
        if (rc != JA_OK) {
            arena_error("batch %" PRId64 ": %s", b->id, err);
            return rc;
        }
    }
    ladder_tournament_info ti;
    if ((rc = ladder_db_tournament_get(db, b->tournament, &ti)) != JA_OK)
        return rc;
    if (!ti.done)
        return JA_OK; /* stopped: resumed at the next start */
    return finish_batch(s, db, b);
}

/* Chooses the versions of the next batch (serve_util.h, the pairing rule)
 * among the active ones. JA_ENOTFOUND when fewer than seats are active. */
static int choose(arena_server *s, ladder_db *db, arena_serve_batch *b)
{
    arena_serve_version *act = NULL;
    uint32_t n = 0;
    int rc = arena_serve_db_versions(s->sdb, ARENA_V_ACTIVE, &act, &n);
    if (rc != JA_OK)
        return rc;
    n = srv_ext_filter(s, act, n); /* an external bot plays while connected */
    if (n < s->a->seats || s->a->seats > 16) {
        free(act);
        return JA_ENOTFOUND;
    }
    ladder_key key = {s->a->game->name, s->a->seats, s->opts_text};
    ladder_rating *r = NULL;
    uint32_t nr = 0;
    arena_pair_cand *c = calloc(n, sizeof *c);
    if (c == NULL || (rc = ladder_db_ratings(db, &key, &r, &nr)) != JA_OK) {
        free(c);
        free(act);
        return rc == JA_OK ? JA_ENOMEM : rc;
    }
    for (uint32_t i = 0; i < n; i++) {
        c[i] = (arena_pair_cand){act[i].id, 0, 1500.0};
        char ver[24];
        snprintf(ver, sizeof ver, "%" PRId64, act[i].number);
        for (uint32_t k = 0; k < nr; k++)
            if (strcmp(r[k].bot, act[i].author) == 0 && strcmp(r[k].version, ver) == 0) {
                c[i].games += r[k].games;
                c[i].elo = r[k].elo;
            }
    }
    uint32_t pick[16];
    arena_serve_pair(c, n, s->a->seats, pick);
    b->n = s->a->seats;
    for (uint32_t i = 0; i < b->n; i++)
        b->version[i] = act[pick[i]].id;
    free(r);
    free(c);
    free(act);
    return arena_serve_db_batch_add(s->sdb, s->seed, b);
}

static int scheduler(arena_server *s, ladder_db *db)
{
    bot_cache cache = {0};
    int status = JA_OK;
    while (!*s->stop) {
        uint64_t seen = srv_wake_count(s);
        arena_serve_batch b;
        int rc = arena_serve_db_batch_unfinished(s->sdb, &b);
        if (rc == JA_ENOTFOUND)
            rc = choose(s, db, &b);
        if (rc == JA_ENOTFOUND) {
            srv_wait(s, seen);
            continue;
        }
        int ready = rc == JA_OK ? srv_ext_ready(s, &b) : SRV_EXT_READY;
        if (ready == SRV_EXT_WAIT) {
            srv_wait(s, seen);
            continue;
        }
        if (ready == SRV_EXT_GIVE_UP) {
            int64_t none[16] = {0};
            if (!s->a->quiet)
                fprintf(stderr, "arena serve: batch %" PRId64 " given up: an external bot of it "
                                "stayed away, or its version was retired\n", b.id);
            rc = arena_serve_db_batch_done(s->sdb, &b, none);
            srv_event_batch(s, &b, "done");
        } else if (rc == JA_OK)
            rc = play_batch(s, db, &cache, &b);
        if (rc != JA_OK) {
            status = rc;
            break;
        }
    }
    cache_free(&cache);
    return status;
}

/* ---- the run ------------------------------------------------------------------- */

static bool make_dir(const char *path)
{
    struct stat sb;
    if (mkdir(path, 0700) != 0 && errno != EEXIST) {
        arena_error("cannot create the folder '%s': %s", path, strerror(errno));
        return false;
    }
    if (lstat(path, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        arena_error("'%s' is not a folder", path);
        return false;
    }
    return true;
}

int arena_serve_run(const arena_serve_args *a)
{
    arena_server *s = calloc(1, sizeof *s);
    if (s == NULL) {
        arena_error("out of memory");
        return EXIT_RUNTIME;
    }
    s->a = a;
    s->stop = &g_stop;
    g_stop = 0;
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cond, NULL);
    pthread_mutex_init(&s->ladder_mu, NULL);
    ja_options_format(a->game, &a->options, s->opts_text, sizeof s->opts_text);
    int status = EXIT_USAGE;
    char err[1400];
    ladder_db *db = NULL;
    arena_db_lock lock = {.fd = -1};
    bool validator_started = false;
    pthread_t vt;

    if (srv_live_new(a->game, a->live_delay, a->concurrency, &s->live) != JA_OK) {
        arena_error("out of memory");
        goto out;
    }
    if (!make_dir(a->data_dir))
        goto out;
    if (realpath(a->data_dir, s->data) == NULL) {
        arena_error("cannot resolve the data folder '%s': %s", a->data_dir, strerror(errno));
        goto out;
    }
    snprintf(s->bots_dir, sizeof s->bots_dir, "%s/bots", s->data);
    snprintf(s->replays_dir, sizeof s->replays_dir, "%s/replays", s->data);
    snprintf(s->pages_dir, sizeof s->pages_dir, "%s/pages", s->data);
    snprintf(s->tmp_dir, sizeof s->tmp_dir, "%s/tmp", s->data);
    if (!make_dir(s->bots_dir) || !make_dir(s->replays_dir) || !make_dir(s->pages_dir) ||
        !make_dir(s->tmp_dir))
        goto out;
    /* One writer at a time in the ladder database (db_lock.h): this server
     * for as long as it runs. */
    if ((status = arena_db_lock_open(a->db_path, &lock, &db)) != EXIT_OK)
        goto out;
    status = EXIT_USAGE;
    int rc;
    char sdb_path[4300];
    snprintf(sdb_path, sizeof sdb_path, "%s/serve.db", s->data);
    if (arena_serve_db_open(sdb_path, &s->sdb, err, sizeof err) != JA_OK ||
        arena_serve_db_seed(s->sdb, a->have_seed, a->seed, &s->seed, err, sizeof err) != JA_OK) {
        arena_error("%s", err);
        goto out;
    }
    struct sigaction sa = {0}, old_int, old_term, old_pipe, ign = {0};
    sa.sa_handler = on_signal;
    ign.sa_handler = SIG_IGN;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    sigaction(SIGPIPE, &ign, &old_pipe);
    if (srv_ext_start(s, err, sizeof err) != JA_OK ||
        srv_http_start(s, err, sizeof err) != JA_OK) {
        arena_error("%s", err);
        goto restore;
    }
    status = EXIT_RUNTIME;
    if (pthread_create(&vt, NULL, validator, s) != 0) {
        arena_error("cannot start the validator thread");
        goto restore;
    }
    validator_started = true;
    if (!a->quiet)
        fprintf(stderr, "arena serve: %s (%u seats, %s) on http://%s%s%s:%u/, ladder %s, data %s\n",
                a->game->name, a->seats, s->opts_text[0] ? s->opts_text : "no options",
                a->v6 ? "[" : "", a->host, a->v6 ? "]" : "", (unsigned)a->port, a->db_path,
                s->data);
    if (!a->quiet && s->ext)
        srv_ext_note(s);
    rc = scheduler(s, db);
    status = rc == JA_OK ? EXIT_OK : EXIT_RUNTIME;
restore:
    g_stop = 1;
    srv_event(s, NULL); /* wakes the validator and the event streams */
    if (validator_started)
        pthread_join(vt, NULL);
    if (s->failed)
        status = EXIT_RUNTIME;
    srv_http_stop(s);
    srv_ext_stop(s);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    sigaction(SIGPIPE, &old_pipe, NULL);
    if (!a->quiet && status == EXIT_OK)
        fprintf(stderr, "arena serve: stopped\n");
out:
    arena_serve_db_close(&s->sdb);
    srv_live_free(&s->live);
    ladder_db_close(&db);
    arena_db_lock_release(&lock);
    for (int i = 0; i < SRV_EVENT_RING; i++)
        free(s->ev[i]);
    pthread_cond_destroy(&s->cond);
    pthread_mutex_destroy(&s->ladder_mu);
    free(s->ladder_text);
    pthread_mutex_destroy(&s->mu);
    free(s);
    return status;
}
