/* `arena serve GAME`: a competition server (serve.h, docs/server.md).
 * Parsing and validation only: nothing is written before every flag is
 * checked. */
#include "cli/cli.h"
#include "serve/serve.h"
#include "serve/serve_live.h"
#include "serve/serve_util.h"

#include "hub.h"
#include "jackarena/ja_error.h"
#include "match.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

static const char HELP[] =
    "usage: arena serve GAME [--opt KEY=VALUE]... [--seats K] [--db FILE] [--data DIR]\n"
    "                   [--http HOST:PORT] [--public] [--concurrency N] [--rounds R]\n"
    "                   [--smoke N]"
    " [--move-ms MS] [--max-upload BYTES] [--upload-rate N]\n"
    "                   [--queue N] [--author-queue N] [--fault-limit N]\n"
    "                   [--max-clients N] [--max-streams N] [--max-per-address N]\n"
    "                   [--trusted-proxy ADDR] [--live-delay N]\n"
    "                   [--seed N] [--quiet] [--listen tcp://HOST:PORT]\n"
    "Run a competition server for GAME: authors register and upload bot plugins\n"
    "over HTTP, each new version is validated (ELF check, load in the sandbox,\n"
    "supports(), smoke matches against random with no fault allowed), and the\n"
    "active versions play a continuous ladder into the ladder database, which\n"
    "`arena ladder` reads as usual. Uploaded plugins only ever run hosted (in the\n"
    "sandbox). Pages and a JSON API show the ladder, each bot and each match's\n"
    "replay; /api/events streams an event per recorded match and status change;\n"
    "/live shows the matches being played, delayed (--live-delay).\n"
    "docs/server.md has the routes.\n"
    "\n"
    "  --opt KEY=VALUE     a game option of the ladder; repeatable\n"
    "  --seats K           seats per match (default: the game's smallest)\n"
    "  --db FILE           the ladder database (default arena.db)\n"
    "  --data DIR          the server's folder: its database, the uploaded plugins,\n"
    "                      the replays (default: FILE.serve beside the database)\n"
    "  --http HOST:PORT    where to listen (default 127.0.0.1:8080); HOST an IPv4\n"
    "                      address, localhost or [IPv6]\n"
    "  --public            allow a HOST that is not a loopback address (put TLS in\n"
    "                      front with a reverse proxy: docs/server.md)\n"
    "  --concurrency N     matches at once (default 2)\n"
    "  --rounds R          rounds of each batch: each round is one match per\n"
    "                      rotation of each seat order, a deal each (default 1;\n"
    "                      at least N / K)\n"
    "  --seating S         the seat orders of a new batch: balanced (default: each\n"
    "                      version next to each other equally often) or cyclic\n"
    "                      (one order in its rotations); the same for 2 seats\n"
    "  --smoke N           smoke matches of a validation (default 4, at least 1)\n"
    "  --move-ms MS        per-decision limit (default: 1000 for hosted bots)\n"
    "  --max-upload BYTES  largest plugin accepted (default 8388608, 8 MiB)\n"
    "  --upload-rate N     uploads per author per hour (default 10)\n"
    "  --queue N           versions waiting for validation, all authors (default 64)\n"
    "  --author-queue N    versions of one author waiting for validation (default 2,\n"
    "                      below --queue: one author's burst never fills the queue)\n"
    "  --fault-limit N     ladder faults of a version before it is suspended\n"
    "                      (default 20)\n"
    "  --max-clients N     page and API requests answered at once (default 64)\n"
    "  --max-streams N     event streams (spectators) at once, counted apart from\n"
    "                      requests (default 1024)\n"
    "  --max-per-address N requests, and streams, of one client address at once\n"
    "                      (default 8; below both totals)\n"
    "  --trusted-proxy ADDR  the numeric address of a reverse proxy in front: its\n"
    "                      connections count by the last X-Forwarded-For address\n"
    "  --live-delay N      decisions a live match is shown behind the play, so that\n"
    "                      no spectator can help a bot (default 20, 0 to 500;\n"
    "                      0 only for a private server)\n"
    "  --listen ENDPOINT   take external bots: the referee's hub on this tcp\n"
    "                      endpoint, with CurveZMQ (the server's key pair is kept in\n"
    "                      DATA/curve); authors register a bot's public key with\n"
    "                      POST /api/external\n"
    "  --seed N            the server seed (kept in the data folder; default random)\n"
    "  --quiet             no notes on standard error\n"
    "\n"
    "SIGINT or SIGTERM stops the server after the matches in flight; a server\n"
    "started again on the same database and folder resumes where it stopped.\n";

