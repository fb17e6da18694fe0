/* `arena serve` (serve.h): the events, the validation worker, the
 * scheduler and the run. The HTTP side is serve_http.c. */
#include "serve/serve_int.h"
#include "serve/serve_live.h"
#include "serve/serve_ext.h"

#include "serve/serve_conn.h"

#include "run/botspec.h"
#include "core/db_lock.h"
#include "run/executor.h"
#include "run/repro.h"
#include "run/tournament.h"
#include "core/util.h"

#include "elf_check.h"
#include "jackarena/ja_error.h"
#include "jackarena/ja_rng.h"
#include "seat.h"
#include "ja_xalloc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SRV_STREAM_SMOKE JA_TAG('S', 'R', 'V', 'S')

static volatile sig_atomic_t g_stop;

/* The stop flag (g_stop) is set by the signal handler and by the server's
 * threads, and read by all of them: through atomic loads and stores
 * (lock-free on an int, so safe in a signal handler too), since a volatile
 * alone orders nothing between threads (scripts/tsan.sh found the race).
 * Release and acquire: a thread that stops the server on an error sets
 * failed and fail_line first, and whoever sees the flag sees them. */
static bool stopping(const arena_server *s)
{
    return __atomic_load_n(s->stop, __ATOMIC_ACQUIRE) != 0;
}

static void set_stop(volatile sig_atomic_t *flag, int v)
{
    __atomic_store_n(flag, v, __ATOMIC_RELEASE);
}

static void on_signal(int sig)
{
    (void)sig;
    set_stop(&g_stop, 1);
}

/* Waits until woken or about a second has passed; returns at once when
 * stopping. */
