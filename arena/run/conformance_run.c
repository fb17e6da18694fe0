/* Conformance of an external bot (conformance_run.h). */
#include "run/conformance_run.h"

#include "run/executor.h"
#include "run/extbots.h"
#include "ja_mp.h"
#include "proc.h"

#include "jackarena/ja_error.h"
#include "ja_xalloc.h"
#include "jackarena/ja_rng.h"
#include "jackarena/ja_version.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The report of one run: where it goes, how many checks failed. */
typedef struct conf {
    FILE *out;
    int problems;
} conf;

static void report(conf *cf, bool ok, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void report(conf *cf, bool ok, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(cf->out, "  %-5s ", ok ? "ok" : "FAIL");
    vfprintf(cf->out, fmt, ap);
    fputc('\n', cf->out);
    va_end(ap);
    fflush(cf->out);
    if (!ok)
        cf->problems++;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
}

/* Errors the hub sent to the bot since `before`, as "code N, code N". */
static uint32_t new_errors(const ref_hub_bot_status *before, const ref_hub_bot_status *now,
                           char *buf, size_t cap)
{
    uint32_t total = 0;
    size_t used = 0;
    buf[0] = '\0';
    for (int e = 0; e < REF_WIRE_ERR_COUNT; e++) {
        uint32_t d = now->errors[e] - before->errors[e];
        if (!d)
            continue;
        total += d;
        int w = snprintf(buf + used, cap - used, "%s%s %u", used ? ", " : "",
                         ref_wire_error_code((ref_wire_err)e), (unsigned)d);
        if (w > 0 && (size_t)w < cap - used)
            used += (size_t)w;
    }
    return total;
}

/* Sends a ping and waits up to 5 s for the pong counter to move. */
static bool ping(ref_hub *hub, const char *name)
{
    ref_hub_bot_status st;
    if (ref_hub_bot_status_get(hub, name, &st) != JA_OK)
        return false;
    msgpack_sbuffer b;
    msgpack_sbuffer_init(&b);
    ref_wire_ping(&b);
    int rc = ref_hub_send_raw(hub, name, b.data, b.size);
    msgpack_sbuffer_destroy(&b);
    if (rc != JA_OK)
        return false;
    for (int waited = 0; waited < 5000; waited += 20) {
        ref_hub_bot_status now;
        if (ref_hub_bot_status_get(hub, name, &now) == JA_OK && now.pongs > st.pongs)
            return true;
        sleep_ms(20);
    }
    return false;
}

/* One game's matches: the bot (slot 0) at each seat in turn, `random`
 * (slot 1) elsewhere, and what they came to. */
typedef struct conf_game {
    const ja_game_rules *g;
    uint32_t n;                  /* seats */
    ja_options o;
    ref_bot *slots[JA_MAX_SEATS];
    const char *names[JA_MAX_SEATS];
    char rnames[JA_MAX_SEATS][16];
    uint32_t threads;            /* matches at once: the bot's capacity, at most 8 */
    uint32_t rounds, total, failed, decisions;
    uint32_t faults[JA_FAULT_COUNT];
    char err[512];               /* the last match that could not be played */
} conf_game;

/* The game's options for its fewest seats (at least two), its seats, how
 * many matches at once and in all. False after the failing check. */
static bool seat_game(conf *cf, conf_game *cg, arena_bots *bs, uint32_t rounds)
{
    const ja_game_rules *g = cg->g;
    arena_bot *bot = &bs->b[0];
    cg->n = g->min_seats < 2 ? 2 : g->min_seats;
    ja_options_init(g, &cg->o);
    if (ja_options_resolve(g, &cg->o, cg->n, cg->err, sizeof cg->err) != JA_OK) {
        report(cf, false, "%s: cannot set up the game: %s", g->name, cg->err);
        return false;
    }
    cg->slots[0] = bot->bot;
    cg->names[0] = bot->name;
    for (uint32_t s = 1; s < cg->n; s++) {
        cg->slots[s] = bs->b[1].bot;
        snprintf(cg->rnames[s], sizeof cg->rnames[s], s == 1 ? "random" : "random#%u",
                 (unsigned)s);
        cg->names[s] = cg->rnames[s];
    }
    uint32_t cap = ref_bot_capacity(bot->bot);
    cg->threads = cap == 0 || cap > 8 ? 8 : cap;
    /* No rounds given: enough matches to use the whole capacity. */
    cg->rounds = rounds ? rounds : (cg->threads + cg->n - 1) / cg->n;
    cg->total = cg->rounds * cg->n;
    return true;
}

/* Submits match `number`, the bot at seat number % n. */
static int submit_match(arena_executor *x, const conf_game *cg, uint64_t seed, uint32_t number)
{
    arena_job job;
    memset(&job, 0, sizeof job);
    job.number = number;
    job.seed = ja_seed_derive(seed, JA_STREAM_MATCH, number);
    job.n_seats = cg->n;
    uint32_t at = number % cg->n; /* the bot's seat */
    for (uint32_t s = 0, other = 1; s < cg->n; s++)
        job.slot[s] = (uint16_t)(s == at ? 0 : other++);
    return x->ops->submit(x, &job);
}

/* Plays every match, as many at once as the executor takes, and tallies
 * the bot's decisions and faults. */
static void play_matches(conf_game *cg, arena_executor *x, uint64_t seed)
{
    uint32_t submitted = 0, done = 0;
    arena_job_result *jr = ja_xmalloc(sizeof *jr);
    while (done < cg->total) {
        while (submitted < cg->total && submitted - done < x->ops->capacity(x) &&
               submit_match(x, cg, seed, submitted) == JA_OK)
            submitted++;
        if (x->ops->next(x, jr) != JA_OK)
            break;
        done++;
        if (jr->rc != JA_OK) {
            cg->failed++;
            snprintf(cg->err, sizeof cg->err, "%s", jr->err);
            continue;
        }
        /* Find the bot's seat from the job number. */
        uint32_t at = jr->number % cg->n;
        cg->decisions += jr->res.asked;
        for (int f = 1; f < JA_FAULT_COUNT; f++)
            cg->faults[f] += jr->res.fault_kinds[at][f];
    }
    free(jr);
}

/* The game's verdict: matches not played, faults and errors the hub sent
 * the bot (between before and after), or all answered in time. */
static void report_game(conf *cf, const conf_game *cg, const ref_hub_bot_status *before,
                        const ref_hub_bot_status *after)
{
    const char *name = cg->g->name;
    char errs[400], kinds[300] = "";
    uint32_t n_err = new_errors(before, after, errs, sizeof errs);
    uint32_t n_faults = 0;
    size_t used = 0;
    for (int f = 1; f < JA_FAULT_COUNT; f++)
        if (cg->faults[f]) {
            n_faults += cg->faults[f];
            int w = snprintf(kinds + used, sizeof kinds - used, "%s%s %u", used ? ", " : "",
                             ja_fault_name(f), (unsigned)cg->faults[f]);
            if (w > 0 && (size_t)w < sizeof kinds - used)
                used += (size_t)w;
        }
    if (cg->failed)
        report(cf, false, "%s: %u of %u matches could not be played: %s", name, cg->failed,
               cg->total, cg->err);
    else if (n_faults || n_err)
        report(cf, false, "%s: %u faults in %u matches (%s)%s%s", name, n_faults, cg->total,
               n_faults ? kinds : "none", n_err ? "; errors sent to it: " : "", n_err ? errs : "");
    else
        report(cf, true, "%s: %u matches at every seat, up to %u at once, %u decisions answered "
               "in time", name, cg->total, cg->threads, cg->decisions);
}

/* Plays rounds * n_seats matches of game g with the bot at each seat in
 * turn and `random` elsewhere, through the threaded executor. */
static void play_game(conf *cf, const arena_conformance_args *a, ref_hub *hub,
                      const ja_game_rules *g, int game_index)
{
    conf_game cg = {.g = g};
    if (!seat_game(cf, &cg, a->bots, a->rounds))
        return;
    arena_exec_ctx xc = {g, cg.o, a->move_ms, cg.slots, cg.names, NULL, game_index,
                         REF_MAX_FAULTS_NEVER, {0}, NULL, NULL};
    arena_executor *x = NULL;
    if (arena_executor_threads_new(&xc, cg.threads, &x) != JA_OK) {
        report(cf, false, "%s: cannot start the executor", g->name);
        return;
    }
    const char *hello = ref_bot_get_info(a->bots->b[0].bot)->name;
    ref_hub_bot_status before, after;
    ref_hub_bot_status_get(hub, hello, &before);
    play_matches(&cg, x, a->seed);
    x->ops->destroy(x);
    ref_hub_bot_status_get(hub, hello, &after);
    report_game(cf, &cg, &before, &after);
}

/* hello, ping, and messages it must ignore: an unknown type, an error
 * about nothing (it must still pong after them). */
static void check_messages(conf *cf, ref_hub *hub, const ref_bot_info *bi)
{
    ref_hub_bot_status st;
    ref_hub_bot_status_get(hub, bi->name, &st);
    report(cf, true, "hello: name '%s', version '%s', capacity %u", bi->name, bi->version,
           (unsigned)st.capacity);
    report(cf, ping(hub, bi->name), "ping: answered with a pong");
    msgpack_sbuffer b;
    msgpack_sbuffer_init(&b);
    msgpack_packer pk;
    msgpack_packer_init(&pk, &b, msgpack_sbuffer_write);
    msgpack_pack_map(&pk, 2);
    ja_mp_put_kv_str(&pk, "type", "x-conformance-probe");
    ja_mp_put_kv_str(&pk, "note", "clients ignore message types they do not know");
    ref_hub_send_raw(hub, bi->name, b.data, b.size);
    ref_wire_error(&b, REF_WIRE_ERR_UNKNOWN_TYPE, "conformance probe: an error the bot must survive",
                   NULL, 0);
    ref_hub_send_raw(hub, bi->name, b.data, b.size);
    msgpack_sbuffer_destroy(&b);
    ref_hub_bot_status st2;
    bool alive = ping(hub, bi->name) && ref_hub_bot_status_get(hub, bi->name, &st2) == JA_OK;
    char errs[400];
    uint32_t n_err = alive ? new_errors(&st, &st2, errs, sizeof errs) : 0;
    report(cf, alive && !n_err, "robustness: an unknown message type and an error message ignored%s%s",
           n_err ? "; but it sent messages the referee had to refuse: " : "", n_err ? errs : "");
}

/* Each game of this build (or only a->only) that the bot's hello lists. */
static void check_games(conf *cf, const arena_conformance_args *a, ref_hub *hub)
{
    for (int gi = 0; ja_games[gi]; gi++) {
        const ja_game_rules *g = ja_games[gi];
        if (a->only && g != a->only)
            continue;
        if (!ref_bot_supports(a->bots->b[0].bot, g)) {
            fprintf(cf->out, "  skip  %s: the bot's hello does not list it\n", g->name);
            continue;
        }
        play_game(cf, a, hub, g, gi + 1);
    }
}

/* bye: the bot leaves (a cmd: process exits) within the grace period. */
static void check_bye(conf *cf, const arena_bot *bot, ref_hub *hub, const char *hello)
{
    ref_hub_bye_all(hub);
    bool left = false;
    for (int waited = 0; waited <= ARENA_STOP_GRACE_MS && !left; waited += 20) {
        ref_hub_bot_status now;
        left = bot->proc ? ref_proc_exited(bot->proc, NULL, 0)
                         : ref_hub_bot_status_get(hub, hello, &now) != JA_OK;
        if (!left)
            sleep_ms(20);
    }
    report(cf, left, "bye: the bot %s within %d ms", left ? "left" : "did not leave",
           ARENA_STOP_GRACE_MS);
}

/* The bots loaded; a bot that does not say hello is the first problem, its
 * line said through on_error before the check that fails on it. */
static bool load_bots(conf *cf, const arena_conformance_args *a)
{
    char err[ARENA_BOTS_ERR_CAP];
    if (arena_bots_load(a->bots, NULL, err, sizeof err) == JA_OK)
        return true;
    if (a->on_error)
        a->on_error(err);
    report(cf, false, "hello: the bot did not connect and say hello (see the error above)");
    return false;
}

int arena_conformance_run(const arena_conformance_args *a, FILE *out)
{
    conf cf = {out, 0};
    arena_bots *bs = a->bots;
    fprintf(out, "conformance of %s (protocol %d)\n", bs->b[0].spec, JA_PROTOCOL);
    fflush(out);
    if (load_bots(&cf, a)) {
        ref_hub *hub = bs->ext->hub;
        const ref_bot_info *bi = ref_bot_get_info(bs->b[0].bot);
        check_messages(&cf, hub, bi);
        check_games(&cf, a, hub);
        check_bye(&cf, &bs->b[0], hub, bi->name);
    }
    arena_bots_free(bs);
    if (cf.problems)
        fprintf(out, "not conformant: %d problem%s\n", cf.problems, cf.problems == 1 ? "" : "s");
    else
        fprintf(out, "conformant\n");
    return cf.problems ? JA_EBOT : JA_OK;
}