static bool parse_count(const char *flag, const char *arg, uint32_t min, uint32_t max,
                        uint32_t *out)
{
    if (!arena_parse_u32(arg, out) || *out < min || *out > max) {
        arena_error("%s needs a number from %u to %u, not '%s'", flag, min, max, arg);
        return false;
    }
    return true;
}

/* What the command line gives beyond arena_serve_args: the text flags,
 * checked once every flag is read. */
typedef struct serve_flags {
    arena_common co;
    const char *http, *data;
    bool is_public;
    uint32_t seats;
} serve_flags;

static const struct option OPTS[] = {
    {"opt", required_argument, NULL, ARENA_OPT_OPT},
    {"seed", required_argument, NULL, ARENA_OPT_SEED},
    {"move-ms", required_argument, NULL, ARENA_OPT_MOVE_MS},
    {"seats", required_argument, NULL, 'k'},
    {"db", required_argument, NULL, 'd'},
    {"data", required_argument, NULL, 'D'},
    {"http", required_argument, NULL, 'H'},
    {"public", no_argument, NULL, 'P'},
    {"concurrency", required_argument, NULL, 'c'},
    {"rounds", required_argument, NULL, 'R'},
    {"seating", required_argument, NULL, 'E'},
    {"smoke", required_argument, NULL, 'S'},
    {"max-upload", required_argument, NULL, 'U'},
    {"upload-rate", required_argument, NULL, 'r'},
    {"queue", required_argument, NULL, 'Q'},
    {"author-queue", required_argument, NULL, 'A'},
    {"fault-limit", required_argument, NULL, 'F'},
    {"max-clients", required_argument, NULL, 'C'},
    {"max-streams", required_argument, NULL, 'M'},
    {"max-per-address", required_argument, NULL, 'p'},
    {"trusted-proxy", required_argument, NULL, 'T'},
    {"live-delay", required_argument, NULL, 'L'},
    {"quiet", no_argument, NULL, 'q'},
    {"listen", required_argument, NULL, 'N'},
    {"help", no_argument, NULL, 'h'},
    {0, 0, 0, 0}};

/* The defaults (docs/server.md, "Flags"). */
static void defaults(arena_serve_args *a, serve_flags *f)
{
    memset(f, 0, sizeof *f);
    f->co.move_ms = REF_MOVE_MS_KIND;
    f->http = "127.0.0.1:8080";
    a->concurrency = 2;
    a->rounds = 1;
    a->seating = LADDER_SEATING_BALANCED;
    a->smoke = 4;
    a->max_upload = 8u << 20;
    a->upload_rate = 10;
    a->queue_max = 64;
    a->author_queue = 2;
    a->fault_limit = 20;
    a->max_clients = 64;
    a->max_streams = 1024;
    a->max_per_address = 8;
    a->live_delay = SRV_LIVE_DELAY_DEFAULT;
    a->db_path = "arena.db";
}

/* Flag c, if it is one that takes a count: 1 taken, 0 not such a flag,
 * -1 refused (a line said). */
