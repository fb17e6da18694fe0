/* `arena conformance BOT [--game GAME]`: drives an external bot through the
 * protocol and reports what it got wrong, for bot authors before they
 * submit. Exit 0 when it conforms, 1 when a check fails, 2 for bad usage.
 *
 * Checks, in order (docs/protocol.md, "Conformance"):
 *  1. hello: the bot connects and says hello (protocol 1, a name) in time;
 *  2. ping: it answers a ping with a pong;
 *  3. robustness: an unknown message type and an `error` message do not
 *     upset it (it still pongs afterwards);
 *  4. each game it plays (every game of this build, or --game): matches
 *     against the `random` reference bot at every seat position, as many at
 *     once as its capacity (at most 8), with keys no client knows in every
 *     start and act: every decision answered in time, with the right match
 *     and turn and an index in range; no `error` sent to it;
 *  5. bye: on the referee's bye it leaves (a cmd: process exits).
 * The hub's error counters (what it had to tell the bot) back every verdict. */
#include "cli.h"
#include "executor.h"
#include "extbots.h"
#include "ja_mp.h"
#include "proc.h"

#include "jackarena/ja_error.h"
#include "jackarena/ja_rng.h"
#include "jackarena/ja_version.h"

#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* --rounds at most: matches per seat position and game. */
#define CONFORMANCE_MAX_ROUNDS 10000u

static const char HELP[] =
    "usage: arena conformance BOT [--game GAME] [options]\n"
    "Check an external bot (cmd:COMMAND or zmq:NAME) against the protocol: hello,\n"
    "ping, unknown messages, matches of every game it plays (at every seat, as\n"
    "many at once as its capacity), and bye. Prints one line per check and what\n"
    "the bot got wrong. Exit status 0 when it conforms, 1 when it does not.\n"
    "\n"
    "  --game GAME       only this game (default: every game of this build)\n"
    "  --rounds R        matches per seat position and game, up to 10000 (default:\n"
    "                    enough to use the bot's capacity, up to 8 at once)\n"
    "  --move-ms MS      per-decision limit, up to 86400000 (default 1000)\n"
    "  --seed N          seed of the matches (default 1)\n"
    ARENA_EXT_HELP
    "\n"
    "example: arena conformance \"cmd:python3 mybot.py\" --game taylor-blackjack\n";

static int problems;