static void srv_wait(arena_server *s, uint64_t seen)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += 1;
    pthread_mutex_lock(&s->mu);
    while (s->wake == seen && !stopping(s) &&
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

/* After the n-th failure in a row: waits 1, 2, 4 ... up to 60 s, or until
 * the server stops, so that an error that persists (a full disk, a broken
 * database) neither spins nor floods the log. */
static void srv_backoff(arena_server *s, uint32_t n)
{
    uint32_t secs = n >= 7 ? 60 : 1u << (n ? n - 1 : 0);
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += secs;
    pthread_mutex_lock(&s->mu);
    while (!stopping(s) && pthread_cond_timedwait(&s->cond, &s->mu, &ts) != ETIMEDOUT) {
    }
    pthread_mutex_unlock(&s->mu);
}

/* Removes what a public reason must not show (pages and the API show it
 * to anyone): the data folder's path before a file (shown by its name in
 * that folder), and the ladder database's path (shown by its file name). */
static void public_text(const arena_server *s, char *text)
{
    const char *db = s->a->db_path, *base = strrchr(db, '/');
    base = base ? base + 1 : db;
    for (int pass = 0; pass < 2; pass++) {
        const char *cut = pass ? db : s->data;
        size_t n = strlen(cut), keep = pass ? (size_t)(base - db) : 0;
        char *p;
        if (n == 0 || (pass && keep == 0))
            continue;
        while ((p = strstr(text, cut)) != NULL) {
            size_t skip = pass ? keep : n + (p[n] == '/');
            memmove(p, p + skip, strlen(p + skip) + 1);
        }
    }
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
    for (uint32_t i = 0; i < a->smoke && !stopping(s); i++) {
        arena_job job = {i, arena_serve_seed(s->seed, SRV_STREAM_SMOKE, (uint64_t)v->id * 1024 + i),
                         a->seats, {0}};
        uint32_t seat = i % a->seats;
        for (uint32_t k = 0; k < a->seats; k++)
            job.slot[k] = k == seat ? 0 : 1;
        arena_job_result *r = ja_xcalloc(1, sizeof *r);
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
    if (stopping(s))
        return JA_EAGAIN;
    if (total) {
        snprintf(why, cap, "%" PRIu64 " fault%s in %u smoke matches against random (none allowed)",
                 total, total == 1 ? "" : "s", a->smoke);
        return JA_EBOT;
    }
    return JA_OK;
}

/* Validation passed: v becomes the author's active version, replacing
 * the author's older ones (docs/server.md, "Versions"). */
static void activate(arena_server *s, const arena_serve_version *v, const char *report)
{
    char status[16];
    int64_t retired[64];
    uint32_t n = 0;
    if (arena_serve_db_version_activate(s->sdb, v->id, report, status, retired, 64, &n) !=
        JA_OK) {
        s->validate_failures++;
        return;
    }
    if (!status[0])
        return; /* retired by its author meanwhile */
    char why[64];
    snprintf(why, sizeof why, "replaced by version %" PRId64, v->number);
    for (uint32_t i = 0; i < n; i++)
        srv_event_version(s, v->author, retired[i], ARENA_V_RETIRED, why);
    if (n)
        srv_ext_sync(s); /* a replaced external version's key is refused from now on */
    if (strcmp(status, ARENA_V_ACTIVE) == 0)
        srv_event_version(s, v->author, v->number, ARENA_V_ACTIVE, NULL);
    else
        srv_event_version(s, v->author, v->number, status, "a newer version is active");
}

/* A step of a validation report: its name and whether it passed. */
static void report_step(json_t *steps, const char *name, bool ok)
{
    json_array_append_new(steps, json_pack("{ss ss}", "step", name, "result",
                                           ok ? "ok" : "failed"));
}

/* The bot to validate: an external version's (connected: the hub's,
 * borrowed), or the plugin checked as an ELF file and probed in the
 * sandbox with its parameters (the bot's check_params). NULL with why
 * when it cannot be had; each step in the report. */
static ref_bot *candidate(arena_server *s, const arena_serve_version *v, json_t *steps, char *why,
                          size_t cap)
{
    ref_bot *cand = NULL;
    char err[1200], path[4400];
    if (srv_ext_is(v)) { /* its bot is connected (next_to_validate) */
        bool ok = srv_ext_bot(s, v, &cand, err, sizeof err) == JA_OK;
        if (!ok)
            snprintf(why, cap, "its bot is not connected: %s", err);
        report_step(steps, "hello", ok);
        return ok ? cand : NULL;
    }
    /* The messages name the stored file by its hash, never by its path. */
    version_path(s, v, path, sizeof path);
    if (ref_elf_check(path, err, sizeof err) != JA_OK) {
        snprintf(why, cap, "not a plugin for this server: %s", err);
        report_step(steps, "elf", false);
        return NULL;
    }
    report_step(steps, "elf", true);
    /* The probe child loads the plugin and, with parameters, has the bot
     * check them (its check_params) before anything is played. */
    int rc = ref_bot_hosted_open(path, v->params[0] ? v->params : NULL, &cand, err, sizeof err);
    /* JA_EINVAL is the bot's refusal, its reason alone in err (seat.h),
     * unless a JACKARENA_HOSTED_* limit of the server's is bad. */
    if (rc == JA_EINVAL && v->params[0] && strncmp(err, "JACKARENA_HOSTED_", 17) != 0) {
        snprintf(why, cap, "refuses its parameters '%s': %s", v->params, err);
        report_step(steps, "load", true);
        report_step(steps, "params", false);
        return NULL;
    }
    if (rc != JA_OK) {
        snprintf(why, cap, "does not load in the sandbox: %s", err);
        report_step(steps, "load", false);
        return NULL;
    }
    report_step(steps, "load", true);
    if (v->params[0])
        report_step(steps, "params", true);
    return cand;
}

/* The outcome of a validation: active (activate), or rejected with why;
 * the report stored with it (made text here). */
static void validated(arena_server *s, const arena_serve_version *v, const char *status,
                      char *why, json_t *rep)
{
    public_text(s, why);
    json_object_set_new(rep, "result", json_string(status));
    json_object_set_new(rep, "reason", json_string(why));
    char *text = json_dumps(rep, JSON_COMPACT);
    if (strcmp(status, ARENA_V_ACTIVE) == 0) {
        activate(s, v, text);
    } else {
        bool changed = false;
        if (arena_serve_db_version_set(s->sdb, v->id, status, why, text, ARENA_V_VALIDATING,
                                       &changed) != JA_OK)
            s->validate_failures++;
        if (changed)
            srv_event_version(s, v->author, v->number, status, why);
    }
    free(text);
}

/* Validates one version (docs/server.md, "Validation"): the bot, the game,
 * the smoke matches; the status it gets, with its reason and report. */
static void validate(arena_server *s, const arena_serve_version *v, ref_bot *random)
{
    char why[1400] = "";
    json_t *rep = json_object(), *steps = json_array(), *sm = json_array();
    json_object_set_new(rep, "steps", steps);
    json_object_set_new(rep, "smoke", sm);
    const char *status = ARENA_V_REJECTED;
    ref_bot *cand = candidate(s, v, steps, why, sizeof why);
    int rc = JA_OK;
    if (cand && !ref_bot_supports(cand, s->a->game)) {
        snprintf(why, sizeof why, "does not play %s", s->a->game->name);
        report_step(steps, "supports", false);
    } else if (cand) {
        report_step(steps, "supports", true);
        rc = smoke(s, v, cand, random, sm, why, sizeof why);
        if (rc != JA_EAGAIN) /* stopping: validated again at the next start */
            report_step(steps, "smoke", rc == JA_OK);
        if (rc == JA_OK)
            status = ARENA_V_ACTIVE;
    }
    if (!srv_ext_is(v))
        ref_bot_destroy(&cand); /* an external one is the hub's */
    if (rc != JA_EAGAIN)
        validated(s, v, status, why, rep);
    json_decref(rep);
}

/* The next version to validate (docs/server.md, "Validation"): the
 * authors take turns (arena_serve_fair_next), each author's versions
 * oldest first; an external version only while its bot is connected. */
static int next_to_validate(arena_server *s, int64_t last_author, arena_serve_version *out)
{
    arena_serve_version *v = NULL;
    uint32_t n = 0;
    int rc = arena_serve_db_versions(s->sdb, ARENA_V_VALIDATING, &v, &n);
    if (rc != JA_OK)
        return rc;
    int64_t *author = ja_xmalloc(n * sizeof *author);
    bool *ok = ja_xmalloc(n * sizeof *ok);
    for (uint32_t i = 0; i < n; i++) {
        author[i] = v[i].author_id;
        ok[i] = !srv_ext_is(&v[i]) || srv_ext_connected(s, &v[i]);
    }
    int k = arena_serve_fair_next(author, ok, n, last_author);
    rc = JA_ENOTFOUND;
    if (k >= 0) {
        *out = v[k];
        rc = JA_OK;
    }
    free(author);
    free(ok);
    free(v);
    return rc;
}

static void *validator(void *arg)
{
    arena_server *s = arg;
    char path[4200], err[1200];
    snprintf(path, sizeof path, "%s/ja_random.so", arena_bots_dir());
    ref_bot *random = NULL;
    if (ref_bot_plugin_open(path, NULL, &random, err, sizeof err) != JA_OK) {
        snprintf(s->fail_line, sizeof s->fail_line,
                 "the validator needs the reference bot random: %s", err);
        s->failed = true;
        set_stop(s->stop, 1);
        srv_event(s, NULL);
        return NULL;
    }
    int64_t last_author = 0;
    while (!stopping(s)) {
        uint64_t seen = srv_wake_count(s);
        arena_serve_version v;
        uint32_t failures = s->validate_failures;
        int rc = next_to_validate(s, last_author, &v);
        if (rc == JA_OK) {
            last_author = v.author_id;
            validate(s, &v, random);
        }
        if (rc != JA_OK && rc != JA_ENOTFOUND)
            s->validate_failures++;
        /* A database that cannot be read or written: the same version
         * would come again at once; wait, longer each time. */
        if (s->validate_failures != failures)
            srv_backoff(s, s->validate_failures);
        else if (rc != JA_OK)
            srv_wait(s, seen);
        else
            s->validate_failures = 0;
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
    if (ref_bot_hosted_open(path, v->params[0] ? v->params : NULL, &b, err, cap) != JA_OK)
        return NULL;
    c->id[c->n] = v->id;
    c->bot[c->n++] = b;
    return b;
}

/* Forgets the bot of version id (after a failed batch: a fresh one next). */
static void cache_drop(bot_cache *c, int64_t id)
{
    for (uint32_t i = 0; i < c->n; i++)
        if (c->id[i] == id) {
            ref_bot_destroy(&c->bot[i]);
            memmove(c->id + i, c->id + i + 1, (c->n - i - 1) * sizeof c->id[0]);
            memmove(c->bot + i, c->bot + i + 1, (c->n - i - 1) * sizeof c->bot[0]);
            c->n--;
            return;
        }
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

/* After each recorded match (in the scheduler's thread): a `match` event,
 * at most one a SRV_MATCH_EVENT_MS; a match recorded meanwhile is counted
 * into the next one's `matches` (docs/server.md, "HTTP API"), so that a
 * fast ladder does not send every spectator hundreds of events a second. */
static void on_match(void *ctx, uint32_t done, uint32_t total)
{
    play_ctx *p = ctx;
    arena_server *s = p->s;
    p->stop = stopping(s) || srv_ext_ready(s, p->b) != SRV_EXT_READY;
    s->match_events_held++;
    int64_t now = srv_now_ms();
    if (now - s->match_event_ms < SRV_MATCH_EVENT_MS)
        return;
    srv_event(s, json_pack("{ss sI sI si si sI}", "type", "match", "batch", (json_int_t)p->b->id,
                           "tournament", (json_int_t)p->b->tournament, "done", (int)done, "total",
                           (int)total, "matches", (json_int_t)s->match_events_held));
    s->match_events_held = 0;
    s->match_event_ms = now;
}

/* The faults of each version of batch b in its recorded matches (every
 * kind but the forfeit count): faults[i] in all, kinds[i] by kind. */
static int batch_faults(ladder_db *db, const arena_serve_batch *b, int64_t faults[16],
                        uint64_t kinds[16][JA_FAULT_COUNT])
{
    memset(kinds, 0, 16 * sizeof kinds[0]);
    for (uint32_t i = 0; i < b->n; i++) {
        faults[i] = 0;
        if (b->tournament == 0)
            continue;
        if (ladder_db_slot_faults(db, b->tournament, i, kinds[i]) != JA_OK)
            return JA_EDB;
        for (int f = 1; f < JA_FAULT_COUNT; f++)
            if (f != JA_FAULT_FORFEIT)
                faults[i] += (int64_t)kinds[i][f];
    }
    return JA_OK;
}

/* After a batch: its faults added to its versions, the batch ended (done,
 * or failed with reason), a version past the fault limit suspended. */
static int end_batch(arena_server *s, ladder_db *db, const arena_serve_batch *b,
                     const char *reason, bool count)
{
    int64_t faults[16] = {0};
    uint64_t kinds[16][JA_FAULT_COUNT];
    int rc = count ? batch_faults(db, b, faults, kinds) : JA_EAGAIN;
    if (rc != JA_OK && reason == NULL) {
        arena_error("batch %" PRId64 ": its faults cannot be read: %s", b->id,
                    ladder_db_errmsg(db));
        return rc;
    }
    /* A failed batch whose faults cannot be read counts none. */
    bool counted = rc == JA_OK;
    rc = reason ? arena_serve_db_batch_fail(s->sdb, b, reason, counted ? faults : NULL)
                : arena_serve_db_batch_done(s->sdb, b, faults);
    if (rc != JA_OK)
        return rc;
    srv_event_batch(s, b, reason ? "failed" : "done", reason);
    for (uint32_t i = 0; counted && i < b->n; i++) {
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

/* What a batch is played with: its versions, their bots and names. */
typedef struct batch_bots {
    arena_serve_version v[16];
    char ver[16][24], spec[16][4600], name[16][ARENA_SERVE_NAME_MAX + 24];
    ladder_bot lb[16];
    ref_bot *bots[16];
    const char *names[16], *specs[16];
} batch_bots;

/* The bots of batch b into bb. JA_OK; JA_EAGAIN when an external bot of it
 * went away (the scheduler waits again); another error with why. */
static int batch_open(arena_server *s, bot_cache *cache, const arena_serve_batch *b,
                      batch_bots *bb, char *why, size_t cap)
{
    char err[1400];
    for (uint32_t i = 0; i < b->n; i++) {
        arena_serve_version *v = &bb->v[i];
        if (arena_serve_db_version_get(s->sdb, b->version[i], v) != JA_OK) {
            snprintf(why, cap, "version %" PRId64 " is not in the server database",
                     b->version[i]);
            return JA_ENOTFOUND;
        }
        for (uint32_t j = 0; j < i; j++)
            if (bb->v[j].author_id == v->author_id) {
                snprintf(why, cap, "versions %" PRId64 " and %" PRId64 " are both %s's: two "
                         "versions of one author never meet", bb->v[j].number, v->number,
                         v->author);
                return JA_EINVAL;
            }
        snprintf(bb->ver[i], sizeof bb->ver[i], "%" PRId64, v->number);
        snprintf(bb->name[i], sizeof bb->name[i], "%s@%" PRId64, v->author, v->number);
        bb->names[i] = bb->name[i];
        bb->specs[i] = bb->spec[i];
        if (srv_ext_is(v)) { /* the hub's participant, borrowed */
            snprintf(bb->spec[i], sizeof bb->spec[i], "zmq:%s", v->author);
            bb->lb[i] = (ladder_bot){v->author, bb->ver[i], "zmq", bb->spec[i], NULL};
            if (srv_ext_bot(s, v, &bb->bots[i], err, sizeof err) != JA_OK)
                return JA_EAGAIN; /* gone since srv_ext_ready */
            continue;
        }
        snprintf(bb->spec[i], sizeof bb->spec[i], "hosted:%s/%s%s%s", s->data, v->file,
                 v->params[0] ? ":" : "", v->params);
        bb->lb[i] = (ladder_bot){v->author, bb->ver[i], "hosted", bb->spec[i], v->sha256};
        bb->bots[i] = cache_get(s, cache, v, err, sizeof err);
        if (bb->bots[i] == NULL) {
            /* A file that loaded in validation and no longer does: the
             * version cannot play, whatever batch it is in. */
            bool changed = false;
            char w[1600];
            snprintf(w, sizeof w, "no longer loads: %s", err);
            public_text(s, w);
            arena_serve_db_version_set(s->sdb, v->id, ARENA_V_SUSPENDED, w, NULL, ARENA_V_ACTIVE,
                                       &changed);
            if (changed)
                srv_event_version(s, v->author, v->number, ARENA_V_SUSPENDED, w);
            snprintf(why, cap, "%s version %" PRId64 " no longer loads: %s", v->author,
                     v->number, err);
            return JA_ENOTFOUND;
        }
    }
    return JA_OK;
}

/* Batch b's tournament in the ladder database: made (or found again, when
 * a server stopped between making it and noting it) for a new batch,
 * checked to be the one planned for a resumed one. JA_OK, or an error with
 * why. */
static int batch_tournament(arena_server *s, ladder_db *db, arena_serve_batch *b,
                            batch_bots *bb, char *why, size_t cap)
{
    const arena_serve_args *a = s->a;
    uint32_t rounds = (a->concurrency + a->seats - 1) / a->seats;
    if (rounds < a->rounds)
        rounds = a->rounds;
    /* Fresh deals (duplicate off): every match is dealt its own cards, so
     * nothing of a deal is public while another match plays it, and no bot
     * meets a deal twice (docs/server.md, "Deals"); the rotations still
     * give every version every seat. */
    ladder_tournament_spec ts = {{a->game->name, a->seats, s->opts_text},
                                 b->seed, LADDER_FORMAT_ROUND_ROBIN, rounds ? rounds : 1,
                                 false, b->n, bb->lb, a->seating, NULL, 0};
    int64_t tid = 0;
    int rc;
    if (b->tournament != 0) {
        /* Resumed: its tournament must be this ladder's, with these bots,
         * of the seating it was planned with (--seating may have changed,
         * or it was planned before balanced seating). */
        if ((rc = ladder_db_tournament_find(db, &ts, LADDER_FIND_ANY_SEATING, &tid)) == JA_OK &&
            tid == b->tournament)
            return JA_OK;
        snprintf(why, cap, "its tournament %" PRId64 " is not in the ladder database as "
                 "planned (another --db, or --seats, --opt or --rounds changed since?)",
                 b->tournament);
        return rc == JA_OK || rc == JA_ENOTFOUND ? JA_EINVAL : rc;
    }
    rc = ladder_db_tournament_find(db, &ts, LADDER_FIND_ANY_SEATING, &tid);
    if (rc == JA_ENOTFOUND)
        rc = ladder_db_tournament_create(db, &ts, &tid);
    if (rc != JA_OK) {
        snprintf(why, cap, "its tournament cannot be stored: %s", ladder_db_errmsg(db));
        return rc;
    }
    if ((rc = arena_serve_db_batch_set_tournament(s->sdb, b->id, tid)) != JA_OK) {
        snprintf(why, cap, "the server database cannot note its tournament");
        return rc;
    }
    b->tournament = tid;
    srv_event_batch(s, b, "running", NULL);
    return JA_OK;
}

/* Plays (or resumes) one batch to its end, or until stopped. JA_OK (ended,
 * or stopped to be resumed at the next start, or waiting for an external
 * bot); another error with why, the batch untouched. */
static int play_batch(arena_server *s, ladder_db *db, bot_cache *cache, arena_serve_batch *b,
                      char *why, size_t cap)
{
    const arena_serve_args *a = s->a;
    batch_bots *bb = ja_xcalloc(1, sizeof *bb);
    int rc = batch_open(s, cache, b, bb, why, cap);
    if (rc != JA_OK) {
        free(bb);
        return rc == JA_EAGAIN ? JA_OK : rc;
    }
    if ((rc = batch_tournament(s, db, b, bb, why, cap)) != JA_OK)
        goto out;
    uint32_t *pending = NULL, n_pending = 0;
    if ((rc = ladder_db_pending(db, b->tournament, &pending, &n_pending)) != JA_OK) {
        snprintf(why, cap, "its pending matches cannot be read: %s", ladder_db_errmsg(db));
        goto out;
    }
    free(pending);
    if (n_pending) {
        arena_exec_ctx xc = {a->game, a->options, a->move_ms, bb->bots, bb->names,
                             s->replays_dir, b->tournament, 0, {0}, bb->specs,
                             srv_live_hook(s->live)};
        arena_executor *x = NULL;
        uint32_t jobs = a->concurrency < n_pending ? a->concurrency : n_pending;
        if ((rc = arena_executor_threads_new(&xc, jobs, &x)) != JA_OK) {
            snprintf(why, cap, "cannot start the executor: %s", ja_strerror(rc));
            goto out;
        }
        play_ctx pc = {s, b, 0};
        char err[1400];
        rc = arena_tournament_play(db, b->tournament, x, &pc.stop, on_match, &pc, err,
                                   sizeof err);
        x->ops->destroy(x);
        if (rc != JA_OK) {
            snprintf(why, cap, "%s", err);
            goto out;
        }
    }
    ladder_tournament_info ti;
    if ((rc = ladder_db_tournament_get(db, b->tournament, &ti)) != JA_OK) {
        snprintf(why, cap, "its tournament cannot be read: %s", ladder_db_errmsg(db));
        goto out;
    }
    if (ti.done && (rc = end_batch(s, db, b, NULL, true)) != JA_OK)
        snprintf(why, cap, "it cannot be marked done: %s", ladder_db_errmsg(db));
out:
    free(bb);
    return rc;
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
    if ((rc = ladder_db_ratings(db, &key, &r, &nr)) != JA_OK) {
        free(act);
        return rc;
    }
    arena_pair_cand *c = ja_xcalloc(n, sizeof *c);
    for (uint32_t i = 0; i < n; i++) {
        c[i] = (arena_pair_cand){act[i].id, act[i].author_id, 0, 1500.0};
        char ver[24];
        snprintf(ver, sizeof ver, "%" PRId64, act[i].number);
        for (uint32_t k = 0; k < nr; k++)
            if (strcmp(r[k].bot, act[i].author) == 0 && strcmp(r[k].version, ver) == 0) {
                c[i].games += r[k].games;
                c[i].elo = r[k].elo;
            }
    }
    uint32_t pick[16];
    if (arena_serve_pair(c, n, s->a->seats, pick)) {
        b->n = s->a->seats;
        for (uint32_t i = 0; i < b->n; i++)
            b->version[i] = act[pick[i]].id;
        rc = arena_serve_db_batch_add(s->sdb, s->seed, b);
    } else {
        rc = JA_ENOTFOUND; /* fewer authors than seats */
    }
    free(r);
    free(c);
    free(act);
    return rc;
}

/* Whether a failed attempt at a batch may go better another time (a busy
 * or failing database, memory): tried SRV_BATCH_TRIES times in all. */
#define SRV_BATCH_TRIES 3
static bool transient(int rc)
{
    return rc == JA_EBUSY || rc == JA_EDB || rc == JA_EIO || rc == JA_ENOMEM;
}

/* Fails batch b with why: logged, ended with its reason (shown on its
 * bots' pages and in the API; its faults counted when `count`), its bots
 * loaded afresh next time. */
static void fail_batch(arena_server *s, ladder_db *db, bot_cache *cache, arena_serve_batch *b,
                       char *why, bool count)
{
    arena_error("batch %" PRId64 " failed: %s", b->id, why);
    public_text(s, why);
    for (uint32_t i = 0; i < b->n; i++)
        cache_drop(cache, b->version[i]);
    if (end_batch(s, db, b, why, count) != JA_OK)
        arena_error("batch %" PRId64 ": the server database cannot note its failure", b->id);
}

/* Plays batches until the server stops. Nothing a batch meets stops it
 * (docs/server.md, "Scheduler"): an error fails that batch, with its
 * reason, and the next is chosen; errors in a row wait longer each time. */
static void scheduler(arena_server *s, ladder_db *db)
{
    bot_cache cache = {0};
    uint32_t failures = 0, tries = 0;
    int64_t tried = 0;
    while (!stopping(s)) {
        uint64_t seen = srv_wake_count(s);
        arena_serve_batch b;
        char why[1600] = "";
        int rc = arena_serve_db_batch_unfinished(s->sdb, &b);
        if (rc == JA_ENOTFOUND)
            rc = choose(s, db, &b);
        if (rc == JA_ENOTFOUND) {
            srv_wait(s, seen);
            continue;
        }
        if (rc != JA_OK) { /* no batch to blame: the databases cannot be read */
            arena_error("the scheduler cannot choose a batch: %s", ja_strerror(rc));
            srv_backoff(s, ++failures);
            continue;
        }
        int ready = srv_ext_ready(s, &b);
        if (ready == SRV_EXT_WAIT) {
            srv_wait(s, seen);
            continue;
        }
        if (ready == SRV_EXT_GIVE_UP) {
            snprintf(why, sizeof why, "given up: an external bot of it stayed away, or its "
                                      "version was retired");
            fail_batch(s, db, &cache, &b, why, false); /* a dropped connection, not play */
            continue;
        }
        rc = play_batch(s, db, &cache, &b, why, sizeof why);
        if (rc == JA_OK) {
            failures = 0;
            continue;
        }
        if (b.id != tried) {
            tried = b.id;
            tries = 0;
        }
        if (++tries < SRV_BATCH_TRIES && transient(rc) && !stopping(s)) {
            arena_error("batch %" PRId64 ": attempt %u of %u failed: %s", b.id, tries,
                        SRV_BATCH_TRIES, why);
            srv_backoff(s, tries);
            continue;
        }
        fail_batch(s, db, &cache, &b, why, true);
        srv_backoff(s, ++failures);
    }
    cache_free(&cache);
}

/* ---- the run ------------------------------------------------------------------- */

/* The folder at path, made when missing. */
static int make_dir(const char *path, char *err, size_t cap)
{
    struct stat sb;
    if (mkdir(path, 0700) != 0 && errno != EEXIST) {
        snprintf(err, cap, "cannot create the folder '%s': %s", path, strerror(errno));
        return JA_EIO;
    }
    if (lstat(path, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        snprintf(err, cap, "'%s' is not a folder", path);
        return JA_EINVAL;
    }
    return JA_OK;
}

/* The replay pages of servers before this one inlined the viewer's script,
 * which the pages' policy now forbids (docs/server.md, "Security"), or may
 * hold the bots' logs (docs/server.md, "Bot logs"): they are made again
 * from their replays, on their next request. The marker says the folder
 * holds only pages that load /matches/replay.js and hold no log. */
static void pages_refresh(const char *dir)
{
    char marker[4300];
    snprintf(marker, sizeof marker, "%s/.shared-script-no-logs", dir);
    struct stat sb;
    if (lstat(marker, &sb) == 0)
        return;
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n > 5 && strcmp(e->d_name + n - 5, ".html") == 0)
            unlinkat(dirfd(d), e->d_name, 0);
    }
    if (d)
        closedir(d);
    int fd = open(marker, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd >= 0)
        close(fd);
}

/* Open files enough for every connection the flags allow (sockets, idle
 * ones too), the matches' hosted children (a socket and a pipe each, and
 * idle children kept for reuse) and the rest (databases, ZeroMQ, replays):
 * the soft limit is raised to that when the hard one allows. */
static int open_files(const arena_serve_args *a, char *err, size_t cap)
{
    rlim_t need = (rlim_t)a->max_clients + a->max_streams + 64 +
                  (rlim_t)a->concurrency * a->seats * 8 + 256;
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur >= need)
        return JA_OK;
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need) {
        snprintf(err, cap,
                 "--max-clients %u and --max-streams %u need about %llu open files, and this "
                 "process may open %llu (ulimit -Hn): lower them, or raise the limit",
                 a->max_clients, a->max_streams, (unsigned long long)need,
                 (unsigned long long)rl.rlim_max);
        return JA_ERANGE;
    }
    rl.rlim_cur = need;
    if (setrlimit(RLIMIT_NOFILE, &rl) == 0)
        return JA_OK;
    snprintf(err, cap, "cannot raise the open-files limit to %llu: %s", (unsigned long long)need,
             strerror(errno));
    return JA_ERANGE;
}

/* The server's shared state, before anything is opened. */
static arena_server *server_new(const arena_serve_args *a)
{
    arena_server *s = ja_xcalloc(1, sizeof *s);
    s->a = a;
    s->stop = &g_stop;
    set_stop(&g_stop, 0);
    s->lock = (arena_db_lock){.fd = -1};
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cond, NULL);
    pthread_mutex_init(&s->ladder_mu, NULL);
    ja_options_format(a->game, &a->options, s->opts_text, sizeof s->opts_text);
    return s;
}

static void server_free(arena_server *s)
{
    arena_serve_db_close(&s->sdb);
    srv_live_free(&s->live);
    for (int i = 0; i < SRV_EVENT_RING; i++)
        free(s->ev[i]);
    pthread_cond_destroy(&s->cond);
    pthread_mutex_destroy(&s->ladder_mu);
    free(s->ladder_text);
    pthread_mutex_destroy(&s->mu);
    free(s);
}

/* The data folder and its subfolders, made when missing. */
static int server_folders(arena_server *s, char *err, size_t cap)
{
    const arena_serve_args *a = s->a;
    int rc = make_dir(a->data_dir, err, cap);
    if (rc != JA_OK)
        return rc;
    if (realpath(a->data_dir, s->data) == NULL) {
        snprintf(err, cap, "cannot resolve the data folder '%s': %s", a->data_dir,
                 strerror(errno));
        return JA_EIO;
    }
    snprintf(s->bots_dir, sizeof s->bots_dir, "%s/bots", s->data);
    snprintf(s->replays_dir, sizeof s->replays_dir, "%s/replays", s->data);
    snprintf(s->pages_dir, sizeof s->pages_dir, "%s/pages", s->data);
    snprintf(s->tmp_dir, sizeof s->tmp_dir, "%s/tmp", s->data);
    const char *sub[] = {s->bots_dir, s->replays_dir, s->pages_dir, s->tmp_dir};
    for (int i = 0; i < 4 && rc == JA_OK; i++)
        rc = make_dir(sub[i], err, cap);
    if (rc == JA_OK)
        pages_refresh(s->pages_dir);
    return rc;
}

/* The two databases: the ladder's, locked for as long as the server runs
 * (one writer at a time, db_lock.h), and the server's with its seed. The
 * ladder's failures keep their codes (serve.h says whose they are); the
 * server's database is of the data folder, whose failures are the user's
 * (JA_EIO). */
static int server_databases(arena_server *s, char *err, size_t cap)
{
    const arena_serve_args *a = s->a;
    char sdb_path[4300];
    int rc = arena_db_lock_open(a->db_path, &s->lock, &s->db, err, cap);
    if (rc != JA_OK)
        return rc == JA_EIO || rc == JA_EVERSION || rc == JA_EFORMAT || rc == JA_EBUSY ? rc
                                                                                     : JA_EDB;
    snprintf(sdb_path, sizeof sdb_path, "%s/serve.db", s->data);
    if (arena_serve_db_open(sdb_path, &s->sdb, err, cap) != JA_OK ||
        arena_serve_db_seed(s->sdb, a->have_seed, a->seed, &s->seed, err, cap) != JA_OK)
        return JA_EIO;
    return JA_OK;
}

/* The server's first lines on standard error: where it listens. */
static void server_note(const arena_server *s)
{
    const arena_serve_args *a = s->a;
    if (a->quiet)
        return;
    fprintf(stderr, "arena serve: %s (%u seats, %s) on http://%s%s%s:%u/, ladder %s, data %s\n",
            a->game->name, a->seats, s->opts_text[0] ? s->opts_text : "no options",
            a->v6 ? "[" : "", a->host, a->v6 ? "]" : "", (unsigned)a->port, a->db_path, s->data);
    if (s->ext)
        srv_ext_note((arena_server *)s);
}

/* SIGINT and SIGTERM stop the server; SIGPIPE is ignored (a client gone
 * mid-answer). The old actions are kept for server_signals_restore. */
static void server_signals(arena_server *s)
{
    struct sigaction sa = {0}, ign = {0};
    sa.sa_handler = on_signal;
    ign.sa_handler = SIG_IGN;
    sigaction(SIGINT, &sa, &s->old_int);
    sigaction(SIGTERM, &sa, &s->old_term);
    sigaction(SIGPIPE, &ign, &s->old_pipe);
    s->signals_set = true;
}

static void server_signals_restore(arena_server *s)
{
    if (!s->signals_set)
        return;
    sigaction(SIGINT, &s->old_int, NULL);
    sigaction(SIGTERM, &s->old_term, NULL);
    sigaction(SIGPIPE, &s->old_pipe, NULL);
    s->signals_set = false;
}

int arena_serve_prepare(arena_server **out, const arena_serve_args *a, char *err, size_t cap)
{
    arena_server *s = server_new(a);
    *out = s;
    err[0] = '\0';
    int rc = open_files(a, err, cap);
    if (rc != JA_OK)
        return rc;
    s->live = srv_live_new(a->game, a->live_delay, a->concurrency);
    if ((rc = server_folders(s, err, cap)) != JA_OK ||
        (rc = server_databases(s, err, cap)) != JA_OK)
        return rc;
    server_signals(s);
    rc = srv_ext_start(s, err, cap);
    if (rc == JA_OK)
        rc = srv_http_start(s, err, cap);
    return rc;
}

int arena_serve_run(arena_server *s, char *err, size_t cap)
{
    pthread_t vt;
    err[0] = '\0';
    if (pthread_create(&vt, NULL, validator, s) != 0) {
        snprintf(err, cap, "cannot start the validator thread");
        return JA_EIO;
    }
    server_note(s);
    scheduler(s, s->db);
    set_stop(&g_stop, 1);
    srv_event(s, NULL); /* wakes the validator and the event streams */
    pthread_join(vt, NULL);
    if (s->failed) {
        snprintf(err, cap, "%s", s->fail_line);
        return JA_EBOT;
    }
    return JA_OK;
}

void arena_serve_close(arena_server **sp, bool stopped)
{
    arena_server *s = *sp;
    if (s == NULL)
        return;
    *sp = NULL;
    set_stop(&g_stop, 1);
    srv_event(s, NULL);
    srv_http_stop(s);
    srv_ext_stop(s);
    server_signals_restore(s);
    if (!s->a->quiet && stopped)
        fprintf(stderr, "arena serve: stopped\n");
    ladder_db_close(&s->db);
    arena_db_lock_release(&s->lock);
    server_free(s);
}
