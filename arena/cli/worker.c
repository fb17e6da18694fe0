/* `referee`: a referee worker (docs/scale.md). It connects a DEALER to an
 * arena, says hello with its slots, and plays the jobs the arena sends, up
 * to `slots` at once (a thread each), with the same match loop and the same
 * job runner as the arena's own executors (arena_job_run), so a job's
 * result is the same whichever process plays it.
 *
 * The worker writes nothing that outlives it: a replay is written into a
 * private temporary directory, read back, sent in the result and deleted;
 * the arena writes the file and the database.
 *
 * Threads: the main thread owns the DEALER (ZeroMQ sockets are not thread
 * safe); each slot thread sends its results to the main thread over its own
 * inproc PUSH socket, and the main thread forwards them. With --inline (the
 * arena's own local workers) there is no slot thread: the main thread plays
 * each job between two looks at its sockets and sends the result itself,
 * which saves two thread wake-ups a match; it is silent while a match runs,
 * which only an arena that watches the process (waitpid) may accept. Bots are loaded
 * once per tournament setup (the job's "ctx" bytes) and swapped only when no
 * match is running. */
#include "cli/cli.h"
#include "run/slurm.h"
#include "run/worker_msg.h"

#include "jackarena/ja_error.h"
#include "ja_xalloc.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <sodium.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

static const char HELP[] =
    "usage: referee --connect ENDPOINT [options]\n"
    "\n"
    "A referee worker: plays the matches an arena hands out (docs/scale.md).\n"
    "`arena tournament --jobs J` starts its own workers; start this on other\n"
    "machines to join a tournament run with `arena tournament --workers ENDPOINT`.\n"
    "\n"
    "  --connect ENDPOINT  the arena's worker endpoint (tcp://HOST:PORT, ipc://PATH)\n"
    "  --server-key KEY    the arena's CurveZMQ public key (Z85, 40 characters;\n"
    "                      the arena prints it and keeps it in its --curve-dir)\n"
    "  --key-file FILE     the keys from FILE instead: lines `server KEY` (the\n"
    "                      arena's public key) and, optionally, `public KEY` and\n"
    "                      `secret KEY` (this worker's pair); only its owner may\n"
    "                      read it (mode 0600). `arena tournament --slurm-workers`\n"
    "                      writes one for its workers\n"
    "  --slots N           matches at once (default: the number of cores)\n"
    "  --inline            one match at a time, played by the thread that talks to\n"
    "                      the arena (no hand-over between threads, but no\n"
    "                      heartbeat while a match runs): for workers whose death\n"
    "                      the arena sees otherwise, as `arena tournament --jobs`\n"
    "                      starts its own; not with --slots above 1\n"
    "  -h, --help          this text\n"
    "\n"
    "With --server-key the worker's own key pair is JACKARENA_PUBLIC_KEY and\n"
    "JACKARENA_SECRET_KEY (Z85) from the environment, else a fresh one; an arena\n"
    "run with --workers-allow admits only the keys it lists, and a refused\n"
    "worker exits 1 at once.\n"
    "\n"
    "The worker exits when the arena says so, or when the arena has been silent\n"
    "for 10 s (heartbeats every second); exit status 1 then. A worker that never\n"
    "hears from the arena says so after those 10 s (a Curve arena needs\n"
    "--server-key). Told to quit (or on SIGINT or SIGTERM), it lets the matches\n"
    "in play end; one still in play 10 s later (a bot that does not answer) is\n"
    "left, said in one line, and the worker exits 1.\n";

static volatile sig_atomic_t g_stop;

static void on_signal(int sig)
{
    (void)sig;
    g_stop = 1;
}

static int64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int64_t now_ms(void)
{
    return now_us() / 1000;
}