static int count_flag(int c, const char *arg, arena_serve_args *a, serve_flags *f)
{
    /* The flags that take a count: code, flag, range, where it goes. */
    const struct {
        int code;
        const char *flag;
        uint32_t min, max, *out;
    } counts[] = {{'k', "--seats", 1, JA_MAX_SEATS, &f->seats},
                  {'c', "--concurrency", 1, 64, &a->concurrency},
                  {'R', "--rounds", 1, 1000, &a->rounds},
                  {'S', "--smoke", 1, 1000, &a->smoke},
                  {'r', "--upload-rate", 1, 100000, &a->upload_rate},
                  {'Q', "--queue", 1, 10000, &a->queue_max},
                  {'A', "--author-queue", 1, 10000, &a->author_queue},
                  {'F', "--fault-limit", 0, 1000000, &a->fault_limit},
                  {'C', "--max-clients", 1, 10000, &a->max_clients},
                  {'M', "--max-streams", 1, 100000, &a->max_streams},
                  {'p', "--max-per-address", 1, 10000, &a->max_per_address},
                  {'L', "--live-delay", 0, SRV_LIVE_DELAY_MAX, &a->live_delay}};
    for (size_t i = 0; i < sizeof counts / sizeof *counts; i++)
        if (c == counts[i].code)
            return parse_count(counts[i].flag, arg, counts[i].min, counts[i].max,
                               counts[i].out) ? 1 : -1;
    return 0;
}

/* Reads every flag: EXIT_OK, EXIT_USAGE after a line, or -1 for --help
 * (printed). */
