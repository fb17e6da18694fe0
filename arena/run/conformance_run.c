/* Conformance of an external bot (conformance_run.h). */
#include "run/conformance_run.h"

#include "run/executor.h"
#include "run/extbots.h"
#include "ja_mp.h"
#include "proc.h"
#include "core/util.h"

#include "jackarena/ja_error.h"
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

/* Plays rounds * n_seats matches of game g with the bot at each seat in
 * turn and `random` elsewhere, through the threaded executor. */
static void play_game(conf *cf, arena_bots *bs, ref_hub *hub, const ja_game_rules *g, uint32_t rounds,
                      uint32_t move_ms, uint64_t seed, int game_index)
{
    arena_bot *bot = &bs->b[0];
    const ref_bot_info *bi = ref_bot_get_info(bot->bot);
    uint32_t n = g->min_seats < 2 ? 2 : g->min_seats;
    ja_options o;
    char err[512];
    ja_options_init(g, &o);
    if (ja_options_resolve(g, &o, n, err, sizeof err) != JA_OK) {
        report(cf, false, "%s: cannot set up the game: %s", g->name, err);
        return;
    }
    ref_bot *slots[JA_MAX_SEATS];
    const char *names[JA_MAX_SEATS];
    char rnames[JA_MAX_SEATS][16];
    slots[0] = bot->bot;
    names[0] = bot->name;
    for (uint32_t s = 1; s < n; s++) {
        slots[s] = bs->b[1].bot;
        snprintf(rnames[s], sizeof rnames[s], s == 1 ? "random" : "random#%u", (unsigned)s);
        names[s] = rnames[s];
    }
    uint32_t cap = ref_bot_capacity(bot->bot);
    uint32_t threads = cap == 0 || cap > 8 ? 8 : cap;
    if (!rounds) /* enough matches to use the whole capacity */
        rounds = (threads + n - 1) / n;
    arena_exec_ctx xc = {g, o, move_ms, slots, names, NULL, game_index, REF_MAX_FAULTS_NEVER,
                         {0}, NULL, NULL};
    arena_executor *x = NULL;
    if (arena_executor_threads_new(&xc, threads, &x) != JA_OK) {
        report(cf, false, "%s: cannot start the executor", g->name);
        return;
    }
    ref_hub_bot_status before, after;
    ref_hub_bot_status_get(hub, bi->name, &before);
    uint32_t total = rounds * n, submitted = 0, done = 0, failed = 0, decisions = 0;
    uint32_t faults[JA_FAULT_COUNT] = {0};
    arena_job_result *jr = malloc(sizeof *jr);
    while (jr && done < total) {
        while (submitted < total && submitted - done < x->ops->capacity(x)) {
            arena_job job;
            memset(&job, 0, sizeof job);
            job.number = submitted;
            job.seed = ja_seed_derive(seed, JA_STREAM_MATCH, submitted);
            job.n_seats = n;
            uint32_t at = submitted % n; /* the bot's seat */
            for (uint32_t s = 0, other = 1; s < n; s++)
                job.slot[s] = (uint16_t)(s == at ? 0 : other++);
            if (x->ops->submit(x, &job) != JA_OK)
                break;
            submitted++;
        }
        if (x->ops->next(x, jr) != JA_OK)
            break;
        done++;
        if (jr->rc != JA_OK) {
            failed++;
            snprintf(err, sizeof err, "%s", jr->err);
            continue;
        }
        /* Find the bot's seat from the job number. */
        uint32_t at = jr->number % n;
        decisions += jr->res.asked;
        for (int f = 1; f < JA_FAULT_COUNT; f++)
            faults[f] += jr->res.fault_kinds[at][f];
    }
    free(jr);
    x->ops->destroy(x);
    ref_hub_bot_status_get(hub, bi->name, &after);
    char errs[400], kinds[300] = "";
    uint32_t n_err = new_errors(&before, &after, errs, sizeof errs);
    uint32_t n_faults = 0;
    size_t used = 0;
    for (int f = 1; f < JA_FAULT_COUNT; f++)
        if (faults[f]) {
            n_faults += faults[f];
            int w = snprintf(kinds + used, sizeof kinds - used, "%s%s %u", used ? ", " : "",
                             ja_fault_name(f), (unsigned)faults[f]);
            if (w > 0 && (size_t)w < sizeof kinds - used)
                used += (size_t)w;
        }
    if (failed)
        report(cf, false, "%s: %u of %u matches could not be played: %s", g->name, failed, total, err);
    else if (n_faults || n_err)
        report(cf, false, "%s: %u faults in %u matches (%s)%s%s", g->name, n_faults, total,
               n_faults ? kinds : "none", n_err ? "; errors sent to it: " : "", n_err ? errs : "");
    else
        report(cf, true, "%s: %u matches at every seat, up to %u at once, %u decisions answered in time",
               g->name, total, threads, decisions);
}

int arena_conformance_run(arena_bots *bs, const ja_game_rules *only, uint32_t rounds,
                          uint32_t move_ms, uint64_t seed, FILE *out)
{
    conf cf = {out, 0};
    fprintf(out, "conformance of %s (protocol %d)\n", bs->b[0].spec, JA_PROTOCOL);
    fflush(out);
    if (!arena_bots_load(bs, NULL)) {
        report(&cf, false, "hello: the bot did not connect and say hello (see the error above)");
        arena_bots_free(bs);
        fprintf(out, "not conformant: 1 problem\n");
        return EXIT_RUNTIME;
    }
    ref_hub *hub = bs->ext->hub;
    const ref_bot_info *bi = ref_bot_get_info(bs->b[0].bot);
    ref_hub_bot_status st;
    ref_hub_bot_status_get(hub, bi->name, &st);
    report(&cf, true, "hello: name '%s', version '%s', capacity %u", bi->name, bi->version,
           (unsigned)st.capacity);
    report(&cf, ping(hub, bi->name), "ping: answered with a pong");

    /* Messages it must ignore: an unknown type, an error about nothing. */
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
    report(&cf, alive && !n_err, "robustness: an unknown message type and an error message ignored%s%s",
           n_err ? "; but it sent messages the referee had to refuse: " : "", n_err ? errs : "");

    for (int gi = 0; ja_games[gi]; gi++) {
        const ja_game_rules *g = ja_games[gi];
        if (only && g != only)
            continue;
        if (!ref_bot_supports(bs->b[0].bot, g)) {
            fprintf(out, "  skip  %s: the bot's hello does not list it\n", g->name);
            continue;
        }
        play_game(&cf, bs, hub, g, rounds, move_ms, seed, gi + 1);
    }

    /* bye: the bot leaves (a cmd: process exits) within the grace period. */
    ref_hub_bye_all(hub);
    bool left = false;
    for (int waited = 0; waited <= ARENA_STOP_GRACE_MS && !left; waited += 20) {
        ref_hub_bot_status now;
        left = bs->b[0].proc ? ref_proc_exited(bs->b[0].proc, NULL, 0)
                              : ref_hub_bot_status_get(hub, bi->name, &now) != JA_OK;
        if (!left)
            sleep_ms(20);
    }
    report(&cf, left, "bye: the bot %s within %d ms", left ? "left" : "did not leave",
           ARENA_STOP_GRACE_MS);
    arena_bots_free(bs);
    if (cf.problems)
        fprintf(out, "not conformant: %d problem%s\n", cf.problems, cf.problems == 1 ? "" : "s");
    else
        fprintf(out, "conformant\n");
    return cf.problems ? EXIT_RUNTIME : EXIT_OK;
}