static void werr(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void werr(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("referee: error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* A job waiting to run; ctx is a copy of its setup bytes. */
typedef struct wjob {
    arena_job job;
    bool export_wanted;
    char *ctx;
    size_t ctx_len;
} wjob;

typedef struct worker {
    void *zctx, *dealer, *pull;
    char host[256];
    char tmpdir[PATH_MAX];
    uint32_t slots;
    pthread_mutex_t mu;
    pthread_cond_t work;
    /* setup in use: its bytes, its bots, the context the jobs run in */
    char *cur;
    size_t cur_len;
    char cur_err[512];           /* non-empty: its bots could not be loaded */
    arena_bots *bots;
    worker_setup *setup;
    const char *names[WORKER_MAX_BOTS];
    ref_bot *slot_bots[WORKER_MAX_BOTS];
    arena_exec_ctx xc;
    /* jobs of the current setup, and jobs waiting for another setup */
    wjob *queue, *held;
    uint32_t n_queue, n_held, max_jobs;
    uint32_t running;
    bool quit;
    pthread_cond_t gone;         /* a slot thread has ended (n_gone) */
    uint32_t n_gone;
} worker;

static bool same_setup(const worker *w, const char *ctx, size_t len)
{
    return w->cur && w->cur_len == len && memcmp(w->cur, ctx, len) == 0;
}

/* Loads the setup ctx; on failure cur_err says why (jobs get it back as
 * their error). Called with no match running. */
static void load_setup(worker *w, const char *ctx, size_t len)
{
    if (w->bots)
        arena_bots_free(w->bots);
    free(w->cur);
    w->cur = ja_xmalloc(len);
    w->cur_len = len;
    w->cur_err[0] = '\0';
    memcpy(w->cur, ctx, len);
    memset(w->bots, 0, sizeof *w->bots);
    char why[256];
    worker_setup *s = w->setup;
    if (worker_setup_unpack(ctx, len, s, why, sizeof why) != JA_OK) {
        snprintf(w->cur_err, sizeof w->cur_err, "worker %s: %s", w->host, why);
        return;
    }
    const ja_game_rules *g = ja_game_find(s->game);
    if (!g) {
        snprintf(w->cur_err, sizeof w->cur_err, "worker %s has no game '%s' (built without it?)",
                 w->host, s->game);
        return;
    }
    char err[ARENA_BOTS_ERR_CAP];
    for (uint32_t i = 0; i < s->n_bots; i++) {
        if (!arena_cli_ok(arena_bots_add(w->bots, s->bots[i].spec, err, sizeof err), err) ||
            strcmp(w->bots->b[i].kind, "plugin") != 0) {
            snprintf(w->cur_err, sizeof w->cur_err,
                     "worker %s cannot play bot '%s': only plugins run on workers", w->host,
                     s->bots[i].spec);
            return;
        }
    }
    if (!arena_cli_ok(arena_bots_finish_names(w->bots, err, sizeof err), err) ||
        !arena_cli_ok(arena_bots_load(w->bots, g, err, sizeof err), err)) {
        snprintf(w->cur_err, sizeof w->cur_err,
                 "worker %s cannot load the bots (its stderr says why)", w->host);
        return;
    }
    for (uint32_t i = 0; i < s->n_bots; i++) {
        const ref_bot_info *bi = ref_bot_get_info(w->bots->b[i].bot);
        const char *have = bi->sha256 ? bi->sha256 : "";
        if (strcmp(have, s->bots[i].sha256) != 0) {
            snprintf(w->cur_err, sizeof w->cur_err,
                     "worker %s: bot '%s' is not the arena's file (sha256 %.12s, arena %.12s)",
                     w->host, s->bots[i].spec, have, s->bots[i].sha256);
            return;
        }
        w->slot_bots[i] = w->bots->b[i].bot;
        w->names[i] = s->bots[i].name;
    }
    /* Faulty seats' stderr tails stay in the worker (workers play plugin
     * bots only, whose tail is their log): bundles of worker-run matches
     * carry none (docs/scale.md). */
    arena_fault_cfg fc = {s->bank_ms, (uint8_t)s->on_fault, false, false};
    arena_exec_ctx xc = {g, s->options, s->move_ms, w->slot_bots, w->names,
                         s->replay ? w->tmpdir : NULL, s->tournament_id, s->max_faults, fc, NULL,
                         NULL};
    w->xc = xc;
}

/* Reads and deletes a replay file the job wrote; NULL when it cannot be
 * read or is too big to send. */
static char *take_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    *len = 0;
    long n = f && fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (n >= 0 && (uint64_t)n < WORKER_MAX_MSG / 2 && fseek(f, 0, SEEK_SET) == 0) {
        buf = ja_xmalloc((size_t)n + 1);
        if (fread(buf, 1, (size_t)n, f) == (size_t)n) {
            *len = (size_t)n;
        } else {
            free(buf);
            buf = NULL;
        }
    }
    if (f)
        fclose(f);
    unlink(path);
    return buf;
}

/* A played match's result is held back (by the main thread with --inline,
 * else by the slot thread that played it), to go with the next ones, while
 * another job is already queued, fewer than INLINE_HOLD are held, and the
 * match was short (under INLINE_HOLD_US): the results then leave together,
 * each message a frame of its own, one after the other, and the arena
 * answers with as many jobs at once, so that for cheap matches one wake-up
 * of each side's threads carries several instead of one (docs/scale.md).
 * Nothing is held while the worker waits, nor behind a long match; a
 * worker lost with results held loses nothing either: the arena hands
 * those matches out again. */
#define INLINE_HOLD 32
#define INLINE_HOLD_US 2000
static bool hold_result(bool more_queued, uint32_t held, int64_t played_us)
{
    return more_queued && held < INLINE_HOLD && played_us < INLINE_HOLD_US;
}

static void send_held(void *dealer, const msgpack_sbuffer *rsb, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        zmq_send(dealer, rsb[i].data, rsb[i].size, 0);
}

typedef struct slot_arg {
    worker *w;
    uint32_t index;
} slot_arg;

/* Plays job j (its setup already loaded, or failed: cur_err) and packs
 * its result into sb; frees what the job owned. Called without the lock. */
static void run_job(worker *w, wjob *j, bool failed, arena_job_result *r, msgpack_sbuffer *sb)
{
    char *replay = NULL;
    size_t replay_len = 0;
    if (failed) {
        memset(r, 0, sizeof *r);
        r->number = j->job.number;
        r->rc = JA_EMISMATCH;
        snprintf(r->err, sizeof r->err, "%s", w->cur_err);
    } else {
        arena_job_run(&w->xc, &j->job, j->export_wanted, r);
        if (r->rc == JA_OK && r->replay_path[0]) {
            replay = take_file(r->replay_path, &replay_len);
            if (!replay) {
                r->rc = JA_EIO;
                snprintf(r->err, sizeof r->err, "worker %s: cannot read back the replay",
                         w->host);
            }
        }
    }
    worker_pack_result(sb, r, replay, replay_len);
    free(replay);
    free(r->export_data);
    free(j->ctx);
}

/* Takes the next job of the queue; false when there is none. Called with
 * the lock held. */
static bool take_job(worker *w, wjob *j, bool *failed)
{
    if (w->n_queue == 0)
        return false;
    *j = w->queue[0];
    memmove(&w->queue[0], &w->queue[1], --w->n_queue * sizeof *w->queue);
    w->running++;
    *failed = w->cur_err[0] != '\0';
    return true;
}

/* A slot thread: plays the jobs of the queue, one at a time, and hands each
 * result to the main thread over its inproc PUSH. Like --inline, it holds
 * the results of short matches back while another job is queued
 * (hold_result), and hands them over together, so that the main thread
 * wakes once for several and forwards them one after the other, and the
 * arena answers with as many jobs at once (the I/O threads of both sides
 * woken once for several matches). It never waits for work with a result
 * held. */
static void *slot_main(void *arg)
{
    worker *w = ((slot_arg *)arg)->w;
    void *push = zmq_socket(w->zctx, ZMQ_PUSH);
    zmq_connect(push, "inproc://done");
    msgpack_sbuffer rsb[INLINE_HOLD];
    uint32_t n_rsb = 0;
    for (uint32_t i = 0; i < INLINE_HOLD; i++)
        msgpack_sbuffer_init(&rsb[i]);
    arena_job_result *r = ja_xmalloc(sizeof *r);
    pthread_mutex_lock(&w->mu);
    for (;;) {
        wjob j = {0};
        bool failed = false;
        while (!w->quit && !take_job(w, &j, &failed)) {
            if (n_rsb) { /* no job to play: what is held goes first */
                pthread_mutex_unlock(&w->mu);
                send_held(push, rsb, n_rsb);
                n_rsb = 0;
                pthread_mutex_lock(&w->mu);
                continue;
            }
            pthread_cond_wait(&w->work, &w->mu);
        }
        if (w->quit)
            break;
        pthread_mutex_unlock(&w->mu);
        int64_t t0 = now_us();
        run_job(w, &j, failed, r, &rsb[n_rsb++]);
        int64_t played_us = now_us() - t0;
        pthread_mutex_lock(&w->mu);
        w->running--;
        bool more = w->n_queue > 0;
        pthread_mutex_unlock(&w->mu);
        if (!hold_result(more, n_rsb, played_us)) {
            send_held(push, rsb, n_rsb);
            n_rsb = 0;
        }
        pthread_mutex_lock(&w->mu);
    }
    pthread_mutex_unlock(&w->mu);
    /* Stopping: what was played is handed over like any other result (the
     * main thread forwards nothing once its loop has ended). */
    send_held(push, rsb, n_rsb);
    for (uint32_t i = 0; i < INLINE_HOLD; i++)
        msgpack_sbuffer_destroy(&rsb[i]);
    free(r);
    zmq_close(push);
    pthread_mutex_lock(&w->mu);
    w->n_gone++;
    pthread_cond_broadcast(&w->gone);
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

/* Moves held jobs into the queue once their setup can be loaded. Called
 * with the lock held. */
static void pump(worker *w)
{
    while (w->n_held) {
        if (!same_setup(w, w->held[0].ctx, w->held[0].ctx_len)) {
            if (w->running || w->n_queue)
                return;
            load_setup(w, w->held[0].ctx, w->held[0].ctx_len);
        }
        uint32_t k = 0;
        for (uint32_t i = 0; i < w->n_held; i++) {
            if (same_setup(w, w->held[i].ctx, w->held[i].ctx_len))
                w->queue[w->n_queue++] = w->held[i];
            else
                w->held[k++] = w->held[i];
        }
        w->n_held = k;
        pthread_cond_broadcast(&w->work);
    }
}

static void on_job(worker *w, const worker_msg *m)
{
    pthread_mutex_lock(&w->mu);
    if (w->n_held + w->n_queue >= w->max_jobs) {
        pthread_mutex_unlock(&w->mu);
        fprintf(stderr, "referee: the arena sent more jobs than it may; job %u dropped\n",
                (unsigned)m->job.number);
        return;
    }
    wjob j = {m->job, m->export_wanted, ja_xmalloc(m->ctx_len), m->ctx_len};
    memcpy(j.ctx, m->ctx, m->ctx_len);
    w->held[w->n_held++] = j;
    pump(w);
    pthread_mutex_unlock(&w->mu);
}

/* Reads every message the arena has sent (without waiting): jobs are
 * queued, quit sets g_stop, a bad message is ignored with a note. True if
 * anything came. */
static bool read_arena(worker *w)
{
    bool heard = false;
    zmq_msg_t msg;
    for (;;) {
        zmq_msg_init(&msg);
        if (zmq_msg_recv(&msg, w->dealer, ZMQ_DONTWAIT) < 0) {
            zmq_msg_close(&msg);
            return heard;
        }
        heard = true;
        worker_msg m;
        char why[256];
        if (worker_msg_decode(zmq_msg_data(&msg), zmq_msg_size(&msg), &m, why, sizeof why) !=
            JA_OK)
            fprintf(stderr, "referee: ignored a bad message from the arena: %s\n", why);
        else if (m.type == WORKER_JOB)
            on_job(w, &m);
        else if (m.type == WORKER_QUIT)
            g_stop = 1;
        zmq_msg_close(&msg);
    }
}

/* Never blocks: a DEALER with no connection to the arena (a handshake
 * that keeps failing) would block a plain send for ever. False when the
 * message could not be queued. */
static bool send_buf(void *sock, const msgpack_sbuffer *sb)
{
    return zmq_send(sock, sb->data, sb->size, ZMQ_DONTWAIT) >= 0;
}

/* A Z85 key's 40 characters and their NUL. */
#define KEY_Z85 41

/* What the command line asks for (HELP). --key-file's keys are kept here
 * until the DEALER has them; its secret is then wiped. */
typedef struct worker_args {
    const char *endpoint, *server_key, *key_file;
    char file_server[KEY_Z85], file_pub[KEY_Z85], file_sec[KEY_Z85];
    uint32_t slots;
    bool inline_play, slots_given;
} worker_args;

/* The main thread's state (the slot threads see only the worker): the
 * flags, the monitor of the Curve handshake, the threads it started, the
 * results --inline holds back, and the clocks of the arena's silence and
 * of the heartbeat. */
typedef struct session {
    worker *w;
    worker_args *a;
    void *mon;                        /* the handshake's monitor, or NULL */
    pthread_t *th;
    slot_arg *args;
    uint32_t n_th;                    /* slots announced: threads started, or 1 with --inline */
    uint32_t n_threads;               /* slot threads started */
    arena_job_result *inline_r;       /* --inline: the result of the job in play */
    msgpack_sbuffer rsb[INLINE_HOLD]; /* --inline: results held back (hold_result) */
    uint32_t n_rsb;
    msgpack_sbuffer sb;               /* the hello and the heartbeats */
    bool hello_sent;                  /* else again at the next beat */
    bool heard;                       /* anything from the arena yet */
    int64_t last_heard, last_sent;
    int status;                       /* the exit status; EXIT_OK while the loop goes on */
} session;

/* Reads the flags into a. True to go on; false with the exit status in
 * *status after --help, or after a flag or an argument that cannot be
 * taken (said on stderr). */
static bool parse_flags(int argc, char **argv, worker_args *a, int *status)
{
    static const struct option opts[] = {
        {"connect", required_argument, NULL, 'c'}, {"server-key", required_argument, NULL, 'k'},
        {"slots", required_argument, NULL, 'n'},   {"help", no_argument, NULL, 'h'},
        {"key-file", required_argument, NULL, 'K'}, {"inline", no_argument, NULL, 'I'},
        {0, 0, 0, 0}};
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    a->slots = cores > 0 ? (uint32_t)cores : 1;
    *status = EXIT_USAGE;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'c': a->endpoint = optarg; break;
        case 'k': a->server_key = optarg; break;
        case 'K': a->key_file = optarg; break;
        case 'n':
            if (!arena_parse_u32(optarg, &a->slots) || a->slots == 0 ||
                a->slots > WORKER_MAX_SLOTS) {
                fprintf(stderr, "referee: error: --slots needs a number from 1 to %u, not '%s'\n",
                        WORKER_MAX_SLOTS, optarg);
                return false;
            }
            a->slots_given = true;
            break;
        case 'I': a->inline_play = true; break;
        case 'h': fputs(HELP, stdout); *status = EXIT_OK; return false;
        default:
            werr("unknown option or missing value: '%s' (see referee --help)", argv[optind - 1]);
            return false;
        }
    }
    if (optind < argc) {
        werr("unexpected argument '%s'", argv[optind]);
        return false;
    }
    *status = EXIT_OK;
    return true;
}

/* Checks the flags together (--inline caps the slots at 1), reads
 * --key-file, and checks the server's key and the endpoint's scheme.
 * EXIT_OK, or EXIT_USAGE with its line said. */
static int check_flags(worker_args *a)
{
    if (!a->endpoint) {
        werr("which arena? give --connect ENDPOINT");
        return EXIT_USAGE;
    }
    if (a->inline_play && a->slots_given && a->slots > 1) {
        werr("--inline plays one match at a time: not with --slots %u", (unsigned)a->slots);
        return EXIT_USAGE;
    }
    if (a->inline_play)
        a->slots = 1;
    if (a->key_file && a->server_key) {
        werr("--key-file and --server-key do not go together (the file gives the server key)");
        return EXIT_USAGE;
    }
    if (a->key_file) {
        char kerr[PATH_MAX + 200];
        if (arena_key_file_read(a->key_file, a->file_server, a->file_pub, a->file_sec, kerr,
                                sizeof kerr) != JA_OK) {
            werr("%s", kerr);
            return EXIT_USAGE;
        }
        a->server_key = a->file_server;
    }
    uint8_t key_bin[32];
    if (a->server_key &&
        (strlen(a->server_key) != 40 || !zmq_z85_decode(key_bin, a->server_key))) {
        werr("--server-key '%s' is not a Z85 public key (40 characters)", a->server_key);
        return EXIT_USAGE;
    }
    if (strncmp(a->endpoint, "tcp://", 6) != 0 && strncmp(a->endpoint, "ipc://", 6) != 0) {
        werr("--connect '%s': use tcp://HOST:PORT or ipc://PATH", a->endpoint);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

/* The worker's state before any socket: its queues (room for its
 * announced depth), its name (host and process id, as results and errors
 * name it), its private temporary directory for replays, and its lock.
 * EXIT_OK, or EXIT_RUNTIME (said) when the directory cannot be made. */
static int worker_init(worker *w, uint32_t slots)
{
    w->slots = slots;
    w->max_jobs = WORKER_DEPTH * slots + 8; /* its announced depth; a job sent again adds a few */
    w->queue = ja_xcalloc(w->max_jobs, sizeof *w->queue);
    w->held = ja_xcalloc(w->max_jobs, sizeof *w->held);
    w->bots = ja_xcalloc(1, sizeof *w->bots);
    w->setup = ja_xcalloc(1, sizeof *w->setup);
    if (gethostname(w->host, sizeof w->host) != 0)
        snprintf(w->host, sizeof w->host, "?");
    snprintf(w->host + strlen(w->host), sizeof w->host - strlen(w->host), ":%ld", (long)getpid());
    const char *tmp = getenv("TMPDIR");
    snprintf(w->tmpdir, sizeof w->tmpdir, "%s/ja-referee-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(w->tmpdir)) {
        werr("cannot make a temporary directory: %s", strerror(errno));
        return EXIT_RUNTIME;
    }
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->work, NULL);
    pthread_cond_init(&w->gone, NULL);
    return EXIT_OK;
}

/* SIGINT and SIGTERM end the loop (g_stop), and the worker ends as when
 * the arena says quit. */
static void catch_signals(void)
{
    struct sigaction sa = {0};
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

/* This worker's Curve key pair into pub and sec: --key-file's pair first,
 * else JACKARENA_PUBLIC_KEY and JACKARENA_SECRET_KEY (what an arena's
 * --workers-allow lists), as for bots; else a fresh pair. EXIT_OK, or the
 * exit status with its line said. */
static int own_keys(const session *s, char pub[KEY_Z85], char sec[KEY_Z85])
{
    const char *env_pub = getenv("JACKARENA_PUBLIC_KEY");
    const char *env_sec = getenv("JACKARENA_SECRET_KEY");
    if (s->a->file_pub[0]) {
        env_pub = s->a->file_pub;
        env_sec = s->a->file_sec;
    }
    uint8_t bin[32];
    if (env_pub || env_sec) {
        if (!env_pub || !env_sec || strlen(env_pub) != 40 || strlen(env_sec) != 40 ||
            !zmq_z85_decode(bin, env_pub) || !zmq_z85_decode(bin, env_sec)) {
            werr("JACKARENA_PUBLIC_KEY and JACKARENA_SECRET_KEY must both be Z85 keys (40 "
                 "characters)");
            rmdir(s->w->tmpdir);
            return EXIT_USAGE;
        }
        snprintf(pub, KEY_Z85, "%s", env_pub);
        snprintf(sec, KEY_Z85, "%s", env_sec);
    } else if (zmq_curve_keypair(pub, sec) != 0) {
        werr("CurveZMQ is not available in this ZeroMQ: %s", zmq_strerror(errno));
        return EXIT_RUNTIME;
    }
    return EXIT_OK;
}

/* Curve on the DEALER: the arena's public key and this worker's pair, and
 * a monitor of the handshake, so that a key the arena refuses is said at
 * once, not after the silence timeout. The secret keys are then wiped.
 * EXIT_OK, or the exit status with its line said. */
static int use_curve(session *s)
{
    worker *w = s->w;
    char pub[KEY_Z85], sec[KEY_Z85];
    int status = own_keys(s, pub, sec);
    if (status != EXIT_OK)
        return status;
    if (zmq_socket_monitor(w->dealer, "inproc://auth", ZMQ_EVENT_HANDSHAKE_FAILED_AUTH) == 0) {
        s->mon = zmq_socket(w->zctx, ZMQ_PAIR);
        if (s->mon && zmq_connect(s->mon, "inproc://auth") != 0) {
            zmq_close(s->mon);
            s->mon = NULL;
        }
    }
    if (zmq_setsockopt(w->dealer, ZMQ_CURVE_SERVERKEY, s->a->server_key, 40) != 0 ||
        zmq_setsockopt(w->dealer, ZMQ_CURVE_PUBLICKEY, pub, 40) != 0 ||
        zmq_setsockopt(w->dealer, ZMQ_CURVE_SECRETKEY, sec, 40) != 0) {
        werr("CurveZMQ is not available in this ZeroMQ: %s", zmq_strerror(errno));
        return EXIT_RUNTIME;
    }
    sodium_memzero(sec, sizeof sec);
    sodium_memzero(s->a->file_sec, sizeof s->a->file_sec);
    return EXIT_OK;
}

/* The sockets: the DEALER to the arena (with Curve when there is a server
 * key), connected, and the PULL the slot threads hand their results to.
 * EXIT_OK, or the exit status with its line said. */
static int open_sockets(session *s)
{
    worker *w = s->w;
    w->zctx = zmq_ctx_new();
    w->dealer = zmq_socket(w->zctx, ZMQ_DEALER);
    w->pull = zmq_socket(w->zctx, ZMQ_PULL);
    int64_t maxmsg = WORKER_MAX_JOB_MSG;
    int linger = 2000;
    zmq_setsockopt(w->dealer, ZMQ_MAXMSGSIZE, &maxmsg, sizeof maxmsg);
    zmq_setsockopt(w->dealer, ZMQ_LINGER, &linger, sizeof linger);
    int status = s->a->server_key ? use_curve(s) : EXIT_OK;
    if (status != EXIT_OK)
        return status;
    if (zmq_connect(w->dealer, s->a->endpoint) != 0) {
        werr("--connect '%s': %s", s->a->endpoint, zmq_strerror(errno));
        rmdir(w->tmpdir);
        return EXIT_USAGE;
    }
    zmq_bind(w->pull, "inproc://done");
    return EXIT_OK;
}

/* The slot threads, one a slot; with --inline none: the loop plays the
 * jobs itself, one at a time. Only the threads that started are
 * announced (n_th). */
static void start_slots(session *s)
{
    uint32_t slots = s->a->slots;
    s->th = ja_xcalloc(slots, sizeof *s->th);
    s->args = ja_xcalloc(slots, sizeof *s->args);
    for (uint32_t i = 0; i < INLINE_HOLD; i++)
        msgpack_sbuffer_init(&s->rsb[i]);
    if (s->a->inline_play) {
        s->inline_r = ja_xmalloc(sizeof *s->inline_r);
        s->n_th = 1;
        return;
    }
    for (uint32_t i = 0; i < slots; i++) {
        s->args[i] = (slot_arg){s->w, i};
        if (pthread_create(&s->th[i], NULL, slot_main, &s->args[i]) != 0)
            break;
        s->n_th++;
        s->n_threads++;
    }
}

/* Sends the hello: the slots, the depth, the worker's name and process.
 * A hello that cannot be queued yet goes again at the next beat. */
static void send_hello(session *s)
{
    worker_pack_hello(&s->sb, s->n_th ? s->n_th : 1, WORKER_DEPTH, s->w->host,
                      (int64_t)getpid());
    s->hello_sent = send_buf(s->w->dealer, &s->sb);
}

/* The first hello; the clocks of the silence and the heartbeat start. */
static void say_hello(session *s)
{
    msgpack_sbuffer_init(&s->sb);
    send_hello(s);
    s->last_heard = s->last_sent = now_ms();
}

/* Whether a job is queued (the lock taken). */
static bool job_queued(worker *w)
{
    pthread_mutex_lock(&w->mu);
    bool more = w->n_queue > 0;
    pthread_mutex_unlock(&w->mu);
    return more;
}

/* Sends the results --inline held back, in the order they were played. */
static void send_inline_held(session *s)
{
    send_held(s->w->dealer, s->rsb, s->n_rsb);
    s->n_rsb = 0;
    s->last_sent = now_ms();
}

/* Forwards every result the slots handed over (several at once when a
 * slot held them back), one after the other; then held jobs move on
 * (pump), the slots having perhaps finished the last jobs of a setup. */
static void forward_results(session *s, int64_t t)
{
    worker *w = s->w;
    zmq_msg_t msg;
    for (;;) {
        zmq_msg_init(&msg);
        if (zmq_msg_recv(&msg, w->pull, ZMQ_DONTWAIT) < 0) {
            zmq_msg_close(&msg);
            break;
        }
        zmq_msg_send(&msg, w->dealer, 0);
        zmq_msg_close(&msg);
        s->last_sent = t;
    }
    pthread_mutex_lock(&w->mu);
    pump(w);
    pthread_mutex_unlock(&w->mu);
}

/* --inline: plays the next job of the queue, if any, in this thread; then
 * held jobs move on, what the arena sent meanwhile is read, and the result
 * goes, or is held back with the next ones (hold_result). */
static void play_inline(session *s)
{
    worker *w = s->w;
    wjob j = {0};
    bool failed = false;
    pthread_mutex_lock(&w->mu);
    bool got = take_job(w, &j, &failed);
    pthread_mutex_unlock(&w->mu);
    if (!got)
        return;
    int64_t t0 = now_us();
    run_job(w, &j, failed, s->inline_r, &s->rsb[s->n_rsb++]);
    int64_t played_us = now_us() - t0;
    pthread_mutex_lock(&w->mu);
    w->running--;
    pump(w);
    pthread_mutex_unlock(&w->mu);
    if (read_arena(w))
        s->last_heard = now_ms();
    if (!hold_result(job_queued(w), s->n_rsb, played_us))
        send_inline_held(s);
}

/* Says why the arena is given up after its silence. Never a word from it
 * means no arena there, or one that cannot talk to this worker (a Curve
 * arena and a plain worker, or the wrong key: the handshake fails and
 * ZeroMQ retries quietly). */
static void say_lost(const session *s)
{
    const char *endpoint = s->a->endpoint;
    if (!s->heard && !s->a->server_key)
        werr("no answer from %s within %d s: a Curve arena needs --server-key (is an "
             "arena running there? One that refused this worker's hello, a worker of "
             "another version, says why in its own messages)", endpoint,
             WORKER_LOST_MS / 1000);
    else if (!s->heard)
        werr("no answer from %s within %d s: is an arena running there, and is "
             "--server-key its public key?", endpoint, WORKER_LOST_MS / 1000);
    else
        fprintf(stderr, "referee: the arena at %s has been silent for %d s; exiting\n",
                endpoint, WORKER_LOST_MS / 1000);
}

/* The heartbeat, or the hello again while it could not be queued. */
static void beat(session *s, int64_t t)
{
    if (!s->hello_sent) {
        send_hello(s);
    } else {
        worker_pack_simple(&s->sb, WORKER_HB);
        send_buf(s->w->dealer, &s->sb);
    }
    s->last_sent = t;
}

/* One turn of the loop: what --inline holds goes when no job waits; a
 * look at the sockets (a refused key ends the loop); the slots' results
 * forwarded and the arena's messages read; a job played with --inline;
 * then the arena's silence (which ends the loop) and the heartbeat. False
 * when the loop ends, with status EXIT_RUNTIME when the arena is lost. */
static bool loop_turn(session *s)
{
    worker *w = s->w;
    zmq_pollitem_t items[3] = {{w->dealer, 0, ZMQ_POLLIN, 0}, {w->pull, 0, ZMQ_POLLIN, 0},
                               {s->mon, 0, ZMQ_POLLIN, 0}};
    /* --inline: a job waiting means play it, not wait on the sockets. */
    bool job_waiting = s->a->inline_play && job_queued(w);
    if (!job_waiting && s->n_rsb)
        send_inline_held(s);
    /* --inline with a job waiting: no look at the sockets at all; the
     * last job's end read what the arena had sent (read_arena), and a
     * poll here, even one that does not wait, is several system calls
     * a match (ZeroMQ looks at each socket's mailbox, then polls). */
    int n = job_waiting ? 0 : zmq_poll(items, s->mon ? 3 : 2, WORKER_HB_MS);
    if (n < 0 && errno != EINTR)
        return false;
    if (n > 0 && s->mon && (items[2].revents & ZMQ_POLLIN)) {
        fprintf(stderr, "referee: the arena at %s refused this worker's CurveZMQ key (not in "
                "its --workers-allow list; set JACKARENA_PUBLIC_KEY/JACKARENA_SECRET_KEY)\n",
                s->a->endpoint);
        s->status = EXIT_RUNTIME;
        return false;
    }
    int64_t t = now_ms();
    if (n > 0 && (items[1].revents & ZMQ_POLLIN))
        forward_results(s, t);
    if (n > 0 && (items[0].revents & ZMQ_POLLIN) && read_arena(w)) {
        s->last_heard = t;
        s->heard = true;
    }
    if (s->a->inline_play && !g_stop)
        play_inline(s);
    if (t - s->last_heard > WORKER_LOST_MS) {
        say_lost(s);
        s->status = EXIT_RUNTIME;
        return false;
    }
    if (t - s->last_sent >= WORKER_HB_MS)
        beat(s, t);
    return true;
}

/* How long the matches in play have to end once the worker stops (told
 * to quit, or a signal): a bot that never answers would hold it for ever. */
#define QUIT_GRACE_S 10

/* Waits up to QUIT_GRACE_S for every slot thread to end; if one has not
 * (a match still in play), says so and ends the process at once. */
static void await_slots(session *s)
{
    worker *w = s->w;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += QUIT_GRACE_S;
    pthread_mutex_lock(&w->mu);
    int rc = 0;
    while (w->n_gone < s->n_threads && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&w->gone, &w->mu, &until);
    uint32_t left = s->n_threads - w->n_gone;
    pthread_mutex_unlock(&w->mu);
    if (left == 0)
        return;
    werr("%u match%s still in play %d s after the stop (a bot that does not answer); ending "
         "without %s", left, left == 1 ? "" : "es", QUIT_GRACE_S, left == 1 ? "it" : "them");
    rmdir(w->tmpdir);
    _exit(EXIT_RUNTIME);
}

/* Stops the slot threads (each hands over what it played first, which
 * no one forwards any more) and frees the jobs still waiting; a match
 * still in play after the grace ends the process (await_slots). */
static void stop_slots(session *s)
{
    worker *w = s->w;
    pthread_mutex_lock(&w->mu);
    w->quit = true;
    pthread_cond_broadcast(&w->work);
    pthread_mutex_unlock(&w->mu);
    await_slots(s);
    for (uint32_t i = 0; i < s->n_threads; i++)
        pthread_join(s->th[i], NULL);
    for (uint32_t i = 0; i < w->n_queue; i++)
        free(w->queue[i].ctx);
    for (uint32_t i = 0; i < w->n_held; i++)
        free(w->held[i].ctx);
}

/* The end. A lost arena ends the process at once: no one waits for the
 * matches still running. Else the slots stop, what --inline played still
 * goes (stopped by a signal), and everything is closed and freed. Returns
 * the exit status. */
static int finish(session *s)
{
    worker *w = s->w;
    if (s->status != EXIT_OK) {
        rmdir(w->tmpdir);
        _exit(s->status);
    }
    stop_slots(s);
    if (s->n_rsb)
        send_held(w->dealer, s->rsb, s->n_rsb);
    msgpack_sbuffer_destroy(&s->sb);
    for (uint32_t i = 0; i < INLINE_HOLD; i++)
        msgpack_sbuffer_destroy(&s->rsb[i]);
    free(s->inline_r);
    zmq_close(w->pull);
    if (s->mon)
        zmq_close(s->mon);
    zmq_close(w->dealer);
    zmq_ctx_term(w->zctx);
    arena_bots_free(w->bots);
    free(w->bots);
    free(w->setup);
    free(w->cur);
    free(w->queue);
    free(w->held);
    free(s->th);
    free(s->args);
    rmdir(w->tmpdir);
    return s->status;
}

int main(int argc, char **argv)
{
    static worker_args a;
    static worker w;
    int status;
    if (!parse_flags(argc, argv, &a, &status) || (status = check_flags(&a)) != EXIT_OK)
        return status;
    if ((status = worker_init(&w, a.slots)) != EXIT_OK)
        return status;
    catch_signals();
    session s = {.w = &w, .a = &a, .status = EXIT_OK};
    if ((status = open_sockets(&s)) != EXIT_OK)
        return status;
    start_slots(&s);
    say_hello(&s);
    while (!g_stop && s.n_th && loop_turn(&s))
        continue;
    return finish(&s);
}