static int read_flags(int argc, char **argv, arena_serve_args *a, serve_flags *f)
{
    int c, k;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", OPTS, NULL)) != -1) {
        if ((k = arena_common_flag(&f->co, c, optarg)) != 0 ||
            (k = count_flag(c, optarg, a, f)) != 0) {
            if (k < 0)
                return EXIT_USAGE;
            continue;
        }
        switch (c) {
        case 'd': a->db_path = optarg; break;
        case 'D': f->data = optarg; break;
        case 'H': f->http = optarg; break;
        case 'N': a->listen = optarg; break;
        case 'T': a->trusted_proxy = optarg; break;
        case 'P': f->is_public = true; break;
        case 'E':
            if (ladder_seating_parse(optarg, &a->seating) != JA_OK) {
                arena_error("--seating '%s': use balanced or cyclic", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'U':
            if (!arena_parse_u64(optarg, &a->max_upload) || a->max_upload < 1024 ||
                a->max_upload > (1u << 30)) {
                arena_error("--max-upload needs a number of bytes from 1024 to 1073741824, not "
                            "'%s'", optarg);
                return EXIT_USAGE;
            }
            break;
        case 'q': a->quiet = true; break;
        case 'h': fputs(HELP, stdout); return -1;
        default: arena_getopt_error("serve", argv); return EXIT_USAGE;
        }
    }
    return EXIT_OK;
}

/* The game, its seat count and options. */
static bool game_flags(int argc, char **argv, arena_serve_args *a, serve_flags *f)
{
    if (argc - optind != 1) {
        arena_error("serve: name one game (usage: arena serve GAME [--db FILE] [--http "
                    "HOST:PORT])");
        return false;
    }
    if ((a->game = arena_find_game(argv[optind])) == NULL)
        return false;
    uint32_t seats = f->seats ? f->seats : a->game->min_seats;
    if (seats < a->game->min_seats || seats > a->game->max_seats) {
        arena_error("--seats %u: %s is played by %u to %u seats", seats, a->game->name,
                    (unsigned)a->game->min_seats, (unsigned)a->game->max_seats);
        return false;
    }
    if (seats > 16) {
        arena_error("--seats %u: the server plays at most 16 seats", seats);
        return false;
    }
    a->seats = seats;
    return true;
}

/* The numbers that must agree with one another: the caps and the queues. */
static bool limit_flags(const arena_serve_args *a)
{
    if (a->max_per_address > a->max_clients || a->max_per_address > a->max_streams) {
        arena_error("--max-per-address %u: must not be above --max-clients (%u) or "
                    "--max-streams (%u)", a->max_per_address, a->max_clients, a->max_streams);
        return false;
    }
    if (a->author_queue >= a->queue_max && a->queue_max > 1) {
        arena_error("--author-queue %u: must be below --queue %u, so that one author's uploads "
                    "never fill the queue", a->author_queue, a->queue_max);
        return false;
    }
    return true;
}

/* Where to listen: --http (loopback unless --public), --trusted-proxy,
 * --listen. */
static bool address_flags(arena_serve_args *a, const serve_flags *f)
{
    char err[512], host[64];
    bool loopback, v6, lo;
    uint16_t port;
    if (!arena_serve_http_addr(f->http, a->host, sizeof a->host, &a->port, &a->v6, &loopback, err,
                               sizeof err)) {
        arena_error("%s", err);
        return false;
    }
    if (!loopback && !f->is_public) {
        arena_error("--http %s is not a loopback address: give --public to serve other "
                    "machines (and put TLS in front: docs/server.md)", f->http);
        return false;
    }
    if (a->trusted_proxy) {
        /* The HOST part of --http's syntax, any port: one parser. */
        char probe[80];
        bool six = strchr(a->trusted_proxy, ':') != NULL;
        snprintf(probe, sizeof probe, "%s%s%s:1", six ? "[" : "", a->trusted_proxy,
                 six ? "]" : "");
        if (strlen(a->trusted_proxy) > 45 || strcmp(a->trusted_proxy, "localhost") == 0 ||
            !arena_serve_http_addr(probe, host, sizeof host, &port, &v6, &lo, err, sizeof err)) {
            arena_error("--trusted-proxy '%s': give the proxy's numeric IPv4 or IPv6 address",
                        a->trusted_proxy);
            return false;
        }
    }
    if (a->listen) {
        ref_hub_config hc = {.endpoint = a->listen, .curve = true};
        if (strncmp(a->listen, "tcp://", 6) != 0) {
            arena_error("--listen '%s': the server takes external bots on tcp://HOST:PORT",
                        a->listen);
            return false;
        }
        if (ref_hub_check_endpoint(&hc, err, sizeof err) != JA_OK) {
            arena_error("%s", err);
            return false;
        }
    }
    return true;
}

/* The server in its two steps (serve.h): a failure to prepare is the
 * user's (exit 2) but for the ladder database in use or failing; one of
 * the run is exit 1. */
static int serve(const arena_serve_args *a)
{
    arena_server *s = NULL;
    char err[1600];
    int status = EXIT_OK;
    int rc = arena_serve_prepare(&s, a, err, sizeof err);
    if (rc != JA_OK)
        status = rc == JA_EBUSY || rc == JA_EDB ? EXIT_RUNTIME : EXIT_USAGE;
    else if ((rc = arena_serve_run(s, err, sizeof err)) != JA_OK)
        status = EXIT_RUNTIME;
    arena_serve_close(&s, status == EXIT_OK);
    if (status != EXIT_OK)
        arena_error("%s", err);
    return status;
}

int cmd_serve(int argc, char **argv)
{
    arena_serve_args a = {0};
    serve_flags f;
    defaults(&a, &f);
    int rc = read_flags(argc, argv, &a, &f);
    if (rc != EXIT_OK)
        return rc < 0 ? EXIT_OK : rc;
    if (!game_flags(argc, argv, &a, &f) || !limit_flags(&a) ||
        !arena_common_options(&f.co, a.game, a.seats, &a.options))
        return EXIT_USAGE;
    a.move_ms = f.co.move_ms;
    a.have_seed = f.co.have_seed;
    a.seed = f.co.seed;
    if (!address_flags(&a, &f) || !arena_db_check(a.db_path))
        return EXIT_USAGE;
    char data_buf[4200];
    if (f.data == NULL) {
        snprintf(data_buf, sizeof data_buf, "%s.serve", a.db_path);
        f.data = data_buf;
    }
    const arena_output outs[] = {{"--data", f.data, ARENA_OUT_DIR}};
    if (!arena_outputs_check(outs, 1, NULL))
        return EXIT_USAGE;
    a.data_dir = f.data;
    return serve(&a);
}