static void report(bool ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void report(bool ok, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("  %-5s ", ok ? "ok" : "FAIL");
    vprintf(fmt, ap);
    putchar('\n');
    va_end(ap);
    fflush(stdout);
    if (!ok)
        problems++;
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
static void play_game(arena_bots *bs, ref_hub *hub, const ja_game_rules *g, uint32_t rounds,
                      uint32_t move_ms, uint64_t seed, int game_index)
{
    arena_bot *bot = &bs->b[0];
    const ref_bot_info *bi = ref_bot_get_info(bot->bot);
    uint32_t n = g->min_seats < 2 ? 2 : g->min_seats;
    ja_options o;
    char err[512];
    ja_options_init(g, &o);
    if (ja_options_resolve(g, &o, n, err, sizeof err) != JA_OK) {
        report(false, "%s: cannot set up the game: %s", g->name, err);
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
                         {0}, NULL};
    arena_executor *x = NULL;
    if (arena_executor_threads_new(&xc, threads, &x) != JA_OK) {
        report(false, "%s: cannot start the executor", g->name);
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
        report(false, "%s: %u of %u matches could not be played: %s", g->name, failed, total, err);
    else if (n_faults || n_err)
        report(false, "%s: %u faults in %u matches (%s)%s%s", g->name, n_faults, total,
               n_faults ? kinds : "none", n_err ? "; errors sent to it: " : "", n_err ? errs : "");
    else
        report(true, "%s: %u matches at every seat, up to %u at once, %u decisions answered in time",
               g->name, total, threads, decisions);
}

int cmd_conformance(int argc, char **argv)
{
    static const struct option opts[] = {
        {"game", required_argument, NULL, 'g'},    {"rounds", required_argument, NULL, 'R'},
        {"move-ms", required_argument, NULL, 'm'}, {"seed", required_argument, NULL, 's'},
        {"help", no_argument, NULL, 'h'},          ARENA_EXT_LONGOPTS,
        {0, 0, 0, 0}};
    static arena_bots bots;
    memset(&bots, 0, sizeof bots);
    static arena_ext ext;
    memset(&ext, 0, sizeof ext);
    ext.wire_flags = REF_WIRE_PROBE;
    bots.ext = &ext;
    const char *game = NULL;
    uint32_t rounds = 0, move_ms = 1000;
    uint64_t seed = 1;
    int c, k;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        if ((k = arena_ext_flag(&ext, c, optarg)) != 0) {
            if (k < 0)
                return EXIT_USAGE;
            continue;
        }
        switch (c) {
        case 'g': game = optarg; break;
        case 'R':
            if (!arena_parse_u32(optarg, &rounds) || rounds == 0 ||
                rounds > CONFORMANCE_MAX_ROUNDS) {
                arena_error("--rounds needs a number from 1 to %u, not '%s'",
                            CONFORMANCE_MAX_ROUNDS, optarg);
                return EXIT_USAGE;
            }
            break;
        case 'm':
            if (!arena_parse_ms("--move-ms", optarg, false, &move_ms))
                return EXIT_USAGE;
            break;
        case 's':
            if (!arena_parse_u64(optarg, &seed)) {
                arena_error("--seed needs a number, not '%s'", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'h': fputs(HELP, stdout); return EXIT_OK;
        default: arena_getopt_error("conformance", argv); return EXIT_USAGE;
        }
    }
    if (optind != argc - 1) {
        arena_error("conformance takes one BOT (usage: arena conformance BOT [--game GAME])");
        return EXIT_USAGE;
    }
    const ja_game_rules *only = NULL;
    if (game && !(only = arena_find_game(game)))
        return EXIT_USAGE;
    if (!arena_bots_add(&bots, argv[optind]) || !arena_bots_add(&bots, "random"))
        return EXIT_USAGE;
    if (strcmp(bots.b[0].kind, "cmd") != 0 && strcmp(bots.b[0].kind, "zmq") != 0) {
        arena_error("conformance checks external bots (cmd:COMMAND or zmq:NAME), not '%s'",
                    argv[optind]);
        return EXIT_USAGE;
    }
    printf("conformance of %s (protocol %d)\n", bots.b[0].spec, JA_PROTOCOL);
    fflush(stdout);
    problems = 0;
    if (!arena_bots_load(&bots, NULL)) {
        report(false, "hello: the bot did not connect and say hello (see the error above)");
        arena_bots_free(&bots);
        printf("not conformant: 1 problem\n");
        return EXIT_RUNTIME;
    }
    ref_hub *hub = ext.hub;
    const ref_bot_info *bi = ref_bot_get_info(bots.b[0].bot);
    ref_hub_bot_status st;
    ref_hub_bot_status_get(hub, bi->name, &st);
    report(true, "hello: name '%s', version '%s', capacity %u", bi->name, bi->version,
           (unsigned)st.capacity);
    report(ping(hub, bi->name), "ping: answered with a pong");

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
    report(alive && !n_err, "robustness: an unknown message type and an error message ignored%s%s",
           n_err ? "; but it sent messages the referee had to refuse: " : "", n_err ? errs : "");

    for (int gi = 0; ja_games[gi]; gi++) {
        const ja_game_rules *g = ja_games[gi];
        if (only && g != only)
            continue;
        if (!ref_bot_supports(bots.b[0].bot, g)) {
            printf("  skip  %s: the bot's hello does not list it\n", g->name);
            continue;
        }
        play_game(&bots, hub, g, rounds, move_ms, seed, gi + 1);
    }

    /* bye: the bot leaves (a cmd: process exits) within the grace period. */
    ref_hub_bye_all(hub);
    bool left = false;
    for (int waited = 0; waited <= ARENA_STOP_GRACE_MS && !left; waited += 20) {
        ref_hub_bot_status now;
        left = bots.b[0].proc ? ref_proc_exited(bots.b[0].proc, NULL, 0)
                              : ref_hub_bot_status_get(hub, bi->name, &now) != JA_OK;
        if (!left)
            sleep_ms(20);
    }
    report(left, "bye: the bot %s within %d ms", left ? "left" : "did not leave",
           ARENA_STOP_GRACE_MS);
    arena_bots_free(&bots);
    if (problems)
        printf("not conformant: %d problem%s\n", problems, problems == 1 ? "" : "s");
    else
        printf("conformant\n");
    return problems ? EXIT_RUNTIME : EXIT_OK;
}
